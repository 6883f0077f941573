"""RULES.md 2.4 worked examples K-EX1..K-EX9 and the Kaszinó rule options, on the reference engine.

Positions are set up by hand and the turn structure (RULES.md 2.3) is driven with scripted moves: the script
names each expected play, and the test also checks the legal moves offered at that point.
"""

from __future__ import annotations

from typing import Any

import pytest

from simcore.cards import cards_of, parse_card, parse_mask
from simcore.reference.kaszino import (
    PACK,
    DealState,
    apply_move,
    deal_total,
    exchanges,
    finish_deal,
    game_winner,
    legal_moves,
    play_deal,
    score_deal,
    score_pile,
    sure_total,
    trails,
)
from simcore.variants.kaszino import SPEC

DEFAULT = SPEC.resolve()
A, B = 0, 1  # the examples' players: A is the non-dealer (moves first), B the dealer


def rules(**overrides: Any) -> dict[str, Any]:
    return SPEC.resolve(overrides)


def m(text: str) -> int:
    return parse_mask(text)


def move(play: str, take: str = "") -> tuple[int, int]:
    return (m(play), m(take))


def ids(text: str) -> set[int]:
    return set(cards_of(m(text)))


def state_of(hand_a: str, hand_b: str, table: str, stock: str = "", plays: int = 0) -> DealState:
    """A deal position: seat 0 (A) is the non-dealer, seat 1 (B) the dealer; ``stock`` in drawing order."""
    stock_ids = [parse_card(c) for c in stock.split()]
    state = DealState(B, [ids(hand_a), ids(hand_b)], ids(table), stock_ids)
    state.plays = plays
    return state


class ScriptExhaustedError(Exception):
    """The script is exhausted and a further move was asked for."""

    def __init__(self, seat: int) -> None:
        super().__init__(f"seat {seat} asked to move after the script")
        self.seat = seat


class ScriptedAgent:
    """Plays the scripted moves (each checked legal), then stops (``then="stop"``) or takes the first legal
    move; records every choice and every event."""

    def __init__(self, script: list[tuple[int, str, str]], then: str = "stop") -> None:
        self.script = list(script)
        self.then = then
        self.turns: list[tuple[int, bool, list[tuple[int, int]]]] = []  # (seat, forced trail, moves offered)
        self.events: list[dict[str, Any]] = []

    def start_deal(self, deal: int, dealer: int) -> DealState:
        raise AssertionError("positions are set up by the test")

    def draw_round(self, state: DealState, order: list[int]) -> dict[int, list[int]]:
        drawn = {seat: state.stock[3 * k : 3 * k + 3] for k, seat in enumerate(order)}
        self.events.extend({"type": "hand", "seat": s, "cards": sorted(c)} for s, c in drawn.items())
        return drawn

    def choose(self, state: DealState, seat: int, moves: list[tuple[int, int]], forced_trail: bool):
        self.turns.append((seat, forced_trail, list(moves)))
        if not self.script:
            if self.then == "stop":
                raise ScriptExhaustedError(seat)
            return moves[0]
        want_seat, play, take = self.script.pop(0)
        assert seat == want_seat, f"seat {seat} moves where the script expects seat {want_seat}"
        chosen = move(play, take)
        assert chosen in moves, f"{play} -> {take or 'trail'} is not legal here"
        return chosen

    def emit(self, event: dict[str, Any]) -> None:
        self.events.append(event)

    def plays(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == "play"]


def run(state: DealState, script, r=DEFAULT, banked=(0, 0), then="stop", to_move=None):
    """Drive :func:`play_deal`; returns (agent, out seat or None, seat asked to move after the script)."""
    agent = ScriptedAgent(script, then)
    try:
        out = play_deal(r, state, list(banked), agent, to_move)
    except ScriptExhaustedError as done:
        return agent, None, done.seat
    return agent, out, None


# ------------------------------------------------------------------------------------ K-EX1, 2, 3, 5


def test_k_ex1_nine_takes_two_and_seven():
    table, hand = "2c 7h 9d Ks", "9s 5d 4c"
    expected = sorted(
        [move("9s", "9d"), move("9s", "2c 7h"), move("5d 4c", "9d"), move("5d 4c", "2c 7h"), move("9s 4c", "Ks")]
    )
    assert exchanges(DEFAULT, m(hand), m(table)) == expected
    assert legal_moves(DEFAULT, m(hand), m(table)) == expected  # K4: an exchange is compulsory
    assert (m("9s 5d"), m("Ks")) not in expected  # 14 > 13 (and nothing sums to 14)


def test_k_ex1_free_trailing_adds_the_trails():
    table, hand = "2c 7h 9d Ks", "9s 5d 4c"
    moves = legal_moves(rules(forced_capture="none"), m(hand), m(table))
    assert moves == sorted([*exchanges(DEFAULT, m(hand), m(table)), move("9s"), move("5d"), move("4c")])


def test_k_ex2_corrected_seed_example():
    table, hand = "Jd Ac 6h", "3h 5c 7s"
    assert legal_moves(DEFAULT, m(hand), m(table)) == sorted([move("5c 7s", "Jd Ac"), move("7s", "Ac 6h")])
    assert move("3h 5c 7s", "Jd Ac") not in legal_moves(rules(max_sum=0), m(hand), m(table))  # 15 != 12


def test_k_ex3_many_to_many():
    table, hand = "2s 4h 9c", "5h Ad 8c"
    expected = sorted([move("5h Ad", "2s 4h"), move("5h 8c", "4h 9c"), move("Ad 8c", "9c")])
    assert legal_moves(DEFAULT, m(hand), m(table)) == expected
    assert legal_moves(rules(max_hand_cards=2), m(hand), m(table)) == expected
    # one hand card per exchange: no single card matches a table subset (5, 1, 8 vs 2, 4, 9, 6, 11, 13, 15)
    assert legal_moves(rules(max_hand_cards=1), m(hand), m(table)) == sorted([move("5h"), move("Ad"), move("8c")])


def test_max_hand_cards_drops_three_card_groups():
    table, hand = "Kc", "2d 4h 7s"  # 2 + 4 + 7 = 13
    assert legal_moves(DEFAULT, m(hand), m(table)) == [move("2d 4h 7s", "Kc")]
    assert legal_moves(rules(max_hand_cards=2), m(hand), m(table)) == trails(m(hand))


def test_k_ex5_cap_of_thirteen():
    table, hand = "4s 7c Kh", "Jc Qd Ah"
    assert legal_moves(DEFAULT, m(hand), m(table)) == sorted([move("Jc", "4s 7c"), move("Qd Ah", "Kh")])
    uncapped = legal_moves(rules(max_sum=0), m(hand), m(table))
    assert uncapped == sorted([move("Jc", "4s 7c"), move("Qd Ah", "Kh"), move("Jc Qd Ah", "4s 7c Kh")])


def test_k_ex5_uncapped_exchange_is_a_tabla():
    state = state_of("Jc Qd Ah", "2c 3c 4c", "4s 7c Kh", plays=3)
    result = apply_move(rules(max_sum=0), state, A, move("Jc Qd Ah", "4s 7c Kh"))
    assert result == ("capture", 1, True)
    assert state.piles[A] == ids("Jc Qd Ah 4s 7c Kh") and not state.table and state.tabla == [1, 0]


def test_legal_moves_sorted_by_play_then_take():
    moves = legal_moves(rules(forced_capture="none"), m("9s 5d 4c"), m("2c 7h 9d Ks"))
    assert moves == sorted(moves) and len(set(moves)) == len(moves)
    assert moves[0] == move("4c")  # 4c has the lowest id; its trail (take 0) comes before its exchanges


# --------------------------------------------------------------------------------------------- K-EX4

K_EX4_TABLE, K_EX4_HAND = "Ac 2h 3s 4d", "Ts 7h 3d"


def test_k_ex4_legal_set():
    expected = sorted(
        [
            move("Ts", K_EX4_TABLE),
            move("7h 3d", K_EX4_TABLE),
            move("7h", "3s 4d"),
            move("7h", "Ac 2h 4d"),
            move("3d", "3s"),
            move("3d", "Ac 2h"),
        ]
    )
    assert legal_moves(DEFAULT, m(K_EX4_HAND), m(K_EX4_TABLE)) == expected


@pytest.mark.parametrize("play", ["Ts", "7h 3d"])
def test_k_ex4_opening_tabla_scores_two_and_dealer_moves_twice(play):
    state = state_of(K_EX4_HAND, "5c 6c Kd", K_EX4_TABLE)
    agent, out, next_seat = run(state, [(A, play, K_EX4_TABLE), (B, "5c", ""), (B, "6c", "")])
    first, trail, second = agent.plays()
    assert (first["points"], first["sweep"], first["kind"]) == (2, True, "capture")
    assert state.tabla == [2, 0]
    assert [(seat, forced) for seat, forced, _ in agent.turns[:3]] == [(A, False), (B, True), (B, False)]
    assert agent.turns[1][2] == trails(m("5c 6c Kd"))  # the forced trail: any card, no exchange
    assert agent.turns[2][2] == trails(m("6c Kd"))  # 6 != 5: no exchange, B trails again
    assert trail["kind"] == second["kind"] == "trail"
    assert out is None and next_seat == A


def test_opening_tabla_points_option():
    state = state_of(K_EX4_HAND, "5c 6c Kd", K_EX4_TABLE)
    assert apply_move(rules(opening_tabla_points=5), state, A, move("Ts", K_EX4_TABLE)).points == 5
    later = state_of(K_EX4_HAND, "5c 6c Kd", K_EX4_TABLE, plays=2)  # same cards, not the deal's first move
    assert apply_move(DEFAULT, later, A, move("Ts", K_EX4_TABLE)).points == 1


def test_after_tabla_normal_gives_no_double_move():
    state = state_of(K_EX4_HAND, "5c 6c Kd", K_EX4_TABLE)
    agent, _, next_seat = run(state, [(A, "Ts", K_EX4_TABLE), (B, "5c", "")], r=rules(after_tabla="normal"))
    assert [(seat, forced) for seat, forced, _ in agent.turns[:2]] == [(A, False), (B, False)]
    assert next_seat == A and state.pending is None


# --------------------------------------------------------------------------------------------- K-EX6


def k_ex6_state() -> DealState:
    return state_of("Kc 2d Qh", "6c 6d 8s", "4s 9h", stock="2c 3c 4c 5h 5s 7d Ad Ah", plays=6)


def test_k_ex6_tabla_chain():
    state = k_ex6_state()
    script = [(A, "Kc", "4s 9h"), (B, "6c", ""), (B, "6d", "6c"), (A, "2d", ""), (A, "Qh", ""), (B, "8s", "")]
    agent, out, next_seat = run(state, script)
    offered = [(seat, forced, moves) for seat, forced, moves in agent.turns]
    assert offered[0] == (A, False, [move("Kc", "4s 9h")])  # the only exchange: compulsory
    assert offered[1] == (B, True, trails(m("6c 6d 8s")))
    assert offered[2] == (B, False, [move("6d", "6c")])  # the trailed 6 must be taken back
    assert offered[3] == (A, True, trails(m("2d Qh")))
    assert offered[4] == (A, False, trails(m("Qh")))  # 12 != 2
    assert offered[5] == (B, False, trails(m("8s")))  # 8 vs 2, 12, 14
    plays = agent.plays()
    assert [(p["seat"], p["points"], p["sweep"]) for p in plays] == [
        (A, 1, True),
        (B, 0, False),
        (B, 1, True),
        (A, 0, False),
        (A, 0, False),
        (B, 0, False),
    ]
    assert state.tabla == [1, 1] and state.table == ids("2d Qh 8s")
    # both hands empty: B, the last capturer, draws 3 first, then A; B leads the new round
    draws = [e for e in agent.events if e["type"] == "hand"]
    assert [(e["seat"], e["cards"]) for e in draws] == [(B, sorted(ids("2c 3c 4c"))), (A, sorted(ids("5h 5s 7d")))]
    assert next_seat == B and out is None
    assert state.stock == [parse_card("Ad"), parse_card("Ah")]


def test_k_ex6_trailing_the_eight_first_gives_a_second_trail():
    state = k_ex6_state()
    agent, _, next_seat = run(state, [(A, "Kc", "4s 9h"), (B, "8s", ""), (B, "6c", "")])
    assert agent.turns[2] == (B, False, trails(m("6c 6d")))  # 6, 6, 12 != 8
    assert next_seat == A and state.tabla == [1, 0]


def test_round_leader_non_dealer():
    state = k_ex6_state()
    script = [(A, "Kc", "4s 9h"), (B, "6c", ""), (B, "6d", "6c"), (A, "2d", ""), (A, "Qh", ""), (B, "8s", "")]
    agent, _, next_seat = run(state, script, r=rules(round_leader="non_dealer"))
    draws = [e for e in agent.events if e["type"] == "hand"]
    assert [e["seat"] for e in draws] == [A, B] and next_seat == A  # although B captured last


def test_non_dealer_leads_when_nobody_captured():
    state = state_of("Qc", "Kc", "2d 3d", stock="4c 5c 6c 7c 8c 9c")
    agent, _, next_seat = run(state, [(A, "Qc", ""), (B, "Kc", "")])
    assert [e["seat"] for e in agent.events if e["type"] == "hand"] == [A, B] and next_seat == A


def test_tabla_against_a_waiting_player_gives_no_double_move():
    state = state_of("9c 5d", "", "4s 5h", stock="", plays=8)
    agent, _, _ = run(state, [(A, "9c", "4s 5h"), (A, "5d", "")], then="first")
    assert [(seat, forced) for seat, forced, _ in agent.turns] == [(A, False), (A, False)]
    assert state.pending is None


# --------------------------------------------------------------------------------------------- K-EX7


def test_k_ex7_waiting_player():
    state = state_of("5c 4d Kh", "7c 8d Qs", "9h 2s", stock="2c 3c 4c 5h 5s 7d")
    script = [(A, "5c 4d", "9h"), (B, "7c", ""), (A, "Kh", ""), (B, "8d", ""), (B, "Qs", "")]
    agent, _, next_seat = run(state, script)
    assert agent.turns[0][2] == [move("5c 4d", "9h")]
    assert [seat for seat, _, _ in agent.turns[:5]] == [A, B, A, B, B]  # B moves twice while A waits
    assert [e["type"] for e in agent.events] == ["play"] * 5 + ["hand", "hand"]  # draws only after that
    assert next_seat == A  # A captured last: A draws first and leads


# --------------------------------------------------------------------------------------------- K-EX8


def k_ex8_piles() -> tuple[set[int], set[int]]:
    """A: 28 cards, 6 spades, A♥ A♣ ♦10; B: 24 cards, 7 spades with ♠2, A♠ A♦."""
    spades = [c for c in PACK if c % 4 == 3]
    b_spades = set(cards_of(m("As 2s 3s 4s 5s 6s 7s")))
    pile_a = {c for c in spades if c not in b_spades} | ids("Ah Ac Td")
    others = [c for c in PACK if c % 4 != 3 and c not in pile_a and c not in ids("Ad")]
    pile_a |= set(others[: 28 - len(pile_a)])
    pile_b = set(PACK) - pile_a
    return pile_a, pile_b


def test_k_ex8_deal_score():
    pile_a, pile_b = k_ex8_piles()
    assert (len(pile_a), len(pile_b)) == (28, 24) and ids("As 2s Ad") <= pile_b
    points = score_deal(DEFAULT, [pile_a, pile_b], [3, 1])
    assert points == [
        {"cards": 3, "spades": 0, "aces": 2, "little_casino": 0, "big_casino": 2, "tabla": 3},
        {"cards": 0, "spades": 2, "aces": 2, "little_casino": 1, "big_casino": 0, "tabla": 1},
    ]
    assert [deal_total(p) for p in points] == [10, 6]
    assert sum(deal_total(p) - p["tabla"] for p in points) == 12  # base points


def test_twenty_six_each_scores_no_card_points():
    pile_a = set(PACK[:26])
    assert score_pile(pile_a, 0)["cards"] == 0 and score_pile(set(PACK[26:]), 0)["cards"] == 0
    assert score_pile(set(PACK[:27]), 0)["cards"] == 3


# --------------------------------------------------------------------------------------------- K-EX9

K_EX9_SCRIPT = [
    (A, "Tc", "Td"),  # A: big casino, running 8 + 2 = 10
    (B, "Qc", "7h 3c 2d"),  # B: tábla, running 9 + 1 = 10
    (A, "5d", ""),  # A's double move: forced trail ...
    (A, "As", ""),  # ... then no exchange (1 != 5): a second trail
    (B, "9c", ""),
    (B, "8h", ""),  # A waits
    (B, "6h", "As 5d"),  # after the draw, B leads and takes the ace of spades: 9 + 1 + 1 = 11
]


def k_ex9_state() -> DealState:
    return state_of("Tc As 5d", "Qc 9c 8h", "Td 7h 3c 2d", stock="6h Kd Ks Jc Jd Js")


def test_k_ex9_ausz_mid_deal():
    state = k_ex9_state()
    banked = [8, 9]
    agent, out, _ = run(state, K_EX9_SCRIPT, banked=banked, then="stop")
    assert out == B and not agent.script
    assert [e["seat"] for e in agent.events if e["type"] == "hand"] == [B, A]
    assert sure_total(state, A) == 2 and sure_total(state, B) == 2
    totals, winner = finish_deal(DEFAULT, state, 1, banked, out, agent)
    assert (totals, winner) == ([10, 11], B)
    assert agent.events[-3:] == [
        {"type": "out", "seat": B},
        {
            "type": "score",
            "deal": 1,
            "points": [
                {"cards": 0, "spades": 0, "aces": 0, "little_casino": 0, "big_casino": 2, "tabla": 0},
                {"cards": 0, "spades": 0, "aces": 1, "little_casino": 0, "big_casino": 0, "tabla": 1},
            ],
            "totals": [10, 11],
        },
        {"type": "end", "winner": B, "totals": [10, 11]},
    ]
    assert not any(e["type"] == "residue" for e in agent.events)


def test_k_ex9_no_call_before_the_target():
    state = k_ex9_state()
    _, out, next_seat = run(state, K_EX9_SCRIPT[:6], banked=[8, 9])
    assert out is None and next_seat == B  # 10 and 10: nobody is out yet


def test_out_call_end_of_deal_plays_the_deal_out():
    state = k_ex9_state()
    banked = [8, 9]
    r = rules(out_call="end_of_deal")
    agent, out, _ = run(state, K_EX9_SCRIPT, r=r, banked=banked, then="first")
    assert out is None
    assert state.hands_empty() and not state.stock
    totals, winner = finish_deal(r, state, 1, banked, out, agent)
    assert not any(e["type"] == "out" for e in agent.events)
    score = next(e for e in agent.events if e["type"] == "score")
    assert score["totals"] == totals == [b + deal_total(p) for b, p in zip(banked, score["points"], strict=True)]
    assert winner == game_winner(totals, r["target"])


def test_residue_goes_to_the_last_capturer_and_is_no_tabla():
    state = state_of("", "", "3c 9h", plays=40)
    state.last_capturer = B
    agent = ScriptedAgent([])
    totals, winner = finish_deal(DEFAULT, state, 0, [0, 0], None, agent)
    assert agent.events[0] == {"type": "residue", "seat": B, "cards": ["3c", "9h"]}
    assert state.piles[B] == ids("3c 9h") and state.tabla == [0, 0]
    assert totals == [0, 0] and winner is None


def test_residue_unscored_when_nobody_captured():
    state = state_of("", "", "3c 9h", plays=40)
    agent = ScriptedAgent([])
    finish_deal(DEFAULT, state, 0, [0, 0], None, agent)
    assert [e["type"] for e in agent.events] == ["score"] and state.table == ids("3c 9h")


def test_out_checked_after_the_forced_trail():
    """Totals tied at or above the target play another deal; the mover is then out after his first play,
    even the forced trail of a double move (the check follows every play)."""
    state = state_of("Kc 2d", "5c 6c Kd", "4s 9h", plays=3)
    agent, out, _ = run(state, [(A, "Kc", "4s 9h"), (B, "5c", "")], banked=[0, 11])
    assert out == B and len(agent.plays()) == 2 and agent.turns[1][1]  # out right after the forced trail


# ------------------------------------------------------------------------------ Part B options (K2 .. K12)


def test_k_ex8_under_other_points_and_thresholds():
    """K12's keys on K-EX8's piles: thresholds are absolute, so with 6 spades both players score the spades."""
    pile_a, pile_b = k_ex8_piles()
    r = rules(
        points_cards=2, cards_threshold=25, points_spades=1, spades_threshold=6, points_ace=2, points_2S=3, points_10D=1
    )
    points = score_deal(r, [pile_a, pile_b], [3, 1])
    assert points == [
        {"cards": 2, "spades": 1, "aces": 4, "little_casino": 0, "big_casino": 1, "tabla": 3},
        {"cards": 0, "spades": 1, "aces": 4, "little_casino": 3, "big_casino": 0, "tabla": 1},
    ]
    assert [deal_total(p) for p in points] == [11, 9]
    assert score_deal(rules(cards_threshold=24), [pile_a, pile_b], [0, 0])[1]["cards"] == 3  # 24 cards reach 24


def test_points_tabla_scores_every_tabla_but_the_opening_one():
    r = rules(points_tabla=3)
    later = state_of(K_EX4_HAND, "5c 6c Kd", K_EX4_TABLE, plays=2)
    assert apply_move(r, later, A, move("Ts", K_EX4_TABLE)) == ("capture", 3, True)
    opening = state_of(K_EX4_HAND, "5c 6c Kd", K_EX4_TABLE)
    assert apply_move(r, opening, A, move("Ts", K_EX4_TABLE)).points == 2  # opening_tabla_points


def test_tabla_on_the_final_move():
    """K11: the deal's last play (talon and both hands empty after it) empties the table."""
    for counts, expected in ((True, ("capture", 1, True)), (False, ("capture", 0, False))):
        state = state_of("9c", "", "4s 5h", plays=47)
        assert apply_move(rules(tabla_on_final_move_counts=counts), state, A, move("9c", "4s 5h")) == expected
        assert state.tabla == [int(counts), 0] and state.piles[A] == ids("9c 4s 5h")
    not_final = state_of("9c", "2d", "4s 5h", plays=46)  # B still holds a card: not the final move
    assert apply_move(rules(tabla_on_final_move_counts=False), not_final, A, move("9c", "4s 5h")).sweep


def test_k_ex6_recapturing_own_trail_is_no_tabla_when_off():
    """K6: B's 6d takes back the 6c B trailed himself: a tábla by default (K-EX6), a plain capture when off, and
    then A has an ordinary turn, not a double move."""
    state = k_ex6_state()
    r = rules(tabla_by_recapturing_own_trail_counts=False)
    script = [(A, "Kc", "4s 9h"), (B, "6c", ""), (B, "6d", "6c"), (A, "2d", ""), (B, "8s", ""), (A, "Qh", "")]
    agent, _, next_seat = run(state, script, r=r)
    assert [(seat, forced) for seat, forced, _ in agent.turns[:6]] == [
        (A, False),
        (B, True),
        (B, False),
        (A, False),
        (B, False),
        (A, False),
    ]
    plays = agent.plays()
    assert [(p["seat"], p["points"], p["sweep"]) for p in plays][:3] == [(A, 1, True), (B, 0, False), (B, 0, False)]
    assert state.tabla == [1, 0] and state.pending is None
    assert next_seat == B  # B captured last: B draws first


def test_own_trail_is_per_card():
    """Taking the mover's own trail together with another card, or an initial table card, is a tábla all the same."""
    r = rules(tabla_by_recapturing_own_trail_counts=False)
    state = state_of("4d 6d", "3c", "2h", plays=4)  # 2h: an initial card, nobody's trail
    apply_move(r, state, A, move("4d"))  # A trails 4d
    assert apply_move(r, state, A, move("6d", "2h 4d")) == ("capture", 1, True)
    mixed = state_of("5d 9d", "4c 7c", "", plays=6)
    apply_move(r, mixed, A, move("5d"))  # A trails 5d, B trails 4c: the table holds both players' trails
    apply_move(r, mixed, B, move("4c"))
    assert apply_move(r, mixed, A, move("9d", "5d 4c")).sweep
    own = state_of("5d 9d 4d", "Kc", "", plays=6)
    apply_move(r, own, A, move("5d"))
    apply_move(r, own, A, move("4d"))
    assert apply_move(r, own, A, move("9d", "5d 4d")) == ("capture", 0, False)


def test_opening_tabla_scope_after_each_draw():
    """K7: with first_move_after_each_draw, the leader's first move after a draw that empties the table scores
    opening_tabla_points; by default only the deal's first move does."""
    for scope, points in (("first_move_of_deal", 1), ("first_move_after_each_draw", 2)):
        state = state_of("", "", "5c", stock="5d 8c 9c 2h 3h 4h", plays=6)
        state.last_capturer = A
        agent, _, _ = run(state, [(A, "5d", "5c")], r=rules(opening_tabla_scope=scope))
        assert [(p["points"], p["sweep"]) for p in agent.plays()] == [(points, True)]
    later = state_of("5d 8c", "2h 3h", "5c", plays=8)  # in the middle of a round: a plain tábla
    later.round_start = False
    assert apply_move(rules(opening_tabla_scope="first_move_after_each_draw"), later, A, move("5d", "5c")).points == 1


def test_round_leader_opponent_of_last_capturer():
    state = k_ex6_state()
    script = [(A, "Kc", "4s 9h"), (B, "6c", ""), (B, "6d", "6c"), (A, "2d", ""), (A, "Qh", ""), (B, "8s", "")]
    agent, _, next_seat = run(state, script, r=rules(round_leader="opponent_of_last_capturer"))
    draws = [e for e in agent.events if e["type"] == "hand"]
    assert [e["seat"] for e in draws] == [A, B] and next_seat == A  # B captured last: A draws first and leads
    nobody = state_of("Qc", "Kc", "2d 3d", stock="4c 5c 6c 7c 8c 9c")  # nobody captured: the non-dealer leads
    agent, _, next_seat = run(nobody, [(A, "Qc", ""), (B, "Kc", "")], r=rules(round_leader="opponent_of_last_capturer"))
    assert [e["seat"] for e in agent.events if e["type"] == "hand"] == [A, B] and next_seat == A


@pytest.mark.parametrize("who,seat", [("none", None), ("dealer", B), ("non_dealer", A)])
def test_residue_if_no_capture(who, seat):
    state = state_of("", "", "3c 9h", plays=48)
    agent = ScriptedAgent([])
    finish_deal(rules(residue_if_no_capture=who), state, 0, [0, 0], None, agent)
    if seat is None:
        assert [e["type"] for e in agent.events] == ["score"] and state.table == ids("3c 9h")
    else:
        assert agent.events[0] == {"type": "residue", "seat": seat, "cards": ["3c", "9h"]}
        assert state.piles[seat] == ids("3c 9h") and state.last_capturer is None
    captured = state_of("", "", "3c 9h", plays=48)
    captured.last_capturer = A  # somebody captured: the last capturer takes it whatever the key says
    agent = ScriptedAgent([])
    finish_deal(rules(residue_if_no_capture=who), captured, 0, [0, 0], None, agent)
    assert agent.events[0]["seat"] == A
