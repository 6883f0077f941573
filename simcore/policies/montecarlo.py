"""``mc``: determinized Monte Carlo (perfect-information sampling) inside Numba.

For each of ``samples`` determinizations, the cards the seat has not seen are dealt at random into the other
hands (at their known sizes; a hand that is public stays as it is) and into the stock; then every legal move is
played and the rest of the deal is rolled out by every seat with a fast policy (``rollout``: 1, epsilon-greedy,
i.e. greedy or, with chance ``epsilon``, a uniformly random move; 2, points; 3, defensive; with the seat's
weights). A move's value is the average, over the samples, of the seat's deal-point margin at the end of the
deal (its side's deal points minus the best other side's; a mid-deal win counts 100). The same determinization
and the same rollout random numbers serve every move of a sample (common random numbers), so the comparison
between moves is paired.

What the seat may know: the determinization starts from a copy of the deal state, then redraws every card the
seat has not seen (other hands, stock order), from the unseen cards listed in its view, with its own random
stream; the number of draws depends only on public counts. ``tests/test_policies.py`` checks that changing the
hidden cards does not change the decision.

The deal loop stops for a Monte Carlo seat (``DEAL_NEED``) and ``play_deal`` calls ``choose_mc`` between stops,
so the rollouts, which run the same loop, can never call ``choose_mc`` themselves.
"""

from __future__ import annotations

from simcore._jit import kernel
from simcore.kernels.bits import list_cards
from simcore.kernels.deal import DEAL_OUT, VIEW_HAND_COUNTS, VIEW_N_MOVES, VIEW_OPEN, run_deal
from simcore.kernels.scoring import score_deal
from simcore.kernels.workspace import (
    DECK,
    DS_N,
    DS_OUT_SIDE,
    DS_POS,
    GAME_STATE_SIZE,
    HANDS,
    MOVES,
    PILES,
    RNG,
    SAME_SUIT,
    SWEEP_PTS,
    VIEW,
    sample_base,
)
from simcore.policies.heuristics import MAX_PARAMS, P_ROLLOUT, P_SAMPLES
from simcore.policies.kernels import POLICY_GREEDY, POLICY_ROLLOUT, choose_greedy
from simcore.rng import GOLDEN, bounded, next64

__all__ = ["MAX_PARAMS", "choose_mc"]

V_SEEN = 4
OUT_VALUE = 100.0


@kernel
def determinize(rules, gs, ps, sample, seat, n_unseen):
    """Copy the deal state into ``sample`` with every card the seat has not seen redrawn; False if impossible."""
    base = sample_base(ps)
    for i in range(n_unseen - 1, 0, -1):  # shuffle the unseen cards with the seat's stream
        j = bounded(ps, RNG + 1 + seat, i + 1)
        ps[base + i], ps[base + j] = ps[base + j], ps[base + i]
    for k in range(GAME_STATE_SIZE):
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


@kernel
def deal_margin(rules, state, points, work, side, status):
    """The side's deal points minus the best other side's at the end of a rollout (a mid-deal win: +-100)."""
    piles, sweep_pts, same_suit = state[PILES : PILES + 4], state[SWEEP_PTS : SWEEP_PTS + 4], state[SAME_SUIT:]
    score_deal(rules, piles, sweep_pts, same_suit, points, work, status == DEAL_OUT)
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


@kernel
def choose_mc(rules, s, params, seat, events):
    """Index of the legal move (prepared in the decision space) with the best average rollout margin."""
    gs, ps = s.gs, s.ps  # ``play_game`` has borrowed every array of ``s``
    sample, rollout, rps = s.sample, s.rollout, s.rollout_ps
    n_moves = ps[VIEW + VIEW_N_MOVES]
    if n_moves <= 1:
        return 0
    n_unseen = list_cards(ps, sample_base(ps), rules.pack & ~ps[VIEW + V_SEEN])
    rollout_id = int(params[seat, P_ROLLOUT])
    for k in range(4):  # every seat of a rollout plays the rollout policy with the Monte Carlo seat's weights
        s.rollout_ids[k] = POLICY_ROLLOUT if rollout_id == POLICY_GREEDY else rollout_id
        for j in range(MAX_PARAMS):
            s.rollout_params[k, j] = params[seat, j]
    values = s.values
    for m in range(n_moves):
        values[m] = 0.0
    side = rules.side_of[seat]
    for _ in range(int(params[seat, P_SAMPLES])):
        if not determinize(rules, gs, ps, sample, seat, n_unseen):
            return choose_greedy(ps, n_moves)
        seed = next64(ps, RNG + 1 + seat)
        for m in range(n_moves):
            for k in range(sample.shape[0]):
                rollout[k] = sample[k]
            rps[MOVES] = ps[MOVES + 2 * m]
            rps[MOVES + 1] = ps[MOVES + 2 * m + 1]
            for k in range(rules.players):
                rps[RNG + 1 + k] = seed + (k + 1) * GOLDEN
            status, _ = run_deal(rules, s.rollout_ids, s.rollout_params, rollout, rps, events, -1, 0, 0)
            values[m] += deal_margin(rules, rollout, s.points, s.work, side, status)
    best = 0
    for m in range(1, n_moves):
        if values[m] > values[best]:
            best = m
    return best
