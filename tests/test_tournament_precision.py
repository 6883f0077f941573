"""``tournament --precision``: pairings raced chunk by chunk on duplicate pairs, stopped on their confidence
sequence; both seatings of a pairing stop together, the stop is recorded, and a resume replays the same race."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from analysis import load_run
from analysis.sequential import sequence_of
from cli.app import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})


def args(out: Path, *extra) -> list:
    return [
        "tournament", "--policies", "random,greedy,points", "-v", "scopa", "--games", 3000, "--chunk-size", 250,
        "--seed", 4, "--threads", 1, "--out", out, "-q", "--precision", 0.08, *extra,
    ]  # fmt: skip


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tp") / "t"
    result = run(*args(out))
    assert result.exit_code == 0, result.output
    return out


def test_pairings_stop_together_on_their_duplicate_pairs(played):
    index = json.loads((played / "tournament.json").read_text())
    assert index["sequential"] == {"precision": 0.08, "stop_on_difference": False, "level": 0.95}
    assert index["complete"]
    table = pd.read_csv(played / "precision.csv")
    assert len(table) == 3
    for row in table.to_dict("records"):
        folder = played / f"{row['a']}-vs-{row['b']}"
        ab, ba = load_run(folder / "ab"), load_run(folder / "ba")
        assert len(ab.games) == len(ba.games) == row["pairs"]
        assert index["stops"][f"{folder.name}/ab"] == index["stops"][f"{folder.name}/ba"]
        if row["pairs"] < 3000:
            assert ab.manifest["stopped"] == ba.manifest["stopped"] == row["stopped"] == "precision"
            assert row["half_width"] <= 0.08
        # the share per pair is A's wins in its two games, game by game
        a_wins = (ab.games.sort_values("game").winner.to_numpy() == 0).astype(int) + (
            ba.games.sort_values("game").winner.to_numpy() == 1
        )
        cs = sequence_of(a_wins / 2, 0.0, 1.0, 0.05)
        assert row["a_share"] == pytest.approx(cs.mean) and row["half_width"] == pytest.approx(cs.half_width)
    assert table["pairs"].min() < 3000  # random loses clearly: its pairings stop early


def test_resume_replays_the_same_race(played, tmp_path):
    copy = Path(shutil.copytree(played, tmp_path / "t"))
    for manifest_path in copy.glob("*/*/manifest.json"):
        manifest = json.loads(manifest_path.read_text())
        for key in ("stopped", "games_written", "finished"):
            manifest.pop(key, None)
        manifest.update(complete=False, chunks_done=[0])
        manifest_path.write_text(json.dumps(manifest))
    result = run(*args(copy, "--resume"))
    assert result.exit_code == 0, result.output
    assert pd.read_csv(copy / "precision.csv").equals(pd.read_csv(played / "precision.csv"))
    old, new = (json.loads((p / "tournament.json").read_text()) for p in (played, copy))
    assert old["stops"] == new["stops"]


def test_resume_with_other_precision_is_refused(played, tmp_path):
    copy = Path(shutil.copytree(played, tmp_path / "t"))
    result = run(*args(copy, "--resume", "--stop-on-difference"))
    assert result.exit_code != 0 and "--precision settings" in result.output


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--stop-on-difference"], "goes with --precision"),
        (["--precision", "0.7"], "between 0 and 0.5"),
        (["--precision", "0.1", "--cluster", "local:1"], "drop --cluster"),
    ],
)
def test_bad_input(tmp_path, extra, message):
    base = [a for a in args(tmp_path / "t") if a not in ("--precision", 0.08)]
    result = run(*base, *extra)
    assert result.exit_code != 0 and message in result.output
    assert not (tmp_path / "t").exists()


def test_duplicate_pairs_are_the_unit():
    """A's share per pair has a smaller variance than its games counted one by one when the deal decides much."""
    rng = np.random.default_rng(5)
    deal = rng.random(20_000) < 0.5  # who the deal favours
    ab = np.where(rng.random(20_000) < 0.7, deal, rng.random(20_000) < 0.55)
    ba = np.where(rng.random(20_000) < 0.7, ~deal, rng.random(20_000) < 0.55)  # seats swapped: the other side
    pairs = sequence_of((ab.astype(float) + ba) / 2, 0.0, 1.0)
    games = sequence_of(np.concatenate([ab, ba]).astype(float), 0.0, 1.0)
    assert pairs.half_width < games.half_width


def test_a_stopped_tournament_is_analysed_on_the_pairs_it_played(played):
    """``analyze`` of a tournament whose pairings stopped early: each pairing's table counts the duplicate pairs it
    played (a seating holding fewer games than asked is recognised by its ``stopped`` record, not refused)."""
    import io

    result = run("analyze", played, "--format", "csv")
    assert result.exit_code == 0, result.output
    block = result.output.split("# table: pairings\n", 1)[1].split("\n\n", 1)[0]
    pairings = pd.read_csv(io.StringIO(block)).set_index(["a", "b"])
    stops = pd.read_csv(played / "precision.csv").set_index(["a", "b"])
    assert (pairings["pairs"] == stops["pairs"].reindex(pairings.index)).all()
    assert (pairings["games"] == 2 * pairings["pairs"]).all() and pairings["pairs"].min() < 3000
