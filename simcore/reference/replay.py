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

from simcore.cards import mask_of, parse_card
from simcore.errors import ConfigError
from simcore.reference.scopa import (
    HAND_SIZE,
    PACK,
    PACK_SET,
    TABLE_SIZE,
    TRACE_FORMAT,
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
from simcore.variants.scopa import SPEC


class ReplayError(ValueError):
    """A trace that the reference rules do not reproduce; the message names the first bad event."""


def replay_trace(trace: Mapping[str, Any]) -> None:
    """Check a Scopa trace against the reference rules; raise :class:`ReplayError` at the first mismatch."""
    _Replay(trace).run()


class _Replay:
    """Walks the events of one trace in order, keeping the state the reference rules reach."""

    def __init__(self, trace: Mapping[str, Any]) -> None:
        self.trace = trace
        self.events: list[Mapping[str, Any]] = list(_need(trace, "events", "the trace"))
        self.pos = 0
        self.rules: dict[str, Any] = {}
        self.players = 0

    # ---------------------------------------------------------------------------------------- event access

    def fail(self, message: str, index: int | None = None) -> ReplayError:
        where = f"event {self.pos if index is None else index}"
        return ReplayError(f"{where}: {message}")

    def peek_type(self) -> str | None:
        return self.events[self.pos].get("type") if self.pos < len(self.events) else None

    def take(self, kind: str) -> tuple[int, Mapping[str, Any]]:
        """The next event, which must be of type ``kind``."""
        if self.pos >= len(self.events):
            raise self.fail(f"the trace ends where a {kind!r} event was expected")
        index, event = self.pos, self.events[self.pos]
        if event.get("type") != kind:
            raise self.fail(f"expected a {kind!r} event, got {event.get('type')!r}: {event}")
        self.pos += 1
        return index, event

    def field(self, index: int, event: Mapping[str, Any], key: str) -> Any:
        if key not in event:
            raise self.fail(f"{event.get('type')!r} event has no {key!r} field", index)
        return event[key]

    def cards(self, index: int, event: Mapping[str, Any], key: str = "cards") -> list[int]:
        """Card ids of a card-list field; every card must be in the 40-card pack, none twice."""
        names = self.field(index, event, key)
        try:
            ids = [parse_card(n) for n in names]
        except (ValueError, TypeError) as err:
            raise self.fail(f"bad card in {key!r}: {err}", index) from None
        outside = [n for n, c in zip(names, ids, strict=True) if c not in PACK_SET]
        if outside:
            raise self.fail(f"cards outside the Scopa pack in {key!r}: {outside}", index)
        if len(set(ids)) != len(ids):
            raise self.fail(f"a card appears twice in {key!r}: {names}", index)
        return ids

    def check(self, ok: bool, index: int, message: str) -> None:
        if not ok:
            raise self.fail(message, index)

    # --------------------------------------------------------------------------------------------- header

    def check_header(self) -> None:
        t = self.trace
        if _need(t, "format", "the trace") != TRACE_FORMAT:
            raise ReplayError(f"header: format is {t['format']!r}, expected {TRACE_FORMAT!r}")
        if _need(t, "variant", "the trace") != VARIANT:
            raise ReplayError(f"header: variant is {t['variant']!r}; this replay checks {VARIANT!r} only")
        rules = _need(t, "rules", "the trace")
        try:
            resolved = SPEC.resolve(rules)
        except ConfigError as err:
            raise ReplayError(f"header: invalid rules: {err}") from None
        if resolved != dict(rules):
            raise ReplayError(f"header: rules are not fully resolved: {rules} (resolved: {resolved})")
        self.rules = resolved
        self.players = resolved["players"]
        if _need(t, "players", "the trace") != self.players:
            raise ReplayError(f"header: players {t['players']} differs from rules players {self.players}")
        if _need(t, "sides", "the trace") != sides_of(self.players):
            raise ReplayError(f"header: sides {t['sides']}, expected {sides_of(self.players)}")
        if len(_need(t, "policies", "the trace")) != self.players:
            raise ReplayError(f"header: {len(t['policies'])} policies for {self.players} players")

    # ----------------------------------------------------------------------------------------------- game

    def run(self) -> None:
        self.check_header()
        totals = [0] * n_sides(self.players)
        first_dealer: int | None = None
        deal = 0
        while True:
            index, event = self.take("deal")
            self.check(self.field(index, event, "deal") == deal, index, f"deal number should be {deal}")
            dealer = self.field(index, event, "dealer")
            if first_dealer is None:
                self.check(dealer in range(self.players), index, f"dealer {dealer} is not a seat")
                first_dealer = dealer
            expected = (first_dealer + deal) % self.players
            self.check(dealer == expected, index, f"dealer should be seat {expected} (rotation), got {dealer}")
            state = self.read_initial_deal(dealer)
            if state is None:
                continue  # void deal: the same deal number and dealer come again
            self.play_deal(state)
            totals = self.end_deal(state, deal, totals)
            if game_winner(totals, self.rules["target"]) is not None:
                self.read_end(totals)
                return
            deal += 1

    def read_dealing_step(self, seats: list[int], with_table: bool) -> tuple[dict[int, list[int]], list[int]]:
        """The hand events of ``seats`` (3 cards each) and, if ``with_table``, the table event (4 cards)."""
        hands: dict[int, list[int]] = {}
        table: list[int] | None = None
        wanted = len(seats) + (1 if with_table else 0)
        for _ in range(wanted):
            kind = self.peek_type()
            if kind == "table" and with_table and table is None:
                index, event = self.take("table")
                table = self.cards(index, event)
                self.check(len(table) == TABLE_SIZE, index, f"the table gets {TABLE_SIZE} cards, got {len(table)}")
                continue
            index, event = self.take("hand")
            seat = self.field(index, event, "seat")
            self.check(seat in seats and seat not in hands, index, f"unexpected hand event for seat {seat}")
            hands[seat] = self.cards(index, event)
            self.check(len(hands[seat]) == HAND_SIZE, index, f"a hand gets {HAND_SIZE} cards")
        return hands, table or []

    def read_initial_deal(self, dealer: int) -> DealState | None:
        """Hands and table of a new deal; None (after its redeal event) if the deal is void (S4)."""
        first = (dealer + 1) % self.players
        start = self.pos
        hands, table = self.read_dealing_step(playing_order(first, self.players), with_table=True)
        dealt = [c for cards in hands.values() for c in cards] + table
        self.check(len(set(dealt)) == len(dealt), start, "the same card is dealt twice")
        if is_void_deal(self.rules, table):
            index, event = self.take("redeal")
            self.check(self.field(index, event, "reason") == "kings", index, "a void deal's reason is 'kings'")
            return None
        self.check(self.peek_type() != "redeal", self.pos, "redeal without three kings on the table")
        stock = [c for c in PACK if c not in set(dealt)]  # which cards, not their order: replays never draw
        return DealState(self.players, first, [set(hands[s]) for s in range(self.players)], set(table), stock)

    def play_deal(self, state: DealState) -> None:
        """Every play of a deal, with the new rounds dealt when all hands are empty (S7)."""
        seat = state.first
        while True:
            if state.hands_empty():
                if not state.stock:
                    return
                start = self.pos
                hands, _ = self.read_dealing_step(playing_order(state.first, self.players), with_table=False)
                for s, cards in hands.items():
                    self.check(set(cards) <= set(state.stock), start, f"seat {s} is dealt cards already seen")
                    state.hands[s] |= set(cards)
                    state.stock = [c for c in state.stock if c not in set(cards)]
            self.replay_play(state, seat)
            seat = (seat + 1) % self.players

    def replay_play(self, state: DealState, seat: int) -> None:
        index, event = self.take("play")
        self.check(self.field(index, event, "seat") == seat, index, f"seat {seat} is to play, not {event['seat']}")
        played = self.cards(index, event)
        self.check(len(played) == 1, index, f"a Scopa play is one card, got {event['cards']}")
        move = (played[0], mask_of(self.cards(index, event, "take")))
        legal = legal_moves(self.rules, state.hands[seat], state.table)
        self.check(move in legal, index, f"illegal move {event['cards']} take {event['take']}")
        result = apply_play(self.rules, state, seat, move)
        for key in ("kind", "points", "sweep"):
            got = self.field(index, event, key)
            want = getattr(result, key)
            same = got == want and isinstance(got, bool) == isinstance(want, bool)
            self.check(same, index, f"{key} should be {want!r}, got {got!r}")

    def end_deal(self, state: DealState, deal: int, totals: list[int]) -> list[int]:
        """Residue (S9), card conservation, deal points (S10, S11) and totals; returns the new totals."""
        residue = award_residue(state)
        if residue is not None:
            index, event = self.take("residue")
            seat = self.field(index, event, "seat")
            self.check(seat == residue[0], index, f"the residue goes to seat {residue[0]}, not {seat}")
            cards = self.cards(index, event)
            self.check(sorted(cards) == residue[1], index, f"residue cards {event['cards']} are not the table")
        else:
            self.check(self.peek_type() != "residue", self.pos, "no residue is due (empty table or no capture)")
        places = [*state.piles, state.table]
        self.check(
            sum(len(p) for p in places) == len(PACK) and set().union(*places) == PACK_SET,
            self.pos,
            "the pack is not split exactly between the side piles and the unscored residue",
        )
        index, event = self.take("score")
        self.check(self.field(index, event, "deal") == deal, index, f"score of deal {deal} expected")
        points = score_deal(self.rules, state.piles, state.sweeps)
        self.check(self.field(index, event, "points") == points, index, f"points should be {points}")
        new_totals = [t + deal_total(p) for t, p in zip(totals, points, strict=True)]
        self.check(self.field(index, event, "totals") == new_totals, index, f"totals should be {new_totals}")
        return new_totals

    def read_end(self, totals: list[int]) -> None:
        index, event = self.take("end")
        winner = game_winner(totals, self.rules["target"])
        self.check(self.field(index, event, "winner") == winner, index, f"the winner is side {winner}")
        self.check(self.field(index, event, "totals") == totals, index, f"end totals should be {totals}")
        self.check(self.pos == len(self.events), self.pos, "events after the end of the game")


def _need(mapping: Mapping[str, Any], key: str, what: str) -> Any:
    if key not in mapping:
        raise ReplayError(f"{what} has no {key!r} field")
    return mapping[key]


__all__ = ["ReplayError", "replay_trace"]
