"""What the reader sees is right (issue 10): every interval names the level used, output to a file or a pipe is
never cut or folded, and runs whose games came out identical are called out."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pandas as pd
import pytest
from matplotlib.text import Text
from typer.testing import CliRunner

from analysis import load_run, seat_advantage
from analysis.balance import category_table
from analysis.plots import advantage_figure, balance_figure, category_figure, convergence_figure
from analysis.tables import level_text, pct_interval
from cli.app import app
from simcore import api
from simcore.config import RunConfig

runner = CliRunner()
NINETY_FIVE = re.compile(r"(?<![\d.])95(\.0+)?\s?%")  # "95%", not "12.95%"
LONG = "a-folder-name-long-enough-that-a-path-made-of-three-of-them-is-wider-than-any-terminal"


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    """Two Skopa runs, greedy self-play, under a path of about 300 characters."""
    base = tmp_path_factory.mktemp("labels") / LONG / LONG / LONG
    a, b = base / "forced_capture=player", base / "forced_capture=card"
    for path, value in ((a, "player"), (b, "card")):
        api.simulate(
            RunConfig.create("skopa", games=600, seed=3, chunk_size=300, rules={"forced_capture": value}), path
        )
    return a, b


@pytest.fixture(scope="module")
def other(runs) -> Path:
    """A run whose rule matters: sweeps score a point."""
    path = runs[0].parent / "sweep_points=1"
    api.simulate(RunConfig.create("skopa", games=600, seed=3, chunk_size=300, rules={"sweep_points": 1}), path)
    return path


def test_level_text():
    assert [level_text(x) for x in (0.9, 0.95, 0.995, 0.5, 0.999999)] == ["90%", "95%", "99.5%", "50%", "99.9999%"]


# ---------------------------------------------------------------- the level, everywhere


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv", "json"])
def test_analyze_names_the_level_in_every_format(runs, fmt):
    result = invoke("analyze", *runs, "--level", "0.9", "--format", fmt)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert not NINETY_FIVE.search(out), NINETY_FIVE.search(out)
    if fmt in ("table", "markdown"):
        assert "90% CI" in out and "90% Wilson" in out and "90% t interval" in out
    elif fmt == "csv":  # machines read the level from a column of every table
        blocks = [b.split("\n", 1)[1] for b in out.split("\n\n") if b.strip()]
        for block in blocks:
            assert set(pd.read_csv(io.StringIO(block))["level"]) == {0.9}
    else:
        assert json.loads(out)["level"] == 0.9


def test_report_names_the_level_in_tables_captions_and_figures(runs, tmp_path):
    out = tmp_path / "r.html"
    result = invoke("report", *runs, "--level", "0.9", "--out", out)
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert not NINETY_FIVE.search(page), page[NINETY_FIVE.search(page).start() - 200 :][:400]
    assert page.count("90% CI") >= 5 and "90% Wilson" in page and "intervals at 90%" in page
    run = load_run(runs[0])
    for figure in (advantage_figure(run, 0.9), convergence_figure(run, 0.9), category_figure(run, 0.9)):
        texts = " | ".join(t.get_text() for t in figure.findobj(Text))
        assert not NINETY_FIVE.search(texts) and "90%" in texts, texts


def test_balance_names_the_level(tmp_path):
    out = tmp_path / "grid"
    result = invoke("balance", "-v", "skopa", "--vary", "sweep_points=0,1", "-n", 300, "--chunk-size", 300, "--seed", 3,
                    "--level", "0.9", "-q", "--out", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    assert not NINETY_FIVE.search(result.output) and "90% CI" in result.output and "90% Wilson" in result.output
    table = pd.read_csv(out / "balance.csv")
    assert set(table["level"]) == {0.9} and set(pd.read_csv(out / "balance-changes.csv")["level"]) == {0.9}
    categories = pd.DataFrame({"sweep_points=0": [1.0], "sweep_points=1": [1.2]}, index=["cards"])
    texts = " | ".join(t.get_text() for t in balance_figure(table, categories, "t", 0.9).findobj(Text))
    assert not NINETY_FIVE.search(texts) and "90% Wilson" in texts and "90% t interval" in texts
    assert json.loads((out / "balance.json").read_text())["level"] == 0.9


def test_simulate_summary_says_its_level(tmp_path):
    result = invoke("simulate", "-n", 400, "--chunk-size", 200, "--seed", 1, "-q", "--out", tmp_path / "run")
    assert result.exit_code == 0, result.output
    assert "Win rates (95% Wilson intervals)" in result.stdout and "95% CI" in result.stdout
    assert "95% t interval" in result.stdout


# ---------------------------------------------------------------- whole lines in files and pipes


def test_analyze_output_is_whole_in_a_pipe(runs):
    a, _ = runs
    result = invoke("analyze", a)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(str(a)) > 250 and any(str(a) in line for line in lines)
    for r in seat_advantage(load_run(a)).itertuples():  # every interval whole, on the line of its row
        row = [line for line in lines if f" {r.group} " in line and r.role in line]
        assert len(row) == 1 and pct_interval(r.ci_low, r.ci_high) in row[0] and f"{r.wins:,}" in row[0]
    cats = category_table(load_run(a))
    assert any(
        f"{cats.loc['cards', 'side_0']:,.3f} ± {cats.loc['cards', 'side_0_half_width']:,.3f}" in x for x in lines
    )
    assert max(len(line) for line in lines) > 120  # nothing folded at 80 columns


def test_simulate_and_balance_output_is_whole_in_a_pipe(runs, tmp_path):
    out = runs[0].parent / "summary-run"
    result = invoke("simulate", "-v", "skopa", "-n", 300, "--seed", 1, "-q", "--out", out)
    assert result.exit_code == 0, result.output
    assert f"output: {out}" in result.stdout.splitlines()
    assert f"  pandas.read_parquet('{out}/games')  and  '{out}/deals'" in result.stdout.splitlines()
    grid = runs[0].parent / "grid"
    result = invoke("balance", "-v", "skopa", "--vary", "target=11,16", "-n", 300, "--seed", 3, "-q", "--out", grid)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert f"[1/2] target=11: simulating into {grid / 'target=11'}" in lines
    assert any(line.startswith("tables: ") and str(grid / "balance-changes.csv") in line for line in lines)


# ---------------------------------------------------------------- identical games


def test_analyze_warns_when_the_runs_played_identical_games(runs, other):
    a, b = runs
    result = invoke("analyze", a, b, "--format", "json")
    assert result.exit_code == 0, result.output
    warnings = result.stderr.splitlines()
    assert warnings == [
        f"warning: runs {a} and {b} produced identical games under greedy: the rule forced_capture never mattered "
        "for these policies"
    ]
    json.loads(result.stdout)  # stdout stays machine-readable
    result = invoke("analyze", a, other, "--format", "json")
    assert result.exit_code == 0 and result.stderr == ""


def test_balance_warns_when_a_rule_never_mattered(tmp_path):
    out = tmp_path / "grid"
    result = invoke("balance", "-v", "skopa", "--vary", "forced_capture=player,card", "-n", 300, "--seed", 3, "-q",
                    "--out", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    warning = (
        "warning: forced_capture=player and forced_capture=card produced identical games under greedy: the rule "
        "forced_capture never mattered for these policies"
    )
    assert warning in result.stdout.splitlines()
    assert json.loads((out / "balance.json").read_text())["identical_games"] == [warning.removeprefix("warning: ")]
    result = invoke("balance", "-v", "skopa", "--vary", "sweep_points=0,1", "-n", 300, "--seed", 3, "-q",
                    "--out", tmp_path / "matters")  # fmt: skip
    assert result.exit_code == 0 and "identical" not in result.output


def test_identical_games_do_not_depend_on_the_chunking(runs):
    a, _ = runs
    rechunked = a.parent / "rechunked"
    api.simulate(RunConfig.create("skopa", games=600, seed=3, chunk_size=100, rules={"forced_capture": "player"}),
                 rechunked)  # fmt: skip
    result = invoke("report", a, rechunked, "--out", a.parent / "r.html")
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        f"warning: runs {a} and {rechunked} produced identical games under greedy: they hold the same games "
        "(same rules, policies and seed)"
    ]
