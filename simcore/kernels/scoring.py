"""End-of-deal scoring and the end-of-game decision.

``points[side, category]`` is filled in the category order of the variant (``VariantSpec.categories``).
The helpers of ``score_deal`` are inlined into it (one call a deal instead of one per helper, each passing the
rules' arrays and two NRT calls per array).
"""

from __future__ import annotations

from simcore._jit import inline_kernel, kernel, llvm_inline_kernel
from simcore.kernels.bits import DIAMONDS_MASK, SPADES_MASK, popcount, suit_mask
from simcore.variants.base import ESCOBA, FORACIO, KASZINO, OUT_CALL, OUT_CLAIM, OUT_SECURED, SCOPA, SCOPONE, SKOPA

# Scopa and Scopone category columns (``re_bello`` only where the rules have it: Scopone always, Scopa when on)
CARDS, COINS, SETTEBELLO, PRIMIERA, SCOPA_SWEEPS, NAPOLA, RE_BELLO = 0, 1, 2, 3, 4, 5, 6
# Foracio category columns
F_CARDS, F_SPADE, F_TWO_SPADES, F_JACK_SPADES, F_TEN_DIAMONDS, F_ALL_FIVE, F_NAPOLETANA, F_SCOPA, F_SAME_SUIT = range(9)

SETTEBELLO_BIT = 25  # 7d = (7 - 1) * 4 + 1 (Escoba's velo)
KING_DIAMONDS_BIT = 49  # Kd, the re bello
TEN_DIAMONDS_BIT = 37
TWO_SPADES_BIT = 7
SEVEN_SPADES_BIT = 27
JACK_SPADES_BIT = 43
ACES_MASK = 0xF
NAPOLA_ORDER = (1, 5, 9, 13, 17, 21, 25, 41, 45, 49)  # A..7, J, Q, K of diamonds
# Escoba category columns, and the ranks its sevens point counts
E_CARDS, E_COINS, E_VELO, E_SEVENS, E_ESCOBA = range(5)
RANK_1, RANK_5, RANK_6, RANK_7 = 0xF, 0xF << 16, 0xF << 20, 0xF << 24


@inline_kernel
def unique_max(counts, n):
    """Index of the unique largest of ``counts[:n]`` when it is positive, else -1."""
    best = -1
    best_value = 0
    tied = False
    for i in range(n):
        if counts[i] > best_value:
            best, best_value, tied = i, counts[i], False
        elif counts[i] == best_value and best_value > 0:
            tied = True
    return -1 if tied else best


BYTE_ONES = 0x01010101  # a 1 in each of the four suit bytes of ``suit_bests``
BYTE_HIGHS = 0x80808080


@inline_kernel
def suit_bests(pile, primiera_value):
    """Byte s = the highest primiera value among the pile's cards of suit s (0 when it has none; values below 128).

    Rank by rank, without a branch: the rank's four cards become four bytes (``present``), and a byte-wise max
    keeps the larger of each suit's best so far and the rank's value. The loop over the pile's cards that this
    replaces branched on every card, and the primiera was most of ``score_deal``, which every deal and every Monte
    Carlo rollout ends with."""
    best = 0
    for rank in range(13):
        present = (((pile >> (4 * rank)) & 15) * 0x204081) & BYTE_ONES  # bit s of the nibble -> byte s
        c = 4 * rank
        values = primiera_value[c] | (primiera_value[c + 1] << 8)
        values |= (primiera_value[c + 2] << 16) | (primiera_value[c + 3] << 24)
        candidate = values & (present * 255)
        keep = ((((best | BYTE_HIGHS) - candidate) & BYTE_HIGHS) >> 7) * 255  # 255 where best >= candidate
        best = (best & keep) | (candidate & ~keep & 0xFFFFFFFF)
    return best


@inline_kernel
def primiera_total(pile, rules):
    """The pile's primiera: the sum of its best card of each suit, or -1 when it lacks a suit.

    The ranks come most points first (``Rules.primiera_order``), so a suit's best card is its card of the first
    rank that holds the suit: a rank adds its points once for each suit not found before it. From one rank to the
    next only ``found |= present`` waits on the last; a byte-wise maximum over the ranks (``suit_bests``) waited
    on seven operations a rank, and this ends every Scopa deal and every Monte Carlo rollout."""
    found = 0
    total = 0
    for k in range(13):
        rank = ((rules.primiera_order >> (4 * k)) & 15) - 1
        if rank < 0:
            break
        present = (pile >> (4 * rank)) & 15
        total += rules.primiera_value[4 * rank] * popcount(present & ~found)
        found |= present
    return total if found == 15 else -1


@inline_kernel
def primiera_winner(rules, piles, work):
    """Side winning the primiera, or -1. ``work`` is an int64 scratch of at least ``n_sides`` entries."""
    n = rules.n_sides
    if rules.primiera == 0:  # points table: sides lacking a suit cannot win
        for side in range(n):
            work[side] = primiera_total(piles[side], rules)
        return unique_max(work, n)
    for side in range(n):  # suits: the side's best card outranks every other side's in all four suits
        work[side] = suit_bests(piles[side], rules.primiera_value)
    for side in range(n):
        wins_all = True
        for suit in range(4):
            mine = (work[side] >> (8 * suit)) & 255
            for other in range(n):
                if other != side and (work[other] >> (8 * suit)) & 255 >= mine:
                    wins_all = False
        if wins_all:
            return side
    return -1


@inline_kernel
def napola_points(pile):
    """A-2-3 of coins scores 3, plus 1 per further consecutive coin."""
    run = 0
    for bit in NAPOLA_ORDER:
        if (pile >> bit) & 1 == 0:
            break
        run += 1
    return run if run >= 3 else 0


@llvm_inline_kernel
def score_scopa(rules, piles, sweep_pts, points, work):
    """Scopa and Scopone deal points (S10, S11, SC7, SC8): cards, coins, settebello, primiera, scope, napola, and
    the re bello when the rules have it."""
    n = rules.n_sides
    for side in range(n):
        work[side] = popcount(piles[side])
    w = unique_max(work, n)
    if w >= 0:
        points[w, CARDS] = 1
    for side in range(n):
        work[side] = popcount(piles[side] & DIAMONDS_MASK)
    w = unique_max(work, n)
    if w >= 0:
        points[w, COINS] = 1
    for side in range(n):
        points[side, SETTEBELLO] = (piles[side] >> SETTEBELLO_BIT) & 1
        points[side, SCOPA_SWEEPS] = sweep_pts[side]
        if rules.napola:
            points[side, NAPOLA] = napola_points(piles[side])
        if rules.re_bello:
            points[side, RE_BELLO] = (piles[side] >> KING_DIAMONDS_BIT) & 1
    w = primiera_winner(rules, piles, work)
    if w >= 0:
        points[w, PRIMIERA] = 1


@kernel(nrt=False)
def scopa_secured(rules, piles, side, category):
    """The points of a Scopa ``category`` (not the scope) that ``side`` holds for sure in the middle of a deal,
    however the cards nobody has captured yet end up (``claim_out``, S12): a majority once no other side could
    reach its count even with every uncaptured card, the primiera once its sum (or, under "suits", each suit's
    best card) beats the best any other side could still make, the settebello and the re bello once captured,
    the napola run made so far (a run only grows)."""
    n = rules.n_sides
    free = rules.pack
    for other in range(n):
        free &= ~piles[other]
    mine = piles[side]
    if category in (CARDS, COINS):
        within = -1 if category == CARDS else DIAMONDS_MASK
        count = popcount(mine & within)
        for other in range(n):
            if other != side and popcount(piles[other] & within) + popcount(free & within) >= count:
                return 0
        return 1 if count > 0 else 0
    if category == SETTEBELLO:
        return (mine >> SETTEBELLO_BIT) & 1
    if category == RE_BELLO:
        return (mine >> KING_DIAMONDS_BIT) & 1 if rules.re_bello else 0
    if category == NAPOLA:
        return napola_points(mine) if rules.napola else 0
    if category != PRIMIERA:
        return 0
    if rules.primiera == 0:  # points table: a sure sum beats the largest sum any other side could still make
        total = primiera_total(mine, rules)
        if total < 0:
            return 0
        for other in range(n):  # -1: that side can never hold a suit, so it cannot take the primiera
            if other != side and primiera_total(piles[other] | free, rules) >= total:
                return 0
        return 1
    bests = suit_bests(mine, rules.primiera_value)  # suits: in every suit a best card no other side could match
    for other in range(n):
        if other == side:
            continue
        theirs = suit_bests(piles[other] | free, rules.primiera_value)
        for suit in range(4):
            if (theirs >> (8 * suit)) & 255 >= (bests >> (8 * suit)) & 255:
                return 0
    return 1


@kernel(nrt=False)
def scopa_secured_total(rules, piles, side):
    """Every point ``side`` is sure of in the deal so far except its scope (``scopa_secured``, all categories)."""
    total = 0
    for category in range(rules.n_categories):
        total += scopa_secured(rules, piles, side, category)
    return total


@llvm_inline_kernel
def score_skopa(rules, piles, sweep_pts, points, work):
    """Skopa deal points (R11): most cards 2 (two sides tied for most: 1 each), most clubs 1 (3 players, a tie:
    nothing, or 1 each with ``clubs_tie="each"``), the 2 of clubs 1, the 10 of diamonds 1, sweeps. The clubs
    are ``Rules.count_suit`` (``bonus_suit``) and the 2 of clubs ``Rules.small_card`` (``small_card``)."""
    n = rules.n_sides
    for side in range(n):
        work[side] = popcount(piles[side])
    top, count = max_and_count(work, n)
    for side in range(n):
        if work[side] == top and top > 0:
            points[side, 0] = 2 if count == 1 else (1 if count == 2 else 0)
    for side in range(n):
        work[side] = popcount(piles[side] & suit_mask(rules.count_suit))  # the bonus suit: clubs, or hearts
    top, count = max_and_count(work, n)
    for side in range(n):
        if work[side] == top and top > 0 and (count == 1 or rules.clubs_tie_each):
            points[side, 1] = 1
        points[side, 2] = (piles[side] >> rules.small_card) & 1  # the 2 of clubs, or the ace of spades
        points[side, 3] = (piles[side] >> TEN_DIAMONDS_BIT) & 1
        points[side, 4] = sweep_pts[side]


@inline_kernel
def majority_points(points, work, n, category, each, bonus):
    """Escoba majorities (E7): the unique top of ``work[:n]`` scores 1 in ``category``; tied tops score nothing, or
    1 each with ``each``; a top of 0 nothing; ``bonus`` (all_bonus's 2 for all of a kind) replaces the winner's 1."""
    top, count = max_and_count(work, n)
    if top <= 0 or (count > 1 and not each):
        return
    for side in range(n):
        if work[side] == top:
            points[side, category] = bonus if bonus > 0 and count == 1 else 1


@inline_kernel
def sevens_key(pile, rule):
    """The number a side's sevens point compares (E7): its sevens (``rule`` 0); its sevens, sixes, aces and fives
    as digits in that order (1: counts are 0..4, so base 8 keeps the order of the tuples)."""
    sevens = popcount(pile & RANK_7)
    if rule == 0:
        return sevens
    return ((sevens * 8 + popcount(pile & RANK_6)) * 8 + popcount(pile & RANK_1)) * 8 + popcount(pile & RANK_5)


@llvm_inline_kernel
def score_escoba(rules, piles, sweep_pts, points, work):
    """Escoba deal points (E7): most cards, most coins (2 for all ten with ``all_bonus``), the velo, the sevens
    point under ``sevens_rule`` (2 for all four sevens with ``all_bonus``), and the escobas (openings included)."""
    n, each = rules.n_sides, rules.majority_tie_each != 0
    for side in range(n):
        work[side] = popcount(piles[side])
    majority_points(points, work, n, E_CARDS, each, 0)
    all_coins = 0
    for side in range(n):
        work[side] = popcount(piles[side] & DIAMONDS_MASK)
        if work[side] == 10 and rules.all_bonus:
            all_coins = 2
    majority_points(points, work, n, E_COINS, each, all_coins)
    all_sevens = 0
    for side in range(n):
        points[side, E_VELO] = (piles[side] >> SETTEBELLO_BIT) & 1
        points[side, E_ESCOBA] = sweep_pts[side]
        if popcount(piles[side] & RANK_7) == 4 and rules.all_bonus:
            all_sevens = 2
    if rules.sevens_rule == 2:  # the setenta: Scopa's primiera table, a side lacking a suit cannot win
        for side in range(n):
            work[side] = primiera_total(piles[side], rules)
    else:
        for side in range(n):
            work[side] = sevens_key(piles[side], rules.sevens_rule)
    majority_points(points, work, n, E_SEVENS, each, all_sevens)


@inline_kernel
def max_and_count(values, n):
    """Largest of ``values[:n]`` and how many sides have it."""
    top = values[0]
    for i in range(1, n):
        top = max(top, values[i])
    count = 0
    for i in range(n):
        if values[i] == top:
            count += 1
    return top, count


@inline_kernel
def napoletane(pile):
    """Foracio napoletane (F12): in each suit holding A-2-3, the length of the unbroken run from the ace."""
    total = 0
    for suit in range(4):
        run = 0
        while run < 13 and (pile >> (4 * run + suit)) & 1:
            run += 1
        if run >= 3:
            total += run
    return total


@kernel
def foracio_pile_points(rules, pile):
    """Foracio's deal points (F11, F12) that a pile holds: every one is secured once captured, since a pile only
    grows and each category only grows with it (27+ cards, the elements, all five, the napoletane so far)."""
    cards = 2 if popcount(pile) >= 27 else 0
    if rules.spade_majority:
        spade = 1 if popcount(pile & SPADES_MASK) >= 7 else 0
    else:
        spade = (pile >> SEVEN_SPADES_BIT) & 1
    elements = cards + spade + ((pile >> TWO_SPADES_BIT) & 1) + ((pile >> JACK_SPADES_BIT) & 1)
    elements += (pile >> TEN_DIAMONDS_BIT) & 1
    return elements + (rules.all_five_bonus - 6 if elements == 6 else 0) + napoletane(pile)


@llvm_inline_kernel
def score_foracio(rules, piles, sweep_pts, same_suit, points, partial):
    """Foracio deal points (F11, F12) per side; ``partial`` (a mid-deal win): only scope and same-suit points,
    unless the win counted the secured points (``declare="auto_on_secured_points"``): then all of them."""
    for side in range(2):
        pile = piles[side]
        points[side, F_SCOPA] = sweep_pts[side]
        points[side, F_SAME_SUIT] = same_suit[side]
        if partial and rules.mid_deal_out != OUT_SECURED:
            continue
        points[side, F_CARDS] = 2 if popcount(pile) >= 27 else 0
        if rules.spade_majority:
            points[side, F_SPADE] = 1 if popcount(pile & SPADES_MASK) >= 7 else 0
        else:
            points[side, F_SPADE] = (pile >> SEVEN_SPADES_BIT) & 1
        points[side, F_TWO_SPADES] = (pile >> TWO_SPADES_BIT) & 1
        points[side, F_JACK_SPADES] = (pile >> JACK_SPADES_BIT) & 1
        points[side, F_TEN_DIAMONDS] = (pile >> TEN_DIAMONDS_BIT) & 1
        elements = (
            points[side, F_CARDS] + points[side, F_SPADE] + points[side, F_TWO_SPADES] + points[side, F_JACK_SPADES]
        ) + points[side, F_TEN_DIAMONDS]
        points[side, F_ALL_FIVE] = rules.all_five_bonus - 6 if elements == 6 else 0
        points[side, F_NAPOLETANA] = napoletane(pile)


@kernel
def kaszino_scoring(rules):
    """Kaszinó's scoring scalars (K12), as ``sc`` of :func:`kaszino_category`: points for cards and their
    threshold, points for spades and their threshold, points per ace, for the 2 of spades, for the 10 of diamonds
    (a tuple of ints is passed by value, with no reference counting)."""
    return (
        rules.points_cards,
        rules.cards_target,
        rules.points_spades,
        rules.count_suit_target,
        rules.points_ace,
        rules.points_2s,
        rules.points_10d,
    )


@kernel
def kaszino_category(pile, tabla_pts, k, sc):
    """Kaszinó points of category ``k`` for one pile (K12): cards, spades, aces, little casino, big casino, tábla.

    ``sc``: :func:`kaszino_scoring`. The thresholds are absolute and every item is certain once captured, so the
    same numbers are a player's sure points mid-deal (K13)."""
    if k == 0:
        return sc[0] if popcount(pile) >= sc[1] else 0
    if k == 1:
        return sc[2] if popcount(pile & SPADES_MASK) >= sc[3] else 0
    if k == 2:
        return sc[4] * popcount(pile & ACES_MASK)
    if k == 3:
        return sc[5] * ((pile >> TWO_SPADES_BIT) & 1)
    if k == 4:
        return sc[6] * ((pile >> TEN_DIAMONDS_BIT) & 1)
    return tabla_pts


@kernel
def kaszino_sure_points(pile, tabla_pts, sc):
    """All of a player's Kaszinó points so far (``sc``: :func:`kaszino_scoring`)."""
    total = 0
    for k in range(6):
        total += kaszino_category(pile, tabla_pts, k, sc)
    return total


@llvm_inline_kernel
def score_deal(rules, piles, sweep_pts, same_suit, points, work, partial):
    """Deal points ``points[side, category]`` of the variant (categories in ``VariantSpec.categories`` order).

    ``sweep_pts``: each side's sweep points of the deal (scope, táblas); ``same_suit``: Foracio's same-suit
    capture points; ``partial``: the deal was cut short by a mid-deal win. Returns False, leaving the points at
    zero, for a variant id that no branch scores (the caller turns it into an error).

    LLVM-inlined into its callers: every Monte Carlo rollout ends with it, and a call passed the whole rule tuple
    (69 fields) on the stack (with ``montecarlo.deal_margin`` inlined too, mc's decisions/s +10%).
    """
    for side in range(rules.n_sides):
        for k in range(rules.n_categories):
            points[side, k] = 0
    if partial and rules.mid_deal_out == OUT_CLAIM:  # a claim: the points each side is sure of, and its scope
        for side in range(rules.n_sides):
            for k in range(rules.n_categories):
                points[side, k] = sweep_pts[side] if k == SCOPA_SWEEPS else scopa_secured(rules, piles, side, k)
    elif rules.variant == SCOPA or rules.variant == SCOPONE:  # Scopone scores as Scopa (SC7, SC8)
        score_scopa(rules, piles, sweep_pts, points, work)
    elif rules.variant == SKOPA:
        score_skopa(rules, piles, sweep_pts, points, work)
    elif rules.variant == FORACIO:
        score_foracio(rules, piles, sweep_pts, same_suit, points, partial)
    elif rules.variant == ESCOBA:
        score_escoba(rules, piles, sweep_pts, points, work)
    elif rules.variant == KASZINO:
        sc = kaszino_scoring(rules)
        for side in range(rules.n_sides):
            for k in range(6):
                points[side, k] = kaszino_category(piles[side], sweep_pts[side], k, sc)
    else:
        return False
    return True


@kernel(nrt=False)
def game_winner(totals, n_sides, target, last_capture_breaks_tie, last_capture_side):
    """Side that has won after a deal, or -1 (RULES.md A.5).

    The top total must be at or above the target and unique. Foracio (F13): when both sides are at or above
    the target, the side that made the deal's last capture wins whatever the totals.
    """
    if last_capture_breaks_tie and last_capture_side >= 0:
        above = 0
        for side in range(n_sides):
            if totals[side] >= target:
                above += 1
        if above == n_sides:
            return last_capture_side
    best = unique_max(totals, n_sides)
    if best >= 0 and totals[best] >= target:
        return best
    return -1


@kernel
def countout_winner(rules, totals, points, order, count):
    """S12 ``tie_break="parlett_countout"``: of the sides tied at the top, the first to reach the target when the
    last deal's points are counted from the totals before it in the order cards, coins, settebello, primiera,
    napola, then the scope one by one in the order they were made (``order``: the side of sweep k in bits 2k,
    2k+1; ``count`` sweeps). A side already at the target before the deal reached it first; two such sides (a
    tie carried over) are not told apart: -1, another deal."""
    n, target = rules.n_sides, rules.target
    top = totals[0]
    for side in range(1, n):
        top = max(top, totals[side])
    best_side, best_step, tied = -1, 1 << 30, False
    for side in range(n):
        if totals[side] != top:
            continue
        running = totals[side]
        for k in range(rules.n_categories):
            running -= points[side, k]
        step = -1 if running >= target else 1 << 20
        j = 0
        while step == 1 << 20 and j < 5:
            running += points[side, j if j < 4 else NAPOLA]
            if running >= target:
                step = j
            j += 1
        k = 0
        while step == 1 << 20 and k < count:
            if (order >> (2 * k)) & 3 == side:
                running += rules.sweep_points
                if running >= target:
                    step = 5 + k
            k += 1
        if step < best_step:
            best_side, best_step, tied = side, step, False
        elif step == best_step:
            tied = True
    return -1 if tied else best_side


@kernel(nrt=False)
def deal_winner(rules, totals, points, last_capture_side, order, count):
    """The side that has won after a completed deal, or -1: ``game_winner``, and when the top is tied at or above
    the target, Scopa's count-out if the rules ask for it (``countout_winner``; ``points``: the deal's points).
    Kaszino's ``out_call="manual"``: never (only a call ends the game; scores carry over)."""
    if rules.mid_deal_out == OUT_CALL:
        return -1
    n = rules.n_sides
    w = game_winner(totals, n, rules.target, rules.last_capture_breaks_tie, last_capture_side)
    if w < 0 and rules.countout != 0:
        top = totals[0]
        for side in range(1, n):
            top = max(top, totals[side])
        if top >= rules.target:
            w = countout_winner(rules, totals, points, order, count)
    return w
