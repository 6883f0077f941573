"""Built-in ``greedy`` re-written as a user policy: most cards taken, ties by the weight of the cards won.

Run it: ``scopasim simulate scopa --policy examples/policies/greedy.py:greedy --games 10000 --out runs/g``.
It picks exactly the built-in greedy's moves (``tests/test_user_policies.py`` compares the rows).
"""

from simcore.policies.api import popcount, weight_of

CARD_SCORE = 1000  # one more card taken outweighs any difference in card weights


def greedy(view, rules, moves, rng, params):
    """Most table cards taken; ties by the weight of the cards won (trailing: the least valuable card)."""
    best = 0
    best_score = -(1 << 62)
    for i in range(moves.shape[0]):
        play, take = moves[i, 0], moves[i, 1]
        if take != 0:
            score = CARD_SCORE * popcount(take) + weight_of(rules, take | play)
        else:
            score = -weight_of(rules, play)
        if score > best_score:
            best, best_score = i, score
    return best
