"""Trace checking plumbing shared by the reference engines' trace checks (TRACE_FORMAT.md).

A :class:`TraceReader` walks the events of one trace in order: it takes the next event of an expected type,
reads its fields and card lists, checks the header against a game's ``VariantSpec``, and reads the dealing
steps, plays, residues, scores and end that every game has. What a game's deal looks like (void deals, mid-deal
wins, the ace's keep) stays in the game's own checker, which calls these pieces in its rules' order. Every
failure is the game's error class with a message that starts ``event N:`` (or ``header:``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from simcore.cards import parse_card
from simcore.errors import ConfigError
from simcore.reference.events import TRACE_FORMAT

Event = Mapping[str, Any]


class TraceReader:
    """The events of one trace, read in order; ``error`` is the exception class every failure raises."""

    def __init__(self, trace: Mapping[str, Any], error: type[Exception], pack: frozenset[int]) -> None:
        self.trace = trace
        self.error = error
        self.pack = pack
        events = self.need(trace, "events")
        if not isinstance(events, list):
            raise error("header: 'events' is not a list")
        self.events: list[Event] = events
        self.pos = 0
        self.rules: dict[str, Any] = {}
        self.players = 0

    # ---------------------------------------------------------------------------------------- event access

    def fail(self, message: str, index: int | None = None) -> Exception:
        return self.error(f"event {self.pos if index is None else index}: {message}")

    def check(self, ok: bool, index: int, message: str) -> None:
        if not ok:
            raise self.fail(message, index)

    def need(self, mapping: Mapping[str, Any], key: str) -> Any:
        """A header field of the trace."""
        if key not in mapping:
            raise self.error(f"header: the trace has no {key!r} field")
        return mapping[key]

    def peek_type(self) -> str | None:
        if self.pos >= len(self.events):
            return None
        event = self.events[self.pos]
        return event.get("type") if isinstance(event, Mapping) else None

    def take(self, kind: str) -> tuple[int, Event]:
        """The next event, which must be of type ``kind``."""
        if self.pos >= len(self.events):
            raise self.fail(f"the trace ends where a {kind!r} event was expected")
        index, event = self.pos, self.events[self.pos]
        if self.peek_type() != kind:
            raise self.fail(f"expected a {kind!r} event, got {event!r}")
        self.pos += 1
        return index, event

    def field(self, index: int, event: Event, key: str) -> Any:
        if key not in event:
            raise self.fail(f"{event.get('type')!r} event has no {key!r} field", index)
        return event[key]

    def cards(self, index: int, event: Event, key: str = "cards") -> list[int]:
        """Card ids of a card-list field: every card from the game's pack, none twice."""
        names = self.field(index, event, key)
        self.check(isinstance(names, list), index, f"{key!r} is not a list of cards")
        try:
            ids = [parse_card(n) for n in names]
        except (ValueError, TypeError, AttributeError) as err:
            raise self.fail(f"bad card in {key!r}: {err}", index) from None
        outside = [n for n, c in zip(names, ids, strict=True) if c not in self.pack]
        self.check(not outside, index, f"cards outside the pack in {key!r}: {outside}")
        self.check(len(set(ids)) == len(ids), index, f"a card appears twice in {key!r}: {names}")
        return ids

    def same(self, index: int, key: str, got: Any, want: Any) -> None:
        """``got == want`` with the same bool-ness (``True`` is not ``1`` in a trace)."""
        ok = got == want and isinstance(got, bool) == isinstance(want, bool)
        self.check(ok, index, f"{key} should be {want!r}, got {got!r}")

    # --------------------------------------------------------------------------------------------- header

    def read_header(self, variant: str, spec: Any, sides_of: Callable[[int], list[list[int]]]) -> None:
        """Format, variant, fully resolved rules (``spec.resolve``), players, sides and one policy per seat."""
        t = self.trace
        if self.need(t, "format") != TRACE_FORMAT:
            raise self.error(f"header: format is {t['format']!r}, expected {TRACE_FORMAT!r}")
        if self.need(t, "variant") != variant:
            raise self.error(f"header: variant is {t['variant']!r}; this check is for {variant!r} only")
        rules = self.need(t, "rules")
        try:
            resolved = spec.resolve(rules)
        except ConfigError as err:
            raise self.error(f"header: invalid rules: {err}") from None
        if resolved != dict(rules):
            raise self.error(f"header: rules are not fully resolved: {rules} (resolved: {resolved})")
        self.rules = resolved
        self.players = resolved["players"]
        if self.need(t, "players") != self.players:
            raise self.error(f"header: players {t['players']} differs from rules players {self.players}")
        if self.need(t, "sides") != sides_of(self.players):
            raise self.error(f"header: sides {t['sides']}, expected {sides_of(self.players)}")
        if len(self.need(t, "policies")) != self.players:
            raise self.error(f"header: {len(t['policies'])} policies for {self.players} players")

    # ----------------------------------------------------------------------------------------- the deal

    def read_deal(self, deal: int, first_dealer: int | None) -> tuple[int, int]:
        """The ``deal`` event of deal ``deal``: its number, and its dealer in rotation from the first deal's
        (A.2; the first deal's dealer every time under Foracio's ``dealer_rotation="fixed"``). Returns
        ``(dealer, first_dealer)``."""
        index, event = self.take("deal")
        self.same(index, "deal number", self.field(index, event, "deal"), deal)
        dealer = self.field(index, event, "dealer")
        if first_dealer is None:
            self.check(dealer in range(self.players), index, f"dealer {dealer!r} is not a seat")
            first_dealer = dealer
        step = 0 if self.rules.get("dealer_rotation") == "fixed" else 1
        self.same(index, "dealer (rotation)", dealer, (first_dealer + deal * step) % self.players)
        return dealer, first_dealer

    def read_dealing_step(
        self, seats: Sequence[int], hand_size: int, table_size: int | None, unseen: Iterable[int]
    ) -> tuple[dict[int, list[int]], list[int]]:
        """One dealing step, its events in any order: a hand event of ``hand_size`` cards per seat of
        ``seats`` and, unless ``table_size`` is None, the table event; every card from ``unseen``, none twice."""
        hands: dict[int, list[int]] = {}
        table: list[int] | None = None
        start = self.pos
        for _ in range(len(seats) + (0 if table_size is None else 1)):
            if self.peek_type() == "table" and table_size is not None and table is None:
                index, event = self.take("table")
                table = self.cards(index, event)
                self.check(len(table) == table_size, index, f"the table gets {table_size} cards, got {len(table)}")
                continue
            index, event = self.take("hand")
            seat = self.field(index, event, "seat")
            self.check(seat in seats and seat not in hands, index, f"unexpected hand event for seat {seat!r}")
            hands[seat] = self.cards(index, event)
            self.check(len(hands[seat]) == hand_size, index, f"a hand gets {hand_size} cards")
        dealt = [c for cards in hands.values() for c in cards] + (table or [])
        self.check(len(set(dealt)) == len(dealt), start, "the same card is dealt twice")
        self.check(set(dealt) <= set(unseen), start, "cards already dealt in this deal are dealt again")
        return hands, table or []

    def read_play(self, seat: int, one_card: str) -> tuple[int, Event, list[int], list[int]]:
        """The next ``play`` event, which must be ``seat``'s and play one card; returns the event with its
        played and taken card ids (``one_card``: the message for a play of several cards)."""
        index, event = self.take("play")
        self.same(index, "seat", self.field(index, event, "seat"), seat)
        played = self.cards(index, event)
        self.check(len(played) == 1, index, f"{one_card}, got {event['cards']}")
        return index, event, played, self.cards(index, event, "take")

    def check_move(self, index: int, event: Event, move: Any, legal: Sequence[Any]) -> None:
        self.check(move in legal, index, f"illegal move {event['cards']} take {event['take']}")

    def check_result(self, index: int, event: Event, result: Any) -> None:
        """The play event's kind, points and sweep flag must be the ``result`` of the move by the rules."""
        for key in ("kind", "points", "sweep"):
            self.same(index, key, self.field(index, event, key), getattr(result, key))

    def read_residue(self, residue: tuple[int, list[int]] | None) -> None:
        """The residue event the rules give (A.5), or none when there is none."""
        if residue is not None:
            index, event = self.take("residue")
            self.same(index, "residue seat", self.field(index, event, "seat"), residue[0])
            cards = self.cards(index, event)
            self.check(sorted(cards) == residue[1], index, f"residue cards {event['cards']} are not the table")
        else:
            self.check(self.peek_type() != "residue", self.pos, "no residue is due (empty table or no capture)")

    def check_split(self, piles: Sequence[set[int]], table: set[int]) -> None:
        """At a deal's end every card of the pack is in exactly one side pile or the unscored residue."""
        places = [*piles, table]
        self.check(
            sum(len(p) for p in places) == len(self.pack) and set().union(*places) == self.pack,
            self.pos,
            "the pack is not split exactly between the side piles and the unscored residue",
        )

    def read_score(self, deal: int, points: list[dict[str, int]], totals: list[int], categories: Sequence[str]) -> None:
        """The ``score`` event of ``deal``: the points per side (categories in order) and the new totals."""
        index, event = self.take("score")
        self.same(index, "score deal number", self.field(index, event, "deal"), deal)
        got = self.field(index, event, "points")
        same = got == points and all(list(g) == list(categories) for g in got)
        self.check(same, index, f"points should be {points}")
        self.check(self.field(index, event, "totals") == totals, index, f"totals should be {totals}")

    def read_end(self, winner: int | None, totals: list[int]) -> None:
        """The ``end`` event, which must be the trace's last."""
        index, event = self.take("end")
        self.same(index, "the winner", self.field(index, event, "winner"), winner)
        self.check(self.field(index, event, "totals") == totals, index, f"end totals should be {totals}")
        self.check(self.pos == len(self.events), self.pos, "events after the end of the game")
