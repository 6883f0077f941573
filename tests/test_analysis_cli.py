"""``scopasim analyze`` in every format, ``simulate --precision``, and their bad inputs."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from analysis import load_run, seat_advantage
from analysis.balance import compare_runs
from analysis.tables import titles
from cli.app import app
from simcore import api
from simcore.config import RunConfig

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("analyze")
    a, b = base / "a", base / "b"
    api.simulate(RunConfig.create("scopa", policies=["greedy", "random"], games=2000, seed=4, chunk_size=1000), a)
    api.simulate(RunConfig.create("scopa", games=2000, seed=4, chunk_size=1000, rules={"napola": "true"}), b)
    return a, b


def test_analyze_rich_tables(two_runs):
    a, b = two_runs
    result = runner.invoke(app, ["analyze", str(a), str(b)], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    out = result.output
    lines = out.splitlines()  # not a terminal: every title and caption is one whole line
    for name, (title, caption) in titles(0.95).items():
        if not name.startswith("grid"):
            assert title in lines and caption in lines, name
    rate = seat_advantage(load_run(a)).iloc[0]["rate"]
    assert f"{rate:.2%}" in out
    assert "greedy v random" in out and "random v greedy" in out
    assert f"{b} against {a}" in out


def test_analyze_csv_single_table_is_plain_csv(two_runs):
    a, b = two_runs
    result = run("analyze", a, b, "--format", "csv", "--table", "seat_advantage")
    assert result.exit_code == 0, result.output
    df = pd.read_csv(io.StringIO(result.output))
    assert list(df.columns[:3]) == ["run", "role", "group"]
    assert set(df["run"]) == {str(a), str(b)}
    expected = seat_advantage(load_run(a))
    mine = df[df["run"] == str(a)].reset_index(drop=True)
    assert mine["wins"].tolist() == expected["wins"].tolist()
    assert mine["p_value"].to_numpy() == pytest.approx(expected["p_value"].to_numpy(), rel=1e-9)


def test_analyze_csv_all_tables_in_blocks(two_runs):
    a, b = two_runs
    result = run("analyze", a, b, "--format", "csv")
    assert result.exit_code == 0, result.output
    blocks = result.output.split("\n\n")
    names = [block.splitlines()[0].removeprefix("# table: ") for block in blocks if block.strip()]
    assert names == [
        "seats",
        "seat_advantage",
        "deal_advantage",
        "control_variate",
        "pairings",
        "points",
        "categories",
        "game_shape",
        "comparison",
    ]
    comparison = pd.read_csv(io.StringIO(blocks[-1].split("\n", 1)[1]))
    assert set(comparison["baseline"]) == {str(a)} and set(comparison["run"]) == {str(b)}
    expected = compare_runs(load_run(a), load_run(b))
    assert comparison["difference"].to_numpy() == pytest.approx(expected["difference"].to_numpy(), rel=1e-9)


def test_analyze_json(two_runs):
    a, b = two_runs
    result = run("analyze", a, b, "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["level"] == 0.95
    first = doc["runs"][0]
    assert first["run"] == str(a) and first["variant"] == "scopa" and first["games"] == 2000
    assert first["policies"] == ["greedy", "random"] and first["seed"] == 4 and first["rules"]["target"] == 11
    assert set(first["tables"]) == {"seats", "seat_advantage", "deal_advantage", "control_variate", "pairings",
                                    "points", "categories", "game_shape"}  # fmt: skip
    assert doc["runs"][1]["rules"]["napola"] is True
    rows = {r["metric"]: r for r in doc["comparisons"][0]["table"]}
    assert rows["napola per deal"]["a"] == 0 and rows["napola per deal"]["b"] > 0
    assert {r["method"] for r in rows.values()} == {"paired"}  # same seed, same packs: compared game by game
    adv = seat_advantage(load_run(a))
    assert first["tables"]["seat_advantage"][0]["rate"] == pytest.approx(adv.iloc[0]["rate"], rel=1e-12)


def test_analyze_markdown(two_runs):
    a, _ = two_runs
    result = run("analyze", a, "--format", "markdown", "--level", "0.9")
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith(f"## {a}\n")
    assert "| role | games of | wins | games | win rate | 90% CI | expected | p |" in out
    assert "|---|---|---:|" in out
    adv = seat_advantage(load_run(a), level=0.9).iloc[0]
    assert f"{adv['ci_low'] * 100:.2f}–{adv['ci_high'] * 100:.2f}%" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--table", "nope"], "unknown table"),
        (["--level", "1.5"], "--level"),
        (["--format", "xml"], "xml"),
        (["--table", "comparison"], "needs at least two runs"),
    ],
)
def test_analyze_bad_options(two_runs, args, message):
    a, _ = two_runs
    result = run("analyze", a, *args)
    assert result.exit_code != 0
    assert message in result.output


def test_analyze_bad_runs(tmp_path):
    result = run("analyze", tmp_path)
    assert result.exit_code == 1 and "not a scopasim run folder" in result.output
    assert result.output.startswith("error: ") and len(result.output.strip().splitlines()) == 1
    assert run("analyze").exit_code == 2  # a run folder is required


# ---------------------------------------------------------------- simulate --precision


def test_simulate_precision_stops_early(tmp_path):
    out = tmp_path / "run"
    result = run("simulate", "-n", 20000, "--seed", 3, "--chunk-size", 1000, "--precision", 0.02, "-q", "--out", out)
    assert result.exit_code == 0, result.output
    assert "stopped by --precision" in result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] and manifest["stopped"] == "precision"
    n = manifest["games_written"]
    assert n < 20000 and n % 1000 == 0 and f"after {n:,} of 20,000 games" in result.output
    assert f"{n:,} games" in result.output  # the summary counts the games written
    run_ = load_run(out)
    assert len(run_.games) == n
    row = seat_advantage(run_).iloc[0]
    assert (row["ci_high"] - row["ci_low"]) / 2 <= 0.02
    assert run("analyze", out, "--format", "json").exit_code == 0
    assert run("simulate", "--resume", "--out", out).exit_code == 1  # complete: nothing to resume


def test_simulate_precision_not_reached_stops_by_games(tmp_path):
    out = tmp_path / "run"
    result = run("simulate", "-n", 2000, "--seed", 3, "--chunk-size", 1000, "--precision", 0.001, "-q", "--out", out)
    assert result.exit_code == 0, result.output
    assert "stopped by --games: all 2,000 games played" in result.output and "> 0.001" in result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] and "stopped" not in manifest and manifest["games_written"] == 2000


@pytest.mark.parametrize("value", ["0", "-0.01", "0.5", "abc"])
def test_simulate_bad_precision_writes_nothing(tmp_path, value):
    out = tmp_path / "run"
    result = run("simulate", "-n", 1000, "--precision", value, "--out", out)
    assert result.exit_code != 0
    assert "precision" in result.output
    assert not out.exists()
