"""The facade the CLI (and users in Python) call: simulate a run into a folder, trace chosen games.

Kernels are imported lazily, so ``scopasim variants`` or ``--help`` never pay for loading Numba code.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from simcore.config import RunConfig
from simcore.errors import ConfigError

if TYPE_CHECKING:
    from simcore.pipeline import ChunkObserver

ProgressFn = Callable[[int], None]
# Called after each chunk with the run writer: a reason to stop early (a non-empty string, or True for "early"),
# or a false value to go on.
StopFn = Callable[[Any], str | bool | None]


@dataclass(frozen=True)
class RunResult:
    """What a finished simulate call reports."""

    path: Path
    games: int
    games_played: int  # in this call (less than ``games`` when resuming)
    elapsed: float
    resumed: bool
    stopped: str | None = None  # why the run ended before ``config.games`` (``games`` is then the games written)

    @property
    def games_per_second(self) -> float:
        return self.games_played / self.elapsed if self.elapsed > 0 else float("nan")


def set_threads(threads: int | None) -> int:
    """Play on ``threads`` threads (default: all, ``NUMBA_NUM_THREADS``); returns the number in use.

    The number is kept as this thread's Numba thread count (``numba.set_num_threads``), which ``simcore.engine``
    reads when a chunk starts; it plays the chunk on that many threads of its own."""
    import numba

    available = numba.config.NUMBA_NUM_THREADS
    if threads is None:
        threads = available
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ConfigError(f"threads must be a positive integer, got {threads!r}")
    if threads > available:
        raise ConfigError(
            f"threads: {threads} requested but at most {available} are available "
            "(set NUMBA_NUM_THREADS before starting to allow more)"
        )
    numba.set_num_threads(threads)
    return threads


def play_chunk(
    config: RunConfig,
    games: np.ndarray,
    trace: bool = False,
    progress: ProgressFn | None = None,
    stop: threading.Event | None = None,
):
    """Play the games with indices ``games`` of a run; returns the kernels' ``ChunkOut``.

    ``progress`` is called while the games are played, with the number of games finished since its last call
    (the calls add up to ``len(games)``). Ctrl-C stops the kernels within a game per thread and is re-raised;
    setting ``stop`` does the same from another thread and raises ``simcore.engine.StoppedError``.
    """
    from simcore import engine
    from simcore.policies import policy_arrays

    choices = config.policy_choices()
    ids, params = policy_arrays(choices, config.rules)
    rules = config.compiled_rules()
    special = specialised(config)
    try:
        return engine.play(
            rules, config.seed, games, ids, params, trace=trace, progress=progress, stop=stop, specialise=special
        )
    except engine.UserMoveError as fault:
        from simcore.play import explain_fault

        raise explain_fault(config, fault.game) from None


def specialised(config: RunConfig) -> bool:
    """Whether the run's kernels are compiled for its very rule set (``simcore.kernels.frozen``): same rows, about
    a third more games/s in 2-player Scopa self-play and more for mc (its rollouts run the deal loop), and a
    shorter first compile than the shared kernels', since it leaves out what the rules switch off
    (``frozen.FoldFrozenRules``: 15 s against 28 s for 2-player Scopa greedy on the 2-core machine).

    Done for the default rules of a game (any player count, any size), which most runs use and so share one
    cached copy. A rule set varied in a study keeps to the shared kernels, compiled once for every value: a copy
    per value would be a compile (15 s) per value. ``SCOPASIM_SPECIALISE=1`` specialises every run, ``0`` none.
    """
    setting = os.environ.get("SCOPASIM_SPECIALISE", "auto")
    if setting not in ("0", "1", "auto"):
        raise ConfigError(f"SCOPASIM_SPECIALISE={setting!r}: expected 0, 1 or auto")
    if setting != "auto":
        return setting == "1"
    defaults = config.spec.defaults()
    return all(value == defaults[key] for key, value in config.rules.items() if key != "players")


def warm_up(config: RunConfig) -> None:
    """Compile (or load from the cache) the kernels by playing game 0, so timings measure simulation only."""
    play_chunk(config, np.zeros(1, dtype=np.int64))


def open_run(config: RunConfig, out: Path, *, overwrite: bool = False, resume: bool = False):
    """Create (or, with ``resume``, reopen) the run folder ``out``: every output check happens here, first.

    The returned writer holds the run's lock: use it as a context manager, or pass it to :func:`run_chunks`,
    which releases the lock however it ends.
    """
    from simcore.results import RunWriter

    return RunWriter.open(Path(out), config, overwrite=overwrite, resume=resume)


def run_chunks(
    writer,
    progress: ProgressFn | None = None,
    stop: StopFn | None = None,
    cluster: str | None = None,
    observers: tuple[ChunkObserver, ...] = (),
) -> RunResult:
    """Play the chunks a run folder still lacks, write them, and mark the run complete.

    Chunk k+1 is played while chunk k is written, on one writer thread (``simcore.pipeline``): at most two chunks
    are in memory, and every guarantee of ``simcore.results`` holds.

    ``progress`` is called with numbers of games that add up to the games of the run: first with the games
    already done when resuming, before any new work, so a progress bar can start where the run stands; then, as
    games finish inside each chunk, with the games finished since the last call (on a cluster: per chunk).

    ``stop``, when given, is called with the writer after each chunk is written (its manifest then lists every
    chunk done), on the writer thread, while the next chunk plays. A true result ends the run there: the chunk
    being played is stopped and dropped, and the manifest is marked complete with ``games_written`` (the rows
    written) and ``stopped`` (the result if it is a string, else ``"early"``). A stop after the last chunk ends
    nothing early and records no ``stopped``. Chunks are written in order, so an early stop keeps games 0..n-1.

    ``observers`` are called on the writer thread with ``(chunk index, games table, deals table)`` after each
    chunk is recorded, in chunk order (the CLI's summary counts the chunks as they are written).

    ``cluster`` (``local:N`` or ``tcp://host:port``) runs the chunks as Dask tasks (``simcore.executors``).

    The writer is closed (its lock released) when this returns or raises, Ctrl-C included, and only after the
    writer thread has ended.
    """
    with writer:
        return _run_chunks(writer, progress, stop, cluster, observers)


def _run_chunks(
    writer, progress: ProgressFn | None, stop: StopFn | None, cluster: str | None, observers: tuple
) -> RunResult:
    config = writer.config
    todo = writer.chunks_todo  # generated lazily: a run of 10**12 games lists no 10**12 / chunk_size indices
    left = writer.chunks_left
    done_games = writer.games_done
    if progress and done_games:
        progress(done_games)
    start = time.perf_counter()
    if cluster is not None:
        from simcore.executors import run_on_cluster

        if stop is not None:
            raise ConfigError("--precision cannot be combined with --cluster (chunks finish out of order)")
        if observers:
            raise ConfigError("chunk observers need the chunks written by this process, not on a cluster")
        run_on_cluster(writer, todo, cluster, progress)
        played, stopped = config.games - done_games, None
    else:
        played, stopped = _play_and_write(writer, todo, left, progress, stop, observers)
    elapsed = time.perf_counter() - start
    written = done_games + played
    stats: dict[str, Any] = {
        "elapsed_seconds": round(elapsed, 3),
        "games_per_second": round(played / max(elapsed, 1e-9)),
        "games_written": written,
    }
    if stopped:
        stats["stopped"] = stopped
    writer.finish(stats)
    return RunResult(writer.path, written, played, elapsed, resumed=done_games > 0, stopped=stopped)


def _play_and_write(
    writer, todo: Iterable[int], left: int, progress: ProgressFn | None, stop: StopFn | None, observers: tuple
) -> tuple[int, str | None]:
    """Play the chunks ``todo`` here while a :class:`ChunkWriter` writes the previous one; returns the games
    written and the stop's reason (None when every chunk was played)."""
    from simcore.pipeline import ChunkWriter

    config = writer.config
    chunk_writer = ChunkWriter(writer, left, stop, observers)
    try:
        for index in todo:
            chunk = config.chunk_range(index)
            games = np.arange(chunk.start, chunk.stop, dtype=np.int64)
            try:
                result = play_chunk(config, games, progress=progress, stop=chunk_writer.halt)
            except Exception as exc:
                if chunk_writer.halt.is_set() and _stopped(exc):
                    break  # the stop asked to end after the chunk before, or its writing failed (raised below)
                raise
            if not chunk_writer.submit(index, games, result):
                break
            del result  # the writer thread holds the chunk now
    except BaseException:
        chunk_writer.close(interrupted=True)
        raise
    chunk_writer.close()
    return chunk_writer.games_written, chunk_writer.stopped


def _stopped(exc: Exception) -> bool:
    from simcore.engine import StoppedError  # imported here: the engine is loaded by then

    return isinstance(exc, StoppedError)


def simulate(
    config: RunConfig,
    out: Path,
    *,
    threads: int | None = None,
    overwrite: bool = False,
    resume: bool = False,
    progress: ProgressFn | None = None,
) -> RunResult:
    """Play every game of ``config`` into the run folder ``out``, chunk by chunk (see ``run_chunks``)."""
    set_threads(threads)
    with open_run(config, out, overwrite=overwrite, resume=resume) as writer:
        return run_chunks(writer, progress)


def trace(config: RunConfig, games: Iterable[int]) -> list[dict[str, Any]]:
    """Traces (``scopasim-trace/1``) of the chosen games: the very games ``simulate`` plays for ``config``."""
    from simcore.trace import game_trace

    indices = np.array(sorted(set(games)), dtype=np.int64)
    if len(indices) == 0:
        raise ConfigError("no games to trace")
    if indices[0] < 0 or indices[-1] >= config.games:
        raise ConfigError(f"game indices must be between 0 and {config.games - 1} (the run has {config.games} games)")
    out = play_chunk(config, indices, trace=True)
    return [
        game_trace(
            out,
            row,
            spec=config.spec,
            rules=dict(config.rules),
            policies=list(config.policies),
            seed=config.seed,
            game=int(g),
        )
        for row, g in enumerate(indices)
    ]
