"""Heuristic policies that value moves in points: ``points``, ``defensive`` and ``lookahead``.

All three read only the decision space ``ps`` (the seat's view, the legal moves, the rules of ``workspace.RI``) and the
seat's row of float parameters, laid out as:

    params[0:52]   points a card is worth to the side that takes it (from the game's scoring, see
                   ``simcore.policies.weights``)
    params[52]     points per card taken (the cards majority)
    params[53]     weight of sweep points (scope, táblas) and of Foracio's same-suit points
    params[54]     weight of the risk left on the table (defensive, lookahead)
    params[55]     number of sampled opponent hands (lookahead)
    params[56]     points per card of the counted suit (coins, spades, clubs)
    params[57]     Monte Carlo rollouts: chance of a random move instead of the greedy one
    params[58]     Monte Carlo rollouts: their policy (1 greedy with epsilon, 2 points, 3 defensive)
    params[59]     points per unit of capture value a card is worth in hand (``hold``: what a trail gives up)
    params[60]     search: determinized worlds per decision (``simcore.policies.search``)
    params[61]     search: decisions searched by alpha-beta after each move
    params[62]     mc: plays a rollout runs before the piles are valued (0: to the deal's end); search: its tree
                   with more than two sides (0 paranoid, 1 max-n)

Majorities are valued at the margin: once a side holds enough cards (or cards of the counted suit) to settle that
category (``Rules.cards_target``, ``count_suit_target``), more of them are worth nothing to anybody.

* points: the points a move secures now: the cards it takes (their point values and count) and any sweep or
  same-suit points. A trail is worth minus what the card gives up: its point value, and ``hold`` points per unit
  of its capture value, because a high card kept in hand can take more of the table later. Without that term a
  point policy trails its worthless kings before its low coins and loses to ``greedy``; with it, it wins.
* defensive: points minus the risk of the table it leaves to the next player: the chance that the next player
  holds a card that sweeps it (from the cards this seat has not seen and the size of that player's hand), times
  what the sweep would win, plus, for each valuable table card, the chance the next player can take it.
* lookahead: points minus the expected best reply of the next player over hands sampled from the unseen cards
  (one ply of expectation); the samples are drawn from the seat's own random stream and shared by all moves.
"""

from __future__ import annotations

import numpy as np

from simcore._jit import kernel, llvm_inline_kernel
from simcore.kernels.bits import list_cards, lowest, popcount, suit_mask
from simcore.kernels.captures import capture_target, card_value, mask_value
from simcore.kernels.moves import append_card_moves, exchange_moves, legal_moves, table_sums
from simcore.kernels.ruleinfo import move_rules_at
from simcore.kernels.workspace import (
    FAULT,
    FAULT_VARIANT,
    MAX_SAMPLES,
    MOVES,
    RI,
    RNG,
    RULE_INFO,
    VIEW,
    reply_space,
    sample_base,
)
from simcore.rng import bounded
from simcore.variants.base import ACE_SWEEP_SCORES, SAME_SUIT_DOUBLES_SCOPA, TURNS_EXCHANGE, TURNS_ONE_CARD

MAX_PARAMS = 64
P_PER_CARD = 52
P_SWEEP = 53
P_RISK = 54
P_SAMPLES = 55
P_SUIT = 56
P_EPSILON = 57  # Monte Carlo: chance that a rollout move is random rather than greedy
P_ROLLOUT = 58  # Monte Carlo: the rollouts' policy (1 greedy with epsilon, 2 points, 3 defensive)
P_HOLD = 59  # points per unit of capture value of a card kept in hand
P_WORLDS = 60  # search: determinizations per decision
P_DEPTH = 61  # search: decisions searched after the seat's move before a rollout
MAX_DEPTH = 6  # search: the deepest tree it accepts
P_HORIZON = 62  # mc: plays a rollout runs after the move before the piles are valued (0: to the end of the deal)
P_TREE = 62  # search: its tree with more than two sides (0 paranoid, 1 max-n); mc reads the slot as P_HORIZON
# search: plays of a leaf's rollout before the piles are valued (0: to the end of the deal); a user policy's row
# holds its address in this slot (simcore.policies.usercall.P_ADDRESS), which no built-in policy reads
P_LEAF_HORIZON = 63
ACES = 0xF

# view slots (simcore.kernels.game VIEW_*)
V_HAND, V_TABLE, V_SEEN, V_PILES, V_OPEN, V_NEXT_COUNT, V_LAST = 2, 3, 4, 8, 16, 17, 18


@kernel(nrt=False)
def points_of(params, seat, mask):
    """Point value of the cards of a mask for the seat."""
    total = 0.0
    while mask != 0:
        c = lowest(mask)
        mask &= mask - 1
        total += params[seat, c]
    return total


@kernel(nrt=False)
def sweep_points(ps, c):
    """What a counted sweep made with card ``c`` scores."""
    if ps[RI.sweep_mode] == 0:
        return ps[RI.sweep_points]
    return card_value(c, ps[RI.sweep_value_by_rank])


@kernel(nrt=False)
def unsettled(ps, suit, target):
    """1.0 while no side holds ``target`` cards (of ``suit``, or of any suit when ``suit`` is -1), else 0.0."""
    for side in range(4):
        pile = ps[VIEW + V_PILES + side]
        if suit >= 0:
            pile &= suit_mask(suit)
        if popcount(pile) >= target:
            return 0.0
    return 1.0


@kernel(nrt=False)
def cards_points(ps, params, seat, cards):
    """Point value of cards won: their own points, plus their share of the majorities still open."""
    value = points_of(params, seat, cards)
    value += params[seat, P_PER_CARD] * popcount(cards) * unsettled(ps, -1, ps[RI.cards_target])
    suit = ps[RI.count_suit]
    if suit >= 0:
        counted = popcount(cards & suit_mask(suit))
        value += params[seat, P_SUIT] * counted * unsettled(ps, suit, ps[RI.count_suit_target])
    return value


@llvm_inline_kernel
def move_points(ps, params, seat, play, take, table, last):
    """Points a move secures now (see the module docstring). Inlined into its callers (``llvm_inline_kernel``):
    called once per listed move, out of line it cost the points rollouts of mc a sixth of their time."""
    if take == 0:  # a trail gives up the card's points and its capture power
        # the table value the card can take: its own value, or in Escoba what makes 15 with it (15 - value)
        target = capture_target(card_value(lowest(play), ps[RI.value_by_rank]), ps[RI.sum_to])
        capture_power = params[seat, P_HOLD] * target
        return -cards_points(ps, params, seat, play) - capture_power
    gained = cards_points(ps, params, seat, take | play)
    if ps[RI.ace_sweeps] != 0 and play & ACES and not ace_ordinary(ps, take):
        scores = ps[RI.ace_sweeps] == ACE_SWEEP_SCORES or ps[RI.ace_scopa] != 0  # Foracio's, Scopone's option
        if not scores or take == play or (table & ~take) != 0 or (last and ps[RI.last_play_sweep] == 0):
            return gained  # an ace's take-all or keep: no sweep (unless an option says so), no same-suit points
        return gained + params[seat, P_SWEEP] * sweep_points(ps, lowest(play))
    c = lowest(play)  # an ordinary capture (of any card but an ace that takes all)
    same_suit = 0
    if ps[RI.same_suit_bonus] != 0 and popcount(take) >= 2 and (take & ~suit_mask(c & 3)) == 0:
        same_suit = card_value(c, ps[RI.value_by_rank])
    bonus = same_suit
    if (table & ~take) == 0 and (not last or ps[RI.last_play_sweep] != 0):
        double = same_suit != 0 and ps[RI.same_suit_bonus] == SAME_SUIT_DOUBLES_SCOPA  # same_suit_scopa_total="3v"
        bonus += sweep_points(ps, c) * (2 if double else 1)
    return gained + params[seat, P_SWEEP] * bonus


@kernel(nrt=False)
def ace_ordinary(ps, take):
    """Whether an ace's capture of ``take`` is an ordinary one: Scopone's ace taking exactly one table ace."""
    return ps[RI.ace_single_ordinary] != 0 and popcount(take) == 1 and (take & ACES) != 0


@kernel(nrt=False)
def can_take(ps, card, target):
    """Whether ``card`` played alone could take exactly the cards ``target`` (a sweep of a table ``target``)."""
    if ps[RI.ace_sweeps] != 0 and (1 << card) & ACES:
        return ps[RI.ace_on_ace] == 0 or (target & ACES) == 0 or popcount(target) == 1
    rank_nibble = 15 << ((card >> 2) << 2)
    if ps[RI.multi_group] != 0:
        return can_take_groups(ps, card, target, rank_nibble)
    if (ps[RI.rank_only] >> card) & 1:
        if ps[RI.court_takes_all] != 0:  # court_takes="all_same_rank": all the table's cards of its rank
            return target != 0 and (target & ~rank_nibble) == 0
        return popcount(target) == 1 and (target & rank_nibble) != 0
    sum_mask, value_by_rank = ps[RI.sum_mask], ps[RI.value_by_rank]
    if (target & ~sum_mask) != 0 or ((sum_mask >> card) & 1) == 0:
        return False
    if ps[RI.single_card_priority] != 0 and popcount(target) > 1 and (target & rank_nibble) != 0:
        return False  # an equal single card must be taken first
    total = mask_value(target, value_by_rank)
    if ps[RI.turns] == TURNS_EXCHANGE and ps[RI.max_sum] > 0 and total > ps[RI.max_sum]:
        return False
    return total == capture_target(card_value(card, value_by_rank), ps[RI.sum_to])


@kernel(nrt=False)
def can_take_groups(ps, card, target, rank_nibble):
    """``can_take`` under Skopa's ``multi_group_capture``: a card takes all the table cards of its rank (a court's
    and a numeral's equal cards are groups of their own), so it clears a table of them, and a numeral also one
    where the other cards make one set summing to its value (a split into several such sets is not looked for:
    the risk estimate stays an estimate)."""
    if target == 0:
        return False
    rest = target & ~rank_nibble
    if rest == 0:
        return True
    sum_mask, value_by_rank = ps[RI.sum_mask], ps[RI.value_by_rank]
    if (ps[RI.rank_only] >> card) & 1 or ((sum_mask >> card) & 1) == 0 or (rest & ~sum_mask) != 0:
        return False  # a court takes its rank only
    if ps[RI.single_card_priority] != 0 and rest != target:
        return False  # with priority, the equal cards on the table are a numeral's only groups
    return mask_value(rest, value_by_rank) == card_value(card, value_by_rank)


@kernel(nrt=False)
def reachable_sums(mask, value_by_rank):
    """Bit s set when some subset of ``mask`` (the empty one included) has values summing to s, for s <= 15."""
    reach = 1
    while mask != 0:
        c = lowest(mask)
        mask &= mask - 1
        reach = (reach | (reach << card_value(c, value_by_rank))) & 0xFFFF
    return reach


@kernel(nrt=False)
def takers_of(ps, t, table, unseen):
    """How many ``unseen`` cards could take table card ``t`` (with other cards of ``table`` or alone): those of
    its rank when captures are by equal value (an approximation that ignores sums), and with ``Rules.sum_to``
    (Escoba) exactly those of value v for which ``t`` and some other table cards make ``sum_to - v``."""
    sum_to = ps[RI.sum_to]
    if sum_to == 0:
        return popcount(unseen & (15 << ((t >> 2) << 2)))
    value_by_rank = ps[RI.value_by_rank]
    rest = card_value(t, value_by_rank)
    reach = reachable_sums(table & ps[RI.sum_mask] & ~(1 << t), value_by_rank)
    count = 0
    cards = unseen & ps[RI.sum_mask]
    while cards != 0:
        u = lowest(cards)
        cards &= cards - 1
        need = sum_to - card_value(u, value_by_rank) - rest
        if need >= 0 and (reach >> need) & 1:
            count += 1
    return count


@kernel(nrt=False)
def chance_of_any(unseen_count, wanted, hand_count):
    """Chance that a hand of ``hand_count`` cards drawn from ``unseen_count`` holds one of ``wanted`` cards."""
    if wanted == 0 or hand_count == 0:
        return 0.0
    if unseen_count - wanted < hand_count:
        return 1.0
    miss = 1.0
    for i in range(hand_count):
        miss *= (unseen_count - wanted - i) / (unseen_count - i)
    return 1.0 - miss


@kernel(nrt=False)
def rank_alike(ps, nibble):
    """Whether every card of the rank ``nibble`` (its four bits) captures by the same rule: all or none of them
    by rank only, all or none of them in sums. ``can_take`` and ``sweep_points`` read a card's rank, value and
    these two masks only, so one card then answers for the rank (the same sums, in integers: the same risk)."""
    rank_only, summed = ps[RI.rank_only] & nibble, ps[RI.sum_mask] & nibble
    return (rank_only == 0 or rank_only == nibble) and (summed == 0 or summed == nibble)


@kernel(nrt=False)
def table_risk(ps, params, seat, table_after):
    """Expected points the next player wins from the table a move leaves (see the module docstring)."""
    hand_count = ps[VIEW + V_NEXT_COUNT]
    if table_after == 0 or hand_count == 0:
        return 0.0
    unseen = ps[RI.pack] & ~(ps[VIEW + V_SEEN] | ps[VIEW + V_OPEN])
    n_unseen = popcount(unseen)
    sweepers = 0
    sweep_value = 0.0
    rest = unseen
    while rest != 0:  # rank by rank: the unseen cards of a rank take alike where the rules treat its suits alike
        u = lowest(rest)
        nibble = 15 << ((u >> 2) << 2)
        alike = rank_alike(ps, nibble)
        cards = rest & nibble if alike else 1 << u
        rest &= ~cards
        if can_take(ps, u, table_after):
            count = popcount(cards)
            sweepers += count
            ace = ps[RI.ace_sweeps] != 0 and (1 << u) & ACES
            scores = ps[RI.ace_sweeps] == ACE_SWEEP_SCORES or ps[RI.ace_scopa] != 0
            if not ace or scores or ace_ordinary(ps, table_after):
                sweep_value += count * sweep_points(ps, u)
    risk = 0.0
    if sweepers > 0:
        value = cards_points(ps, params, seat, table_after) + params[seat, P_SWEEP] * sweep_value / sweepers
        risk += chance_of_any(n_unseen, sweepers, hand_count) * value
    rest = table_after
    while rest != 0:
        t = lowest(rest)
        rest &= rest - 1
        worth = params[seat, t]
        if worth > 0 and popcount(table_after) > 1:
            takers = takers_of(ps, t, table_after, unseen)
            risk += chance_of_any(n_unseen, takers, hand_count) * worth
    return risk


@kernel(nrt=False)
def choose_points(ps, params, seat, n_moves, defensive):
    """Best move by points now, minus (``defensive``) the risk it leaves on the table."""
    table, last = ps[VIEW + V_TABLE], ps[VIEW + V_LAST] != 0
    best, best_score = 0, -1e300
    for i in range(n_moves):
        play, take = ps[MOVES + 2 * i], ps[MOVES + 2 * i + 1]
        score = move_points(ps, params, seat, play, take, table, last)
        if defensive:
            after = table & ~take if take != 0 else table | play
            score -= params[seat, P_RISK] * table_risk(ps, params, seat, after)
        if score > best_score:
            best, best_score = i, score
    return best


@kernel(nrt=False)
def sample_hands(ps, seat, unseen, hand_count, samples):
    """Draw ``samples`` hands of ``hand_count`` cards from ``unseen`` with the seat's stream (partial shuffle)."""
    base = sample_base(ps)
    deck_start = base + samples  # the unseen cards, listed after the sample slots
    n = list_cards(ps, deck_start, unseen)
    for s in range(samples):
        hand = 0
        for k in range(min(hand_count, n)):
            j = k + bounded(ps, RNG + 1 + seat, n - k)
            ps[deck_start + k], ps[deck_start + j] = ps[deck_start + j], ps[deck_start + k]
            hand |= 1 << ps[deck_start + k]
        ps[base + s] = hand


@kernel(nrt=False)
def reply_rules(ps):
    """The move generators' rule record (``moves.move_rules``), read from the decision space's rule slots."""
    return move_rules_at(ps, RULE_INFO)


@kernel(nrt=False)
def best_reply(ps, params, seat, hand, table):
    """The next player's best reply value (scored with this seat's weights) to ``table``.

    The replies are listed in the reply space; a fault there (an unknown variant, a full move buffer) is raised in
    the seat's own ``ps[FAULT]``, which the game loop checks."""
    if hand == 0:
        return 0.0
    space = reply_space(ps)
    space[FAULT] = 0
    rs = reply_rules(ps)
    turns = ps[RI.turns]
    if turns == TURNS_EXCHANGE:
        n = exchange_moves(space, hand, table, rs, False)
    elif turns == TURNS_ONE_CARD:
        n = legal_moves(space, hand, table, rs)
    else:
        n = 0
        space[FAULT] = FAULT_VARIANT
    if space[FAULT] != 0:
        ps[FAULT] = space[FAULT]
    best = -1e300
    for i in range(n):
        value = move_points(ps, params, seat, space[MOVES + 2 * i], space[MOVES + 2 * i + 1], table, False)
        best = max(best, value)
    return best


@kernel(nrt=False)
def card_replies(ps, params, seat, cards, table, best_of, trail_of):
    """Per card of ``cards`` (one card a turn): the best value of the moves it makes on ``table`` by itself
    (``best_of[c]``); returns the cards that make a move. ``trail_of[c]`` holds each card's trail value already
    (:func:`trail_values`: a trail's value does not depend on the table).

    ``best_reply`` of a hand is then :func:`hand_reply` of these, with the same values (the same ``move_points``
    calls on the same moves; a maximum does not depend on the order), while the table's subset sums are built
    once per table instead of once per sampled hand, and a card shared by several samples is scored once."""
    space = reply_space(ps)
    space[FAULT] = 0
    rs = reply_rules(ps)
    reached, sums = table_sums(space, table, rs)
    movers = 0
    rest = cards
    while rest != 0:
        c = lowest(rest)
        rest &= rest - 1
        n = append_card_moves(space, c, table, rs, reached, 0, sums)
        if n == 0:
            continue
        movers |= 1 << c
        best = -1e300
        for i in range(n):
            take = space[MOVES + 2 * i + 1]
            value = trail_of[c] if take == 0 else move_points(ps, params, seat, 1 << c, take, table, False)
            best = max(best, value)
        best_of[c] = best
    if space[FAULT] != 0:
        ps[FAULT] = space[FAULT]
    return movers


@kernel(nrt=False)
def trail_values(ps, params, seat, cards, trail_of):
    """``trail_of[c]``: the value of trailing card ``c`` (``move_points`` of a trail reads neither the table nor
    the last-play flag), once per decision for every card of the sampled hands."""
    rest = cards
    while rest != 0:
        c = lowest(rest)
        rest &= rest - 1
        trail_of[c] = move_points(ps, params, seat, 1 << c, 0, 0, False)


@kernel(nrt=False)
def hand_reply(hand, movers, best_of, trail_of):
    """``best_reply`` of ``hand`` from :func:`card_replies`: its cards' best moves, or its trails when (under
    ``player``) none of its cards makes a move."""
    best = -1e300
    rest = hand & movers
    if rest == 0:
        rest = hand  # only under ``player``: every card of a hand makes a move under the other rules
        while rest != 0:
            c = lowest(rest)
            rest &= rest - 1
            best = max(best, trail_of[c])
        return best
    while rest != 0:
        c = lowest(rest)
        rest &= rest - 1
        best = max(best, best_of[c])
    return best


@kernel
def choose_lookahead(ps, params, seat, n_moves):
    """Best move by points now minus the next player's expected best reply over sampled hands."""
    return lookahead_choice(ps, params, seat, n_moves, np.empty(52), np.empty(52))


@kernel(nrt=False)
def lookahead_choice(ps, params, seat, n_moves, best_of, trail_of):
    """``choose_lookahead`` with its two per-card arrays given (allocated by the caller, which counts references,
    so that this loop and every helper it calls run without reference counting)."""
    table, last = ps[VIEW + V_TABLE], ps[VIEW + V_LAST] != 0
    hand_count = ps[VIEW + V_NEXT_COUNT]
    samples = max(1, min(int(params[seat, P_SAMPLES]), MAX_SAMPLES - 52))
    unseen = ps[RI.pack] & ~(ps[VIEW + V_SEEN] | ps[VIEW + V_OPEN])
    open_hand = ps[VIEW + V_OPEN]
    if open_hand != 0:  # the next hand is public: no need to guess it
        samples = 1
        ps[sample_base(ps)] = open_hand
    elif hand_count > 0 and n_moves > 1:
        sample_hands(ps, seat, unseen, hand_count, samples)
    by_card = ps[RI.turns] == TURNS_ONE_CARD  # replies from each card's best move (card_replies)
    cards = 0
    for s in range(samples):
        cards |= ps[sample_base(ps) + s]
    if by_card and hand_count > 0 and n_moves > 1 and not last:
        trail_values(ps, params, seat, cards, trail_of)
    best, best_score = 0, -1e300
    for i in range(n_moves):
        play, take = ps[MOVES + 2 * i], ps[MOVES + 2 * i + 1]
        score = move_points(ps, params, seat, play, take, table, last)
        if hand_count > 0 and n_moves > 1 and not last:
            after = table & ~take if take != 0 else table | play
            reply = 0.0
            if by_card:
                movers = card_replies(ps, params, seat, cards, after, best_of, trail_of)
                for s in range(samples):
                    reply += hand_reply(ps[sample_base(ps) + s], movers, best_of, trail_of)
            else:
                for s in range(samples):
                    reply += best_reply(ps, params, seat, ps[sample_base(ps) + s], after)
            score -= params[seat, P_RISK] * reply / samples
        if score > best_score:
            best, best_score = i, score
    return best
