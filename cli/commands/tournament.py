"""``scopasim tournament``: every pairing of policies on the same deals, seats swapped; win rates and ratings.

Also what ``scopasim analyze TOURNAMENT_FOLDER`` shows (:func:`analyze_tournament`): the same tables, recomputed
at the ``--level`` asked for.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from cli import render
from cli.commands.analyze import Format, check_level
from cli.commands.simulate import DEFAULT_RESULTS
from cli.options import Players, RuleOpts, Seed, Threads, Variant, parse_rules
from simcore.errors import ConfigError, OutputError
from simcore.layout import MANIFEST
from simcore.tournament import INDEX

if TYPE_CHECKING:
    from analysis.tournament import TournamentResults
    from simcore.tournament import Seating


def tournament(
    policies: Annotated[
        str, typer.Option("--policies", help="Comma-separated policies, e.g. random,greedy,points:card=0.1,lookahead")
    ],
    variant: Variant = None,
    players: Players = None,
    games: Annotated[
        int, typer.Option("--games", "-n", help="Duplicate pairs per pairing (games per seating).")
    ] = 10_000,
    seed: Seed = None,
    threads: Threads = None,
    rule: RuleOpts = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Tournament folder. [default: results/tournament-...]")
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Finish an interrupted tournament in --out (same settings; checked first).")
    ] = False,
    level: Annotated[float, typer.Option("--level", help="Confidence level of the intervals.")] = 0.95,
    fmt: Annotated[
        Format, typer.Option("--format", "-f", help="table (rich, for people), csv, json or markdown.")
    ] = Format.table,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    cluster: Annotated[
        str | None,
        typer.Option("--cluster", help="Run the chunks on Dask: local:N or tcp://HOST:PORT. [default: this process]"),
    ] = None,
    chunk_size: Annotated[
        int | None, typer.Option("--chunk-size", help="Games per part (and per --precision look). [default: 50000]")
    ] = None,
    precision: Annotated[
        float | None,
        typer.Option(
            "--precision",
            help="Stop a pairing once the confidence sequence of A's share of each duplicate pair has a half-width "
            "of at most this (anytime-valid: checked after every chunk; --games is the cap). [default: off]",
        ),
    ] = None,
    stop_on_difference: Annotated[
        bool,
        typer.Option("--stop-on-difference", help="With --precision: stop a pairing also once it excludes 1/2."),
    ] = False,
) -> None:
    """Play every pairing of the policies in duplicate (same deals, seats swapped) and rate them."""
    import secrets

    from analysis.tournament import tournament_results, write_results
    from simcore import api
    from simcore.tournament import plan, run_tournament, split_policies

    check_level(level)
    if stop_on_difference and precision is None:
        raise ConfigError("--stop-on-difference goes with --precision P")
    if precision is not None and not 0 < precision < 0.5:  # also refuses nan and inf
        raise ConfigError(f"--precision must be between 0 and 0.5 (exclusive), got {precision}")
    if precision is not None and cluster is not None:
        raise ConfigError("--precision plays the seatings chunk by chunk here; drop --cluster")
    variant = variant or "scopa"
    rules = parse_rules(rule)
    if players is not None:
        if "players" in rules and rules["players"] != str(players):
            raise ConfigError(f"--players {players} and --rule players={rules['players']} disagree; give one")
        rules["players"] = str(players)
    if resume and out is None:
        raise OutputError("--resume needs --out: the tournament folder to finish")
    seed = secrets.randbelow(2**31) if seed is None else seed
    names = split_policies(policies)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    out = out or DEFAULT_RESULTS / f"tournament-{variant}-s{seed}-{stamp}"
    if chunk_size is not None and chunk_size < 1:
        raise ConfigError(f"--chunk-size must be a positive integer, got {chunk_size}")
    seatings = plan(variant, names, games, seed, rules, out, resume=resume, chunk_size=chunk_size)  # checks only
    api.set_threads(threads)
    if cluster is not None:
        from simcore.executors import parse_cluster

        parse_cluster(cluster)
    todo = [s for s in seatings if s.status != "done"]
    if todo:
        api.warm_up(todo[0].config)  # compile (or load) the kernels before the clock of the ETA starts
    stop, sequential = None, None
    if precision is not None:
        from analysis.precision import PairingStop, RaceData

        sequential = {"precision": precision, "stop_on_difference": stop_on_difference, "level": level}
        data = RaceData([s.path for s in seatings], ["side0", "side1"] * (len(seatings) // 2),
                        [s.config.players for s in seatings])  # fmt: skip
        stop = PairingStop(data, precision, 1 - level, stop_on_difference)
    with tournament_bar(seatings, quiet) as bar:
        try:
            run_tournament(
                variant, names, games=games, seed=seed, out=out, rules=rules, threads=threads, resume=resume,
                progress=bar.advance, on_seating=bar.seating, cluster=cluster, chunk_size=chunk_size, decide=stop,
                sequential=sequential,
            )  # fmt: skip
        except KeyboardInterrupt:
            typer.echo(f"interrupted: add --resume --out {out} to the same command to finish it", err=True)
            raise
    if stop is not None:
        show_stops(stop, seatings, out, level, fmt)
        return
    results = tournament_results(out, level)
    written = write_results(results)
    show(results, fmt)
    files = ", ".join(p.name for p in written)
    if fmt is Format.table:
        render.console().print(f"output: {out} (index {INDEX}; tables {files})", highlight=False)
    elif not quiet:
        typer.echo(f"output: {out} (tables {files})", err=True)


def show_stops(stop, seatings: list[Seating], out: Path, level: float, fmt: Format) -> None:
    """``tournament --precision``: each pairing's duplicate pairs, why it stopped, and A's share per pair with the
    confidence sequence the stop was decided on; written to ``precision.csv`` in the tournament folder.

    The ratings need ``analysis.tournament`` to read seatings stopped early (it checks each seating's rows against
    the index's games), so they are not computed here."""
    import pandas as pd

    from simcore.layout import read_manifest

    rows = []
    for k, cs in enumerate(stop.sequences):
        ab = seatings[2 * k]
        low, high = cs.interval
        rows.append(
            {
                "a": ab.first, "b": ab.second, "pairs": cs.n,
                "stopped": read_manifest(ab.path).get("stopped") or "games",
                "a_share": cs.mean, "cs_low": low, "cs_high": high, "half_width": cs.half_width, "level": level,
            }
        )  # fmt: skip
    table = pd.DataFrame(rows)
    (out / "precision.csv").write_text(table.to_csv(index=False))
    if fmt is Format.csv:
        typer.echo(table.to_csv(index=False), nl=False)
        return
    if fmt is Format.json:
        typer.echo(table.to_json(orient="records", indent=1))
        return
    headers = ["A", "B", "duplicate pairs", "stopped by", "A's share per pair", f"{round(level * 100, 6):g}% CS"]
    cells = [
        [r["a"], r["b"], f"{r['pairs']:,}", r["stopped"], f"{r['a_share']:.2%}",
         f"{r['cs_low']:.2%} .. {r['cs_high']:.2%}"]
        for r in rows
    ]  # fmt: skip
    if fmt is Format.markdown:
        lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        typer.echo("\n".join(lines + ["| " + " | ".join(c) + " |" for c in cells]))
        return
    table_ = Table(title="Pairings stopped by --precision (confidence sequences)", title_justify="left")
    for h in headers:
        table_.add_column(h, justify="left" if h in ("A", "B", "stopped by") else "right")
    for c in cells:
        table_.add_row(*c)
    console = render.console()
    render.print_table(console, table_)
    console.print(f"output: {out} (index {INDEX}; table precision.csv)", highlight=False)


def is_tournament(path: Path) -> bool:
    """A tournament folder: an index and no run manifest of its own."""
    return (Path(path) / INDEX).is_file() and not (Path(path) / MANIFEST).exists()


def analyze_tournament(paths: list[Path], fmt: Format, level: float, tables: list[str] | None, partial: bool) -> None:
    """``scopasim analyze TOURNAMENT_FOLDER``: the tables ``tournament`` printed, at ``level``."""
    from analysis.tournament import TABLES, tournament_results

    if len(paths) != 1:
        raise ConfigError(f"a tournament folder is analysed alone: give it as the only folder (got {len(paths)})")
    if partial:
        raise ConfigError(f"--partial does not apply to a tournament ({paths[0]}); finish it with tournament --resume")
    check_level(level)
    names = list(dict.fromkeys(tables)) if tables else None
    unknown = [n for n in names or [] if n not in TABLES]
    if unknown:
        raise ConfigError(
            f"--table: unknown table(s) {', '.join(unknown)} (a tournament's tables: {', '.join(TABLES)})"
        )
    show(tournament_results(paths[0], level), fmt, names)


def show(results: TournamentResults, fmt: Format, names: list[str] | None = None) -> None:
    """Print the tables in ``fmt``: rich tables for people, or CSV, JSON, Markdown on stdout."""
    from analysis.tournament import display, titles, to_csv, to_json, to_markdown

    if fmt is Format.csv:
        typer.echo(to_csv(results, names), nl=False)
        return
    if fmt is Format.json:
        typer.echo(to_json(results, names), nl=False)
        return
    if fmt is Format.markdown:
        typer.echo(to_markdown(results, names), nl=False)
        return
    console = render.console()
    for name, df in results.tables(names).items():
        title, caption = titles(results)[name]
        table = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
        headers, rows = display(name, df, results.level)
        for header in headers:
            table.add_column(header, justify="left" if header in ("A", "B", "policy") else "right")
        for row in rows:
            table.add_row(*row)
        render.print_table(console, table)


# ---------------------------------------------------------------- progress


class _Speed(ProgressColumn):
    """Games per second over the games played in this call (rich's own estimate forgets samples older than 30 s,
    so a seating slower than that left the bar without a speed)."""

    def render(self, task: Task) -> Text:
        elapsed = task.finished_time if task.finished else task.elapsed
        if not task.completed or not elapsed:
            return Text("", style="cyan")
        return Text(f"{task.completed / elapsed:,.0f} games/s", style="cyan")


class _Eta(ProgressColumn):
    """Time left at the mean speed of the games played so far in this call (games a resumed or complete seating
    already held are not in the bar, so they cannot make it look faster)."""

    def render(self, task: Task) -> Text:
        if task.finished:
            return Text("eta 0:00:00", style="progress.remaining")
        if not task.completed or not task.elapsed or task.total is None:
            return Text("eta -:--:--", style="progress.remaining")
        left = (task.total - task.completed) * task.elapsed / task.completed
        return Text(f"eta {timedelta(seconds=round(left))}", style="progress.remaining")


class TournamentBar:
    """A progress bar over the games a tournament still has to play: it names the seating being played
    ("mc vs greedy (3/30)"), moves as often as the engine reports games, and counts each seating's games once."""

    def __init__(self, seatings: list[Seating], progress: Progress | None):
        self.seatings = seatings
        self.progress = progress
        self.total = sum(s.todo for s in seatings)
        self.completed = 0
        self.task = progress.add_task("starting", total=self.total) if progress else None

    def advance(self, n: int) -> None:
        self.completed += n
        if self.progress is not None:
            self.progress.advance(self.task, n)

    def seating(self, k: int, seating: Seating, todo: int) -> None:
        """Seating ``k`` starts with ``todo`` games left (more than planned if some of its part files were
        damaged and must be played again)."""
        self.total += todo - self.seatings[k - 1].todo
        if self.progress is not None:
            self.progress.update(self.task, total=self.total, description=f"{seating.label} ({k}/{len(self.seatings)})")


@contextmanager
def tournament_bar(seatings: list[Seating], quiet: bool) -> Iterator[TournamentBar]:
    """The bar on stderr (or, with ``quiet``, a bar that shows nothing)."""
    if quiet:
        yield TournamentBar(seatings, None)
        return
    console = Console(stderr=True)
    reused = [s for s in seatings if s.done_games]
    if reused:
        games = sum(s.done_games for s in reused)
        done = sum(s.status == "done" for s in seatings)
        console.print(
            f"resuming: {done} of {len(seatings)} seatings complete, {games:,} games already played are kept",
            highlight=False,
        )
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), _Speed(), TimeElapsedColumn())
    with Progress(*columns, _Eta(), console=console) as progress:
        yield TournamentBar(seatings, progress)
