"""``scopasim trace``: write the JSON-lines trace (scopasim-trace/1) of chosen games of a run."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from cli.options import Players, Policies, RuleOpts, RunDir, Seed, Variant, build_config, manifest_config
from simcore.config import RunConfig
from simcore.errors import ConfigError, OutputError

GameSel = Annotated[
    list[str] | None,
    typer.Option("--game", "-g", help="Game index, range or list: 17, 0-9, 3,5,8 (repeatable). [default: 0]"),
]


def parse_games(items: list[str] | None) -> list[int]:
    """``["0-2", "7,9"]`` -> ``[0, 1, 2, 7, 9]``."""
    games: set[int] = set()
    for item in items or ["0"]:
        for part in filter(None, (p.strip() for p in item.split(","))):
            lo, dash, hi = part.partition("-")
            try:
                first, last = int(lo), int(hi if dash else lo)
            except ValueError:
                raise ConfigError(f"--game {part!r}: expected a game index or a range such as 0-9") from None
            if first < 0 or last < first:
                raise ConfigError(f"--game {part!r}: indices start at 0 and ranges go upwards")
            games.update(range(first, last + 1))
    return sorted(games)


def traced_config(run, variant, players, policy, rule, seed, games: list[int]) -> RunConfig:
    """The config whose games are traced: the run folder's (``--run``) or the one the options describe.

    Without ``--run`` a seed is required: a trace must name the very games a run plays.
    """
    base = manifest_config(run) if run is not None else None
    if base is None and seed is None:
        raise ConfigError("--seed (or --run FOLDER) is required: a trace shows the games of one seeded run")
    n_games = max(games[-1] + 1, base["games"] if base else 0)
    return build_config(
        variant=variant, players=players, policies=policy, rules=rule, seed=seed, games=n_games, base=base
    )


def trace(
    variant: Variant = None,
    players: Players = None,
    policy: Policies = None,
    rule: RuleOpts = None,
    seed: Seed = None,
    run: RunDir = None,
    game: GameSel = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="JSON-lines file to write, or - for stdout.")] = Path("-"),
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing --out file.")] = False,
) -> None:
    """Write the trace of chosen games: the very games `simulate` plays with the same settings and seed."""
    from simcore import api

    games = parse_games(game)
    config = traced_config(run, variant, players, policy, rule, seed, games)
    if str(out) != "-" and out.exists() and not overwrite:
        raise OutputError(f"{out} already exists (use --overwrite to replace it)")
    lines = [json.dumps(t, separators=(",", ":")) for t in api.trace(config, games)]
    text = "\n".join(lines) + "\n"
    if str(out) == "-":
        sys.stdout.write(text)
        return
    try:
        tmp = out.with_name(f".{out.name}.tmp")
        tmp.write_text(text)
        tmp.replace(out)
    except OSError as exc:
        raise OutputError(f"cannot write {out}: {exc.strerror or exc}") from None
    typer.echo(f"{len(lines)} game(s) traced to {out}", err=True)
