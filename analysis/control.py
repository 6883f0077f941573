"""The first player's advantage with less deal luck: a regression control variate whose mean is zero by symmetry.

Whether the first player's side wins depends far more on the cards than on the seat. Every shuffle is uniform
and independent of the play, and the hands of a deal are exchangeable between seats, so how much more scoring
material the first player's side was dealt than the other sides (per category: coins, the settebello, sevens...
of each game's scoring, declared in the game's module as ``VariantSpec.controls``) has mean exactly zero in every
deal, whoever plays. Summed over the deals a game played it still has mean zero (the number of deals depends on
the play, but deal d + 1's shuffle is independent of everything before it: Wald's identity). With sides ``S``
the control is ``(S - 1) * m(first player's side) - sum of m(other sides)`` per category, an integer.

The dealt cards are not in the results tables; ``simcore.dealt`` replays each game's deal stream for the deals
it played (imported here only when a control variate is computed: it loads Numba).

Estimator: regress the outcome y (the first player's side won, 0/1; or its final margin) on the controls X with
an intercept; since E[X] = 0 is known, the intercept is the adjusted estimate, ``mean(y) - b' mean(X)`` with b
the least-squares coefficients estimated on the same games. Its interval is the OLS one for the intercept
(Student t, n - k - 1 degrees of freedom: ``s^2 (1/n + mean(X)' Sxx^-1 mean(X) / (n - 1))``, which counts the
estimation of b; Nelson 1990, "Control variate remedies", Oper. Res. 38:974). Its variance is the residual
variance over n to first order, whatever the heteroskedasticity of a 0/1 outcome, because the controls' means
are known. ``gain`` is the plain variance over the adjusted one: how many times fewer games give the same
interval. Everything is counted part by part (sums of products of integers, exact), so any run size fits.

The dealt material is a weak control (R² 0.1 at best: who wins depends on the order the cards come in and on the
play more than on what each side holds). ``analysis.mirror`` adds a strong one, greedy replays of each game on
its own shuffles with the hands moved between the seats; :func:`control_table` shows each set and both together.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from analysis.load import Run
from analysis.paired import Moments
from simcore.cards import N_CARDS
from simcore.variants import get_variant

if TYPE_CHECKING:
    import pandas as pd


def control_weights(variant: str) -> dict[str, np.ndarray]:
    """The controls of a game, from its module (``VariantSpec.controls``: name -> card mask) as 0/1 card weights
    (int64[52] each); empty for a game that declares none."""
    return {name: (mask >> np.arange(N_CARDS)) & 1 for name, mask in get_variant(variant).controls}


OUTCOMES = ("first player's side wins", "final margin of the first player")


def material(masks: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``material[..., k]``: the sum of ``weights[k, c]`` over the cards c of each mask (int64 card masks).

    Counted as ``weight x popcount(mask & cards of that weight)`` per distinct weight: the controls weigh cards
    0 or 1, so this is one vectorised popcount per control."""
    masks = np.asarray(masks, dtype=np.int64)
    out = np.zeros((*masks.shape, len(weights)), np.int64)
    for k, w in enumerate(np.asarray(weights, dtype=np.int64)):
        for value in np.unique(w[w != 0]):
            cards = np.int64(sum(1 << int(c) for c in np.flatnonzero(w == value)))  # 52 cards: fits
            out[..., k] += int(value) * np.bitwise_count(masks & cards).astype(np.int64)
    return out


def controls_of_part(run: Run, part: dict[str, np.ndarray], weights: np.ndarray) -> np.ndarray:
    """Per game of a games part: each control summed over the deals it played (int64[games, K])."""
    from simcore.dealt import dealt_hands

    spec = get_variant(run.variant)
    rules = spec.compile(spec.resolve(run.rules))
    games = np.asarray(part["game"], dtype=np.int64)
    dealt = dealt_hands(rules, run.seed, games, np.asarray(part["deals"], dtype=np.int64))
    if not np.array_equal(dealt.first_dealer, np.asarray(part["first_dealer"], dtype=np.int64)):
        raise ValueError("the deal stream replayed for the control variate does not give the games' first dealers")
    side_of = run.seat_side
    n_sides = run.n_sides
    per_seat = material(dealt.hands, weights)  # [deals, seats, K]
    per_side = np.zeros((len(dealt.game), n_sides, len(weights)), np.int64)
    for seat, side in enumerate(side_of):
        per_side[:, side] += per_seat[:, seat]
    first_side = side_of[(dealt.first_dealer + 1) % run.players]
    rows = np.repeat(np.arange(len(games)), np.asarray(part["deals"], dtype=np.int64))
    mine = per_side[np.arange(len(rows)), first_side[rows]]
    per_deal = n_sides * mine - per_side.sum(axis=1)  # (S - 1) * mine - the others' sum
    out = np.zeros((len(games), len(weights)), np.int64)
    deals = np.asarray(part["deals"], dtype=np.int64)
    played = deals > 0  # a game's deals are consecutive rows: sum each game's block
    if played.any():
        out[played] = np.add.reduceat(per_deal, (np.cumsum(deals) - deals)[played], axis=0)
    return out


def control_moments(run: Run, mirror: bool = False) -> tuple[list[str], list[str], Moments]:
    """The names of the dealt-material controls and of the mirror controls (``analysis.mirror``; none unless
    ``mirror``), and the moments of (material..., mirror..., won, final margin) over the run's games."""
    from analysis.mirror import mirror_controls, mirror_names
    from analysis.paired import _victory

    controls = control_weights(run.variant)
    names = list(controls)
    weights = np.array([controls[n] for n in names])
    mirrors = mirror_names(run.players) if mirror else []

    def compute() -> Moments:
        m = Moments(len(names) + len(mirrors) + 2)
        totals = [f"total_{k}" for k in range(run.n_sides)]
        columns = ["game", "first_dealer", "first_player", "winner", "deals", *totals]
        for part in run.arrays("games", columns):
            x = controls_of_part(run, part, weights)
            z = mirror_controls(run, part) if mirror else np.zeros((len(x), 0), np.int64)
            side = run.seat_side[np.asarray(part["first_player"], dtype=np.int64)]
            won = (np.asarray(part["winner"]) == side).astype(np.int64)
            first = {**part, "winner": side}  # the first player's side's margin over the best other side
            m.add(np.column_stack([x, z, won, _victory(first, run.n_sides)]))
        return m

    return names, mirrors, run.cached(f"control_moments/{mirror}", compute)


def cv_estimate(m: Moments, y: int, xs: list[int], level: float = 0.95) -> dict[str, Any]:
    """The regression control-variate estimate of the mean of column ``y`` of ``m`` with zero-mean controls
    ``xs`` (columns of ``m``), next to the plain mean: see the module docstring."""
    from analysis.special import t_ppf

    n = m.n
    mean, cov = m.mean, m.cov
    plain_var = cov[y, y]
    out = {"plain": mean[y], "estimate": math.nan, "ci_low": math.nan, "ci_high": math.nan}
    out |= {"plain_half_width": math.nan, "r2": math.nan, "gain": math.nan, "controls": 0, "n": n}
    if n < 3:
        return out
    out["plain_half_width"] = t_ppf(0.5 + level / 2, n - 1) * math.sqrt(plain_var / n)
    keep = [x for x in xs if cov[x, x] > 0]  # a control that never varies (equal card counts) carries nothing
    k = len(keep)
    if n <= k + 2 or plain_var <= 0:
        return out
    sxx = cov[np.ix_(keep, keep)]
    sxy = cov[keep, y]
    beta = np.linalg.solve(sxx, sxy) if k else np.zeros(0)
    xbar = mean[keep]
    estimate = mean[y] - float(beta @ xbar)
    resid = max(plain_var - float(sxy @ beta), 0.0) * (n - 1) / (n - k - 1)
    var = resid * (1 / n + (float(xbar @ np.linalg.solve(sxx, xbar)) / (n - 1) if k else 0.0))
    half = t_ppf(0.5 + level / 2, n - k - 1) * math.sqrt(var)
    r2 = float(sxy @ beta) / plain_var
    gain = (plain_var / n) / var if var > 0 else math.inf
    return out | {
        "estimate": estimate,
        "ci_low": estimate - half,
        "ci_high": estimate + half,
        "r2": r2,
        "gain": gain,
        "controls": k,
    }


#: The control sets of :func:`control_table`: the cards dealt (this module), the mirrored greedy replays
#: (``analysis.mirror``), and both in one regression.
CONTROL_SETS = ("cards dealt", "mirrored replays", "both")


def control_rows(run: Run, level: float = 0.95, mirror: bool = False) -> list[dict[str, Any]]:
    """:func:`control_table` as rows."""
    if not get_variant(run.variant).controls or run.n_games < 3:
        return []
    names, mirrors, m = control_moments(run, mirror)
    material_xs = list(range(len(names)))
    mirror_xs = list(range(len(names), len(names) + len(mirrors)))
    sets = {"cards dealt": material_xs, "mirrored replays": mirror_xs, "both": material_xs + mirror_xs}
    rows = []
    for j, outcome in enumerate(OUTCOMES):
        for control in CONTROL_SETS if mirror else CONTROL_SETS[:1]:
            r = cv_estimate(m, len(names) + len(mirrors) + j, sets[control], level)
            expected = 1.0 / run.n_sides if j == 0 else 0.0
            rows.append({"measure": outcome, "control": control, "expected": expected, **r})
    return rows


def control_table(run: Run, level: float = 0.95, mirror: bool = False) -> pd.DataFrame:
    """The first player's win rate and final margin, plain and adjusted by each control set (:data:`CONTROL_SETS`;
    the dealt material only, without ``mirror``: the replays cost some 13 CPU-s per 10^6 two-player games).

    Columns ``measure``, ``control`` (the control set), ``expected`` (no advantage), ``plain`` (the plain mean)
    and ``plain_half_width`` (its t half-width at ``level``), ``estimate``, ``ci_low``, ``ci_high`` (the adjusted
    mean and its interval), ``r2`` (share of the outcome's variance the controls explain), ``gain`` (plain
    variance over adjusted: how many times fewer games for the same interval), ``controls`` (controls used),
    ``n`` (games).
    """
    import pandas as pd

    columns = ["measure", "control", "expected", "plain", "estimate", "ci_low", "ci_high", "plain_half_width"]
    columns += ["r2", "gain"]
    rows = control_rows(run, level, mirror)
    return pd.DataFrame(rows, columns=[*columns, "controls", "n"]) if rows else pd.DataFrame(columns=columns)
