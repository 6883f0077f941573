"""Published Scopa heuristics as policies, re-implemented from their sources' descriptions (issue 14).

* ``furbo``: vlvovch/scopa-ai's greedy "Furbo" (``src/games/scopa/ai/heuristic.ts``, commit 845afa9). Each move
  gets a score and the best is played. A capture: 100, +1000 if it clears the table, +500 if it takes the
  settebello, +50 per coin taken, per card taken +30 (a seven), +20 (a six), +15 (an ace), else half its primiera
  value, and +5 per card won (the played card included). A trail: -10 if the card is a coin, -20 if a seven, +5 if
  a court card. "Taken" means the table cards only, as in the source (the played card counts only in the +5).
  The source scores a sweep with the deal's last card as a sweep too (its game loop undoes the point afterwards).
* ``tartaluca``: Tartaluca21/scopa-engine's one-ply ``HeuristicBot`` (``engine/heuristic.py``, commit 43d272d,
  uniform weights ``Weights()``): the weighted features of the table cards a move takes (their number, coins,
  the settebello, and the primiera sum of those cards alone: the best primiera value of each suit among them) plus
  the scopa weight if the table is left empty, minus 0.25 per non-empty subset of the table left behind whose
  values sum to at most 10. A trail scores only that penalty, on the table with the trailed card. The repository's
  later ``HeuristicBot`` (commit 614ca38: primiera / 21, 0.5 x the opponent's best capture, 0.9 x the scopa weight
  when the table left sums to 10 or less) is a different policy and is not implemented here.
* ``random_card``: vlvovch/scopa-ai's random "Scimmietta" (``src/games/scopa/ai/random.ts``, commit 845afa9): a
  card uniformly from the hand, then one of that card's moves uniformly. It is not scopasim's ``random`` (uniform
  over the moves, so a card with more captures is played more often); in games where a turn plays a set of hand
  cards (Kaszino) it draws a set among those that make a move, then one of its moves.

They read only the decision space ``ps``: the seat's table (``VIEW``), the listed legal moves and its random
stream. Ties go to the first best move in scopasim's canonical order; the sources keep the first best in their
own order (hand order, then table order), so a tie may be broken on another move of the same score.
``furbo`` and ``tartaluca`` value Scopa's cards (coins, the settebello, the primiera values), so the registry
refuses them in the other games; ``random_card`` plays every game.
"""

from __future__ import annotations

import numpy as np

from simcore._jit import kernel
from simcore.cards import CARD_RANK, DIAMONDS, N_CARDS
from simcore.kernels.bits import lowest, popcount, suit_mask
from simcore.kernels.captures import card_value
from simcore.kernels.workspace import MOVES, RI, RNG, VIEW
from simcore.rng import bounded
from simcore.variants.scopa import PRIMIERA_OF_RANK, SETTEBELLO, VALUE_OF_RANK

V_TABLE = 3  # simcore.kernels.game VIEW_TABLE

# Furbo (heuristic.ts): the points of a capture
FURBO_CAPTURE = 100.0
FURBO_SWEEP = 1000.0
FURBO_SETTEBELLO = 500.0
FURBO_COIN = 50.0
FURBO_RANK_TAKEN = {7: 30.0, 6: 20.0, 1: 15.0}  # other ranks: half their primiera value
FURBO_CARD_WON = 5.0
# Furbo: the points of a trail
FURBO_TRAIL_COIN = -10.0
FURBO_TRAIL_SEVEN = -20.0
FURBO_TRAIL_COURT = 5.0  # a court card: capture value 8 or more
COURT_VALUE = 8

# Tartaluca (engine/heuristic.py at 43d272d): Weights() and the exposure penalty
TARTALUCA_CAPTURES = 1.0
TARTALUCA_COINS = 1.0
TARTALUCA_SETTEBELLO = 1.0
TARTALUCA_PRIMIERA = 1.0
TARTALUCA_SCOPE = 1.0
TARTALUCA_RISK = 0.25  # per non-empty table subset summing to at most TARTALUCA_EXPOSED
TARTALUCA_EXPOSED = 10


def _per_card(value_of) -> np.ndarray:
    return np.array([value_of(int(CARD_RANK[c]), c) for c in range(N_CARDS)], dtype=np.float64)


def _primiera(rank: int, _card: int) -> float:
    return float(PRIMIERA_OF_RANK.get(rank, 0))


def _furbo_taken(rank: int, card: int) -> float:
    coin = FURBO_COIN if card % 4 == DIAMONDS else 0.0
    return coin + FURBO_RANK_TAKEN.get(rank, PRIMIERA_OF_RANK.get(rank, 0) / 2)


def _furbo_trail(rank: int, card: int) -> float:
    value = FURBO_TRAIL_COIN if card % 4 == DIAMONDS else 0.0
    value += FURBO_TRAIL_SEVEN if rank == 7 else 0.0
    return value + (FURBO_TRAIL_COURT if VALUE_OF_RANK.get(rank, 0) >= COURT_VALUE else 0.0)


PRIMIERA = _per_card(_primiera)  # Scopa's primiera value of each card id (0 outside the 40-card pack)
FURBO_TAKEN = _per_card(_furbo_taken)  # a table card's points to Furbo when taken (coin and rank terms)
FURBO_TRAIL = _per_card(_furbo_trail)  # a card's points to Furbo when trailed


@kernel
def furbo_score(play, take, table):
    """Furbo's score of one move (see the module docstring)."""
    if take == 0:
        return FURBO_TRAIL[lowest(play)]
    score = FURBO_CAPTURE + FURBO_CARD_WON * (1 + popcount(take))
    if table & ~take == 0:
        score += FURBO_SWEEP
    if (take >> SETTEBELLO) & 1:
        score += FURBO_SETTEBELLO
    rest = take
    while rest != 0:
        c = lowest(rest)
        rest &= rest - 1
        score += FURBO_TAKEN[c]
    return score


@kernel
def choose_furbo(ps, params, seat, n_moves):
    """The first move of the best Furbo score."""
    table = ps[VIEW + V_TABLE]
    best, best_score = 0, -1e300
    for i in range(n_moves):
        score = furbo_score(ps[MOVES + 2 * i], ps[MOVES + 2 * i + 1], table)
        if score > best_score:
            best, best_score = i, score
    return best


@kernel
def primiera_sum(cards):
    """Sum over the suits of the best primiera value among ``cards`` (0 for a suit they lack)."""
    total = 0.0
    for suit in range(4):
        best = 0.0
        rest = cards & suit_mask(suit)
        while rest != 0:
            c = lowest(rest)
            rest &= rest - 1
            best = max(best, PRIMIERA[c])
        total += best
    return total


@kernel
def exposed_subsets(table, value_by_rank, counts):
    """Non-empty subsets of ``table`` whose capture values sum to at most ``TARTALUCA_EXPOSED`` (a count over
    sums, so a large table costs cards x 11 steps, not 2**cards); ``counts`` is scratch of that many + 1 slots."""
    counts[:] = 0
    counts[0] = 1
    rest = table
    while rest != 0:
        c = lowest(rest)
        rest &= rest - 1
        v = card_value(c, value_by_rank)
        for s in range(TARTALUCA_EXPOSED, v - 1, -1):
            counts[s] += counts[s - v]
    return counts.sum() - 1


@kernel
def tartaluca_score(play, take, table, value_by_rank, counts):
    """Tartaluca's HeuristicBot score of one move (see the module docstring)."""
    if take == 0:
        return -TARTALUCA_RISK * exposed_subsets(table | play, value_by_rank, counts)
    rest = table & ~take
    value = TARTALUCA_CAPTURES * popcount(take)
    value += TARTALUCA_COINS * popcount(take & suit_mask(DIAMONDS))
    value += TARTALUCA_SETTEBELLO * ((take >> SETTEBELLO) & 1)
    value += TARTALUCA_PRIMIERA * primiera_sum(take)
    if rest == 0:
        value += TARTALUCA_SCOPE
    return value - TARTALUCA_RISK * exposed_subsets(rest, value_by_rank, counts)


@kernel
def choose_tartaluca(ps, params, seat, n_moves):
    """The first move of the best HeuristicBot score."""
    table, value_by_rank = ps[VIEW + V_TABLE], ps[RI.value_by_rank]
    counts = np.zeros(TARTALUCA_EXPOSED + 1, dtype=np.int64)
    best, best_score = 0, -1e300
    for i in range(n_moves):
        score = tartaluca_score(ps[MOVES + 2 * i], ps[MOVES + 2 * i + 1], table, value_by_rank, counts)
        if score > best_score:
            best, best_score = i, score
    return best


@kernel
def choose_random_card(ps, seat, n_moves):
    """A played card (or set of hand cards) uniformly among those with a move, then one of its moves uniformly."""
    plays = np.empty(n_moves, dtype=np.int64)
    n_plays = 0
    for i in range(n_moves):
        play = ps[MOVES + 2 * i]
        known = False
        for k in range(n_plays):
            if plays[k] == play:
                known = True
                break
        if not known:
            plays[n_plays] = play
            n_plays += 1
    chosen = plays[bounded(ps, RNG + 1 + seat, n_plays)]
    count = 0
    for i in range(n_moves):
        count += ps[MOVES + 2 * i] == chosen
    j = bounded(ps, RNG + 1 + seat, count)
    for i in range(n_moves):
        if ps[MOVES + 2 * i] == chosen:
            if j == 0:
                return i
            j -= 1
    return 0
