"""Capture search and capture compulsion shared by the reference engines (RULES.md A.3, A.4).

Plain Python on sets of card ids. A game supplies its card values; what differs by game (Skopa's and Foracio's
court cards, Foracio's ace, Kaszinó's multi-card exchanges) stays in the game's module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from simcore.cards import mask_of
from simcore.errors import ConfigError

Move = tuple[int, int]
Value = Callable[[int], int]


def subsets_with_sum(cards: Iterable[int], total: int, value: Value) -> list[frozenset[int]]:
    """Every non-empty set of ``cards`` whose values add up to ``total``; cards of value 0 never enter a sum.

    A depth-first walk over the cards in id order that only extends sets whose sum stays within ``total``
    (values are >= 1), so it visits each qualifying set once without enumerating the whole power set. The
    sets come in the order of that walk.
    """
    ordered = sorted(c for c in cards if value(c) > 0)
    values = [value(c) for c in ordered]
    found: list[frozenset[int]] = []

    def extend(start: int, chosen: tuple[int, ...], remaining: int) -> None:
        if remaining == 0:
            found.append(frozenset(chosen))
            return
        for i in range(start, len(ordered)):
            if values[i] <= remaining:
                extend(i + 1, (*chosen, ordered[i]), remaining - values[i])

    if total > 0:
        extend(0, (), total)
    return found


def sum_captures(table: Iterable[int], total: int, value: Value, single_card_priority: bool) -> list[frozenset[int]]:
    """The sets of table cards a card of value ``total`` takes by sum.

    With ``single_card_priority``, if table cards of that value exist, only those single cards (in id order);
    otherwise every set of :func:`subsets_with_sum` (single equal cards included).
    """
    if single_card_priority:
        singles = [frozenset({t}) for t in sorted(table) if value(t) == total]
        if singles:
            return singles
    return subsets_with_sum(table, total, value)


def same_rank_captures(card: int, table: Iterable[int], court_takes: str) -> list[frozenset[int]]:
    """Skopa R5 and Foracio F4: a court card takes one table card of its own rank (one set per such card, in id
    order), or with ``court_takes="all_same_rank"`` all of them in one set."""
    same = sorted(t for t in table if t // 4 == card // 4)
    if court_takes == "all_same_rank":
        return [frozenset(same)] if same else []
    if court_takes != "one":
        raise ConfigError(f"court_takes {court_takes!r} is not one or all_same_rank")
    return [frozenset({t}) for t in same]


def may_trail(forced: str, card_can_capture: bool, any_card_can_capture: bool) -> bool:
    """A.4: whether a hand card may be trailed under ``forced_capture``.

    "player": only when no hand card can capture; "card": when this card cannot capture; "none": always.
    """
    if forced == "none":
        return True
    if forced == "card":
        return not card_can_capture
    if forced == "player":
        return not any_card_can_capture
    raise ConfigError(f"forced_capture {forced!r} is not player, card or none")


def capture_or_trail(
    takes: Mapping[int, list[frozenset[int]]], forced: str, play: Callable[[int], int]
) -> list[tuple[int, int]]:
    """The moves of one-card plays, sorted: each card's captures ``(play(card), mask of taken)``, and its
    trail ``(play(card), 0)`` where :func:`may_trail` allows it; ``takes`` maps each hand card to its captures."""
    any_card_can_capture = any(takes.values())
    moves = []
    for card, sets in takes.items():
        moves.extend((play(card), mask_of(taken)) for taken in sets)
        if may_trail(forced, bool(sets), any_card_can_capture):
            moves.append((play(card), 0))
    return sorted(moves)
