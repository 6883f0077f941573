"""``scopasim trace``: write the JSON-lines trace (scopasim-trace/1) of chosen games of a run."""

from __future__ import annotations

import json
import os
import re
import secrets
import sys
from pathlib import Path
from typing import Annotated

import typer

from cli.options import Players, Policies, RuleOpts, RunDir, RunSeed, Variant, build_config, manifest_config
from simcore.config import MAX_GAMES, RunConfig
from simcore.errors import ConfigError, OutputError, shown

MAX_TRACED = 1_000  # games per call: each needs its event buffer (~57 kB) and its JSON line (~30 kB) in memory

GameSel = Annotated[
    list[str] | None,
    typer.Option(
        "--game",
        "-g",
        metavar="GAMES",
        help=f"Game index, range or list: 17, 0-9, 3,5,8 (repeatable; at most {MAX_TRACED:,} games). [default: 0]",
    ),
]
NAME_MAX = 255  # bytes of one file or folder name on Linux, macOS and Windows file systems
INDEX = re.compile(r"[0-9]+")  # ASCII digits only: int() would also take "+3", "1_0" and other scripts' digits


def _index(text: str, part: str) -> int:
    if not INDEX.fullmatch(text):
        raise ConfigError(f"--game {shown(part)}: expected a game index or a range such as 0-9")
    if len(text) > len(str(MAX_GAMES)) or int(text) >= MAX_GAMES:
        raise ConfigError(f"--game {shown(part)}: game indices go from 0 to {MAX_GAMES - 1:,}")
    return int(text)


def parse_games(items: list[str] | None) -> list[int]:
    """``["0-2", "7,9"]`` -> ``[0, 1, 2, 7, 9]``: every item, range end and list entry checked, and at most
    ``MAX_TRACED`` games (counted before any range is expanded)."""
    games: set[int] = set()
    for item in items or ["0"]:
        for part in item.split(","):
            part = part.strip()
            if not part:
                raise ConfigError(f"--game {shown(item)}: an empty entry (expected e.g. 17, 0-9 or 3,5,8)")
            lo, dash, hi = (p.strip() for p in part.partition("-"))
            first = _index(lo, part)
            last = _index(hi, part) if dash else first
            if last < first:
                raise ConfigError(f"--game {shown(part)}: a range goes upwards (e.g. 2-5)")
            if last - first + 1 + len(games) > MAX_TRACED:
                raise ConfigError(f"--game: at most {MAX_TRACED:,} games per trace (split the trace into several)")
            games.update(range(first, last + 1))
    return sorted(games)


def traced_config(run, variant, players, policy, rule, seed, games: list[int]) -> RunConfig:
    """The config whose games are traced: the run folder's (``--run``, which every option given must agree with
    and which must hold the games) or the one the options describe.

    Without ``--run`` a seed is required: a trace must name the very games a run plays.
    """
    if run is None:
        if seed is None:
            raise ConfigError("--seed (or --run FOLDER) is required: a trace shows the games of one seeded run")
        return build_config(
            variant=variant, players=players, policies=policy, rules=rule, seed=seed, games=games[-1] + 1
        )
    name = f"run {shown(str(run), 80, quote=False)}"
    config = build_config(
        variant=variant,
        players=players,
        policies=policy,
        rules=rule,
        seed=seed,
        games=None,
        base=manifest_config(run),
        base_name=name,
    )
    outside = [g for g in games if g >= config.games]
    if outside:
        raise ConfigError(
            f"--game {outside[0]}: {name} holds games 0 to {config.games - 1:,} only ({config.games:,} games)"
        )
    return config


def check_out(out: Path, overwrite: bool) -> None:
    """Refuse, before any game is played, an output that cannot be the trace file asked for."""
    name = shown(str(out), 80, quote=False)
    longest = max((len(os.fsencode(part)) for part in out.parts), default=0)
    if longest > NAME_MAX:
        raise OutputError(f"cannot write {name}: a file or folder name is longer than {NAME_MAX} bytes")
    try:
        if out.is_dir():
            raise OutputError(f"--out {name} is a folder; give the file to write")
        if out.exists() and not overwrite:
            raise OutputError(f"{name} already exists (use --overwrite to replace it)")
        if not out.parent.is_dir():
            raise OutputError(f"cannot write {name}: folder {shown(str(out.parent), 80, quote=False)} does not exist")
    except OSError as exc:  # a path too long as a whole, a loop of links, ...
        raise OutputError(f"cannot write {name}: {exc.strerror or exc}") from None


def write_atomically(out: Path, text: str) -> None:
    """Write ``text`` to ``out`` through a temporary file in the same folder, renamed when whole; on any failure
    (read-only file system, full disk, file size limit) the temporary file is removed and ``out`` is untouched."""
    data = text.encode("utf-8")
    tmp = out.parent / f".trace-{secrets.token_hex(6)}.tmp"  # short: ``out``'s own name may be at NAME_MAX
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def show_fault(fault) -> None:
    """On stderr: the game up to a user policy's illegal decision (its trace events) and the position there.
    Nothing goes to ``--out``: a trace file would claim a finished game."""
    if not fault.events:
        return
    typer.echo("the game up to that decision (trace events):", err=True)
    for event in fault.events:
        typer.echo(json.dumps(event, separators=(",", ":")), err=True)
    for line in fault.position:
        typer.echo(line, err=True)


def trace(
    variant: Variant = None,
    players: Players = None,
    policy: Policies = None,
    rule: RuleOpts = None,
    seed: RunSeed = None,
    run: RunDir = None,
    game: GameSel = None,
    out: Annotated[
        Path, typer.Option("--out", "-o", metavar="PATH", help="JSON-lines file to write, or - for stdout.")
    ] = Path("-"),
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing --out file.")] = False,
) -> None:
    """Write the trace of chosen games: the very games `simulate` plays with the same settings and seed."""
    from simcore import api

    games = parse_games(game)
    config = traced_config(run, variant, players, policy, rule, seed, games)
    to_stdout = str(out) == "-"
    if not to_stdout:
        check_out(out, overwrite)
    from simcore.play import PolicyFaultError

    try:
        traces = api.trace(config, games)
    except PolicyFaultError as fault:
        show_fault(fault)
        raise
    lines = [json.dumps(t, separators=(",", ":")) for t in traces]
    text = "\n".join(lines) + "\n"
    if to_stdout:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        write_atomically(out, text)
    except OSError as exc:
        raise OutputError(f"cannot write {shown(str(out), 80, quote=False)}: {exc.strerror or exc}") from None
    typer.echo(f"{len(lines)} game(s) traced to {out}", err=True)
