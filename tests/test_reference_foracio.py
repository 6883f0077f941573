"""The reference Foracio engine: dealing, legal moves, policies, whole seeded games and the trace check."""

from __future__ import annotations

import copy
import itertools
import json

import pytest
from reference_cases import TAMPERS, assert_random_draws_once, assert_rejects, policy_view, tamper_id

from simcore.cards import cards_of, format_card, parse_card, parse_mask
from simcore.errors import ConfigError
from simcore.reference.foracio import (
    PACK,
    PACK_SET,
    TraceError,
    check_trace,
    choose_greedy,
    legal_moves,
    numeral_sets,
    play_game,
    shuffled_pack,
)
from simcore.reference.rng import Stream
from simcore.variants.foracio import CATEGORIES, SPEC

ELEMENT_CATEGORIES = ("cards", "spade", "two_spades", "jack_spades", "ten_diamonds")

# ------------------------------------------------------------------------------------------ dealing


def test_shuffle_is_a_permutation_of_the_52_cards():
    s = Stream(8, 1, 0)
    for _ in range(20):
        assert sorted(shuffled_pack(s)) == list(PACK)


def test_first_deal_follows_the_deal_stream_and_not_the_policies():
    a = play_game(42, 7, {}, ["greedy"] * 4)["events"]
    b = play_game(42, 7, {"declare": "end_of_deal"}, ["random"] * 4)["events"]
    assert a[:6] == b[:6]
    s = Stream(42, 7, 0)
    dealer = s.bounded(4)
    deck = list(range(52))
    for i in range(51, 0, -1):  # the contract's Fisher-Yates, written out again
        j = s.bounded(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    order = [(dealer + 1 + k) % 4 for k in range(4)]
    expected = [{"type": "deal", "deal": 0, "dealer": dealer}]
    for k, seat in enumerate(order):
        cards = sorted(deck[13 * k : 13 * (k + 1)])
        expected.append({"type": "hand", "seat": seat, "cards": [format_card(c) for c in cards]})
    expected.append({"type": "table", "cards": []})
    assert a[:6] == expected
    # locked: a change here changes every game
    assert a[0] == {"type": "deal", "deal": 0, "dealer": 0}
    assert a[1]["cards"] == ["Ac", "As", "2c", "2s", "3c", "3d", "5h", "6h", "6s", "9c", "9h", "Td", "Qs"]


# -------------------------------------------------------------------------------------- legal moves


def _brute_force_moves(rules, hand, table):
    """The contract's move list written out independently with itertools.combinations."""
    moves = set()
    for card in hand:
        rank, play = card // 4 + 1, 1 << card
        if rank == 1:
            caps = [sum(1 << t for t in table)] if table else []
            if not table:
                if rules["ace_on_empty"] in ("choice", "keep"):
                    caps.append(play)
                if rules["ace_on_empty"] in ("choice", "stay"):
                    moves.add((play, 0))
        elif rank >= 11:
            caps = [1 << t for t in table if t // 4 + 1 == rank]
        else:
            numerals = [t for t in table if 2 <= t // 4 + 1 <= 10]
            equal = [t for t in numerals if t // 4 + 1 == rank]
            if rules["single_card_priority"] and equal:
                caps = [1 << t for t in equal]
            else:
                caps = [
                    sum(1 << t for t in combo)
                    for k in range(1, len(numerals) + 1)
                    for combo in itertools.combinations(numerals, k)
                    if sum(t // 4 + 1 for t in combo) == rank
                ]
        moves |= {(play, c) for c in caps}
        if rules["forced_capture"] == "none" or (not caps and not (rank == 1 and not table)):
            moves.add((play, 0))
    return sorted(moves)


RULE_SETS = [
    SPEC.resolve(),
    SPEC.resolve({"single_card_priority": True}),
    SPEC.resolve({"forced_capture": "none", "ace_on_empty": "keep"}),
    SPEC.resolve({"ace_on_empty": "stay"}),
    SPEC.resolve({"ace_on_empty": "keep"}),
    SPEC.resolve({"forced_capture": "none", "ace_on_empty": "stay", "single_card_priority": True}),
]


def test_legal_moves_match_brute_force():
    s = Stream(21, 0, 0)
    for n in range(300):
        deck = shuffled_pack(s)
        hand = set(deck[: 1 + s.bounded(13)])
        table = set(deck[13 : 13 + (0 if n % 5 == 0 else s.bounded(16))])
        for rules in RULE_SETS:
            moves = legal_moves(rules, hand, table)
            assert moves == _brute_force_moves(rules, hand, table), (rules, hand, table)
            assert moves == sorted(set(moves))
            assert {cards_of(p)[0] for p, _ in moves} == hand  # every hand card has a move


def test_numeral_sets_skip_aces_and_courts():
    table = parse_mask("Ac 2c 3d 5h Jc Kd 8s")
    assert {frozenset(x) for x in numeral_sets(cards_of(table), 10)} == {
        frozenset(cards_of(parse_mask("2c 8s"))),
        frozenset(cards_of(parse_mask("2c 3d 5h"))),
    }
    assert numeral_sets(cards_of(table), 1) == []


# ----------------------------------------------------------------------------------------- policies


def _view(hand, table, rules=None):
    return policy_view(legal_moves, rules or SPEC.resolve(), hand, table)


def test_random_policy_always_draws():
    assert_random_draws_once(_view("9c", "Kh"))  # a single legal move (the trail)


def test_greedy_policy_prefers_keep_and_big_takes_and_draws_nothing():
    s = Stream(5, 5, 2)
    before = s.state
    view = _view("Ah", "")
    assert view.moves[choose_greedy(view, s)] == (1 << parse_card("Ah"), 1 << parse_card("Ah"))
    view = _view("5s 7h", "5c 3d 2h")  # 5s: {5c} or {3d 2h}; 7h: {5c 2h}; two-card takes win, first sorted
    assert view.moves[choose_greedy(view, s)] == (1 << parse_card("5s"), parse_mask("3d 2h"))
    tie = _view("9c 9d", "Kh")  # two trails of weight 0: the first in sorted order
    assert tie.moves[choose_greedy(tie, s)] == (1 << parse_card("9c"), 0)
    assert s.state == before


def test_policy_validation():
    with pytest.raises(ConfigError):
        play_game(1, 0, {}, ["greedy"] * 2)
    with pytest.raises(ConfigError):
        play_game(1, 0, {}, ["greedy", "clever", "random", "random"])
    with pytest.raises(ConfigError):
        play_game(1, 0, {"ace_on_empty": "maybe"}, ["greedy"] * 4)


# -------------------------------------------------------------------------------------- whole games

CONFIGS = [
    {},
    {"forced_capture": "none", "single_card_priority": True},
    {"ace_on_empty": "keep", "court_scopa_value": "ten", "spade_element": "majority"},
    {"ace_on_empty": "stay", "court_scopa_value": "zero", "all_five_bonus": 6, "declare": "end_of_deal"},
    {"declare": "end_of_deal"},
    {"target": 150, "forced_capture": "none", "ace_on_empty": "keep", "spade_element": "majority"},
]
POLICY_SETS = [
    ["random"] * 4,
    ["greedy"] * 4,
    ["greedy", "random", "greedy", "random"],
    ["random", "greedy", "random", "greedy"],
]


def _games():
    """240 seeded games over the configurations and policy mixes above."""
    out = []
    for i in range(240):
        overrides = CONFIGS[i % len(CONFIGS)]
        policies = POLICY_SETS[(i // len(CONFIGS)) % len(POLICY_SETS)]
        out.append(play_game(3000 + i, i, overrides, policies))
    return out


@pytest.fixture(scope="module")
def games():
    return _games()


def _deals(trace):
    """Split the events into deals, each from its deal event up to the event before the next deal."""
    deals = []
    for event in trace["events"]:
        if event["type"] == "deal":
            deals.append([])
        deals[-1].append(event)
    return deals


def _ids(names):
    return {parse_card(n) for n in names}


def test_every_card_ends_in_exactly_one_place(games):
    """Independent audit from the events: 52 cards dealt, plays from hand, takes from the table."""
    for trace in games:
        for deal in _deals(trace):
            hands, table, piles, dealt, plays = {}, set(), [set(), set()], [], 0
            for e in deal:
                if e["type"] == "hand":
                    hands[e["seat"]] = _ids(e["cards"])
                    dealt += e["cards"]
                elif e["type"] == "table":
                    assert e["cards"] == []
                elif e["type"] == "play":
                    plays += 1
                    (card,) = _ids(e["cards"])
                    take = _ids(e["take"])
                    hands[e["seat"]].remove(card)
                    assert take <= table
                    table -= take
                    if e["kind"] == "trail":
                        assert not take
                        table.add(card)
                    else:
                        assert e["kind"] in ("capture", "keep")
                        assert (e["kind"] == "keep") == (not take)
                        piles[e["seat"] % 2] |= take | {card}
                elif e["type"] == "residue":
                    assert _ids(e["cards"]) == table
                    piles[e["seat"] % 2] |= table
                    table = set()
            assert sorted(_ids(dealt)) == list(PACK) and len(dealt) == 52
            places = [*piles, table, *hands.values()]
            assert sum(len(p) for p in places) == 52 and set().union(*places) == PACK_SET
            if not any(e["type"] == "out" for e in deal):
                assert plays == 52 and all(not h for h in hands.values())
            else:
                assert not any(e["type"] == "residue" for e in deal)


def _court_or_numeral_scopa(rules, rank):
    return {"rank": rank, "ten": 10, "zero": 0}[rules["court_scopa_value"]] if rank >= 11 else rank


def _expected_play_points(rules, e, table_before, last_play):
    """(same-suit bonus, scopa points, sweep) of a play, recomputed from the event and the table before it."""
    if e["kind"] != "capture":
        return 0, 0, False
    (card,) = _ids(e["cards"])
    take = _ids(e["take"])
    rank, suit = card // 4 + 1, card % 4
    bonus = rank if 2 <= rank <= 10 and len(take) >= 2 and all(t % 4 == suit for t in take) else 0
    sweep = rank != 1 and take == table_before and not last_play
    return bonus, _court_or_numeral_scopa(rules, rank) if sweep else 0, sweep


def test_points_within_bounds_and_totals_consistent(games):
    for trace in games:
        rules, events = trace["rules"], trace["events"]
        target = rules["target"]
        totals, scopa, same_suit = [0, 0], [0, 0], [0, 0]
        table, plays, last_side = set(), 0, None
        for i, e in enumerate(events):
            if e["type"] == "deal":
                scopa, same_suit, table, plays, last_side = [0, 0], [0, 0], set(), 0, None
            elif e["type"] == "play":
                plays += 1
                bonus, scopa_pts, sweep = _expected_play_points(rules, e, set(table), plays == 52)
                assert (e["points"], e["sweep"]) == (bonus + scopa_pts, sweep), (i, e)
                assert 0 <= e["points"] <= 20
                side = e["seat"] % 2
                same_suit[side] += bonus
                scopa[side] += scopa_pts
                table -= _ids(e["take"])
                if e["kind"] == "trail":
                    table |= _ids(e["cards"])
                else:
                    last_side = side
                crossed = rules["declare"] == "immediate" and totals[side] + scopa[side] + same_suit[side] >= target
                assert (events[i + 1]["type"] == "out") == crossed, i
            elif e["type"] == "score":
                interrupted = events[i - 1]["type"] == "out"
                for side, p in enumerate(e["points"]):
                    assert list(p) == list(CATEGORIES)
                    assert p["cards"] in (0, 2)
                    assert all(p[c] in (0, 1) for c in ELEMENT_CATEGORIES[1:])
                    all_five = all(p[c] for c in ELEMENT_CATEGORIES)
                    assert p["all_five"] == (rules["all_five_bonus"] - 6 if all_five else 0)
                    assert p["napoletana"] in {0, *range(3, 53)}
                    assert (p["scopa"], p["same_suit"]) == (scopa[side], same_suit[side])
                    if interrupted:
                        assert all(p[c] == 0 for c in CATEGORIES if c not in ("scopa", "same_suit"))
                    totals[side] += sum(p.values())
                for cat in ELEMENT_CATEGORIES:
                    assert sum(1 for p in e["points"] if p[cat]) <= 1
                assert sum(p["napoletana"] for p in e["points"]) <= 52
                assert e["totals"] == totals
                over = [s for s in (0, 1) if totals[s] >= target]
                if interrupted:
                    assert events[i + 1] == {"type": "end", "winner": events[i - 2]["seat"] % 2, "totals": totals}
                elif not over:
                    assert events[i + 1]["type"] == "deal"
                elif len(over) == 1:
                    assert events[i + 1] == {"type": "end", "winner": over[0], "totals": totals}
                else:
                    assert last_side is not None
                    assert events[i + 1] == {"type": "end", "winner": last_side, "totals": totals}
        assert events[-1]["type"] == "end"
        assert events[-1]["totals"] == totals and totals[events[-1]["winner"]] >= target


def test_scopa_column_matches_the_plays(games):
    for trace in games:
        per_deal = [0, 0]
        rules = trace["rules"]
        for e in trace["events"]:
            if e["type"] == "deal":
                per_deal = [0, 0]
            elif e["type"] == "play" and e["sweep"]:
                (card,) = _ids(e["cards"])
                rank = card // 4 + 1
                per_deal[e["seat"] % 2] += _court_or_numeral_scopa(rules, rank)
            elif e["type"] == "score":
                assert [p["scopa"] for p in e["points"]] == per_deal


def test_event_shapes_and_header(games):
    for trace in games:
        assert trace["format"] == "scopasim-trace/1" and trace["variant"] == "foracio"
        assert trace["rules"] == SPEC.resolve(trace["rules"])
        assert trace["players"] == 4 and trace["sides"] == [[0, 2], [1, 3]]
        assert json.loads(json.dumps(trace)) == trace
        for e in trace["events"]:
            for key in ("cards", "take"):
                if key in e:
                    assert e[key] == sorted(e[key], key=parse_card)
            if e["type"] == "hand":
                assert len(e["cards"]) == 13
            if e["type"] == "play":
                assert isinstance(e["sweep"], bool) and len(e["cards"]) == 1


def test_dealer_rotation_and_playing_order(games):
    for trace in games:
        deals = [e for e in trace["events"] if e["type"] == "deal"]
        first = deals[0]["dealer"]
        assert [e["deal"] for e in deals] == list(range(len(deals)))
        for deal in _deals(trace):
            dealer = deal[0]["dealer"]
            assert deal[0]["dealer"] == (first + deal[0]["deal"]) % 4
            assert [e["seat"] for e in deal if e["type"] == "hand"] == [(dealer + 1 + k) % 4 for k in range(4)]
            seats = [e["seat"] for e in deal if e["type"] == "play"]
            assert seats == [(dealer + 1 + k) % 4 for k in range(len(seats))]


def test_options_show_in_the_games(games):
    seen = set()
    for trace in games:
        rules = trace["rules"]
        table = set()
        for e in trace["events"]:
            if e["type"] == "deal":
                table = set()
            elif e["type"] == "play":
                ace = e["cards"][0][0] == "A"
                if e["kind"] == "keep":
                    assert rules["ace_on_empty"] in ("choice", "keep") and not table and ace
                    seen.add("keep")
                if ace and e["kind"] == "trail":
                    if table:
                        assert rules["forced_capture"] == "none"
                        seen.add("ace trailed on a full table")
                    else:
                        assert rules["ace_on_empty"] != "keep" or rules["forced_capture"] == "none"
                        seen.add("ace stays")
                if e["sweep"] and e["cards"][0][0] in "JQK":
                    seen.add(f"court scopa {rules['court_scopa_value']}")
                if e["points"] and not e["sweep"]:
                    seen.add("same-suit bonus")
                table -= _ids(e["take"])
                if e["kind"] == "trail":
                    table |= _ids(e["cards"])
            elif e["type"] == "out":
                assert rules["declare"] == "immediate"
                seen.add("out")
    wanted = {"keep", "ace stays", "ace trailed on a full table", "same-suit bonus", "out"}
    wanted |= {f"court scopa {v}" for v in ("rank", "ten", "zero")}
    assert wanted <= seen


def test_both_sides_over_the_target_the_last_capturer_wins(games):
    lower_total_wins = 0
    for trace in games:
        events = trace["events"]
        if events[-2]["type"] != "score" or min(events[-1]["totals"]) < trace["rules"]["target"]:
            continue
        last = next(e for e in reversed(events) if e["type"] == "play" and e["kind"] != "trail")
        assert events[-1]["winner"] == last["seat"] % 2
        totals = events[-1]["totals"]
        lower_total_wins += totals[events[-1]["winner"]] < max(totals)
    assert lower_total_wins >= 1


def test_same_seed_same_game():
    a = play_game(5, 3, {}, ["random"] * 4)
    assert a == play_game(5, 3, {}, ["random"] * 4)
    assert a != play_game(5, 4, {}, ["random"] * 4)


# ------------------------------------------------------------------------------------- trace check


def test_check_trace_accepts_reference_traces(games):
    for trace in games:
        check_trace(json.loads(json.dumps(trace)))


def _first(trace, predicate):
    return next(i for i, e in enumerate(trace["events"]) if predicate(e))


def _game_with(games, predicate):
    return copy.deepcopy(next(t for t in games if any(predicate(e) for e in t["events"])))


def _rejects(trace, index, match=""):
    with pytest.raises(AssertionError, match=f"event {index}: {match}"):
        check_trace(trace)


def test_check_trace_rejects_a_changed_take(games):
    trace = _game_with(games, lambda e: e["type"] == "play" and e["kind"] == "capture")
    i = _first(trace, lambda e: e["type"] == "play" and e["kind"] == "capture")
    trace["events"][i]["take"] = trace["events"][i]["take"][1:]
    _rejects(trace, i)


def test_check_trace_rejects_an_illegal_trail(games):
    trace = copy.deepcopy(games[0])  # forced_capture "card"
    i = _first(trace, lambda e: e["type"] == "play" and e["kind"] == "capture" and e["cards"][0][0] != "A")
    trace["events"][i].update(take=[], kind="trail", points=0, sweep=False)
    _rejects(trace, i, "illegal move")


def test_check_trace_rejects_wrong_points_and_sweep(games):
    trace = _game_with(games, lambda e: e["type"] == "play" and e["sweep"])
    i = _first(trace, lambda e: e["type"] == "play" and e["sweep"])
    trace["events"][i]["sweep"] = False
    _rejects(trace, i, "sweep")
    trace = copy.deepcopy(games[0])
    i = _first(trace, lambda e: e["type"] == "play")
    trace["events"][i]["points"] += 1
    _rejects(trace, i, "points")
    trace = copy.deepcopy(games[0])
    trace["events"][i]["sweep"] = 0  # not a bool
    _rejects(trace, i, "sweep")


def test_check_trace_rejects_a_keep_with_a_take(games):
    trace = _game_with(games, lambda e: e["type"] == "play" and e["kind"] == "keep")
    i = _first(trace, lambda e: e["type"] == "play" and e["kind"] == "keep")
    trace["events"][i]["kind"] = "capture"
    _rejects(trace, i)


def test_check_trace_rejects_changed_scores_totals_and_winner(games):
    trace = copy.deepcopy(games[0])
    i = _first(trace, lambda e: e["type"] == "score")
    trace["events"][i]["points"][0]["napoletana"] += 3
    _rejects(trace, i, "points")
    trace = copy.deepcopy(games[0])
    trace["events"][i]["totals"][1] += 1
    _rejects(trace, i, "totals")
    trace = copy.deepcopy(games[0])
    trace["events"][-1]["winner"] = 1 - trace["events"][-1]["winner"]
    _rejects(trace, len(trace["events"]) - 1, "the winner")


def test_check_trace_rejects_missing_residue_and_wrong_seat(games):
    trace = _game_with(games, lambda e: e["type"] == "residue")
    i = _first(trace, lambda e: e["type"] == "residue")
    del trace["events"][i]
    _rejects(trace, i, "expected a 'residue' event")
    trace = copy.deepcopy(games[0])
    i = _first(trace, lambda e: e["type"] == "play")
    trace["events"][i]["seat"] = (trace["events"][i]["seat"] + 1) % 4
    _rejects(trace, i, "seat")


def test_check_trace_rejects_a_missing_or_invented_out(games):
    trace = _game_with(games, lambda e: e["type"] == "out")
    i = _first(trace, lambda e: e["type"] == "out")
    del trace["events"][i]
    _rejects(trace, i, "expected a 'out' event")
    trace = copy.deepcopy(games[0])
    i = _first(trace, lambda e: e["type"] == "play")
    trace["events"].insert(i + 1, {"type": "out", "seat": trace["events"][i]["seat"]})
    _rejects(trace, i + 1, "an 'out' event without")


def test_check_trace_rejects_a_duplicated_card_and_table_cards(games):
    trace = copy.deepcopy(games[0])
    trace["events"][2]["cards"][0] = trace["events"][1]["cards"][0]
    _rejects(trace, 1, "the same card is dealt twice")
    trace = copy.deepcopy(games[0])
    trace["events"][5]["cards"] = ["Kc"]
    _rejects(trace, 5, "the table gets 0 cards")  # F2


def test_check_trace_accepts_any_order_within_the_dealing_step(games):
    trace = copy.deepcopy(games[0])
    events = trace["events"]
    events[1], events[5] = events[5], events[1]
    check_trace(trace)


def test_check_trace_rejects_a_bad_header(games):
    for key, value in (("rules", {"players": 4}), ("variant", "scopa"), ("sides", [[0, 1], [2, 3]])):
        trace = copy.deepcopy(games[0])
        trace[key] = value
        with pytest.raises(TraceError, match="header"):
            check_trace(trace)


@pytest.mark.parametrize("tamper", TAMPERS, ids=tamper_id)
def test_check_trace_rejects_tampered_traces(games, tamper):
    assert_rejects(check_trace, TraceError, games, tamper)
