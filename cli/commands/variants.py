"""``scopasim variants``: the games scopasim plays."""

from __future__ import annotations

from rich.table import Table

from cli import render
from simcore.variants import VARIANTS


def variants() -> None:
    """List the games, their player counts and scoring categories."""
    table = Table(title="Games")
    for col in ("variant", "game", "players", "scoring categories"):
        table.add_column(col)
    for spec in VARIANTS.values():
        players = spec.key("players")
        counts = ", ".join(str(p) for p in players.choices) if players.choices else str(players.default)
        table.add_row(spec.name, spec.title, counts, ", ".join(spec.categories))
    render.print_table(render.console(), table)
