"""Escoba in the kernels: the capture-to-15 search against a brute force (small tables, which use the compressed
subset sums, and large ones, which use the search), its move bound on the largest table, and the look-ahead
heuristics' sum-to-15 reading (``can_take``, ``takers_of``, ``careful``'s ``sweepable``)."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from simcore import engine
from simcore.cards import cards_of, mask_of, parse_mask
from simcore.kernels.game import fill_rule_info
from simcore.kernels.workspace import SMALL_TABLE, WEIGHT, decision_space_size
from simcore.policies.careful import sweepable
from simcore.policies.heuristics import can_take, takers_of
from simcore.reference import escoba as ref
from simcore.variants.escoba import SPEC, game_info, most_moves

VALUES = {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 11: 8, 12: 9, 13: 10}
RULES = {f: SPEC.resolve({"forced_capture": f}) for f in ("none", "card", "player")}


def value(card: int) -> int:
    return VALUES[card // 4 + 1]


def brute_captures(card: int, table: list[int]) -> list[int]:
    """Every subset of the table (itertools) that makes 15 with the card, as masks."""
    found = []
    for k in range(1, len(table) + 1):
        for subset in itertools.combinations(table, k):
            if value(card) + sum(value(t) for t in subset) == 15:
                found.append(mask_of(subset))
    return sorted(found)


@pytest.mark.parametrize("forced", ["none", "card", "player"])
def test_kernel_captures_match_a_brute_force(forced):
    rules = SPEC.compile(RULES[forced])
    pack = cards_of(rules.pack)
    rng = random.Random(15)
    large = 0
    for _ in range(300):
        cards = rng.sample(pack, 16)
        hand, table = cards[:3], cards[3 : 3 + rng.randint(0, 13)]
        large += len(table) > SMALL_TABLE
        caps = {c: brute_captures(c, table) for c in hand}
        anyone = any(caps.values())
        expected = []
        for c in hand:
            expected += [(1 << c, t) for t in caps[c]]
            if forced == "none" or (forced == "card" and not caps[c]) or (forced == "player" and not anyone):
                expected.append((1 << c, 0))
        assert engine.legal_moves(rules, mask_of(hand), mask_of(table)) == sorted(expected)
    assert large > 30  # the search path (tables above SMALL_TABLE sum cards) is exercised


def test_move_bound_on_the_largest_table():
    """Two aces and a king against the whole rest of the pack: the hand with the most moves of all (found by
    counting every multiset of three values with subset-sum polynomials: 7,729), within ``most_moves`` (which
    bounds each card against the pack without that card only) and equal to the reference's count."""
    rules = SPEC.compile(RULES["none"])
    hand = parse_mask("Ac Ad Kc")
    moves = engine.legal_moves(rules, hand, rules.pack & ~hand)
    assert len(moves) == len(ref.legal_moves(RULES["none"], hand, rules.pack & ~hand)) == 7729
    assert len(moves) <= most_moves("none") == game_info(RULES["none"]).max_moves <= rules.max_moves


def _decision_space(rules):
    ps = np.zeros(decision_space_size(rules.max_moves), np.int64)
    fill_rule_info(ps, rules)
    return ps


def test_heuristics_read_the_sum_to_15_rule():
    """``can_take``: a card alone takes exactly a table whose values make 15 with it; ``takers_of``: the unseen
    cards that have a capture including a given table card, counted against the reference's captures."""
    rules = SPEC.compile(RULES["none"])
    ps = _decision_space(rules)
    pack = cards_of(rules.pack)
    rng = random.Random(4)
    for _ in range(300):
        cards = rng.sample(pack, 20)
        table, unseen = cards[: rng.randint(1, 5)], cards[5:]
        for u in unseen[:6]:
            whole = value(u) + sum(value(t) for t in table) == 15
            assert can_take(ps, u, mask_of(table)) == whole
        for t in table:
            expected = sum(any(t in s for s in ref.captures(u, table)) for u in unseen)
            assert takers_of(ps, t, mask_of(table), mask_of(unseen)) == expected


def test_careful_sees_escoba_sweeps():
    """A lone table 5: a ten (king) sweeps it in Escoba, another 5 does not (unlike the games of equal ranks)."""
    rules = SPEC.compile(RULES["none"])
    api_rules = _decision_space(rules)[WEIGHT:]
    assert sweepable(api_rules, parse_mask("5c"), parse_mask("Kd"))
    assert not sweepable(api_rules, parse_mask("5c"), parse_mask("5d 4h"))
    assert sweepable(api_rules, parse_mask("5c 4h"), parse_mask("6d"))
