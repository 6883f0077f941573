"""RULES.md 5.4 worked examples R-EX1..R-EX5 and the Skopa rule options, on the reference engine."""

from __future__ import annotations

import pytest
from reference_cases import cid, cmask, pile

from simcore.cards import cards_of
from simcore.reference.skopa import (
    PACK,
    DealState,
    apply_play,
    award_residue,
    captures,
    deal_total,
    game_winner,
    legal_moves,
    most_cards_points,
    most_clubs_points,
    score_deal,
    value_of,
)
from simcore.variants.skopa import CATEGORIES, SPEC

DEFAULT = SPEC.resolve()
PRIORITY = SPEC.resolve({"single_card_priority": True})
CARD_LEVEL = SPEC.resolve({"forced_capture": "card"})
FREE_TRAIL = SPEC.resolve({"forced_capture": "none"})


def takes_of(rules, card: str, table: str) -> set[int]:
    """Take masks of the legal moves of a one-card hand on a table (0 = trail)."""
    moves = legal_moves(rules, {cid(card)}, cmask(table))
    assert all(play == cmask(card) for play, _ in moves)
    return {take for _play, take in moves}


def test_values():
    assert [value_of(cid(c)) for c in ["Ac", "2d", "5h", "9s", "Tc"]] == [1, 2, 5, 9, 10]
    assert [value_of(cid(c)) for c in ["Jc", "Qd", "Ks"]] == [0, 0, 0]
    assert list(CATEGORIES) == ["cards", "clubs", "two_clubs", "ten_diamonds", "sweep"]


# ---------------------------------------------------------------------------------------------- R-EX1

R_EX1_TABLE = "7s 2h Ac Kd"


@pytest.mark.parametrize(
    ("card", "takes"),
    [
        ("Tc", ["7s 2h Ac"]),  # the book's own example
        ("9d", ["7s 2h"]),
        ("8d", ["7s Ac"]),
        ("3h", ["2h Ac"]),
        ("2d", ["2h"]),
        ("Ah", ["Ac"]),
        ("Kc", ["Kd"]),
    ],
)
def test_r_ex1_legal_captures(card, takes):
    expected = [frozenset(pile(t)) for t in takes]
    assert captures(DEFAULT, cid(card), pile(R_EX1_TABLE)) == expected
    assert takes_of(DEFAULT, card, R_EX1_TABLE) == {cmask(t) for t in takes}  # a capturing card is not trailed


def test_r_ex1_queen_has_no_capture_and_is_trailed():
    assert captures(DEFAULT, cid("Qs"), pile(R_EX1_TABLE)) == []
    assert legal_moves(DEFAULT, cmask("Qs"), cmask(R_EX1_TABLE)) == [(cmask("Qs"), 0)]


def test_r_ex1_whole_hand_sorted_by_play_then_take():
    hand = cmask("Tc 9d 8d 3h 2d Ah Kc Qs")
    expected = sorted(
        [
            (cmask("Tc"), cmask("7s 2h Ac")),
            (cmask("9d"), cmask("7s 2h")),
            (cmask("8d"), cmask("7s Ac")),
            (cmask("3h"), cmask("2h Ac")),
            (cmask("2d"), cmask("2h")),
            (cmask("Ah"), cmask("Ac")),
            (cmask("Kc"), cmask("Kd")),
        ]
    )
    moves = legal_moves(DEFAULT, hand, cmask(R_EX1_TABLE))
    assert moves == expected  # player-level compulsion: no trail at all, not even of the queen
    assert legal_moves(DEFAULT, set(cards_of(hand)), pile(R_EX1_TABLE)) == moves


# ---------------------------------------------------------------------------------------------- R-EX2


def test_r_ex2_free_choice_between_equal_card_and_sum():
    assert takes_of(DEFAULT, "5h", "5d 3c 2s") == {cmask("5d"), cmask("3c 2s")}
    assert captures(DEFAULT, cid("5h"), pile("5d 3c 2s")) == [frozenset(pile("3c 2s")), frozenset(pile("5d"))]


def test_r_ex2_single_card_priority_option():
    assert takes_of(PRIORITY, "5h", "5d 3c 2s") == {cmask("5d")}
    assert takes_of(PRIORITY, "5h", "5d 5c 3c 2s") == {cmask("5d"), cmask("5c")}
    assert takes_of(PRIORITY, "5h", "4d 3c 2s Ah") == {cmask("3c 2s"), cmask("4d Ah")}  # no equal card: sums
    # the priority looks at numerals only; courts are unaffected
    assert takes_of(PRIORITY, "Jh", "Jd Jc 5s") == {cmask("Jd"), cmask("Jc")}


# ---------------------------------------------------------------------------------------------- R-EX3


def test_r_ex3_player_level_compulsion():
    assert legal_moves(DEFAULT, cmask("Qs 9d"), cmask(R_EX1_TABLE)) == [(cmask("9d"), cmask("7s 2h"))]


def test_r_ex3_card_level_compulsion_allows_trailing_the_queen():
    assert legal_moves(CARD_LEVEL, cmask("Qs 9d"), cmask(R_EX1_TABLE)) == [
        (cmask("9d"), cmask("7s 2h")),
        (cmask("Qs"), 0),
    ]


def test_r_ex3_no_compulsion_every_card_may_be_trailed():
    assert legal_moves(FREE_TRAIL, cmask("Qs 9d"), cmask(R_EX1_TABLE)) == [
        (cmask("9d"), 0),
        (cmask("9d"), cmask("7s 2h")),
        (cmask("Qs"), 0),
    ]


@pytest.mark.parametrize("rules", [DEFAULT, CARD_LEVEL, FREE_TRAIL])
def test_nobody_can_capture_every_card_is_trailed(rules):
    assert legal_moves(rules, cmask("Qs 6d"), cmask("Kd 9c")) == [(cmask("6d"), 0), (cmask("Qs"), 0)]


def test_empty_table_only_trails():
    assert legal_moves(DEFAULT, cmask("Ah Ks"), 0) == [(cmask("Ah"), 0), (cmask("Ks"), 0)]


# ------------------------------------------------------------------------------------- courts and sums


def test_court_takes_one_card_of_its_rank_one_move_each():
    assert legal_moves(DEFAULT, cmask("Kh"), cmask("Kc Kd Ks 5h")) == [
        (cmask("Kh"), cmask("Kc")),
        (cmask("Kh"), cmask("Kd")),
        (cmask("Kh"), cmask("Ks")),
    ]
    assert takes_of(DEFAULT, "Qh", "Kc Jd 5h") == {0}  # a court takes only its own rank


def test_courts_never_enter_sums_and_numerals_never_take_courts():
    assert takes_of(DEFAULT, "Tc", "5d 5h Jc Qs Kd") == {cmask("5d 5h")}
    assert takes_of(DEFAULT, "5c", "Jc Qd Kh") == {0}


def test_many_sums():
    takes = takes_of(DEFAULT, "Td", "Ac 2c 3c 4c 6d 7h Kh")
    expected = {"Ac 2c 3c 4c", "Ac 2c 7h", "Ac 3c 6d", "3c 7h", "4c 6d"}
    assert takes == {cmask(t) for t in expected}


# ---------------------------------------------------------------------------------- sweeps and residue


def _state(players: int, hands: dict[int, str], table: str, stock: list[int]) -> DealState:
    return DealState(
        players=players,
        first=0,
        hands=[set(pile(hands.get(s, ""))) for s in range(players)],
        table=set(pile(table)),
        stock=stock,
    )


@pytest.mark.parametrize("stock", [[], [cid("2c")]])
@pytest.mark.parametrize("sweep_points", [0, 1, 3])
def test_a_capture_that_empties_the_table_is_a_sweep_last_play_included(stock, sweep_points):
    rules = SPEC.resolve({"sweep_points": sweep_points})
    state = _state(2, {0: "9d"}, "7s 2h", stock)
    result = apply_play(rules, state, 0, (cmask("9d"), cmask("7s 2h")))
    assert (result.kind, result.sweep, result.points) == ("capture", True, sweep_points)
    assert state.sweeps == [1, 0] and state.table == set() and state.last_capturer == 0
    assert state.piles[0] == set(pile("9d 7s 2h"))
    points = score_deal(rules, state.piles, state.sweeps)
    assert [p["sweep"] for p in points] == [sweep_points, 0]


def test_capture_leaving_cards_is_no_sweep_and_trail_is_laid():
    state = _state(2, {0: "9d", 1: "Qs"}, "7s 2h Kd", [])
    assert apply_play(DEFAULT, state, 0, (cmask("9d"), cmask("7s 2h"))) == ("capture", False, 0)
    assert apply_play(DEFAULT, state, 1, (cmask("Qs"), 0)) == ("trail", False, 0)
    assert state.table == set(pile("Kd Qs"))
    assert state.last_capturer == 0


def test_partnership_piles_and_residue_to_the_last_capturer():
    state = _state(4, {1: "5c", 2: "Jh", 3: "8d"}, "5d Jc 3s", [])
    apply_play(DEFAULT, state, 1, (cmask("5c"), cmask("5d")))
    apply_play(DEFAULT, state, 2, (cmask("Jh"), cmask("Jc")))
    apply_play(DEFAULT, state, 3, (cmask("8d"), 0))
    assert state.last_capturer == 2
    assert award_residue(state) == (2, sorted(pile("3s 8d")))
    assert state.piles == [set(pile("Jh Jc 3s 8d")), set(pile("5c 5d"))]
    assert state.table == set()


def test_residue_unscored_when_nobody_captured():
    state = _state(2, {}, "4c 3d", [])
    assert award_residue(state) is None
    assert state.table == set(pile("4c 3d"))
    assert score_deal(DEFAULT, state.piles, state.sweeps) == [dict.fromkeys(CATEGORIES, 0)] * 2


# ---------------------------------------------------------------------------------------------- R-EX4


def _split(first: list[int], second_size: int | None = None) -> tuple[list[int], list[int]]:
    """``first`` and the rest of the pack."""
    rest = [c for c in PACK if c not in set(first)]
    return first, rest[:second_size] if second_size is not None else rest


def test_r_ex4_two_v_two_26_26():
    clubs = [c for c in PACK if c % 4 == 0]  # Ac 2c ... Kc
    ns_clubs = [c for c in clubs if c != cid("2c")][:8]
    others = [c for c in PACK if c % 4 != 0 and c != cid("Td")]
    ns = [*ns_clubs, cid("Td"), *others[:17]]
    ns, ew = _split(ns)
    assert (len(ns), len(ew)) == (26, 26)
    assert sum(1 for c in ns if c % 4 == 0) == 8 and cid("2c") in ew and cid("Td") in ns
    rules = SPEC.resolve({"players": 4})
    points = score_deal(rules, [ns, ew], [0, 0])
    assert points[0] == {"cards": 1, "clubs": 1, "two_clubs": 0, "ten_diamonds": 1, "sweep": 0}
    assert points[1] == {"cards": 1, "clubs": 0, "two_clubs": 1, "ten_diamonds": 0, "sweep": 0}
    assert [deal_total(p) for p in points] == [3, 2]


def test_two_players_most_cards_scores_two():
    first, second = _split(list(range(30)))
    points = score_deal(DEFAULT, [first, second], [0, 0])
    assert (points[0]["cards"], points[1]["cards"]) == (2, 0)
    assert sum(deal_total(p) for p in points) == 5  # the deal's 5 points (no sweep points by default)


# ---------------------------------------------------------------------------------------------- R-EX5


def _r_ex5_piles() -> list[list[int]]:
    """3 players: 20 / 20 / 12 cards, clubs 5 / 5 / 3; 2c with seat 2, Td with seat 0."""
    clubs = [c for c in PACK if c % 4 == 0]
    rest = [c for c in PACK if c % 4 != 0 and c != cid("Td")]
    two_c = cid("2c")
    other_clubs = [c for c in clubs if c != two_c]
    a = [*other_clubs[:5], cid("Td"), *rest[:14]]
    b = [*other_clubs[5:10], *rest[14:29]]
    c = [two_c, *other_clubs[10:], *rest[29:]]
    return [a, b, c]


def test_r_ex5_fixture_is_the_pack():
    piles = _r_ex5_piles()
    assert [len(p) for p in piles] == [20, 20, 12]
    assert [sum(1 for c in p if c % 4 == 0) for p in piles] == [5, 5, 3]
    assert sorted(c for p in piles for c in p) == list(PACK)


@pytest.mark.parametrize(("clubs_tie", "clubs"), [("none", [0, 0, 0]), ("each", [1, 1, 0])])
def test_r_ex5_three_players(clubs_tie, clubs):
    rules = SPEC.resolve({"players": 3, "clubs_tie": clubs_tie})
    points = score_deal(rules, _r_ex5_piles(), [0, 0, 0])
    assert [p["cards"] for p in points] == [1, 1, 0]
    assert [p["clubs"] for p in points] == clubs
    assert [p["two_clubs"] for p in points] == [0, 0, 1]
    assert [p["ten_diamonds"] for p in points] == [1, 0, 0]
    assert [list(p) for p in points] == [list(CATEGORIES)] * 3


def test_majorities():
    assert most_cards_points([20, 20, 12]) == [1, 1, 0]
    assert most_cards_points([26, 26]) == [1, 1]
    assert most_cards_points([30, 10, 12]) == [2, 0, 0]
    assert most_cards_points([0, 0]) == [0, 0]
    assert most_cards_points([4, 4, 4]) == [0, 0, 0]  # unreachable with 52 cards: nothing
    assert most_clubs_points([5, 5, 3], "none") == [0, 0, 0]
    assert most_clubs_points([5, 5, 3], "each") == [1, 1, 0]
    assert most_clubs_points([3, 6, 4], "none") == [0, 1, 0]
    assert most_clubs_points([3, 6, 4], "each") == [0, 1, 0]
    assert most_clubs_points([0, 0, 0], "each") == [0, 0, 0]
    assert most_clubs_points([7, 6], "none") == [1, 0]


def test_sweeps_count_times_sweep_points():
    rules = SPEC.resolve({"sweep_points": 2, "players": 3})
    piles = _r_ex5_piles()
    points = score_deal(rules, piles, [3, 0, 1])
    assert [p["sweep"] for p in points] == [6, 0, 2]
    assert [p["sweep"] for p in score_deal(SPEC.resolve({"players": 3}), piles, [3, 0, 1])] == [0, 0, 0]


# ---------------------------------------------------------------------------------------------- R12


def test_game_end():
    assert game_winner([21, 19], 21) == 0
    assert game_winner([22, 22], 21) is None  # a tie at the top: another deal
    assert game_winner([20, 19], 21) is None
    assert game_winner([23, 23, 24], 21) == 2
    assert game_winner([3, 25, 25], 21) is None
    assert game_winner([5, 1], 5) == 0
