"""The reference Skopa engine: dealing, legal moves against a brute force, policies, whole seeded games and
the trace check (``check_trace``)."""

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
    policy_view,
    shuffled_dealing_step,
    tamper_id,
)

from simcore.cards import format_card, mask_of, parse_card, parse_mask
from simcore.errors import ConfigError
from simcore.reference.rng import Stream
from simcore.reference.skopa import (
    PACK,
    PLAYS_PER_DEAL,
    PolicyView,
    TraceError,
    check_trace,
    choose_greedy,
    greedy_score,
    legal_moves,
    play_game,
    shuffled_pack,
)
from simcore.variants.skopa import CATEGORIES, SPEC, card_weight

# -------------------------------------------------------------------------------------------- dealing


def _rank(card: int) -> int:
    return card // 4 + 1


def test_shuffle_is_a_permutation_of_the_52_cards():
    s = Stream(3, 1, 0)
    for _ in range(20):
        assert sorted(shuffled_pack(s)) == list(range(52))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_first_deal_follows_the_written_procedure(players):
    """Recompute the first deal from the stream by hand: dealer, Fisher-Yates, hands in playing order, table."""
    s = Stream(42, 7, 0)
    dealer = s.bounded(players)
    deck = list(range(52))
    for i in range(51, 0, -1):
        j = s.bounded(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    first = (dealer + 1) % players
    expected = [{"type": "deal", "deal": 0, "dealer": dealer}]
    for k in range(players):
        cards = sorted(deck[4 * k : 4 * k + 4])
        expected.append({"type": "hand", "seat": (first + k) % players, "cards": [format_card(c) for c in cards]})
    table = sorted(deck[4 * players : 4 * players + 4])
    expected.append({"type": "table", "cards": [format_card(c) for c in table]})
    for policies in (["greedy"] * players, ["random"] * players):
        events = play_game(42, 7, {"players": players}, policies)["events"]
        assert events[: players + 2] == expected
        assert events[players + 2]["type"] == "play" and events[players + 2]["seat"] == first
        # the second round's hands are the next cards of the same deck, in the same seat order
        second = [e for e in events if e["type"] == "hand"][players : 2 * players]
        base = 4 * players + 4
        for k, e in enumerate(second):
            assert e["seat"] == (first + k) % players
            assert e["cards"] == [format_card(c) for c in sorted(deck[base + 4 * k : base + 4 * k + 4])]


# ---------------------------------------------------------------------------------------- legal moves


def _brute_force_moves(rules, hand: set[int], table: set[int]) -> list[tuple[int, int]]:
    """An independent reading of R5/R6: test every subset of the table with itertools."""
    subsets = [frozenset(s) for k in range(1, len(table) + 1) for s in itertools.combinations(sorted(table), k)]

    def value(c: int) -> int:
        return _rank(c) if _rank(c) <= 10 else 0

    def ok(card: int, taken: frozenset[int]) -> bool:
        if _rank(card) > 10:
            return len(taken) == 1 and _rank(next(iter(taken))) == _rank(card)
        if any(_rank(t) > 10 for t in taken) or sum(value(t) for t in taken) != value(card):
            return False
        if rules["single_card_priority"] and any(value(t) == value(card) for t in table):
            return len(taken) == 1
        return True

    caps = {card: [s for s in subsets if ok(card, s)] for card in hand}
    anyone = any(caps.values())
    moves = []
    for card in hand:
        moves += [(1 << card, mask_of(s)) for s in caps[card]]
        forced = rules["forced_capture"]
        if forced == "none" or (forced == "card" and not caps[card]) or (forced == "player" and not anyone):
            moves.append((1 << card, 0))
    return sorted(moves)


RULE_SETS = [
    SPEC.resolve(),
    SPEC.resolve({"single_card_priority": True}),
    SPEC.resolve({"forced_capture": "card"}),
    SPEC.resolve({"forced_capture": "none", "single_card_priority": True}),
]


def test_legal_moves_match_a_brute_force():
    s = Stream(11, 0, 0)
    for _ in range(250):
        deck = shuffled_pack(s)
        hand = set(deck[: 1 + s.bounded(4)])
        table = set(deck[4 : 4 + s.bounded(12)])
        for rules in RULE_SETS:
            moves = legal_moves(rules, hand, table)
            assert moves == sorted(set(moves))
            assert moves == _brute_force_moves(rules, hand, table)
            assert legal_moves(rules, mask_of(hand), mask_of(table)) == moves


def test_legal_moves_never_empty_for_a_non_empty_hand():
    s = Stream(12, 0, 0)
    for _ in range(200):
        deck = shuffled_pack(s)
        for rules in RULE_SETS:
            assert legal_moves(rules, set(deck[:1]), set(deck[1 : 1 + s.bounded(10)]))


# ------------------------------------------------------------------------------------------- policies


def _view(hand: str, table: str, rules=None) -> PolicyView:
    return policy_view(legal_moves, rules or SPEC.resolve(), hand, table)


def test_card_weights():
    assert card_weight(parse_card("2c")) == 4
    assert card_weight(parse_card("Td")) == 3
    assert card_weight(parse_card("5c")) == 1
    assert card_weight(parse_card("5h")) == 0


def test_random_policy_always_draws():
    assert_random_draws_once(_view("5s", "Kc"))  # a single legal move (the trail)


def test_greedy_policy_scores_and_ties():
    assert greedy_score((parse_mask("Tc"), parse_mask("Td"))) == 1000 + 3 + 1
    assert greedy_score((parse_mask("Tc"), parse_mask("2c 8h"))) == 2000 + 4 + 0 + 1
    assert greedy_score((parse_mask("2c"), 0)) == -4
    assert greedy_score((parse_mask("Kh"), 0)) == 0
    view = _view("Th 9c", "2c 8h 7d Ah Td")  # more cards first: Th takes 2c 7d Ah (3 cards, 4 + 0 + 0)
    s = Stream(5, 5, 1)
    before = s.state
    assert view.moves[choose_greedy(view, s)] == (parse_mask("Th"), parse_mask("Ah 2c 7d"))
    assert s.state == before
    tie = _view("Kc Ks", "5h Qh")  # two trails: Kc weighs 1 (a club), so Ks (weight 0) is better
    assert tie.moves[choose_greedy(tie, s)] == (parse_mask("Ks"), 0)
    tie = _view("Kd Ks", "5h Qh")  # equal weights: the first in sorted order
    assert tie.moves[choose_greedy(tie, s)] == (parse_mask("Kd"), 0)


def test_policy_and_rule_validation():
    with pytest.raises(ConfigError):
        play_game(1, 0, {}, ["greedy"])
    with pytest.raises(ConfigError):
        play_game(1, 0, {}, ["greedy", "clever"])
    with pytest.raises(ConfigError):
        play_game(1, 0, {"players": 5}, ["greedy"] * 5)
    with pytest.raises(ConfigError):
        play_game(1, 0, {"forced_capture": "always"}, ["greedy"] * 2)


# --------------------------------------------------------------------------------------- whole games

CONFIGS = [
    (2, {}),
    (2, {"forced_capture": "card", "single_card_priority": True, "sweep_points": 1}),
    (2, {"forced_capture": "none", "target": 11}),
    (3, {}),
    (3, {"clubs_tie": "each", "forced_capture": "card"}),
    (3, {"sweep_points": 2, "single_card_priority": True, "forced_capture": "none"}),
    (4, {}),
    (4, {"sweep_points": 1, "forced_capture": "card", "target": 31}),
]
POLICY_SETS = [("random",) * 4, ("greedy", "random", "greedy", "random"), ("random", "greedy", "random", "greedy")]
GAMES_PER_PLAYER_COUNT = 200


def _games():
    """200 seeded games per player count over the configurations and policy mixes above."""
    out = []
    for players in (2, 3, 4):
        configs = [o for p, o in CONFIGS if p == players]
        for i in range(GAMES_PER_PLAYER_COUNT):
            overrides = configs[i % len(configs)]
            policies = list(POLICY_SETS[(i // len(configs)) % len(POLICY_SETS)][:players])
            out.append(play_game(2000 + i, i + 1000 * players, {**overrides, "players": players}, policies))
    return out


@pytest.fixture(scope="module")
def games():
    return _games()


def _deals(trace):
    """Split events into deals: lists of events from a deal event to its score event."""
    deals, current = [], []
    for event in trace["events"]:
        current.append(event)
        if event["type"] == "score":
            deals.append(current)
            current = []
    return deals


def _side(seat, players):
    return seat % 2 if players == 4 else seat


def test_every_card_ends_in_exactly_one_place(games):
    """Independent audit from the events: cards dealt once, plays from hand, takes from the table."""
    for trace in games:
        players = trace["players"]
        for deal in _deals(trace):
            hands = {s: set() for s in range(players)}
            table, dealt, piles = set(), [], [set() for _ in trace["sides"]]
            plays = 0
            for e in deal:
                cards = {parse_card(c) for c in e.get("cards", [])}
                if e["type"] == "hand":
                    assert len(cards) == 4 and not hands[e["seat"]]  # a new round only once the hand is empty
                    hands[e["seat"]] |= cards
                    dealt += sorted(cards)
                elif e["type"] == "table":
                    assert len(cards) == 4 and plays == 0
                    table |= cards
                    dealt += sorted(cards)
                elif e["type"] == "play":
                    plays += 1
                    (card,) = cards
                    take = {parse_card(c) for c in e["take"]}
                    hands[e["seat"]].remove(card)
                    assert take <= table
                    table -= take
                    if e["kind"] == "capture":
                        assert take
                        piles[_side(e["seat"], players)] |= take | {card}
                        assert e["sweep"] == (not table)
                    else:
                        assert e["kind"] == "trail" and not take and not e["sweep"]
                        table.add(card)
                elif e["type"] == "residue":
                    assert cards == table
                    piles[_side(e["seat"], players)] |= table
                    table = set()
            assert plays == PLAYS_PER_DEAL
            assert sorted(dealt) == list(PACK)
            assert all(not h for h in hands.values())
            places = [*piles, table]
            assert sum(len(p) for p in places) == 52 and set().union(*places) == set(PACK)


def test_rounds_and_turn_order(games):
    for trace in games:
        players = trace["players"]
        for deal in _deals(trace):
            first = (deal[0]["dealer"] + 1) % players
            seats = [e["seat"] for e in deal if e["type"] == "play"]
            assert seats == [(first + k) % players for k in range(PLAYS_PER_DEAL)]
            hands = [e for e in deal if e["type"] == "hand"]
            assert len(hands) == 48 // 4  # 12 hands of 4: 6, 4 or 3 rounds
            assert [e["seat"] for e in hands] == [(first + k) % players for k in range(len(hands))]


def test_points_within_bounds_and_totals_consistent(games):
    for trace in games:
        rules, events = trace["rules"], trace["events"]
        players = trace["players"]
        n_sides = len(trace["sides"])
        totals = [0] * n_sides
        sweeps = [0] * n_sides
        scores = [e for e in events if e["type"] == "score"]
        assert [e["deal"] for e in scores] == list(range(len(scores)))
        for e in events:
            if e["type"] == "play":
                assert e["points"] == (rules["sweep_points"] if e["sweep"] else 0)
                assert isinstance(e["sweep"], bool)
                sweeps[_side(e["seat"], players)] += 1 if e["sweep"] else 0
            elif e["type"] == "score":
                assert len(e["points"]) == n_sides
                for side, p in enumerate(e["points"]):
                    assert list(p) == list(CATEGORIES)
                    assert p["cards"] in (0, 1, 2) and p["clubs"] in (0, 1)
                    assert p["two_clubs"] in (0, 1) and p["ten_diamonds"] in (0, 1)
                    assert p["sweep"] == sweeps[side] * rules["sweep_points"]
                    totals[side] += sum(p.values())
                assert sum(p["cards"] for p in e["points"]) == 2  # somebody always captures in 48 plays
                assert sum(p["two_clubs"] for p in e["points"]) == 1
                assert sum(p["ten_diamonds"] for p in e["points"]) == 1
                clubs = sum(p["clubs"] for p in e["points"])
                assert clubs in ((0, 1, 2) if rules["clubs_tie"] == "each" and players == 3 else (0, 1))
                if players != 3:
                    assert clubs == 1  # 13 clubs between two sides: never a tie
                assert e["totals"] == totals
                sweeps = [0] * n_sides
                top = max(totals)
                game_over = top >= rules["target"] and totals.count(top) == 1
                assert game_over == (e is scores[-1])
        end = events[-1]
        assert end["type"] == "end"
        assert end["totals"] == totals
        assert totals[end["winner"]] == max(totals) >= rules["target"]


def test_event_shapes_and_header(games):
    for trace in games:
        players = trace["players"]
        assert trace["format"] == "scopasim-trace/1" and trace["variant"] == "skopa"
        assert trace["rules"] == SPEC.resolve(trace["rules"]) and trace["rules"]["players"] == players
        assert trace["sides"] == ([[0, 2], [1, 3]] if players == 4 else [[s] for s in range(players)])
        assert json.loads(json.dumps(trace)) == trace
        for e in trace["events"]:
            assert e["type"] in ("deal", "hand", "table", "play", "residue", "score", "end")
            for key in ("cards", "take"):
                if key in e:
                    assert e[key] == sorted(e[key], key=parse_card)
        deals = [e for e in trace["events"] if e["type"] == "deal"]
        for e in deals:
            assert e["dealer"] == (deals[0]["dealer"] + e["deal"]) % players


def test_options_show_up_in_play(games):
    """The options are exercised: sweeps happen, 3-player clubs ties score 1 each with clubs_tie="each"."""
    sweeps_scored = [
        e for t in games if t["rules"]["sweep_points"] for e in t["events"] if e["type"] == "play" and e["sweep"]
    ]
    assert sweeps_scored and all(e["points"] > 0 for e in sweeps_scored)
    zero_point_sweeps = [
        e for t in games if not t["rules"]["sweep_points"] for e in t["events"] if e["type"] == "play" and e["sweep"]
    ]
    assert zero_point_sweeps and all(e["points"] == 0 for e in zero_point_sweeps)
    ties_each = [
        e
        for t in games
        if t["rules"]["clubs_tie"] == "each"
        for e in t["events"]
        if e["type"] == "score" and sum(p["clubs"] for p in e["points"]) == 2
    ]
    assert ties_each


def test_same_seed_same_game():
    assert play_game(5, 3, {"players": 4}, ["random"] * 4) == play_game(5, 3, {"players": 4}, ["random"] * 4)
    assert play_game(5, 3, {}, ["random"] * 2) != play_game(5, 4, {}, ["random"] * 2)


# ---------------------------------------------------------------------------------------- check_trace


def test_check_trace_accepts_reference_traces(games):
    for trace in games:
        check_trace(json.loads(json.dumps(trace)))


def test_check_trace_raises_assertion_errors():
    assert issubclass(TraceError, AssertionError)


def test_check_trace_rejects_a_trail_under_compulsion(games):
    trace = next(copy.deepcopy(t) for t in games if t["rules"]["forced_capture"] == "player")
    i = first_event(trace, lambda e: e["type"] == "play" and e["kind"] == "capture")
    event = trace["events"][i]
    event.update(take=[], kind="trail")
    with pytest.raises(TraceError, match=f"event {i}: illegal move"):
        check_trace(trace)


def test_check_trace_rejects_points_of_the_wrong_type_or_value(games):
    trace = copy.deepcopy(games[0])
    i = first_event(trace, lambda e: e["type"] == "play")
    trace["events"][i]["points"] = False  # 0 == False, but a trace keeps its types
    with pytest.raises(TraceError, match=f"event {i}: points"):
        check_trace(trace)
    trace = next(copy.deepcopy(t) for t in games if not t["rules"]["sweep_points"])
    i = first_event(trace, lambda e: e["type"] == "play" and e["sweep"])
    trace["events"][i]["points"] = 1
    with pytest.raises(TraceError, match=f"event {i}: points"):
        check_trace(trace)


def test_check_trace_rejects_a_card_dealt_again_in_a_later_round(games):
    trace = copy.deepcopy(games[0])
    later = [k for k, e in enumerate(trace["events"]) if e["type"] == "hand"][2]  # a second-round hand
    first_hand = trace["events"][1]["cards"][0]
    trace["events"][later]["cards"][0] = first_hand
    with pytest.raises(TraceError, match="dealt again"):
        check_trace(trace)


@pytest.mark.parametrize("tamper", TAMPERS, ids=tamper_id)
def test_check_trace_rejects_tampered_traces(games, tamper):
    assert_rejects(check_trace, TraceError, games, tamper)


def test_check_trace_accepts_any_order_within_a_dealing_step(games):
    check_trace(shuffled_dealing_step(games))
