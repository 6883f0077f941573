"""``scopasim report``: one self-contained HTML page with the tables of ``analyze`` and the figures of ``plots``.

The page needs nothing but itself: the style sheet is inline and every figure is a PNG embedded as base64 in an
``<img>``. Each table carries ``data-table="NAME"`` (the names of :data:`analysis.tables.TITLES`) and each figure
``data-figure="NAME"``, so tests and scripts can find them. Every interval is labelled with its level.
"""

from __future__ import annotations

import base64
import html
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from analysis import plots
from analysis.load import Run
from analysis.tables import Analysis, display, level_text, rules_text, run_heading, titles

STYLE = """
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 24px auto; max-width: 1300px;
       color: #222; line-height: 1.4; padding: 0 16px; }
h1 { font-size: 26px; margin-bottom: 4px; }
h2 { font-size: 21px; border-bottom: 2px solid #1f77b4; padding-bottom: 4px; margin-top: 40px; }
h3 { font-size: 17px; margin-top: 28px; }
p.sub, p.caption { color: #555; font-size: 13px; }
p.caption { margin-top: 4px; }
table { border-collapse: collapse; font-size: 13.5px; margin: 8px 0; }
th, td { padding: 4px 10px; border-bottom: 1px solid #ddd; }
th { background: #f0f4f8; text-align: left; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.meta td:first-child { font-weight: bold; white-space: nowrap; }
table.key td { font-size: 15px; }
figure { margin: 12px 0 24px 0; }
figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { color: #555; font-size: 13px; }
"""


def html_table(name: str, df: pd.DataFrame, level: float = 0.95) -> str:
    """A table of :func:`~analysis.tables.display`'s strings, titled and captioned from ``TITLES``."""
    title, caption = titles(level)[name]
    columns, rows = display(name, df, level)
    head = "".join(f'<th class="{"num" if c.numeric else "text"}">{html.escape(c.header)}</th>' for c in columns)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="{"num" if c.numeric else "text"}">{html.escape(cell)}</td>'
            for c, cell in zip(columns, row, strict=True)
        )
        + "</tr>"
        for row in rows
    )
    return (
        f"<h4>{html.escape(title)}</h4>\n"
        f'<table data-table="{name}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>\n'
        f'<p class="caption">{html.escape(caption)}</p>\n'
    )


def html_figure(name: str, png: bytes, caption: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return (
        f'<figure data-figure="{name}"><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>\n"
    )


def _meta_table(run: Run) -> str:
    manifest = run.manifest
    config = manifest.get("config", {})
    requested = config.get("games", run.n_games)
    games = f"{run.n_games:,}"
    if run.stopped:
        games += f" of {requested:,} requested (stopped early: {run.stopped})"
    rows = [
        ("run folder", str(run.path)),
        ("variant", f"{run.variant} ({run.players} players, {run.n_sides} sides)"),
        ("policies", ", ".join(f"seat {i}: {p}" for i, p in enumerate(run.policies))),
        ("seed", str(run.seed)),
        ("games", games),
        ("rules", rules_text(run)),
        ("simulated", f"{manifest.get('started', '?')} to {manifest.get('finished', '?')}"),
        ("scopasim", str(run.meta.get("versions", {}).get("scopasim", "?"))),
    ]
    body = "".join(f"<tr><td>{html.escape(k)}</td><td>{html.escape(v)}</td></tr>" for k, v in rows)
    return f'<table class="meta">{body}</table>\n'


def _key_figures(tables: dict[str, pd.DataFrame], level: float) -> str:
    """The answers first: the opening advantage over games and per deal, in one small table."""
    adv = tables["seat_advantage"]
    deal = tables["deal_advantage"].set_index("measure")
    rows = []
    for role in ("first player", "first dealer"):
        r = adv[(adv["role"] == role) & (adv["group"] == "all")].iloc[0]
        rows.append(
            (
                f"{role}'s side wins",
                f"{r['rate']:.2%}",
                f"{r['ci_low']:.2%} – {r['ci_high']:.2%}",
                f"{r['expected']:.1%}",
                _p(r["p_value"]),
            )
        )
    m = deal.loc["points margin per deal"]
    rows.append(
        (
            "leader's points margin per deal",
            f"{m['estimate']:+.3f}",
            f"{m['ci_low']:+.3f} – {m['ci_high']:+.3f}",
            "0",
            _p(m["p_value"]),
        )
    )
    head = "".join(
        f'<th class="{c}">{h}</th>'
        for h, c in (
            ("", "text"),
            ("estimate", "num"),
            (f"{level_text(level)} CI", "num"),
            ("no advantage", "num"),
            ("p", "num"),
        )
    )
    body = "".join(
        f'<tr><td>{html.escape(a)}</td><td class="num"><b>{html.escape(b)}</b></td>'
        + "".join(f'<td class="num">{html.escape(x)}</td>' for x in rest)
        + "</tr>"
        for a, b, *rest in rows
    )
    return f'<table class="key" data-table="key"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>\n'


def _p(p: float) -> str:
    from analysis.tables import p_value

    return p_value(p)


def run_section(run: Run, tables: dict[str, pd.DataFrame], level: float) -> str:
    pct = level_text(level)
    parts = [
        f"<section><h2>{html.escape(run_heading(run))}</h2>\n",
        _meta_table(run),
        "<h3>Key figures</h3>\n",
        _key_figures(tables, level),
        "<h3>Seat advantage</h3>\n",
        html_figure(
            "advantage",
            plots.png(plots.advantage_figure(run, level)),
            "Left: how often the side of the first player (blue) or first dealer (red) won, over all games and by "
            f"seat, with {pct} Wilson intervals; dashed: no advantage. Right: per deal, the leading side's points "
            f"minus the dealing side's, by category, with {pct} t intervals.",
        ),
        *(
            html_table(name, tables[name], level)
            for name in ("seat_advantage", "deal_advantage", "control_variate", "pairings", "seats")
            if name in tables
        ),
        "<h3>Convergence</h3>\n",
        html_figure(
            "convergence",
            plots.png(plots.convergence_figure(run, level)),
            f"The first player's side's win rate over the first n games (log scale), with its {pct} Wilson band.",
        ),
        "<h3>Scoring</h3>\n",
        html_figure(
            "categories",
            plots.png(plots.category_figure(run, level)),
            "For each scoring category, the share of deals in which each side scored 0, 1, 2, ... points "
            f"(wide ranges binned), with each side's mean per deal ± the half-width of its {pct} t interval in the "
            "legend.",
        ),
        *(html_table(name, tables[name], level) for name in ("categories", "points")),
        "<h3>Game length and finish</h3>\n",
        html_figure(
            "shape",
            plots.png(plots.shape_figure(run)),
            "Deals per game, plays per game and margin of victory (share of games; dashed: the mean).",
        ),
        html_table("game_shape", tables["game_shape"], level),
        "</section>\n",
    ]
    return "".join(parts)


def render_report(runs: list[Run], level: float = 0.95, mirror: bool = False) -> str:
    """The whole HTML page for ``runs`` (with several, each after the first is also compared with the first);
    ``mirror`` as for :func:`analysis.tables.run_tables`."""
    from simcore import __version__

    analysis = Analysis.of(runs, level, mirror=mirror)
    title = "scopasim report: " + "; ".join(run_heading(r) for r in runs)
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    parts = [
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>\n",
        "<h1>scopasim report</h1>\n",
        f'<p class="sub">{len(runs)} run{"s" if len(runs) > 1 else ""}; intervals at {level_text(level)}; '
        f"written {stamp} by scopasim {html.escape(__version__)}</p>\n",
    ]
    for run, tables in zip(analysis.runs, analysis.tables, strict=True):
        parts.append(run_section(run, tables, level))
    for run, df in zip(analysis.runs[1:], analysis.comparisons, strict=False):
        parts.append(
            f"<section><h2>{html.escape(str(run.path))} against {html.escape(str(runs[0].path))}</h2>\n"
            + html_table("comparison", df, level)
            + "</section>\n"
        )
    parts.append("</body></html>\n")
    return "".join(parts)


def write_report(html_text: str, out: Path) -> None:
    """Write the page to ``out`` through a temporary file, so a reader never sees half a page."""
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        tmp.write_text(html_text, encoding="utf-8")
        tmp.replace(out)
    except OSError:
        tmp.unlink(missing_ok=True)  # a full disk or a read-only folder leaves nothing behind
        raise
