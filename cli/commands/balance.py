"""``scopasim balance``: simulate a grid of rule sets and compare their seat advantage and scoring.

Each rule set of the grid (every combination of the ``--vary`` values) is a normal run folder under ``--out``,
named after its varied rules (``players=3,forced_capture=card``). Every rule set is validated, and every existing
folder checked, before anything runs; a complete folder with the same settings is reused, an interrupted one
resumed. All rule sets share one seed, so game i gets the same shuffled pack under every rule set that leaves the
deal alone (common random numbers). The first rule set is the baseline of the comparisons.
"""

from __future__ import annotations

import itertools
import re
import secrets
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from cli import render
from cli.commands.analyze import check_level, rich_table
from cli.options import Policies, RuleOpts, Seed, Threads, Variant, parse_rules
from simcore.config import DEFAULT_CHUNK, RunConfig
from simcore.errors import ConfigError, OutputError
from simcore.layout import read_manifest

DEFAULT_GAMES = 200_000


@dataclass(frozen=True)
class GridPoint:
    """One rule set of the grid: its label (the varied rules), config, folder, and what is left to do."""

    label: str
    config: RunConfig
    path: Path
    status: str  # "new", "resume" or "done"


def parse_vary(items: list[str] | None) -> dict[str, list[str]]:
    """``["players=2,3", ...]`` -> ``{"players": ["2", "3"]}``, refusing malformed or repeated keys and values."""
    if not items:
        raise ConfigError("give at least one --vary KEY=V1,V2 (e.g. --vary players=2,3,4)")
    grid: dict[str, list[str]] = {}
    for item in items:
        key, eq, values = item.partition("=")
        key = key.strip()
        options = [v.strip() for v in values.split(",")]
        if not eq or not key or not all(options):
            raise ConfigError(f"--vary {item!r}: expected KEY=V1,V2,... e.g. --vary players=2,3,4")
        if key in grid:
            raise ConfigError(f"--vary {key} given twice; list all its values in one --vary")
        if len(set(options)) != len(options):
            raise ConfigError(f"--vary {item!r}: a value is repeated")
        grid[key] = options
    return grid


def folder_name(label: str) -> str:
    """``players=3, forced_capture=card`` -> ``players=3,forced_capture=card``."""
    return re.sub(r"[^A-Za-z0-9_.=,+-]+", "_", label.replace(", ", ","))


def plan_grid(
    variant: str,
    vary: dict[str, list[str]],
    *,
    rules: dict[str, str],
    policies: list[str],
    games: int,
    seed: int,
    chunk_size: int,
    out: Path,
) -> list[GridPoint]:
    """Every rule set of the grid, validated, with the state of its folder; nothing is written."""
    both = sorted(set(vary) & set(rules))
    if both:
        raise ConfigError(f"{', '.join(both)}: given both as --rule and --vary")
    if out.exists() and not out.is_dir():
        raise OutputError(f"output {out} exists and is not a folder")
    points = []
    for values in itertools.product(*vary.values()):
        combo = dict(zip(vary, values, strict=True))
        label = ", ".join(f"{k}={v}" for k, v in combo.items())
        try:
            config = RunConfig.create(
                variant, policies=policies, rules={**rules, **combo}, games=games, seed=seed, chunk_size=chunk_size
            )
        except ConfigError as exc:
            raise ConfigError(f"rule set {label}: {exc}") from None
        path = out / folder_name(label)
        points.append(GridPoint(label, config, path, _status(path, config)))
    resolved = [tuple(sorted(p.config.rules.items())) for p in points]
    if len(set(resolved)) != len(resolved):
        raise ConfigError("two rule sets of the grid are the same rules (a value given twice in another spelling?)")
    return points


def _status(path: Path, config: RunConfig) -> str:
    if not path.exists() or (path.is_dir() and not any(path.iterdir())):
        return "new"
    if not path.is_dir():
        raise OutputError(f"output {path} exists and is not a folder")
    manifest = read_manifest(path)
    if manifest.get("config") != config.to_dict():
        raise OutputError(
            f"{path} holds a run with other settings (seed, games, policies or rules); choose another --out"
        )
    return "done" if manifest.get("complete") else "resume"


def default_out(variant: str) -> Path:
    return Path("results") / f"balance-{variant}-{datetime.now().strftime('%Y%m%d-%H%M%S')}"


def balance(
    vary: Annotated[
        list[str] | None,
        typer.Option(
            "--vary",
            help="A rule to vary, KEY=V1,V2,...; repeatable: the grid is every combination. [default: none; give one]",
        ),
    ] = None,
    variant: Variant = None,
    policy: Policies = None,
    games: Annotated[int, typer.Option("--games", "-n", help="Games per rule set.")] = DEFAULT_GAMES,
    seed: Seed = None,
    threads: Threads = None,
    cluster: Annotated[
        str | None,
        typer.Option("--cluster", help="Run the chunks on Dask: local:N or tcp://HOST:PORT. [default: this process]"),
    ] = None,
    rule: RuleOpts = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Folder of the grid's run folders. [default: results/balance-<variant>-...]"),
    ] = None,
    chunk_size: Annotated[int | None, typer.Option("--chunk-size", help="Games per part. [default: 50000]")] = None,
    plot: Annotated[Path | None, typer.Option("--plot", help="PNG to write. [default: <out>/balance.png]")] = None,
    level: Annotated[float, typer.Option("--level", help="Confidence level of the intervals.")] = 0.95,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
) -> None:
    """Run a grid of rule sets (one run folder each) and compare their seat advantage and scoring."""
    from simcore import api

    check_level(level)
    variant = variant or "scopa"
    seed = seed if seed is not None else secrets.randbelow(2**31)
    out = out or default_out(variant)
    grid = parse_vary(vary)
    points = plan_grid(
        variant,
        grid,
        rules=parse_rules(rule),
        policies=policy or ["greedy"],
        games=games,
        seed=seed,
        chunk_size=chunk_size or DEFAULT_CHUNK,
        out=out,
    )
    if plot is not None and (plot.is_dir() or not plot.parent.is_dir()):
        raise OutputError(f"--plot {plot}: give a PNG file in an existing folder")
    api.set_threads(threads)
    if cluster is not None:
        from simcore.executors import parse_cluster

        parse_cluster(cluster)
    console = Console()
    console.print(f"balance of {variant}: {len(points)} rule sets x {games:,} games, seed {seed}, under {out}")
    for i, point in enumerate(points, 1):
        head = f"[{i}/{len(points)}] {point.label}"
        if point.status == "done":
            console.print(f"{head}: complete in {point.path}, reused")
            continue
        console.print(f"{head}: {'resuming' if point.status == 'resume' else 'simulating'} into {point.path}")
        writer = api.open_run(point.config, point.path, resume=point.status == "resume")
        api.warm_up(point.config)
        with render.progress_bar(point.config.games, quiet) as advance:
            try:
                api.run_chunks(writer, progress=advance, cluster=cluster)
            except KeyboardInterrupt:
                typer.echo(f"interrupted: run the same command again to resume {point.path}", err=True)
                raise
    report_grid(console, points, list(grid), out, plot or out / "balance.png", level)


def report_grid(
    console: Console, points: list[GridPoint], varied: list[str], out: Path, plot: Path, level: float
) -> None:
    """Print the grid's tables, and write them (``balance.csv``, ``balance-changes.csv``) and the plot."""
    from analysis import load_run
    from analysis.balance import grid_categories, grid_changes, grid_table
    from analysis.plots import balance_figure, png

    runs = [load_run(p.path) for p in points]
    labels = [p.label for p in points]
    table = grid_table(runs, labels, level)
    categories = grid_categories(runs, labels)
    changes = grid_changes(runs, labels, level)
    console.print(rich_table("grid_advantage", table))
    console.print(rich_table("grid_dealer", table))
    console.print(rich_table("grid_shape", table))
    console.print(rich_table("grid_categories", categories.reset_index()))
    rules = points[0].config.rules
    fixed = ", ".join(
        f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in rules.items() if k not in varied
    )
    title = f"{points[0].config.variant}: {', '.join(dict.fromkeys(points[0].config.policies))}; other rules {fixed}"
    try:
        table.to_csv(out / "balance.csv", index=False)
        changes.to_csv(out / "balance-changes.csv", index=False)
        plot.write_bytes(png(balance_figure(table, categories, title)))
    except OSError as exc:
        raise OutputError(f"cannot write the balance tables or plot: {exc.strerror or exc}") from None
    console.print(f"tables: {out / 'balance.csv'}, {out / 'balance-changes.csv'} (every change with its interval)")
    console.print(f"plot: {plot}")
