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


# ---------------------------------------------------------------- comparisons: anytime-valid stops


#: What a comparison's outcome per game is: the first player's side won (1) or not (0); side 0 (or 1) won (in a
#: tournament seating, the policy of the even, or odd, seats); or the game's mean points margin per deal of the
#: leading side over the dealing side.
OUTCOMES = ("win", "side0", "side1", "points")


def chunk_outcomes(path: Path, index: int, outcome: str, players: int) -> np.ndarray:
    """One value per game of chunk ``index`` of the run in ``path``, in game order (see :data:`OUTCOMES`)."""
    folder = Path(path)
    if outcome == "win":
        table = pq.read_table(folder / "games" / part_name(index), columns=["game", "first_player", "winner"])
        order = np.argsort(table.column("game").to_numpy(), kind="stable")
        first = table.column("first_player").to_numpy()[order]
        winner = table.column("winner").to_numpy()[order]
        return (winner == seat_sides(players)[first]).astype(np.float64)
    if outcome in ("side0", "side1"):
        table = pq.read_table(folder / "games" / part_name(index), columns=["game", "winner"])
        order = np.argsort(table.column("game").to_numpy(), kind="stable")
        return (table.column("winner").to_numpy()[order] == int(outcome[-1])).astype(np.float64)
    if outcome != "points":
        raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}, got {outcome!r}")
    from analysis.deals import deal_order

    cols = ["game", "deal", "side", "led", "dealt", "points"]
    table = pq.read_table(folder / "deals" / part_name(index), columns=cols)
    part = {c: table.column(c).to_numpy() for c in cols}
    n_sides = int(part["side"].max()) + 1 if len(part["side"]) else 1
    order, n_deals = deal_order(part, n_sides)
    shape = (n_deals, n_sides)
    points = part["points"][order].reshape(shape).astype(np.float64)
    led = part["led"][order].reshape(shape)
    dealt = part["dealt"][order].reshape(shape)
    margin = (points * led).sum(axis=1) - (points * dealt).sum(axis=1)
    game = part["game"][order].reshape(shape)[:, 0]
    games, inverse, counts = np.unique(game, return_inverse=True, return_counts=True)
    return np.bincount(inverse, weights=margin, minlength=len(games)) / counts


class RaceData:
    """The per-game outcomes of the runs of a race (``simcore.rounds``), read from their part files as the rounds
    go: after round r every run still going holds chunks 0..r-1."""

    def __init__(self, paths: list[Path], outcome: str | list[str], players: list[int]):
        self.paths = [Path(p) for p in paths]
        self.outcome = [outcome] * len(paths) if isinstance(outcome, str) else list(outcome)
        self.players = players
        self.chunks: list[list[np.ndarray]] = [[] for _ in paths]

    def read(self, rnd: int, active: list[int]) -> None:
        for i in active:
            while len(self.chunks[i]) < rnd:
                index = len(self.chunks[i])
                self.chunks[i].append(chunk_outcomes(self.paths[i], index, self.outcome[i], self.players[i]))

    def values(self, i: int) -> np.ndarray:
        return np.concatenate(self.chunks[i]) if self.chunks[i] else np.zeros(0)


class ComparisonStop:
    """``decide`` of ``balance --precision``: each rule set's paired difference from the baseline (run 0), game by
    game, has a confidence sequence (:mod:`analysis.sequential`); a rule set stops once its half-width is at most
    ``precision`` or, with ``on_difference``, once it excludes 0. The baseline plays on while any comparison does
    (alone, it stops on its own mean's half-width). Each comparison's sequence is at ``1 - alpha``: the chance that
    a given comparison ever misleads is at most alpha, however often it is looked at."""

    def __init__(self, data: RaceData, lo: float, hi: float, precision: float, alpha: float, on_difference: bool):
        from analysis.sequential import MeanSequence

        self.data = data
        self.lo, self.hi = lo, hi
        self.precision = precision
        self.on_difference = on_difference
        n = len(data.paths)
        span = hi - lo
        self.sequences = [MeanSequence(lo, hi, alpha)] + [MeanSequence(-span, span, alpha) for _ in range(n - 1)]

    def __call__(self, rnd: int, active: list[int]) -> dict[int, str]:
        self.data.read(rnd, active)
        base = self.data.chunks[0][rnd - 1] if 0 in active else None
        ends: dict[int, str] = {}
        for i in active:
            if i == 0:
                continue
            new = self.data.chunks[i][rnd - 1]
            if base is None or len(new) != len(base):
                raise ValueError(f"{self.data.paths[i]}: chunk {rnd - 1} does not hold the baseline's games")
            cs = self.sequences[i]
            cs.update(new - base)
            if cs.half_width <= self.precision:
                ends[i] = "precision"
            elif self.on_difference and cs.excludes(0.0):
                ends[i] = "difference"
        if 0 in active:
            self.sequences[0].update(base)
            others = [i for i in active if i != 0 and i not in ends]
            if len(self.data.paths) == 1 and self.sequences[0].half_width <= self.precision:
                ends[0] = "precision"
            elif len(self.data.paths) > 1 and not others:
                ends[0] = "comparisons done"
        return ends


class PairingStop:
    """``decide`` of ``tournament --precision``: runs 2k and 2k+1 are the two seatings of pairing k (A in the even
    seats, then in the odd ones; ``data`` reads A's wins: ``side0`` of the first, ``side1`` of the second). The
    unit is the duplicate pair, whose outcome is A's share of its two games (0, 1/2 or 1). A pairing stops, both
    seatings at once, once the confidence sequence of that share has a half-width of at most ``precision`` or,
    with ``on_difference``, once it excludes 1/2."""

    def __init__(self, data: RaceData, precision: float, alpha: float, on_difference: bool):
        from analysis.sequential import MeanSequence

        self.data = data
        self.precision = precision
        self.on_difference = on_difference
        self.sequences = [MeanSequence(0.0, 1.0, alpha) for _ in range(len(data.paths) // 2)]

    def __call__(self, rnd: int, active: list[int]) -> dict[int, str]:
        self.data.read(rnd, active)
        ends: dict[int, str] = {}
        for k, cs in enumerate(self.sequences):
            ab, ba = 2 * k, 2 * k + 1
            if ab not in active or ba not in active:
                continue
            first, second = self.data.chunks[ab][rnd - 1], self.data.chunks[ba][rnd - 1]
            cs.update((first + second) / 2)
            reason = None
            if cs.half_width <= self.precision:
                reason = "precision"
            elif self.on_difference and cs.excludes(0.5):
                reason = "difference"
            if reason:
                ends[ab] = ends[ba] = reason
        return ends
