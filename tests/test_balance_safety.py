"""Bad input and unsafe outputs of ``analyze``, ``report`` and ``balance`` (issue 10): each case is one line
``error: ...`` on stderr, no traceback, and nothing under the watched folder changes. ``balance`` checks every grid
folder against the settings asked for, and writes its index and tables only over files it wrote itself."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from faults import refused
from typer.testing import CliRunner

from cli.app import app

runner = CliRunner()
SEED = 6
GRID = ["--vary", "target=11,16", "-n", 300, "--chunk-size", 300, "--seed", SEED, "-q"]


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def grid(tmp_path_factory) -> Path:
    """A finished balance of two rule sets, each a run folder of one part."""
    out = tmp_path_factory.mktemp("safety") / "grid"
    result = invoke("balance", *GRID, "--out", out)
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture
def work(grid, tmp_path) -> Path:
    """A scratch folder holding a copy of the grid (``work/grid``) and of one of its runs (``work/run``)."""
    shutil.copytree(grid, tmp_path / "grid")
    shutil.copytree(grid / "target=11", tmp_path / "run")
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes.txt").write_text("a user's file\n")
    return tmp_path


def edit_json(path: Path, **changes) -> None:
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data))


def two_leaders(w: Path) -> None:
    """Rewrite a deals part (same metadata) so that one deal has two leading sides."""
    part = w / "run" / "deals" / "part-00000.parquet"
    table = pq.read_table(part)
    led = table.column("led").to_pylist()
    led[0] = led[1] = True
    table = table.set_column(table.schema.get_field_index("led"), "led", [led])
    pq.write_table(table, part)


LONG = "x" * 100_000
Case = tuple[Callable[[Path], None] | None, list, str | None, int | None]

#: id -> (setup of the scratch folder, arguments, text the message must hold, exit code)
CASES: dict[str, Case] = {
    # analyze
    "analyze-missing-folder": (None, ["analyze", "{w}/nope"], "does not exist", 1),
    "analyze-a-file": (None, ["analyze", "{w}/notes.txt"], "is a file", 1),
    "analyze-not-a-run": (None, ["analyze", "{w}/empty"], "not a scopasim run folder", 1),
    "analyze-unknown-table": (None, ["analyze", "{w}/run", "--table", "nope"], "unknown table", 1),
    "analyze-balance-table": (None, ["analyze", "{w}/run", "--table", "grid_shape"], "unknown table", 1),
    "analyze-table-huge-name": (None, ["analyze", "{w}/run", "--table", LONG], "unknown table", 1),
    "analyze-unknown-format": (None, ["analyze", "{w}/run", "--format", "xml"], "xml", 2),
    "analyze-level-above-1": (None, ["analyze", "{w}/run", "--level", "1.5"], "--level", 1),
    "analyze-level-nan": (None, ["analyze", "{w}/run", "--level", "nan"], "--level", 1),
    "analyze-level-0": (None, ["analyze", "{w}/run", "--level", "0"], "--level", 1),
    "analyze-comparison-of-one": (None, ["analyze", "{w}/run", "--table", "comparison"], "two runs", 1),
    "analyze-incomplete-run": (
        lambda w: edit_json(w / "run" / "manifest.json", complete=False),
        ["analyze", "{w}/run"],
        "incomplete",
        1,
    ),
    "analyze-inconsistent-deals": (two_leaders, ["analyze", "{w}/run"], "one leading and one dealing side", 1),
    # report
    "report-out-exists": (None, ["report", "{w}/run", "--out", "{w}/notes.txt"], "already exists", 1),
    "report-out-missing-folder": (None, ["report", "{w}/run", "--out", "{w}/no/r.html"], "does not exist", 1),
    "report-out-is-a-folder": (None, ["report", "{w}/run", "--out", "{w}/empty"], "is a folder", 1),
    "report-out-under-a-file": (None, ["report", "{w}/run", "--out", "{w}/notes.txt/r.html"], "not a folder", 1),
    "report-out-inside-the-run": (
        None,
        ["report", "{w}/run", "--out", "{w}/run/manifest.json", "--overwrite"],
        "inside run folder",
        1,
    ),
    "report-missing-run": (None, ["report", "{w}/nope", "--out", "{w}/r.html"], "does not exist", 1),
    "report-level-nan": (None, ["report", "{w}/run", "--out", "{w}/r.html", "--level", "nan"], "--level", 1),
    "report-no-out": (None, ["report", "{w}/run"], "--out", 2),
    # balance: input
    "balance-level-2": (None, ["balance", *GRID, "--out", "{w}/new", "--level", "2"], "--level", 1),
    "balance-level-nan": (None, ["balance", *GRID, "--out", "{w}/new", "--level", "nan"], "--level", 1),
    "balance-vary-empty-value": (None, ["balance", "--vary", "target=11,", "--out", "{w}/new"], "KEY=V1,V2", 1),
    "balance-vary-no-values": (None, ["balance", "--vary", "target=", "--out", "{w}/new"], "KEY=V1,V2", 1),
    "balance-vary-no-key": (None, ["balance", "--vary", "=11,16", "--out", "{w}/new"], "KEY=V1,V2", 1),
    "balance-vary-unknown-key": (None, ["balance", "--vary", "nope=1,2", "--out", "{w}/new"], "nope", 1),
    "balance-vary-out-of-range": (None, ["balance", "--vary", "players=2,9", "--out", "{w}/new"], "players", 1),
    "balance-vary-huge-value": (None, ["balance", "--vary", f"target=11,{LONG}", "--out", "{w}/new"], "target", 1),
    "balance-vary-and-rule": (
        None,
        ["balance", "--vary", "target=11,16", "--rule", "target=5", "--out", "{w}/new"],
        "both as --rule and --vary",
        1,
    ),
    "balance-vary-key-twice": (
        None,
        ["balance", "--vary", "target=11", "--vary", "target=16", "--out", "{w}/new"],
        "given twice",
        1,
    ),
    "balance-grid-too-large": (
        None,
        [
            "balance",
            "--vary",
            "target=" + ",".join(map(str, range(1, 12))),
            "--vary",
            "sweep_points=" + ",".join(map(str, range(11))),
            "--out",
            "{w}/new",
        ],
        "121 rule sets",
        1,
    ),
    "balance-chunk-size-0": (None, ["balance", *GRID, "--out", "{w}/new", "--chunk-size", "0"], "--chunk-size", 1),
    # balance: outputs
    "balance-out-is-a-file": (None, ["balance", *GRID, "--out", "{w}/notes.txt"], "not a folder", 1),
    "balance-out-is-a-run": (None, ["balance", *GRID, "--out", "{w}/run"], "is a run folder", 1),
    "balance-other-seed": (
        None,
        ["balance", *GRID[:-3], "--seed", 7, "-q", "--out", "{w}/grid"],
        "other settings: seed 6 (asked: 7)",
        1,
    ),
    "balance-other-games-in-a-folder": (
        lambda w: (w / "grid" / "balance.json").unlink(),
        ["balance", *GRID[:2], "-n", 600, *GRID[4:], "--out", "{w}/grid"],
        "target=11 holds a run with other settings: games 300 (asked: 600)",
        1,
    ),
    "balance-other-chunk-size-in-a-folder": (
        lambda w: (w / "grid" / "balance.json").unlink(),
        ["balance", *GRID[:4], "--chunk-size", 100, *GRID[6:], "--out", "{w}/grid"],
        "chunk_size 300 (asked: 100)",
        1,
    ),
    "balance-other-grid": (
        None,
        ["balance", "--vary", "target=11,21", *GRID[2:], "--out", "{w}/grid"],
        "other settings: --vary target=11,16 (asked: target=11,21)",
        1,
    ),
    "balance-folder-not-a-run": (
        lambda w: (w / "new" / "target=11").mkdir(parents=True) or (w / "new" / "target=11" / "x.txt").write_text("x"),
        ["balance", *GRID, "--out", "{w}/new"],
        "not a scopasim run folder",
        1,
    ),
    "balance-folder-is-a-file": (
        lambda w: (w / "new").mkdir() or (w / "new" / "target=16").write_text("x"),
        ["balance", *GRID, "--out", "{w}/new"],
        "is not a folder",
        1,
    ),
    "balance-complete-folder-missing-part": (
        lambda w: (w / "grid" / "target=16" / "deals" / "part-00000.parquet").unlink(),
        ["balance", *GRID, "--out", "{w}/grid"],
        "missing",
        1,
    ),
    "balance-foreign-csv": (
        lambda w: (w / "new").mkdir() or (w / "new" / "balance.csv").write_text("mine\n"),
        ["balance", *GRID, "--out", "{w}/new"],
        "not written by this balance",
        1,
    ),
    "balance-foreign-index": (
        lambda w: (w / "new").mkdir() or (w / "new" / "balance.json").write_text('{"a": 1}'),
        ["balance", *GRID, "--out", "{w}/new"],
        "not written by scopasim balance",
        1,
    ),
    "balance-changed-csv": (
        lambda w: (w / "grid" / "balance-changes.csv").write_text("edited\n"),
        ["balance", *GRID, "--out", "{w}/grid"],
        "was changed since this balance wrote it",
        1,
    ),
    "balance-plot-over-a-user-file": (
        None,
        ["balance", *GRID, "--out", "{w}/grid", "--plot", "{w}/notes.txt"],
        "not written by this balance",
        1,
    ),
    "balance-plot-in-a-missing-folder": (
        None,
        ["balance", *GRID, "--out", "{w}/new", "--plot", "{w}/no/p.png"],
        "does not exist",
        1,
    ),
    "balance-plot-is-a-folder": (None, ["balance", *GRID, "--out", "{w}/new", "--plot", "{w}/empty"], "PNG file", 1),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_refused(work, case):
    setup, args, match, code = CASES[case]
    if setup is not None:
        setup(work)
    message = refused([str(a).replace("{w}", str(work)) for a in args], work, code=code, match=match)
    assert LONG not in message


def test_rerun_replaces_only_its_own_files_and_keeps_the_seed(work):
    out = work / "grid"
    index = json.loads((out / "balance.json").read_text())
    assert index["format"] == "scopasim-balance/1" and set(index["files"]) == {
        "balance.csv",
        "balance-changes.csv",
        "balance.png",
    }
    assert index["settings"]["runs"]["target=11"]["seed"] == SEED
    result = invoke("balance", *GRID[:-3], "-q", "--out", out, "--level", "0.9")  # no --seed: the recorded one
    assert result.exit_code == 0, result.output
    assert f"seed {SEED}" in result.stdout and result.stdout.count("reused") == 2
    again = json.loads((out / "balance.json").read_text())
    assert again["level"] == 0.9 and again["files"]["balance.csv"] != index["files"]["balance.csv"]
    assert "0.9" in (out / "balance.csv").read_text()


def test_resume_of_an_interrupted_grid_point(work):
    out = work / "grid"
    manifest = out / "target=16" / "manifest.json"
    edit_json(manifest, complete=False, chunks_done=[])
    for table in ("games", "deals"):
        (out / "target=16" / table / "part-00000.parquet").unlink()
    result = invoke("balance", *GRID, "--out", out)
    assert result.exit_code == 0, result.output
    assert "target=11: complete" in result.stdout and "target=16: resuming" in result.stdout
    assert json.loads(manifest.read_text())["complete"] is True
