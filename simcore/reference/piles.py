"""The cards of a deal in play, shared by the reference engines: the state of Scopa and Skopa deals, what a
play did, trailing or capturing, and the residue (RULES.md A.3, A.5).

Kaszinó and Foracio keep their own deal state (double moves, keeps, immediate points) but move cards and award
the residue with the same functions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from simcore.reference.common import n_sides


class PlayResult(NamedTuple):
    """What a move did: its trace kind, the points it scored at once, and whether it counted as a sweep."""

    kind: str  # "capture" | "trail" (Foracio: also "keep")
    points: int
    sweep: bool


@dataclass
class DealState:
    """Cards of one deal in play: hands by seat, table, remaining stock, side piles, counted sweeps."""

    players: int
    first: int
    hands: list[set[int]]
    table: set[int]
    stock: list[int]
    piles: list[set[int]] = field(default_factory=list)
    sweeps: list[int] = field(default_factory=list)
    last_capturer: int | None = None
    sweep_order: list[int] = field(default_factory=list)  # side of each counted sweep, in play order

    def __post_init__(self) -> None:
        self.piles = self.piles or [set() for _ in range(n_sides(self.players))]
        self.sweeps = self.sweeps or [0] * n_sides(self.players)

    def hands_empty(self) -> bool:
        return all(not h for h in self.hands)


class Piles(Protocol):
    """What :func:`lay_or_capture` and :func:`award_residue` need of a deal state."""

    table: set[int]
    piles: list[set[int]]
    last_capturer: int | None


def lay_or_capture(state: Piles, seat: int, side: int, played: Iterable[int], taken: Iterable[int]) -> bool:
    """A trail (nothing ``taken``) lays the played cards on the table; a capture moves the taken cards and the
    played ones to the side's pile and makes ``seat`` the last capturer. Returns whether it was a capture."""
    played, taken = set(played), set(taken)
    if not taken:
        state.table |= played
        return False
    state.table -= taken
    state.piles[side] |= taken | played
    state.last_capturer = seat
    return True


def award_residue(state: Piles, side_of_seat: Callable[[int], int]) -> tuple[int, list[int]] | None:
    """A.5: the cards left on the table go to the last capturer's side; unscored if nobody captured.

    Returns ``(seat, cards)`` of the residue event, or None when there is none (empty table or no capture).
    """
    if not state.table or state.last_capturer is None:
        return None
    cards = sorted(state.table)
    state.piles[side_of_seat(state.last_capturer)] |= state.table
    state.table = set()
    return state.last_capturer, cards
