"""RULES.md Part B options of Foracio (3.2), Scopa (4.2) and Skopa (5.3) as rule keys: what each one changes,
on the worked examples where RULES.md has one, in the reference engine and in the kernels.

The differential tests (``test_differential_variants.py``, ``test_differential_scopa.py``) play whole games
under these options in both engines; here each option is shown on its own, against the default.
"""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from cli.app import app
from simcore import api, engine
from simcore.cards import cards_of, parse_card, parse_mask
from simcore.config import RunConfig
from simcore.errors import ConfigError
from simcore.kernels.scoring import countout_winner, deal_winner
from simcore.reference import foracio as rf
from simcore.reference import scopa as rs
from simcore.reference import skopa as rk
from simcore.reference.replay import replay_trace
from simcore.variants import get_variant

FORACIO, SCOPA, SKOPA = get_variant("foracio"), get_variant("scopa"), get_variant("skopa")


def bit(name: str) -> int:
    return 1 << parse_card(name)


def cmask(text: str) -> int:
    return parse_mask(text)


def pile(text: str) -> set[int]:
    return set(cards_of(parse_mask(text)))


def both_moves(spec, options: dict, hand: str, table: str) -> list[tuple[int, int]]:
    """The legal moves of the reference, checked equal to the kernels' under the same rules."""
    resolved = spec.resolve(options)
    ref = {"foracio": rf, "skopa": rk}[spec.name]
    expected = ref.legal_moves(resolved, cmask(hand), cmask(table))
    assert engine.legal_moves(spec.compile(resolved), cmask(hand), cmask(table)) == expected
    return expected


def foracio_play(options: dict, hands: list[str], table: str, seat: int, card: str, take: str):
    """Play one Foracio move on a position (it must be legal); returns the result and the deal state."""
    rules = FORACIO.resolve(options)
    state = rf.DealState(0, [pile(h) for h in hands], table=pile(table))
    move = (bit(card), cmask(take))
    assert move in rf.legal_moves(rules, state.hands[seat], state.table)
    return rf.apply_play(rules, state, seat, move), state


# ------------------------------------------------------------------------------------------- Foracio


@pytest.mark.parametrize(
    ("options", "points"),
    [({}, 12), ({"court_values": "10/10/10"}, 10), ({"court_values": "10/10/10", "court_scopa_value": "zero"}, 0)],
)
def test_f1_court_values_set_a_court_scopa(options, points):
    """F-EX3: table C♦ alone, C♣ takes it: scopa 12; with court_values=10/10/10 it is 10 (F1, F8)."""
    result, _ = foracio_play(options, ["Qc 5h", "", "", ""], "Qd", 0, "Qc", "Qd")
    assert result == rf.PlayResult("capture", points, True)
    rules = FORACIO.compile(FORACIO.resolve(options))
    assert (rules.sweep_value_by_rank >> 44) & 15 == points  # the kernels' scopa value of a queen (rank 12)


def test_f2_dealer_rotation_fixed_keeps_the_dealer():
    """F2: deal d is dealt by (first + d) % 4; with dealer_rotation=fixed by the first dealer every time."""
    dealers = {}
    for rotation in ("counter_clockwise", "fixed"):
        config = RunConfig.create("foracio", policies=["random"], rules={"dealer_rotation": rotation}, seed=5)
        traces = api.trace(config, range(20))
        dealers[rotation] = [[e["dealer"] for e in t["events"] if e["type"] == "deal"] for t in traces]
        for t in traces:
            rf.check_trace(t)
    assert any(len(d) > 1 for d in dealers["fixed"])
    assert all(len(set(d)) == 1 for d in dealers["fixed"])
    assert all(d == [(d[0] + k) % 4 for k in range(len(d))] for d in dealers["counter_clockwise"])


def test_f4_court_takes_all_same_rank():
    """F4: a court takes one table card of its rank; with court_takes=all_same_rank all of them, one move."""
    assert both_moves(FORACIO, {}, "Ks", "Kc Kd 5h") == [(bit("Ks"), bit("Kc")), (bit("Ks"), bit("Kd"))]
    assert both_moves(FORACIO, {"court_takes": "all_same_rank"}, "Ks", "Kc Kd 5h") == [(bit("Ks"), cmask("Kc Kd"))]
    result, _ = foracio_play({"court_takes": "all_same_rank"}, ["Ks 2c", "", "", ""], "Kc Kd", 0, "Ks", "Kc Kd")
    assert result == rf.PlayResult("capture", 13, True)  # it empties the table: a scopa of 13


def test_f5_table_ace_in_sums():
    """F-EX4: a left ace blocks every numeral's sweep (5♣ cannot take A♥; A♥ 5♣ cannot be swept); with
    table_ace_in_sums it counts 1: 6 takes A♥ 5♣, a scopa, and A♥ 5♥ taken by 6♥ is a same-suit capture."""
    assert both_moves(FORACIO, {}, "6c", "Ah 5c") == [(bit("6c"), 0)]
    on = {"table_ace_in_sums": True}
    assert both_moves(FORACIO, on, "6c", "Ah 5c") == [(bit("6c"), cmask("Ah 5c"))]
    assert both_moves(FORACIO, on, "2c", "Ah") == [(bit("2c"), 0)]  # no numeral is worth 1
    assert both_moves(FORACIO, on, "Ad", "Ah 5c") == [(bit("Ad"), cmask("Ah 5c"))]  # a played ace takes all
    result, _ = foracio_play(on, ["6c 2d", "", "", ""], "Ah 5c", 0, "6c", "Ah 5c")
    assert result == rf.PlayResult("capture", 6, True)
    result, state = foracio_play(on, ["6h 2d", "", "", ""], "Ah 5h", 0, "6h", "Ah 5h")
    assert result == rf.PlayResult("capture", 6 + 6, True) and state.same_suit[0] == 6


def test_f5_ace_sweep_is_scopa():
    """F-EX1: A♦ takes all four cards, no scopa; with ace_sweep_is_scopa a scopa of 1. A keep takes no table
    card (no scopa), and the 52nd play is never a scopa."""
    table = "5c 3d 2h Ks"
    assert foracio_play({}, ["Ad 4c", "", "", ""], table, 0, "Ad", table)[0] == rf.PlayResult("capture", 0, False)
    on = {"ace_sweep_is_scopa": True}
    assert foracio_play(on, ["Ad 4c", "", "", ""], table, 0, "Ad", table)[0] == rf.PlayResult("capture", 1, True)
    assert foracio_play(on, ["Ad", "", "", ""], table, 0, "Ad", table)[0] == rf.PlayResult("capture", 0, False)
    rules = FORACIO.resolve(on)
    state = rf.DealState(0, [pile("Ad 4c"), set(), set(), set()])
    assert rf.apply_play(rules, state, 0, (bit("Ad"), bit("Ad"))) == rf.PlayResult("keep", 0, False)
    compiled = FORACIO.compile(rules)
    assert compiled.ace_sweeps == 2 and compiled.sweep_value_by_rank & 15 == 1


@pytest.mark.parametrize(("total", "scopa"), [("2v", 9), ("3v", 18)])
def test_f8_same_suit_scopa_total(total, scopa):
    """F-EX3: table 6♠ 3♠, 9♠ takes both: scopa 9 + same-suit 9 = 18 (2v); with 3v the scopa is doubled, 27.
    As the 52nd card it scores the bonus only, 9, either way."""
    options = {"same_suit_scopa_total": total}
    result, state = foracio_play(options, ["9s 4c", "", "", ""], "6s 3s", 0, "9s", "6s 3s")
    assert result == rf.PlayResult("capture", scopa + 9, True)
    assert (state.scopa[0], state.same_suit[0]) == (scopa, 9)
    last, _ = foracio_play(options, ["9s", "", "", ""], "6s 3s", 0, "9s", "6s 3s")
    assert last == rf.PlayResult("capture", 9, False)
    plain, _ = foracio_play(options, ["9h 4c", "", "", ""], "6s 3s", 0, "9h", "6s 3s")
    assert plain == rf.PlayResult("capture", 9, True)  # not a same-suit capture: never doubled


def test_f13_declare_auto_on_secured_points():
    """F13: NS has 69 banked and holds the 7♠ and 2♠ (2 points no later play can take away). A capture worth
    nothing at once wins under auto_on_secured_points (69 + 2 = 71), not under immediate; the interrupted deal
    then scores what the piles hold."""
    for declare, wins in (("immediate", False), ("auto_on_secured_points", True)):
        rules = FORACIO.resolve({"declare": declare})
        state = rf.DealState(0, [pile("5h 8c"), pile("Kc"), pile("3d"), pile("4h")], table=pile("5d 2c"))
        state.piles[0] |= pile("7s 2s")
        rf.apply_play(rules, state, 0, (bit("5h"), bit("5d")))
        assert rf.wins_mid_deal(rules, [69, 40], state, 0) is wins
        assert not rf.wins_mid_deal(rules, [68, 40], state, 0)
    points = rf.interrupted_deal_points(state, rules)
    assert (points[0]["spade"], points[0]["two_spades"], rf.deal_total(points[0])) == (1, 1, 2)
    assert rf.pile_points(rules, pile("Ac 2c 3c 4c 7s")) == 4 + 1  # a napoletana so far is secured too


def test_f13_secured_mid_deal_wins_in_the_kernels():
    """The kernels agree game by game with the reference (differential tests); here: the option wins games in
    the middle of a deal that immediate declaring plays out."""
    mid = {}
    for declare in ("immediate", "auto_on_secured_points"):
        config = RunConfig.create("foracio", policies=["greedy"], rules={"declare": declare}, games=200, seed=3)
        mid[declare] = int(api.play_chunk(config, np.arange(200, dtype=np.int64)).mid_deal.sum())
    assert mid["auto_on_secured_points"] > mid["immediate"]


# -------------------------------------------------------------------------------------------- Skopa


def test_r5_court_takes_all_same_rank():
    """R5: K♣ takes K♦ (one card of its rank); with court_takes=all_same_rank both kings at once."""
    assert both_moves(SKOPA, {}, "Kc", "Kd Kh 7s") == [(bit("Kc"), bit("Kd")), (bit("Kc"), bit("Kh"))]
    assert both_moves(SKOPA, {"court_takes": "all_same_rank"}, "Kc", "Kd Kh 7s") == [(bit("Kc"), cmask("Kd Kh"))]
    assert both_moves(SKOPA, {"court_takes": "all_same_rank"}, "Qc 9d", "Kd 7s 2h") == [(bit("9d"), cmask("7s 2h"))]


def r_ex4_piles() -> list[set[int]]:
    """R-EX4 as piles: NS 26 cards with 8 clubs and the 10♦, EW 26 cards with the 2♣ (and 8 hearts, the A♠)."""
    ns = pile("3c 4c 5c 6c 7c 8c 9c Tc Td Ah 2h 3h 4h 5d 6d 7d 8d 9d Jd Qd Kd 2s 3s 4s 5s 6s")
    return [ns, set(range(52)) - ns]


@pytest.mark.parametrize(
    ("options", "ns", "ew"),
    [
        ({}, [1, 1, 0, 1, 0], [1, 0, 1, 0, 0]),  # R-EX4: NS 3, EW 2
        ({"bonus_suit": "hearts"}, [1, 0, 0, 1, 0], [1, 1, 1, 0, 0]),  # EW has 9 hearts
        ({"small_card": "As"}, [1, 1, 0, 1, 0], [1, 0, 1, 0, 0]),  # EW holds the A♠ as well as the 2♣
        ({"bonus_suit": "hearts", "small_card": "As"}, [1, 0, 0, 1, 0], [1, 1, 1, 0, 0]),
    ],
)
def test_r11_bonus_suit_and_small_card(options, ns, ew):
    """R11 and its RUWIKI variant: hearts replace the clubs, the A♠ the 2♣ (the categories keep their names)."""
    rules = SKOPA.resolve({"players": 4} | options)
    points = rk.score_deal(rules, r_ex4_piles(), [0, 0])
    assert [list(p.values()) for p in points] == [ns, ew]


def test_r11_small_card_moves_the_point():
    piles = [pile("As 5h"), pile("2c 6d")]
    assert [p["two_clubs"] for p in rk.score_deal(SKOPA.resolve(), piles, [0, 0])] == [0, 1]
    assert [p["two_clubs"] for p in rk.score_deal(SKOPA.resolve({"small_card": "As"}), piles, [0, 0])] == [1, 0]
    compiled = SKOPA.compile(SKOPA.resolve({"small_card": "As", "bonus_suit": "hearts"}))
    assert compiled.small_card == parse_card("As") and compiled.count_suit == 2
    assert compiled.card_weight[parse_card("As")] == 3 and compiled.card_weight[parse_card("5h")] == 1


# -------------------------------------------------------------------------------------------- Scopa


def test_s3_direction_changes_nothing_but_the_record():
    """S3, A.2: seats are numbered in playing order, so cw plays the very games of ccw; the trace records it."""
    outs = {}
    for direction in ("ccw", "cw"):
        config = RunConfig.create("scopa", policies=["greedy", "random"], rules={"direction": direction}, seed=4)
        outs[direction] = api.play_chunk(config, np.arange(300, dtype=np.int64))
        assert api.trace(config, [0])[0]["rules"]["direction"] == direction
    for name, arr in outs["ccw"]._asdict().items():
        assert np.array_equal(arr, getattr(outs["cw"], name)), name
    assert "changes nothing" in SCOPA.key("direction").doc.lower()


def scopa_points(**by_category: tuple[int, int]) -> list[dict[str, int]]:
    points = [dict.fromkeys(rs.CATEGORIES, 0), dict.fromkeys(rs.CATEGORIES, 0)]
    for category, (x, y) in by_category.items():
        points[0][category], points[1][category] = x, y
    return points


def kernel_countout(rules, totals, points, order):
    """The kernels' ``deal_winner`` on the same deal (None for -1)."""
    table = np.zeros((4, 16), np.int64)
    for side, per in enumerate(points):
        table[side, : len(rs.CATEGORIES)] = [per[c] for c in rs.CATEGORIES]
    packed = sum(side << (2 * k) for k, side in enumerate(order))
    compiled = SCOPA.compile(rules)
    w = int(deal_winner(compiled, np.array([*totals, 0, 0], np.int64), table, -1, packed, len(order)))
    if compiled.countout and totals[0] == totals[1]:  # a tie: deal_winner's answer is the count-out's
        assert w == int(countout_winner(compiled, np.array([*totals, 0, 0], np.int64), table, packed, len(order)))
    return None if w < 0 else w


@pytest.mark.parametrize(
    ("before", "points", "order", "winner"),
    [
        # S-EX5: X 9 and Y 10 before the deal, 14 : 12: X wins, count-out or not
        (
            [9, 10],
            scopa_points(cards=(1, 0), coins=(1, 0), settebello=(1, 0), primiera=(1, 0), scopa=(1, 2)),
            [1, 0, 1],
            0,
        ),
        # S-EX5 at 12 : 12 (X 7 before): X reaches 11 with the primiera, Y only with its scope
        (
            [7, 10],
            scopa_points(cards=(1, 0), coins=(1, 0), settebello=(1, 0), primiera=(1, 0), scopa=(1, 2)),
            [1, 0, 1],
            0,
        ),
        # 11 : 11 from 10 : 10 on one scopa each: the first scopa made decides
        ([10, 10], scopa_points(scopa=(1, 1)), [1, 0], 1),
        ([10, 10], scopa_points(scopa=(1, 1)), [0, 1], 0),
        # a tie carried over (11 : 11 before): both were at the target first, another deal
        ([11, 11], scopa_points(cards=(1, 0), coins=(0, 1)), [], None),
    ],
)
def test_s12_tie_break_parlett_countout(before, points, order, winner):
    totals = [b + rs.deal_total(p) for b, p in zip(before, points, strict=True)]
    play_on, countout = SCOPA.resolve(), SCOPA.resolve({"tie_break": "parlett_countout"})
    tied = totals[0] == totals[1]
    assert rs.deal_winner(play_on, totals, points, order) == (None if tied else winner)
    assert rs.deal_winner(countout, totals, points, order) == winner
    assert kernel_countout(play_on, totals, points, order) == (None if tied else winner)
    assert kernel_countout(countout, totals, points, order) == winner


def sure_in_both_engines(options: dict, piles: list[set[int]], sweeps: list[int]) -> list[dict[str, int]]:
    """Each side's sure points (S12 claim_out) from the reference, checked equal to the kernels' category by
    category (``scoring.scopa_secured``; the scope come from the deal's sweeps in both)."""
    from simcore.kernels.scoring import SCOPA_SWEEPS, scopa_secured

    rules = SCOPA.resolve(options)
    players = rules["players"]
    state = rs.DealState(players, 0, [set() for _ in range(players)], set(), [])
    state.piles, state.sweeps = [set(p) for p in piles], list(sweeps)
    expected = rs.sure_points(rules, state)
    compiled = SCOPA.compile(rules)
    masks = np.array([sum(1 << c for c in p) for p in piles] + [0] * (4 - len(piles)), np.int64)
    for side, points in enumerate(expected):
        for k, category in enumerate(SCOPA.categories_for(rules)):
            got = sweeps[side] if k == SCOPA_SWEEPS else int(scopa_secured(compiled, masks, side, k))
            assert got == points[category], (side, category, options, piles)
    return expected


def test_s12_claim_out_sure_points_on_a_worked_position():
    """X holds 21 cards with 6 coins, the settebello and the 7 of every suit; Y holds 3. X is sure of the cards
    (21 of 40), the coins (6 of 10), the settebello and the primiera (its 4 x 21 = 84 against the 4 x 18 = 72 that
    Y could make at best with every card nobody holds yet: the sevens are all X's). Y is sure of nothing."""
    x = pile("7c 7d 7h 7s Ad 2d 3d 4d 5d Jc Qc Kc Jh Qh Kh Js Qs Ks 2c 3c 4c")
    y = pile("6d Jd 5c")
    sure = sure_in_both_engines({}, [x, y], [1, 0])
    assert sure[0] == {"cards": 1, "coins": 1, "settebello": 1, "primiera": 1, "scopa": 1, "napola": 0}
    assert sure[1] == dict.fromkeys(rs.CATEGORIES, 0)
    # without 4c and 5d, X's 19 cards and 5 coins settle neither majority: Y could still reach 21 cards, 5 coins
    sure = sure_in_both_engines({}, [x - pile("4c 5d"), y], [0, 0])
    assert sure[0]["cards"] == 0 and sure[0]["coins"] == 0 and sure[0]["settebello"] == 1


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"players": 3, "napola": True},
        {"players": 4, "primiera": "suits", "re_bello": True},
        {"players": 3, "primiera": "suits"},
    ],
)
def test_s12_claim_out_sure_points_match_the_reference_on_random_piles(options):
    """Random captured piles (any share of the pack, split at random among the sides): the kernels' sure points
    are the reference's, which it finds by trying every other side taking every card nobody holds yet."""
    import random

    rng = random.Random(5)
    players = options.get("players", 2)
    sides = 2 if players == 4 else players
    for _ in range(300):
        taken = rng.sample(sorted(rs.PACK_SET), rng.randrange(0, 41))
        piles = [set() for _ in range(sides)]
        for card in taken:
            piles[rng.randrange(sides)].add(card)
        sure_in_both_engines({**options, "claim_out": "on"}, piles, [rng.randrange(3) for _ in range(sides)])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_s12_claim_out_ends_games_by_a_claim_in_both_engines(players):
    """claim_out=on: games end right after a claimant's play, on its banked and sure points (an out event, the
    deal scored on the points each side is sure of); the reference plays the same games, and without the key
    no game ends mid-deal."""
    policies = ["greedy", "random", "greedy", "random"][:players]
    rules = {"players": players, "claim_out": "on"}
    config = RunConfig.create("scopa", policies=policies, rules=rules, seed=12)
    rows = api.play_chunk(config, np.arange(60, dtype=np.int64))
    assert rows.mid_deal.sum() > 20  # claims are common: a side is often sure of 11 before the deal ends
    off_config = RunConfig.create("scopa", policies=policies, rules={"players": players}, seed=12)
    off = api.play_chunk(off_config, np.arange(60))
    assert off.mid_deal.sum() == 0
    for trace in api.trace(config, range(20)):
        assert trace == rs.play_game(config.seed, trace["game"], dict(config.rules), list(config.policies))
        events = trace["events"]
        if any(e["type"] == "out" for e in events):
            out, score, end = events[-3:]
            assert out["type"] == "out" and score["type"] == "score" and end["type"] == "end"
            claimant = out["seat"] % 2 if players == 4 else out["seat"]
            assert end["winner"] == claimant and score["totals"][claimant] >= 11
        replay_trace(trace)


def test_unknown_values_of_the_new_keys_are_errors():
    from simcore.errors import ConfigError

    keys = ((FORACIO, "court_takes"), (SKOPA, "bonus_suit"), (SCOPA, "tie_break"), (SCOPA, "claim_out"))
    for spec, key in (*keys, (FORACIO, "declare")):
        with pytest.raises(ConfigError, match="not allowed"):
            spec.resolve({key: "sideways"})
    with pytest.raises(ConfigError):
        FORACIO.resolve({"table_ace_in_sums": "maybe"})


@pytest.mark.parametrize(
    ("spec", "options"),
    [
        (FORACIO, {"table_ace_in_sums": True}),
        (FORACIO, {"table_ace_in_sums": True, "forced_capture": "none", "court_takes": "all_same_rank"}),
        (SKOPA, {"court_takes": "all_same_rank", "forced_capture": "none"}),
    ],
)
def test_declared_move_bounds_hold_under_the_options(spec, options):
    """The largest tables there are (the whole rest of the pack): the legal moves of a full hand stay within
    ``game_info``'s ``max_moves``, and that within the kernels' move buffer; table aces in sums raise the bound."""
    import random

    resolved = spec.resolve(options)
    info, compiled = spec.game_info(resolved), spec.compile(resolved)
    assert compiled.max_moves >= info.max_moves
    rng = random.Random(11)
    pack = cards_of(compiled.pack)
    for _ in range(3):
        hand = sum(1 << c for c in rng.sample(pack, info.max_hand))
        count = len(engine.legal_moves(compiled, hand, compiled.pack & ~hand))
        assert 0 < count <= info.max_moves
    if spec is FORACIO:
        assert info.max_moves > FORACIO.game_info(FORACIO.resolve()).max_moves


@pytest.mark.parametrize(
    "options", [{"ace_sweep_is_scopa": True, "same_suit_scopa_total": "3v"}, {"table_ace_in_sums": True}, {}]
)
def test_user_api_secured_points_follow_the_options(options):
    """``simcore.policies.api.secured_points`` (what a user policy asks) gives every play's points as the engine
    scored them in Foracio traces under the sweep options."""
    from simcore._jit import kernel
    from simcore.kernels.game import fill_rule_info
    from simcore.kernels.workspace import TRAIL_CLASSES, WEIGHT, decision_space_size
    from simcore.policies import api as policy_api

    @kernel
    def points_of(view, rules, play, take):
        return policy_api.secured_points(view, rules, play, take)

    config = RunConfig.create("foracio", policies=["random"], rules=options, seed=8)
    compiled = config.compiled_rules()
    ps = np.zeros(decision_space_size(compiled.max_moves), np.int64)
    fill_rule_info(ps, compiled)
    rules = ps[WEIGHT:TRAIL_CLASSES].copy()
    view = np.zeros(policy_api.VIEW_SIZE, np.int64)
    checked = 0
    for trace in api.trace(config, range(30)):
        table, plays = 0, 0
        for e in trace["events"]:
            if e["type"] == "deal":
                table, plays = 0, 0
            elif e["type"] == "play":
                play = cmask(" ".join(e["cards"]))
                take = play if e["kind"] == "keep" else cmask(" ".join(e["take"]))
                plays += 1
                view[policy_api.TABLE], view[policy_api.LAST] = table, plays == 52
                assert points_of(view, rules, np.int64(play), np.int64(take)) == e["points"], e
                table = (table | play) if take == 0 else (table & ~take)
                checked += e["sweep"]
    assert checked > 30  # the check saw sweeps, not only trails


PART_B_NAMES = [
    ("scopa", "primiera_method", "suit_by_suit", "primiera", "suits"),
    ("scopa", "primiera_method", "points_table", "primiera", "table"),
    ("scopa", "redeal_if_kings_on_table", "3", "redeal_kings", 3),
    ("kaszino", "exchange_max_sum", "null", "max_sum", 0),
    ("kaszino", "exchange_max_hand_cards", "unlimited", "max_hand_cards", 0),
    ("kaszino", "exchange_max_hand_cards", "2", "max_hand_cards", 2),
    ("kaszino", "forced_exchange", "false", "forced_capture", "none"),
    ("kaszino", "forced_exchange", True, "forced_capture", "player"),
    ("foracio", "ace_on_empty_table", "takes_itself", "ace_on_empty", "keep"),
    ("foracio", "scopa_court_value", "10", "court_scopa_value", "ten"),
    ("foracio", "scopa_court_value", "0", "court_scopa_value", "zero"),
]


@pytest.mark.parametrize("variant,name,value,key,canonical", PART_B_NAMES)
def test_part_b_names_are_rule_keys_recorded_canonically(variant, name, value, key, canonical):
    """RULES.md Part B names some Part A keys and values otherwise: both spellings are accepted, and a run records
    the canonical one (so one rule set has one spelling in manifests, traces and labels)."""
    config = RunConfig.create(variant, rules={name: value}, games=1, seed=1)
    assert config.rules[key] == canonical and name not in config.rules
    assert config.rules == RunConfig.create(variant, rules={key: canonical}, games=1, seed=1).rules


def test_a_key_given_under_both_names_is_refused():
    with pytest.raises(ConfigError, match="given twice"):
        RunConfig.create("scopa", rules={"primiera": "suits", "primiera_method": "suit_by_suit"})
    with pytest.raises(ConfigError, match="primiera"):
        RunConfig.create("scopa", rules={"primiera_method": "by_feel"})
    shown = CliRunner().invoke(app, ["rules", "kaszino"], env={"COLUMNS": "400"}).output
    assert "forced_exchange = forced_capture (true = player, false = none)" in shown
