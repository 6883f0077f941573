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


def parameter_text(policy: PolicySpec, variant: str) -> str:
    """The parameters a policy reads in a game, with their defaults; mc's and search's depend on their rollout."""
    if not policy.rollouts:
        return _values(policy.params(variant))
    base = policy.params(variant)
    parts = [_values(base)]
    default = int(own_defaults(policy.policy_id, variant)["rollout"])
    instead = ", ".join(k for k in base if k not in (*policy.reads, "rollout")) or "nothing"
    for rollout in policy.rollouts:
        if rollout != default:
            more = {k: v for k, v in policy.params(variant, rollout).items() if k not in (*policy.reads, "rollout")}
            parts.append(f"with rollout={rollout} instead of {instead}: {_values(more)}")
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
                rollouts = [str(r) for r in policy.rollouts if key in policy.params(spec.name, r)]
                user += f" (rollout={' or '.join(rollouts)})"
            users.setdefault((key, parameter_meaning(policy.name, spec.name, key)), []).append(user)
    render.print_table(console, table)
    keys = Table(title="parameters (a policy refuses the ones it does not read)")
    for col in ("key", "meaning", "policies"):
        keys.add_column(col, overflow="fold")
    for (key, text), names in users.items():
        keys.add_row(key, text, ", ".join(names))
    render.print_table(console, keys)
