"""Card encoding shared by every game: one 52-card universe, int64 bitmasks.

Bit layout (rank-major, so one rank is one 4-bit nibble and a suit is every 4th bit)::

    bit:   0  1  2  3 | 4  5  6  7 | ... | 48 49 50 51
    card: Ac Ad Ah As | 2c 2d 2h 2s | ... | Kc Kd Kh Ks

    card_id = (rank - 1) * 4 + suit,  rank 1..13 (A..K),  suit c=0 d=1 h=2 s=3

A hand, table, pile or pack is an ``int64`` mask of those bits (never ``uint64``: mixed with int64 in Numba it
types as float). A 40-card Scopa pack is the mask without the 8, 9 and 10 nibbles.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "cdhs"
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
N_CARDS = 52

CARD_RANK = np.array([c // 4 + 1 for c in range(N_CARDS)], dtype=np.int64)
CARD_SUIT = np.array([c % 4 for c in range(N_CARDS)], dtype=np.int64)
RANK_MASK = np.array([0] + [0xF << (4 * (r - 1)) for r in range(1, 14)], dtype=np.int64)  # index 1..13
SUIT_MASK = np.array([sum(1 << (4 * r + s) for r in range(13)) for s in range(4)], dtype=np.int64)
FULL_PACK = (1 << N_CARDS) - 1


def card_id(rank: int, suit: int) -> int:
    """Card id of a rank (1..13) and suit (0..3)."""
    return (rank - 1) * 4 + suit


def parse_card(text: str) -> int:
    """Parse ``7d``, ``Td`` or ``10d`` (case-insensitive rank) into a card id."""
    t = text.strip()
    if len(t) == 3 and t[:2] == "10":
        t = "T" + t[2]
    if len(t) != 2 or t[0].upper() not in RANK_CHARS or t[1].lower() not in SUIT_CHARS:
        raise ValueError(f"not a card: {text!r} (expected rank A23456789TJQK then suit cdhs, e.g. 7d)")
    return card_id(RANK_CHARS.index(t[0].upper()) + 1, SUIT_CHARS.index(t[1].lower()))


def format_card(card: int) -> str:
    """Two-character name of a card id, e.g. ``7d``."""
    return RANK_CHARS[card // 4] + SUIT_CHARS[card % 4]


def mask_of(cards: Iterable[int]) -> int:
    """Bitmask of card ids."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def parse_mask(text: str) -> int:
    """Bitmask of a space- or comma-separated list such as ``"7d 4c 3h"``."""
    return mask_of(parse_card(t) for t in text.replace(",", " ").split())


def cards_of(mask: int) -> list[int]:
    """Card ids of a mask, ascending (a walk over its set bits: the reference engines and the traces ask millions of
    times, mostly for a few cards)."""
    mask &= (1 << N_CARDS) - 1
    cards = []
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)
        mask ^= low
    return cards


def format_mask(mask: int) -> list[str]:
    """Card names of a mask, ascending by id."""
    return [format_card(c) for c in cards_of(mask)]


def pack_mask(ranks: Iterable[int]) -> int:
    """Mask of every suit of the given ranks."""
    m = 0
    for r in ranks:
        m |= int(RANK_MASK[r])
    return m
