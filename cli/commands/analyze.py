"""``scopasim analyze``: the statistics of one or more run folders, as rich tables or for machines."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from simcore.errors import ConfigError


class Format(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"
    markdown = "markdown"


def check_level(level: float) -> None:
    if not 0 < level < 1:
        raise ConfigError(f"--level must be between 0 and 1 (exclusive), got {level}")


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
) -> None:
    """Seat advantage, scoring and game shape of run folders, with confidence intervals and tests."""
    from analysis import load_runs
    from analysis.tables import TITLES, Analysis, to_csv, to_json, to_markdown
    from cli.commands.tournament import analyze_tournament, is_tournament

    if any(is_tournament(path) for path in runs):
        return analyze_tournament(runs, fmt, level, table, partial)
    check_level(level)
    names = list(dict.fromkeys(table)) if table else None
    unknown = [n for n in names or [] if n not in TITLES]
    if unknown:
        raise ConfigError(f"--table: unknown table(s) {', '.join(unknown)} (tables: {', '.join(TITLES)})")
    if names == ["comparison"] and len(runs) < 2:
        raise ConfigError("--table comparison needs at least two runs")
    result = Analysis.of(load_runs(runs, allow_partial=partial), level, names)
    if fmt is Format.csv:
        typer.echo(to_csv(result), nl=False)
    elif fmt is Format.json:
        typer.echo(to_json(result), nl=False)
    elif fmt is Format.markdown:
        typer.echo(to_markdown(result), nl=False)
    else:
        print_analysis(Console(), result)


def rich_table(name: str, df) -> Table:
    """A rich table of :func:`analysis.tables.display`'s strings, with its title and caption."""
    from analysis.tables import TITLES, display

    title, caption = TITLES[name]
    out = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    columns, rows = display(name, df)
    for column in columns:
        # in a narrow terminal cells fold onto more lines rather than lose digits to an ellipsis
        out.add_column(column.header, justify="right" if column.numeric else "left", overflow="fold")
    for row in rows:
        out.add_row(*row)
    return out


def print_analysis(console: Console, result) -> None:
    from analysis.tables import rules_text, run_heading

    for run, tables in zip(result.runs, result.tables, strict=True):
        console.rule(f"[bold]{run.path}")
        console.print(run_heading(run))
        console.print(f"rules: {rules_text(run)}", style="dim")
        for name, df in tables.items():
            console.print(rich_table(name, df))
    for run, df in zip(result.runs[1:], result.comparisons, strict=False):
        console.rule(f"[bold]{run.path} against {result.runs[0].path}")
        console.print(rich_table("comparison", df))
