"""scipy.stats' numbers without scipy.stats: Wilson intervals, exact binomial tests and Student t quantiles.

Importing ``scipy.stats`` takes about 0.4 s (more than everything else ``scopasim simulate --games 1000`` does
besides loading the kernels), and the analysis needs four of its functions. Each is computed here from the very
``scipy.special`` functions scipy.stats calls, with the same arithmetic in the same order, so the results are
the same to the last bit (``tests/test_analysis_special.py`` compares them with scipy.stats):

- :func:`wilson_interval`: ``binomtest(k, n).proportion_ci(level, method="wilson")`` (``ndtri``);
- :func:`binomtest_pvalue`: ``binomtest(k, n, p).pvalue``, two-sided, with scipy's search for the other tail
  (``_binom_pmf``, ``_binom_cdf``, ``_binom_sf``: Boost's binomial, which ``scipy.stats.binom`` calls);
- :func:`t_ppf` and :func:`t_sf`: ``t.ppf(q, df)`` and ``t.sf(x, df)`` (``stdtrit``, ``stdtr``).
"""

from __future__ import annotations

import math

import numpy as np

RELATIVE_TIE = 1 + 1e-7  # scipy's tolerance for terms of the pmf equal to the observed one


def wilson_interval(k: int, n: int, level: float) -> tuple[float, float]:
    """The two-sided Wilson score interval of ``k / n`` at confidence ``level`` (``0 <= k <= n``, ``n >= 1``)."""
    from scipy.special import ndtri

    p = k / n
    z = ndtri(0.5 + 0.5 * level)
    denom = 2 * (n + z**2)
    center = (2 * n * p + z**2) / denom
    q = 1 - p
    delta = z / denom * math.sqrt(4 * n * p * q + z**2)
    low = 0.0 if k == 0 else center - delta
    high = 1.0 if k == n else center + delta
    return float(low), float(high)


def _pmf(x: float, n: int, p: float) -> float:
    from scipy.special import _ufuncs

    if x < 0 or x > n or math.floor(x) != x:
        return 0.0
    return float(np.clip(_ufuncs._binom_pmf(x, n, p), 0, 1))


def _cdf(k: float, n: int, p: float) -> float:
    from scipy.special import _ufuncs

    if k >= n:
        return 1.0
    if k < 0:
        return 0.0
    return float(np.clip(_ufuncs._binom_cdf(math.floor(k), n, p), 0, 1))


def _sf(k: float, n: int, p: float) -> float:
    from scipy.special import _ufuncs

    if k >= n:
        return 0.0
    if k < 0:
        return 1.0
    return float(np.clip(_ufuncs._binom_sf(math.floor(k), n, p), 0, 1))


def _search(a, d: float, lo: float, hi: float) -> float:
    """scipy's ``_binary_search_for_binom_tst``: the ``i`` in ``lo..hi`` with ``a(i) <= d < a(i + 1)``."""
    while lo < hi:
        mid = lo + (hi - lo) // 2
        value = a(mid)
        if value < d:
            lo = mid + 1
        elif value > d:
            hi = mid - 1
        else:
            return mid
    return lo if a(lo) <= d else lo - 1


def binomtest_pvalue(k: int, n: int, p: float) -> float:
    """The exact two-sided binomial test of ``k`` successes in ``n`` trials against probability ``p``."""
    d = _pmf(k, n, p)
    if k == p * n:
        return 1.0
    if k < p * n:
        ix = _search(lambda x: -_pmf(x, n, p), -d * RELATIVE_TIE, float(np.ceil(p * n)), n)
        y = n - ix + int(d * RELATIVE_TIE == _pmf(ix, n, p))
        pvalue = _cdf(k, n, p) + _sf(n - y, n, p)
    else:
        ix = _search(lambda x: _pmf(x, n, p), d * RELATIVE_TIE, 0, float(np.floor(p * n)))
        y = ix + 1
        pvalue = _cdf(y - 1, n, p) + _sf(k - 1, n, p)
    return min(1.0, pvalue)


def t_ppf(q: float, df: float) -> float:
    """The ``q`` quantile of Student's t with ``df`` degrees of freedom (``0 < q < 1``)."""
    from scipy.special import stdtrit

    return float(stdtrit(df, q))


def t_sf(x: float, df: float) -> float:
    """``P(T > x)`` for Student's t with ``df`` degrees of freedom."""
    from scipy.special import stdtr

    return float(stdtr(df, -x))
