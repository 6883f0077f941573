"""Kaszinó's Part B rule keys (RULES.md section 2) on the Numba engine, and what each key touches besides.

Positions are written into the deal loop's state after a real ``begin_deal`` (only the cards and the counters of
the position are replaced) and played out by greedy seats; each test checks what RULES.md says the key changes.
The same rules on the reference engine are in ``test_rules_kaszino_examples.py``; whole games under these keys
are compared engine against reference in ``test_differential_variants.py``. Then: validation, ``scopasim rules``,
trace headers, declared bounds, and the policies' weights.
"""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from cli.app import app
from simcore import api, engine
from simcore.cards import parse_card, parse_mask
from simcore.config import RunConfig
from simcore.errors import ConfigError
from simcore.kernels.deal import DEAL_DONE
from simcore.kernels.game import (
    EV_HAND,
    EV_PLAY,
    EV_RESIDUE,
    EV_WIDTH,
    begin_deal,
    fill_rule_info,
    new_scratch,
    run_deal,
)
from simcore.kernels.workspace import DECK, DS_LAST, DS_N, DS_POS, DS_SEEN, DS_T, DS_TABLE, HANDS, PILES
from simcore.policies import policy_arrays
from simcore.policies.heuristics import P_PER_CARD, P_SUIT
from simcore.variants.kaszino import BIG_CASINO, LITTLE_CASINO, SPEC

A, B = 0, 1  # A is the non-dealer (moves first), B the dealer
NEW_KEYS = (
    "points_cards",
    "cards_threshold",
    "points_spades",
    "spades_threshold",
    "points_ace",
    "points_2S",
    "points_10D",
    "points_tabla",
    "tabla_on_final_move_counts",
    "residue_if_no_capture",
    "opening_tabla_scope",
    "tabla_by_recapturing_own_trail_counts",
    "first_dealer",
)


def kernel_deal(overrides, hand_a, hand_b, table, stock="", plays=0, last=-1):
    """Play a position to the deal's end in the kernel's deal loop with greedy seats; ``stock`` in drawing order
    (a multiple of 6 cards). Returns the events after the dealing as tuples, and the game state."""
    config = RunConfig.create("kaszino", policies=["greedy"], rules=overrides, games=1, seed=0)
    rules = config.compiled_rules()
    ids, params = policy_arrays(config.policy_choices(), config.rules)
    s = new_scratch(rules)
    fill_rule_info(s.ps, rules)
    events = np.zeros((1, 512, EV_WIDTH), np.int64)
    _, start = begin_deal(rules, s.gs, 0, B, events, 0, 0)
    gs = s.gs
    gs[HANDS], gs[HANDS + 1] = parse_mask(hand_a), parse_mask(hand_b)
    gs[DS_TABLE] = gs[DS_SEEN] = parse_mask(table)
    cards = [parse_card(c) for c in stock.split()]
    gs[DS_POS] = gs[DS_N] - len(cards)
    gs[DECK + gs[DS_POS] : DECK + gs[DS_N]] = cards
    gs[DS_T], gs[DS_LAST] = plays, last
    status, ne = run_deal(rules, ids, params, gs, s.ps, events, 0, start, -1, *engine.run_features(rules, ids))
    assert status == DEAL_DONE
    return [tuple(int(x) for x in row) for row in events[0, start:ne]], gs


def plays_of(events):
    """(seat, points, sweep) of each play event."""
    return [(e[1], e[3], e[4]) for e in events if e[0] == EV_PLAY]


@pytest.mark.parametrize("who,seat", [("none", None), ("dealer", B), ("non_dealer", A)])
def test_residue_if_no_capture(who, seat):
    """K10: nobody captured in the deal (12 and 13 take nothing of 2, 3): the table stays, or goes to the seat."""
    events, gs = kernel_deal({"residue_if_no_capture": who}, "Qc", "Kc", "2d 3d", plays=46)
    assert plays_of(events) == [(A, 0, 0), (B, 0, 0)]
    residue = [e for e in events if e[0] == EV_RESIDUE]
    if seat is None:
        assert residue == [] and gs[PILES] == gs[PILES + 1] == 0
    else:
        assert [(e[1], e[5]) for e in residue] == [(seat, parse_mask("2d 3d Qc Kc"))]
        assert gs[PILES + seat] == parse_mask("2d 3d Qc Kc") and gs[DS_LAST] == -1


@pytest.mark.parametrize("counts", [True, False])
def test_tabla_on_final_move_counts(counts):
    """K11: the deal's last play empties the table: a tábla (1 point) or a plain capture."""
    events, gs = kernel_deal({"tabla_on_final_move_counts": counts}, "9c", "", "4s 5h", plays=47)
    assert plays_of(events) == [(A, int(counts), int(counts))]
    assert gs[PILES] == parse_mask("9c 4s 5h")


@pytest.mark.parametrize("counts", [True, False])
def test_k_ex6_recapturing_own_trail(counts):
    """K-EX6: B's forced trail 6c, then 6d takes it back. By default a tábla that gives A a double move (two
    trails); off, a plain capture, and A's next turn is one ordinary move."""
    overrides = {"tabla_by_recapturing_own_trail_counts": counts}
    events, _ = kernel_deal(overrides, "Kc 2d Qh", "6c 6d 8s", "4s 9h", stock="2c 3c 4c 5h 5s 7d", plays=6)
    first = plays_of(events)[:6]
    if counts:  # A, B trail + tábla, A trail + trail (double move), B
        assert first == [(A, 1, 1), (B, 0, 0), (B, 1, 1), (A, 0, 0), (A, 0, 0), (B, 0, 0)]
    else:  # A, B trail + capture, A, B, A: alternate turns again
        assert first == [(A, 1, 1), (B, 0, 0), (B, 0, 0), (A, 0, 0), (B, 0, 0), (A, 0, 0)]
    assert [e[1] for e in events if e[0] == EV_HAND][:1] == [B]  # B captured last: B draws first


@pytest.mark.parametrize("scope,points", [("first_move_of_deal", 1), ("first_move_after_each_draw", 2)])
def test_opening_tabla_scope(scope, points):
    """K7: after the draw, A (the last capturer) leads 5d on the 5c left on the table: a tábla worth 1, or
    opening_tabla_points when every round's first move counts as an opening."""
    events, _ = kernel_deal({"opening_tabla_scope": scope}, "", "", "5c", stock="5d 8c 9c 2h 3h 4h", plays=6, last=A)
    assert plays_of(events)[0] == (A, points, 1)


@pytest.mark.parametrize("leader,first", [("last_capturer", B), ("non_dealer", A), ("opponent_of_last_capturer", A)])
def test_round_leader(leader, first):
    """K8: both hands empty, B captured last: who draws first."""
    events, _ = kernel_deal({"round_leader": leader}, "", "", "5c", stock="5d 8c 9c 2h 3h 4h", plays=6, last=B)
    assert [e[1] for e in events if e[0] == EV_HAND] == [first, 1 - first]
    assert plays_of(events)[0][0] == first


def test_points_tabla_in_the_kernel():
    events, _ = kernel_deal({"points_tabla": 4}, "9c", "2d", "4s 5h", plays=46)
    assert plays_of(events)[0] == (A, 4, 1)


def test_scoring_keys_in_the_kernel_match_k_ex8():
    """K-EX8's piles (A: 28 cards, 6 spades, two aces, ♦10; B: 24 cards, 7 spades with ♠2, two aces) scored by the
    kernel under other points and thresholds; the reference gives the same numbers."""
    spades = [c for c in range(52) if c % 4 == 3]
    b_spades = set(parse_mask_ids("As 2s 3s 4s 5s 6s 7s"))
    pile_a = {c for c in spades if c not in b_spades} | set(parse_mask_ids("Ah Ac Td"))
    others = [c for c in range(52) if c % 4 != 3 and c not in pile_a and c != parse_card("Ad")]
    pile_a |= set(others[: 28 - len(pile_a)])
    piles = [sum(1 << c for c in pile_a), sum(1 << c for c in set(range(52)) - pile_a)]
    overrides = {"points_cards": 2, "cards_threshold": 25, "points_spades": 1, "spades_threshold": 6}
    overrides |= {"points_ace": 2, "points_2S": 3, "points_10D": 1}
    points = engine.score_deal(SPEC.compile(SPEC.resolve(overrides)), piles, [3, 1])
    assert points.tolist() == [[2, 1, 4, 0, 1, 3], [0, 1, 4, 3, 0, 1]]
    assert engine.score_deal(SPEC.compile(SPEC.resolve()), piles, [3, 1]).tolist() == [
        [3, 0, 2, 0, 2, 3],
        [0, 2, 2, 1, 0, 1],
    ]


def parse_mask_ids(text):
    return [parse_card(c) for c in text.split()]


def test_first_dealer_fixed_deals_the_same_cards():
    """K2: seat 0 deals every game's first deal; the deal stream draws the first dealer all the same, so a seed
    deals the same shuffle (the first table) under both values."""
    games = range(40)
    traces = {
        value: api.trace(
            RunConfig.create("kaszino", policies=["greedy"], rules={"first_dealer": value}, games=40), games
        )
        for value in ("random", "fixed")
    }
    first_dealers = {v: [t["events"][0]["dealer"] for t in traces[v]] for v in traces}
    assert set(first_dealers["fixed"]) == {0} and set(first_dealers["random"]) == {0, 1}
    tables = {v: [next(e for e in t["events"] if e["type"] == "table")["cards"] for t in traces[v]] for v in traces}
    assert tables["fixed"] == tables["random"]
    rows = api.play_chunk(RunConfig.create("kaszino", rules={"first_dealer": "fixed"}, games=50), np.arange(50))
    assert set(rows.first_dealer.tolist()) == {0}


@pytest.mark.parametrize(
    "overrides",
    [
        {"points_ace": -1},
        {"points_10D": 101},
        {"cards_threshold": 0},
        {"cards_threshold": 53},
        {"spades_threshold": 14},
        {"residue_if_no_capture": "winner"},
        {"opening_tabla_scope": "every_move"},
        {"round_leader": "dealer"},
        {"first_dealer": "seat1"},
        {"tabla_on_final_move_counts": "maybe"},
        {"points_2s": 1},  # the key is points_2S
    ],
)
def test_bad_values_are_errors(overrides):
    with pytest.raises(ConfigError):
        SPEC.resolve(overrides)


def test_keys_are_shown_and_recorded():
    """``scopasim rules kaszino`` shows each key with its help; a trace header records the resolved value."""
    shown = CliRunner().invoke(app, ["rules", "kaszino"])
    assert shown.exit_code == 0
    for name in NEW_KEYS:
        assert name in shown.output and SPEC.key(name).doc in shown.output
    overrides = {"points_10D": 3, "residue_if_no_capture": "dealer", "first_dealer": "fixed"}
    trace = api.trace(RunConfig.create("kaszino", rules=overrides, games=1), [0])[0]
    assert {k: trace["rules"][k] for k in overrides} == overrides
    assert set(NEW_KEYS) <= set(trace["rules"])


def test_forced_exchange_is_forced_capture():
    """K4's forced_exchange is Part B's name of forced_capture: its help names it, and it resolves to it (true =
    player, false = none), so a run records one key."""
    assert "forced_exchange" in SPEC.key("forced_capture").doc
    assert SPEC.resolve({"forced_exchange": True}) == SPEC.resolve({"forced_capture": "player"})
    assert SPEC.resolve({"forced_exchange": "false"}) == SPEC.resolve({"forced_capture": "none"})
    with pytest.raises(ConfigError):
        SPEC.resolve({"forced_exchange": "sometimes"})


def test_bounds_follow_the_scoring():
    """game_info's category bounds follow the points; táblas: the opening can repeat once per round."""
    default = SPEC.game_info(SPEC.resolve())
    assert default.max_points["tabla"] == 25  # 24 táblas, one of them the opening (2)
    info = SPEC.game_info(SPEC.resolve({"points_ace": 3, "points_10D": 5, "points_tabla": 2, "points_cards": 0}))
    assert (info.max_points["aces"], info.max_points["big_casino"], info.max_points["cards"]) == (12, 5, 0)
    assert info.max_points["tabla"] == 24 * 2  # the opening (2) is worth no more than any other tábla
    each = SPEC.game_info(
        SPEC.resolve({"opening_tabla_scope": "first_move_after_each_draw", "opening_tabla_points": 5})
    )
    assert each.max_points["tabla"] == 24 + 8 * 4  # 8 rounds, each first move an opening
    final = SPEC.game_info(SPEC.resolve({"tabla_on_final_move_counts": False}))
    assert final.max_sweeps <= default.max_sweeps  # 24 either way: a side makes at most every other play


def test_policy_weights_follow_the_scoring():
    """Greedy's card weights and the point policies' weights scale with the points keys (defaults unchanged)."""
    default = SPEC.compile(SPEC.resolve())
    assert (default.card_weight[BIG_CASINO], default.card_weight[LITTLE_CASINO]) == (6, 4)
    rules = SPEC.resolve({"points_10D": 4, "points_2S": 0, "points_spades": 0})
    compiled = SPEC.compile(rules)
    assert (compiled.card_weight[BIG_CASINO], compiled.card_weight[LITTLE_CASINO]) == (12, 0)

    def points_row(rules):
        config = RunConfig.create("kaszino", policies=["points"], rules=rules, games=1)
        return policy_arrays(config.policy_choices(), config.rules)[1][0]

    base = points_row({})
    assert (base[BIG_CASINO], base[LITTLE_CASINO], base[P_SUIT], base[P_PER_CARD]) == (2.0, 1.0, 0.28, 0.11)
    row = points_row({"points_10D": 4, "points_2S": 0, "points_spades": 4, "spades_threshold": 7})
    assert (row[BIG_CASINO], row[LITTLE_CASINO], row[P_SUIT]) == (4.0, 0.0, 0.56)
    row = points_row({"points_cards": 6, "cards_threshold": 27, "points_ace": 2})
    assert row[P_PER_CARD] == pytest.approx(0.22) and row[parse_card("Ah")] == 2.0
