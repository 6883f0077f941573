"""What the analysis needs from the deals table, gathered one part file at a time.

The deals table is the big one (a row per deal and side: about 8 rows per game of two-player Scopa, 80 million for
ten million games), so it is never held whole: :func:`deal_stats` reads each part file in turn (only the columns
used) and keeps, per scoring category and per-deal quantity, the sums and :class:`~analysis.hist.IntHist` counts
that the tables are built from. Parts are chunks of whole games, so a deal's rows (one per side) always sit in one
part and the leader-minus-dealer difference can be taken deal by deal inside it. Memory is bounded by one part.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from analysis.hist import IntHist
from analysis.load import Run

#: Per-deal quantities reported besides the variant's scoring categories.
DEAL_EXTRAS = ("points", "sweeps", "cards_taken")

_UNPAIRED = "the deals table must hold one row per deal and side, with one leading and one dealing side"


@dataclass
class DealStats:
    """Sufficient statistics of a run's deals table.

    ``deals``: deals counted (each has one row per side). Per metric (the categories, then :data:`DEAL_EXTRAS`):
    ``led`` / ``dealt`` / ``all``: sums over the leading side's rows, the dealing side's rows and every row;
    ``diff``: counts of the leading side's value minus the dealing side's, per deal; ``total``: counts of the
    value summed over the sides, per deal. Per category: ``side[c][k]``: counts of side k's points per deal;
    ``scored[c]``: deals in which 0, 1, and 2 or more sides score it.
    """

    categories: list[str]
    n_sides: int
    deals: int = 0
    led: dict[str, int] = field(default_factory=dict)
    dealt: dict[str, int] = field(default_factory=dict)
    all: dict[str, int] = field(default_factory=dict)
    diff: dict[str, IntHist] = field(default_factory=dict)
    total: dict[str, IntHist] = field(default_factory=dict)
    side: dict[str, list[IntHist]] = field(default_factory=dict)
    scored: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for m in self.metrics:
            self.led[m] = self.dealt[m] = self.all[m] = 0
            self.diff[m], self.total[m] = IntHist(), IntHist()
        for c in self.categories:
            self.side[c] = [IntHist() for _ in range(self.n_sides)]
            self.scored[c] = np.zeros(3, np.int64)

    @property
    def metrics(self) -> list[str]:
        return [*self.categories, *DEAL_EXTRAS]

    @property
    def columns(self) -> list[str]:
        """The deals columns :meth:`add` reads."""
        return ["game", "deal", "side", "led", "dealt", *self.metrics]

    def add(self, part: Mapping[str, np.ndarray]) -> None:
        """Count one piece of the deals table that holds whole deals (a part file, or the whole table)."""
        order, n_deals = deal_order(part, self.n_sides)
        if not n_deals:
            return
        shape = (n_deals, self.n_sides)
        led, dealt = (np.asarray(part[flag])[order].reshape(shape) for flag in ("led", "dealt"))
        if np.any(_row_sums(led) != 1) or np.any(_row_sums(dealt) != 1):
            raise ValueError(_UNPAIRED)
        led_side, dealt_side = led.argmax(axis=1), dealt.argmax(axis=1)
        self.deals += n_deals
        two_sides = self.n_sides == 2 and np.array_equal(dealt_side, 1 - led_side)
        for m in self.metrics:
            values = np.asarray(part[m])[order].astype(np.int64).reshape(shape)
            if not (two_sides and self._add_pairs(m, values, led_side)):
                self._add_rows(m, values, led_side, dealt_side)

    def _add_rows(self, m: str, values: np.ndarray, led_side: np.ndarray, dealt_side: np.ndarray) -> None:
        """Count metric ``m`` of (deals, sides) ``values`` row by row: any number of sides."""
        rows = np.arange(len(values))
        lv, dv = values[rows, led_side], values[rows, dealt_side]
        self.led[m] += int(lv.sum())
        self.dealt[m] += int(dv.sum())
        self.all[m] += int(values.sum())
        self.diff[m].add(lv - dv)
        self.total[m].add(_row_sums(values))
        if m in self.side:
            for k, hist in enumerate(self.side[m]):
                hist.add(values[:, k])
            scoring = np.minimum(_row_sums(values != 0), 2)
            self.scored[m] += np.bincount(scoring, minlength=3)

    def _add_pairs(self, m: str, values: np.ndarray, led_side: np.ndarray) -> bool:
        """Count metric ``m`` of two sides from one joint histogram of (leading side, side 0's value, side 1's).

        Every statistic of :meth:`_add_rows` is a sum over that histogram, which one ``bincount`` fills: about
        five times cheaper than counting each statistic over the rows, and the summary of ``scopasim simulate``
        does this for every chunk while the next one plays. False (nothing counted) when the values spread too
        wide for a small histogram.
        """
        v0, v1 = values[:, 0], values[:, 1]
        lo0, lo1 = int(v0.min()), int(v1.min())
        w0, w1 = int(v0.max()) - lo0 + 1, int(v1.max()) - lo1 + 1
        if 2 * w0 * w1 > 1 << 16:
            return False
        joint = np.bincount((led_side * w0 + (v0 - lo0)) * w1 + (v1 - lo1), minlength=2 * w0 * w1)
        self.add_joint(m, joint.reshape(2, w0, w1), lo0, lo1)
        return True

    def add_joint(self, m: str, joint: np.ndarray, lo0: int, lo1: int) -> None:
        """Count metric ``m`` of two sides from its joint histogram ``joint[side that led, side 0's value - lo0,
        side 1's value - lo1]`` (deals counted; ``deals`` itself is not changed: see :meth:`add_pair_counts`)."""
        _, w0, w1 = joint.shape
        a = np.arange(w0)[:, None] + lo0  # side 0's value on the grid
        b = np.arange(w1)[None, :] + lo1  # side 1's value
        a, b = np.broadcast_to(a, (w0, w1)), np.broadcast_to(b, (w0, w1))
        led0, led1 = joint[0], joint[1]
        both = led0 + led1
        self.led[m] += int((led0 * a).sum() + (led1 * b).sum())
        self.dealt[m] += int((led0 * b).sum() + (led1 * a).sum())
        self.all[m] += int((both * (a + b)).sum())
        _add_weighted(self.diff[m], np.concatenate([(a - b).ravel(), (b - a).ravel()]), joint.ravel())
        _add_weighted(self.total[m], (a + b).ravel(), both.ravel())
        if m in self.side:
            _add_weighted(self.side[m][0], a[:, 0], both.sum(axis=1))
            _add_weighted(self.side[m][1], b[0], both.sum(axis=0))
            scoring = ((a != 0).astype(np.int64) + (b != 0)).ravel()
            self.scored[m] += np.bincount(scoring, weights=both.ravel(), minlength=3).astype(np.int64)

    def add_pair_counts(self, n_deals: int, joints: Mapping[str, tuple[np.ndarray, int, int]]) -> None:
        """Count ``n_deals`` deals of two sides given, for every metric, its ``(joint, lo0, lo1)`` histogram (as
        :meth:`add_joint` takes it): what :meth:`add` counts from the rows of those deals."""
        if set(joints) != set(self.metrics):
            raise ValueError(f"joint histograms of {sorted(joints)}, expected {sorted(self.metrics)}")
        self.deals += n_deals
        for m in self.metrics:
            self.add_joint(m, *joints[m])


def _add_weighted(hist: IntHist, values: np.ndarray, counts: np.ndarray) -> None:
    """Add to ``hist`` each of ``values`` ``counts`` times (values may repeat; zero counts are dropped)."""
    keep = counts > 0
    values, counts = values[keep], counts[keep]
    if not len(values):
        return
    lo = int(values.min())
    merged = np.bincount(values - lo, weights=counts, minlength=int(values.max()) - lo + 1)
    hist.merge_counts(lo, np.rint(merged).astype(np.int64))


def _row_sums(values: np.ndarray) -> np.ndarray:
    """``values.sum(axis=1)`` (int64) of a (deals, sides) array, added side by side: numpy reduces a last axis of
    2 to 4 values several times slower, and this sum is most of the cost of counting a part."""
    out = values[:, 0].astype(np.int64)
    for k in range(1, values.shape[1]):
        out += values[:, k]
    return out


def deal_order(part: Mapping[str, np.ndarray], n_sides: int) -> tuple[np.ndarray | slice, int]:
    """The row order that puts ``part`` in (game, deal, side) order, and its number of deals.

    The writer emits that order already (a deal's sides as consecutive rows); anything else is sorted, and a table
    that does not hold exactly one row per deal and side is refused.
    """
    side = np.asarray(part["side"])
    n = len(side)
    if n % n_sides:
        raise ValueError(f"the deals table has {n} rows, not a multiple of {n_sides} sides")
    n_deals = n // n_sides
    game = np.asarray(part["game"], dtype=np.int64)
    deal = np.asarray(part["deal"], dtype=np.int64)
    # deal < 2**15, so this key orders rows by (game, deal)
    key = game * (1 << 16) + deal
    expected = np.tile(np.arange(n_sides), n_deals)
    order: np.ndarray | slice = slice(None)
    if not np.array_equal(side, expected) or np.any(np.diff(key) < 0):
        order = np.lexsort((side, key))
        side, key = side[order], key[order]
        if not np.array_equal(side, expected):
            raise ValueError("the deals table must hold exactly one row per deal and side")
    blocks = key.reshape(n_deals, n_sides)
    if np.any(blocks != blocks[:, :1]) or np.any(np.diff(blocks[:, 0]) <= 0):
        raise ValueError("the deals table must hold exactly one row per deal and side")
    return order, n_deals


def deal_stats(run: Run) -> DealStats:
    """The run's :class:`DealStats`, computed once (part by part) and kept on it."""
    return run.tally("deal_stats", "deals", lambda: DealStats(run.categories, run.n_sides))
