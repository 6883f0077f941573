"""Balance of a rule set: where the points come from, how games unfold, and how two rule sets differ.

Everything is computed per deal or per game from the run's tables, read part by part into counted samples
(``analysis.hist``), with intervals from scipy and statsmodels: Student t for means and Welch's t for a difference
of means (scipy's t distribution on the samples' exact moments: the numbers of ``scipy.stats.ttest_1samp`` and
``ttest_ind(equal_var=False)``), Wilson for shares, and Newcombe's interval with the score (Miettinen–Nurminen)
test for a difference of proportions (``statsmodels.stats.proportion.confint_proportions_2indep`` /
``test_proportions_2indep``). Both libraries are imported inside the functions that use them.

Two runs are compared game by game when they are pairable (same seed, packs, deal schedule and games:
``analysis.paired``), which removes the deal luck they share; otherwise as independent samples, with the methods
above. Every comparison row says which (``method``), with the runs' ``correlation`` and the paired interval's
``gain`` (how many times narrower than the unpaired one from the same data).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd

from analysis.deals import deal_order, deal_stats
from analysis.games import cumulative_wins, game_stats, outcome_stats
from analysis.hist import IntHist, hist_difference, hist_interval
from analysis.load import Run
from analysis.stats import win_rate

#: Per-game and per-deal quantities of :func:`game_shape` (besides the mid-deal share), in display order.
SHAPE_METRICS = (
    "deals per game",
    "plays per game",
    "redeals per game",
    "points per deal",
    "sweeps per deal",
    "margin of victory",
)


def deal_matrix(run: Run, columns: list[str]) -> np.ndarray:
    """The deals table as an array ``[deal, side, column]`` (one row per deal, sides in order), for pandas users:
    it reads the whole table (the analysis functions go through it part by part instead).

    The writer emits the sides of a deal as consecutive rows in side order; anything else is sorted first.
    """
    deals = run.deals
    part = {c: deals[c].to_numpy() for c in ("game", "deal", "side")}
    order, n_deals = deal_order(part, run.n_sides)
    values = deals[columns].to_numpy()[order]
    return values.reshape(n_deals, run.n_sides, len(columns))


def category_table(run: Run, level: float = 0.95) -> pd.DataFrame:
    """Points per deal of each scoring category, by side, and how often the category is tied or taken whole.

    Index: the variant's categories. Columns: ``side_k`` (mean points per deal of side k) and
    ``side_k_half_width`` (half-width of its t interval at ``level``), ``per_deal`` (mean points awarded per
    deal in the category, all sides together), ``tied`` (share of deals in which no side scores it: a tie for
    "most cards"-like categories, a deal without sweeps for sweep categories), ``one_side`` (exactly one side
    scores it: taken whole), ``shared`` (two or more sides score it, e.g. sweeps by both), ``max_side`` (the most
    one side scored in a deal).
    """
    d = deal_stats(run)
    n = d.deals
    rows = {}
    for cat in d.categories:
        row: dict[str, Any] = {}
        for k, hist in enumerate(d.side[cat]):
            m = hist_interval(hist, level)
            row[f"side_{k}"] = m["mean"]
            row[f"side_{k}_half_width"] = (m["ci_high"] - m["ci_low"]) / 2
        tied, one, shared = (int(x) for x in d.scored[cat])
        row["per_deal"] = d.total[cat].mean
        row["tied"] = tied / n if n else math.nan
        row["one_side"] = one / n if n else math.nan
        row["shared"] = shared / n if n else math.nan
        row["max_side"] = max(h.max for h in d.side[cat])
        rows[cat] = row
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("category")


def category_distribution(run: Run) -> pd.DataFrame:
    """Long table of how many points each side scores per deal in each category.

    Columns ``category``, ``side``, ``points`` (a value scored in a deal), ``deals`` (how many deals), ``share``
    (of all deals); one row per value that occurs.
    """
    d = deal_stats(run)
    rows = []
    for cat in d.categories:
        for k, hist in enumerate(d.side[cat]):
            points, counts = hist.items()
            rows += [
                {"category": cat, "side": k, "points": int(p), "deals": int(q), "share": q / d.deals}
                for p, q in zip(points, counts, strict=True)
            ]
    return pd.DataFrame(rows, columns=["category", "side", "points", "deals", "share"])


def shape_hists(run: Run) -> dict[str, IntHist]:
    """The per-game or per-deal samples behind :data:`SHAPE_METRICS`, counted, by metric name."""
    g = game_stats(run)
    d = deal_stats(run)
    return {
        "deals per game": g.deals,
        "plays per game": g.plays,
        "redeals per game": g.redeals,
        "points per deal": d.total["points"],
        "sweeps per deal": d.total["sweeps"],
        "margin of victory": g.victory,
    }


def game_shape(run: Run, level: float = 0.95) -> pd.DataFrame:
    """How games unfold: deals and plays per game, redeals, points and sweeps per deal (all sides together),
    margin of victory (winner's final total minus the best other side's), and the share of games decided in the
    middle of a deal.

    Index ``metric``; columns ``estimate`` (mean, or share), ``ci_low``, ``ci_high`` (t interval of the mean;
    Wilson interval of the share), ``std``, ``p10``, ``median``, ``p90``, ``n`` (games or deals).
    """
    rows = {}
    for name, hist in shape_hists(run).items():
        m = hist_interval(hist, level)
        q = hist.percentiles([10, 50, 90])
        rows[name] = {
            "estimate": m["mean"],
            "ci_low": m["ci_low"],
            "ci_high": m["ci_high"],
            "std": m["std"],
            "p10": q[0],
            "median": q[1],
            "p90": q[2],
            "n": m["n"],
        }
    g = game_stats(run)
    r = win_rate(g.mid_deal, g.games, level)
    rows["games decided mid-deal"] = {
        "estimate": r["rate"],
        "ci_low": r["ci_low"],
        "ci_high": r["ci_high"],
        "std": math.nan,
        "p10": math.nan,
        "median": math.nan,
        "p90": math.nan,
        "n": r["games"],
    }
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("metric")


def _opening_counts(run: Run, column: str) -> tuple[int, int]:
    return outcome_stats(run).wins(column, list(range(run.players)), run.seat_side)


def rate_difference(
    wins_a: int, n_a: int, wins_b: int, n_b: int, level: float = 0.95, value: float = 0.0
) -> dict[str, float]:
    """``rate_b - rate_a`` with Newcombe's hybrid score interval and the score (Miettinen–Nurminen) test of
    ``rate_b - rate_a == value``, both from statsmodels (``confint_proportions_2indep``,
    ``test_proportions_2indep``). Where the score test is undefined (both rates 0, or both 1) the
    Agresti–Caffo test, which adds a pseudo-count, stands in."""
    from statsmodels.stats.proportion import confint_proportions_2indep, test_proportions_2indep

    if min(n_a, n_b) < 1:
        return {"difference": math.nan, "ci_low": math.nan, "ci_high": math.nan, "p_value": math.nan}
    low, high = confint_proportions_2indep(wins_b, n_b, wins_a, n_a, method="newcomb", compare="diff", alpha=1 - level)
    # statsmodels also computes the ratio p_b / p_a, which divides by zero when rate_a is 0: harmless here
    with np.errstate(divide="ignore", invalid="ignore"):
        p_value = test_proportions_2indep(wins_b, n_b, wins_a, n_a, value=value, method="score", compare="diff").pvalue
        if not np.isfinite(p_value):
            p_value = test_proportions_2indep(
                wins_b, n_b, wins_a, n_a, value=value, method="agresti-caffo", compare="diff"
            ).pvalue
    return {
        "difference": wins_b / n_b - wins_a / n_a,
        "ci_low": float(low),
        "ci_high": float(high),
        "p_value": float(p_value),
    }


def mean_difference(a: np.ndarray, b: np.ndarray, level: float = 0.95) -> dict[str, float]:
    """``mean(b) - mean(a)`` with Welch's t interval and test (``scipy.stats.ttest_ind(equal_var=False)``)."""
    from scipy import stats

    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if min(len(a), len(b)) < 2:
        return {"difference": math.nan, "ci_low": math.nan, "ci_high": math.nan, "p_value": math.nan}
    diff = float(b.mean() - a.mean())
    constant_a, constant_b = bool(np.all(a == a[0])), bool(np.all(b == b[0]))
    if constant_a and constant_b:  # no spread at all: scipy would warn and return NaN
        return {"difference": diff, "ci_low": diff, "ci_high": diff, "p_value": 1.0 if diff == 0 else 0.0}
    with warnings.catch_warnings():
        if constant_a or constant_b:  # a variance of exactly 0 is right, whatever scipy's precision check says
            warnings.filterwarnings("ignore", "Precision loss occurred", RuntimeWarning)
        result = stats.ttest_ind(b, a, equal_var=False)
        ci = result.confidence_interval(level)
    return {"difference": diff, "ci_low": float(ci.low), "ci_high": float(ci.high), "p_value": float(result.pvalue)}


def compare_runs(a: Run, b: Run, level: float = 0.95, paired: bool | None = None) -> pd.DataFrame:
    """What changes from run ``a`` to run ``b`` (two rule sets, say), each difference ``b - a`` with an interval
    at ``level`` and a two-sided test of "no difference".

    Rows (index ``metric``): the first player's and the first dealer's advantage (win rate of that side minus
    1 / sides, so that runs with different numbers of sides compare), the share of games decided mid-deal, then
    means: the leader's points margin per deal, :data:`SHAPE_METRICS`, and the points per deal (all sides) of each
    category both runs score. Columns ``kind`` (``rate`` or ``mean``), ``a``, ``b``, ``difference``, ``ci_low``,
    ``ci_high``, ``p_value``, ``method`` (``paired`` or ``unpaired``), ``correlation`` and ``gain`` (paired
    rows only: ``analysis.paired``).

    ``paired``: None (default) pairs the runs when :func:`analysis.paired.pairing` says they are pairable; False
    always treats them as independent (:func:`rate_difference` on the rates, testing a difference of advantages
    of zero; Welch's t on the per-deal and per-game samples); True pairs any two runs that hold the same games.
    """
    from analysis.paired import NotAlignedError, pairing

    if paired is None:
        paired = pairing(a, b).paired
    if paired:
        try:
            return _paired_comparison(a, b, level)
        except NotAlignedError:
            pass  # the parts hold different games after all: the unpaired methods below
    return _unpaired_comparison(a, b, level)


def _unpaired_comparison(a: Run, b: Run, level: float) -> pd.DataFrame:
    rows: dict[str, dict[str, Any]] = {}
    for label, column in (("first player advantage", "first_player"), ("first dealer advantage", "first_dealer")):
        (wa, na), (wb, nb) = _opening_counts(a, column), _opening_counts(b, column)
        ea, eb = 1.0 / a.n_sides, 1.0 / b.n_sides
        d = rate_difference(wa, na, wb, nb, level, value=eb - ea)
        shift = eb - ea  # the advantages differ by the rates' difference minus the expected rates' difference
        rows[label] = {
            "kind": "rate",
            "a": wa / na - ea,
            "b": wb / nb - eb,
            "difference": d["difference"] - shift,
            "ci_low": d["ci_low"] - shift,
            "ci_high": d["ci_high"] - shift,
            "p_value": d["p_value"],
        }
    ga, gb = game_stats(a), game_stats(b)
    d = rate_difference(ga.mid_deal, ga.games, gb.mid_deal, gb.games, level)
    rows["games decided mid-deal"] = {"kind": "rate", "a": ga.mid_deal / ga.games, "b": gb.mid_deal / gb.games, **d}
    samples_a = {"leader's margin per deal": deal_stats(a).diff["points"], **shape_hists(a)}
    samples_b = {"leader's margin per deal": deal_stats(b).diff["points"], **shape_hists(b)}
    for cat in (c for c in a.categories if c in b.categories):
        samples_a[f"{cat} per deal"] = deal_stats(a).total[cat]
        samples_b[f"{cat} per deal"] = deal_stats(b).total[cat]
    for name, xa in samples_a.items():
        xb = samples_b[name]
        rows[name] = {"kind": "mean", "a": xa.mean, "b": xb.mean, **hist_difference(xa, xb, level)}
    df = pd.DataFrame.from_dict(rows, orient="index").rename_axis("metric")
    return df.assign(method="unpaired", correlation=math.nan, gain=math.nan)


def _paired_comparison(a: Run, b: Run, level: float) -> pd.DataFrame:
    """:func:`compare_runs` game by game (``analysis.paired``): the runs have the same sides and games."""
    from analysis.paired import common_categories, paired_mean, paired_rate, paired_ratio, paired_stats

    s = paired_stats(a, b)
    expected = 1.0 / a.n_sides
    rows: dict[str, dict[str, Any]] = {}
    for label, name, shift in (
        ("first player advantage", "first player", expected),
        ("first dealer advantage", "first dealer", expected),
        ("games decided mid-deal", "mid-deal", 0.0),
    ):
        t = s.tables[name]
        n = int(t.sum())
        rate_a, rate_b = t[1].sum() / n - shift, t[:, 1].sum() / n - shift
        rows[label] = {"kind": "rate", "a": rate_a, "b": rate_b, **paired_rate(t, level)}

    def ratio(name: str) -> dict[str, Any]:
        m = s.deals[name]
        mean = m.mean
        return {"kind": "mean", "a": mean[0] / mean[1], "b": mean[2] / mean[3], **paired_ratio(m, level)}

    def per_game(name: str) -> dict[str, Any]:
        mean = s.games[name].mean
        return {"kind": "mean", "a": mean[0], "b": mean[1], **paired_mean(s.games[name], level)}

    rows["leader's margin per deal"] = ratio("leader's margin per deal")
    for name in SHAPE_METRICS:
        rows[name] = ratio(name) if name in s.deals else per_game(name)
    for cat in common_categories(a, b):
        rows[f"{cat} per deal"] = ratio(f"{cat} per deal")
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("metric")


def convergence(run: Run, points: int = 200, level: float = 0.95) -> pd.DataFrame:
    """The first player's win rate as games accumulate (in game order), with its Wilson band.

    ``points`` sample sizes spaced evenly on a log scale from 100 games (or fewer, in a smaller run) to all of
    them. Columns ``games``,
    ``wins``, ``rate``, ``ci_low``, ``ci_high``, ``expected``.
    """
    from statsmodels.stats.proportion import proportion_confint

    total = run.n_games
    if total == 0:
        return pd.DataFrame(columns=["games", "wins", "rate", "ci_low", "ci_high", "expected"])
    n = np.unique(np.geomspace(min(100, total), total, num=max(points, 2)).round().astype(np.int64))
    wins = cumulative_wins(run, n)
    low, high = proportion_confint(wins, n, alpha=1 - level, method="wilson")
    return pd.DataFrame(
        {
            "games": n,
            "wins": wins,
            "rate": wins / n,
            "ci_low": low,
            "ci_high": high,
            "expected": 1.0 / run.n_sides,
        }
    )


def grid_table(runs: list[Run], labels: list[str], level: float = 0.95) -> pd.DataFrame:
    """One row per rule set of a balance grid: seat advantage, game shape and the change of the first player's
    advantage from the first rule set (the baseline).

    Columns: ``rule_set``, ``players``, ``games``, ``expected`` (1 / sides); for ``first_player`` and
    ``first_dealer``: ``_rate``, ``_ci_low``, ``_ci_high``, ``_p`` (binomial test of no advantage);
    ``leader_margin`` (points per deal, leading side minus dealing side) with ``_ci_low``, ``_ci_high``, ``_p``;
    ``first_player_change`` (advantage minus the baseline's) with ``_ci_low``, ``_ci_high``, ``_p``, ``_method``,
    ``_correlation`` and ``_gain`` (:func:`compare_runs`); then the
    mean of each :data:`SHAPE_METRICS` (spaces as underscores) with its ``_half_width``, and ``mid_deal_share``.
    """
    from analysis.stats import deal_advantage, seat_advantage

    if len(runs) != len(labels) or not runs:
        raise ValueError("give one label per run, and at least one run")
    rows = []
    for i, (run, label) in enumerate(zip(runs, labels, strict=True)):
        adv = seat_advantage(run, level)
        row: dict[str, Any] = {"rule_set": label, "players": run.players, "games": run.n_games}
        row["expected"] = 1.0 / run.n_sides
        for role, prefix in (("first player", "first_player"), ("first dealer", "first_dealer")):
            r = adv[(adv["role"] == role) & (adv["group"] == "all")].iloc[0]
            row |= {
                f"{prefix}_rate": r["rate"],
                f"{prefix}_ci_low": r["ci_low"],
                f"{prefix}_ci_high": r["ci_high"],
                f"{prefix}_p": r["p_value"],
            }
        m = deal_advantage(run, level).set_index("measure").loc["points margin per deal"]
        row |= {
            "leader_margin": m["estimate"],
            "leader_margin_ci_low": m["ci_low"],
            "leader_margin_ci_high": m["ci_high"],
            "leader_margin_p": m["p_value"],
        }
        if i == 0:
            change = {"difference": 0.0, "ci_low": math.nan, "ci_high": math.nan, "p_value": math.nan}
            change |= {"method": "base", "correlation": math.nan, "gain": math.nan}
        else:
            change = compare_runs(runs[0], run, level).loc["first player advantage"].to_dict()
        row |= {
            "first_player_change": change["difference"],
            "first_player_change_ci_low": change["ci_low"],
            "first_player_change_ci_high": change["ci_high"],
            "first_player_change_p": change["p_value"],
            "first_player_change_method": change["method"],
            "first_player_change_correlation": change["correlation"],
            "first_player_change_gain": change["gain"],
        }
        shape = game_shape(run, level)
        for name in SHAPE_METRICS:
            key = name.replace(" ", "_")
            row[key] = shape.loc[name, "estimate"]
            row[f"{key}_half_width"] = (shape.loc[name, "ci_high"] - shape.loc[name, "ci_low"]) / 2
        row["mid_deal_share"] = shape.loc["games decided mid-deal", "estimate"]
        rows.append(row)
    return pd.DataFrame(rows)


def grid_categories(runs: list[Run], labels: list[str]) -> pd.DataFrame:
    """Mean points awarded per deal (all sides together) by category (rows) and rule set (columns)."""
    columns = {}
    for run, label in zip(runs, labels, strict=True):
        totals = deal_stats(run).total
        columns[label] = pd.Series([totals[c].mean for c in run.categories], index=run.categories)
    return pd.DataFrame(columns).rename_axis("category")


def grid_changes(runs: list[Run], labels: list[str], level: float = 0.95) -> pd.DataFrame:
    """:func:`compare_runs` of the baseline (first rule set) with each other rule set, in one long table with
    leading columns ``rule_set`` and ``baseline``."""
    frames = [
        compare_runs(runs[0], run, level).reset_index().assign(rule_set=label, baseline=labels[0])
        for run, label in zip(runs[1:], labels[1:], strict=True)
    ]
    if not frames:
        return pd.DataFrame(columns=["rule_set", "baseline", "metric"])
    df = pd.concat(frames, ignore_index=True)
    return df[["rule_set", "baseline", *[c for c in df.columns if c not in ("rule_set", "baseline")]]]


def identical_games(runs: list[Run], labels: list[str]) -> list[str]:
    """One sentence per group of runs whose games came out identical (the number, winner, final totals, deals and
    plays of every game), saying what differed between them and so never mattered; empty if none did.

    Runs with the same seed play game i from the same shuffled pack, so a rule that these policies never trigger
    (greedy always captures, say) gives the same games under every value: a "+0.00 pp, p 1" that means "not
    tested", not "no effect".
    """
    groups: dict[str, list[int]] = {}
    for i, run in enumerate(runs):
        groups.setdefault(game_stats(run).digest, []).append(i)
    sentences = []
    for members in (g for g in groups.values() if len(g) > 1):
        names = [labels[i] for i in members]
        named = ", ".join(names[:-1]) + " and " + names[-1]
        group = [runs[i] for i in members]
        policies = {", ".join(dict.fromkeys(r.policies)) for r in group}
        under = f" under {next(iter(policies))}" if len(policies) == 1 else ""
        keys = sorted({k for r in group for k in r.rules} - {k for k in group[0].rules if _same_rule(group, k)})
        if len(policies) > 1:
            reason = "their policies played alike"
        elif keys:
            rule = "the rule" if len(keys) == 1 else "the rules"
            reason = f"{rule} {', '.join(keys)} never mattered for these policies"
        else:
            reason = "they hold the same games (same rules, policies and seed)"
        sentences.append(f"{named} produced identical games{under}: {reason}")
    return sentences


def _same_rule(runs: list[Run], key: str) -> bool:
    values = [r.rules.get(key, _MISSING) for r in runs]
    return all(v == values[0] for v in values)


_MISSING = object()
