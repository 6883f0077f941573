"""``balance --search``: find the rule set of a grid that best meets an objective, spending games where they decide.

Objectives (each a distance to minimise):

- ``fair``: the first player's side's win rate closest to 1 / sides (50% with two sides);
- ``target``: that win rate closest to a given rate;
- ``points``: the leading side's points minus the dealing side's per deal (each game's mean over its deals)
  closest to 0, the smallest seat advantage in points.

Racing: every rule set of the grid plays the same games (same seed, same game indices) in rounds of one chunk
(``simcore.rounds``). After each round the rule set with the best estimate is the leader, and a rule set is
dropped once it is confidently worse than the leader: for every pair of values its confidence sequences allow, its
distance is larger. Two anytime-valid intervals decide (``analysis.sequential``): the rule set's own mean, at
``alpha / 2``, and its game-by-game paired difference from the leader, at ``alpha / (2 (K - 1))`` for K rule sets.
The paired difference is what makes racing cheap: rule sets that share most games differ in few, so it is far
narrower than the two means' intervals. The best rule set can only be dropped if its own sequence or one of its
K - 1 paired sequences fails, so it survives with probability at least ``1 - alpha`` however many rounds are looked
at. The race ends when one rule set is left, or when the survivors have played every game of the budget; the best
survivor by its estimate is the answer (with full budgets, the estimates are an exhaustive run's).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from analysis.precision import RaceData
from analysis.sequential import MeanSequence, sequence_of

OBJECTIVES = ("fair", "target", "points")


@dataclass(frozen=True)
class Objective:
    """What the search minimises: ``|mean - target|`` of an outcome per game in ``[lo, hi]``."""

    kind: str
    targets: tuple[float, ...]  # per rule set (``fair`` depends on the number of sides)
    lo: float
    hi: float

    @property
    def outcome(self) -> str:
        return "points" if self.kind == "points" else "win"


def _distance_gap(u: tuple[float, float], e: tuple[float, float]) -> float:
    """``min |u| - |u - e|`` over the box ``u in [u0, u1]``, ``e in [e0, e1]``: for a fixed ``u`` the worst ``e``
    is an end of its interval, and the minimum over ``u`` of that piecewise-linear function is at an end or a kink
    (0, the middle of ``e``'s interval)."""
    candidates = [u[0], u[1]] + [x for x in (0.0, (e[0] + e[1]) / 2) if u[0] <= x <= u[1]]
    return min(abs(x) - max(abs(x - e[0]), abs(x - e[1])) for x in candidates)


@dataclass
class Racer:
    """``decide`` of the search (``simcore.rounds.race``): reads each round's chunk, drops what is confidently
    worse than the leader, and keeps the record of why (``dropped``: rule set -> (round, leader))."""

    data: RaceData
    objective: Objective
    alpha: float
    labels: list[str]
    dropped: dict[int, tuple[int, int]] = field(default_factory=dict)

    @property
    def k(self) -> int:
        return len(self.labels)

    def estimate(self, i: int) -> float:
        x = self.data.values(i)
        return float(x.mean()) if len(x) else math.nan

    def distance(self, i: int) -> float:
        return abs(self.estimate(i) - self.objective.targets[i])

    def own_sequence(self, i: int, alpha: float) -> MeanSequence:
        return sequence_of(self.data.values(i), self.objective.lo, self.objective.hi, alpha)

    def paired_sequence(self, i: int, j: int, alpha: float) -> MeanSequence:
        """Confidence sequence of rule set i's outcome minus j's, game by game, on the games both played."""
        a, b = self.data.values(i), self.data.values(j)
        n = min(len(a), len(b))
        span = self.objective.hi - self.objective.lo
        return sequence_of(a[:n] - b[:n], -span, span, alpha)

    def worse(self, i: int, leader: int) -> bool:
        """Rule set i's distance is larger than the leader's for every value both sequences allow."""
        t = self.objective.targets
        own = self.own_sequence(i, self.alpha / 2).interval
        diff = self.paired_sequence(i, leader, self.alpha / (2 * max(self.k - 1, 1))).interval
        shift = t[i] - t[leader]  # u = p_i - t_i; the leader's distance is |u - e| with e = (p_i - p_leader) - shift
        u = (own[0] - t[i], own[1] - t[i])
        e = (diff[0] - shift, diff[1] - shift)
        return _distance_gap(u, e) > 0

    def __call__(self, rnd: int, active: list[int]) -> dict[int, str]:
        self.data.read(rnd, active)
        if len(active) == 1:
            return {active[0]: "search: the only rule set left"}
        leader = min(active, key=lambda i: (self.distance(i), i))
        ends = {}
        for i in active:
            if i != leader and self.worse(i, leader):
                ends[i] = f"search: worse than {self.labels[leader]}"
                self.dropped[i] = (rnd, leader)
        if len(active) - len(ends) == 1:
            ends[leader] = "search: the only rule set left"
        return ends


def ranking(racer: Racer, level: float) -> pd.DataFrame:
    """The rule sets ranked: survivors first, each group by estimated distance. Intervals are the confidence
    sequences at ``level`` (valid at the games each rule set got); ``vs_best`` is the paired difference from the
    best rule set, on the games both played."""
    alpha = 1 - level
    survivors = [i for i in range(racer.k) if i not in racer.dropped]
    order = sorted(range(racer.k), key=lambda i: (i in racer.dropped, racer.distance(i), i))
    best = order[0] if survivors else None
    rows = []
    for rank, i in enumerate(order, 1):
        own = racer.own_sequence(i, alpha)
        low, high = own.interval
        t = racer.objective.targets[i]
        row = {
            "rank": rank,
            "rule_set": racer.labels[i],
            "games": len(racer.data.values(i)),
            "estimate": own.mean,
            "ci_low": low,
            "ci_high": high,
            "target": t,
            "distance": abs(own.mean - t),
            "distance_low": 0.0 if low <= t <= high else min(abs(low - t), abs(high - t)),
            "distance_high": max(abs(low - t), abs(high - t)),
        }
        if best is not None and i != best:
            d = racer.paired_sequence(i, best, alpha)
            row |= {"vs_best": d.mean, "vs_best_low": d.interval[0], "vs_best_high": d.interval[1]}
        else:
            row |= {"vs_best": 0.0 if i == best else math.nan, "vs_best_low": math.nan, "vs_best_high": math.nan}
        if i in racer.dropped:
            rnd, leader = racer.dropped[i]
            row["status"] = f"dropped after {rnd} rounds (worse than {racer.labels[leader]})"
        else:
            row["status"] = "best" if i == best else "survivor"
        rows.append(row)
    return pd.DataFrame(rows)


def identical_outcomes(racer: Racer) -> list[str]:
    """Warnings for the rule sets left that had the same outcome as another one left in every game both played:
    the race cannot tell them apart (the rule did not matter to these policies), so they play to the budget."""
    left = [i for i in range(racer.k) if i not in racer.dropped]
    groups: list[list[int]] = []
    for i in left:
        for group in groups:
            a, b = racer.data.values(i), racer.data.values(group[0])
            if len(a) == len(b) and np.array_equal(a, b):
                group.append(i)
                break
        else:
            groups.append([i])
    return [
        f"rule sets {', '.join(repr(racer.labels[i]) for i in g)} had the same outcome in all "
        f"{len(racer.data.values(g[0])):,} games: the search cannot tell them apart"
        for g in groups
        if len(g) > 1
    ]


def search_summary(table: pd.DataFrame, budget: int) -> dict[str, object]:
    """The answer and what it cost: the best rule set, the games played, and their share of an exhaustive run."""
    games = int(table["games"].sum())
    return {
        "best": str(table.iloc[0]["rule_set"]),
        "games": games,
        "exhaustive_games": budget * len(table),
        "share_of_exhaustive": games / (budget * len(table)),
    }


def display(table: pd.DataFrame, kind: str, level: float) -> tuple[list[str], list[list[str]]]:
    """Headers and cells of the ranking for people (rich and Markdown)."""
    pct = kind != "points"

    def value(x: float, sign: bool = False) -> str:
        if isinstance(x, float) and math.isnan(x):
            return ""
        if pct:
            return f"{x * 100:+.2f} pp" if sign else f"{x:.2%}"
        return f"{x:+.4f}" if sign else f"{x:.4f}"

    quantity = "first player's win rate" if pct else "leader's margin per deal"
    ci = f"{round(level * 100, 6):g}% CS"
    headers = ["rank", "rule set", "games", quantity, ci, "distance", f"distance {ci}", "vs best", f"vs best {ci}"]
    headers.append("status")
    rows = []
    for r in table.to_dict("records"):
        paired = (
            ""
            if math.isnan(r["vs_best_low"])
            else f"{value(r['vs_best_low'], True)} .. {value(r['vs_best_high'], True)}"
        )
        rows.append(
            [
                str(r["rank"]),
                r["rule_set"],
                f"{r['games']:,}",
                value(r["estimate"]),
                f"{value(r['ci_low'])} .. {value(r['ci_high'])}",
                value(r["distance"], True).lstrip("+"),
                f"{value(r['distance_low'], True).lstrip('+')} .. {value(r['distance_high'], True).lstrip('+')}",
                value(r["vs_best"], True),
                paired,
                r["status"],
            ]
        )
    return headers, rows


def to_markdown(table: pd.DataFrame, kind: str, level: float) -> str:
    headers, rows = display(table, kind, level)
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"
