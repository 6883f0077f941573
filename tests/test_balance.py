"""``scopasim balance``: a tiny grid of rule sets, each a normal run folder; reuse and resume; bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from analysis import load_run, seat_advantage
from analysis.balance import compare_runs
from cli.app import app
from cli.commands.balance import folder_name, parse_vary
from simcore.errors import ConfigError

runner = CliRunner()
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def run(*args):
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})


def balance_args(out: Path, *extra) -> list:
    return [
        "balance", "-v", "scopa", "--vary", "single_card_priority=true,false", "--games", 1200, "--seed", 6,
        "--chunk-size", 600, "--threads", 1, "--out", out, "-q", *extra,
    ]  # fmt: skip


@pytest.fixture(scope="module")
def grid(tmp_path_factory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("balance") / "grid"
    result = run(*balance_args(out))
    assert result.exit_code == 0, result.output
    return out, result.output


def test_balance_writes_one_run_folder_per_rule_set(grid):
    out, output = grid
    folders = ["single_card_priority=true", "single_card_priority=false"]
    for name, value in zip(folders, (True, False), strict=True):
        run_ = load_run(out / name)
        assert len(run_.games) == 1200 and run_.seed == 6 and run_.rules["single_card_priority"] is value
        assert f"into {out / name}" in output
    assert (out / "balance.png").read_bytes().startswith(PNG_MAGIC)


def test_balance_table_matches_the_analysis(grid):
    out, output = grid
    table = pd.read_csv(out / "balance.csv")
    assert table["rule_set"].tolist() == ["single_card_priority=true", "single_card_priority=false"]
    runs = [load_run(out / f) for f in ("single_card_priority=true", "single_card_priority=false")]
    for i, run_ in enumerate(runs):
        adv = seat_advantage(run_).iloc[0]
        assert table.loc[i, "first_player_rate"] == pytest.approx(adv["rate"])
        assert table.loc[i, "first_player_ci_low"] == pytest.approx(adv["ci_low"])
        assert f"{adv['rate']:.2%}" in output
    change = compare_runs(*runs).loc["first player advantage"]
    assert table.loc[1, "first_player_change"] == pytest.approx(change["difference"])
    assert f"{change['difference'] * 100:+.2f} pp" in output
    changes = pd.read_csv(out / "balance-changes.csv")
    assert set(changes["rule_set"]) == {"single_card_priority=false"}
    sweeps = changes.set_index("metric").loc["sweeps per deal"]
    assert sweeps["difference"] == pytest.approx(compare_runs(*runs).loc["sweeps per deal", "difference"])
    for title in ("First player's advantage by rule set", "Scoring and game shape", "Points awarded per deal"):
        assert title in output


def test_balance_reuses_complete_and_resumes_incomplete(grid, tmp_path):
    out, _ = grid
    import shutil

    copy = Path(shutil.copytree(out, tmp_path / "grid"))
    part = copy / "single_card_priority=false"
    manifest = json.loads((part / "manifest.json").read_text())
    manifest.update(complete=False, chunks_done=[0])
    (part / "manifest.json").write_text(json.dumps(manifest))
    (part / "games" / "part-00001.parquet").unlink()
    result = run(*balance_args(copy))
    assert result.exit_code == 0, result.output
    assert "single_card_priority=true: complete" in result.output and "reused" in result.output
    assert "single_card_priority=false: resuming" in result.output
    resumed = load_run(part)
    assert len(resumed.games) == 1200
    pd.testing.assert_frame_equal(resumed.games, load_run(out / "single_card_priority=false").games)


def test_balance_refuses_a_folder_with_other_settings(grid, tmp_path):
    out, _ = grid
    result = run(*[a if a != 6 else 7 for a in balance_args(out)])  # another seed
    assert result.exit_code == 1 and "other settings" in result.output


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--vary", "nope=1,2"], "nope"),
        (["--vary", "target=11,abc"], "target"),
        (["--vary", "players"], "expected KEY=V1,V2"),
        (["--vary", "target=11,11"], "repeated"),
        (["--vary", "target=11", "--vary", "target=21"], "given twice"),
        (["--vary", "target=11,21", "--rule", "target=5"], "both as --rule and --vary"),
        (["--vary", "players=2,5"], "players"),
        (["--vary", "players=2,3", "--policy", "greedy", "--policy", "random"], "policies"),
        (["--vary", "target=11,21", "--games", "0"], "games"),
        (["--vary", "target=11,21", "--threads", "0"], "threads"),
        (["--vary", "target=11,21", "--level", "2"], "--level"),
        ([], "--vary"),
    ],
)
def test_balance_bad_input_runs_nothing(tmp_path, extra, message):
    out = tmp_path / "grid"
    result = run("balance", "-v", "scopa", "--games", 100, "--out", out, *extra)
    assert result.exit_code != 0
    assert message in result.output and "error" in result.output
    assert not out.exists()


def test_parse_vary_and_folder_names():
    assert parse_vary(["players=2, 3", "forced_capture=card,none"]) == {
        "players": ["2", "3"],
        "forced_capture": ["card", "none"],
    }
    with pytest.raises(ConfigError):
        parse_vary(["players=2,,3"])
    assert folder_name("players=3, forced_capture=card") == "players=3,forced_capture=card"
    assert folder_name("x=a/b") == "x=a_b"
