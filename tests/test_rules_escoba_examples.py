"""RULES.md 8.3 worked examples E-EX1..E-EX6 and a test per Escoba rule key, on the reference engine and on the
kernels (``simcore.engine.legal_moves`` / ``score_deal``, the opening in whole traced games)."""

from __future__ import annotations

import pytest
from reference_cases import cmask, pile

from simcore import api, engine
from simcore.config import RunConfig
from simcore.errors import ConfigError
from simcore.kernels.deal import opening_escobas as kernel_opening
from simcore.reference.common import game_winner
from simcore.reference.escoba import DealState, apply_play, legal_moves, opening_escobas, opening_take, score_deal
from simcore.variants.escoba import CATEGORIES, SPEC

DEFAULT = SPEC.resolve()


def both_moves(rules: dict, hand: str, table: str) -> list[tuple[int, int]]:
    """The legal moves by the reference, checked equal to the kernel's."""
    expected = legal_moves(rules, cmask(hand), cmask(table))
    assert engine.legal_moves(SPEC.compile(rules), cmask(hand), cmask(table)) == expected
    return expected


def both_scores(rules: dict, piles: list[str], sweeps: list[int]) -> list[dict[str, int]]:
    """Deal points by the reference, checked equal to the kernel's."""
    expected = score_deal(rules, [pile(p) for p in piles], sweeps)
    kernel = engine.score_deal(SPEC.compile(rules), [cmask(p) for p in piles], sweeps)
    assert [dict(zip(CATEGORIES, map(int, row), strict=True)) for row in kernel] == expected
    return expected


def totals(points: list[dict[str, int]]) -> list[int]:
    return [sum(p.values()) for p in points]


# ---------------------------------------------------------------------------------------------- E-EX1

E_EX1_TABLE = "7d Jc 5s 2h Ac"
E_EX1_HAND = "Kh 7c Qs 3d 6c 4h"
E_EX1_CAPTURES = [
    ("Kh", "5s"),
    ("7c", "Jc"),
    ("7c", "7d Ac"),
    ("7c", "5s 2h Ac"),
    ("Qs", "5s Ac"),
    ("3d", "7d 5s"),
    ("6c", "Jc Ac"),
    ("6c", "7d 2h"),
    ("4h", "Jc 2h Ac"),
]


def test_e_ex1_fifteens_and_trails():
    captures = sorted((cmask(p), cmask(t)) for p, t in E_EX1_CAPTURES)
    trails = sorted((cmask(c), 0) for c in E_EX1_HAND.split())
    moves = both_moves(DEFAULT, E_EX1_HAND, E_EX1_TABLE)
    assert len(moves) == 15 and moves == sorted(captures + trails)
    assert all(t != cmask(E_EX1_TABLE) for _p, t in captures)  # no capture empties the table (23)
    for forced in ("card", "player"):
        assert both_moves(SPEC.resolve({"forced_capture": forced}), E_EX1_HAND, E_EX1_TABLE) == captures


# ---------------------------------------------------------------------------------------------- E-EX2


@pytest.mark.parametrize(
    ("table", "escobas"),
    [("Ac 2h 4s Jd", 1), ("7c Jd 5s Kh", 2), ("5c 5d Kh Ks", 2), ("Ks Kh Qc Ad", 0), ("7d Jc 2h 3s", 0)],
)
def test_e_ex2_opening_tables(table, escobas):
    assert opening_escobas(pile(table)) == escobas
    compiled = SPEC.compile(DEFAULT)
    assert kernel_opening(cmask(table), compiled.value_by_rank, compiled.sum_to) == escobas


def test_e_ex2_no_opening_first_player_moves():
    assert both_moves(DEFAULT, "5c 2h", "Ks Kh Qc Ad") == sorted(
        [(cmask("5c"), cmask("Ks")), (cmask("5c"), cmask("Kh")), (cmask("5c"), cmask("Qc Ad")),
         (cmask("5c"), 0), (cmask("2h"), 0)]
    )  # fmt: skip


@pytest.mark.parametrize(("rule", "seat"), [("dealer", 1), ("first_player", 2), ("none", None)])
def test_e_ex2_opening_take_goes_to_the_rule_s_seat(rule, seat):
    rules = SPEC.resolve({"opening_escoba": rule, "players": 3})
    state = DealState(3, 2, [set(pile("3c 4c 5c")), set(pile("3d 4d 5d")), set(pile("3h 4h 5h"))],
                      set(pile("Ac 2h 4s Jd")), [])  # fmt: skip
    taken = opening_take(rules, state, dealer=1)
    if seat is None:
        assert taken is None and state.table == set(pile("Ac 2h 4s Jd"))
        return
    assert taken == (seat, sorted(pile("Ac 2h 4s Jd")), 1)
    assert state.table == set() and state.last_capturer == seat and state.sweeps[seat] == 1
    assert state.piles[seat] == set(pile("Ac 2h 4s Jd"))


@pytest.fixture(scope="module")
def opening_traces():
    """Kernel traces of 150 games under each opening rule (3 players: dealer and first player differ)."""
    out = {}
    for rule in ("dealer", "first_player", "none"):
        config = RunConfig.create("escoba", policies=["random"] * 3, rules={"players": 3, "opening_escoba": rule},
                                  games=150, seed=9)  # fmt: skip
        out[rule] = api.trace(config, range(150))
    return out


@pytest.mark.parametrize("rule", ["dealer", "first_player", "none"])
def test_kernel_opening_events(opening_traces, rule):
    """The kernels' ``opening`` event comes right after the table, exactly when the table makes 15 or two 15s,
    by the rule's seat; the first play follows on an empty table, by the first player."""
    seen = 0
    for trace in opening_traces[rule]:
        events = trace["events"]
        for i, e in enumerate(events):
            if e["type"] != "table" or events[i - 4]["type"] != "deal":
                continue
            dealer = events[i - 4]["dealer"]
            due = opening_escobas(pile(" ".join(e["cards"])))
            nxt = events[i + 1]
            if rule == "none" or due == 0:
                assert nxt["type"] == "play"
                seen += rule == "none" and due > 0
                continue
            seen += 1
            seat = dealer if rule == "dealer" else (dealer + 1) % 3
            assert nxt == {"type": "opening", "seat": seat, "cards": e["cards"], "points": due}
            assert events[i + 2]["type"] == "play" and events[i + 2]["seat"] == (dealer + 1) % 3
            assert events[i + 2]["kind"] == "trail"  # an empty table
    assert seen >= 10


# ---------------------------------------------------------------------------------------------- E-EX3

E_EX3 = ("7s Qh 3c", "6d 2c")


def test_e_ex3_compulsion():
    sweep, queen = (cmask("7s"), cmask("6d 2c")), (cmask("Qh"), cmask("6d"))
    trails = [(cmask(c), 0) for c in ("7s", "Qh", "3c")]
    assert both_moves(DEFAULT, *E_EX3) == sorted([sweep, queen, *trails])
    assert both_moves(SPEC.resolve({"forced_capture": "card"}), *E_EX3) == sorted([sweep, queen, (cmask("3c"), 0)])
    assert both_moves(SPEC.resolve({"forced_capture": "player"}), *E_EX3) == sorted([sweep, queen])


def test_e_ex3_the_sweep_is_an_escoba():
    state = DealState(2, 0, [set(pile("7s Qh 3c")), set(pile("Ac 2d 3h"))], set(pile("6d 2c")), [1, 2, 3])
    result = apply_play(DEFAULT, state, 0, (cmask("7s"), cmask("6d 2c")))
    assert result == ("capture", 1, True) and state.sweeps == [1, 0]


# ---------------------------------------------------------------------------------------------- E-EX4


@pytest.mark.parametrize(("last_play_scopa", "points"), [(True, 1), (False, 0)])
def test_e_ex4_last_card_escoba(last_play_scopa, points):
    rules = SPEC.resolve({"last_play_scopa": last_play_scopa})
    state = DealState(2, 0, [set(pile("5c")), set()], set(pile("Kd")), [])
    result = apply_play(rules, state, 0, (cmask("5c"), cmask("Kd")))
    assert result == ("capture", points, bool(points)) and state.last_capturer == 0


# ---------------------------------------------------------------------------------------------- E-EX5

A_PILE = "7d 7c 6d 6c 6h Ad 2d 3d 4d Jd Ac 2c 3c 4c Jc Qc 5h 4h 3h 2s 3s 4s"
B_PILE = "Ah As 2h 5c 5d 5s 6s 7h 7s Jh Js Qd Qh Qs Kc Kd Kh Ks"


def test_e_ex5_piles_split_the_pack():
    assert len(pile(A_PILE)) == 22 and len(pile(B_PILE)) == 18
    assert cmask(A_PILE) & cmask(B_PILE) == 0 and bin(cmask(A_PILE) | cmask(B_PILE)).count("1") == 40


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        ({}, [5, 1]),
        ({"sevens_rule": "count_tiebreak"}, [6, 1]),
        ({"sevens_rule": "primiera"}, [6, 1]),
        ({"majority_tie": "each"}, [6, 2]),
    ],
)
def test_e_ex5_deal_score(rules, expected):
    points = both_scores(SPEC.resolve(rules), [A_PILE, B_PILE], [2, 1])
    assert totals(points) == expected
    assert points[0]["cards"] == points[0]["coins"] == points[0]["velo"] == 1 and points[0]["escoba"] == 2


def test_e_ex5_game_end():
    points = both_scores(DEFAULT, [A_PILE, B_PILE], [2, 1])
    after = [12 + totals(points)[0], 14 + totals(points)[1]]
    assert after == [17, 15] and game_winner(after, DEFAULT["target"]) == 0


# ---------------------------------------------------------------------------------------------- E-EX6

P0 = "Ad 2d 3d 4d 5d 6d 7d Jd Qd Kd 7c 7h 7s As"
P1 = "Ac 2c 3c 4c 5c 6c Jc Qc Kc Ah 2h 3h 4h 5h"
P2 = "2s 3s 4s 5s 6s Js Qs Ks 6h Jh Qh Kh"


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        ({}, [3, 1, 0]),
        ({"majority_tie": "each"}, [4, 2, 0]),
        ({"all_bonus": True}, [5, 1, 0]),
        ({"sevens_rule": "primiera"}, [3, 1, 0]),
    ],
)
def test_e_ex6_three_players_and_bonuses(rules, expected):
    assert bin(cmask(P0) | cmask(P1) | cmask(P2)).count("1") == 40
    points = both_scores(SPEC.resolve({"players": 3, **rules}), [P0, P1, P2], [0, 1, 0])
    assert totals(points) == expected
    if rules.get("all_bonus"):
        assert points[0]["coins"] == 2 and points[0]["sevens"] == 2
    if rules.get("majority_tie"):
        assert [p["cards"] for p in points] == [1, 1, 0]


# ------------------------------------------------------------------------------------- the rule keys


def test_keys_defaults_and_validation():
    assert DEFAULT == {
        "players": 2,
        "target": 15,
        "forced_capture": "none",
        "single_card_priority": False,
        "opening_escoba": "dealer",
        "last_play_scopa": True,
        "sevens_rule": "count",
        "majority_tie": "none",
        "all_bonus": False,
    }
    for bad in ({"single_card_priority": True}, {"sevens_rule": "setenta"}, {"players": 5}, {"target": 0},
                {"majority_tie": "half"}, {"opening_escoba": "mano"}, {"colour": "red"}):  # fmt: skip
        with pytest.raises(ConfigError):
            SPEC.resolve(bad)


def test_sevens_rule_tiebreak_order():
    """count_tiebreak compares sevens, then sixes, aces, fives: equal sevens and sixes, more aces wins."""
    a, b = "7c 7d 6c Ac Ad", "7h 7s 6h Ah 5c 5d 5h"
    for rule, expected in (("count", [0, 0]), ("count_tiebreak", [1, 0])):
        points = both_scores(SPEC.resolve({"sevens_rule": rule}), [a, b], [0, 0])
        assert [p["sevens"] for p in points] == expected


def test_primiera_needs_every_suit():
    a, b = "7c 7d 7h 6c 6d 6h", "Ac 2d 3h 4s"  # a lacks spades: b's setenta wins however low
    points = both_scores(SPEC.resolve({"sevens_rule": "primiera"}), [a, b], [0, 0])
    assert [p["sevens"] for p in points] == [0, 1]


def test_a_top_of_zero_scores_nothing():
    points = both_scores(SPEC.resolve({"majority_tie": "each"}), ["", ""], [0, 0])
    assert totals(points) == [0, 0]


def test_replay_prints_the_opening(opening_traces):
    from rich.console import Console

    from cli.render import print_game

    trace = next(t for t in opening_traces["dealer"] if any(e["type"] == "opening" for e in t["events"]))
    console = Console(record=True, width=200)
    print_game(console, trace)
    text = console.export_text()
    opening = next(e for e in trace["events"] if e["type"] == "opening")
    assert f"seat {opening['seat']} takes the opening table" in text and f"{opening['points']} escoba" in text
