"""The confidence sequence keeps its error rate under repeated looks, where a fixed-n interval looked at after
every chunk does not (simulated with synthetic Bernoulli and paired outcomes, numpy only)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from analysis.sequential import MeanSequence, half_width, normal_half_width, running_sums, sequence_of

ALPHA = 0.05
SEQUENCES = 1000
SLACK = 3 * math.sqrt(ALPHA * (1 - ALPHA) / SEQUENCES)  # three Monte Carlo standard errors of a rate near alpha


def monitored_errors(x: np.ndarray, lo: float, hi: float, truth: float, looks: np.ndarray) -> tuple[float, float]:
    """Share of the sequences (rows of ``x``) whose interval excluded ``truth`` at some look, for the confidence
    sequence and for the fixed-n normal interval (with the sample variance) checked at the same looks."""
    z = (x - lo) / (hi - lo)
    n, sums, v = running_sums(z)
    n, sums, v = n[looks - 1], sums[:, looks - 1], v[:, looks - 1]
    mean = sums / n
    zt = (truth - lo) / (hi - lo)
    cs_miss = np.abs(mean - zt) > half_width(n, v, ALPHA)
    sq = np.cumsum(z * z, axis=1)[:, looks - 1]
    var = np.maximum(sq / n - mean**2, 0) * n / np.maximum(n - 1, 1)
    naive_miss = np.abs(mean - zt) > normal_half_width(var, n, 1 - ALPHA)
    return float(cs_miss.any(axis=1).mean()), float(naive_miss.any(axis=1).mean())


@pytest.mark.parametrize("p", [0.5, 0.3, 0.05])
def test_win_rates_monitored_after_every_chunk(p):
    rng = np.random.default_rng(12)
    x = (rng.random((SEQUENCES, 5000)) < p).astype(float)
    looks = np.arange(250, 5001, 250)  # 20 looks, one per chunk
    cs, naive = monitored_errors(x, 0.0, 1.0, p, looks)
    assert cs <= ALPHA + SLACK
    assert naive > 2 * ALPHA  # what the test is there for: the naive rule errs several times too often


def test_paired_differences_monitored_after_every_chunk():
    """Two rule sets that play mostly the same games: outcome differences in {-1, 0, 1}, mean 0 under the null."""
    rng = np.random.default_rng(13)
    a = rng.random((SEQUENCES, 6000)) < 0.52
    other = rng.random((SEQUENCES, 6000)) < 0.52
    b = np.where(rng.random((SEQUENCES, 6000)) < 0.9, a, other)  # 90% of games unchanged by the rule
    d = a.astype(float) - b.astype(float)
    looks = np.arange(300, 6001, 300)
    cs, naive = monitored_errors(d, -1.0, 1.0, 0.0, looks)
    assert cs <= ALPHA + SLACK
    assert naive > 2 * ALPHA


def test_every_single_game_looked_at():
    """Coverage holds at every sample size at once, not only at chunk ends."""
    rng = np.random.default_rng(14)
    x = (rng.random((SEQUENCES, 3000)) < 0.5).astype(float)
    cs, naive = monitored_errors(x, 0.0, 1.0, 0.5, np.arange(20, 3001))
    assert cs <= ALPHA + SLACK
    assert naive > 4 * ALPHA


def test_stopping_on_precision_keeps_coverage_at_the_stop():
    """Stop each sequence once the half-width is at most P; the interval at the stop still covers the mean."""
    rng = np.random.default_rng(15)
    p, precision = 0.4, 0.06
    x = (rng.random((SEQUENCES, 4000)) < p).astype(float)
    n, sums, v = running_sums(x)
    w = half_width(n, v, ALPHA)
    looks = np.arange(100, 4001, 100) - 1
    narrow = w[:, looks] <= precision
    assert narrow.any(axis=1).all()
    stop = looks[narrow.argmax(axis=1)]
    rows = np.arange(SEQUENCES)
    miss = np.abs(sums[rows, stop] / n[stop] - p) > w[rows, stop]
    assert miss.mean() <= ALPHA + SLACK


def test_mean_sequence_chunk_by_chunk_equals_all_at_once():
    rng = np.random.default_rng(16)
    x = rng.integers(-1, 2, 10_000).astype(float)
    cs = MeanSequence(-1.0, 1.0)
    for part in np.array_split(x, 7):
        cs.update(part)
    whole = sequence_of(x, -1.0, 1.0)
    assert cs.n == whole.n == 10_000
    assert cs.mean == pytest.approx(x.mean())
    assert cs.half_width == pytest.approx(whole.half_width)
    low, high = cs.interval
    assert low < cs.mean < high and cs.excludes(high + 1e-9) and not cs.excludes(cs.mean)


def test_width_follows_the_variance_and_shrinks():
    """A paired difference that is mostly 0 gets a much narrower sequence than a coin; more games, narrower."""
    rng = np.random.default_rng(17)
    coin = sequence_of(rng.integers(0, 2, 20_000) * 2.0 - 1, -1.0, 1.0)
    mostly_zero = sequence_of(np.where(rng.random(20_000) < 0.05, rng.choice([-1.0, 1.0], 20_000), 0.0), -1.0, 1.0)
    assert mostly_zero.half_width < coin.half_width / 3
    assert (
        sequence_of(rng.integers(0, 2, 80_000), 0, 1).half_width
        < sequence_of(rng.integers(0, 2, 20_000), 0, 1).half_width / 1.8
    )
    assert MeanSequence(0, 1).half_width == math.inf and MeanSequence(0, 1).interval == (0, 1)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="lo < hi"):
        MeanSequence(1.0, 1.0)
    with pytest.raises(ValueError, match="alpha"):
        MeanSequence(0.0, 1.0, alpha=1.5)
    with pytest.raises(ValueError, match="outside"):
        MeanSequence(0.0, 1.0).update(np.array([0.0, 2.0]))
