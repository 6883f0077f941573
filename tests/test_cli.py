"""The command line, through Typer's CliRunner: happy paths, outputs, and every kind of bad input."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from cli.app import app
from simcore.reference.replay import replay_trace

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def test_help_and_listing():
    assert run("--help").exit_code == 0
    result = run("variants")
    assert result.exit_code == 0 and "scopa" in result.output
    result = run("rules", "scopa")
    assert result.exit_code == 0
    for key in ("players", "target", "forced_capture", "single_card_priority", "redeal_kings", "primiera", "napola"):
        assert key in result.output


def test_policies_lists_each_games_parameters():
    scopa, kaszino = run("policies", "scopa"), run("policies", "kaszino")
    assert scopa.exit_code == kaszino.exit_code == 0
    for name in ("random", "greedy", "points", "defensive", "lookahead", "mc"):
        assert name in scopa.output and name in kaszino.output
    assert "settebello=1" in scopa.output and "hold=0.1" in scopa.output and "samples=24" in scopa.output
    assert "big_casino=2" in kaszino.output and "hold=0.2" in kaszino.output and "settebello" not in kaszino.output


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli") / "run"
    result = run(
        "simulate", "--policy", "greedy", "--policy", "random", "--games", 2000, "--seed", 42, "--threads", 2,
        "--rule", "target=21", "--chunk-size", 700, "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out, result.output


def test_simulate_writes_a_complete_run_and_summary(small_run):
    out, output = small_run
    for needle in ("seat 0", "seat 1", "first player", "first dealer", "settebello", "games/s", str(out)):
        assert needle in output
    games = pd.read_parquet(out / "games")
    assert len(games) == 2000 and set(games.policy_0) == {"greedy"} and set(games.policy_1) == {"random"}
    assert (games[["total_0", "total_1"]].max(axis=1) >= 21).all()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] and manifest["config"]["rules"]["target"] == 21 and manifest["n_chunks"] == 3


def test_trace_of_a_run_is_the_run_and_replays(small_run, tmp_path):
    out, _ = small_run
    trace_file = tmp_path / "t.jsonl"
    result = run("trace", "--run", out, "--game", "0-2,1999", "--out", trace_file)
    assert result.exit_code == 0, result.output
    traces = [json.loads(line) for line in trace_file.read_text().splitlines()]
    assert [t["game"] for t in traces] == [0, 1, 2, 1999]
    games = pd.read_parquet(out / "games").set_index("game")
    for t in traces:
        assert t["format"] == "scopasim-trace/1" and t["seed"] == 42 and t["policies"] == ["greedy", "random"]
        assert t["events"][-1]["totals"] == [games.loc[t["game"], "total_0"], games.loc[t["game"], "total_1"]]
        replay_trace(t)
    # the same game from the command-line settings instead of the run folder
    again = run("trace", "--seed", 42, "--policy", "greedy", "--policy", "random", "--rule", "target=21", "-g", 2)
    assert json.loads(again.output) == traces[2]
    assert run("trace", "--run", out, "--game", 0, "--out", trace_file).exit_code == 1  # exists


def test_replay_prints_a_game(small_run, tmp_path):
    out, _ = small_run
    result = run("replay", "--run", out, "--game", 5)
    assert result.exit_code == 0, result.output
    assert "Deal 0" in result.output and "wins" in result.output and "plays" in result.output
    trace_file = tmp_path / "t.jsonl"
    run("trace", "--run", out, "--game", "5", "--out", trace_file)
    from_file = run("replay", "--trace", trace_file)
    assert from_file.exit_code == 0 and from_file.output == result.output


def test_output_to_a_file_or_pipe_is_never_cut(small_run):
    """CliRunner's output is not a terminal: long cells, lines and paths must come out whole, on one line."""
    from cli.commands.policies import parameter_text
    from simcore.policies import POLICIES
    from simcore.variants import VARIANTS, get_variant

    out, output = small_run
    lines = output.splitlines()
    assert f"  pandas.read_parquet('{out}/games')  and  '{out}/deals'" in lines
    rules = run("rules", "foracio").output
    for key in get_variant("foracio").keys:
        assert key.doc in rules
    listing = run("policies", "kaszino").output
    for policy in POLICIES.values():
        assert policy.doc in listing and parameter_text(policy, "kaszino") in listing
    games = run("variants").output
    for spec in VARIANTS.values():
        assert ", ".join(spec.categories) in games
    replay = run("replay", "--run", out, "--game", 3).output.splitlines()
    assert any(line.startswith("rules: players=2, target=21, ") and len(line) > 100 for line in replay)


def test_resume_from_the_command_line(tmp_path):
    out = tmp_path / "run"
    args = ("simulate", "--games", 900, "--seed", 3, "--chunk-size", 300, "--quiet", "--out", out)
    assert run(*args).exit_code == 0
    full = pd.read_parquet(out / "games")
    manifest = json.loads((out / "manifest.json").read_text())
    manifest.update(complete=False, chunks_done=[0, 1])
    (out / "manifest.json").write_text(json.dumps(manifest))
    (out / "games" / "part-00001.parquet").write_bytes(b"truncated")  # a damaged part is named, then redone
    result = run("simulate", "--resume", "--out", out, "--quiet")
    assert result.exit_code == 0, result.output
    assert f"warning: {out / 'games' / 'part-00001.parquet'} is damaged" in result.output
    pd.testing.assert_frame_equal(pd.read_parquet(out / "games"), full)


BAD_INPUTS = [
    (["simulate", "--variant", "poker"], "unknown variant 'poker'"),
    (["simulate", "--rule", "colour=red"], "unknown rule key 'colour'"),
    (["simulate", "--rule", "target=abc"], "rule target: expected an integer"),
    (["simulate", "--rule", "target=0"], "rule target: 0 is below the minimum 1"),
    (["simulate", "--rule", "napola=maybe"], "rule napola: expected true or false"),
    (["simulate", "--rule", "primiera=best"], "rule primiera: best is not allowed"),
    (["simulate", "--rule", "target"], "expected KEY=VALUE"),
    (["simulate", "--players", "5"], "rule players: 5 is not allowed"),
    (["simulate", "--players", "3", "--policy", "greedy", "--policy", "random"], "2 policies given for 3 players"),
    (["simulate", "--policy", "genius"], "unknown policy 'genius'"),
    (["simulate", "--policy", "greedy:width=3"], "unknown parameter 'width'"),
    (["simulate", "--games", "0"], "games must be a positive integer"),
    (["simulate", "--games", "-5"], "games must be a positive integer"),
    (["simulate", "--games", "many"], "Invalid value for '--games'"),
    (["simulate", "--threads", "0"], "threads must be a positive integer"),
    (["simulate", "--threads", "-1"], "threads must be a positive integer"),
    (["simulate", "--seed", "-3"], "seed must be an integer"),
    (["simulate", "--resume"], "--resume needs --out"),
    (["rules", "poker"], "unknown variant 'poker'"),
    (["policies", "poker"], "unknown variant 'poker'"),
    (["trace", "--policy", "greedy"], "--seed (or --run FOLDER) is required"),
    (["trace", "--seed", "1", "--game", "x"], "expected a game index"),
    (["replay", "--trace", "/nonexistent/t.jsonl"], "cannot read"),
]


@pytest.mark.parametrize("args,message", BAD_INPUTS, ids=[" ".join(a) for a, _ in BAD_INPUTS])
def test_bad_input_is_one_line_and_nothing_is_written(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run(*args, *(["--out", tmp_path / "out"] if args[0] == "simulate" and "--resume" not in args else []))
    assert result.exit_code != 0
    assert message in result.output, result.output
    assert result.output.count("\n") == 1 and result.output.startswith("error: ")
    assert ("Traceback" not in result.output and result.exception is None) or isinstance(result.exception, SystemExit)
    assert not (tmp_path / "out").exists() and not (tmp_path / "results").exists()


def test_existing_and_unwritable_outputs(tmp_path):
    existing = tmp_path / "run"
    existing.mkdir()
    (existing / "data.csv").write_text("precious")
    result = run("simulate", "--games", 10, "--out", existing)
    assert result.exit_code == 1 and "already exists" in result.output
    assert sorted(p.name for p in existing.iterdir()) == ["data.csv"]
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = run("simulate", "--games", 10, "--out", blocker / "run")
    assert result.exit_code == 1 and result.output.startswith("error: ") and "cannot write" in result.output
