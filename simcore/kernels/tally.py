"""The summary's counts of a chunk's tables, in two passes over their columns and without the GIL.

``analysis.deals.DealStats`` sums up a deals table of two sides from one joint histogram per metric: deals
counted by (side that led, side 0's value, side 1's value). numpy fills it with a dozen passes per metric; this
loop checks the table's layout and fills every metric's histogram in two passes, on the writer thread of
``scopasim simulate`` while the next chunk plays. The histograms are turned into statistics by the very code
the analysis uses (``DealStats.add_joint``), so the numbers are those of ``scopasim analyze``. The games table's
samples (``analysis.games.GameStats``) are counted the same way by :func:`game_histograms`.
"""

from __future__ import annotations

import numpy as np

from simcore._jit import inline_kernel, kernel

MAX_CELLS = 1 << 16  # the largest joint histogram of one metric (``DealStats``'s limit): wider values use numpy

TALLY_OK = 0
TALLY_LAYOUT = 1  # not one row per deal and side in (game, deal, side) order with one leading, one dealing side
TALLY_WIDE = 2  # a metric's values spread wider than MAX_CELLS allows


@kernel
def pair_histograms(values, game, deal, side, led, dealt):
    """Joint histograms of a deals table of two sides, one per metric.

    ``values`` int16[M, R]: the metrics, row r of the table in column r; ``game`` int64[R], ``deal`` int16[R],
    ``side`` int8[R], ``led`` and ``dealt`` bool[R]: the table's columns. Returns ``(status, lo, width, start,
    joint)``: ``status`` ``TALLY_OK`` or why not (then nothing else is meaningful); ``lo`` and ``width``
    int64[M, 2]: each metric's smallest value and value span for side 0 and side 1; ``joint`` int64, metric m's
    histogram [side that led, side 0's value - lo, side 1's value - lo] flat from ``start[m]``.
    """
    n_metrics, n_rows = values.shape
    lo = np.zeros((n_metrics, 2), np.int64)
    width = np.zeros((n_metrics, 2), np.int64)
    start = np.zeros(n_metrics + 1, np.int64)
    if n_rows % 2:
        return TALLY_LAYOUT, lo, width, start, np.zeros(0, np.int64)
    n_deals = n_rows // 2
    for i in range(n_deals):
        a, b = 2 * i, 2 * i + 1
        if side[a] != 0 or side[b] != 1 or game[a] != game[b] or deal[a] != deal[b]:
            return TALLY_LAYOUT, lo, width, start, np.zeros(0, np.int64)
        if i and (game[a] < game[a - 2] or (game[a] == game[a - 2] and deal[a] <= deal[a - 2])):
            return TALLY_LAYOUT, lo, width, start, np.zeros(0, np.int64)
        if led[a] == led[b] or dealt[a] == dealt[b] or dealt[a] == led[a]:
            return TALLY_LAYOUT, lo, width, start, np.zeros(0, np.int64)
    for m in range(n_metrics):
        for s in range(2):
            low = high = np.int64(values[m, s]) if n_deals else np.int64(0)
            for i in range(n_deals):
                v = np.int64(values[m, 2 * i + s])
                low = min(low, v)
                high = max(high, v)
            lo[m, s] = low
            width[m, s] = high - low + 1
        cells = 2 * width[m, 0] * width[m, 1]
        if cells > MAX_CELLS:
            return TALLY_WIDE, lo, width, start, np.zeros(0, np.int64)
        start[m + 1] = start[m] + cells
    joint = np.zeros(start[n_metrics], np.int64)
    for m in range(n_metrics):
        w1 = width[m, 1]
        base = start[m]
        for i in range(n_deals):
            a = 2 * i
            first = 0 if led[a] else 1
            v0 = values[m, a] - lo[m, 0]
            v1 = values[m, a + 1] - lo[m, 1]
            joint[base + (first * width[m, 0] + v0) * w1 + v1] += 1
    return TALLY_OK, lo, width, start, joint


GAME_HISTS = ("deals", "plays", "redeals", "victory", "first_margin")  # the per-game samples of ``GameStats``


@kernel
def game_histograms(game, first_player, winner, totals, deals, plays, redeals, seat_side):
    """What ``analysis.games.GameStats`` counts from a games table, in two passes.

    ``game`` int64[G], ``first_player`` and ``winner`` int8[G], ``totals`` int16[S, G] (side s's total in row s),
    ``deals`` and ``redeals`` int16[G], ``plays`` int32[G], ``seat_side`` int8[players]. Returns ``(ok, outcome,
    lo, start, counts)``: ``ok`` false when the games are not in ascending order or a seat or side is out of
    range (then nothing else is meaningful); ``outcome`` int64[G, S + 4], the rows ``GameStats`` hashes (game,
    winner, the totals, deals, plays); for each sample h of :data:`GAME_HISTS`, counts of value ``lo[h] + i`` at
    ``counts[start[h] + i]`` (none when ``start[h] == start[h + 1]``: no game with a winner for ``victory``).
    """
    n_sides, n = totals.shape
    outcome = np.empty((n, n_sides + 4), np.int64)
    values = np.empty((len(GAME_HISTS), n), np.int64)
    used = np.zeros(len(GAME_HISTS), np.int64)
    lo = np.zeros(len(GAME_HISTS), np.int64)
    start = np.zeros(len(GAME_HISTS) + 1, np.int64)
    for g in range(n):
        if (g and game[g] < game[g - 1]) or not 0 <= first_player[g] < seat_side.shape[0]:
            return False, outcome, lo, start, np.zeros(0, np.int64)
        w = winner[g]
        if not -1 <= w < n_sides:
            return False, outcome, lo, start, np.zeros(0, np.int64)
        outcome[g, 0] = game[g]
        outcome[g, 1] = w
        for s in range(n_sides):
            outcome[g, 2 + s] = totals[s, g]
        outcome[g, 2 + n_sides] = deals[g]
        outcome[g, 3 + n_sides] = plays[g]
        values[0, g] = deals[g]
        values[1, g] = plays[g]
        values[2, g] = redeals[g]
        values[4, g] = _margin(totals, g, seat_side[first_player[g]])
        if w >= 0:
            values[3, used[3]] = _margin(totals, g, w)
            used[3] += 1
    used[0] = used[1] = used[2] = used[4] = n
    for h in range(len(GAME_HISTS)):
        start[h + 1] = start[h]
        if used[h]:
            low = high = values[h, 0]
            for i in range(used[h]):
                low = min(low, values[h, i])
                high = max(high, values[h, i])
            lo[h] = low
            start[h + 1] += high - low + 1
    counts = np.zeros(start[len(GAME_HISTS)], np.int64)
    for h in range(len(GAME_HISTS)):
        for i in range(used[h]):
            counts[start[h] + values[h, i] - lo[h]] += 1
    return True, outcome, lo, start, counts


@inline_kernel
def _margin(totals, g, side):
    """Side ``side``'s total in game ``g`` minus the best of the other sides' totals."""
    best = np.int64(-(1 << 31))
    for s in range(totals.shape[0]):
        if s != side:
            best = max(best, np.int64(totals[s, g]))
    return np.int64(totals[side, g]) - best
