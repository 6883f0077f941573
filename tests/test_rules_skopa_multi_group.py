"""Skopa's ``multi_group_capture`` (RULES.md Part B 5.3, R5 option): a played card takes a largest union of
pairwise disjoint groups, each group a capture it could make alone; the player chooses among equally large ones.

Worked positions in both engines (the reference's ``legal_moves`` and the kernels' must be equal), a brute-force
oracle on random small tables (every subset of the table, split by card sets), the per-card bound
``LARGEST_UNIONS`` derived again by exhaustion and reached on a large table, and whole games. Kernel against
reference on whole games: ``test_differential_variants.py`` (the option's configurations at the end of Skopa's).
"""

from __future__ import annotations

import itertools
import random
from functools import cache

import numba
import numpy as np
import pytest

from simcore import api, engine
from simcore.cards import card_id, cards_of, parse_card, parse_mask
from simcore.config import RunConfig
from simcore.errors import ConfigError
from simcore.reference import skopa as rk
from simcore.variants import get_variant
from simcore.variants.skopa import LARGEST_UNIONS

SKOPA = get_variant("skopa")
MULTI = {"multi_group_capture": True}


def moves(options: dict, hand: str | int, table: str | int) -> list[tuple[int, int]]:
    """The reference's legal moves, checked equal to the kernels' under the same rules."""
    resolved = SKOPA.resolve(options)
    hand = parse_mask(hand) if isinstance(hand, str) else hand
    table = parse_mask(table) if isinstance(table, str) else table
    expected = rk.legal_moves(resolved, hand, table)
    assert engine.legal_moves(SKOPA.compile(resolved), hand, table) == expected
    return expected


def takes(options: dict, card: str, table: str) -> list[int]:
    return [take for _, take in moves(options, card, table) if take]


def masks(*texts: str) -> list[int]:
    return sorted(parse_mask(t) for t in texts)


# ------------------------------------------------------------------------------------------ worked positions


def test_r_ex2_the_free_choice_becomes_one_union():
    """R-EX2: 5h on 5d 3c 2s takes {5d} or {3c, 2s}; with the option both groups at once."""
    assert takes({}, "5h", "5d 3c 2s") == masks("5d", "3c 2s")
    assert takes(MULTI, "5h", "5d 3c 2s") == masks("5d 3c 2s")


def test_r_ex1_rows_are_unchanged_when_only_one_group_exists():
    """R-EX1's table 7s 2h Ac Kd: every card there has at most one group, or disjoint ones only for the 10."""
    table = "7s 2h Ac Kd"
    for card, expected in [("Tc", ["7s 2h Ac"]), ("9d", ["7s 2h"]), ("3h", ["2h Ac"]), ("Kc", ["Kd"])]:
        assert takes(MULTI, card, table) == masks(*expected) == takes({}, card, table)
    assert takes(MULTI, "Qs", table) == []


def test_a_ten_takes_two_pairs_of_fives_and_a_sum():
    assert takes(MULTI, "Th", "5d 5c 5s 3c 2s") == masks("5d 5c 5s 3c 2s")  # 5+5 and 5+3+2
    assert len(takes({}, "Th", "5d 5c 5s 3c 2s")) == 6  # alone: three pairs of fives, three 5+3+2


def test_a_largest_union_not_merely_one_that_cannot_grow():
    """10h on 5d 5c 3s 2s: {5d, 5c} leaves 3s 2s, where no group remains, but takes two cards; 5 + 3 + 2 takes
    three. The player chooses which five."""
    assert takes(MULTI, "Th", "5d 5c 3s 2s") == masks("5d 3s 2s", "5c 3s 2s")


def test_equally_large_unions_are_the_players_choice():
    assert takes(MULTI, "Th", "9d 9c As") == masks("9d As", "9c As")
    assert takes(MULTI, "Th", "9d 9c As Ad") == masks("9d 9c As Ad")


@pytest.mark.parametrize("court_takes", ["one", "all_same_rank"])
def test_a_court_takes_every_card_of_its_rank(court_takes):
    """A court's groups are its rank's table cards, one each: the largest union is all of them, one move."""
    options = {"court_takes": court_takes}
    assert takes(options | MULTI, "Kc", "Kd Kh 5c") == masks("Kd Kh")
    alone = masks("Kd", "Kh") if court_takes == "one" else masks("Kd Kh")
    assert takes(options, "Kc", "Kd Kh 5c") == alone
    assert takes(options | MULTI, "Kc", "Qd 5c") == []


def test_with_single_card_priority_the_equal_cards_are_the_groups():
    priority = {"single_card_priority": True}
    assert takes(priority | MULTI, "5h", "5d 5c 3c 2s") == masks("5d 5c")
    assert takes(priority, "5h", "5d 5c 3c 2s") == masks("5d", "5c")
    assert takes(MULTI, "5h", "5d 5c 3c 2s") == masks("5d 5c 3c 2s")
    assert takes(priority | MULTI, "5h", "4d Ah 3c 2s") == masks("4d Ah 3c 2s")  # no equal card: sums


def test_the_compulsion_is_unchanged():
    """R-EX3: a card can capture with the option exactly when it can without it."""
    assert moves(MULTI, "Qs 9d", "7s 2h Ac Kd") == [(parse_mask("9d"), parse_mask("7s 2h"))]
    assert moves(MULTI | {"forced_capture": "card"}, "Qs 9d", "7s 2h Ac Kd") == [
        (parse_mask("9d"), parse_mask("7s 2h")),
        (parse_mask("Qs"), 0),
    ]
    assert moves(MULTI | {"forced_capture": "none"}, "9d", "7s 2h Ac") == [
        (parse_mask("9d"), 0),
        (parse_mask("9d"), parse_mask("7s 2h")),
    ]
    assert moves(MULTI, "Qs 6d", "Kd 9c") == [(parse_mask("6d"), 0), (parse_mask("Qs"), 0)]


def test_a_ten_on_the_rest_of_the_pack_takes_every_numeral():
    """The largest table there is: four 10s against the other 48 cards; each 10 takes the 36 numerals A..9
    (4 x (9+1, 8+2, 7+3, 6+4) and 2 x (5+5)), one move each (and its trail without compulsion)."""
    hand = parse_mask("Tc Td Th Ts")
    numerals = sum(1 << card_id(rank, suit) for rank in range(1, 10) for suit in range(4))
    table = SKOPA.compile(SKOPA.resolve()).pack & ~hand
    assert moves(MULTI, hand, table) == [(1 << c, numerals) for c in cards_of(hand)]
    assert len(moves(MULTI | {"forced_capture": "none"}, hand, table)) == 8


def test_the_key_is_a_boolean():
    assert SKOPA.resolve({"multi_group_capture": "true"})["multi_group_capture"] is True
    assert SKOPA.resolve()["multi_group_capture"] is False
    with pytest.raises(ConfigError, match="expected true or false"):
        SKOPA.resolve({"multi_group_capture": "all"})


# ------------------------------------------------------------------------------------------ brute force


@cache
def splits_by_cards(cards: frozenset[int], total: int) -> bool:
    """Whether the card set splits into disjoint sets summing to ``total`` (the lowest card's set first)."""
    if not cards:
        return True
    low = min(cards)
    rest = sorted(cards - {low})
    for k in range(len(rest) + 1):
        for others in itertools.combinations(rest, k):
            fits = rk.value_of(low) + sum(rk.value_of(c) for c in others) == total
            if fits and splits_by_cards(cards - {low, *others}, total):
                return True
    return False


def brute_takes(card: int, table: list[int]) -> list[int]:
    """Every largest subset of the table numerals that splits into sets summing to the card's value."""
    if rk.is_court(card):
        same = [t for t in table if rk.rank_of(t) == rk.rank_of(card)]
        return [sum(1 << t for t in same)] if same else []
    numerals = [t for t in table if not rk.is_court(t)]
    for size in range(len(numerals), 0, -1):
        found = [
            sum(1 << t for t in subset)
            for subset in itertools.combinations(numerals, size)
            if splits_by_cards(frozenset(subset), rk.value_of(card))
        ]
        if found:
            return sorted(found)
    return []


def test_random_small_tables_match_a_brute_force_split_of_every_subset():
    """1,500 random positions, tables of up to 10 cards: each hand card's captures in both engines are exactly
    the largest splitting subsets of the table."""
    rng = random.Random(15)
    pack = list(range(52))
    for _ in range(1500):
        cards = rng.sample(pack, 14)
        hand, table = cards[:4], cards[4 : 4 + rng.randint(1, 10)]
        listed = moves(MULTI | {"forced_capture": "none"}, sum(1 << c for c in hand), sum(1 << c for c in table))
        for card in hand:
            assert [take for play, take in listed if play == 1 << card and take] == brute_takes(card, table)


# ------------------------------------------------------------------------------------------ the bound


@numba.njit(cache=False)
def _most_largest_unions(v, groups):
    """Most largest unions of a card of value ``v`` over every table (counts 0..4 of the values 1..v-1): a
    lattice pass marks the count vectors that split, then one pass per value carries (largest split size under
    c, its number of suit choices) from c to every t >= c, weighting by C(t_r, c_r)."""
    d = v - 1
    states = 5**d
    splits = np.zeros(states, np.bool_)
    splits[0] = True
    offset = np.zeros(len(groups), np.int64)
    for j in range(len(groups)):
        for i in range(d):
            offset[j] += groups[j, i] * 5**i
    digits = np.zeros(d, np.int64)
    level = np.full(states, -1, np.int64)
    ways = np.zeros(states, np.float64)
    level[0], ways[0] = 0, 1.0
    for s in range(1, states):
        x = s
        for i in range(d):
            digits[i] = x % 5
            x //= 5
        top = d - 1
        while digits[top] == 0:
            top -= 1
        for j in range(len(groups)):
            if groups[j, top] > 0 and np.all(groups[j] <= digits) and splits[s - offset[j]]:
                splits[s] = True
                level[s], ways[s] = digits.sum(), 1.0
                break
    binom = np.array([[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 2, 1, 0, 0], [1, 3, 3, 1, 0], [1, 4, 6, 4, 1]], np.float64)
    for i in range(d):
        stride = 5**i
        new_level, new_ways = level.copy(), np.zeros(states, np.float64)
        for s in range(states):
            t = (s // stride) % 5
            best, count = -1, 0.0
            for c in range(t + 1):
                q = s - (t - c) * stride
                if level[q] > best:
                    best, count = level[q], ways[q] * binom[t, c]
                elif level[q] == best:
                    count += ways[q] * binom[t, c]
            new_level[s], new_ways[s] = best, count
        level, ways = new_level, new_ways
    most = 1.0  # no smaller numeral splits: the equal cards alone, one take
    for s in range(states):
        if level[s] > 0:
            most = max(most, ways[s])
    return int(most)


def test_the_per_card_bound_is_derived_again_by_exhaustion():
    found = []
    for v in range(1, 11):
        groups = rk.value_groups(v)
        array = np.array(groups, np.int64).reshape(len(groups), max(v - 1, 1))
        found.append(1 if v == 1 else _most_largest_unions(v, array))
    assert tuple(found) == LARGEST_UNIONS


def test_the_hand_bound_is_reached_on_the_worst_table():
    """Four 10s against two each of A..4, three 5s and four each of 6..9: 3,888 takes each (6**4 choices of
    two of each of 6..9, 3 of two 5s), 15,552 moves, the declared max_moves; 15,556 with the trails."""
    counts = dict(zip(range(1, 10), [2, 2, 2, 2, 3, 4, 4, 4, 4], strict=True))
    table = sum(1 << card_id(rank, suit) for rank, n in counts.items() for suit in range(n))
    hand = parse_mask("Tc Td Th Ts")
    for options in (MULTI, MULTI | {"forced_capture": "none"}):
        resolved = SKOPA.resolve(options)
        listed = engine.legal_moves(SKOPA.compile(resolved), hand, table)
        assert len(listed) == SKOPA.game_info(resolved).max_moves
        assert listed == rk.legal_moves(resolved, hand, table)
    assert SKOPA.game_info(SKOPA.resolve(MULTI)).max_moves == 4 * 3888
    assert SKOPA.compile(SKOPA.resolve(MULTI)).max_moves >= 4 * (3888 + 1)


# ------------------------------------------------------------------------------------------ games


def test_the_option_changes_games_and_the_traces_pass_the_reference_check():
    plain = RunConfig.create("skopa", policies=["greedy", "random"], games=20, seed=7)
    multi = RunConfig.create("skopa", policies=["greedy", "random"], rules=MULTI, games=20, seed=7)
    traced = api.trace(multi, range(20))
    assert traced != api.trace(plain, range(20))
    several = 0  # captures of more than one group: a take larger than any one set summing to the card's value
    for trace in traced:
        rk.check_trace(trace)  # every play legal under the option, by the reference
        for event in trace["events"]:
            if event["type"] == "play" and event["take"] and not rk.is_court(parse_card(event["cards"][0])):
                taken = [rk.value_of(parse_card(c)) for c in event["take"]]
                several += sum(taken) > rk.value_of(parse_card(event["cards"][0]))
    assert several > 0


@pytest.mark.parametrize("policies", [["lookahead", "defensive"], ["points", "careful", "greedy"]])
def test_the_point_policies_play_under_the_option(policies):
    rules = MULTI | {"players": len(policies)}
    config = RunConfig.create("skopa", policies=policies, rules=rules, games=6, seed=3)
    out = api.play_chunk(config, np.arange(6))
    assert (out.overflow == 0).all() and (out.n_deals > 0).all()
