"""The chunk pipeline of a run: chunk k+1 is played while chunk k is written.

``api.run_chunks`` plays the chunks on the calling thread (the kernels run without the GIL on the engine's
launcher thread, so the caller only waits) and hands each played chunk to one :class:`ChunkWriter` thread. That
thread builds the chunk's two tables, writes its part files, records it in the manifest, then calls the run's
observers; it is the only thread that writes the run folder. The hand-off holds one chunk at most: the caller
waits until chunk k is recorded before it hands over chunk k+1, so two chunks at most are in memory (one being
written, one being played), however long the run.

What the one-thread loop guaranteed still holds (``simcore.results`` says how parts are written):

- Chunks are recorded in chunk order, each only after both of its part files are renamed into place.
- ``stop`` (``--precision``) is called on the writer thread right after each chunk is recorded, so it sees the
  chunks 0..k exactly, as before. When it asks to stop, the kernels stop the chunk being played (``halt``) and
  that chunk is dropped, never written: an early stop keeps games 0..n-1 of the very n the one-thread loop kept.
- A failed write (an ``OutputError``: full disk, read-only file system) halts the kernels too, and is raised on
  the calling thread by its next hand-off or by :meth:`ChunkWriter.close`. Nothing after the failed chunk is
  written or recorded.
- When the caller is interrupted (Ctrl-C, SIGTERM, an exception of ``progress``), :meth:`ChunkWriter.close`
  lets the thread finish the chunk it holds (one chunk's writing at most: played games are kept) and waits for
  it. An interruption during that wait makes the thread drop the chunk at its next step instead; either way it
  leaves no temporary file and records no chunk whose parts are not on disk. The run's lock is released only
  after the thread has ended (``run_chunks`` closes the writer after this).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

#: Called on the writer thread after each chunk is recorded: (chunk index, games table, deals table).
ChunkObserver = Callable[[int, Any, Any], None]


class ChunkWriter:
    """One background thread that writes played chunks in order; see the module docstring.

    ``writer`` is the run's ``RunWriter``; ``stop`` and ``observers`` are called after each recorded chunk;
    ``chunks`` is the number of chunks the caller will hand over at most (a stop after the last one ends nothing
    early, as in ``run_chunks``).
    """

    def __init__(
        self,
        writer: Any,
        chunks: int,
        stop: Callable[[Any], str | bool | None] | None = None,
        observers: tuple[ChunkObserver, ...] = (),
    ):
        self.writer = writer
        self.chunks = chunks
        self.stop = stop
        self.observers = observers
        self.halt = threading.Event()  # set: the chunk being played is not wanted (early stop or failed write)
        self.stopped: str | None = None  # the stop's reason, once it asked to stop before the last chunk
        self.error: BaseException | None = None
        self.games_written = 0
        self._handed = 0
        self._cancel = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._queue: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._loop, name="scopasim-writer", daemon=True)
        self._thread.start()

    def submit(self, index: int, games: np.ndarray, result: Any) -> bool:
        """Hand over a played chunk once the previous one is recorded; False if it is not wanted (the stop asked
        to end the run after the previous chunk). Raises the previous chunk's write error."""
        self._idle.wait()
        self._raise()
        if self.halt.is_set():
            return False
        self._idle.clear()
        self._queue.put((self._handed, index, games, result))
        self._handed += 1
        return True

    def close(self, interrupted: bool = False) -> None:
        """End the thread once it has written what it holds, and wait for it (see the module docstring).

        Raises the thread's error unless ``interrupted`` (the caller is already raising its own)."""
        self._queue.put(None)
        while self._thread.is_alive():
            try:
                self._thread.join()
            except KeyboardInterrupt:  # interrupted again while waiting: drop the chunk, still wait for the thread
                self._cancel.set()
                interrupted = True
        if not interrupted:
            self._raise()

    def _raise(self) -> None:
        if self.error is not None:
            raise self.error

    def _loop(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            try:
                if self.error is None and not self._cancel.is_set():
                    self._write(*item)
            except BaseException as exc:  # raised again on the calling thread
                self.error = exc
                self.halt.set()
            finally:
                del item  # the chunk's arrays go before the next chunk comes
                self._idle.set()

    def _write(self, position: int, index: int, games: np.ndarray, result: Any) -> None:
        from simcore.results import deals_table, games_table

        config = self.writer.config
        games_part = games_table(config, games, result)
        deals_part = deals_table(config, games, result)
        if self._cancel.is_set():
            return
        self.writer.write_chunk(index, games_part, deals_part)
        self.games_written += len(games)
        for observe in self.observers:
            observe(index, games_part, deals_part)
        if self.stop is not None:
            reason = self.stop(self.writer)
            if reason and position < self.chunks - 1:
                self.stopped = reason if isinstance(reason, str) else "early"
                self.halt.set()
