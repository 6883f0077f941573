"""What the analysis needs from the games table, gathered one part file at a time.

Like the deals table (``analysis.deals``), the games table is read part by part with only the columns used, so a
run of any size is analysed in the memory of one part: :func:`outcome_stats` counts games by (first player,
first dealer, winner), which answers every win-rate question; :func:`game_stats` counts the per-game samples of
the game-shape tables and fingerprints the games' outcomes; :func:`cumulative_wins` follows the first player's
wins in game order for the convergence plot.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from analysis.hist import IntHist
from analysis.load import Run


@dataclass
class OutcomeStats:
    """``counts[first_player, first_dealer, winner + 1]``: games by opening seats and winning side (``winner`` -1,
    no winner, is index 0)."""

    counts: np.ndarray

    columns = ("first_player", "first_dealer", "winner")  # what ``add`` reads

    @property
    def games(self) -> int:
        return int(self.counts.sum())

    def add(self, part: dict[str, np.ndarray]) -> None:
        players, _, width = self.counts.shape
        first, dealer, winner = (np.asarray(part[c], dtype=np.int64) for c in self.columns)
        for name, values, low, high in (
            ("first_player", first, 0, players),
            ("first_dealer", dealer, 0, players),
            ("winner", winner, -1, width - 1),
        ):
            if len(values) and (values.min() < low or values.max() >= high):
                raise ValueError(f"the games table holds a {name} outside {low}..{high - 1}")
        flat = (first * players + dealer) * width + winner + 1
        self.counts += np.bincount(flat, minlength=self.counts.size).reshape(self.counts.shape)

    def wins(self, role: str, seats: list[int], side_of: np.ndarray) -> tuple[int, int]:
        """Games whose ``role`` (``first_player`` or ``first_dealer``) sat in ``seats``, and how many of them the
        role's side won."""
        by_seat = self.counts if role == "first_player" else self.counts.transpose(1, 0, 2)
        wins = sum(int(by_seat[s, :, side_of[s] + 1].sum()) for s in seats)
        return wins, int(by_seat[seats].sum())


def outcome_stats(run: Run) -> OutcomeStats:
    """The run's :class:`OutcomeStats`, computed once (part by part) and kept on it."""
    counts = (run.players, run.players, run.n_sides + 1)
    return run.tally("outcome_stats", "games", lambda: OutcomeStats(np.zeros(counts, np.int64)))


@dataclass
class GameStats:
    """Per-game samples, counted: ``deals``, ``plays``, ``redeals``; ``victory`` (winner's total minus the best
    other side's, games with a winner); ``first_margin`` (the first player's side's total minus the best other
    side's); ``mid_deal`` (games decided mid-deal); ``digest`` (of every game's number, winner, totals, deals and
    plays, in game order: equal digests mean identical games)."""

    n_sides: int
    seat_side: np.ndarray
    games: int = 0
    mid_deal: int = 0
    deals: IntHist = field(default_factory=IntHist)
    plays: IntHist = field(default_factory=IntHist)
    redeals: IntHist = field(default_factory=IntHist)
    victory: IntHist = field(default_factory=IntHist)
    first_margin: IntHist = field(default_factory=IntHist)
    _hash: Any = field(default_factory=lambda: hashlib.blake2b(digest_size=16))

    @property
    def totals(self) -> list[str]:
        return [f"total_{k}" for k in range(self.n_sides)]

    @property
    def columns(self) -> list[str]:
        return ["game", "first_player", "winner", *self.totals, "deals", "plays", "redeals", "mid_deal"]

    @property
    def digest(self) -> str:
        return self._hash.hexdigest()

    def add(self, part: dict[str, np.ndarray]) -> None:
        n = len(part["game"])
        self.games += n
        self.mid_deal += int(np.count_nonzero(part["mid_deal"]))
        for name in ("deals", "plays", "redeals"):
            getattr(self, name).add(part[name])
        totals = np.column_stack([np.asarray(part[t], dtype=np.int32) for t in self.totals])
        winner = np.asarray(part["winner"], dtype=np.int64)
        rows = np.arange(n)
        self.first_margin.add(_margin(totals, self.seat_side[np.asarray(part["first_player"], dtype=np.int64)]))
        decided = winner >= 0
        self.victory.add(_margin(totals[decided], winner[decided]))
        outcome = np.column_stack([part["game"], winner, totals, part["deals"], part["plays"]]).astype(np.int64)
        order = np.argsort(outcome[:, 0], kind="stable") if np.any(np.diff(outcome[:, 0]) < 0) else rows
        self._hash.update(np.ascontiguousarray(outcome[order]).tobytes())

    def add_counts(self, mid_deal: int, hists: Mapping[str, tuple[int, np.ndarray]], outcome: np.ndarray) -> None:
        """Count games already summed up: what :meth:`add` counts from their rows, given ``mid_deal`` (games
        decided mid-deal), ``hists`` (each per-game sample's smallest value and counts from it, or no entry when
        it has no values) and ``outcome`` (int64 rows of game, winner, totals, deals and plays, in game order)."""
        self.games += len(outcome)
        self.mid_deal += mid_deal
        for name, (lo, counts) in hists.items():
            getattr(self, name).merge_counts(lo, counts)
        self._hash.update(np.ascontiguousarray(outcome, dtype=np.int64).tobytes())


def _margin(totals: np.ndarray, side: np.ndarray) -> np.ndarray:
    """Per game, ``totals[side]`` minus the best of the other sides' totals."""
    rows = np.arange(len(totals))
    others = totals.copy()
    others[rows, side] = np.iinfo(np.int32).min
    return totals[rows, side] - others.max(axis=1)


def game_stats(run: Run) -> GameStats:
    """The run's :class:`GameStats`, computed once (part by part) and kept on it."""
    return run.tally("game_stats", "games", lambda: GameStats(run.n_sides, run.seat_side))


def cumulative_wins(run: Run, at: np.ndarray) -> np.ndarray:
    """How many of the first ``at[i]`` games (in game order) the first player's side won, for ascending ``at``."""
    out = np.zeros(len(at), np.int64)
    seen = wins = 0
    last_game = -1
    for part in run.arrays("games", ["game", "first_player", "winner"]):
        game = np.asarray(part["game"], dtype=np.int64)
        order = np.argsort(game, kind="stable") if np.any(np.diff(game) < 0) else slice(None)
        game = game[order]
        if len(game) and game[0] <= last_game:
            raise ValueError("the games table's part files do not hold the games in order")
        won = np.asarray(part["winner"])[order] == run.seat_side[np.asarray(part["first_player"])[order]]
        running = wins + np.cumsum(won)
        inside = (at > seen) & (at <= seen + len(game))
        out[inside] = running[at[inside] - seen - 1]
        seen, wins = seen + len(game), int(running[-1]) if len(game) else wins
        last_game = int(game[-1]) if len(game) else last_game
        del part, game, won, running  # let this part go before the next is read
    return out
