"""The last Part B options of Foracio and Kaszinó (issue 15): Kaszinó's ``stake_multiplier`` (K13), ``out_call=
"manual"`` with ``false_call`` (K13), and Foracio's ``no_scopa_rule`` (F8).

Each option: what it changes, in worked positions or games of both engines (the Numba kernels and the plain-Python
reference), that the defaults are unchanged, and that the key is validated and recorded. Whole games under the
options are also compared engine against reference in ``test_differential_variants.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from simcore import api, engine
from simcore.cards import cards_of, parse_mask
from simcore.config import RunConfig
from simcore.errors import ConfigError
from simcore.kernels.deal import DEAL_DONE, DEAL_OUT
from simcore.kernels.game import EV_OUT, EV_PLAY, EV_WIDTH, begin_deal, fill_rule_info, new_scratch, run_deal
from simcore.kernels.scoring import deal_winner
from simcore.kernels.workspace import (
    DS_LAST,
    DS_N,
    DS_OUT_SIDE,
    DS_POS,
    DS_SEEN,
    DS_T,
    DS_TABLE,
    HANDS,
    SAME_SUIT,
    SWEEP_PTS,
    SWEEPS,
    TOTALS,
)
from simcore.policies import policy_arrays
from simcore.reference import foracio as rf
from simcore.reference import kaszino as rk
from simcore.results import games_table
from simcore.variants import get_variant

FORACIO, KASZINO = get_variant("foracio"), get_variant("kaszino")
A, B = 0, 1  # Kaszinó positions: A the non-dealer (moves first), B the dealer


# ------------------------------------------------------------------------------ Kaszinó stake_multiplier


def test_k13_stake_multiplier_doubles_a_first_deal_win_in_the_games_table():
    """A game won in its first deal (mid-deal AUSZ or at the deal's end) has stake 2, a longer one 1; the games
    play as without the key (same winners, totals, deals), and without it the table has no stake column."""
    games = np.arange(120, dtype=np.int64)
    on = RunConfig.create("kaszino", policies=["greedy", "random"], rules={"stake_multiplier": "first_deal_double"})
    off = RunConfig.create("kaszino", policies=["greedy", "random"])
    out_on, out_off = api.play_chunk(on, games), api.play_chunk(off, games)
    for name in ("winner", "totals", "n_deals", "mid_deal"):
        assert np.array_equal(getattr(out_on, name), getattr(out_off, name)), name
    table = games_table(on, games, out_on)
    stake = table.column("stake").to_numpy()
    deals = table.column("deals").to_numpy()
    assert table.schema.field("stake").type == "int8"
    assert np.array_equal(stake, np.where(deals == 1, 2, 1))
    assert 0 < (stake == 2).sum() < len(games)  # both kinds occur: games of one deal and longer ones
    assert "stake" not in games_table(off, games, out_off).column_names
    assert games_table(off, games, out_off).column_names == [c for c in table.column_names if c != "stake"]


def test_k13_stake_multiplier_is_validated_and_recorded():
    with pytest.raises(ConfigError, match="not allowed"):
        KASZINO.resolve({"stake_multiplier": "triple"})
    trace = api.trace(RunConfig.create("kaszino", rules={"stake_multiplier": "first_deal_double"}, games=1), [0])[0]
    assert trace["rules"]["stake_multiplier"] == "first_deal_double"
    assert trace == rk.play_game(trace["seed"], 0, trace["rules"], trace["policies"])  # no effect on play


# ------------------------------------------------------------------------------ Kaszinó out_call=manual


def kaszino_kernel_position(overrides, hand_a, hand_b, table, banked):
    """The rest of a one-round Kaszinó deal (empty talon) in the kernel's deal loop, greedy seats, the players'
    banked totals ``banked``; returns (status, out side, plays as (seat, played mask), game state)."""
    config = RunConfig.create("kaszino", policies=["greedy"], rules=overrides, games=1, seed=0)
    rules = config.compiled_rules()
    ids, params = policy_arrays(config.policy_choices(), config.rules)
    s = new_scratch(rules)
    fill_rule_info(s.ps, rules)
    events = np.zeros((1, 256, EV_WIDTH), np.int64)
    _, start = begin_deal(rules, s.gs, 0, B, events, 0, 0)
    gs = s.gs
    gs[HANDS], gs[HANDS + 1] = parse_mask(hand_a), parse_mask(hand_b)
    gs[DS_TABLE] = gs[DS_SEEN] = parse_mask(table)
    gs[DS_POS] = gs[DS_N]  # the talon is empty: the deal's last round
    gs[TOTALS], gs[TOTALS + 1] = banked
    status, ne = run_deal(rules, ids, params, gs, s.ps, events, 0, start, -1, *engine.run_features(rules, ids))
    rows = [tuple(int(x) for x in r) for r in events[0, start:ne]]
    plays = [(r[1], r[5]) for r in rows if r[0] == EV_PLAY]
    outs = [r[1] for r in rows if r[0] == EV_OUT]
    return status, (outs[0] if outs else None), plays, gs


class GreedyAgent:
    """Reference agent for a set-up Kaszinó position: greedy choices, events recorded."""

    def __init__(self, rules):
        self.rules, self.events = rules, []

    def choose(self, state, seat, moves, forced_trail):
        view = rk.PolicyView(seat, frozenset(state.hands[seat]), frozenset(state.table), tuple(moves), self.rules, None)
        return moves[rk.choose_greedy(view, None)]

    def emit(self, event):
        self.events.append(event)


def kaszino_reference_position(overrides, hand_a, hand_b, table, banked):
    """The same position in the reference engine; returns (out seat or None, plays as (seat, played mask))."""
    rules = KASZINO.resolve(overrides)
    state = rk.DealState(
        B, [set(cards_of(parse_mask(hand_a))), set(cards_of(parse_mask(hand_b)))], set(cards_of(parse_mask(table))), []
    )
    agent = GreedyAgent(rules)
    out = rk.play_deal(rules, state, list(banked), agent)
    plays = [(e["seat"], parse_mask(" ".join(e["cards"]))) for e in agent.events if e["type"] == "play"]
    return out, plays


@pytest.mark.parametrize(
    ("hand_a", "hand_b", "table", "caller", "plays"),
    [
        # A (10) takes the ace of spades with his ace: 12 >= 11, he calls first and wins, although B is at 11
        ("Ah 2c 3c", "4d 5h 6s", "As 7d 9h Qs", A, 1),
        # A cannot exchange and trails; B, carried over at 11, calls right after his first play, a trail too
        ("2c 3h 5d", "4d 4h 6s", "9s Jd Qh Kc", B, 2),
    ],
)
def test_k13_manual_call_after_the_callers_own_play(hand_a, hand_b, table, caller, plays):
    """K13 manual: B ended the last deal at 11 with no call (a residue pushed him there), A at 10. The first
    player who, right after his own play, has reached the target calls and wins: in the first position A, whose
    exchange makes him sure of 12 (B loses at 11: "the latter has won"); in the second B, after a trail."""
    rules = {"out_call": "manual"}
    status, out, kernel_plays, gs = kaszino_kernel_position(rules, hand_a, hand_b, table, (10, 11))
    assert status == DEAL_OUT and out == caller and gs[DS_OUT_SIDE] == caller and len(kernel_plays) == plays
    ref_out, ref_plays = kaszino_reference_position(rules, hand_a, hand_b, table, (10, 11))
    assert ref_out == caller and ref_plays == kernel_plays


def test_k13_manual_decides_nothing_after_a_deal():
    """A deal played out with a player past the target and no call (only a residue got him there): under
    "auto" the end-of-deal decision gives him the game, under "manual" nobody wins (the scores carry over)."""
    totals = np.array([12, 5, 0, 0], np.int64)
    points = np.zeros((4, 16), np.int64)
    auto = KASZINO.compile(KASZINO.resolve())
    manual = KASZINO.compile(KASZINO.resolve({"out_call": "manual"}))
    assert deal_winner(auto, totals, points, 0, 0, 0) == 0
    assert deal_winner(manual, totals, points, 0, 0, 0) == -1
    # played out: A at 8 makes 10 (two aces), B stays far below, so the deal ends without a call
    position = ("Ah 2c 3c", "4d 5h 6s", "As 7d 9h Qs", (8, 3))
    status, out, _, _ = kaszino_kernel_position({"out_call": "manual"}, *position)
    assert status == DEAL_DONE and out is None
    assert kaszino_reference_position({"out_call": "manual"}, *position)[0] is None


def test_k13_manual_games_go_on_where_auto_games_end_in_both_engines():
    """Whole games, greedy against random: every manual game ends by a call; where a player reached the target
    only at a deal's end (the residue), the auto game ends there and the manual one deals again, and the two
    traces agree up to that deal's score. The reference plays the same manual games and checks their traces."""
    policies = ["greedy", "random"]
    manual = RunConfig.create(
        "kaszino", policies=policies, rules={"out_call": "manual", "false_call": "ignored"}, seed=3
    )
    auto = RunConfig.create("kaszino", policies=policies, seed=3)
    traces, auto_traces = api.trace(manual, range(120)), api.trace(auto, range(120))
    went_on = 0
    for trace, auto_trace in zip(traces, auto_traces, strict=True):
        assert trace == rk.play_game(3, trace["game"], dict(manual.rules), policies)
        rk.check_trace(trace)
        events, auto_events = trace["events"], auto_trace["events"]
        assert [e["type"] for e in events[-3:]] == ["out", "score", "end"]  # only a call ends a manual game
        if auto_events[-3]["type"] == "out":  # auto ended by a call too: the same game
            assert events == auto_events
            continue
        went_on += 1
        cut = len(auto_events) - 1  # auto's end follows the deal's score; manual deals again
        assert events[:cut] == auto_events[:cut] and events[cut]["type"] == "deal"
        assert max(auto_events[-1]["totals"]) >= 11
    assert went_on >= 5
    assert traces[0]["rules"]["false_call"] == "ignored"


def test_k13_out_call_and_false_call_values():
    with pytest.raises(ConfigError, match="not allowed"):
        KASZINO.resolve({"out_call": "shout"})
    with pytest.raises(ConfigError, match="not allowed"):
        KASZINO.resolve({"false_call": "wins"})
    assert KASZINO.resolve()["false_call"] == "loses"
    info = KASZINO.game_info(KASZINO.resolve({"out_call": "manual"}))
    assert info.mid_deal_out and info.past_target == "call"
    assert "no false call" in KASZINO.key("false_call").doc


# ------------------------------------------------------------------------------ Foracio no_scopa_rule

LAST_ROUND = {"no_scopa_rule": "final_capture_if_in_last_round"}
DEALER = 3  # seat 0 leads; seats 0 and 2 are side 0


def foracio_kernel_last_round(overrides, hands, table, banked=(0, 0)):
    """The deal's last round (48 plays made, one card in each hand, seat 0 to play) in the kernel's deal loop,
    greedy seats; returns (status, plays as (seat, points, sweep), per side (scope, sweeps, same-suit))."""
    config = RunConfig.create("foracio", policies=["greedy"], rules=overrides, games=1, seed=0)
    rules = config.compiled_rules()
    ids, params = policy_arrays(config.policy_choices(), config.rules)
    s = new_scratch(rules)
    fill_rule_info(s.ps, rules)
    events = np.zeros((1, 256, EV_WIDTH), np.int64)
    _, start = begin_deal(rules, s.gs, 0, DEALER, events, 0, 0)
    gs = s.gs
    for seat, hand in enumerate(hands):
        gs[HANDS + seat] = parse_mask(hand)
    gs[DS_TABLE] = gs[DS_SEEN] = parse_mask(table)
    gs[DS_T], gs[DS_LAST] = 48, 1  # seat 1 made the last capture before this round
    gs[TOTALS], gs[TOTALS + 1] = banked
    status, ne = run_deal(rules, ids, params, gs, s.ps, events, 0, start, -1, *engine.run_features(rules, ids))
    plays = [(int(r[1]), int(r[3]), bool(r[4])) for r in events[0, start:ne] if r[0] == EV_PLAY]
    sides = [(int(gs[SWEEP_PTS + k]), int(gs[SWEEPS + k]), int(gs[SAME_SUIT + k])) for k in range(2)]
    return status, plays, sides


def foracio_reference_last_round(overrides, hands, table, banked=(0, 0)):
    """The same position in the reference engine: (won mid-deal, plays, per side (scope, same-suit))."""
    rules = FORACIO.resolve(overrides)
    state = rf.DealState(0, [set(cards_of(parse_mask(h))) for h in hands], set(cards_of(parse_mask(table))))
    state.last_capturer = 1
    events = []
    won = rf.play_deal(rules, state, list(banked), lambda seat, view: rf.choose_greedy(view, None), events)
    plays = [(e["seat"], e["points"], e["sweep"]) for e in events]
    return won, plays, [(state.scopa[k], state.same_suit[k]) for k in range(2)]


def both_engines_last_round(overrides, hands, table, banked=(0, 0)):
    """The position in both engines, checked to agree; returns the kernel's (status, plays, sides)."""
    status, plays, sides = foracio_kernel_last_round(overrides, hands, table, banked)
    won, ref_plays, ref_sides = foracio_reference_last_round(overrides, hands, table, banked)
    assert ref_plays == plays and won == (status == DEAL_OUT)
    assert ref_sides == [(scope, same) for scope, _, same in sides]
    return status, plays, sides


# Table 3c 4d; seat 0 sweeps it with 7h (scopa 7) in the last round; seats 1-3 then play Kc, Qd and the last card
SWEEP_THEN_TRAILS = ("7h", "Kc", "Qd", "2s")  # nobody captures after the sweep: it is the deal's last capture
SWEEP_THEN_CAPTURE = ("7h", "Kc", "Qd", "Ks")  # seat 3's Ks takes Kc: the sweep is not the last capture


@pytest.mark.parametrize("overrides", [{}, LAST_ROUND])
def test_f8_a_last_round_sweep_followed_by_a_capture_stands(overrides):
    """Under both rules: a later capture (Ks takes Kc, not a sweep: Qd stays) leaves seat 0's scopa 7."""
    status, plays, sides = both_engines_last_round(overrides, SWEEP_THEN_CAPTURE, "3c 4d")
    assert status == DEAL_DONE
    assert plays == [(0, 7, True), (1, 0, False), (2, 0, False), (3, 0, False)]
    assert sides[0] == (7, 1, 0)


def test_f8_final_capture_if_in_last_round_withdraws_the_last_captures_scopa():
    """Seat 0's sweep is the deal's last capture: by default a scopa (not the deal's final card); under
    final_capture_if_in_last_round it scores nothing, its play event says so, and the side's scope is 0."""
    status, plays, sides = both_engines_last_round({}, SWEEP_THEN_TRAILS, "3c 4d")
    assert plays[0] == (0, 7, True) and sides[0] == (7, 1, 0)
    status, plays, sides = both_engines_last_round(LAST_ROUND, SWEEP_THEN_TRAILS, "3c 4d")
    assert status == DEAL_DONE
    assert plays == [(0, 0, False), (1, 0, False), (2, 0, False), (3, 0, False)]
    assert sides[0] == (0, 0, 0)


@pytest.mark.parametrize(("total", "bonus"), [("2v", 7), ("3v", 7)])
def test_f8_a_withdrawn_same_suit_sweep_keeps_its_bonus(total, bonus):
    """7h taking 3h 4h: a same-suit sweep; withdrawn, it keeps the same-suit 7 (under "3v" its whole 14)."""
    overrides = {**LAST_ROUND, "same_suit_scopa_total": total}
    _, plays, sides = both_engines_last_round(overrides, SWEEP_THEN_TRAILS, "3h 4h")
    assert plays[0] == (0, bonus, False) and sides[0] == (0, 0, bonus)
    _, plays, sides = both_engines_last_round({"same_suit_scopa_total": total}, SWEEP_THEN_TRAILS, "3h 4h")
    scopa = 14 if total == "3v" else 7
    assert plays[0] == (0, bonus + scopa, True) and sides[0] == (scopa, 1, bonus)


def test_f8_the_final_cards_capture_scores_no_scopa_under_both():
    """Seat 3's 4th play is the deal's 52nd: its sweep (5h taking 2c 3d) scores no scopa under either rule."""
    hands = ("Kc", "Qd", "Jh", "5h")
    for overrides in ({}, LAST_ROUND):
        _, plays, sides = both_engines_last_round(overrides, hands, "2c 3d")
        assert plays[3] == (3, 0, False) and sides[1] == (0, 0, 0)


def test_f8_a_provisional_scopa_counts_toward_no_declaration():
    """Side 0 at 64 of 71: seat 0's scopa 7 in the last round declares it at once by default; under the option it
    is provisional, so nobody declares: the deal is played out (here the scopa is withdrawn, or stands after a
    later capture, and the ordinary end-of-deal decision counts it)."""
    status, plays, _ = both_engines_last_round({}, SWEEP_THEN_TRAILS, "3c 4d", banked=(64, 0))
    assert status == DEAL_OUT and len(plays) == 1
    for hands, scope in ((SWEEP_THEN_TRAILS, 0), (SWEEP_THEN_CAPTURE, 7)):
        status, plays, sides = both_engines_last_round(LAST_ROUND, hands, "3c 4d", banked=(64, 0))
        assert status == DEAL_DONE and len(plays) == 4 and sides[0][0] == scope


def test_f8_a_declaring_last_round_sweep_loses_its_scopa():
    """Side 0 at 64: 7h taking 3h 4h scores the same-suit 7 at once, which declares (64 + 7 = 71; the provisional
    scopa does not count). The declaration ends the deal with that sweep as its last capture: no scopa, and the
    play event shows the 7 alone."""
    status, plays, sides = both_engines_last_round(LAST_ROUND, SWEEP_THEN_TRAILS, "3h 4h", banked=(64, 0))
    assert status == DEAL_OUT and plays == [(0, 7, False)] and sides[0] == (0, 0, 7)


def test_f8_games_under_the_option_in_both_engines():
    """Whole games: the kernel's traces are the reference's and pass its trace check, and some games differ from
    the default rule's; where they first differ, it is a last-round sweep, which the option withdrew."""
    policies = ["random"] * 4
    config = RunConfig.create("foracio", policies=policies, rules=LAST_ROUND, seed=7)
    default = RunConfig.create("foracio", policies=policies, seed=7)
    traces, default_traces = api.trace(config, range(60)), api.trace(default, range(60))
    differ = 0
    for trace, other in zip(traces, default_traces, strict=True):
        assert trace == rf.play_game(7, trace["game"], dict(config.rules), policies)
        rf.check_trace(trace)
        if trace["events"] == other["events"]:
            continue
        differ += 1
        i = next(i for i, (a, b) in enumerate(zip(trace["events"], other["events"], strict=False)) if a != b)
        mine, theirs = trace["events"][i], other["events"][i]
        assert mine["type"] == theirs["type"] == "play" and theirs["sweep"] and not mine["sweep"]
        later = trace["events"][i + 1 :]
        plays_left = next(k for k, e in enumerate(later) if e["type"] != "play")
        assert plays_left <= 3 and all(e["kind"] == "trail" for e in later[:plays_left])  # last round, no capture after
    assert differ >= 2
    assert traces[0]["rules"]["no_scopa_rule"] == "final_capture_if_in_last_round"
    assert default_traces[0]["rules"]["no_scopa_rule"] == "final_card_of_deal"
    with pytest.raises(ConfigError, match="not allowed"):
        FORACIO.resolve({"no_scopa_rule": "never"})


@pytest.mark.parametrize(
    ("game", "keys"), [("kaszino", ("stake_multiplier", "out_call", "false_call")), ("foracio", ("no_scopa_rule",))]
)
def test_the_new_keys_are_listed_with_their_help(game, keys):
    """``scopasim rules GAME`` (generated from the RuleKeys) shows each new key, its values and its help."""
    from typer.testing import CliRunner

    from cli.app import app

    shown = CliRunner().invoke(app, ["rules", game])
    assert shown.exit_code == 0
    spec = get_variant(game)
    for name in keys:
        key = spec.key(name)
        assert name in shown.output and key.doc in shown.output
        assert all(str(choice) in shown.output for choice in key.choices)
