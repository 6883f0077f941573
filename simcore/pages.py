"""Memory pages of the big per-chunk arrays: 4 KB pages, not the huge pages numpy asks for."""

from __future__ import annotations

import contextlib

from simcore.overlap import ProcessSetting

try:  # numpy's switch of the huge-page advice on its large allocations (private, stable since numpy 1.20)
    from numpy._core.multiarray import _set_madvise_hugepage
except ImportError:  # numpy 1.x
    try:
        from numpy.core.multiarray import _set_madvise_hugepage
    except ImportError:
        _set_madvise_hugepage = None

_no_huge_pages = ProcessSetting(
    lambda: _set_madvise_hugepage(False),  # looked up at each call: tests replace it
    lambda before: _set_madvise_hugepage(before),
)


def small_pages() -> contextlib.AbstractContextManager[None]:
    """Allocate the arrays made inside without numpy's huge-page advice (``madvise(MADV_HUGEPAGE)``).

    numpy asks Linux for 2 MB pages on every allocation of 4 MB or more; where transparent huge pages are
    enabled on ``madvise`` (the default of many distributions, this machine's too) the kernel then compacts memory
    inside the page faults of the chunk's first writes. A 100,000-game chunk of greedy Scopa, one thread, took
    0.41-0.44 s of user time every time but 0.01-0.60 s of system time on top (0.42 to 1.06 s wall, the first
    chunks of a process the slowest); with 4 KB pages 0.42 s each time. The kernels write the rows once, in
    order, so they gain nothing from huge pages. The advice is numpy's global setting: it is restored when the
    last overlapping block ends (the writer's rows and the kernels' chunks may be allocated at once)."""
    if _set_madvise_hugepage is None:
        return contextlib.nullcontext()
    return _no_huge_pages.held()
