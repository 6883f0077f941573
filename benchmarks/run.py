"""Benchmarks of scopasim: ``python -m benchmarks.run [--quick] [--json PATH]`` from the repository root.

Prints the figures of issue 11's targets, each measured in this run next to what it is compared with:

* 2-player Scopa self-play (greedy, random) on one thread next to the minimal baseline kernel of
  ``../shared/bench`` (``--baseline DIR`` elsewhere), interleaved rep by rep in one process as
  ``side_by_side.py`` does, and every other game's deals/s next to Scopa's in the same process; three such
  processes in a full run, since one process differs from another by about +-5%;
* games/s on 1 and 2 threads (the scaling);
* cold compile of each game alone in a fresh process with an empty cache, and of all four in one process (their
  default rules: the specialised kernels), and of Scopa on the shared kernels that a varied rule set uses;
* the warm start of ``scopasim simulate --games 1000`` and the whole ``scopasim simulate`` of 10^6 games next to
  the kernels alone on the same chunks; peak memory of runs of 10^5 to 10^7 games;
* decisions/s of every policy (lookahead and mc against 3x the figures the issue quotes);
* then the sections of ``benchmarks.memory`` (memory of the analysis of those runs),
  ``benchmarks.stop_latency`` (seconds from a signal to the exit), ``benchmarks.variance_gain`` and
  ``benchmarks.user_policies`` (a user-written greedy next to the built-in one, and its compile time).

Compile time, start-up time, peak memory and the one-thread comparisons run in fresh subprocesses, because each
is a property of a whole process (or of its thread count); the thread scaling and the policies are measured in
this process after a warm-up. This is a report, not a test: it exits 0 even when a target fails.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import user_env

REPO = Path(__file__).resolve().parent.parent
VARIANT = "scopa"
SEED = 1
POLICIES = ("random", "greedy")
OTHER_GAMES = ("kaszino", "skopa", "foracio", "scopone")  # each at its default player count: 2, 2, 4 and 4
SEED_GAMES = ("kaszino", "skopa", "foracio")  # with Scopa, the four games of the seeds (the "all four" target)
PART_C_GAMES = ("escoba",)  # RULES.md Part C (issue 15): in the one-thread deals/s section, 2 players
THREADS = (1, 2)
BASELINE_DIR = REPO.parent / "shared" / "bench"  # the minimal kernel of 2-player Scopa (its README says what)

# Targets of issue 11 (2-core machine).
SHARED = "scopa, shared kernels"  # Scopa on the kernels every rule set shares (ONE_THREAD_SCRIPT)
TARGET_BASELINE_RATIO = 0.8  # Scopa self-play games/s over the baseline kernel's, one thread, same process
TARGET_GAME_RATIO = {"kaszino": 0.8, "skopa": 0.8, "foracio": 0.5, "scopone": 0.8, "escoba": 0.8}  # deals/s, vs Scopa
TARGET_SCALING = 1.8  # 2 threads over 1 thread, games/s
TARGET_WARM_SECONDS = 1.0  # scopasim simulate --games 1000, warm, whole process
TARGET_COLD_GAME_SECONDS = 20.0  # cold compile of the game a run uses
TARGET_COLD_ALL_SECONDS = 45.0  # cold compile of all four games
TARGET_PIPELINE_RATIO = 1.2  # scopasim simulate -n 1000000, whole process, over the kernels alone
TARGET_POLICY_SPEEDUP = 3.0  # decisions/s over the figures the issue quotes (2-player Scopa, 2 threads):
POLICY_BEFORE = {"lookahead": 770_000, "mc": 28_000}
TARGET_MEMORY_GROWTH = 1.1  # "flat": the peak of the largest run within 10% of the smallest one's
WARM_REPEATS = 5  # runs of the warm CLI start (after one that fills the cache); the median is reported

# Child scripts. Each prints one JSON object as its last line of stdout.
# Compiles (from an empty cache) and plays 100 games of each game named in argv, in that order.
COLD_SCRIPT = """
import time
start = time.perf_counter()
import json, sys
import numpy as np
from simcore import api
from simcore.config import RunConfig
imported = time.perf_counter()
first = {}
for variant in sys.argv[1:]:
    config = RunConfig.create(variant, policies=["greedy"], games=100, seed=1)
    begin = time.perf_counter()
    api.play_chunk(config, np.arange(100))
    first[variant] = time.perf_counter() - begin
done = time.perf_counter()
print(json.dumps({"import_s": imported - start, "first_chunk_s": first, "in_process_s": done - start}))
"""

# One thread, one process: the baseline kernel (when found) and every game's self-play, rep by rep, so that a
# drift of the machine's speed hits all alike; per-rep ratios, medians reported. argv: games, reps, baseline dir.
ONE_THREAD_SCRIPT = """
import json, os, statistics, sys, time
import numpy as np
games, reps, where = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
baseline = None
if os.path.isfile(os.path.join(where, "baseline_scopa.py")):
    sys.path.insert(0, where)
    import baseline_scopa as baseline
from simcore.api import play_chunk, specialised
from simcore.config import RunConfig
SHARED = "scopa, shared kernels"
out = {"baseline_found": baseline is not None, "policies": {}}


def shared(config, games):  # Scopa on the kernels every rule set shares (simcore.kernels.frozen)
    os.environ["SCOPASIM_SPECIALISE"] = "0"
    try:
        return play_chunk(config, games)
    finally:
        del os.environ["SCOPASIM_SPECIALISE"]


for name, code in (("greedy", 1), ("random", 0)):
    configs = {v: RunConfig.create(v, policies=(name,), games=games, seed=2) for v in ("scopa", *sys.argv[4:])}
    idx = np.arange(games, dtype=np.int64)
    if baseline is not None:
        baseline.simulate(2000, base_seed=1, policy=code, algo=6)
    out["specialised"] = {v: specialised(config) for v, config in configs.items()}
    for config in configs.values():
        play_chunk(config, idx[:2000])
    shared(configs["scopa"], idx[:2000])
    rows = {"baseline": [], **{v: [] for v in configs}, SHARED: []}
    for rep in range(reps):
        if baseline is not None:
            t = time.perf_counter()
            b = baseline.simulate(games, base_seed=2 + rep, policy=code, algo=6)
            seconds = time.perf_counter() - t
            rows["baseline"].append((games / seconds, float(np.sum(b["ndeals"])) / seconds))
        for v, config in configs.items():
            t = time.perf_counter()
            result = play_chunk(config, idx)
            seconds = time.perf_counter() - t
            rows[v].append((games / seconds, int(result.n_deals.sum()) / seconds))
        t = time.perf_counter()
        result = shared(configs["scopa"], idx)
        seconds = time.perf_counter() - t
        rows[SHARED].append((games / seconds, int(result.n_deals.sum()) / seconds))
    out["policies"][name] = rows
print(json.dumps(out))
"""

SIMULATE_SCRIPT = """
import time
start = time.perf_counter()
import json, resource, sys, tempfile
from pathlib import Path
from simcore import api
from simcore.config import RunConfig
games = int(sys.argv[1])
config = RunConfig.create("scopa", policies=["greedy"], games=games, seed=1)
with tempfile.TemporaryDirectory() as tmp:
    result = api.simulate(config, Path(tmp) / "run")
done = time.perf_counter()
peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # ru_maxrss is in KiB on Linux
print(json.dumps({"in_process_s": done - start, "simulate_s": result.elapsed, "peak_mib": peak_mib}))
"""

# The kernels alone on the chunks ``scopasim simulate`` plays (default chunk size), after a warm-up game.
KERNEL_SCRIPT = """
import json, sys, time
import numpy as np
from simcore import api
from simcore.config import RunConfig
config = RunConfig.create("scopa", policies=["greedy"], games=int(sys.argv[1]), seed=1)
api.warm_up(config)
start = time.perf_counter()
for index in range(config.n_chunks):
    chunk = config.chunk_range(index)
    api.play_chunk(config, np.arange(chunk.start, chunk.stop, dtype=np.int64))
print(json.dumps({"kernel_s": time.perf_counter() - start, "chunks": config.n_chunks}))
"""


def run_child(script: str, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``script`` in a fresh interpreter; return its JSON line plus ``wall_s``, what a user waits for."""
    child_env = user_env({"PYTHONPATH": str(REPO), **(env or {})})
    child_env.pop("SCOPASIM_NO_CACHE", None)  # start-up is measured with the cache the user normally has
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        cwd=REPO,
        env=child_env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark subprocess failed (exit {proc.returncode}):\n{proc.stderr}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["wall_s"] = wall
    return result


def measure_cold_compile(quick: bool) -> dict[str, Any]:
    """Compile from nothing (a fresh, empty Numba cache folder each time, so nothing can be loaded): each game
    alone in its own process (what a run of that game waits for; Scopa only with ``quick``), then all four games
    in one process."""
    alone = {}
    for variant in (VARIANT,) if quick else (VARIANT, *OTHER_GAMES):
        with tempfile.TemporaryDirectory(prefix="scopasim-cold-") as cache:
            result = run_child(COLD_SCRIPT, variant, env={"SCOPASIM_CACHE_DIR": cache})
        alone[variant] = {"first_chunk_s": result["first_chunk_s"][variant], "wall_s": result["wall_s"]}
        alone[variant]["import_s"] = result["import_s"]
    with tempfile.TemporaryDirectory(prefix="scopasim-cold-") as cache:
        together = run_child(COLD_SCRIPT, VARIANT, *SEED_GAMES, env={"SCOPASIM_CACHE_DIR": cache})
    with tempfile.TemporaryDirectory(prefix="scopasim-cold-") as cache:  # what a run of a varied rule set compiles
        shared = run_child(COLD_SCRIPT, VARIANT, env={"SCOPASIM_CACHE_DIR": cache, "SCOPASIM_SPECIALISE": "0"})
    return {
        "alone": alone,
        "all": together,
        "all_s": sum(together["first_chunk_s"].values()),
        "shared": {"first_chunk_s": shared["first_chunk_s"][VARIANT], "import_s": shared["import_s"]},
    }


def measure_one_thread(games: int, reps: int, baseline_dir: Path, processes: int = 1) -> dict[str, Any]:
    """The baseline kernel and every game on one thread, ``reps`` reps in each of ``processes`` fresh processes
    (``ONE_THREAD_SCRIPT``): medians of games/s and deals/s, and the median of the per-rep ratios (scopasim over the
    baseline, each game over Scopa) pooled over the processes, with each process's median Scopa ratio.

    One process against another moves the ratios by about +-5% (where the code and the data land in memory), more
    than most changes measured with them; the median over processes is what a single process cannot give."""
    runs = [
        run_child(
            ONE_THREAD_SCRIPT,
            str(games),
            str(reps),
            str(baseline_dir),
            *OTHER_GAMES,
            *PART_C_GAMES,
            env={"NUMBA_NUM_THREADS": "1"},
        )
        for _ in range(processes)
    ]
    raw = runs[0]
    pooled = {  # each row list of the first process, with the other processes' rows after it
        policy: {name: [row for run in runs for row in run["policies"][policy][name]] for name in rows}
        for policy, rows in raw["policies"].items()
    }
    out: dict[str, Any] = {
        "games": games,
        "reps": reps * processes,
        "processes": processes,
        "baseline_found": raw["baseline_found"],
        "specialised": raw["specialised"],
        "policies": {},
    }
    for policy, rows in pooled.items():
        scopa = rows[VARIANT]
        entry: dict[str, Any] = {}
        for name, reps_rows in rows.items():
            if not reps_rows:
                continue
            entry[name] = {
                "games_per_s": statistics.median(r[0] for r in reps_rows),
                "deals_per_s": statistics.median(r[1] for r in reps_rows),
            }
            if name in TARGET_GAME_RATIO:
                entry[name]["vs_scopa"] = statistics.median(r[1] / s[1] for r, s in zip(reps_rows, scopa, strict=True))
        if rows["baseline"]:
            for name in (VARIANT, SHARED):
                ratios = [s[0] / b[0] for s, b in zip(rows[name], rows["baseline"], strict=True)]
                entry[name]["vs_baseline"] = statistics.median(ratios)
                entry[name]["vs_baseline_by_process"] = [
                    statistics.median(ratios[k * reps : (k + 1) * reps]) for k in range(processes)
                ]
        out["policies"][policy] = entry
    return out


def measure_warm_start(games: int = 1000) -> dict[str, Any]:
    """A small ``simulate`` in a new process with the default cache; a first run fills the cache if needed."""
    run_child(SIMULATE_SCRIPT, str(games))
    return {"games": games, **run_child(SIMULATE_SCRIPT, str(games))}


def simulate_cli(games: int, out: Path, *extra: str) -> dict[str, Any]:
    """``scopasim simulate`` of 2-player Scopa, seed 1, greedy (the settings of ``benchmarks.memory``'s runs, so
    that it reuses them) in a fresh process: its wall seconds and peak RSS, measured by a wrapper process."""
    from benchmarks import memory

    args = ("simulate", "-v", "scopa", "--players", 2, "--games", games, "--seed", SEED, "--quiet", "--out", out)
    result = memory.measure(memory.cli(*args, *extra))
    return {"games": games, "wall_s": result["seconds"], "peak_mib": result["peak_mb"]}


def measure_cli_warm_start(games: int = 1000) -> dict[str, Any]:
    """What a user waits for: ``scopasim simulate --games 1000`` in a new process, kernels already cached (the
    median of :data:`WARM_REPEATS` runs after one that fills the cache if needed)."""
    with tempfile.TemporaryDirectory(prefix="scopasim-cli-") as tmp:
        simulate_cli(games, Path(tmp) / "run")
        runs = [simulate_cli(games, Path(tmp) / "run", "--overwrite") for _ in range(WARM_REPEATS)]
    walls = sorted(r["wall_s"] for r in runs)
    return {"games": games, "wall_s": statistics.median(walls), "min_s": walls[0], "max_s": walls[-1]}


def measure_pipeline(games: int, rounds: int, runs: Path) -> dict[str, Any]:
    """The whole ``scopasim simulate -n GAMES`` next to ``api.play_chunk`` over the same chunks in a warm process,
    in turn (kernels, CLI, kernels, CLI...) so that a drift of the machine's speed hits both; the ratio is taken
    round by round and its median reported. The CLI run is left in ``runs`` for the memory sections."""
    pairs = []
    for r in range(rounds):
        kernel = run_child(KERNEL_SCRIPT, str(games))
        whole = simulate_cli(games, runs / f"scopa-{games}", *(["--overwrite"] if r else []))
        pairs.append({"kernel_s": kernel["kernel_s"], "whole_s": whole["wall_s"], "peak_mib": whole["peak_mib"]})
    ratios = [p["whole_s"] / p["kernel_s"] for p in pairs]
    return {
        "games": games,
        "chunks": kernel["chunks"],
        "rounds": pairs,
        "kernel_s": statistics.median(p["kernel_s"] for p in pairs),
        "whole_s": statistics.median(p["whole_s"] for p in pairs),
        "ratio": statistics.median(ratios),
        "peak_mib": max(p["peak_mib"] for p in pairs),
    }


def measure_peak_memory(sizes: list[int], runs: Path, known: dict[str, Any]) -> list[dict[str, Any]]:
    """Peak RSS of whole ``scopasim simulate`` runs (summary included): it should not grow with the run, since
    at most two chunks are in memory and the summary is counted chunk by chunk. A size the pipeline section
    already ran is not run again."""
    rows = []
    for n in sizes:
        if n == known.get("games"):
            rows.append({"games": n, "wall_s": known["whole_s"], "peak_mib": known["peak_mib"]})
        else:
            rows.append(simulate_cli(n, runs / f"scopa-{n}"))
    return rows


def make_config(policy: str, games: int, variant: str = VARIANT):
    """Self-play config: one policy for every seat, the variant's default player count (2; Foracio 4)."""
    from simcore.config import RunConfig

    return RunConfig.create(variant, policies=[policy], games=games, seed=SEED)


def best_chunk(config, indices: np.ndarray, repeats: int) -> tuple[float, Any]:
    """(fastest seconds, output) of ``repeats`` timed ``play_chunk`` calls of the same games."""
    from simcore import api

    best, out = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        out = api.play_chunk(config, indices)
        best = min(best, time.perf_counter() - start)
    return best, out


def measure_throughput(
    games: int, repeats: int, variant: str = VARIANT, threads_list: list[int] | None = None
) -> list[dict[str, Any]]:
    """Games/s and deals/s of ``play_chunk`` (kernels only, no I/O), best of ``repeats``, per policy and threads."""
    from simcore import api

    indices = np.arange(games, dtype=np.int64)
    rows = []
    for policy in POLICIES:
        config = make_config(policy, games, variant)
        api.play_chunk(config, indices[:1000])  # load the kernels and start the thread pool outside the timing
        for threads in threads_list or available_threads():
            api.set_threads(threads)
            best, out = best_chunk(config, indices, repeats)
            deals = int(out.n_deals.sum())
            rows.append(
                {
                    "variant": variant,
                    "players": config.players,
                    "policy": policy,
                    "threads": threads,
                    "games": games,
                    "deals": deals,
                    "seconds": best,
                    "games_per_s": games / best,
                    "deals_per_s": deals / best,
                    "deals_per_s_per_core": deals / best / threads,
                    "specialised": api.specialised(config),
                }
            )
    api.set_threads(None)
    return rows


def measure_policies(games: int, repeats: int = 1) -> list[dict[str, Any]]:
    """Decisions per second of each policy in 2-player Scopa self-play on all threads (kernels only), best of
    ``repeats`` as in ``measure_throughput``: mc's and search's short runs (a fiftieth of the games) differ by
    about 5% from one to the next."""
    from simcore import api
    from simcore.policies import POLICIES

    rows = []
    for policy in POLICIES:
        n = max(games // 50, 100) if policy in ("mc", "search") else games  # ~100 times slower: keep it short
        indices = np.arange(n, dtype=np.int64)
        config = make_config(policy, n)
        api.play_chunk(config, indices[:20])
        best, out = best_chunk(config, indices, repeats)
        rows.append(
            {
                "policy": policy,
                "games": n,
                "decisions_per_s": int(out.n_plays.sum()) / best,
                "specialised": api.specialised(config),
            }
        )
    return rows


def available_threads() -> list[int]:
    """The thread counts of :data:`THREADS` that Numba allows on this machine."""
    import numba

    return [t for t in THREADS if t <= numba.config.NUMBA_NUM_THREADS]


def measure_reference(games: int) -> dict[str, Any]:
    """The pure-Python reference engine on greedy self-play: the baseline the kernels are compared with."""
    from simcore.reference.scopa import play_game

    start = time.perf_counter()
    traces = [play_game(SEED, g, None, ["greedy", "greedy"]) for g in range(games)]
    seconds = time.perf_counter() - start
    deals = sum(1 for t in traces for e in t["events"] if e["type"] == "score")  # one score event per deal
    return {
        "games": games,
        "deals": deals,
        "seconds": seconds,
        "games_per_s": games / seconds,
        "deals_per_s": deals / seconds,
    }


def print_table(title: str, header: list[str], rows: list[list[str]]) -> None:
    """A plain-text table, left-aligned first column, right-aligned numbers."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        first = str(cells[0]).ljust(widths[0])
        rest = [str(c).rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join([first, *rest])

    print(f"\n{title}")
    print(line(header))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print(line(row))


def kernels_label(special: bool | None) -> str:
    """Which kernels a measurement ran on (``api.specialised``); blank for a recorded run from before the field."""
    return "" if special is None else ("specialised" if special else "shared")


def fmt(value: float, digits: int = 0) -> str:
    """Number with thousands separators."""
    return f"{value:,.{digits}f}"


def target_rows(results: dict[str, Any]) -> list[list[str]]:
    """Each target of the issue next to the measured value; ``*`` marks values projected from a smaller run and
    ``n/a`` a target this machine or checkout cannot measure (the baseline kernel not found, a single core)."""
    checks: list[tuple[str, str, str, bool | None, str]] = []
    one = results["one_thread"]
    for policy in ("greedy", "random"):
        ratio = one["policies"][policy][VARIANT].get("vs_baseline")
        shown = "baseline not found" if ratio is None else f"{ratio:.3f}"
        ok = None if ratio is None else ratio >= TARGET_BASELINE_RATIO
        kernels = "specialised" if one.get("specialised", {}).get(VARIANT) else "shared"
        checks.append(
            (
                f"Scopa 2p {policy}, 1 thread ({kernels} kernels): games/s over the baseline kernel's",
                f">= {TARGET_BASELINE_RATIO:g}",
                shown,
                ok,
                "",
            )
        )
    for variant, floor in TARGET_GAME_RATIO.items():
        for policy in ("greedy", "random"):
            ratio = one["policies"][policy].get(variant, {}).get("vs_scopa")  # None: a run from before the game
            checks.append(
                (
                    f"{variant} {policy}, 1 thread: deals/s over Scopa's",
                    f">= {floor:g}",
                    "not measured" if ratio is None else f"{ratio:.2f}",
                    None if ratio is None else ratio >= floor,
                    "",
                )
            )
    for policy in ("greedy", "random"):
        rates = {r["threads"]: r["games_per_s"] for r in results["throughput"] if r["policy"] == policy}
        scaling = rates[2] / rates[1] if 2 in rates else None
        shown = "one core only" if scaling is None else f"{scaling:.2f}x"
        ok = None if scaling is None else scaling >= TARGET_SCALING
        checks.append((f"Scopa {policy}: 2 threads over 1 thread, games/s", f">= {TARGET_SCALING:g}x", shown, ok, ""))
    pipe = results["pipeline"]
    projected = "*" if pipe["games"] != 1_000_000 else ""
    ratio = pipe["ratio"]
    checks.append(
        (
            f"scopasim simulate -n {pipe['games']:,}: whole process / kernels alone",
            f"<= {TARGET_PIPELINE_RATIO:g}x",
            f"{ratio:.2f}x",
            ratio <= TARGET_PIPELINE_RATIO,
            projected,
        )
    )
    warm = results["cli_warm_start"]["wall_s"]
    checks.append(
        (
            "warm start: scopasim simulate --games 1000 (median)",
            f"<= {TARGET_WARM_SECONDS:g} s",
            f"{warm:.2f} s",
            warm <= TARGET_WARM_SECONDS,
            "",
        )
    )
    cold = results["cold_compile"]
    for variant, row in cold["alone"].items():
        seconds = row["first_chunk_s"]
        checks.append(
            (
                f"cold compile of {variant} alone (first 100 games)",
                f"<= {TARGET_COLD_GAME_SECONDS:g} s",
                f"{seconds:.1f} s",
                seconds <= TARGET_COLD_GAME_SECONDS,
                "",
            )
        )
    seconds = cold["all_s"]
    checks.append(
        (
            "cold compile of all four games, one process",
            f"<= {TARGET_COLD_ALL_SECONDS:g} s",
            f"{seconds:.1f} s",
            seconds <= TARGET_COLD_ALL_SECONDS,
            "",
        )
    )
    rates = {r["policy"]: r["decisions_per_s"] for r in results["policies"]}
    for policy, before in POLICY_BEFORE.items():
        floor = before * TARGET_POLICY_SPEEDUP
        threads = max(available_threads())
        name = f"{policy} decisions/s, Scopa 2p, {threads} threads ({TARGET_POLICY_SPEEDUP:g}x {fmt(before)})"
        checks.append((name, f">= {fmt(floor)}", fmt(rates[policy]), rates[policy] >= floor, ""))
    memory = results["memory"]
    growth = memory[-1]["peak_mib"] / memory[0]["peak_mib"]
    name = f"peak memory flat: {memory[-1]['games']:,} games over {memory[0]['games']:,}"
    checks.append((name, f"<= {TARGET_MEMORY_GROWTH:g}x", f"{growth:.2f}x", growth <= TARGET_MEMORY_GROWTH, ""))
    verdict = {True: "PASS", False: "FAIL", None: "n/a"}
    return [[name, target, value + mark, verdict[ok] + mark] for name, target, value, ok, mark in checks]


def report(results: dict[str, Any]) -> None:
    """Print every table."""
    cold, warm = results["cold_compile"], results["warm_start"]
    alone = [
        [
            f"cold: {variant} alone, compile + first 100 games (import {row['import_s']:.2f} s)",
            f"{row['first_chunk_s']:.2f}",
        ]
        for variant, row in cold["alone"].items()
    ]
    together = [[f"cold: all four in one process, {v}", f"{t:.2f}"] for v, t in cold["all"]["first_chunk_s"].items()]
    if "shared" in cold:  # recorded runs from before the default rules were always specialised lack it
        shared = cold["shared"]
        alone.append(
            [
                f"cold: {VARIANT} alone, shared kernels (a run of a varied rule set; import "
                f"{shared['import_s']:.2f} s)",
                f"{shared['first_chunk_s']:.2f}",
            ]
        )
    print_table(
        "Start-up (fresh processes; cold = an empty kernel cache)",
        ["measure", "seconds"],
        [
            *alone,
            *together,
            ["cold: all four in one process, total compile", f"{cold['all_s']:.2f}"],
            [f"warm: simulate {warm['games']:,} games, in process", f"{warm['in_process_s']:.2f}"],
            [f"warm: simulate {warm['games']:,} games, whole process", f"{warm['wall_s']:.2f}"],
            ["warm: of which interpreter start and exit", f"{warm['wall_s'] - warm['in_process_s']:.2f}"],
            [
                f"warm: scopasim simulate --games {results['cli_warm_start']['games']:,} (CLI, summary included; "
                f"median of {WARM_REPEATS}, {results['cli_warm_start']['min_s']:.2f}..."
                f"{results['cli_warm_start']['max_s']:.2f})",
                f"{results['cli_warm_start']['wall_s']:.2f}",
            ],
        ],
    )
    one = results["one_thread"]
    rows = []
    for policy, entry in one["policies"].items():
        for name, row in entry.items():
            versus = row.get("vs_baseline", row.get("vs_scopa"))
            if name == "baseline":
                name = "baseline kernel (../shared/bench)"
            elif one.get("specialised", {}).get(name):
                name = f"{name}, specialised kernels"
            rows.append(
                [
                    name,
                    f"{policy}/{policy}",
                    fmt(row["games_per_s"]),
                    fmt(row["deals_per_s"]),
                    "" if versus is None else f"{versus:.3f}",
                ]
            )
    processes = one.get("processes", 1)
    print_table(
        f"One thread, one process at a time, interleaved ({one['games']:,} games, median of {one['reps']} reps"
        f"{f' in {processes} fresh processes' if processes > 1 else ''}; ratio: Scopa's games/s over the "
        "baseline's, another game's deals/s over Scopa's)",
        ["engine / game", "policies", "games/s", "deals/s", "ratio"],
        rows,
    )
    for policy, entry in one["policies"].items():
        by_process = entry[VARIANT].get("vs_baseline_by_process", [])
        if len(by_process) > 1:
            shown = ", ".join(f"{r:.3f}" for r in by_process)
            print(f"Scopa {policy} over the baseline, the median of each process: {shown}")
    if not one["baseline_found"]:
        print(f"(baseline kernel not found in {results['baseline_dir']}: pass --baseline DIR)")
    print_table(
        f"Scopa, 2 players: throughput of play_chunk (kernels only, best of {results['repeats']})",
        ["policies", "threads", "games", "games/s", "deals/s", "deals/s per core", "kernels"],
        [
            [
                f"{r['policy']}/{r['policy']}",
                r["threads"],
                fmt(r["games"]),
                fmt(r["games_per_s"]),
                fmt(r["deals_per_s"]),
                fmt(r["deals_per_s_per_core"]),
                kernels_label(r.get("specialised")),
            ]
            for r in results["throughput"]
        ],
    )
    print_table(
        f"Policies: decisions per second, 2-player Scopa self-play on {max(available_threads())} threads",
        ["policy", "games", "decisions/s", "kernels"],
        [
            [r["policy"], fmt(r["games"]), fmt(r["decisions_per_s"]), kernels_label(r.get("specialised"))]
            for r in results["policies"]
        ],
    )
    pipe = results["pipeline"]
    print_table(
        f"scopasim simulate -n {pipe['games']:,} (greedy, seed 1, {pipe['chunks']} chunks, all threads): the whole "
        "process next to the kernels alone (api.play_chunk over the same chunks, warm), in turn",
        ["round", "kernels s", "whole process s", "ratio"],
        [
            [str(i + 1), f"{r['kernel_s']:.2f}", f"{r['whole_s']:.2f}", f"{r['whole_s'] / r['kernel_s']:.2f}x"]
            for i, r in enumerate(pipe["rounds"])
        ]
        + [["median", f"{pipe['kernel_s']:.2f}", f"{pipe['whole_s']:.2f}", f"{pipe['ratio']:.2f}x"]],
    )
    print_table(
        "Peak memory: scopasim simulate in a fresh process (summary included)",
        ["games", "peak RSS MiB", "whole process s"],
        [[fmt(m["games"]), f"{m['peak_mib']:.0f}", f"{m['wall_s']:.2f}"] for m in results["memory"]],
    )
    ref = results["reference"]
    numba_1t = next(r for r in results["throughput"] if r["policy"] == "greedy" and r["threads"] == 1)
    print_table(
        "The pure-Python reference engine (the oracle the kernels are tested against), greedy/greedy",
        ["engine", "games", "games/s", "deals/s", "speed-up"],
        [
            ["reference (Python)", fmt(ref["games"]), fmt(ref["games_per_s"]), fmt(ref["deals_per_s"]), "1x"],
            [
                "numba, 1 thread",
                fmt(numba_1t["games"]),
                fmt(numba_1t["games_per_s"]),
                fmt(numba_1t["deals_per_s"]),
                f"{numba_1t['games_per_s'] / ref['games_per_s']:,.0f}x",
            ],
        ],
    )
    rows = target_rows(results)
    print_table("Targets of the issue", ["target", "required", "measured", "result"], rows)
    if any("*" in r[-1] for r in rows):
        print("* from a smaller run (--quick): projected to 1,000,000 games, or a ratio start-up weighs more in")
    failed = [r[0] for r in rows if r[-1].startswith("FAIL")]
    print(f"\nFAIL: {', '.join(failed)}" if failed else "\nAll targets met.")


def cpu_seconds() -> tuple[float, float]:
    """(CPU seconds the whole machine has been busy, CPU seconds used by this process and its children)."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(f) for f in fields[:8])
    machine = (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")
    own = sum(
        r.ru_utime + r.ru_stime
        for r in (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN))
    )
    return machine, own


def report_other_load(before: tuple[float, float], wall: float) -> float:
    """Share of the machine other processes used meanwhile: on 2 cores any of it lowers the numbers measured."""
    after = cpu_seconds()
    other = max(0.0, (after[0] - before[0]) - (after[1] - before[1]))
    share = other / (wall * (os.cpu_count() or 1))
    print(f"other processes used {other:.0f} CPU-seconds during the benchmark ({share:.0%} of the machine)")
    if share > 0.05:
        print("warning: the machine was busy; rerun on an idle machine for trustworthy numbers")
    return share


def run_sections(quick: bool, runs: Path, sizes: list[int], folder: Path) -> dict[str, Any]:
    """The standalone benchmarks as sections of this report: ``benchmarks.memory`` on the runs the peak memory
    section wrote (reused, not simulated again), ``benchmarks.stop_latency`` and ``benchmarks.variance_gain``
    (smaller settings with --quick)."""
    from benchmarks import memory, stop_latency, user_policies, variance_gain

    out: dict[str, Any] = {}
    print("\n== Analysis memory (python -m benchmarks.memory) ==", flush=True)
    memory.main(["--games", ",".join(map(str, sizes)), "--runs", str(runs), "--json", str(folder / "memory.json")])
    out["analysis_memory"] = json.loads((folder / "memory.json").read_text())
    print("\n== Stop latency (python -m benchmarks.stop_latency) ==", flush=True)
    quick_args = ["--repeats", "1", "--no-cluster", "--games", "2000000"] if quick else []
    stop_latency.main([*quick_args, "--json", str(folder / "stop.json")])
    out["stop_latency"] = json.loads((folder / "stop.json").read_text())
    print("\n== Pairing and control-variate gains (python -m benchmarks.variance_gain) ==", flush=True)
    quick_gain = ["--games", "20000", "--strong-games", "2000", "--coverage-games", "4000"]
    variance_gain.main(quick_gain if quick else ["--games", "100000", "--strong-games", "5000"])
    print("\n== User-written policies (python -m benchmarks.user_policies) ==", flush=True)
    user_games = ["--games", "20000", "--reps", "3"] if quick else []
    user_policies.main([*user_games, "--json", str(folder / "user.json")])
    out["user_policies"] = json.loads((folder / "user.json").read_text())
    return out


def main(argv: list[str] | None = None) -> int:
    """Run every measurement (subprocess ones first, while this process is idle), print, optionally save."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.run",
        description="Print scopasim throughput, start-up times, peak memory and the targets (a report: exits 0).",
    )
    parser.add_argument("--quick", action="store_true", help="small smoke version (minutes instead of many minutes)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the numbers to this JSON file")
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="DIR",
        default=BASELINE_DIR,
        help=f"folder of the baseline kernel baseline_scopa.py [default: {BASELINE_DIR}]",
    )
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))  # so that ``python benchmarks/run.py`` finds simcore too

    chunk_games, repeats = (20_000, 3) if args.quick else (200_000, 3)
    pipeline_games, rounds = (100_000, 1) if args.quick else (1_000_000, 3)
    # from one whole chunk (DEFAULT_CHUNK games) on: a smaller run holds a smaller chunk
    memory_sizes = [50_000, 200_000] if args.quick else [100_000, 1_000_000, 10_000_000]
    reference_games = 100 if args.quick else 300
    # full run: 3 fresh processes of 4 reps (one process against another differs by about +-5%)
    one_thread = (20_000, 3, args.baseline, 1) if args.quick else (100_000, 4, args.baseline, 3)

    cpu_before = cpu_seconds()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="scopasim-bench-") as tmp:
        runs = Path(tmp) / "runs"
        runs.mkdir()
        steps = [
            ("cold_compile", "cold compile in a fresh cache", lambda: measure_cold_compile(args.quick)),
            ("one_thread", "one thread next to the baseline kernel", lambda: measure_one_thread(*one_thread)),
            ("warm_start", "warm start", measure_warm_start),
            ("cli_warm_start", "warm start of the CLI", measure_cli_warm_start),
            ("pipeline", "simulate next to the kernels alone", lambda: measure_pipeline(pipeline_games, rounds, runs)),
            ("memory", "peak memory", lambda: measure_peak_memory(memory_sizes, runs, results["pipeline"])),
            ("throughput", "throughput", lambda: measure_throughput(chunk_games, repeats)),
            ("policies", "decisions per second of each policy", lambda: measure_policies(chunk_games // 4, repeats)),
            ("reference", "reference engine", lambda: measure_reference(reference_games)),
        ]
        results: dict[str, Any] = {"quick": args.quick, "repeats": repeats, "cpus": os.cpu_count()}
        results["baseline_dir"] = str(args.baseline)
        for key, label, measure in steps:
            print(f"measuring {label}...", file=sys.stderr, flush=True)
            results[key] = measure()
        report(results)
        results.update(run_sections(args.quick, runs, memory_sizes, Path(tmp)))
    results["total_s"] = time.perf_counter() - started
    print(f"\nbenchmark took {results['total_s']:.0f} s")
    results["other_load_share"] = report_other_load(cpu_before, results["total_s"])
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
