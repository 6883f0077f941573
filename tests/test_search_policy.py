"""The ``search`` policy (simcore.policies.search): exact in a perfect-information endgame (checked against a
minimax written here on the reference engine's moves and scoring), its parameters, and whole games of every game
and player count with its faults checked. Its honesty and its reproducibility across threads are tested with
mc's (tests/test_policies.py, tests/test_engine_safety.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from simcore import api
from simcore.cards import cards_of
from simcore.config import RunConfig
from simcore.engine import run_features
from simcore.errors import ConfigError
from simcore.kernels.deal import DEAL_NEED, VIEW_N_MOVES, begin_deal, run_deal
from simcore.kernels.game import fill_rule_info, new_scratch
from simcore.kernels.workspace import DEAL_RNG, DS_LAST, DS_N, DS_POS, DS_TABLE, HANDS, MOVES, PILES, RNG, SWEEPS
from simcore.policies import parse_policy, policy_arrays
from simcore.policies.kernels import choose_greedy
from simcore.policies.search import choose_search
from simcore.reference import scopa as ref
from simcore.rng import stream_state
from simcore.variants.scopa import SPEC


def minimax(rules, hands, table, piles, sweeps, last, mover, me):
    """Exact value for side ``me`` of a 2-player Scopa deal with the stock empty: every hand is known."""
    if not hands[0] and not hands[1]:
        piles = [set(p) for p in piles]
        if table and last is not None:
            piles[last] |= table
        points = ref.score_deal(rules, piles, sweeps)
        return ref.deal_total(points[me]) - ref.deal_total(points[1 - me])
    values = []
    for card, take in ref.legal_moves(rules, hands[mover], table):
        taken = set(cards_of(take))
        new_hands = [set(h) for h in hands]
        new_hands[mover].discard(card)
        new_table, new_piles, new_sweeps, new_last = set(table), [set(p) for p in piles], list(sweeps), last
        if taken:
            new_table -= taken
            new_piles[mover] |= taken | {card}
            new_last = mover
            last_play = not new_hands[0] and not new_hands[1]
            if not new_table and (rules["last_play_scopa"] or not last_play):
                new_sweeps[mover] += 1
        else:
            new_table.add(card)
        values.append(minimax(rules, new_hands, new_table, new_piles, new_sweeps, new_last, 1 - mover, me))
    return max(values) if mover == me else min(values)


def last_round_positions(count: int):
    """Decisions of seat 0 in 2-player Scopa deals played by greedy up to the last round (stock empty, three cards
    in each hand), stopped there for a search seat: (scratch, params, features, rules, resolved)."""
    resolved = SPEC.resolve({})
    rules = SPEC.compile(resolved)
    ids, params = policy_arrays([parse_policy("search:worlds=2,depth=6"), parse_policy("greedy")], resolved)
    features = run_features(rules, ids)
    events = np.zeros((1, 1, 7), np.int64)
    for game in itertools.count():
        s = new_scratch(rules)
        s.gs[DEAL_RNG] = stream_state(3, game, 0)
        for seat in range(2):
            s.ps[RNG + 1 + seat] = stream_state(3, game, 1 + seat)
        fill_rule_info(s.ps, rules)
        fill_rule_info(s.rollout_ps, rules)
        begin_deal(rules, s.gs, 0, 1, events, -1, 0)  # seat 0 leads
        status, _ = run_deal(rules, ids, params, s.gs, s.ps, events, -1, 0, -1, *features)
        while status == DEAL_NEED and s.gs[DS_POS] < s.gs[DS_N]:
            forced = choose_greedy(s.ps, s.ps[VIEW_N_MOVES])
            status, _ = run_deal(rules, ids, params, s.gs, s.ps, events, -1, 0, forced, *features)
        if status == DEAL_NEED and bin(int(s.gs[HANDS])).count("1") == 3:
            yield s, params, features, rules, resolved
            count -= 1
            if count == 0:
                return


def test_search_plays_a_minimax_move_when_every_card_is_known():
    """In the last round of 2-player Scopa the unseen cards are the other hand, so a search deeper than the deal
    is exact: its move must have the minimax value of the best move (ties may differ)."""
    events = np.zeros((1, 1, 7), np.int64)
    checked = 0
    for s, params, features, rules, resolved in last_round_positions(12):
        gs, ps = s.gs, s.ps
        hands = [set(cards_of(int(gs[HANDS]))), set(cards_of(int(gs[HANDS + 1])))]
        table = set(cards_of(int(gs[DS_TABLE])))
        piles = [set(cards_of(int(gs[PILES]))), set(cards_of(int(gs[PILES + 1])))]
        sweeps = [int(gs[SWEEPS]), int(gs[SWEEPS + 1])]
        last = None if gs[DS_LAST] < 0 else int(gs[DS_LAST])
        n = int(ps[VIEW_N_MOVES])
        moves = [(int(ps[MOVES + 2 * m]), int(ps[MOVES + 2 * m + 1])) for m in range(n)]
        values = []
        for play, take in moves:
            card = cards_of(play)[0]
            after = [hands[0] - {card}, set(hands[1])]
            taken = set(cards_of(take))
            t, p, sw, la = set(table), [set(x) for x in piles], list(sweeps), last
            if taken:
                t -= taken
                p[0] |= taken | {card}
                la = 0
                sw[0] += 0 if t else 1
            else:
                t.add(card)
            values.append(minimax(resolved, after, t, p, sw, la, 1, 0))
        choice = int(choose_search(rules, s, params, 0, events, *features))
        assert values[choice] == max(values), (moves, values, choice)
        checked += len(set(values)) > 1
    assert checked >= 3  # positions where the choice mattered


@pytest.mark.parametrize(
    "text,message",
    [
        ("search:worlds=0", "worlds must be a whole number from 1 to 200"),
        ("search:worlds=2.5", "worlds must be a whole number"),
        ("search:depth=7", "depth must be a whole number from 0 to 6"),
        ("search:depth=-1", "depth must be a whole number"),
        ("search:epsilon=2", "epsilon must be between 0 and 1"),
        ("search:samples=3", "does not read samples"),
        ("search:rollout=4", "rollout must be 0 \\(none\\), 1"),
        ("search:epsilon=0.2", "epsilon is read only with rollout=1"),
        ("search:rollout=1,settebello=2", "settebello is read only with rollout=0 or 2 or 3"),
        ("search:horizon=2", r"horizon is read only with rollout=1 or 2 or 3 \(this policy has rollout=0\)"),
        ("search:rollout=2,horizon=-1", "horizon must be a whole number from 0 to 100"),
        ("search:rollout=2,horizon=1.5", "horizon must be a whole number"),
        ("search:rollout=1,epsilon=0.2,settebello=2", r"or horizon above 0 \(this policy has rollout=1, horizon=0\)"),
    ],
)
def test_search_parameters_are_checked(text, message):
    with pytest.raises(ConfigError, match=message):
        parse_policy(text)


@pytest.mark.parametrize(
    "variant,policies,games",
    [
        ("scopa", ["search:worlds=2,depth=1,rollout=2", "greedy"], 3),
        ("foracio", ["search:worlds=1,depth=0,rollout=1", "greedy", "random", "greedy"], 1),
        ("skopa", ["search:worlds=2,depth=1,rollout=3,tree=1", "greedy", "random"], 2),
    ],
)
def test_a_leaf_horizon_past_every_deal_is_the_full_rollout(variant, policies, games):
    """A leaf's rollout cut after 100 plays (more than any deal has) plays exactly as the full rollout (horizon=0,
    the default): the same rows, every array, in the alpha-beta tree and in the max-n tree."""
    rows = []
    for horizon in (0, 100):
        seats = [p + f",horizon={horizon}" if p.startswith("search") else p for p in policies]
        config = RunConfig.create(variant, policies=seats, players=len(seats), games=games, seed=21)
        rows.append(api.play_chunk(config, np.arange(games)))
    assert not rows[0].overflow.any()
    for name, a in rows[0]._asdict().items():
        assert np.array_equal(a, getattr(rows[1], name)), name


def test_a_short_leaf_horizon_changes_the_play_and_reads_the_piles_weights():
    """Leaves valued by the piles after one play of the rollout see less than the full rollouts: some games of
    2-player Scopa differ. With a horizon the leaves read the game's weights even under greedy rollouts; the value
    reaches the kernel row (the slot a user policy's address takes, which search's rows did not use)."""
    from simcore.policies.heuristics import P_LEAF_HORIZON

    policies = ([f"search:worlds=2,depth=1,rollout=2,horizon={h}", "greedy"] for h in (0, 1))
    configs = [RunConfig.create("scopa", policies=p, games=6, seed=3) for p in policies]
    full, short = (api.play_chunk(c, np.arange(6)) for c in configs)
    assert not short.overflow.any() and (short.winner >= 0).all()
    assert not np.array_equal(full.deal_points, short.deal_points)
    choice = parse_policy("search:rollout=1,horizon=3,settebello=2")
    assert choice.label == "search:rollout=1,horizon=3,settebello=2"
    assert "horizon" not in parse_policy("search").params and "hold" not in choice.params
    _, params = policy_arrays([choice, parse_policy("search")], SPEC.resolve({}))
    assert params[0, P_LEAF_HORIZON] == 3 and params[1, P_LEAF_HORIZON] == 0


def test_search_parameters_reach_the_kernel_row():
    from simcore.policies.heuristics import P_EPSILON, P_ROLLOUT
    from simcore.policies.search import P_DEPTH, P_WORLDS

    choice = parse_policy("search:worlds=5,depth=2,rollout=1,epsilon=0.25")
    assert choice.label == "search:worlds=5,depth=2,rollout=1,epsilon=0.25"
    assert parse_policy("search").label == "search"
    _, params = policy_arrays([choice, parse_policy("greedy")], SPEC.resolve({}))
    assert (params[0, P_WORLDS], params[0, P_DEPTH], params[0, P_ROLLOUT], params[0, P_EPSILON]) == (5, 2, 1, 0.25)


@pytest.mark.parametrize(
    "variant,players,policies",
    [
        ("scopa", 2, ["search:worlds=3", "mc:samples=3"]),
        ("scopa", 3, ["search:worlds=2", "greedy", "random"]),
        ("scopa", 4, ["search:worlds=2", "greedy", "search:worlds=2,depth=1", "random"]),
        ("kaszino", 2, ["search:worlds=3", "greedy"]),
        ("foracio", 4, ["search:worlds=1,depth=1", "greedy", "search:worlds=1,depth=0", "greedy"]),
        ("skopa", 2, ["search:worlds=3,depth=3", "greedy"]),
        ("skopa", 3, ["search:worlds=2", "greedy", "greedy"]),
        ("skopa", 3, ["search:worlds=2,tree=1", "greedy", "mc:samples=2,horizon=2"]),
        ("scopa", 3, ["random", "search:worlds=2,tree=1,rollout=1", "search:worlds=2,tree=0"]),
        ("escoba", 3, ["search:worlds=2,depth=2,tree=1", "lookahead", "greedy"]),
    ],
)
def test_search_plays_whole_games_of_every_game(variant, players, policies):
    """Whole games end with a winner and no fault, and replay identically (its own random stream)."""
    config = RunConfig.create(variant, policies=policies, rules={"players": players}, games=6, seed=4)
    out = api.play_chunk(config, np.arange(6))
    assert not out.overflow.any() and (out.winner >= 0).all()
    again = api.play_chunk(config, np.arange(6))
    assert (again.n_plays == out.n_plays).all() and (again.totals == out.totals).all()


def test_search_beats_greedy_on_the_same_deals():
    """Duplicate games (same seeds, seats swapped) against greedy in 2-player Scopa: search wins most of them.
    Deterministic (fixed seeds); 80 pairs, where search wins about 70% (a real defect would bring it near 50%)."""
    games = np.arange(80)
    first = api.play_chunk(RunConfig.create("scopa", policies=["search", "greedy"], games=80, seed=8), games)
    second = api.play_chunk(RunConfig.create("scopa", policies=["greedy", "search"], games=80, seed=8), games)
    wins = int((first.winner == 0).sum() + (second.winner == 1).sum())
    assert wins > 0.58 * 160, wins


def test_a_game_records_its_own_search_defaults():
    """Foracio's module sets search's depth and worlds (``HeuristicWeights.searchers``); the label is relative to
    the game's defaults, and ``scopasim policies`` shows them."""
    from typer.testing import CliRunner

    from cli.app import app

    assert parse_policy("search", "foracio").params["depth"] == 1
    assert parse_policy("search", "scopa").params["depth"] == 3
    assert {k: parse_policy("search", "scopone").params[k] for k in ("depth", "worlds")} == {"depth": 1, "worlds": 40}
    assert parse_policy("search", "escoba").params["worlds"] == 24
    assert parse_policy("search", "skopa").params["tree"] == 1  # max-n with three sides (session 11's measurements)
    assert parse_policy("search:depth=1,worlds=88", "foracio").label == "search"
    assert parse_policy("search:depth=3", "foracio").label == "search:depth=3"
    shown = CliRunner().invoke(app, ["policies", "foracio"], env={"COLUMNS": "400"}).output
    assert "worlds=88, depth=1, tree=1, rollout=0" in shown


def test_a_search_run_traces_to_its_rows_and_replays(tmp_path):
    """simulate, then ``scopasim trace --run``: the traced games end with the run's totals, and the reference
    engine replays every move of them (legal, scored the same; its replay checks Scopa)."""
    import json

    import pandas as pd
    from typer.testing import CliRunner

    from cli.app import app
    from simcore.reference.replay import replay_trace

    config = RunConfig.create("scopa", policies=["search:worlds=2", "greedy"], games=6, seed=12)
    api.simulate(config, tmp_path / "run", threads=2)
    result = CliRunner().invoke(
        app, ["trace", "--run", str(tmp_path / "run"), "--game", "0-5", "--out", str(tmp_path / "t")]
    )
    assert result.exit_code == 0, result.output
    games = pd.read_parquet(tmp_path / "run" / "games").set_index("game")
    for line in (tmp_path / "t").read_text().splitlines():
        trace = json.loads(line)
        assert trace["policies"] == ["search:worlds=2", "greedy"]
        assert trace["events"][-1]["totals"] == [games.loc[trace["game"], f"total_{s}"] for s in range(2)]
        replay_trace(trace)


def maxn(rules, hands, table, piles, sweeps, last, mover, root):
    """Exact max-n values (every side's deal margin over the best other side) of a 3-player Scopa deal with the
    stock empty and every hand known; ties broken as ``search.prefers`` (worse for the root, then the others)."""
    n = len(hands)
    if not any(hands):
        piles = [set(p) for p in piles]
        if table and last is not None:
            piles[last] |= table
        totals = [ref.deal_total(p) for p in ref.score_deal(rules, piles, sweeps)]
        return [totals[k] - max(totals[j] for j in range(n) if j != k) for k in range(n)]
    best = None
    for card, take in ref.legal_moves(rules, hands[mover], table):
        taken = set(cards_of(take))
        new_hands = [set(h) for h in hands]
        new_hands[mover].discard(card)
        new_table, new_piles, new_sweeps, new_last = set(table), [set(p) for p in piles], list(sweeps), last
        if taken:
            new_table -= taken
            new_piles[mover] |= taken | {card}
            new_last = mover
            if not new_table and (rules["last_play_scopa"] or any(new_hands)):
                new_sweeps[mover] += 1
        else:
            new_table.add(card)
        value = maxn(rules, new_hands, new_table, new_piles, new_sweeps, new_last, (mover + 1) % n, root)
        others = [k for k in range(n) if k not in (mover, root)]
        key = (value[mover], *(-value[k] for k in ([root] if mover != root else []) + others))
        if best is None or key > best[0]:
            best = (key, value)
    return best[1]


def tree_buffers(rules):
    """The work arrays of ``move_value`` and ``maxn_value``, as ``choose_search`` makes them: (stops, leaf_stops,
    stack, moves, scores, meta, bounds, vals)."""
    from simcore.kernels.workspace import GAME_STATE_SIZE
    from simcore.policies.kernels import POLICY_LEAF, POLICY_MC
    from simcore.policies.search import MAX_DEPTH

    return (
        np.full(4, POLICY_MC, np.int64),
        np.full(4, POLICY_LEAF, np.int64),
        np.empty((MAX_DEPTH + 1, GAME_STATE_SIZE), np.int64),
        np.empty((MAX_DEPTH, 2 * rules.max_moves), np.int64),
        np.empty((MAX_DEPTH, rules.max_moves), np.int64),
        np.empty((MAX_DEPTH, 3), np.int64),
        np.empty((MAX_DEPTH, 3), np.float64),
        np.zeros((MAX_DEPTH + 2, 4), np.float64),
    )


def started_deal(rules, ids, params, features, events, seed, game, players, dealer):
    """A new scratch with game ``game``'s first deal begun and run to its first stop: (scratch, status). Leaves
    at a search's depth limit are valued by their piles."""
    s = new_scratch(rules)
    s.gs[DEAL_RNG] = stream_state(seed, game, 0)
    for seat in range(players):
        s.ps[RNG + 1 + seat] = stream_state(seed, game, 1 + seat)
    fill_rule_info(s.ps, rules)
    fill_rule_info(s.rollout_ps, rules)
    s.rollout_ids[:] = -1
    begin_deal(rules, s.gs, 0, dealer, events, -1, 0)
    status, _ = run_deal(rules, ids, params, s.gs, s.ps, events, -1, 0, -1, *features)
    return s, status


def test_the_max_n_tree_is_exact_in_a_known_three_player_endgame():
    """3-player Scopa, the stock empty, seat 0 with two cards left: in the true deal (every hand known) the
    max-n tree searched to the end gives, for each of seat 0's moves, the exact max-n value of seat 0."""
    from simcore.policies.search import maxn_value

    resolved = SPEC.resolve({"players": 3})
    rules = SPEC.compile(resolved)
    choices = [parse_policy(p) for p in ("search:worlds=1,depth=6,tree=1", "greedy", "greedy")]
    ids, params = policy_arrays(choices, resolved)
    features = run_features(rules, ids)
    events = np.zeros((1, 1, 7), np.int64)
    stops, leaf_stops, stack, moves, _, meta, _, vals = tree_buffers(rules)
    checked = positions = 0
    for game in range(200):
        s, status = started_deal(rules, ids, params, features, events, 5, game, 3, 2)  # seat 0 leads
        while status == DEAL_NEED and not (s.gs[DS_POS] == s.gs[DS_N] and bin(int(s.gs[HANDS])).count("1") == 2):
            forced = choose_greedy(s.ps, s.ps[VIEW_N_MOVES])
            status, _ = run_deal(rules, ids, params, s.gs, s.ps, events, -1, 0, forced, *features)
        if status != DEAL_NEED:
            continue
        gs, ps = s.gs, s.ps
        hands = [set(cards_of(int(gs[HANDS + k]))) for k in range(3)]
        table = set(cards_of(int(gs[DS_TABLE])))
        piles = [set(cards_of(int(gs[PILES + k]))) for k in range(3)]
        sweeps = [int(gs[SWEEPS + k]) for k in range(3)]
        last = None if gs[DS_LAST] < 0 else int(gs[DS_LAST])
        values = set()
        for m in range(int(ps[VIEW_N_MOVES])):
            play, take = int(ps[MOVES + 2 * m]), int(ps[MOVES + 2 * m + 1])
            card, taken = cards_of(play)[0], set(cards_of(take))
            after = [h - {card} for h in hands]
            t, p, sw, la = set(table), [set(x) for x in piles], list(sweeps), last
            if taken:
                t -= taken
                p[0] |= taken | {card}
                la = 0
                sw[0] += 0 if t else 1
            else:
                t.add(card)
            exact = maxn(resolved, after, t, p, sw, la, 1, 0)[0]
            got = maxn_value(rules, s, params, 0, stops, leaf_stops, stack, moves, meta, vals, gs, play, take, 6, 0,
                             0, 1, events, *features)  # fmt: skip
            assert got == exact, (game, m, got, exact)
            values.add(exact)
        positions += 1
        checked += len(values) > 1
        if positions == 10:
            break
    assert positions == 10 and checked >= 3  # positions where the move mattered


@pytest.mark.parametrize(
    ("variant", "overrides", "first_play"),
    [
        ("scopa", {}, False),
        ("scopa", {"forced_capture": "none"}, False),
        ("skopa", {}, False),
        ("skopa", {"multi_group_capture": True, "forced_capture": "card"}, False),
        ("foracio", {"ace_on_empty": "keep"}, False),
        ("foracio", {"ace_on_empty": "stay", "court_takes": "all_same_rank"}, False),
        ("scopone", {"ace_takes_all": True, "sum_choice": "fewest"}, False),
        ("scopone", {"ace_takes_all": True, "ace_first_play": "banned"}, True),
        ("escoba", {}, False),
        ("escoba", {"forced_capture": "player"}, False),
    ],
)
def test_a_leaf_stop_skips_the_list_only_where_it_holds_two_moves_or_more(variant, overrides, first_play):
    """Search's leaves stop the deal loop without listing the moves when ``lists_two_or_more`` says the decision
    has two or more (``POLICY_LEAF``): on random positions of every compulsion rule, a position it passes lists two
    or more; where it declines (``player``, the first play under ``ace_first_play="banned"``), one-move positions
    with two cards in hand exist, so the exclusions are needed."""
    from simcore.kernels.moves import first_play_rules, legal_moves, lists_two_or_more, move_rules
    from simcore.kernels.workspace import decision_space_size, seat_space
    from simcore.variants import get_variant
    from simcore.variants.base import FORCED_PLAYER

    spec = get_variant(variant)
    rules = spec.compile(spec.resolve(overrides))
    rs = first_play_rules(rules) if first_play else move_rules(rules)
    ps = np.zeros(decision_space_size(rules.max_moves), np.int64)
    pack = cards_of(rules.pack)
    rng = np.random.default_rng(7)
    skipped = declined_single = 0
    for _ in range(4000):
        cards = [pack[i] for i in rng.permutation(len(pack))[:16]]
        hand_cards = cards[: int(rng.integers(1, 6))]
        if first_play and rng.random() < 0.5:  # aces in hand, where the banned first play leaves them out
            hand_cards = [0, *[c for c in hand_cards if c > 3][:1]]
        hand = sum(1 << c for c in hand_cards)
        table = sum(1 << c for c in cards[6 : 6 + int(rng.integers(0, 7))]) & ~hand
        n = legal_moves(seat_space(ps), hand, table, rs)
        if lists_two_or_more(hand, rs):
            assert n >= 2, (variant, overrides, cards_of(hand), cards_of(table), n)
            skipped += 1
        elif len(hand_cards) >= 2 and n == 1:
            declined_single += 1
    if rs.forced_capture == FORCED_PLAYER or first_play:  # declined where it had to be
        assert declined_single > 0 and skipped == 0
    else:
        assert skipped > 2000


@pytest.mark.parametrize("variant", ["scopa", "escoba", "skopa"])
def test_alpha_beta_gives_the_plain_minimax_value_of_every_move(variant):
    """With two sides the max-n tree (no cut-off, ``maxn_value``) is plain minimax, so on mid-deal positions of
    2-player games, at depths 2 to 4, alpha-beta (``move_value``: cut-offs, moves sorted by greedy's score) must give
    every move the very same value: the order of the moves may save work, never change a value. Searched above a
    bound (``choose_search``'s test of a move against the best one), it gives the exact value where that is above
    the bound, and an upper bound of it otherwise (fail-soft)."""
    from simcore.kernels.deal import VIEW_SEAT
    from simcore.kernels.workspace import DS_T, VIEW
    from simcore.policies.search import maxn_value, move_value

    config = RunConfig.create(variant, policies=["search:worlds=1", "greedy"], games=1, seed=1)
    rules = config.compiled_rules()
    ids, params = policy_arrays(config.policy_choices(), config.rules)
    features = run_features(rules, ids)
    events = np.zeros((1, 1, 7), np.int64)
    stops, leaf_stops, stack, moves, scores, meta, bounds, vals = tree_buffers(rules)
    compared = differing = failed_low = 0
    for game in range(30):
        s, status = started_deal(rules, ids, params, features, events, 6, game, 2, 1)
        stop_at = 4 + 3 * (game % 6)
        while status == DEAL_NEED and (s.gs[DS_T] < stop_at or s.ps[VIEW_N_MOVES] < 2 or s.ps[VIEW + VIEW_SEAT]):
            forced = choose_greedy(s.ps, s.ps[VIEW_N_MOVES])
            status, _ = run_deal(rules, ids, params, s.gs, s.ps, events, -1, 0, forced, *features)
        if status != DEAL_NEED:
            continue
        gs, ps = s.gs, s.ps
        depth = 2 + game % 3
        values = []
        for m in range(int(ps[VIEW_N_MOVES])):
            play, take = int(ps[MOVES + 2 * m]), int(ps[MOVES + 2 * m + 1])
            pruned = move_value(rules, s, params, 0, stops, leaf_stops, stack, moves, scores, meta, bounds, gs, play,
                                take, depth, 0, 0, 1, -np.inf, events, *features)  # fmt: skip
            plain = maxn_value(rules, s, params, 0, stops, leaf_stops, stack, moves, meta, vals, gs, play, take,
                               depth, 0, 0, 1, events, *features)  # fmt: skip
            assert pruned == plain, (variant, game, m, pruned, plain)
            for alpha in (plain - 1.5, plain - 0.05, plain, plain + 0.05, plain + 1.5):  # a window (alpha, +inf)
                bounded = move_value(rules, s, params, 0, stops, leaf_stops, stack, moves, scores, meta, bounds, gs,
                                     play, take, depth, 0, 0, 1, alpha, events, *features)  # fmt: skip
                # above alpha: the exact value; at or below it: an upper bound of the exact value
                assert bounded == plain if bounded > alpha else plain <= bounded <= alpha, (variant, game, alpha)
                failed_low += bounded <= alpha
            values.append(plain)
            compared += 1
        differing += len(set(values)) > 1
    assert compared >= 60 and differing >= 6 and failed_low >= 3 * compared


def test_greedy_score_orders_the_moves_as_greedy_chooses():
    """``greedy_score`` (search's move order) and ``choose_greedy`` write greedy's score twice (one call made mc
    slower): on random positions of every game, greedy's choice is the first move of the highest score."""
    from simcore.kernels.moves import legal_moves, move_rules
    from simcore.kernels.workspace import WEIGHT, decision_space_size, seat_space
    from simcore.policies.kernels import greedy_score
    from simcore.variants import VARIANTS, get_variant
    from simcore.variants.base import TURNS_ONE_CARD

    rng = np.random.default_rng(3)
    for variant in VARIANTS:
        spec = get_variant(variant)
        rules = spec.compile(spec.resolve({}))
        if rules.turns != TURNS_ONE_CARD:  # Kaszinó's exchanges: another lister, the same greedy
            continue
        ps = np.zeros(decision_space_size(rules.max_moves), np.int64)
        ps[WEIGHT : WEIGHT + 52] = rules.card_weight
        pack = cards_of(rules.pack)
        for _ in range(300):
            cards = [pack[i] for i in rng.permutation(len(pack))[:14]]
            hand = sum(1 << c for c in cards[: int(rng.integers(1, 5))])
            table = sum(1 << c for c in cards[5 : 5 + int(rng.integers(0, 9))])
            n = legal_moves(seat_space(ps), hand, table, move_rules(rules))
            scores = [greedy_score(ps, ps[MOVES + 2 * m], ps[MOVES + 2 * m + 1]) for m in range(n)]
            assert choose_greedy(ps, n) == scores.index(max(scores)), (variant, cards_of(hand), cards_of(table))


def exhaustive_choice(game) -> int:
    """search's move at ``game``'s decision with every (move, world) value computed exactly, in world order, and the
    first of the highest sums taken: ``choose_search`` without its bounds (as it was until session 31). Leaves are
    valued by their piles (``rollout=0``)."""
    from simcore.kernels.bits import list_cards
    from simcore.kernels.workspace import FAULT, STREAM_KEY, SUBSTREAM, VIEW, sample_base
    from simcore.policies.heuristics import MAX_DEPTH, P_DEPTH, P_ROLLOUT, P_WORLDS
    from simcore.policies.montecarlo import V_SEEN, determinize
    from simcore.policies.search import move_value

    rules, s, params, seat = game.rules, game._s, game._params, game.seat
    features = run_features(rules, game._stops)
    gs, ps = s.gs, s.ps
    assert params[seat, P_ROLLOUT] == 0
    n_moves = int(ps[VIEW_N_MOVES])
    n_unseen = list_cards(ps, sample_base(ps), rules.pack & ~ps[VIEW + V_SEEN])
    depth = min(int(params[seat, P_DEPTH]), MAX_DEPTH)
    s.rollout_ids[:] = -1
    s.rollout_params[:] = params[seat]
    s.rollout_ps[FAULT] = 0
    stops, leaf_stops, stack, moves, scores, meta, bounds, _ = tree_buffers(rules)
    side, key = int(rules.side_of[seat]), int(ps[STREAM_KEY + seat])
    values = np.zeros(n_moves)
    for _ in range(int(params[seat, P_WORLDS])):
        assert determinize(rules, gs, ps, s.sample, seat, n_unseen)
        sub = 1 + 4 * int(ps[SUBSTREAM + seat])
        ps[SUBSTREAM + seat] += 1
        for m in range(n_moves):
            play, take = int(ps[MOVES + 2 * m]), int(ps[MOVES + 2 * m + 1])
            values[m] += move_value(rules, s, params, seat, stops, leaf_stops, stack, moves, scores, meta, bounds,
                                    s.sample, play, take, depth, side, key, sub, -np.inf, game._out.events,
                                    *features)  # fmt: skip
    assert s.rollout_ps[FAULT] == 0
    return int(np.argmax(values))  # the first of the highest


@pytest.mark.parametrize(
    "variant,policy",
    [("escoba", "search"), ("kaszino", "search:worlds=6"), ("scopa", "search"), ("scopone", "search:worlds=8")],
)
def test_the_bounds_keep_every_choice_of_the_exact_sums(variant, policy):
    """``choose_search`` proves most moves worse than the best one from upper bounds of their values (a tree searched
    above the best move's value in each world) and never computes their exact sums: on every decision of whole games
    (Kaszinó: its exchanges and double moves; Scopone: a tree of one level, ordered only above a bound) it must pick
    the very move that the exact sums pick."""
    from simcore.kernels.workspace import RNG, SUBSTREAM
    from simcore.play import Game

    checked = 0
    for index in range(3 if variant == "kaszino" else 1 if variant == "scopone" else 2):
        game = Game(variant, seed=31, game=index, policies=[policy])
        while not game.over:
            if len(game.moves()) > 1:
                saved = game._s.ps[RNG : SUBSTREAM + 4].copy()
                exact = exhaustive_choice(game)
                game._s.ps[RNG : SUBSTREAM + 4] = saved
                assert game.suggest(consume=False) == exact, (variant, index, game.decision)
                checked += 1
            game.step()
    assert checked >= 60
