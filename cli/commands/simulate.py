"""``scopasim simulate``: play a batch of games into a Parquet run folder and summarise it."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cli import render
from cli.options import Games, Players, Policies, RuleOpts, Seed, Threads, Variant, build_config, manifest_config
from simcore.config import DEFAULT_CHUNK, MAX_CHUNK, RunConfig
from simcore.errors import ConfigError, OutputError, shown

if TYPE_CHECKING:
    from analysis.precision import PrecisionStop

DEFAULT_RESULTS = Path("results")


def default_out(config: RunConfig) -> Path:
    """``results/<variant>-<P>p-<policies>-s<seed>-<timestamp>``: readable, and new each time."""
    policies = "-vs-".join(dict.fromkeys(config.policies)) if len(set(config.policies)) > 1 else config.policies[0]
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    name = f"{config.variant}-{config.players}p-{policies}-s{config.seed}-{stamp}"
    return DEFAULT_RESULTS / re.sub(r"[^A-Za-z0-9_.=-]+", "_", name)


def simulate(
    variant: Variant = None,
    players: Players = None,
    policy: Policies = None,
    games: Games = None,
    seed: Seed = None,
    threads: Threads = None,
    rule: RuleOpts = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            metavar="PATH",
            help="Run folder to write. "
            "[default: a new folder under results/, named VARIANT-PLAYERSp-POLICIES-sSEED-TIME]",
        ),
    ] = None,
    chunk_size: Annotated[
        int | None,
        typer.Option(
            "--chunk-size",
            metavar="INTEGER",
            help=f"Games per part file (memory and progress granularity), at most {MAX_CHUNK:,}. "
            f"[default: {DEFAULT_CHUNK}]",
        ),
    ] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Finish an interrupted run in --out.")] = False,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing run in --out.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    cluster: Annotated[
        str | None,
        typer.Option(
            "--cluster",
            metavar="CLUSTER",
            help="Run the chunks on Dask: local:N worker processes, or tcp://HOST:PORT. [default: none: this process]",
        ),
    ] = None,
    precision: Annotated[
        float | None,
        typer.Option(
            "--precision",
            metavar="FLOAT",
            help="Stop once the 95% half-width of the first player's win rate is at most this (checked after each "
            "chunk; --games is the cap). [default: off]",
        ),
    ] = None,
) -> None:
    """Simulate games and write them to a run folder (games/, deals/ Parquet and manifest.json)."""
    from simcore import api

    if resume and out is None:
        raise OutputError("--resume needs --out: the run folder to finish")
    if resume and overwrite:
        raise OutputError("--resume and --overwrite exclude each other")
    if precision is not None and not 0 < precision < 0.5:  # also refuses nan and inf
        raise ConfigError(f"--precision must be between 0 and 0.5 (exclusive), got {precision}")
    base = manifest_config(out) if resume else None
    config = build_config(
        variant=variant,
        players=players,
        policies=policy,
        rules=rule,
        seed=seed,
        games=games,
        chunk_size=chunk_size,
        base=base,
        base_name=f"run {shown(str(out), 80, quote=False)}",
    )
    api.set_threads(threads)
    if cluster is not None:
        from simcore.executors import parse_cluster

        parse_cluster(cluster)
    out = out or default_out(config)
    kind = " compiled for this rule set" if api.specialised(config) else ""  # checked before any file is written
    with api.open_run(config, out, overwrite=overwrite, resume=resume) as writer:  # the lock is released however
        for part, reason in writer.damage.items():  # this block ends, even while the kernels load
            typer.echo(f"warning: {part} is damaged ({reason}): its chunk is played again", err=True)
        stop = None
        if precision is not None:
            from analysis.precision import PrecisionStop  # pandas and pyarrow: only when asked for

            stop = PrecisionStop(precision)
        counts = render.ChunkCounts(config) if cluster is None else None  # the summary, counted as chunks are written
        loading = f"loading the kernels{kind} (the first run compiles them: 10-30 s)"
        with render.console(stderr=True).status(loading, spinner="dots"):
            api.warm_up(config)
        render.prefetch_summary()
        with render.progress_bar(config.games, quiet) as advance:
            try:
                observers = (counts,) if counts is not None else ()
                result = api.run_chunks(writer, progress=advance, stop=stop, cluster=cluster, observers=observers)
            except KeyboardInterrupt:
                typer.echo(f"interrupted: {out} is incomplete; finish it with --resume --out {out}", err=True)
                raise
    render.print_run_summary(render.console(), config, result, counts)
    if stop is not None:
        stop.update(writer)
        typer.echo(precision_message(stop, result.stopped, config.games))


def precision_message(stop: PrecisionStop, stopped: str | None, cap: int) -> str:
    """Which criterion ended a ``--precision`` run, with the half-width it reached."""
    reached = f"95% half-width of the first player's win rate {stop.half_width:.5f}"
    if stopped:
        return f"stopped by --precision: {reached} <= {stop.precision} after {stop.games:,} of {cap:,} games"
    verdict = "<=" if stop.reached else ">"
    return f"stopped by --games: all {cap:,} games played; {reached} {verdict} {stop.precision}"
