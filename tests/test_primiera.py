"""The primiera's kernels (``scoring.suit_bests``, byte-wise; ``primiera_total``, down ``Rules.primiera_order``)
against the card-by-card loop."""

from __future__ import annotations

import random

import numpy as np
import pytest

from simcore.kernels.scoring import primiera_total, suit_bests
from simcore.variants import VARIANTS, get_variant
from simcore.variants.base import primiera_order


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
        assert primiera_total(pile, rules) == (-1 if 0 in bests else sum(bests)), (name, hex(pile))


def test_the_primiera_order_lists_the_scoring_ranks_most_points_first():
    values = np.zeros(52, dtype=np.int64)
    for rank, points in {0: 16, 1: 12, 6: 21, 12: 10}.items():
        values[4 * rank : 4 * rank + 4] = points
    assert primiera_order(values) == 7 | (1 << 4) | (2 << 8) | (13 << 12)
    assert primiera_order(np.zeros(52, dtype=np.int64)) == 0
    values[5] = 3  # one card of a rank scoring apart from the others: the order cannot stand for the table
    with pytest.raises(ValueError, match="same points"):
        primiera_order(values)
