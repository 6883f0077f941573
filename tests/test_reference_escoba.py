"""The reference Escoba engine: dealing, the opening take, legal moves against a brute force, policies, whole
seeded games and the trace check (``check_trace``), opening events included."""

from __future__ import annotations

import copy
import itertools
import json

import pytest
from reference_cases import (
    TAMPERS,
    assert_random_draws_once,
    assert_rejects,
    first_event,
    game_with,
    policy_view,
    shuffled_dealing_step,
    tamper_id,
)

from simcore.cards import format_card, mask_of, parse_card, parse_mask
from simcore.errors import ConfigError
from simcore.reference.escoba import (
    PACK,
    PLAYS_PER_DEAL,
    TraceError,
    check_trace,
    choose_greedy,
    greedy_score,
    legal_moves,
    opening_escobas,
    play_game,
)
from simcore.reference.rng import Stream
from simcore.variants.escoba import CATEGORIES, SPEC, card_weight

VALUES = {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 11: 8, 12: 9, 13: 10}


def _value(card: int) -> int:
    return VALUES[card // 4 + 1]


def test_the_pack_is_scopas_forty_cards():
    assert len(PACK) == 40 and {c // 4 + 1 for c in PACK} == set(VALUES)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_first_deal_follows_the_written_procedure(players):
    """Recompute the first deal from the stream by hand: dealer, Fisher-Yates over the 40 ids, 3 per hand in
    playing order, then 4 to the table; then the opening event when the table makes one."""
    for game in range(30):
        s = Stream(42, game, 0)
        dealer = s.bounded(players)
        deck = list(PACK)
        for i in range(39, 0, -1):
            j = s.bounded(i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        first = (dealer + 1) % players
        expected = [{"type": "deal", "deal": 0, "dealer": dealer}]
        for k in range(players):
            cards = sorted(deck[3 * k : 3 * k + 3])
            expected.append({"type": "hand", "seat": (first + k) % players, "cards": [format_card(c) for c in cards]})
        table = sorted(deck[3 * players : 3 * players + 4])
        expected.append({"type": "table", "cards": [format_card(c) for c in table]})
        n = opening_escobas(table)
        if n:
            expected.append({"type": "opening", "seat": dealer, "cards": [format_card(c) for c in table], "points": n})
        events = play_game(42, game, {"players": players}, ["random"] * players)["events"]
        assert events[: len(expected)] == expected
        assert events[len(expected)]["type"] == "play" and events[len(expected)]["seat"] == first


# ---------------------------------------------------------------------------------------- legal moves


def _brute_force_moves(rules, hand: set[int], table: set[int]) -> list[tuple[int, int]]:
    """An independent reading of E3/E6: every subset of the table with itertools, kept when it makes 15."""
    subsets = [frozenset(s) for k in range(1, len(table) + 1) for s in itertools.combinations(sorted(table), k)]
    caps = {card: [s for s in subsets if _value(card) + sum(_value(t) for t in s) == 15] for card in hand}
    anyone = any(caps.values())
    forced = rules["forced_capture"]
    moves = []
    for card in hand:
        moves += [(1 << card, mask_of(s)) for s in caps[card]]
        if forced == "none" or (forced == "card" and not caps[card]) or (forced == "player" and not anyone):
            moves.append((1 << card, 0))
    return sorted(moves)


RULE_SETS = [SPEC.resolve({"forced_capture": f}) for f in ("none", "card", "player")]


def test_legal_moves_match_a_brute_force():
    s = Stream(11, 0, 0)
    for _ in range(250):
        deck = list(PACK)
        for i in range(39, 0, -1):
            j = s.bounded(i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        hand = set(deck[: 1 + s.bounded(3)])
        table = set(deck[3 : 3 + s.bounded(12)])
        for rules in RULE_SETS:
            moves = legal_moves(rules, hand, table)
            assert moves == sorted(set(moves))
            assert moves == _brute_force_moves(rules, hand, table)
            assert legal_moves(rules, mask_of(hand), mask_of(table)) == moves


def test_no_equal_rank_capture():
    """E3: a 5 does not take a table 5 (5 + 5 = 10), it takes a king (5 + 10)."""
    rules = SPEC.resolve()
    assert legal_moves(rules, parse_mask("5c"), parse_mask("5d Kh")) == [
        (parse_mask("5c"), 0),
        (parse_mask("5c"), parse_mask("Kh")),
    ]


# ------------------------------------------------------------------------------------------- policies


def test_card_weights():
    assert card_weight(parse_card("7d"), "count") == 3 + 2 + 6
    assert card_weight(parse_card("7c"), "count") == 3
    assert card_weight(parse_card("2d"), "count") == 2
    assert card_weight(parse_card("6h"), "count") == 0
    assert card_weight(parse_card("6h"), "primiera") == 2
    assert card_weight(parse_card("5h"), "count_tiebreak") == 1


def test_random_policy_always_draws():
    assert_random_draws_once(policy_view(legal_moves, SPEC.resolve({"forced_capture": "card"}), "5s", "Qc"))


def test_greedy_policy_takes_most_cards_and_draws_nothing():
    rules = SPEC.resolve()
    view = policy_view(legal_moves, rules, "Ah 7s", "2c 3d 4h 5s Kc")  # Ah: 2c+3d+4h+5s (4 cards)
    s = Stream(5, 5, 1)
    before = s.state
    assert view.moves[choose_greedy(view, s)] == (parse_mask("Ah"), parse_mask("2c 3d 4h 5s"))
    assert s.state == before
    assert greedy_score((parse_mask("Kc"), parse_mask("5d")), rules) == 1000 + 2


def test_policy_and_rule_validation():
    with pytest.raises(ConfigError):
        play_game(1, 0, {}, ["greedy"])
    with pytest.raises(ConfigError):
        play_game(1, 0, {"opening_escoba": "always"}, ["greedy"] * 2)
    with pytest.raises(ConfigError):
        play_game(1, 0, {"single_card_priority": True}, ["greedy"] * 2)


# --------------------------------------------------------------------------------------- whole games

CONFIGS = [
    (2, {}),
    (2, {"forced_capture": "card", "opening_escoba": "first_player", "last_play_scopa": False}),
    (3, {"sevens_rule": "primiera", "majority_tie": "each"}),
    (3, {"forced_capture": "player", "all_bonus": True}),
    (4, {}),
    (4, {"sevens_rule": "count_tiebreak", "opening_escoba": "none", "target": 21}),
]


@pytest.fixture(scope="module")
def games():
    out = []
    for i in range(240):
        players, overrides = CONFIGS[i % len(CONFIGS)]
        policies = ["greedy" if (i + seat) % 3 == 0 else "random" for seat in range(players)]
        out.append(play_game(3000 + i, i, {**overrides, "players": players}, policies))
    return out


def test_every_deal_plays_36_cards_and_conserves_the_pack(games):
    for trace in games:
        deal, plays, pile_cards = [], 0, 0
        for e in trace["events"]:
            if e["type"] == "deal":
                plays, deal = 0, []
            deal += e.get("cards", []) if e["type"] in ("hand", "table") else []
            plays += e["type"] == "play"
            if e["type"] == "score":
                assert plays == PLAYS_PER_DEAL and sorted(map(parse_card, deal)) == list(PACK)
                assert all(list(p) == list(CATEGORIES) for p in e["points"])
                pile_cards += 1
        assert pile_cards >= 1


def test_openings_happen_and_score_as_escobas(games):
    openings = [(t, e) for t in games for e in t["events"] if e["type"] == "opening"]
    assert len(openings) > 20 and {e["points"] for _t, e in openings} == {1, 2}
    for _trace, e in openings:
        assert opening_escobas({parse_card(c) for c in e["cards"]}) == e["points"]


def test_reference_traces_pass_their_own_check_and_json(games):
    for trace in games[:60]:
        check_trace(json.loads(json.dumps(trace)))


def test_dealing_step_in_any_order(games):
    check_trace(shuffled_dealing_step(games))


@pytest.mark.parametrize("tamper", TAMPERS, ids=tamper_id)
def test_check_rejects_tampered_traces(games, tamper):
    assert_rejects(check_trace, TraceError, games, tamper)


def test_check_rejects_a_missing_or_changed_opening(games):
    trace = game_with(games, lambda e: e["type"] == "opening")
    i = first_event(trace, lambda e: e["type"] == "opening")
    for key, value, match in (
        ("points", 3 - trace["events"][i]["points"], "opening points"),
        ("seat", -1, "opening seat"),
    ):
        bad = copy.deepcopy(trace)
        bad["events"][i][key] = value
        with pytest.raises(TraceError, match=f"^event {i}: {match}"):
            check_trace(bad)
    bad = copy.deepcopy(trace)
    del bad["events"][i]
    with pytest.raises(TraceError):
        check_trace(bad)
    no_opening = next(t for t in games if not any(e["type"] == "opening" for e in t["events"]))
    bad = copy.deepcopy(no_opening)
    j = first_event(bad, lambda e: e["type"] == "table")
    bad["events"].insert(j + 1, {"type": "opening", "seat": 0, "cards": bad["events"][j]["cards"], "points": 1})
    with pytest.raises(TraceError, match="no opening take is due"):
        check_trace(bad)
