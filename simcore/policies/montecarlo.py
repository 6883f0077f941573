"""``mc``: determinized Monte Carlo (perfect-information sampling) inside Numba.

For each of ``samples`` determinizations, the cards the seat has not seen are dealt at random into the other hands
(at their known sizes; a hand that is public stays as it is) and into the stock; then every legal move is played and
the rest of the deal is rolled out by every seat with a fast policy (``rollout``: 1, epsilon-greedy, i.e. greedy or,
with chance ``epsilon``, a uniformly random move; 2, points; 3, defensive; with the seat's weights). A move's value
is the average, over the samples, of the seat's deal-point margin at the end of the deal (its side's deal points
minus the best other side's; a mid-deal win counts 100). The same determinization and the same rollout random
numbers serve every move of a sample (common random numbers), so the comparison between moves is paired. With
``horizon`` H > 0 a rollout stops after the H plays that follow the move (by every seat: 3 in a 4-player game is one
reply of each other seat) and is valued by the margin of the piles so far at the seat's point weights
(``piles_margin``, as search's leaves with ``rollout=0``), or exactly where the deal ends sooner: a long rollout's
noise (thirteen-card hands in Foracio: 52 random plays) can outweigh what it sees, and a short one costs a fraction,
so more samples fit in the same time. Each rollout seat draws from its own substream of the Monte Carlo seat's
stream (``simcore.rng.split_stream``: substream ``1 + 4 * n + k`` for rollout seat ``k`` of the seat's ``n``-th
sample of the game), so no two rollout streams of a game overlap.

The chunk's stop flag (``simcore.kernels.control``) is checked between samples: once it is up the decision
returns at once, and the game, whose rows are then discarded, ends in a few cheap plays.

What the seat may know: the determinization starts from a copy of the deal state, then redraws every card the
seat has not seen (other hands, stock order), from the unseen cards listed in its view, with its own random
stream; the number of draws depends only on public counts. ``tests/test_policies.py`` checks that changing the
hidden cards does not change the decision.

The deal loop stops for a Monte Carlo seat (``DEAL_NEED``) and ``play_deal`` calls ``choose_mc`` between stops,
so the rollouts, which run the same loop, can never call ``choose_mc`` themselves.
"""

from __future__ import annotations

import numpy as np

from simcore._jit import kernel, llvm_inline_kernel
from simcore.kernels.bits import list_cards, popcount, suit_mask
from simcore.kernels.control import CONTROL_STOP, atomic_load
from simcore.kernels.deal import DEAL_NEED, DEAL_OUT, VIEW_HAND_COUNTS, VIEW_N_MOVES, VIEW_OPEN, VIEW_SEAT, run_deal
from simcore.kernels.scoring import score_deal
from simcore.kernels.workspace import (
    CARRIED,
    DECK,
    DS_N,
    DS_OUT_SIDE,
    DS_POS,
    FAULT,
    FAULT_POLICY,
    FAULT_VARIANT,
    HANDS,
    MOVES,
    PILES,
    RNG,
    SAME_SUIT,
    STREAM_KEY,
    SUBSTREAM,
    SWEEP_PTS,
    VIEW,
    sample_base,
)
from simcore.policies.heuristics import (
    MAX_PARAMS,
    P_HORIZON,
    P_PER_CARD,
    P_ROLLOUT,
    P_SAMPLES,
    P_SUIT,
    P_SWEEP,
    points_of,
)
from simcore.policies.kernels import POLICY_DEFENSIVE, POLICY_MC, POLICY_POINTS, POLICY_ROLLOUT, choose, choose_greedy
from simcore.rng import bounded, split_stream

__all__ = ["MAX_PARAMS", "P_HORIZON", "choose_mc", "first_best", "piles_margin", "run_horizon"]

V_SEEN = 4
OUT_VALUE = 100.0
INF = 1e18


@kernel(nrt=False)
def determinize(rules, gs, ps, sample, seat, n_unseen):
    """Copy the deal state into ``sample`` with every card the seat has not seen redrawn; False if impossible."""
    base = sample_base(ps)
    for i in range(n_unseen - 1, 0, -1):  # shuffle the unseen cards with the seat's stream
        j = bounded(ps, RNG + 1 + seat, i + 1)
        ps[base + i], ps[base + j] = ps[base + j], ps[base + i]
    for k in range(CARRIED):
        sample[k] = gs[k]
    k = 0
    for other in range(rules.players):
        if other == seat or ps[VIEW + VIEW_OPEN] != 0:  # a public hand (Kaszinó's last round) stays as it is
            continue
        hand = 0
        for _ in range(ps[VIEW + VIEW_HAND_COUNTS + other]):
            hand |= 1 << ps[base + k]
            k += 1
        sample[HANDS + other] = hand
    for j in range(gs[DS_POS], gs[DS_N]):
        sample[DECK + j] = ps[base + k]
        k += 1
    return k == n_unseen


@kernel(nrt=False)
def rollout_policy(rollout):
    """Kernel policy id of the ``rollout`` parameter (1 greedy with epsilon, 2 points, 3 defensive), else -1."""
    if rollout == 1:
        return POLICY_ROLLOUT
    if rollout == 2:
        return POLICY_POINTS
    if rollout == 3:
        return POLICY_DEFENSIVE
    return -1


@kernel(nrt=False)
def first_best(values, n):
    """Index of the first of the highest of ``values[:n]``: the move of the best mean (mc, search)."""
    best = 0
    for m in range(1, n):
        if values[m] > values[best]:
            best = m
    return best


@llvm_inline_kernel
def deal_margin(rules, state, points, work, side, status, rps):
    """The side's deal points minus the best other side's at the end of a rollout (a mid-deal win: +-100).

    A variant the scoring does not know raises ``FAULT_VARIANT`` in the rollouts' decision space ``rps``."""
    piles, sweep_pts, same_suit = state[PILES : PILES + 4], state[SWEEP_PTS : SWEEP_PTS + 4], state[SAME_SUIT:]
    if not score_deal(rules, piles, sweep_pts, same_suit, points, work, status == DEAL_OUT):
        rps[FAULT] = FAULT_VARIANT
    best_other = -1 << 30
    mine = 0
    for other in range(rules.n_sides):
        total = 0
        for k in range(rules.n_categories):
            total += points[other, k]
        if other == side:
            mine = total
        else:
            best_other = max(best_other, total)
    margin = float(mine - best_other)
    if status == DEAL_OUT:
        margin += OUT_VALUE if state[DS_OUT_SIDE] == side else -OUT_VALUE
    return margin


@kernel(nrt=False)
def piles_margin(rules, params, seat, state, side):
    """The side's margin in the piles so far, valued by the seat's point weights (mc with ``horizon``, search with
    ``rollout=0``): the cards' points, the cards and counted-suit majorities per card, and the sweep and same-suit
    points at ``sweep``."""
    mine = 0.0
    best_other = -INF
    for other in range(rules.n_sides):
        pile = state[PILES + other]
        value = points_of(params, seat, pile) + params[seat, P_PER_CARD] * popcount(pile)
        if rules.count_suit >= 0:
            value += params[seat, P_SUIT] * popcount(pile & suit_mask(rules.count_suit))
        value += params[seat, P_SWEEP] * (state[SWEEP_PTS + other] + state[SAME_SUIT + other])
        if other == side:
            mine = value
        else:
            best_other = max(best_other, value)
    return mine - best_other


@llvm_inline_kernel
def run_horizon(rules, s, params, stops, state, rps, events, status, horizon, one_card, exchange, full):
    """From ``state`` stopped at a decision (``status``, its moves listed in ``rps``), up to ``horizon`` plays of the
    rollout policies, the deal loop stopped at each decision (as search walks its tree); returns the status. mc's
    rollouts with a horizon and search's leaves with one both run here."""
    for _ in range(horizon):
        if status != DEAL_NEED or rps[FAULT] != 0:
            break
        mover = rps[VIEW + VIEW_SEAT]
        i = choose(rps, s.rollout_ids[mover], s.rollout_params, rps[VIEW + VIEW_N_MOVES], mover)
        status, _ = run_deal(rules, stops, params, state, rps, events, -1, 0, i, one_card, exchange, full)
    return status


@llvm_inline_kernel
def short_rollout(rules, s, params, seat, stops, state, rps, events, side, horizon, one_card, exchange, full):
    """The value for ``side`` of the move in ``rps[MOVES]`` played in ``state``, then ``horizon`` plays of the
    rollout policies (``run_horizon``), then the piles' margin; the exact deal margin if the deal ends first.

    It and ``run_horizon`` are inlined (``llvm_inline_kernel``): each call copied its arguments, the scratch's eleven
    arrays and the rules' fields, some two hundred words, once per move and sample; inlined, mc with a horizon made
    34-40% more decisions a second in Scopone and Escoba, 16% in Foracio (session 16, one thread, same decisions)."""
    status, _ = run_deal(rules, stops, params, state, rps, events, -1, 0, 0, one_card, exchange, full)
    status = run_horizon(rules, s, params, stops, state, rps, events, status, horizon, one_card, exchange, full)
    if status == DEAL_NEED:
        return piles_margin(rules, params, seat, state, side)
    return deal_margin(rules, state, s.points, s.work, side, status, rps)


@kernel
def choose_mc(rules, s, params, seat, events, one_card=True, exchange=True, full=True):
    """Index of the legal move (prepared in the decision space) with the best average rollout margin.

    A fault of the rollouts (an unknown rollout policy or variant, a full move buffer) is raised in ``ps[FAULT]``,
    which the game loop checks."""
    gs, ps = s.gs, s.ps  # ``play_game`` has borrowed every array of ``s``
    sample, rollout, rps = s.sample, s.rollout, s.rollout_ps
    n_moves = ps[VIEW + VIEW_N_MOVES]
    if n_moves <= 1:
        return 0
    n_unseen = list_cards(ps, sample_base(ps), rules.pack & ~ps[VIEW + V_SEEN])
    rollout_id = rollout_policy(int(params[seat, P_ROLLOUT]))
    if rollout_id < 0:
        ps[FAULT] = FAULT_POLICY
        return 0
    rps[FAULT] = 0
    for k in range(4):  # every seat of a rollout plays the rollout policy with the Monte Carlo seat's weights
        s.rollout_ids[k] = rollout_id
        for j in range(MAX_PARAMS):
            s.rollout_params[k, j] = params[seat, j]
    values = s.values
    for m in range(n_moves):
        values[m] = 0.0
    side = rules.side_of[seat]
    horizon = int(params[seat, P_HORIZON])
    stops = np.full(4, POLICY_MC, np.int64)  # horizon > 0: the deal loop stops at every decision of a rollout
    for _ in range(int(params[seat, P_SAMPLES])):
        if atomic_load(s.control, CONTROL_STOP) != 0:
            return 0
        if not determinize(rules, gs, ps, sample, seat, n_unseen):
            return choose_greedy(ps, n_moves)
        first_substream = 1 + 4 * ps[SUBSTREAM + seat]
        ps[SUBSTREAM + seat] += 1
        for m in range(n_moves):
            for k in range(CARRIED):  # the state (the shuffle's scratch after it is not)
                rollout[k] = sample[k]
            rps[MOVES] = ps[MOVES + 2 * m]
            rps[MOVES + 1] = ps[MOVES + 2 * m + 1]
            for k in range(rules.players):
                rps[RNG + 1 + k] = split_stream(ps[STREAM_KEY + seat], first_substream + k)
            if horizon > 0:
                values[m] += short_rollout(
                    rules, s, params, seat, stops, rollout, rps, events, side, horizon, one_card, exchange, full
                )
            else:
                status, _ = run_deal(
                    rules, s.rollout_ids, s.rollout_params, rollout, rps, events, -1, 0, 0, one_card, exchange, full
                )
                values[m] += deal_margin(rules, rollout, s.points, s.work, side, status, rps)
            if rps[FAULT] != 0:
                ps[FAULT] = rps[FAULT]
                return 0
    return first_best(values, n_moves)
