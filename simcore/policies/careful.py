"""``careful`` (built in): a sweep-averse greedy, that never leaves the next player a table one unseen card can
sweep, if it can help it.

Each move is scored as greedy scores it, minus ``SWEEP_PENALTY`` if the table it leaves could be swept by a
single card the seat has not seen (a card of equal rank to a lone table card, or one whose capture total equals
the table's total: its value, or in Escoba 15 minus it). It reads only the public view: the cards seen, the
table, the rules' capture values.

It is written against the public policy API (``simcore.policies.api``), exactly as a user's file is, and runs
through the same machinery (``simcore.userpolicy``): the proof that the API suffices for a built-in policy.
``examples/policies/sweep_averse.py`` is the same function as a user file (a test compares their games).
"""

from simcore.policies.api import (
    R_PACK,
    R_RANK_ONLY,
    R_SUM_MASK,
    R_SUM_TO,
    SEEN,
    TABLE,
    capture_total,
    card_value,
    lowest,
    popcount,
    secured_points,
    weight_of,
)

SWEEP_PENALTY = 1500  # more than one card taken: avoiding a sweep comes first


def sweepable(rules, table, unseen):
    """Whether one card of ``unseen`` played alone could take the whole ``table``."""
    if table == 0:
        return False
    total = 0
    only_sums = (table & ~rules[R_SUM_MASK]) == 0
    rest = table
    while rest != 0:
        c = lowest(rest)
        rest &= rest - 1
        total += card_value(rules, c)
    cards = unseen
    while cards != 0:
        u = lowest(cards)
        cards &= cards - 1
        if rules[R_SUM_TO] == 0 and popcount(table) == 1 and (table >> ((u >> 2) << 2)) & 15 != 0:
            return True  # a single card of the same rank
        if (rules[R_RANK_ONLY] >> u) & 1:
            continue
        if only_sums and (rules[R_SUM_MASK] >> u) & 1 and capture_total(rules, u) == total:
            return True
    return False


def careful(view, rules, moves, rng, params):
    """Greedy, but a move that leaves a table one unseen card can sweep is worth SWEEP_PENALTY less."""
    unseen = rules[R_PACK] & ~view[SEEN]
    best = 0
    best_score = -(1 << 62)
    for i in range(moves.shape[0]):
        play, take = moves[i, 0], moves[i, 1]
        if take != 0:
            score = 1000 * popcount(take) + weight_of(rules, take | play)
            score += 100 * secured_points(view, rules, play, take)
            left = view[TABLE] & ~take
        else:
            score = -weight_of(rules, play)
            left = view[TABLE] | play
        if sweepable(rules, left, unseen):
            score -= SWEEP_PENALTY
        if score > best_score:
            best, best_score = i, score
    return best
