"""The mirror control variate (issue 12, ``analysis.mirror``): moving the hands on r seats is playing the same
game on shuffles whose hand blocks are moved, so the control's mean is zero by symmetry, exactly.

The identity is checked against an independent implementation: the reference engine, dealing from shuffles whose
hand blocks this test moves itself, plays the very game the kernel plays with ``Rules.deal_rotation`` (every
event the same). Over each orbit of shuffles under the moves, the control then sums to exactly zero."""

from __future__ import annotations

import importlib
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from analysis import load_run
from analysis.control import CONTROL_SETS, control_table, control_weights, controls_of_part, cv_estimate
from analysis.mirror import mirror_controls, mirror_names, replay_outcomes
from analysis.paired import Moments
from simcore import api, engine
from simcore.config import RunConfig
from simcore.dealt import dealt_hands
from simcore.policies import policy_arrays
from simcore.trace import game_trace

# (variant, rules, policies, the name the reference module shuffles with)
CASES = [
    ("scopa", {}, ["greedy", "random"], "shuffled_pack"),
    ("scopa", {"players": 3, "redeal_kings": 3}, ["random", "greedy", "random"], "shuffled_pack"),
    ("scopone", {}, ["greedy", "random", "random", "greedy"], "shuffle"),
    ("kaszino", {}, ["greedy", "random"], "shuffled_pack"),  # later rounds led by the last capturer
    ("skopa", {"players": 3}, ["greedy"] * 3, "shuffled_pack"),
    ("escoba", {}, ["random", "greedy"], "shuffle"),
    ("foracio", {}, ["random", "greedy"] * 2, "shuffled_pack"),
]
GAMES = 30


def moved_blocks(deck: list[int], players: int, hand_size: int, table_size: int, r: int) -> list[int]:
    """The shuffle with the hand blocks of every round moved r places along the dealing order (table and stock
    positions kept): what the seat after the dealer is dealt from it is what seat first + r was dealt before."""
    out = list(deck)
    per_round = players * hand_size
    starts = [0, *range(per_round + table_size, len(deck) - per_round + 1, per_round)]
    for start in starts:
        for k in range(players):
            src = start + ((k - r) % players) * hand_size
            out[start + k * hand_size : start + (k + 1) * hand_size] = deck[src : src + hand_size]
    return out


def normalised(events: list[dict]) -> list:
    """Events with each run of hand events in seat order (the kernel deals from seat first + r on)."""
    out, hands = [], []
    for e in events:
        if e["type"] == "hand":
            hands.append(e)
            continue
        out += sorted(hands, key=lambda h: h["seat"])
        hands = []
        out.append(e)
    return out + sorted(hands, key=lambda h: h["seat"])


@pytest.mark.parametrize(("variant", "rules", "policies", "shuffle_name"), CASES)
def test_moved_hands_are_the_game_on_moved_shuffles(variant, rules, policies, shuffle_name, monkeypatch):
    config = RunConfig.create(variant, rules=rules, policies=policies, games=GAMES, seed=5)
    compiled = config.compiled_rules()
    ids, params = policy_arrays(config.policy_choices(), config.rules)
    ref = importlib.import_module(f"simcore.reference.{variant}")
    original = getattr(ref, shuffle_name)
    games = np.arange(GAMES, dtype=np.int64)
    for r in range(config.players):
        out = engine.play(compiled._replace(deal_rotation=r), config.seed, games, ids, params, trace=True)

        def moved(*args, r=r):
            deck = original(*args)
            return moved_blocks(deck, config.players, compiled.hand_size, compiled.table_size, r)

        monkeypatch.setattr(ref, shuffle_name, moved)
        for g in range(GAMES):
            meta = {"spec": config.spec, "rules": dict(config.rules), "policies": list(config.policies)}
            kernel = game_trace(out, g, **meta, seed=config.seed, game=g)
            reference = ref.play_game(config.seed, g, config.rules, config.policies)
            assert normalised(kernel["events"]) == normalised(reference["events"]), (variant, r, g)


def test_the_control_sums_to_zero_over_every_orbit():
    """Game g's shuffles moved on b seats are a member of g's orbit, and the member's game moved on r more seats is
    game g moved on b + r (the test above): the control y(member) - mean over r of y(member moved on r), summed
    over the P members of each orbit, is exactly 0, for the win and the margin."""
    config = RunConfig.create("scopone", games=200, seed=9)
    run = SimpleNamespace(variant="scopone", rules=dict(config.rules), seed=9, players=4)
    games = np.arange(200, dtype=np.int64)
    outcomes = [replay_outcomes(run, games, b) for b in range(4)]
    for y in (1, 2):
        orbit = np.stack([o[y] for o in outcomes])  # [b, game]: y of orbit member b
        control = [orbit[b] - np.mean([orbit[(b + r) % 4] for r in range(4)], axis=0) for b in range(4)]
        assert np.abs(np.sum(control, axis=0)).max() < 1e-12
        assert np.abs(control[0]).max() > 0  # the control is not trivially zero
    first_dealers = {tuple(o[0]) for o in outcomes}
    assert len(first_dealers) == 1  # moving the hands leaves the first dealer where it was


def test_dealt_hands_move_with_the_rotation():
    config = RunConfig.create("scopa", rules={"players": 3}, games=50, seed=3)
    rules = config.compiled_rules()
    games, n_deals = np.arange(50), np.full(50, 4)
    base = dealt_hands(rules, 3, games, n_deals)
    for r in (1, 2):
        moved = dealt_hands(rules._replace(deal_rotation=r), 3, games, n_deals)
        assert np.array_equal(moved.hands, np.roll(base.hands, r, axis=1))
        assert np.array_equal(moved.table, base.table) and np.array_equal(moved.first_dealer, base.first_dealer)


@pytest.fixture(scope="module")
def greedy_run(tmp_path_factory):
    path = tmp_path_factory.mktemp("mirror") / "scopa"
    api.simulate(RunConfig.create("scopa", games=40_000, seed=23, chunk_size=10_000), path, threads=1)
    return load_run(path)


def test_mirror_controls_of_greedy_self_play(greedy_run):
    """Greedy self-play replayed as dealt is the run itself: the controls are the run's outcome minus the moved
    replay's; their means are zero within their errors."""
    games = greedy_run.games.sort_values("game")
    part = {c: games[c].to_numpy() for c in games.columns}
    z = mirror_controls(greedy_run, part)
    assert z.shape == (len(games), len(mirror_names(2)))
    _, won, _ = replay_outcomes(greedy_run, part["game"], 1)
    assert np.array_equal(z[:, 0], (games.winner == games.first_player).to_numpy().astype(int) - won)
    for k in range(z.shape[1]):
        assert abs(stats.ttest_1samp(z[:, k], 0).statistic) < 4


def test_mirror_intervals_cover_the_long_run_rate(greedy_run):
    """200 blocks of 200 games: the adjusted 95% intervals (mirror controls, and both sets) cover the 40,000
    games' plain rate about 95% of the time (binomial sd 1.5 points), and the mirror is the stronger control."""
    games = greedy_run.games.sort_values("game")
    part = {c: games[c].to_numpy() for c in games.columns}
    weights = np.array(list(control_weights("scopa").values()))
    x = np.column_stack([controls_of_part(greedy_run, part, weights), mirror_controls(greedy_run, part)])
    y = (games.winner == games.first_player).to_numpy().astype(np.int64)
    k = len(weights)
    sets = {"mirrored replays": list(range(k, x.shape[1])), "both": list(range(x.shape[1]))}
    target = y.mean()
    covered = dict.fromkeys(sets, 0)
    for block in np.split(np.arange(len(y)), 200):
        m = Moments(x.shape[1] + 1)
        m.add(np.column_stack([x[block], y[block]]))
        for name, xs in sets.items():
            r = cv_estimate(m, x.shape[1], xs)
            covered[name] += r["ci_low"] <= target <= r["ci_high"]
    for name, hits in covered.items():
        assert 0.91 <= hits / 200 <= 0.99, (name, hits)
    table = control_table(greedy_run, mirror=True).set_index(["measure", "control"])
    assert list(table.index.get_level_values("control").unique()) == list(CONTROL_SETS)
    wins = table.loc["first player's side wins"]
    assert wins.loc["mirrored replays", "gain"] > 1.5 * wins.loc["cards dealt", "gain"]
    assert wins.loc["both", "r2"] >= wins.loc["mirrored replays", "r2"] - 1e-12


def test_deals_played_on_their_own_start_as_the_games_do():
    """Every game's first deal starts from totals of zero, so greedy self-play of it on its own is the run's first
    deal; the moved deals are the run's deals with the hands moved (``deal_points`` with ``deal_rotation``)."""
    from simcore.dealt import deal_points

    for variant, players in (("scopa", 2), ("kaszino", 2), ("scopone", 4), ("skopa", 3)):
        config = RunConfig.create(variant, players=players, games=300, seed=4)
        rules = config.compiled_rules()
        ids, params = policy_arrays(config.policy_choices(), config.rules)
        games = np.arange(300, dtype=np.int64)
        for r in range(players):
            moved = rules._replace(deal_rotation=r)
            out = engine.play(moved, config.seed, games, ids, params)
            points = deal_points(moved, config.seed, games, np.ones(300, np.int64), ids, params)
            assert np.array_equal(points, out.deal_points[:, 0].sum(axis=2)), (variant, r)


def test_analyze_replays_only_when_asked(tmp_path):
    """The replays cost more CPU than the games of a greedy run, so ``analyze``/``report`` show the mirror
    control sets only with ``--mirror``; without it the table has the cards-dealt rows alone."""
    from typer.testing import CliRunner

    from cli.app import app

    path = tmp_path / "run"
    api.simulate(RunConfig.create("scopa", games=400, seed=5, chunk_size=200), path, threads=1)
    runner = CliRunner()
    args = ["analyze", str(path), "--table", "control_variate", "--format", "csv"]
    plain = runner.invoke(app, args)
    mirrored = runner.invoke(app, [*args, "--mirror"])
    assert plain.exit_code == 0 and mirrored.exit_code == 0, plain.output + mirrored.output
    assert "cards dealt" in plain.output and "mirrored replays" not in plain.output
    assert "mirrored replays" in mirrored.output and "both" in mirrored.output
    page = tmp_path / "report.html"
    assert runner.invoke(app, ["report", str(path), "--out", str(page), "--mirror"]).exit_code == 0
    assert "mirrored replays" in page.read_text()
