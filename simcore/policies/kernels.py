"""Policies as jitted functions behind one integer-dispatched ``choose``.

A policy reads, from the decision space ``ps``, the seat's ``view`` (what it may know, built by the game loop: see
``simcore.kernels.game``), the legal moves in canonical order, the card weights of the variant and its own random
stream. It never receives the game state, so it cannot read other hands or the stock.
"""

from __future__ import annotations

import numpy as np

from simcore._jit import inline_kernel, kernel
from simcore.kernels.bits import lowest, popcount
from simcore.kernels.workspace import FAULT, FAULT_POLICY, MOVES, RNG, WEIGHT
from simcore.policies.heuristics import P_EPSILON, choose_lookahead, choose_points
from simcore.policies.published import choose_furbo, choose_random_card, choose_tartaluca
from simcore.policies.usercall import choose_user
from simcore.rng import bounded

POLICY_RANDOM = 0
POLICY_GREEDY = 1
POLICY_POINTS = 2
POLICY_DEFENSIVE = 3
POLICY_LOOKAHEAD = 4
POLICY_MC = 5  # decided between the stops of the deal loop (simcore.policies.montecarlo), never by ``choose``
POLICY_ROLLOUT = 6  # epsilon-greedy: the Monte Carlo rollouts' policy
POLICY_FURBO = 7  # simcore.policies.published
POLICY_TARTALUCA = 8
POLICY_RANDOM_CARD = 9
POLICY_USER = 10  # a user-written policy, called through its address (simcore.policies.usercall)
POLICY_SEARCH = 11  # decided between the stops of the deal loop, as POLICY_MC (simcore.policies.search)
POLICY_LEAF = 12  # search's stop at its depth limit: the deal loop may stop there without listing the moves

GREEDY_CARD_SCORE = 1000  # one more card taken outweighs any difference in card weights


@inline_kernel
def weight_of(ps, mask):
    """Sum of the heuristic weights (``Rules.card_weight``) of the cards of a mask."""
    total = 0
    while mask != 0:
        c = lowest(mask)
        mask &= mask - 1
        total += ps[WEIGHT + c]
    return total


@inline_kernel
def needs_state(policy_id):
    """True for the policies the deal loop stops for (``DEAL_NEED``): they search sampled copies of the game
    state (``mc``, ``search``), so they are called between the loop's stops, never by ``choose``."""
    return policy_id in (POLICY_MC, POLICY_SEARCH, POLICY_LEAF)


@kernel(nrt=False)
def choose_greedy(ps, n_moves):
    """Most table cards taken; ties by the weight of the cards won (or, trailing, of the card given up)."""
    best = 0
    best_score = -(1 << 62)
    for i in range(n_moves):
        play = ps[MOVES + 2 * i]
        take = ps[MOVES + 2 * i + 1]
        if take != 0:
            score = GREEDY_CARD_SCORE * popcount(take) + weight_of(ps, take | play)
        else:
            score = -weight_of(ps, play)
        if score > best_score:
            best, best_score = i, score
    return best


@inline_kernel
def greedy_score(ps, play, take):
    """Greedy's score of a move: ``choose_greedy`` plays the first of the highest (search's ``open_node`` sorts by
    it). ``choose_greedy`` writes the score out itself: calling this made Scopone's mc 9% slower (the same
    process, old and new interleaved), though both compile the same arithmetic; a test ties the two."""
    if take != 0:
        return GREEDY_CARD_SCORE * popcount(take) + weight_of(ps, take | play)
    return -weight_of(ps, play)


@inline_kernel
def explores(ps, seat, epsilon):
    """The epsilon-greedy draw: True (a uniform move, else the greedy one) with chance ``epsilon``, a draw of
    ``bounded(2**30)`` below ``epsilon * 2**30``. Compared as integers, with that product's ceiling (the same test for
    an integer draw): the draw is not converted to a float on its way to the branch, which its misses wait for (mc,
    one thread, old and new one per core: 1.01-1.02x, same decisions)."""
    return bounded(ps, RNG + 1 + seat, 1 << 30) < np.int64(np.ceil(epsilon * (1 << 30)))


@kernel(nrt=False)
def choose_quick(ps, policy_id, params, n_moves, seat):
    """``choose`` for the policies of the quick path (random, greedy, the rollouts' epsilon-greedy) on listed
    moves; any other id raises ``FAULT_POLICY`` and picks 0. A run whose seats play only these compiles this
    instead of ``choose`` and every policy behind it (``engine.run_features``)."""
    if policy_id == POLICY_RANDOM:
        return bounded(ps, RNG + 1 + seat, n_moves)
    if policy_id == POLICY_GREEDY:
        return choose_greedy(ps, n_moves)
    if policy_id == POLICY_ROLLOUT:
        if explores(ps, seat, params[seat, P_EPSILON]):
            return bounded(ps, RNG + 1 + seat, n_moves)
        return choose_greedy(ps, n_moves)
    ps[FAULT] = FAULT_POLICY
    return 0


@inline_kernel
def choose(ps, policy_id, params, n_moves, seat):
    """Index of the move the seat's policy picks among the ``n_moves`` legal moves.

    ``params`` is the seat's row of float parameters; the seat's random stream is ``ps[RNG + 1 + seat]``. An id
    of no policy here (``POLICY_MC`` included: it never reaches ``choose``) raises ``FAULT_POLICY`` and picks 0.
    Inlined into its callers (the deal loops, ``decide``, the rollouts), as ``deal.prepare`` is: as a call it passed
    two arrays' fields on the stack once per listed play (about 4 ns of the example greedy's 70, A/B in
    alternating processes).
    """
    if policy_id in (POLICY_RANDOM, POLICY_GREEDY, POLICY_ROLLOUT):
        return choose_quick(ps, policy_id, params, n_moves, seat)
    if policy_id in (POLICY_POINTS, POLICY_DEFENSIVE):
        return choose_points(ps, params, seat, n_moves, policy_id == POLICY_DEFENSIVE)
    if policy_id == POLICY_LOOKAHEAD:
        return choose_lookahead(ps, params, seat, n_moves)
    if policy_id == POLICY_USER:
        return choose_user(ps, params, n_moves, seat)
    if policy_id == POLICY_FURBO:
        return choose_furbo(ps, params, seat, n_moves)
    if policy_id == POLICY_TARTALUCA:
        return choose_tartaluca(ps, params, seat, n_moves)
    if policy_id == POLICY_RANDOM_CARD:
        return choose_random_card(ps, seat, n_moves)
    ps[FAULT] = FAULT_POLICY
    return 0
