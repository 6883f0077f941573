"""``simcore.policies.quick`` picks the very move ``choose`` picks from the listed moves, with the same draws.

The family loop asks ``quick_choice`` for random and greedy seats and for the Monte Carlo rollouts' epsilon-greedy
(``POLICY_ROLLOUT``, here with epsilon 0.5 so that both of its branches are taken) instead of listing the moves;
on random positions of Scopa, Skopa and Foracio (every compulsion rule, with and without single-card priority, tables up
to the quick limit and beyond) both paths must give the same (play, take) and leave the seat's stream in the same
state.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from simcore.cards import cards_of
from simcore.kernels.captures import (
    LANE_SUMS,
    REACH_TABLE,
    WALK_BELOW,
    append_reached_sums,
    append_sum_subsets,
    mask_value,
    nth_summing_subset,
    store_prefix_lanes,
    table_reach,
)
from simcore.kernels.game import fill_rule_info
from simcore.kernels.moves import exchange_moves, legal_moves, move_rules
from simcore.kernels.workspace import (
    MOVES,
    RNG,
    TRAIL_CLASSES,
    TRAIL_CLASSES_MAX,
    WEIGHT,
    decision_space_size,
    seat_space,
)
from simcore.policies.heuristics import P_EPSILON
from simcore.policies.kernels import POLICY_GREEDY, POLICY_RANDOM, POLICY_ROLLOUT, choose, explores
from simcore.policies.quick import (
    BY_RANK_HAND,
    GREEDY_BY_RANK_HAND,
    GREEDY_RANKS_ONLY_HAND,
    QUICK_TABLE,
    SLOTS,
    drawn_byte_slot,
    lanes_after,
    quick_choice,
    quick_exchange_choice,
    subset_sum_lanes,
)
from simcore.rng import bounded, stream_state
from simcore.variants import VARIANTS, get_variant

CASES = [
    ("scopa", {}),
    ("scopa", {"forced_capture": "none"}),
    ("scopa", {"single_card_priority": False}),
    ("skopa", {}),
    ("skopa", {"forced_capture": "card", "single_card_priority": True}),
    ("skopa", {"forced_capture": "none"}),
    ("foracio", {}),
    ("foracio", {"forced_capture": "none"}),
    ("foracio", {"ace_on_empty": "keep"}),
    ("foracio", {"ace_on_empty": "stay"}),
    ("foracio", {"ace_on_empty": "keep", "forced_capture": "none"}),
    ("foracio", {"ace_on_empty": "stay", "forced_capture": "none"}),
    ("scopone", {}),
    ("scopone", {"ace_takes_all": True}),
    ("scopone", {"ace_takes_all": True, "ace_on_empty": "choice", "forced_capture": "none", "ace_scopa": True}),
    ("scopone", {"ace_takes_all": True, "ace_on_empty": "stay", "single_card_priority": False}),
    ("escoba", {}),
    ("escoba", {"forced_capture": "card"}),
    ("escoba", {"forced_capture": "player"}),
    # Part B options that change the moves: courts taking all their rank, table aces in sums
    ("skopa", {"court_takes": "all_same_rank"}),
    ("skopa", {"court_takes": "all_same_rank", "forced_capture": "none"}),
    ("foracio", {"court_takes": "all_same_rank", "table_ace_in_sums": True}),
    ("foracio", {"table_ace_in_sums": True, "forced_capture": "none", "ace_on_empty": "stay"}),
]


def decision_setup(variant, overrides, weights=None):
    """(rules, move rules, decision space with the rules' slots filled as the batch kernel fills them, policy
    parameters with epsilon 0.5, the pack's cards) of a rule set: what the quick and the listed choices are asked
    on. ``weights``: card weights in place of the game's."""
    spec = get_variant(variant)
    rules = spec.compile(spec.resolve(overrides))
    if weights is not None:
        rules = rules._replace(card_weight=np.asarray(weights, np.int64))
    ps = np.zeros(decision_space_size(rules.max_moves), np.int64)
    fill_rule_info(ps, rules)
    params = np.zeros((4, 64))
    params[0, P_EPSILON] = 0.5
    return rules, move_rules(rules), ps, params, cards_of(rules.pack)


# card weights that are not the game's: 13 weights, more than the trail classes hold (greedy's rank slots scan the
# trailing cards), and 3 weights in an order of their own
MANY_WEIGHTS = [(c * 7) % 13 for c in range(52)]
FEW_WEIGHTS = [(c * 5) % 3 for c in range(52)]


@pytest.mark.parametrize(
    ("variant", "overrides", "weights"),
    [(v, o, None) for v, o in CASES] + [("foracio", {}, MANY_WEIGHTS), ("foracio", {}, FEW_WEIGHTS)],
)
def test_quick_choice_equals_the_listed_choice(variant, overrides, weights):
    """3,000 random positions per rule set: hands of 1..4 cards (Foracio and Scopone up to 12 and 10; up to 10 in
    every game where the rank slots are tried: greedy's take hands of more than ``SLOTS`` cards), tables of 0..10 cards;
    random and greedy walk the hand each of their ways in turn (the ``hand_size`` they are told)."""
    rules, rs, ps, params, pack = decision_setup(variant, overrides, weights)
    rng = random.Random(11)
    quick = aces = slots = random_ranks = greedy_ranks = last_cards = 0
    for k in range(3000):
        cards = rng.sample(pack, 24)
        largest = {"foracio": 12, "scopone": 10}.get(variant, 10 if k % 5 >= 2 else 4)  # k % 5: the size told
        hand_cards = cards[: rng.randint(1, largest)]  # cards[12:]: the table
        hand = sum(1 << c for c in hand_cards)
        table = sum(1 << c for c in cards[12 : 12 + rng.choice([0, 1, 2, 3, 4, 5, 6, 8, 9, 10])])
        for policy in (POLICY_RANDOM, POLICY_GREEDY, POLICY_ROLLOUT):
            ps[RNG + 1] = stream_state(5, k, 1)
            # random's three ways, all exact: slots for hands of up to 4 cards, card by card, rank slots (from 10);
            # greedy's two: card by card, rank slots (from 10, down to 5 cards left below 13)
            n_cards = len(hand_cards)
            sizes = (n_cards, max(n_cards, SLOTS), max(n_cards, BY_RANK_HAND - 1), max(n_cards, BY_RANK_HAND), 13)
            hand_size = sizes[k % 5]
            full = None if k // 5 % 2 else True  # random's rank slots are compiled only without the listed policies
            epsilon = params[0, P_EPSILON]
            play, take = quick_choice(ps, 0, hand, table, rs, policy, epsilon, hand_size, rules.pack, full)
            after_quick = ps[RNG + 1]
            if play < 0:  # too large a table: the loop lists the moves instead
                assert bin(table & rs.sum_mask).count("1") > QUICK_TABLE
                continue
            aces += bool(rs.ace_sweeps and hand & 0xF)
            slots += policy != POLICY_GREEDY and hand_size <= SLOTS
            # greedy walks a large hand's last SLOTS cards below GREEDY_RANKS_ONLY_HAND (``SLOTS``)
            walked = n_cards <= SLOTS and hand_size < GREEDY_RANKS_ONLY_HAND
            random_ranks += policy == POLICY_RANDOM and hand_size >= BY_RANK_HAND and full is None
            greedy_ranks += policy == POLICY_GREEDY and hand_size >= GREEDY_BY_RANK_HAND and not walked
            last_cards += policy == POLICY_GREEDY and hand_size >= GREEDY_BY_RANK_HAND and walked
            quick += 1
            ps[RNG + 1] = stream_state(5, k, 1)
            n = legal_moves(seat_space(ps), hand, table, rs)
            i = choose(ps, policy, params, n, 0)
            expected = (int(ps[MOVES + 2 * i]), int(ps[MOVES + 2 * i + 1]))
            assert (play, take) == expected, (variant, overrides, policy, cards_of(hand), cards_of(table))
            assert ps[RNG + 1] == after_quick
    assert quick > 4500  # most positions take the quick path
    assert aces > 3000 or not rs.ace_sweeps  # the aces that take all (Foracio, Scopone) are decided quick too
    assert slots > 300  # random's slots (``quick_slots``), empty slots included
    assert random_ranks > 150  # random's rank slots (``quick_rank_slots``)
    assert greedy_ranks > 300  # greedy's rank slots (``quick_greedy_ranks``)
    assert last_cards > 100  # greedy's walk over the last cards of a large hand


KASZINO_CASES = [
    {},
    {"forced_capture": "none"},
    {"max_sum": 0},
    {"max_sum": 10, "max_hand_cards": 1},
    {"max_sum": 15, "max_hand_cards": 2, "forced_capture": "none"},
    {"max_sum": 20},
]


@pytest.mark.parametrize("overrides", KASZINO_CASES)
def test_quick_exchange_equals_the_listed_choice(overrides):
    """Kaszinó: 3,000 random positions per rule set, hands of 1..3 cards, tables of 0..11 cards, the double move's
    forced trail too: ``quick_exchange_choice`` gives the move ``choose`` picks among ``exchange_moves``' list, and
    leaves the seat's stream in the same state; it declines (no draw made) only what its lanes cannot count."""
    rules, rs, ps, params, pack = decision_setup("kaszino", overrides)
    rng = random.Random(12)
    quick = declined = several = 0
    for k in range(3000):
        cards = rng.sample(pack, 16)
        hand = sum(1 << c for c in cards[: rng.randint(1, 3)])
        table = sum(1 << c for c in cards[3 : 3 + rng.choice([0, 1, 2, 3, 4, 5, 6, 8, 10, 11])])
        trail_only = k % 10 == 9
        for policy in (POLICY_RANDOM, POLICY_GREEDY, POLICY_ROLLOUT):
            ps[RNG + 1] = stream_state(7, k, 1)
            lo, hi = subset_sum_lanes(table & rs.sum_mask, rs.value_by_rank)  # the deal loop's lanes
            play, take = quick_exchange_choice(ps, 0, hand, table, rs, policy, params[0, P_EPSILON], trail_only, lo, hi)
            after_quick = ps[RNG + 1]
            n = exchange_moves(seat_space(ps), hand, table, rs, trail_only)
            if play < 0:
                assert ps[RNG + 1] == stream_state(7, k, 1)  # no draw made
                total = sum(c // 4 + 1 for c in cards_of(hand))
                bound = min(total, rules.max_sum) if rules.max_sum else total
                assert bin(table).count("1") > QUICK_TABLE or bound > 15
                declined += 1
                continue
            quick += 1
            several += n > 1
            ps[RNG + 1] = stream_state(7, k, 1)
            i = choose(ps, policy, params, n, 0)
            expected = (int(ps[MOVES + 2 * i]), int(ps[MOVES + 2 * i + 1]))
            assert (play, take) == expected, (overrides, policy, cards_of(hand), cards_of(table), trail_only)
            assert ps[RNG + 1] == after_quick
    assert quick > 4000 and several > 1000
    assert declined > 0  # a table of 11 cards, and without a cap a hand group's total above 15


@pytest.mark.parametrize(
    ("variant", "weights"), [(v, None) for v in VARIANTS] + [("foracio", MANY_WEIGHTS), ("foracio", FEW_WEIGHTS)]
)
def test_trail_classes_hold_the_cards_of_each_weight_lightest_first(variant, weights):
    """Every registered game's card weights (and two sets of other weights): the classes partition the 52 cards by
    weight, in ascending weight; more weights than the slots hold leave none (the scan)."""
    ps = decision_setup(variant, {}, weights)[2]
    cards = ps[WEIGHT : WEIGHT + 52]
    distinct = sorted(set(cards.tolist()))
    n = int(ps[TRAIL_CLASSES])
    if len(distinct) > TRAIL_CLASSES_MAX:
        assert n == 0
        return
    assert n == len(distinct)
    for k, weight in enumerate(distinct):
        assert ps[TRAIL_CLASSES + 1 + k] == sum(1 << c for c in range(52) if cards[c] == weight)


@pytest.mark.parametrize(
    ("variant", "overrides"),
    [
        ("scopa", {}),
        ("skopa", {}),
        ("foracio", {}),
        ("foracio", {"table_ace_in_sums": True}),
        ("scopone", {}),
        ("escoba", {}),
    ],
)
def test_sum_values_rise_strictly_with_rank(variant, overrides):
    """``quick`` walks a card's sum captures among the cards of its rank and below (``up_to_rank``): exact only while
    a higher rank never has a capture value as low as a lower one's, among the cards that enter sums."""
    spec = get_variant(variant)
    rules = spec.compile(spec.resolve(overrides))
    cards = cards_of(rules.pack & rules.sum_mask)  # ascending id: ascending rank
    for lower, higher in itertools.pairwise(cards):
        v1, v2 = ((rules.value_by_rank >> (4 * (c >> 2))) & 15 for c in (lower, higher))
        assert v1 >= 1 and (v2 > v1 if higher >> 2 > lower >> 2 else v2 == v1)


@pytest.mark.parametrize("variant", ["scopa", "skopa", "foracio", "scopone", "escoba"])
def test_lanes_kept_by_the_deal_loop_equal_the_rebuilt_ones(variant):
    """``lanes_after`` (a trail multiplies the lanes, a capture rebuilds them) gives the lanes ``subset_sum_lanes``
    builds from scratch, whenever the table has at most ``QUICK_TABLE`` sum cards (the only tables they serve)."""
    spec = get_variant(variant)
    rules = spec.compile(spec.resolve({}))
    rng = random.Random(11)
    pack = cards_of(rules.pack)
    checked = 0
    for _ in range(40):
        table = 0
        lo, hi = subset_sum_lanes(0, rules.value_by_rank)
        for _ in range(40):
            card = rng.choice([c for c in pack if not (table >> c) & 1])
            on_table = cards_of(table)
            take = 0
            if on_table and rng.random() < 0.4:
                take = sum(1 << c for c in rng.sample(on_table, rng.randint(1, len(on_table))))
            table = (table | (1 << card)) if take == 0 else (table & ~take)
            lo, hi = lanes_after(lo, hi, table, 1 << card, take, rules.sum_mask, rules.value_by_rank)
            if bin(table & rules.sum_mask).count("1") <= QUICK_TABLE:
                assert (lo, hi) == subset_sum_lanes(table & rules.sum_mask, rules.value_by_rank)
                checked += 1
    assert checked > 500


@pytest.mark.parametrize("variant", ["scopa", "escoba", "foracio"])
def test_reached_sums_list_what_the_search_lists(variant):
    """The move generator's sum captures on tables of up to ``REACH_TABLE`` sum cards (``append_reached_sums``:
    walked over up to ``WALK_BELOW`` cards, decoded from the table's prefix lanes past that, which it stores in the
    space the first time a card of the position needs them) are the moves the depth-first search
    (``append_sum_subsets``) lists, in the same order: on one space reused from table to table, for every prefix of
    the table a card may take from (in random order, so that a table's lanes are stored by any of them), every
    target up to ``LANE_SUMS`` and one beyond (the search's path), after moves already listed."""
    spec = get_variant(variant)
    rules = spec.compile(spec.resolve({}))
    value = rules.value_by_rank
    ps = np.zeros(decision_space_size(rules.max_moves), dtype=np.int64)
    search = np.zeros_like(ps)
    rng = random.Random(17)
    cards = cards_of(rules.pack & rules.sum_mask)
    tables = [cards[:REACH_TABLE]] + [rng.sample(cards, rng.randint(0, REACH_TABLE)) for _ in range(150)]
    listed, decoded = 0, 0
    for table in tables:
        table = sorted(table)
        avail = sum(1 << c for c in table)
        sums = table_reach(ps, avail, value)
        asks = [(k, target) for k in range(len(table) + 1) for target in range(1, LANE_SUMS + 2)]
        rng.shuffle(asks)
        for k, target in asks:
            below = sum(1 << c for c in table[:k])
            card = 1 << rng.choice(cards)
            start = rng.randint(0, 3)
            n = append_reached_sums(ps, avail, below, target, value, card, start, sums)
            m = append_sum_subsets(search, below, target, value, card, start)
            assert n == m, (table[:k], target)
            got = ps[MOVES + 2 * start : MOVES + 2 * n]
            assert np.array_equal(got, search[MOVES + 2 * start : MOVES + 2 * m]), (table[:k], target)
            listed += n - start
            decoded += n - start if k > WALK_BELOW and target <= LANE_SUMS else 0
    assert decoded > 2000 and listed > decoded


@pytest.mark.parametrize("variant", ["scopa", "escoba", "skopa"])
def test_nth_summing_subset_decodes_the_ascending_subsets_of_each_sum(variant):
    """``nth_summing_subset`` gives, for every target 1..15 and every index, the subsets of a card set (the lowest
    cards of the set whose prefix lanes were stored) with that value sum in ascending mask order, as brute force
    lists them, on sets of up to ``QUICK_TABLE`` cards, each with the sum of its cards' weights."""
    spec = get_variant(variant)
    rules = spec.compile(spec.resolve({}))
    value = rules.value_by_rank
    ps = np.zeros(decision_space_size(rules.max_moves), dtype=np.int64)
    rng = random.Random(11)
    weights = [rng.randint(-50, 50) for _ in range(52)]
    ps[WEIGHT : WEIGHT + 52] = weights
    cards = cards_of(rules.pack & rules.sum_mask)
    decoded = 0
    for _ in range(150):
        table = sorted(rng.sample(cards, rng.randint(0, QUICK_TABLE)))
        store_prefix_lanes(ps, sum(1 << c for c in table), value)
        for k in range(len(table) + 1):
            avail = sum(1 << c for c in table[:k])  # the k lowest cards (a card's sum candidates)
            masks = sorted(sum(1 << table[j] for j in range(k) if s >> j & 1) for s in range(1, 1 << k))
            for target in range(1, 16):
                want = [(m, sum(weights[c] for c in cards_of(m))) for m in masks if mask_value(m, value) == target]
                got = [nth_summing_subset(ps, avail, value, target, i) for i in range(len(want))]
                assert got == want, (table[:k], target)
                decoded += len(want)
    assert decoded > 2000


@pytest.mark.parametrize("variant", ["scopa", "escoba", "skopa"])
def test_lanes_count_exactly_up_to_quick_table(variant):
    """The lanes hold the exact number of subsets of each sum 0..15 for tables of up to ``QUICK_TABLE`` = 10 sum
    cards (at most C(10, 5) = 252 subsets share a sum, so no lane carries), the tables of the lowest values (the
    most subsets per sum) included; brute force over every subset."""
    spec = get_variant(variant)
    rules = spec.compile(spec.resolve({}))
    cards = cards_of(rules.pack & rules.sum_mask)
    rng = random.Random(3)
    tables = [cards[:QUICK_TABLE], cards[2 : 2 + QUICK_TABLE]]
    tables += [rng.sample(cards, rng.randint(0, QUICK_TABLE)) for _ in range(200)]
    for table in tables:
        lo, hi = subset_sum_lanes(sum(1 << c for c in table), rules.value_by_rank)
        counts = [0] * 16
        for k in range(len(table) + 1):
            for subset in itertools.combinations(table, k):
                total = sum((rules.value_by_rank >> (4 * (c >> 2))) & 15 for c in subset)
                if total < 16:
                    counts[total] += 1
        assert [((lo if j < 8 else hi) >> (8 * (j % 8))) & 255 for j in range(16)] == counts


def test_a_hand_larger_than_the_slots_takes_the_listed_path():
    """``quick_slots`` counts ``hand_size`` slots: a hand with more cards than the hand size it is told (which no
    deal loop makes) is declined, with no draw made, instead of playing from its lowest cards only."""
    spec = get_variant("scopa")
    rules = spec.compile(spec.resolve({}))
    rs = move_rules(rules)
    ps = np.zeros(decision_space_size(rules.max_moves), np.int64)
    ps[RNG + 1] = stream_state(5, 0, 1)
    hand = sum(1 << c for c in cards_of(rules.pack)[:4])
    assert quick_choice(ps, 0, hand, 0, rs, POLICY_RANDOM, 0.0, 3, rules.pack) == (-1, 0)
    assert ps[RNG + 1] == stream_state(5, 0, 1)
    assert quick_choice(ps, 0, hand, 0, rs, POLICY_RANDOM, 0.0, 4, rules.pack)[0] > 0


def test_drawn_byte_slot_finds_the_slot_of_each_move():
    """``drawn_byte_slot`` (random's rank slots, moves below 128): for every move of random counts of 13 slots, the
    slot it falls in and the moves before that slot, as a walk from the first slot finds them."""
    rng = random.Random(5)
    for _ in range(300):
        blocks = [rng.choice([0, 0, 1, 2, 3, 5, 8, 12]) for _ in range(13)]
        while sum(blocks) >= 128:
            blocks[rng.randrange(13)] = 0
        packed_lo = sum(b << (8 * k) for k, b in enumerate(blocks[:8]))
        packed_hi = sum(b << (8 * k) for k, b in enumerate(blocks[8:]))
        for idx in range(sum(blocks)):
            slot, before = 0, 0
            while idx >= before + blocks[slot]:
                before += blocks[slot]
                slot += 1
            assert drawn_byte_slot(packed_lo, packed_hi, idx) == (slot, before)


def test_rank_slots_of_128_moves_or_more_draw_as_the_list_does():
    """Random's rank slots find the drawn rank by a walk when the hand has 128 moves or more (the bytes of
    ``drawn_byte_slot`` would carry): a Scopone hand of sevens, sixes and fives over a table of small cards."""
    rules, rs, ps, params, pack = decision_setup("scopone", {"single_card_priority": False, "forced_capture": "none"})
    rank_cards = {r: [c for c in pack if c >> 2 == r] for r in range(13)}
    hand = sum(1 << c for c in rank_cards[6] + rank_cards[5] + rank_cards[4][:2])
    table = sum(1 << c for c in rank_cards[0] + rank_cards[1] + rank_cards[2][:2])
    n = legal_moves(seat_space(ps), hand, table, rs)
    assert n >= 128
    for k in range(40):
        ps[RNG + 1] = stream_state(5, k, 1)
        play, take = quick_choice(ps, 0, hand, table, rs, POLICY_RANDOM, 0.0, BY_RANK_HAND, rules.pack, None)
        ps[RNG + 1] = stream_state(5, k, 1)
        n = legal_moves(seat_space(ps), hand, table, rs)
        i = choose(ps, POLICY_RANDOM, params, n, 0)
        assert (play, take) == (int(ps[MOVES + 2 * i]), int(ps[MOVES + 2 * i + 1]))


def test_the_epsilon_draw_is_the_float_test_at_every_edge():
    """``explores`` compares the draw with the ceiling of ``epsilon * 2**30`` as integers: the same answer as the
    float test ``draw < epsilon * 2**30`` it replaced, checked at the draw itself and half a step either side of it
    (where the product is an integer and where it is not), at 0 and 1, and on the same stream state."""
    ps = np.zeros(RNG + 8, np.int64)
    for k in range(200):
        ps[RNG + 1] = stream_state(3, k, 1)
        before = ps[RNG + 1]
        draw = bounded(ps, RNG + 1, 1 << 30)
        after = ps[RNG + 1]
        for epsilon in (0.0, 1.0, draw / 2**30, (draw + 0.5) / 2**30, (draw - 0.5) / 2**30, (draw + 1) / 2**30):
            ps[RNG + 1] = before
            assert explores(ps, 0, epsilon) == (draw < epsilon * 2**30), (k, draw, epsilon)
            assert ps[RNG + 1] == after  # one draw, as the float test made
