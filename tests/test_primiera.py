"""The primiera's byte-wise kernels (``scoring.suit_bests``, ``primiera_total``) against the card-by-card loop."""

from __future__ import annotations

import random

import pytest

from simcore.kernels.scoring import primiera_total, suit_bests
from simcore.variants import VARIANTS, get_variant


def best_in_suit(pile: int, suit: int, values) -> int:
    """The card-by-card definition: the highest primiera value among the pile's cards of ``suit`` (0 if none)."""
    return max((int(values[c]) for c in range(suit, 52, 4) if (pile >> c) & 1), default=0)


def primiera_tables():
    for name in VARIANTS:
        spec = get_variant(name)
        rules = spec.compile(spec.resolve({}))
        if rules.primiera_value.any():
            yield name, rules


@pytest.mark.parametrize(("name", "rules"), list(primiera_tables()))
def test_suit_bests_and_totals_equal_the_card_by_card_loop(name, rules):
    values = rules.primiera_value
    assert values.max() < 64  # four bests sum within a byte, and the byte-wise max needs values below 128
    cards = [c for c in range(52) if (rules.pack >> c) & 1]
    rng = random.Random(7)
    for k in range(3000):
        pile = sum(1 << c for c in rng.sample(cards, rng.randint(0, len(cards) if k % 10 == 0 else 24)))
        bests = [best_in_suit(pile, suit, values) for suit in range(4)]
        packed = suit_bests(pile, values)
        assert [(packed >> (8 * suit)) & 255 for suit in range(4)] == bests, (name, hex(pile))
        assert primiera_total(pile, values) == (-1 if 0 in bests else sum(bests)), (name, hex(pile))
