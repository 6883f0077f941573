"""Confidence sequences: intervals for a mean that stay valid however often they are looked at.

A fixed-n interval (Wilson, t) covers the mean with probability ``level`` at one sample size chosen in advance.
Checked after every chunk and stopped on the first look that is narrow enough, or that excludes no-difference, it
errs far more often (``tests/test_sequential.py`` measures it). A confidence sequence covers the mean at every
sample size at once, with probability ``level``, so any stopping rule on it keeps its error rate.

The one here is the empirical-Bernstein confidence sequence of Howard, Ramdas, McAuliffe and Sekhon (2021),
"Time-uniform, nonparametric, nonasymptotic confidence sequences", Annals of Statistics 49(2), Theorem 4, with the
polynomial stitched boundary of their Theorem 1 (eq. 10; ``s = 1.4``, ``eta = 2``). For outcomes in ``[lo, hi]``,
scaled to ``[0, 1]``: with ``S_t`` the sum of the first ``t`` outcomes and ``V_t = sum_i (z_i - zhat_{i-1})^2``
(``zhat`` the running mean of the outcomes before ``i``, shrunk towards 1/2 so it exists at ``i = 1``),

    | S_t / t - mean | <= u(max(V_t, m)) / t  for all t, with probability >= 1 - alpha,

where ``u(v) = sqrt(k1^2 v l(v) + (k2 c l(v))^2) + k2 c l(v)``, ``l(v) = s log log(eta v / m) +
log(zeta(s) / (alpha/2 log(eta)^s))``, ``k1 = (eta^1/4 + eta^-1/4) / sqrt 2``, ``k2 = (sqrt eta + 1) / 2``, scale
``c = 1`` (the range after scaling) and ``m = 1``. The width follows the outcomes' own variance (a paired difference
of two rule sets that mostly play the same games has a small one), and grows like ``sqrt(V log log V)``: at
10^4 to 10^6 games it is about 2.2 times the half-width of the fixed-n normal interval at the same level (2.6 for a
variance of 0.01 at 10^4), so a stop on it needs about 5 times the games of a single fixed-n look. That is
what honesty under continuous monitoring costs here. The closed form is the one of ``confseq``'s
``poly_stitching_bound`` (gostevehoward/confseq), which has no wheel for this Python; it is short enough to keep.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Stitching parameters of Howard et al. (2021): how the error is spread over epochs of intrinsic time.
STITCH_S = 1.4
STITCH_ETA = 2.0
#: The intrinsic time (scaled variance) from which the boundary is tight; below it the boundary is constant.
V_MIN = 1.0


def _zeta(s: float) -> float:
    """Riemann zeta at ``s > 1`` (scipy.special is imported here only: it is slow to import)."""
    from scipy.special import zeta

    return float(zeta(s))


def stitched_boundary(v: np.ndarray | float, alpha: float, c: float = 1.0) -> np.ndarray:
    """Howard et al. (2021) eq. 10: a one-sided uniform boundary for a sub-gamma process of variance ``v``,
    crossed with probability at most ``alpha`` at any time."""
    s, eta = STITCH_S, STITCH_ETA
    k1 = (eta**0.25 + eta**-0.25) / math.sqrt(2)
    k2 = (math.sqrt(eta) + 1) / 2
    use_v = np.maximum(np.asarray(v, dtype=float), V_MIN)
    ell = s * np.log(np.log(eta * use_v / V_MIN)) + math.log(_zeta(s) / (alpha * math.log(eta) ** s))
    term = k2 * c * ell
    return np.sqrt(k1 * k1 * use_v * ell + term * term) + term


def running_sums(z: np.ndarray, n0: int = 0, s0: float = 0.0, v0: float = 0.0) -> tuple[np.ndarray, ...]:
    """Counts, sums and empirical-Bernstein variances after each outcome of ``z`` (scaled to [0, 1], along the
    last axis), continuing from ``n0`` outcomes of sum ``s0`` and variance ``v0``."""
    z = np.asarray(z, dtype=float)
    k = np.arange(1, z.shape[-1] + 1)
    sums = s0 + np.cumsum(z, axis=-1)
    before = np.concatenate([np.broadcast_to(s0, (*z.shape[:-1], 1)), sums[..., :-1]], axis=-1)
    predicted = (0.5 + before) / (n0 + k)  # the mean of the outcomes before this one, with 1/2 as a first guess
    v = v0 + np.cumsum((z - predicted) ** 2, axis=-1)
    return n0 + k, sums, v


def half_width(n: np.ndarray | int, v: np.ndarray | float, alpha: float) -> np.ndarray:
    """Half-width of the two-sided confidence sequence on the [0, 1] scale after ``n`` outcomes of variance
    process ``v`` (each side gets ``alpha / 2``)."""
    return stitched_boundary(v, alpha / 2) / np.asarray(n, dtype=float)


@dataclass
class MeanSequence:
    """The running confidence sequence of the mean of outcomes in ``[lo, hi]``, fed chunk by chunk.

    Its interval after any number of outcomes covers the mean with probability at least ``1 - alpha`` jointly over
    every number of outcomes, so a stop decided on it at any look is honest.
    """

    lo: float
    hi: float
    alpha: float = 0.05
    n: int = 0
    total: float = 0.0  # sum of the outcomes scaled to [0, 1]
    v: float = 0.0

    def __post_init__(self) -> None:
        if not self.hi > self.lo:
            raise ValueError(f"need lo < hi, got [{self.lo}, {self.hi}]")
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must be between 0 and 1, got {self.alpha!r}")

    def update(self, x: np.ndarray) -> None:
        """Add the next outcomes, in order."""
        x = np.asarray(x, dtype=float).ravel()
        if not len(x):
            return
        if np.any(x < self.lo) or np.any(x > self.hi):
            raise ValueError(f"an outcome lies outside [{self.lo}, {self.hi}]")
        z = (x - self.lo) / (self.hi - self.lo)
        n, sums, v = running_sums(z, self.n, self.total, self.v)
        self.n, self.total, self.v = int(n[-1]), float(sums[-1]), float(v[-1])

    @property
    def mean(self) -> float:
        return self.lo + (self.hi - self.lo) * self.total / self.n if self.n else math.nan

    @property
    def half_width(self) -> float:
        """Half-width on the outcomes' scale (before clipping to ``[lo, hi]``); inf before any outcome."""
        if not self.n:
            return math.inf
        return float((self.hi - self.lo) * half_width(self.n, self.v, self.alpha))

    @property
    def interval(self) -> tuple[float, float]:
        if not self.n:
            return self.lo, self.hi
        w = self.half_width
        return max(self.lo, self.mean - w), min(self.hi, self.mean + w)

    def excludes(self, value: float) -> bool:
        low, high = self.interval
        return not low <= value <= high


def sequence_of(x: np.ndarray, lo: float, hi: float, alpha: float = 0.05) -> MeanSequence:
    """The confidence sequence after all of ``x``."""
    cs = MeanSequence(lo, hi, alpha)
    cs.update(x)
    return cs


def normal_half_width(var: np.ndarray | float, n: np.ndarray | int, level: float = 0.95) -> np.ndarray:
    """The fixed-n normal interval's half-width ``z sqrt(var / n)``: right at one sample size fixed in advance,
    wrong when looked at after every chunk (kept for the tests and the README's comparison)."""
    from statistics import NormalDist

    z = NormalDist().inv_cdf(0.5 + level / 2)
    return z * np.sqrt(np.asarray(var, dtype=float) / np.asarray(n, dtype=float))
