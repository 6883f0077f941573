"""``scopasim balance``: simulate a grid of rule sets and compare their seat advantage and scoring.

Each rule set of the grid (every combination of the ``--vary`` values) is a normal run folder under ``--out``,
named after its varied rules (``players=3,forced_capture=card``). All rule sets share one seed, so game i gets the
same shuffled pack under every rule set that leaves the deal alone (common random numbers). The first rule set is
the baseline of the comparisons.

Nothing is written until every input is checked: every rule set is validated, every existing run folder of the
grid is compared with the settings asked for now (a complete one with the same settings is reused, an interrupted
one resumed, any other refused, naming the setting that differs), and every file the balance will write is
checked to be absent or its own. ``balance.json`` records the grid's settings and the files written with their
SHA-256, so a rerun replaces only files this balance wrote and left unchanged, and a rerun without ``--seed``
continues with the recorded seed.

``--precision`` and ``--search`` play the grid in rounds of one chunk per rule set (``simcore.rounds``) and stop rule
sets on anytime-valid intervals: each comparison with the baseline (``analysis.precision.ComparisonStop``), or the
race for the best rule set (``analysis.search``). Their settings go into the index (a rerun with others is
refused), with each run's games and reason to stop; the run folders record theirs in their manifests.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from cli import render
from cli.commands.analyze import Format, analysis_errors, check_level, render_value, rich_table
from cli.options import Policies, RuleOpts, Seed, Threads, Variant, parse_rules
from simcore.config import DEFAULT_CHUNK, RunConfig
from simcore.errors import ConfigError, OutputError
from simcore.layout import MANIFEST, read_manifest

DEFAULT_GAMES = 200_000
MAX_RULE_SETS = 100
INDEX = "balance.json"
INDEX_FORMAT = "scopasim-balance/1"
TABLE_FILES = ("balance.csv", "balance-changes.csv")
SEARCH_FILE = "search.csv"
PRECISION_FILE = "precision.csv"


class Objective(StrEnum):
    fair = "fair"
    target = "target"
    points = "points"


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
            raise ConfigError(f"--vary {render_value(item)}: expected KEY=V1,V2,... e.g. --vary players=2,3,4")
        if key in grid:
            raise ConfigError(f"--vary {render_value(key)} given twice; list all its values in one --vary")
        if len(set(options)) != len(options):
            raise ConfigError(f"--vary {render_value(item)}: a value is repeated")
        grid[key] = options
    count = 1
    for options in grid.values():
        count *= len(options)
    if count > MAX_RULE_SETS:
        raise ConfigError(f"--vary: the grid has {count:,} rule sets; at most {MAX_RULE_SETS} are run at once")
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
    """Every rule set of the grid, validated, with the state of its folder checked; nothing is written."""
    both = sorted(set(vary) & set(rules))
    if both:
        raise ConfigError(f"{', '.join(both)}: given both as --rule and --vary")
    check_out(out)
    points = []
    for values in itertools.product(*vary.values()):
        combo = dict(zip(vary, values, strict=True))
        label = ", ".join(f"{k}={v}" for k, v in combo.items())
        try:
            config = RunConfig.create(
                variant, policies=policies, rules={**rules, **combo}, games=games, seed=seed, chunk_size=chunk_size
            )
        except ConfigError as exc:
            raise ConfigError(f"rule set {render_value(label)}: {_short(exc, 200)}") from None
        points.append(GridPoint(label, config, out / folder_name(label), "new"))
    resolved = [tuple(sorted(p.config.rules.items())) for p in points]
    if len(set(resolved)) != len(resolved):
        raise ConfigError("two rule sets of the grid are the same rules (a value given twice in another spelling?)")
    folders = [p.path.name for p in points]
    if len(set(folders)) != len(folders):
        raise ConfigError("two rule sets of the grid would share one folder name; spell their values differently")
    return [GridPoint(p.label, p.config, p.path, _status(p.path, p.config)) for p in points]


def check_out(out: Path) -> None:
    """``--out`` must be a folder (or not exist yet) and not a run folder itself."""
    if out.exists() and not out.is_dir():
        raise OutputError(f"output {out} exists and is not a folder; give the folder of the grid's runs")
    if (out / MANIFEST).exists():
        raise OutputError(f"output {out} is a run folder; give a folder for the grid's run folders")


def config_differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The settings in which a recorded run config ``old`` differs from ``new``, as ``seed 7 (asked: 6)``."""
    out = []
    for key in ("variant", "games", "seed", "chunk_size", "policies"):
        if old.get(key) != new.get(key):
            out.append(f"{key} {_short(old.get(key))} (asked: {_short(new.get(key))})")
    old_rules, new_rules = old.get("rules") or {}, new.get("rules") or {}
    if not isinstance(old_rules, dict):
        return [*out, "rules unreadable"]
    for key in sorted(set(old_rules) | set(new_rules)):
        if old_rules.get(key) != new_rules.get(key):
            out.append(f"rule {key}={_short(old_rules.get(key))} (asked: {_short(new_rules.get(key))})")
    return out


def _short(value: Any, limit: int = 40) -> str:
    """A setting as a message shows it, cut to ``limit`` characters."""
    if isinstance(value, list):
        text = ",".join(map(str, value))
    elif isinstance(value, bool):
        text = str(value).lower()
    else:
        text = str(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _status(path: Path, config: RunConfig) -> str:
    """``new``, ``resume`` or ``done`` for a grid folder whose run has exactly ``config``; anything else refused."""
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        raise OutputError(f"{path} exists and is not a folder; choose another --out")
    if not path.exists() or not any(path.iterdir()):
        return "new"
    manifest = read_manifest(path)
    recorded = manifest.get("config")
    if not isinstance(recorded, dict):
        raise OutputError(f"{path} holds a run whose manifest has no settings; choose another --out")
    differing = config_differences(recorded, config.to_dict())
    if differing:
        raise OutputError(f"{path} holds a run with other settings: {'; '.join(differing[:3])}; choose another --out")
    if manifest.get("complete"):
        from analysis import load_run

        load_run(path)  # a complete run is reused: check its part files now, before anything runs
        return "done"
    return "resume"


# ---------------------------------------------------------------- the index of a balance folder


def grid_settings(variant: str, vary: dict[str, list[str]], points: list[GridPoint]) -> dict[str, Any]:
    """What the balance is a function of: the grid and every rule set's run settings."""
    return {"variant": variant, "vary": vary, "runs": {p.path.name: p.config.to_dict() for p in points}}


def read_index(out: Path) -> dict[str, Any] | None:
    """The balance index of ``out``, or None if there is none; a file of that name not written by balance is
    refused."""
    path = out / INDEX
    if not path.exists() and not path.is_symlink():
        return None
    try:
        index = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise OutputError(
            f"{path} exists and is not a balance index ({_short(exc, 80)}); choose another --out"
        ) from None
    if (
        not isinstance(index, dict)
        or index.get("format") != INDEX_FORMAT
        or not isinstance(index.get("settings"), dict)
    ):
        raise OutputError(f"{path} exists and was not written by scopasim balance; choose another --out")
    return index


def index_differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """How the settings recorded in an index differ from those asked for now."""
    if old.get("variant") != new["variant"]:
        return [f"variant {_short(old.get('variant'))} (asked: {new['variant']})"]
    if old.get("vary") != new["vary"]:

        def shown(vary: Any) -> str:
            return _short(" ".join(f"{k}={','.join(map(str, v))}" for k, v in dict(vary or {}).items()), 80)

        return [f"--vary {shown(old.get('vary'))} (asked: {shown(new['vary'])})"]
    runs = old.get("runs") or {}
    for name, config in new["runs"].items():
        differing = config_differences(runs.get(name) or {}, config)
        if differing:
            return differing
    return []


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _index_key(path: Path, out: Path) -> str:
    """How the index names a file it wrote: relative to ``out`` when inside it."""
    absolute = Path(os.path.abspath(path))
    base = Path(os.path.abspath(out))
    return str(absolute.relative_to(base)) if absolute.is_relative_to(base) else str(absolute)


def check_own_files(out: Path, files: list[Path], index: dict[str, Any] | None) -> None:
    """Each file the balance will write must be absent, or one this balance wrote and nobody changed since."""
    recorded = (index or {}).get("files") or {}
    for path in files:
        if not path.exists() and not path.is_symlink():
            continue
        if path.is_symlink() or not path.is_file():
            raise OutputError(f"{path} exists and is not a file this balance wrote; move it or choose another --out")
        digest = recorded.get(_index_key(path, out))
        if digest is None:
            raise OutputError(
                f"{path} exists and was not written by this balance (not in {INDEX}); move it or choose another --out"
            )
        try:
            current = _sha256(path.read_bytes())
        except OSError as exc:
            raise OutputError(f"cannot read {path}: {exc.strerror or exc}") from None
        if current != digest:
            raise OutputError(f"{path} was changed since this balance wrote it; move it or choose another --out")


def write_file(path: Path, data: bytes) -> str:
    """Write ``data`` through a temporary file (removed if anything fails); returns its SHA-256."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_bytes(data)
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    return _sha256(data)


def write_index(out: Path, settings: dict[str, Any], files: dict[str, str], **extra: Any) -> None:
    index = {
        "format": INDEX_FORMAT,
        "settings": settings,
        "files": files,
        "updated": datetime.now(UTC).isoformat(timespec="seconds"),
        **extra,
    }
    write_file(out / INDEX, (json.dumps(index, indent=1) + "\n").encode())


# ---------------------------------------------------------------- the command


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
    search: Annotated[
        bool,
        typer.Option(
            "--search",
            help="Race the rule sets on the same games and drop those confidently worse at --objective, until one "
            "is left or --games is spent; writes search.csv and the plot.",
        ),
    ] = False,
    objective: Annotated[
        Objective,
        typer.Option(
            "--objective",
            help="What --search minimises and --precision measures: fair (first player's win rate closest to "
            "1/sides), target (closest to --target), points (leader's points margin per deal closest to 0).",
        ),
    ] = Objective.fair,
    target: Annotated[
        float | None,
        typer.Option("--target", help="The first player's win rate --objective target aims at. [default: none]"),
    ] = None,
    precision: Annotated[
        float | None,
        typer.Option(
            "--precision",
            help="Stop a rule set once its paired difference from the first rule set has a confidence-sequence "
            "half-width of at most this (anytime-valid: checked after every chunk; --games is the cap). "
            "[default: off]",
        ),
    ] = None,
    stop_on_difference: Annotated[
        bool,
        typer.Option("--stop-on-difference", help="With --precision: stop also once the difference excludes 0."),
    ] = False,
    fmt: Annotated[
        Format, typer.Option("--format", "-f", help="--search's ranking: table, csv, json or markdown.")
    ] = Format.table,
) -> None:
    """Run a grid of rule sets (one run folder each) and compare their seat advantage and scoring."""
    from simcore import api

    check_level(level)
    sequential = sequential_settings(search, objective, target, precision, stop_on_difference, fmt, level)
    if sequential is not None and cluster is not None:
        raise ConfigError("--search and --precision play the rule sets chunk by chunk here; drop --cluster")
    if chunk_size is not None and chunk_size < 1:
        raise ConfigError(f"--chunk-size must be a positive integer, got {chunk_size}")
    variant = variant or "scopa"
    out = out or default_out(variant)
    grid = parse_vary(vary)
    check_out(out)
    index = read_index(out)
    if seed is None:
        recorded = next(iter(((index or {}).get("settings") or {}).get("runs", {}).values()), {})
        seed = recorded.get("seed") if isinstance(recorded.get("seed"), int) else secrets.randbelow(2**31)
    points = plan_grid(
        variant,
        grid,
        rules=parse_rules(rule),
        policies=policy or ["greedy"],
        games=games,
        seed=seed,
        chunk_size=chunk_size if chunk_size is not None else DEFAULT_CHUNK,
        out=out,
    )
    settings = grid_settings(variant, grid, points)
    if sequential is not None:
        settings["sequential"] = sequential
    if index is not None:
        differing = index_differences(index["settings"], settings)
        if not differing and index["settings"].get("sequential") != settings.get("sequential"):
            differing = [f"--search/--precision settings {_short(index['settings'].get('sequential'), 120)}"]
        if differing:
            raise OutputError(
                f"{out} holds a balance with other settings: {'; '.join(differing[:3])}; choose another --out"
            )
    plot = plot or out / "balance.png"
    if plot.is_dir() or (plot.parent.exists() and not plot.parent.is_dir()):
        raise OutputError(f"--plot {plot}: give a PNG file in an existing folder")
    if not plot.parent.is_dir() and plot.parent != out:
        raise OutputError(f"--plot {plot}: folder {plot.parent} does not exist")
    if any(Path(os.path.abspath(plot)).is_relative_to(os.path.abspath(p.path)) for p in points):
        raise OutputError(f"--plot {plot} is inside a run folder of the grid; write it elsewhere")
    written_by_us = [out / SEARCH_FILE] if search else [out / name for name in TABLE_FILES]
    if precision is not None:
        written_by_us.append(out / PRECISION_FILE)
    check_own_files(out, [*written_by_us, plot], index)
    api.set_threads(threads)
    if cluster is not None:
        from simcore.executors import parse_cluster

        parse_cluster(cluster)

    console = render.console(stderr=fmt is not Format.table)  # csv, json, markdown: stdout holds the ranking only
    console.print(
        f"balance of {variant}: {len(points)} rule sets x {games:,} games, seed {seed}, under {out}",
        markup=False,
        highlight=False,
    )
    out.mkdir(parents=True, exist_ok=True)
    files = dict((index or {}).get("files") or {})
    write_index(out, settings, files, status="running")
    if sequential is not None:
        race_grid(console, points, list(grid), out, plot, sequential, files, settings, fmt, quiet)
        return
    for i, point in enumerate(points, 1):
        head = f"[{i}/{len(points)}] {point.label}"
        if point.status == "done":
            console.print(f"{head}: complete in {point.path}, reused", markup=False, highlight=False)
            continue
        verb = "resuming" if point.status == "resume" else "simulating"
        console.print(f"{head}: {verb} into {point.path}", markup=False, highlight=False)
        writer = api.open_run(point.config, point.path, resume=point.status == "resume")
        api.warm_up(point.config)
        with render.progress_bar(point.config.games, quiet) as advance:
            try:
                api.run_chunks(writer, progress=advance, cluster=cluster)
            except KeyboardInterrupt:
                typer.echo(f"interrupted: run the same command again to resume {point.path}", err=True)
                raise
    written, warnings = report_grid(console, points, list(grid), out, plot, level)
    write_index(out, settings, {**files, **written}, status="complete", level=level, identical_games=warnings)


def report_grid(
    console: Console, points: list[GridPoint], varied: list[str], out: Path, plot: Path, level: float
) -> tuple[dict[str, str], list[str]]:
    """Print the grid's tables, and write them (``balance.csv``, ``balance-changes.csv``) and the plot; returns
    the files written (index key -> SHA-256) and the identical-games warnings."""
    from analysis import load_run
    from analysis.balance import grid_categories, grid_changes, grid_table, identical_games
    from analysis.plots import balance_figure, png

    runs = [load_run(p.path) for p in points]
    labels = [p.label for p in points]
    with analysis_errors():
        table = grid_table(runs, labels, level)
        categories = grid_categories(runs, labels)
        changes = grid_changes(runs, labels, level)
        warnings = identical_games(runs, labels)
    for name in ("grid_advantage", "grid_dealer", "grid_shape"):
        render.print_table(console, rich_table(name, table, level))
    render.print_table(console, rich_table("grid_categories", categories.reset_index(), level))
    for warning in warnings:
        console.print(f"warning: {warning}", style="bold yellow", markup=False, highlight=False)
    rules = points[0].config.rules
    fixed = ", ".join(
        f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in rules.items() if k not in varied
    )
    title = f"{points[0].config.variant}: {', '.join(dict.fromkeys(points[0].config.policies))}; other rules {fixed}"
    outputs = {
        out / "balance.csv": table.assign(level=level).to_csv(index=False).encode(),
        out / "balance-changes.csv": changes.assign(level=level).to_csv(index=False).encode(),
        plot: png(balance_figure(table, categories, title, level)),
    }
    written = {_index_key(path, out): write_file(path, data) for path, data in outputs.items()}
    tables = ", ".join(str(out / name) for name in TABLE_FILES)
    console.print(f"tables: {tables} (every change with its interval)", markup=False, highlight=False)
    console.print(f"plot: {plot}", markup=False, highlight=False)
    return written, warnings


# ---------------------------------------------------------------- --search and --precision


def sequential_settings(
    search: bool,
    objective: Objective,
    target: float | None,
    precision: float | None,
    stop_on_difference: bool,
    fmt: Format,
    level: float,
) -> dict[str, Any] | None:
    """The validated settings of a race (recorded in the index, so a rerun with others is refused), or None."""
    if target is not None and objective is not Objective.target:
        raise ConfigError("--target goes with --objective target")
    if objective is Objective.target and (target is None or not 0 < target < 1):
        raise ConfigError(f"--objective target needs --target R, a win rate between 0 and 1 (got {target})")
    if stop_on_difference and precision is None:
        raise ConfigError("--stop-on-difference goes with --precision P")
    if search and precision is not None:
        raise ConfigError("--search and --precision exclude each other (--search stops each rule set itself)")
    if precision is not None and not 0 < precision < 1:  # also refuses nan and inf
        raise ConfigError(f"--precision must be between 0 and 1 (exclusive), got {precision}")
    if fmt is not Format.table and not search:
        raise ConfigError("--format applies to --search's ranking; the balance tables are written as CSV files")
    if not search and precision is None:
        if objective is not Objective.fair:
            raise ConfigError("--objective goes with --search or --precision")
        return None
    mode = "search" if search else "precision"
    out: dict[str, Any] = {"mode": mode, "objective": objective.value, "level": level}
    if target is not None:
        out["target"] = target
    if precision is not None:
        out |= {"precision": precision, "stop_on_difference": stop_on_difference}
    return out


def race_objective(points: list[GridPoint], sequential: dict[str, Any]):
    """The search's :class:`analysis.search.Objective` for the grid: outcome bounds and each rule set's target."""
    from analysis.search import Objective as SearchObjective

    kind = sequential["objective"]
    if kind == "points":
        most = max(p.config.spec.game_info(p.config.rules).max_deal_total for p in points)
        return SearchObjective(kind, tuple(0.0 for _ in points), -float(most), float(most))
    if kind == "target":
        return SearchObjective(kind, tuple(float(sequential["target"]) for _ in points), 0.0, 1.0)
    targets = tuple(1.0 / len(p.config.spec.sides(p.config.players)) for p in points)
    return SearchObjective(kind, targets, 0.0, 1.0)


def race_grid(
    console: Console,
    points: list[GridPoint],
    varied: list[str],
    out: Path,
    plot: Path,
    sequential: dict[str, Any],
    files: dict[str, str],
    settings: dict[str, Any],
    fmt: Format,
    quiet: bool,
) -> None:
    """Play the grid in rounds of one chunk per rule set (``simcore.rounds``), stopping rule sets as the search or
    the precision asks; then report and record why each stopped."""
    from analysis.precision import ComparisonStop, RaceData
    from analysis.search import Racer
    from simcore.rounds import RaceRun, race

    level = sequential["level"]
    alpha = 1 - level
    objective = race_objective(points, sequential)
    data = RaceData([p.path for p in points], objective.outcome, [p.config.players for p in points])
    labels = [p.label for p in points]
    if sequential["mode"] == "search":
        decide: Any = Racer(data, objective, alpha, labels)
    else:
        decide = ComparisonStop(
            data, objective.lo, objective.hi, sequential["precision"], alpha, sequential["stop_on_difference"]
        )
    total = sum(p.config.games for p in points)
    with render.progress_bar(total, quiet) as advance:
        try:
            state = race([RaceRun(p.config, p.path) for p in points], decide, progress=advance)
        except KeyboardInterrupt:
            typer.echo(f"interrupted: run the same command again to resume {out}", err=True)
            raise
    runs = {p.path.name: {"games": g, "stopped": s} for p, g, s in zip(points, state.games, state.stopped, strict=True)}
    if sequential["mode"] == "search":
        written, summary = report_search(console, decide, points, varied, out, plot, sequential, fmt)
        write_index(out, settings, {**files, **written}, status="complete", level=level, runs=runs, search=summary)
        return
    written = report_precision(console, decide, points, out, sequential)
    grid_written, warnings = report_grid(console, points, varied, out, plot, level)
    write_index(
        out, settings, {**files, **written, **grid_written}, status="complete", level=level, runs=runs,
        identical_games=warnings,
    )  # fmt: skip


def _title(points: list[GridPoint], varied: list[str]) -> str:
    rules = points[0].config.rules
    fixed = ", ".join(
        f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in rules.items() if k not in varied
    )
    return f"{points[0].config.variant}: {', '.join(dict.fromkeys(points[0].config.policies))}; other rules {fixed}"


def report_search(
    console: Console,
    racer: Any,
    points: list[GridPoint],
    varied: list[str],
    out: Path,
    plot: Path,
    sequential: dict[str, Any],
    fmt: Format,
) -> tuple[dict[str, str], dict[str, Any]]:
    """Print the ranking (in ``fmt``), write ``search.csv`` and the plot; returns the files and the summary."""
    from analysis.plots import png, search_figure
    from analysis.search import display, identical_outcomes, ranking, search_summary, to_markdown

    level = sequential["level"]
    kind = sequential["objective"]
    table = ranking(racer, level)
    summary = search_summary(table, points[0].config.games)
    summary["objective"] = kind
    summary["identical"] = identical_outcomes(racer)
    title = f"{_title(points, varied)}; objective {kind}"
    outputs = {
        out / SEARCH_FILE: table.assign(level=level).to_csv(index=False).encode(),
        plot: png(search_figure(table, kind, title, level)),
    }
    written = {_index_key(path, out): write_file(path, data) for path, data in outputs.items()}
    share = summary["share_of_exhaustive"]
    verdict = (
        f"best rule set: {summary['best']} after {summary['games']:,} games in all "
        f"({share:.1%} of {summary['exhaustive_games']:,} for every rule set at --games)"
    )
    if fmt is Format.csv:
        typer.echo(table.assign(level=level).to_csv(index=False), nl=False)
    elif fmt is Format.json:
        typer.echo(json.dumps({"summary": summary, "ranking": table.to_dict("records")}, indent=1, default=str))
    elif fmt is Format.markdown:
        typer.echo(to_markdown(table, kind, level), nl=False)
    else:
        from rich.table import Table

        headers, rows = display(table, kind, level)
        rich = Table(
            title=f"Rule sets ranked by {kind} ({round(level * 100, 6):g}% confidence sequences)",
            title_justify="left",
        )
        for h in headers:
            rich.add_column(h, justify="left" if h in ("rule set", "status") else "right", overflow="fold")
        for row in rows:
            rich.add_row(*row)
        render.print_table(console, rich)
    for warning in summary["identical"]:
        console.print(f"warning: {warning}", style="bold yellow", markup=False, highlight=False)
    if fmt is Format.table:
        console.print(verdict, markup=False, highlight=False)
        console.print(f"table: {out / SEARCH_FILE}; plot: {plot}", markup=False, highlight=False)
    else:
        typer.echo(verdict, err=True)
    return written, summary


def report_precision(console: Console, stop: Any, points: list[GridPoint], out: Path, sequential: dict[str, Any]):
    """Print and write (``precision.csv``) each rule set's games, why it stopped and its paired difference from
    the first rule set with the confidence sequence the stop was decided on."""
    import pandas as pd
    from rich.table import Table

    rows = []
    for i, (point, cs) in enumerate(zip(points, stop.sequences, strict=True)):
        low, high = cs.interval
        manifest = read_manifest(point.path)
        rows.append(
            {
                "rule_set": point.label,
                "games": cs.n,
                "stopped": manifest.get("stopped") or "games",
                "quantity": "mean" if i == 0 else "difference from the first rule set",
                "estimate": cs.mean,
                "cs_low": low,
                "cs_high": high,
                "half_width": cs.half_width,
            }
        )
    table = pd.DataFrame(rows)
    level = sequential["level"]
    rich = Table(
        title=f"Stopped by --precision {sequential['precision']} ({round(level * 100, 6):g}% confidence sequences, "
        f"objective {sequential['objective']})",
        title_justify="left",
    )
    for h in ("rule set", "games", "stopped by", "quantity", "estimate", "confidence sequence", "half-width"):
        rich.add_column(h, justify="left" if h in ("rule set", "stopped by", "quantity") else "right")
    for r in rows:
        rich.add_row(
            r["rule_set"], f"{r['games']:,}", r["stopped"], r["quantity"], f"{r['estimate']:+.4f}",
            f"{r['cs_low']:+.4f} .. {r['cs_high']:+.4f}", f"{r['half_width']:.4f}",
        )  # fmt: skip
    render.print_table(console, rich)
    data = table.assign(level=level).to_csv(index=False).encode()
    return {_index_key(out / PRECISION_FILE, out): write_file(out / PRECISION_FILE, data)}
