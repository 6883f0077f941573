"""Where a kernel spends its time, instruction by instruction: ``python -m benchmarks.hotspots -v GAME --policy P``.

Numba's machine code has no symbols a profiler can read, and the kernels a run calls are one inlined function of
many kilobytes, so a per-function profile says nothing. This plays a job in a child process (one thread, chunk after
chunk), samples it with ``perf record -e cpu-clock`` (no hardware counters needed: the development VM has none),
copies the JIT code the samples fell in out of the live process (``/proc/PID/mem``), disassembles it with
``objdump`` and prints the hottest 128-byte stretches with each instruction's samples. A hot instruction is usually
the one after the one that waits (a load, a mispredicted branch's target): read the stretch, not the line. Reading
the assembly back to the Python it came from is left to the reader (the constants of the rules and the card
layout help). Session 28 found the branch and the chosen-address load of ``captures.nth_summing_subset`` this way.

Needs ``perf`` and ``objdump`` on PATH and the right to trace the child (root, or ``kernel.perf_event_paranoid``
at most 1). A tool for developers, not a report: nothing here runs in the tests but the parsing.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUCKET = 128  # bytes of machine code a line of the summary stands for

# the child: plays chunks of the job until its stdin closes, after printing its pid once the kernels are warm
CHILD = """
import os, sys, threading
import numpy as np
from simcore import api
from simcore.config import RunConfig
variant, policy, games = sys.argv[1], sys.argv[2], int(sys.argv[3])
config = RunConfig.create(variant, policies=[policy], games=games, seed=1)
api.set_threads(1)
api.play_chunk(config, np.arange(100))
done = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
print(os.getpid(), flush=True)
while not done.is_set():
    api.play_chunk(config, np.arange(games))
"""


def sample_counts(perf_script: str) -> collections.Counter[int]:
    """Samples per instruction address, from ``perf script -F ip`` output (one hexadecimal address a line)."""
    counts: collections.Counter[int] = collections.Counter()
    for line in perf_script.split():
        counts[int(line, 16)] += 1
    return counts


def jit_regions(maps: str) -> list[tuple[int, int]]:
    """The anonymous executable mappings of ``/proc/PID/maps`` text: where LLVM's JIT puts machine code."""
    regions = []
    for line in maps.splitlines():
        fields = line.split()
        if len(fields) == 5 and "x" in fields[1]:  # no path: an anonymous mapping
            start, end = (int(x, 16) for x in fields[0].split("-"))
            regions.append((start, end))
    return regions


def disassembly(objdump: str) -> dict[int, str]:
    """Address -> instruction text, from ``objdump -D -b binary --adjust-vma`` output."""
    lines = {}
    for line in objdump.splitlines():
        match = re.match(r"\s*([0-9a-f]+):\t(?:[0-9a-f]{2} )+\s*\t(.*)", line)
        if match:
            lines[int(match.group(1), 16)] = match.group(2).strip()
    return lines


def hot_buckets(counts: collections.Counter[int], width: int = BUCKET) -> list[tuple[int, int]]:
    """(start address, samples) of each ``width``-byte stretch of code, most samples first."""
    buckets: collections.Counter[int] = collections.Counter()
    for address, n in counts.items():
        buckets[address - address % width] += n
    return buckets.most_common()


def report(counts: collections.Counter[int], code: dict[int, str], top: int, show: int) -> str:
    """The hottest stretches (share of all samples), then the ``show`` hottest instruction by instruction."""
    total = sum(counts.values())
    buckets = hot_buckets(counts)
    out = [f"{total:,} samples; hottest {BUCKET}-byte stretches of JIT code:"]
    out += [f"  {start:#x}  {n:7,}  {n / total:6.1%}" for start, n in buckets[:top]]
    for start, n in buckets[:show]:
        out.append(f"\n{start:#x} ({n / total:.1%}):")
        out += [f"  {counts.get(a, 0):6,}  {a:#x}  {code[a]}" for a in sorted(code) if start <= a < start + BUCKET]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Where a kernel spends its time, instruction by instruction.")
    parser.add_argument("-v", "--variant", default="scopa")
    parser.add_argument("--policy", default="greedy", help="every seat's policy")
    parser.add_argument("--games", type=int, default=50_000, help="games a chunk (the child plays chunk after chunk)")
    parser.add_argument("--seconds", type=float, default=8.0, help="how long perf samples")
    parser.add_argument("--top", type=int, default=25, help="stretches in the summary")
    parser.add_argument("--show", type=int, default=6, help="stretches printed instruction by instruction")
    args = parser.parse_args(argv)
    from simcore.config import RunConfig
    from simcore.errors import ConfigError

    try:  # a bad game, policy or size: one line here, not a traceback from the child
        RunConfig.create(args.variant, policies=[args.policy], games=args.games, seed=1)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if args.seconds <= 0:
        print("error: --seconds must be positive", file=sys.stderr)
        return 1
    missing = [tool for tool in ("perf", "objdump") if shutil.which(tool) is None]
    if missing:
        print(f"error: {' and '.join(missing)} not found on PATH", file=sys.stderr)
        return 1
    env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, args.variant, args.policy, str(args.games)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO, env=env,
    )  # fmt: skip
    try:
        line = child.stdout.readline()
        if not line.strip():  # the child failed: its error is printed above
            print("error: the job did not start", file=sys.stderr)
            return 1
        pid = int(line)
        with tempfile.TemporaryDirectory() as tmp:
            data = Path(tmp) / "perf.data"
            record = ["perf", "record", "-q", "-e", "cpu-clock", "-F", "5000", "-p", str(pid), "-o", str(data)]
            done = subprocess.run([*record, "--", "sleep", str(args.seconds)], capture_output=True, text=True)
            if done.returncode != 0:
                print(f"error: perf record failed: {done.stderr.strip()}", file=sys.stderr)
                return 1
            script = subprocess.run(["perf", "script", "-i", str(data), "-F", "ip"], capture_output=True, text=True)
            counts = sample_counts(script.stdout)
            regions = jit_regions(Path(f"/proc/{pid}/maps").read_text())
            jit = collections.Counter({a: n for a, n in counts.items() if any(s <= a < e for s, e in regions)})
            if not jit:
                print("error: no sample fell in JIT code", file=sys.stderr)
                return 1
            print(f"{args.variant} {args.policy}, one thread: {sum(jit.values()) / sum(counts.values()):.1%} of the "
                  "samples in JIT code")  # fmt: skip
            code: dict[int, str] = {}
            with open(f"/proc/{pid}/mem", "rb") as memory:
                for start, end in regions:
                    if any(start <= a < end for a in jit):
                        memory.seek(start)
                        dump = Path(tmp) / f"{start:x}.bin"
                        dump.write_bytes(memory.read(end - start))
                        listing = subprocess.run(
                            ["objdump", "-D", "-b", "binary", "-mi386:x86-64", f"--adjust-vma={start:#x}", str(dump)],
                            capture_output=True, text=True,
                        )  # fmt: skip
                        code.update(disassembly(listing.stdout))
        print(report(jit, code, args.top, args.show))
        return 0
    finally:  # the child's chunk may run for minutes (a search's 50,000 games): it is not waited for
        child.stdin.close()
        child.kill()
        child.wait()


if __name__ == "__main__":
    sys.exit(main())
