"""End-of-deal scoring and the end-of-game decision.

``points[side, category]`` is filled in the category order of the variant (``VariantSpec.categories``).
"""

from __future__ import annotations

from simcore._jit import kernel
from simcore.kernels.bits import DIAMONDS_MASK, popcount, suit_mask
from simcore.variants.base import SCOPA

# Scopa category columns
CARDS, COINS, SETTEBELLO, PRIMIERA, SCOPA_SWEEPS, NAPOLA = 0, 1, 2, 3, 4, 5
SETTEBELLO_BIT = 1 << 25  # 7d = (7 - 1) * 4 + 1
NAPOLA_ORDER = (1, 5, 9, 13, 17, 21, 25, 41, 45, 49)  # A..7, J, Q, K of diamonds


@kernel
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


@kernel
def best_in_suit(pile, suit, primiera_value):
    """Highest primiera value among the cards of one suit in a pile (0 when the suit is missing)."""
    best = 0
    rest = pile & suit_mask(suit)
    while rest != 0:
        t = rest & -rest
        rest ^= t
        v = primiera_value[popcount(t - 1)]
        if v > best:
            best = v
    return best


@kernel
def primiera_winner(rules, piles, work):
    """Side winning the primiera, or -1. ``work`` is an int64 scratch of at least ``n_sides`` entries."""
    n = rules.n_sides
    if rules.primiera == 0:  # points table: sides lacking a suit cannot win
        for side in range(n):
            total = 0
            for suit in range(4):
                b = best_in_suit(piles[side], suit, rules.primiera_value)
                if b == 0:
                    total = -1
                    break
                total += b
            work[side] = total
        return unique_max(work, n)
    for side in range(n):  # suits: the side's best card outranks every other side's in all four suits
        wins_all = True
        for suit in range(4):
            mine = best_in_suit(piles[side], suit, rules.primiera_value)
            for other in range(n):
                if other != side and best_in_suit(piles[other], suit, rules.primiera_value) >= mine:
                    wins_all = False
        if wins_all:
            return side
    return -1


@kernel
def napola_points(pile):
    """A-2-3 of coins scores 3, plus 1 per further consecutive coin."""
    run = 0
    for bit in NAPOLA_ORDER:
        if (pile >> bit) & 1 == 0:
            break
        run += 1
    return run if run >= 3 else 0


@kernel
def score_scopa(rules, piles, sweeps, points, work):
    """Scopa deal points (S10, S11): cards, coins, settebello, primiera, scope, napola."""
    n = rules.n_sides
    for side in range(n):
        for k in range(rules.n_categories):
            points[side, k] = 0
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
        if piles[side] & SETTEBELLO_BIT:
            points[side, SETTEBELLO] = 1
        points[side, SCOPA_SWEEPS] = sweeps[side] * rules.sweep_points
        if rules.napola:
            points[side, NAPOLA] = napola_points(piles[side])
    w = primiera_winner(rules, piles, work)
    if w >= 0:
        points[w, PRIMIERA] = 1


@kernel
def score_deal(rules, piles, sweeps, points, work):
    """Dispatch to the variant's deal scoring."""
    if rules.variant == SCOPA:
        score_scopa(rules, piles, sweeps, points, work)


@kernel
def game_winner(totals, n_sides, target):
    """Side that has won after a deal: at or above the target with a unique top total; else -1."""
    best = unique_max(totals, n_sides)
    if best >= 0 and totals[best] >= target:
        return best
    return -1
