"""Legal moves of a position, with the compulsion rules applied.

A move is a pair of int64 masks ``(play, take)``: the card played from hand and the table cards it takes
(``take == 0`` is a trail). Moves are listed in the canonical order ascending by (played card, take mask): the
order in which ``random`` indexes them and ``greedy`` breaks ties, and the one the reference engine uses.
"""

from __future__ import annotations

from simcore._jit import kernel
from simcore.kernels.bits import lowest
from simcore.kernels.captures import append_card_captures, put_move, table_subset_sums
from simcore.variants.base import FORCED_CARD, FORCED_NONE, FORCED_PLAYER


@kernel
def legal_moves(ps, hand, table, forced, priority, sum_mask, value_by_rank):
    """Write the legal moves of the player holding ``hand`` into the decision space ``ps``; returns their number.

    forced (``Rules.forced_capture``): ``card``, a played card that can capture must; ``player``, if any card
    can capture the move must be a capture; ``none``, any card may be trailed. The other scalars are the
    ``Rules`` fields of the same names. This runs once per play: one array argument, the rest scalars.
    """
    k = table_subset_sums(ps, table & sum_mask, value_by_rank)
    n = 0
    rest = hand
    while rest != 0:
        c = lowest(rest)
        rest ^= 1 << c
        if forced == FORCED_NONE:
            n = put_move(ps, n, 1 << c, 0)
            n = append_card_captures(ps, c, table, priority, sum_mask, value_by_rank, k, n)
        else:
            m = append_card_captures(ps, c, table, priority, sum_mask, value_by_rank, k, n)
            if m == n and forced == FORCED_CARD:
                m = put_move(ps, n, 1 << c, 0)
            n = m
    if n == 0 and forced == FORCED_PLAYER:
        rest = hand
        while rest != 0:
            c = lowest(rest)
            rest ^= 1 << c
            n = put_move(ps, n, 1 << c, 0)
    return n
