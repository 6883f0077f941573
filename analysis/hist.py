"""Counts of integer values: the sufficient statistic of every per-game and per-deal sample of a run.

Every quantity the analysis averages (points, sweeps, cards, deals and plays per game, margins, leader-minus-dealer
differences) is a small integer, so a sample of any size is summed up exactly by how often each value occurs. An
:class:`IntHist` is filled one part file at a time and gives the sample's mean, variance and percentiles exactly
as numpy would from the whole array (sums are kept in Python integers, so nothing is lost to rounding), in memory
that does not grow with the run. The t interval of a mean and Welch's t for a difference of means are computed
from these moments with scipy's t distribution (through ``analysis.special``, without importing scipy.stats), the
same formulas as ``scipy.stats.ttest_1samp`` and ``ttest_ind(equal_var=False)``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np


class IntHist:
    """How often each integer value occurs in a sample, filled with :meth:`add` piece by piece."""

    def __init__(self) -> None:
        self.lo = 0
        self.counts = np.zeros(0, np.int64)

    @classmethod
    def of(cls, values: np.ndarray) -> IntHist:
        hist = cls()
        hist.add(values)
        return hist

    def add(self, values: np.ndarray) -> None:
        """Count ``values`` (integers, or floats holding integers) into the histogram."""
        values = np.asarray(values)
        if not len(values):
            return
        if values.dtype.kind == "f":
            if not np.all(np.isfinite(values)) or not np.array_equal(values, np.round(values)):
                raise ValueError("an IntHist counts integer values only")
            values = values.astype(np.int64)
        lo, hi = int(values.min()), int(values.max())
        counts = np.bincount((values.astype(np.int64) - lo).astype(np.intp), minlength=hi - lo + 1)
        self.merge_counts(lo, counts.astype(np.int64))

    def merge_counts(self, lo: int, counts: np.ndarray) -> None:
        if not len(self.counts):
            self.lo, self.counts = lo, counts.copy()
            return
        new_lo = min(self.lo, lo)
        new_hi = max(self.lo + len(self.counts), lo + len(counts))
        merged = np.zeros(new_hi - new_lo, np.int64)
        merged[self.lo - new_lo : self.lo - new_lo + len(self.counts)] += self.counts
        merged[lo - new_lo : lo - new_lo + len(counts)] += counts
        self.lo, self.counts = new_lo, merged

    def merge(self, other: IntHist) -> None:
        if len(other.counts):
            self.merge_counts(other.lo, other.counts)

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    def items(self) -> tuple[np.ndarray, np.ndarray]:
        """The values that occur, ascending, and how often each does."""
        present = np.flatnonzero(self.counts)
        return present + self.lo, self.counts[present]

    def _sums(self) -> tuple[int, int, int]:
        values, counts = self.items()
        v, c = values.tolist(), counts.tolist()
        return sum(c), sum(a * b for a, b in zip(v, c, strict=True)), sum(a * a * b for a, b in zip(v, c, strict=True))

    @property
    def total(self) -> int:
        return self._sums()[1]

    @property
    def mean(self) -> float:
        n, s, _ = self._sums()
        return s / n if n else math.nan

    @property
    def var(self) -> float:
        """Sample variance (ddof 1), exact before the final rounding; NaN below two values."""
        n, s, ss = self._sums()
        return float(Fraction(n * ss - s * s, n * (n - 1))) if n >= 2 else math.nan

    @property
    def std(self) -> float:
        return math.sqrt(self.var) if self.n >= 2 else math.nan

    @property
    def min(self) -> int:
        values, _ = self.items()
        return int(values[0]) if len(values) else 0

    @property
    def max(self) -> int:
        values, _ = self.items()
        return int(values[-1]) if len(values) else 0

    def count(self, low: float = -math.inf, high: float = math.inf) -> int:
        """How many values lie in ``[low, high]``."""
        values, counts = self.items()
        return int(counts[(values >= low) & (values <= high)].sum())

    def percentiles(self, q: list[float]) -> list[float]:
        """``numpy.percentile(sample, q)`` (linear interpolation) without the sample; NaN when empty."""
        values, counts = self.items()
        n = int(counts.sum())
        if not n:
            return [math.nan] * len(q)
        ends = np.cumsum(counts)  # the sorted sample holds values[j] at ranks ends[j-1] .. ends[j]-1

        def at(rank: int) -> float:
            return float(values[np.searchsorted(ends, rank, side="right")])

        out = []
        for p in q:
            quantile = float(np.true_divide(p, 100))
            virtual = (n - 1) * quantile  # numpy's virtual index of the "linear" method
            i = min(max(int(np.floor(virtual)), 0), n - 1)
            t = virtual - np.floor(virtual)
            a, b = at(i), at(min(i + 1, n - 1))
            out.append(b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t)  # numpy's _lerp
        return out


def hist_interval(hist: IntHist, level: float = 0.95, popmean: float = 0.0) -> dict[str, Any]:
    """:func:`analysis.stats.mean_interval` of the sample ``hist`` counts (same keys, same conventions)."""
    from analysis.special import t_ppf, t_sf

    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level!r}")
    n = hist.n
    mean = hist.mean
    std = hist.std
    out = {"mean": mean, "ci_low": math.nan, "ci_high": math.nan, "p_value": math.nan, "n": n, "std": std}
    if n < 2:
        return out
    if hist.min == hist.max:
        return {**out, "ci_low": mean, "ci_high": mean, "p_value": 1.0 if mean == popmean else 0.0}
    se = std / math.sqrt(n)
    t = (mean - popmean) / se
    half = t_ppf(0.5 + level / 2, n - 1) * se
    p_value = 2 * t_sf(abs(t), n - 1)
    return {**out, "ci_low": mean - half, "ci_high": mean + half, "p_value": min(p_value, 1.0)}


def hist_difference(a: IntHist, b: IntHist, level: float = 0.95) -> dict[str, float]:
    """:func:`analysis.balance.mean_difference` (``mean(b) - mean(a)``, Welch's t) of two counted samples."""
    from analysis.special import t_ppf, t_sf

    if min(a.n, b.n) < 2:
        return {"difference": math.nan, "ci_low": math.nan, "ci_high": math.nan, "p_value": math.nan}
    diff = b.mean - a.mean
    constant_a, constant_b = a.min == a.max, b.min == b.max
    if constant_a and constant_b:  # no spread at all: the difference is known exactly
        return {"difference": diff, "ci_low": diff, "ci_high": diff, "p_value": 1.0 if diff == 0 else 0.0}
    va, vb = a.var / a.n, b.var / b.n
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (a.n - 1) + vb**2 / (b.n - 1))
    half = t_ppf(0.5 + level / 2, df) * se
    p_value = 2 * t_sf(abs(diff / se), df)
    return {"difference": diff, "ci_low": diff - half, "ci_high": diff + half, "p_value": min(p_value, 1.0)}
