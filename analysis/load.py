"""Open a run folder written by ``simcore.results`` for pandas, refusing anything that is not a whole, readable run.

Analyses are only as good as the rows they see, so every check happens before a row is used: the manifest must pass
``simcore.layout.read_manifest`` (well-formed, and when complete: every chunk, or 0..k-1 of a run stopped early,
and the ``games_written`` they hold) and say the run is complete (unless ``allow_partial``); every part file it
lists must be there and readable, and pass ``simcore.layout.check_part``: a ``scopasim`` metadata blob of this
schema version and this run, recording the chunk of the slot it sits in, and a ``game`` column holding that
chunk's games (so a part copied into another slot is named). Every failure is an
:class:`~simcore.errors.OutputError` naming the folder or file.

Tables are read lazily and part by part (:meth:`Run.arrays`), so that memory stays bounded by one part however
many games a run holds; each part is checked from its footer before anything is analysed, and again whenever its
rows are read.

The folder layout comes from ``simcore.layout``, which (unlike the writer) imports neither Numba nor the kernels,
so analysis stays importable in a fraction of a second.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from simcore.errors import OutputError
from simcore.layout import TABLES, check_part, part_index, part_name, read_manifest

if TYPE_CHECKING:  # pandas is imported where a frame is made: reading a run part by part does without it
    import pandas as pd


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


class Run:
    """One run: its manifest, the ``scopasim`` metadata blob of its parts, and both tables.

    A run read by :func:`load_run` reads a table only when it is first used (``run.games``, ``run.deals``), and
    :meth:`arrays` reads it part by part without ever holding it whole: that is how the analysis goes through
    the deals table of a large run. A run built from DataFrames (``Run(path, manifest, meta, games, deals)``)
    works the same way, with each table as its single part.
    """

    def __init__(
        self,
        path: str | Path,
        manifest: dict[str, Any],
        meta: dict[str, Any],
        games: pd.DataFrame | None = None,
        deals: pd.DataFrame | None = None,
        *,
        parts: Mapping[str, Sequence[Path]] | None = None,
        columns: Mapping[str, Sequence[str] | None] | None = None,
        rows: Mapping[str, int] | None = None,
    ):
        self.path = Path(path)
        self.manifest = manifest
        self.meta = meta
        self._frames: dict[str, pd.DataFrame | None] = {"games": games, "deals": deals}
        self._parts = {t: list(p) for t, p in (parts or {}).items()}
        self._columns = dict(columns or {})
        self._rows = dict(rows or {})
        self._cache: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"Run({str(self.path)!r}, {self.variant}, {self.n_games} games)"

    @property
    def games(self) -> pd.DataFrame:
        """One row per game (read from the part files on first use)."""
        return self._frame("games")

    @games.setter
    def games(self, frame: pd.DataFrame) -> None:
        self._frames["games"] = frame
        self._cache.clear()

    @property
    def deals(self) -> pd.DataFrame:
        """One row per deal and side (read whole on first use: large; the analysis reads it with :meth:`arrays`)."""
        return self._frame("deals")

    @deals.setter
    def deals(self, frame: pd.DataFrame) -> None:
        self._frames["deals"] = frame
        self._cache.clear()

    def _frame(self, table: str) -> pd.DataFrame:
        frame = self._frames[table]
        if frame is None:
            if table not in self._parts:
                import pandas as pd

                return pd.DataFrame()
            frame = _read_table(self._parts[table], table, self.manifest, self._columns.get(table))
            self._frames[table] = frame
        return frame

    def arrays(self, table: str, columns: Sequence[str]) -> Iterator[dict[str, np.ndarray]]:
        """``columns`` of ``table`` as numpy arrays, one part file at a time (or the whole table, once, when it is
        in memory and holds them)."""
        frame = self._frames[table]
        if (frame is not None and all(c in frame.columns for c in columns)) or table not in self._parts:
            frame = self._frame(table)
            yield {c: frame[c].to_numpy() for c in columns}
            return
        for part in self._parts[table]:
            data = _read_part(part, table, self.manifest, columns)
            yield {c: data.column(c).to_numpy() for c in columns}
            del data

    def cached(self, key: str, compute: Callable[[], Any]) -> Any:
        """``compute()``, once per run (until a table is replaced)."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def tally(self, key: str, table: str, make: Callable[[], Any]) -> Any:
        """A counter ``make()`` fed every part of ``table`` (its ``columns``) through its ``add``, once per run
        (as ``cached``): one part in memory at a time, however large the run."""

        def compute() -> Any:
            counter = make()
            for part in self.arrays(table, counter.columns):
                counter.add(part)
                del part  # let this part go before the next is read
            return counter

        return self.cached(key, compute)

    @property
    def n_games(self) -> int:
        """Games in the run (from the part files' footers when the games table is not read yet)."""
        if self._frames["games"] is None and "games" in self._rows:
            return self._rows["games"]
        return len(self.games)

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
            "games": self.n_games,
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
    """Open a run folder as a :class:`Run`, checking every part file it lists.

    Parameters
    ----------
    path
        The run folder (the ``--out`` of ``scopasim simulate``).
    allow_partial
        Read the chunks an interrupted run finished instead of refusing it.
    columns
        Optional ``{"games": [...], "deals": [...]}``: ``run.games`` / ``run.deals`` hold only these columns of
        a table (the others in full). The analysis functions read what they need part by part either way.

    Only the part files' footers are read here (metadata and row counts); ``run.games`` and ``run.deals`` are
    read on first use, and the analysis reads the deals table one part at a time. A run that ``simulate
    --precision`` stopped early is complete: its manifest lists the chunks it played, ``games_written`` and
    ``stopped``, and only those chunks are read (games 0..n-1 of the requested ones).

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
    if not path.is_dir():
        what = "does not exist" if not path.exists() else "is a file, not a run folder"
        raise OutputError(f"run folder {path} {what}")
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
    parts = {table: [path / table / part_name(i) for i in done] for table in TABLES}
    meta: dict[str, Any] = {}
    rows: dict[str, int] = {}
    for table in TABLES:
        rows[table] = 0
        for part in parts[table]:
            blob, n_rows = _open_part(part, table, manifest, columns.get(table))
            rows[table] += n_rows
            if table == "games" and not meta:
                meta = blob
    written = manifest.get("games_written")  # runs finished by this version record it (early stops included)
    if manifest.get("complete") and written is not None and written != rows["games"]:
        raise OutputError(
            f"run {path}: its manifest records {written} games written, its part files hold {rows['games']}"
        )
    return Run(path, manifest, meta, parts=parts, columns=columns, rows=rows)


def load_runs(paths: Sequence[str | Path], **kwargs: Any) -> list[Run]:
    """:func:`load_run` for each folder, in order (the same keyword arguments for all)."""
    if not paths:
        raise ValueError("no run folders given")
    return [load_run(p, **kwargs) for p in paths]


def _open_part(
    part: Path, table: str, manifest: dict[str, Any], columns: Sequence[str] | None
) -> tuple[dict[str, Any], int]:
    """Check one part file from its footer alone: its blob (against the manifest), columns and row count."""
    if not part.is_file():
        raise OutputError(f"part file {part} is missing (the manifest lists its chunk as done)")
    try:
        with pq.ParquetFile(part) as handle:
            schema = handle.schema_arrow
            blob = _check_blob(part, handle.metadata, table, manifest)
            _check_columns(schema.names, columns, table)
            return blob, handle.metadata.num_rows
    except (OSError, pa.ArrowException) as exc:
        raise OutputError(f"cannot read part file {part}: {exc}") from None


def _read_part(part: Path, table: str, manifest: dict[str, Any], columns: Sequence[str] | None) -> pa.Table:
    """One part file's rows (only ``columns``), after the checks of :func:`_open_part`."""
    if not part.is_file():
        raise OutputError(f"part file {part} is missing (the manifest lists its chunk as done)")
    try:
        with pq.ParquetFile(part) as handle:
            schema = handle.schema_arrow
            _check_blob(part, handle.metadata, table, manifest)
            _check_columns(schema.names, columns, table)
            data = handle.read(columns=list(columns) if columns is not None else None)
    except (OSError, pa.ArrowException) as exc:
        raise OutputError(f"cannot read part file {part}: {exc}") from None
    # Parts of a resumed run may differ in their blobs' versions; drop metadata so the schemas concatenate.
    return data.replace_schema_metadata(None)


def _read_table(parts: list[Path], table: str, manifest: dict[str, Any], columns: Sequence[str] | None) -> pd.DataFrame:
    """One table's part files, concatenated into one frame."""
    pieces = [_read_part(part, table, manifest, columns) for part in parts]
    try:
        combined = pa.concat_tables(pieces)
    except pa.ArrowException as exc:
        raise OutputError(f"the {table} part files of {parts[0].parent} do not share one schema: {exc}") from None
    return combined.to_pandas()


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
