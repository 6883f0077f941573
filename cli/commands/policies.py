"""``scopasim policies VARIANT``: the playing policies, what they do, and their parameters in that game."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from cli import render
from simcore.policies import POLICIES, ROLLOUTS, PolicySpec, parameter_meaning
from simcore.variants import get_variant


def _values(params: dict[str, float]) -> str:
    return ", ".join(f"{k}={v:g}" for k, v in params.items())


def parameter_text(policy: PolicySpec, variant: str) -> str:
    """The parameters a policy reads in a game, with their defaults; mc's depend on its rollout."""
    if policy.name != "mc":
        return _values(policy.params(variant))
    base = policy.params(variant)
    parts = [_values(base)]
    for rollout in ROLLOUTS:
        if rollout != 1:
            more = {k: v for k, v in policy.params(variant, rollout).items() if k not in ("samples", "rollout")}
            parts.append(f"with rollout={rollout} instead of epsilon: {_values(more)}")
    return "; ".join(parts)


def policies(
    variant: Annotated[str, typer.Argument(metavar="VARIANT", help="Game, e.g. scopa.")] = "scopa",
) -> None:
    """List the playing policies and their parameters in a game (--policy NAME:key=value,...)."""
    spec = get_variant(variant)
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
                rollouts = [str(r) for r in ROLLOUTS if key in policy.params(spec.name, r)]
                user += f" (rollout={' or '.join(rollouts)})"
            users.setdefault((key, parameter_meaning(policy.name, spec.name, key)), []).append(user)
    render.print_table(console, table)
    keys = Table(title="parameters (a policy refuses the ones it does not read)")
    for col in ("key", "meaning", "policies"):
        keys.add_column(col, overflow="fold")
    for (key, text), names in users.items():
        keys.add_row(key, text, ", ".join(names))
    render.print_table(console, keys)
