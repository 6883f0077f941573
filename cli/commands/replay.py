"""``scopasim replay``: print one game so that a person can follow it, deal by deal and play by play."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from cli import render
from cli.commands.trace import traced_config
from cli.options import Players, Policies, RuleOpts, RunDir, Seed, Variant
from simcore.errors import ConfigError, OutputError


def read_trace(path: Path, game: int | None) -> dict[str, Any]:
    """The game ``game`` (default: the first) of a JSON-lines trace file."""
    try:
        lines = [line for line in path.read_text().splitlines() if line.strip()]
    except OSError as exc:
        raise OutputError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        traces = [json.loads(line) for line in lines]
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path} is not a JSON-lines trace: {exc}") from None
    if not traces:
        raise ConfigError(f"{path} holds no game")
    if game is None:
        return traces[0]
    for t in traces:
        if t.get("game") == game:
            return t
    raise ConfigError(f"{path} has no game {game} (games: {', '.join(str(t.get('game')) for t in traces)})")


def replay(
    trace_file: Annotated[
        Path | None, typer.Option("--trace", help="Replay a game from this trace file instead of playing it.")
    ] = None,
    game: Annotated[
        int | None, typer.Option("--game", "-g", help="Game index. [default: 0, or the file's first]")
    ] = None,
    variant: Variant = None,
    players: Players = None,
    policy: Policies = None,
    rule: RuleOpts = None,
    seed: Seed = None,
    run: RunDir = None,
) -> None:
    """Print one game for a person to follow: every deal, hand, play, sweep and score."""
    if trace_file is not None:
        trace = read_trace(trace_file, game)
    else:
        from simcore import api

        index = 0 if game is None else game
        if index < 0:
            raise ConfigError("--game: indices start at 0")
        config = traced_config(run, variant, players, policy, rule, seed, [index])
        trace = api.trace(config, [index])[0]
    render.print_game(Console(), trace)
