"""One whole game, and the batch kernel's unit of work: deals, scores, the end of the game, output rows.

``play_deal`` runs a deal (``simcore.kernels.deal``), asking Monte Carlo seats for their moves whenever the deal
loop stops for them; ``record_deal`` scores it; ``play_game`` plays deals until a side has won.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simcore._jit import inline_kernel, kernel
from simcore.kernels.bits import popcount
from simcore.kernels.control import CONTROL_SIZE
from simcore.kernels.deal import (  # noqa: F401  (EV_*, KIND_*, VIEW_*, MOVES_*: the trace and tests read them here)
    DEAL_NEED,
    EV_DEAL,
    EV_END,
    EV_HAND,
    EV_OPENING,
    EV_OUT,
    EV_PLAY,
    EV_REDEAL,
    EV_RESIDUE,
    EV_SCORE,
    EV_TABLE,
    EV_WIDTH,
    KIND_CAPTURE,
    KIND_KEEP,
    KIND_TRAIL,
    MOVES_EXCHANGE,
    MOVES_FAMILY,
    MOVES_TRAIL,
    VIEW_HAND_COUNTS,
    VIEW_N_MOVES,
    VIEW_OPEN,
    VIEW_SEAT,
    begin_deal,
    clear_deal,
    dealer_of,
    decide,
    draw_first_dealer,
    emit,
    prepare,
    run_deal,
    start_deal,
)
from simcore.kernels.ruleinfo import rule_values
from simcore.kernels.scoring import deal_winner, score_deal
from simcore.kernels.workspace import (
    DEAL_RNG,
    DS_LAST,
    DS_OUT_SIDE,
    DS_T,
    FAULT,
    FAULT_POLICY,
    FAULT_VARIANT,
    GAME_STATE_SIZE,
    MAX_SAMPLES,
    MOVES,
    PILES,
    RNG,
    RULE_INFO,
    SAME_SUIT,
    STREAM_KEY,
    SUBSTREAM,
    SWEEP_COUNT,
    SWEEP_ORDER,
    SWEEP_PTS,
    SWEEPS,
    TOTALS,
    TRAIL_CLASSES,
    TRAIL_CLASSES_MAX,
    VIEW,
    WEIGHT,
    borrow,
    borrow_fields,
)
from simcore.policies.kernels import POLICY_MC, POLICY_ROLLOUT, POLICY_SEARCH
from simcore.policies.montecarlo import MAX_PARAMS, choose_mc
from simcore.policies.search import choose_search
from simcore.rng import stream_state


class ChunkOut(NamedTuple):
    """Output arrays of a chunk of G games with D deal slots each (rows of the games and deals tables)."""

    first_dealer: np.ndarray  # int8[G]
    winner: np.ndarray  # int8[G], side
    n_deals: np.ndarray  # int16[G]
    n_plays: np.ndarray  # int32[G]
    redeals: np.ndarray  # int16[G]
    totals: np.ndarray  # int16[G, sides]
    # int8[G]: 1 = more than D deals, 2 = more trace events than the buffer, 3.. = a fault (workspace FAULT_*)
    overflow: np.ndarray
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
    rollout: np.ndarray  # int64 game state of a Monte Carlo rollout
    sample: np.ndarray  # int64 game state of a Monte Carlo sample, copied before each rollout
    rollout_ps: np.ndarray  # int64 decision space of the rollouts' seats
    rollout_ids: np.ndarray  # int64[4]: the rollouts' policy for every seat
    rollout_params: np.ndarray  # float64[4, MAX_PARAMS]: the rollouts' parameters
    values: np.ndarray  # float64[max_moves]: Monte Carlo value of each legal move
    control: np.ndarray  # int64[CONTROL_SIZE]: the chunk's stop flag and progress (simcore.kernels.control)


@kernel
def new_scratch(rules):
    """Allocate one worker's scratch for ``rules``, with a control array of its own (never stopped)."""
    return make_scratch(rules.max_moves, np.zeros(CONTROL_SIZE, np.int64))


@kernel(entry=True)
def make_scratch(max_moves, control):
    """Allocate one worker's scratch for rules of at most ``max_moves`` legal moves (``Rules.max_moves``); its Monte
    Carlo seats watch ``control``'s stop flag. It takes the one size it reads, not the rules, so that it compiles
    once for every game and rule set (a frozen rule set is a type of its own: 0.9 s a copy)."""
    return Scratch(
        np.zeros(GAME_STATE_SIZE, np.int64),
        np.zeros(2 * (MOVES + 2 * max_moves) + MAX_SAMPLES, np.int64),
        np.zeros((4, 16), np.int64),
        np.zeros(4, np.int64),
        np.zeros(GAME_STATE_SIZE, np.int64),
        np.zeros(GAME_STATE_SIZE, np.int64),
        np.zeros(2 * (MOVES + 2 * max_moves) + MAX_SAMPLES, np.int64),
        np.full(4, POLICY_ROLLOUT, np.int64),
        np.zeros((4, MAX_PARAMS), np.float64),
        np.zeros(max_moves, np.float64),
        control,
    )


@inline_kernel
def play_deal(deal_idx, dealer, rules, policy_ids, params, s, events, ev_slot, ne, one_card, exchange, full, tree):
    """Deal and play one deal; returns (plays, redeals, events, out_side, last_capturer).

    ``out_side`` is the side that won in the middle of the deal, else -1. Monte Carlo seats decide between the
    stops of ``run_deal`` (so their rollouts, which run the same loop, never call themselves); a run compiled
    without them (``full`` None: see ``run_deal``) that meets one raises ``FAULT_POLICY``, and so does a search seat
    in a run compiled without search (``tree`` None: ``engine.search_feature``; an mc or lookahead run then compiles
    neither search nor the deal loop's copies inlined into its trees).
    """
    gs, ps = s.gs, s.ps  # ``play_game`` has borrowed every array of ``s``
    redeals, ne = begin_deal(rules, gs, deal_idx, dealer, events, ev_slot, ne)
    status, ne = run_deal(rules, policy_ids, params, gs, ps, events, ev_slot, ne, -1, one_card, exchange, full)
    while status == DEAL_NEED:
        if full is None:
            ps[FAULT] = FAULT_POLICY
            break
        seat = ps[VIEW + VIEW_SEAT]
        if policy_ids[seat] == POLICY_SEARCH:
            if tree is None:
                ps[FAULT] = FAULT_POLICY
                break
            choice = choose_search(rules, s, params, seat, events, one_card, exchange, full)
        elif policy_ids[seat] == POLICY_MC:
            choice = choose_mc(rules, s, params, seat, events, one_card, exchange, full)
        else:  # ``POLICY_LEAF`` stops the loop too, but is search's own mark, no seat's policy
            ps[FAULT] = FAULT_POLICY
            break
        status, ne = run_deal(rules, policy_ids, params, gs, ps, events, ev_slot, ne, choice, one_card, exchange, full)
    return gs[DS_T], redeals, ne, gs[DS_OUT_SIDE], gs[DS_LAST]


@inline_kernel
def record_deal(slot, d, dealer, rules, out, s, partial):
    """Score the deal just played (``partial``: cut short by a mid-deal win), add it to the totals, write its rows.

    A variant the scoring does not know raises ``FAULT_VARIANT`` in the decision space instead."""
    gs = s.gs
    piles, sweep_pts, same_suit = gs[PILES : PILES + 4], gs[SWEEP_PTS : SWEEP_PTS + 4], gs[SAME_SUIT : SAME_SUIT + 4]
    if not score_deal(rules, piles, sweep_pts, same_suit, s.points, s.work, partial):
        s.ps[FAULT] = FAULT_VARIANT
        return
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


@kernel(nrt=False)
def fill_rule_info(ps, rules):
    """Copy into the decision space the rules a policy may need: card weights, then every entry of
    ``ruleinfo.POLICY_RULES`` into its slot (``workspace.RI``)."""
    for c in range(52):
        ps[WEIGHT + c] = rules.card_weight[c]
    values = rule_values(rules)
    for k in range(len(values)):
        ps[RULE_INFO + k] = values[k]
    fill_trail_classes(ps, rules.card_weight)


@kernel(nrt=False)
def fill_trail_classes(ps, weights):
    """``ps[TRAIL_CLASSES]``: the number of card weights, then the mask of the cards of each weight, lightest
    first (``quick.lightest_class_trail``); 0 when there are more than ``TRAIL_CLASSES_MAX`` weights (the greedy
    walk then scans the cards, as it does in a decision space this never filled)."""
    below = -(1 << 62)  # the classes listed so far hold the weights up to ``below``
    for k in range(TRAIL_CLASSES_MAX + 1):
        lightest = 1 << 62
        for c in range(52):
            if below < weights[c] < lightest:
                lightest = weights[c]
        if lightest == 1 << 62:  # every weight has its class
            ps[TRAIL_CLASSES] = k
            return
        if k == TRAIL_CLASSES_MAX:
            break
        cards = 0
        for c in range(52):
            if weights[c] == lightest:
                cards |= 1 << c
        ps[TRAIL_CLASSES + 1 + k] = cards
        below = lightest
    ps[TRAIL_CLASSES] = 0


@inline_kernel
def play_game(slot, game, seed, rules, policy_ids, params, out, s, ev_slot, one_card, exchange, full, tree):
    """Play game ``game`` of the run seeded ``seed`` and write row ``slot`` of ``out``.

    Inlined into the batch kernel (``batch.run_games``)."""
    # Every helper below receives views without reference counts: an array argument would otherwise cost two
    # atomic operations per call (perf: 14% of greedy self-play in NRT_incref / NRT_decref).
    rules, out, s = borrow_fields(rules), borrow_fields(out), borrow_fields(s)
    policy_ids, params = borrow(policy_ids), borrow(params)
    gs, ps = s.gs, s.ps
    players = rules.players
    gs[DEAL_RNG] = stream_state(seed, game, 0)
    for seat in range(players):
        ps[RNG + 1 + seat] = stream_state(seed, game, 1 + seat)
        ps[STREAM_KEY + seat] = ps[RNG + 1 + seat]
        ps[SUBSTREAM + seat] = 0
    for side in range(4):
        gs[TOTALS + side] = 0
    first_dealer = draw_first_dealer(gs, players, rules.first_dealer_fixed)
    ps[FAULT] = 0
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
        dealer = dealer_of(rules, first_dealer, deals)
        p, r, ne, out_side, last_capturer = play_deal(
            deals, dealer, rules, policy_ids, params, s, out.events, ev_slot, ne, one_card, exchange, full, tree
        )
        if ps[FAULT] == 0:
            record_deal(slot, deals, dealer, rules, out, s, out_side >= 0)
        if ps[FAULT] != 0:
            out.overflow[slot] = ps[FAULT]
            break
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
            winner = deal_winner(rules, totals, s.points, last_side, gs[SWEEP_ORDER], gs[SWEEP_COUNT])
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
