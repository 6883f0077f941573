"""``scopasim policies VARIANT``: the playing policies, what they do, and their parameters in that game."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from simcore.policies import POLICIES, parameter_meaning
from simcore.variants import get_variant


def policies(variant: Annotated[str, typer.Argument(help="Game, e.g. scopa.")] = "scopa") -> None:
    """List the playing policies and their parameters in a game (--policy NAME:key=value,...)."""
    spec = get_variant(variant)
    console = Console()
    table = Table(title=f"{spec.title}: policies (--policy NAME or NAME:key=value,...)")
    table.add_column("policy", no_wrap=True)
    table.add_column("what it does", overflow="fold")
    table.add_column("parameters (defaults)", overflow="fold")
    users: dict[tuple[str, str], list[str]] = {}  # (key, meaning) -> the policies that take it
    for policy in POLICIES.values():
        params = policy.params(spec.name)
        table.add_row(policy.name, policy.doc, ", ".join(f"{k}={v:g}" for k, v in params.items()))
        for key in params:
            users.setdefault((key, parameter_meaning(policy.name, spec.name, key)), []).append(policy.name)
    console.print(table)
    keys = Table(title="parameters")
    for col in ("key", "meaning", "policies"):
        keys.add_column(col, overflow="fold")
    for (key, text), names in users.items():
        keys.add_row(key, text, ", ".join(names))
    console.print(keys)
