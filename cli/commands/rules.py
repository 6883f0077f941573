"""``scopasim rules VARIANT``: every rule key of a game, its default and its meaning."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from cli import render
from simcore.variants import get_variant
from simcore.variants.base import RuleKey


def _show(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def rules(variant: Annotated[str, typer.Argument(metavar="VARIANT", help="Game, e.g. scopa.")]) -> None:
    """Show every rule key of a game (set them with --rule KEY=VALUE)."""
    spec = get_variant(variant)
    table = Table(title=f"{spec.title}: rule keys (--rule KEY=VALUE)")
    table.add_column("key", no_wrap=True)
    for col in ("default", "values", "meaning"):
        table.add_column(col, overflow="fold")
    key: RuleKey
    for key in spec.keys:
        table.add_row(key.name, _show(key.default), key.describe_values(), key.doc)
    if spec.part_b_names:
        table.caption = "RULES.md Part B's names, also accepted: " + "; ".join(
            f"{a.name} = {a.key}"
            + (" (" + ", ".join(f"{k} = {v}" for k, v in a.values.items()) + ")" if a.values else "")
            for a in spec.part_b_names
        )
    render.print_table(render.console(), table)
