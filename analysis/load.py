"""Load a run folder written by ``simcore.results`` into pandas, refusing anything that is not a whole, readable run.

Analyses are only as good as the rows they see, so every check happens before a row is used: the manifest must pass
``simcore.layout.read_manifest`` (well-formed, and when complete: every chunk, or 0..k-1 of a run stopped early,
and the ``games_written`` they hold) and say the run is complete (unless ``allow_partial``); every part file it
lists must be there and readable, and pass ``simcore.layout.check_part``: a ``scopasim`` metadata blob of this
schema version and this run, recording the chunk of the slot it sits in, and a ``game`` column holding that
chunk's games (so a part copied into another slot is named). Every failure is an
:class:`~simcore.errors.OutputError` naming the folder or file.

The folder layout comes from ``simcore.layout``, which (unlike the writer) imports neither Numba nor the kernels,
so analysis stays importable in a fraction of a second.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from simcore.errors import OutputError
from simcore.layout import TABLES, check_part, part_index, part_name, read_manifest


def seat_sides(players: int) -> np.ndarray:
    """Side of each seat: with 4 players seats 0 and 2 are side 0, 1 and 3 side 1; otherwise side = seat."""
    if isinstance(players, bool) or not isinstance(players, int | np.integer) or players < 2:
        raise ValueError(f"players must be an integer of at least 2, got {players!r}")
    seats = np.arange(players, dtype=np.int8)
    return seats % 2 if players == 4 else seats


def _side_seats(players: int) -> list[list[int]]:
    """Seats of each side, in the form of the blob's ``sides`` (and ``VariantSpec.sides``)."""
    side = seat_sides(players)
    return [np.flatnonzero(side == s).tolist() for s in range(int(side.max()) + 1)]


@dataclass
class Run:
    """One loaded run: its manifest, the ``scopasim`` metadata blob of its parts, and both tables."""

    path: Path
    manifest: dict[str, Any]
    meta: dict[str, Any]
    games: pd.DataFrame
    deals: pd.DataFrame

    @property
    def variant(self) -> str:
        return str(self.meta["variant"])

    @property
    def players(self) -> int:
        return int(self.meta["players"])

    @property
    def n_sides(self) -> int:
        return len(self.meta["sides"])

    @property
    def categories(self) -> list[str]:
        return list(self.meta["categories"])

    @property
    def policies(self) -> list[str]:
        return list(self.meta["policies"])

    @property
    def seat_side(self) -> np.ndarray:
        """``seat_side[seat]`` is the side index of ``seat``."""
        return seat_sides(self.players)

    @property
    def rules(self) -> dict[str, Any]:
        """The resolved rule set the run was played with."""
        return dict(self.meta["rules"])

    @property
    def seed(self) -> int:
        return int(self.meta["seed"])

    @property
    def stopped(self) -> str | None:
        """Why the run ended before the games it asked for (``"precision"``), or None if it played them all."""
        return self.manifest.get("stopped")

    @property
    def label(self) -> str:
        """A short name for tables: the run folder's name."""
        return self.path.name

    def describe(self) -> dict[str, Any]:
        """The run's metadata in one flat dict: folder, variant, players, policies, seed, games, rules, stop."""
        return {
            "run": str(self.path),
            "variant": self.variant,
            "players": self.players,
            "policies": self.policies,
            "seed": self.seed,
            "games": len(self.games),
            "games_requested": self.manifest.get("config", {}).get("games", self.meta.get("games")),
            "stopped": self.stopped,
            "rules": self.rules,
        }


def load_run(
    path: str | Path,
    *,
    allow_partial: bool = False,
    columns: Mapping[str, Sequence[str]] | None = None,
) -> Run:
    """Read a run folder into a :class:`Run`.

    Parameters
    ----------
    path
        The run folder (the ``--out`` of ``scopasim simulate``).
    allow_partial
        Read the chunks an interrupted run finished instead of refusing it.
    columns
        Optional ``{"games": [...], "deals": [...]}``: read only these columns of a table (the others in full),
        to save memory on large runs. The summary functions need the full tables.

    A run that ``simulate --precision`` stopped early is complete: its manifest lists the chunks it played,
    ``games_written`` and ``stopped``, and only those chunks are read (games 0..n-1 of the requested ones).

    Raises
    ------
    OutputError
        No manifest, a schema version this reader does not know, an incomplete run, a part file that is
        missing, unreadable or from another run (the message names it), or a complete run whose part files do
        not hold the ``games_written`` its manifest records.
    ValueError
        ``columns`` names a table or a column that does not exist.
    """
    path = Path(path)
    manifest = read_manifest(path)
    done = sorted(int(i) for i in manifest.get("chunks_done", []))
    n_chunks = manifest.get("n_chunks", "?")
    if not manifest.get("complete") and not allow_partial:
        raise OutputError(
            f"run {path} is incomplete: {len(done)} of {n_chunks} chunks done "
            "(finish it with --resume, or load it with allow_partial=True)"
        )
    if not done:
        raise OutputError(f"run {path} has no finished chunks to read")
    columns = dict(columns or {})
    unknown = set(columns) - set(TABLES)
    if unknown:
        raise ValueError(f"columns: unknown table(s) {sorted(unknown)}; the tables are {list(TABLES)}")
    frames: dict[str, pd.DataFrame] = {}
    meta: dict[str, Any] = {}
    for table in TABLES:
        parts = [path / table / part_name(i) for i in done]
        frames[table], blob = _read_table(parts, table, manifest, columns.get(table))
        if table == "games":
            meta = blob
    written = manifest.get("games_written")  # runs finished by this version record it (early stops included)
    if manifest.get("complete") and written is not None and written != len(frames["games"]):
        raise OutputError(
            f"run {path}: its manifest records {written} games written, its part files hold {len(frames['games'])}"
        )
    return Run(path=path, manifest=manifest, meta=meta, games=frames["games"], deals=frames["deals"])


def load_runs(paths: Sequence[str | Path], **kwargs: Any) -> list[Run]:
    """:func:`load_run` for each folder, in order (the same keyword arguments for all)."""
    if not paths:
        raise ValueError("no run folders given")
    return [load_run(p, **kwargs) for p in paths]


def _read_table(
    parts: list[Path], table: str, manifest: dict[str, Any], columns: Sequence[str] | None
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Concatenate one table's part files, checking each; returns the frame and the first part's blob."""
    pieces: list[pa.Table] = []
    first_blob: dict[str, Any] = {}
    for part in parts:
        if not part.is_file():
            raise OutputError(f"part file {part} is missing (the manifest lists its chunk as done)")
        try:
            with pq.ParquetFile(part) as handle:
                schema = handle.schema_arrow
                blob = _check_blob(part, handle.metadata, table, manifest)
                _check_columns(schema.names, columns, table)
                data = handle.read(columns=list(columns) if columns is not None else None)
        except (OSError, pa.ArrowException) as exc:
            raise OutputError(f"cannot read part file {part}: {exc}") from None
        # Parts of a resumed run may differ in their blobs' versions; drop metadata so the schemas concatenate.
        pieces.append(data.replace_schema_metadata(None))
        first_blob = first_blob or blob
    try:
        combined = pa.concat_tables(pieces)
    except pa.ArrowException as exc:
        raise OutputError(f"the {table} part files of {parts[0].parent} do not share one schema: {exc}") from None
    return combined.to_pandas(), first_blob


def _check_columns(names: list[str], columns: Sequence[str] | None, table: str) -> None:
    missing = [c for c in columns or () if c not in names]
    if missing:
        raise ValueError(f"columns: {table} has no column(s) {missing}; it has {names}")


def _check_blob(part: Path, file_meta: pq.FileMetaData, table: str, manifest: dict[str, Any]) -> dict:
    """The part's ``scopasim`` blob, after checking it against the manifest and the slot it sits in (schema
    version, table, run, chunk record and games: ``simcore.layout.check_part``) and its sides against its seats."""
    blob = check_part(part, table, part_index(part.name), manifest, file_meta)
    players = blob.get("players")
    if not isinstance(players, int) or players < 2 or blob.get("sides") != _side_seats(players):
        raise OutputError(
            f"part file {part} has sides {blob.get('sides')!r} for {players!r} players, which this reader cannot map"
        )
    return blob
