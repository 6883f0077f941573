"""Pieces every reference engine shares: card fields and card sets, seats and sides, the shuffle of the
random-stream contract, dealing off the stock, the game's winner, policy checks.

Kept deliberately plain: each game's module imports these names, so a game's rules read as one file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from simcore.cards import cards_of, format_card
from simcore.errors import ConfigError
from simcore.reference.rng import Stream

# ---------------------------------------------------------------------------------------------- cards


def rank_of(card: int) -> int:
    """Rank 1..13 of a card id."""
    return card // 4 + 1


def suit_of(card: int) -> int:
    """Suit 0..3 (c, d, h, s) of a card id."""
    return card % 4


def as_cards(cards: int | Iterable[int]) -> frozenset[int]:
    """A set of card ids from an int bitmask or an iterable of ids."""
    if isinstance(cards, int):
        return frozenset(cards_of(cards))
    return frozenset(cards)


def card_names(cards: Iterable[int]) -> list[str]:
    """Trace form of a card list: names sorted by card id."""
    return [format_card(c) for c in sorted(cards)]


# ---------------------------------------------------------------------------------------------- seats


def side_of(seat: int, players: int) -> int:
    """Side of a seat (A.2): partners opposite with 4 players, otherwise one seat per side."""
    return seat % 2 if players == 4 else seat


def n_sides(players: int) -> int:
    """Number of sides: 2 with 4 players (partnerships), otherwise one per player."""
    return 2 if players == 4 else players


def sides_of(players: int) -> list[list[int]]:
    """Seats of each side, as in the trace header."""
    return [[s for s in range(players) if side_of(s, players) == side] for side in range(n_sides(players))]


def playing_order(first: int, players: int) -> list[int]:
    """Seats in playing order starting at ``first`` (A.2: seat s+1 plays after seat s)."""
    return [(first + k) % players for k in range(players)]


# -------------------------------------------------------------------------------------------- dealing


def shuffle(pack: Iterable[int], stream: Stream) -> list[int]:
    """The pack in ascending id order, Fisher-Yates shuffled: for i = n-1..1, swap i and ``bounded(i + 1)``."""
    deck = sorted(pack)
    for i in range(len(deck) - 1, 0, -1):
        j = stream.bounded(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def take_from_stock(stock: list[int], count: int) -> list[int]:
    """The next ``count`` cards off the front of ``stock`` (removed in place)."""
    cards = stock[:count]
    del stock[:count]
    return cards


def deal_round(stock: list[int], order: Sequence[int], size: int) -> dict[int, list[int]]:
    """``size`` cards per seat off the front of ``stock`` (in place), seats in ``order``; the dict keeps that
    order (it is the order of the trace's hand events)."""
    return {seat: take_from_stock(stock, size) for seat in order}


# ------------------------------------------------------------------------------------------- the game


def game_winner(totals: Sequence[int], target: int) -> int | None:
    """A.5: the side with the unique top total if that total reaches ``target``, else None (another deal)."""
    top = max(totals)
    if top >= target and list(totals).count(top) == 1:
        return list(totals).index(top)
    return None


def check_policy_names(policies: Sequence[str], players: int, known: Iterable[str]) -> list[str]:
    """Validate one known policy name per seat."""
    names = list(policies)
    known = list(known)
    if len(names) != players:
        raise ConfigError(f"{players} players need {players} policies, got {len(names)}: {names}")
    for name in names:
        if name not in known:
            raise ConfigError(f"unknown policy {name!r} (known: {', '.join(known)})")
    return names
