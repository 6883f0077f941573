"""``scopasim report``: a self-contained HTML page of a run's tables and plots."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.commands.analyze import analysis_errors, check_level, identical_warnings
from cli.options import Mirror
from simcore.errors import OutputError


def check_out(out: Path, overwrite: bool) -> None:
    """Refuse, before any work, an output that exists (unless ``overwrite``), is a folder, or has no folder."""
    if out.is_dir():
        raise OutputError(f"output {out} is a folder; give the HTML file to write")
    if out.exists() and not overwrite:
        raise OutputError(f"output {out} already exists (use --overwrite to replace it)")
    if not out.parent.is_dir():
        what = "is not a folder" if out.parent.exists() else "does not exist"
        raise OutputError(f"cannot write {out}: folder {out.parent} {what}")


def check_not_inside(out: Path, runs: list[Path]) -> None:
    """Refuse an output inside one of the run folders read: it would add to (or replace a file of) the run."""
    target = out.resolve()
    for run in runs:
        if target.is_relative_to(run.resolve()):
            raise OutputError(f"output {out} is inside run folder {run}; write the report elsewhere")


def report(
    runs: Annotated[
        list[Path], typer.Argument(help="Run folders; with several, each is also compared with the first.")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="HTML file to write.")],
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing --out file.")] = False,
    level: Annotated[float, typer.Option("--level", help="Confidence level of the intervals.")] = 0.95,
    partial: Annotated[bool, typer.Option("--partial", help="Read the finished chunks of incomplete runs.")] = False,
    mirror: Mirror = False,
) -> None:
    """Write one self-contained HTML page: seat advantage, convergence, scoring and game shape, tables and plots."""
    from analysis import load_runs
    from analysis.report import render_report, write_report

    check_level(level)
    check_out(out, overwrite)
    check_not_inside(out, runs)
    loaded = load_runs(runs, allow_partial=partial)
    with analysis_errors():
        page = render_report(loaded, level, mirror)
        warnings = identical_warnings(loaded) if len(loaded) > 1 else []
    for warning in warnings:
        typer.echo(f"warning: {warning}", err=True)
    try:
        write_report(page, out)
    except OSError as exc:
        raise OutputError(f"cannot write {out}: {exc.strerror or exc}") from None
    typer.echo(f"report: {out} ({len(page) / 1e6:.1f} MB)")
