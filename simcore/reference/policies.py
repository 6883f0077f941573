"""The "random" and "greedy" policies as every reference engine plays them (RULES.md A.7).

A policy gets a view (its hand, the table, the sorted legal moves, the rules) and its seat's stream, and returns
the index of its move. The greedy heuristic is one formula; each game supplies its card weights
(``simcore.variants.<game>.card_weight``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from simcore.cards import cards_of
from simcore.reference.rng import Stream

Move = tuple[int, int]


class PolicyView(NamedTuple):
    """Everything a policy may see: its own hand, the table, the legal moves (sorted) and the rules."""

    hand: frozenset[int]
    table: frozenset[int]
    moves: tuple[Move, ...]
    rules: Mapping[str, Any]


def choose_random(view: Any, stream: Stream) -> int:
    """Uniform move: index ``stream.bounded(len(moves))``, drawn even when there is a single move."""
    return stream.bounded(len(view.moves))


def greedy_value(play_mask: int, take_mask: int, weight: Callable[[int], int]) -> int:
    """Greedy value of a move: with ``take_mask`` != 0, 1000 per card taken plus the weights of the taken and
    played cards; a trail scores minus the played cards' weight."""
    if take_mask == 0:
        return -sum(weight(c) for c in cards_of(play_mask))
    return 1000 * take_mask.bit_count() + sum(weight(c) for c in cards_of(take_mask | play_mask))


def first_best(scores: Iterable[int]) -> int:
    """Index of the highest score; ties go to the first (the first move in sorted order)."""
    scores = list(scores)
    return scores.index(max(scores))
