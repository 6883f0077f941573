"""Subset-sum capture search on bitmasks.

Algorithm. For an ordinary table (at most ``REACH_TABLE`` = 10 sum cards) ``table_reach`` computes, once per
position, the bitset of the sums its subsets reach (``reach |= reach << value`` a card) and the cards' values a byte
each; a hand card whose capture total is not reached costs one shift. One whose total is reached walks the
ascending submasks of the table cards that may enter its sums (its rank and below, or the whole table in Escoba),
each sum from the previous one in a few operations (``next_sum``), when they are at most ``WALK_BELOW`` = 3 cards;
past that, the count of its subsets is read from the table's prefix lanes (``store_prefix_lanes``: the packed
subset-sum counts of its j lowest cards, stored the first time a card of the position needs them) and each subset
is decoded card by card from the top (``nth_summing_subset``): k steps a subset instead of 2**k for the walk. Both
give the subsets in ascending mask order, the canonical order. Kaszinó's exchanges list only the table subsets
within the largest total a hand group may make (``bounded_table_sums``, ascending by mask: a typical Kaszinó table
has 2-4 cards and a handful of such subsets), scanned by each hand group for its total.

Larger tables (possible only when capture is not compulsory), and Kaszinó tables with more such subsets than their
slots, use ``append_sum_subsets``, a depth-first search over the cards in ascending id order. Capture values never
decrease with the card id among the cards that take part in sums (A..7, J8, Q9, K10 in Scopa; A..10 in the
52-card games), so when adding the next card overshoots the target every later card overshoots too and the search
backtracks at once. Its state is two scalars (the subset as a mask and its sum); it visits each subset whose sum is
at most the target once.

Bounds. Values are at least 1, so a capture of value ``v`` takes at most ``v`` cards. The largest number of
subsets with one sum is reached when the whole pack is on the table: 1,702 for sum 10 in the 40-card pack and
6,948 for sum 13 in the 52-card pack (coefficients of prod (1 + x^v)^4). Escoba's captures sum to 15 - v, at most
14 (an ace): at most 14 cards, and 6,405 sets of the other 39 cards sum to 14, so 3 x 6,405 + 3 = 19,218 moves
bound a hand (the most any hand has is 7,729: A A K against the rest of the pack). ``Rules.max_moves`` sizes the
move buffer from these bounds, so no position can overflow it.

Skopa's ``multi_group_capture`` lists a card's largest unions of disjoint groups instead
(:func:`append_largest_unions`: a search over the count vectors of the table's smaller ranks, at most 5**9, in
scratch slots after the moves): at most 3,888 for a 10, on a table that is not the whole rest of the pack
(``simcore.variants.skopa.LARGEST_UNIONS``, by exhaustion over every table).

All functions work in the decision space ``ps`` (``simcore.kernels.workspace``): moves are written as
``(played mask, taken mask)`` pairs at ``MOVES + 2 * i``.
"""

from __future__ import annotations

from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from simcore._jit import inline_kernel, kernel, llvm_inline_kernel
from simcore.kernels.bits import highest, lowest, opaque, popcount
from simcore.kernels.workspace import FAULT, FAULT_MOVES, MOVES, SMALL_TABLE, SUMS, WEIGHT
from simcore.rng import wrapping_mul
from simcore.variants.base import MULTI_DIMS, MULTI_GROUPS, MULTI_SCRATCH, MULTI_STATES


@kernel(nrt=False)
def card_value(card_id, value_by_rank):
    """Capture value of a card from the packed ``Rules.value_by_rank``."""
    return (value_by_rank >> ((card_id >> 2) << 2)) & 15


@kernel(nrt=False)
def mask_value(mask, value_by_rank):
    """Sum of the capture values of the cards of a mask."""
    total = 0
    while mask != 0:
        c = lowest(mask)
        mask &= mask - 1
        total += card_value(c, value_by_rank)
    return total


# --------------------------------------------------------------------------- packed subset-sum counts


@intrinsic
def lanes_times(typingctx, lo, hi, v):
    """The lanes of ``subset_sum_lanes`` multiplied by (1 + x**v), v = 1..15: ``L + (L << 8v)`` on the 128-bit
    number ``L = lo | hi << 64``, in LLVM's i128 (shld and selects: no branch on the card's value, which a
    misprediction per card made costly when written with ``x if small else y``)."""
    if not all(isinstance(a, types.Integer) for a in (lo, hi, v)):
        return None
    sig = types.UniTuple(types.int64, 2)(lo, hi, v)

    def codegen(context, builder, signature, args):
        i128 = ir.IntType(128)
        lo_, hi_, v_ = (context.cast(builder, a, t, types.int64) for a, t in zip(args, signature.args, strict=True))
        whole = builder.or_(builder.shl(builder.zext(hi_, i128), ir.Constant(i128, 64)), builder.zext(lo_, i128))
        shift = builder.zext(builder.mul(v_, ir.Constant(ir.IntType(64), 8)), i128)
        res = builder.add(whole, builder.shl(whole, shift))
        new_lo = builder.trunc(res, ir.IntType(64))
        new_hi = builder.trunc(builder.lshr(res, ir.Constant(i128, 64)), ir.IntType(64))
        return context.make_tuple(builder, signature.return_type, (new_lo, new_hi))

    return sig, codegen


@inline_kernel
def subset_sum_lanes(avail, value_by_rank):
    """(lo, hi): lane j (8 bits) of lo | hi << 64 = number of subsets of ``avail`` whose values sum to j."""
    lo = 1
    hi = 0
    while avail != 0:
        c = lowest(avail)
        avail &= avail - 1
        lo, hi = lanes_times(lo, hi, card_value(c, value_by_rank))
    return lo, hi


@inline_kernel
def lane(lo, hi, v):
    """Subsets summing to ``v`` (0..15) from ``subset_sum_lanes``."""
    word = lo if v < 8 else hi
    return (word >> (8 * (v & 7))) & 255


@inline_kernel
def store_prefix_lanes(ps, avail, value_by_rank):
    """``ps[SUMS + 2j]``, ``ps[SUMS + 2j + 1]`` = the lanes (``subset_sum_lanes``) of the ``j`` lowest cards of
    ``avail``, ``j`` = 0 .. all of them, for ``nth_summing_subset`` and ``append_decoded_sums`` (at most
    ``QUICK_TABLE`` cards: the lanes are exact)."""
    lo = 1
    hi = 0
    j = 0
    while avail != 0:
        c = lowest(avail)
        avail &= avail - 1
        ps[SUMS + 2 * j] = lo
        ps[SUMS + 2 * j + 1] = hi
        lo, hi = lanes_times(lo, hi, card_value(c, value_by_rank))
        j += 1
    ps[SUMS + 2 * j] = lo
    ps[SUMS + 2 * j + 1] = hi


@inline_kernel
def nth_summing_subset(ps, avail, value_by_rank, target, idx):
    """(subset, its weight): subset number ``idx`` (0-based, ascending by mask) of ``avail`` whose values sum to
    ``target`` (``idx`` must be below their number), and the sum of its cards' heuristic weights (``ps[WEIGHT:]``,
    what greedy scores a capture by: LLVM drops it where it is not used). ``avail`` is made of the lowest cards of
    the set given to ``store_prefix_lanes``.

    Masks ascend with their highest differing card, so card by card from the top: the subsets without it come
    first, and the lanes of the cards below it count them. ``k`` steps without a branch, where walking the
    ascending submasks to the ``idx``-th match costs up to ``2**k`` (a random move on an Escoba table of 8).

    Each step's choices are masks, not selects: LLVM made a select of them a branch, which the draws mispredict
    (a third of Escoba greedy's profile sat in this loop), and a choice between the two lane words a load from a
    chosen address, which put the load on the chain from one step to the next (``opaque`` keeps them values).
    With greedy's weights summed here (no second walk of the set by ``weight_of``): Escoba greedy 1.20x deals/s,
    Kaszinó greedy 1.15x, random 1.08x (session 28, one thread, old and new code in alternate processes)."""
    k = popcount(avail)
    take = 0
    weight = 0
    rest = avail
    while rest != 0:
        c = highest(rest)
        rest ^= 1 << c
        k -= 1
        below = lane(opaque(ps[SUMS + 2 * k]), opaque(ps[SUMS + 2 * k + 1]), target)
        inside = (below - idx - 1) >> 63  # all ones where idx >= below (both small): a mask, not a select
        idx -= below & inside
        target -= card_value(c, value_by_rank) & inside
        take |= (1 << c) & inside
        weight += ps[WEIGHT + c] & inside
    return take, weight


VALUE_BYTES_CARDS = 8  # most cards whose values ``table_reach`` packs, a byte each in an int64


# byte j of ``values * PREFIX_BYTES`` is the sum of bytes 0..j-1 of ``values``; the bytes carried past bit 63 are
# dropped, so the product overflows by design: ``wrapping_mul`` (Numba's ``*`` makes a signed overflow undefined)
PREFIX_BYTES = 0x0101010101010100


@inline_kernel
def next_sum(i, total, values, before):
    """Value sum of subset ``i + 1`` of the cards packed by ``table_reach`` (``values``, and ``before``: byte j the
    sum of the values below card j) from that of subset ``i`` (bit j = the j-th card): counting up clears the
    trailing ones of ``i`` (the cards below bit b) and sets bit b. So the walk over the submasks of a table in
    ascending order costs a few operations a step, not a sum over the cards."""
    b = 8 * lowest(~i)
    return total + ((values >> b) & 255) - ((before >> b) & 255)


REACH_TABLE = 10  # most table sum cards whose sum captures ``append_reached_sums`` finds (else the search)
WALK_BELOW = 3  # most cards a sum capture may take from that are walked over (2**3 submasks); more are decoded
LANE_SUMS = 15  # the largest sum the lanes count (``subset_sum_lanes``: 16 lanes of 8 bits)
LANES_STORED = 2 * REACH_TABLE + 2  # slot of ``SUMS`` (past the lanes) set once the table's lanes are stored


@inline_kernel
def table_reach(ps, avail, value_by_rank):
    """(reach, values, before) of the table's sum cards ``avail`` (at most ``REACH_TABLE``): bit s of ``reach`` is
    set when some subset of them sums to s (``reach |= reach << v`` a card: one shift, exact for any number of
    cards, sums up to 63), and the values of its lowest ``VALUE_BYTES_CARDS`` cards a byte each with their prefix
    sums (``next_sum``), in one pass. Its prefix lanes are not stored yet (``append_reached_sums`` stores them the
    first time a card needs them)."""
    ps[SUMS + LANES_STORED] = 0
    reach = 1
    values = 0
    shift = 0
    while avail != 0:
        c = lowest(avail)
        avail &= avail - 1
        v = card_value(c, value_by_rank)
        reach |= reach << v
        if shift < 64:  # a shift by 64 or more is undefined in LLVM
            values |= v << shift
        shift += 8
    return reach, values, wrapping_mul(values, PREFIX_BYTES)


@inline_kernel
def append_reached_sums(ps, avail, below, target, value_by_rank, card, n, sums):
    """Append ``(card, subset)`` for every subset of ``avail`` whose values sum to ``target``, ascending, as
    ``append_sum_subsets`` does; ``sums``: ``table_reach(ps, avail)``, the same position; ``below``: the cards of
    ``avail`` that can enter a set of that sum, its lowest cards (those of the card's rank and below, or all of
    them: ``sum_candidates``).

    A target no subset reaches costs one shift. Else up to ``WALK_BELOW`` cards in ``below``, its ascending
    submasks are walked with their sums (``next_sum``: a few operations a step; ``below`` is a prefix of
    ``avail``, so subset i of one is subset i of the other); more, the lanes of ``below`` count its subsets of
    that sum and ``nth_summing_subset`` decodes each in as many steps as ``below`` has cards, where the walk took
    ``2**k`` steps (256 on an Escoba table of 8; Escoba's search and lookahead 1.2x plays a second). The table's
    prefix lanes (``store_prefix_lanes``) are stored the first time a card of the position needs them."""
    reach, values, before = sums
    if target < 1 or target > 63:  # beyond the reach bits (no game's target): the search
        return append_sum_subsets(ps, avail, target, value_by_rank, card, n)
    if (reach >> target) & 1 == 0:
        return n
    k = popcount(below)
    if k > WALK_BELOW and target <= LANE_SUMS:
        return append_decoded_sums(ps, avail, below, k, target, value_by_rank, card, n)
    s = 0
    i = 0
    total = 0
    while True:
        s = (s - below) & below  # next submask, ascending: subset i + 1 of the packed values
        if s == 0:
            return n
        total = next_sum(i, total, values, before) if k <= VALUE_BYTES_CARDS else mask_value(s, value_by_rank)
        i += 1
        if total == target:
            n = put_move(ps, n, card, s)


@kernel(nrt=False)
def append_decoded_sums(ps, avail, below, k, target, value_by_rank, card, n):
    """``append_reached_sums`` past ``WALK_BELOW`` cards (``k``: those of ``below``): the lanes of ``below`` count
    its subsets of sum ``target`` (at most ``LANE_SUMS``), and ``nth_summing_subset`` decodes each. The table's
    prefix lanes (``store_prefix_lanes``) are stored the first time a card of the position needs them."""
    if ps[SUMS + LANES_STORED] == 0:
        store_prefix_lanes(ps, avail, value_by_rank)
        ps[SUMS + LANES_STORED] = 1
    for i in range(lane(ps[SUMS + 2 * k], ps[SUMS + 2 * k + 1], target)):
        n = put_move(ps, n, card, nth_summing_subset(ps, below, value_by_rank, target, i)[0])
    return n


@kernel(nrt=False)
def put_move(ps, n, play, take):
    """Store move ``n``; returns ``n + 1``. A full buffer (possible only for Kaszinó exchanges without a value
    cap on a huge table) raises ``FAULT_MOVES`` instead, which stops the game with an error."""
    if MOVES + 2 * n + 1 >= ps.shape[0]:
        ps[FAULT] = FAULT_MOVES
        return n
    ps[MOVES + 2 * n] = play
    ps[MOVES + 2 * n + 1] = take
    return n + 1


SUM_BITS = 6  # ``bounded_table_sums`` packs a subset as ``mask << SUM_BITS | sum``: sums up to 39 (three kings)
SUM_FIELD = (1 << SUM_BITS) - 1
SUM_SLOTS = 1 << SMALL_TABLE  # the slots of ``SUMS``


@llvm_inline_kernel
def bounded_table_sums(ps, avail, value_by_rank, bound):
    """List every subset of ``avail`` whose values sum to at most ``bound`` in ``ps[SUMS:]``, ascending by mask,
    packed as ``mask << SUM_BITS | sum`` (the empty set first); returns their number, or -1 when they do not fit.

    Kaszinó's exchanges: the list of the first j table cards, then the same list with card j added to each entry
    whose sum stays within the bound, appended (card j is above every card before it, so the order holds). Only
    the subsets a hand can match are made, not all 2**k of the table's.
    """
    if bound > SUM_FIELD:  # beyond the packed sums (no Kaszinó hand makes more than 39): the search
        return -1
    ps[SUMS] = 0
    n = 1
    rest = avail
    while rest != 0:
        c = lowest(rest)
        rest &= rest - 1
        v = card_value(c, value_by_rank)
        if v > bound:
            continue
        add = (1 << (c + SUM_BITS)) + v
        m = n
        for i in range(n):
            entry = ps[SUMS + i]
            if (entry & SUM_FIELD) + v <= bound:
                if m == SUM_SLOTS:
                    return -1
                ps[SUMS + m] = entry + add
                m += 1
        n = m
    return n


@llvm_inline_kernel
def append_listed_sums(ps, count, target, card, n):
    """Append ``(card, subset)`` for the listed subsets (``bounded_table_sums``) summing to ``target``."""
    for i in range(1, count):
        entry = ps[SUMS + i]
        if (entry & SUM_FIELD) == target:
            n = put_move(ps, n, card, entry >> SUM_BITS)
    return n


@kernel(nrt=False)
def append_sum_subsets(ps, avail, target, value_by_rank, card, n):
    """Append ``(card, subset)`` for every subset of ``avail`` whose values sum to ``target`` (search).

    ``avail``: mask of the table cards that may enter a sum (values >= 1); ``card``: mask of the played
    card(s); ``n``: first free move slot. Returns the new move count; the appended block is sorted.
    """
    start = n
    subset = 0
    total = 0
    rest = avail  # candidates for the next card: the available cards above the subset's highest
    while True:
        if rest != 0:
            c = lowest(rest)
            v = card_value(c, value_by_rank)
            if total + v <= target:
                subset |= 1 << c
                total += v
                rest = avail & ~((2 << c) - 1)
                if total == target:
                    n = put_move(ps, n, card, subset)
                    rest = 0  # every extension overshoots: values are >= 1
                continue
        if subset == 0:
            break
        h = highest(subset)
        subset ^= 1 << h
        total -= card_value(h, value_by_rank)
        rest = avail & ~((2 << h) - 1)
    sort_takes(ps, start, n)
    return n


@kernel(nrt=False)
def sort_takes(ps, start, stop):
    """Insertion sort of moves ``start..stop-1`` by take mask (their played card is the same)."""
    for i in range(start + 1, stop):
        x = ps[MOVES + 2 * i + 1]
        j = i - 1
        while j >= start and ps[MOVES + 2 * j + 1] > x:
            ps[MOVES + 2 * j + 3] = ps[MOVES + 2 * j + 1]
            j -= 1
        ps[MOVES + 2 * j + 3] = x


@kernel(nrt=False)
def capture_target(v, sum_to):
    """The value total of the table cards a card of capture value ``v`` takes: ``v`` itself, or with ``sum_to``
    (``Rules.sum_to``, Escoba's 15) what makes ``sum_to`` together with the played card."""
    return v if sum_to == 0 else sum_to - v


@inline_kernel
def up_to_rank(c):
    """Cards of card ``c``'s rank and below: the only ones a sum capture of ``c`` can take, since the capture value
    of the sum cards rises strictly with the rank in every family game (a test checks it)."""
    return (16 << ((c >> 2) << 2)) - 1


@inline_kernel
def sum_candidates(c, sum_to):
    """The cards a sum capture of card ``c`` may take: those of its rank and below (``up_to_rank``), or every card
    when captures make ``sum_to`` with the played card (Escoba: a 5 takes a king)."""
    return up_to_rank(c) if sum_to == 0 else -1


@kernel(nrt=False)
def append_card_captures(ps, card_id, table, priority, sum_mask, value_by_rank, rank_only, n, sum_to, court_all):
    """Append every capture the single card ``card_id`` can make on ``table``; returns the new count.

    A card of ``rank_only`` (court cards in Skopa and Foracio) takes one table card of its own rank, or with
    ``court_all`` (``court_takes="all_same_rank"``) every table card of its rank in one move. A sum card
    takes any set of table sum cards adding up to its value; with single-card priority (Scopa S5), when a table
    card of the same value lies on the table, only those single cards. Capture values are a function of the rank,
    one value per rank among the sum cards, so "same value" is "same rank". Sums come from the search (a table of
    more than ``REACH_TABLE`` sum cards; smaller ones take ``append_reached_captures``). With ``sum_to`` > 0
    (Escoba) the sets add up to ``sum_to`` minus the card's value instead (``capture_target``; Escoba has no
    rank-only cards and no priority), a target of 5..14 for Escoba's values 1..10: the same search, another total.
    """
    n, target = append_single_captures(ps, card_id, table, priority, sum_mask, value_by_rank, rank_only, court_all, n)
    if target <= 0:
        return n
    target = capture_target(target, sum_to)
    return append_sum_subsets(ps, table & sum_mask, target, value_by_rank, 1 << card_id, n)


@inline_kernel
def append_reached_captures(ps, card_id, table, rs, n, sums):
    """``append_card_captures`` (the same moves, in the same order) with the table's reachable sums ``sums``
    (``table_reach``, the same ``ps``) in place of its compressed subset sums, for a table of at most
    ``REACH_TABLE`` sum cards; ``rs``: the move generators' rule record (``moves.move_rules``). Its sums are found
    over ``sum_candidates``, as the quick path's are."""
    sum_mask, value_by_rank = rs.sum_mask, rs.value_by_rank
    n, v = append_single_captures(
        ps, card_id, table, rs.single_card_priority, sum_mask, value_by_rank, rs.rank_only, rs.court_takes_all, n
    )
    if v <= 0:
        return n
    avail = table & sum_mask
    below = avail & sum_candidates(card_id, rs.sum_to)
    target = capture_target(v, rs.sum_to)
    return append_reached_sums(ps, avail, below, target, value_by_rank, 1 << card_id, n, sums)


@inline_kernel
def append_single_captures(ps, card_id, table, priority, sum_mask, value_by_rank, rank_only, court_all, n):
    """The captures of ``card_id`` that take table cards of its rank (``append_card_captures``: a rank-only card's,
    or a sum card's under single-card priority): appended; returns (new count, the card's capture value when its
    captures are sums, else 0)."""
    card = 1 << card_id
    same_rank = table & (15 << ((card_id >> 2) << 2))
    if (rank_only >> card_id) & 1:
        if court_all != 0:
            return (n if same_rank == 0 else put_move(ps, n, card, same_rank)), 0
        while same_rank != 0:
            t = same_rank & -same_rank
            n = put_move(ps, n, card, t)
            same_rank ^= t
        return n, 0
    v = card_value(card_id, value_by_rank)
    if v == 0 or ((sum_mask >> card_id) & 1) == 0:
        return n, 0
    if priority != 0:
        singles = same_rank & sum_mask
        if singles != 0:
            while singles != 0:
                t = singles & -singles
                n = put_move(ps, n, card, t)
                singles ^= t
            return n, 0
    return n, v


# --------------------------------------------------------------------------- Skopa's multi_group_capture


@kernel(nrt=False)
def append_multi_captures(ps, card_id, table, priority, sum_mask, value_by_rank, rank_only, n):
    """Append the captures of ``card_id`` under ``multi_group_capture`` (``Rules.multi_group``): a largest union
    of pairwise disjoint groups, each group a capture the card could make alone. A court's groups are its rank's
    table cards, one each (whatever ``court_takes``): it takes them all, one move. With single-card priority and
    a table card of its value, a numeral's groups are those single cards: it takes them all. Otherwise every
    table card of its value is a group of its own and is always taken, with a largest set of the smaller sum
    cards that splits into sets summing to its value (:func:`append_largest_unions`)."""
    card = 1 << card_id
    same_rank = table & (15 << ((card_id >> 2) << 2))
    if (rank_only >> card_id) & 1:
        return n if same_rank == 0 else put_move(ps, n, card, same_rank)
    v = card_value(card_id, value_by_rank)
    if v == 0 or ((sum_mask >> card_id) & 1) == 0:
        return n
    equal = same_rank & sum_mask
    if priority != 0 and equal != 0:
        return put_move(ps, n, card, equal)
    return append_largest_unions(ps, card, v, equal, table & sum_mask & ~equal, value_by_rank, n)


@kernel(nrt=False)
def rank_value(rank, value_by_rank):
    """Capture value of rank index ``rank`` (0 = ace) from the packed ``Rules.value_by_rank``."""
    return (value_by_rank >> (rank << 2)) & 15


@kernel(nrt=False)
def append_largest_unions(ps, card, v, equal, others, value_by_rank, n):
    """Append ``(card, equal | U)`` for every largest set ``U`` of cards of ``others`` (sum cards) that splits into
    disjoint sets each summing to ``v``; returns the new count. The block appended is sorted by take.

    Only the number of cards of each rank matters to a split (one value per rank), so the search runs over the
    count vectors ``c <= t`` of the ranks of value below ``v`` (``t``: the table's counts), 4 bits a rank packed
    in one int64, in mixed-radix order: ``F[c]`` (a bit) is set when ``c`` splits, i.e. when ``c`` is itself a
    group (its values sum to ``v``) or some group ``g <= c`` holding a card of ``c``'s highest rank leaves a
    ``c - g`` that splits (that card lies in some group of any split). A group is met before every vector that
    contains it, so one pass finds the groups and fills ``F``; a second lists the takes of the largest split
    vectors, every choice of suits within each rank (an odometer over the ranks' 4-bit lanes, ascending).
    At most 5**9 vectors (values 1..9, 4 cards each); the bits, the groups and the ranks live in the last
    ``MULTI_SCRATCH`` slots of the move space (``Rules.max_moves`` leaves room for them after the moves).
    """
    base = ps.shape[0] - MULTI_SCRATCH
    groups = base + MULTI_DIMS
    bits = groups + 2 * MULTI_GROUPS
    start = n
    dims = 0
    counts = 0  # t, 4 bits a dimension
    states = 1
    rest = others
    while rest != 0:
        r = lowest(rest) >> 2
        nibble = (others >> (r << 2)) & 15
        rest &= ~(15 << (r << 2))
        if rank_value(r, value_by_rank) >= v:
            continue  # too large to enter a set summing to v
        ps[base + dims] = r
        counts |= popcount(nibble) << (dims << 2)
        states *= popcount(nibble) + 1
        dims += 1
    if states > MULTI_STATES or dims > MULTI_DIMS or MOVES + 2 * n >= base:
        ps[FAULT] = FAULT_MOVES
        return n
    for i in range((states + 63) >> 6):
        ps[bits + i] = 0
    ps[bits] = 1  # the empty vector splits (into no group)
    lanes = 0  # 8 in every lane: the borrow guard of the lane-wise test g <= c
    for i in range(dims):
        lanes |= 8 << (i << 2)
    n_groups = 0
    best = 0
    c = 0
    size = 0
    total = 0
    for s in range(1, states):
        i = 0  # the odometer: c, its card count and value total follow s
        while True:
            digit = (c >> (i << 2)) & 15
            w = rank_value(ps[base + i], value_by_rank)
            if digit < (counts >> (i << 2)) & 15:
                c += 1 << (i << 2)
                size += 1
                total += w
                break
            c -= digit << (i << 2)
            size -= digit
            total -= digit * w
            i += 1
        if total % v != 0:
            continue
        splits = total == v
        if splits:
            if n_groups == MULTI_GROUPS:
                ps[FAULT] = FAULT_MOVES
                return n
            ps[groups + 2 * n_groups] = c
            ps[groups + 2 * n_groups + 1] = s
            n_groups += 1
        else:
            top = highest(c) >> 2
            for j in range(n_groups):
                g = ps[groups + 2 * j]
                if ((g >> (top << 2)) & 15) == 0 or (((c | lanes) - g) & lanes) != lanes:
                    continue
                q = s - ps[groups + 2 * j + 1]
                if (ps[bits + (q >> 6)] >> (q & 63)) & 1:
                    splits = True
                    break
        if splits:
            ps[bits + (s >> 6)] |= 1 << (s & 63)
            best = max(best, size)
    if best == 0:
        return n if equal == 0 else put_move(ps, n, card, equal)
    c = 0
    size = 0
    for s in range(1, states):
        i = 0
        while True:
            digit = (c >> (i << 2)) & 15
            if digit < (counts >> (i << 2)) & 15:
                c += 1 << (i << 2)
                size += 1
                break
            c -= digit << (i << 2)
            size -= digit
            i += 1
        if size == best and (ps[bits + (s >> 6)] >> (s & 63)) & 1:
            n = append_suit_choices(ps, card, equal, others, c, dims, base, n)
            if MOVES + 2 * n >= base:
                ps[FAULT] = FAULT_MOVES
                return n
    sort_takes(ps, start, n)
    return n


@kernel(nrt=False)
def first_cards(nibble, k):
    """The ``k`` lowest cards of a rank's 4-bit ``nibble``."""
    out = 0
    while k > 0:
        low = nibble & -nibble
        out |= low
        nibble ^= low
        k -= 1
    return out


@kernel(nrt=False)
def next_cards(nibble, k, x):
    """The next ``k``-card subset of ``nibble`` after ``x`` in numeric order, or -1."""
    for y in range(x + 1, 16):
        if (y & ~nibble) == 0 and popcount(y) == k:
            return y
    return -1


@kernel(nrt=False)
def append_suit_choices(ps, card, equal, others, c, dims, base, n):
    """Append ``(card, equal | U)`` for every ``U`` with ``c``'s count of cards of each dimension's rank, in
    ascending order (the lowest rank's choice turns fastest); the ranks are at ``ps[base + i]``."""
    pick = 0  # the chosen cards of dimension i in lane i
    for i in range(dims):
        nibble = (others >> (ps[base + i] << 2)) & 15
        pick |= first_cards(nibble, (c >> (i << 2)) & 15) << (i << 2)
    while True:
        take = equal
        for i in range(dims):
            take |= ((pick >> (i << 2)) & 15) << (ps[base + i] << 2)
        if MOVES + 2 * n + 1 >= base:
            return n + 1  # the caller reports the overflow
        n = put_move(ps, n, card, take)
        i = 0
        while i < dims:
            nibble = (others >> (ps[base + i] << 2)) & 15
            k = (c >> (i << 2)) & 15
            x = (pick >> (i << 2)) & 15
            y = next_cards(nibble, k, x)
            if y >= 0:
                pick += (y - x) << (i << 2)
                break
            pick += (first_cards(nibble, k) - x) << (i << 2)
            i += 1
        if i == dims:
            return n
