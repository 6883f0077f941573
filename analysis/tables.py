"""The tables of ``scopasim analyze`` and ``scopasim report``: computed once, shown to people or to machines.

:func:`run_tables` answers the questions of one run (seat advantage over games, per seat and side, per deal and
per policy pairing; points per category; how games unfold), :func:`comparison_tables` compares runs with the
first one. Each table is a plain DataFrame of numbers (what ``--format csv|json`` writes); :func:`display`
turns it into strings for a person (rates in percent, intervals as ``low–high``, p-values in two significant
figures), which the rich tables, Markdown and HTML share. :func:`to_csv`, :func:`to_json` and
:func:`to_markdown` render a whole analysis.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from analysis.balance import category_table, compare_runs, game_shape
from analysis.control import control_table
from analysis.load import Run
from analysis.stats import (
    deal_advantage,
    level_text,
    pairing_advantage,
    points_per_deal,
    seat_advantage,
    seat_win_rates,
)

#: Table name -> (title, caption), in the order they are shown; ``{level}`` is the confidence level (``90%``),
#: filled in by :func:`titles`.
TITLES: dict[str, tuple[str, str]] = {
    "seats": (
        "Win rate of each seat's side",
        "partners (4 players) share a side and its wins; CI: {level} Wilson score interval",
    ),
    "seat_advantage": (
        "Opening advantage: how often the side that led (or dealt) the first deal won the game",
        "seat k / side k: games whose first player (or dealer) sat there; CI: {level} Wilson score interval; "
        "expected: 1 / sides; p: exact binomial test of no advantage",
    ),
    "deal_advantage": (
        "Opening advantage per deal and in the final score",
        "leader / dealer: the sides of the seats that led and dealt each deal; CI: {level} t interval of a mean, "
        "Wilson interval of deals won; p: t test of a zero mean, binomial test of 1/2 for deals won",
    ),
    "control_variate": (
        "First player's advantage, adjusted for the cards dealt (control variate; with --mirror, also for "
        "mirrored replays)",
        "plain: mean over games ± {level} t half-width; adjusted: regression on controls of mean zero by symmetry "
        "({level} OLS intercept interval). cards dealt: how much more scoring material (per category) the first "
        "player's side was dealt than the other sides over the deals played; mirrored replays: greedy self-play "
        "of each game on its own shuffles, as dealt minus with the hands moved on one seat (each rotation), won "
        "and margin (with --mirror); both: the two sets in one regression. R²: share of the variance the "
        "controls explain; gain: how many times fewer games the adjusted figure needs for the same interval",
    ),
    "pairings": (
        "Opening advantage by policy pairing",
        "pairing: the policy of the side in that role first, then the other sides'; CI: {level} Wilson score interval",
    ),
    "points": (
        "Mean points per deal by category: leading side against dealing side",
        "difference: leader minus dealer, deal by deal, with the half-width of its {level} t interval",
    ),
    "categories": (
        "Points per deal by category and side",
        "± : half-width of the {level} t interval; tied: no side scores it; one side: taken whole; shared: "
        "two or more sides score it",
    ),
    "game_shape": (
        "How games unfold",
        "means with {level} t intervals (Wilson for the mid-deal share); margin of victory: winner's total minus "
        "the best other side's",
    ),
    "grid_advantage": (
        "First player's advantage by rule set",
        "{level} Wilson intervals; p: binomial test of no advantage (1 / sides); change: the advantage (win rate "
        "minus 1 / sides) minus the first rule set's, with its {level} interval and test: paired (Tango, McNemar) "
        "when the rule sets deal alike, with its gain over the unpaired (Newcombe, score test) interval",
    ),
    "grid_dealer": (
        "Dealer's advantage and per-deal margin by rule set",
        "first dealer: win rate of the first dealer's side, {level} Wilson interval, binomial test; leader's "
        "margin: points per deal, leading side minus dealing side, {level} t interval and test",
    ),
    "grid_shape": (
        "Scoring and game shape by rule set",
        "means ± half-widths of {level} t intervals; points and sweeps per deal: all sides together",
    ),
    "grid_categories": (
        "Points awarded per deal by category (all sides together)",
        "a majority category (most cards, ...) below 1: some deals are tied and nobody scores it",
    ),
    "comparison": (
        "Change from the first run",
        "difference: this run minus the first; advantages are win rates minus 1 / sides; CI: {level} interval. "
        "paired (same seed, packs and deal schedule: compared game by game): Tango's score interval with McNemar's "
        "exact test for rates, paired t for means (per-deal means: by game, delta method); gain: how many times "
        "narrower than the unpaired interval, r: correlation of the runs' games. unpaired: Newcombe's interval with "
        "the score test for rates, Welch's t for means",
    ),
}


def titles(level: float = 0.95) -> dict[str, tuple[str, str]]:
    """:data:`TITLES` with the confidence level filled in."""
    text = level_text(level)
    return {name: (t.format(level=text), c.format(level=text)) for name, (t, c) in TITLES.items()}


def run_tables(
    run: Run, level: float = 0.95, names: list[str] | None = None, mirror: bool = False
) -> dict[str, pd.DataFrame]:
    """Every table of one run (or those of ``names``), as DataFrames of numbers with a plain RangeIndex (names as
    in :data:`TITLES`). Only the tables asked for are computed. ``mirror``: the control variate table also adjusts
    by mirrored greedy replays of every game (``analysis.mirror``; off by default because the replays cost more
    CPU than the games of a greedy run, README "control variates")."""
    makers: dict[str, Callable[[], pd.DataFrame]] = {
        "seats": lambda: seat_win_rates(run, level),
        "seat_advantage": lambda: seat_advantage(run, level),
        "deal_advantage": lambda: deal_advantage(run, level),
        "control_variate": lambda: control_table(run, level, mirror),
        "pairings": lambda: pairing_advantage(run, level),
        "points": lambda: points_per_deal(run, level).reset_index(),
        "categories": lambda: category_table(run, level).reset_index(),
        "game_shape": lambda: game_shape(run, level).reset_index(),
    }
    return {name: make() for name, make in makers.items() if names is None or name in names}


def comparison_tables(runs: list[Run], level: float = 0.95) -> list[pd.DataFrame]:
    """:func:`~analysis.balance.compare_runs` of the first run with each of the others."""
    return [compare_runs(runs[0], other, level).reset_index() for other in runs[1:]]


# ---------------------------------------------------------------- formatting for people


def pct(x: float, digits: int = 2) -> str:
    return "–" if _nan(x) else f"{x:.{digits}%}"


def pct_interval(low: float, high: float, digits: int = 2) -> str:
    return "–" if _nan(low) or _nan(high) else f"{low * 100:.{digits}f}–{high * 100:.{digits}f}%"


def num(x: float, digits: int = 3, sign: bool = False) -> str:
    if _nan(x):
        return "–"
    return f"{x:+,.{digits}f}" if sign else f"{x:,.{digits}f}"


def interval(low: float, high: float, digits: int = 3, sign: bool = False) -> str:
    if _nan(low) or _nan(high):
        return "–"
    return f"{num(low, digits, sign)} to {num(high, digits, sign)}"


def _mean_half_width(key: str) -> Callable[[dict[str, Any]], str]:
    return lambda r: f"{num(r[key], 2)} ± {num(r[key + '_half_width'], 2)}"


def _pp(x: float) -> str:
    return "–" if _nan(x) else f"{x * 100:+.2f} pp"


def _pp_interval(low: float, high: float) -> str:
    return "–" if _nan(low) or _nan(high) else f"{low * 100:+.2f} to {high * 100:+.2f} pp"


def p_value(p: float) -> str:
    if _nan(p):
        return "–"
    return "<1e-300" if p == 0 else f"{p:.2g}"


def gain(x: float) -> str:
    """How many times narrower a paired interval is: ``3.4x``; ``–`` for unpaired rows."""
    if _nan(x):
        return "–"
    return "exact" if math.isinf(x) else f"{x:.1f}x"


def count(n: float) -> str:
    return "–" if _nan(n) else f"{int(n):,}"


def _nan(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


@dataclass(frozen=True)
class Column:
    header: str
    cell: Callable[[Any], str]
    numeric: bool = True


def _rate_columns(ci: str) -> list[Column]:
    return [
        Column("wins", lambda r: count(r["wins"])),
        Column("games", lambda r: count(r["games"])),
        Column("win rate", lambda r: pct(r["rate"])),
        Column(ci, lambda r: pct_interval(r["ci_low"], r["ci_high"])),
    ]


def _estimate(r: dict[str, Any]) -> str:
    return pct(r["estimate"]) if r["expected"] == 0.5 else num(r["estimate"], sign=True)


def _estimate_ci(r: dict[str, Any]) -> str:
    if r["expected"] == 0.5:
        return pct_interval(r["ci_low"], r["ci_high"])
    return interval(r["ci_low"], r["ci_high"], sign=True)


def _cv_value(r: dict[str, Any], key: str, sign: bool = True) -> str:
    """A win rate in percent (a margin in points) of the control-variate table."""
    if r["expected"] == 0:
        return num(r[key], sign=sign)
    return "–" if _nan(r[key]) else f"{r[key] * 100:.2f}%"


def _comparison_value(r: dict[str, Any], key: str) -> str:
    if _nan(r[key]):
        return "–"
    if r["kind"] == "rate":
        if key == "difference":
            return f"{r[key] * 100:+.2f} pp"
        return f"{r[key]:+.2%}" if "advantage" in r["metric"] else pct(r[key])
    return num(r[key], sign=key == "difference")


def _comparison_ci(r: dict[str, Any]) -> str:
    if _nan(r["ci_low"]):
        return "–"
    if r["kind"] == "rate":
        return f"{r['ci_low'] * 100:+.2f} to {r['ci_high'] * 100:+.2f} pp"
    return interval(r["ci_low"], r["ci_high"], sign=True)


def _categories_columns(df: pd.DataFrame, ci: str) -> list[Column]:
    sides = [c for c in df.columns if c.startswith("side_") and not c.endswith("_half_width")]
    cols = [Column("category", lambda r: str(r["category"]), numeric=False)]
    for side in sides:
        k = side.removeprefix("side_")
        cols.append(Column(f"side {k}", lambda r, s=side: f"{num(r[s])} ± {num(r[s + '_half_width'])}"))
    return [
        *cols,
        Column("per deal", lambda r: num(r["per_deal"])),
        Column("tied", lambda r: pct(r["tied"], 1)),
        Column("one side", lambda r: pct(r["one_side"], 1)),
        Column("shared", lambda r: pct(r["shared"], 1)),
        Column("max", lambda r: count(r["max_side"])),
    ]


def _shape_cell(r: dict[str, Any], key: str) -> str:
    share = r["metric"] == "games decided mid-deal"
    if share:
        return pct(r[key]) if key == "estimate" else pct_interval(r["ci_low"], r["ci_high"])
    return num(r[key]) if key == "estimate" else interval(r["ci_low"], r["ci_high"])


#: Table name -> the columns a person sees, given the table and the interval header (``90% CI``).
COLUMNS: dict[str, Callable[[pd.DataFrame, str], list[Column]]] = {
    "seats": lambda df, ci: [
        Column("seat", lambda r: str(r["seat"]), numeric=False),
        Column("policy", lambda r: str(r["policy"]), numeric=False),
        Column("side", lambda r: str(r["side"]), numeric=False),
        *_rate_columns(ci),
    ],
    "seat_advantage": lambda df, ci: [
        Column("role", lambda r: str(r["role"]), numeric=False),
        Column("games of", lambda r: str(r["group"]), numeric=False),
        *_rate_columns(ci),
        Column("expected", lambda r: pct(r["expected"], 1)),
        Column("p", lambda r: p_value(r["p_value"])),
    ],
    "deal_advantage": lambda df, ci: [
        Column("measure", lambda r: str(r["measure"]), numeric=False),
        Column("estimate", _estimate),
        Column(ci, _estimate_ci),
        Column("n", lambda r: count(r["n"])),
        Column("no advantage", lambda r: pct(r["expected"], 0) if r["expected"] == 0.5 else num(r["expected"], 0)),
        Column("p", lambda r: p_value(r["p_value"])),
    ],
    "control_variate": lambda df, ci: [
        Column("measure", lambda r: str(r["measure"]), numeric=False),
        Column("control", lambda r: str(r["control"]), numeric=False),
        Column("plain", lambda r: _cv_value(r, "plain") + " ± " + _cv_value(r, "plain_half_width", sign=False)),
        Column("adjusted", lambda r: _cv_value(r, "estimate")),
        Column(ci, lambda r: _cv_value(r, "ci_low") + " to " + _cv_value(r, "ci_high")),
        Column("R²", lambda r: num(r["r2"], 3)),
        Column("gain", lambda r: gain(r["gain"])),
        Column("games", lambda r: count(r["n"])),
    ],
    "pairings": lambda df, ci: [
        Column("role", lambda r: str(r["role"]), numeric=False),
        Column("pairing", lambda r: str(r["pairing"]), numeric=False),
        *_rate_columns(ci),
        Column("p", lambda r: p_value(r["p_value"])),
    ],
    "points": lambda df, ci: [
        Column("category", lambda r: str(r["category"]), numeric=False),
        Column("leader's side", lambda r: num(r["leader_side"])),
        Column("dealer's side", lambda r: num(r["dealer_side"])),
        Column("difference", lambda r: f"{num(r['difference'], sign=True)} ± {num(r['half_width'])}"),
        Column("any side", lambda r: num(r["all_sides"])),
    ],
    "categories": _categories_columns,
    "game_shape": lambda df, ci: [
        Column("metric", lambda r: str(r["metric"]), numeric=False),
        Column("mean", lambda r: _shape_cell(r, "estimate")),
        Column(ci, lambda r: _shape_cell(r, "ci")),
        Column("p10", lambda r: num(r["p10"], 0)),
        Column("median", lambda r: num(r["median"], 0)),
        Column("p90", lambda r: num(r["p90"], 0)),
        Column("n", lambda r: count(r["n"])),
    ],
    "grid_advantage": lambda df, ci: [
        Column("rule set", lambda r: str(r["rule_set"]), numeric=False),
        Column("games", lambda r: count(r["games"])),
        Column("first player", lambda r: pct(r["first_player_rate"])),
        Column(ci, lambda r: pct_interval(r["first_player_ci_low"], r["first_player_ci_high"])),
        Column("p", lambda r: p_value(r["first_player_p"])),
        Column("change", lambda r: _pp(r["first_player_change"]) if not _nan(r["first_player_change_p"]) else "base"),
        Column(ci + " ", lambda r: _pp_interval(r["first_player_change_ci_low"], r["first_player_change_ci_high"])),
        Column("p ", lambda r: p_value(r["first_player_change_p"])),
        Column("gain", lambda r: gain(r.get("first_player_change_gain", math.nan))),
    ],
    "grid_dealer": lambda df, ci: [
        Column("rule set", lambda r: str(r["rule_set"]), numeric=False),
        Column("first dealer", lambda r: pct(r["first_dealer_rate"])),
        Column(ci, lambda r: pct_interval(r["first_dealer_ci_low"], r["first_dealer_ci_high"])),
        Column("p", lambda r: p_value(r["first_dealer_p"])),
        Column("leader's margin", lambda r: num(r["leader_margin"], sign=True)),
        Column(ci + " ", lambda r: interval(r["leader_margin_ci_low"], r["leader_margin_ci_high"], sign=True)),
        Column("p ", lambda r: p_value(r["leader_margin_p"])),
    ],
    "grid_shape": lambda df, ci: [
        Column("rule set", lambda r: str(r["rule_set"]), numeric=False),
        *(
            Column(name, _mean_half_width(name.replace(" ", "_")))
            for name in ("deals per game", "plays per game", "points per deal", "sweeps per deal", "margin of victory")
        ),
        Column("decided mid-deal", lambda r: pct(r["mid_deal_share"], 1)),
    ],
    "grid_categories": lambda df, ci: [
        Column("category", lambda r: str(r["category"]), numeric=False),
        *(Column(c, lambda r, c=c: num(r[c])) for c in df.columns if c != "category"),
    ],
    "comparison": lambda df, ci: [
        Column("metric", lambda r: str(r["metric"]), numeric=False),
        Column("first run", lambda r: _comparison_value(r, "a")),
        Column("this run", lambda r: _comparison_value(r, "b")),
        Column("difference", lambda r: _comparison_value(r, "difference")),
        Column(ci, _comparison_ci),
        Column("p", lambda r: p_value(r["p_value"])),
        Column("method", lambda r: str(r.get("method", "unpaired")), numeric=False),
        Column("r", lambda r: num(r.get("correlation", math.nan), 2)),
        Column("gain", lambda r: gain(r.get("gain", math.nan))),
    ],
}


def display(name: str, df: pd.DataFrame, level: float = 0.95) -> tuple[list[Column], list[list[str]]]:
    """The columns and the rows of strings a person sees for table ``name`` (intervals at ``level``)."""
    columns = COLUMNS[name](df, f"{level_text(level)} CI")
    rows = [[c.cell(r) for c in columns] for r in df.to_dict(orient="records")]
    return columns, rows


# ---------------------------------------------------------------- whole analyses for machines and Markdown


@dataclass
class Analysis:
    """The tables of several runs, and the comparisons of each run after the first with the first."""

    runs: list[Run]
    tables: list[dict[str, pd.DataFrame]]
    comparisons: list[pd.DataFrame]
    level: float = 0.95

    @classmethod
    def of(cls, runs: list[Run], level: float = 0.95, names: list[str] | None = None, mirror: bool = False) -> Analysis:
        tables = []
        for run in runs:
            tables.append(run_tables(run, level, names, mirror))
        want_comparison = names is None or "comparison" in names
        comparisons = comparison_tables(runs, level) if want_comparison and len(runs) > 1 else []
        return cls(runs, tables, comparisons, level)

    def long(self) -> dict[str, pd.DataFrame]:
        """Each table over all runs in one frame, with a leading ``run`` column (``comparison``: ``run`` and
        ``baseline``) and a last ``level`` column, the confidence level of its intervals."""
        out: dict[str, pd.DataFrame] = {}
        for name in self.tables[0]:
            out[name] = pd.concat(
                [
                    t[name].assign(run=str(r.path), level=self.level)[["run", *t[name].columns, "level"]]
                    for r, t in zip(self.runs, self.tables, strict=True)
                ],
                ignore_index=True,
            )
        if self.comparisons:
            base = str(self.runs[0].path)
            out["comparison"] = pd.concat(
                [
                    c.assign(run=str(r.path), baseline=base, level=self.level)[["run", "baseline", *c.columns, "level"]]
                    for r, c in zip(self.runs[1:], self.comparisons, strict=True)
                ],
                ignore_index=True,
            )
        return out


def to_csv(analysis: Analysis) -> str:
    """CSV: with one table, that table alone (readable by ``pandas.read_csv``); with several, each behind a
    ``# table: NAME`` line and separated by a blank line."""
    tables = analysis.long()
    if len(tables) == 1:
        return next(iter(tables.values())).to_csv(index=False)
    blocks = [f"# table: {name}\n{df.to_csv(index=False)}" for name, df in tables.items()]
    return "\n".join(blocks)


def to_json(analysis: Analysis) -> str:
    """JSON: ``{"level", "runs": [{metadata..., "tables": {name: [records]}}], "comparisons": [...]}``; NaN is
    ``null``."""

    def records(df: pd.DataFrame) -> list[dict[str, Any]]:
        return json.loads(df.to_json(orient="records", double_precision=15))

    runs = [
        {**run.describe(), "tables": {name: records(df) for name, df in tables.items()}}
        for run, tables in zip(analysis.runs, analysis.tables, strict=True)
    ]
    comparisons = [
        {"baseline": str(analysis.runs[0].path), "run": str(run.path), "table": records(df)}
        for run, df in zip(analysis.runs[1:], analysis.comparisons, strict=False)
    ]
    return json.dumps({"level": analysis.level, "runs": runs, "comparisons": comparisons}, indent=1) + "\n"


def markdown_table(name: str, df: pd.DataFrame, level: float = 0.95) -> str:
    """A GitHub-flavoured Markdown table of :func:`display`'s strings (numbers right-aligned)."""
    columns, rows = display(name, df, level)
    buf = io.StringIO()
    buf.write("| " + " | ".join(c.header for c in columns) + " |\n")
    buf.write("|" + "|".join("---:" if c.numeric else "---" for c in columns) + "|\n")
    for row in rows:
        buf.write("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |\n")
    return buf.getvalue()


def run_heading(run: Run) -> str:
    """One line naming a run: variant, players, policies, seed, games, stop."""
    policies = ", ".join(run.policies) if len(set(run.policies)) > 1 else f"{run.policies[0]} self-play"
    stopped = f" (stopped early: {run.stopped})" if run.stopped else ""
    return f"{run.variant}, {run.players} players, {policies}, seed {run.seed}, {run.n_games:,} games{stopped}"


def rules_text(run: Run) -> str:
    return ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in run.rules.items())


def to_markdown(analysis: Analysis) -> str:
    named = titles(analysis.level)
    parts = []
    for run, tables in zip(analysis.runs, analysis.tables, strict=True):
        parts.append(f"## {run.path}\n\n{run_heading(run)}\n\nrules: {rules_text(run)}\n")
        for name, df in tables.items():
            title, caption = named[name]
            parts.append(f"### {title}\n\n{markdown_table(name, df, analysis.level)}\n{caption}\n")
    for run, df in zip(analysis.runs[1:], analysis.comparisons, strict=False):
        title, caption = named["comparison"]
        table = markdown_table("comparison", df, analysis.level)
        parts.append(f"## {title}: {run.path} against {analysis.runs[0].path}\n\n{table}\n{caption}\n")
    return "\n".join(parts)
