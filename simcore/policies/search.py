"""``search``: determinized search with a real tree (PIMC with depth-limited alpha-beta) inside Numba.

Why a tree on top of ``mc``: flat Monte Carlo assumes every later move is the rollout policy's, so it never sees
that the opponent will answer a move with the sweep it leaves open. Here, for each of ``worlds`` determinizations
(``montecarlo.determinize``: the cards the seat has not seen redrawn from its own stream, exactly as ``mc``), each
legal move is followed by a perfect-information alpha-beta search of the next ``depth`` decisions of the deal (the
seat's side maximizes its deal margin, every other side minimizes it: "paranoid" minimax, which is plain minimax
with two sides). With more than two sides (3-player Scopa and Skopa) that assumes two independent opponents both
play against the seat; ``tree=1`` walks a max-n tree instead (``maxn_value``: every side picks the move best for its
own margin), which with two sides is the same minimax. A position where the deal ends inside the tree is valued
exactly (its deal points); one at the depth limit is valued, with ``rollout=0`` (the default), by the margin of the
piles so far at the game's point weights (``piles_margin``), or by one rollout to the end of the deal with mc's
rollout policies (1 greedy with ``epsilon``, 2 points, 3 defensive), or, with ``horizon`` H above 0, by the piles'
margin after H plays of that rollout (mc's ``horizon``, the same ``run_horizon``). Measured in 2-player Scopa,
the piles beat the rollouts: a rollout's noise (one random future per leaf) outweighs what it sees beyond the tree.
Rollout leaves of a world replay the same random numbers (substream ``1 + 4 * n + k`` of the seat's stream for
rollout seat ``k`` of its ``n``-th world, as ``mc``), so moves are compared on common random numbers. A move's
value is its mean over the worlds; the best mean is played.

The best mean needs the exact values of the best move only (session 31). In the alpha-beta tree (two sides, or the
paranoid tree of three) the moves are taken in turn, greedy's choice first, and a move is first searched in each
world above the best move's value there (a tree window (alpha, +inf), alpha-beta failing soft): where it does no
better, the tree stops at the first refutation with an upper bound of its value. If those bounds, summed with its
exact values elsewhere, stay below the best move's sum (float addition is monotonic, so the sum of the bounds bounds
the sum; equal to it, for a move listed after the best one, as the first of equal sums is played), the move cannot
be played and its exact values are never computed; otherwise its bounded worlds are searched again in full. The
choice is the very one of every sum computed exactly (a test compares them on whole games). Same rows, one thread,
old and new code in alternate processes (40 to 150 games a job, 1 or 2 pairs): Escoba 1.49x the games a second,
Foracio 1.44x, Scopone and 4-player Scopa 1.26x / 1.23x, 3-player Scopa's paranoid tree 1.26x, Scopa 1.16x, Skopa
1.10x, Kaszino 1.08x (and with a tree of one level ordered above a bound, ``open_node``: Foracio 1.62x, Scopone
1.35x in all); the max-n tree of three sides keeps every exact value.

The tree is walked with the game's own deal loop: run with every seat stopping (``POLICY_MC`` ids), ``run_deal``
plays the forced move and stops at the next decision with its legal moves listed, so the search is right for
every game and turn structure (Kaszinó's exchanges and double moves included) without a second move generator.
A decision with a single legal move is played through without counting as a level of the tree. At the depth
limit, with the piles as the leaves' value, the loop runs with ``POLICY_LEAF`` seats: it stops there without listing
the moves when the position surely has two or more (``moves.lists_two_or_more``), the list being needed only to
tell a forced move. Session 20, same rows, one thread: Scopone 1.25x the plays a second, Escoba 1.2x, Foracio 1.5x
(with alpha-beta's moves sorted by greedy's score, ``open_node``: Escoba 1.2-1.33x over both); Scopa, whose
three-card hands list fast, and Skopa and Kaszinó, whose compulsion ("player") makes every position listed, gain
nothing measurable.

Parameters live in the seat's row at ``P_WORLDS``, ``P_DEPTH``, ``P_TREE`` and ``P_LEAF_HORIZON`` (the layout is in
``simcore.policies.heuristics``; ``epsilon`` shares ``P_EPSILON`` with mc). The chunk's stop flag is checked between
worlds, as ``mc`` checks it between samples.
"""

from __future__ import annotations

import numpy as np

from simcore._jit import kernel, llvm_inline_kernel
from simcore.kernels.bits import list_cards, popcount, suit_mask
from simcore.kernels.control import CONTROL_STOP, atomic_load
from simcore.kernels.deal import DEAL_NEED, DEAL_OUT, VIEW_N_MOVES, VIEW_SEAT, play_on, run_deal
from simcore.kernels.scoring import score_deal
from simcore.kernels.workspace import (
    CARRIED,
    DS_OUT_SIDE,
    FAULT,
    FAULT_POLICY,
    FAULT_VARIANT,
    GAME_STATE_SIZE,
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
    MAX_DEPTH,
    MAX_PARAMS,
    P_DEPTH,
    P_LEAF_HORIZON,
    P_PER_CARD,
    P_ROLLOUT,
    P_SUIT,
    P_SWEEP,
    P_TREE,
    P_WORLDS,
    points_of,
)
from simcore.policies.kernels import POLICY_LEAF, POLICY_MC, choose, choose_greedy, greedy_score
from simcore.policies.montecarlo import (
    OUT_VALUE,
    V_SEEN,
    deal_margin,
    determinize,
    first_best,
    piles_margin,
    rollout_policy,
    run_horizon,
)
from simcore.rng import split_stream

__all__ = ["MAX_DEPTH", "P_DEPTH", "P_TREE", "P_WORLDS", "choose_search", "maxn_value"]

INF = 1e18


@llvm_inline_kernel
def advance(rules, stops, params, src, dst, rps, events, play, take, one_card, exchange, full):
    """Copy ``src`` (a state stopped at a decision) to ``dst``, play ``(play, take)`` and run on to the next
    decision with more than one legal move (its moves listed in ``rps``) or to the end; returns the status.

    It and the leaves (``leaf_value``, ``leaf_vector``) are inlined (``llvm_inline_kernel``), as mc's rollouts are:
    as a call, each copied the rule tuple's fields from its own stack arguments to ``run_deal``'s at every node of
    every tree, and stalled on those loads (perf: a third of Scopone's search in ``advance`` itself). Inlined, search
    made 1.6-2.3x the plays a second in every game, 1.9x in 3-player Escoba's max-n (session 19, one thread, old and
    new interleaved in one process, same rows); the cold compile did not change. The deal loop itself is inlined
    here too (``deal.play_on`` with ``inlined``; session 21: 1.5-2.9x again), from one call site, since every
    site holds a copy of the loop's machine code."""
    for k in range(CARRIED):
        dst[k] = src[k]
    rps[MOVES] = play
    rps[MOVES + 1] = take
    while True:  # one call site: the deal loop is inlined here (``play_on``)
        status, _ = play_on(rules, stops, params, dst, rps, events, -1, 0, 0, one_card, exchange, full, True)
        if status != DEAL_NEED or rps[VIEW + VIEW_N_MOVES] != 1 or rps[FAULT] != 0:
            return status


@llvm_inline_kernel
def leaf_value(rules, s, params, seat, stops, state, rps, events, side, key, first_substream, one_card, exchange,
               full):  # fmt: skip
    """The value of a decision ``state`` at the depth limit (its moves listed in ``rps``): with a rollout policy,
    the side's deal margin after a rollout on the world's rollout streams, or with ``horizon`` H the piles' margin
    after H plays of it (mc's ``run_horizon``); without (``rollout=0``), the piles'."""
    if s.rollout_ids[0] < 0:
        return piles_margin(rules, params, seat, state, side)
    for k in range(rules.players):
        rps[RNG + 1 + k] = split_stream(key, first_substream + k)
    horizon = int(params[seat, P_LEAF_HORIZON])
    if horizon > 0:
        status = run_horizon(rules, s, params, stops, state, rps, events, DEAL_NEED, horizon, one_card, exchange, full)
        if status == DEAL_NEED:
            return piles_margin(rules, params, seat, state, side)
        return deal_margin(rules, state, s.points, s.work, side, status, rps)
    mover = rps[VIEW + VIEW_SEAT]
    i = choose(rps, s.rollout_ids[0], s.rollout_params, rps[VIEW + VIEW_N_MOVES], mover)
    status, _ = run_deal(rules, s.rollout_ids, s.rollout_params, state, rps, events, -1, 0, i, one_card, exchange, full)
    return deal_margin(rules, state, s.points, s.work, side, status, rps)


@kernel(nrt=False)
def move_value(rules, s, params, seat, stops, leaf_stops, stack, moves, scores, meta, bounds, root, play, take, depth,
               side, key, sub, alpha, events, one_card, exchange, full):  # fmt: skip
    """Value for ``side`` of playing ``(play, take)`` in the world ``root``: alpha-beta over the next ``depth``
    decisions (``stack``: a state per level; ``moves``, ``meta`` = [count, next, maximizing], ``bounds`` =
    [alpha, beta, best] per level), rollouts at the depth limit, exact values where the deal ends. The deal loop
    runs to a decision at the depth limit with ``leaf_stops`` (see ``choose_search``).

    The tree's window is (``alpha``, +inf) and its cut-offs fail soft: a value above ``alpha`` is exact, one at or
    below it is an upper bound of the exact value (``-INF`` for ``alpha``: always exact). Every value is a leaf's,
    passed up by min and max: the exact value's bits do not depend on the window."""
    rps = s.rollout_ps
    first_stops = leaf_stops if depth == 0 else stops
    status = advance(rules, first_stops, params, root, stack[0], rps, events, play, take, one_card, exchange, full)
    if status != DEAL_NEED:
        return deal_margin(rules, stack[0], s.points, s.work, side, status, rps)
    if depth == 0:
        return leaf_value(rules, s, params, seat, stops, stack[0], rps, events, side, key, sub, one_card, exchange,
                          full)  # fmt: skip
    level = 0
    open_node(rules, rps, moves, scores, meta, bounds, 0, side, alpha, INF, depth > 1 or alpha > -INF)
    while True:
        if meta[level, 1] < meta[level, 0] and bounds[level, 0] < bounds[level, 1]:
            i = meta[level, 1]
            meta[level, 1] += 1
            p, t = moves[level, 2 * i], moves[level, 2 * i + 1]
            child = stack[level + 1]
            child_stops = leaf_stops if level + 1 == depth else stops
            status = advance(rules, child_stops, params, stack[level], child, rps, events, p, t, one_card, exchange,
                             full)  # fmt: skip
            if rps[FAULT] != 0:
                return 0.0
            if status != DEAL_NEED:
                value = deal_margin(rules, child, s.points, s.work, side, status, rps)
            elif level + 1 == depth:
                value = leaf_value(rules, s, params, seat, stops, child, rps, events, side, key, sub, one_card,
                                   exchange, full)  # fmt: skip
            else:
                level += 1
                open_node(rules, rps, moves, scores, meta, bounds, level, side, bounds[level - 1, 0],
                          bounds[level - 1, 1], True)  # fmt: skip
                continue
        else:
            value = bounds[level, 2]
            if level == 0:
                return value
            level -= 1
        if meta[level, 2] != 0:
            bounds[level, 2] = max(bounds[level, 2], value)
            bounds[level, 0] = max(bounds[level, 0], value)
        else:
            bounds[level, 2] = min(bounds[level, 2], value)
            bounds[level, 1] = min(bounds[level, 1], value)


@kernel(nrt=False)
def open_node(rules, rps, moves, scores, meta, bounds, level, side, alpha, beta, ordered):
    """Start the tree node at ``level`` from the decision listed in ``rps``: its moves, in greedy's order when
    ``ordered``.

    Strong moves first make the cut-offs come early, and the order changes no value: whatever the order, alpha-beta
    returns the exact minimax value where it lies inside the root's window (the same rows; a bound outside it may
    differ, and every bound is sound). Sorted by greedy's
    score (``greedy_score``; an insertion sort, equals in list order) instead of greedy's choice first and the rest
    in list order, 2-player Escoba's depth 3 made 1.18-1.20x the plays a second, Scopa's none (session 20). A
    tree of one level (Scopone's and Foracio's depth 1) has a cut-off to gain only above a bound (``choose_search``'s
    test of a move against the best one: Foracio and Scopone 1.10x, session 31); with the whole window its moves
    stay in list order. The killer heuristic (a move that cut off tried first at its level) made Escoba 0.75x."""
    n = rps[VIEW + VIEW_N_MOVES]
    for m in range(n):
        play, take = rps[MOVES + 2 * m], rps[MOVES + 2 * m + 1]
        score = greedy_score(rps, play, take) if ordered else 0
        k = m
        while k > 0 and scores[level, k - 1] < score:
            moves[level, 2 * k], moves[level, 2 * k + 1] = moves[level, 2 * k - 2], moves[level, 2 * k - 1]
            scores[level, k] = scores[level, k - 1]
            k -= 1
        moves[level, 2 * k], moves[level, 2 * k + 1] = play, take
        scores[level, k] = score
    maximizing = rules.side_of[rps[VIEW + VIEW_SEAT]] == side
    meta[level, 0], meta[level, 1], meta[level, 2] = n, 0, maximizing
    bounds[level, 0], bounds[level, 1] = alpha, beta
    bounds[level, 2] = -INF if maximizing else INF


@kernel(nrt=False)
def side_margins(totals, n_sides, out):
    """Each side's margin over the best other side, from the sides' ``totals`` (written to ``out``)."""
    for k in range(n_sides):
        best_other = -INF
        for j in range(n_sides):
            if j != k:
                best_other = max(best_other, totals[j])
        out[k] = totals[k] - best_other


@kernel(nrt=False)
def deal_vector(rules, state, points, work, status, rps, totals, out):
    """Every side's deal margin at the end of the deal (a mid-deal win: +-100, as ``deal_margin``) in ``out``."""
    piles, sweep_pts, same_suit = state[PILES : PILES + 4], state[SWEEP_PTS : SWEEP_PTS + 4], state[SAME_SUIT:]
    if not score_deal(rules, piles, sweep_pts, same_suit, points, work, status == DEAL_OUT):
        rps[FAULT] = FAULT_VARIANT
    for k in range(rules.n_sides):
        total = 0
        for c in range(rules.n_categories):
            total += points[k, c]
        totals[k] = float(total)
    side_margins(totals, rules.n_sides, out)
    if status == DEAL_OUT:
        for k in range(rules.n_sides):
            out[k] += OUT_VALUE if state[DS_OUT_SIDE] == k else -OUT_VALUE


@kernel(nrt=False)
def piles_vector(rules, params, seat, state, totals, out):
    """Every side's margin in the piles so far at the seat's point weights (``piles_margin`` for each side)."""
    for k in range(rules.n_sides):
        pile = state[PILES + k]
        value = points_of(params, seat, pile) + params[seat, P_PER_CARD] * popcount(pile)
        if rules.count_suit >= 0:
            value += params[seat, P_SUIT] * popcount(pile & suit_mask(rules.count_suit))
        totals[k] = value + params[seat, P_SWEEP] * (state[SWEEP_PTS + k] + state[SAME_SUIT + k])
    side_margins(totals, rules.n_sides, out)


@llvm_inline_kernel
def leaf_vector(rules, s, params, seat, stops, state, rps, events, key, first_substream, totals, out, one_card,
                exchange, full):  # fmt: skip
    """Every side's value of a decision ``state`` at the depth limit (``leaf_value`` for each side) in ``out``."""
    if s.rollout_ids[0] < 0:
        piles_vector(rules, params, seat, state, totals, out)
        return
    for k in range(rules.players):
        rps[RNG + 1 + k] = split_stream(key, first_substream + k)
    horizon = int(params[seat, P_LEAF_HORIZON])
    if horizon > 0:
        status = run_horizon(rules, s, params, stops, state, rps, events, DEAL_NEED, horizon, one_card, exchange, full)
        if status == DEAL_NEED:
            piles_vector(rules, params, seat, state, totals, out)
        else:
            deal_vector(rules, state, s.points, s.work, status, rps, totals, out)
        return
    mover = rps[VIEW + VIEW_SEAT]
    i = choose(rps, s.rollout_ids[0], s.rollout_params, rps[VIEW + VIEW_N_MOVES], mover)
    status, _ = run_deal(rules, s.rollout_ids, s.rollout_params, state, rps, events, -1, 0, i, one_card, exchange, full)
    deal_vector(rules, state, s.points, s.work, status, rps, totals, out)


@kernel(nrt=False)
def prefers(a, b, mover, root, n_sides):
    """True if the side ``mover`` takes the value vector ``a`` over ``b``: its own value first; between equals, the
    one worse for the root side, then for the other sides in order (so the choice does not depend on move order)."""
    if a[mover] != b[mover]:
        return a[mover] > b[mover]
    if mover != root and a[root] != b[root]:
        return a[root] < b[root]
    for k in range(n_sides):
        if k != mover and k != root and a[k] != b[k]:
            return a[k] < b[k]
    return False


@kernel(nrt=False)
def maxn_value(rules, s, params, seat, stops, leaf_stops, stack, moves, meta, vals, root, play, take, depth, side,
               key, sub, events, one_card, exchange, full):  # fmt: skip
    """Value for ``side`` of playing ``(play, take)`` in the world ``root`` by a max-n tree over the next ``depth``
    decisions: every side picks the child best for its own margin (``prefers``), no side plays against another
    on purpose. ``vals`` rows 0..depth-1 hold each level's best vector, row ``MAX_DEPTH`` the child's, row
    ``MAX_DEPTH + 1`` scratch; ``meta`` = [count, next, mover's side] per level."""
    rps = s.rollout_ps
    n_sides = rules.n_sides
    child_vec, totals = vals[MAX_DEPTH], vals[MAX_DEPTH + 1]
    first_stops = leaf_stops if depth == 0 else stops
    status = advance(rules, first_stops, params, root, stack[0], rps, events, play, take, one_card, exchange, full)
    if status != DEAL_NEED:
        deal_vector(rules, stack[0], s.points, s.work, status, rps, totals, child_vec)
        return child_vec[side]
    if depth == 0:
        leaf_vector(rules, s, params, seat, stops, stack[0], rps, events, key, sub, totals, child_vec, one_card,
                    exchange, full)  # fmt: skip
        return child_vec[side]
    level = 0
    open_maxn(rules, rps, moves, meta, vals, 0)
    while True:
        if meta[level, 1] < meta[level, 0]:
            i = meta[level, 1]
            meta[level, 1] += 1
            p, t = moves[level, 2 * i], moves[level, 2 * i + 1]
            child = stack[level + 1]
            child_stops = leaf_stops if level + 1 == depth else stops
            status = advance(rules, child_stops, params, stack[level], child, rps, events, p, t, one_card, exchange,
                             full)  # fmt: skip
            if rps[FAULT] != 0:
                return 0.0
            if status != DEAL_NEED:
                deal_vector(rules, child, s.points, s.work, status, rps, totals, child_vec)
            elif level + 1 == depth:
                leaf_vector(rules, s, params, seat, stops, child, rps, events, key, sub, totals, child_vec,
                            one_card, exchange, full)  # fmt: skip
            else:
                level += 1
                open_maxn(rules, rps, moves, meta, vals, level)
                continue
        else:
            if level == 0:
                return vals[0, side]
            for k in range(n_sides):
                child_vec[k] = vals[level, k]
            level -= 1
        if prefers(child_vec, vals[level], meta[level, 2], side, n_sides):
            for k in range(n_sides):
                vals[level, k] = child_vec[k]


@kernel(nrt=False)
def open_maxn(rules, rps, moves, meta, vals, level):
    """Start the max-n node at ``level`` from the decision listed in ``rps`` (moves as ``open_node``)."""
    n = rps[VIEW + VIEW_N_MOVES]
    first = choose_greedy(rps, n)
    moves[level, 0], moves[level, 1] = rps[MOVES + 2 * first], rps[MOVES + 2 * first + 1]
    k = 1
    for m in range(n):
        if m != first:
            moves[level, 2 * k], moves[level, 2 * k + 1] = rps[MOVES + 2 * m], rps[MOVES + 2 * m + 1]
            k += 1
    mover = rules.side_of[rps[VIEW + VIEW_SEAT]]
    meta[level, 0], meta[level, 1], meta[level, 2] = n, 0, mover
    for k in range(4):
        vals[level, k] = 0.0
    vals[level, mover] = -INF  # any child is better than none


@kernel
def choose_search(rules, s, params, seat, events, one_card=True, exchange=True, full=True):
    """Index of the legal move (prepared in the decision space) with the best mean search value over the worlds:
    the worlds drawn first (in the order a world-by-world loop draws them), then the moves one by one over all of
    them, each against the best so far (the module docstring says why that gives the same choice for less).

    A fault of the tree or the rollouts (a full move buffer, an unknown variant) is raised in ``ps[FAULT]``."""
    gs, ps = s.gs, s.ps
    sample, rps = s.sample, s.rollout_ps
    n_moves = ps[VIEW + VIEW_N_MOVES]
    if n_moves <= 1:
        return 0
    n_unseen = list_cards(ps, sample_base(ps), rules.pack & ~ps[VIEW + V_SEEN])
    depth = min(int(params[seat, P_DEPTH]), MAX_DEPTH)
    rollout = int(params[seat, P_ROLLOUT])
    rollout_id = rollout_policy(rollout)
    if rollout_id < 0 and rollout != 0:
        ps[FAULT] = FAULT_POLICY
        return 0
    rps[FAULT] = 0
    for k in range(4):  # every seat of a rollout plays the rollout policy with the searching seat's parameters
        s.rollout_ids[k] = rollout_id
        for j in range(MAX_PARAMS):
            s.rollout_params[k, j] = params[seat, j]
    stops = np.full(4, POLICY_MC, np.int64)  # the deal loop stops at every decision of the tree
    # at the depth limit the piles' value needs no move list, only to know that the decision is one (two moves or
    # more), which the deal loop can often tell without listing them; a rollout leaf needs the list
    leaf_stops = np.full(4, POLICY_LEAF if rollout_id < 0 else POLICY_MC, np.int64)
    stack = np.empty((MAX_DEPTH + 1, GAME_STATE_SIZE), np.int64)
    moves = np.empty((MAX_DEPTH, 2 * rules.max_moves), np.int64)
    scores = np.empty((MAX_DEPTH, rules.max_moves), np.int64)
    meta = np.empty((MAX_DEPTH, 3), np.int64)
    bounds = np.empty((MAX_DEPTH, 3), np.float64)
    maxn = rules.n_sides > 2 and params[seat, P_TREE] != 0
    vals = np.zeros((MAX_DEPTH + 2, 4), np.float64)
    side = rules.side_of[seat]
    key = ps[STREAM_KEY + seat]
    n_worlds = int(params[seat, P_WORLDS])
    worlds = np.empty((n_worlds, CARRIED), np.int64)  # drawn first, in the order a world-by-world loop draws them
    subs = np.empty(n_worlds, np.int64)
    for w in range(n_worlds):
        if atomic_load(s.control, CONTROL_STOP) != 0:
            return 0
        if not determinize(rules, gs, ps, sample, seat, n_unseen):
            return choose_greedy(ps, n_moves)
        subs[w] = 1 + 4 * ps[SUBSTREAM + seat]
        ps[SUBSTREAM + seat] += 1
        for k in range(CARRIED):  # a loop: a slice made Escoba, Scopone 0.92x, 0.84x (1 pair)
            worlds[w, k] = sample[k]
    if maxn:
        values = s.values
        for m in range(n_moves):
            values[m] = 0.0
            play, take = ps[MOVES + 2 * m], ps[MOVES + 2 * m + 1]
            for w in range(n_worlds):
                if atomic_load(s.control, CONTROL_STOP) != 0:
                    return 0
                values[m] += maxn_value(rules, s, params, seat, stops, leaf_stops, stack, moves, meta, vals, worlds[w],
                                        play, take, depth, side, key, subs[w], events, one_card, exchange,
                                        full)  # fmt: skip
                if rps[FAULT] != 0:
                    ps[FAULT] = rps[FAULT]
                    return 0
        return first_best(values, n_moves)
    # the first of the highest sums over the worlds, from the exact values of the moves that can reach it only (the
    # module docstring: upper bounds of the others, searched above the best move's value in each world)
    best_values = np.empty(n_worlds, np.float64)
    found = np.empty(n_worlds, np.float64)
    exact = np.empty(n_worlds, np.bool_)
    best, best_sum = -1, 0.0
    first = choose_greedy(ps, n_moves)  # a strong move first makes the bounds of the others tight
    for j in range(n_moves):
        m = first if j == 0 else (j - 1 if j <= first else j)
        play, take = ps[MOVES + 2 * m], ps[MOVES + 2 * m + 1]
        bound_sum = 0.0
        for w in range(n_worlds):
            if atomic_load(s.control, CONTROL_STOP) != 0:
                return 0
            alpha = best_values[w] if best >= 0 else -INF
            value = move_value(rules, s, params, seat, stops, leaf_stops, stack, moves, scores, meta, bounds,
                               worlds[w], play, take, depth, side, key, subs[w], alpha, events, one_card, exchange,
                               full)  # fmt: skip
            if rps[FAULT] != 0:
                ps[FAULT] = rps[FAULT]
                return 0
            found[w] = value
            exact[w] = best < 0 or value > alpha
            bound_sum += value
        if best >= 0 and (bound_sum < best_sum or (bound_sum <= best_sum and m > best)):
            continue  # it cannot be chosen
        total = 0.0
        for w in range(n_worlds):
            if not exact[w]:
                found[w] = move_value(rules, s, params, seat, stops, leaf_stops, stack, moves, scores, meta, bounds,
                                      worlds[w], play, take, depth, side, key, subs[w], -INF, events, one_card,
                                      exchange, full)  # fmt: skip
                if rps[FAULT] != 0:
                    ps[FAULT] = rps[FAULT]
                    return 0
            total += found[w]
        if best < 0 or total > best_sum or (total == best_sum and m < best):
            best, best_sum = m, total
            for w in range(n_worlds):
                best_values[w] = found[w]
    return best
