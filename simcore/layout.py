"""Layout of a run folder, and the checks that the writer (``simcore.results``) and every reader share.

Kept free of Numba and of module-level pyarrow imports so that readers load in a fraction of a second.

What is checked, never believed:

- :func:`read_manifest` is the one manifest validator (analysis, ``--resume``, ``--run``, balance, tournament). A
  manifest must be a JSON object of a schema this version reads, with a ``config`` object (positive integer
  ``games`` and ``chunk_size``), ``n_chunks`` equal to the chunks those make, ``chunks_done`` a list of distinct
  integer chunk indices in range (booleans are not integers here), and a boolean ``complete``. A complete run
  lists every chunk, or for a run ``stopped`` early exactly chunks 0..k-1, and records the ``games_written``
  those chunks hold. Each failure is one :class:`OutputError` line naming the manifest file.
- :func:`check_part` checks a part file against the slot it sits in: its ``scopasim`` blob must be of this schema,
  this table and this run, must record the chunk and game range of its slot (``chunk``, ``first_game``,
  ``n_games``), and its ``game`` column must hold exactly those games (the games table, row by row) or span them
  (the deals table, from the Parquet statistics). So a part copied into another chunk's slot is named.
- :func:`foreign_entry` says whether a folder holds only what scopasim writes, so ``--overwrite`` can prove a
  folder is a run before it deletes anything.

Run folders written before the run signature (``"format": "scopasim-run"``) was added: analysis reads them with
the same checks, except that they may lack ``games_written`` and their parts lack the chunk record (their slots
are still checked by their ``game`` column). ``--resume`` and ``--overwrite`` refuse them: without the signature
nothing proves the folder is a run scopasim wrote, and without the recorded ``rules_version`` and RNG scheme
nothing proves this engine would continue the same games. Delete such a folder yourself to replace it.
"""

from __future__ import annotations

import itertools
import json
import os
import re
from pathlib import Path
from typing import Any

from simcore.errors import OutputError, shown

SCHEMA_VERSION = 1
RUN_FORMAT = "scopasim-run"  # the manifest's ``format``: the signature of a run folder scopasim wrote
METADATA_KEY = b"scopasim"
MANIFEST = "manifest.json"
LOCK = "writer.lock"
TABLES = ("games", "deals")

_PART = re.compile(r"part-(\d{5,})\.parquet")
# Our own hidden temporaries: a part or the manifest being written, a stale lock being broken (``.<name>.<pid>.*``).
_TEMPORARY = re.compile(r"\.(?:part-\d{5,}\.parquet|manifest\.json|writer\.lock)\.\d+\.(?:tmp|stale)")
_SHOWN = 160  # longest path echoed whole in a message


def part_name(index: int) -> str:
    """File name of chunk ``index``'s part in ``games/`` and ``deals/``."""
    return f"part-{index:05d}.parquet"


def part_index(name: str) -> int | None:
    """The chunk index of a part file's name (the slot it sits in), or None for any other name."""
    match = _PART.fullmatch(name)
    return int(match.group(1)) if match else None


def temporary_name(final: Path) -> Path:
    """The hidden name ``final`` is written under before its rename: unique to this process (its pid)."""
    return final.with_name(f".{final.name}.{os.getpid()}.tmp")


def is_temporary(name: str) -> bool:
    return _TEMPORARY.fullmatch(name) is not None


def short_path(path: object) -> str:
    """``path`` for a message: whole when short, else its start and end around an ellipsis."""
    text = str(path)
    return text if len(text) <= _SHOWN else f"{text[:70]}...{text[-70:]}"


def _cut(value: object) -> str:
    """A manifest value as a message quotes it (its ``repr``, cut to a readable length)."""
    return shown(repr(value), quote=False)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_signed(manifest: dict[str, Any]) -> bool:
    """Whether a manifest carries the run signature (every run written since it was introduced does)."""
    return manifest.get("format") == RUN_FORMAT


def chunk_range(config: dict[str, Any], index: int) -> range:
    """Game indices of chunk ``index`` of a manifest's (checked) config: the twin of ``RunConfig.chunk_range``."""
    start = index * config["chunk_size"]
    return range(start, min(start + config["chunk_size"], config["games"]))


def read_manifest(path: Path) -> dict[str, Any]:
    """The manifest of a run folder, checked field by field (see the module docstring)."""
    manifest_path = Path(path) / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text())
    except FileNotFoundError:
        raise OutputError(f"{short_path(path)} is not a scopasim run folder (no {MANIFEST})") from None
    except OSError as exc:
        raise OutputError(f"cannot read {short_path(manifest_path)}: {exc.strerror or exc}") from None
    except ValueError as exc:  # bad JSON, or bytes that are not UTF-8
        raise OutputError(f"cannot read {short_path(manifest_path)}: {str(exc)[:200]}") from None
    if not isinstance(manifest, dict):
        raise OutputError(f"cannot read {short_path(manifest_path)}: not a JSON object")
    version = manifest.get("schema_version")
    if version != SCHEMA_VERSION:
        raise OutputError(
            f"{short_path(path)} was written with results schema {_cut(version)}; this scopasim reads schema "
            f"{SCHEMA_VERSION}"
        )
    _check_manifest(manifest, short_path(manifest_path))
    return manifest


def _check_manifest(manifest: dict[str, Any], where: str) -> None:
    def bad(message: str) -> OutputError:
        return OutputError(f"{where}: {message}")

    fmt = manifest.get("format")
    if fmt is not None and fmt != RUN_FORMAT:
        raise bad(f"format {_cut(fmt)} is not a scopasim run ({RUN_FORMAT!r})")
    config = manifest.get("config")
    if config is None:
        raise bad("no config (the settings of the run)")
    if not isinstance(config, dict):
        raise bad(f"config is not an object but {_cut(config)}")
    for key in ("games", "chunk_size"):
        if not _is_int(config.get(key)) or config[key] < 1:
            raise bad(f"config.{key} must be a positive integer, got {_cut(config.get(key))}")
    for key, kind in (("variant", str), ("policies", list), ("rules", dict), ("seed", int)):
        if not isinstance(config.get(key), kind) or isinstance(config.get(key), bool):
            raise bad(f"config.{key} must be a {kind.__name__}, got {_cut(config.get(key))}")
    n_chunks = -(-config["games"] // config["chunk_size"])
    if manifest.get("n_chunks") != n_chunks or not _is_int(manifest.get("n_chunks")):
        raise bad(
            f"n_chunks is {_cut(manifest.get('n_chunks'))}, but {config['games']} games in chunks of "
            f"{config['chunk_size']} make {n_chunks}"
        )
    done = manifest.get("chunks_done")
    if not isinstance(done, list):
        raise bad(f"chunks_done must be a list of chunk indices, got {_cut(done)}")
    wrong = [i for i in done if not _is_int(i) or not 0 <= i < n_chunks][:1]
    if wrong:
        raise bad(f"chunks_done holds {_cut(wrong[0])}, which is not a chunk index from 0 to {n_chunks - 1}")
    ordered = sorted(done)
    twice = next((a for a, b in itertools.pairwise(ordered) if a == b), None)
    if twice is not None:
        raise bad(f"chunks_done lists chunk {twice} twice")
    complete = manifest.get("complete")
    if not isinstance(complete, bool):
        raise bad(f"complete must be true or false, got {_cut(complete)}")
    stopped = manifest.get("stopped")
    if stopped is not None and (not isinstance(stopped, str) or not stopped or not complete):
        raise bad(f"stopped is {_cut(stopped)}: only a complete run stopped early names its reason")
    if complete:
        _check_complete(manifest, config, ordered, n_chunks, bad)


def _check_complete(manifest: dict[str, Any], config: dict[str, Any], ordered: list[int], n_chunks: int, bad) -> None:
    """A complete run lists chunks 0..k-1 (k = all, or fewer when stopped early) and the games they hold."""
    k = len(ordered)
    first_gap = next((i for i, c in enumerate(ordered) if c != i), k)
    if manifest.get("stopped"):
        if k == 0 or first_gap < k:
            raise bad(f"complete (stopped early), but chunk {first_gap} is missing: it must list chunks 0 to k-1")
        if k == n_chunks:
            raise bad(f"complete and stopped early, yet all {n_chunks} chunks are done")
    elif k != n_chunks:
        missing = n_chunks - k
        raise bad(f"complete, yet {missing} of {n_chunks} chunks are missing from chunks_done (first: {first_gap})")
    expected = min(k * config["chunk_size"], config["games"])
    written = manifest.get("games_written")
    if written is None and is_signed(manifest):
        raise bad(f"complete, but games_written is missing (its chunks hold {expected} games)")
    if written is not None and (not _is_int(written) or written != expected):
        raise bad(f"it records {_cut(written)} games written (games_written), but its {k} chunks hold {expected}")


class PartError(OutputError):
    """A part file that cannot stand in its slot; ``reason`` says why without the file's name."""

    def __init__(self, message: str, part: Path, reason: str):
        super().__init__(message)
        self.part = part
        self.reason = reason


def _part_error(part: Path, reason: str) -> PartError:
    return PartError(f"part file {short_path(part)} {reason}", part, reason)


# Blob keys that must match the manifest's config: a part file from another run fails these.
RUN_KEYS = ("variant", "rules", "policies", "seed", "games")


def check_part(part: Path, table: str, index: int, manifest: dict[str, Any], file_meta: Any = None) -> dict[str, Any]:
    """Check the part file ``part`` as chunk ``index`` of ``table`` of the run ``manifest`` describes.

    ``file_meta`` is its ``pyarrow.parquet.FileMetaData`` when the caller has it open. Returns the part's
    ``scopasim`` blob; raises :class:`PartError` (missing, unreadable, of another run or another slot).
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not part.is_file():
        raise _part_error(part, "is missing (the manifest lists its chunk as done)")
    try:
        file_meta = file_meta if file_meta is not None else pq.read_metadata(part)
        blob = _check_blob(part, file_meta.metadata, table, manifest)
        expected = chunk_range(manifest["config"], index)
        _check_slot(part, blob, index, expected, is_signed(manifest))
        if table == "games":
            with pq.ParquetFile(part) as handle:  # not pq.read_table, which imports pyarrow.dataset and pandas
                column = column_array(handle.read(columns=["game"]), "game")
            if not np.array_equal(column, np.arange(expected.start, expected.stop)):
                raise _part_error(part, f"does not hold games {_span(expected)} of its slot, chunk {index}, one each")
        else:
            bounds = _game_bounds(part, file_meta)
            if bounds != (expected.start, expected.stop - 1):
                held = "no games" if bounds is None else f"games {bounds[0]}..{bounds[1]}"
                raise _part_error(part, f"holds {held}, but its slot, chunk {index}, is games {_span(expected)}")
    except (OSError, pa.ArrowException) as exc:
        raise PartError(f"cannot read part file {short_path(part)}: {exc}", part, f"unreadable: {exc}") from None
    return blob


def column_array(table: Any, name: str) -> Any:
    """A numeric or boolean column of a pyarrow table, without nulls (every column of a part but the policies), as
    a numpy array.

    ``to_numpy`` gives the same array, but it imports pandas (about 0.2 s, and pyarrow does not need it to read):
    this reads the column's buffers.
    """
    import numpy as np
    import pyarrow as pa

    column = table.column(name)
    pieces = [np.zeros(0, np.dtype(column.type.to_pandas_dtype()))]
    for chunk in column.chunks:
        if not len(chunk):
            continue
        if chunk.null_count or not (pa.types.is_integer(chunk.type) or pa.types.is_boolean(chunk.type)):
            raise TypeError(f"column {name} is not a numeric or boolean column without nulls")
        data = chunk.buffers()[1]
        if pa.types.is_boolean(chunk.type):
            bits = np.unpackbits(np.frombuffer(data, np.uint8), bitorder="little", count=chunk.offset + len(chunk))
            pieces.append(bits[chunk.offset :].astype(bool))
        else:
            dtype = np.dtype(chunk.type.to_pandas_dtype())
            pieces.append(np.frombuffer(data, dtype, count=len(chunk), offset=chunk.offset * dtype.itemsize))
    return pieces[-1] if len(pieces) <= 2 else np.concatenate(pieces)


def _span(games: range) -> str:
    return f"{games.start}..{games.stop - 1}"


def _check_blob(part: Path, metadata: dict[bytes, bytes] | None, table: str, manifest: dict[str, Any]) -> dict:
    key = METADATA_KEY.decode()
    raw = (metadata or {}).get(METADATA_KEY)
    if raw is None:
        raise _part_error(part, f"has no {key!r} schema metadata; it is not a scopasim part")
    try:
        blob = json.loads(raw)
    except ValueError as exc:
        raise _part_error(part, f"has unreadable {key!r} metadata: {exc}") from None
    if not isinstance(blob, dict):
        raise _part_error(part, f"has unreadable {key!r} metadata: not a JSON object")
    version = blob.get("schema_version")
    if version != SCHEMA_VERSION:
        raise _part_error(
            part, f"was written with results schema {_cut(version)}; this scopasim reads schema {SCHEMA_VERSION}"
        )
    if blob.get("table") != table:
        raise _part_error(part, f"holds table {_cut(blob.get('table'))}, expected {table!r}")
    config = manifest["config"]
    differing = [k for k in RUN_KEYS if k in config and blob.get(k) != config[k]]
    if "rules_version" in manifest and blob.get("rules_version") != manifest["rules_version"]:
        differing.append("rules_version")
    if differing:
        raise _part_error(part, f"belongs to another run: its {', '.join(differing)} differ from {MANIFEST}")
    return blob


def _check_slot(part: Path, blob: dict[str, Any], index: int, expected: range, required: bool) -> None:
    """The chunk record of the blob must be the slot's (parts of runs older than the record are let through)."""
    record = (blob.get("chunk"), blob.get("first_game"), blob.get("n_games"))
    if record == (None, None, None) and not required:
        return
    if record != (index, expected.start, len(expected)):
        raise _part_error(
            part,
            f"records chunk {_cut(record[0])} (first game {_cut(record[1])}, {_cut(record[2])} games), "
            f"but it sits in the slot of chunk {index} (games {_span(expected)})",
        )


def _game_bounds(part: Path, file_meta: Any) -> tuple[int, int] | None:
    """Smallest and largest ``game`` of a part: from the Parquet statistics, or from the rows without them."""
    names = file_meta.schema.names
    if "game" not in names or file_meta.num_rows == 0:
        return None
    column = names.index("game")
    lows, highs = [], []
    for rg in range(file_meta.num_row_groups):
        stats = file_meta.row_group(rg).column(column).statistics
        if stats is None or not stats.has_min_max:
            import pyarrow.compute as pc  # only here: it takes longer to import than the check takes
            import pyarrow.parquet as pq

            span = pc.min_max(pq.read_table(part, columns=["game"])["game"])
            return int(span["min"].as_py()), int(span["max"].as_py())
        lows.append(stats.min)
        highs.append(stats.max)
    return int(min(lows)), int(max(highs))


def foreign_entry(path: Path) -> str | None:
    """The first entry of a run folder that scopasim does not write there, described; None if it holds only ours.

    Ours: the manifest and the lock (regular files), ``games/`` and ``deals/`` (real folders, not symbolic links)
    holding only ``part-NNNNN.parquet`` files, and our own hidden temporaries.
    """
    for entry in sorted(os.scandir(path), key=lambda e: e.name):
        if entry.name in TABLES:
            if entry.is_symlink():
                return f"{entry.name} (a symbolic link)"
            if not entry.is_dir(follow_symlinks=False):
                return f"{entry.name} (not a folder)"
            for sub in sorted(os.scandir(entry.path), key=lambda e: e.name):
                ours = part_index(sub.name) is not None or is_temporary(sub.name)
                if not ours or not sub.is_file(follow_symlinks=False):
                    return f"{entry.name}/{sub.name}"
        elif entry.name in (MANIFEST, LOCK) or is_temporary(entry.name):
            if not entry.is_file(follow_symlinks=False):
                return f"{entry.name} (not a regular file)"
        else:
            return entry.name
    return None
