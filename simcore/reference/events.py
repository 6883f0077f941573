"""Trace events and the trace document (TRACE_FORMAT.md, ``scopasim-trace/1``), built the same way by every
reference engine. Key order is the one the kernels' traces use, so serialised traces compare byte for byte."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from simcore.cards import cards_of
from simcore.reference.common import card_names

TRACE_FORMAT = "scopasim-trace/1"

Event = dict[str, Any]


def hand_event(seat: int, cards: Iterable[int]) -> Event:
    return {"type": "hand", "seat": seat, "cards": card_names(cards)}


def dealing_events(deal: int, dealer: int, hands: Mapping[int, Iterable[int]], table: Iterable[int]) -> list[Event]:
    """A new deal: its ``deal`` event, one ``hand`` event per seat in the order of ``hands``, the ``table``."""
    return [
        {"type": "deal", "deal": deal, "dealer": dealer},
        *(hand_event(seat, cards) for seat, cards in hands.items()),
        {"type": "table", "cards": card_names(table)},
    ]


def play_event(seat: int, play_mask: int, take_mask: int, result: Any) -> Event:
    """The ``play`` event of a move; ``result`` has the move's ``kind``, ``points`` and ``sweep``."""
    return {
        "type": "play",
        "seat": seat,
        "cards": card_names(cards_of(play_mask)),
        "take": card_names(cards_of(take_mask)),
        "kind": result.kind,
        "points": result.points,
        "sweep": result.sweep,
    }


def residue_event(residue: tuple[int, list[int]]) -> Event:
    return {"type": "residue", "seat": residue[0], "cards": card_names(residue[1])}


def score_event(deal: int, points: list[dict[str, int]], totals: Sequence[int]) -> Event:
    return {"type": "score", "deal": deal, "points": points, "totals": list(totals)}


def end_event(winner: int, totals: Sequence[int]) -> Event:
    return {"type": "end", "winner": winner, "totals": list(totals)}


def opening_event(seat: int, cards: Iterable[int], points: int) -> Event:
    """Escoba's opening take (RULES.md C.A.6): ``seat`` takes the initial table ``cards`` as ``points`` escobas."""
    return {"type": "opening", "seat": seat, "cards": card_names(cards), "points": points}


def out_event(seat: int) -> Event:
    """A mid-deal win declared by ``seat`` (Kaszinó K13, Foracio F13)."""
    return {"type": "out", "seat": seat}


def trace_document(
    variant: str,
    rules: Mapping[str, Any],
    sides: Sequence[Sequence[int]],
    policies: Sequence[str],
    seed: int,
    game: int,
    events: list[Event],
) -> dict[str, Any]:
    """The game object of a trace: its header, then its events."""
    return {
        "format": TRACE_FORMAT,
        "variant": variant,
        "rules": dict(rules),
        "players": len(policies),
        "sides": [list(s) for s in sides],
        "policies": list(policies),
        "seed": seed,
        "game": game,
        "events": events,
    }
