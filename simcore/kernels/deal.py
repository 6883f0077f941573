"""One deal of any of the games, as a loop that can stop and resume (``run_deal``).

Scopa, Skopa, Foracio, Scopone and Escoba share ``family_loop`` (one card per turn, seats in order, hands dealt in
rounds), driven by ``Rules`` flags: rank-only court captures, the ace that takes all (Foracio, Scopone), same-suit
points, valued scope, mid-deal declarations. Kaszinó's turn structure is its own (``kaszino_loop``: exchanges,
double moves after a tábla, waiting players, draws led by the last capturer). The games call each loop as a
function of its own (``run_family``, ``run_kaszino``); search's trees have it inlined (``play_on``). Procedure
(RULES.md A.2, A.5 and Part B; the reference engines in ``simcore.reference`` follow the same steps):

* Streams: stream 0 deals (first dealer, then one shuffle per deal or redeal), stream ``1 + seat`` is the
  seat's policy stream. Deal ``d`` is dealt by ``(first_dealer + d) % players`` and led by the next seat.
* Shuffle: the pack's card ids in ascending order, then Fisher-Yates from the top (``j = bounded(i + 1)`` for
  ``i = n-1 .. 1``). Hands come first from the shuffled array, in playing order from the leader, then the
  table, then later rounds' hands in the same order (RULES.md 0.2.5).
* A capture that empties the table is a sweep, except with the deal's last card unless ``last_play_sweep``
  (and never with Foracio's ace; Scopone's ace: taking a lone table ace is ordinary, a take-all sweeps only with
  ``ace_scopa``). The deal's first play has rule scalars of its own (``first_play_rules``: Scopone's
  ``ace_first_play``). The table left at the end goes to the last capturer's side; if nobody captured
  it stays unscored. A mid-deal win ends the game after the play that secured it, with no residue.
* Foracio's ``no_scopa_rule="final_capture_if_in_last_round"`` (``Rules.last_capture_no_scopa``): a sweep in
  the deal's last round is provisional (``DS_PROVISIONAL``), counts toward no declaration, and when the deal
  ends as the deal's last capture loses its scopa, in the state and on its already written play event
  (``withdraw_scopa``).

Where the deal stands lives in the game state (``DS_*`` slots), not in loop variables: a Monte Carlo seat stops
the loop (status ``DEAL_NEED``) and the loop resumes with its choice, and a rollout runs the same loop on a
sampled copy of the state. Trace events are written only when ``ev_slot >= 0`` (``scopasim trace``); one int64
row per event: ``[type, a, b, c, d, mask1, mask2]`` (meanings at the ``EV_*`` constants).
"""

from __future__ import annotations

from simcore._jit import inline_kernel, kernel, llvm_inline_kernel
from simcore.kernels.bits import KINGS_MASK, list_cards, lowest, popcount, suit_mask
from simcore.kernels.captures import card_value, mask_value
from simcore.kernels.moves import exchange_moves, first_play_rules, list_moves, lists_two_or_more, move_rules
from simcore.kernels.scoring import foracio_pile_points, kaszino_scoring, kaszino_sure_points, scopa_secured_total
from simcore.kernels.workspace import (
    DEAL_RNG,
    DECK,
    DRAWS,
    DS_DEAL,
    DS_DOUBLE,
    DS_FIRST,
    DS_LAST,
    DS_MOVER,
    DS_N,
    DS_OUT_SIDE,
    DS_PENDING,
    DS_POS,
    DS_PROVISIONAL,
    DS_PROVISIONAL_EVENT,
    DS_SEEN,
    DS_STEP,
    DS_T,
    DS_TABLE,
    DS_TO_MOVE,
    DS_TRAILED,
    FAULT,
    FAULT_VARIANT,
    HANDS,
    LAST_ROUND_SCOPA,
    MAX_SAMPLES,
    MOVES,
    PILES,
    RI,
    RNG,
    SAME_SUIT,
    SWEEP_COUNT,
    SWEEP_ORDER,
    SWEEP_PTS,
    SWEEPS,
    TOTALS,
    VIEW,
    data_pointer,
)
from simcore.policies.heuristics import P_EPSILON
from simcore.policies.kernels import POLICY_GREEDY, POLICY_LEAF, POLICY_RANDOM, choose, choose_quick, needs_state
from simcore.policies.quick import (
    lanes_after,
    quick_choice_lanes,
    quick_exchange_choice,
    quick_policy,
    subset_sum_lanes,
)
from simcore.rng import GOLDEN, LOW32, bounded, draw_bounded, mix64, wrapping_add, wrapping_mul
from simcore.variants.base import (
    ACE_SWEEP_SCORES,
    LEADER_LAST_CAPTURER,
    LEADER_OPPONENT,
    OUT_CALL,
    OUT_CLAIM,
    OUT_SECURED,
    RESIDUE_DEALER,
    RESIDUE_NON_DEALER,
    SAME_SUIT_DOUBLES_SCOPA,
    TURNS_EXCHANGE,
    TURNS_ONE_CARD,
)

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
EV_OPENING = 9  # a = seat, b = escobas (1 or 2), mask1 = the table cards taken (Escoba's opening)
EV_WIDTH = 7
KIND_CAPTURE, KIND_TRAIL, KIND_KEEP = 0, 1, 2
ACES = 0xF

# How ``prepare`` lists the moves
MOVES_FAMILY, MOVES_EXCHANGE, MOVES_TRAIL = 0, 1, 2

# What ``run_deal`` returns
DEAL_DONE, DEAL_OUT, DEAL_NEED = 0, 1, 2
REDEAL_KINGS = 0

# The policy view (workspace slots VIEW + ...): what the seat to move may know
VIEW_SEAT, VIEW_SIDE, VIEW_HAND, VIEW_TABLE, VIEW_SEEN, VIEW_STOCK, VIEW_DEAL, VIEW_PLAY = range(8)
VIEW_PILES = 8  # + side: every side's capture pile (public: captured cards were seen face up)
VIEW_TOTALS = 12  # + side: game totals before this deal
VIEW_OPEN = 16  # the other hand when it is public (Kaszinó's last round), else 0
VIEW_NEXT_COUNT = 17  # cards in the next player's hand
VIEW_LAST = 18  # 1 if this is the deal's last play
VIEW_HAND_COUNTS = 19  # + seat: cards in each hand
VIEW_N_MOVES = 23  # number of legal moves
UNLISTED = -1  # VIEW_N_MOVES at a search leaf whose moves were not listed (two or more: ``POLICY_LEAF``)


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
def draw_first_dealer(gs, players, fixed):
    """The first dealer of a game (A.2): drawn from the deal stream, or seat 0 when ``fixed`` (``Rules.
    first_dealer_fixed``); the draw is made either way, so a seed deals the same cards under both. The one place
    that decides it: the game loop, the Game API and the replay of dealt hands call it."""
    drawn = bounded(gs, DEAL_RNG, players)
    return 0 if fixed != 0 else drawn


@inline_kernel
def shuffle(gs, pack):
    """Fill the deck with the pack's cards (ascending id) and Fisher-Yates them; returns the count.

    The draws do not depend on each other (draw ``k`` mixes ``state + (k + 1) * GOLDEN``), so they are computed
    first, in one loop that LLVM vectorises, then the swaps follow. A draw that Lemire's method might reject
    (its low half below its bound: about once in 10**8 draws) sends the whole shuffle down the plain loop of
    ``draw_bounded`` instead, which gives the same numbers one at a time."""
    n = list_cards(gs, DECK, pack)
    state = gs[DEAL_RNG]
    near = 0
    for k in range(n - 1):
        bound = n - k
        m = ((mix64(wrapping_add(state, wrapping_mul(k + 1, GOLDEN))) >> 32) & LOW32) * bound
        gs[DRAWS + k] = (m >> 32) & LOW32
        near |= (m & LOW32) < bound
    if near == 0:
        for k in range(n - 1):
            i = n - 1 - k
            j = gs[DRAWS + k] & 63  # below 52: the mask tells LLVM so (no negative-index check)
            gs[DECK + i], gs[DECK + j] = gs[DECK + j], gs[DECK + i]
        gs[DEAL_RNG] = wrapping_add(state, wrapping_mul(max(n - 1, 0), GOLDEN))
        return n
    for i in range(n - 1, 0, -1):
        state, j = draw_bounded(state, i + 1)
        gs[DECK + i], gs[DECK + j] = gs[DECK + j], gs[DECK + i]
    gs[DEAL_RNG] = state
    return n


@kernel
def take_cards(gs, pos, count):
    """Mask of the deck cards ``pos .. pos+count-1``."""
    m = 0
    for i in range(pos, pos + count):
        m |= 1 << gs[DECK + i]
    return m


@inline_kernel
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
def dealer_of(rules, first_dealer, deal_idx):
    """The dealer of deal ``deal_idx``: the first dealer's seat moved on ``Rules.dealer_step`` seats a deal (1: the
    next seat, A.2; 0: Foracio's ``dealer_rotation="fixed"``). The one place the game loop, ``simcore.play`` and
    ``simcore.dealt`` take it from."""
    return (first_dealer + deal_idx * rules.dealer_step) % rules.players


@inline_kernel
def start_deal(rules, gs, deal_idx, dealer, events, ev_slot, ne):
    """Shuffle and deal, redealing while the deal is void (kings); returns (table, pos, n, redeals, events).

    The hands go out from the leader on, each moved on ``rules.deal_rotation`` seats (0 in every run)."""
    first = (dealer + 1 + rules.deal_rotation) % rules.players
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


@inline_kernel
def prepare(gs, ps, seat, side, table, seen, stock, deal_idx, t, rs, mode, open_hand, full):
    """Write the seat's legal moves and its view into ``ps``; returns the number of moves.

    ``rs``: the rule scalars of ``move_rules``; ``mode``: MOVES_FAMILY, MOVES_EXCHANGE (Kaszinó) or MOVES_TRAIL
    (a forced trail); ``open_hand``: the other hand when it is public, else 0. This is where game state flows to
    a policy, and only through the view: a policy is handed ``ps``, never ``gs``.

    ``full``: the deal loop's, ``None`` in a loop compiled without the listed policies, which lists only for the
    quick ones: then neither the view (they read none) nor ``list_moves``' path for small tables (its ``reach``)
    is compiled; in the four seed games' cold compile of greedy runs, about 2 s less typing of ``family_loop``.

    Inlined into the deal loops and ``decide``, with the move lister: as a call it passed 38 arguments (the two
    arrays' fields, the rule record's 14) on the stack once per listed play, about 6 ns of the example greedy's 72
    (A/B in alternating processes); the cold compile did not grow.
    """
    hand = gs[HANDS + seat]
    space = ps[: (ps.shape[0] - MAX_SAMPLES) // 2]  # ``seat_space``, without a call
    if mode == MOVES_FAMILY:
        n_moves = list_moves(space, hand, table, rs, full)
    else:
        n_moves = exchange_moves(space, hand, table, rs, mode == MOVES_TRAIL)
    if full is not None:
        write_view(gs, ps, seat, side, table, seen, stock, deal_idx, t, open_hand, n_moves)
    return n_moves


@inline_kernel
def write_view(gs, ps, seat, side, table, seen, stock, deal_idx, t, open_hand, n_moves):
    """Write the view of the seat to move into ``ps`` (``prepare``; Kaszinó's loop lists the moves itself)."""
    hand = gs[HANDS + seat]
    ps[VIEW + VIEW_SEAT] = seat
    ps[VIEW + VIEW_SIDE] = side
    ps[VIEW + VIEW_HAND] = hand
    ps[VIEW + VIEW_TABLE] = table
    ps[VIEW + VIEW_SEEN] = seen | hand | open_hand
    ps[VIEW + VIEW_STOCK] = stock
    ps[VIEW + VIEW_DEAL] = deal_idx
    ps[VIEW + VIEW_PLAY] = t
    ps[VIEW + VIEW_OPEN] = open_hand
    players = ps[RI.players]
    in_hands = 0
    for s in range(4):  # a fixed count, unrolled; the seats past ``players`` hold 0
        count = popcount(gs[HANDS + s]) if s < players else 0
        in_hands += count
        ps[VIEW + VIEW_HAND_COUNTS + s] = count
        ps[VIEW + VIEW_PILES + s] = gs[PILES + s]
        ps[VIEW + VIEW_TOTALS + s] = gs[TOTALS + s]
    nxt = seat + 1  # a popcount again, not a load of the count just stored: that load waits for the store
    ps[VIEW + VIEW_NEXT_COUNT] = popcount(gs[HANDS + (0 if nxt == players else nxt)])
    ps[VIEW + VIEW_LAST] = stock == 0 and in_hands == 1
    ps[VIEW + VIEW_N_MOVES] = n_moves


@kernel
def decide(gs, ps, seat, side, table, seen, stock, deal_idx, t, rs, policy_id, params, mode, open_hand):
    """The index in ``ps`` of the move the seat's policy picks (``prepare``, then the policy)."""
    n_moves = prepare(gs, ps, seat, side, table, seen, stock, deal_idx, t, rs, mode, open_hand, True)
    return choose(ps, policy_id, params, n_moves, seat)


@kernel
def clear_deal(gs):
    """Empty the deal's piles and per-deal counters."""
    for side in range(4):
        gs[PILES + side] = 0
        gs[SWEEPS + side] = 0
        gs[SWEEP_PTS + side] = 0
        gs[SAME_SUIT + side] = 0
    gs[DS_OUT_SIDE] = -1
    gs[SWEEP_ORDER], gs[SWEEP_COUNT] = 0, 0
    for side in range(4):
        gs[LAST_ROUND_SCOPA + side] = 0
    gs[DS_PROVISIONAL], gs[DS_PROVISIONAL_EVENT] = -1, -1


@kernel
def opening_escobas(table, value_by_rank, sum_to):
    """Escoba's opening (RULES.md E4, C.A.5): 1 when the initial table cards total ``sum_to``, 2 when they split
    into two pairs of ``sum_to`` each (the lowest card and a partner; the other two then make it too), else 0."""
    total = mask_value(table, value_by_rank)
    if total == sum_to:
        return 1
    if total == 2 * sum_to:
        c = lowest(table)
        rest = table ^ (1 << c)
        while rest != 0:
            u = lowest(rest)
            rest &= rest - 1
            if card_value(c, value_by_rank) + card_value(u, value_by_rank) == sum_to:
                return 2
    return 0


@kernel(nrt=False)
def take_opening(rules, gs, table, dealer, leader, events, ev_slot, ne):
    """Escoba's opening take, if due: the dealer (``rules.opening`` 1) or the first player (2) takes the initial
    table as 1 or 2 escobas and becomes the last capturer. Returns (table left, last capturer or -1, events)."""
    escobas = opening_escobas(table, rules.value_by_rank, rules.sum_to)
    if escobas == 0:
        return table, -1, ne
    seat = dealer if rules.opening == 1 else leader
    side = rules.side_of[seat]
    gs[PILES + side] |= table
    gs[SWEEPS + side] += escobas
    gs[SWEEP_PTS + side] += escobas * rules.sweep_points
    if ev_slot >= 0:
        ne = emit(events, ev_slot, ne, EV_OPENING, seat, escobas * rules.sweep_points, 0, 0, table, 0)
    return 0, seat, ne


@inline_kernel
def begin_deal(rules, gs, deal_idx, dealer, events, ev_slot, ne):
    """Shuffle and deal deal ``deal_idx`` by ``dealer`` (``start_deal``), empty its piles and set the deal loop's
    counters in ``gs``, so that ``run_deal`` plays it from its first move; returns (redeals, events). Escoba's
    opening take (``take_opening``) happens here, between the dealing and the first play."""
    table, pos, n, redeals, ne = start_deal(rules, gs, deal_idx, dealer, events, ev_slot, ne)
    clear_deal(gs)
    leader = (dealer + 1) % rules.players
    seen = table
    last = -1
    if rules.opening != 0:
        table, last, ne = take_opening(rules, gs, table, dealer, leader, events, ev_slot, ne)
    gs[DS_T], gs[DS_POS], gs[DS_N], gs[DS_TABLE], gs[DS_SEEN] = 0, pos, n, table, seen
    gs[DS_LAST], gs[DS_FIRST], gs[DS_DEAL], gs[DS_TO_MOVE], gs[DS_PENDING] = last, leader, deal_idx, leader, -1
    return redeals, ne


@inline_kernel
def credit_sweep(gs, side, swept, countout):
    """Count a sweep worth ``swept`` points for ``side``; with ``countout`` (Scopa's tie-break, S12) also record
    its side in the order of the deal's sweeps. Returns ``swept``."""
    gs[SWEEPS + side] += 1
    gs[SWEEP_PTS + side] += swept
    if countout != 0:
        gs[SWEEP_ORDER] |= side << (2 * gs[SWEEP_COUNT])
        gs[SWEEP_COUNT] += 1
    return swept


@kernel(nrt=False)
def award_residue(gs, table, last_capturer, side_of, events, ev_slot, ne):
    """The cards left on the table go to the last capturer's side (none if nobody captured)."""
    if table != 0 and last_capturer >= 0:
        gs[PILES + side_of[last_capturer]] |= table
        if ev_slot >= 0:
            ne = emit(events, ev_slot, ne, EV_RESIDUE, last_capturer, 0, 0, 0, table, 0)
    return ne


@kernel(nrt=False)
def withdraw_scopa(gs, side, events, ev_slot):
    """Foracio's ``no_scopa_rule="final_capture_if_in_last_round"`` (F8) at the end of a deal (played out, or
    ended by a declaration): the deal's last capture was a sweep in its last round, so its scopa
    (``gs[DS_PROVISIONAL]`` points of ``side``) is withdrawn: from the side's scope and sweeps, and from its play
    event, which then records the play as finally scored (no sweep; its same-suit points only)."""
    swept = gs[DS_PROVISIONAL]
    gs[SWEEP_PTS + side] -= swept
    gs[SWEEPS + side] -= 1
    gs[LAST_ROUND_SCOPA + side] -= swept
    gs[DS_PROVISIONAL] = -1
    at = gs[DS_PROVISIONAL_EVENT]
    if ev_slot >= 0 and 0 <= at < events.shape[1]:
        events[ev_slot, at, 3] -= swept
        events[ev_slot, at, 4] = 0


@kernel(nrt=False)
def claim_reached(rules, gs, side, target):
    """Scopa's ``claim_out``: whether ``side``'s banked points, its scope of the deal and the points it is sure of
    (``scoring.scopa_secured``) reach the target, so that it claims the game after its play."""
    banked = gs[TOTALS + side] + gs[SWEEP_PTS + side]
    return banked + scopa_secured_total(rules, gs[PILES : PILES + rules.n_sides], side) >= target


@llvm_inline_kernel
def family_loop(rules, policy_ids, params, gs, ps, events, ev_slot, ne, forced, full):
    """Play a deal of a one-card game on from where ``gs`` stands; returns (status, events).

    Status DEAL_DONE: the deal is over (residue awarded); DEAL_OUT: a side won mid-deal (``gs[DS_OUT_SIDE]``);
    DEAL_NEED: a Monte Carlo seat must choose among the moves prepared in ``ps``, and the deal resumes with
    ``forced`` = its choice. The loop reads rules through local scalars and passes helpers only scalars and the
    two borrowed work arrays.
    """
    players, hand_size, side_of = rules.players, rules.hand_size, rules.side_of
    rs_later, rs_first = move_rules(rules), first_play_rules(rules)  # Scopone's ace_first_play: the first differs
    value_by_rank, ace_sweeps, same_suit_bonus = rules.value_by_rank, rules.ace_sweeps, rules.same_suit_bonus
    ace_single, ace_scopa = rules.ace_single_ordinary, rules.ace_scopa
    last_sweep, sweep_mode, sweep_points = rules.last_play_sweep != 0, rules.sweep_mode, rules.sweep_points
    mid_deal_out, target, countout = rules.mid_deal_out, rules.target, rules.countout
    last_capture_rule = rules.last_capture_no_scopa
    t, pos, n, table, seen = gs[DS_T], gs[DS_POS], gs[DS_N], gs[DS_TABLE], gs[DS_SEEN]
    last_capturer, first, deal_idx = gs[DS_LAST], gs[DS_FIRST], gs[DS_DEAL]
    total_plays = n - rules.table_size
    per_round = players * hand_size
    dealt_first = (first + rules.deal_rotation) % players  # the later rounds' hands, rotated as the first's
    mover = (first + t) % players  # the seat to move and the place in the round: counters, not divisions
    in_round = t % per_round
    status = DEAL_DONE
    sum_mask, pack = rules.sum_mask, rules.pack
    lo, hi = subset_sum_lanes(table & sum_mask, value_by_rank)  # kept up to date by ``lanes_after``
    ps_data = data_pointer(ps)  # for the quick policies: an array passed to an inlined helper costs NRT calls
    while t < total_plays:
        seat = mover
        mover = 0 if mover + 1 == players else mover + 1
        side = side_of[seat]
        play, take, i = -1, 0, 0
        rs = rs_first if t == 0 else rs_later
        if forced >= 0:
            i = forced
            forced = -1
        else:
            if t > 0 and in_round == 0:
                pos, ne = deal_hands(gs, players, hand_size, dealt_first, pos, events, ev_slot, ne)
            policy = policy_ids[seat]
            if quick_policy(policy):  # no move list, no view (simcore.policies.quick)
                hand, epsilon = gs[HANDS + seat], params[seat, P_EPSILON]
                play, take = quick_choice_lanes(
                    ps_data, seat, hand, table, rs, policy, epsilon, lo, hi, hand_size, pack, full
                )
            if play < 0:
                if full is not None and policy == POLICY_LEAF and lists_two_or_more(gs[HANDS + seat], rs):
                    ps[VIEW + VIEW_N_MOVES] = UNLISTED  # a search leaf: the moves are not needed
                    status = DEAL_NEED
                    break
                n_moves = prepare(gs, ps, seat, side, table, seen, n - pos, deal_idx, t, rs, MOVES_FAMILY, 0, full)
                if full is None:  # compiled without the listed policies (``engine.run_features``): a quick seat
                    i = choose_quick(ps, policy, params, n_moves, seat)
                elif needs_state(policy):
                    status = DEAL_NEED
                    break
                else:
                    i = choose(ps, policy, params, n_moves, seat)
        if play < 0:
            play = ps[MOVES + 2 * i]
            take = ps[MOVES + 2 * i + 1]
        gs[HANDS + seat] &= ~play
        seen |= play
        t += 1
        in_round = 0 if in_round + 1 == per_round else in_round + 1
        table = (table | play) if take == 0 else (table & ~take)
        lo, hi = lanes_after(lo, hi, table, play, take, sum_mask, value_by_rank)
        if take == 0:
            if ev_slot >= 0:
                ne = emit(events, ev_slot, ne, EV_PLAY, seat, KIND_TRAIL, 0, 0, play, 0)
            # with 3 sides, another side's capture can make the mover sure of a point: it claims after any play
            if mid_deal_out == OUT_CLAIM and claim_reached(rules, gs, side, target):
                if ev_slot >= 0:
                    ne = emit(events, ev_slot, ne, EV_OUT, seat, 0, 0, 0, 0, 0)
                gs[DS_OUT_SIDE] = side
                status = DEAL_OUT
                break
            continue
        gs[PILES + side] |= take | play
        last_capturer = seat
        kind = KIND_CAPTURE
        points = 0
        swept = 0
        sweep = False
        ordinary = True
        if ace_sweeps != 0 and play & ACES:
            if take == play:
                kind = KIND_KEEP  # Foracio, Scopone: the ace kept itself on an empty table
                ordinary = False
            elif ace_sweeps == ACE_SWEEP_SCORES:  # Foracio's ace_sweep_is_scopa: the ace's value, no same-suit
                ordinary = False
                if table == 0 and (t < total_plays or last_sweep):
                    sweep = True
                    swept = credit_sweep(gs, side, card_value(lowest(play), rules.sweep_value_by_rank), countout)
                    points = swept
            elif ace_single == 0 or popcount(take) != 1 or (take & ACES) == 0:
                ordinary = ace_scopa != 0  # a take-all: a sweep only under Scopone's ace_scopa, never same-suit
        if ordinary:
            c = lowest(play)
            if same_suit_bonus != 0 and popcount(take) >= 2 and (take & ~suit_mask(c & 3)) == 0:
                bonus = card_value(c, value_by_rank)  # F7: a same-suit sum capture scores at once
                gs[SAME_SUIT + side] += bonus
                points += bonus
            if table == 0 and (t < total_plays or last_sweep):
                sweep = True
                swept = sweep_points if sweep_mode == 0 else card_value(c, rules.sweep_value_by_rank)
                if points != 0 and same_suit_bonus == SAME_SUIT_DOUBLES_SCOPA:
                    swept *= 2  # F8 same_suit_scopa_total="3v": a same-suit sweep's scopa doubled, plus the bonus
                points += credit_sweep(gs, side, swept, countout)
        if last_capture_rule != 0:  # F8 option: a capture settles the provisional sweep before it (it stands)
            gs[DS_PROVISIONAL] = -1
            if sweep and t > total_plays - players:  # a sweep in the last round is provisional itself
                gs[LAST_ROUND_SCOPA + side] += swept
                gs[DS_PROVISIONAL], gs[DS_PROVISIONAL_EVENT] = swept, ne if ev_slot >= 0 else -1
        if ev_slot >= 0:
            shown = 0 if kind == KIND_KEEP else take
            ne = emit(events, ev_slot, ne, EV_PLAY, seat, kind, points, sweep, play, shown)
        # a declaration counts the banked total and the deal's scope and same-suit points, not a last-round scopa
        if mid_deal_out == OUT_SECURED:  # F13 "auto_on_secured_points": the pile's points are secured too
            banked = gs[TOTALS + side] + gs[SWEEP_PTS + side] + gs[SAME_SUIT + side] - gs[LAST_ROUND_SCOPA + side]
            secured = banked + foracio_pile_points(rules, gs[PILES + side]) >= target
        elif mid_deal_out == OUT_CLAIM:  # Scopa's claim_out: the mover's side claims once it is sure of the target
            secured = claim_reached(rules, gs, side, target)
        else:  # the totals are read only after a scoring capture
            secured = mid_deal_out != 0 and points > 0
            banked = gs[TOTALS + side] + gs[SWEEP_PTS + side] + gs[SAME_SUIT + side] - gs[LAST_ROUND_SCOPA + side]
            secured = secured and banked >= target
        if secured:
            if ev_slot >= 0:
                ne = emit(events, ev_slot, ne, EV_OUT, seat, 0, 0, 0, 0, 0)
            gs[DS_OUT_SIDE] = side
            status = DEAL_OUT
            break
    if status != DEAL_NEED and gs[DS_PROVISIONAL] >= 0:  # the deal is over: its last capture's scopa is withdrawn
        withdraw_scopa(gs, side_of[last_capturer], events, ev_slot)
    if status == DEAL_DONE:
        ne = award_residue(gs, table, last_capturer, side_of, events, ev_slot, ne)
    gs[DS_T], gs[DS_POS], gs[DS_TABLE], gs[DS_SEEN], gs[DS_LAST] = t, pos, table, seen, last_capturer
    return status, ne


@inline_kernel
def quick_exchange(ps, policy, params, n_moves, seat):
    """The index of the Kaszinó move a quick policy (``quick_policy``: random, greedy, the rollouts'
    epsilon-greedy) picks among the ``n_moves`` listed, with the draws of ``choose_quick``: where
    ``quick_exchange_choice`` declines (a table or a value total beyond its lanes). Greedy's only move
    needs no scan, and random's a step of its stream: ``bounded(ps, i, 1)`` draws 0 and advances the state by one
    step whatever it is (over half of Kaszinó's plays have one move)."""
    if n_moves == 1 and policy == POLICY_GREEDY:
        return 0
    if n_moves == 1 and policy == POLICY_RANDOM:
        ps[RNG + 1 + seat] = wrapping_add(ps[RNG + 1 + seat], GOLDEN)
        return 0
    return choose_quick(ps, policy, params, n_moves, seat)


@llvm_inline_kernel
def kaszino_loop(rules, policy_ids, params, gs, ps, events, ev_slot, ne, forced, full):
    """Play a Kaszinó deal on from where ``gs`` stands (RULES.md 2.3); returns (status, events) as ``family_loop``.

    Turns alternate, a player with an empty hand waits, a tábla gives the opponent a double move (a forced
    trail, then a normal move), and when both hands are empty the leader draws first. A player who reaches the
    target on sure points mid-deal wins ("AUSZ!"). A tábla with the deal's final move, or one taking only the
    mover's own trails, is a plain capture when the rules say so (K11, K6).
    """
    rs = move_rules(rules)
    sc = kaszino_scoring(rules)
    ps_data = data_pointer(ps)  # for the quick policies (``family_loop``)
    plays, pos, n, table, seen = gs[DS_T], gs[DS_POS], gs[DS_N], gs[DS_TABLE], gs[DS_SEEN]
    # the table's lanes for the quick seats, built at the first quick decision and then kept up to date
    # (``lanes_after``): a loop whose seats list (search's trees, which run it a play or two at a time) builds none
    sum_mask, value_by_rank = rs.sum_mask, rs.value_by_rank
    lo, hi, lanes = 0, 0, False
    last_capturer, nondealer, deal_idx = gs[DS_LAST], gs[DS_FIRST], gs[DS_DEAL]
    to_move, pending_double = gs[DS_TO_MOVE], gs[DS_PENDING]
    resume = forced >= 0
    if plays == 0:  # nothing trailed yet (resuming at the deal's first move too)
        gs[DS_TRAILED], gs[DS_TRAILED + 1] = 0, 0
    status = DEAL_DONE
    p = 0
    step = 0
    double = False
    while True:
        if resume:
            p, step, double = gs[DS_MOVER], gs[DS_STEP], gs[DS_DOUBLE] != 0
        else:
            if gs[HANDS] == 0 and gs[HANDS + 1] == 0:
                if pos == n:
                    break
                leader = nondealer  # also while nobody has captured (K8)
                if last_capturer >= 0 and rules.round_leader == LEADER_LAST_CAPTURER:
                    leader = last_capturer
                elif last_capturer >= 0 and rules.round_leader == LEADER_OPPONENT:
                    leader = 1 - last_capturer
                pos, ne = deal_hands(gs, 2, 3, (leader + rules.deal_rotation) % 2, pos, events, ev_slot, ne)
                to_move = leader
                continue
            p = to_move
            to_move = 1 - p
            if gs[HANDS + p] == 0:
                continue  # waiting for the other hand to empty (K8)
            double = pending_double == p
            if double:
                pending_double = -1
            step = 0
        while step < (2 if double else 1) and gs[HANDS + p] != 0:
            play, take = -1, 0
            if resume:
                i = forced
                resume = False
            else:
                policy = policy_ids[p]
                # no list and no view for the quick policies: they read none (``quick_exchange_choice``); a loop
                # compiled without the listed policies (``engine.run_features``) has only quick seats
                quick = full is None or quick_policy(policy)
                if quick:
                    if not lanes:
                        lo, hi = subset_sum_lanes(table & sum_mask, value_by_rank)
                        lanes = True
                    trail_only = double and step == 0
                    epsilon = params[p, P_EPSILON]
                    play, take = quick_exchange_choice(
                        ps_data, p, gs[HANDS + p], table, rs, policy, epsilon, trail_only, lo, hi
                    )
                if play < 0:
                    space = ps[: (ps.shape[0] - MAX_SAMPLES) // 2]  # ``seat_space``, without a call
                    n_moves = exchange_moves(space, gs[HANDS + p], table, rs, double and step == 0)
                    if quick:
                        i = quick_exchange(ps, policy, params, n_moves, p)
                    else:
                        open_hand = gs[HANDS + 1 - p] if rules.last_round_open != 0 and pos == n else 0
                        write_view(gs, ps, p, p, table, seen, n - pos, deal_idx, plays, open_hand, n_moves)
                        if needs_state(policy):
                            status = DEAL_NEED
                            break
                        i = choose(ps, policy, params, n_moves, p)
            if play < 0:
                play = ps[MOVES + 2 * i]
                take = ps[MOVES + 2 * i + 1]
            gs[HANDS + p] &= ~play
            seen |= play
            plays += 1
            step += 1
            table = (table | play) if take == 0 else (table & ~take)
            if lanes:
                lo, hi = lanes_after(lo, hi, table, play, take, sum_mask, value_by_rank)
            if take == 0:
                if rules.own_trail_tabla == 0:
                    gs[DS_TRAILED + p] |= play
                if ev_slot >= 0:
                    ne = emit(events, ev_slot, ne, EV_PLAY, p, KIND_TRAIL, 0, 0, play, 0)
                # out_call="manual": a player carried over at the target calls after any play of his (under
                # "auto" nobody starts a deal there, and a trail scores nothing, so only captures are checked)
                if rules.mid_deal_out == OUT_CALL:
                    sure = kaszino_sure_points(gs[PILES + p], gs[SWEEP_PTS + p], sc)
                    if gs[TOTALS + p] + sure >= rules.target:
                        if ev_slot >= 0:
                            ne = emit(events, ev_slot, ne, EV_OUT, p, 0, 0, 0, 0, 0)
                        gs[DS_OUT_SIDE] = p
                        status = DEAL_OUT
                        break
                continue
            gs[PILES + p] |= take | play
            last_capturer = p
            points = 0
            tabla = table == 0
            if tabla:  # a tábla (K6, K7), unless it is the deal's final move (K11) or takes back own trails
                final = pos == n and gs[HANDS] == 0 and gs[HANDS + 1] == 0
                tabla = (rules.last_play_sweep != 0 or not final) and (
                    rules.own_trail_tabla != 0 or (take & ~gs[DS_TRAILED + p]) != 0
                )
            if tabla:
                in_hands = popcount(gs[HANDS]) + popcount(gs[HANDS + 1]) + popcount(play)
                opening = plays == 1 or (rules.opening_tabla_each_round != 0 and in_hands == 6)  # a round's first
                points = rules.opening_tabla_points if opening else rules.sweep_points
                gs[SWEEPS + p] += 1
                gs[SWEEP_PTS + p] += points
                if rules.after_tabla_double != 0 and gs[HANDS + 1 - p] != 0:
                    pending_double = 1 - p
            if ev_slot >= 0:
                ne = emit(events, ev_slot, ne, EV_PLAY, p, KIND_CAPTURE, points, tabla, play, take)
            sure = kaszino_sure_points(gs[PILES + p], gs[SWEEP_PTS + p], sc)
            if rules.mid_deal_out != 0 and gs[TOTALS + p] + sure >= rules.target:
                if ev_slot >= 0:
                    ne = emit(events, ev_slot, ne, EV_OUT, p, 0, 0, 0, 0, 0)
                gs[DS_OUT_SIDE] = p
                status = DEAL_OUT
                break
        if status != DEAL_DONE:
            break
    if status == DEAL_DONE:
        receiver = last_capturer  # K10: nobody captured: the table stays, or goes where the rules say
        if receiver < 0 and rules.residue_no_capture == RESIDUE_DEALER:
            receiver = 1 - nondealer
        elif receiver < 0 and rules.residue_no_capture == RESIDUE_NON_DEALER:
            receiver = nondealer
        ne = award_residue(gs, table, receiver, rules.side_of, events, ev_slot, ne)
    gs[DS_T], gs[DS_POS], gs[DS_TABLE], gs[DS_SEEN], gs[DS_LAST] = plays, pos, table, seen, last_capturer
    gs[DS_TO_MOVE], gs[DS_PENDING], gs[DS_MOVER], gs[DS_STEP], gs[DS_DOUBLE] = to_move, pending_double, p, step, double
    return status, ne


@kernel(nrt=False)
def run_family(rules, policy_ids, params, gs, ps, events, ev_slot, ne, forced, full):
    """``family_loop`` as a function of its own, which the games' deal loops (``run_deal``) call."""
    return family_loop(rules, policy_ids, params, gs, ps, events, ev_slot, ne, forced, full)


@kernel(nrt=False)
def run_kaszino(rules, policy_ids, params, gs, ps, events, ev_slot, ne, forced, full):
    """``kaszino_loop`` as a function of its own, which the games' deal loops (``run_deal``) call."""
    return kaszino_loop(rules, policy_ids, params, gs, ps, events, ev_slot, ne, forced, full)


@llvm_inline_kernel
def play_on(rules, policy_ids, params, gs, ps, events, ev_slot, ne, forced, one_card, exchange, full, inlined):
    """``run_deal``; with ``inlined`` not ``None``, the loop's own code is inlined into the caller instead of called.

    A call passes the whole rule tuple and seven arrays by value, 130 words on the stack: search, which runs the loop
    for one or two plays at every node of its trees, spent 30-40% of its time in that copy and the stall after it
    (perf, Scopone). Inlined there (``search.advance``), search made 1.5-2.9x the plays a second (Scopa 1.5, Escoba
    1.46-1.48, Kaszinó 1.6-1.8, Scopone 1.7-1.9, Foracio 2.9; session 21, one thread, old and new in one process, same
    rows). The games' own loop keeps the call: inlined into ``run_deal`` it made Scopone's greedy 0.72x as fast."""
    # nested ifs: Numba prunes a condition that is only ``x is None``, not one joined to another by ``and``
    if rules.turns == TURNS_EXCHANGE:
        if exchange is not None:
            if inlined is None:
                return run_kaszino(rules, policy_ids, params, gs, ps, events, ev_slot, ne, forced, full)
            return kaszino_loop(rules, policy_ids, params, gs, ps, events, ev_slot, ne, forced, full)
    elif rules.turns == TURNS_ONE_CARD:  # noqa: SIM102
        if one_card is not None:
            if inlined is None:
                return run_family(rules, policy_ids, params, gs, ps, events, ev_slot, ne, forced, full)
            return family_loop(rules, policy_ids, params, gs, ps, events, ev_slot, ne, forced, full)
    ps[FAULT] = FAULT_VARIANT
    return DEAL_DONE, ne


@kernel(nrt=False)
def run_deal(rules, policy_ids, params, gs, ps, events, ev_slot, ne, forced, one_card=True, exchange=True, full=True):
    """Play the deal in ``gs`` on (see ``family_loop``) with the game's turn structure (``rules.turns``).

    ``one_card``, ``exchange`` and ``full`` say what the run needs compiled: ``None`` (a type, not a value) leaves
    out the one-card loop, Kaszinó's loop, or the listed policies behind ``choose`` and the Monte Carlo seats, as
    Numba prunes a branch on ``x is None`` before typing it (``engine.run_features``: a greedy Scopa run compiles
    neither Kaszinó's loop nor the policies it never calls). The defaults compile everything. A turn structure
    of no game, or of a game left out, plays nothing: it raises ``FAULT_VARIANT`` and the deal is over (a
    variant id of no game is refused by the scoring)."""
    return play_on(rules, policy_ids, params, gs, ps, events, ev_slot, ne, forced, one_card, exchange, full, None)
