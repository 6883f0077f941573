"""Run folders: Parquet part files per chunk, a manifest, and the metadata readers check.

Layout of ``results/<run>/``::

    manifest.json             config, chunks done, complete flag, timings, versions
    games/part-00000.parquet  one row per game
    deals/part-00000.parquet  one row per deal and side

A part file is written under a hidden temporary name (``.part-*.tmp``, which Parquet readers skip) and renamed
when complete; the manifest is rewritten atomically after each chunk. So a folder never holds a half-written
part, an interrupted run resumes from the chunks it finished, and ``complete: true`` is the only sign that a run
is whole. Every part carries the ``scopasim`` schema-metadata blob (schema version, variant, rules, policies,
seed, versions).
"""

from __future__ import annotations

import json
import os
import platform
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from simcore.config import RunConfig
from simcore.errors import OutputError
from simcore.kernels.game import ChunkOut
from simcore.layout import MANIFEST, METADATA_KEY, SCHEMA_VERSION, TABLES, part_name, read_manifest
from simcore.rng import RNG_SCHEME


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


def metadata_blob(config: RunConfig, table: str) -> bytes:
    """The namespaced JSON blob stored in every part file's schema metadata."""
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
            "categories": list(config.spec.categories),
            "seed": config.seed,
            "games": config.games,
            "rng_scheme": RNG_SCHEME,
            "versions": versions(),
        }
    ).encode()


def _dictionary(values: list[str], n: int) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int8)), pa.array(values))


def games_table(config: RunConfig, games: np.ndarray, out: ChunkOut) -> pa.Table:
    """One row per game."""
    n = len(games)
    cols: dict[str, pa.Array] = {
        "game": pa.array(games.astype(np.int64)),
        "seed": pa.array(np.full(n, config.seed, np.int64)),
        "first_dealer": pa.array(out.first_dealer),
        "first_player": pa.array(((out.first_dealer.astype(np.int16) + 1) % config.players).astype(np.int8)),
    }
    for seat, label in enumerate(config.policies):
        cols[f"policy_{seat}"] = _dictionary([label], n)
    cols["winner"] = pa.array(out.winner)
    for side in range(out.totals.shape[1]):
        cols[f"total_{side}"] = pa.array(out.totals[:, side])
    cols["deals"] = pa.array(out.n_deals)
    cols["plays"] = pa.array(out.n_plays)
    cols["redeals"] = pa.array(out.redeals)
    cols["mid_deal"] = pa.array(out.mid_deal.astype(bool))
    return pa.table(cols)


def deals_table(config: RunConfig, games: np.ndarray, out: ChunkOut) -> pa.Table:
    """One row per deal and side, in (game, deal, side) order."""
    _, n_slots, n_sides = out.deal_cards.shape
    valid = np.arange(n_slots)[None, :] < out.n_deals[:, None]  # [G, D]
    g_idx, d_idx = np.nonzero(valid)
    rows = len(g_idx)
    g_rep = np.repeat(g_idx, n_sides)
    d_rep = np.repeat(d_idx, n_sides)
    side = np.tile(np.arange(n_sides, dtype=np.int8), rows)
    dealer = out.deal_dealer[g_rep, d_rep]
    leader = ((dealer.astype(np.int16) + 1) % config.players).astype(np.int8)
    seat_side = np.empty(config.players, np.int8)
    for s_idx, seats in enumerate(config.spec.sides(config.players)):
        seat_side[seats] = s_idx
    points = out.deal_points[g_rep, d_rep, side]  # [rows * sides, categories]
    cols: dict[str, pa.Array] = {
        "game": pa.array(games.astype(np.int64)[g_rep]),
        "deal": pa.array(d_rep.astype(np.int16)),
        "side": pa.array(side),
        "dealer": pa.array(dealer),
        "leader": pa.array(leader),
        "dealt": pa.array(seat_side[dealer] == side),
        "led": pa.array(seat_side[leader] == side),
    }
    for k, cat in enumerate(config.spec.categories):
        cols[cat] = pa.array(points[:, k])
    cols["points"] = pa.array(points.sum(axis=1, dtype=np.int16))
    cols["sweeps"] = pa.array(out.deal_sweeps[g_rep, d_rep, side])
    cols["cards_taken"] = pa.array(out.deal_cards[g_rep, d_rep, side])
    cols["total"] = pa.array(out.deal_totals[g_rep, d_rep, side])
    return pa.table(cols)


def _atomic_write_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


class RunWriter:
    """Writes one run folder chunk by chunk; see the module docstring for the guarantees."""

    def __init__(self, path: Path, config: RunConfig, manifest: dict[str, Any]):
        self.path = path
        self.config = config
        self.manifest = manifest
        self.damaged: list[Path] = []  # part files found unusable when resuming (their chunks are redone)

    @classmethod
    def open(cls, path: Path, config: RunConfig, *, overwrite: bool = False, resume: bool = False) -> RunWriter:
        """Start a new run folder, or reopen an interrupted one with ``resume``.

        An existing result is never replaced unless ``overwrite``; ``overwrite`` only ever deletes a folder that
        holds a scopasim run (or nothing), never other files.
        """
        path = Path(path)
        manifest_path = path / MANIFEST
        if path.exists() and not path.is_dir():
            raise OutputError(f"output {path} exists and is not a folder")
        existing = path.exists() and any(path.iterdir())
        if existing and resume:
            return cls._reopen(path, config)
        if existing and not overwrite:
            hint = "use --resume to finish it" if manifest_path.exists() else "choose another --out"
            raise OutputError(f"output {path} already exists and is not empty ({hint}, or --overwrite to replace it)")
        if existing:
            if not manifest_path.exists():
                raise OutputError(f"refusing to overwrite {path}: it is not a scopasim run folder (no {MANIFEST})")
            for name in (*TABLES, MANIFEST):
                target = path / name
                if target.is_dir():
                    shutil.rmtree(target)
                elif target.exists():
                    target.unlink()
        try:
            for name in TABLES:
                (path / name).mkdir(parents=True, exist_ok=True)
            manifest = {
                "schema_version": SCHEMA_VERSION,
                "config": config.to_dict(),
                "n_chunks": config.n_chunks,
                "chunks_done": [],
                "complete": False,
                "started": datetime.now(UTC).isoformat(timespec="seconds"),
                "versions": versions(),
            }
            writer = cls(path, config, manifest)
            writer._save()
        except OSError as exc:
            raise OutputError(f"cannot write to {path}: {exc.strerror or exc}") from None
        return writer

    @classmethod
    def _reopen(cls, path: Path, config: RunConfig) -> RunWriter:
        manifest = read_manifest(path)
        if manifest.get("complete"):
            raise OutputError(f"run {path} is already complete; nothing to resume")
        if manifest["config"] != config.to_dict():
            diff = describe_diff(manifest["config"], config.to_dict())
            raise OutputError(f"cannot resume {path}: it was started with different settings ({diff})")
        writer = cls(path, config, manifest)
        # a chunk counts as done only when both of its part files are there, readable and of this run
        for index in manifest["chunks_done"]:
            writer.damaged += writer._damaged_parts(index)
        done = [i for i in manifest["chunks_done"] if not writer._damaged_parts(i)]
        manifest["chunks_done"] = done
        writer._save()
        return writer

    def _damaged_parts(self, index: int) -> list[Path]:
        """The part files of a chunk that are missing, unreadable, of another run, or short of games."""
        expected = json.loads(metadata_blob(self.config, "games"))
        damaged = []
        for table in TABLES:
            part = self.path / table / part_name(index)
            try:
                meta = pq.read_metadata(part)
                blob = json.loads(meta.metadata[METADATA_KEY])
            except (OSError, KeyError, TypeError, ValueError, pa.ArrowInvalid):
                damaged.append(part)
                continue
            if any(blob.get(k) != expected[k] for k in ("variant", "rules", "policies", "seed", "games")) or (
                table == "games" and meta.num_rows != len(self.config.chunk_range(index))
            ):
                damaged.append(part)
        return damaged

    @property
    def chunks_todo(self) -> list[int]:
        done = set(self.manifest["chunks_done"])
        return [i for i in range(self.config.n_chunks) if i not in done]

    def write_chunk(self, index: int, games: pa.Table, deals: pa.Table) -> None:
        """Write both part files of a chunk, then record the chunk as done in the manifest."""
        self.write_parts(self.path, self.config, index, games, deals)
        self.record_chunk(index)

    @staticmethod
    def write_parts(path: Path, config: RunConfig, index: int, games: pa.Table, deals: pa.Table) -> None:
        """Write a chunk's two part files under temporary names, then rename both (a Dask worker calls this).

        Readers go by the manifest, so a crash between the two renames leaves a part that no chunk claims; a
        resume rewrites it. Names are deterministic, so a retried chunk rewrites the same files.
        """
        finals = [(path / name / part_name(index), table) for name, table in (("games", games), ("deals", deals))]
        temps = [final.with_name(f".{final.name}.tmp") for final, _ in finals]
        try:
            for (final, table), tmp in zip(finals, temps, strict=True):
                meta = dict(table.schema.metadata or {})
                meta[METADATA_KEY] = metadata_blob(config, final.parent.name)
                pq.write_table(table.replace_schema_metadata(meta), tmp, compression="zstd", row_group_size=1 << 17)
            for (final, _), tmp in zip(finals, temps, strict=True):
                os.replace(tmp, final)
        finally:  # an interruption (Ctrl-C, SIGTERM) leaves no half-written temporary file behind
            for tmp in temps:
                tmp.unlink(missing_ok=True)

    def record_chunk(self, index: int) -> None:
        """Record a chunk whose part files are written as done (only the process that owns the run does this)."""
        self.manifest["chunks_done"] = sorted({*self.manifest["chunks_done"], index})
        self._save()

    def finish(self, stats: dict[str, Any]) -> None:
        """Mark the run complete, with its timings."""
        self.manifest.update(stats)
        self.manifest["complete"] = True
        self.manifest["finished"] = datetime.now(UTC).isoformat(timespec="seconds")
        self._save()

    def _save(self) -> None:
        _atomic_write_text(self.path / MANIFEST, json.dumps(self.manifest, indent=2))


def describe_diff(old: dict[str, Any], new: dict[str, Any]) -> str:
    keys = [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
    return ", ".join(f"{k}: {old.get(k)!r} then, {new.get(k)!r} now" for k in keys)
