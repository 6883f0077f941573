"""The deals table of a chunk in its final layout, built in one pass over the kernels' output arrays.

The kernels write a game's deals into fixed slots (``ChunkOut.deal_*``: [game, deal slot, side, ...]); the deals
table wants one row per played deal and side, in (game, deal, side) order, each column one contiguous array.
Doing that with numpy took a dozen passes over the chunk (pick the played slots, repeat, tile, sum the
categories, compare sides, pack the booleans) on the writer thread, which shares the cores with the kernels
playing the next chunk; this loop writes every column in one pass, without the GIL. Layout of :class:`DealRows`
(R rows, C categories)::

    game   int64[R]
    small  int8[3, R]       side, dealer, leader
    short  int16[C + 5, R]  deal, the C categories, points (their sum), sweeps, cards_taken, total
    flags  uint8[2, B]      dealt, led: Arrow's bit-packed booleans (bit r % 8 of byte r // 8), B = ceil(R / 8)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simcore._jit import kernel
from simcore.pages import small_pages

SMALL_SIDE, SMALL_DEALER, SMALL_LEADER = 0, 1, 2
FLAG_DEALT, FLAG_LED = 0, 1
SHORT_DEAL = 0
SHORT_EXTRA = 4  # short rows after the categories: points, sweeps, cards_taken, total


class DealRows(NamedTuple):
    """The deals table's columns as arrays (see the module docstring for the layout)."""

    game: np.ndarray
    small: np.ndarray
    short: np.ndarray
    flags: np.ndarray


def allocate_rows(n_rows: int, n_categories: int) -> DealRows:
    """Uninitialised columns for ``n_rows`` rows (:func:`fill_deal_rows` writes every element), in 4 KB pages
    (``simcore.pages``)."""
    with small_pages():
        return DealRows(
            game=np.empty(n_rows, np.int64),
            small=np.empty((3, n_rows), np.int8),
            short=np.empty((1 + n_categories + SHORT_EXTRA, n_rows), np.int16),
            flags=np.zeros((2, (n_rows + 7) // 8), np.uint8),
        )


@kernel
def fill_deal_rows(games, n_deals, deal_dealer, deal_points, side_values, seat_side, players, rows):
    """Write the rows of every played deal of a chunk into ``rows`` (``DealRows``, from :func:`allocate_rows`).

    ``games`` int64[G] (game indices), ``n_deals`` int16[G], ``deal_dealer`` int8[G, D], ``deal_points``
    int16[G, D, S, K] (K >= the C category rows of ``rows.short``: the points column sums all K),
    ``side_values``: (sweeps, cards_taken, total), each int16[G, D, S]; ``seat_side`` int8[players]: each
    seat's side. ``rows`` must hold sum(n_deals) * S rows; its ``flags`` must be zeroed.
    """
    n_sides = deal_points.shape[2]
    n_cats = deal_points.shape[3]
    n_cols = rows.short.shape[0] - 1 - SHORT_EXTRA
    points_row = 1 + n_cols
    sweeps, cards, totals = side_values
    r = 0
    for g in range(games.shape[0]):
        for d in range(n_deals[g]):
            dealer = deal_dealer[g, d]
            leader = (np.int16(dealer) + 1) % players
            dealer_side, leader_side = seat_side[dealer], seat_side[leader]
            for s in range(n_sides):
                rows.game[r] = games[g]
                rows.small[SMALL_SIDE, r] = s
                rows.small[SMALL_DEALER, r] = dealer
                rows.small[SMALL_LEADER, r] = leader
                rows.short[SHORT_DEAL, r] = d
                total = np.int16(0)
                for k in range(n_cats):
                    v = deal_points[g, d, s, k]
                    if k < n_cols:
                        rows.short[1 + k, r] = v
                    total += v
                rows.short[points_row, r] = total
                rows.short[points_row + 1, r] = sweeps[g, d, s]
                rows.short[points_row + 2, r] = cards[g, d, s]
                rows.short[points_row + 3, r] = totals[g, d, s]
                bit = np.uint8(1 << (r & 7))
                if dealer_side == s:
                    rows.flags[FLAG_DEALT, r >> 3] |= bit
                if leader_side == s:
                    rows.flags[FLAG_LED, r >> 3] |= bit
                r += 1
