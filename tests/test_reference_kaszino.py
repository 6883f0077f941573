"""The reference Kaszinó engine: dealing, legal moves, policies, whole seeded games, the trace checker."""

from __future__ import annotations

import copy
import itertools
import json
import random

import pytest

from simcore.cards import format_mask, mask_of, parse_card
from simcore.errors import ConfigError
from simcore.reference.kaszino import (
    PACK,
    PolicyView,
    check_trace,
    choose_greedy,
    choose_random,
    exchanges,
    greedy_score,
    legal_moves,
    play_game,
    shuffled_pack,
    subsets_with_sum,
    value_of,
)
from simcore.reference.rng import Stream
from simcore.variants.kaszino import CATEGORIES, SPEC, card_weight

CONFIGS = {
    "default-random": ({}, ["random", "random"], 200),
    "default-greedy-random": ({}, ["greedy", "random"], 200),
    "default-greedy": ({}, ["greedy", "greedy"], 60),
    "max_hand_cards=2": ({"max_hand_cards": 2}, ["random", "greedy"], 60),
    "max_hand_cards=1": ({"max_hand_cards": 1}, ["random", "random"], 60),
    "max_sum=0": ({"max_sum": 0}, ["random", "greedy"], 60),
    "forced_capture=none": ({"forced_capture": "none"}, ["random", "greedy"], 60),
    "after_tabla=normal": ({"after_tabla": "normal"}, ["random", "random"], 60),
    "round_leader=non_dealer": ({"round_leader": "non_dealer"}, ["greedy", "random"], 60),
    "out_call=end_of_deal": ({"out_call": "end_of_deal"}, ["random", "random"], 60),
    "opening=1,target=21": ({"opening_tabla_points": 1, "target": 21}, ["random", "random"], 40),
}


@pytest.fixture(scope="module")
def games() -> dict[str, list[dict]]:
    out = {}
    for name, (overrides, policies, count) in CONFIGS.items():
        out[name] = [play_game(2024, g, overrides, policies) for g in range(count)]
    return out


def all_traces(games):
    return [t for traces in games.values() for t in traces]


def ids(names) -> set[int]:
    return {parse_card(n) for n in names}


def value(names) -> int:
    return sum(value_of(c) for c in ids(names))


# -------------------------------------------------------------------------------------- dealing


def test_shuffle_is_a_permutation():
    deck = shuffled_pack(Stream(5, 0, 0))
    assert sorted(deck) == list(PACK) and deck != list(PACK)


def test_first_deal_follows_the_deal_stream():
    """First dealer, then hands of the non-dealer, the dealer, then the table, from the front of the deck."""
    trace = play_game(9, 3, None, ["random", "random"])
    stream = Stream(9, 3, 0)
    dealer = stream.bounded(2)
    deck = shuffled_pack(stream)
    ev = trace["events"]
    assert ev[0] == {"type": "deal", "deal": 0, "dealer": dealer}
    first = 1 - dealer
    assert ev[1] == {"type": "hand", "seat": first, "cards": format_mask(mask_of(deck[0:3]))}
    assert ev[2] == {"type": "hand", "seat": dealer, "cards": format_mask(mask_of(deck[3:6]))}
    assert ev[3] == {"type": "table", "cards": format_mask(mask_of(deck[6:10]))}
    assert ev[4]["type"] == "play" and ev[4]["seat"] == first


def test_first_deal_does_not_depend_on_policies():
    a = play_game(3, 11, None, ["random", "random"])["events"][:4]
    b = play_game(3, 11, None, ["greedy", "greedy"])["events"][:4]
    assert a == b


def test_same_seed_same_game():
    assert play_game(77, 5, None, ["random", "greedy"]) == play_game(77, 5, None, ["random", "greedy"])
    assert play_game(77, 5, None, ["random", "greedy"]) != play_game(77, 6, None, ["random", "greedy"])


def test_last_round_open_does_not_change_the_games():
    """K9 only widens what a policy may see; random and greedy do not look, so the games are the same."""
    for game in range(15):
        for policies in (["random", "random"], ["greedy", "random"]):
            shown = play_game(31, game, None, policies)
            hidden = play_game(31, game, {"last_round_open": False}, policies)
            assert shown["events"] == hidden["events"]
            assert hidden["rules"]["last_round_open"] is False


# ------------------------------------------------------------------------------------ legal moves


def brute_force_exchanges(rules, hand, table):
    moves = []
    most = rules["max_hand_cards"] or 3
    for h in range(1, len(hand) + 1):
        for group in itertools.combinations(hand, h):
            if h > most:
                continue
            for t in range(1, len(table) + 1):
                for taken in itertools.combinations(table, t):
                    total = sum(value_of(c) for c in group)
                    if total == sum(value_of(c) for c in taken) and (
                        rules["max_sum"] == 0 or total <= rules["max_sum"]
                    ):
                        moves.append((mask_of(group), mask_of(taken)))
    return sorted(moves)


@pytest.mark.parametrize(
    "overrides", [{}, {"max_sum": 0}, {"max_hand_cards": 1}, {"max_hand_cards": 2}, {"max_sum": 20}]
)
def test_exchanges_match_brute_force(overrides):
    rules = SPEC.resolve(overrides)
    rng = random.Random(17)
    for _ in range(150):
        cards = rng.sample(PACK, 3 + 9)
        hand, table = cards[: rng.randint(1, 3)], cards[3 : 3 + rng.randint(0, 9)]
        assert exchanges(rules, hand, table) == brute_force_exchanges(rules, hand, table)


def test_subsets_with_sum_match_itertools():
    rng = random.Random(3)
    for _ in range(100):
        table = rng.sample(PACK, rng.randint(0, 8))
        for total in range(1, 30):
            want = {frozenset(s) for k in range(1, 9) for s in itertools.combinations(table, k)}
            want = {s for s in want if sum(value_of(c) for c in s) == total}
            found = subsets_with_sum(table, total)
            assert set(found) == want and len(found) == len(want)


def test_legal_moves_forced_and_free():
    rng = random.Random(8)
    forced, free = SPEC.resolve(), SPEC.resolve({"forced_capture": "none"})
    for _ in range(200):
        cards = rng.sample(PACK, 10)
        hand, table = cards[:3], cards[3 : 3 + rng.randint(0, 7)]
        ex = exchanges(forced, hand, table)
        trails = sorted((1 << c, 0) for c in hand)
        assert legal_moves(forced, hand, table) == (ex or trails)
        assert legal_moves(free, hand, table) == sorted(ex + trails)
        assert legal_moves(forced, mask_of(hand), mask_of(table)) == legal_moves(forced, set(hand), table)


# -------------------------------------------------------------------------------------- policies


def _view(moves):
    return PolicyView(0, frozenset(), frozenset(), tuple(moves), SPEC.resolve(), None)


def test_random_policy_always_draws():
    s, t = Stream(1, 2, 1), Stream(1, 2, 1)
    assert choose_random(_view([(1, 0)]), s) == 0
    t.bounded(1)
    assert s.state == t.state
    picks = {choose_random(_view([(1, 0), (2, 0), (4, 0)]), s) for _ in range(100)}
    assert picks == {0, 1, 2}


def test_greedy_score_and_ties():
    td, two_s, ace_c = parse_card("Td"), parse_card("2s"), parse_card("Ac")
    exchange = (mask_of([parse_card("5h"), parse_card("5c")]), mask_of([td]))
    assert greedy_score(exchange) == 1000 + card_weight(td)
    assert greedy_score((1 << two_s, 0)) == -card_weight(two_s) == -4
    assert greedy_score((1 << ace_c, 0)) == -3
    moves = [(1 << parse_card("3c"), 0), (1 << parse_card("4h"), 0), (1 << ace_c, 0)]
    assert choose_greedy(_view(moves), Stream(0, 0, 1)) == 0  # two zero-weight trails: the first wins
    two_cards = (mask_of([parse_card("2c"), parse_card("3c")]), mask_of([parse_card("5c"), parse_card("Kc")]))
    assert choose_greedy(_view(sorted([exchange, two_cards])), Stream(0, 0, 1)) == sorted([exchange, two_cards]).index(
        two_cards
    )


def test_policy_and_rule_validation():
    with pytest.raises(ConfigError):
        play_game(1, 0, None, ["random"])
    with pytest.raises(ConfigError):
        play_game(1, 0, None, ["random", "clever"])
    with pytest.raises(ConfigError):
        play_game(1, 0, {"max_hand_cards": 3}, ["random", "random"])
    with pytest.raises(ConfigError):
        play_game(1, 0, {"players": 3}, ["random", "random", "random"])


# ------------------------------------------------------------------------------------ whole games


def test_headers(games):
    for name, traces in games.items():
        overrides, policies, _ = CONFIGS[name]
        for t in traces:
            assert t["format"] == "scopasim-trace/1" and t["variant"] == "kaszino"
            assert t["rules"] == SPEC.resolve(overrides) and t["players"] == 2 and t["sides"] == [[0], [1]]
            assert t["policies"] == policies and t["seed"] == 2024


def test_every_card_ends_in_exactly_one_place(games):
    """Card bookkeeping from the events alone (no engine code): hands, table, piles; at each deal's end every
    one of the 52 cards was dealt once and sits in a pile, on the table, in a hand or in the talon."""
    for trace in all_traces(games):
        hands, table, piles, dealt, out = [set(), set()], set(), [set(), set()], [], False
        for e in trace["events"]:
            kind = e["type"]
            if kind == "deal":
                hands, table, piles, dealt, out = [set(), set()], set(), [set(), set()], [], False
            elif kind == "hand":
                assert not hands[e["seat"]]  # a hand is only refilled when it is empty
                hands[e["seat"]] |= ids(e["cards"])
                dealt += e["cards"]
            elif kind == "table":
                table |= ids(e["cards"])
                dealt += e["cards"]
            elif kind == "play":
                played, taken = ids(e["cards"]), ids(e["take"])
                assert played <= hands[e["seat"]] and taken <= table
                hands[e["seat"]] -= played
                if taken:
                    table -= taken
                    piles[e["seat"]] |= played | taken
                else:
                    assert len(played) == 1
                    table |= played
            elif kind == "residue":
                assert ids(e["cards"]) == table
                piles[e["seat"]] |= table
                table = set()
            elif kind == "out":
                out = True
            elif kind == "score":
                assert len(dealt) == len(set(dealt))
                places = [*piles, table, *hands]
                assert sum(len(p) for p in places) == len(dealt)
                if not out:
                    assert len(dealt) == 52 and not hands[0] and not hands[1]


def test_deal_structure(games):
    for trace in all_traces(games):
        ev = trace["events"]
        deals = [i for i, e in enumerate(ev) if e["type"] == "deal"]
        first_dealer = ev[0]["dealer"]
        for d, i in enumerate(deals):
            dealer = (first_dealer + d) % 2
            assert ev[i] == {"type": "deal", "deal": d, "dealer": dealer}
            assert [ev[i + 1]["seat"], ev[i + 2]["seat"], ev[i + 3]["type"]] == [1 - dealer, dealer, "table"]
            assert ev[i + 4]["type"] == "play" and ev[i + 4]["seat"] == 1 - dealer
        draws = [i for i, e in enumerate(ev) if e["type"] == "hand" and ev[i - 1]["type"] == "play"]
        for i in draws:  # later rounds: two hand events, the leader first, then the leader's play
            assert ev[i + 1]["type"] == "hand" and ev[i + 1]["seat"] != ev[i]["seat"]
            assert ev[i + 2]["type"] == "play" and ev[i + 2]["seat"] == ev[i]["seat"]
        assert ev[-1]["type"] == "end" and sum(e["type"] == "end" for e in ev) == 1


def test_round_leader(games):
    for name, traces in games.items():
        rule = SPEC.resolve(CONFIGS[name][0])["round_leader"]
        for trace in traces:
            dealer, last = None, None
            for i, e in enumerate(trace["events"]):
                if e["type"] == "deal":
                    dealer, last = e["dealer"], None
                elif e["type"] == "play" and e["take"]:
                    last = e["seat"]
                elif e["type"] == "hand" and trace["events"][i - 1]["type"] == "play":
                    want = last if rule == "last_capturer" and last is not None else 1 - dealer
                    assert e["seat"] == want


def test_plays_are_legal_shapes(games):
    for name, traces in games.items():
        rules = SPEC.resolve(CONFIGS[name][0])
        for trace in traces:
            for e in trace["events"]:
                if e["type"] != "play":
                    continue
                if e["kind"] == "trail":
                    assert e["take"] == [] and len(e["cards"]) == 1 and e["points"] == 0 and e["sweep"] is False
                else:
                    assert e["kind"] == "capture" and e["take"] and value(e["cards"]) == value(e["take"])
                    assert rules["max_sum"] == 0 or value(e["cards"]) <= rules["max_sum"]
                    assert rules["max_hand_cards"] == 0 or len(e["cards"]) <= rules["max_hand_cards"]
                    assert e["points"] == (0 if not e["sweep"] else e["points"])


def test_tabla_points_and_double_moves(games):
    doubles = 0
    for name, traces in games.items():
        rules = SPEC.resolve(CONFIGS[name][0])
        for trace in traces:
            ev = trace["events"]
            tabla = [0, 0]
            first_play = False
            for i, e in enumerate(ev):
                if e["type"] == "deal":
                    tabla, first_play = [0, 0], True
                elif e["type"] == "play":
                    if e["sweep"]:
                        want = rules["opening_tabla_points"] if first_play else 1
                        assert e["points"] == want
                        tabla[e["seat"]] += e["points"]
                        nxt = ev[i + 1]
                        double = rules["after_tabla"] == "trail_then_move" and nxt["type"] == "play"
                        if double and nxt["seat"] != e["seat"]:  # the opponent held a card: forced trail first
                            assert nxt["kind"] == "trail"
                            doubles += 1
                    first_play = False
                elif e["type"] == "score":
                    assert [p["tabla"] for p in e["points"]] == tabla
    assert doubles > 50


def test_points_within_bounds_and_totals_consistent(games):
    for name, traces in games.items():
        rules = SPEC.resolve(CONFIGS[name][0])
        for trace in traces:
            ev = trace["events"]
            scores = [e for e in ev if e["type"] == "score"]
            totals = [0, 0]
            for d, s in enumerate(scores):
                assert s["deal"] == d
                for p in s["points"]:
                    assert list(p) == list(CATEGORIES)
                    assert p["cards"] in (0, 3) and p["spades"] in (0, 2) and 0 <= p["aces"] <= 4
                    assert p["little_casino"] in (0, 1) and p["big_casino"] in (0, 2) and p["tabla"] >= 0
                for key in ("cards", "spades", "little_casino", "big_casino"):
                    assert min(p[key] for p in s["points"]) == 0
                assert sum(p["aces"] for p in s["points"]) <= 4
                totals = [t + sum(p.values()) for t, p in zip(totals, s["points"], strict=True)]
                assert s["totals"] == totals
            end = ev[-1]
            assert end["totals"] == totals and totals[end["winner"]] >= rules["target"]
            outs = [e for e in ev if e["type"] == "out"]
            if outs:
                assert rules["out_call"] == "auto" and len(outs) == 1 and outs[0]["seat"] == end["winner"]
                assert ev[-3]["type"] == "out" and ev[-4]["type"] == "play" and ev[-4]["seat"] == end["winner"]
            else:
                assert totals[end["winner"]] > totals[1 - end["winner"]]
                base = [sum(p[k] for p in scores[-1]["points"]) for k in ("cards", "spades", "aces")]
                assert base[1] == 2 and base[2] == 4
            for s in scores[:-1]:  # a completed deal that did not end the game: no unique top at the target
                assert max(s["totals"]) < rules["target"] or s["totals"][0] == s["totals"][1]


def test_out_call_auto_wins_mid_deal_and_end_of_deal_never(games):
    assert any(e["type"] == "out" for t in games["default-random"] for e in t["events"])
    assert not any(e["type"] == "out" for t in games["out_call=end_of_deal"] for e in t["events"])


# --------------------------------------------------------------------------------- trace checking


def test_check_trace_accepts_reference_traces(games):
    for trace in all_traces(games):
        check_trace(trace)
        check_trace(json.loads(json.dumps(trace)))


def test_check_trace_accepts_any_card_order_and_dealing_order():
    trace = play_game(5, 1, None, ["random", "greedy"])
    shuffled = copy.deepcopy(trace)
    for e in shuffled["events"]:
        for key in ("cards", "take"):
            if key in e:
                e[key] = list(reversed(e[key]))
    ev = shuffled["events"]
    ev[1], ev[2], ev[3] = ev[3], ev[2], ev[1]  # table, dealer's hand, non-dealer's hand
    check_trace(shuffled)


def _first(trace, predicate):
    return next(i for i, e in enumerate(trace["events"]) if predicate(e))


def _tamper_take(t):
    i = _first(t, lambda e: e["type"] == "play" and e["kind"] == "capture" and len(e["take"]) > 1)
    t["events"][i]["take"] = t["events"][i]["take"][:-1]
    return i


def _tamper_points(t):
    i = _first(t, lambda e: e["type"] == "play" and e["sweep"])
    t["events"][i]["points"] += 1
    return i


def _tamper_sweep_type(t):
    i = _first(t, lambda e: e["type"] == "play" and e["sweep"])
    t["events"][i]["sweep"] = 1
    return i


def _tamper_trail_instead_of_capture(t):
    i = _first(t, lambda e: e["type"] == "play" and e["kind"] == "capture")
    e = t["events"][i]
    e.update(cards=e["cards"][:1], take=[], kind="trail", points=0, sweep=False)
    return i


def _tamper_totals(t):
    i = _first(t, lambda e: e["type"] == "score")
    t["events"][i]["totals"][0] += 1
    return i


def _tamper_dealer(t):
    i = _first(t, lambda e: e["type"] == "deal" and e["deal"] == 1)
    t["events"][i]["dealer"] = 1 - t["events"][i]["dealer"]
    return i


def _tamper_seat(t):
    i = _first(t, lambda e: e["type"] == "play")
    t["events"][i]["seat"] = 1 - t["events"][i]["seat"]
    return i


def _tamper_duplicate_card(t):
    i = _first(t, lambda e: e["type"] == "table")
    t["events"][i]["cards"][0] = t["events"][i - 1]["cards"][0]
    return i


def _tamper_drop_residue(t):
    i = _first(t, lambda e: e["type"] == "residue")
    del t["events"][i]
    return i


def _tamper_extra_event(t):
    t["events"].append({"type": "end", "winner": 0, "totals": [0, 0]})
    return len(t["events"]) - 1


def _tamper_truncate(t):
    del t["events"][-1]
    return len(t["events"])


TAMPERS = [
    _tamper_take,
    _tamper_points,
    _tamper_sweep_type,
    _tamper_trail_instead_of_capture,
    _tamper_totals,
    _tamper_dealer,
    _tamper_seat,
    _tamper_duplicate_card,
    _tamper_drop_residue,
    _tamper_extra_event,
    _tamper_truncate,
]


@pytest.fixture(scope="module")
def long_trace():
    """A game with several deals, táblas, multi-card takes and a residue, played to the end of the deal."""
    for game in range(200):
        t = play_game(11, game, {"out_call": "end_of_deal"}, ["random", "greedy"])
        ev = t["events"]
        if (
            sum(e["type"] == "deal" for e in ev) >= 2
            and any(e["type"] == "play" and e["sweep"] for e in ev)
            and any(e["type"] == "residue" for e in ev)
        ):
            return t
    raise AssertionError("no suitable game")


@pytest.mark.parametrize("tamper", TAMPERS, ids=lambda f: f.__name__[8:])
def test_check_trace_rejects_tampered_traces(long_trace, tamper):
    check_trace(long_trace)
    bad = copy.deepcopy(long_trace)
    index = tamper(bad)
    with pytest.raises(AssertionError, match=rf"^event {index}:"):
        check_trace(bad)


def test_check_trace_rejects_a_bad_header(long_trace):
    for key, value in (("variant", "scopa"), ("players", 3), ("sides", [[0, 1]]), ("rules", {"max_sum": 99})):
        bad = copy.deepcopy(long_trace)
        bad[key] = value
        with pytest.raises(AssertionError, match="header"):
            check_trace(bad)
    partial = copy.deepcopy(long_trace)
    del partial["rules"]["round_leader"]
    with pytest.raises(AssertionError, match="fully resolved"):
        check_trace(partial)
