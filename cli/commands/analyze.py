"""``scopasim analyze``: the statistics of one or more run folders, as rich tables or for machines."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from cli import render
from cli.options import Mirror
from simcore.errors import ConfigError, OutputError


class Format(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"
    markdown = "markdown"


def check_level(level: float) -> None:
    if not (isinstance(level, int | float) and math.isfinite(level) and 0 < level < 1):
        raise ConfigError(f"--level must be a number between 0 and 1 (exclusive), such as 0.95; got {level}")


def analyze(
    runs: Annotated[
        list[Path], typer.Argument(help="Run folders; with several, each is also compared with the first.")
    ],
    fmt: Annotated[
        Format, typer.Option("--format", "-f", help="table (rich, for people), csv, json or markdown.")
    ] = Format.table,
    table: Annotated[
        list[str] | None,
        typer.Option("--table", help="Only this table (repeatable); csv of one table is plain CSV. [default: all]"),
    ] = None,
    level: Annotated[float, typer.Option("--level", help="Confidence level of the intervals.")] = 0.95,
    partial: Annotated[bool, typer.Option("--partial", help="Read the finished chunks of incomplete runs.")] = False,
    mirror: Mirror = False,
) -> None:
    """Seat advantage, scoring and game shape of run folders, with confidence intervals and tests."""
    from analysis import load_runs
    from analysis.tables import TITLES, Analysis, to_csv, to_json, to_markdown
    from cli.commands.tournament import analyze_tournament, is_tournament

    if any(is_tournament(path) for path in runs):
        return analyze_tournament(runs, fmt, level, table, partial)
    check_level(level)
    names = list(dict.fromkeys(table)) if table else None
    known = [n for n in TITLES if not n.startswith("grid_")]  # the grid tables are balance's
    unknown = [n for n in names or [] if n not in known]
    if unknown:
        shown = ", ".join(render_value(n) for n in unknown[:3])
        raise ConfigError(f"--table: unknown table(s) {shown} (tables: {', '.join(known)})")
    if names == ["comparison"] and len(runs) < 2:
        raise ConfigError("--table comparison needs at least two runs")
    loaded = load_runs(runs, allow_partial=partial)
    with analysis_errors():
        result = Analysis.of(loaded, level, names, mirror)
        warnings = identical_warnings(loaded) if len(loaded) > 1 else []
    for warning in warnings:
        typer.echo(f"warning: {warning}", err=True)
    if fmt is Format.csv:
        typer.echo(to_csv(result), nl=False)
    elif fmt is Format.json:
        typer.echo(to_json(result), nl=False)
    elif fmt is Format.markdown:
        typer.echo(to_markdown(result), nl=False)
    else:
        print_analysis(render.console(), result)


def render_value(value: str, limit: int = 60) -> str:
    """A user's value as echoed in a message: quoted, and cut to ``limit`` characters."""
    return repr(value if len(value) <= limit else value[:limit] + "...")


@contextmanager
def analysis_errors() -> Iterator[None]:
    """Turn a ValueError of the analysis (a table it cannot make sense of) into a one-line OutputError."""
    try:
        yield
    except ValueError as exc:
        raise OutputError(f"cannot analyse the run: {exc}") from None


def identical_warnings(runs: list) -> list[str]:
    """:func:`analysis.balance.identical_games` of run folders, named by their paths."""
    from analysis.balance import identical_games

    return [f"runs {s}" for s in identical_games(runs, [str(r.path) for r in runs])]


def rich_table(name: str, df, level: float = 0.95) -> Table:
    """A rich table of :func:`analysis.tables.display`'s strings, with its title and caption."""
    from analysis.tables import display, titles

    title, caption = titles(level)[name]
    out = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    columns, rows = display(name, df, level)
    for column in columns:
        # in a narrow terminal cells fold onto more lines rather than lose digits to an ellipsis
        out.add_column(column.header, justify="right" if column.numeric else "left", overflow="fold")
    for row in rows:
        out.add_row(*row)
    return out


def print_analysis(console: Console, result) -> None:
    from analysis.tables import level_text, rules_text, run_heading

    for run, tables in zip(result.runs, result.tables, strict=True):
        render.heading(console, escape(str(run.path)))
        console.print(f"{run_heading(run)}; intervals at {level_text(result.level)}", markup=False, highlight=False)
        console.print(f"rules: {rules_text(run)}", style="dim", markup=False, highlight=False)
        for name, df in tables.items():
            render.print_table(console, rich_table(name, df, result.level))
    for run, df in zip(result.runs[1:], result.comparisons, strict=False):
        render.heading(console, escape(f"{run.path} against {result.runs[0].path}"))
        render.print_table(console, rich_table("comparison", df, result.level))
