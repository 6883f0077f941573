"""Tournament results: per pairing win rate and point margin with 95% intervals, and Bradley–Terry ratings.

A pairing (A, B) has two runs over the same deals, A in the even seats (``ab``) and B there (``ba``). Game ``i`` of
both runs is one duplicate pair: A's margin in the pair is the mean of its two margins, which removes most of the
deal luck; the interval on the mean margin is a t interval over pairs. Ratings come from a Bradley–Terry model
(a binomial GLM on the pairings' win counts, statsmodels), on the Elo scale (400 points = 10:1 odds), the first
policy anchored at 0, with 95% Wald intervals; half a win and half a loss are added to every pairing so that a
pairing won every time still gives a finite rating.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.load import load_run
from analysis.stats import win_rate
from simcore.errors import OutputError

ELO = 400 / np.log(10)


def load_tournament(path: str | Path) -> tuple[dict, list[tuple[str, str, pd.DataFrame, pd.DataFrame]]]:
    """The tournament index and, per run, (first, second, games, deals)."""
    path = Path(path)
    try:
        index = json.loads((path / "tournament.json").read_text())
    except (OSError, ValueError) as exc:
        raise OutputError(f"{path} is not a finished tournament (tournament.json: {exc})") from None
    runs = []
    for run in index["runs"]:
        loaded = load_run(path / run["path"], columns={"games": ["game", "winner", "total_0", "total_1"]})
        runs.append((run["first"], run["second"], loaded.games, loaded.deals))
    return index, runs


def pairing_table(index: dict, runs: list) -> pd.DataFrame:
    """One row per pairing (A, B): A's wins and win rate (Wilson interval), mean margin per duplicate pair."""
    from scipy import stats

    by_pair: dict[tuple[str, str], list[pd.DataFrame]] = {}
    for first, second, games, _ in runs:
        a, b = (first, second) if (first, second) in _pairs(index) else (second, first)
        sign = 1 if first == a else -1
        g = games.set_index("game").sort_index()
        by_pair.setdefault((a, b), []).append(
            pd.DataFrame(
                {
                    "a_wins": (g.winner == (0 if sign == 1 else 1)).astype(int),
                    "margin": sign * (g.total_0.astype(int) - g.total_1.astype(int)),
                }
            )
        )
    rows = []
    for (a, b), (one, two) in by_pair.items():
        wins = int(one.a_wins.sum() + two.a_wins.sum())
        n = len(one) + len(two)
        pair_margin = (one.margin + two.margin) / 2
        half = stats.t.ppf(0.975, len(pair_margin) - 1) * stats.sem(pair_margin)
        rows.append(
            {
                "a": a,
                "b": b,
                **{k: v for k, v in win_rate(wins, n).items()},
                "pairs": len(pair_margin),
                "margin": pair_margin.mean(),
                "margin_low": pair_margin.mean() - half,
                "margin_high": pair_margin.mean() + half,
            }
        )
    return pd.DataFrame(rows)


def _pairs(index: dict) -> set[tuple[str, str]]:
    policies = index["policies"]
    return {(a, b) for i, a in enumerate(policies) for b in policies[i + 1 :]}


def bradley_terry(table: pd.DataFrame, policies: list[str]) -> pd.DataFrame:
    """Ratings on the Elo scale with 95% intervals; the first policy is the reference (0)."""
    import statsmodels.api as sm

    design = np.zeros((len(table), len(policies)))
    for row, (a, b) in enumerate(zip(table.a, table.b, strict=True)):
        design[row, policies.index(a)] += 1
        design[row, policies.index(b)] -= 1
    # +0.5 to every count (Haldane-Anscombe): a pairing won 100% would otherwise have an infinite rating
    counts = np.column_stack([table.wins, table.games - table.wins]) + 0.5
    with np.errstate(divide="ignore", invalid="ignore"):  # a saturated model (2 policies) has no residual df
        fit = sm.GLM(counts, design[:, 1:], family=sm.families.Binomial()).fit()
    low, high = fit.conf_int(0.05).T
    rating = np.concatenate([[0.0], fit.params]) * ELO
    return pd.DataFrame(
        {
            "policy": policies,
            "rating": rating,
            "low": np.concatenate([[0.0], low]) * ELO,
            "high": np.concatenate([[0.0], high]) * ELO,
        }
    ).sort_values("rating", ascending=False, ignore_index=True)
