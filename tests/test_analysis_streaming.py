"""The analysis reads both tables part by part (issue 10): counted samples give numpy's and scipy's numbers, a run
of many parts gives the same tables as the same rows held whole, and no whole table is ever read by ``analyze``,
``report``, ``balance`` or the simulate summary."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scipy import stats
from typer.testing import CliRunner

import analysis.load
from analysis import Run, compare_runs, convergence, game_shape, load_run, mean_interval
from analysis.balance import category_distribution, mean_difference
from analysis.hist import IntHist, hist_difference, hist_interval
from analysis.tables import Analysis, run_tables
from cli.app import app
from simcore import api
from simcore.config import RunConfig

CHUNK = 250


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Runs of several parts each: 2-player Scopa, 3-player Skopa (mixed policies), Kaszinó (ends mid-deal)."""
    base = tmp_path_factory.mktemp("streaming")
    configs = {
        "scopa": RunConfig.create("scopa", games=2000, seed=5, chunk_size=CHUNK),
        "skopa3": RunConfig.create(
            "skopa", policies=["greedy", "random", "greedy"], rules={"players": 3}, games=1000, seed=3, chunk_size=CHUNK
        ),
        "kaszino": RunConfig.create("kaszino", games=1000, seed=2, chunk_size=CHUNK),
    }
    for name, config in configs.items():
        api.simulate(config, base / name)
    return {name: base / name for name in configs}


def whole(path) -> Run:
    """The same run with both tables read whole into pandas: one part of everything."""
    run = load_run(path)
    return Run(run.path, run.manifest, run.meta, run.games.copy(), run.deals.copy())


# ---------------------------------------------------------------- counted samples


def _hists_equal(a: IntHist, b: IntHist) -> bool:
    return a.lo == b.lo and np.array_equal(a.counts, b.counts)


@pytest.mark.parametrize("spread", [3, 40, 200])
def test_two_sides_joint_histogram_counts_what_the_rows_count(spread, monkeypatch):
    """Two sides are counted from one joint histogram (``DealStats._add_pairs``); every statistic must equal the
    row-by-row count, negative values and values too wide for the histogram (which fall back) included."""
    from analysis.deals import DealStats

    rng = np.random.default_rng(spread)
    n = 3000
    led = rng.integers(0, 2, n)
    part = {"game": np.repeat(np.arange(n // 3), 6)[: 2 * n], "deal": np.tile(np.repeat([0, 1, 2], 2), n // 3)}
    part |= {"side": np.tile([0, 1], n), "led": np.stack([led == 0, led == 1], 1).ravel()}
    part["dealt"] = ~part["led"]
    for m in ("a", "b", *DealStats(["a", "b"], 2).metrics[2:]):
        part[m] = rng.integers(-spread // 4, spread, 2 * n).astype(np.int16)
    joint, rows = DealStats(["a", "b"], 2), DealStats(["a", "b"], 2)
    joint.add(part)
    monkeypatch.setattr(DealStats, "_add_pairs", lambda *args: False)
    rows.add(part)
    assert (joint.deals, joint.led, joint.dealt, joint.all) == (rows.deals, rows.led, rows.dealt, rows.all)
    for m in joint.metrics:
        assert _hists_equal(joint.diff[m], rows.diff[m]) and _hists_equal(joint.total[m], rows.total[m])
    for c in ("a", "b"):
        assert all(_hists_equal(x, y) for x, y in zip(joint.side[c], rows.side[c], strict=True))
        assert np.array_equal(joint.scored[c], rows.scored[c])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_int_hist_gives_numpy_moments_and_percentiles(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-7, 30, size=1001) * rng.integers(0, 2, size=1001)  # many zeros, negatives, gaps
    hist = IntHist()
    for piece in np.array_split(x, 7):  # filled piece by piece, in any order of value ranges
        hist.add(piece)
    assert hist.n == len(x) and hist.total == int(x.sum())
    assert hist.mean == x.mean()  # exact sums: the very same float
    assert hist.var == pytest.approx(x.var(ddof=1), rel=1e-14)
    q = [0, 10, 25, 50, 73.5, 90, 100]
    assert hist.percentiles(q) == list(np.percentile(x, q))  # the very same floats
    assert (hist.min, hist.max) == (x.min(), x.max())
    assert hist.count(0, 0) == int((x == 0).sum()) and hist.count(1) == int((x > 0).sum())
    values, counts = hist.items()
    expected_values, expected_counts = np.unique(x, return_counts=True)
    np.testing.assert_array_equal(values, expected_values)
    np.testing.assert_array_equal(counts, expected_counts)


def test_int_hist_intervals_are_scipys():
    rng = np.random.default_rng(7)
    a, b = rng.integers(0, 12, 400), rng.integers(-3, 9, 250)
    for level in (0.8, 0.95, 0.999):
        got, want = hist_interval(IntHist.of(a), level, popmean=5), mean_interval(a, level, popmean=5)
        assert got == pytest.approx(want, rel=1e-12)
        t = stats.ttest_ind(b, a, equal_var=False)
        ci = t.confidence_interval(level)
        diff = hist_difference(IntHist.of(a), IntHist.of(b), level)
        assert diff == pytest.approx(
            {"difference": b.mean() - a.mean(), "ci_low": ci.low, "ci_high": ci.high, "p_value": t.pvalue}, rel=1e-12
        )
        assert diff == pytest.approx(mean_difference(a, b, level), rel=1e-12)
    # the edge cases of the array versions: constant samples, too few values
    assert hist_interval(IntHist.of(np.full(5, 3)))["ci_low"] == 3.0
    assert math.isnan(hist_interval(IntHist.of(np.array([4])))["ci_low"])
    assert hist_difference(IntHist.of(np.ones(5, int)), IntHist.of(np.full(7, 2))) == mean_difference(
        np.ones(5), np.full(7, 2.0)
    )
    assert math.isnan(hist_interval(IntHist())["mean"])
    with pytest.raises(ValueError, match="integer"):
        IntHist.of(np.array([0.5]))


# ---------------------------------------------------------------- many parts give the tables of one


@pytest.mark.parametrize("name", ["scopa", "skopa3", "kaszino"])
def test_tables_part_by_part_equal_the_tables_of_the_whole(runs, name):
    streamed = run_tables(load_run(runs[name]), level=0.9)
    held = run_tables(whole(runs[name]), level=0.9)
    assert list(streamed) == list(held)
    for table in streamed:
        pd.testing.assert_frame_equal(streamed[table], held[table], rtol=1e-12, obj=table)
    pd.testing.assert_frame_equal(category_distribution(load_run(runs[name])), category_distribution(whole(runs[name])))


def test_game_shape_is_the_direct_pandas_computation(runs):
    run = load_run(runs["skopa3"])
    games, deals = run.games, run.deals
    shape = game_shape(run)
    per_deal = deals.groupby(["game", "deal"])[["points", "sweeps"]].sum()
    totals = np.sort(games[["total_0", "total_1", "total_2"]].to_numpy(), axis=1)
    samples = {
        "deals per game": games["deals"],
        "plays per game": games["plays"],
        "redeals per game": games["redeals"],
        "points per deal": per_deal["points"],
        "sweeps per deal": per_deal["sweeps"],
        "margin of victory": totals[:, -1] - totals[:, -2],
    }
    for metric, sample in samples.items():
        x = np.asarray(sample, dtype=float)
        row = shape.loc[metric]
        assert row["estimate"] == x.mean(), metric
        assert row["std"] == pytest.approx(x.std(ddof=1), rel=1e-12), metric
        assert [row["p10"], row["median"], row["p90"]] == list(np.percentile(x, [10, 50, 90])), metric
        ci = stats.ttest_1samp(x, 0).confidence_interval(0.95)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((ci.low, ci.high), rel=1e-12), metric
        assert row["n"] == len(x)


def test_comparison_is_welch_on_the_direct_samples(runs):
    a, b = load_run(runs["scopa"]), load_run(runs["kaszino"])
    table = compare_runs(a, b, level=0.9)
    for metric, column in (("points per deal", "points"), ("sweeps per deal", "sweeps")):
        xa = a.deals.groupby(["game", "deal"])[column].sum().to_numpy(float)
        xb = b.deals.groupby(["game", "deal"])[column].sum().to_numpy(float)
        t = stats.ttest_ind(xb, xa, equal_var=False)
        ci = t.confidence_interval(0.9)
        row = table.loc[metric]
        assert (row["difference"], row["ci_low"], row["ci_high"], row["p_value"]) == pytest.approx(
            (xb.mean() - xa.mean(), ci.low, ci.high, t.pvalue), rel=1e-10
        )
    led = a.deals[a.deals["led"]].set_index(["game", "deal"])["points"]
    dealt = a.deals[a.deals["dealt"]].set_index(["game", "deal"])["points"]
    assert table.loc["leader's margin per deal", "a"] == pytest.approx((led - dealt).mean(), abs=1e-15)


def test_convergence_follows_the_games_in_order_across_parts(runs):
    run = load_run(runs["scopa"])
    conv = convergence(run, points=40)
    won = (run.games["winner"] == run.games["first_player"]).to_numpy()
    assert conv["wins"].tolist() == [int(won[:n].sum()) for n in conv["games"]]
    assert CHUNK in conv["games"].tolist() or any(n % CHUNK for n in conv["games"])  # crosses part boundaries


# ---------------------------------------------------------------- parts one at a time


class PartReads:
    """Wraps ``analysis.load._read_part``: counts reads, records rows, and the Arrow memory in use at each read."""

    def __init__(self, monkeypatch):
        self.calls: list[tuple[str, int, int]] = []
        original = analysis.load._read_part

        def counting(part, table, manifest, columns):
            data = original(part, table, manifest, columns)
            self.calls.append((table, data.num_rows, pa.total_allocated_bytes()))
            return data

        def no_whole_table(*args, **kwargs):
            raise AssertionError("a whole table was read")

        monkeypatch.setattr(analysis.load, "_read_part", counting)
        monkeypatch.setattr(analysis.load, "_read_table", no_whole_table)

    def rows(self, table: str) -> list[int]:
        return [n for t, n, _ in self.calls if t == table]


def test_analysis_reads_each_part_once_and_lets_it_go(tmp_path, monkeypatch):
    path = tmp_path / "run"
    api.simulate(RunConfig.create("scopa", games=6000, seed=8, chunk_size=1000), path)
    files = sorted((path / "deals").glob("*.parquet"))
    sizes = [pq.ParquetFile(p).metadata.num_rows for p in files]
    largest = max(pq.read_table(p).nbytes for p in files)
    reads = PartReads(monkeypatch)
    baseline = pa.total_allocated_bytes()
    Analysis.of([load_run(path)], 0.95)
    assert len(sizes) == 6
    # one pass over the deals table serves every table, reading the parts in turn, one per call
    assert reads.rows("deals") == sizes
    assert set(reads.rows("games")) == {1000}
    # the Arrow memory in use while part k is read holds that part, not the parts before it (two would be 2x)
    peak = max(used for _, _, used in reads.calls) - baseline
    assert peak < 1.5 * largest, (peak, largest, reads.calls)


def test_commands_never_read_a_whole_table(runs, monkeypatch, tmp_path):
    largest = max(pq.ParquetFile(p).metadata.num_rows for run in runs.values() for p in run.glob("*/*.parquet"))
    reads = PartReads(monkeypatch)
    runner = CliRunner()
    for args in (
        ["analyze", runs["skopa3"], "--format", "json"],
        ["analyze", runs["scopa"], runs["kaszino"]],
        ["report", runs["kaszino"], "--out", tmp_path / "r.html"],
    ):
        result = runner.invoke(app, [str(a) for a in args])
        assert result.exit_code == 0, result.output
    assert reads.rows("deals") and max(n for _, n, _ in reads.calls) <= largest  # one part at a time


def test_simulate_summary_and_balance_stream(tmp_path, monkeypatch):
    reads = PartReads(monkeypatch)
    runner = CliRunner()
    result = runner.invoke(app, ["simulate", "-n", "600", "--chunk-size", "200", "--seed", "1", "-q",
                                 "--out", str(tmp_path / "run")])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert reads.rows("games") == reads.rows("deals") == []  # the summary was counted as the chunks were written
    reads.calls.clear()
    result = runner.invoke(app, ["balance", "--vary", "target=11,16", "-n", "400", "--chunk-size", "200",
                                 "--seed", "2", "-q", "--out", str(tmp_path / "grid")])  # fmt: skip
    assert result.exit_code == 0, result.output
    # two rule sets of two parts, each read once for its own tables and once more, in step with the other rule
    # set's, for the paired comparison with the baseline (analysis.paired)
    assert set(reads.rows("games")) == {200} and len(reads.rows("deals")) == 2 * 2 * 2
