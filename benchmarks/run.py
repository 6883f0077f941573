"""Benchmarks of scopasim: ``python -m benchmarks.run [--quick] [--json PATH]`` from the repository root.

Prints, for 2-player Scopa with random and with greedy policies: games/s and deals/s on 1 and 2 threads, cold
compile time, warm start time of a small run, the whole ``scopasim simulate`` of 10^6 games next to the kernels
alone on the same chunks, peak memory of runs of 10^5 to 10^7 games, next to the pure-Python reference engine
measured in the same run (the baseline) and the issue's targets; then the sections of ``benchmarks.memory``
(memory of the analysis of those runs) and ``benchmarks.stop_latency`` (seconds from a signal to the exit).

Compile time, start-up time and peak memory are measured in fresh subprocesses, because each is a property of a
whole process: a process that has already compiled or allocated cannot measure them again. Throughput is
measured in this process after a warm-up. This is a report, not a test: it exits 0 even when a target fails.
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

REPO = Path(__file__).resolve().parent.parent
VARIANT = "scopa"
SEED = 1
POLICIES = ("random", "greedy")
OTHER_VARIANTS = ("kaszino", "foracio", "skopa")
TARGET_GAME_FACTOR = 3  # every game's greedy deals/s per core within a factor 3 of Scopa's
THREADS = (1, 2)

# Targets of the issue (2-core machine).
TARGET_DEALS_PER_CORE = 250_000
TARGET_MILLION_SECONDS = 30.0
TARGET_WARM_SECONDS = 1.0  # issue 11: scopasim simulate --games 1000, warm, whole process
TARGET_COLD_SECONDS = 45.0
TARGET_PIPELINE_RATIO = 1.2  # issue 11: scopasim simulate -n 1000000, whole process, over the kernels alone
TARGET_MEMORY_GROWTH = 1.1  # "flat": the peak of the largest run within 10% of the smallest one's
WARM_REPEATS = 5  # runs of the warm CLI start (after one that fills the cache); the median is reported

# Child scripts. Each prints one JSON object as its last line of stdout.
COLD_SCRIPT = """
import time
start = time.perf_counter()
import json
import numpy as np
from simcore import api
from simcore.config import RunConfig
imported = time.perf_counter()
config = RunConfig.create("scopa", policies=["greedy"], games=100, seed=1)
api.play_chunk(config, np.arange(100))
done = time.perf_counter()
print(json.dumps({"import_s": imported - start, "first_chunk_s": done - imported, "in_process_s": done - start}))
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
    child_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
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


def measure_cold_compile() -> dict[str, Any]:
    """Compile every kernel from nothing: a fresh, empty Numba cache folder, so nothing can be loaded."""
    with tempfile.TemporaryDirectory(prefix="scopasim-cold-") as cache:
        return run_child(COLD_SCRIPT, env={"SCOPASIM_CACHE_DIR": cache})


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
            best, deals = float("inf"), 0
            for _ in range(repeats):
                start = time.perf_counter()
                out = api.play_chunk(config, indices)
                best = min(best, time.perf_counter() - start)
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
                }
            )
    api.set_threads(None)
    return rows


def measure_games(games: int, repeats: int) -> list[dict[str, Any]]:
    """The other three games on all threads, for the comparison with Scopa (issue: within a factor 3)."""
    threads = [max(available_threads())]
    return [row for variant in OTHER_VARIANTS for row in measure_throughput(games, repeats, variant, threads)]


def measure_policies(games: int) -> list[dict[str, Any]]:
    """Decisions per second of each policy in 2-player Scopa self-play on all threads (kernels only)."""
    from simcore import api
    from simcore.policies import POLICIES

    rows = []
    for policy in POLICIES:
        n = max(games // 50, 100) if policy == "mc" else games  # mc is ~100 times slower: keep the run short
        indices = np.arange(n, dtype=np.int64)
        config = make_config(policy, n)
        api.play_chunk(config, indices[:20])
        start = time.perf_counter()
        out = api.play_chunk(config, indices)
        seconds = time.perf_counter() - start
        rows.append({"policy": policy, "games": n, "decisions_per_s": int(out.n_plays.sum()) / seconds})
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


def fmt(value: float, digits: int = 0) -> str:
    """Number with thousands separators."""
    return f"{value:,.{digits}f}"


def target_rows(results: dict[str, Any]) -> list[list[str]]:
    """Each target of the issue next to the measured value; ``*`` marks values projected from a smaller run."""
    greedy = [r for r in results["throughput"] if r["policy"] == "greedy"]
    all_cores = max(greedy, key=lambda r: r["threads"])
    pipe = results["pipeline"]
    million = pipe["whole_s"] * 1_000_000 / pipe["games"]
    projected = "*" if pipe["games"] != 1_000_000 else ""
    memory = results["memory"]
    growth = memory[-1]["peak_mib"] / memory[0]["peak_mib"]
    checks = [
        (
            f"greedy deals/s per core ({all_cores['threads']} threads)",
            f">= {fmt(TARGET_DEALS_PER_CORE)}",
            fmt(all_cores["deals_per_s_per_core"]),
            all_cores["deals_per_s_per_core"] >= TARGET_DEALS_PER_CORE,
            "",
        ),
        (
            "scopasim simulate -n 1000000 (whole process)",
            f"< {TARGET_MILLION_SECONDS:g} s",
            f"{million:.1f} s",
            million < TARGET_MILLION_SECONDS,
            projected,
        ),
        (
            f"scopasim simulate -n {pipe['games']:,}: whole process / kernels alone",
            f"<= {TARGET_PIPELINE_RATIO:g}x",
            f"{pipe['ratio']:.2f}x",
            pipe["ratio"] <= TARGET_PIPELINE_RATIO,
            projected,
        ),
        (
            "warm start: scopasim simulate --games 1000 (median)",
            f"<= {TARGET_WARM_SECONDS:g} s",
            f"{results['cli_warm_start']['wall_s']:.2f} s",
            results["cli_warm_start"]["wall_s"] <= TARGET_WARM_SECONDS,
            "",
        ),
        (
            f"peak memory flat: {memory[-1]['games']:,} games over {memory[0]['games']:,}",
            f"<= {TARGET_MEMORY_GROWTH:g}x",
            f"{growth:.2f}x",
            growth <= TARGET_MEMORY_GROWTH,
            "",
        ),
        (
            "cold compile (first chunk)",
            f"< {TARGET_COLD_SECONDS:g} s",
            f"{results['cold_compile']['first_chunk_s']:.1f} s",
            results["cold_compile"]["first_chunk_s"] < TARGET_COLD_SECONDS,
            "",
        ),
    ]
    scopa = all_cores["deals_per_s_per_core"]
    for row in results["games"]:
        if row["policy"] == "greedy":
            floor = scopa / TARGET_GAME_FACTOR
            checks.append(
                (
                    f"{row['variant']} ({row['players']}p) greedy deals/s per core",
                    f">= {fmt(floor)}",
                    fmt(row["deals_per_s_per_core"]),
                    row["deals_per_s_per_core"] >= floor,
                    "",
                )
            )
    return [[name, target, value + mark, ("PASS" if ok else "FAIL") + mark] for name, target, value, ok, mark in checks]


def _scopa_rate(results: dict[str, Any], policy: str) -> float:
    """Scopa's deals/s per core with ``policy`` on the most threads measured."""
    rows = [r for r in results["throughput"] if r["policy"] == policy]
    return max(rows, key=lambda r: r["threads"])["deals_per_s_per_core"]


def report(results: dict[str, Any]) -> None:
    """Print every table."""
    cold, warm = results["cold_compile"], results["warm_start"]
    print_table(
        "Start-up (fresh processes)",
        ["measure", "seconds"],
        [
            ["cold: import simcore", f"{cold['import_s']:.2f}"],
            ["cold: compile + first 100 games", f"{cold['first_chunk_s']:.2f}"],
            ["cold: whole process", f"{cold['wall_s']:.2f}"],
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
    print_table(
        f"Scopa, 2 players: throughput of play_chunk (kernels only, best of {results['repeats']})",
        ["policies", "threads", "games", "games/s", "deals/s", "deals/s per core"],
        [
            [
                f"{r['policy']}/{r['policy']}",
                r["threads"],
                fmt(r["games"]),
                fmt(r["games_per_s"]),
                fmt(r["deals_per_s"]),
                fmt(r["deals_per_s_per_core"]),
            ]
            for r in results["throughput"]
        ],
    )
    print_table(
        f"Every game, self-play on {max(available_threads())} threads (kernels only, best of {results['repeats']})",
        ["game", "players", "policies", "games/s", "deals/s", "deals/s per core", "vs scopa"],
        [
            [
                r["variant"],
                r["players"],
                f"{r['policy']}/{r['policy']}",
                fmt(r["games_per_s"]),
                fmt(r["deals_per_s"]),
                fmt(r["deals_per_s_per_core"]),
                f"{r['deals_per_s_per_core'] / _scopa_rate(results, r['policy']):.2f}x",
            ]
            for r in results["games"]
        ],
    )
    print_table(
        f"Policies: decisions per second, 2-player Scopa self-play on {max(available_threads())} threads",
        ["policy", "games", "decisions/s"],
        [[r["policy"], fmt(r["games"]), fmt(r["decisions_per_s"])] for r in results["policies"]],
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
        "Baseline: pure-Python reference engine, greedy/greedy (measured now)",
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
    section wrote (reused, not simulated again) and ``benchmarks.stop_latency`` (smaller settings with --quick)."""
    from benchmarks import memory, stop_latency

    out: dict[str, Any] = {}
    print("\n== Analysis memory (python -m benchmarks.memory) ==", flush=True)
    memory.main(["--games", ",".join(map(str, sizes)), "--runs", str(runs), "--json", str(folder / "memory.json")])
    out["analysis_memory"] = json.loads((folder / "memory.json").read_text())
    print("\n== Stop latency (python -m benchmarks.stop_latency) ==", flush=True)
    quick_args = ["--repeats", "1", "--no-cluster", "--games", "2000000"] if quick else []
    stop_latency.main([*quick_args, "--json", str(folder / "stop.json")])
    out["stop_latency"] = json.loads((folder / "stop.json").read_text())
    return out


def main(argv: list[str] | None = None) -> int:
    """Run every measurement (subprocess ones first, while this process is idle), print, optionally save."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.run",
        description="Print scopasim throughput, start-up times, peak memory and the targets (a report: exits 0).",
    )
    parser.add_argument("--quick", action="store_true", help="small smoke version (minutes instead of many minutes)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the numbers to this JSON file")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))  # so that ``python benchmarks/run.py`` finds simcore too

    chunk_games, repeats = (20_000, 3) if args.quick else (200_000, 3)
    pipeline_games, rounds = (100_000, 1) if args.quick else (1_000_000, 3)
    # from one whole chunk (DEFAULT_CHUNK games) on: a smaller run holds a smaller chunk
    memory_sizes = [50_000, 200_000] if args.quick else [100_000, 1_000_000, 10_000_000]
    reference_games = 100 if args.quick else 300

    cpu_before = cpu_seconds()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="scopasim-bench-") as tmp:
        runs = Path(tmp) / "runs"
        runs.mkdir()
        steps = [
            ("cold_compile", "cold compile in a fresh cache", measure_cold_compile),
            ("warm_start", "warm start", measure_warm_start),
            ("cli_warm_start", "warm start of the CLI", measure_cli_warm_start),
            ("pipeline", "simulate next to the kernels alone", lambda: measure_pipeline(pipeline_games, rounds, runs)),
            ("memory", "peak memory", lambda: measure_peak_memory(memory_sizes, runs, results["pipeline"])),
            ("throughput", "throughput", lambda: measure_throughput(chunk_games, repeats)),
            ("games", "throughput of the other games", lambda: measure_games(chunk_games // 2, repeats)),
            ("policies", "decisions per second of each policy", lambda: measure_policies(chunk_games // 4)),
            ("reference", "reference engine", lambda: measure_reference(reference_games)),
        ]
        results: dict[str, Any] = {"quick": args.quick, "repeats": repeats, "cpus": os.cpu_count()}
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
