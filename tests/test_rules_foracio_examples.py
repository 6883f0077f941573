"""RULES.md 3.3 worked examples F-EX1..F-EX6 and the Foracio rule options, on the reference engine."""

from __future__ import annotations

import pytest

from simcore.cards import cards_of, parse_card, parse_mask
from simcore.reference.foracio import (
    PACK,
    DealState,
    PolicyView,
    apply_play,
    award_residue,
    card_moves,
    deal_total,
    elements_won,
    greedy_score,
    interrupted_deal_points,
    legal_moves,
    move_kind,
    napoletana_points,
    play_deal,
    play_event,
    same_suit_bonus,
    score_deal,
    winner_after_deal,
    wins_mid_deal,
)
from simcore.variants.foracio import CATEGORIES, SPEC

DEFAULT = SPEC.resolve()
FREE_TRAIL = SPEC.resolve({"forced_capture": "none"})
PRIORITY = SPEC.resolve({"single_card_priority": True})


def cid(name: str) -> int:
    return parse_card(name)


def bit(name: str) -> int:
    return 1 << parse_card(name)


def cmask(text: str) -> int:
    return parse_mask(text)


def pile(text: str) -> set[int]:
    return set(cards_of(parse_mask(text)))


def takes_of(rules, card: str, table: str) -> set[int]:
    """Take masks of the legal moves of one hand card on a table (0 = trail)."""
    return {take for _play, take in legal_moves(rules, {cid(card)}, cmask(table))}


def state_with(hands: list[str], table: str, first: int = 0) -> DealState:
    return DealState(first, [pile(h) for h in hands], table=pile(table))


def play(rules, state: DealState, seat: int, card: str, take: str = "", keep: bool = False):
    move = (bit(card), bit(card) if keep else cmask(take))
    assert move in legal_moves(rules, state.hands[seat], state.table)
    return apply_play(rules, state, seat, move)


# -------------------------------------------------------------------------------------------- F-EX1

F_EX1_TABLE = "5c 3d 2h Ks"


@pytest.mark.parametrize(
    ("card", "takes"),
    [
        ("5s", ["5c", "3d 2h"]),  # free choice (F3); Scopa would allow only 5c
        ("Ts", ["5c 3d 2h"]),
        ("7h", ["5c 2h"]),
        ("Kd", ["Ks"]),
        ("Ad", ["5c 3d 2h Ks"]),
        ("9c", [""]),  # 5+3, 5+2, 3+2, 5+3+2 are 8, 7, 5, 10: trailed
    ],
)
def test_f_ex1_legal_captures(card, takes):
    assert takes_of(DEFAULT, card, F_EX1_TABLE) == {cmask(t) for t in takes}


def test_f_ex1_whole_hand_sorted_by_masks():
    moves = legal_moves(DEFAULT, cmask("5s Ts 7h Kd Ad 9c"), cmask(F_EX1_TABLE))
    expected = [
        (bit("5s"), cmask("5c")),
        (bit("5s"), cmask("3d 2h")),
        (bit("Ts"), cmask("5c 3d 2h")),
        (bit("7h"), cmask("5c 2h")),
        (bit("Kd"), cmask("Ks")),
        (bit("Ad"), cmask(F_EX1_TABLE)),
        (bit("9c"), 0),
    ]
    assert moves == sorted(expected)
    assert legal_moves(DEFAULT, pile("5s Ts 7h Kd Ad 9c"), pile(F_EX1_TABLE)) == moves


def test_f_ex1_ten_leaves_the_king_no_scopa():
    state = state_with(["Ts Kc", "", "", ""], F_EX1_TABLE)
    assert play(DEFAULT, state, 0, "Ts", "5c 3d 2h") == ("capture", 0, False)
    assert state.table == pile("Ks")
    assert state.scopa == [0, 0]


def test_f_ex1_ace_takes_all_without_scopa():
    state = state_with(["", "Ad 9c", "", ""], F_EX1_TABLE)
    assert play(DEFAULT, state, 1, "Ad", F_EX1_TABLE) == ("capture", 0, False)
    assert state.table == set()
    assert state.piles == [set(), pile("Ad 5c 3d 2h Ks")]
    assert state.last_capturer == 1
    assert (state.scopa, state.same_suit) == ([0, 0], [0, 0])


def test_sums_never_use_table_aces_or_courts():
    assert takes_of(DEFAULT, "5s", "Ah 4c Jd") == {0}
    assert takes_of(DEFAULT, "Ts", "Ah 4c 5c Jd") == {0}
    assert takes_of(DEFAULT, "Ts", "Ah 4c 6c Jd") == {cmask("4c 6c")}


def test_court_takes_one_card_of_its_rank_only():
    assert takes_of(DEFAULT, "Kc", "Ks Kd 5c") == {cmask("Ks"), cmask("Kd")}
    assert takes_of(DEFAULT, "Qc", "Ks 5c 7d") == {0}
    assert takes_of(DEFAULT, "Jc", "Qs Kd") == {0}


def test_single_card_priority_option():
    assert takes_of(PRIORITY, "5s", F_EX1_TABLE) == {cmask("5c")}
    assert takes_of(PRIORITY, "5s", "5c 5d 3d 2h") == {cmask("5c"), cmask("5d")}
    assert takes_of(PRIORITY, "Ts", F_EX1_TABLE) == {cmask("5c 3d 2h")}  # no ten on the table
    assert takes_of(PRIORITY, "9c", "9d 5c 4c") == {cmask("9d")}


def test_forced_capture_none_adds_every_trail():
    assert takes_of(FREE_TRAIL, "5s", F_EX1_TABLE) == {0, cmask("5c"), cmask("3d 2h")}
    assert takes_of(FREE_TRAIL, "Ad", F_EX1_TABLE) == {0, cmask(F_EX1_TABLE)}
    assert takes_of(FREE_TRAIL, "Kd", F_EX1_TABLE) == {0, cmask("Ks")}
    assert takes_of(FREE_TRAIL, "9c", F_EX1_TABLE) == {0}
    hand = cmask("5s Ts 7h Kd Ad 9c")
    assert len(legal_moves(FREE_TRAIL, hand, cmask(F_EX1_TABLE))) == 7 + 5


# -------------------------------------------------------------------------------------------- F-EX2


def test_f_ex2_same_suit_bonus():
    assert takes_of(DEFAULT, "9c", "5c 4c 9d") == {cmask("9d"), cmask("5c 4c")}
    state = state_with(["9c Kh", "", "", ""], "5c 4c 9d")
    assert play(DEFAULT, state, 0, "9c", "5c 4c") == ("capture", 9, False)
    assert (state.same_suit, state.scopa) == ([9, 0], [0, 0])
    state = state_with(["9c Kh", "", "", ""], "5c 4c 9d")
    assert play(DEFAULT, state, 0, "9c", "9d") == ("capture", 0, False)
    assert state.same_suit == [0, 0]


@pytest.mark.parametrize(
    ("card", "taken", "bonus"),
    [
        ("9c", "5c 4c", 9),
        ("Tc", "2c 3c 5c", 10),
        ("9c", "5c 4d", 0),  # one card of another suit
        ("9c", "9d", 0),  # a single card never qualifies
        ("Kc", "Ks", 0),  # courts never qualify
        ("Ac", "5c 4c", 0),  # nor aces
    ],
)
def test_same_suit_bonus_rule(card, taken, bonus):
    assert same_suit_bonus(cid(card), pile(taken)) == bonus


# -------------------------------------------------------------------------------------------- F-EX3


def test_f_ex3_same_suit_scopa_scores_double():
    state = state_with(["9s Kh", "2c", "", ""], "6s 3s")
    assert play(DEFAULT, state, 0, "9s", "6s 3s") == ("capture", 18, True)
    assert (state.scopa, state.same_suit) == ([9, 0], [9, 0])


def test_f_ex3_plain_scopa_scores_the_card_value():
    state = state_with(["", "9h", "2c", ""], "6s 3s")
    assert play(DEFAULT, state, 1, "9h", "6s 3s") == ("capture", 9, True)
    assert (state.scopa, state.same_suit) == ([0, 9], [0, 0])


def test_f_ex3_no_scopa_on_the_52nd_play():
    state = state_with(["9s", "", "", ""], "6s 3s")  # every other hand is empty: the deal's last play
    assert play(DEFAULT, state, 0, "9s", "6s 3s") == ("capture", 9, False)  # the bonus only
    assert (state.scopa, state.same_suit) == ([0, 0], [9, 0])
    state = state_with(["", "", "", "9h"], "6s 3s")
    assert play(DEFAULT, state, 3, "9h", "6s 3s") == ("capture", 0, False)
    assert (state.scopa, state.same_suit) == ([0, 0], [0, 0])


def test_f_ex3_court_scopa():
    state = state_with(["Qc 2d", "", "", ""], "Qd")
    assert play(DEFAULT, state, 0, "Qc", "Qd") == ("capture", 12, True)
    state = state_with(["Qc 2d", "", "", ""], "Qd 2s")
    assert play(DEFAULT, state, 0, "Qc", "Qd") == ("capture", 0, False)
    for card, points in (("Jc", 11), ("Kc", 13)):
        state = state_with([f"{card} 2d", "", "", ""], card[0] + "h")
        assert play(DEFAULT, state, 0, card, card[0] + "h") == ("capture", points, True)


@pytest.mark.parametrize(("option", "points"), [("rank", 12), ("ten", 10), ("zero", 0)])
def test_court_scopa_value_option(option, points):
    rules = SPEC.resolve({"court_scopa_value": option})
    state = state_with(["Qc 2d", "", "", ""], "Qd")
    assert play(rules, state, 0, "Qc", "Qd") == ("capture", points, True)  # a 0-point scopa is still a sweep
    assert state.scopa == [points, 0]
    state = state_with(["9h 2d", "", "", ""], "6s 3s")
    assert play(rules, state, 0, "9h", "6s 3s") == ("capture", 9, True)  # numerals keep their value


def test_ace_sweep_is_never_a_scopa_even_alone_on_the_table():
    state = state_with(["Ac 2d", "", "", ""], "Qd")
    assert play(DEFAULT, state, 0, "Ac", "Qd") == ("capture", 0, False)


# -------------------------------------------------------------------------------------------- F-EX4


@pytest.mark.parametrize(
    ("option", "forced", "takes"),
    [
        ("choice", "card", {0, "Ah"}),
        ("keep", "card", {"Ah"}),
        ("stay", "card", {0}),
        ("choice", "none", {0, "Ah"}),
        ("keep", "none", {0, "Ah"}),  # a trail is always allowed under forced_capture="none"
        ("stay", "none", {0}),
    ],
)
def test_f_ex4_ace_on_an_empty_table(option, forced, takes):
    rules = SPEC.resolve({"ace_on_empty": option, "forced_capture": forced})
    want = sorted((bit("Ah"), 0 if t == 0 else bit(t)) for t in takes)
    assert legal_moves(rules, {cid("Ah")}, set()) == want
    assert card_moves(rules, cid("Ah"), 0) == want


def test_f_ex4_keep_banks_the_ace():
    state = state_with(["Ah 5c", "", "", "7d"], "")
    result = play(DEFAULT, state, 0, "Ah", keep=True)
    assert result == ("keep", 0, False)
    assert move_kind((bit("Ah"), bit("Ah"))) == "keep"
    assert (state.table, state.piles, state.last_capturer) == (set(), [pile("Ah"), set()], 0)
    event = play_event(0, (bit("Ah"), bit("Ah")), result)
    assert event == {
        "type": "play",
        "seat": 0,
        "cards": ["Ah"],
        "take": [],
        "kind": "keep",
        "points": 0,
        "sweep": False,
    }


def test_f_ex4_a_left_ace_blocks_scopas_until_another_ace():
    state = state_with(["Ah 2d", "5c 6h", "5d 9s", "Ac Kd"], "")
    assert play(DEFAULT, state, 0, "Ah") == ("trail", 0, False)
    assert state.last_capturer is None
    assert legal_moves(DEFAULT, pile("5c"), state.table) == [(bit("5c"), 0)]  # A is not 1 in sums
    assert play(DEFAULT, state, 1, "5c") == ("trail", 0, False)
    assert takes_of(DEFAULT, "6h", "Ah 5c") == {0}
    assert play(DEFAULT, state, 2, "5d", "5c") == ("capture", 0, False)  # the ace stays: no scopa
    assert state.table == pile("Ah")
    assert play(DEFAULT, state, 3, "Ac", "Ah") == ("capture", 0, False)
    assert state.piles == [pile("5c 5d"), pile("Ac Ah")]


def test_greedy_scores_keep_as_a_capture():
    assert greedy_score((bit("Ah"), bit("Ah")), False) == 1000 + 1
    assert greedy_score((bit("Ah"), 0), False) == -1
    # weights (seven): 9c 0, 7s 3 (the seven of spades), 2s 3 + 1 (an element, a napoletana card)
    assert greedy_score((bit("9c"), cmask("7s 2s")), False) == 2000 + 0 + 3 + 4
    # weights (majority): 9c 0, 7s 1 (a spade), 2s 3 + 1 + 1
    assert greedy_score((bit("9c"), cmask("7s 2s")), True) == 2000 + 0 + 1 + 5


# -------------------------------------------------------------------------------------------- F-EX5

NS_CORE = "7s 2s Js Td Ad 2d 3d 4d 5d Ah 2h 3h 4c"  # 4c here, so EW's clubs stop at 3
EW_CORE = "As 3s Ac 2c 3c 5c 6d 4h"  # 6d and 4h end NS's runs


def f_ex5_piles() -> tuple[set[int], set[int]]:
    """NS: 30 cards with the four single-card elements, A-5 of denari and A-3 of coppe; EW: the other 22."""
    ns, ew = pile(NS_CORE), pile(EW_CORE)
    rest = [c for c in PACK if c not in ns | ew]
    return ns | set(rest[:17]), ew | set(rest[17:])


def test_f_ex5_deal_score():
    ns, ew = f_ex5_piles()
    assert (len(ns), len(ew)) == (30, 22) and ns | ew == set(PACK)
    points = score_deal(DEFAULT, [ns, ew], [9, 0], [9, 4])
    assert points[0] == {
        "cards": 2,
        "spade": 1,
        "two_spades": 1,
        "jack_spades": 1,
        "ten_diamonds": 1,
        "all_five": 42,
        "napoletana": 5 + 3,
        "scopa": 9,
        "same_suit": 9,
    }
    assert points[1] == dict.fromkeys(CATEGORIES, 0) | {"napoletana": 3, "same_suit": 4}
    assert list(points[0]) == list(CATEGORIES)
    fixed = sum(points[0][c] for c in ("cards", "spade", "two_spades", "jack_spades", "ten_diamonds", "all_five"))
    assert fixed == 48
    assert [deal_total(p) for p in points] == [48 + 8 + 18, 7]


def test_all_five_bonus_six_means_no_bonus():
    ns, ew = f_ex5_piles()
    rules = SPEC.resolve({"all_five_bonus": 6})
    points = score_deal(rules, [ns, ew], [0, 0], [0, 0])
    assert points[0]["all_five"] == 0
    assert deal_total(points[0]) == 6 + 8
    rules = SPEC.resolve({"all_five_bonus": 100})
    assert score_deal(rules, [ns, ew], [0, 0], [0, 0])[0]["all_five"] == 94


def test_all_five_needs_every_element():
    ns, ew = f_ex5_piles()
    for card in ("7s", "2s", "Js", "Td"):  # move one single-card element to the other side
        ns2, ew2 = ns - {cid(card)}, ew | {cid(card)}
        points = score_deal(DEFAULT, [ns2, ew2], [0, 0], [0, 0])
        assert points[0]["all_five"] == points[1]["all_five"] == 0
    elements = pile("7s 2s Js Td")
    half_a = elements | set([c for c in PACK if c not in elements][:22])
    assert len(half_a) == 26
    points = score_deal(DEFAULT, [half_a, set(PACK) - half_a], [0, 0], [0, 0])
    assert [p["cards"] for p in points] == [0, 0]  # 26-26 nobody, so no all-five
    assert points[0]["all_five"] == 0 and points[0]["spade"] == 1


@pytest.mark.parametrize(
    ("cards", "points"),
    [
        ("Ad 2d 3d", 3),
        ("Ad 2d 3d 4d 5d", 5),
        ("Ad 2d 4d 5d", 0),
        ("2d 3d 4d", 0),
        ("Ad 2d 3d 5d 6d", 3),
        ("Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc", 13),
        ("Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Kc", 11),
        ("Ac 2c 3c Ah 2h 3h 4h As 2s", 3 + 4),
        ("Ac 2d 3h", 0),
    ],
)
def test_napoletana_runs(cards, points):
    assert napoletana_points(pile(cards)) == points


def test_spade_element_majority():
    rules = SPEC.resolve({"spade_element": "majority"})
    seven = pile("As 2s 3s 4s 5s 6s 8s")  # 7 spades without the seven of spades
    assert elements_won(rules, seven)["spade"] and not elements_won(DEFAULT, seven)["spade"]
    six = pile("As 2s 3s 4s 5s 7s")
    assert not elements_won(rules, six)["spade"] and elements_won(DEFAULT, six)["spade"]
    other = set(PACK) - seven
    assert [p["spade"] for p in score_deal(rules, [seven, other], [0, 0], [0, 0])] == [1, 0]
    assert [p["spade"] for p in score_deal(DEFAULT, [seven, other], [0, 0], [0, 0])] == [0, 1]


def test_all_five_with_spade_majority():
    rules = SPEC.resolve({"spade_element": "majority"})
    ns, ew = f_ex5_piles()
    spades_ns = {c for c in ns if c % 4 == 3}
    points = score_deal(rules, [ns, ew], [0, 0], [0, 0])
    assert points[0]["spade"] == int(len(spades_ns) >= 7)
    assert points[0]["all_five"] == (42 if len(spades_ns) >= 7 else 0)
    ns_all = ns | {c for c in PACK if c % 4 == 3}
    points = score_deal(rules, [ns_all, set(PACK) - ns_all], [0, 0], [0, 0])
    assert points[0]["spade"] == 1 and points[0]["all_five"] == 42


def test_residue_to_the_last_capturer_and_unscored_without_capture():
    state = state_with(["", "", "", ""], "5c Kd")
    assert award_residue(state) is None and state.table == pile("5c Kd")
    state.last_capturer = 3
    assert award_residue(state) == (3, sorted(pile("5c Kd")))
    assert state.piles == [set(), pile("5c Kd")]


# -------------------------------------------------------------------------------------------- F-EX6


def test_f_ex6_mid_deal_win_on_immediate_points():
    rules = DEFAULT
    state = state_with(["9h 2c", "Kc", "3d", "4h"], "6s 3s")
    events: list[dict] = []

    def choose(seat: int, view: PolicyView) -> int:
        scopa = (bit("9h"), cmask("6s 3s"))
        return view.moves.index(scopa) if scopa in view.moves else 0

    assert play_deal(rules, state, [65, 40], choose, events)  # 65 + 9 = 74 >= 71
    assert events == [
        {
            "type": "play",
            "seat": 0,
            "cards": ["9h"],
            "take": ["3s", "6s"],
            "kind": "capture",
            "points": 9,
            "sweep": True,
        }
    ]
    points = interrupted_deal_points(state)
    assert points[0] == dict.fromkeys(CATEGORIES, 0) | {"scopa": 9}
    assert points[1] == dict.fromkeys(CATEGORIES, 0)
    # 65 + 5 = 70: not yet, the deal goes on to its end
    state = state_with(["9h 2c", "Kc", "3d", "4h"], "6s 3s")
    events = []
    assert not play_deal(rules, state, [61, 40], choose, events)
    assert [e["kind"] for e in events] == ["capture", "trail", "trail", "trail", "trail"]


def test_mid_deal_win_counts_same_suit_bonus_and_only_the_movers_side():
    state = state_with(["9c 2d", "Kc", "", ""], "5c 4c 9d")
    apply_play(DEFAULT, state, 0, (bit("9c"), cmask("5c 4c")))
    assert state.immediate(0) == 9
    assert wins_mid_deal(DEFAULT, [62, 0], state, 0)
    assert not wins_mid_deal(DEFAULT, [61, 0], state, 0)
    assert wins_mid_deal(DEFAULT, [62, 0], state, 2)  # the partner's seat: the same side
    assert not wins_mid_deal(DEFAULT, [62, 0], state, 1)
    assert not wins_mid_deal(SPEC.resolve({"declare": "end_of_deal"}), [62, 0], state, 0)


def test_declare_end_of_deal_plays_the_deal_out():
    rules = SPEC.resolve({"declare": "end_of_deal"})
    state = state_with(["9h 2c", "Kc", "3d", "4h"], "6s 3s")
    events: list[dict] = []
    assert not play_deal(rules, state, [70, 70], lambda seat, view: len(view.moves) - 1, events)
    assert len(events) == 5


@pytest.mark.parametrize(
    ("totals", "last_side", "winner"),
    [
        ((75, 75), 0, 0),  # both at 75: the last capture decides
        ((75, 75), 1, 1),
        ((90, 72), 1, 1),  # even the lower total, if it made the last capture
        ((80, 60), 1, 0),  # only one side over the target
        ((60, 71), 0, 1),
        ((60, 70), 0, None),
        ((75, 80), None, 1),  # nobody captured in the deal: the higher total
        ((75, 75), None, None),  # ... and a tie plays another deal
    ],
)
def test_f_ex6_end_of_deal_decision(totals, last_side, winner):
    assert winner_after_deal(totals, 71, last_side) == winner


def test_keep_counts_as_the_last_capture():
    state = state_with(["Ah", "", "", ""], "")
    play(DEFAULT, state, 0, "Ah", keep=True)
    assert state.last_capturer == 0
