"""Options shared by the commands that describe a run (simulate, trace, replay), and turning them into a config.

Every option defaults to ``None`` so that a command can tell "not given" from "given": a run folder's manifest
(``--resume``, ``--run``) supplies what the user did not repeat, and what the user did give must agree with it.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Annotated, Any

import typer

from simcore.config import DEFAULT_CHUNK, RunConfig
from simcore.errors import ConfigError
from simcore.layout import read_manifest

Variant = Annotated[str | None, typer.Option("--variant", "-v", help="Game: scopa (see `scopasim variants`).")]
Players = Annotated[int | None, typer.Option("--players", "-p", help="Number of players (default: the variant's).")]
Policies = Annotated[
    list[str] | None,
    typer.Option(
        "--policy",
        help="Policy of a seat, in seat order; give it once for every seat, or once per seat. [default: greedy]",
    ),
]
RuleOpts = Annotated[
    list[str] | None,
    typer.Option("--rule", "-r", help="Rule option KEY=VALUE (see `scopasim rules VARIANT`); repeatable."),
]
Seed = Annotated[int | None, typer.Option("--seed", "-s", help="Master seed. [default: a fresh random seed]")]
Games = Annotated[int | None, typer.Option("--games", "-n", help="Number of games. [default: 1000000]")]
Threads = Annotated[int | None, typer.Option("--threads", "-t", help="Numba threads. [default: all cores]")]
RunDir = Annotated[
    Path | None, typer.Option("--run", help="Take the settings from this run folder (its manifest.json).")
]

DEFAULT_GAMES = 1_000_000


def parse_rules(items: list[str] | None) -> dict[str, str]:
    """``["target=21", ...]`` -> ``{"target": "21"}``; values are validated by the variant."""
    rules: dict[str, str] = {}
    for item in items or []:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ConfigError(f"--rule {item!r}: expected KEY=VALUE, e.g. --rule target=21")
        rules[key.strip()] = value.strip()
    return rules


def build_config(
    *,
    variant: str | None,
    players: int | None,
    policies: list[str] | None,
    rules: list[str] | None,
    seed: int | None,
    games: int | None,
    chunk_size: int | None = None,
    base: dict[str, Any] | None = None,
) -> RunConfig:
    """A validated config from the options given, on top of ``base`` (a manifest's config) when there is one."""
    base = base or {}
    rule_values: dict[str, object] = dict(base.get("rules", {}))
    if variant is not None and base and variant != base["variant"]:
        rule_values = {}
    rule_values.update(parse_rules(rules))
    return RunConfig.create(
        variant or base.get("variant", "scopa"),
        policies=policies or base.get("policies", ["greedy"]),
        rules=rule_values,
        players=players,
        games=games if games is not None else base.get("games", DEFAULT_GAMES),
        seed=seed if seed is not None else base.get("seed", secrets.randbelow(2**31)),
        chunk_size=chunk_size or base.get("chunk_size", DEFAULT_CHUNK),
    )


def manifest_config(run: Path) -> dict[str, Any]:
    """The config stored in a run folder."""
    return read_manifest(run)["config"]
