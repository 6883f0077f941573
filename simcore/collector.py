"""Fewer cyclic garbage collections where scopasim allocates Python objects by the million: compiling kernels.

Numba's compiler builds millions of container objects that live as long as the compile (IR, types, LLVM
wrappers), and at CPython's default thresholds, (700, 10, 10), the collector walks the whole heap again and again
over them: in the cold compile of the four seed games in one process, 25 full collections took 4.2 s of 46 s
(3,950 young ones 0.8 s), against 1.1-1.2 s in all at ``RARE``, for 13 MiB more peak memory; the imports and the
kernels' loading of a warm ``scopasim simulate --games 1000`` spent 0.10 s of 0.78 s in collections, 0.06 s at
``RARE`` (``benchmarks/README.md``, session 18). Young garbage is still collected, every 10,000 allocations.
"""

from __future__ import annotations

import contextlib
import gc

from simcore.overlap import ProcessSetting

#: The collector's thresholds while kernels compile (``collecting_rarely``) and in the ``scopasim`` command.
RARE = (10_000, 10, 100)


def _raise_thresholds() -> tuple[int, ...]:
    before = gc.get_threshold()
    gc.set_threshold(*_raised(before))
    return before


_rare = ProcessSetting(_raise_thresholds, lambda before: gc.set_threshold(*before))


def collecting_rarely() -> contextlib.AbstractContextManager[None]:
    """Run the block with the collector's thresholds at ``RARE`` (or higher ones already set), then restore them.

    Nested and concurrent blocks share one setting: the thresholds come back when the last block ends."""
    return _rare.held()


def collect_rarely() -> None:
    """Set ``RARE`` for the rest of the process: for a program that owns its process (the ``scopasim`` command)."""
    gc.set_threshold(*_raised(gc.get_threshold()))


def _raised(thresholds: tuple[int, ...]) -> tuple[int, ...]:
    """``thresholds`` raised to ``RARE`` where lower; a first threshold of 0 (automatic collection off) stays."""
    if thresholds[0] == 0:
        return thresholds
    return tuple(max(now, rare) for now, rare in zip(thresholds, RARE, strict=True))
