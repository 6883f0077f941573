"""``analysis.special`` gives scipy.stats' numbers to the last bit, without importing scipy.stats."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from analysis import special

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def cases(seed: int = 0) -> list[tuple[int, int]]:
    """(k, n): edges (0, n, the middle, one off it) for small and large n, plus seeded random draws."""
    rng = np.random.default_rng(seed)
    out = []
    for n in (1, 2, 3, 7, 10, 101, 1000, 4_999, 10**6, 10**7 + 1):
        out += [(0, n), (n, n), (n // 2, n), (n // 3, n), (min(n, n // 2 + 1), n), (max(0, n // 2 - 1), n)]
        out += [(int(k), n) for k in rng.integers(0, n + 1, 4)]
    out += [(int(rng.binomial(n, 0.52)), int(n)) for n in rng.integers(10, 10**7, 20)]
    return out


@pytest.mark.parametrize("level", [0.5, 0.9, 0.95, 0.99, 0.999])
def test_wilson_interval_is_scipys(level):
    for k, n in cases():
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
        assert special.wilson_interval(k, n, level) == (float(ci.low), float(ci.high)), (k, n)


@pytest.mark.parametrize("p", [0.5, 1 / 3, 0.25, 0.52])
def test_binomtest_pvalue_is_scipys(p):
    for k, n in cases(1):
        assert special.binomtest_pvalue(k, n, p) == float(stats.binomtest(k, n, p).pvalue), (k, n, p)


def test_t_quantiles_and_tails_are_scipys():
    rng = np.random.default_rng(2)
    for df in [1, 2, 5, 29, 1000, 4_123_456, 8 * 10**7, *rng.uniform(1, 1e6, 10)]:
        for q in (0.75, 0.95, 0.975, 0.995, 0.9995):
            assert special.t_ppf(q, df) == float(stats.t.ppf(q, df)), (q, df)
        for x in (0.0, 0.3, 1.96, 5.0, 40.0, *rng.uniform(0, 10, 5)):
            assert special.t_sf(x, df) == float(stats.t.sf(x, df)), (x, df)


def test_the_analysis_of_a_run_imports_neither_scipy_stats_nor_pandas_until_asked():
    code = (
        "import sys; from analysis import special; from analysis.load import load_run; "
        "from analysis.stats import win_rate; win_rate(3, 10); special.binomtest_pvalue(3, 10, 0.5); "
        "print(sorted(m for m in ('scipy.stats', 'pandas') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
