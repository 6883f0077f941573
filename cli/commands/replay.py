"""``scopasim replay``: print one game so that a person can follow it, deal by deal and play by play."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli import render
from cli.commands.trace import traced_config
from cli.options import Players, Policies, RuleOpts, RunDir, RunSeed, Variant
from simcore.config import MAX_GAMES
from simcore.errors import ConfigError


def replay(
    trace_file: Annotated[
        Path | None,
        typer.Option(
            "--trace",
            metavar="PATH",
            help="Replay a game from this trace file instead of playing it. [default: none: play it]",
        ),
    ] = None,
    game: Annotated[
        int | None,
        typer.Option("--game", "-g", metavar="INTEGER", help="Game index. [default: 0, or the file's first]"),
    ] = None,
    variant: Variant = None,
    players: Players = None,
    policy: Policies = None,
    rule: RuleOpts = None,
    seed: RunSeed = None,
    run: RunDir = None,
) -> None:
    """Print one game for a person to follow: every deal, hand, play, sweep and score."""
    if game is not None and not 0 <= game < MAX_GAMES:
        raise ConfigError(f"--game {game}: game indices go from 0 to {MAX_GAMES - 1:,}")
    if trace_file is not None:
        from simcore.trace import read_trace

        given = {"--variant": variant, "--players": players, "--policy": policy, "--rule": rule, "--seed": seed}
        given["--run"] = run
        ignored = [option for option, value in given.items() if value is not None]
        if ignored:
            raise ConfigError(f"{', '.join(ignored)}: the game comes from --trace, which fixes every setting")
        trace = read_trace(trace_file, game)
    else:
        from simcore import api

        index = 0 if game is None else game
        config = traced_config(run, variant, players, policy, rule, seed, [index])
        trace = api.trace(config, [index])[0]
    render.print_game(render.console(), trace)
