"""Pieces every reference engine shares: card fields, the shuffle of the random-stream contract, policy checks.

Kept deliberately plain: each game's module re-exports these names, so a game's rules read as one file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from simcore.errors import ConfigError
from simcore.reference.rng import Stream


def rank_of(card: int) -> int:
    """Rank 1..13 of a card id."""
    return card // 4 + 1


def suit_of(card: int) -> int:
    """Suit 0..3 (c, d, h, s) of a card id."""
    return card % 4


def shuffle(pack: Iterable[int], stream: Stream) -> list[int]:
    """The pack in ascending id order, Fisher-Yates shuffled: for i = n-1..1, swap i and ``bounded(i + 1)``."""
    deck = sorted(pack)
    for i in range(len(deck) - 1, 0, -1):
        j = stream.bounded(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


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
