"""A process-wide setting changed for as long as any of several overlapping blocks runs.

Threads of one process share some settings (numpy's huge-page advice, the garbage collector's thresholds) that a
block wants changed while it runs: the first block in changes the setting, the last one out restores what was
there before, whatever the order in which overlapping blocks of several threads end (``simcore.pages``,
``simcore.collector``).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any


class ProcessSetting:
    """``change()`` (returning what to restore) as the first ``held()`` block starts; ``restore(it)`` as the last
    one ends."""

    def __init__(self, change: Callable[[], Any], restore: Callable[[Any], None]) -> None:
        self._change, self._restore = change, restore
        self._lock = threading.Lock()
        self._depth = 0  # how many blocks are open
        self._before: Any = None

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        with self._lock:
            if self._depth == 0:
                self._before = self._change()
            self._depth += 1
        try:
            yield
        finally:
            with self._lock:
                self._depth -= 1
                if self._depth == 0:
                    self._restore(self._before)
