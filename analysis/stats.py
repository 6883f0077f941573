"""The questions asked of every run, each answered with its uncertainty: who wins, whether leading or dealing first
helps, and where a deal's points come from.

Intervals and tests are scipy's: Wilson score intervals for win rates (good coverage near 0 and 1 and for small
counts, where the normal approximation is poor), exact two-sided binomial tests for an opening advantage, and
Student t intervals for mean per-deal differences (scipy's t distribution on the exact moments of the counted
sample, ``analysis.hist``: the numbers of ``ttest_1samp`` without holding the sample). Win rates come from the
counts of games by opening seats and winner (``analysis.games``). The Wilson intervals and binomial tests are
computed by ``analysis.special`` (scipy.stats' numbers to the last bit, from the scipy.special functions it calls),
because ``scipy.stats`` takes longer to import than everything else in this package together; it is imported
only by :func:`mean_interval`. pandas is imported where a DataFrame is made: the ``*_rows`` functions give the
same numbers as plain rows (what the summary of ``scopasim simulate`` prints).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from analysis import special
from analysis.deals import deal_stats
from analysis.games import game_stats, outcome_stats
from analysis.hist import hist_interval
from analysis.load import Run

if TYPE_CHECKING:
    import pandas as pd


def level_text(level: float) -> str:
    """How labels name a confidence level: ``0.9`` -> ``90%``, ``0.995`` -> ``99.5%`` (``analysis.tables`` and
    the summary of ``scopasim simulate`` use it)."""
    return f"{round(level * 100, 6):g}%"


def win_rate(wins: int, n: int, level: float = 0.95) -> dict[str, Any]:
    """Win rate ``wins / n`` with its Wilson score interval at confidence ``level``.

    With ``n == 0`` the rate and interval are NaN.
    """
    wins, n = int(wins), int(n)
    if n < 0 or not 0 <= wins <= n:
        raise ValueError(f"need 0 <= wins <= n, got wins={wins}, n={n}")
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level!r}")
    if n == 0:
        return {"wins": 0, "games": 0, "rate": math.nan, "ci_low": math.nan, "ci_high": math.nan}
    low, high = special.wilson_interval(wins, n, level)  # scipy's binomtest(...).proportion_ci(method="wilson")
    return {"wins": wins, "games": n, "rate": wins / n, "ci_low": low, "ci_high": high}


def seat_win_rates(run: Run, level: float = 0.95) -> pd.DataFrame:
    """One row per seat: its policy, its side, and how often that side won.

    Partners share a side, so with 4 players seats 0 and 2 (and 1 and 3) show the same wins. A game without a
    winner (``winner == -1``, which a finished run should not hold) counts as a loss for every seat.
    """
    import pandas as pd

    return pd.DataFrame(seat_win_rows(run, level))


def seat_win_rows(run: Run, level: float = 0.95) -> list[dict[str, Any]]:
    """:func:`seat_win_rates` as a list of rows (no pandas)."""
    counts = outcome_stats(run).counts.sum(axis=(0, 1))  # games by winner + 1
    n = int(counts.sum())
    rows = []
    for seat, side in enumerate(run.seat_side):
        rows.append(
            {
                "seat": seat,
                "policy": run.policies[seat],
                "side": int(side),
                **win_rate(int(counts[side + 1]), n, level),
            }
        )
    return rows


def opening_advantage(run: Run, level: float = 0.95) -> pd.DataFrame:
    """How often the side that led the first deal, and the side that dealt it, went on to win the game.

    Rows ``"first player"`` (side of ``first_player``) and ``"first dealer"`` (side of ``first_dealer``). Besides
    the Wilson interval, ``p_value`` is the exact two-sided binomial test of the rate against ``expected`` =
    1 / number of sides, the rate with no advantage. With 2 sides (2 players or 4 in partnerships) the two rows
    are complements of each other, since the dealer's side never leads and every game has a winner.
    """
    import pandas as pd

    return pd.DataFrame.from_dict(opening_rows(run, level), orient="index")


def opening_rows(run: Run, level: float = 0.95) -> dict[str, dict[str, Any]]:
    """:func:`opening_advantage` as rows by label (no pandas)."""
    outcomes = outcome_stats(run)
    seats = list(range(run.players))
    expected = 1.0 / run.n_sides
    rows = {}
    for label, column in (("first player", "first_player"), ("first dealer", "first_dealer")):
        wins, n = outcomes.wins(column, seats, run.seat_side)
        p_value = special.binomtest_pvalue(wins, n, expected) if n else math.nan
        rows[label] = {**win_rate(wins, n, level), "expected": expected, "p_value": float(p_value)}
    return rows


def points_per_deal(run: Run, level: float = 0.95) -> pd.DataFrame:
    """Mean per deal of each scoring category (then ``points``, ``sweeps``, ``cards_taken``), by side role.

    Columns: ``leader_side`` (the side holding the seat that led the deal), ``dealer_side`` (the side holding the
    dealer), ``all_sides`` (mean over every side's row), ``difference`` (leader minus dealer) and ``half_width``,
    the half-width of the Student t interval at ``level`` for that difference. The difference is taken deal by
    deal (paired by game and deal), which removes the deal-to-deal variation both sides share: every deal has
    exactly one leading and one dealing side, and they differ because the leader sits next to the dealer (an
    opponent with 4 players in partnerships, another seat and therefore another side otherwise). The deals
    table is read part by part (:func:`analysis.deals.deal_stats`).
    """
    import pandas as pd

    return pd.DataFrame.from_dict(points_rows(run, level), orient="index").rename_axis("category")


def points_rows(run: Run, level: float = 0.95) -> dict[str, dict[str, float]]:
    """:func:`points_per_deal` as rows by category (no pandas)."""
    d = deal_stats(run)
    n = d.deals
    rows = {}
    for m in d.metrics:
        diff = hist_interval(d.diff[m], level)
        rows[m] = {
            "leader_side": d.led[m] / n if n else math.nan,
            "dealer_side": d.dealt[m] / n if n else math.nan,
            "all_sides": d.all[m] / (n * d.n_sides) if n else math.nan,
            "difference": diff["mean"],
            "half_width": (diff["ci_high"] - diff["ci_low"]) / 2,
        }
    return rows


def run_summary(run: Run, level: float = 0.95) -> dict[str, Any]:
    """Everything above for one run, plus its size: keys seats, opening, points, games, deals, mean_deals_per_game."""
    n_games = run.n_games
    n_deals = game_stats(run).deals.total
    return {
        "seats": seat_win_rates(run, level),
        "opening": opening_advantage(run, level),
        "points": points_per_deal(run, level),
        "games": n_games,
        "deals": n_deals,
        "mean_deals_per_game": n_deals / n_games if n_games else math.nan,
    }


def mean_interval(values: np.ndarray, level: float = 0.95, popmean: float = 0.0) -> dict[str, Any]:
    """Mean of ``values`` with its Student t interval at ``level`` and the two-sided one-sample t test of
    ``mean == popmean`` (``scipy.stats.ttest_1samp``).

    Keys ``mean``, ``ci_low``, ``ci_high``, ``p_value``, ``n``, ``std``. With fewer than two values the interval
    and test are NaN; with no spread at all the interval is the mean itself and ``p_value`` is 1 if the mean equals
    ``popmean``, else 0 (scipy would warn and return NaN).
    """
    from scipy import stats

    x = np.asarray(values, dtype=np.float64)
    n = len(x)
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level!r}")
    mean = float(x.mean()) if n else math.nan
    std = float(x.std(ddof=1)) if n >= 2 else math.nan
    out = {"mean": mean, "ci_low": math.nan, "ci_high": math.nan, "p_value": math.nan, "n": n, "std": std}
    if n < 2:
        return out
    if np.all(x == x[0]):
        return {**out, "ci_low": mean, "ci_high": mean, "p_value": 1.0 if mean == popmean else 0.0}
    result = stats.ttest_1samp(x, popmean)
    ci = result.confidence_interval(level)
    return {**out, "ci_low": float(ci.low), "ci_high": float(ci.high), "p_value": float(result.pvalue)}


#: The opening roles and the games column that names each role's seat.
ROLES = (("first player", "first_player"), ("first dealer", "first_dealer"))


def _opening_rows(run: Run, groups: list[tuple[str, str, list[int]]], level: float) -> list[dict[str, Any]]:
    """Win-rate rows for (role, group, seats) triples: how often the role's side won the games whose role (first
    player or first dealer) sat in one of ``seats``."""
    outcomes = outcome_stats(run)
    expected = 1.0 / run.n_sides
    column = dict(ROLES)
    rows = []
    for role, group, seats in groups:
        wins, n = outcomes.wins(column[role], seats, run.seat_side)
        p_value = special.binomtest_pvalue(wins, n, expected) if n else math.nan
        rows.append(
            {"role": role, "group": group, **win_rate(wins, n, level), "expected": expected, "p_value": p_value}
        )
    return rows


def seat_advantage(run: Run, level: float = 0.95) -> pd.DataFrame:
    """Opening advantage over games, overall and split by seat and side.

    For each role (``first player``: the side of the seat that led the first deal; ``first dealer``: the side of
    the seat that dealt it) and group (``all`` games; ``seat k``: games whose first player, or dealer, was seat
    k; ``side k``, with 4 players only: games where that seat was on side k), the rate at which the role's side
    won, its Wilson interval, and the exact two-sided binomial test of "no advantage" (rate = 1 / sides).
    Columns ``role``, ``group``, ``wins``, ``games``, ``rate``, ``ci_low``, ``ci_high``, ``expected``, ``p_value``.
    """
    seats = list(range(run.players))
    groups: list[tuple[str, str, list[int]]] = []
    for role, _ in ROLES:
        groups.append((role, "all", seats))
        groups += [(role, f"seat {s}", [s]) for s in seats]
        if run.players == 4:  # otherwise a side is a seat
            groups += [(role, f"side {k}", [s for s in seats if run.seat_side[s] == k]) for k in range(run.n_sides)]
    import pandas as pd

    return pd.DataFrame(_opening_rows(run, groups, level))


def side_policies(run: Run) -> list[str]:
    """Label of each side's policies: ``greedy``, or ``greedy+random`` when partners differ."""
    return ["+".join(dict.fromkeys(run.policies[s] for s in seats)) for seats in run.meta["sides"]]


def pairing_advantage(run: Run, level: float = 0.95) -> pd.DataFrame:
    """:func:`seat_advantage`'s ``all`` rows split by policy pairing.

    ``pairing`` names the policies of the role's side first, then the other sides' (``random v greedy``: the side
    that led the first deal played random against greedy). Self-play has a single pairing per role.
    """
    labels = side_policies(run)
    groups: list[tuple[str, str, list[int]]] = []
    for role, _ in ROLES:
        by_pairing: dict[str, list[int]] = {}
        for k in range(run.n_sides):
            pairing = " v ".join([labels[k], *(labels[j] for j in range(run.n_sides) if j != k)])
            seats = [s for s in range(run.players) if run.seat_side[s] == k]
            by_pairing[pairing] = by_pairing.get(pairing, []) + seats
        groups += [(role, pairing, seats) for pairing, seats in by_pairing.items()]
    import pandas as pd

    return pd.DataFrame(_opening_rows(run, groups, level)).rename(columns={"group": "pairing"})


def deal_advantage(run: Run, level: float = 0.95) -> pd.DataFrame:
    """The opening advantage deal by deal and in the final score.

    Rows (``measure``):

    - ``points margin per deal``: the leading side's points minus the dealing side's, per deal (paired), with
      its t interval and the one-sample t test of a zero mean;
    - ``deals won by the leader``: among deals where the leading and dealing sides scored differently, the share
      the leading side outscored the dealing side, with its Wilson interval and the binomial test against 1/2;
    - ``final margin of the first player``: the first player's side's final total minus the best other side's,
      per game, with its t interval and the t test of a zero mean.

    Columns ``measure``, ``estimate``, ``ci_low``, ``ci_high``, ``n``, ``expected``, ``p_value``.
    """
    import pandas as pd

    margin = deal_stats(run).diff["points"]
    rows = []
    m = hist_interval(margin, level)
    rows.append(_measure("points margin per deal", m["mean"], m, m["n"], 0.0, m["p_value"]))
    decided = margin.n - margin.count(0, 0)
    wins = margin.count(1)
    r = win_rate(wins, decided, level)
    p_value = special.binomtest_pvalue(wins, decided, 0.5) if decided else math.nan
    rows.append(_measure("deals won by the leader", r["rate"], r, decided, 0.5, p_value))
    g = hist_interval(game_stats(run).first_margin, level)
    rows.append(_measure("final margin of the first player", g["mean"], g, g["n"], 0.0, g["p_value"]))
    return pd.DataFrame(rows)


def _measure(name: str, estimate: float, ci: dict[str, Any], n: int, expected: float, p: float) -> dict[str, Any]:
    return {
        "measure": name,
        "estimate": estimate,
        "ci_low": ci["ci_low"],
        "ci_high": ci["ci_high"],
        "n": n,
        "expected": expected,
        "p_value": p,
    }
