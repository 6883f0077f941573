"""analysis: exact statistics on hand-built tables, agreement with plain pandas on real runs, and load errors."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from scipy import stats

from analysis import (
    Run,
    load_run,
    opening_advantage,
    points_per_deal,
    run_summary,
    seat_sides,
    seat_win_rates,
    win_rate,
)
from simcore import api, results
from simcore.config import RunConfig
from simcore.errors import OutputError
from simcore.variants.scopa import SPEC

ROOT = Path(__file__).resolve().parents[1]
CATS = ["a", "b"]
METRICS = [*CATS, "points", "sweeps", "cards_taken"]


# ---------------------------------------------------------------- synthetic runs


def synthetic_run(games: pd.DataFrame, deals: pd.DataFrame | None = None, players: int = 2) -> Run:
    sides = seat_sides(players)
    meta = {
        "variant": "test",
        "players": players,
        "sides": [np.flatnonzero(sides == s).tolist() for s in range(int(sides.max()) + 1)],
        "categories": CATS,
        "policies": [f"p{seat}" for seat in range(players)],
    }
    return Run(Path("synthetic"), {}, meta, games, deals if deals is not None else pd.DataFrame())


def synthetic_games(first_dealer: list[int], winner: list[int], players: int) -> pd.DataFrame:
    first_dealer_arr = np.array(first_dealer, np.int8)
    return pd.DataFrame(
        {
            "game": np.arange(len(first_dealer), dtype=np.int64),
            "first_dealer": first_dealer_arr,
            "first_player": ((first_dealer_arr + 1) % players).astype(np.int8),
            "winner": np.array(winner, np.int8),
            "deals": np.ones(len(first_dealer), np.int16),
        }
    )


def synthetic_deals(rows: list[tuple[int, int, int, int, int, list[int]]], players: int = 2) -> pd.DataFrame:
    """rows: (game, deal, side, dealer, leader, [a, b, sweeps, cards_taken])."""
    side_of = seat_sides(players)
    df = pd.DataFrame(
        [
            {
                "game": g,
                "deal": d,
                "side": s,
                "dealer": dealer,
                "leader": leader,
                "dealt": side_of[dealer] == s,
                "led": side_of[leader] == s,
                "a": v[0],
                "b": v[1],
                "points": v[0] + v[1],
                "sweeps": v[2],
                "cards_taken": v[3],
            }
            for g, d, s, dealer, leader, v in rows
        ]
    )
    return df.astype({c: np.int16 for c in METRICS})


# ---------------------------------------------------------------- win_rate


@pytest.mark.parametrize(("wins", "n", "level"), [(0, 1, 0.95), (7, 20, 0.95), (2754, 3000, 0.99), (50, 50, 0.9)])
def test_win_rate_is_scipy_wilson(wins, n, level):
    ci = stats.binomtest(wins, n).proportion_ci(confidence_level=level, method="wilson")
    assert win_rate(wins, n, level) == {
        "wins": wins,
        "games": n,
        "rate": wins / n,
        "ci_low": pytest.approx(ci.low, abs=1e-15),
        "ci_high": pytest.approx(ci.high, abs=1e-15),
    }


def test_win_rate_known_wilson_values():
    # 5 of 10: centre 0.5, half-width z*sqrt(pq/n + z^2/4n^2) / (1 + z^2/n) with z = 1.959964
    r = win_rate(5, 10)
    assert (r["ci_low"], r["ci_high"]) == (pytest.approx(0.236593, abs=1e-6), pytest.approx(0.763407, abs=1e-6))
    # 0 of 10: the upper limit is z^2 / (n + z^2)
    r = win_rate(0, 10)
    assert r["ci_low"] == pytest.approx(0.0, abs=1e-12)
    assert r["ci_high"] == pytest.approx(1.959964**2 / (10 + 1.959964**2), abs=1e-6)


def test_win_rate_edges():
    assert all(math.isnan(win_rate(0, 0)[k]) for k in ("rate", "ci_low", "ci_high"))
    for wins, n, level in [(3, 2, 0.95), (-1, 5, 0.95), (1, 5, 1.0), (1, 5, 0.0)]:
        with pytest.raises(ValueError):
            win_rate(wins, n, level)
    # a wider level gives a wider interval around the same rate
    narrow, wide = win_rate(30, 100, 0.8), win_rate(30, 100, 0.99)
    assert wide["ci_low"] < narrow["ci_low"] < 0.3 < narrow["ci_high"] < wide["ci_high"]


# ---------------------------------------------------------------- seats and opening on synthetic games


def test_seat_sides_match_variant_spec():
    for players in (2, 3, 4):
        sides = seat_sides(players)
        assert [np.flatnonzero(sides == s).tolist() for s in range(int(sides.max()) + 1)] == SPEC.sides(players)


def test_seat_win_rates_partners_share_wins():
    run = synthetic_run(synthetic_games([0, 1, 2, 3, 0], [0, 0, 1, 0, 1], players=4), players=4)
    seats = seat_win_rates(run)
    assert seats["seat"].tolist() == [0, 1, 2, 3]
    assert seats["policy"].tolist() == ["p0", "p1", "p2", "p3"]
    assert seats["side"].tolist() == [0, 1, 0, 1]
    assert seats["wins"].tolist() == [3, 2, 3, 2]
    assert seats["games"].tolist() == [5] * 4
    assert seats["rate"].tolist() == pytest.approx([0.6, 0.4, 0.6, 0.4])


def test_opening_advantage_exact_p_values():
    # first player (seat 1 when seat 0 deals) wins all 20 games: two-sided p = 2 * 0.5**20
    run = synthetic_run(synthetic_games([0] * 10 + [1] * 10, [1] * 10 + [0] * 10, players=2))
    opening = opening_advantage(run)
    assert opening.index.tolist() == ["first player", "first dealer"]
    assert opening.loc["first player", "wins"] == 20
    assert opening.loc["first dealer", "wins"] == 0
    assert opening["rate"].tolist() == [1.0, 0.0]
    assert opening["p_value"].tolist() == pytest.approx([2 * 0.5**20] * 2, rel=1e-12)
    assert opening["expected"].tolist() == [0.5, 0.5]

    # an even split is no evidence of anything
    run = synthetic_run(synthetic_games([0] * 10 + [1] * 10, [1] * 5 + [0] * 10 + [1] * 5, players=2))
    assert opening_advantage(run)["p_value"].tolist() == pytest.approx([1.0, 1.0])


def test_opening_advantage_three_sides_tests_against_one_third():
    dealers = [0, 1, 2] * 10
    winners = [(d + 1) % 3 if i < 18 else d for i, d in enumerate(dealers)]  # first player wins 18, dealer 12
    opening = opening_advantage(synthetic_run(synthetic_games(dealers, winners, players=3), players=3))
    assert opening.loc["first player", "wins"] == 18
    assert opening.loc["first dealer", "wins"] == 12
    assert opening.loc["first player", "expected"] == pytest.approx(1 / 3)
    assert opening.loc["first player", "p_value"] == pytest.approx(stats.binomtest(18, 30, 1 / 3).pvalue)
    assert opening.loc["first dealer", "p_value"] == pytest.approx(stats.binomtest(12, 30, 1 / 3).pvalue)


# ---------------------------------------------------------------- points_per_deal on synthetic deals


def two_player_deals() -> pd.DataFrame:
    # three deals; seat 0 deals deal 0 and 2 (so seat 1 leads them)
    return synthetic_deals(
        [
            (0, 0, 0, 0, 1, [1, 0, 0, 20]),
            (0, 0, 1, 0, 1, [0, 2, 1, 20]),
            (0, 1, 0, 1, 0, [3, 1, 2, 30]),
            (0, 1, 1, 1, 0, [0, 0, 0, 10]),
            (1, 0, 0, 0, 1, [0, 1, 0, 15]),
            (1, 0, 1, 0, 1, [1, 0, 0, 25]),
        ]
    )


def test_points_per_deal_exact():
    deals = two_player_deals()
    table = points_per_deal(synthetic_run(pd.DataFrame(), deals))
    assert table.index.tolist() == METRICS
    # leader rows: (0,0) side 1, (0,1) side 0, (1,0) side 1; dealer rows are the others
    leader = np.array([[0, 2, 2, 1, 20], [3, 1, 4, 2, 30], [1, 0, 1, 0, 25]], float)
    dealer = np.array([[1, 0, 1, 0, 20], [0, 0, 0, 0, 10], [0, 1, 1, 0, 15]], float)
    diff = leader - dealer
    assert table["leader_side"].to_numpy() == pytest.approx(leader.mean(axis=0))
    assert table["dealer_side"].to_numpy() == pytest.approx(dealer.mean(axis=0))
    assert table["all_sides"].to_numpy() == pytest.approx(np.vstack([leader, dealer]).mean(axis=0))
    assert table["difference"].to_numpy() == pytest.approx(diff.mean(axis=0))
    t = stats.t.ppf(0.975, 2)
    assert table["half_width"].to_numpy() == pytest.approx(t * diff.std(axis=0, ddof=1) / math.sqrt(3))
    # points column is the sum of the categories, and the difference of "cards_taken" is [0, 20, 10]
    assert table.loc["cards_taken", "difference"] == pytest.approx(10.0)


def test_points_per_deal_ignores_row_order():
    deals = two_player_deals()
    shuffled = deals.sample(frac=1.0, random_state=np.random.default_rng(3)).reset_index(drop=True)
    a = points_per_deal(synthetic_run(pd.DataFrame(), deals))
    b = points_per_deal(synthetic_run(pd.DataFrame(), shuffled))
    pd.testing.assert_frame_equal(a, b)


def test_points_per_deal_rejects_unpaired_deals():
    deals = two_player_deals()
    deals.loc[0, "led"] = True  # deal (0, 0) now has two leading sides
    with pytest.raises(ValueError, match="one leading and one dealing side"):
        points_per_deal(synthetic_run(pd.DataFrame(), deals))


# ---------------------------------------------------------------- real runs


@pytest.fixture(scope="module")
def run2_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("analysis") / "run2"
    api.simulate(RunConfig.create("scopa", policies=["greedy", "random"], games=3000, seed=1, chunk_size=1000), path)
    return path


@pytest.fixture(scope="module", params=[3, 4], ids=["3p", "4p"])
def run_multi_path(request, tmp_path_factory) -> Path:
    players = request.param
    path = tmp_path_factory.mktemp("analysis") / f"run{players}"
    policies = ["greedy", "random", "greedy", "random"][:players]
    config = RunConfig.create("scopa", policies=policies, players=players, games=400, seed=2, chunk_size=200)
    api.simulate(config, path)
    return path


@pytest.fixture(scope="module")
def run2(run2_path) -> Run:
    return load_run(run2_path)


def test_load_run_reads_everything(run2):
    assert run2.variant == "scopa"
    assert run2.players == 2
    assert run2.n_sides == 2
    assert run2.policies == ["greedy", "random"]
    assert run2.categories == list(SPEC.categories)
    assert run2.meta["schema_version"] == results.SCHEMA_VERSION
    assert run2.manifest["complete"] is True
    assert len(run2.games) == 3000
    assert run2.games["game"].tolist() == list(range(3000))
    assert len(run2.deals) == 2 * int(run2.games["deals"].sum())
    assert {*run2.categories, "points", "sweeps", "cards_taken", "led", "dealt"} <= set(run2.deals.columns)


def test_seat_win_rates_real(run2):
    seats = seat_win_rates(run2)
    assert seats["policy"].tolist() == ["greedy", "random"]
    assert seats["wins"].tolist() == [int((run2.games["winner"] == s).sum()) for s in (0, 1)]
    assert seats["wins"].sum() == 3000
    assert seats["rate"].sum() == pytest.approx(1.0)
    assert (seats["ci_low"] < seats["rate"]).all() and (seats["rate"] < seats["ci_high"]).all()


def test_opening_advantage_real_matches_pandas(run2):
    games = run2.games
    opening = opening_advantage(run2)
    by_hand = {
        "first player": int((games["winner"] == games["first_player"]).sum()),  # side = seat with 2 players
        "first dealer": int((games["winner"] == games["first_dealer"]).sum()),
    }
    assert opening["wins"].to_dict() == by_hand
    assert opening["wins"].sum() == 3000  # two sides: complements
    assert opening.loc["first player", "p_value"] == pytest.approx(
        stats.binomtest(by_hand["first player"], 3000, 0.5).pvalue
    )
    assert opening["p_value"].between(0, 1).all()


def points_by_pandas(run: Run) -> tuple[pd.DataFrame, pd.Series]:
    metrics = [*run.categories, "points", "sweeps", "cards_taken"]
    deals = run.deals
    means = pd.DataFrame(
        {
            "leader_side": deals[deals["led"]][metrics].mean(),
            "dealer_side": deals[deals["dealt"]][metrics].mean(),
            "all_sides": deals[metrics].mean(),
        }
    )
    led = deals[deals["led"]].set_index(["game", "deal"])[metrics].astype(float)
    dealt = deals[deals["dealt"]].set_index(["game", "deal"])[metrics].astype(float)
    return means, (led - dealt).mean()


def test_points_per_deal_real_matches_pandas(run2):
    table = points_per_deal(run2)
    means, difference = points_by_pandas(run2)
    for column in means:
        assert table[column].to_numpy() == pytest.approx(means[column].to_numpy(), rel=1e-12)
    assert table["difference"].to_numpy() == pytest.approx(difference.to_numpy(), abs=1e-12)
    assert (table["half_width"] >= 0).all()
    assert table.loc["points", "all_sides"] == pytest.approx(run2.deals["points"].mean())
    # the pack is always split in full: cards taken average 40 / 2 per side
    assert table.loc["cards_taken", "all_sides"] == pytest.approx(20.0)


def test_multi_player_runs(run_multi_path):
    run = load_run(run_multi_path)
    n_sides = 3 if run.players == 3 else 2
    assert run.n_sides == n_sides
    seats = seat_win_rates(run)
    by_side = seats.drop_duplicates("side")
    assert by_side["wins"].sum() == len(run.games) == 400
    if run.players == 4:
        assert seats["wins"].tolist()[:2] == seats["wins"].tolist()[2:]  # partners
    opening = opening_advantage(run)
    side = seat_sides(run.players)
    assert opening.loc["first player", "wins"] == int(
        (run.games["winner"].to_numpy() == side[run.games["first_player"].to_numpy()]).sum()
    )
    assert opening.loc["first player", "expected"] == pytest.approx(1 / n_sides)
    table = points_per_deal(run)
    means, difference = points_by_pandas(run)
    for column in means:
        assert table[column].to_numpy() == pytest.approx(means[column].to_numpy(), rel=1e-12)
    assert table["difference"].to_numpy() == pytest.approx(difference.to_numpy(), abs=1e-12)


def test_run_summary(run2):
    summary = run_summary(run2)
    assert set(summary) == {"seats", "opening", "points", "games", "deals", "mean_deals_per_game"}
    assert summary["games"] == 3000
    assert summary["deals"] == len(run2.deals) // 2
    assert summary["mean_deals_per_game"] == pytest.approx(run2.games["deals"].mean())
    pd.testing.assert_frame_equal(summary["points"], points_per_deal(run2))


def test_load_run_columns(run2_path):
    run = load_run(run2_path, columns={"deals": ["game", "deal", "points"]})
    assert list(run.deals.columns) == ["game", "deal", "points"]
    assert len(run.games.columns) > 10
    with pytest.raises(ValueError, match="nope"):
        load_run(run2_path, columns={"games": ["nope"]})
    with pytest.raises(ValueError, match="unknown table"):
        load_run(run2_path, columns={"moves": ["game"]})


# ---------------------------------------------------------------- load errors


@pytest.fixture
def run_copy(run2_path, tmp_path) -> Path:
    return Path(shutil.copytree(run2_path, tmp_path / "copy"))


def edit_manifest(path: Path, **changes) -> None:
    manifest = json.loads((path / "manifest.json").read_text())
    manifest.update(changes)
    (path / "manifest.json").write_text(json.dumps(manifest))


def test_incomplete_run_refused_unless_partial(run_copy):
    edit_manifest(run_copy, complete=False, chunks_done=[0, 2])
    with pytest.raises(OutputError, match=r"incomplete: 2 of 3 chunks done") as err:
        load_run(run_copy)
    assert str(run_copy) in str(err.value)
    run = load_run(run_copy, allow_partial=True)
    assert run.games["game"].tolist() == [*range(1000), *range(2000, 3000)]
    assert set(run.deals["game"].unique()) == set(run.games["game"])


def test_partial_run_without_chunks(run_copy):
    edit_manifest(run_copy, complete=False, chunks_done=[])
    with pytest.raises(OutputError, match="no finished chunks"):
        load_run(run_copy, allow_partial=True)


def test_wrong_manifest_schema_version(run_copy):
    edit_manifest(run_copy, schema_version=99)
    with pytest.raises(OutputError, match="schema 99"):
        load_run(run_copy)


def test_no_manifest(tmp_path):
    with pytest.raises(OutputError, match="not a scopasim run folder"):
        load_run(tmp_path)


def test_unreadable_manifest(run_copy):
    (run_copy / "manifest.json").write_bytes(b"\xff\xfe garbage")
    with pytest.raises(OutputError, match="cannot read"):
        load_run(run_copy)


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_corrupt_part_file_named(run_copy, damage):
    part = run_copy / "deals" / "part-00001.parquet"
    data = part.read_bytes()
    part.write_bytes(b"not parquet at all" * 10 if damage == "garbage" else data[: len(data) // 2])
    with pytest.raises(OutputError, match="cannot read part file") as err:
        load_run(run_copy)
    assert str(part) in str(err.value)


def test_missing_part_file_named(run_copy):
    part = run_copy / "games" / "part-00002.parquet"
    part.unlink()
    with pytest.raises(OutputError, match="missing") as err:
        load_run(run_copy)
    assert str(part) in str(err.value)


def rewrite_blob(part: Path, **changes) -> None:
    table = pq.read_table(part)
    meta = dict(table.schema.metadata)
    blob = json.loads(meta[results.METADATA_KEY])
    blob.update(changes)
    meta[results.METADATA_KEY] = json.dumps(blob).encode()
    pq.write_table(table.replace_schema_metadata(meta), part)


def test_wrong_part_schema_version_named(run_copy):
    part = run_copy / "games" / "part-00001.parquet"
    rewrite_blob(part, schema_version=2)
    with pytest.raises(OutputError, match="schema 2") as err:
        load_run(run_copy)
    assert str(part) in str(err.value)


def test_part_without_blob_named(run_copy):
    part = run_copy / "games" / "part-00000.parquet"
    table = pq.read_table(part)
    pq.write_table(table.replace_schema_metadata(None), part)
    with pytest.raises(OutputError, match="no 'scopasim' schema metadata") as err:
        load_run(run_copy)
    assert str(part) in str(err.value)


def test_part_of_another_run_named(run_copy):
    part = run_copy / "deals" / "part-00000.parquet"
    rewrite_blob(part, seed=12345)
    with pytest.raises(OutputError, match="belongs to another run: its seed differ") as err:
        load_run(run_copy)
    assert str(part) in str(err.value)


# ---------------------------------------------------------------- the package boundary


def test_import_does_not_load_numba_or_kernels():
    code = (
        "import sys, analysis\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('numba', 'scipy', 'statsmodels', 'matplotlib')"
        " or m.startswith(('simcore.kernels', 'simcore.engine', 'simcore.results'))]\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
