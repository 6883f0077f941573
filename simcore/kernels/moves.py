"""Legal moves of a position, with the compulsion rules applied.

A move is a pair of int64 masks ``(play, take)``: the card(s) played from hand and the table cards taken
(``take == 0`` is a trail; an ace keeping itself on an empty table, Foracio's or Scopone's, is ``take == play``).
Moves are listed
in the canonical order ascending by (play, take): the order in which ``random`` indexes them and ``greedy``
breaks ties, and the one the reference engines use.

``rs`` is the record of rule scalars the generators need (``ruleinfo.MoveRules``, read by name: ``rs.sum_to``;
see ``move_rules``); a tuple of ints is passed by value, so it costs no reference counting.
"""

from __future__ import annotations

from simcore._jit import inline_kernel, kernel, llvm_inline_kernel
from simcore.kernels.bits import lowest, popcount
from simcore.kernels.captures import (
    REACH_TABLE,
    append_card_captures,
    append_listed_sums,
    append_multi_captures,
    append_reached_captures,
    append_sum_subsets,
    bounded_table_sums,
    lane,
    mask_value,
    put_move,
    subset_sum_lanes,
    table_reach,
)
from simcore.kernels.ruleinfo import move_rules_of, replaced
from simcore.kernels.workspace import MOVES
from simcore.variants.base import (
    ACE_FIRST_BANNED,
    ACE_FIRST_PLAIN,
    ACE_KEEP,
    ACE_STAY,
    FORCED_CARD,
    FORCED_NONE,
    FORCED_PLAYER,
)

UNLISTED = -2  # ``exchange_moves``: the table's subsets not listed yet (``bounded_table_sums`` gives -1 or a count)
LANE_MAX = 15  # the largest sum ``subset_sum_lanes`` counts

ACES = 0xF
ACES_BANNED = -1  # ``rs.ace_sweeps`` of the deal's first play under ace_first_play="banned": aces may not be played


@kernel(nrt=False)
def move_rules(rules):
    """The rule scalars of the move generators: the ``MoveRules`` record of ``rules`` (the entries of
    ``ruleinfo.POLICY_RULES`` marked ``moves``; ``policies.heuristics.reply_rules`` reads the same record from the
    decision space)."""
    return move_rules_of(rules)


@kernel(nrt=False)
def first_play_rules(rules):
    """``move_rules`` for the deal's first play: Scopone's ``ace_first_play`` changes what an ace may do then
    (``rs.ace_sweeps``: its take-all power, none under "plain", ``ACES_BANNED`` under "banned"). Every other game
    and rule set gets ``move_rules`` itself."""
    rs = move_rules(rules)
    aces = rs.ace_sweeps
    if aces != 0 and rules.ace_first_play == ACE_FIRST_PLAIN:
        aces = 0
    elif aces != 0 and rules.ace_first_play == ACE_FIRST_BANNED:
        aces = ACES_BANNED
    return replaced(rs, "ace_sweeps", aces)


@kernel(nrt=False)
def append_ace_moves(ps, card, table, forced, ace_on_empty, n):
    """An ace that takes all (Foracio F5, Scopone SC9): it takes the whole table; on an empty table it keeps
    itself or stays."""
    if table != 0:
        if forced == FORCED_NONE:
            n = put_move(ps, n, card, 0)
        return put_move(ps, n, card, table)
    if ace_on_empty != ACE_KEEP or forced == FORCED_NONE:
        n = put_move(ps, n, card, 0)
    if ace_on_empty != ACE_STAY:
        n = put_move(ps, n, card, card)
    return n


@kernel(nrt=False)
def legal_moves(ps, hand, table, rs):
    """Write the legal moves of the player holding ``hand`` into the decision space; returns their number.

    forced (``Rules.forced_capture``): ``card``, a played card that can capture must; ``player``, if any card
    can capture the move must be a capture; ``none``, any card may be trailed. Runs once per play.
    """
    return list_moves(ps, hand, table, rs, True)


@inline_kernel
def list_moves(ps, hand, table, rs, reach):
    """``legal_moves``, inlined into ``simcore.kernels.deal.prepare``. A table of at most ``REACH_TABLE`` sum cards
    (every table of a game with compulsory capture) gets the bitset of the sums its subsets reach (``table_reach``:
    one shift a card), so a hand card that cannot capture costs no scan and one that can walks or decodes only the
    subsets of the cards its sums may take; a larger one gets the search (``append_sum_subsets``).

    ``reach`` None (a type, not a value: ``prepare`` of a deal loop compiled without the listed policies) leaves
    that path out of the compiled code and takes the search for every table, which lists the same moves in the same
    order: such a loop lists only for the quick policies, whose own path takes every table they can count
    (``QUICK_TABLE`` = ``REACH_TABLE`` sum cards) unless a rule option leaves them out."""
    if reach is None:  # two constants, not a tuple unpacked: Numba prunes ``elif reached`` on a constant only
        reached = False
        sums = (0, 0, 0)
    else:
        reached, sums = table_sums(ps, table, rs)
    n = 0
    rest = hand
    if rs.ace_sweeps == ACES_BANNED and (hand & ~ACES) != 0:
        rest = hand & ~ACES  # Scopone's regola del vile: no ace as the deal's first card
    while rest != 0:
        c = lowest(rest)
        rest &= rest - 1
        n = append_card_moves(ps, c, table, rs, reached, n, sums)
    if n == 0 and rs.forced_capture == FORCED_PLAYER:
        n = append_trails(ps, hand, 0)
    return n


@inline_kernel
def lists_two_or_more(hand, rs):
    """True when ``list_moves`` surely lists two moves or more for ``hand``, known without listing them (search's
    leaves need no more: ``simcore.policies.kernels.POLICY_LEAF``). Under forced ``none`` or ``card`` every card
    adds a move of its own (its trail, or its captures, or an ace's take-all, keep or stay), so two cards make two
    moves. Under ``player`` one capturing card may be all there is, and the deal's first play under
    ``ace_first_play="banned"`` leaves the aces out: those are listed."""
    return rs.forced_capture != FORCED_PLAYER and rs.ace_sweeps != ACES_BANNED and (hand & (hand - 1)) != 0


@inline_kernel
def table_sums(ps, table, rs):
    """(reached, sums): how ``append_card_moves`` finds the sum captures on ``table``. At most ``REACH_TABLE`` sum
    cards: ``reached`` and ``sums`` from ``table_reach`` (which readies ``ps`` for the lanes that larger captures
    are decoded from); more: the search, ``sums`` unused."""
    avail = table & rs.sum_mask
    if popcount(avail) > REACH_TABLE:
        return False, (0, 0, 0)
    return True, table_reach(ps, avail, rs.value_by_rank)


@inline_kernel
def append_card_moves(ps, c, table, rs, reached, n, sums):
    """Append the moves hand card ``c`` makes on ``table``; ``reached`` and ``sums`` say how its sum captures are found
    (``table_sums``, on the same ``ps``).

    What one card adds to ``legal_moves``, whatever else the hand holds: under ``player`` a card that cannot
    capture adds nothing (the trails come only when no card of the hand can capture), so the moves of a hand are
    its cards' moves in card order, plus its trails under ``player`` when none of them adds a move.
    """
    forced, sum_to, court_all = rs.forced_capture, rs.sum_to, rs.court_takes_all
    priority, sum_mask, value_by_rank, rank_only = rs.single_card_priority, rs.sum_mask, rs.value_by_rank, rs.rank_only
    if rs.ace_sweeps != 0 and (1 << c) & ACES and not (rs.ace_on_ace != 0 and (table & ACES) != 0):
        return append_ace_moves(ps, 1 << c, table, forced, rs.ace_on_empty, n)
    if forced == FORCED_NONE:
        n = put_move(ps, n, 1 << c, 0)
    if rs.multi_group != 0:  # Skopa's multi_group_capture: a largest union of disjoint groups
        m = append_multi_captures(ps, c, table, priority, sum_mask, value_by_rank, rank_only, n)
    elif reached:
        m = append_reached_captures(ps, c, table, rs, n, sums)
    else:
        m = append_card_captures(ps, c, table, priority, sum_mask, value_by_rank, rank_only, n, sum_to, court_all)
    if rs.sum_fewest != 0:
        m = keep_fewest(ps, n, m)
    if m == n and forced == FORCED_CARD:
        m = put_move(ps, n, 1 << c, 0)
    return m


@kernel(nrt=False)
def keep_fewest(ps, start, stop):
    """Keep, of moves ``start..stop-1`` (one card's captures), those taking the fewest cards, in their order
    (``sum_choice="fewest"``); returns the new end."""
    fewest = 64
    for i in range(start, stop):
        fewest = min(fewest, popcount(ps[MOVES + 2 * i + 1]))
    n = start
    for i in range(start, stop):
        take = ps[MOVES + 2 * i + 1]
        if popcount(take) == fewest:
            ps[MOVES + 2 * n] = ps[MOVES + 2 * i]
            ps[MOVES + 2 * n + 1] = take
            n += 1
    return n


@kernel(nrt=False)
def append_trails(ps, hand, n):
    """Append the trail of every card of ``hand``."""
    while hand != 0:
        c = lowest(hand)
        hand &= hand - 1
        n = put_move(ps, n, 1 << c, 0)
    return n


@llvm_inline_kernel
def exchange_moves(ps, hand, table, rs, trail_only):
    """Kaszinó moves (K3, K4): exchanges of hand cards against table cards of equal value total, and trails.

    Hand subsets are walked in increasing mask order (``sub = (sub - hand) & hand``), table subsets come sorted
    (``bounded_table_sums``: only those within the largest total a hand group may make), so the moves are in
    canonical order. ``trail_only``: the forced trail of a double move (K6).
    """
    forced, sum_mask, value_by_rank = rs.forced_capture, rs.sum_mask, rs.value_by_rank
    max_sum, max_hand_cards = rs.max_sum, rs.max_hand_cards
    if trail_only:
        return append_trails(ps, hand, 0)
    bound = mask_value(hand, value_by_rank)  # no hand group makes more
    if max_sum > 0:
        bound = min(bound, max_sum)
    avail = table & sum_mask
    counted = popcount(avail) <= REACH_TABLE  # the lanes count the subsets of each sum 0..15 exactly
    lo, hi = subset_sum_lanes(avail, value_by_rank)
    count = UNLISTED  # the table's subsets are listed when a hand group first has a match
    n = 0
    sub = 0
    while True:
        sub = (sub - hand) & hand
        if sub == 0:
            break
        if forced == FORCED_NONE and (sub & (sub - 1)) == 0:
            n = put_move(ps, n, sub, 0)
        if max_hand_cards > 0 and popcount(sub) > max_hand_cards:
            continue
        total = mask_value(sub, value_by_rank)
        if max_sum > 0 and total > max_sum:
            continue
        if counted and total <= LANE_MAX and lane(lo, hi, total) == 0:
            continue
        if count == UNLISTED:
            count = bounded_table_sums(ps, avail, value_by_rank, bound)
        if count >= 0:
            n = append_listed_sums(ps, count, total, sub, n)
        else:
            n = append_sum_subsets(ps, table & sum_mask, total, value_by_rank, sub, n)
    if n == 0:
        n = append_trails(ps, hand, 0)
    return n
