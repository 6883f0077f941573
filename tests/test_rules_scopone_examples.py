"""RULES.md 7.3 worked examples SC-EX1..SC-EX6, and what each Scopone key changes; Scopa's ``sum_choice`` and
``re_bello`` (the same keys, RULES.md 4.2 S5 and S10).

Legal moves are checked in both engines (the reference and the kernel's ``engine.legal_moves``), deal points in
both (``engine.score_deal``); what a play scores is checked on the reference here and in the kernel's traces,
which the differential tests compare with the reference game by game.
"""

from __future__ import annotations

import pytest
from reference_cases import cid, cmask

from simcore import api, engine
from simcore.cards import cards_of
from simcore.config import RunConfig
from simcore.errors import ConfigError
from simcore.reference import scopa as ref_scopa
from simcore.reference import scopone as ref
from simcore.reference.common import game_winner
from simcore.reference.piles import DealState
from simcore.variants import get_variant

SPEC = get_variant("scopone")


def resolve(**overrides):
    return SPEC.resolve(overrides)


def moves_both(rules, hand: str, table: str, first_play: bool = False) -> list[tuple[int, int]]:
    """Legal moves ``(card mask, take mask)`` by the reference, checked equal to the kernel's."""
    h, t = cmask(hand), cmask(table)
    reference = ref.legal_moves(rules, h, t, first_play)
    kernel = engine.legal_moves(SPEC.compile(rules), h, t, first_play)
    assert kernel == reference
    return reference


def named(moves) -> set[tuple[str, str]]:
    """Moves as ("card", "taken cards") strings, for readable assertions."""
    from simcore.cards import format_card

    def text(mask):
        return " ".join(format_card(c) for c in cards_of(mask))

    return {(text(p), text(t)) for p, t in moves}


# ------------------------------------------------------------------------------------------------ SC-EX1

EX1_TABLE = "Ac 3d 4s 7h Qc"
EX1_HAND = "7d Qd Js 4h Kh 2s"
EX1_DEFAULT = {
    ("7d", "7h"),
    ("Qd", "Qc"),
    ("Js", "Ac 7h"),
    ("Js", "Ac 3d 4s"),
    ("4h", "4s"),
    ("Kh", "3d 7h"),
    ("Kh", "Ac Qc"),
    ("2s", ""),
}


def test_sc_ex1_default_eight_moves():
    moves = moves_both(resolve(), EX1_HAND, EX1_TABLE)
    assert len(moves) == 8 and named(moves) == EX1_DEFAULT


def test_sc_ex1_fewest_drops_the_three_card_sum():
    moves = moves_both(resolve(sum_choice="fewest"), EX1_HAND, EX1_TABLE)
    assert len(moves) == 7 and named(moves) == EX1_DEFAULT - {("Js", "Ac 3d 4s")}


def test_sc_ex1_without_priority_ten_moves():
    moves = moves_both(resolve(single_card_priority=False), EX1_HAND, EX1_TABLE)
    assert len(moves) == 10 and named(moves) == EX1_DEFAULT | {("7d", "3d 4s"), ("4h", "Ac 3d")}


def test_sc_ex1_fewest_without_priority_is_fewest_alone():
    both = moves_both(resolve(single_card_priority=False, sum_choice="fewest"), EX1_HAND, EX1_TABLE)
    assert both == moves_both(resolve(sum_choice="fewest"), EX1_HAND, EX1_TABLE)


# ------------------------------------------------------------------------------------------------ SC-EX2

ACES = {"ace_takes_all": True}


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        ({}, {("Ac", ""), ("2d", ""), ("Js", "")}),
        (ACES, {("Ac", "Ac"), ("2d", ""), ("Js", "")}),  # kept: take == play in the kernel's moves
        ({**ACES, "ace_on_empty": "stay"}, {("Ac", ""), ("2d", ""), ("Js", "")}),
        ({**ACES, "ace_on_empty": "choice"}, {("Ac", "Ac"), ("Ac", ""), ("2d", ""), ("Js", "")}),
        ({**ACES, "ace_first_play": "banned"}, {("2d", ""), ("Js", "")}),
        ({**ACES, "ace_first_play": "plain"}, {("Ac", ""), ("2d", ""), ("Js", "")}),
    ],
    ids=["default", "ace_takes_all", "stay", "choice", "banned", "plain"],
)
def test_sc_ex2_opening_lead_of_scientifico(rules, expected):
    moves = moves_both(resolve(**rules), "Ac 2d Js", "", first_play=True)
    assert named(moves) == expected and len(moves) == len(expected)


def test_sc_ex2_first_play_rules_apply_to_the_first_play_only():
    """Later on an empty table the ace keeps itself again, and may be played."""
    for first_play_rule in ("banned", "plain"):
        later = moves_both(resolve(**ACES, ace_first_play=first_play_rule), "Ac 2d Js", "")
        assert ("Ac", "Ac") in named(later)


def test_sc_ex2_first_play_is_never_a_capture_in_kernel_traces():
    """deal="ten": every deal's first play is a trail, or a keep under ace_takes_all (C.A.5)."""
    for rules, kinds in (({}, {"trail"}), (ACES, {"trail", "keep"})):
        config = RunConfig.create("scopone", policies=["random"] * 4, rules=rules, games=60, seed=4)
        seen = set()
        for trace in api.trace(config, range(60)):
            events = trace["events"]
            for i, e in enumerate(events):
                if e["type"] == "table":
                    assert e["cards"] == []
                    first = next(x for x in events[i:] if x["type"] == "play")
                    seen.add(first["kind"])
                    assert not first["sweep"]
        assert seen == kinds


# ------------------------------------------------------------------------------------------------ SC-EX3


def test_sc_ex3_ace_takes_all_over_the_equal_ace():
    moves = moves_both(resolve(**ACES), "Ac Js 5d", "Ah 5c 3d")
    assert named(moves) == {("Ac", "Ah 3d 5c"), ("Js", "3d 5c"), ("5d", "5c")}


def play_on(rules, hands: list[str], table: str, seat: int, card: str, take: str, keep: bool = False):
    """Apply one play on the reference; returns (result, state)."""
    state = DealState(4, 0, [set(cards_of(cmask(h))) for h in hands], set(cards_of(cmask(table))), [])
    mask = 1 << cid(card) if keep else cmask(take)
    return ref.apply_play(rules, state, seat, (1 << cid(card), mask)), state


@pytest.mark.parametrize(("ace_scopa", "points"), [(False, 0), (True, 1)])
def test_sc_ex3_take_all_is_a_scopa_only_with_ace_scopa(ace_scopa, points):
    rules = resolve(**ACES, ace_scopa=ace_scopa)
    result, state = play_on(rules, ["Ac Js 5d", "2c", "", ""], "Ah 5c 3d", 0, "Ac", "Ah 5c 3d")
    assert (result.kind, result.points, result.sweep) == ("capture", points, ace_scopa)
    assert state.sweeps == [points, 0] and not state.table


def test_sc_ex3_take_all_with_the_last_card_is_no_scopa():
    result, _ = play_on(resolve(**ACES, ace_scopa=True), ["Ac", "", "", ""], "Ah 5c 3d", 0, "Ac", "Ah 5c 3d")
    assert (result.points, result.sweep) == (0, False)


def test_sc_ex3_ace_on_ace_takes_one_table_ace_only():
    moves = moves_both(resolve(**ACES, ace_on_ace="ace_only"), "Ac Js 5d", "Ah 5c 3d")
    assert named(moves) == {("Ac", "Ah"), ("Js", "3d 5c"), ("5d", "5c")}
    result, state = play_on(resolve(**ACES, ace_on_ace="ace_only"), ["Ac", "2c", "", ""], "Ah 5c 3d", 0, "Ac", "Ah")
    assert (result.kind, result.sweep) == ("capture", False) and state.table == set(cards_of(cmask("5c 3d")))


@pytest.mark.parametrize("ace_on_ace", ["all", "ace_only"])
def test_sc_ex3_lone_table_ace_is_an_ordinary_scopa(ace_on_ace):
    rules = resolve(**ACES, ace_on_ace=ace_on_ace)  # ace_scopa=false
    moves = moves_both(rules, "Ac Js", "Ah")
    assert named(moves) == {("Ac", "Ah"), ("Js", "")}
    result, _ = play_on(rules, ["Ac Js", "2c", "", ""], "Ah", 0, "Ac", "Ah")
    assert (result.kind, result.points, result.sweep) == ("capture", 1, True)


def test_keep_is_a_capture_for_the_residue_but_never_a_scopa():
    result, state = play_on(resolve(**ACES), ["Ac 2c", "3c", "", ""], "", 0, "Ac", "", keep=True)
    assert (result.kind, result.points, result.sweep) == ("keep", 0, False)
    assert state.piles[0] == {cid("Ac")} and state.last_capturer == 0 and not state.table


def kernel_ace_plays(rules: dict, games: int = 150) -> list[dict]:
    config = RunConfig.create("scopone", policies=["random"] * 4, rules=rules, games=games, seed=11)
    plays = []
    for trace in api.trace(config, range(games)):
        plays += [e for e in trace["events"] if e["type"] == "play" and e["cards"][0][0] == "A"]
    return plays


def test_kernel_traces_ace_sweeps_follow_ace_scopa():
    """In the kernel's games: a take-all of several cards is a scopa only with ace_scopa (not with the last card);
    a keep never is; a take of one lone ace is one whenever it is not the last card."""
    for ace_scopa in (False, True):
        plays = kernel_ace_plays({**ACES, "ace_scopa": ace_scopa})
        take_alls = [p for p in plays if p["kind"] == "capture" and len(p["take"]) >= 2]
        keeps = [p for p in plays if p["kind"] == "keep"]
        assert take_alls and keeps
        assert all(not p["sweep"] and p["take"] == [] for p in keeps)
        assert any(p["sweep"] for p in take_alls) == ace_scopa
        assert all(p["points"] == int(p["sweep"]) for p in plays)


# ------------------------------------------------------------------------------------------------ SC-EX4


def test_sc_ex4_three_kings_void_a_nine_deal_only():
    nine = resolve(deal="nine")
    assert ref.is_void_deal(nine, cards_of(cmask("Ks Kd Kc 4h")))
    assert not ref.is_void_deal(nine, cards_of(cmask("Ks Kd 7c 4h")))
    assert not ref.is_void_deal(resolve(deal="nine", redeal_kings=0), cards_of(cmask("Ks Kd Kc 4h")))
    assert not ref.is_void_deal(resolve(), cards_of(cmask("Ks Kd Kc 4h")))
    assert SPEC.compile(resolve()).redeal_kings == 0 and SPEC.compile(nine).redeal_kings == 3


def redeals_in_kernel(rules: dict, games: int) -> list[tuple[dict, dict]]:
    """(void deal event, the deal event after its redeal) pairs of the kernel's traces."""
    config = RunConfig.create("scopone", policies=["greedy"] * 4, rules=rules, games=games, seed=8)
    pairs = []
    for trace in api.trace(config, range(games)):
        events = trace["events"]
        deal = None
        for i, e in enumerate(events):
            if e["type"] == "deal":
                deal = e
            if e["type"] == "redeal":
                pairs.append((deal, next(x for x in events[i:] if x["type"] == "deal")))
    return pairs


def test_sc_ex4_redeal_in_kernel_games_keeps_number_and_dealer():
    pairs = redeals_in_kernel({"deal": "nine"}, 400)
    assert pairs, "about 1 deal in 50 has three kings on the table"
    assert all(a == b for a, b in pairs)
    assert not redeals_in_kernel({"deal": "nine", "redeal_kings": 0}, 200)
    assert not redeals_in_kernel({}, 200)


def test_deal_key_sets_hands_and_table():
    for deal, hand, table in (("ten", 10, 0), ("nine", 9, 4)):
        config = RunConfig.create("scopone", policies=["random"] * 4, rules={"deal": deal}, games=5, seed=1)
        events = api.trace(config, [0])[0]["events"]
        assert [len(e["cards"]) for e in events[1:5]] == [hand] * 4 and events[1]["type"] == "hand"
        assert events[5] == {"type": "table", "cards": events[5]["cards"]} and len(events[5]["cards"]) == table
        first_score = next(i for i, e in enumerate(events) if e["type"] == "score")
        assert sum(e["type"] == "play" for e in events[:first_score]) == 4 * hand


# ------------------------------------------------------------------------------------------------ SC-EX5

NS = "Ad 2d 3d 4d 5d 7d Kd 6c Ah 5s Ac 2c 3c 4c 5c Jc Qc Kc 2h 3h 4h 5h Jh"
EW = "As 2s 3s 4s 6d 6h 6s 7c 7h 7s Jd Js Qd Qh Qs Kh Ks"


def deal_points_both(rules) -> list[dict[str, int]]:
    piles, sweeps = [cmask(NS), cmask(EW)], [2, 1]
    points = ref.score_deal(rules, piles, sweeps)
    kernel = engine.score_deal(SPEC.compile(rules), piles, sweeps)
    assert kernel.tolist() == [[side[c] for c in SPEC.categories] for side in points]
    return points


def test_sc_ex5_defaults():
    ns, ew = deal_points_both(resolve())
    assert (ns["cards"], ns["coins"], ns["settebello"], ns["primiera"], ns["scopa"]) == (1, 1, 1, 0, 2)
    assert ew["primiera"] == 1 and (ref.deal_total(ns), ref.deal_total(ew)) == (5, 2)
    assert ns["napola"] == ns["re_bello"] == 0


def test_sc_ex5_napola_and_re_bello():
    ns, ew = deal_points_both(resolve(napola=True, re_bello=True))
    assert (ns["napola"], ns["re_bello"], ref.deal_total(ns), ref.deal_total(ew)) == (5, 1, 11, 2)


def test_sc_ex5_primiera_suits():
    ns, ew = deal_points_both(resolve(napola=True, re_bello=True, primiera="suits"))
    assert ns["primiera"] == ew["primiera"] == 0 and (ref.deal_total(ns), ref.deal_total(ew)) == (11, 1)


def test_sc_ex5_game_end():
    assert game_winner([2 + 11, 9 + 2], 11) == 0  # napola and re bello: 13:11, NS wins
    assert game_winner([2 + 5, 9 + 2], 11) == 1  # defaults: 7:11, EW wins
    assert game_winner([13, 11], 21) is None  # target 21: another deal


# ------------------------------------------------------------------------------------------------ SC-EX6


@pytest.mark.parametrize(("last_play_scopa", "points"), [(False, 0), (True, 1)])
def test_sc_ex6_no_scopa_with_the_fortieth_card(last_play_scopa, points):
    rules = resolve(last_play_scopa=last_play_scopa)
    result, state = play_on(rules, ["7c", "", "", ""], "3d 4s", 0, "7c", "3d 4s")
    assert (result.kind, result.points, result.sweep) == ("capture", points, bool(points))
    assert state.last_capturer == 0


# ---------------------------------------------------------------------------------- keys and validation


def test_forced_capture_none_adds_every_trail():
    moves = moves_both(resolve(forced_capture="none", **ACES), "Ac 7d 2s", "Ah 7h")
    assert named(moves) == {("Ac", ""), ("Ac", "Ah 7h"), ("7d", ""), ("7d", "7h"), ("2s", "")}


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("players", "2", "rule players: 2 is not allowed"),
        ("deal", "eleven", "rule deal: eleven is not allowed"),
        ("sum_choice", "most", "rule sum_choice: most is not allowed"),
        ("ace_on_empty", "drop", "rule ace_on_empty: drop is not allowed"),
        ("ace_on_ace", "none", "rule ace_on_ace: none is not allowed"),
        ("ace_first_play", "late", "rule ace_first_play: late is not allowed"),
        ("redeal_kings", "4", "rule redeal_kings: 4 is not allowed"),
        ("re_bello", "maybe", "rule re_bello: expected true or false"),
        ("forced_capture", "player", "rule forced_capture: player is not allowed"),
        ("target", "0", "rule target: 0 is below the minimum 1"),
        ("asso", "true", "unknown rule key"),
    ],
)
def test_invalid_values_are_errors(key, value, message):
    with pytest.raises(ConfigError, match=message):
        SPEC.resolve({key: value})


def test_every_key_of_c_a_3_with_its_default():
    assert SPEC.defaults() == {
        "players": 4,
        "target": 11,
        "forced_capture": "card",
        "single_card_priority": True,
        "deal": "ten",
        "redeal_kings": 3,
        "sum_choice": "free",
        "last_play_scopa": False,
        "primiera": "table",
        "napola": False,
        "re_bello": False,
        "ace_takes_all": False,
        "ace_scopa": False,
        "ace_on_empty": "keep",
        "ace_on_ace": "all",
        "ace_first_play": "free",
    }
    assert SPEC.categories == ("cards", "coins", "settebello", "primiera", "scopa", "napola", "re_bello")


def test_ace_keys_do_nothing_without_ace_takes_all():
    plain = SPEC.compile(resolve())
    others = SPEC.compile(
        resolve(ace_scopa=True, ace_on_empty="choice", ace_on_ace="ace_only", ace_first_play="banned")
    )
    fields = ("ace_sweeps", "ace_scopa", "ace_on_ace", "ace_first_play", "ace_single_ordinary")
    assert all(getattr(plain, f) == getattr(others, f) == 0 for f in fields)


# ---------------------------------------------------------------------- Scopa's sum_choice and re_bello

SCOPA = get_variant("scopa")


def test_scopa_sum_choice_fewest_keeps_each_cards_smallest_captures():
    rules = SCOPA.resolve({"sum_choice": "fewest"})
    hand, table = cmask("Js Kh 7d"), cmask("Ac 3d 4s 7h Qc")
    reference = [(1 << c, t) for c, t in ref_scopa.legal_moves(rules, hand, table)]
    assert engine.legal_moves(SCOPA.compile(rules), hand, table) == reference
    assert named(reference) == {("Js", "Ac 7h"), ("Kh", "3d 7h"), ("Kh", "Ac Qc"), ("7d", "7h")}
    free = ref_scopa.legal_moves(SCOPA.resolve(), hand, table)
    assert (cid("Js"), cmask("Ac 3d 4s")) in free  # what "fewest" removes


def test_scopa_re_bello_is_a_category_only_when_on():
    assert "re_bello" not in SCOPA.categories_for(SCOPA.resolve())
    rules = SCOPA.resolve({"re_bello": True, "players": 4})
    assert SCOPA.categories_for(rules)[-1] == "re_bello"
    piles = [cmask("Kd 7c"), cmask("7d 2c 3h")]
    points = ref_scopa.score_deal(rules, piles, [0, 0])
    assert [p["re_bello"] for p in points] == [1, 0]
    kernel = engine.score_deal(SCOPA.compile(rules), piles, [0, 0])
    assert kernel.tolist() == [[side[c] for c in SCOPA.categories_for(rules)] for side in points]
    assert engine.score_deal(SCOPA.compile(SCOPA.resolve()), piles, [0, 0]).shape == (2, 6)


def test_scopa_re_bello_in_the_kernel_run_columns_and_traces():
    config = RunConfig.create("scopa", policies=["greedy", "random"], rules={"re_bello": True}, games=30, seed=3)
    traces = api.trace(config, range(30))
    scores = [p for t in traces for e in t["events"] if e["type"] == "score" for p in e["points"]]
    assert all(list(p)[-1] == "re_bello" for p in scores)
    assert 0 < sum(p["re_bello"] for p in scores) <= len(scores) // 2
