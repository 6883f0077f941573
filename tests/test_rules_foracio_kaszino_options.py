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
from simcore.kernels.workspace import DS_N, DS_OUT_SIDE, DS_POS, DS_SEEN, DS_TABLE, HANDS, TOTALS
from simcore.policies import policy_arrays
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
