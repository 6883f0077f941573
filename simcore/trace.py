"""Decode the kernels' event rows into game traces (``../shared/TRACE_FORMAT.md``, ``scopasim-trace/1``)."""

from __future__ import annotations

from typing import Any

from simcore.cards import format_mask
from simcore.kernels.game import (
    EV_DEAL,
    EV_END,
    EV_HAND,
    EV_OUT,
    EV_PLAY,
    EV_REDEAL,
    EV_RESIDUE,
    EV_SCORE,
    EV_TABLE,
    KIND_CAPTURE,
    KIND_KEEP,
    KIND_TRAIL,
    ChunkOut,
)
from simcore.variants.base import VariantSpec

TRACE_FORMAT = "scopasim-trace/1"
REDEAL_REASONS = ("kings",)
PLAY_KINDS = {KIND_CAPTURE: "capture", KIND_TRAIL: "trail", KIND_KEEP: "keep"}


def game_trace(
    out: ChunkOut,
    row: int,
    *,
    spec: VariantSpec,
    rules: dict[str, Any],
    policies: list[str],
    seed: int,
    game: int,
) -> dict[str, Any]:
    """The trace of the game in row ``row`` of a chunk played with ``trace=True``."""
    players = int(rules["players"])
    n_sides = len(spec.sides(players))
    events: list[dict[str, Any]] = []
    for ev in out.events[row, : out.n_events[row]]:
        kind, a, b, c, d, m1, m2 = (int(x) for x in ev)
        if kind == EV_DEAL:
            events.append({"type": "deal", "deal": a, "dealer": b})
        elif kind == EV_HAND:
            events.append({"type": "hand", "seat": a, "cards": format_mask(m1)})
        elif kind == EV_TABLE:
            events.append({"type": "table", "cards": format_mask(m1)})
        elif kind == EV_REDEAL:
            events.append({"type": "redeal", "reason": REDEAL_REASONS[a]})
        elif kind == EV_PLAY:
            events.append(
                {
                    "type": "play",
                    "seat": a,
                    "cards": format_mask(m1),
                    "take": format_mask(m2),
                    "kind": PLAY_KINDS[b],
                    "points": c,
                    "sweep": bool(d),
                }
            )
        elif kind == EV_RESIDUE:
            events.append({"type": "residue", "seat": a, "cards": format_mask(m1)})
        elif kind == EV_SCORE:
            points = [
                {cat: int(out.deal_points[row, a, side, k]) for k, cat in enumerate(spec.categories)}
                for side in range(n_sides)
            ]
            totals = [int(out.deal_totals[row, a, side]) for side in range(n_sides)]
            events.append({"type": "score", "deal": a, "points": points, "totals": totals})
        elif kind == EV_OUT:
            events.append({"type": "out", "seat": a})
        elif kind == EV_END:
            totals = [int(x) for x in out.totals[row, :n_sides]]
            events.append({"type": "end", "winner": a, "totals": totals})
    return {
        "format": TRACE_FORMAT,
        "variant": spec.name,
        "rules": dict(rules),
        "players": players,
        "sides": spec.sides(players),
        "policies": list(policies),
        "seed": seed,
        "game": game,
        "events": events,
    }
