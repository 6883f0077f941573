"""The game loop and the trace check of the games dealt in rounds from a stock: Scopa, Skopa and Escoba.

All play the same procedure (RULES.md A.2-A.5): deals dealt in rotation, turns in seat order, a new round of
hands whenever every hand is empty until the stock is out, the residue to the last capturer, the deal scored,
and the game over after the first deal with a unique top total at or over the target. What differs is the
game's rules, which each game module supplies as a :class:`StockGame` (itself: the module has these names):
its pack and hand size, how a deal is dealt (Scopa's void deals, Escoba's opening take: an optional
``opening_take``), its legal moves, what a play does and how a deal scores. Scopone plays here too: one round (its
stock is empty after the deal), its deal sizes from its rules (``deal_sizes``) and its first play's moves from the
deal's state (``deal_moves``). Kaszinó (double moves, mid-deal wins) and Foracio (one round, mid-deal wins) keep
their own loops.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Protocol

from simcore.cards import mask_of
from simcore.reference import events as ev
from simcore.reference.checking import TraceReader
from simcore.reference.common import deal_round, game_winner, n_sides, playing_order, side_of, sides_of
from simcore.reference.piles import DealState, PlayResult
from simcore.reference.policies import PolicyView
from simcore.reference.rng import DEAL_STREAM, Stream, policy_stream_index

Move = tuple[int, int]


class StockGame(Protocol):
    """What the shared loop needs of a game module (each name is documented in the module)."""

    VARIANT: str
    SPEC: Any
    PACK: tuple[int, ...]
    PACK_SET: frozenset[int]
    HAND_SIZE: int
    TABLE_SIZE: int
    CATEGORIES: tuple[str, ...]
    MAX_DEALS: int
    POLICIES: Mapping[str, Callable[[PolicyView, Stream], int]]

    def check_policies(self, policies: Sequence[str], players: int) -> list[str]: ...
    def deal_cards(
        self, rules: Mapping[str, Any], deal: int, dealer: int, stream: Stream, events: list[dict[str, Any]]
    ) -> DealState: ...
    def is_void_deal(self, rules: Mapping[str, Any], table: Iterable[int]) -> bool: ...
    def legal_moves(self, rules: Mapping[str, Any], hand: Iterable[int], table: Iterable[int]) -> list[Move]: ...
    def move_of(self, card: int, take_mask: int) -> Move: ...
    def play_mask(self, move: Move) -> int: ...
    def apply_play(self, rules: Mapping[str, Any], state: DealState, seat: int, move: Move) -> PlayResult: ...
    def award_residue(self, state: DealState) -> tuple[int, list[int]] | None: ...
    def score_deal(self, rules: Mapping[str, Any], piles: Sequence[set[int]], sweeps: Sequence[int]) -> list: ...
    def deal_total(self, points: Mapping[str, int]) -> int: ...


# ------------------------------------------------------------------------------------------- playing


def deal_sizes(g: StockGame, rules: Mapping[str, Any]) -> tuple[int, int]:
    """(cards per hand per round, initial table cards): the game's ``deal_sizes(rules)`` where its deal depends
    on the rules (Scopone's ``deal``), else its ``HAND_SIZE`` and ``TABLE_SIZE``."""
    sizes = getattr(g, "deal_sizes", None)
    return sizes(rules) if sizes is not None else (g.HAND_SIZE, g.TABLE_SIZE)


def deal_moves(g: StockGame, rules: Mapping[str, Any], state: DealState, seat: int) -> list[Move]:
    """The seat's legal moves: the game's ``deal_moves(rules, state, seat)`` where they depend on more than the
    hand and the table (Scopone's first play), else its ``legal_moves``."""
    moves = getattr(g, "deal_moves", None)
    if moves is not None:
        return moves(rules, state, seat)
    return g.legal_moves(rules, state.hands[seat], state.table)


def claims_out(g: StockGame, rules: Mapping[str, Any], state: DealState, seat: int, totals: Sequence[int]) -> bool:
    """Whether ``seat`` claims the game right after its play: the game's ``claims_out`` if it has one (Scopa's
    ``claim_out``; it then also has ``sure_points``), else never."""
    claims = getattr(g, "claims_out", None)
    return claims is not None and claims(rules, state, seat, totals)


def deal_winner(
    g: StockGame, rules: Mapping[str, Any], totals: list[int], points: list, state: DealState
) -> int | None:
    """The winner after a deal: the game's own ``deal_winner`` (Scopa's tie-break) if it has one, else A.5."""
    own = getattr(g, "deal_winner", None)
    if own is not None:
        return own(rules, totals, points, state.sweep_order)
    return game_winner(totals, rules["target"])


def play_stock_game(
    g: StockGame, seed: int, game: int, rules: Mapping[str, Any] | None, policies: Sequence[str]
) -> dict[str, Any]:
    """Play one game of ``g`` and return its trace; the procedure is on the game module's ``play_game``."""
    rules = g.SPEC.resolve(rules)
    players = rules["players"]
    names = g.check_policies(policies, players)
    deal_stream = Stream(seed, game, DEAL_STREAM)
    policy_streams = [Stream(seed, game, policy_stream_index(s)) for s in range(players)]
    frozen_rules = MappingProxyType(rules)
    events: list[dict[str, Any]] = []
    totals = [0] * n_sides(players)
    first_dealer = deal_stream.bounded(players)
    for deal in itertools.count():
        if deal >= g.MAX_DEALS:
            raise RuntimeError(f"game {game} (seed {seed}) did not end within {g.MAX_DEALS} deals")
        dealer = (first_dealer + deal) % players
        state = g.deal_cards(frozen_rules, deal, dealer, deal_stream, events)
        claimant = _play_deal(g, frozen_rules, state, names, policy_streams, events, totals)
        if claimant is not None:  # a claim (Scopa's claim_out): the deal ends here, scored on its sure points
            points = g.sure_points(frozen_rules, state)
            totals = [t + g.deal_total(p) for t, p in zip(totals, points, strict=True)]
            events.append(ev.out_event(claimant))
            events.append(ev.score_event(deal, points, totals))
            events.append(ev.end_event(side_of(claimant, players), totals))
            break
        residue = g.award_residue(state)
        if residue is not None:
            events.append(ev.residue_event(residue))
        points = g.score_deal(frozen_rules, state.piles, state.sweeps)
        totals = [t + g.deal_total(p) for t, p in zip(totals, points, strict=True)]
        events.append(ev.score_event(deal, points, totals))
        winner = deal_winner(g, frozen_rules, totals, points, state)
        if winner is not None:
            events.append(ev.end_event(winner, totals))
            break
    return ev.trace_document(g.VARIANT, rules, sides_of(players), names, seed, game, events)


def _play_deal(
    g: StockGame,
    rules: Mapping[str, Any],
    state: DealState,
    policies: Sequence[str],
    streams: Sequence[Stream],
    events: list[dict[str, Any]],
    totals: Sequence[int],
) -> int | None:
    """Turns from the first seat; when every hand is empty, a new round of hands (its hand events right before
    the round's first play) until the stock is out. Returns the seat that claimed the game after its play (a
    game with ``claims_out``), or None once the deal is over."""
    seat = state.first
    while True:
        if state.hands_empty():
            if not state.stock:
                return None
            hand_size = deal_sizes(g, rules)[0]
            for s, cards in deal_round(state.stock, playing_order(state.first, state.players), hand_size).items():
                state.hands[s] |= set(cards)
                events.append(ev.hand_event(s, cards))
        moves = deal_moves(g, rules, state, seat)
        view = PolicyView(frozenset(state.hands[seat]), frozenset(state.table), tuple(moves), rules)
        move = moves[g.POLICIES[policies[seat]](view, streams[seat])]
        result = g.apply_play(rules, state, seat, move)
        shown = 0 if result.kind == "keep" else move[1]  # a kept ace shows no take (TRACE_FORMAT.md)
        events.append(ev.play_event(seat, g.play_mask(move), shown, result))
        if claims_out(g, rules, state, seat, totals):
            return seat
        seat = (seat + 1) % state.players


# ------------------------------------------------------------------------------------------ checking


class StockChecker(TraceReader):
    """Re-plays a trace of ``g`` from its hand/table events (no random stream), checking every event: each
    play legal in the position reached, with the kind, points and sweep the rules give; void deals (if the game
    has them), residues, deal points, totals and the winner; every card of the pack in exactly one place at each
    deal's end. The hand and table events of one dealing step may come in any order (TRACE_FORMAT.md)."""

    def __init__(self, g: StockGame, trace: Mapping[str, Any], error: type[Exception]) -> None:
        super().__init__(trace, error, g.PACK_SET)
        self.g = g

    def run(self) -> None:
        g = self.g
        self.read_header(g.VARIANT, g.SPEC, sides_of)
        totals = [0] * n_sides(self.players)
        first_dealer: int | None = None
        deal = 0
        while True:  # a void deal is dealt again under the same number; the events bound the loop
            dealer, first_dealer = self.read_deal(deal, first_dealer)
            state = self.read_initial_deal(dealer)
            if state is None:
                continue
            self.read_opening(state, dealer)
            claimant = self.play_deal(state, totals)
            if claimant is not None:
                points = g.sure_points(self.rules, state)
                totals = [t + g.deal_total(p) for t, p in zip(totals, points, strict=True)]
                self.read_score(deal, points, totals, g.SPEC.categories_for(self.rules))
                self.read_end(side_of(claimant, self.players), totals)
                return
            totals, points = self.end_deal(state, deal, totals)
            winner = deal_winner(g, self.rules, totals, points, state)
            if winner is not None:
                self.read_end(winner, totals)
                return
            deal += 1
            if deal >= g.MAX_DEALS:
                raise self.fail(f"no winner within {g.MAX_DEALS} deals")

    def read_initial_deal(self, dealer: int) -> DealState | None:
        """Hands and table of a new deal; None (after its redeal event) if the deal is void."""
        g = self.g
        first = (dealer + 1) % self.players
        hand_size, table_size = deal_sizes(g, self.rules)
        hands, table = self.read_dealing_step(playing_order(first, self.players), hand_size, table_size, g.PACK)
        if g.is_void_deal(self.rules, table):
            index, event = self.take("redeal")
            self.check(self.field(index, event, "reason") == "kings", index, "a void deal's reason is 'kings'")
            return None
        self.check(self.peek_type() != "redeal", self.pos, "redeal of a deal that is not void")
        dealt = {c for cards in hands.values() for c in cards} | set(table)
        stock = [c for c in g.PACK if c not in dealt]  # which cards, not their order: a check never draws
        return DealState(self.players, first, [set(hands[s]) for s in range(self.players)], set(table), stock)

    def read_opening(self, state: DealState, dealer: int) -> None:
        """The ``opening`` event of a game with an opening take (Escoba: ``g.opening_take``, applied to ``state``)
        exactly when its rules make one due, else none."""
        take = getattr(self.g, "opening_take", None)
        due = take(self.rules, state, dealer) if take is not None else None
        if due is None:
            self.check(self.peek_type() != "opening", self.pos, "no opening take is due")
            return
        index, event = self.take("opening")
        self.same(index, "opening seat", self.field(index, event, "seat"), due[0])
        self.check(sorted(self.cards(index, event)) == due[1], index, "the opening takes the whole initial table")
        self.same(index, "opening points", self.field(index, event, "points"), due[2])

    def play_deal(self, state: DealState, totals: Sequence[int]) -> int | None:
        """Every play of a deal, with a new round of hands whenever every hand is empty; the seat whose claim (an
        ``out`` event right after its play, exactly when the rules make one) ended the deal, or None."""
        g = self.g
        seat = state.first
        while True:
            if state.hands_empty():
                if not state.stock:
                    return None
                order = playing_order(state.first, self.players)
                hands, _ = self.read_dealing_step(order, deal_sizes(g, self.rules)[0], None, state.stock)
                for s, cards in hands.items():
                    state.hands[s] |= set(cards)
                    state.stock = [c for c in state.stock if c not in set(cards)]
            index, event, played, taken = self.read_play(seat, f"a {g.VARIANT} play is one card")
            kept = event.get("kind") == "keep" and not taken  # a kept ace takes itself (TRACE_FORMAT.md)
            move = g.move_of(played[0], 1 << played[0] if kept else mask_of(taken))
            self.check_move(index, event, move, deal_moves(g, self.rules, state, seat))
            self.check_result(index, event, g.apply_play(self.rules, state, seat, move))
            if claims_out(g, self.rules, state, seat, totals):
                index, event = self.take("out")
                self.same(index, "claiming seat", self.field(index, event, "seat"), seat)
                return seat
            self.check(self.peek_type() != "out", self.pos, "a claim the rules do not make")
            seat = (seat + 1) % self.players

    def end_deal(self, state: DealState, deal: int, totals: list[int]) -> tuple[list[int], list]:
        """Residue, card conservation, deal points and totals; returns the new totals and the deal's points."""
        g = self.g
        self.read_residue(g.award_residue(state))
        self.check_split(state.piles, state.table)
        points = g.score_deal(self.rules, state.piles, state.sweeps)
        new_totals = [t + g.deal_total(p) for t, p in zip(totals, points, strict=True)]
        self.read_score(deal, points, new_totals, g.SPEC.categories_for(self.rules))
        return new_totals, points
