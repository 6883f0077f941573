"""Tournaments: every pairing of policies plays the same deals twice, seats swapped (duplicate format).

Game ``i`` of every run of a tournament uses the same seed, so its deals are the same whatever the policies
(the deal stream does not depend on them): pairing (A, B) plays each deal once with A in the even seats and once
with B there. Deal luck cancels in the pair, and every pairing meets the same deals. Each seating is a normal run
folder (``<out>/<A>-vs-<B>/ab`` and ``/ba``), so it resumes, and ``analysis`` reads it like any run.

``tournament.json`` (the index) names the settings and the seatings, and carries a signature, so that a resume
can prove a folder is this tournament before touching it. Everything is checked before anything is written: the
policies, the rules, the output folder, the index, and every seating folder already there against the run it
must hold; a mismatch is refused, never played over. The result files (:data:`OUTPUTS`) are written by
``analysis.tournament`` into a folder whose index this module wrote. The engine is imported inside the functions
that play, so that readers of a tournament folder never load Numba.
"""

from __future__ import annotations

import itertools
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simcore.errors import ConfigError, OutputError
from simcore.layout import MANIFEST, read_manifest

if TYPE_CHECKING:
    from simcore.config import RunConfig
    from simcore.rounds import DecideFn

INDEX = "tournament.json"
SIGNATURE = "scopasim-tournament"
INDEX_VERSION = 1
OUTPUTS = ("pairings.csv", "ratings.csv", "results.json")  # result files of a tournament folder
SETTINGS = ("variant", "rules", "policies", "games", "seed")  # what a tournament is a pure function of
# Games per seating: a billion duplicate pairs per pairing is days of play even for greedy; beyond that a number
# is a typo, and it would only fail later (chunk lists, the RNG's game index) after the folder was created.

ProgressFn = Callable[[int], None]
SeatingFn = Callable[[int, "Seating", int], None]


@dataclass(frozen=True)
class Seating:
    """One run of a pairing: ``first`` plays the even seats (side 0), ``second`` the odd seats (side 1).

    ``status`` is what its folder needs: ``"new"``, ``"resume"`` or ``"done"``; ``done_games`` the games it
    already holds.
    """

    first: str
    second: str
    path: Path
    config: RunConfig
    status: str = "new"
    done_games: int = 0

    @property
    def label(self) -> str:
        return f"{self.first} vs {self.second}"

    @property
    def todo(self) -> int:
        """Games left to play in this seating."""
        return self.config.games - self.done_games


def split_policies(text: str) -> list[str]:
    """``"random,points:card=0.1,sweep=2,greedy"`` -> ``["random", "points:card=0.1,sweep=2", "greedy"]``.

    A comma separates policies, except before a ``key=value`` that continues the previous policy's parameters.
    """
    policies: list[str] = []
    for token in filter(None, (t.strip() for t in text.split(","))):
        if "=" in token and ":" not in token and policies and ":" in policies[-1]:
            policies[-1] += "," + token
        else:
            policies.append(token)
    return policies


def pairing_name(a: str, b: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", f"{a}-vs-{b}")


def tournament_settings(variant: str, policies: Sequence[str], games: int, seed: int, rules: dict) -> dict[str, Any]:
    """The validated settings of a tournament (policy labels and resolved rules), as its index records them."""
    from simcore.config import RunConfig
    from simcore.policies import parse_policy

    if not policies:
        raise ConfigError("--policies is empty: give at least two different policies, e.g. --policies random,greedy")
    labels = [parse_policy(p, variant).label for p in policies]
    repeated = sorted({p for p in labels if labels.count(p) > 1})
    if repeated:
        raise ConfigError(f"--policies: {', '.join(repeated)} given more than once; each policy plays once")
    if len(labels) < 2:
        raise ConfigError(f"a tournament needs at least two different policies (--policies a,b,...), got {labels[0]}")
    config = RunConfig.create(variant, policies=[labels[0]], rules=rules, games=games, seed=seed)
    sides = len(config.spec.sides(config.players))
    if sides != 2:
        raise ConfigError(
            f"{config.variant} with {config.players} players has {sides} sides; a tournament needs two "
            "(2 players, or 4 as two partnerships)"
        )
    return {"variant": config.variant, "rules": dict(config.rules), "policies": labels, "games": games, "seed": seed}


def seating_config(settings: dict[str, Any], first: str, second: str, chunk_size: int | None = None) -> RunConfig:
    """The run of one seating: ``first`` in the even seats, ``second`` in the odd ones."""
    from simcore.config import DEFAULT_CHUNK, RunConfig

    players = int(settings["rules"]["players"])
    seats = [first if s % 2 == 0 else second for s in range(players)]
    return RunConfig.create(
        settings["variant"],
        policies=seats,
        rules=settings["rules"],
        games=settings["games"],
        seed=settings["seed"],
        chunk_size=chunk_size or DEFAULT_CHUNK,
    )


def plan(
    variant: str,
    policies: Sequence[str],
    games: int,
    seed: int,
    rules: dict,
    out: Path,
    *,
    resume: bool = False,
    chunk_size: int | None = None,
) -> list[Seating]:
    """The seatings of a tournament, every input and every existing file checked; nothing is written.

    ``chunk_size`` (games per part file, default ``DEFAULT_CHUNK``) is part of each seating's run settings."""
    settings = tournament_settings(variant, policies, games, seed, rules)
    out = Path(out)
    pairs = list(itertools.combinations(settings["policies"], 2))
    folders = {pairing_name(a, b) for a, b in pairs}
    check_out(out, settings, folders, resume)
    seatings = []
    for a, b in pairs:
        folder = out / pairing_name(a, b)
        if folder.exists() and not folder.is_dir():
            raise OutputError(f"pairing folder {folder} exists and is not a folder")
        for first, second, name in ((a, b, "ab"), (b, a, "ba")):
            config = seating_config(settings, first, second, chunk_size)
            status, done = seating_status(folder / name, config)
            seatings.append(Seating(first, second, folder / name, config, status, done))
    return seatings


def check_out(out: Path, settings: dict[str, Any], folders: set[str], resume: bool) -> None:
    """Refuse an output that is a file, a non-empty folder without ``resume``, or (resuming) a folder that is not
    provably this tournament: an index of other settings or not ours, result files or other entries without an
    index."""
    if out.exists() and not out.is_dir():
        raise OutputError(f"output {out} exists and is not a folder")
    entries = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
    if not entries:
        return
    if not resume:
        raise OutputError(f"output {out} already exists and is not empty (use --resume to finish it, or another --out)")
    index = read_index(out)
    if index is None:
        strays = [name for name in entries if name not in folders and not _is_temporary(name)]
        if strays:
            raise OutputError(
                f"cannot resume {out}: it has no {INDEX} and holds {strays[0]!r}, which this tournament did not "
                "create; choose another --out"
            )
        return
    diff = differences({k: index.get(k) for k in SETTINGS}, settings)
    if diff:
        raise OutputError(f"cannot resume {out}: its {INDEX} is a tournament with other settings ({diff})")


def read_index(out: Path) -> dict[str, Any] | None:
    """The index of a tournament folder, or None if it has none; an index that does not parse, or is not a
    scopasim tournament's, is an :class:`OutputError`. An index of scopasim before the signature existed (exactly
    the settings and the runs) is accepted."""
    path = Path(out) / INDEX
    if not path.exists() and not path.is_symlink():
        return None
    try:
        index = json.loads(path.read_text())
    except (OSError, ValueError) as exc:  # ValueError: bad JSON, or bytes that are not UTF-8
        raise OutputError(f"{path} is not a scopasim tournament index ({_cut(str(exc), 80)})") from None
    legacy = isinstance(index, dict) and "format" not in index and set(index) == {*SETTINGS, "runs"}
    ours = isinstance(index, dict) and index.get("format") == SIGNATURE and index.get("version") == INDEX_VERSION
    if not (ours or legacy) or not isinstance(index.get("runs"), list):
        raise OutputError(f"{path} is not a scopasim tournament index (no {SIGNATURE} signature); choose another --out")
    return index


def seating_status(path: Path, config: RunConfig) -> tuple[str, int]:
    """What a seating folder needs (``"new"``, ``"resume"``, ``"done"``) and the games it holds; a folder that
    holds anything but this seating's run is refused, naming it and what differs."""
    if path.is_symlink():
        raise OutputError(f"seating folder {path} is a symbolic link; a tournament writes only folders it creates")
    if path.exists() and not path.is_dir():
        raise OutputError(f"seating folder {path} exists and is not a folder")
    if not path.exists() or not any(path.iterdir()):
        return "new", 0
    if not (path / MANIFEST).exists():
        raise OutputError(f"seating folder {path} is not empty and holds no run ({MANIFEST}); choose another --out")
    try:
        manifest = read_manifest(path)
    except OutputError as exc:
        raise OutputError(f"seating folder {path}: {exc}") from None
    diff = differences(manifest.get("config"), config.to_dict())
    if diff:
        raise OutputError(f"seating folder {path} holds a run of other settings ({diff}); choose another --out")
    if manifest.get("complete"):
        return "done", config.games
    chunks = manifest.get("chunks_done")
    if not isinstance(chunks, list) or not all(isinstance(i, int) and 0 <= i < config.n_chunks for i in chunks):
        raise OutputError(f"seating folder {path}: its {MANIFEST} has malformed chunks_done")
    return "resume", sum(len(config.chunk_range(i)) for i in set(chunks))


def differences(there: Any, now: dict[str, Any]) -> str:
    """What differs between recorded settings and the ones asked for, short enough for a one-line error."""
    if not isinstance(there, dict):
        return "no settings recorded"
    first = ("variant", "policies", "games", "seed", "chunk_size")  # the likely mistakes; rules last
    keys = sorted(set(there) | set(now), key=lambda k: (first.index(k) if k in first else len(first), k))
    parts = []
    for key in keys:
        old, new = there.get(key), now.get(key)
        if old == new or (key == "rules" and there.get("variant") != now.get("variant")):
            continue  # the rules of two games differ in every key: the variant says it all
        if isinstance(old, dict) and isinstance(new, dict):
            parts += [
                f"rule {k}: {_cut(repr(old.get(k)))} there, {_cut(repr(new.get(k)))} now"
                for k in sorted(set(old) | set(new))
                if old.get(k) != new.get(k)
            ]
        else:
            parts.append(f"{key}: {_cut(repr(old))} there, {_cut(repr(new))} now")
    return _cut("; ".join(parts), 240)


def _cut(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def run_tournament(
    variant: str,
    policies: Sequence[str],
    *,
    games: int,
    seed: int,
    out: Path,
    rules: dict | None = None,
    threads: int | None = None,
    resume: bool = False,
    progress: ProgressFn | None = None,
    on_seating: SeatingFn | None = None,
    cluster: str | None = None,
    chunk_size: int | None = None,
    decide: DecideFn | None = None,
    sequential: dict[str, Any] | None = None,
) -> dict:
    """Play every seating into ``out`` (complete ones are kept when resuming); returns the index it wrote.

    ``progress`` is called with the games played in this call only (never with games a resumed or complete
    seating already holds), as often as the engine reports them; ``on_seating(k, seating, todo)`` before seating
    ``k`` (1-based) with the games it has left to play.

    With ``decide`` (``tournament --precision``), the seatings are played side by side in rounds of one chunk
    (``simcore.rounds.race``: seatings 2k and 2k+1 are pairing k's ab and ba) and ``decide`` ends pairings early;
    ``sequential`` (its settings) is recorded in the index with each pairing's games and reason to stop, and a
    resume with other such settings is refused.
    """
    from simcore import api

    rules = dict(rules or {})
    out = Path(out)
    seatings = plan(variant, policies, games, seed, rules, out, resume=resume, chunk_size=chunk_size)
    settings = tournament_settings(variant, policies, games, seed, rules)
    old = read_index(out) if out.is_dir() else None
    if old is not None and old.get("sequential") != sequential:
        raise OutputError(
            f"cannot resume {out}: its {INDEX} was played with --precision settings {old.get('sequential')} "
            f"(asked: {sequential})"
        )
    api.set_threads(threads)
    if cluster is not None:
        from simcore.executors import parse_cluster

        parse_cluster(cluster)
    index = {
        "format": SIGNATURE,
        "version": INDEX_VERSION,
        **settings,
        "runs": [{"first": s.first, "second": s.second, "path": s.path.relative_to(out).as_posix()} for s in seatings],
        "outputs": list(OUTPUTS),
        "complete": False,
    }
    if sequential is not None:
        index["sequential"] = sequential
    write_index(out, index)
    if decide is not None:
        from simcore.rounds import RaceRun, race

        if cluster is not None:
            raise ConfigError("--precision plays the seatings chunk by chunk here; drop --cluster")
        state = race([RaceRun(s.config, s.path) for s in seatings], decide, progress=progress)
        index["stops"] = {
            s.path.relative_to(out).as_posix(): {"games": g, "stopped": why}
            for s, g, why in zip(seatings, state.games, state.stopped, strict=True)
        }
        index["complete"] = True
        write_index(out, index)
        return index
    for k, seating in enumerate(seatings, 1):
        if seating.status == "done":
            if on_seating:
                on_seating(k, seating, 0)
            continue
        writer = api.open_run(seating.config, seating.path, resume=seating.status == "resume")
        done = seating.config.games - sum(len(seating.config.chunk_range(i)) for i in writer.chunks_todo)
        if on_seating:
            on_seating(k, seating, seating.config.games - done)
        api.run_chunks(writer, _played_only(progress, done), cluster=cluster)
    index["complete"] = True
    write_index(out, index)
    return index


def _played_only(progress: ProgressFn | None, done: int) -> ProgressFn | None:
    """``progress`` without the first report of a resumed run (``api.run_chunks`` first reports the games the
    folder already holds), so that a progress bar counts, and times, only the games played now."""
    if progress is None:
        return None
    pending = [done]

    def advance(n: int) -> None:
        skip, pending[0] = pending[0], 0
        if not (skip and n == skip):
            progress(n)

    return advance


def write_index(out: Path, index: dict[str, Any]) -> None:
    """Write ``tournament.json`` atomically."""
    write_atomic(Path(out) / INDEX, json.dumps(index, indent=2))


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file of this process next to ``path``, then rename it over ``path``: a reader
    never sees half a file, and an interruption leaves no temporary file behind."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text)
        os.replace(tmp, path)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        if tmp.parent.is_dir():
            tmp.unlink(missing_ok=True)


def _is_temporary(name: str) -> bool:
    return name.startswith(".") and name.endswith(".tmp")
