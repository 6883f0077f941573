"""Options shared by the commands that describe a run (simulate, trace, replay), and turning them into a config.

Every option defaults to ``None`` so that a command can tell "not given" from "given": a run folder's manifest
(``--resume``, ``--run``) supplies what the user did not repeat, and what the user did give must agree with it.
Help texts write their defaults as ``[default: ...]``; ``cli.app`` escapes them so that rich shows them.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Annotated, Any

import typer

from simcore.config import DEFAULT_CHUNK, RunConfig, whole
from simcore.errors import ConfigError, shown
from simcore.layout import read_manifest
from simcore.rng import MAX_SEED
from simcore.variants import get_variant


def _variant(value: str | None) -> str | None:
    """Checked as it is parsed, for every command that takes it: ``--variant ''`` is not "the default"."""
    if value is not None:
        get_variant(value)
    return value


def _rules(items: list[str] | None) -> list[str] | None:
    parse_rules(items)
    return items


def _seed(value: int | None) -> int | None:
    return None if value is None else whole("seed", value, 0, MAX_SEED)


Variant = Annotated[
    str | None,
    typer.Option(
        "--variant",
        "-v",
        metavar="VARIANT",
        callback=_variant,
        help="Game (see `scopasim variants`). [default: scopa]",
    ),
]
Players = Annotated[
    int | None,
    typer.Option("--players", "-p", metavar="INTEGER", help="Number of players. [default: the variant's]"),
]
Policies = Annotated[
    list[str] | None,
    typer.Option(
        "--policy",
        metavar="POLICY",
        help="Policy of a seat, NAME or NAME:KEY=VALUE,... (see `scopasim policies VARIANT`), or a policy you wrote, "
        "FILE.py:FUNCTION[:KEY=VALUE,...] (see `scopasim policies VARIANT --file FILE.py`), in seat order; give "
        "it once for every seat, or once per seat. [default: greedy]",
    ),
]
RuleOpts = Annotated[
    list[str] | None,
    typer.Option(
        "--rule",
        "-r",
        metavar="KEY=VALUE",
        callback=_rules,
        help="Rule option (see `scopasim rules VARIANT`); repeatable. [default: the variant's rules]",
    ),
]
Seed = Annotated[
    int | None,
    typer.Option("--seed", "-s", metavar="INTEGER", callback=_seed, help="Master seed. [default: a fresh random seed]"),
]
RunSeed = Annotated[  # trace and replay show the games of one seeded run: no fresh seed
    int | None,
    typer.Option(
        "--seed",
        "-s",
        metavar="INTEGER",
        callback=_seed,
        help="Master seed of the run whose games are shown. [default: the --run folder's; without --run: required]",
    ),
]
Games = Annotated[
    int | None, typer.Option("--games", "-n", metavar="INTEGER", help="Number of games. [default: 1000000]")
]
Threads = Annotated[
    int | None, typer.Option("--threads", "-t", metavar="INTEGER", help="Numba threads. [default: all cores]")
]
Mirror = Annotated[
    bool,
    typer.Option(
        "--mirror",
        help="Also adjust the first player's advantage by mirrored greedy replays of every game (a strong "
        "control variate under greedy play, a weak one under stronger play; the replays cost more CPU than "
        "simulating a greedy run: README, control variates).",
    ),
]
RunDir = Annotated[
    Path | None,
    typer.Option(
        "--run",
        metavar="RUN",
        help="Take the settings from this run folder (its manifest.json); options given must agree with it. "
        "[default: none]",
    ),
]

DEFAULT_GAMES = 1_000_000


def parse_rules(items: list[str] | None) -> dict[str, str]:
    """``["target=21", ...]`` -> ``{"target": "21"}``; values are validated by the variant.

    A key given twice with the same value counts once; with two values it is refused, not settled by order.
    """
    rules: dict[str, str] = {}
    for item in items or []:
        key, eq, value = (part.strip() for part in item.partition("="))
        if not eq or not key:
            raise ConfigError(f"--rule {shown(item)}: expected KEY=VALUE, e.g. --rule target=21")
        if key in rules and rules[key] != value:
            raise ConfigError(
                f"--rule {shown(key, quote=False)} given twice ({shown(rules[key])} and {shown(value)}): give it once"
            )
        rules[key] = value
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
    base_name: str = "the run",
) -> RunConfig:
    """A validated config from the options given or, with ``base`` (a manifest's config), the run's own config:
    every option then given must agree with it (``--seed 7 is not the seed of run R (42)``)."""
    if base is not None:
        return _agreeing(base, base_name, variant, players, policies, rules, seed, games, chunk_size)
    return RunConfig.create(
        variant if variant is not None else "scopa",
        policies=policies or ["greedy"],
        rules=parse_rules(rules),
        players=players,
        games=games if games is not None else DEFAULT_GAMES,
        seed=seed if seed is not None else secrets.randbelow(2**31),
        chunk_size=chunk_size if chunk_size is not None else DEFAULT_CHUNK,
    )


def _agreeing(
    base: dict[str, Any],
    name: str,
    variant: str | None,
    players: int | None,
    policies: list[str] | None,
    rules: list[str] | None,
    seed: int | None,
    games: int | None,
    chunk_size: int | None,
) -> RunConfig:
    """The config of a run folder, after checking each option given against it."""
    try:
        config = RunConfig.from_dict(base)
    except (ConfigError, KeyError, TypeError) as exc:
        raise ConfigError(f"the settings of {name} are not a valid run config ({shown(exc)})") from None

    def differ(option: str, given: object, own: object, what: str) -> ConfigError:
        return ConfigError(f"{option} {shown(given, quote=False)} is not the {what} of {name} ({own})")

    for option, given, own, what in (
        ("--variant", variant, config.variant, "variant"),
        ("--seed", seed, config.seed, "seed"),
        ("--players", players, config.players, "player count"),
        ("--games", games, config.games, "number of games"),
        ("--chunk-size", chunk_size, config.chunk_size, "chunk size"),
    ):
        if given is not None and given != own:
            raise differ(option, given, own, what)
    spec = config.spec
    for key, value in parse_rules(rules).items():
        if spec.key(key).parse(value) != config.rules[key]:
            own = config.rules[key]
            own_text = str(own).lower() if isinstance(own, bool) else own
            raise differ("--rule", f"{key}={value}", f"{key}={own_text}", "rule")
    if policies:
        try:
            given_config = RunConfig.create(config.variant, policies=policies, rules=config.rules, games=1, seed=0)
        except ConfigError as exc:
            raise ConfigError(f"--policy: {exc}") from None
        if given_config.policies != config.policies:
            raise differ("--policy", " ".join(policies), ", ".join(config.policies), "policies")
        for path, text in given_config.sources.items():
            if config.sources.get(path) != text:
                raise ConfigError(f"--policy: the policy file {path} has changed since {name} was played with it")
    return config


def manifest_config(run: Path) -> dict[str, Any]:
    """The config stored in a run folder."""
    config = read_manifest(run).get("config")
    if not isinstance(config, dict):
        raise ConfigError(f"{run}: its manifest.json has no run config")
    return config
