"""analysis (issue 5): seat advantage by seat, side, deal and pairing; balance statistics; comparisons of runs,
each checked against scipy / statsmodels called directly or against plain pandas; early-stopped runs."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats import proportion as smp  # a module: pytest would collect its test_* functions

from analysis import (
    category_distribution,
    category_table,
    compare_runs,
    convergence,
    deal_advantage,
    game_shape,
    load_run,
    load_runs,
    mean_interval,
    pairing_advantage,
    points_per_deal,
    seat_advantage,
    seat_sides,
)
from analysis.balance import deal_matrix, grid_categories, grid_changes, grid_table, mean_difference, rate_difference
from analysis.precision import PrecisionStop, wilson_half_width
from simcore import api
from simcore.config import RunConfig
from simcore.errors import OutputError


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """Small real runs: 2-player Scopa with two rule sets, 3-player Skopa, 4-player Foracio (mixed policies)."""
    base = tmp_path_factory.mktemp("stats")
    configs = {
        "scopa": RunConfig.create("scopa", games=3000, seed=7, chunk_size=1000),
        "scopa_nopriority": RunConfig.create(
            "scopa", games=3000, seed=7, chunk_size=1000, rules={"single_card_priority": "false"}
        ),
        "skopa3": RunConfig.create("skopa", players=3, games=600, seed=3, chunk_size=300),
        "foracio": RunConfig.create("foracio", policies=["greedy", "random"] * 2, games=400, seed=5, chunk_size=400),
        "kaszino": RunConfig.create("kaszino", games=600, seed=2, chunk_size=600),
    }
    paths = {}
    for name, config in configs.items():
        paths[name] = base / name
        api.simulate(config, paths[name])
    return paths


def side_of(run, column: str) -> np.ndarray:
    return seat_sides(run.players)[run.games[column].to_numpy()]


# ---------------------------------------------------------------- seat advantage


@pytest.mark.parametrize("name", ["scopa", "skopa3", "foracio"])
def test_seat_advantage_matches_pandas_and_scipy(runs, name):
    run = load_run(runs[name])
    adv = seat_advantage(run).set_index(["role", "group"])
    games = run.games
    expected = 1 / run.n_sides
    for role, column in (("first player", "first_player"), ("first dealer", "first_dealer")):
        won = games["winner"].to_numpy() == side_of(run, column)
        groups = {"all": np.ones(len(games), bool)}
        groups |= {f"seat {s}": games[column].to_numpy() == s for s in range(run.players)}
        if run.players == 4:
            groups |= {f"side {k}": side_of(run, column) == k for k in range(2)}
        assert sorted(adv.loc[role].index) == sorted(groups)
        for group, mask in groups.items():
            row = adv.loc[(role, group)]
            wins, n = int((won & mask).sum()), int(mask.sum())
            assert (row["wins"], row["games"]) == (wins, n)
            ci = stats.binomtest(wins, n).proportion_ci(method="wilson")
            assert (row["ci_low"], row["ci_high"]) == pytest.approx((ci.low, ci.high), abs=1e-12)
            assert row["p_value"] == pytest.approx(stats.binomtest(wins, n, expected).pvalue, rel=1e-9)
            assert row["expected"] == pytest.approx(expected)


def test_pairing_advantage_splits_by_policy(runs):
    run = load_run(runs["foracio"])  # greedy on side 0 (seats 0, 2), random on side 1
    pairing = pairing_advantage(run).set_index(["role", "pairing"])
    assert sorted(pairing.index) == sorted(
        [(r, p) for r in ("first player", "first dealer") for p in ("greedy v random", "random v greedy")]
    )
    first = side_of(run, "first_player")
    won = run.games["winner"].to_numpy() == first
    assert pairing.loc[("first player", "greedy v random"), "games"] == int((first == 0).sum())
    assert pairing.loc[("first player", "greedy v random"), "wins"] == int((won & (first == 0)).sum())
    assert pairing["games"].groupby(level="role").sum().tolist() == [len(run.games)] * 2
    # self-play: one pairing per role, equal to the "all" rows of seat_advantage
    scopa = load_run(runs["scopa"])
    pairs = pairing_advantage(scopa)
    adv = seat_advantage(scopa)
    assert pairs["pairing"].tolist() == ["greedy v greedy"] * 2
    assert pairs["wins"].tolist() == adv[adv["group"] == "all"]["wins"].tolist()


def test_deal_advantage_against_scipy(runs):
    run = load_run(runs["scopa"])
    deals = run.deals
    led = deals[deals["led"]].set_index(["game", "deal"])["points"].astype(float)
    dealt = deals[deals["dealt"]].set_index(["game", "deal"])["points"].astype(float)
    margin = (led - dealt).to_numpy()
    table = deal_advantage(run).set_index("measure")
    row = table.loc["points margin per deal"]
    t = stats.ttest_1samp(margin, 0.0)
    ci = t.confidence_interval(0.95)
    assert row["estimate"] == pytest.approx(margin.mean(), abs=1e-12)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((ci.low, ci.high), abs=1e-12)
    assert row["p_value"] == pytest.approx(t.pvalue, rel=1e-9)
    assert row["estimate"] == pytest.approx(points_per_deal(run).loc["points", "difference"], abs=1e-12)
    wins, decided = int((margin > 0).sum()), int((margin != 0).sum())
    row = table.loc["deals won by the leader"]
    assert (row["estimate"], row["n"]) == (pytest.approx(wins / decided), decided)
    assert row["p_value"] == pytest.approx(stats.binomtest(wins, decided, 0.5).pvalue, rel=1e-9)
    totals = run.games[["total_0", "total_1"]].to_numpy()
    first = run.games["first_player"].to_numpy()
    final = totals[np.arange(len(first)), first] - totals[np.arange(len(first)), 1 - first]
    assert table.loc["final margin of the first player", "estimate"] == pytest.approx(final.mean())


def test_mean_interval_edges():
    assert mean_interval([3.0, 3.0, 3.0]) == {
        "mean": 3.0,
        "ci_low": 3.0,
        "ci_high": 3.0,
        "p_value": 0.0,
        "n": 3,
        "std": 0.0,
    }
    assert mean_interval([0, 0], popmean=0)["p_value"] == 1.0
    one = mean_interval([1.5])
    assert one["mean"] == 1.5 and math.isnan(one["ci_low"]) and math.isnan(one["p_value"])
    with pytest.raises(ValueError):
        mean_interval([1, 2], level=1.5)


# ---------------------------------------------------------------- balance


@pytest.mark.parametrize("name", ["scopa", "skopa3", "foracio", "kaszino"])
def test_category_table_matches_pandas(runs, name):
    run = load_run(runs[name])
    table = category_table(run)
    assert list(table.index) == run.categories
    deals = run.deals
    n_deals = len(deals) // run.n_sides
    for cat in run.categories:
        wide = deals.pivot_table(index=["game", "deal"], columns="side", values=cat, aggfunc="sum")
        assert len(wide) == n_deals
        for k in range(run.n_sides):
            assert table.loc[cat, f"side_{k}"] == pytest.approx(wide[k].mean(), abs=1e-12)
            sem = stats.sem(wide[k]) if wide[k].std() > 0 else 0.0
            assert table.loc[cat, f"side_{k}_half_width"] == pytest.approx(
                stats.t.ppf(0.975, n_deals - 1) * sem, abs=1e-9
            )
        scored = (wide != 0).sum(axis=1)
        assert table.loc[cat, "tied"] == pytest.approx((scored == 0).mean())
        assert table.loc[cat, "one_side"] == pytest.approx((scored == 1).mean())
        assert table.loc[cat, "shared"] == pytest.approx((scored >= 2).mean())
        assert table.loc[cat, "per_deal"] == pytest.approx(wide.sum(axis=1).mean())
    dist = category_distribution(run)
    assert dist.groupby(["category", "side"])["share"].sum().to_numpy() == pytest.approx(1.0)
    assert (dist.groupby(["category", "side"])["deals"].sum() == n_deals).all()


def test_deal_matrix_sorts_shuffled_rows(runs):
    run = load_run(runs["skopa3"])
    expected = deal_matrix(run, ["points", "sweeps"])
    run.deals = run.deals.sample(frac=1.0, random_state=1).reset_index(drop=True)
    np.testing.assert_array_equal(deal_matrix(run, ["points", "sweeps"]), expected)
    run.deals = run.deals.iloc[1:]
    with pytest.raises(ValueError, match="multiple of 3 sides"):
        deal_matrix(run, ["points"])


def test_game_shape_matches_pandas(runs):
    run = load_run(runs["kaszino"])  # Kaszinó ends mid-deal ("AUSZ!")
    shape = game_shape(run)
    games, deals = run.games, run.deals
    for metric, column in (("deals per game", "deals"), ("plays per game", "plays"), ("redeals per game", "redeals")):
        assert shape.loc[metric, "estimate"] == pytest.approx(games[column].mean())
        assert shape.loc[metric, "median"] == pytest.approx(games[column].median())
    per_deal = deals.groupby(["game", "deal"])[["points", "sweeps"]].sum()
    assert shape.loc["points per deal", "estimate"] == pytest.approx(per_deal["points"].mean())
    assert shape.loc["sweeps per deal", "estimate"] == pytest.approx(per_deal["sweeps"].mean())
    ci = stats.ttest_1samp(per_deal["sweeps"], 0).confidence_interval(0.95)
    assert (shape.loc["sweeps per deal", "ci_low"], shape.loc["sweeps per deal", "ci_high"]) == pytest.approx(
        (ci.low, ci.high)
    )
    margin = (games["total_0"] - games["total_1"]).abs()
    assert shape.loc["margin of victory", "estimate"] == pytest.approx(margin.mean())
    mid = int(games["mid_deal"].sum())
    assert mid > 0
    low, high = smp.proportion_confint(mid, len(games), method="wilson")
    assert shape.loc["games decided mid-deal", "estimate"] == pytest.approx(mid / len(games))
    assert (shape.loc["games decided mid-deal", "ci_low"], shape.loc["games decided mid-deal", "ci_high"]) == (
        pytest.approx(low),
        pytest.approx(high),
    )


def test_rate_and_mean_differences_are_statsmodels_and_scipy():
    d = rate_difference(480, 1000, 530, 1100)
    low, high = smp.confint_proportions_2indep(530, 1100, 480, 1000, method="newcomb", compare="diff")
    test = smp.test_proportions_2indep(530, 1100, 480, 1000, method="score", compare="diff")
    assert d == {
        "difference": pytest.approx(530 / 1100 - 480 / 1000),
        "ci_low": pytest.approx(low),
        "ci_high": pytest.approx(high),
        "p_value": pytest.approx(test.pvalue),
    }
    # both rates 0: the score test is undefined, the Agresti-Caffo test stands in, no warning escapes
    zero = rate_difference(0, 100, 0, 200)
    assert zero["difference"] == 0 and zero["ci_low"] < 0 < zero["ci_high"] and 0 < zero["p_value"] <= 1
    rng = np.random.default_rng(4)
    a, b = rng.normal(0, 1, 300), rng.normal(0.3, 2, 200)
    m = mean_difference(a, b)
    t = stats.ttest_ind(b, a, equal_var=False)
    ci = t.confidence_interval(0.95)
    assert m == {
        "difference": pytest.approx(b.mean() - a.mean()),
        "ci_low": pytest.approx(ci.low),
        "ci_high": pytest.approx(ci.high),
        "p_value": pytest.approx(t.pvalue),
    }
    # one constant sample is fine (no scipy precision warning), two constant ones have a point interval
    assert mean_difference(np.ones(50), b)["p_value"] < 1
    assert mean_difference(np.ones(5), np.full(7, 2.0)) == {
        "difference": 1.0,
        "ci_low": 1.0,
        "ci_high": 1.0,
        "p_value": 0.0,
    }


def test_compare_runs(runs):
    a, b = load_runs([runs["scopa"], runs["scopa_nopriority"]])
    table = compare_runs(a, b, paired=False)  # the unpaired methods (tests/test_paired.py: the paired ones)
    assert table.loc["first player advantage", "kind"] == "rate"
    wa = int((a.games["winner"] == a.games["first_player"]).sum())
    wb = int((b.games["winner"] == b.games["first_player"]).sum())
    low, high = smp.confint_proportions_2indep(wb, 3000, wa, 3000, method="newcomb", compare="diff")
    row = table.loc["first player advantage"]
    assert row["a"] == pytest.approx(wa / 3000 - 0.5) and row["b"] == pytest.approx(wb / 3000 - 0.5)
    assert (row["difference"], row["ci_low"], row["ci_high"]) == pytest.approx(((wb - wa) / 3000, low, high))
    sweeps_a = a.deals.groupby(["game", "deal"])["sweeps"].sum().to_numpy(float)
    sweeps_b = b.deals.groupby(["game", "deal"])["sweeps"].sum().to_numpy(float)
    t = stats.ttest_ind(sweeps_b, sweeps_a, equal_var=False)
    row = table.loc["sweeps per deal"]
    assert (row["difference"], row["p_value"]) == pytest.approx((sweeps_b.mean() - sweeps_a.mean(), t.pvalue))
    assert {f"{c} per deal" for c in a.categories} <= set(table.index)
    # a run against itself: no difference, p = 1
    same = compare_runs(a, a)
    assert (same["difference"] == 0).all()
    assert same.loc["first player advantage", "p_value"] == pytest.approx(1.0)


def test_compare_runs_with_different_numbers_of_sides(runs):
    a, b = load_runs([runs["scopa"], runs["skopa3"]])
    table = compare_runs(a, b)
    wa = int((a.games["winner"] == a.games["first_player"]).sum())
    wb = int((b.games["winner"] == b.games["first_player"]).sum())
    row = table.loc["first player advantage"]
    shift = 1 / 3 - 1 / 2
    assert row["difference"] == pytest.approx(wb / 600 - wa / 3000 - shift)
    low, high = smp.confint_proportions_2indep(wb, 600, wa, 3000, method="newcomb", compare="diff")
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low - shift, high - shift))
    test = smp.test_proportions_2indep(wb, 600, wa, 3000, value=shift, method="score", compare="diff")
    assert row["p_value"] == pytest.approx(test.pvalue)
    assert "cards per deal" in table.index and "coins per deal" not in table.index  # shared categories only


def test_convergence(runs):
    run = load_run(runs["scopa"])
    conv = convergence(run, points=50)
    assert conv["games"].iloc[0] == 100 and conv["games"].iloc[-1] == 3000
    assert conv["games"].is_monotonic_increasing
    won = (run.games["winner"] == run.games["first_player"]).to_numpy()
    for row in conv.itertuples():
        assert row.wins == won[: row.games].sum()
        low, high = smp.proportion_confint(row.wins, row.games, method="wilson")
        assert (row.ci_low, row.ci_high) == pytest.approx((low, high))
    final = seat_advantage(run).iloc[0]
    assert conv["rate"].iloc[-1] == pytest.approx(final["rate"])
    assert conv["ci_low"].iloc[-1] == pytest.approx(final["ci_low"])


def test_grid_tables(runs):
    labels = ["priority", "no priority"]
    pair = load_runs([runs["scopa"], runs["scopa_nopriority"]])
    table = grid_table(pair, labels)
    assert table["rule_set"].tolist() == labels
    adv = seat_advantage(pair[1]).iloc[0]
    assert table.loc[1, "first_player_rate"] == pytest.approx(adv["rate"])
    assert table.loc[1, "first_player_change"] == pytest.approx(
        compare_runs(*pair).loc["first player advantage", "difference"]
    )
    assert math.isnan(table.loc[0, "first_player_change_p"])
    assert table.loc[0, "deals_per_game"] == pytest.approx(pair[0].games["deals"].mean())
    cats = grid_categories(pair, labels)
    assert list(cats.columns) == labels and list(cats.index) == pair[0].categories
    changes = grid_changes(pair, labels)
    assert set(changes["rule_set"]) == {"no priority"} and set(changes["baseline"]) == {"priority"}


# ---------------------------------------------------------------- early-stopped runs


def test_precision_stop_ends_a_run_early_and_it_loads(tmp_path):
    config = RunConfig.create("scopa", games=5000, seed=11, chunk_size=500)
    stop = PrecisionStop(0.03)  # reached after ~1,100 games: 3 chunks
    result = api.run_chunks(api.open_run(config, tmp_path / "run"), stop=stop)
    assert result.stopped == "precision"
    assert result.games == stop.games == 1500 and result.games_played == 1500
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["complete"] is True and manifest["stopped"] == "precision"
    assert manifest["games_written"] == 1500 and manifest["chunks_done"] == [0, 1, 2]
    run = load_run(tmp_path / "run")
    assert len(run.games) == 1500 and run.stopped == "precision"
    assert run.describe()["games_requested"] == 5000
    won = (run.games["winner"] == run.games["first_player"]).to_numpy()
    assert stop.wins == won.sum()
    assert stop.half_width == pytest.approx(wilson_half_width(won.sum(), 1500)) and stop.half_width <= 0.03
    assert wilson_half_width(won[:1000].sum(), 1000) > 0.03  # it did not stop a chunk too late


def test_stop_on_the_last_chunk_is_not_early(tmp_path):
    config = RunConfig.create("scopa", games=1000, seed=11, chunk_size=500)
    result = api.run_chunks(api.open_run(config, tmp_path / "run"), stop=lambda writer: True)
    assert result.stopped == "early" and result.games == 500
    config = RunConfig.create("scopa", games=500, seed=11, chunk_size=500)
    result = api.run_chunks(api.open_run(config, tmp_path / "one"), stop=lambda writer: "precision")
    assert result.stopped is None and result.games == 500
    assert "stopped" not in json.loads((tmp_path / "one" / "manifest.json").read_text())


def test_games_written_must_match_the_parts(runs, tmp_path):
    copy = Path(shutil.copytree(runs["kaszino"], tmp_path / "copy"))
    manifest = json.loads((copy / "manifest.json").read_text())
    assert manifest["games_written"] == 600
    manifest["games_written"] = 700
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(OutputError, match="700 games written"):
        load_run(copy)


def test_precision_stop_validates():
    for bad in (0, -0.1, 0.5, True, "0.1"):
        with pytest.raises(ValueError):
            PrecisionStop(bad)
    assert math.isnan(PrecisionStop(0.1).half_width)


def test_load_runs_needs_folders():
    with pytest.raises(ValueError):
        load_runs([])


def test_tables_of_one_run_are_numbers(runs):
    from analysis.tables import TITLES, run_tables

    tables = run_tables(load_run(runs["foracio"]))
    assert list(tables) == [n for n in TITLES if not n.startswith("grid") and n != "comparison"]
    for df in tables.values():
        assert isinstance(df.index, pd.RangeIndex)
