"""Kaszinó, Foracio, Skopa, Scopone and Escoba: the Numba engine and each game's plain-Python reference play the
same games.

For each game, the defaults (500 seeded games) and several non-default option combinations (250) play in both engines;
the complete traces (every card dealt, every move, every point, mid-deal wins) must be equal, and the kernel's
traces must pass the reference's own trace check. Legal moves are also compared on random positions, including
large tables.
"""

from __future__ import annotations

import importlib
import random

import pytest

from simcore import api, engine
from simcore.cards import cards_of
from simcore.config import RunConfig
from simcore.variants import get_variant

GAMES = 500  # each game's default rule sets (its first two configurations)
OPTION_GAMES = 250  # every other configuration: what an option changes shows in tens to hundreds of these games

CONFIGS = {
    "skopa": [
        ({}, ["greedy", "greedy"]),
        ({"players": 3, "clubs_tie": "each"}, ["random", "greedy", "random"]),
        ({"players": 4, "sweep_points": 1, "single_card_priority": True}, ["random"] * 4),
        ({"forced_capture": "card", "target": 11}, ["random", "greedy"]),
        ({"forced_capture": "none", "players": 3}, ["random"] * 3),
        # Part B options (R5, R11)
        ({"court_takes": "all_same_rank", "bonus_suit": "hearts", "small_card": "As"}, ["greedy", "random"]),
        ({"players": 4, "court_takes": "all_same_rank", "forced_capture": "none"}, ["random"] * 4),
        ({"multi_group_capture": True}, ["random", "greedy"]),
        ({"multi_group_capture": True, "players": 3, "single_card_priority": True}, ["greedy", "random", "greedy"]),
        ({"multi_group_capture": True, "players": 3, "forced_capture": "card"}, ["random"] * 3),
    ],
    "foracio": [
        ({}, ["greedy"] * 4),
        ({}, ["random", "greedy", "random", "greedy"]),
        ({"ace_on_empty": "keep", "court_scopa_value": "ten", "spade_element": "majority"}, ["random"] * 4),
        (
            {"ace_on_empty": "stay", "declare": "end_of_deal", "all_five_bonus": 6, "single_card_priority": True},
            ["random"] * 4,
        ),
        ({"forced_capture": "none", "court_scopa_value": "zero", "target": 121}, ["random"] * 4),
        # Part B options (F1, F2, F4, F5, F8, F13)
        (
            {
                "court_takes": "all_same_rank",
                "table_ace_in_sums": True,
                "ace_sweep_is_scopa": True,
                "same_suit_scopa_total": "3v",
                "dealer_rotation": "fixed",
                "court_values": "10/10/10",
            },
            ["random"] * 4,
        ),
        ({"declare": "auto_on_secured_points", "table_ace_in_sums": True, "ace_on_empty": "stay"}, ["random"] * 4),
        (
            {"declare": "auto_on_secured_points", "same_suit_scopa_total": "3v", "court_takes": "all_same_rank"},
            ["greedy", "random", "greedy", "random"],
        ),
        ({"ace_sweep_is_scopa": True, "forced_capture": "none", "table_ace_in_sums": True}, ["greedy"] * 4),
        ({"no_scopa_rule": "final_capture_if_in_last_round"}, ["random"] * 4),  # F8: the last capture, decided late
        (
            {"no_scopa_rule": "final_capture_if_in_last_round", "declare": "auto_on_secured_points", "target": 61},
            ["random", "greedy"] * 2,
        ),
    ],
    "escoba": [
        ({}, ["greedy", "greedy"]),
        (
            {"players": 3, "opening_escoba": "first_player", "sevens_rule": "count_tiebreak"},
            ["random", "greedy", "random"],
        ),
        ({"players": 4, "forced_capture": "card", "majority_tie": "each"}, ["random", "greedy"] * 2),
        ({"forced_capture": "player", "last_play_scopa": False, "all_bonus": True}, ["random", "greedy"]),
        ({"sevens_rule": "primiera", "opening_escoba": "none", "target": 21}, ["random", "random"]),
    ],
    "kaszino": [
        ({}, ["greedy", "greedy"]),
        ({}, ["random", "greedy"]),
        ({"max_hand_cards": 2, "after_tabla": "normal", "round_leader": "non_dealer"}, ["random", "random"]),
        ({"max_sum": 0, "out_call": "end_of_deal", "opening_tabla_points": 1}, ["greedy", "random"]),
        ({"forced_capture": "none", "max_hand_cards": 1, "last_round_open": False}, ["random", "random"]),
        (
            {"points_cards": 2, "cards_threshold": 25, "points_spades": 1, "spades_threshold": 6, "points_ace": 2},
            ["greedy", "random"],
        ),
        (
            {"points_2S": 3, "points_10D": 1, "points_tabla": 2, "tabla_on_final_move_counts": False},
            ["greedy", "greedy"],
        ),
        (
            {"tabla_by_recapturing_own_trail_counts": False, "round_leader": "opponent_of_last_capturer"},
            ["random", "random"],
        ),
        (
            {"opening_tabla_scope": "first_move_after_each_draw", "opening_tabla_points": 3, "first_dealer": "fixed"},
            ["random", "greedy"],
        ),
        ({"residue_if_no_capture": "dealer", "forced_capture": "none", "points_tabla": 0}, ["random", "random"]),
        ({"out_call": "manual", "false_call": "ignored"}, ["greedy", "random"]),  # K13: only a call wins
        ({"out_call": "manual", "target": 21, "stake_multiplier": "first_deal_double"}, ["random", "random"]),
    ],
    "scopone": [
        ({}, ["greedy"] * 4),
        ({}, ["random", "greedy", "random", "greedy"]),
        ({"deal": "nine", "sum_choice": "fewest", "napola": True, "re_bello": True}, ["random", "greedy"] * 2),
        ({"ace_takes_all": True, "ace_scopa": True, "ace_on_empty": "choice"}, ["random"] * 4),
        ({"ace_takes_all": True, "ace_on_ace": "ace_only", "ace_first_play": "banned", "deal": "nine"}, ["random"] * 4),
        (
            {"ace_takes_all": True, "ace_on_empty": "stay", "ace_first_play": "plain", "forced_capture": "none"},
            ["random", "greedy"] * 2,
        ),
        (
            {"single_card_priority": False, "sum_choice": "fewest", "primiera": "suits", "last_play_scopa": True},
            ["greedy", "random"] * 2,
        ),
        ({"deal": "nine", "redeal_kings": 0, "target": 21, "ace_takes_all": True}, ["random"] * 4),
    ],
}
CASES = [
    (variant, rules, policies, GAMES if i < 2 else OPTION_GAMES)
    for variant, configs in CONFIGS.items()
    for i, (rules, policies) in enumerate(configs)
]
CASE_IDS = [f"{variant}-{i}" for variant, configs in CONFIGS.items() for i in range(len(configs))]
# rule sets of the random-position test beyond the defaults: the options that change the legal moves
MOVE_RULES = {
    "skopa": [{"court_takes": "all_same_rank"}, {"multi_group_capture": True}],
    "foracio": [{"court_takes": "all_same_rank", "table_ace_in_sums": True}, {"table_ace_in_sums": True}],
    "kaszino": [
        {"max_sum": 0},
        {"max_hand_cards": 2},
        {"max_sum": 20, "max_hand_cards": 1},
    ],  # sizes of the listed sums
}


def reference(variant: str):
    return importlib.import_module(f"simcore.reference.{variant}")


def first_difference(kernel: dict, expected: dict) -> str:
    for i, (a, b) in enumerate(zip(kernel["events"], expected["events"], strict=False)):
        if a != b:
            return f"event {i}: kernel {a} != reference {b}"
    if len(kernel["events"]) != len(expected["events"]):
        return f"{len(kernel['events'])} kernel events, {len(expected['events'])} reference events"
    return ", ".join(k for k in kernel if kernel[k] != expected.get(k))


@pytest.mark.parametrize("variant,rules,policies,games", CASES, ids=CASE_IDS)
def test_kernel_and_reference_play_the_same_games(variant, rules, policies, games):
    ref = reference(variant)
    config = RunConfig.create(variant, policies=policies, rules=rules, games=games, seed=2026)
    traces = api.trace(config, range(games))
    for trace in traces:
        expected = ref.play_game(config.seed, trace["game"], dict(config.rules), list(config.policies))
        assert trace == expected, f"game {trace['game']}: {first_difference(trace, expected)}"
    for trace in traces[:100]:
        ref.check_trace(trace)


MOVE_CASES = [(v, {}) for v in CONFIGS] + [(v, r) for v, sets in MOVE_RULES.items() for r in sets]


@pytest.mark.parametrize("variant,options", MOVE_CASES, ids=[f"{v}-{i}" for i, (v, _) in enumerate(MOVE_CASES)])
@pytest.mark.parametrize("forced", ["default", "none"])
def test_legal_moves_match_reference_on_random_positions(variant, options, forced):
    """2,000 random positions per game and rule set: hands of 1..4 cards (Foracio up to 13), tables of 0..16
    cards; the defaults, and the Part B options that change the legal moves."""
    spec = get_variant(variant)
    resolved = spec.resolve(options | ({} if forced == "default" else {"forced_capture": "none"}))
    rules = spec.compile(resolved)
    ref = reference(variant)
    pack = cards_of(rules.pack)
    rng = random.Random(3)
    max_hand = {"foracio": 13, "kaszino": 3, "scopone": 10}.get(variant, 4)
    for _ in range(2000):
        cards = rng.sample(pack, 30)
        hand = cards[: rng.randint(1, max_hand)]
        table = cards[13 : 13 + rng.choice([0, 1, 2, 3, 4, 5, 6, 8, 11, 16])]
        expected = ref.legal_moves(resolved, set(hand), set(table))
        kernel = engine.legal_moves(rules, sum(1 << c for c in hand), sum(1 << c for c in table))
        assert kernel == expected, (variant, sorted(hand), sorted(table))


SCOPONE_MOVE_RULES = [
    {"sum_choice": "fewest"},
    {"single_card_priority": False, "sum_choice": "fewest", "forced_capture": "none"},
    {"ace_takes_all": True},
    {"ace_takes_all": True, "ace_on_empty": "choice", "ace_on_ace": "ace_only", "forced_capture": "none"},
    {"ace_takes_all": True, "ace_on_empty": "stay", "ace_first_play": "banned"},
    {"ace_takes_all": True, "ace_first_play": "plain", "sum_choice": "fewest"},
]


@pytest.mark.parametrize("overrides", SCOPONE_MOVE_RULES, ids=[str(i) for i in range(len(SCOPONE_MOVE_RULES))])
def test_scopone_legal_moves_match_reference_with_its_options(overrides):
    """2,000 random positions per rule set: hands of 1..10 cards, tables of 0..16, half of them a deal's first
    play (where ``ace_first_play`` applies)."""
    spec = get_variant("scopone")
    resolved = spec.resolve(overrides)
    rules = spec.compile(resolved)
    ref = reference("scopone")
    pack = cards_of(rules.pack)
    rng = random.Random(5)
    for i in range(2000):
        cards = rng.sample(pack, 30)
        hand = cards[: rng.randint(1, 10)]
        table = cards[13 : 13 + rng.choice([0, 0, 1, 2, 3, 4, 5, 6, 8, 11, 16])]
        first = i % 2 == 1
        expected = ref.legal_moves(resolved, set(hand), set(table), first)
        kernel = engine.legal_moves(rules, sum(1 << c for c in hand), sum(1 << c for c in table), first)
        assert kernel == expected, (overrides, sorted(hand), sorted(table), first)
