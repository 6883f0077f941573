"""RULES.md 4.3 worked examples S-EX1..S-EX5, napola and primiera "suits", on the reference engine."""

from __future__ import annotations

import pytest
from reference_cases import cid, cmask, pile

from simcore.cards import cards_of
from simcore.reference.scopa import (
    PACK,
    DealState,
    apply_play,
    award_residue,
    best_primiera_by_suit,
    captures,
    game_winner,
    legal_moves,
    napola_points,
    primiera_suits,
    primiera_table,
    score_deal,
)
from simcore.variants.scopa import SPEC

DEFAULT = SPEC.resolve()
NO_PRIORITY = SPEC.resolve({"single_card_priority": False})
FREE_TRAIL = SPEC.resolve({"forced_capture": "none"})


def takes_of(rules, card: str, table: str) -> set[int]:
    """Take masks of the legal moves of one hand card on a table (0 = trail)."""
    return {take for _card, take in legal_moves(rules, {cid(card)}, cmask(table))}


# ------------------------------------------------------------------------------------- S-EX1, S-EX2

S_EX1_TABLE = "5d 2c 3h Ks"


@pytest.mark.parametrize(
    ("card", "takes"),
    [
        ("5s", ["5d"]),  # 2+3 forbidden by single-card priority
        ("Kh", ["Ks"]),  # 5+2+3 = 10 forbidden
        ("7c", ["5d 2c"]),
        ("Jc", ["5d 3h"]),
        ("6c", [""]),  # nothing sums to 6: trailed
        ("Qd", [""]),  # nothing sums to 9: trailed
    ],
)
def test_s_ex1_single_card_priority(card, takes):
    assert takes_of(DEFAULT, card, S_EX1_TABLE) == {cmask(t) for t in takes}


def test_s_ex1_whole_hand_sorted():
    hand = cmask("5s Kh 7c Jc 6c Qd")
    expected = sorted(
        [
            (cid("5s"), cmask("5d")),
            (cid("Kh"), cmask("Ks")),
            (cid("7c"), cmask("5d 2c")),
            (cid("Jc"), cmask("5d 3h")),
            (cid("6c"), 0),
            (cid("Qd"), 0),
        ]
    )
    moves = legal_moves(DEFAULT, hand, cmask(S_EX1_TABLE))
    assert moves == expected
    assert moves == sorted(moves)
    assert legal_moves(DEFAULT, set(cards_of(hand)), set(pile(S_EX1_TABLE))) == moves


def test_s_ex1_without_priority_sums_are_legal_too():
    assert takes_of(NO_PRIORITY, "5s", S_EX1_TABLE) == {cmask("5d"), cmask("2c 3h")}
    assert takes_of(NO_PRIORITY, "Kh", S_EX1_TABLE) == {cmask("Ks"), cmask("5d 2c 3h")}
    assert takes_of(NO_PRIORITY, "6c", S_EX1_TABLE) == {0}


def test_s_ex1_forced_capture_none_adds_a_trail_for_every_card():
    assert takes_of(FREE_TRAIL, "5s", S_EX1_TABLE) == {0, cmask("5d")}
    assert takes_of(FREE_TRAIL, "7c", S_EX1_TABLE) == {0, cmask("5d 2c")}
    assert takes_of(FREE_TRAIL, "6c", S_EX1_TABLE) == {0}
    hand = cmask("5s Kh 7c Jc 6c Qd")
    assert len(legal_moves(FREE_TRAIL, hand, cmask(S_EX1_TABLE))) == 4 + 6


def test_forced_capture_player_is_generic():
    rules = {**DEFAULT, "forced_capture": "player"}
    assert legal_moves(rules, cmask("5s 6c"), cmask(S_EX1_TABLE)) == [(cid("5s"), cmask("5d"))]
    assert legal_moves(rules, cmask("6c Qd"), cmask(S_EX1_TABLE)) == [(cid("6c"), 0), (cid("Qd"), 0)]


def test_s_ex2_equal_card_must_be_taken_either_seven():
    table = "7d 7c 2h 5s"
    assert takes_of(DEFAULT, "7h", table) == {cmask("7d"), cmask("7c")}
    assert captures(DEFAULT, cid("7h"), pile(table)) == [frozenset({cid("7c")}), frozenset({cid("7d")})]
    assert takes_of(NO_PRIORITY, "7h", table) == {cmask("7d"), cmask("7c"), cmask("2h 5s")}
    assert takes_of(FREE_TRAIL, "7h", table) == {0, cmask("7d"), cmask("7c")}


# -------------------------------------------------------------------------------------------- S-EX3


def _deal_state(hand: str, table: str, stock: list[int]) -> DealState:
    return DealState(players=2, first=0, hands=[set(pile(hand)), set()], table=set(pile(table)), stock=stock)


def test_s_ex3_sweep_scores_one():
    assert legal_moves(DEFAULT, cmask("7s"), cmask("4c 3d")) == [(cid("7s"), cmask("4c 3d"))]
    state = _deal_state("7s Ks", "4c 3d", stock=[])
    result = apply_play(DEFAULT, state, 0, (cid("7s"), cmask("4c 3d")))
    assert (result.kind, result.sweep, result.points) == ("capture", True, 1)
    assert state.sweeps == [1, 0]
    assert state.table == set()
    assert state.piles[0] == set(pile("7s 4c 3d"))


def test_s_ex3_sweep_counts_while_stock_remains():
    state = _deal_state("7s", "4c 3d", stock=[cid("Ks")])
    assert apply_play(DEFAULT, state, 0, (cid("7s"), cmask("4c 3d"))).sweep


@pytest.mark.parametrize(("last_play_scopa", "counted"), [(False, False), (True, True)])
def test_s_ex3_last_card_of_the_deal(last_play_scopa, counted):
    rules = SPEC.resolve({"last_play_scopa": last_play_scopa})
    state = _deal_state("7s", "4c 3d", stock=[])
    result = apply_play(rules, state, 0, (cid("7s"), cmask("4c 3d")))
    assert result.kind == "capture"
    assert (result.sweep, result.points) == (counted, int(counted))
    assert state.sweeps == [int(counted), 0]


def test_partnership_sweep_and_residue_go_to_the_side():
    hands = [set(), set(), set(pile("7s")), set(pile("Kc"))]
    state = DealState(players=4, first=1, hands=hands, table=set(pile("4c 3d")), stock=[])
    assert apply_play(DEFAULT, state, 2, (cid("7s"), cmask("4c 3d"))).sweep
    assert (state.sweeps, state.last_capturer) == ([1, 0], 2)
    assert apply_play(DEFAULT, state, 3, (cid("Kc"), 0)).kind == "trail"
    assert award_residue(state) == (2, [cid("Kc")])
    assert state.piles == [set(pile("7s 4c 3d Kc")), set()]


def test_residue_unscored_when_nobody_captured():
    state = _deal_state("", "4c 3d", stock=[])
    assert award_residue(state) is None
    assert state.table == set(pile("4c 3d"))


def test_capture_not_emptying_the_table_is_no_sweep():
    state = _deal_state("7s Ks", "4c 3d Ah", stock=[])
    assert apply_play(DEFAULT, state, 0, (cid("7s"), cmask("4c 3d"))) == ("capture", False, 0)


# -------------------------------------------------------------------------------------------- S-EX4

X_PRIMIERA = cmask("7d 6c Ah Ks 2d 3c Jh")  # best: 7d 21, 6c 18, Ah 16, Ks 10 = 65
Y_PRIMIERA = cmask("6d 7c 7h 5s Qd 4s")  # best: 6d 18, 7c 21, 7h 21, 5s 15 = 75


def test_s_ex4_primiera_sums():
    assert sum(best_primiera_by_suit(cards_of(X_PRIMIERA))) == 65
    assert sum(best_primiera_by_suit(cards_of(Y_PRIMIERA))) == 75
    assert primiera_table([cards_of(X_PRIMIERA), cards_of(Y_PRIMIERA)]) == [0, 1]
    assert score_deal(DEFAULT, [X_PRIMIERA, Y_PRIMIERA], [0, 0])[1]["primiera"] == 1


def test_s_ex4_side_missing_a_suit_cannot_win():
    y_without_spades = Y_PRIMIERA & ~cmask("5s 4s")
    assert primiera_table([cards_of(X_PRIMIERA), cards_of(y_without_spades)]) == [1, 0]


def test_s_ex4_neither_complete_nobody_scores():
    x_without_hearts = X_PRIMIERA & ~cmask("Ah Jh")
    y_without_spades = Y_PRIMIERA & ~cmask("5s 4s")
    assert primiera_table([cards_of(x_without_hearts), cards_of(y_without_spades)]) == [0, 0]


def test_primiera_higher_total_wins_equal_totals_score_nothing():
    assert primiera_table([pile("7c 7d 7h 7s"), pile("6c 6d 6h 6s Ac Ad Ah As")]) == [1, 0]
    assert primiera_table([pile("7c 6d Ah 5s"), pile("6c 7d 5h As")]) == [0, 0]


# --------------------------------------------------------------------------------- primiera "suits"


def test_primiera_suits_needs_every_suit_strictly_better():
    assert primiera_suits([pile("7c 7d 7h 6s"), pile("6c 6d 6h 5s")]) == [1, 0]
    # a tie in one suit (both best cards are court cards) gives nobody the point
    assert primiera_suits([pile("7c 7d 7h Ks"), pile("6c 6d 6h Js")]) == [0, 0]
    # split suits: nobody
    assert primiera_suits([pile("7c 7d 5h 5s"), pile("6c 6d 6h 6s")]) == [0, 0]
    # a missing suit never wins, even against a weaker side in the other three
    assert primiera_suits([pile("7c 7d 7h"), pile("6c 6d 6h 6s")]) == [0, 0]
    # holding every suit is not enough: each best card must beat the other side's
    assert primiera_suits([pile("2c 2d 2h 2s"), pile("7c 7d 7h")]) == [0, 0]
    # the opponent's missing suit counts 0
    assert primiera_suits([pile("7c 7d 7h 2s"), pile("6c 6d 6h")]) == [1, 0]


def test_primiera_suits_three_sides_and_score_deal():
    piles = [cmask("7c 7d 7h 7s"), cmask("6c 6d 6h 6s"), cmask("Ac Ad Ah As")]
    assert primiera_suits([cards_of(p) for p in piles]) == [1, 0, 0]
    rules = SPEC.resolve({"primiera": "suits", "players": 3})
    assert [p["primiera"] for p in score_deal(rules, piles, [0, 0, 0])] == [1, 0, 0]
    # S-EX4 under "suits": X beats Y in diamonds and hearts only; nobody scores
    assert primiera_suits([cards_of(X_PRIMIERA), cards_of(Y_PRIMIERA)]) == [0, 0]


# -------------------------------------------------------------------------------------------- S-EX5


def _s_ex5_piles() -> tuple[int, int]:
    """X: 22 cards, 6 coins with the 7d, the winning primiera; Y: the other 18 cards, 4 coins."""
    x = cmask("7d 6d Ad 5d 4d 3d 7c 7h 7s")
    others = [c for c in PACK if not (x >> c) & 1 and c % 4 != 1]
    for c in others[:13]:
        x |= 1 << c
    y = sum(1 << c for c in PACK) & ~x
    return x, y


def test_s_ex5_deal_points():
    x, y = _s_ex5_piles()
    assert (len(cards_of(x)), len(cards_of(y))) == (22, 18)
    assert sum(1 for c in cards_of(y) if c % 4 == 1) == 4
    points = score_deal(DEFAULT, [x, y], [1, 2])
    assert points[0] == {"cards": 1, "coins": 1, "settebello": 1, "primiera": 1, "scopa": 1, "napola": 0}
    assert points[1] == {"cards": 0, "coins": 0, "settebello": 0, "primiera": 0, "scopa": 2, "napola": 0}
    assert [sum(p.values()) for p in points] == [5, 2]
    assert list(points[0]) == ["cards", "coins", "settebello", "primiera", "scopa", "napola"]


def test_s_ex5_game_end():
    assert game_winner([9 + 5, 10 + 2], 11) == 0  # 14 : 12, X wins
    assert game_winner([7 + 5, 10 + 2], 11) is None  # 12 : 12, another deal
    assert game_winner([10, 9], 11) is None  # nobody at the target
    assert game_winner([11, 3], 11) == 0
    assert game_winner([3, 12, 12], 11) is None
    assert game_winner([3, 12, 11], 11) == 1
    assert game_winner([20, 21], 21) == 1


def test_ties_and_zero_score_nothing():
    half = [c for c in PACK if c < 20], [c for c in PACK if c >= 20]
    points = score_deal(DEFAULT, list(half), [0, 0])
    assert (points[0]["cards"], points[1]["cards"]) == (0, 0)  # 20 : 20
    assert (points[0]["coins"], points[1]["coins"]) == (0, 0)  # 5 : 5
    empty = score_deal(DEFAULT, [0, 0], [0, 0])
    assert all(v == 0 for p in empty for v in p.values())


# ------------------------------------------------------------------------------------------- napola


@pytest.mark.parametrize(
    ("cards", "points"),
    [
        ("Ad 2d 3d", 3),
        ("Ad 2d 3d 4d", 4),
        ("Ad 2d 3d 5d 6d", 3),  # the run stops at the missing 4d
        ("Ad 2d 3d 4d 5d 6d 7d", 7),
        ("Ad 2d 3d 4d 5d 6d 7d Jd Qd", 9),
        ("Ad 2d 3d 4d 5d 6d 7d Jd Qd Kd", 10),
        ("2d 3d 4d 5d 6d 7d Jd Qd Kd", 0),
        ("Ad 2d 3c", 0),
    ],
)
def test_napola(cards, points):
    assert napola_points(pile(cards)) == points


def test_napola_only_with_the_rule():
    piles = [cmask("Ad 2d 3d 4d"), cmask("5d")]
    assert [p["napola"] for p in score_deal(DEFAULT, piles, [0, 0])] == [0, 0]
    with_napola = SPEC.resolve({"napola": True})
    assert [p["napola"] for p in score_deal(with_napola, piles, [0, 0])] == [4, 0]
