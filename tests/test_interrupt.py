"""Ctrl-C (SIGINT) or SIGTERM on a real ``scopasim simulate`` process: it stops within seconds, leaves only
complete part files and an incomplete manifest, and ``--resume`` finishes the run with the same rows."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from simcore import api
from simcore.config import RunConfig

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["simulate", "--games", "400000", "--chunk-size", "10000", "--seed", "5", "--quiet"]


def start(out: Path, extra: tuple[str, ...] = ()) -> subprocess.Popen:
    code = "import sys; from cli.app import main; sys.argv = ['scopasim', *sys.argv[1:]]; main()"
    return subprocess.Popen(
        [sys.executable, "-c", code, *ARGS, *extra, "--out", str(out)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_chunks(out: Path, proc: subprocess.Popen, chunks: int = 2, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if len(json.loads((out / "manifest.json").read_text())["chunks_done"]) >= chunks:
                return
        except (OSError, ValueError, KeyError):
            pass
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError("the run did not start writing chunks")


@pytest.mark.parametrize(
    "sig,extra",
    [(signal.SIGINT, ()), (signal.SIGTERM, ()), (signal.SIGINT, ("--cluster", "local:2"))],
    ids=["SIGINT", "SIGTERM", "SIGINT-cluster"],
)
def test_a_signal_stops_the_run_and_resume_finishes_it(sig, extra, tmp_path):
    if extra:
        pytest.importorskip("dask.distributed")
    out = tmp_path / "run"
    proc = start(out, extra)
    wait_for_chunks(out, proc)
    sent = time.monotonic()
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=30)
    assert time.monotonic() - sent < 10
    assert proc.returncode == 130 and "--resume" in stderr and "Traceback" not in stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] is False and 0 < len(manifest["chunks_done"]) < 40
    for table in ("games", "deals"):
        names = sorted(p.name for p in (out / table).iterdir())
        assert all(not n.startswith(".") for n in names)  # no temporary file left
        assert len(names) >= len(manifest["chunks_done"])
    # finish it (a shorter run with the same settings but fewer games would be another run: use the API)
    config = RunConfig.from_dict(manifest["config"])
    api.simulate(config, out, resume=True)
    done = pd.read_parquet(out / "games")
    assert len(done) == 400_000 and done.game.is_unique
    reference = RunConfig.create("scopa", games=40_000, seed=5, chunk_size=20_000)
    api.simulate(reference, tmp_path / "ref")
    ref = pd.read_parquet(tmp_path / "ref" / "games").sort_values("game", ignore_index=True)
    head = done.sort_values("game", ignore_index=True).head(40_000)
    pd.testing.assert_frame_equal(head.drop(columns="seed"), ref.drop(columns="seed"), check_categorical=False)
