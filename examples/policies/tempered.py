"""A policy with parameters: greedy with a temperature-free random streak and a settable trail preference.

``PARAMETERS`` declares them with their defaults; set them on the command line, e.g.
``--policy examples/policies/tempered.py:tempered:explore=0.2,trail_low=0``. ``params[i]`` is the i-th key.

* ``explore``: chance of a uniformly random legal move (drawn from the seat's own stream).
* ``trail_low``: 1 to trail the lowest capture value (keep high cards), 0 to trail the least weighted card.
* ``sweep_bonus``: extra score per point a move secures at once (sweeps).
"""

from simcore.policies.api import card_value, draw, lowest, popcount, secured_points, weight_of

PARAMETERS = {"explore": 0.05, "trail_low": 1.0, "sweep_bonus": 500.0}


def tempered(view, rules, moves, rng, params):
    """Greedy; with chance ``explore`` a random move; trails by capture value (``trail_low``); prizes sweeps."""
    n = moves.shape[0]
    if params[0] > 0 and draw(rng, 1 << 30) < params[0] * (1 << 30):
        return draw(rng, n)
    best = 0
    best_score = -1e18
    for i in range(n):
        play, take = moves[i, 0], moves[i, 1]
        if take != 0:
            score = 1000.0 * popcount(take) + weight_of(rules, take | play)
            score += params[2] * secured_points(view, rules, play, take)
        elif params[1] != 0:
            score = -100.0 * card_value(rules, lowest(play)) - weight_of(rules, play)
        else:
            score = -1.0 * weight_of(rules, play)
        if score > best_score:
            best, best_score = i, score
    return best
