"""One deal and one whole game of the Scopa family, writing rows of a chunk's output arrays.

Procedure (RULES.md A.2, A.5 and Part B section 4; the reference engine follows the same steps):

* Streams: stream 0 deals (first dealer, then one shuffle per deal or redeal), stream ``1 + seat`` is the
  seat's policy stream. The first dealer is ``bounded(players)``; deal ``d`` is dealt by
  ``(first_dealer + d) % players`` and led by the next seat; seats play in order.
* Shuffle: the pack's card ids in ascending order, then Fisher-Yates from the top (``j = bounded(i + 1)`` for
  ``i = n-1 .. 1``). Hands come first from the shuffled array, in playing order from the leader, then the table,
  then later rounds' hands in the same order (RULES.md 0.2.5).
* A capture that empties the table is a sweep, except with the deal's last card unless ``last_play_sweep``.
  The table left at the end goes to the last capturer's side; if nobody captured it stays unscored.

Trace events are written only when ``ev_slot >= 0`` (``scopasim trace``); one int64 row per event:
``[type, a, b, c, d, mask1, mask2]`` (meanings at the ``EV_*`` constants).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simcore._jit import kernel
from simcore.kernels.bits import KINGS_MASK, lowest, popcount
from simcore.kernels.moves import legal_moves
from simcore.kernels.scoring import game_winner, score_deal
from simcore.kernels.workspace import DECK, HANDS, MOVES, PILES, RNG, SWEEPS, TOTALS, VIEW, WEIGHT, borrow
from simcore.policies.kernels import choose
from simcore.rng import bounded, stream_state

# Event rows: [type, a, b, c, d, mask1, mask2]
EV_DEAL = 0  # a = deal index, b = dealer
EV_HAND = 1  # a = seat, mask1 = cards
EV_TABLE = 2  # mask1 = cards
EV_REDEAL = 3  # a = reason (REDEAL_KINGS)
EV_PLAY = 4  # a = seat, b = kind, c = points, d = sweep, mask1 = played, mask2 = taken
EV_RESIDUE = 5  # a = seat, mask1 = cards
EV_SCORE = 6  # a = deal index (points and totals are in the deal arrays)
EV_END = 8  # a = winning side
EV_WIDTH = 7
KIND_CAPTURE, KIND_TRAIL = 0, 1
REDEAL_KINGS = 0

# The policy view (workspace slots VIEW + ...): what the seat to move may know
VIEW_SEAT, VIEW_SIDE, VIEW_HAND, VIEW_TABLE, VIEW_SEEN, VIEW_STOCK, VIEW_DEAL, VIEW_PLAY = range(8)
VIEW_PILES = 8  # + side: every side's capture pile (public: captured cards were seen face up)
VIEW_TOTALS = 12  # + side: game totals before this deal


class ChunkOut(NamedTuple):
    """Output arrays of a chunk of G games with D deal slots each (rows of the games and deals tables)."""

    first_dealer: np.ndarray  # int8[G]
    winner: np.ndarray  # int8[G], side
    n_deals: np.ndarray  # int16[G]
    n_plays: np.ndarray  # int32[G]
    redeals: np.ndarray  # int16[G]
    totals: np.ndarray  # int16[G, sides]
    overflow: np.ndarray  # int8[G]: 1 = more than D deals, 2 = more events than the trace buffer holds
    deal_dealer: np.ndarray  # int8[G, D]
    deal_points: np.ndarray  # int16[G, D, sides, categories]
    deal_sweeps: np.ndarray  # int16[G, D, sides]
    deal_cards: np.ndarray  # int16[G, D, sides]
    deal_totals: np.ndarray  # int16[G, D, sides]
    events: np.ndarray  # int64[G or 1, E, EV_WIDTH]
    n_events: np.ndarray  # int64[G or 1]


class Scratch(NamedTuple):
    """Per-worker working memory, reused game after game (every game resets what it reads)."""

    ws: np.ndarray  # int64 workspace (simcore.kernels.workspace)
    points: np.ndarray  # int64[4, 16]: deal points per side and category
    work: np.ndarray  # int64[4]: scoring scratch


@kernel
def new_scratch(rules):
    """Allocate one worker's scratch for ``rules``."""
    return Scratch(
        np.zeros(MOVES + 2 * rules.max_moves, np.int64),
        np.zeros((4, 16), np.int64),
        np.zeros(4, np.int64),
    )


@kernel
def emit(events, ev_slot, n, kind, a, b, c, d, mask1, mask2):
    """Record trace event number ``n`` of game row ``ev_slot`` if it fits; returns the new event count.

    Callers test ``ev_slot >= 0`` first, so a simulation pays one branch per event and no call.
    """
    if n < events.shape[1]:
        row = events[ev_slot, n]
        row[0], row[1], row[2], row[3], row[4], row[5], row[6] = kind, a, b, c, d, mask1, mask2
    return n + 1


@kernel
def shuffle(ws, pack):
    """Fill the workspace deck with the pack's cards (ascending id) and Fisher-Yates them; returns the count."""
    n = 0
    rest = pack
    while rest != 0:
        c = lowest(rest)
        rest ^= 1 << c
        ws[DECK + n] = c
        n += 1
    for i in range(n - 1, 0, -1):
        j = bounded(ws, RNG, i + 1)
        ws[DECK + i], ws[DECK + j] = ws[DECK + j], ws[DECK + i]
    return n


@kernel
def take_cards(ws, pos, count):
    """Mask of the deck cards ``pos .. pos+count-1``."""
    m = 0
    for i in range(pos, pos + count):
        m |= 1 << ws[DECK + i]
    return m


@kernel
def deal_hands(ws, players, hand_size, first, pos, events, ev_slot, ne):
    """Deal one hand to every seat in playing order from ``first``; returns (new position, events)."""
    for k in range(players):
        seat = (first + k) % players
        ws[HANDS + seat] = take_cards(ws, pos, hand_size)
        pos += hand_size
        if ev_slot >= 0:
            ne = emit(events, ev_slot, ne, EV_HAND, seat, 0, 0, 0, ws[HANDS + seat], 0)
    return pos, ne


@kernel
def start_deal(rules, ws, deal_idx, dealer, events, ev_slot, ne):
    """Shuffle and deal, redealing while the deal is void (kings); returns (table, pos, n, redeals, events)."""
    first = (dealer + 1) % rules.players
    redeals = 0
    while True:
        if ev_slot >= 0:
            ne = emit(events, ev_slot, ne, EV_DEAL, deal_idx, dealer, 0, 0, 0, 0)
        n = shuffle(ws, rules.pack)
        pos, ne = deal_hands(ws, rules.players, rules.hand_size, first, 0, events, ev_slot, ne)
        table = take_cards(ws, pos, rules.table_size)
        pos += rules.table_size
        if ev_slot >= 0:
            ne = emit(events, ev_slot, ne, EV_TABLE, 0, 0, 0, 0, table, 0)
        if rules.redeal_kings > 0 and popcount(table & KINGS_MASK) >= rules.redeal_kings:
            if ev_slot >= 0:
                ne = emit(events, ev_slot, ne, EV_REDEAL, REDEAL_KINGS, 0, 0, 0, 0, 0)
            redeals += 1
            continue
        return table, pos, n, redeals, ne


@kernel
def fill_view(ws, seat, side, table, seen, stock, deal_idx, t):
    """What ``seat`` may know before its move: own hand, table, every card seen face up, piles, scores."""
    hand = ws[HANDS + seat]
    ws[VIEW + VIEW_SEAT] = seat
    ws[VIEW + VIEW_SIDE] = side
    ws[VIEW + VIEW_HAND] = hand
    ws[VIEW + VIEW_TABLE] = table
    ws[VIEW + VIEW_SEEN] = seen | hand
    ws[VIEW + VIEW_STOCK] = stock
    ws[VIEW + VIEW_DEAL] = deal_idx
    ws[VIEW + VIEW_PLAY] = t
    for k in range(4):
        ws[VIEW + VIEW_PILES + k] = ws[PILES + k]
        ws[VIEW + VIEW_TOTALS + k] = ws[TOTALS + k]


@kernel
def play_deal(deal_idx, dealer, rules, policy_ids, params, ws, events, ev_slot, ne):
    """Play one deal into the workspace piles and sweeps; returns (plays, redeals, events).

    The per-play loop reads rules through local scalars and calls helpers with the workspace and scalars only:
    every array argument costs atomic reference counting per call (see ``simcore.kernels.workspace``).
    """
    table, pos, n, redeals, ne = start_deal(rules, ws, deal_idx, dealer, events, ev_slot, ne)
    players, hand_size = rules.players, rules.hand_size
    forced, priority = rules.forced_capture, rules.single_card_priority
    sum_mask, value_by_rank = rules.sum_mask, rules.value_by_rank
    last_sweep, sweep_points = rules.last_play_sweep != 0, rules.sweep_points
    side_of = rules.side_of
    first = (dealer + 1) % players
    for side in range(4):
        ws[PILES + side] = 0
        ws[SWEEPS + side] = 0
    seen = table
    last_capturer = -1
    total_plays = n - rules.table_size
    per_round = players * hand_size
    for t in range(total_plays):
        if t > 0 and t % per_round == 0:
            pos, ne = deal_hands(ws, players, hand_size, first, pos, events, ev_slot, ne)
        seat = (first + t) % players
        side = side_of[seat]
        n_moves = legal_moves(ws, ws[HANDS + seat], table, forced, priority, sum_mask, value_by_rank)
        fill_view(ws, seat, side, table, seen, n - pos, deal_idx, t)
        i = choose(ws, policy_ids[seat], params, n_moves, seat)
        play = ws[MOVES + 2 * i]
        take = ws[MOVES + 2 * i + 1]
        ws[HANDS + seat] &= ~play
        seen |= play
        if take == 0:
            table |= play
            if ev_slot >= 0:
                ne = emit(events, ev_slot, ne, EV_PLAY, seat, KIND_TRAIL, 0, 0, play, 0)
            continue
        table &= ~take
        ws[PILES + side] |= take | play
        last_capturer = seat
        sweep = table == 0 and (t < total_plays - 1 or last_sweep)
        if sweep:
            ws[SWEEPS + side] += 1
        if ev_slot >= 0:
            ne = emit(events, ev_slot, ne, EV_PLAY, seat, KIND_CAPTURE, sweep * sweep_points, sweep, play, take)
    if table != 0 and last_capturer >= 0:
        ws[PILES + side_of[last_capturer]] |= table
        if ev_slot >= 0:
            ne = emit(events, ev_slot, ne, EV_RESIDUE, last_capturer, 0, 0, 0, table, 0)
    return total_plays, redeals, ne


@kernel
def record_deal(slot, d, dealer, rules, out, s):
    """Score the deal just played, add it to the totals and write its rows."""
    ws = borrow(s.ws)
    score_deal(rules, ws[PILES : PILES + 4], ws[SWEEPS : SWEEPS + 4], s.points, s.work)
    out.deal_dealer[slot, d] = dealer
    for side in range(rules.n_sides):
        deal_total = 0
        for k in range(rules.n_categories):
            out.deal_points[slot, d, side, k] = s.points[side, k]
            deal_total += s.points[side, k]
        ws[TOTALS + side] += deal_total
        out.deal_sweeps[slot, d, side] = ws[SWEEPS + side]
        out.deal_cards[slot, d, side] = popcount(ws[PILES + side])
        out.deal_totals[slot, d, side] = ws[TOTALS + side]


@kernel
def play_game(slot, game, seed, rules, policy_ids, params, out, s, ev_slot):
    """Play game ``game`` of the run seeded ``seed`` and write row ``slot`` of ``out``."""
    ws = borrow(s.ws)
    players = rules.players
    for i in range(players + 1):
        ws[RNG + i] = stream_state(seed, game, i)
    for side in range(4):
        ws[TOTALS + side] = 0
    for c in range(52):
        ws[WEIGHT + c] = rules.card_weight[c]
    first_dealer = bounded(ws, RNG, players)
    ne = 0
    deals = 0
    plays = 0
    redeals = 0
    winner = -1
    out.overflow[slot] = 0
    while winner < 0:
        if deals == out.deal_dealer.shape[1]:
            out.overflow[slot] = 1
            break
        dealer = (first_dealer + deals) % players
        p, r, ne = play_deal(deals, dealer, rules, policy_ids, params, ws, out.events, ev_slot, ne)
        record_deal(slot, deals, dealer, rules, out, s)
        if ev_slot >= 0:
            ne = emit(out.events, ev_slot, ne, EV_SCORE, deals, 0, 0, 0, 0, 0)
        plays += p
        redeals += r
        deals += 1
        winner = game_winner(ws[TOTALS : TOTALS + 4], rules.n_sides, rules.target)
    if ev_slot >= 0:
        ne = emit(out.events, ev_slot, ne, EV_END, winner, 0, 0, 0, 0, 0)
        out.n_events[ev_slot] = ne
        if ne > out.events.shape[1]:
            out.overflow[slot] = 2
    out.first_dealer[slot] = first_dealer
    out.winner[slot] = winner
    out.n_deals[slot] = deals
    out.n_plays[slot] = plays
    out.redeals[slot] = redeals
    for side in range(rules.n_sides):
        out.totals[slot, side] = ws[TOTALS + side]
