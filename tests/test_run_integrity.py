"""Run folders under bad input and faults (issue 10): nothing lost or overwritten, nothing wrong marked complete or
analysed, one writer per run, and write faults that are one line and leave no temporary file.

Every refusal goes through ``tests/faults.py`` (exit code, one ``error:`` line, no traceback, files unchanged).
"""

from __future__ import annotations

import errno
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from faults import CLI_CODE, ROOT, check_refusal, refused, refused_process, run_process
from typer.testing import CliRunner

from cli.app import app
from simcore import api, results
from simcore.config import RunConfig
from simcore.errors import OutputError
from simcore.layout import LOCK, METADATA_KEY, RUN_FORMAT
from simcore.results import RunWriter

SETTINGS = {"policies": ["greedy", "random"], "games": 300, "seed": 3, "chunk_size": 100}


def cli_settings(seed: int = 3) -> list:
    return ["--policy", "greedy", "--policy", "random", "--games", 300, "--seed", seed, "--chunk-size", 100]


CLI_SETTINGS = cli_settings()


def config(**kw) -> RunConfig:
    return RunConfig.create("scopa", **(SETTINGS | kw))


def rows(path: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    games = pd.read_parquet(path / "games").sort_values("game", ignore_index=True)
    deals = pd.read_parquet(path / "deals").sort_values(["game", "deal", "side"], ignore_index=True)
    return games, deals


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    """A complete run of 300 games in 3 chunks."""
    path = tmp_path_factory.mktemp("integrity") / "base"
    api.simulate(config(), path, threads=1)
    return path


@pytest.fixture
def run(base, tmp_path) -> Path:
    """A fresh copy of the complete run."""
    return Path(shutil.copytree(base, tmp_path / "run"))


@pytest.fixture
def interrupted(run) -> Path:
    """The run as an interruption after its first chunk leaves it: chunk 0 done, the other parts gone."""
    edit(run, complete=False, chunks_done=[0])
    for name in ("elapsed_seconds", "games_per_second", "games_written", "finished"):
        edit(run, **{name: DELETE})
    for table in ("games", "deals"):
        for index in (1, 2):
            (run / table / f"part-0000{index}.parquet").unlink()
    return run


DELETE = object()


def edit(path: Path, **changes) -> None:
    manifest = json.loads((path / "manifest.json").read_text())
    for key, value in changes.items():
        if value is DELETE:
            manifest.pop(key, None)
        else:
            manifest[key] = value
    (path / "manifest.json").write_text(json.dumps(manifest))


def edit_config(path: Path, **changes) -> None:
    manifest = json.loads((path / "manifest.json").read_text())
    manifest["config"].update(changes)
    (path / "manifest.json").write_text(json.dumps(manifest))


def rewrite_part(part: Path, blob_changes: dict | None = None, games=None) -> None:
    """Rewrite a part file with changed blob keys (a value of None removes the key) or another ``game`` column."""
    table = pq.read_table(part)
    meta = dict(table.schema.metadata)
    blob = json.loads(meta[METADATA_KEY])
    for key, value in (blob_changes or {}).items():
        if value is None:
            blob.pop(key, None)
        else:
            blob[key] = value
    meta[METADATA_KEY] = json.dumps(blob).encode()
    if games is not None:
        table = table.set_column(table.schema.get_field_index("game"), "game", pa.array(games(table["game"])))
    pq.write_table(table.replace_schema_metadata(meta), part)


def resume_args(path: Path) -> list:
    return ["simulate", "--resume", "--out", path, "--quiet"]


# ---------------------------------------------------------------- 4. a manifest is checked, never believed

MANIFEST_CASES = [
    ("no-config", {"config": DELETE}, "no config"),
    ("config-not-an-object", {"config": ["scopa", 300]}, "config is not an object"),
    ("chunks-done-a-string", {"chunks_done": "0,1,2"}, "chunks_done must be a list"),
    ("chunks-done-a-bool", {"chunks_done": [0, True, 2]}, "chunks_done holds True"),
    ("chunks-done-a-float", {"chunks_done": [0, 1.0, 2]}, "chunks_done holds 1.0"),
    ("chunks-done-twice", {"chunks_done": [0, 1, 1]}, "lists chunk 1 twice"),
    ("chunks-done-out-of-range", {"chunks_done": [0, 1, 3]}, "holds 3, which is not a chunk index from 0 to 2"),
    ("chunks-done-negative", {"chunks_done": [-1, 0, 1]}, "holds -1"),
    ("n-chunks-inconsistent", {"n_chunks": 2}, "n_chunks is 2, but 300 games in chunks of 100 make 3"),
    ("complete-not-a-bool", {"complete": "yes"}, "complete must be true or false"),
    ("complete-with-chunks-missing", {"chunks_done": [0, 1]}, "1 of 3 chunks are missing"),
    ("games-written-missing", {"games_written": DELETE}, "games_written is missing"),
    ("games-written-wrong", {"games_written": 200}, "200 games written"),
    ("games-written-a-string", {"games_written": "300"}, "'300' games written"),
    ("stopped-with-a-gap", {"stopped": "precision", "chunks_done": [0, 2], "games_written": 200}, "chunk 1 is missing"),
    ("stopped-yet-all-done", {"stopped": "precision"}, "yet all 3 chunks are done"),
    ("stopped-while-incomplete", {"stopped": "precision", "complete": False}, "only a complete run"),
    ("foreign-format", {"format": "other-tool/2"}, "is not a scopasim run"),
]
CONFIG_CASES = [
    ("games-zero", {"games": 0}, "config.games must be a positive integer"),
    ("chunk-size-a-bool", {"chunk_size": True}, "config.chunk_size must be a positive integer"),
    ("seed-a-string", {"seed": "3"}, "config.seed must be a int"),
    ("policies-not-a-list", {"policies": "greedy"}, "config.policies must be a list"),
]


@pytest.mark.parametrize("changes,match", [c[1:] for c in MANIFEST_CASES], ids=[c[0] for c in MANIFEST_CASES])
def test_analyze_refuses_a_corrupt_manifest(run, changes, match):
    edit(run, **changes)
    message = refused(["analyze", run], run, code=1, match=match)
    assert "manifest.json" in message


@pytest.mark.parametrize("changes,match", [c[1:] for c in CONFIG_CASES], ids=[c[0] for c in CONFIG_CASES])
def test_analyze_refuses_a_corrupt_config(run, changes, match):
    edit_config(run, **changes)
    refused(["analyze", run], run, code=1, match=match)


RESUME_CASES = [
    c
    for c in MANIFEST_CASES
    if c[0]
    in {
        "no-config",
        "chunks-done-a-string",
        "chunks-done-a-bool",
        "chunks-done-twice",
        "chunks-done-out-of-range",
        "n-chunks-inconsistent",
        "complete-not-a-bool",
    }
]


@pytest.mark.parametrize("changes,match", [c[1:] for c in RESUME_CASES], ids=[c[0] for c in RESUME_CASES])
def test_resume_refuses_a_corrupt_manifest(interrupted, changes, match):
    edit(interrupted, **changes)
    refused(resume_args(interrupted), interrupted, code=1, match=match)


def test_a_manifest_that_is_not_an_object(run):
    (run / "manifest.json").write_text("[1, 2, 3]")
    refused(["analyze", run], run, code=1, match="not a JSON object")
    refused(resume_args(run), run, code=1, match="not a JSON object")


def test_report_refuses_a_complete_run_with_chunks_missing(run, tmp_path):
    """Today's silent failure: ``report`` worked on 200 of 300 games."""
    edit(run, chunks_done=[0, 2], games_written=200)
    refused(["report", run, "--out", tmp_path / "r.html"], tmp_path, code=1, match="missing from chunks_done")


def test_legacy_runs_are_read_but_never_resumed_or_overwritten(run, tmp_path):
    """A run written before the signature: analysis reads it (no games_written, no chunk records in its parts)."""
    edit(run, format=DELETE, rules_version=DELETE, rng_scheme=DELETE, games_written=DELETE)
    for part in run.glob("*/part-*.parquet"):
        rewrite_part(part, {"chunk": None, "first_game": None, "n_games": None})
    result = CliRunner().invoke(app, ["analyze", str(run)])
    assert result.exit_code == 0, result.output
    edit(run, complete=False, chunks_done=[0, 1])
    refused(resume_args(run), run, code=1, match="older than the run signature")
    refused(["simulate", *CLI_SETTINGS, "--out", run, "--overwrite"], run, code=1, match="no scopasim run signature")
    shutil.copy(run / "games" / "part-00000.parquet", run / "games" / "part-00001.parquet")
    refused(["analyze", run, "--partial"], run, code=1, match="part-00001.parquet does not hold games 100..199")


# ---------------------------------------------------------------- 3. a part says which slot it holds


def copy_into_slot(run: Path, table: str, source: int, target: int) -> Path:
    part = run / table / f"part-{target:05d}.parquet"
    shutil.copy(run / table / f"part-{source:05d}.parquet", part)
    return part


def shift(column):
    return pc.add(column, 1)


def duplicate_first(column):
    values = column.to_pylist()
    return [values[0], *values[:-1]]


PART_CASES = [
    ("games-part-in-another-slot", lambda r: copy_into_slot(r, "games", 0, 1), "records chunk 0"),
    ("deals-part-in-another-slot", lambda r: copy_into_slot(r, "deals", 2, 0), "records chunk 2"),
    (
        "games-shifted-by-one",
        lambda r: rewrite_part(r / "games" / "part-00001.parquet", games=shift) or r / "games" / "part-00001.parquet",
        "does not hold games 100..199",
    ),
    (
        "games-duplicated",
        lambda r: (
            rewrite_part(r / "games" / "part-00002.parquet", games=duplicate_first)
            or r / "games" / "part-00002.parquet"
        ),
        "one each",
    ),
    (
        "deals-of-other-games",
        lambda r: rewrite_part(r / "deals" / "part-00002.parquet", games=shift) or r / "deals" / "part-00002.parquet",
        "holds games 201..300",
    ),
    (
        "chunk-record-removed",
        lambda r: (
            rewrite_part(r / "deals" / "part-00001.parquet", {"chunk": None}) or r / "deals" / "part-00001.parquet"
        ),
        "records chunk None",
    ),
    (
        "chunk-record-of-another-slot",
        lambda r: (
            rewrite_part(r / "games" / "part-00000.parquet", {"chunk": 1, "first_game": 100})
            or r / "games" / "part-00000.parquet"
        ),
        "records chunk 1",
    ),
]


@pytest.mark.parametrize("damage,match", [c[1:] for c in PART_CASES], ids=[c[0] for c in PART_CASES])
def test_analyze_names_a_part_that_is_not_of_its_slot(run, damage, match):
    part = damage(run)
    message = refused(["analyze", run], run, code=1, match=match)
    assert str(part) in message


def test_resume_plays_again_a_chunk_whose_part_sits_in_another_slot(run, base):
    part = copy_into_slot(run, "games", 0, 2)
    edit(run, complete=False, games_written=DELETE)
    result = CliRunner().invoke(app, resume_args(run))
    assert result.exit_code == 0, result.output
    assert f"warning: {part} is damaged (part file" not in result.stderr  # the reason, without the name again
    assert f"warning: {part} is damaged (records chunk 0" in result.stderr
    for mine, theirs in zip(rows(run), rows(base), strict=True):
        pd.testing.assert_frame_equal(mine, theirs)


def test_resume_replays_the_chunks_of_a_deleted_table_folder(run, base):
    edit(run, complete=False, games_written=DELETE)
    shutil.rmtree(run / "deals")
    result = CliRunner().invoke(app, resume_args(run))
    assert result.exit_code == 0, result.output
    assert result.stderr.count("is damaged (is missing") == 3
    for mine, theirs in zip(rows(run), rows(base), strict=True):
        pd.testing.assert_frame_equal(mine, theirs)


# ---------------------------------------------------------------- 1. --overwrite deletes only a provable run


def overwrite_args(path: Path) -> list:
    return ["simulate", *cli_settings(seed=4), "--out", path, "--overwrite", "--quiet"]


def link_to_user_folder(run: Path, table: str) -> None:
    user = run.parent / "user-data"
    user.mkdir()
    (user / "thesis.tex").write_text("precious")
    shutil.rmtree(run / table)
    (run / table).symlink_to(user, target_is_directory=True)


OVERWRITE_CASES = [
    ("user-file-beside-the-run", lambda r: (r / "notes.txt").write_text("mine"), "it holds notes.txt"),
    ("user-file-in-games", lambda r: (r / "games" / "notes.csv").write_text("a,b"), "games/notes.csv"),
    ("folder-in-deals", lambda r: (r / "deals" / "extra").mkdir(), "deals/extra"),
    ("games-a-symlink", lambda r: link_to_user_folder(r, "games"), "games (a symbolic link)"),
    ("deals-a-symlink", lambda r: link_to_user_folder(r, "deals"), "deals (a symbolic link)"),
    (
        "part-a-symlink",
        lambda r: (
            (r / "games" / "part-00000.parquet").unlink()
            or (r / "games" / "part-00000.parquet").symlink_to(r / "deals" / "part-00000.parquet")
        ),
        "games/part-00000.parquet",
    ),
    ("old-style-temporary", lambda r: (r / "games" / ".part-00000.parquet.tmp").write_text("x"), ".part-00000"),
    ("manifest-a-folder", lambda r: (r / "manifest.json").unlink() or (r / "manifest.json").mkdir(), "regular file"),
    ("manifest-not-json", lambda r: (r / "manifest.json").write_text("{not json"), "not a JSON object"),
    ("manifest-of-something-else", lambda r: (r / "manifest.json").write_text('{"name": "my notes"}'), "signature"),
    ("manifest-without-schema-version", lambda r: edit(r, schema_version=DELETE), "no schema version"),
    ("no-manifest", lambda r: (r / "manifest.json").unlink(), "no manifest.json"),
]


@pytest.mark.parametrize("setup,match", [c[1:] for c in OVERWRITE_CASES], ids=[c[0] for c in OVERWRITE_CASES])
def test_overwrite_refuses_what_is_not_provably_a_run(run, setup, match):
    setup(run)
    message = refused(overwrite_args(run), run.parent, code=1, match=match)
    assert "nothing was deleted" in message


def test_overwrite_replaces_a_run_and_its_leftovers(run):
    (run / "games" / f".part-00001.parquet.{os.getpid() + 1}.tmp").write_bytes(b"left by a dead writer")
    (run / LOCK).write_text(json.dumps({"pid": dead_pid(), "host": socket.gethostname(), "since": "then"}))
    result = CliRunner().invoke(app, overwrite_args(run))
    assert result.exit_code == 0, result.output
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["format"] == RUN_FORMAT and manifest["config"]["seed"] == 4 and manifest["complete"]
    assert sorted(p.name for p in run.iterdir()) == ["deals", "games", "manifest.json"]
    assert sorted(p.name for p in (run / "games").iterdir()) == [f"part-0000{i}.parquet" for i in range(3)]


# ---------------------------------------------------------------- 5. resume refuses another engine, and links


def test_resume_refuses_linked_tables(interrupted):
    link_to_user_folder(interrupted, "deals")
    refused(resume_args(interrupted), interrupted.parent, code=1, match="deals/ is a symbolic link")


@pytest.mark.parametrize(
    "changes,match",
    [
        ({"rules_version": "0-old"}, "rules_version '0-old'"),
        ({"rules_version": DELETE}, "rules_version 'None'"),
        ({"rng_scheme": "lcg/0"}, "rng_scheme 'lcg/0'"),
        ({"schema_version": 2}, "results schema 2"),
    ],
    ids=["rules-version", "no-rules-version", "rng-scheme", "schema-version"],
)
def test_resume_refuses_a_run_of_another_engine(interrupted, changes, match):
    edit(interrupted, **changes)
    refused(resume_args(interrupted), interrupted, code=1, match=match)


# ---------------------------------------------------------------- 2. one writer per run


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.fixture
def sleeper():
    child = subprocess.Popen(["sleep", "600"])
    yield child
    child.kill()
    child.wait()


def write_lock(path: Path, pid: int, host: str | None = None) -> None:
    holder = {"pid": pid, "host": host or socket.gethostname(), "since": "2026-01-01T00:00:00+00:00", "command": "x"}
    (path / LOCK).write_text(json.dumps(holder))


LOCK_CASES = [
    ("simulate", lambda r: ["simulate", *CLI_SETTINGS, "--out", r, "--quiet"]),
    ("resume", resume_args),
    ("overwrite", overwrite_args),
]


@pytest.mark.parametrize("args", [c[1] for c in LOCK_CASES], ids=[c[0] for c in LOCK_CASES])
def test_a_live_writer_is_named(interrupted, sleeper, args):
    write_lock(interrupted, sleeper.pid)
    refused(args(interrupted), interrupted, code=1, match=f"pid {sleeper.pid} on {socket.gethostname()} since 2026")


def test_a_live_writer_of_a_new_folder_is_named(tmp_path, sleeper):
    (tmp_path / "new").mkdir()
    write_lock(tmp_path / "new", sleeper.pid)
    refused(["simulate", *CLI_SETTINGS, "--out", tmp_path / "new"], tmp_path, code=1, match=f"pid {sleeper.pid}")


def test_a_lock_of_another_host_is_refused(interrupted):
    write_lock(interrupted, 12345, host="elsewhere.example")
    refused(
        resume_args(interrupted),
        interrupted,
        code=1,
        match=f"on elsewhere.example since 2026-01-01T00:00:00+00:00 (if it is gone, delete {LOCK})",
    )


def test_an_unreadable_lock_is_refused(interrupted):
    (interrupted / LOCK).write_text("")
    refused(resume_args(interrupted), interrupted, code=1, match="unreadable")


def test_a_stale_lock_is_taken_over(interrupted, base):
    write_lock(interrupted, dead_pid())
    result = run_process(resume_args(interrupted))
    assert result.returncode == 0, result.stderr
    assert not (interrupted / LOCK).exists()
    for mine, theirs in zip(rows(interrupted), rows(base), strict=True):
        pd.testing.assert_frame_equal(mine, theirs)


def test_a_reused_pid_is_a_stale_lock(interrupted, sleeper):
    """The pid is alive, but it was started after the lock: another process that got the dead holder's pid."""
    holder = {"pid": sleeper.pid, "host": socket.gethostname(), "since": "then", "process_start": "1"}
    (interrupted / LOCK).write_text(json.dumps(holder))
    with api.open_run(config(), interrupted, resume=True) as writer:
        assert json.loads((interrupted / LOCK).read_text())["pid"] == os.getpid()
        assert writer.chunks_left == 2
    assert not (interrupted / LOCK).exists()


def test_the_lock_is_released_however_the_run_ends(tmp_path, monkeypatch):
    with pytest.raises(RuntimeError), api.open_run(config(), tmp_path / "a"):
        assert (tmp_path / "a" / LOCK).exists()
        raise RuntimeError
    assert not (tmp_path / "a" / LOCK).exists()

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(api, "play_chunk", interrupt)
    with pytest.raises(KeyboardInterrupt):
        api.simulate(config(), tmp_path / "b")
    assert not (tmp_path / "b" / LOCK).exists()
    writer = api.open_run(config(), tmp_path / "b", resume=True)
    with pytest.raises(OutputError, match=f"pid {os.getpid()}"):  # this very process holds it
        api.open_run(config(), tmp_path / "b", resume=True)
    with pytest.raises(KeyboardInterrupt):
        api.run_chunks(writer)
    assert not (tmp_path / "b" / LOCK).exists()


def test_a_finished_run_keeps_no_temporary_of_a_killed_writer(tmp_path):
    """A Dask worker killed mid-write leaves its hidden part behind; the run that completes sweeps it away."""
    writer = api.open_run(config(), tmp_path / "run")
    orphans = [tmp_path / "run" / table / f".part-00001.parquet.{2**22 + 1}.tmp" for table in ("games", "deals")]
    orphans.append(tmp_path / "run" / f".manifest.json.{2**22 + 1}.tmp")
    for orphan in orphans:
        orphan.write_bytes(b"half a part")
    api.run_chunks(writer)
    assert not any(orphan.exists() for orphan in orphans)
    assert sorted(p.name for p in (tmp_path / "run" / "games").iterdir()) == [f"part-0000{i}.parquet" for i in range(3)]


def wait_for(condition, proc: subprocess.Popen, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the first writer did not start"
        time.sleep(0.005)


def test_a_second_process_is_refused_while_the_first_writes(tmp_path):
    """Two real processes: the first is paused (SIGSTOP) while it holds the lock, so the refusals need no timing.
    It is paused as soon as its manifest exists; loading the kernels and 40,000 games leave it seconds to spare."""
    out = tmp_path / "run"
    args = ["simulate", "--games", 40_000, "--chunk-size", 4_000, "--seed", 11, "--quiet", "--out", out]
    first = subprocess.Popen(
        [sys.executable, "-c", CLI_CODE, *map(str, args)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        wait_for(lambda: (out / LOCK).exists() and (out / "manifest.json").exists(), first)
        first.send_signal(signal.SIGSTOP)
        assert json.loads((out / LOCK).read_text())["pid"] == first.pid
        holder = f"pid {first.pid} on {socket.gethostname()} since"
        for second in (args, [*args, "--resume"], [*args, "--overwrite"]):
            refused_process(second, out, code=1, match=holder)
        first.send_signal(signal.SIGCONT)
        _, stderr = first.communicate(timeout=600)
    finally:
        first.kill()
    assert first.returncode == 0, stderr
    assert not (out / LOCK).exists() and json.loads((out / "manifest.json").read_text())["complete"]
    api.simulate(RunConfig.create("scopa", games=40_000, seed=11, chunk_size=10_000), tmp_path / "ref")
    for mine, theirs in zip(rows(out), rows(tmp_path / "ref"), strict=True):
        pd.testing.assert_frame_equal(mine, theirs)


# ---------------------------------------------------------------- 6. nothing grows with --games before play


class FirstChunkPlayedError(Exception):
    pass


def test_chunk_lists_do_not_grow_with_games(tmp_path, monkeypatch):
    huge = RunConfig.create("scopa", games=10**12, chunk_size=10**5)  # 10**7 chunks
    manifest = {"chunks_done": [0, 1]}
    seen = []

    def first_chunk(config, games, **kwargs):
        seen.append(int(games[0]))
        raise FirstChunkPlayedError

    monkeypatch.setattr(api, "play_chunk", first_chunk)
    tracemalloc.start()
    try:
        writer = RunWriter(tmp_path, huge, manifest)
        assert next(writer.chunks_todo) == 2 and writer.chunks_left == 10**7 - 2
        with pytest.raises(FirstChunkPlayedError):
            api.run_chunks(writer)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert seen == [2 * 10**5]
    assert peak < 8 * 2**20, f"peak {peak / 2**20:.1f} MiB before the first game"  # a list of 10**7 ints: > 80 MiB


# ---------------------------------------------------------------- 7. write faults: one line, no temporary left


def no_temporaries(root: Path) -> bool:
    return not [p for p in root.rglob(".*") if p.name != LOCK]


def test_a_name_too_long(tmp_path):
    long = tmp_path / ("x" * 300)
    refused(["simulate", *CLI_SETTINGS, "--out", long], tmp_path, code=1, match="File name too long")
    refused(["simulate", *CLI_SETTINGS, "--out", long / "run"], tmp_path, code=1, match="File name too long")
    refused(["analyze", long], tmp_path, code=1, match="File name too long")


def raise_oserror(code: int):
    def fail(*args, **kwargs):
        raise OSError(code, os.strerror(code))

    return fail


def test_a_read_only_file_system(tmp_path, monkeypatch):
    monkeypatch.setattr(Path, "mkdir", raise_oserror(errno.EROFS))
    refused(["simulate", *CLI_SETTINGS, "--out", tmp_path / "a" / "run"], tmp_path, code=1, match="Read-only file")


def test_a_read_only_file_system_at_the_lock(tmp_path, monkeypatch):
    real_open = os.open

    def fake_open(path, flags, *args):
        if str(path).endswith(LOCK):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", fake_open)
    refused(["simulate", *CLI_SETTINGS, "--out", tmp_path / "run"], tmp_path, code=1, match="Read-only file")


def fail_fsync_of(marker: str, code: int):
    real = os.fsync

    def fsync(fd):
        if marker in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(code, os.strerror(code))
        return real(fd)

    return fsync


def test_a_full_disk_when_the_manifest_is_created(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "fsync", fail_fsync_of(".manifest.json.", errno.ENOSPC))
    message = refused(["simulate", *CLI_SETTINGS, "--out", tmp_path / "run"], tmp_path, code=1)
    assert "No space left on device" in message and "manifest.json" in message


def test_a_full_disk_mid_run_claims_nothing_and_resumes(tmp_path, monkeypatch, base):
    out = tmp_path / "run"
    monkeypatch.setattr(os, "fsync", fail_fsync_of("part-00001.parquet", errno.ENOSPC))
    result = CliRunner().invoke(app, ["simulate", *CLI_SETTINGS, "--out", str(out), "--quiet"])
    message = check_refusal(result.exit_code, result.stderr, 1, "No space left on device")
    assert "part-00001.parquet" in message
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["chunks_done"] == [0] and manifest["complete"] is False
    assert no_temporaries(out) and not (out / LOCK).exists()
    monkeypatch.undo()
    assert CliRunner().invoke(app, resume_args(out)).exit_code == 0
    for mine, theirs in zip(rows(out), rows(base), strict=True):
        pd.testing.assert_frame_equal(mine, theirs)


def test_a_read_only_manifest_never_claims_the_chunk(tmp_path, monkeypatch):
    out = tmp_path / "run"
    real = os.replace
    calls = []

    def replace(src, dst):
        if str(dst).endswith("manifest.json"):
            calls.append(dst)
            if len(calls) > 1:  # the manifest of the new run was written; recording chunk 0 fails
                raise OSError(errno.EROFS, os.strerror(errno.EROFS))
        return real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    result = CliRunner().invoke(app, ["simulate", *CLI_SETTINGS, "--out", str(out), "--quiet"])
    check_refusal(result.exit_code, result.stderr, 1, "Read-only file system")
    assert json.loads((out / "manifest.json").read_text())["chunks_done"] == []
    assert (out / "games" / "part-00000.parquet").exists() and no_temporaries(out) and not (out / LOCK).exists()


def test_atomic_write_leaves_the_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "manifest.json"
    target.write_text("old")
    monkeypatch.setattr(os, "fsync", raise_oserror(errno.EIO))
    with pytest.raises(OutputError, match="Input/output error"):
        results._atomic_write_text(target, "new")
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["manifest.json"]


def limit_file_size(limit: int):
    def preexec():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writing past the limit then fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return preexec


def test_a_file_size_limit_on_resume_is_one_line(interrupted):
    """A real process under RLIMIT_FSIZE (4 KiB: the lock fits, a part does not): the folder is left as it was."""
    message = refused_process(resume_args(interrupted), interrupted, code=1, preexec_fn=limit_file_size(4096))
    assert "cannot write part file" in message and "part-00001.parquet" in message


def test_resume_refuses_a_run_whose_policies_now_play_other_parameters(interrupted):
    """The config records the policies' labels, which name only the values given: a game's defaults that changed
    between versions (mc's in Foracio) would mix two kinds of games. The manifest records every parameter."""
    manifest = json.loads((interrupted / "manifest.json").read_text())
    assert manifest["policy_params"] == results.policy_params(config())
    changed = [{**manifest["policy_params"][0], "depth": 2.0}, manifest["policy_params"][1]]
    edit(interrupted, policy_params=changed)
    refused(resume_args(interrupted), interrupted, code=1, match="seat 0's policy now plays with other parameters")


def test_resume_of_a_run_without_recorded_parameters(interrupted, tmp_path):
    """Older runs lack ``policy_params``: resumed when their policies' defaults never changed (greedy, random),
    refused when a seat plays mc or search, whose per-game defaults have."""
    edit(interrupted, policy_params=DELETE)
    result = CliRunner().invoke(app, [str(a) for a in resume_args(interrupted)])
    assert result.exit_code == 0, result.output
    mc = tmp_path / "mc"
    api.simulate(config(policies=["mc:samples=2", "greedy"], games=20, chunk_size=10), mc, threads=1)
    edit(mc, complete=False, chunks_done=[0], policy_params=DELETE)
    for table in ("games", "deals"):
        (mc / table / "part-00001.parquet").unlink()
    refused(resume_args(mc), mc, code=1, match="did not record its policies' parameters")
