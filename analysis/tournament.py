"""Tournament results: per pairing win rate and point margin with intervals, and Bradley–Terry ratings.

A pairing (A, B) has two runs over the same deals, A in the even seats (``ab``) and B there (``ba``). Game ``i`` of
both runs is one duplicate pair, and the pair is the unit of every interval: A's score in the pair is its share
of the pair's two games (0, 1/2 or 1: the trinomial cousin of chess testing's pentanomial statistics), its margin
the mean of its two margins; both remove most of the deal luck, and both get a t interval over pairs (the win
rate is the mean pair score, so it is the usual rate; its interval is the pairs' one, and the Wilson interval over
games, which counts the two games of a pair as independent, is kept beside it with the ``gain``).

Ratings come from a Bradley–Terry model (a binomial GLM, statsmodels) on the Elo scale (400 points = 10:1 odds),
the first policy anchored at 0, with Wald intervals. Each pairing enters with its pair-score rate and an
*effective* number of games, ``pairs * p(1-p) / var(pair score)``: the number of independent games whose
binomial variance equals the variance the pairs show, so the fit's weights and intervals follow the pairs, not
the game count (with independent games it is the game count). Half a win and half a loss are added to every
pairing so that a pairing won every time still gives a finite rating. Every interval is at the confidence
``level`` asked for, and every label says it.

:func:`tournament_results` computes both tables; :func:`write_results` stores them in the tournament folder
(``pairings.csv``, ``ratings.csv``, ``results.json``); :func:`to_csv`, :func:`to_json` and :func:`to_markdown`
render them like ``scopasim analyze`` renders a run.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analysis.load import load_run
from analysis.stats import win_rate
from simcore.errors import OutputError
from simcore.tournament import OUTPUTS, pairing_name, read_index, write_atomic

ELO = 400 / np.log(10)
TABLES = ("pairings", "ratings")


def level_label(level: float) -> str:
    """``0.9`` -> ``"90%"``, ``0.999`` -> ``"99.9%"``."""
    return f"{round(level * 100, 6):g}%"


def load_tournament(path: str | Path) -> tuple[dict, list[tuple[str, str, pd.DataFrame]]]:
    """The tournament index and, per seating, (first, second, games table).

    The index must list exactly the seatings of its policies, and each seating folder must hold that seating's
    run (variant, rules, seed, games, and its policy per seat): a folder swapped, copied from elsewhere or cut
    short is named, never analysed as something it is not.
    """
    path = Path(path)
    index = read_index(path)
    if index is None:
        raise OutputError(f"{path} is not a tournament folder (no tournament.json)")
    if index.get("complete") is False:
        raise OutputError(f"tournament {path} is incomplete (finish it with tournament --resume --out {path})")
    expected = _seatings(index)
    listed = [(r.get("first"), r.get("second"), r.get("path")) for r in index["runs"] if isinstance(r, dict)]
    if listed != expected:
        raise OutputError(f"{path / 'tournament.json'}: its runs are not the seatings of its policies")
    runs = []
    for first, second, folder in expected:
        # only the games table is needed; one column of deals keeps memory small
        run = load_run(path / folder, columns={"games": ["game", "winner", "total_0", "total_1"], "deals": ["game"]})
        seats = [first if s % 2 == 0 else second for s in range(run.players)]
        # a seating that --precision stopped early holds fewer games than its run asked for, and says so
        stopped = run.manifest.get("stopped") is not None
        requested = len(run.games)
        if stopped and requested == run.manifest.get("games_written"):
            requested = run.manifest.get("config", {}).get("games")
        found = {"variant": run.variant, "rules": run.rules, "seed": run.seed, "games": requested}
        wrong = [k for k, v in found.items() if index.get(k) != v] + (["policies"] if run.policies != seats else [])
        if wrong:
            raise OutputError(f"seating {path / folder} is not the run its tournament.json lists ({', '.join(wrong)})")
        runs.append((first, second, run.games))
    return index, runs


def _seatings(index: dict) -> list[tuple[str, str, str]]:
    policies = index["policies"]
    out = []
    for i, a in enumerate(policies):
        for b in policies[i + 1 :]:
            out += [(a, b, f"{pairing_name(a, b)}/ab"), (b, a, f"{pairing_name(a, b)}/ba")]
    return out


def pairing_table(index: dict, runs: list, level: float = 0.95) -> pd.DataFrame:
    """One row per pairing (A, B): A's wins and win rate (Wilson interval), mean margin per duplicate pair."""
    from scipy import stats

    by_pair: dict[tuple[str, str], list[pd.DataFrame]] = {}
    pairs = _pairs(index)
    for first, second, games in runs:
        a, b = (first, second) if (first, second) in pairs else (second, first)
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
        half = stats.t.ppf((1 + level) / 2, len(pair_margin) - 1) * stats.sem(pair_margin)
        score = (one.a_wins + two.a_wins).to_numpy()  # A's wins in each pair: 0, 1 or 2
        rate = win_rate(wins, n, level)
        pair = pair_interval(score / 2, level)
        wilson = rate["ci_high"] - rate["ci_low"]
        rows.append(
            {
                "a": a,
                "b": b,
                **rate,
                "ci_low": pair[0],
                "ci_high": pair[1],
                "wilson_low": rate["ci_low"],
                "wilson_high": rate["ci_high"],
                "gain": wilson / (pair[1] - pair[0]) if pair[1] > pair[0] else np.nan,
                "pairs": len(pair_margin),
                "pairs_lost": int((score == 0).sum()),
                "pairs_split": int((score == 1).sum()),
                "pairs_won": int((score == 2).sum()),
                "margin": pair_margin.mean(),
                "margin_low": pair_margin.mean() - half,
                "margin_high": pair_margin.mean() + half,
            }
        )
    return pd.DataFrame(rows)


def pair_interval(score: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """t interval of the mean pair score (each in {0, 1/2, 1}), clipped to [0, 1]; when every pair scored the
    same, the Wilson interval of that many wins in as many pairs (a t interval would have no width)."""
    from analysis.special import t_ppf, wilson_interval

    n = len(score)
    if n < 2:
        return np.nan, np.nan
    mean, sd = float(score.mean()), float(score.std(ddof=1))
    if sd == 0:
        return wilson_interval(round(mean * n), n, level)
    half = t_ppf(0.5 + level / 2, n - 1) * sd / np.sqrt(n)
    return max(mean - half, 0.0), min(mean + half, 1.0)


def effective_games(row: Any) -> float:
    """Independent games with the binomial variance of the pairing's pair-score mean (see the module docstring)."""
    p = row.wins / row.games
    var = (row.pairs_split * 0.25 + row.pairs_won - row.pairs * p * p) / max(row.pairs - 1, 1)  # var of pair score
    if not 0 < p < 1 or var <= 0:
        return float(row.games)
    return float(row.pairs * p * (1 - p) / var)


def _pairs(index: dict) -> set[tuple[str, str]]:
    policies = index["policies"]
    return {(a, b) for i, a in enumerate(policies) for b in policies[i + 1 :]}


def bradley_terry(table: pd.DataFrame, policies: list[str], level: float = 0.95) -> pd.DataFrame:
    """Ratings on the Elo scale with Wald intervals at ``level``; the first policy is the reference (0)."""
    import statsmodels.api as sm

    design = np.zeros((len(table), len(policies)))
    for row, (a, b) in enumerate(zip(table.a, table.b, strict=True)):
        design[row, policies.index(a)] += 1
        design[row, policies.index(b)] -= 1
    # each pairing as its effective number of games at its rate (pairs, not games, carry the information)
    if "pairs_won" in table:
        n_eff = np.array([effective_games(r) for r in table.itertuples()])
    else:
        n_eff = table.games.to_numpy(float)
    rate = table.wins.to_numpy(float) / table.games.to_numpy(float)
    # +0.5 to every count (Haldane-Anscombe): a pairing won 100% would otherwise have an infinite rating
    counts = np.column_stack([rate * n_eff, (1 - rate) * n_eff]) + 0.5
    with np.errstate(divide="ignore", invalid="ignore"):  # a saturated model (2 policies) has no residual df
        fit = sm.GLM(counts, design[:, 1:], family=sm.families.Binomial()).fit()
    low, high = fit.conf_int(1 - level).T
    rating = np.concatenate([[0.0], fit.params]) * ELO
    return pd.DataFrame(
        {
            "policy": policies,
            "rating": rating,
            "low": np.concatenate([[0.0], low]) * ELO,
            "high": np.concatenate([[0.0], high]) * ELO,
        }
    ).sort_values("rating", ascending=False, ignore_index=True)


@dataclass(frozen=True)
class TournamentResults:
    """A tournament's settings (its index) and its two tables, at one confidence level."""

    path: Path
    index: dict[str, Any]
    level: float
    pairings: pd.DataFrame
    ratings: pd.DataFrame

    def tables(self, names: list[str] | None = None) -> dict[str, pd.DataFrame]:
        both = {"pairings": self.pairings, "ratings": self.ratings}
        return {n: t for n, t in both.items() if names is None or n in names}


def tournament_results(path: str | Path, level: float = 0.95) -> TournamentResults:
    """Read a finished tournament folder and compute its pairing table and ratings at ``level``."""
    index, runs = load_tournament(path)
    pairings = pairing_table(index, runs, level)
    ratings = bradley_terry(pairings, index["policies"], level)
    return TournamentResults(Path(path), index, level, pairings, ratings)


def write_results(results: TournamentResults) -> list[Path]:
    """Write ``pairings.csv``, ``ratings.csv`` and ``results.json`` into the tournament folder (each to a
    temporary name, then renamed); returns their paths."""
    texts = (results.pairings.to_csv(index=False), results.ratings.to_csv(index=False), to_json(results))
    written = []
    for name, text in zip(OUTPUTS, texts, strict=True):
        write_atomic(results.path / name, text)
        written.append(results.path / name)
    return written


# ---------------------------------------------------------------- rendering, shared with ``scopasim analyze``


def titles(results: TournamentResults) -> dict[str, tuple[str, str]]:
    """Table name -> (title, caption), each naming the confidence level."""
    index, lv = results.index, level_label(results.level)
    first = index["policies"][0]
    return {
        "pairings": (
            f"{index['variant']}: duplicate pairings ({index['games']:,} deal pairs each, seed {index['seed']})",
            f"A's win rate with its {lv} t interval over duplicate pairs (A's share of each pair's two games); "
            f"gain: how many times narrower than the {lv} Wilson interval over games; A's margin: points per game, A "
            f"minus B, averaged over each duplicate pair, with its {lv} t interval over pairs",
        ),
        "ratings": (
            f"Bradley–Terry ratings (Elo scale, {first} = 0, {lv} Wald intervals)",
            "400 points = 10:1 odds of winning a game",
        ),
    }


def display(name: str, df: pd.DataFrame, level: float) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of strings a person sees for table ``name``."""
    lv = f"{level_label(level)} CI"
    if name == "pairings":
        headers = ["A", "B", "games", "A wins", "A's win rate", lv, "gain", "A's margin per game", f"margin {lv}"]
        rows = [
            [
                r.a,
                r.b,
                f"{r.games:,}",
                f"{r.wins:,}",
                f"{r.rate:.1%}",
                f"{r.ci_low:.1%} – {r.ci_high:.1%}",
                "–" if np.isnan(r.gain) else f"{r.gain:.1f}x",
                f"{r.margin:+.2f}",
                _interval(r.margin_low, r.margin_high, "+.2f"),
            ]
            for r in df.itertuples()
        ]
        return headers, rows
    headers = ["policy", "rating", lv]
    rows = [
        [r.policy, f"{r.rating:+.0f}", "reference" if r.low == r.high == 0 else _interval(r.low, r.high, "+.0f")]
        for r in df.itertuples()
    ]
    return headers, rows


def _interval(low: float, high: float, spec: str) -> str:
    return "–" if np.isnan(low) or np.isnan(high) else f"{low:{spec}} – {high:{spec}}"


def to_csv(results: TournamentResults, names: list[str] | None = None) -> str:
    """One table: plain CSV; both: each behind a ``# table: NAME`` line, separated by a blank line."""
    tables = results.tables(names)
    if len(tables) == 1:
        return next(iter(tables.values())).to_csv(index=False)
    return "\n".join(f"# table: {name}\n{df.to_csv(index=False)}" for name, df in tables.items())


def to_json(results: TournamentResults, names: list[str] | None = None) -> str:
    """``{"level", "tournament": {settings...}, "tables": {name: [records]}}``; NaN is ``null``."""
    settings = {k: results.index[k] for k in ("variant", "rules", "policies", "games", "seed")}
    tables = {
        name: json.loads(df.to_json(orient="records", double_precision=15))
        for name, df in results.tables(names).items()
    }
    doc = {"level": results.level, "tournament": {"path": str(results.path), **settings}, "tables": tables}
    return json.dumps(doc, indent=1) + "\n"


def to_markdown(results: TournamentResults, names: list[str] | None = None) -> str:
    parts = [f"## {results.path}\n"]
    for name, df in results.tables(names).items():
        title, caption = titles(results)[name]
        headers, rows = display(name, df, results.level)
        buf = io.StringIO()
        buf.write("| " + " | ".join(headers) + " |\n")
        buf.write("|" + "|".join("---" if h in ("A", "B", "policy") else "---:" for h in headers) + "|\n")
        for row in rows:
            buf.write("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |\n")
        parts.append(f"### {title}\n\n{buf.getvalue()}\n{caption}\n")
    return "\n".join(parts)
