"""How long a ``scopasim simulate`` takes to exit after Ctrl-C or SIGTERM: ``python -m benchmarks.stop_latency``.

For each signal (SIGINT, SIGTERM), each executor (one process; ``--cluster local:2``) and each load (an idle
machine; two CPU hogs ``python -c "while True: pass"``, one per core), it starts a real CLI process on a run whose
chunks take many seconds, waits until a chunk is being played, sends the signal and times the exit. It prints
the median and the largest of ``--repeats`` trials next to the issue's 2 s target (PASS/FAIL), and checks that
each trial exited with 130. A report, not a test: it exits 0 even when the target fails.

"A chunk is being played": the child process wraps ``simcore.api.play_chunk`` (one process) or polls the Dask
scheduler for a task in a worker (cluster) and prints a marker line on stderr; the signal follows the marker
after ``--settle`` seconds, so that it lands inside the kernel (or inside the workers' tasks), not in start-up.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 2.0
MARKER = "scopasim-benchmark: chunk playing"
EXIT_TIMEOUT = 300.0  # a stop slower than this is reported as such, and the child killed

# The child: the CLI, instrumented to print MARKER once a chunk is being played.
CHILD = f"""
import sys, threading, time
from simcore import api, executors

MARKER = {MARKER!r}
play_chunk = api.play_chunk

def marked(config, games, *args, **kwargs):
    if len(games) > 1:
        print(MARKER, file=sys.stderr, flush=True)
    return play_chunk(config, games, *args, **kwargs)

api.play_chunk = marked
connect = executors.connect

def connect_and_watch(spec):
    client, cluster = connect(spec)

    def watch():
        while True:
            try:
                if any(client.processing().values()):
                    print(MARKER, file=sys.stderr, flush=True)
                    return
            except Exception:
                return
            time.sleep(0.05)

    threading.Thread(target=watch, daemon=True).start()
    return client, cluster

executors.connect = connect_and_watch
from cli.app import main
sys.argv = ["scopasim", *sys.argv[1:]]
main()
"""


def start_hogs(n: int) -> list[subprocess.Popen]:
    """``n`` CPU-bound processes (the load)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def stop_hogs(hogs: list[subprocess.Popen]) -> None:
    for hog in hogs:
        hog.kill()
        hog.wait()


def default_sigint() -> None:
    """Give the run SIGINT's default disposition: a benchmark started in the background without job control (``cmd &``
    in a script, ``nohup``) inherits SIGINT ignored, and Python installs no KeyboardInterrupt handler over that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def one_trial(sig: signal.Signals, cluster: bool, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """Start a run, signal it once a chunk plays, and time the exit."""
    out = folder / f"run-{time.monotonic_ns()}"
    cli = ["simulate", "--games", str(args.games), "--chunk-size", str(args.chunk_size), "--seed", "1", "--quiet"]
    cli += ["--policy", args.policy, "--out", str(out)]
    if cluster:
        cli += ["--cluster", "local:2"]
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, *cli],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if MARKER in line:
            break
    else:
        proc.wait()
        return {"error": f"the run ended (code {proc.returncode}) before a chunk was played: {''.join(lines)[-500:]}"}
    time.sleep(args.settle)
    if proc.poll() is not None:
        return {"error": f"the run ended (code {proc.returncode}) before the signal: raise --games"}
    sent = time.monotonic()
    proc.send_signal(sig)
    try:
        rest, _ = proc.communicate(timeout=EXIT_TIMEOUT)
        seconds = time.monotonic() - sent
    except subprocess.TimeoutExpired:
        proc.kill()
        rest, _ = proc.communicate()
        seconds = float("inf")
    stderr = "".join(lines) + (rest or "")
    return {"seconds": seconds, "code": proc.returncode, "traceback": "Traceback" in stderr}


def measure(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="scopasim-stop-") as tmp:
        for load in ("idle", "loaded"):
            hogs = start_hogs(os.cpu_count() or 2) if load == "loaded" else []
            try:
                for executor in ("local", "cluster"):
                    if executor == "cluster" and args.no_cluster:
                        continue
                    for sig in (signal.SIGINT, signal.SIGTERM):
                        trials = [one_trial(sig, executor == "cluster", args, Path(tmp)) for _ in range(args.repeats)]
                        rows.append({"load": load, "executor": executor, "signal": sig.name, "trials": trials})
                        print(summary_line(rows[-1]), flush=True)
            finally:
                stop_hogs(hogs)
    return rows


def summary_line(row: dict[str, Any]) -> str:
    errors = [t["error"] for t in row["trials"] if "error" in t]
    if errors:
        return f"{row['load']:<7} {row['executor']:<8} {row['signal']:<8} error: {errors[0]}"
    seconds = [t["seconds"] for t in row["trials"]]
    codes = sorted({t["code"] for t in row["trials"]})
    worst = max(seconds)
    verdict = "PASS" if worst <= TARGET_SECONDS and codes == [130] else "FAIL"
    tb = " traceback!" if any(t["traceback"] for t in row["trials"]) else ""
    return (
        f"{row['load']:<7} {row['executor']:<8} {row['signal']:<8} median {statistics.median(seconds):6.2f} s  "
        f"max {worst:6.2f} s  exit {','.join(map(str, codes))}  {verdict} (target {TARGET_SECONDS:g} s){tb}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.stop_latency", description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="trials per case (default 3)")
    parser.add_argument("--games", type=int, default=4_000_000, help="games of the run (default 4,000,000)")
    parser.add_argument("--chunk-size", type=int, default=500_000, help="games per chunk (default 500,000)")
    parser.add_argument("--policy", default="greedy", help="policy of every seat (default greedy)")
    parser.add_argument("--settle", type=float, default=1.0, help="seconds from the marker to the signal (default 1)")
    parser.add_argument("--no-cluster", action="store_true", help="skip the --cluster local:2 cases")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the trials to this JSON file")
    args = parser.parse_args(argv)
    print(f"seconds from the signal to the exit of scopasim simulate ({args.policy}, chunks of {args.chunk_size:,})")
    rows = measure(args)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
