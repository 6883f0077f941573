"""Python side of the kernels: allocate outputs, normalise dtypes, run games, retry the rare overflows.

Everything that calls a kernel goes through here, so each kernel compiles for one signature only.
"""

from __future__ import annotations

import numpy as np

from simcore.errors import ConfigError
from simcore.kernels.batch import run_games
from simcore.kernels.game import EV_WIDTH, ChunkOut
from simcore.kernels.moves import exchange_moves, move_rules
from simcore.kernels.moves import legal_moves as _legal_moves
from simcore.kernels.scoring import score_deal as _score_deal
from simcore.kernels.workspace import MOVES, move_space_size
from simcore.variants.base import KASZINO, Rules

DEFAULT_DEAL_SLOTS = 16
MOVE_BUFFER_FULL = 3  # ChunkOut.overflow code
EVENTS_PER_DEAL = 64


def allocate(rules: Rules, n_games: int, deal_slots: int, trace: bool) -> ChunkOut:
    """Zeroed output arrays for ``n_games`` games of up to ``deal_slots`` deals."""
    sides, cats = rules.n_sides, rules.n_categories
    ev_games = n_games if trace else 1
    ev_len = deal_slots * EVENTS_PER_DEAL if trace else 1
    return ChunkOut(
        first_dealer=np.zeros(n_games, np.int8),
        winner=np.zeros(n_games, np.int8),
        n_deals=np.zeros(n_games, np.int16),
        n_plays=np.zeros(n_games, np.int32),
        redeals=np.zeros(n_games, np.int16),
        totals=np.zeros((n_games, sides), np.int16),
        overflow=np.zeros(n_games, np.int8),
        mid_deal=np.zeros(n_games, np.int8),
        deal_dealer=np.zeros((n_games, deal_slots), np.int8),
        deal_points=np.zeros((n_games, deal_slots, sides, cats), np.int16),
        deal_sweeps=np.zeros((n_games, deal_slots, sides), np.int16),
        deal_cards=np.zeros((n_games, deal_slots, sides), np.int16),
        deal_totals=np.zeros((n_games, deal_slots, sides), np.int16),
        events=np.zeros((ev_games, ev_len, EV_WIDTH), np.int64),
        n_events=np.zeros(ev_games, np.int64),
    )


def play(
    rules: Rules,
    seed: int,
    games: np.ndarray,
    policy_ids: np.ndarray,
    params: np.ndarray,
    trace: bool = False,
    deal_slots: int = DEFAULT_DEAL_SLOTS,
) -> ChunkOut:
    """Play the games with indices ``games`` and return their output arrays (row i = ``games[i]``).

    A game longer than ``deal_slots`` deals (or with more trace events than its buffer) is played again, alone,
    with four times the room: games are pure functions of their index, so the retry gives the same game.
    """
    games = np.ascontiguousarray(games, dtype=np.int64)
    out = allocate(rules, len(games), deal_slots, trace)
    run_games(
        games,
        np.int64(seed),
        rules,
        np.ascontiguousarray(policy_ids, dtype=np.int64),
        np.ascontiguousarray(params, dtype=np.float64),
        out,
        trace,
    )
    if (out.overflow == MOVE_BUFFER_FULL).any():
        game = int(games[np.argmax(out.overflow == MOVE_BUFFER_FULL)])
        raise ConfigError(
            f"game {game} reached a position with more than {rules.max_moves:,} legal moves (Kaszinó exchanges "
            "without a value cap on a very large table); set max_sum (e.g. 13) or keep forced_capture=player"
        )
    redo = np.flatnonzero(out.overflow)
    if len(redo) == 0:
        return out
    again = play(rules, seed, games[redo], policy_ids, params, trace, deal_slots * 4)
    return merge_overflow(out, again, redo)


def merge_overflow(out: ChunkOut, again: ChunkOut, rows: np.ndarray) -> ChunkOut:
    """``out`` widened to ``again``'s deal and event room, with ``rows`` replaced by ``again``'s rows."""
    merged = []
    for mine, theirs in zip(out, again, strict=True):
        if mine.ndim >= 2 and mine.shape[1] != theirs.shape[1] and mine.shape[0] == out.winner.shape[0]:
            wide = np.zeros((mine.shape[0], *theirs.shape[1:]), mine.dtype)
            wide[:, : mine.shape[1]] = mine
            mine = wide
        if mine.shape[0] == out.winner.shape[0]:
            mine[rows] = theirs
        merged.append(mine)
    return ChunkOut(*merged)


def legal_moves(rules: Rules, hand_mask: int, table_mask: int) -> list[tuple[int, int]]:
    """Legal moves ``(played mask, taken mask)`` in canonical order (a Python view of the kernel, for tests)."""
    ps = np.zeros(move_space_size(rules.max_moves), np.int64)
    if rules.variant == KASZINO:
        n = exchange_moves(ps, np.int64(hand_mask), np.int64(table_mask), move_rules(rules), False)
    else:
        n = _legal_moves(ps, np.int64(hand_mask), np.int64(table_mask), move_rules(rules))
    return [(int(ps[MOVES + 2 * i]), int(ps[MOVES + 2 * i + 1])) for i in range(n)]


def score_deal(
    rules: Rules,
    piles: list[int],
    sweep_points: list[int],
    same_suit: list[int] | None = None,
    partial: bool = False,
) -> np.ndarray:
    """Deal points ``[side, category]`` of the kernel for side piles and immediate points (for tests)."""
    arrays = [np.zeros(4, np.int64) for _ in range(3)]
    for arr, values in zip(arrays, (piles, sweep_points, same_suit or []), strict=True):
        arr[: len(values)] = values
    points = np.zeros((4, 16), np.int64)
    _score_deal(rules, *arrays, points, np.zeros(4, np.int64), partial)
    return points[: rules.n_sides, : rules.n_categories].copy()
