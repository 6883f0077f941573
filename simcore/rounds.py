"""Several runs played side by side in rounds of one chunk each, so a comparison can stop any of them early.

``balance --precision``, ``balance --search`` and ``tournament --precision`` compare runs that share a seed, game
by game. Round r plays chunk r-1 of every run still going (so all of them hold games 0..n-1 of the same n), then
asks ``decide`` which runs to end. A run ended early is marked complete with ``stopped`` (its reason) and
``games_written``, exactly as ``simulate --precision`` leaves one; a run that plays all its chunks is complete as
usual. A decision is a pure function of the games on disk, so an interrupted race is resumed by running it again:
the rounds are replayed from the part files, only the chunks missing are played, and every run ends where the
uninterrupted race would have ended it. Chunks are played on the calling thread and written after each (no
pipelining: a round is one chunk per run).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simcore.config import RunConfig
from simcore.errors import OutputError
from simcore.layout import read_manifest

#: ``decide(round, active)``: after round ``round`` (1-based) with the runs ``active`` (indices) holding chunks
#: 0..round-1, the runs to end now, each with its reason.
DecideFn = Callable[[int, list[int]], dict[int, str]]
ProgressFn = Callable[[int], None]


@dataclass(frozen=True)
class RaceRun:
    """One run of a race: its settings and its folder."""

    config: RunConfig
    path: Path


@dataclass
class RaceState:
    """What :func:`race` did: games each run holds, and why each ended (None: all its games were played)."""

    games: list[int]
    stopped: list[str | None]
    played: int  # games played in this call
    elapsed: float


def _recorded(path: Path, config: RunConfig) -> dict[str, Any] | None:
    """The manifest of a complete run of ``config`` in ``path``, or None if the run is not complete yet."""
    if not (path / "manifest.json").exists():
        return None
    manifest = read_manifest(path)
    if manifest.get("config") != config.to_dict():
        raise OutputError(f"{path} holds a run with other settings; choose another --out")
    return manifest if manifest.get("complete") else None


def race(
    runs: Sequence[RaceRun], decide: DecideFn, progress: ProgressFn | None = None, warm_up: bool = True
) -> RaceState:
    """Play ``runs`` in rounds until ``decide`` has ended each or it has played all its chunks (see the module
    docstring); every run's chunk r is played before any run's chunk r+1."""
    from simcore import api

    n_rounds = max(r.config.n_chunks for r in runs)
    done: dict[int, dict[str, Any]] = {}
    writers: dict[int, Any] = {}
    stopped: list[str | None] = [None] * len(runs)
    played = 0
    start = time.perf_counter()
    try:
        for i, run in enumerate(runs):
            manifest = _recorded(run.path, run.config)
            if manifest is not None:
                done[i] = manifest
        active = list(range(len(runs)))
        warmed = not warm_up
        for rnd in range(1, n_rounds + 1):
            for i in active:
                if i in done:
                    held = len(done[i]["chunks_done"])
                    if held < rnd:
                        raise OutputError(f"{runs[i].path} ended after {held} chunks, before this race would end it")
                    continue
                if i not in writers:
                    exists = (runs[i].path / "manifest.json").exists()
                    writers[i] = api.open_run(runs[i].config, runs[i].path, resume=exists)
                if rnd - 1 not in writers[i].manifest["chunks_done"]:
                    if not warmed:
                        api.warm_up(runs[i].config)
                        warmed = True
                    played += play_chunk(writers[i], rnd - 1, progress)
                elif progress:
                    progress(len(runs[i].config.chunk_range(rnd - 1)))
            ends = decide(rnd, list(active))
            for i in list(active):
                last = rnd >= runs[i].config.n_chunks
                if i in ends or last:
                    active.remove(i)
                    if i not in done:
                        reason = None if last else ends[i]
                        finish(writers.pop(i), reason)
                        stopped[i] = reason
                    else:
                        stopped[i] = done[i].get("stopped")
            if not active:
                break
    finally:
        for writer in writers.values():
            writer.close()
    games = [_games(r.path) for r in runs]
    return RaceState(games, stopped, played, time.perf_counter() - start)


def play_chunk(writer: Any, index: int, progress: ProgressFn | None = None) -> int:
    """Play chunk ``index`` of the writer's run and write it; returns its number of games."""
    from simcore import api
    from simcore.results import deals_table, games_table

    config = writer.config
    chunk = config.chunk_range(index)
    games = np.arange(chunk.start, chunk.stop, dtype=np.int64)
    out = api.play_chunk(config, games, progress=progress)
    writer.write_chunk(index, games_table(config, games, out), deals_table(config, games, out))
    return len(games)


def finish(writer: Any, reason: str | None) -> None:
    """Mark the run complete with the games it holds, and ``stopped`` when it ends before its last chunk."""
    stats: dict[str, Any] = {"games_written": writer.games_done}
    if reason is not None:
        stats["stopped"] = reason
    writer.finish(stats)
    writer.close()


def _games(path: Path) -> int:
    manifest = read_manifest(path) if (path / "manifest.json").exists() else {}
    return int(manifest.get("games_written") or 0)
