"""One deal and one whole game of any of the four games, writing rows of a chunk's output arrays.

Scopa, Skopa and Foracio share ``play_deal`` (one card per turn, seats in order, hands dealt in rounds), driven
by ``Rules`` flags: rank-only court captures, Foracio's ace and same-suit points, valued scope, mid-deal
declarations. Kaszinó's turn structure is its own (``play_deal_kaszino``: exchanges, double moves after a tábla,
waiting players, draws led by the last capturer). Procedure (RULES.md A.2, A.5 and Part B; the reference engines
in ``simcore.reference`` follow the same steps):

* Streams: stream 0 deals (first dealer, then one shuffle per deal or redeal), stream ``1 + seat`` is the
  seat's policy stream. The first dealer is ``bounded(players)``; deal ``d`` is dealt by
  ``(first_dealer + d) % players`` and led by the next seat; seats play in order.
* Shuffle: the pack's card ids in ascending order, then Fisher-Yates from the top (``j = bounded(i + 1)`` for
  ``i = n-1 .. 1``). Hands come first from the shuffled array, in playing order from the leader, then the table,
  then later rounds' hands in the same order (RULES.md 0.2.5).
* A capture that empties the table is a sweep, except with the deal's last card unless ``last_play_sweep``
  (and never with Foracio's ace). The table left at the end goes to the last capturer's side; if nobody captured
  it stays unscored. A mid-deal win ends the game after the play that secured it, with no residue.

Trace events are written only when ``ev_slot >= 0`` (``scopasim trace``); one int64 row per event:
``[type, a, b, c, d, mask1, mask2]`` (meanings at the ``EV_*`` constants).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simcore._jit import kernel
from simcore.kernels.bits import KINGS_MASK, lowest, popcount, suit_mask
from simcore.kernels.captures import card_value
from simcore.kernels.moves import exchange_moves, legal_moves, move_rules
from simcore.kernels.scoring import game_winner, kaszino_sure_points, score_deal
from simcore.kernels.workspace import (
    DEAL_RNG,
    DECK,
    GAME_STATE_SIZE,
    HANDS,
    MAX_SAMPLES,
    MOVE_OVERFLOW,
    MOVES,
    PILES,
    RI_ACE_ON_EMPTY,
    RI_ACE_SWEEPS,
    RI_CARDS_TARGET,
    RI_COUNT_SUIT,
    RI_COUNT_SUIT_TARGET,
    RI_FORCED,
    RI_LAST_SWEEP,
    RI_MAX_HAND,
    RI_MAX_SUM,
    RI_PACK,
    RI_PLAYERS,
    RI_PRIORITY,
    RI_RANK_ONLY,
    RI_SAME_SUIT,
    RI_SUM_MASK,
    RI_SWEEP_MODE,
    RI_SWEEP_POINTS,
    RI_SWEEP_VALUE_BY_RANK,
    RI_VALUE_BY_RANK,
    RI_VARIANT,
    RNG,
    SAME_SUIT,
    SWEEP_PTS,
    SWEEPS,
    TOTALS,
    VIEW,
    WEIGHT,
    borrow,
    seat_space,
)
from simcore.policies.kernels import choose
from simcore.rng import bounded, stream_state
from simcore.variants.base import KASZINO

# Event rows: [type, a, b, c, d, mask1, mask2]
EV_DEAL = 0  # a = deal index, b = dealer
EV_HAND = 1  # a = seat, mask1 = cards
EV_TABLE = 2  # mask1 = cards
EV_REDEAL = 3  # a = reason (REDEAL_KINGS)
EV_PLAY = 4  # a = seat, b = kind, c = points, d = sweep, mask1 = played, mask2 = taken
EV_RESIDUE = 5  # a = seat, mask1 = cards
EV_SCORE = 6  # a = deal index (points and totals are in the deal arrays)
EV_OUT = 7  # a = seat that wins mid-deal
EV_END = 8  # a = winning side
EV_WIDTH = 7
KIND_CAPTURE, KIND_TRAIL, KIND_KEEP = 0, 1, 2
ACES = 0xF

# How ``decide`` lists the moves
MOVES_FAMILY, MOVES_EXCHANGE, MOVES_TRAIL = 0, 1, 2
REDEAL_KINGS = 0

# The policy view (workspace slots VIEW + ...): what the seat to move may know
VIEW_SEAT, VIEW_SIDE, VIEW_HAND, VIEW_TABLE, VIEW_SEEN, VIEW_STOCK, VIEW_DEAL, VIEW_PLAY = range(8)
VIEW_PILES = 8  # + side: every side's capture pile (public: captured cards were seen face up)
VIEW_TOTALS = 12  # + side: game totals before this deal
VIEW_OPEN = 16  # the other hand when it is public (Kaszinó's last round), else 0
VIEW_NEXT_COUNT = 17  # cards in the next player's hand
VIEW_LAST = 18  # 1 if this is the deal's last play


class ChunkOut(NamedTuple):
    """Output arrays of a chunk of G games with D deal slots each (rows of the games and deals tables)."""

    first_dealer: np.ndarray  # int8[G]
    winner: np.ndarray  # int8[G], side
    n_deals: np.ndarray  # int16[G]
    n_plays: np.ndarray  # int32[G]
    redeals: np.ndarray  # int16[G]
    totals: np.ndarray  # int16[G, sides]
    overflow: np.ndarray  # int8[G]: 1 = more than D deals, 2 = more trace events than the buffer, 3 = move buffer
    mid_deal: np.ndarray  # int8[G]: 1 = decided in the middle of a deal
    deal_dealer: np.ndarray  # int8[G, D]
    deal_points: np.ndarray  # int16[G, D, sides, categories]
    deal_sweeps: np.ndarray  # int16[G, D, sides]
    deal_cards: np.ndarray  # int16[G, D, sides]
    deal_totals: np.ndarray  # int16[G, D, sides]
    events: np.ndarray  # int64[G or 1, E, EV_WIDTH]
    n_events: np.ndarray  # int64[G or 1]


class Scratch(NamedTuple):
    """Per-worker working memory, reused game after game (every game resets what it reads)."""

    gs: np.ndarray  # int64 game state (simcore.kernels.workspace)
    ps: np.ndarray  # int64 decision space: all a policy receives
    points: np.ndarray  # int64[4, 16]: deal points per side and category
    work: np.ndarray  # int64[4]: scoring scratch


@kernel
def new_scratch(rules):
    """Allocate one worker's scratch for ``rules``."""
    return Scratch(
        np.zeros(GAME_STATE_SIZE, np.int64),
        np.zeros(2 * (MOVES + 2 * rules.max_moves) + MAX_SAMPLES, np.int64),
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
def shuffle(gs, pack):
    """Fill the deck with the pack's cards (ascending id) and Fisher-Yates them; returns the count."""
    n = 0
    rest = pack
    while rest != 0:
        c = lowest(rest)
        rest ^= 1 << c
        gs[DECK + n] = c
        n += 1
    for i in range(n - 1, 0, -1):
        j = bounded(gs, DEAL_RNG, i + 1)
        gs[DECK + i], gs[DECK + j] = gs[DECK + j], gs[DECK + i]
    return n


@kernel
def take_cards(gs, pos, count):
    """Mask of the deck cards ``pos .. pos+count-1``."""
    m = 0
    for i in range(pos, pos + count):
        m |= 1 << gs[DECK + i]
    return m


@kernel
def deal_hands(gs, players, hand_size, first, pos, events, ev_slot, ne):
    """Deal one hand to every seat in playing order from ``first``; returns (new position, events)."""
    for k in range(players):
        seat = (first + k) % players
        gs[HANDS + seat] = take_cards(gs, pos, hand_size)
        pos += hand_size
        if ev_slot >= 0:
            ne = emit(events, ev_slot, ne, EV_HAND, seat, 0, 0, 0, gs[HANDS + seat], 0)
    return pos, ne


@kernel
def start_deal(rules, gs, deal_idx, dealer, events, ev_slot, ne):
    """Shuffle and deal, redealing while the deal is void (kings); returns (table, pos, n, redeals, events)."""
    first = (dealer + 1) % rules.players
    redeals = 0
    while True:
        if ev_slot >= 0:
            ne = emit(events, ev_slot, ne, EV_DEAL, deal_idx, dealer, 0, 0, 0, 0)
        n = shuffle(gs, rules.pack)
        pos, ne = deal_hands(gs, rules.players, rules.hand_size, first, 0, events, ev_slot, ne)
        table = take_cards(gs, pos, rules.table_size)
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
def decide(gs, ps, seat, side, table, seen, stock, deal_idx, t, rs, policy_id, params, mode, open_hand):
    """The move the seat plays: legal moves into ``ps``, the seat's view into ``ps``, then its policy.

    ``rs``: the rule scalars of ``move_rules``; ``mode``: MOVES_FAMILY, MOVES_EXCHANGE (Kaszinó) or MOVES_TRAIL
    (a forced trail); ``open_hand``: the other hand when it is public, else 0. This is the only place where game
    state flows to a policy, and only through the view: the policy is handed ``ps``, never ``gs``. Returns the
    index of the chosen move in ``ps``.
    """
    hand = gs[HANDS + seat]
    space = seat_space(ps)
    if mode == MOVES_FAMILY:
        n_moves = legal_moves(space, hand, table, rs)
    else:
        n_moves = exchange_moves(space, hand, table, rs, mode == MOVES_TRAIL)
    ps[VIEW + VIEW_SEAT] = seat
    ps[VIEW + VIEW_SIDE] = side
    ps[VIEW + VIEW_HAND] = hand
    ps[VIEW + VIEW_TABLE] = table
    ps[VIEW + VIEW_SEEN] = seen | hand | open_hand
    ps[VIEW + VIEW_STOCK] = stock
    ps[VIEW + VIEW_DEAL] = deal_idx
    ps[VIEW + VIEW_PLAY] = t
    ps[VIEW + VIEW_OPEN] = open_hand
    players = ps[RI_PLAYERS]
    ps[VIEW + VIEW_NEXT_COUNT] = popcount(gs[HANDS + (seat + 1) % players])
    in_hands = 0
    for s in range(players):
        in_hands += popcount(gs[HANDS + s])
    ps[VIEW + VIEW_LAST] = stock == 0 and in_hands == 1
    for k in range(4):
        ps[VIEW + VIEW_PILES + k] = gs[PILES + k]
        ps[VIEW + VIEW_TOTALS + k] = gs[TOTALS + k]
    return choose(ps, policy_id, params, n_moves, seat)


@kernel
def clear_deal(gs):
    """Empty the deal's piles and per-deal counters."""
    for side in range(4):
        gs[PILES + side] = 0
        gs[SWEEPS + side] = 0
        gs[SWEEP_PTS + side] = 0
        gs[SAME_SUIT + side] = 0


@kernel
def award_residue(gs, table, last_capturer, side_of, events, ev_slot, ne):
    """The cards left on the table go to the last capturer's side (none if nobody captured)."""
    if table != 0 and last_capturer >= 0:
        gs[PILES + side_of[last_capturer]] |= table
        if ev_slot >= 0:
            ne = emit(events, ev_slot, ne, EV_RESIDUE, last_capturer, 0, 0, 0, table, 0)
    return ne


@kernel
def play_deal(deal_idx, dealer, rules, policy_ids, params, gs, ps, events, ev_slot, ne):
    """Play one deal of Scopa, Skopa or Foracio; returns (plays, redeals, events, out_side, last_capturer).

    ``out_side`` is the side that won in the middle of the deal (Foracio's declaration), else -1. The per-play
    loop reads rules through local scalars and passes helpers only scalars and the two borrowed work arrays.
    """
    table, pos, n, redeals, ne = start_deal(rules, gs, deal_idx, dealer, events, ev_slot, ne)
    players, hand_size, side_of = rules.players, rules.hand_size, rules.side_of
    rs = move_rules(rules)
    value_by_rank, ace_sweeps, same_suit_bonus = rules.value_by_rank, rules.ace_sweeps, rules.same_suit_bonus
    last_sweep, sweep_mode, sweep_points = rules.last_play_sweep != 0, rules.sweep_mode, rules.sweep_points
    mid_deal_out, target = rules.mid_deal_out, rules.target
    first = (dealer + 1) % players
    clear_deal(gs)
    seen = table
    last_capturer = -1
    total_plays = n - rules.table_size
    per_round = players * hand_size
    for t in range(total_plays):
        if t > 0 and t % per_round == 0:
            pos, ne = deal_hands(gs, players, hand_size, first, pos, events, ev_slot, ne)
        seat = (first + t) % players
        side = side_of[seat]
        i = decide(gs, ps, seat, side, table, seen, n - pos, deal_idx, t, rs, policy_ids[seat], params, MOVES_FAMILY, 0)
        play = ps[MOVES + 2 * i]
        take = ps[MOVES + 2 * i + 1]
        gs[HANDS + seat] &= ~play
        seen |= play
        if take == 0:
            table |= play
            if ev_slot >= 0:
                ne = emit(events, ev_slot, ne, EV_PLAY, seat, KIND_TRAIL, 0, 0, play, 0)
            continue
        table &= ~take
        gs[PILES + side] |= take | play
        last_capturer = seat
        kind = KIND_CAPTURE
        points = 0
        sweep = False
        if ace_sweeps != 0 and play & ACES:
            if take == play:
                kind = KIND_KEEP  # Foracio: the ace kept itself on an empty table
        else:
            c = lowest(play)
            if same_suit_bonus != 0 and popcount(take) >= 2 and (take & ~suit_mask(c & 3)) == 0:
                bonus = card_value(c, value_by_rank)  # F7: a same-suit sum capture scores at once
                gs[SAME_SUIT + side] += bonus
                points += bonus
            if table == 0 and (t < total_plays - 1 or last_sweep):
                sweep = True
                gs[SWEEPS + side] += 1
                swept = sweep_points if sweep_mode == 0 else card_value(c, rules.sweep_value_by_rank)
                gs[SWEEP_PTS + side] += swept
                points += swept
        if ev_slot >= 0:
            shown = 0 if kind == KIND_KEEP else take
            ne = emit(events, ev_slot, ne, EV_PLAY, seat, kind, points, sweep, play, shown)
        secured = gs[TOTALS + side] + gs[SWEEP_PTS + side] + gs[SAME_SUIT + side]
        if mid_deal_out != 0 and points > 0 and secured >= target:
            if ev_slot >= 0:
                ne = emit(events, ev_slot, ne, EV_OUT, seat, 0, 0, 0, 0, 0)
            return t + 1, redeals, ne, side, last_capturer
    ne = award_residue(gs, table, last_capturer, side_of, events, ev_slot, ne)
    return total_plays, redeals, ne, -1, last_capturer


@kernel
def play_deal_kaszino(deal_idx, dealer, rules, policy_ids, params, gs, ps, events, ev_slot, ne):
    """Play one deal of Kaszinó (RULES.md 2.3); returns (plays, redeals, events, out_side, last_capturer).

    Turns alternate, a player with an empty hand waits, a tábla gives the opponent a double move (a forced
    trail, then a normal move), and when both hands are empty the leader draws first. ``out_side`` is the player
    who reached the target on sure points mid-deal ("AUSZ!"), else -1.
    """
    table, pos, n, redeals, ne = start_deal(rules, gs, deal_idx, dealer, events, ev_slot, ne)
    rs = move_rules(rules)
    nondealer = (dealer + 1) % 2
    clear_deal(gs)
    seen = table
    to_move = nondealer
    pending_double = -1
    last_capturer = -1
    plays = 0
    while True:
        if gs[HANDS] == 0 and gs[HANDS + 1] == 0:
            if pos == n:
                break
            leader = last_capturer if rules.leader_last_capturer != 0 and last_capturer >= 0 else nondealer
            pos, ne = deal_hands(gs, 2, 3, leader, pos, events, ev_slot, ne)
            to_move = leader
            continue
        p = to_move
        to_move = 1 - p
        if gs[HANDS + p] == 0:
            continue  # waiting for the other hand to empty (K8)
        double = pending_double == p
        if double:
            pending_double = -1
        for step in range(2 if double else 1):
            if gs[HANDS + p] == 0:
                break
            mode = MOVES_TRAIL if double and step == 0 else MOVES_EXCHANGE
            open_hand = gs[HANDS + 1 - p] if rules.last_round_open != 0 and pos == n else 0
            i = decide(gs, ps, p, p, table, seen, n - pos, deal_idx, plays, rs, policy_ids[p], params, mode, open_hand)
            play = ps[MOVES + 2 * i]
            take = ps[MOVES + 2 * i + 1]
            gs[HANDS + p] &= ~play
            seen |= play
            opening = plays == 0
            plays += 1
            if take == 0:
                table |= play
                if ev_slot >= 0:
                    ne = emit(events, ev_slot, ne, EV_PLAY, p, KIND_TRAIL, 0, 0, play, 0)
                continue
            table &= ~take
            gs[PILES + p] |= take | play
            last_capturer = p
            points = 0
            if table == 0:  # a tábla (K6, K7)
                points = rules.opening_tabla_points if opening else 1
                gs[SWEEPS + p] += 1
                gs[SWEEP_PTS + p] += points
                if rules.after_tabla_double != 0 and gs[HANDS + 1 - p] != 0:
                    pending_double = 1 - p
            if ev_slot >= 0:
                ne = emit(events, ev_slot, ne, EV_PLAY, p, KIND_CAPTURE, points, table == 0, play, take)
            if rules.mid_deal_out != 0:
                sure = kaszino_sure_points(gs[PILES + p], gs[SWEEP_PTS + p])
                if gs[TOTALS + p] + sure >= rules.target:
                    if ev_slot >= 0:
                        ne = emit(events, ev_slot, ne, EV_OUT, p, 0, 0, 0, 0, 0)
                    return plays, redeals, ne, p, last_capturer
    ne = award_residue(gs, table, last_capturer, rules.side_of, events, ev_slot, ne)
    return plays, redeals, ne, -1, last_capturer


@kernel
def record_deal(slot, d, dealer, rules, out, s, partial):
    """Score the deal just played (``partial``: cut short by a mid-deal win), add it to the totals, write its rows."""
    gs = s.gs
    piles, sweep_pts, same_suit = gs[PILES : PILES + 4], gs[SWEEP_PTS : SWEEP_PTS + 4], gs[SAME_SUIT : SAME_SUIT + 4]
    score_deal(rules, piles, sweep_pts, same_suit, s.points, s.work, partial)
    out.deal_dealer[slot, d] = dealer
    for side in range(rules.n_sides):
        deal_total = 0
        for k in range(rules.n_categories):
            out.deal_points[slot, d, side, k] = s.points[side, k]
            deal_total += s.points[side, k]
        gs[TOTALS + side] += deal_total
        out.deal_sweeps[slot, d, side] = gs[SWEEPS + side]
        out.deal_cards[slot, d, side] = popcount(gs[PILES + side])
        out.deal_totals[slot, d, side] = gs[TOTALS + side]


@kernel
def fill_rule_info(ps, rules):
    """Copy into the decision space the rules a policy may need: card weights, capture and sweep rules."""
    for c in range(52):
        ps[WEIGHT + c] = rules.card_weight[c]
    ps[RI_PACK] = rules.pack
    ps[RI_SUM_MASK] = rules.sum_mask
    ps[RI_VALUE_BY_RANK] = rules.value_by_rank
    ps[RI_RANK_ONLY] = rules.rank_only
    ps[RI_PRIORITY] = rules.single_card_priority
    ps[RI_SWEEP_MODE] = rules.sweep_mode
    ps[RI_SWEEP_POINTS] = rules.sweep_points
    ps[RI_SWEEP_VALUE_BY_RANK] = rules.sweep_value_by_rank
    ps[RI_LAST_SWEEP] = rules.last_play_sweep
    ps[RI_ACE_SWEEPS] = rules.ace_sweeps
    ps[RI_SAME_SUIT] = rules.same_suit_bonus
    ps[RI_FORCED] = rules.forced_capture
    ps[RI_ACE_ON_EMPTY] = rules.ace_on_empty
    ps[RI_MAX_SUM] = rules.max_sum
    ps[RI_MAX_HAND] = rules.max_hand_cards
    ps[RI_VARIANT] = rules.variant
    ps[RI_PLAYERS] = rules.players
    ps[RI_CARDS_TARGET] = rules.cards_target
    ps[RI_COUNT_SUIT] = rules.count_suit
    ps[RI_COUNT_SUIT_TARGET] = rules.count_suit_target


@kernel
def play_game(slot, game, seed, rules, policy_ids, params, out, s, ev_slot):
    """Play game ``game`` of the run seeded ``seed`` and write row ``slot`` of ``out``."""
    gs, ps = borrow(s.gs), borrow(s.ps)
    players = rules.players
    gs[DEAL_RNG] = stream_state(seed, game, 0)
    for seat in range(players):
        ps[RNG + 1 + seat] = stream_state(seed, game, 1 + seat)
    for side in range(4):
        gs[TOTALS + side] = 0
    fill_rule_info(ps, rules)
    first_dealer = bounded(gs, DEAL_RNG, players)
    ps[MOVE_OVERFLOW] = 0
    ne = 0
    deals = 0
    plays = 0
    redeals = 0
    winner = -1
    out.overflow[slot] = 0
    out.mid_deal[slot] = 0
    while winner < 0:
        if deals == out.deal_dealer.shape[1]:
            out.overflow[slot] = 1
            break
        dealer = (first_dealer + deals) % players
        if rules.variant == KASZINO:
            deal = play_deal_kaszino(deals, dealer, rules, policy_ids, params, gs, ps, out.events, ev_slot, ne)
        else:
            deal = play_deal(deals, dealer, rules, policy_ids, params, gs, ps, out.events, ev_slot, ne)
        p, r, ne, out_side, last_capturer = deal
        if ps[MOVE_OVERFLOW] != 0:
            out.overflow[slot] = 3
            break
        record_deal(slot, deals, dealer, rules, out, s, out_side >= 0)
        if ev_slot >= 0:
            ne = emit(out.events, ev_slot, ne, EV_SCORE, deals, 0, 0, 0, 0, 0)
        plays += p
        redeals += r
        deals += 1
        if out_side >= 0:
            winner = out_side
            out.mid_deal[slot] = 1
        else:
            last_side = rules.side_of[last_capturer] if last_capturer >= 0 else -1
            totals = gs[TOTALS : TOTALS + 4]
            winner = game_winner(totals, rules.n_sides, rules.target, rules.last_capture_breaks_tie, last_side)
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
        out.totals[slot, side] = gs[TOTALS + side]
