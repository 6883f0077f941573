"""Duplicate replays as a control variate: the deal luck of each game's own cards, with a mean of zero by symmetry.

Each game of a run is replayed with greedy self-play on its own shuffles ``P`` times (``P`` players): as dealt,
and with the hands moved on ``r`` seats for ``r = 1 .. P-1`` (``Rules.deal_rotation``: in every round of every
deal seat s gets the hand the shuffle put for seat s - r; the table and the stock keep their cards). The controls
are ``y(as dealt) - y(moved on r)`` for y = the first player's side won (0/1), its final margin, and the sum over
the deals the game played of the first player's side's deal margin when greedy plays that deal on its own from
totals of zero (``simcore.dealt.deal_points``).

Why their means are zero, whoever plays the run and however many deals its games last:

* Stream 0 of (seed, game) serves only the deal: the first dealer, then one shuffle after another (a void deal
  is redealt on the table's cards alone). So a game is a function of the shuffles pi_1, pi_2, ... (independent
  and uniform), the seats' own streams, and nothing else; deal d + 1 is the next shuffle whatever the play did.
* Moving the hands on r seats is playing rotation 0 on sigma(pi_1), sigma(pi_2), ..., where sigma moves the hand
  blocks of every round r places along the dealing order and leaves the table's and the stock's positions alone.
  Who draws first (Kaszinó's last capturer) is decided by the play, but sigma moves every block alike, so it
  does not matter. sigma is one fixed permutation of deck positions: sigma(pi) is uniform when pi is, and
  independent shuffles stay independent. So the moved game has the same law as the game as dealt:
  E[y(as dealt)] = E[y(moved on r)]. ``tests/test_mirror_control.py`` checks the identity against the reference
  engine dealing from shuffles the test moves itself, and that the control sums to exactly 0 over each orbit.
* The deal margins: deal d played on its own is a function of deal d's shuffles only, whose moved copy has the
  same law, so each deal's term has mean zero given everything before it; whether the game plays deal d is
  decided by the deals before it. Summed over the deals played, the mean stays zero (Wald's identity).

What it buys (``python -m benchmarks.variance_gain``, README): under greedy self-play the replay as dealt is the
run itself, and the control is in effect the mirrored game as a second sample (R² 0.5-0.7, 2-3.6x fewer games);
under lookahead greedy's outcome on the same cards follows the real one only loosely (Scopa R² 0.16, Kaszinó
0.04). The estimator is ``analysis.control.cv_estimate`` (the OLS intercept), with these controls and, in "both",
the dealt-material ones.

Cost: ``P`` greedy games and ``P`` greedy plays of each deal per game of the run (tens of CPU-s per 10^6 games,
README), computed part by part of the run's games table so that memory stays bounded.
"""

from __future__ import annotations

import numpy as np

#: Games replayed per kernel call: the output arrays of 50,000 games are some 45 MB at most.
BATCH = 50_000


def mirror_names(players: int) -> list[str]:
    """The names of the controls of a run of ``players`` players, in column order."""
    return [f"{y} moved {r}" for y in ("won", "margin", "deal margins") for r in range(1, players)]


def deal_margins(run, part: dict[str, np.ndarray], rotation: int) -> np.ndarray:
    """Per game of a games part: the sum over the deals it played of the first player's side's points minus the
    best other side's, each deal played on its own by greedy self-play from totals of zero with the hands moved
    on ``rotation`` seats (``simcore.dealt.deal_points``; int64[games])."""
    from simcore.config import RunConfig
    from simcore.dealt import deal_points
    from simcore.policies import policy_arrays

    config = RunConfig.create(run.variant, policies=["greedy"], rules=run.rules, games=1, seed=run.seed)
    ids, params = policy_arrays(config.policy_choices(), config.rules)
    rules = config.compiled_rules()._replace(deal_rotation=rotation)
    games = np.ascontiguousarray(part["game"], dtype=np.int64)
    deals = np.asarray(part["deals"], dtype=np.int64)
    side_of = np.asarray(rules.side_of, dtype=np.int64)
    first_side = side_of[(np.asarray(part["first_dealer"], dtype=np.int64) + 1) % rules.players]
    out = np.zeros(len(games), np.int64)
    for start in range(0, len(games), BATCH):
        block = slice(start, start + BATCH)
        points = deal_points(rules, config.seed, games[block], deals[block], ids, params)
        rows = np.repeat(first_side[block], deals[block])
        mine = points[np.arange(len(rows)), rows]
        others = points.copy()
        others[np.arange(len(rows)), rows] = np.iinfo(np.int64).min
        margin = mine - others.max(axis=1)
        played = deals[block] > 0
        sums = np.zeros(int(played.size), np.int64)
        if played.any():
            sums[played] = np.add.reduceat(margin, (np.cumsum(deals[block]) - deals[block])[played])
        out[block] = sums
    return out


def replay_outcomes(run, games: np.ndarray, rotation: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Greedy self-play of ``games`` of the run (its seed and rules) with the hands moved on ``rotation`` seats:
    per game, the first dealer, whether the first player's side won (0/1) and its final margin over the best
    other side (int64 arrays)."""
    from simcore import engine
    from simcore.config import RunConfig
    from simcore.policies import policy_arrays

    config = RunConfig.create(run.variant, policies=["greedy"], rules=run.rules, games=1, seed=run.seed)
    ids, params = policy_arrays(config.policy_choices(), config.rules)
    rules = config.compiled_rules()._replace(deal_rotation=rotation)
    side_of = np.asarray(rules.side_of, dtype=np.int64)
    first_dealer, won, margin = [], [], []
    for start in range(0, len(games), BATCH):
        out = engine.play(rules, config.seed, games[start : start + BATCH], ids, params)
        fd = out.first_dealer.astype(np.int64)
        side = side_of[(fd + 1) % rules.players]
        totals = out.totals.astype(np.int64)
        rows = np.arange(len(totals))
        others = totals.copy()
        others[rows, side] = np.iinfo(np.int64).min
        first_dealer.append(fd)
        won.append((out.winner.astype(np.int64) == side).astype(np.int64))
        margin.append(totals[rows, side] - others.max(axis=1))
    if not first_dealer:
        return (np.zeros(0, np.int64),) * 3
    return np.concatenate(first_dealer), np.concatenate(won), np.concatenate(margin)


def mirror_controls(run, part: dict[str, np.ndarray]) -> np.ndarray:
    """The controls of a games part (columns ``game``, ``first_dealer``, ``deals``): int64[games, 3 (P - 1)], in
    the order of :func:`mirror_names` (won moved 1 .. P-1, margin moved 1 .. P-1, deal margins moved 1 .. P-1)."""
    games = np.ascontiguousarray(part["game"], dtype=np.int64)
    players = run.players
    outcomes = [replay_outcomes(run, games, r) for r in range(players)]
    for first_dealer, _, _ in outcomes:
        if not np.array_equal(first_dealer, np.asarray(part["first_dealer"], dtype=np.int64)):
            raise ValueError("the greedy replays of the mirror control do not give the games' first dealers")
    won = [o[1] for o in outcomes]
    margin = [o[2] for o in outcomes]
    deal = [deal_margins(run, part, r) for r in range(players)]
    columns = [y[0] - y[r] for y in (won, margin, deal) for r in range(1, players)]
    return np.column_stack(columns)
