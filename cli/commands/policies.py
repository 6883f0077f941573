"""``scopasim policies VARIANT``: the playing policies, what they do, and their parameters in that game; with
``--file FILE.py``, the policies a user's file defines (``simcore.userpolicy``) and their parameters."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from cli import render
from simcore.policies import POLICIES, PolicySpec, own_defaults, parameter_meaning
from simcore.variants import get_variant


def _values(params: dict[str, float]) -> str:
    return ", ".join(f"{k}={v:g}" for k, v in params.items())


def _change(base: dict[str, float], other: dict[str, float]) -> str:
    """What ``other`` reads that ``base`` does not, and what it no longer reads: ``"instead of epsilon: hold=0.1"``,
    ``"also risk=1"`` or ``"without card, sweep"``."""
    dropped = ", ".join(k for k in base if k not in other)
    added = _values({k: v for k, v in other.items() if k not in base})
    if dropped and added:
        return f"instead of {dropped}: {added}"
    return f"also {added}" if added else f"without {dropped}" if dropped else "the same"


def parameter_text(policy: PolicySpec, variant: str) -> str:
    """The parameters a policy reads in a game, with their defaults; mc's and search's depend on their rollout (and
    mc's on its horizon: above 0 it values the piles, so it reads the game's weights)."""
    if not policy.rollouts:
        return _values(policy.params(variant))
    base = policy.params(variant)
    parts = [_values(base)]
    own = own_defaults(policy.policy_id, variant)
    for rollout in policy.rollouts:
        if rollout != int(own["rollout"]):
            parts.append(f"with rollout={rollout} {_change(base, policy.params(variant, rollout))}")
    if "horizon" in own:
        other, name = (0, "horizon=0") if own["horizon"] > 0 else (1, "horizon above 0")
        changed = policy.params(variant, None, other)
        if changed != base:
            parts.append(f"with {name} {_change(base, changed)}")
    return "; ".join(parts)


def file_policies(path: Path, variant: str) -> None:
    """Print the policies of a user's file: each checked and compiled for ``variant``, with its parameters."""
    from simcore import userpolicy
    from simcore.policies import parse_policy

    text = userpolicy.read_text(str(path))
    names = userpolicy.policy_functions(userpolicy.module_of(str(path), text))
    console = render.console()
    table = Table(title=f"{path}: policies (--policy {path}:FUNCTION or {path}:FUNCTION:key=value,...)")
    table.add_column("policy", no_wrap=True)
    table.add_column("what it does", overflow="fold")
    table.add_column("parameters (defaults)", overflow="fold")
    for name in names:
        choice = parse_policy(f"{path}:{name}", variant)
        table.add_row(choice.spec.name, choice.spec.doc, _values(choice.params) or "none")
    render.print_table(console, table)
    if not names:
        console.print(f"{path} defines no function of the five policy arguments (view, rules, moves, rng, params)")


def policies(
    variant: Annotated[str, typer.Argument(metavar="VARIANT", help="Game, e.g. scopa.")] = "scopa",
    file: Annotated[
        Path | None,
        typer.Option(
            "--file",
            metavar="FILE.py",
            help="List the policies of a policy file you wrote instead. [default: none: the built-in policies]",
        ),
    ] = None,
) -> None:
    """List the playing policies and their parameters in a game (--policy NAME:key=value,...)."""
    spec = get_variant(variant)
    if file is not None:
        file_policies(file, spec.name)
        return
    console = render.console()
    table = Table(title=f"{spec.title}: policies (--policy NAME or NAME:key=value,...)")
    table.add_column("policy", no_wrap=True)
    table.add_column("what it does", overflow="fold")
    table.add_column("parameters (defaults)", overflow="fold")
    users: dict[tuple[str, str], list[str]] = {}  # (key, meaning) -> the policies that read it
    for policy in POLICIES.values():
        table.add_row(policy.name, policy.doc, parameter_text(policy, spec.name))
        base = policy.params(spec.name)
        for key in policy.all_params(spec.name):
            user = policy.name
            if key not in base:
                user += f" ({policy.read_with(spec.name, key)})"
            users.setdefault((key, parameter_meaning(policy.name, spec.name, key)), []).append(user)
    render.print_table(console, table)
    keys = Table(title="parameters (a policy refuses the ones it does not read)")
    for col in ("key", "meaning", "policies"):
        keys.add_column(col, overflow="fold")
    for (key, text), names in users.items():
        keys.add_row(key, text, ", ".join(names))
    render.print_table(console, keys)
