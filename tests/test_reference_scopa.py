"""The reference Scopa engine: random streams, dealing, legal moves, whole seeded games, the trace replay."""

from __future__ import annotations

import itertools
import json
from collections import Counter

import pytest
from reference_cases import (
    TAMPERS,
    assert_random_draws_once,
    assert_rejects,
    policy_view,
    shuffled_dealing_step,
    tamper_id,
)

from simcore.cards import cards_of, format_card, parse_card, parse_mask
from simcore.errors import ConfigError
from simcore.reference.replay import ReplayError, replay_trace
from simcore.reference.rng import GOLDEN, MASK64, Stream, mix64
from simcore.reference.scopa import (
    PACK,
    PACK_SET,
    PolicyView,
    choose_greedy,
    greedy_score,
    legal_moves,
    play_game,
    shuffled_pack,
    subsets_with_sum,
    value_of,
)
from simcore.variants.scopa import CATEGORIES, SPEC

# ---------------------------------------------------------------------------------------------- rng


def test_rng_locked_values():
    """First three next64 outputs of seed 42, game 7, stream 0 (the kernels must give the same numbers)."""
    s = Stream(42, 7, 0)
    assert [s.next64() for _ in range(3)] == [2909263475701129551, 15253210022556833547, 5845363872787089772]


def test_rng_locked_bounded_values():
    s = Stream(42, 7, 0)
    assert [s.bounded(n) for n in (2, 3, 4, 5, 40, 1000, 2**31 - 1)] == [0, 2, 1, 2, 16, 589, 277688681]


def test_mix64_is_splitmix64():
    """SplitMix64 from state 0 gives the published outputs e220a8397b1dcdaf, 6e789e6aa1b965f4, 06c45d...."""
    state, out = 0, []
    for _ in range(3):
        state = (state + GOLDEN) & MASK64
        out.append(mix64(state))
    assert out == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_streams_differ_and_repeat():
    first = [Stream(1, g, k).next64() for g in range(3) for k in range(5)]
    assert len(set(first)) == len(first)
    assert Stream(1, 2, 3).next64() == Stream(1, 2, 3).next64()
    assert Stream(1, 0, 0).next64() != Stream(2, 0, 0).next64()


class _ScriptedStream(Stream):
    """A stream whose 32-bit draws are given, to reach Lemire's rejection branch."""

    def __init__(self, draws: list[int]) -> None:
        super().__init__(0, 0, 0)
        self.draws = list(draws)

    def draw32(self) -> int:
        return self.draws.pop(0)


def test_bounded_rejection_branch():
    # n = 3: threshold = (2**32 - 3) % 3 = 1, so only a draw with (x * 3) mod 2**32 == 0 (x = 0) is rejected
    s = _ScriptedStream([0, 5])
    assert s.bounded(3) == 0
    assert s.draws == []
    assert _ScriptedStream([0x80000000]).bounded(3) == 1
    assert _ScriptedStream([0xFFFFFFFF]).bounded(3) == 2


def test_bounded_range_and_errors():
    s = Stream(3, 4, 0)
    assert {s.bounded(5) for _ in range(500)} == set(range(5))
    assert all(s.bounded(1) == 0 for _ in range(10))
    for bad in (0, -1, 2**31):
        with pytest.raises(ValueError):
            s.bounded(bad)


# ------------------------------------------------------------------------------------------ dealing


def test_shuffle_is_a_permutation_and_locked():
    s = Stream(42, 7, 0)
    assert s.bounded(2) == 0  # the first dealer of a 2-player game
    deck = shuffled_pack(s)
    assert sorted(deck) == list(PACK)
    assert " ".join(format_card(c) for c in deck[:11]) == "2d 7s Ad 5s 6h As Jc 7d Ah 2h 5h"


def test_shuffle_positions_roughly_uniform():
    counts = Counter()
    s = Stream(9, 0, 0)
    for _ in range(4000):
        counts[shuffled_pack(s)[0]] += 1
    assert set(counts) == PACK_SET
    assert max(counts.values()) < 160 and min(counts.values()) > 45  # mean 100


def test_first_deal_does_not_depend_on_policies():
    a = play_game(42, 7, {}, ["greedy", "random"])["events"]
    b = play_game(42, 7, {}, ["random", "random"])["events"]
    assert a[:4] == b[:4]
    assert a[:4] == [
        {"type": "deal", "deal": 0, "dealer": 0},
        {"type": "hand", "seat": 1, "cards": ["Ad", "2d", "7s"]},
        {"type": "hand", "seat": 0, "cards": ["As", "5s", "6h"]},
        {"type": "table", "cards": ["Ah", "2h", "7d", "Jc"]},
    ]


# -------------------------------------------------------------------------------------- legal moves


def _subsets_by_combinations(table: list[int], total: int) -> set[frozenset[int]]:
    return {
        frozenset(combo)
        for k in range(1, len(table) + 1)
        for combo in itertools.combinations(table, k)
        if sum(value_of(c) for c in combo) == total
    }


def test_subset_search_matches_itertools_combinations():
    s = Stream(11, 0, 0)
    for _ in range(150):
        deck = shuffled_pack(s)
        table = deck[: 1 + s.bounded(12)]
        for total in range(1, 11):
            found = subsets_with_sum(table, total)
            assert len(found) == len(set(found))
            assert set(found) == _subsets_by_combinations(table, total)


def test_legal_moves_sorted_unique_and_from_hand():
    rules_list = [
        SPEC.resolve(),
        SPEC.resolve({"single_card_priority": False}),
        SPEC.resolve({"forced_capture": "none"}),
    ]
    s = Stream(12, 0, 0)
    for _ in range(200):
        deck = shuffled_pack(s)
        hand, table = set(deck[:3]), set(deck[3 : 3 + s.bounded(10)])
        for rules in rules_list:
            moves = legal_moves(rules, hand, table)
            assert moves == sorted(set(moves))
            assert {card for card, _ in moves} == hand  # every card has a move under Scopa's options
            for card, take in moves:
                taken = cards_of(take)
                assert set(taken) <= table
                assert take == 0 or sum(value_of(c) for c in taken) == value_of(card)


def test_legal_moves_accepts_masks_and_sets():
    assert legal_moves(SPEC.resolve(), parse_mask("7h"), parse_mask("7d 2c 5s")) == legal_moves(
        SPEC.resolve(), {parse_card("7h")}, [parse_card("7d"), parse_card("2c"), parse_card("5s")]
    )


# ----------------------------------------------------------------------------------------- policies


def _view(hand: str, table: str, rules=None) -> PolicyView:
    return policy_view(legal_moves, rules or SPEC.resolve(), hand, table)


def test_random_policy_always_draws():
    assert_random_draws_once(_view("5s", "Kc"))  # a single legal move (the trail)


def test_greedy_policy_scores_and_ties():
    napola = False
    assert greedy_score((parse_card("7s"), parse_mask("4c 3d")), napola) == 2000 + 0 + 2 + 3
    assert greedy_score((parse_card("Kc"), 0), napola) == 0
    assert greedy_score((parse_card("7d"), 0), napola) == -11
    view = _view("7h 7s", "7d 7c")  # 7h or 7s take 7d or 7c; 7d is worth most; first such move is (7h, 7d)
    s = Stream(5, 5, 1)
    before = s.state
    assert view.moves[choose_greedy(view, s)] == (parse_card("7h"), parse_mask("7d"))
    assert s.state == before
    tie = _view("Kc Ks", "5h Qh")  # two trails of equal weight 0: the first in sorted order
    assert tie.moves[choose_greedy(tie, s)] == (parse_card("Kc"), 0)


def test_policy_validation():
    with pytest.raises(ConfigError):
        play_game(1, 0, {}, ["greedy"])
    with pytest.raises(ConfigError):
        play_game(1, 0, {}, ["greedy", "clever"])
    with pytest.raises(ConfigError):
        play_game(1, 0, {"players": 5}, ["greedy"] * 5)


# -------------------------------------------------------------------------------------- whole games

CONFIGS = [
    (2, {}),
    (2, {"forced_capture": "none", "single_card_priority": False, "last_play_scopa": True}),
    (2, {"redeal_kings": 3, "napola": True, "primiera": "suits", "target": 21}),
    (3, {}),
    (3, {"napola": True, "forced_capture": "none"}),
    (4, {}),
    (4, {"single_card_priority": False, "redeal_kings": 3, "primiera": "suits", "napola": True}),
]
POLICY_SETS = [("random", "random", "random", "random"), ("greedy", "random", "greedy", "random")]


def _games():
    """300 seeded games over the configurations and policy mixes above."""
    out = []
    for i in range(300):
        players, overrides = CONFIGS[i % len(CONFIGS)]
        policies = list(POLICY_SETS[(i // len(CONFIGS)) % 2][:players])
        out.append(play_game(1000 + i, i, {**overrides, "players": players}, policies))
    return out


@pytest.fixture(scope="module")
def games():
    return _games()


def _deals(trace):
    """Split events into deals: lists of events from a (non-void) deal event to its score event."""
    deals, current = [], []
    for event in trace["events"]:
        current.append(event)
        if event["type"] == "redeal":
            current = []
        elif event["type"] == "score":
            deals.append(current)
            current = []
    return deals


def _side(seat, players):
    return seat % 2 if players == 4 else seat


def test_every_card_ends_in_exactly_one_place(games):
    """Independent audit from the events: cards dealt once, plays from hand, takes from the table."""
    for trace in games:
        players = trace["players"]
        n_sides = len(trace["sides"])
        for deal in _deals(trace):
            hands = {s: set() for s in range(players)}
            table, dealt, piles = set(), [], [set() for _ in range(n_sides)]
            plays = 0
            for e in deal:
                cards = {parse_card(c) for c in e.get("cards", [])}
                if e["type"] == "hand":
                    hands[e["seat"]] |= cards
                    dealt += sorted(cards)
                elif e["type"] == "table":
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
                        piles[_side(e["seat"], players)] |= take | {card}
                    else:
                        assert e["kind"] == "trail" and not take
                        table.add(card)
                elif e["type"] == "residue":
                    assert cards == table
                    piles[_side(e["seat"], players)] |= table
                    table = set()
            assert plays == 36
            assert sorted(dealt) == list(PACK)
            assert all(not h for h in hands.values())
            places = [*piles, table]
            assert sum(len(p) for p in places) == 40 and set().union(*places) == PACK_SET


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
                assert e["points"] == (1 if e["sweep"] else 0)
                assert not e["sweep"] or e["kind"] == "capture"
                sweeps[_side(e["seat"], players)] += e["points"]
            elif e["type"] == "score":
                assert len(e["points"]) == n_sides
                for side, p in enumerate(e["points"]):
                    assert list(p) == list(CATEGORIES)
                    assert sum(p[c] for c in ("cards", "coins", "settebello", "primiera")) <= 4
                    assert p["scopa"] == sweeps[side]
                    assert p["napola"] in ((0, 3, 4, 5, 6, 7, 8, 9, 10) if rules["napola"] else (0,))
                    totals[side] += sum(p.values())
                for cat in ("cards", "coins", "settebello", "primiera"):
                    assert sum(p[cat] for p in e["points"]) <= 1
                assert sum(p["napola"] for p in e["points"]) <= 10
                assert e["totals"] == totals
                sweeps = [0] * n_sides
                top = max(totals)
                game_over = top >= rules["target"] and totals.count(top) == 1
                assert game_over == (e is scores[-1])
        end = events[-1]
        assert end["type"] == "end"
        assert end["totals"] == totals
        assert totals[end["winner"]] == max(totals) >= rules["target"]


def test_event_shapes(games):
    for trace in games:
        assert trace["format"] == "scopasim-trace/1" and trace["variant"] == "scopa"
        assert trace["rules"] == SPEC.resolve(trace["rules"])
        assert json.loads(json.dumps(trace)) == trace
        for e in trace["events"]:
            for key in ("cards", "take"):
                if key in e:
                    assert e[key] == sorted(e[key], key=parse_card)
            if e["type"] == "hand":
                assert len(e["cards"]) == 3
            if e["type"] == "table":
                assert len(e["cards"]) == 4


def test_dealer_rotation_and_no_redeal_without_the_rule(games):
    for trace in games:
        deals = [e for e in trace["events"] if e["type"] == "deal"]
        first = deals[0]["dealer"]
        for e in deals:
            assert e["dealer"] == (first + e["deal"]) % trace["players"]
        if not trace["rules"]["redeal_kings"]:
            assert not any(e["type"] == "redeal" for e in trace["events"])


def test_redeal_kings_trace():
    """A game whose first deal puts three kings on the table: redeal event, same deal number and dealer."""
    for game in range(5000):  # find it from the deal stream alone (2 players: table = deck[6:10])
        s = Stream(77, game, 0)
        s.bounded(2)
        if sum(1 for c in shuffled_pack(s)[6:10] if c // 4 + 1 == 13) >= 3:
            break
    else:
        pytest.fail("no three-kings first deal in 5000 games")
    trace = play_game(77, game, {"redeal_kings": 3}, ["greedy", "greedy"])
    events = trace["events"]
    assert events[4] == {"type": "redeal", "reason": "kings"}
    kings = [c for c in events[3]["cards"] if c[0] == "K"]
    assert len(kings) >= 3
    assert events[5]["type"] == "deal" and events[5]["deal"] == 0 and events[5]["dealer"] == events[0]["dealer"]
    replay_trace(trace)
    # the same deal without the rule is played, not voided
    plain = play_game(77, game, {}, ["greedy", "greedy"])
    assert plain["events"][:4] == events[:4] and plain["events"][4]["type"] == "play"


def test_same_seed_same_game():
    assert play_game(5, 3, {"players": 4}, ["random"] * 4) == play_game(5, 3, {"players": 4}, ["random"] * 4)
    assert play_game(5, 3, {}, ["random"] * 2) != play_game(5, 4, {}, ["random"] * 2)


# ------------------------------------------------------------------------------------------- replay


def test_replay_accepts_reference_traces(games):
    for trace in games:
        replay_trace(json.loads(json.dumps(trace)))


@pytest.mark.parametrize("tamper", TAMPERS, ids=tamper_id)
def test_replay_rejects_tampered_traces(games, tamper):
    assert_rejects(replay_trace, ReplayError, games, tamper)


def test_replay_accepts_any_order_within_a_dealing_step(games):
    replay_trace(shuffled_dealing_step(games))
