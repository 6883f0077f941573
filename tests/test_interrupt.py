"""Ctrl-C (SIGINT) or SIGTERM on a real ``scopasim simulate`` process: it exits with 130, leaves only complete part
files and an incomplete manifest, and ``--resume`` finishes the run with the same rows.

No test here depends on how fast the machine is. Promptness is checked as a mechanism: a run whose single chunk
would take hours still stops, well within a generous timeout, which it can only do if the kernels stop in the
middle of the chunk (the old behaviour, finishing the chunk first, cannot pass). The latency itself is measured
by ``python -m benchmarks.stop_latency``.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from simcore import api
from simcore.config import RunConfig

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["simulate", "--games", "400000", "--chunk-size", "10000", "--seed", "5", "--quiet"]
# One chunk of 20,000 Monte Carlo games with 200 samples per decision: hours of work on 2 cores.
ENDLESS = ["simulate", "--games", "20000", "--chunk-size", "20000", "--seed", "5", "--quiet"]
ENDLESS += ["--policy", "mc:samples=200", "--policy", "greedy"]
EXIT_TIMEOUT = 60  # seconds: generous for a loaded machine; the chunk itself would take hours
MARKER = "test: a chunk is playing"

# The CLI, instrumented to print MARKER once a chunk is being played: in this process (``play_chunk`` of more than
# the warm-up's one game) or, on a cluster, by a worker (the scheduler lists a task as processing).
CHILD = f"""
import faulthandler, signal, sys, threading, time
faulthandler.register(signal.SIGUSR1, all_threads=True)  # a process that does not exit: its threads' stacks
from simcore import api, executors

play_chunk, connect = api.play_chunk, executors.connect

def marked(config, games, *args, **kwargs):
    if len(games) > 1:
        print({MARKER!r}, file=sys.stderr, flush=True)
    return play_chunk(config, games, *args, **kwargs)

def connect_and_watch(spec):
    client, cluster = connect(spec)

    def watch():
        while not any(client.processing().values()):
            time.sleep(0.05)
        print({MARKER!r}, file=sys.stderr, flush=True)

    threading.Thread(target=watch, daemon=True).start()
    return client, cluster

api.play_chunk, executors.connect = marked, connect_and_watch
from cli.app import main
sys.argv = ["scopasim", *sys.argv[1:]]
main()
"""


def start(out: Path, args: list[str], extra: tuple[str, ...] = (), stdout: int = subprocess.PIPE) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, *args, *extra, "--out", str(out)],
        cwd=ROOT,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_chunks(out: Path, proc: subprocess.Popen, watch: StderrWatch, chunks: int = 2, timeout: float = 300):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if len(json.loads((out / "manifest.json").read_text())["chunks_done"]) >= chunks:
                return
        except (OSError, ValueError, KeyError):
            pass
        assert proc.poll() is None, watch.text()
        time.sleep(0.05)
    raise AssertionError("the run did not start writing chunks")


class StderrWatch:
    """Collects a process's stderr in a thread; ``wait`` returns once MARKER has been printed."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.proc = proc
        self.lines: list[str] = []
        self.seen = threading.Event()
        self.thread = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self.thread.start()

    def _read(self, proc: subprocess.Popen) -> None:
        for line in proc.stderr:
            self.lines.append(line)
            if MARKER in line:
                self.seen.set()

    def wait(self, proc: subprocess.Popen, timeout: float = 300) -> None:
        if not self.seen.wait(timeout):
            proc.kill()
            raise AssertionError("no chunk started playing: " + "".join(self.lines)[-2000:])

    def text(self) -> str:
        self.thread.join(EXIT_TIMEOUT)
        self.proc.stderr.close()
        return "".join(self.lines)


def exit_code(proc: subprocess.Popen, watch: StderrWatch, timeout: float = EXIT_TIMEOUT) -> int:
    """The process's exit code once it has exited; if it has not within ``timeout``, the stacks of its threads
    (the child's faulthandler prints them on SIGUSR1) go into the failure's message."""
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGUSR1)
        time.sleep(2)
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        stderr = watch.text()
        raise AssertionError(f"the process did not exit within {timeout} s of the signal:\n{stderr[-6000:]}") from None


CASES = [(signal.SIGINT, ()), (signal.SIGTERM, ()), (signal.SIGINT, ("--cluster", "local:2"))]
CASE_IDS = ["SIGINT", "SIGTERM", "SIGINT-cluster"]


@pytest.mark.parametrize("sig,extra", CASES, ids=CASE_IDS)
def test_a_signal_stops_a_chunk_that_would_take_hours(sig, extra, tmp_path):
    if extra:
        pytest.importorskip("dask.distributed")
    out = tmp_path / "run"
    proc = start(out, ENDLESS, extra, stdout=subprocess.DEVNULL)
    watch = StderrWatch(proc)
    watch.wait(proc)
    time.sleep(0.5)  # let the kernel (or the worker's task) get going; correctness does not depend on it
    proc.send_signal(sig)
    code = exit_code(proc, watch)
    stderr = watch.text()
    assert code == 130 and "--resume" in stderr and "Traceback" not in stderr, stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] is False and manifest["chunks_done"] == []
    assert [p.name for p in (out / "games").iterdir()] == [] and [p.name for p in (out / "deals").iterdir()] == []


@pytest.mark.parametrize("sig,extra", CASES, ids=CASE_IDS)
def test_a_signal_stops_the_run_and_resume_finishes_it(sig, extra, tmp_path):
    if extra:
        pytest.importorskip("dask.distributed")
    out = tmp_path / "run"
    proc = start(out, ARGS, extra, stdout=subprocess.DEVNULL)
    watch = StderrWatch(proc)  # read as it comes: a full pipe would block the process
    wait_for_chunks(out, proc, watch)
    proc.send_signal(sig)
    code = exit_code(proc, watch)
    stderr = watch.text()
    assert code == 130 and "--resume" in stderr and "Traceback" not in stderr, stderr
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
