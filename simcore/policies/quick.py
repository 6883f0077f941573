"""``random`` and ``greedy`` decided straight from (hand, table), without listing the moves or writing the view.

Prototype of issue 11's speed half. On the ordinary path a play costs ``prepare`` (the whole view: ~30 slots),
``legal_moves`` (every move stored as a pair) and then the policy's scan of that list: measured, that is about
60% of 2-player Scopa self-play. These two policies read neither the view nor the list, so for them the family
loop asks ``quick_choice`` instead, which gives the very move ``choose`` would pick, with the same random draw:

* the legal captures of each hand card are counted in O(1) from a packed generating function of the table's
  subset sums, ``prod (1 + x**value)`` over the table's sum cards, 8-bit lanes for the powers 0..15 in two
  int64 words (exact while the table has at most ``QUICK_TABLE`` = 10 sum cards: values are positive, so the
  subsets with one sum are an antichain, at most C(10, 5) = 252 of them by Sperner's theorem, and a lane never
  carries into the next);
* ``random`` draws ``bounded(n_moves)`` as ``choose`` does, then decodes only the move drawn (card by card; in games
  of hands of at most ``SLOTS`` cards in fixed slots, ``quick_slots``; in games of hands of ``BY_RANK_HAND`` cards
  or more rank by rank, every rank of the pack in a slot of its own, ``quick_rank_slots``: a rank's cards have the
  same captures; their last ``SLOTS`` cards in fixed slots again below ``RANDOM_RANKS_ONLY_HAND``);
* ``greedy`` scores the moves in canonical order (ascending play, then take) and keeps the first best, as
  ``choose_greedy`` does, decoding a card's sum captures one by one in that order (in hands of
  ``GREEDY_BY_RANK_HAND`` cards or more, only the cards that capture: ``quick_greedy_ranks``);
* a sum capture is decoded by counting (``captures.nth_summing_subset``, with the lanes of the table's lowest cards
  that ``store_prefix_lanes`` keeps in the ``SUMS`` slots of the decision space);
* the Monte Carlo rollouts' epsilon-greedy (``POLICY_ROLLOUT``) makes ``choose``'s epsilon draw, then moves as
  ``random`` or ``greedy`` above;
* Kaszinó's exchanges (``quick_exchange_choice``) are counted the same way, a hand group at a time: the table's
  lanes at the group's value total count its exchanges.

Larger tables and every other policy take the ordinary path (``quick_choice`` returns play -1), and so do the
rules whose moves these counts do not model (Scopa/Scopone ``sum_choice="fewest"``, Scopone's ``ace_on_ace`` and
banned first ace, Skopa's ``multi_group_capture``); courts that take all their rank
(``court_takes="all_same_rank"``) have one capture each; the aces that take all (Foracio's, Scopone's) have moves of
their own (``ace_moves``), which random decodes and greedy scores as ``choose_greedy`` does.
"""

from __future__ import annotations

from simcore._jit import inline_kernel
from simcore.kernels.bits import lowest, popcount
from simcore.kernels.captures import (
    capture_target,
    card_value,
    lane,
    lanes_times,
    nth_summing_subset,
    store_prefix_lanes,
    subset_sum_lanes,
    sum_candidates,
)
from simcore.kernels.workspace import RNG, TRAIL_CLASSES, WEIGHT
from simcore.policies.kernels import (
    GREEDY_CARD_SCORE,
    POLICY_GREEDY,
    POLICY_RANDOM,
    POLICY_ROLLOUT,
    explores,
    weight_of,
)
from simcore.rng import bounded, wrapping_add, wrapping_mul
from simcore.variants.base import ACE_KEEP, ACE_STAY, FORCED_CARD, FORCED_NONE

ACES = 0xF
QUICK_TABLE = 10  # most table sum cards for the packed counts (at most C(10, 5) = 252 subsets a sum fit a lane)
# random counts the hand in rank slots (``quick_rank_slots``) from this hand size, in a loop compiled without the
# listed policies (``full`` None: greedy and random runs): Foracio's 13 cards +25% deals/s against a walk through the
# hand's ranks (session 18; that walk had been +14-22% over a walk card by card, session 15); Scopone's 10 cards lost
# 6% while the slots were the 13 of a 52-card pack, and gain 10-16% since the ranks its 40-card pack has not are left
# out (session 24). Compiled into the loop that mc's rollouts run, the slots made Scopone's mc 4-5% slower (its
# rollouts' 10% of random moves, in hands that are smaller on average); that loop walks the hand card by card (Foracio's
# and Scopone's mc as fast as before). One thread, old and new in one process, same rows.
BY_RANK_HAND = 10
# greedy counts the captures in rank slots (``quick_greedy_ranks``) from this hand size: Foracio's 13 cards +15-17%
# deals/s; Scopone's 10 cards 4% slower than ``quick_greedy``'s walk in session 24, 1.055x faster since session 28's
# decoding of the sum captures (7 pairs of processes, one thread, same rows: the walk's branch per card on its value,
# its same-rank cards and its count was 44% of a profile)
GREEDY_BY_RANK_HAND = 10
# from this hand size greedy keeps the rank slots to the last card: the walk for the last ``SLOTS`` cards gained
# Foracio's 13-card hands 3% for 3 s more of its cold compile (Scopone's 10-card hands: 12%, session 30)
GREEDY_RANKS_ONLY_HAND = 13
# hands of at most this many cards (Scopa's and Escoba's 3, Skopa's 4) are counted in fixed slots (``quick_slots``).
# Greedy walks the last cards of Scopone's 10-card hands once they are down to this many, where the rank slots'
# constant work over the pack's every rank costs more than the few cards left (session 30, 7 pairs of processes, one
# thread, same rows: 1.12x; switching at 5 or 6 cards instead was 0.93-0.98x of switching at 4). Random's slots for
# those last cards gained Scopone 1.11x and Foracio 1.05x but cost both games 3 s more of cold compile: not kept.
SLOTS = 4
# random too counts the last ``SLOTS`` cards of a large hand in fixed slots (``quick_slots``), below this hand size:
# Scopone 1.08-1.19x (session 35, pairs of processes one per core, same rows; session 30 had measured 1.11x and not
# kept it for 3 s more of cold compile, before the link-only libraries cut the compile); Foracio's 13 cards keep the
# rank slots to the last card (0.84-1.02x with the slots)
RANDOM_RANKS_ONLY_HAND = 13
RANKS = 13  # the most ranks of a pack (52 cards): ``quick_rank_slots``' slots
EMPTY_SLOT = 63  # the card id of a slot past the hand's last card: no card of any pack, so it counts no move
NO_SCORE = -(1 << 62)  # greedy's best score before any move
LANES_TOP = 15  # the largest sum the lanes count
EXCHANGE_HAND = 3  # most cards of a Kaszino hand ``quick_exchange_choice`` decides (7 groups: a byte each)
LAST_CARD = 1 << 51  # the highest card of any pack (``slot_card``)


@inline_kernel
def capture_count(c, table, priority, sum_mask, value_by_rank, rank_only, court_all, lo, hi, sum_to):
    """Number of captures card ``c`` can make (the moves ``append_card_captures`` lists); with ``sum_to``
    (Escoba) the sets summing to ``sum_to`` minus its value, lanes 5..14."""
    same_rank = table & (15 << ((c >> 2) << 2))
    if (rank_only >> c) & 1:
        return min(popcount(same_rank), 1) if court_all != 0 else popcount(same_rank)
    v = card_value(c, value_by_rank)
    if v == 0 or ((sum_mask >> c) & 1) == 0:
        return 0
    if priority != 0 and (same_rank & sum_mask) != 0:
        return popcount(same_rank & sum_mask)
    return lane(lo, hi, capture_target(v, sum_to))


@inline_kernel
def capture_count_flat(c, table, rs, lo, hi):
    """``capture_count`` with every count computed and one selected, without a branch on the card. Which case a
    card falls in changes from card to card, so ``quick_random``, which counts every card of the hand, lost to
    those branches' mispredictions in the large hands of Scopone (+23% deals/s flat) and Scopa (+5%); greedy, which
    skips most of the work for the cards that cannot capture, is faster with the branches."""
    priority, sum_mask, value_by_rank, rank_only = rs.single_card_priority, rs.sum_mask, rs.value_by_rank, rs.rank_only
    court_all, sum_to = rs.court_takes_all, rs.sum_to
    same_rank = table & (15 << ((c >> 2) << 2))
    same = popcount(same_rank)
    same_sum = popcount(same_rank & sum_mask)
    v = card_value(c, value_by_rank)
    by_sum = lane(lo, hi, capture_target(v, sum_to))
    court = min(same, 1) if court_all != 0 else same
    summed = same_sum if (priority != 0) & (same_sum != 0) else by_sum
    summed = summed if (v != 0) & (((sum_mask >> c) & 1) != 0) else 0
    return court if ((rank_only >> c) & 1) != 0 else summed


@inline_kernel
def nth_bit(mask, idx):
    """The ``idx``-th lowest set bit of ``mask``, as a mask."""
    for _ in range(idx):
        mask &= mask - 1
    return mask & -mask


@inline_kernel
def singles_of(c, table, priority, sum_mask, rank_only):
    """The table cards card ``c`` takes one at a time (rank-only or single-card priority), else 0."""
    same_rank = table & (15 << ((c >> 2) << 2))
    if (rank_only >> c) & 1:
        return same_rank
    if priority != 0:
        return same_rank & sum_mask
    return 0


@inline_kernel
def nth_capture(ps, c, table, rs, idx):
    """Take mask of capture number ``idx`` (canonical, ascending order) of card ``c``."""
    priority, sum_mask, value_by_rank, rank_only = rs.single_card_priority, rs.sum_mask, rs.value_by_rank, rs.rank_only
    court_all, sum_to = rs.court_takes_all, rs.sum_to
    singles = singles_of(c, table, priority, sum_mask, rank_only)
    if (rank_only >> c) & 1 and court_all != 0:
        return singles  # court_takes="all_same_rank": its one capture takes them all
    if singles != 0 or (rank_only >> c) & 1:
        return nth_bit(singles, idx)
    avail = table & sum_mask & sum_candidates(c, sum_to)
    store_prefix_lanes(ps, avail, value_by_rank)
    return nth_summing_subset(ps, avail, value_by_rank, capture_target(card_value(c, value_by_rank), sum_to), idx)[0]


@inline_kernel
def moves_of(cap, forced):
    """Moves of a card with ``cap`` captures under the compulsion rule (FORCED_PLAYER: captures only)."""
    if forced == FORCED_NONE:
        return cap + 1
    if forced == FORCED_CARD and cap == 0:
        return 1
    return cap


@inline_kernel
def ace_moves(table, forced, ace_on_empty):
    """Number of moves of a Foracio ace (``append_ace_moves``): the whole table (and a trail with no compulsion);
    on an empty table a trail unless it must keep itself, and keeping itself unless it must stay."""
    if table != 0:
        return 2 if forced == FORCED_NONE else 1
    trail = 1 if ace_on_empty != ACE_KEEP or forced == FORCED_NONE else 0
    return trail + (1 if ace_on_empty != ACE_STAY else 0)


@inline_kernel
def nth_ace_take(card, table, forced, ace_on_empty, idx):
    """Take mask of move ``idx`` of a Foracio ace, in ``append_ace_moves`` order (0: a trail; ``card``: it keeps
    itself)."""
    if table != 0:
        return 0 if forced == FORCED_NONE and idx == 0 else table
    return 0 if (ace_on_empty != ACE_KEEP or forced == FORCED_NONE) and idx == 0 else card


@inline_kernel
def ace_mask(rs):
    """The aces that take all (Foracio's, Scopone's: ``rs.ace_sweeps``), whose moves are their own (``ace_moves``)."""
    return ACES if rs.ace_sweeps != 0 else 0


@inline_kernel
def trail_any(ps, seat, hand):
    """The move of random when nothing may be played but nothing captures (forced=player): any card trailed,
    drawn as ``choose`` draws it."""
    return nth_bit(hand, bounded(ps, RNG + 1 + seat, popcount(hand))), 0


@inline_kernel
def card_moves(c, aces, table, rs, lo, hi):
    """What ``quick_random`` counts for hand card ``c``: an ace's moves (``ace_moves``), else its captures."""
    if (aces >> c) & 1:
        return ace_moves(table, rs.forced_capture, rs.ace_on_empty)
    return capture_count_flat(c, table, rs, lo, hi)


@inline_kernel
def quick_random(ps, seat, hand, table, rs, lo, hi):
    """The move ``choose`` picks for ``random``: one ``bounded(n_moves)`` draw, then that move decoded.

    The count of each card (``card_moves``) is kept in byte k of ``first`` or ``second`` for the decoding (a
    count is at most 252: ``QUICK_TABLE``). A card is cleared with ``rest & (rest - 1)``: one cycle from one step
    to the next, against ~5 from its index."""
    forced = rs.forced_capture
    aces = ace_mask(rs)
    first, second = 0, 0
    total = 0
    k = 0
    rest = hand
    while rest != 0:
        c = lowest(rest)
        rest &= rest - 1
        count = card_moves(c, aces, table, rs, lo, hi)
        if k < 8:
            first |= count << (8 * k)
        elif k < 16:  # hands of more than 16 cards (none is dealt) count the later cards again below
            second |= count << (8 * (k - 8))
        k += 1
        total += count if (aces >> c) & 1 else moves_of(count, forced)
    if total == 0:  # forced=player and nothing captures: any card is trailed
        return trail_any(ps, seat, hand)
    idx = bounded(ps, RNG + 1 + seat, total)
    rest = hand
    ace = False
    cap = 0
    c = 0
    k = 0
    while True:
        c = lowest(rest)
        rest &= rest - 1
        ace = ((aces >> c) & 1) != 0
        if k < 16:
            cap = ((first if k < 8 else second) >> (8 * (k & 7))) & 255
        else:
            cap = card_moves(c, aces, table, rs, lo, hi)
        k += 1
        n = cap if ace else moves_of(cap, forced)
        if idx < n:
            break
        idx -= n
    return decode_move(ps, c, cap, table, rs, idx, ace)


@inline_kernel
def quick_slots(ps, seat, hand, table, rs, lo, hi, slots):
    """``quick_random`` for hands of at most ``slots`` cards (the game's hand size, 3 or 4, a constant): no loop that
    depends on the hand (``slots_draw``), then the drawn move decoded. As many slots as the hand has cards: its size
    is known before its moves are counted, and a slot past its last card cost a slot's whole count and lengthened the
    search for the drawn slot. Random, one thread, against ``hand_size`` slots for every hand (session 30, 7 pairs
    of processes, same rows): Scopa 1.16x, Escoba 1.16x, Skopa 1.19x (with a copy for 3 cards too: Skopa 1.07x more,
    not kept for its compile time). One copy of the counting a size and one of the decoding for all: a copy of both
    a size had made the cold compile of a Scopa run 1.6x longer."""
    n = popcount(hand)
    if n <= 1:
        c, cap, idx = slots_draw(ps, seat, hand, table, rs, lo, hi, 1)
    elif slots > 2 and n == 2:
        c, cap, idx = slots_draw(ps, seat, hand, table, rs, lo, hi, 2)
    else:
        c, cap, idx = slots_draw(ps, seat, hand, table, rs, lo, hi, slots)
    if c < 0:  # forced=player and nothing captures: any card is trailed
        return trail_any(ps, seat, hand)
    return decode_move(ps, c, cap, table, rs, idx, ((ace_mask(rs) >> c) & 1) != 0)


@inline_kernel
def slots_draw(ps, seat, hand, table, rs, lo, hi, slots):
    """(card, its captures, the index of the drawn move among the card's moves) of random's draw over a hand of at
    most ``slots`` cards, or card -1 with no draw made when no card has a move (forced=player, nothing captures).
    The k-th lowest card sits in slot k (``EMPTY_SLOT`` past the hand's last card), the slots' moves are counted in
    a loop of a constant count, which LLVM unrolls, and the drawn card is found by comparing the draw with their
    running sums, as the baseline kernel's random does (``../shared/bench``). The counts are packed a byte a slot so
    that the Numba IR holds one copy of ``card_moves``: one copy a slot, unrolled by hand, gained about 2 points
    more (+6% against +4% in Scopa) but made the cold compile of a Scopa run 4 s longer (``benchmarks/README.md``,
    session 17)."""
    aces = ace_mask(rs)
    cards, caps, moves, total = 0, 0, 0, 0
    rest = hand
    for k in range(slots):
        c = lowest(rest | (1 << EMPTY_SLOT))
        rest &= rest - 1
        cap = card_moves(c, aces, table, rs, lo, hi)
        n = cap if (aces >> c) & 1 else moves_of(cap, rs.forced_capture)
        n = n if c != EMPTY_SLOT else 0
        cards |= c << (8 * k)
        caps |= cap << (8 * k)
        moves |= n << (8 * k)
        total += n
    if total == 0:
        return -1, 0, 0
    idx = bounded(ps, RNG + 1 + seat, total)
    shift, before = 0, 0
    for k in range(1, slots):  # the last slot whose moves start at or before idx (a slot without moves is passed)
        before += (moves >> (8 * (k - 1))) & 255
        shift = 8 * k if idx >= before else shift
    before = 0
    for k in range(slots - 1):  # the moves of the slots before it
        before += ((moves >> (8 * k)) & 255) if 8 * k < shift else 0
    return (cards >> shift) & 255, (caps >> shift) & 255, idx - before


BYTE_ONES = 0x0101010101010101  # bit 0 of every byte; times a byte: it in every byte; times bytes: their running sums
BYTE_HIGHS = -0x7F7F7F7F7F7F7F80  # 0x8080808080808080 as an int64: the high bit of every byte


@inline_kernel
def drawn_byte_slot(blocks_lo, blocks_hi, idx):
    """(slot, moves before it): the slot (byte k of ``blocks_lo | blocks_hi << 64``, a slot's count of moves) that
    move ``idx`` falls in, without a loop: the running sums of the bytes are compared with ``idx`` all at once, and
    the slots whose sum is at most ``idx`` are those before it. Exact while the bytes add up to less than 128 (no
    carry leaves a byte, and every byte's high bit is free for the comparison) and ``idx`` is below their sum."""
    sums_lo = wrapping_mul(blocks_lo, BYTE_ONES)
    sums_hi = wrapping_mul(blocks_hi, BYTE_ONES) + ((sums_lo >> 56) & 255) * BYTE_ONES
    probe = wrapping_mul(idx, BYTE_ONES) | BYTE_HIGHS
    passed_lo = wrapping_add(probe, -sums_lo) & BYTE_HIGHS  # high bit of byte k: idx >= the sum up to slot k
    passed_hi = wrapping_add(probe, -sums_hi) & BYTE_HIGHS
    slot = popcount(passed_lo) + popcount(passed_hi)
    before = (sums_lo - blocks_lo) if slot < 8 else (sums_hi - blocks_hi)
    return slot, (before >> (8 * (slot & 7))) & 255


NIBBLE_LOWS = 0x1111111111111111  # bit 0 of every nibble: a rank's first card (suit 0)
LOW_NIBBLES = 0x0F0F0F0F0F0F0F0F  # the low nibble of every byte
SHORT_LOWS = 0x00FF00FF00FF00FF  # the low byte of every 16-bit lane
RISING_TARGETS = 0xDCBA987654321  # nibble r = r + 1: each rank's sum where the ranks are worth 1, 2, 3...
SHORT_PACK_COURTS = 0xA98 << 40  # the 40-card pack's courts (ranks 10..12, after 7: no 8, 9, 10) worth 8, 9, 10


@inline_kernel
def nibbles_to_bytes(x):
    """The 8 low nibbles of ``x`` (rank r's in nibble r) spread to the 8 bytes of the result (rank r's in byte r)."""
    x &= 0xFFFFFFFF
    x = (x | (x << 16)) & 0x0000FFFF0000FFFF
    x = (x | (x << 8)) & SHORT_LOWS
    return (x | (x << 4)) & LOW_NIBBLES


@inline_kernel
def bytes_to_nibbles(x):
    """The low nibbles of the 8 bytes of ``x`` gathered into its 8 low nibbles (``nibbles_to_bytes`` undone)."""
    x &= LOW_NIBBLES
    x = (x | (x >> 4)) & SHORT_LOWS
    x = (x | (x >> 8)) & 0x0000FFFF0000FFFF
    return (x | (x >> 16)) & 0xFFFFFFFF


@inline_kernel
def rank_bytes(x):
    """(ranks 0..7, ranks 8..12): byte r of the first, byte r - 8 of the second = nibble r of ``x`` (a card mask's
    4 bits of rank r, or a count of them)."""
    return nibbles_to_bytes(x), nibbles_to_bytes(x >> 32)


@inline_kernel
def rank_card_counts(cards):
    """``rank_bytes`` of the number of cards of each rank in ``cards`` (a popcount a nibble, all at once)."""
    x = cards - ((cards >> 1) & 0x5555555555555555)
    return rank_bytes((x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333))


@inline_kernel
def rank_flags(ranks):
    """``rank_bytes`` of ``ranks`` (bit 0 of each rank's nibble), 255 where set."""
    a, b = rank_bytes(ranks & NIBBLE_LOWS)
    return wrapping_mul(a, 255), wrapping_mul(b, 255)


@inline_kernel
def nonzero_nibbles(x):
    """Bit 0 of each nibble of ``x`` that is not 0."""
    return (x | (x >> 1) | (x >> 2) | (x >> 3)) & NIBBLE_LOWS


@inline_kernel
def nonzero_bytes(x):
    """255 in every byte of ``x`` that is not 0, else 0 (no carry from byte to byte: the high bits apart)."""
    high = (wrapping_add(x & 0x7F7F7F7F7F7F7F7F, 0x7F7F7F7F7F7F7F7F) | x) & BYTE_HIGHS
    return wrapping_mul((high >> 7) & BYTE_ONES, 255)


@inline_kernel
def rank_lanes(lo, hi, rs, valued):
    """``rank_bytes`` of the lanes (``subset_sum_lanes``) at each rank's capture target (``capture_target``), for
    the ranks of ``valued`` (bit 0 of their nibbles). Shifts of the lanes where the ranks are worth 1, 2, 3... and
    the courts of the 40-card pack 8, 9, 10 (every game's values but Escoba's sums to 15); a byte each for others
    (under frozen rules a constant set: the ranks it has not fold away)."""
    a = ((lo >> 8) & 0x00FFFFFFFFFFFFFF) | (hi << 56)  # byte r: lane r + 1
    b = (hi >> 8) & 0xFFFFFFFFFF
    value_by_rank, sum_to = rs.value_by_rank, rs.sum_to
    off = valued
    if sum_to == 0:
        off = nonzero_nibbles(value_by_rank ^ RISING_TARGETS) & valued
        courts = off & ~nonzero_nibbles(value_by_rank ^ SHORT_PACK_COURTS) & (NIBBLE_LOWS << 40)
        if courts != 0:  # the 40-card pack's courts: byte r - 8 of ``b``, lane r - 2
            chosen = wrapping_mul(nibbles_to_bytes(courts >> 32), 255)
            b = (b & ~chosen) | ((hi << 16) & chosen)
            off &= ~courts
    for r in range(RANKS):
        if (off >> (4 * r)) & 1:
            by_sum = lane(lo, hi, capture_target(card_value(4 * r, value_by_rank), sum_to))
            if r < 8:
                a = (a & ~(255 << (8 * r))) | (by_sum << (8 * r))
            else:
                b = (b & ~(255 << (8 * (r - 8)))) | (by_sum << (8 * (r - 8)))
    return a, b


@inline_kernel
def rank_captures(table, rs, lo, hi):
    """``capture_count_flat`` of every rank at once, a byte a rank (``rank_bytes``; the ranks of no sum and no
    court count 0): the counts of the table's cards of each rank are a popcount a nibble, the sums' counts the
    lanes' bytes at each rank's target (``rank_lanes``), and the choices between them masks of whole bytes.
    ``quick_greedy_ranks`` had a loop over the ranks, which LLVM vectorised; its shifts, selects and reductions
    were a quarter of Scopone greedy's profile."""
    priority, sum_mask, rank_only, court_all = rs.single_card_priority, rs.sum_mask, rs.rank_only, rs.court_takes_all
    valued = nonzero_nibbles(rs.value_by_rank)
    by_sum_a, by_sum_b = rank_lanes(lo, hi, rs, valued)
    same_a, same_b = rank_card_counts(table)
    sums_a, sums_b = rank_flags(sum_mask & valued)
    courts_a, courts_b = rank_flags(rank_only)
    same_sum_a, same_sum_b = rank_card_counts(table & sum_mask)
    chosen_a = nonzero_bytes(same_sum_a) if priority != 0 else 0  # single-card priority: the table's equals
    chosen_b = nonzero_bytes(same_sum_b) if priority != 0 else 0
    summed_a = ((same_sum_a & chosen_a) | (by_sum_a & ~chosen_a)) & sums_a
    summed_b = ((same_sum_b & chosen_b) | (by_sum_b & ~chosen_b)) & sums_b
    court_a = (nonzero_bytes(same_a) & BYTE_ONES) if court_all != 0 else same_a
    court_b = (nonzero_bytes(same_b) & BYTE_ONES) if court_all != 0 else same_b
    return (court_a & courts_a) | (summed_a & ~courts_a), (court_b & courts_b) | (summed_b & ~courts_b)


@inline_kernel
def quick_rank_slots(ps, seat, hand, table, rs, lo, hi, pack):
    """``quick_random`` for large hands (``BY_RANK_HAND``): every rank of the pack in a slot of its own, counted in a
    loop of a constant count (``RANKS``), which LLVM unrolls, instead of a walk through the hand's ranks, each step
    of which waited for the one before. A rank's cards share their count of captures (every card mask of the moves
    holds whole ranks, ``test_conformance``), kept a byte a rank for the decoding; ranks without a card in the hand
    count no move. ``pack``: the rules' pack (a constant under frozen rules), whose missing ranks are not counted."""
    aces = ace_mask(rs)
    forced = rs.forced_capture
    first, second, total = 0, 0, 0
    blocks_lo, blocks_hi = 0, 0  # each rank's moves, a byte a rank (exact while the total is below 128)
    for r in range(RANKS):
        c = 4 * r
        if (pack >> c) & 15 == 0:  # a rank the pack has not (Scopone's 8-10): folded away with the frozen rules
            continue
        cap = card_moves(c, aces, table, rs, lo, hi)
        moves = cap if (aces >> c) & 1 else moves_of(cap, forced)
        block = moves * popcount((hand >> c) & 15)
        total += block
        if r < 8:
            first |= cap << (8 * r)
            blocks_lo |= block << (8 * r)
        else:
            second |= cap << (8 * (r - 8))
            blocks_hi |= block << (8 * (r - 8))
    if total == 0:  # forced=player and nothing captures: any card is trailed
        return trail_any(ps, seat, hand)
    idx = bounded(ps, RNG + 1 + seat, total)
    c, cap, moves = 0, 0, 0
    if total < 128:
        r, before = drawn_byte_slot(blocks_lo, blocks_hi, idx)
        idx -= before
        c = 4 * r
        cap = ((first if r < 8 else second) >> (8 * (r & 7))) & 255
        moves = cap if (aces >> c) & 1 else moves_of(cap, forced)
    else:
        for r in range(RANKS):  # to the rank of the drawn move
            c = 4 * r
            cap = ((first if r < 8 else second) >> (8 * (r & 7))) & 255
            moves = cap if (aces >> c) & 1 else moves_of(cap, forced)
            block = moves * popcount((hand >> c) & 15)
            if idx < block:
                break
            idx -= block
    group = hand & (15 << c)
    for _ in range(3):  # the rank's cards (at most 4) in ascending order, ``moves`` moves each: selects, where LLVM
        past = idx >= moves  # had made a loop of subtractions a division (about 2% of Scopone random's profile)
        idx = idx - moves if past else idx
        group = (group & (group - 1)) if past else group
    return decode_move(ps, lowest(group), cap, table, rs, idx, ((aces >> c) & 1) != 0)


@inline_kernel
def decode_move(ps, c, cap, table, rs, idx, ace):
    """(play, take) of move ``idx`` of hand card ``c``, which has ``cap`` captures (``card_moves``), in the order
    ``legal_moves`` lists them: a trail first where the compulsion allows it, then the captures."""
    play = 1 << c
    forced = rs.forced_capture
    if ace:
        return play, nth_ace_take(play, table, forced, rs.ace_on_empty, idx)
    if forced == FORCED_NONE:
        if idx == 0:
            return play, 0
        idx -= 1
    elif cap == 0:
        return play, 0
    return play, nth_capture(ps, c, table, rs, idx)


@inline_kernel
def lightest_trail(ps, cards):
    """(play, score) of greedy's best trail among ``cards``: the first card of the least weight, scored minus its
    weight as ``choose_greedy`` scores a trail; (0, ``NO_SCORE``) without cards. Selects, not branches."""
    play, best = 0, NO_SCORE
    rest = cards
    while rest != 0:
        c = lowest(rest)
        rest &= rest - 1
        score = -ps[WEIGHT + c]
        better = score > best
        play = (1 << c) if better else play
        best = score if better else best
    return play, best


@inline_kernel
def lightest_class_trail(ps, cards):
    """``lightest_trail`` for many cards: the lowest card of the lightest weight class that ``cards`` meets
    (``workspace.TRAIL_CLASSES``, a few classes a game) instead of a scan of every card, each step of which waited
    for the one before (Foracio's 13-card hands: +20% greedy deals/s). A hand of 3-4 cards is faster scanned: there
    the loop's exit is a misprediction (Skopa 0.96-0.99x)."""
    for k in range(ps[TRAIL_CLASSES]):  # none in a decision space without them (too many weights): the scan
        light = cards & ps[TRAIL_CLASSES + 1 + k]
        if light != 0:
            c = lowest(light)
            return 1 << c, -ps[WEIGHT + c]
    return lightest_trail(ps, cards)  # no class met: no cards, or no classes


@inline_kernel
def greedy_ace(ps, play, wc, table, forced, ace_on_empty, best_play, best_take, best):
    """Greedy's running best (``best_play``, ``best_take``, ``best``) after the moves of an ace that takes all
    (``play``, of weight ``wc``), in ``append_ace_moves`` order: a trail (where allowed), then the table or keeping
    itself."""
    if table != 0:
        if forced == FORCED_NONE and -wc > best:
            best_play, best_take, best = play, 0, -wc
        score = GREEDY_CARD_SCORE * popcount(table) + weight_of(ps, table) + wc
        if score > best:
            best_play, best_take, best = play, table, score
    else:
        if (ace_on_empty != ACE_KEEP or forced == FORCED_NONE) and -wc > best:
            best_play, best_take, best = play, 0, -wc
        if ace_on_empty != ACE_STAY and GREEDY_CARD_SCORE + wc > best:
            best_play, best_take, best = play, play, GREEDY_CARD_SCORE + wc
    return best_play, best_take, best


@inline_kernel
def greedy_captures(ps, c, wc, cap, table, rs, have_lanes, best_play, best_take, best):
    """Greedy's running best and ``have_lanes`` after the ``cap`` captures of card ``c`` (of weight ``wc``), in
    canonical order; a sum capture is decoded by counting (``nth_summing_subset``), from the prefix lanes of the
    table's sum cards, stored at the first one (``have_lanes``)."""
    priority, rank_only, court_all = rs.single_card_priority, rs.rank_only, rs.court_takes_all
    sum_mask, value_by_rank, sum_to = rs.sum_mask, rs.value_by_rank, rs.sum_to
    play = 1 << c
    singles = singles_of(c, table, priority, sum_mask, rank_only)
    if (rank_only >> c) & 1 and court_all != 0:  # court_takes="all_same_rank": one capture of them all
        score = GREEDY_CARD_SCORE * popcount(singles) + weight_of(ps, singles) + wc
        if score > best:
            best_play, best_take, best = play, singles, score
        return best_play, best_take, best, have_lanes
    if singles != 0 or (rank_only >> c) & 1:
        while singles != 0:
            t = singles & -singles
            singles ^= t
            score = GREEDY_CARD_SCORE + ps[WEIGHT + lowest(t)] + wc
            if score > best:
                best_play, best_take, best = play, t, score
        return best_play, best_take, best, have_lanes
    if not have_lanes:  # the table's sum cards: each card's ``avail`` is their lowest cards
        store_prefix_lanes(ps, table & sum_mask, value_by_rank)
    v = capture_target(card_value(c, value_by_rank), sum_to)
    avail = table & sum_mask & sum_candidates(c, sum_to)
    for i in range(cap):  # the lanes counted ``cap`` subsets summing to v: decode each, in order
        s, weight = nth_summing_subset(ps, avail, value_by_rank, v, i)
        score = GREEDY_CARD_SCORE * popcount(s) + weight + wc
        if score > best:
            best_play, best_take, best = play, s, score
    return best_play, best_take, best, True


@inline_kernel
def quick_greedy(ps, hand, table, rs, lo, hi):
    """The move ``choose_greedy`` picks: the first best in canonical order."""
    forced, priority, rank_only = rs.forced_capture, rs.single_card_priority, rs.rank_only
    sum_mask, value_by_rank, sum_to, court_all = rs.sum_mask, rs.value_by_rank, rs.sum_to, rs.court_takes_all
    ace_on_empty = rs.ace_on_empty
    aces = ace_mask(rs)
    best_play, best_take, best = 0, 0, NO_SCORE
    captures = 0
    have_lanes = False
    rest = hand
    while rest != 0:
        c = lowest(rest)
        rest &= rest - 1  # one cycle to the next card (``quick_random``)
        play = 1 << c
        wc = ps[WEIGHT + c]
        if (aces >> c) & 1:
            captures += 1  # an ace always has a move: never the forced=player trails below
            best_play, best_take, best = greedy_ace(
                ps, play, wc, table, forced, ace_on_empty, best_play, best_take, best
            )
            continue
        cap = capture_count(c, table, priority, sum_mask, value_by_rank, rank_only, court_all, lo, hi, sum_to)
        captures += cap
        trail = forced == FORCED_NONE or (forced == FORCED_CARD and cap == 0)
        if trail and -wc > best:
            best_play, best_take, best = play, 0, -wc
        if cap == 0:
            continue
        best_play, best_take, best, have_lanes = greedy_captures(
            ps, c, wc, cap, table, rs, have_lanes, best_play, best_take, best
        )
    if captures == 0 and forced != FORCED_NONE and forced != FORCED_CARD:  # forced=player, nothing captures
        return lightest_trail(ps, hand)[0], 0
    return best_play, best_take


@inline_kernel
def quick_greedy_ranks(ps, hand, table, rs, lo, hi):
    """``quick_greedy`` for large hands (``GREEDY_BY_RANK_HAND``): the captures of every rank of the pack are counted
    at once, a byte a rank, without a branch (``rank_captures``), the best trail comes from the weight classes
    (``lightest_class_trail``), and only the cards that capture (and the aces that take all) are scored as
    ``quick_greedy`` scores them. In Foracio's 13-card hands most cards cannot capture; the walk's test of each, card
    by card, was the cost.

    The two bests are the first best of two parts of the canonical order, so the move is the higher score, and on
    a tie the one that comes first: the lower card, and a card's trail before its captures."""
    forced = rs.forced_capture
    aces = ace_mask(rs)
    first, second = rank_captures(table, rs, lo, hi)
    capturing = hand & (bytes_to_nibbles(nonzero_bytes(first)) | (bytes_to_nibbles(nonzero_bytes(second)) << 32))
    special = hand & aces  # an ace that takes all always has a move (``ace_moves``)
    if forced == FORCED_NONE:
        trailing = hand & ~special
    elif forced == FORCED_CARD:
        trailing = hand & ~special & ~capturing
    else:  # forced=player: trails only when no card has a move
        trailing = hand if (capturing | special) == 0 else 0
    trail_play, trail_best = lightest_class_trail(ps, trailing)
    best_play, best_take, best = 0, 0, NO_SCORE
    rest = (capturing & ~aces) | special
    have_lanes = False
    ace_on_empty = rs.ace_on_empty
    while rest != 0:
        c = lowest(rest)
        rest &= rest - 1
        play = 1 << c
        wc = ps[WEIGHT + c]
        if (aces >> c) & 1:
            best_play, best_take, best = greedy_ace(
                ps, play, wc, table, forced, ace_on_empty, best_play, best_take, best
            )
            continue
        r = c >> 2
        cap = ((first if r < 8 else second) >> (8 * (r & 7))) & 255
        best_play, best_take, best, have_lanes = greedy_captures(
            ps, c, wc, cap, table, rs, have_lanes, best_play, best_take, best
        )
    if trail_best > best or (trail_best == best and trail_play <= best_play):
        return trail_play, 0
    return best_play, best_take


@inline_kernel
def hand_slots(hand):
    """The cards of a hand of at most ``EXCHANGE_HAND`` (three) cards as one-card masks, lowest first, 0 past its last
    card. Group ``j`` of the hand (``group_of``) holds slot ``k`` when bit ``k`` of ``j`` is set: as ``j`` counts up
    from 1, the groups are the hand's non-empty subsets in ascending order, as ``exchange_moves`` walks them."""
    b0 = hand & -hand
    rest = hand ^ b0
    b1 = rest & -rest
    return b0, b1, (rest ^ b1) & -(rest ^ b1)


@inline_kernel
def slot_card(b):
    """Id of the card of a hand slot (``hand_slots``). An empty slot gives card 51, a card of every table the caller
    reads (values, weights), and the caller zeroes what it read for it."""
    return lowest(b | LAST_CARD)


@inline_kernel
def group_of(j, a0, a1, a2):
    """What group ``j`` of the hand adds up from its slots' ``a0, a1, a2`` (masks, values or weights): three selects,
    where a walk over the group's cards waited for each card's step."""
    return (a0 if j & 1 else 0) + (a1 if j & 2 else 0) + (a2 if j & 4 else 0)


@inline_kernel
def exchange_groups(n_groups, v0, v1, v2, rs, lo, hi):
    """(counts, exchanges): byte ``j - 1`` of ``counts`` is the number of Kaszinó exchanges of hand group ``j``
    (``hand_slots``; ``v0, v1, v2``: its slots' values; ``n_groups``: its number of groups), counted in the table's
    lanes at the group's value total. A constant count of steps, which LLVM unrolls."""
    max_sum, max_hand_cards = rs.max_sum, rs.max_hand_cards
    counts, exchanges = 0, 0
    for j in range(1, 8):
        total = group_of(j, v0, v1, v2)
        allowed = (max_hand_cards == 0 or popcount(j) <= max_hand_cards) and (max_sum == 0 or total <= max_sum)
        count = lane(lo, hi, total) if allowed and j <= n_groups else 0
        counts |= count << (8 * (j - 1))
        exchanges += count
    return counts, exchanges


# a byte of 1 for each one-card group of a hand of 0..3 cards (groups 1, 2 and 4: bytes 0, 1 and 3): their trails
ONE_CARD_GROUPS = (0, 0x1, 0x101, 0x1000101)


@inline_kernel
def quick_exchange_choice(ps, seat, hand, table, rs, policy, epsilon, trail_only, lo, hi):
    """Kaszinó's ``quick_choice``: the (play, take) that ``choose`` picks for ``random``, ``greedy`` or the rollouts'
    epsilon-greedy among the moves ``exchange_moves`` lists, with the same draws, without listing them. The exchanges
    of each hand group are counted in the table's lanes (``subset_sum_lanes``: a group's value total is the sum its
    table cards must make), random decodes only the move drawn and greedy scores the exchanges group by group, in
    the listed order; a group's cards, total and weight come from the hand's slots (``hand_slots``). ``lo, hi``: the
    table's lanes, which the deal loop keeps up to date (``lanes_after``), as for ``quick_choice_lanes``. Returns
    (-1, 0), with no draw made, for what the lanes do not count: a table of more than ``QUICK_TABLE`` cards, a hand
    group's total above 15 (``max_sum`` above 15 or 0), a hand of more than three cards (``EXCHANGE_HAND``)."""
    forced, sum_mask, value_by_rank = rs.forced_capture, rs.sum_mask, rs.value_by_rank
    avail = table & sum_mask
    b0, b1, b2 = hand_slots(hand)
    v0 = card_value(slot_card(b0), value_by_rank) if b0 != 0 else 0
    v1 = card_value(slot_card(b1), value_by_rank) if b1 != 0 else 0
    v2 = card_value(slot_card(b2), value_by_rank) if b2 != 0 else 0
    bound = v0 + v1 + v2  # no hand group makes more (a hand of more than three cards is declined below)
    if rs.max_sum > 0:
        bound = min(bound, rs.max_sum)
    n_cards = popcount(hand)
    if not trail_only and (popcount(avail) > QUICK_TABLE or bound > LANES_TOP or n_cards > EXCHANGE_HAND):
        return -1, 0
    n_groups = (1 << n_cards) - 1
    counts, exchanges = 0, 0
    if not trail_only:
        counts, exchanges = exchange_groups(n_groups, v0, v1, v2, rs, lo, hi)
    trails_only = trail_only or (exchanges == 0 and forced != FORCED_NONE)  # the moves are the hand's trails
    singles = forced == FORCED_NONE and not trail_only  # each one-card group's trail comes before its exchanges
    greedy = policy == POLICY_GREEDY
    if policy == POLICY_ROLLOUT:  # the draws of ``choose``: the epsilon test, then a uniform or the greedy move
        greedy = not explores(ps, seat, epsilon)
    if not greedy:
        n = n_cards if trails_only else exchanges + (n_cards if singles else 0)
        idx = bounded(ps, RNG + 1 + seat, n)
        if trails_only:
            return nth_bit(hand, idx), 0
        j = 0
        if n < 128:  # the group of the drawn move from the groups' byte running sums (``drawn_byte_slot``)
            slot, before = drawn_byte_slot(counts + (ONE_CARD_GROUPS[n_cards] if singles else 0), 0, idx)
            j = slot + 1
            idx -= before
            if singles and (j & (j - 1)) == 0:  # a one-card group: its trail first
                if idx == 0:
                    return group_of(j, b0, b1, b2), 0
                idx -= 1
        else:
            while True:
                j += 1
                if singles and (j & (j - 1)) == 0:
                    if idx == 0:
                        return group_of(j, b0, b1, b2), 0
                    idx -= 1
                count = (counts >> (8 * (j - 1))) & 255
                if idx < count:
                    break
                idx -= count
        store_prefix_lanes(ps, avail, value_by_rank)
        take = nth_summing_subset(ps, avail, value_by_rank, group_of(j, v0, v1, v2), idx)[0]
        return group_of(j, b0, b1, b2), take
    if trails_only:
        return lightest_trail(ps, hand)[0], 0
    w0 = ps[WEIGHT + slot_card(b0)] if b0 != 0 else 0
    w1 = ps[WEIGHT + slot_card(b1)] if b1 != 0 else 0
    w2 = ps[WEIGHT + slot_card(b2)] if b2 != 0 else 0
    best_play, best_take, best = 0, 0, NO_SCORE
    have_lanes = False
    for j in range(1, n_groups + 1):  # the hand's groups in ascending order
        played = group_of(j, w0, w1, w2)
        if singles and (j & (j - 1)) == 0 and -played > best:
            best_play, best_take, best = group_of(j, b0, b1, b2), 0, -played
        count = (counts >> (8 * (j - 1))) & 255
        if count == 0:
            continue
        if not have_lanes:
            store_prefix_lanes(ps, avail, value_by_rank)
            have_lanes = True
        total = group_of(j, v0, v1, v2)
        for i in range(count):
            s, weight = nth_summing_subset(ps, avail, value_by_rank, total, i)
            score = GREEDY_CARD_SCORE * popcount(s) + weight + played
            if score > best:
                best_play, best_take, best = group_of(j, b0, b1, b2), s, score
    return best_play, best_take


@inline_kernel
def quick_policy(policy):
    """True for the policies ``quick_choice`` decides: random, greedy and the rollouts' epsilon-greedy."""
    return policy in (POLICY_RANDOM, POLICY_GREEDY, POLICY_ROLLOUT)


@inline_kernel
def quick_choice(ps, seat, hand, table, rs, policy, epsilon, hand_size, pack, full=True):
    """(play, take) of the seat's ``policy`` (``quick_policy``; ``epsilon``: the rollout's P_EPSILON), or (-1, 0)
    with no draw made when the table is too large (Foracio's aces, ``rs.ace_sweeps``, have moves of their own,
    which random and greedy count and score themselves)."""
    lo, hi = subset_sum_lanes(table & rs.sum_mask, rs.value_by_rank)
    return quick_choice_lanes(ps, seat, hand, table, rs, policy, epsilon, lo, hi, hand_size, pack, full)


@inline_kernel
def quick_choice_lanes(ps, seat, hand, table, rs, policy, epsilon, lo, hi, hand_size, pack, full):
    """``quick_choice`` with the table's lanes (``subset_sum_lanes``) given: the deal loop keeps them up to date
    (``lanes_after``), so a trail costs one multiplication instead of a rebuild. Here and in ``quick_random`` and
    ``quick_greedy``, ``ps`` is the decision space or a pointer to its data (``workspace.data_pointer``): the deal
    loop passes the pointer, since an array bound to an inlined helper's argument costs NRT calls on every play.

    ``hand_size``: the most cards the hand can hold (``Rules.hand_size`` in the deal loop, where the frozen rules
    make it a constant before Numba prunes its branches: a game compiles one of random's walks, ``quick_slots`` for
    hands of at most ``SLOTS`` cards, ``quick_rank_slots`` from ``BY_RANK_HAND`` cards, else ``quick_random``; the
    shared kernels compile all three; likewise greedy's ``quick_greedy_ranks`` from ``GREEDY_BY_RANK_HAND`` cards
    (down to ``SLOTS`` cards left below ``GREEDY_RANKS_ONLY_HAND``), else ``quick_greedy``). A hand larger than the
    slots' takes the listed path. ``pack``: ``Rules.pack``; ``full``: the deal loop's (``None``
    in a loop compiled without the listed policies, the only one that has rank slots for random: ``BY_RANK_HAND``)."""
    unmodelled = rs.ace_sweeps < 0 or rs.sum_fewest != 0 or rs.ace_on_ace != 0 or rs.multi_group != 0
    too_many = hand_size <= SLOTS and popcount(hand) > hand_size
    if popcount(table & rs.sum_mask) > QUICK_TABLE or unmodelled or too_many:
        # a large table, or Scopone's banned first ace, sum_choice="fewest", ace_on_ace, Skopa's multi_group_capture:
        # the listed path
        return -1, 0
    greedy = policy == POLICY_GREEDY
    if policy == POLICY_ROLLOUT:  # the draws of ``choose``: the epsilon test, then a uniform or the greedy move
        greedy = not explores(ps, seat, epsilon)
    if greedy:
        # nested ifs: Numba prunes a condition on ``hand_size`` alone (a constant under frozen rules)
        if hand_size >= GREEDY_BY_RANK_HAND:  # noqa: SIM102
            if hand_size >= GREEDY_RANKS_ONLY_HAND or popcount(hand) > SLOTS:  # a large hand's last cards: the walk
                return quick_greedy_ranks(ps, hand, table, rs, lo, hi)
        return quick_greedy(ps, hand, table, rs, lo, hi)
    if hand_size <= SLOTS:
        return quick_slots(ps, seat, hand, table, rs, lo, hi, hand_size)
    # nested ifs: Numba prunes a condition that is only ``full is None`` (``deal.play_on``)
    if hand_size >= BY_RANK_HAND:  # noqa: SIM102
        if full is None:
            if hand_size < RANDOM_RANKS_ONLY_HAND and popcount(hand) <= SLOTS:  # a large hand's last cards
                return quick_slots(ps, seat, hand, table, rs, lo, hi, SLOTS)
            return quick_rank_slots(ps, seat, hand, table, rs, lo, hi, pack)
    return quick_random(ps, seat, hand, table, rs, lo, hi)


@inline_kernel
def lanes_after(lo, hi, table, play, take, sum_mask, value_by_rank):
    """The lanes of the table after a play (``table``: the table after it): a trail of a sum card multiplies them
    by (1 + x**value), a capture rebuilds them from what is left. Exact while the table holds at most
    ``QUICK_TABLE`` sum cards; above, they are wrong until the next capture rebuilds them, and unused."""
    if take != 0:
        return subset_sum_lanes(table & sum_mask, value_by_rank)
    c = lowest(play)
    new_lo, new_hi = lanes_times(lo, hi, card_value(c, value_by_rank))
    summed = (sum_mask >> c) & 1 != 0
    return (new_lo if summed else lo), (new_hi if summed else hi)
