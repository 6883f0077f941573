"""Figures of a run (matplotlib, Agg): seat advantage with error bars, category distributions per side, the
convergence of the first player's win rate, the shape of games, and a balance grid.

Figures are built with ``matplotlib.figure.Figure`` directly, not ``pyplot``: no global state, no GUI backend,
rendering through Agg whatever ``MPLBACKEND`` says. :func:`png` turns a figure into PNG bytes. matplotlib is
imported inside the functions, so ``import analysis`` stays light.
"""

from __future__ import annotations

import io
import textwrap
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from analysis.balance import category_distribution, category_table, convergence, shape_hists
from analysis.load import Run
from analysis.stats import points_per_deal, seat_advantage
from analysis.tables import level_text

if TYPE_CHECKING:
    from matplotlib.figure import Figure

ROLE_COLOURS = {"first player": "#1f77b4", "first dealer": "#d62728"}
SIDE_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
#: A category with more distinct point values than this is shown in ranges of values.
MAX_VALUES = 14


def new_figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    return fig


def png(fig: Figure, dpi: int = 100) -> bytes:
    """The figure as PNG bytes (rendered by Agg)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def _forest(ax, labels: list[str], est, low, high, colours: list[str], reference: float, fmt) -> None:
    """Horizontal points with interval bars, top to bottom, a dashed line at ``reference``, values written."""
    y = np.arange(len(labels))[::-1]
    est, low, high = (np.asarray(v, dtype=float) for v in (est, low, high))
    for yi, e, lo, hi, colour in zip(y, est, low, high, colours, strict=True):
        ax.errorbar(e, yi, xerr=[[e - lo], [hi - e]], fmt="o", color=colour, capsize=4, markersize=5)
    ax.axvline(reference, color="0.4", linestyle="--", linewidth=1)
    ax.set_yticks(y, labels)
    span = max(np.nanmax(high) - np.nanmin(low), 1e-9)
    left, right = min(np.nanmin(low), reference), max(np.nanmax(high), reference)
    ax.set_xlim(left - 0.08 * span, right + 0.55 * span)
    for yi, e, lo, hi in zip(y, est, low, high, strict=True):
        ax.annotate(
            f"{fmt(e)}  [{fmt(lo)}, {fmt(hi)}]",
            (hi, yi),
            xytext=(6, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
        )
    ax.set_ylim(-0.7, len(labels) - 0.3)
    ax.grid(axis="x", alpha=0.3)


def advantage_figure(run: Run, level: float = 0.95) -> Figure:
    """Left: the win rate of the first player's and the first dealer's side (all games, by seat, by side) with
    its Wilson interval against 1 / sides. Right: the leading side's per-deal points minus the dealing side's,
    by category, with t intervals, against 0."""
    adv = seat_advantage(run, level)
    points = points_per_deal(run, level)
    rows = max(len(adv), len(points))
    fig = new_figure(13, 1.2 + 0.38 * rows)
    left, right = fig.subplots(1, 2, width_ratios=[1.1, 1])
    _forest(
        left,
        [f"{r.role}: {r.group}" for r in adv.itertuples()],
        adv["rate"],
        adv["ci_low"],
        adv["ci_high"],
        [ROLE_COLOURS[r] for r in adv["role"]],
        float(adv["expected"].iloc[0]),
        lambda x: f"{x:.2%}",
    )
    left.set_xticks([t for t in left.get_xticks() if 0 <= t <= 1])  # no ticks in the labels' margin past 100%
    left.xaxis.set_major_formatter(lambda x, _: f"{x:.1%}")
    left.set_xlabel(f"share of games won by that side ({level_text(level)} Wilson interval; dashed: no advantage)")
    left.set_title("Opening advantage over games")
    _forest(
        right,
        list(points.index),
        points["difference"],
        points["difference"] - points["half_width"],
        points["difference"] + points["half_width"],
        ["#444444"] * len(points),
        0.0,
        lambda x: f"{x:+.3f}",
    )
    right.set_xlabel(f"leader's side minus dealer's side, points per deal ({level_text(level)} t interval)")
    right.set_title("Per deal: leading side against dealing side")
    return fig


def _binned(dist: pd.DataFrame) -> tuple[list[str], np.ndarray]:
    """Labels of the point values shown for one category, and each side's share of deals for each: every value
    when there are few, else 0 alone and equal-width ranges of the others."""
    table = dist.pivot_table(index="points", columns="side", values="share", aggfunc="sum", fill_value=0.0)
    values = table.index.to_numpy()
    if len(values) <= MAX_VALUES:
        return [str(int(v)) for v in values], table.to_numpy()
    others = values[values != 0]
    width = int(np.ceil((others.max() - others.min() + 1) / (MAX_VALUES - 1)))
    starts = np.arange(others.min(), others.max() + 1, width)
    labels, shares = [], []
    if (values == 0).any():
        labels.append("0")
        shares.append(table.loc[0].to_numpy())
    for lo in starts:
        hi = lo + width - 1
        in_bin = (values >= lo) & (values <= hi) & (values != 0)
        labels.append(f"{lo}–{hi}")
        shares.append(table[in_bin].sum(axis=0).to_numpy())
    return labels, np.vstack(shares)


def category_figure(run: Run, level: float = 0.95) -> Figure:
    """One panel per scoring category: the share of deals in which each side scored 0, 1, 2, ... points in it
    (rare values lumped), titled with each side's mean per deal and its interval."""
    dist = category_distribution(run)
    means = category_table(run, level)
    pct = level_text(level)
    cats = run.categories
    ncols = 3
    nrows = -(-len(cats) // ncols)
    fig = new_figure(13, 0.6 + 2.7 * nrows)
    axes = np.atleast_1d(fig.subplots(nrows, ncols)).ravel()
    width = 0.8 / run.n_sides
    for ax, cat in zip(axes, cats, strict=False):
        labels, shares = _binned(dist[dist["category"] == cat])
        x = np.arange(len(labels))
        for k in range(run.n_sides):
            mean, hw = means.loc[cat, f"side_{k}"], means.loc[cat, f"side_{k}_half_width"]
            ax.bar(
                x + (k - (run.n_sides - 1) / 2) * width,
                shares[:, k] if shares.size else [],
                width,
                color=SIDE_COLOURS[k % len(SIDE_COLOURS)],
                label=f"side {k}: mean {mean:.3f} ± {hw:.3f} ({pct} CI)",
            )
        ax.set_xticks(x, labels, fontsize=8 if len(labels) > 8 else 10, rotation=45 if len(labels) > 8 else 0)
        ax.set_title(cat, fontsize=11)
        ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
        ax.set_ylim(0, 1.12 * max(float(shares.max()) if shares.size else 0.0, 1e-9) + 0.08)
        ax.legend(fontsize=8, loc="upper right", frameon=False)
        ax.set_xlabel("points in the deal", fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    for ax in axes[len(cats) :]:
        ax.set_visible(False)
    fig.suptitle("Points per deal by category and side: share of deals", fontsize=12)
    return fig


def convergence_figure(run: Run, level: float = 0.95) -> Figure:
    """The first player's side's win rate as games accumulate, with its Wilson band and the no-advantage line."""
    conv = convergence(run, level=level)
    fig = new_figure(13, 4.2)
    ax = fig.subplots()
    ax.fill_between(conv["games"], conv["ci_low"], conv["ci_high"], color="#1f77b4", alpha=0.25, linewidth=0)
    ax.plot(conv["games"], conv["rate"], color="#1f77b4", label="first player's side: win rate so far")
    expected = float(conv["expected"].iloc[0])
    ax.axhline(expected, color="0.4", linestyle="--", linewidth=1, label=f"no advantage ({expected:.1%})")
    ax.set_xscale("log")
    last = conv.iloc[-1]
    ax.annotate(
        f"{last['rate']:.2%} [{last['ci_low']:.2%}, {last['ci_high']:.2%}]\nafter {int(last['games']):,} games",
        (last["games"], last["rate"]),
        xytext=(-10, 30),
        textcoords="offset points",
        ha="right",
        fontsize=9,
        arrowprops={"arrowstyle": "->", "color": "0.3"},
    )
    # zoom on the part of the band that is not dominated by the first few games
    tail = conv[conv["games"] >= min(1000, int(last["games"]))]
    low, high = min(tail["ci_low"].min(), expected), max(tail["ci_high"].max(), expected)
    pad = (high - low) * 0.6 + 1e-4
    ax.set_ylim(low - pad, high + pad)
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.1%}")
    ax.set_xlabel("games played (log scale)")
    ax.set_ylabel("win rate")
    ax.set_title(f"Convergence of the first player's win rate ({level_text(level)} Wilson band)")
    ax.legend(loc="lower right", fontsize=9)
    ax.grid(alpha=0.3)
    return fig


def shape_figure(run: Run) -> Figure:
    """Histograms of deals per game, plays per game and the margin of victory."""
    from matplotlib.ticker import MaxNLocator

    hists = shape_hists(run)
    fig = new_figure(13, 3.6)
    axes = fig.subplots(1, 3)
    for ax, name in zip(axes, ("deals per game", "plays per game", "margin of victory"), strict=True):
        values, counts = hists[name].items()
        share = counts / counts.sum()
        if len(values) <= 60:
            ax.bar(values, share, width=0.8 * (np.min(np.diff(values)) if len(values) > 1 else 1.0))
        else:
            ax.hist(values, bins=50, weights=share)
        mean = hists[name].mean
        ax.axvline(mean, color="#d62728", linestyle="--", linewidth=1, label=f"mean {mean:.2f}")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(name)
        ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
        ax.legend(fontsize=8, frameon=False)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("share of games")
    return fig


def balance_figure(table: pd.DataFrame, categories: pd.DataFrame, title: str, level: float = 0.95) -> Figure:
    """A balance grid (``analysis.grid.balance_table`` and ``category_means``): the first player's and the first
    dealer's advantage with intervals, the leader's margin per deal with intervals, and the points per deal of
    each category, one group per rule set."""
    from matplotlib.ticker import MaxNLocator

    fig = new_figure(13, 4.2 + 0.45 * len(table))
    top, bottom = fig.subfigures(2, 1, height_ratios=[1, 1])
    left, right = top.subplots(1, 2)
    labels = list(table["rule_set"])
    n = len(labels)
    for role, prefix, offset in (("first player", "first_player", -0.15), ("first dealer", "first_dealer", 0.15)):
        y = np.arange(n)[::-1] + offset
        adv = table[f"{prefix}_rate"] - table["expected"]
        low = table[f"{prefix}_ci_low"] - table["expected"]
        high = table[f"{prefix}_ci_high"] - table["expected"]
        left.errorbar(adv, y, xerr=[adv - low, high - adv], fmt="o", capsize=4, color=ROLE_COLOURS[role], label=role)
    left.axvline(0, color="0.4", linestyle="--", linewidth=1)
    left.set_yticks(np.arange(n)[::-1], labels)
    left.xaxis.set_major_locator(MaxNLocator(nbins=6))
    left.xaxis.set_major_formatter(lambda v, _: f"{v * 100:+.1f}")
    left.set_xlabel(f"win rate minus 1 / sides, percentage points ({level_text(level)} Wilson interval)")
    left.set_title("Opening advantage")
    left.set_ylim(-0.6, n - 0.4 + 0.5)  # room above the top rule set for the legend
    left.legend(fontsize=8, loc="upper right", ncols=2)
    left.grid(axis="x", alpha=0.3)
    y = np.arange(n)[::-1]
    m = table["leader_margin"]
    right.errorbar(
        m, y, xerr=[m - table["leader_margin_ci_low"], table["leader_margin_ci_high"] - m], fmt="o", capsize=4
    )
    right.axvline(0, color="0.4", linestyle="--", linewidth=1)
    right.set_yticks(y, labels)
    right.set_ylim(-0.6, n - 0.4)
    right.set_xlabel(f"leader's minus dealer's points per deal ({level_text(level)} t interval)")
    right.set_title("Per-deal advantage of the leading side")
    right.grid(axis="x", alpha=0.3)
    ax = bottom.subplots()
    cats = list(categories.index)
    x = np.arange(len(cats))
    width = 0.8 / max(n, 1)
    for i, label in enumerate(labels):
        ax.bar(x + (i - (n - 1) / 2) * width, categories[label], width, label=label)
    ax.set_xticks(x, cats)
    ax.set_ylabel("points per deal (all sides)")
    ax.set_title("Points awarded per deal by category")
    ax.set_ylim(0, 1.3 * max(float(categories.to_numpy().max()), 1e-9))
    ax.legend(fontsize=8, ncols=min(n, 3), loc="upper right")
    ax.grid(axis="y", alpha=0.3)
    fig.suptitle(textwrap.fill(title, 150), fontsize=11)
    return fig


def search_figure(table: pd.DataFrame, kind: str, title: str, level: float = 0.95) -> Figure:
    """``balance --search`` (``analysis.search.ranking``): each rule set's estimate with its confidence sequence
    at ``level`` against the target, best on top, coloured by its fate; and the games each one got."""
    fig = new_figure(12, 1.6 + 0.42 * len(table))
    left, right = fig.subplots(1, 2, width_ratios=[3, 1.4], sharey=True)
    labels = list(table["rule_set"])
    pct = kind != "points"
    scale = 100 if pct else 1
    colours = ["#2ca02c" if s == "best" else "#1f77b4" if s == "survivor" else "0.55" for s in table["status"]]
    target = table["target"].to_numpy(dtype=float)
    est = (table["estimate"] - target) * scale
    low = (table["ci_low"] - target) * scale
    high = (table["ci_high"] - target) * scale
    _forest(left, labels, est, low, high, colours, 0.0, lambda v: f"{v:+.2f}")
    unit = "percentage points" if pct else "points per deal"
    what = "first player's win rate minus the target" if pct else "leader's minus dealer's points per deal"
    left.set_xlabel(f"{what}, {unit} ({level_text(level)} confidence sequence)")
    left.set_title("Rule sets ranked (green: best; blue: survivor; grey: dropped)")
    left.grid(axis="x", alpha=0.3)
    y = np.arange(len(labels))[::-1]
    right.barh(y, table["games"], color=colours)
    right.set_xlabel("games played")
    right.set_title("Games each got")
    right.grid(axis="x", alpha=0.3)
    fig.suptitle(textwrap.fill(title, 150), fontsize=11)
    return fig
