"""Peak memory of ``scopasim analyze`` and ``scopasim report`` as runs grow: ``python -m benchmarks.memory``.

For runs of 10^5, 10^6 and 10^7 two-player Scopa games (seed 1, greedy self-play), each command runs in a fresh
process, started by a fresh wrapper process that reports ``getrusage(RUSAGE_CHILDREN).ru_maxrss``: the peak
resident memory of the command alone. The issue's target is 2 GB for a 10^7-game run. The runs are simulated
once into ``--runs DIR`` (a temporary folder unless given) and reused when they are already there; the 10^7 run
takes about a minute on 2 idle threads and 320 MB of disk. This is a report, not a test: it exits 0 even when
the target fails, printing FAIL.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

from benchmarks import user_env

REPO = Path(__file__).resolve().parent.parent
SEED = 1
SIZES = (100_000, 1_000_000, 10_000_000)
TARGET_MB = 2048
TARGET_GAMES = 10_000_000
CLI_CODE = "import sys; from cli.app import main; sys.argv = ['scopasim', *sys.argv[1:]]; main()"

# Runs one command as its only child and prints its peak RSS (MB) and wall time as JSON.
WRAPPER = textwrap.dedent(
    """
    import json, resource, subprocess, sys, time
    start = time.perf_counter()
    done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(json.dumps({"peak_mb": peak_kb / 1024, "seconds": seconds, "code": done.returncode,
                      "stderr": done.stderr[-2000:]}))
    """
)


def cli(*args: object) -> list[str]:
    return [sys.executable, "-c", CLI_CODE, *map(str, args)]


def ensure_run(runs: Path, games: int, variant: str = "scopa", players: int = 2) -> Path:
    """The run folder of ``games`` games, simulated unless a complete one of the same settings is there."""
    path = runs / (f"{variant}-{games}" if (variant, players) == ("scopa", 2) else f"{variant}{players}-{games}")
    manifest = path / "manifest.json"
    if manifest.is_file():
        m = json.loads(manifest.read_text())
        config = m.get("config", {})
        same = (config.get("games"), config.get("seed"), config.get("variant")) == (games, SEED, variant)
        if m.get("complete") and same and config.get("rules", {}).get("players") == players:
            return path
        raise SystemExit(f"{path} holds another run; remove it or choose another --runs")
    print(f"simulating {games:,} games into {path} ...", flush=True)
    command = cli("simulate", "-v", variant, "--players", players, "--games", games, "--seed", SEED, "--quiet",
                  "--out", path)  # fmt: skip
    subprocess.run(command, cwd=REPO, check=True, stdout=subprocess.DEVNULL, env=user_env())
    return path


def measure(command: list[str]) -> dict[str, Any]:
    """Peak RSS and seconds of ``command`` in a fresh process."""
    out = subprocess.run([sys.executable, "-c", WRAPPER, *command], cwd=REPO, capture_output=True, text=True,
                         check=True, env=user_env())  # fmt: skip
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if result["code"] != 0:
        raise SystemExit(f"{' '.join(command[3:])} failed: {result['stderr']}")
    return result


def commands(run: Path, scratch: Path) -> dict[str, list[str]]:
    html = scratch / f"{run.name}.html"
    return {
        "analyze RUN --format json": cli("analyze", run, "--format", "json"),
        "report RUN --out x.html": cli("report", run, "--out", html, "--overwrite"),
    }


def table(rows: list[dict[str, Any]]) -> str:
    head = ("games", "command", "peak MB", "seconds", f"target {TARGET_MB / 1024:.0f} GB")
    body = [
        (
            f"{r['games']:,}",
            r["command"],
            f"{r['peak_mb']:,.0f}",
            f"{r['seconds']:.1f}",
            ("PASS" if r["peak_mb"] <= TARGET_MB else "FAIL") if r["games"] >= TARGET_GAMES else "",
        )
        for r in rows
    ]
    widths = [max(len(x) for x in col) for col in zip(head, *body, strict=True)]

    def line(cells: tuple[str, ...]) -> str:
        pairs = enumerate(zip(cells, widths, strict=True))
        return "  ".join(c.ljust(w) if i == 1 else c.rjust(w) for i, (c, w) in pairs)

    lines = [line(head), "  ".join("-" * w for w in widths), *(line(row) for row in body)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(str(n) for n in SIZES), help="comma-separated run sizes")
    parser.add_argument("--runs", type=Path, help="folder of the runs, kept and reused (default: a temporary one)")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    parser.add_argument("--variant", default="scopa", help="game of the runs (default: scopa)")
    parser.add_argument("--players", type=int, default=2, help="players of the runs (default: 2)")
    args = parser.parse_args(argv)
    sizes = [int(n) for n in args.games.split(",")]
    with tempfile.TemporaryDirectory(prefix="scopasim-memory-") as tmp:
        runs = args.runs or Path(tmp)
        runs.mkdir(parents=True, exist_ok=True)
        rows = []
        for games in sizes:
            run = ensure_run(runs, games, args.variant, args.players)
            for name, command in commands(run, Path(tmp)).items():
                rows.append({"games": games, "command": name, **measure(command)})
                print(f"  {games:,} {name}: {rows[-1]['peak_mb']:,.0f} MB, {rows[-1]['seconds']:.1f} s", flush=True)
    game = f"{args.players}-player {args.variant}"
    print(f"\nPeak memory of analysis commands (fresh processes; {game}, greedy self-play, seed {SEED})")
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps([{k: v for k, v in r.items() if k != "stderr"} for r in rows], indent=1))
    return rows


if __name__ == "__main__":
    main()
