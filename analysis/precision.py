"""Stopping a run once the first player's win rate is known precisely enough (``simulate --precision``).

:class:`PrecisionStop` is the ``stop`` callable of ``simcore.api.run_chunks``: after each chunk it reads the
``first_player`` and ``winner`` columns of the part files written since its last call (so a resumed run counts
the chunks it already had), and asks to stop once the half-width of the Wilson interval of the first player's
side's win rate is at most the target. It reads the files, not the kernels' arrays, so what it counts is what the
run folder holds. It only needs the writer's ``path``, ``manifest`` (``chunks_done``) and ``config.players``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq

from analysis.load import seat_sides
from analysis.stats import win_rate
from simcore.layout import part_name

#: What ``PrecisionStop`` returns to stop a run; ``run_chunks`` records it as the manifest's ``stopped``.
REASON = "precision"


def wilson_half_width(wins: int, n: int, level: float = 0.95) -> float:
    """Half the width of the Wilson interval of ``wins / n`` (NaN with no games)."""
    r = win_rate(wins, n, level)
    return (r["ci_high"] - r["ci_low"]) / 2


class PrecisionStop:
    """Stop once the first player's win rate has a Wilson half-width of at most ``precision`` at ``level``."""

    def __init__(self, precision: float, level: float = 0.95):
        if isinstance(precision, bool) or not isinstance(precision, int | float) or not 0 < precision < 0.5:
            raise ValueError(f"precision must be a number between 0 and 0.5 (exclusive), got {precision!r}")
        self.precision = float(precision)
        self.level = level
        self.wins = 0
        self.games = 0
        self._counted: set[int] = set()

    @property
    def half_width(self) -> float:
        """The current half-width (NaN before any game is counted)."""
        return wilson_half_width(self.wins, self.games, self.level) if self.games else math.nan

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else math.nan

    @property
    def reached(self) -> bool:
        return self.games > 0 and self.half_width <= self.precision

    def update(self, writer: Any) -> None:
        """Count the chunks the writer's manifest lists as done that were not counted yet."""
        side_of = seat_sides(int(writer.config.players))
        for index in sorted(set(writer.manifest["chunks_done"]) - self._counted):
            table = pq.read_table(Path(writer.path) / "games" / part_name(index), columns=["first_player", "winner"])
            first = table.column("first_player").to_numpy()
            winner = table.column("winner").to_numpy()
            self.wins += int(np.count_nonzero(winner == side_of[first]))
            self.games += len(first)
            self._counted.add(index)

    def __call__(self, writer: Any) -> str | None:
        self.update(writer)
        return REASON if self.reached else None
