"""Replay a Scopa trace (``scopasim-trace/1``) with the reference rules and check every event.

The replay takes the dealt cards from the trace's ``hand``/``table`` events and never uses a random stream,
so it checks traces from any engine: that each play is legal in the state reached and has the kind, points and
sweep flag the rules give it; that residues, deal points, totals and the winner are what the reference
computes; and that every card of the pack ends a deal in exactly one place (a side pile or the unscored
residue).

The engines emit a dealing step's events in one canonical order (hands in playing order, then the table); the
replay accepts them in any order within the step, as TRACE_FORMAT.md allows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from simcore.reference import scopa
from simcore.reference.stock import StockChecker


class ReplayError(ValueError):
    """A trace that the reference rules do not reproduce; the message names the first bad event."""


def replay_trace(trace: Mapping[str, Any]) -> None:
    """Check a Scopa trace against the reference rules; raise :class:`ReplayError` at the first mismatch."""
    StockChecker(scopa, trace, ReplayError).run()


__all__ = ["ReplayError", "replay_trace"]
