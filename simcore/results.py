"""Run folders: Parquet part files per chunk, a manifest, and the metadata readers check.

Layout of ``results/<run>/``::

    manifest.json             signature, config, chunks done, complete flag, timings, versions
    writer.lock               while a process writes the run: its pid, host, start time and command line
    games/part-00000.parquet  one row per game
    deals/part-00000.parquet  one row per deal and side

Guarantees:

- Nothing is lost. An existing folder is only ever reopened (``resume``) or, with ``overwrite``, replaced when it
  provably is a scopasim run: its manifest parses and carries the run signature (``"format": "scopasim-run"``) and a
  schema version, and the folder holds nothing but the manifest, the lock, real ``games/`` and ``deals/`` folders
  of ``part-NNNNN.parquet`` files and our hidden temporaries (``simcore.layout.foreign_entry``). Anything else
  is refused, naming the first foreign entry, before anything is deleted.
- One writer per run: the lock (``simcore.runlock``) is taken before a run is created, resumed or overwritten and
  released however the run ends; a second writer is refused with the holder's pid, host and start time.
- Nothing half-written is claimed. A part file is written under a hidden name unique to its process
  (``.part-NNNNN.parquet.<pid>.tmp``, which Parquet readers skip), synced, and renamed when whole; the manifest
  is rewritten the same way, and only after a chunk's two parts are in place. A failed write (full disk,
  read-only file system, file too large, name too long) is one ``OutputError`` line, removes its temporary file,
  and leaves the manifest as it was. So ``complete: true`` is the only sign that a run is whole.
- A part says what it holds: its ``scopasim`` blob records the run (schema version, variant, rules and
  ``rules_version``, policies, seed, versions) and its slot (``chunk``, ``first_game``, ``n_games``).
  ``--resume`` checks every part a manifest claims with ``simcore.layout.check_part`` and plays a chunk again
  when one of its parts is missing, unreadable, of another run or of another slot.
- ``--resume`` refuses a run written by an incompatible engine: another results schema, ``rules_version`` of the
  variant, or RNG scheme (each recorded in the manifest), or one written before the run signature existed.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from simcore.config import RunConfig
from simcore.errors import OutputError
from simcore.kernels.game import ChunkOut
from simcore.layout import (
    LOCK,
    MANIFEST,
    METADATA_KEY,
    RUN_FORMAT,
    SCHEMA_VERSION,
    TABLES,
    PartError,
    check_part,
    foreign_entry,
    is_signed,
    is_temporary,
    part_index,
    part_name,
    read_manifest,
    short_path,
    temporary_name,
)
from simcore.rng import RNG_SCHEME
from simcore.runlock import RunLock, check_free


def versions() -> dict[str, str]:
    """Versions of what produced a result."""
    import numba

    from simcore import __version__

    return {
        "scopasim": __version__,
        "numba": numba.__version__,
        "numpy": np.__version__,
        "pyarrow": pa.__version__,
        "python": platform.python_version(),
    }


def metadata_blob(config: RunConfig, table: str, index: int) -> bytes:
    """The namespaced JSON blob stored in the schema metadata of chunk ``index``'s part file of ``table``."""
    games = config.chunk_range(index)
    return json.dumps(
        {
            "schema_version": SCHEMA_VERSION,
            "table": table,
            "variant": config.variant,
            "rules_version": config.spec.rules_version,
            "rules": dict(config.rules),
            "policies": list(config.policies),
            "players": config.players,
            "sides": config.spec.sides(config.players),
            "categories": list(config.categories),
            "seed": config.seed,
            "games": config.games,
            "chunk": index,
            "first_game": games.start,
            "n_games": len(games),
            "rng_scheme": RNG_SCHEME,
            "versions": versions(),
        }
    ).encode()


def _arrow(values: np.ndarray) -> pa.Array:
    """A numeric or boolean numpy array as an Arrow array (no copy for numbers).

    ``pa.array`` would give the same array, but it imports pandas (about 0.2 s) to check for pandas types: the
    writer never holds any, so it builds the arrays from their buffers.
    """
    values = np.ascontiguousarray(values)
    if values.dtype == np.bool_:
        bits = np.packbits(values, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)])


def _bits(packed: np.ndarray, n: int) -> pa.Array:
    """A boolean Arrow array of ``n`` values from its bit-packed buffer (bit i % 8 of byte i // 8)."""
    return pa.Array.from_buffers(pa.bool_(), n, [None, pa.py_buffer(packed)])


def _strings(values: list[str]) -> pa.Array:
    """A list of strings as an Arrow string array (built from its buffers, for the reason of :func:`_arrow`)."""
    encoded = [v.encode() for v in values]
    offsets = np.zeros(len(encoded) + 1, np.int32)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    data = pa.py_buffer(b"".join(encoded))
    return pa.Array.from_buffers(pa.string(), len(values), [None, pa.py_buffer(offsets), data])


def _dictionary(values: list[str], n: int) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(_arrow(np.zeros(n, np.int8)), _strings(values))


def games_table(config: RunConfig, games: np.ndarray, out: ChunkOut) -> pa.Table:
    """One row per game (and a ``stake`` column where the rules give a first-deal win more stakes)."""
    n = len(games)
    cols: dict[str, pa.Array] = {
        "game": _arrow(games.astype(np.int64)),
        "seed": _arrow(np.full(n, config.seed, np.int64)),
        "first_dealer": _arrow(out.first_dealer),
        "first_player": _arrow(((out.first_dealer.astype(np.int16) + 1) % config.players).astype(np.int8)),
    }
    for seat, label in enumerate(config.policies):
        cols[f"policy_{seat}"] = _dictionary([label], n)
    cols["winner"] = _arrow(out.winner)
    for side in range(out.totals.shape[1]):
        cols[f"total_{side}"] = _arrow(out.totals[:, side])
    cols["deals"] = _arrow(out.n_deals)
    cols["plays"] = _arrow(out.n_plays)
    cols["redeals"] = _arrow(out.redeals)
    cols["mid_deal"] = _arrow(out.mid_deal.astype(bool))
    stake = config.spec.first_deal_stake(config.rules) if config.spec.first_deal_stake is not None else 1
    if stake != 1:  # Kaszinó's stake_multiplier: a game won in its first deal is worth ``stake`` stakes
        cols["stake"] = _arrow(np.where(out.n_deals == 1, stake, 1).astype(np.int8))
    return pa.table(cols)


def deals_table(config: RunConfig, games: np.ndarray, out: ChunkOut) -> pa.Table:
    """One row per deal and side, in (game, deal, side) order.

    Every column is written in one pass over the chunk's deal slots by ``simcore.kernels.rows`` (without the
    GIL: this runs for every chunk while the next one plays); the Arrow arrays are views of its buffers.
    """
    from simcore.kernels.rows import (
        FLAG_DEALT,
        FLAG_LED,
        SHORT_DEAL,
        SMALL_DEALER,
        SMALL_LEADER,
        SMALL_SIDE,
        allocate_rows,
        fill_deal_rows,
    )

    n_sides = out.deal_cards.shape[2]
    categories = config.categories
    n_rows = int(out.n_deals.sum()) * n_sides
    rows = allocate_rows(n_rows, len(categories))
    seat_side = np.empty(config.players, np.int8)
    for s_idx, seats in enumerate(config.spec.sides(config.players)):
        seat_side[seats] = s_idx
    fill_deal_rows(
        np.ascontiguousarray(games, dtype=np.int64),
        out.n_deals,
        out.deal_dealer,
        out.deal_points,
        (out.deal_sweeps, out.deal_cards, out.deal_totals),
        seat_side,
        np.int64(config.players),
        rows,
    )
    cols: dict[str, pa.Array] = {
        "game": _arrow(rows.game),
        "deal": _arrow(rows.short[SHORT_DEAL]),
        "side": _arrow(rows.small[SMALL_SIDE]),
        "dealer": _arrow(rows.small[SMALL_DEALER]),
        "leader": _arrow(rows.small[SMALL_LEADER]),
        "dealt": _bits(rows.flags[FLAG_DEALT], n_rows),
        "led": _bits(rows.flags[FLAG_LED], n_rows),
    }
    names = [*categories, "points", "sweeps", "cards_taken", "total"]
    for k, name in enumerate(names, 1):
        cols[name] = _arrow(rows.short[k])
    return pa.table(cols)


def write_parquet(table: pa.Table, path: Path) -> None:
    """Write a part file: zstd over delta-encoded integers, dictionaries only where the column is one, and
    statistics (min and max per row group) for the ``game`` column only.

    The tables are small integers in long runs (game numbers, deal numbers, points), which delta encoding
    bit-packs before zstd sees them: the same file size as Parquet's default (dictionary, then zstd) at about
    half the writer's CPU time, which is taken from the kernels playing the next chunk. Any Parquet reader reads
    both encodings, so older parts and newer ones mix in one run. Statistics serve readers that skip row groups:
    ``simcore.layout`` reads the deals part's game span from them, and a filter on ``game`` can use them; no
    reader uses those of the other columns, which cost 8% of the encoding (0.08 CPU-s per 10^6 games). Row groups
    of up to 2^20 rows make the deals part of a default chunk (about 380,000 rows) one row group: 3% less
    encoding than three, at the same size; readers read a part whole either way.
    """
    integers = [f.name for f in table.schema if pa.types.is_integer(f.type)]
    dictionaries = [f.name for f in table.schema if pa.types.is_dictionary(f.type)]
    pq.write_table(
        table,
        path,
        compression="zstd",
        row_group_size=1 << 20,
        use_dictionary=dictionaries or False,
        column_encoding=dict.fromkeys(integers, "DELTA_BINARY_PACKED"),
        write_statistics=["game"],
    )


def _why(exc: OSError) -> str:
    """The reason of an OS error in a few words (``No space left on device``)."""
    text = exc.strerror if exc.errno and exc.strerror else str(exc)
    return text if len(text) <= 200 else text[:197] + "..."


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _unlink_quietly(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink(missing_ok=True)


def _atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a synced temporary file of this process; on failure, no file changes."""
    tmp = temporary_name(path)
    try:
        with open(tmp, "w") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        raise OutputError(f"cannot write {short_path(path)}: {_why(exc)}") from None
    finally:
        _unlink_quietly(tmp)


def _fresh(path: Path) -> bool:
    """A folder that holds no run yet: nothing but a (stale or live) lock and empty table folders."""
    with os.scandir(path) as entries:
        for entry in entries:
            if entry.name == LOCK and entry.is_file(follow_symlinks=False):
                continue
            if entry.name in TABLES and entry.is_dir(follow_symlinks=False) and not entry.is_symlink():
                with os.scandir(entry.path) as inside:
                    if next(inside, None) is None:
                        continue
            return False
    return True


def _refuse_overwrite(path: Path) -> None:
    """Refuse to delete ``path`` unless it provably is a scopasim run (see the module docstring)."""
    foreign = foreign_entry(path)
    reason = None
    if foreign is not None:
        reason = f"it holds {foreign}, which a scopasim run does not"
    elif not (path / MANIFEST).is_file():
        reason = f"no {MANIFEST}"
    else:
        try:
            manifest = json.loads((path / MANIFEST).read_text())
        except (OSError, ValueError):
            manifest = None
        if not isinstance(manifest, dict):
            reason = f"its {MANIFEST} is not a JSON object"
        elif not is_signed(manifest):
            reason = (
                f"its {MANIFEST} has no scopasim run signature (a run older than the signature? delete it yourself)"
            )
        elif not isinstance(manifest.get("schema_version"), int) or isinstance(manifest["schema_version"], bool):
            reason = f"its {MANIFEST} has no schema version"
    if reason:
        raise OutputError(
            f"refusing to overwrite {short_path(path)}: it is not a scopasim run folder ({reason}); nothing was deleted"
        )


def _refuse_linked_tables(path: Path) -> None:
    for name in TABLES:
        if (path / name).is_symlink():
            raise OutputError(
                f"cannot resume {short_path(path)}: its {name}/ is a symbolic link, not a folder of the run"
            )


def _missing_folders(path: Path) -> list[Path]:
    """``path`` and those of its parents that do not exist yet, innermost first."""
    missing = []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    return missing


def _remove_empty(folders: list[Path]) -> None:
    """Remove the folders a failed ``open`` created, innermost first, if they are still empty."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


class RunWriter:
    """Writes one run folder chunk by chunk, holding its lock until :meth:`close`; see the module docstring.

    Use it as a context manager (``with api.open_run(...) as writer``), or call :meth:`close`: ``api.run_chunks``
    closes the writer it is given.
    """

    def __init__(self, path: Path, config: RunConfig, manifest: dict[str, Any], lock: RunLock | None = None):
        self.path = path
        self.config = config
        self.manifest = manifest
        self.lock = lock
        self.damage: dict[Path, str] = {}  # part files found unusable when resuming, and why (their chunks are redone)

    @property
    def damaged(self) -> list[Path]:
        return list(self.damage)

    @classmethod
    def open(cls, path: Path, config: RunConfig, *, overwrite: bool = False, resume: bool = False) -> RunWriter:
        """Start a new run folder, or reopen an interrupted one with ``resume``, or replace one with ``overwrite``.

        An existing result is never replaced unless ``overwrite``, and ``overwrite`` only ever deletes a folder
        that provably holds a scopasim run. A folder another live process writes is refused, naming it.
        """
        path = Path(path)
        try:
            if path.exists() and not path.is_dir():
                raise OutputError(f"output {short_path(path)} exists and is not a folder")
            if not path.exists() or _fresh(path):
                return cls._create(path, config)
            check_free(path)  # a live writer is named before anything else is said about the folder
            if resume:
                _refuse_linked_tables(path)
                read_manifest(path)  # a folder that is no run is refused before a lock file is put in it
                return cls._locked(path, lambda lock: cls._reopen(path, config, lock))
            if not overwrite:
                hint = "use --resume to finish it" if (path / MANIFEST).exists() else "choose another --out"
                raise OutputError(
                    f"output {short_path(path)} already exists and is not empty ({hint}, or --overwrite to replace it)"
                )
            _refuse_overwrite(path)
            return cls._locked(path, lambda lock: cls._replace(path, config, lock))
        except OSError as exc:
            raise OutputError(f"cannot write to {short_path(path)}: {_why(exc)}") from None

    @classmethod
    def _locked(cls, path: Path, make) -> RunWriter:
        lock = RunLock.acquire(path)
        try:
            return make(lock)
        except BaseException:
            lock.release()
            raise

    @classmethod
    def _create(cls, path: Path, config: RunConfig) -> RunWriter:
        created = _missing_folders(path)
        path.mkdir(parents=True, exist_ok=True)
        try:
            lock = RunLock.acquire(path)
        except BaseException:
            _remove_empty(created)
            raise
        try:
            for name in TABLES:
                if not (path / name).is_dir():
                    (path / name).mkdir()
                    created.insert(0, path / name)
            writer = cls(path, config, _new_manifest(config), lock)
            writer._save()
        except BaseException:
            lock.release()
            _remove_empty(created)
            raise
        return writer

    @classmethod
    def _replace(cls, path: Path, config: RunConfig, lock: RunLock) -> RunWriter:
        """Overwrite: a new manifest (no chunk done) first, then the old parts go; an interruption in between
        leaves a new, incomplete run whose stray parts a resume rewrites."""
        _refuse_overwrite(path)  # again, now that no other writer can change the folder
        writer = cls(path, config, _new_manifest(config), lock)
        writer._save()
        for name in TABLES:
            (path / name).mkdir(exist_ok=True)
            for entry in sorted((path / name).iterdir()):
                entry.unlink()
        for entry in path.iterdir():
            if is_temporary(entry.name):
                entry.unlink()
        return writer

    @classmethod
    def _reopen(cls, path: Path, config: RunConfig, lock: RunLock) -> RunWriter:
        manifest = read_manifest(path)
        where = short_path(path)
        if not is_signed(manifest):
            raise OutputError(
                f"cannot resume {where}: it was written by a scopasim older than the run signature, so nothing "
                "proves this engine would continue the same games; start a new run"
            )
        if manifest["complete"]:
            raise OutputError(f"run {where} is already complete; nothing to resume")
        for key, now in (("rules_version", config.spec.rules_version), ("rng_scheme", RNG_SCHEME)):
            if manifest.get(key) != now:
                raise OutputError(
                    f"cannot resume {where}: it was written with {key} {str(manifest.get(key))[:40]!r}, this "
                    f"scopasim plays {now!r} (its games would differ); start a new run"
                )
        if manifest["config"] != config.to_dict():
            diff = describe_diff(manifest["config"], config.to_dict())
            raise OutputError(f"cannot resume {where}: it was started with different settings ({diff[:200]})")
        _check_policy_params(manifest, config, where)
        writer = cls(path, config, manifest, lock)
        # a chunk counts as done only when both of its part files are there, readable, of this run and of its slot
        for index in manifest["chunks_done"]:
            writer.damage.update(writer._check_chunk(index))
        if writer.damage:
            redo = {part_index(part.name) for part in writer.damage}
            writer._save({**manifest, "chunks_done": [i for i in manifest["chunks_done"] if i not in redo]})
        for name in TABLES:
            (path / name).mkdir(exist_ok=True)  # a table folder deleted by hand: its chunks were found damaged
        writer._sweep_temporaries()
        return writer

    def _sweep_temporaries(self) -> None:
        """Delete the temporaries of writers that died mid-write (a killed process or Dask worker): only the lock
        holder calls this, when no writer of its own is running, so every temporary left is an orphan."""
        for folder in (self.path, *(self.path / name for name in TABLES)):
            for entry in folder.iterdir():
                if is_temporary(entry.name):
                    _unlink_quietly(entry)

    def _check_chunk(self, index: int) -> dict[Path, str]:
        """The part files of a chunk that are missing, unreadable, of another run or slot, with the reason."""
        damage = {}
        for table in TABLES:
            part = self.path / table / part_name(index)
            try:
                check_part(part, table, index, self.manifest)
            except PartError as exc:
                damage[part] = exc.reason
        return damage

    @property
    def chunks_todo(self) -> Iterator[int]:
        """The chunks not done yet, in order: generated one by one, never a list of all of them."""
        done = set(self.manifest["chunks_done"])
        return (i for i in range(self.config.n_chunks) if i not in done)

    @property
    def chunks_left(self) -> int:
        return self.config.n_chunks - len(self.manifest["chunks_done"])

    @property
    def games_done(self) -> int:
        return sum(len(self.config.chunk_range(i)) for i in self.manifest["chunks_done"])

    def write_chunk(self, index: int, games: pa.Table, deals: pa.Table) -> None:
        """Write both part files of a chunk, then record the chunk as done in the manifest."""
        self.write_parts(self.path, self.config, index, games, deals)
        self.record_chunk(index)

    @staticmethod
    def write_parts(path: Path, config: RunConfig, index: int, games: pa.Table, deals: pa.Table) -> None:
        """Write a chunk's two part files under temporary names, then rename both (a Dask worker calls this).

        Readers go by the manifest, so a crash between the two renames leaves a part that no chunk claims; a
        resume rewrites it. Final names are deterministic, so a retried chunk rewrites the same files; temporary
        names carry the writer's pid, so two processes never write the same temporary file.
        """
        finals = [(path / name / part_name(index), table) for name, table in (("games", games), ("deals", deals))]
        temps = [temporary_name(final) for final, _ in finals]
        current = finals[0][0]
        try:
            for (final, table), tmp in zip(finals, temps, strict=True):
                current = final
                meta = dict(table.schema.metadata or {})
                meta[METADATA_KEY] = metadata_blob(config, final.parent.name, index)
                write_parquet(table.replace_schema_metadata(meta), tmp)
                _fsync(tmp)
            for (final, _), tmp in zip(finals, temps, strict=True):
                current = final
                os.replace(tmp, final)
        except OSError as exc:
            raise OutputError(f"cannot write part file {short_path(current)}: {_why(exc)}") from None
        finally:  # a failure or an interruption (Ctrl-C, SIGTERM) leaves no half-written temporary file behind
            for tmp in temps:
                _unlink_quietly(tmp)

    def record_chunk(self, index: int) -> None:
        """Record a chunk whose part files are written as done (only the process that owns the run does this)."""
        self._save({**self.manifest, "chunks_done": sorted({*self.manifest["chunks_done"], index})})

    def finish(self, stats: dict[str, Any]) -> None:
        """Mark the run complete, with its timings, after sweeping away what killed workers left half-written."""
        self._sweep_temporaries()
        finished = datetime.now(UTC).isoformat(timespec="seconds")
        self._save({**self.manifest, **stats, "complete": True, "finished": finished})

    def close(self) -> None:
        """Release the run's lock (idempotent)."""
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _save(self, manifest: dict[str, Any] | None = None) -> None:
        """Write ``manifest`` (default: the current one) atomically; only then is it the writer's manifest."""
        manifest = self.manifest if manifest is None else manifest
        _atomic_write_text(self.path / MANIFEST, json.dumps(manifest, indent=2))
        self.manifest = manifest


def _new_manifest(config: RunConfig) -> dict[str, Any]:
    return {
        "format": RUN_FORMAT,
        "schema_version": SCHEMA_VERSION,
        "rules_version": config.spec.rules_version,
        "rng_scheme": RNG_SCHEME,
        "config": config.to_dict(),
        "policy_params": policy_params(config),
        "n_chunks": config.n_chunks,
        "chunks_done": [],
        "complete": False,
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "versions": versions(),
    }


def policy_params(config: RunConfig) -> list[dict[str, float]]:
    """Every parameter each seat's policy reads, defaults filled in. The config holds the policies' labels, which
    name only the values given; a game's defaults (mc's in Foracio, say) may change between versions, so a resume
    compares these too."""
    return [dict(choice.params) for choice in config.policy_choices()]


#: Policies whose per-game defaults have changed since runs first recorded labels only (mc, search).
_DEFAULTS_CHANGED = ("mc", "search")


def _check_policy_params(manifest: dict[str, Any], config: RunConfig, where: str) -> None:
    """Refuse to resume a run whose seats would now play with other parameters than it was started with."""
    now = policy_params(config)
    then = manifest.get("policy_params")
    if then is None:
        names = {choice.spec.name for choice in config.policy_choices()}
        if names & set(_DEFAULTS_CHANGED):
            raise OutputError(
                f"cannot resume {where}: it was started by a scopasim that did not record its policies' parameters, "
                f"and the defaults of {', '.join(sorted(names & set(_DEFAULTS_CHANGED)))} have changed since; "
                "start a new run"
            )
        return
    for seat, (old, new) in enumerate(zip(then, now, strict=False)):
        if old != new:
            diff = describe_diff(old, new)
            raise OutputError(
                f"cannot resume {where}: seat {seat}'s policy now plays with other parameters ({diff[:200]}); its "
                "games would differ; start a new run"
            )


def describe_diff(old: dict[str, Any], new: dict[str, Any]) -> str:
    keys = [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
    return ", ".join(f"{k}: {_brief(k, old.get(k))!r} then, {_brief(k, new.get(k))!r} now" for k in keys)


def _brief(key: str, value: Any) -> Any:
    """A config value as a message shows it: user policy files by their hashes, not their whole text."""
    if key == "sources" and isinstance(value, dict):
        return {path: f"sha256 {entry.get('sha256', '?')[:12]}" for path, entry in value.items()}
    return value
