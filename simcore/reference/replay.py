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

from simcore.cards import mask_of
from simcore.reference.checking import TraceReader
from simcore.reference.scopa import (
    HAND_SIZE,
    PACK,
    PACK_SET,
    TABLE_SIZE,
    VARIANT,
    DealState,
    apply_play,
    award_residue,
    deal_total,
    game_winner,
    is_void_deal,
    legal_moves,
    n_sides,
    playing_order,
    score_deal,
    sides_of,
)
from simcore.variants.scopa import CATEGORIES, SPEC


class ReplayError(ValueError):
    """A trace that the reference rules do not reproduce; the message names the first bad event."""


def replay_trace(trace: Mapping[str, Any]) -> None:
    """Check a Scopa trace against the reference rules; raise :class:`ReplayError` at the first mismatch."""
    _Replay(trace).run()


class _Replay(TraceReader):
    """Walks the events of one trace in order, keeping the state the reference rules reach."""

    def __init__(self, trace: Mapping[str, Any]) -> None:
        super().__init__(trace, ReplayError, PACK_SET)

    def run(self) -> None:
        self.read_header(VARIANT, SPEC, sides_of)
        totals = [0] * n_sides(self.players)
        first_dealer: int | None = None
        deal = 0
        while True:  # a void deal (S4) is dealt again under the same number; the events bound the loop
            dealer, first_dealer = self.read_deal(deal, first_dealer)
            state = self.read_initial_deal(dealer)
            if state is None:
                continue  # void deal: the same deal number and dealer come again
            self.play_deal(state)
            totals = self.end_deal(state, deal, totals)
            winner = game_winner(totals, self.rules["target"])
            if winner is not None:
                self.read_end(winner, totals)
                return
            deal += 1

    def read_initial_deal(self, dealer: int) -> DealState | None:
        """Hands and table of a new deal (S3); None (after its redeal event) if the deal is void (S4)."""
        first = (dealer + 1) % self.players
        hands, table = self.read_dealing_step(playing_order(first, self.players), HAND_SIZE, TABLE_SIZE, PACK)
        if is_void_deal(self.rules, table):
            index, event = self.take("redeal")
            self.check(self.field(index, event, "reason") == "kings", index, "a void deal's reason is 'kings'")
            return None
        self.check(self.peek_type() != "redeal", self.pos, "redeal without three kings on the table")
        dealt = {c for cards in hands.values() for c in cards} | set(table)
        stock = [c for c in PACK if c not in dealt]  # which cards, not their order: replays never draw
        return DealState(self.players, first, [set(hands[s]) for s in range(self.players)], set(table), stock)

    def play_deal(self, state: DealState) -> None:
        """Every play of a deal, with the new rounds dealt when all hands are empty (S7)."""
        seat = state.first
        while True:
            if state.hands_empty():
                if not state.stock:
                    return
                order = playing_order(state.first, self.players)
                hands, _ = self.read_dealing_step(order, HAND_SIZE, None, state.stock)
                for s, cards in hands.items():
                    state.hands[s] |= set(cards)
                    state.stock = [c for c in state.stock if c not in set(cards)]
            index, event, played, taken = self.read_play(seat, "a Scopa play is one card")
            move = (played[0], mask_of(taken))
            legal = legal_moves(self.rules, state.hands[seat], state.table)
            self.check_move(index, event, move, legal)
            self.check_result(index, event, apply_play(self.rules, state, seat, move))
            seat = (seat + 1) % self.players

    def end_deal(self, state: DealState, deal: int, totals: list[int]) -> list[int]:
        """Residue (S9), card conservation, deal points (S10, S11) and totals; returns the new totals."""
        self.read_residue(award_residue(state))
        self.check_split(state.piles, state.table)
        points = score_deal(self.rules, state.piles, state.sweeps)
        new_totals = [t + deal_total(p) for t, p in zip(totals, points, strict=True)]
        self.read_score(deal, points, new_totals, CATEGORIES)
        return new_totals


__all__ = ["ReplayError", "replay_trace"]
