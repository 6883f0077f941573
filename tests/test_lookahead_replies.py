"""``lookahead`` values each sampled reply hand from its cards' best moves (``heuristics.card_replies`` and
``hand_reply``) instead of listing the hand's moves (``best_reply``): both must give the same value, to the bit, on
random positions of every one-card-a-turn game and compulsion rule (the decisions, and so the rows, stay the same)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_quick_policies import CASES  # every one-card-a-turn game and compulsion rule

from simcore.cards import cards_of
from simcore.kernels.game import fill_rule_info
from simcore.kernels.workspace import VIEW, decision_space_size
from simcore.policies import parse_policy, policy_arrays
from simcore.policies.heuristics import V_PILES, best_reply, card_replies, hand_reply, trail_values
from simcore.variants import get_variant
from simcore.variants.base import TURNS_ONE_CARD


@pytest.mark.parametrize(("variant", "overrides"), CASES)
def test_replies_by_card_equal_the_listed_best_reply(variant, overrides):
    """1,000 random positions per rule set: piles that settle the majorities or not, tables of 0..10 cards, and
    16 sampled hands of 1..3 cards (Foracio up to 10) scored per card against the listed replies."""
    spec = get_variant(variant)
    resolved = spec.resolve(overrides)
    rules = spec.compile(resolved)
    assert rules.turns == TURNS_ONE_CARD
    ps = np.zeros(decision_space_size(rules.max_moves), np.int64)
    fill_rule_info(ps, rules)
    _, params = policy_arrays([parse_policy("lookahead", variant, resolved)] * rules.players, resolved)
    pack = cards_of(rules.pack)
    rng = random.Random(7)
    best_of, trail_of = np.empty(52), np.empty(52)
    hands = trails_only = 0
    for _ in range(1000):
        cards = rng.sample(pack, len(pack))
        table = sum(1 << c for c in cards[: rng.choice([0, 1, 2, 3, 4, 5, 6, 8, 10])])
        rest = cards[10:]
        for side in range(4):  # piles of 0..25 cards: some majorities settled, some open
            pile = rest[: rng.randint(0, 25 if side == 0 else 8)]
            ps[VIEW + V_PILES + side] = sum(1 << c for c in pile)
            rest = rest[len(pile) :]
        size = rng.randint(1, 10 if variant in ("foracio", "scopone") else 3)
        samples = [sum(1 << c for c in rng.sample(rest, min(size, len(rest)))) for _ in range(16)]
        samples = [h for h in samples if h]
        union = 0
        for h in samples:
            union |= h
        seat = rng.randrange(rules.players)
        trail_values(ps, params, seat, union, trail_of)
        movers = card_replies(ps, params, seat, union, table, best_of, trail_of)
        for hand in samples:
            assert hand_reply(hand, movers, best_of, trail_of) == best_reply(ps, params, seat, hand, table)
            hands += 1
            trails_only += (hand & movers) == 0
    assert hands > 10_000
    if resolved["forced_capture"] == "player":  # hands none of whose cards can capture: only their trails
        assert trails_only > 100
