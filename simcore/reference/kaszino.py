"""Reference engine of Hungarian Kaszinó (seed 000; RULES.md Part A and Part B section 2).

Slow, literal, plain Python: sets of card ids, one small function per rule point. It exists to be compared
game by game with the Numba kernels, so it follows one exact procedure (documented on :func:`play_game`) and
uses its own random streams (:mod:`simcore.reference.rng`), never ``simcore.rng`` or ``simcore.kernels``.

Conventions:
* a card is its id from :mod:`simcore.cards` (``(rank - 1) * 4 + suit``); its value is its rank (K1);
* a move is ``(play_mask, take_mask)``: the hand cards played and the table cards taken (int bitmasks);
  ``take_mask == 0`` is a trail of the single card ``play_mask``; the legal moves of a turn are sorted ascending
  by ``(play_mask, take_mask)`` and policies index into that list;
* seat 0 and seat 1 are sides 0 and 1; the non-dealer ``(dealer + 1) % 2`` is dealt first and moves first.

The turn structure is the pseudo-code of RULES.md 2.3 (:func:`play_deal`), with the mid-deal win ("AUSZ!",
K13) checked after every single play, the forced trail of a double move included.

Part B's options are read from the resolved rules where their rule point is: ``first_dealer`` (K2) in
:func:`play_game`, ``tabla_by_recapturing_own_trail_counts`` (K6, per card: who trailed each table card is
recorded) and ``tabla_on_final_move_counts`` (K11) in :func:`apply_move`, ``opening_tabla_scope`` (K7) in
:func:`tabla_value`, ``round_leader`` (K8) in :func:`round_leader`, ``residue_if_no_capture`` (K10) in
:func:`award_residue`, the points and thresholds (K12) in :func:`score_pile`.

``last_round_open`` (K9) only changes what a policy may see: :class:`PolicyView` carries the opponent's hand in
the deal's last round when it is on. The "random" and "greedy" policies never look at it, so the option has no
effect on the games this engine plays.

The same state machine replays traces (:func:`check_trace`): an *agent* supplies the dealt cards and the
chosen moves and receives the events, so a game played here and a trace checked here go through one code path.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple, Protocol

from simcore.cards import SPADES, mask_of, parse_card
from simcore.errors import ConfigError
from simcore.reference import events as ev
from simcore.reference.captures import subsets_with_sum as _subsets_with_sum
from simcore.reference.checking import TraceReader
from simcore.reference.common import (
    as_cards,
    card_names,
    check_policy_names,
    deal_round,
    game_winner,
    rank_of,
    shuffle,
    suit_of,
    take_from_stock,
)
from simcore.reference.piles import PlayResult, lay_or_capture
from simcore.reference.piles import award_residue as _award_residue
from simcore.reference.policies import choose_random, first_best, greedy_value
from simcore.reference.rng import DEAL_STREAM, Stream, policy_stream_index
from simcore.variants.kaszino import BIG_CASINO, CATEGORIES, LITTLE_CASINO, SPEC, VALUE_OF_RANK, card_weight

DEFAULT_RULES = MappingProxyType(SPEC.resolve())

TRACE_FORMAT = ev.TRACE_FORMAT
VARIANT = "kaszino"
PLAYERS = 2
SIDES = [[0], [1]]
HAND_SIZE = 3  # K2: three cards each, in every round
TABLE_SIZE = 4  # K2: four cards face up at the start of a deal
PACK: tuple[int, ...] = tuple(range(52))  # K1: the full French pack
PACK_SET = frozenset(PACK)
# Safety net only: every deal with a capture hands out 12 points, so games end long before this.
MAX_DEALS = 10_000

Move = tuple[int, int]


# ---------------------------------------------------------------------------------- cards and seats


def value_of(card: int) -> int:
    """Exchange value (K1): A = 1, 2..10 as marked, J = 11, Q = 12, K = 13."""
    return VALUE_OF_RANK[rank_of(card)]


def sum_value(cards: Iterable[int]) -> int:
    """Sum of the exchange values of a set of cards."""
    return sum(value_of(c) for c in cards)


def other(seat: int) -> int:
    """The opponent of a seat (two players)."""
    return 1 - seat


def non_dealer(dealer: int) -> int:
    """K2: the non-dealer is dealt first and makes the deal's first move."""
    return (dealer + 1) % PLAYERS


# ------------------------------------------------------------------------------------------ dealing


def shuffled_pack(stream: Stream) -> list[int]:
    """The 52 card ids in ascending order, Fisher-Yates shuffled: for i = 51..1, swap i and bounded(i + 1)."""
    return shuffle(PACK, stream)


# -------------------------------------------------------------------------------------- legal moves


def subsets_with_sum(cards: Iterable[int], total: int) -> list[frozenset[int]]:
    """Every non-empty set of ``cards`` whose values add up to ``total`` (depth-first, id order)."""
    return _subsets_with_sum(cards, total, value_of)


def hand_groups(rules: Mapping[str, Any], hand: Iterable[int]) -> list[frozenset[int]]:
    """K3: the hand sides of possible exchanges: non-empty sets of hand cards, at most ``max_hand_cards`` of
    them when that is > 0, whose value total is at most ``max_sum`` when that is > 0 (0 = no cap)."""
    cards = sorted(hand)
    most = rules["max_hand_cards"] or len(cards)
    cap = rules["max_sum"]
    groups = []
    for size in range(1, min(most, len(cards)) + 1):
        for group in itertools.combinations(cards, size):
            if cap == 0 or sum_value(group) <= cap:
                groups.append(frozenset(group))
    return groups


def exchanges(rules: Mapping[str, Any], hand: int | Iterable[int], table: int | Iterable[int]) -> list[Move]:
    """K3: every exchange (H, T) as ``(mask of H, mask of T)``, H from the hand, T from the table, both
    non-empty, value(H) == value(T) within the caps of :func:`hand_groups`; sorted ascending."""
    hand, table = as_cards(hand), as_cards(table)
    takes_by_total: dict[int, list[frozenset[int]]] = {}
    moves = []
    for group in hand_groups(rules, hand):
        total = sum_value(group)
        if total not in takes_by_total:
            takes_by_total[total] = subsets_with_sum(table, total)
        moves.extend((mask_of(group), mask_of(taken)) for taken in takes_by_total[total])
    return sorted(moves)


def trails(hand: int | Iterable[int]) -> list[Move]:
    """K4: trailing one hand card, ``(card mask, 0)`` for each card, sorted."""
    return sorted((1 << card, 0) for card in as_cards(hand))


def legal_moves(rules: Mapping[str, Any], hand: int | Iterable[int], table: int | Iterable[int]) -> list[Move]:
    """The legal moves of a normal turn, sorted ascending by ``(play_mask, take_mask)`` (K3, K4).

    ``forced_capture``: "player" = if any exchange exists the moves are all the exchanges, else all the trails;
    "none" = every exchange and every trail.
    """
    forced = rules["forced_capture"]
    if forced not in ("player", "none"):
        raise ConfigError(f"forced_capture {forced!r} is not player or none")
    found = exchanges(rules, hand, table)
    if forced == "player" and found:
        return found
    return sorted(found + trails(hand))


# ----------------------------------------------------------------------------------------- policies


class PolicyView(NamedTuple):
    """What a policy may see: its seat, hand, the table, the legal moves (sorted), the rules, and the opponent's
    hand when it is public (K9: the deal's last round with ``last_round_open``), else None."""

    seat: int
    hand: frozenset[int]
    table: frozenset[int]
    moves: tuple[Move, ...]
    rules: Mapping[str, Any]
    open_hand: frozenset[int] | None


def greedy_score(move: Move, rules: Mapping[str, Any] = DEFAULT_RULES) -> int:
    """Greedy value of a move: an exchange scores 1000 per table card taken plus the card weights of the taken
    and played cards; a trail scores minus the played card's weight (``simcore.variants.kaszino.card_weight``,
    which follows the scoring keys of ``rules``)."""
    return greedy_value(*move, lambda c: card_weight(c, rules))


def choose_greedy(view: PolicyView, stream: Stream) -> int:
    """Highest greedy score; ties go to the first move in sorted order. Draws nothing from ``stream``."""
    return first_best(greedy_score(move, view.rules) for move in view.moves)


POLICIES = {"random": choose_random, "greedy": choose_greedy}


def check_policies(policies: Sequence[str]) -> list[str]:
    """Validate one known policy name per seat."""
    return check_policy_names(policies, PLAYERS, POLICIES)


# --------------------------------------------------------------------------------------- deal state


@dataclass
class DealState:
    """One deal in play: hands by seat, table, talon (in drawing order), piles and tábla points by side.

    ``plays`` counts the plays made so far in the deal (0 = the next play is the deal's first move, K7);
    ``pending`` is the seat owed a double move after a tábla (K6), or None; ``round_start``: the next play is
    the first of a round (the deal's first, or the first after a draw; K7 ``opening_tabla_scope``);
    ``trailed_by``: the seat that trailed each card now on the table (the initial cards are in none; K6).
    """

    dealer: int
    hands: list[set[int]]
    table: set[int]
    stock: list[int]
    piles: list[set[int]] = field(default_factory=lambda: [set(), set()])
    tabla: list[int] = field(default_factory=lambda: [0, 0])
    last_capturer: int | None = None
    plays: int = 0
    pending: int | None = None
    round_start: bool = True
    trailed_by: dict[int, int] = field(default_factory=dict)

    @property
    def first(self) -> int:
        return non_dealer(self.dealer)

    def hands_empty(self) -> bool:
        return not self.hands[0] and not self.hands[1]

    def last_round(self) -> bool:
        """K9: the talon is exhausted, so the hands in play are the deal's last."""
        return not self.stock


def tabla_value(rules: Mapping[str, Any], state: DealState) -> int:
    """K7: a tábla made with the deal's very first move (it takes the 4 initial cards) scores
    ``opening_tabla_points``, and with ``opening_tabla_scope="first_move_after_each_draw"`` so does one made
    with the first move of any round; every other tábla scores ``points_tabla`` (K12)."""
    each_round = rules["opening_tabla_scope"] == "first_move_after_each_draw"
    if state.plays == 0 or (each_round and state.round_start):
        return rules["opening_tabla_points"]
    return rules["points_tabla"]


def tabla_counts(rules: Mapping[str, Any], state: DealState, seat: int, taken: set[int]) -> bool:
    """Whether an exchange of ``seat`` that empties the table (``taken``: what it took) is a tábla, once the
    cards have moved: always, but for the deal's final move with ``tabla_on_final_move_counts=false`` (K11) and
    for a take of only the seat's own trailed cards with ``tabla_by_recapturing_own_trail_counts=false`` (K6)."""
    final = not state.stock and not state.hands[other(seat)] and len(state.hands[seat]) == 0
    if final and not rules["tabla_on_final_move_counts"]:
        return False
    own = all(state.trailed_by.get(c) == seat for c in taken)
    return bool(rules["tabla_by_recapturing_own_trail_counts"]) or not own


def apply_move(rules: Mapping[str, Any], state: DealState, seat: int, move: Move) -> PlayResult:
    """Play ``move`` for ``seat`` (the caller has checked it is legal).

    An exchange moves H and T to the seat's pile and makes it the last capturer (K3, K5); if the table is then
    empty it is a tábla (K6, K7), unless :func:`tabla_counts` says otherwise. A trail lays the card on the table
    (K4) and records who trailed it. Counts the play; does not set the double move (see :func:`play_deal`).
    """
    play_mask, take_mask = move
    played, taken = as_cards(play_mask), as_cards(take_mask)
    worth = tabla_value(rules, state)
    state.plays += 1
    state.round_start = False
    state.hands[seat] -= played
    if not lay_or_capture(state, seat, seat, played, taken):
        state.trailed_by.update((c, seat) for c in played)
        return PlayResult("trail", 0, False)
    counts = tabla_counts(rules, state, seat, taken)
    for c in taken:
        state.trailed_by.pop(c, None)
    if state.table or not counts:
        return PlayResult("capture", 0, False)
    state.tabla[seat] += worth
    return PlayResult("capture", worth, True)


def round_leader(rules: Mapping[str, Any], state: DealState) -> int:
    """K8: who draws first and leads a new round: the deal's last capturer with ``round_leader="last_capturer"``,
    his opponent with "opponent_of_last_capturer", always the non-dealer with "non_dealer"; the non-dealer too
    while nobody has captured in the deal."""
    if state.last_capturer is None or rules["round_leader"] == "non_dealer":
        return state.first
    if rules["round_leader"] == "opponent_of_last_capturer":
        return other(state.last_capturer)
    return state.last_capturer


def award_residue(state: DealState, rules: Mapping[str, Any] = DEFAULT_RULES) -> tuple[int, list[int]] | None:
    """K10: the cards left on the table go to the last capturer. If nobody captured in the deal they stay
    unscored, or with ``residue_if_no_capture`` go to the dealer or the non-dealer (still no capture: the
    deal's last capturer stays None).

    Returns ``(seat, cards)`` of the residue event, or None when there is none (empty table or nobody takes it).
    """
    if state.last_capturer is None and state.table:
        receiver = {"dealer": state.dealer, "non_dealer": state.first}.get(rules["residue_if_no_capture"])
        if receiver is not None:
            cards = sorted(state.table)
            state.piles[receiver] |= state.table
            state.table = set()
            return receiver, cards
    return _award_residue(state, lambda seat: seat)


# ------------------------------------------------------------------------------------------ scoring


def score_pile(pile: Iterable[int], tabla_points: int, rules: Mapping[str, Any] = DEFAULT_RULES) -> dict[str, int]:
    """K12 for one side: ``cards_threshold`` (27) or more cards ``points_cards`` (3), ``spades_threshold`` (7)
    or more spades ``points_spades`` (2), ``points_ace`` (1) per ace, ``points_2S`` (1) for ♠2, ``points_10D``
    (2) for ♦10, plus its tábla points.

    These thresholds are absolute, so the same function gives the "sure" points of a pile mid-deal (K13).
    """
    pile = as_cards(pile)
    spades = sum(1 for c in pile if suit_of(c) == SPADES)
    points = (
        rules["points_cards"] if len(pile) >= rules["cards_threshold"] else 0,
        rules["points_spades"] if spades >= rules["spades_threshold"] else 0,
        rules["points_ace"] * sum(1 for c in pile if rank_of(c) == 1),
        rules["points_2S"] if LITTLE_CASINO in pile else 0,
        rules["points_10D"] if BIG_CASINO in pile else 0,
        tabla_points,
    )
    return dict(zip(CATEGORIES, points, strict=True))


def score_deal(
    rules: Mapping[str, Any], piles_per_side: Sequence[int | Iterable[int]], tabla_per_side: Sequence[int]
) -> list[dict[str, int]]:
    """Deal points per side, categories in order cards, spades, aces, little_casino, big_casino, tabla (K12).

    ``piles_per_side``: each side's captured cards (a mask or ids); ``tabla_per_side``: each side's tábla points.
    """
    return [score_pile(p, t, rules) for p, t in zip(piles_per_side, tabla_per_side, strict=True)]


def deal_total(points: Mapping[str, int]) -> int:
    """A side's points of one deal, all categories."""
    return sum(points[c] for c in CATEGORIES)


def sure_total(state: DealState, seat: int, rules: Mapping[str, Any] = DEFAULT_RULES) -> int:
    """K13: the points a seat has secured so far in the deal (its pile and táblas scored as they stand)."""
    return deal_total(score_pile(state.piles[seat], state.tabla[seat], rules))


def is_out(rules: Mapping[str, Any], state: DealState, seat: int, banked: Sequence[int]) -> bool:
    """K13 with ``out_call="auto"``: banked total + sure points of the deal reach the target. ``"manual"``: the
    same test is the seat's call, made right after its own play (the players call as soon as they may, and never
    falsely, so ``false_call`` never applies)."""
    reached = banked[seat] + sure_total(state, seat, rules) >= rules["target"]
    return rules["out_call"] in ("auto", "manual") and reached


# ------------------------------------------------------------------------------------- turn structure


class Agent(Protocol):
    """Supplies the cards and the choices of a game and receives its events (policies, a replay, a test)."""

    def start_deal(self, deal: int, dealer: int) -> DealState:
        """Shuffle and deal (or read the dealt cards), record the deal/hand/table events, return the state."""

    def draw_round(self, state: DealState, order: list[int]) -> dict[int, list[int]]:
        """The 3 cards each seat of ``order`` draws from ``state.stock`` (in that order), hand events recorded;
        the caller moves them from the stock to the hands."""

    def choose(self, state: DealState, seat: int, moves: list[Move], forced_trail: bool) -> Move:
        """One of ``moves`` for ``seat``."""

    def emit(self, event: dict[str, Any]) -> None:
        """Record one play, residue, out, score or end event."""


def make_play(
    rules: Mapping[str, Any],
    state: DealState,
    seat: int,
    forced_trail: bool,
    banked: Sequence[int],
    agent: Agent,
) -> bool:
    """One play of ``seat``: the forced trail of a double move (K6 2a) or a normal move (K3, K4). A tábla in a
    normal move owes the opponent a double move when ``after_tabla="trail_then_move"`` and he holds a card
    (K6 2, 4). Returns whether the mover is out (K13) after this play."""
    moves = trails(state.hands[seat]) if forced_trail else legal_moves(rules, state.hands[seat], state.table)
    move = agent.choose(state, seat, moves, forced_trail)
    result = apply_move(rules, state, seat, move)
    agent.emit(ev.play_event(seat, *move, result))
    if result.sweep and rules["after_tabla"] == "trail_then_move" and state.hands[other(seat)]:
        state.pending = other(seat)
    return is_out(rules, state, seat, banked)


def draw(rules: Mapping[str, Any], state: DealState, agent: Agent) -> int:
    """K8: both hands are empty and the talon is not: the round leader draws 3, then the other; returns the
    leader, who moves next."""
    leader = round_leader(rules, state)
    drawn = agent.draw_round(state, [leader, other(leader)])
    for seat, cards in drawn.items():
        state.hands[seat] |= set(cards)
        state.stock = [c for c in state.stock if c not in set(cards)]
    state.round_start = True
    return leader


def play_deal(
    rules: Mapping[str, Any], state: DealState, banked: Sequence[int], agent: Agent, to_move: int | None = None
) -> int | None:
    """Play a deal from its current state (RULES.md 2.3); returns the seat that went out (K13), or None once
    both hands and the talon are empty.

    ``to_move``: the seat whose turn it is, the non-dealer by default (K2; other values for positions set up
    mid-deal). A waiting player (empty hand) is skipped (K8). A player owed a double move (K6) first trails one
    card of his choice, then, if he still holds a card, makes a normal move. The out check follows every play.
    """
    to_move = state.first if to_move is None else to_move
    while True:
        if state.hands_empty():
            if not state.stock:
                return None
            to_move = draw(rules, state, agent)
            continue
        seat, to_move = to_move, other(to_move)
        if not state.hands[seat]:
            continue
        if state.pending == seat:
            state.pending = None
            if make_play(rules, state, seat, True, banked, agent):
                return seat
            if not state.hands[seat]:
                continue
        if make_play(rules, state, seat, False, banked, agent):
            return seat


def finish_deal(
    rules: Mapping[str, Any],
    state: DealState,
    deal: int,
    banked: Sequence[int],
    out_seat: int | None,
    agent: Agent,
) -> tuple[list[int], int | None]:
    """End of a deal: ``out`` (mid-deal win) or residue (K10), then the ``score`` event, then ``end`` if the
    game is over. Returns the new totals and the winning side (None: another deal)."""
    if out_seat is not None:
        agent.emit(ev.out_event(out_seat))
    else:
        residue = award_residue(state, rules)
        if residue is not None:
            agent.emit(ev.residue_event(residue))
    points = score_deal(rules, state.piles, state.tabla)
    totals = [b + deal_total(p) for b, p in zip(banked, points, strict=True)]
    agent.emit(ev.score_event(deal, points, totals))
    winner = out_seat
    if winner is None and rules["out_call"] != "manual":  # K13 manual: no call, scores carry over
        winner = game_winner(totals, rules["target"])  # A.5
    if winner is not None:
        agent.emit(ev.end_event(winner, totals))
    return totals, winner


def run_game(rules: Mapping[str, Any], first_dealer: int, agent: Agent) -> list[int]:
    """Deals until the game is won (K13, A.5); deal d is dealt by ``(first_dealer + d) % 2``. Returns the
    final totals."""
    totals = [0, 0]
    for deal in itertools.count():
        if deal >= MAX_DEALS:
            raise RuntimeError(f"the game did not end within {MAX_DEALS} deals")
        state = agent.start_deal(deal, (first_dealer + deal) % PLAYERS)
        out_seat = play_deal(rules, state, totals, agent)
        totals, winner = finish_deal(rules, state, deal, totals, out_seat, agent)
        if winner is not None:
            return totals
    raise AssertionError("unreachable")


# ------------------------------------------------------------------------------------- seeded games


class PolicyAgent:
    """The agent of :func:`play_game`: shuffles with the deal stream, chooses with the seats' policies."""

    def __init__(self, rules: Mapping[str, Any], policies: Sequence[str], deal_stream: Stream, streams: list[Stream]):
        self.rules = rules
        self.policies = list(policies)
        self.deal_stream = deal_stream
        self.streams = streams
        self.events: list[dict[str, Any]] = []

    def start_deal(self, deal: int, dealer: int) -> DealState:
        """K2: shuffle; 3 cards to the non-dealer, 3 to the dealer, 4 to the table; the talon is the rest."""
        stock = shuffled_pack(self.deal_stream)
        first = non_dealer(dealer)
        hands = deal_round(stock, [first, other(first)], HAND_SIZE)
        table = take_from_stock(stock, TABLE_SIZE)
        self.events.extend(ev.dealing_events(deal, dealer, hands, table))
        return DealState(dealer, [set(hands[0]), set(hands[1])], set(table), stock)

    def draw_round(self, state: DealState, order: list[int]) -> dict[int, list[int]]:
        drawn = {seat: state.stock[k * HAND_SIZE : (k + 1) * HAND_SIZE] for k, seat in enumerate(order)}
        self.events.extend(ev.hand_event(seat, cards) for seat, cards in drawn.items())
        return drawn

    def choose(self, state: DealState, seat: int, moves: list[Move], forced_trail: bool) -> Move:
        opponent = state.hands[other(seat)]
        public = self.rules["last_round_open"] and state.last_round()
        view = PolicyView(
            seat,
            frozenset(state.hands[seat]),
            frozenset(state.table),
            tuple(moves),
            self.rules,
            frozenset(opponent) if public else None,
        )
        return moves[POLICIES[self.policies[seat]](view, self.streams[seat])]

    def emit(self, event: dict[str, Any]) -> None:
        self.events.append(event)


def play_game(seed: int, game: int, rules: Mapping[str, Any] | None, policies: Sequence[str]) -> dict[str, Any]:
    """Play one game and return its trace (TRACE_FORMAT.md, ``scopasim-trace/1``).

    Procedure (the kernels follow the same one):
    1. deal stream = ``Stream(seed, game, 0)``; seat s's policy uses ``Stream(seed, game, 1 + s)``;
    2. first dealer = ``deal.bounded(2)``, or seat 0 with ``first_dealer="fixed"`` (the draw is made all the
       same); deal d is dealt by ``(first_dealer + d) % 2``;
    3. each deal: shuffle the 52 ids; 3 cards to the non-dealer, 3 to the dealer, 4 to the table, talon 42;
       the turns of :func:`play_deal`; when both hands are empty the round leader draws the next 3 talon cards,
       then the other player the next 3;
    4. after every play with ``out_call="auto"`` or ``"manual"``: the mover wins if banked + sure points >=
       target (events out, score of the interrupted deal, end); after a completed deal: residue to the last
       capturer, score, and (not under ``"manual"``, where only a call wins) the game ends if the top total is
       unique and >= target.

    ``rules`` may be partial; it is resolved with ``simcore.variants.kaszino.SPEC``. ``policies``: "random" or
    "greedy" per seat.
    """
    rules = MappingProxyType(SPEC.resolve(rules))
    names = check_policies(policies)
    deal_stream = Stream(seed, game, DEAL_STREAM)
    streams = [Stream(seed, game, policy_stream_index(s)) for s in range(PLAYERS)]
    agent = PolicyAgent(rules, names, deal_stream, streams)
    drawn = deal_stream.bounded(PLAYERS)
    first_dealer = 0 if rules["first_dealer"] == "fixed" else drawn  # K2
    run_game(rules, first_dealer, agent)
    return ev.trace_document(VARIANT, rules, SIDES, names, seed, game, agent.events)


# ------------------------------------------------------------------------------------ trace checking


class ReplayAgent(TraceReader):
    """The agent of :func:`check_trace`: dealt cards and chosen moves come from the trace's events, and every
    event the rules produce must be the trace's next one. Failures are AssertionErrors naming the event."""

    def __init__(self, trace: Mapping[str, Any]) -> None:
        super().__init__(trace, AssertionError, PACK_SET)
        self.state: DealState | None = None

    def next_event(self, kind: str | None = None) -> tuple[int, Mapping[str, Any]]:
        """The next event (consumed), which must be of type ``kind`` when given."""
        if self.pos >= len(self.events):
            raise self.fail(f"the trace ends where {kind or 'another'} event was expected")
        index, event = self.pos, self.events[self.pos]
        if not isinstance(event, Mapping):
            raise self.fail(f"not an event object: {event!r}")
        if kind is not None and event.get("type") != kind:
            raise self.fail(f"expected a {kind!r} event, got {event.get('type')!r}")
        self.pos += 1
        return index, event

    def read_hands(
        self, seats: list[int], with_table: bool, allowed: set[int]
    ) -> tuple[dict[int, list[int]], list[int]]:
        """One dealing step: a hand event (3 cards) per seat and, if ``with_table``, the table (4 cards), in any
        order; every card from ``allowed`` (the undealt cards) and none twice."""
        hands: dict[int, list[int]] = {}
        table: list[int] | None = None
        seen: set[int] = set()
        for _ in range(len(seats) + (1 if with_table else 0)):
            index, event = self.next_event()
            if event.get("type") == "table" and with_table and table is None:
                table = cards = self.cards(index, event)
                if len(table) != TABLE_SIZE:
                    raise self.fail(f"the table gets {TABLE_SIZE} cards, got {len(table)}", index)
            else:
                if event.get("type") != "hand":
                    wanted = "hand or table" if with_table else "hand"
                    raise self.fail(f"expected a {wanted} event, got {event.get('type')!r}", index)
                seat = self.field(index, event, "seat")
                if seat not in seats or seat in hands:
                    raise self.fail(f"unexpected hand event for seat {seat!r}", index)
                hands[seat] = cards = self.cards(index, event)
                if len(cards) != HAND_SIZE:
                    raise self.fail(f"a hand gets {HAND_SIZE} cards, got {len(cards)}", index)
            if not set(cards) <= allowed - seen:
                raise self.fail(f"cards dealt twice or not in the talon: {event['cards']}", index)
            seen |= set(cards)
        return hands, table or []

    def start_deal(self, deal: int, dealer: int) -> DealState:
        index, event = self.next_event("deal")
        if self.field(index, event, "deal") != deal:
            raise self.fail(f"deal number should be {deal}", index)
        if self.field(index, event, "dealer") != dealer:
            raise self.fail(f"deal {deal} is dealt by seat {dealer}, not {event['dealer']!r}", index)
        hands, table = self.read_hands([non_dealer(dealer), dealer], True, set(PACK))
        dealt = {*hands[0], *hands[1], *table}
        stock = [c for c in PACK if c not in dealt]  # which cards, not their order: a replay never draws blind
        self.state = DealState(dealer, [set(hands[0]), set(hands[1])], set(table), stock)
        return self.state

    def draw_round(self, state: DealState, order: list[int]) -> dict[int, list[int]]:
        hands, _ = self.read_hands(order, False, set(state.stock))
        return hands

    def choose(self, state: DealState, seat: int, moves: list[Move], forced_trail: bool) -> Move:
        """The move of the next event, which must be a play of ``seat`` legal here; consumed by :meth:`emit`."""
        if self.pos >= len(self.events):
            raise self.fail(f"the trace ends where seat {seat} should play")
        index, event = self.pos, self.events[self.pos]
        if not isinstance(event, Mapping) or event.get("type") != "play":
            raise self.fail(f"seat {seat} should play here, got {event!r}")
        if event.get("seat") != seat:
            raise self.fail(f"seat {seat} is to play, not {event.get('seat')!r}", index)
        move = (mask_of(self.cards(index, event)), mask_of(self.cards(index, event, "take")))
        if move not in moves:
            what = "forced trail after a tábla" if forced_trail else "move"
            raise self.fail(f"illegal {what} {event['cards']} take {event['take']}", index)
        return move

    def emit(self, event: dict[str, Any]) -> None:
        if event["type"] == "score" and self.state is not None:
            self.check_cards(self.state, event.get("deal"))
        index, got = self.next_event()
        if _canonical(got, self.fail, index) != _canonical(event, self.fail, index):
            raise self.fail(f"expected {event}, got {dict(got)}", index)

    def check_cards(self, state: DealState, deal: int | None) -> None:
        """Every card of the pack in exactly one place: hands, table, talon, piles (the table may be the
        unscored residue)."""
        places = [*state.hands, state.table, set(state.stock), *state.piles]
        if sum(len(p) for p in places) != len(PACK) or set().union(*places) != PACK_SET:
            raise self.fail(f"the cards of deal {deal} are not each in exactly one place")


def _canonical(event: Mapping[str, Any], fail: Any, index: int) -> str:
    """An event as comparable text: card lists sorted by card id; JSON keeps true and 1 apart."""
    out = dict(event)
    for key in ("cards", "take"):
        if key in out:
            try:
                out[key] = card_names(parse_card(n) for n in out[key])
            except (ValueError, TypeError, AttributeError) as err:
                raise fail(f"bad card in {key!r}: {err}", index) from None
    return json.dumps(out, sort_keys=True)


def check_trace(trace: Mapping[str, Any]) -> None:
    """Replay a Kaszinó trace from its hand/table events (no random stream) and raise AssertionError, naming the
    event index, at the first thing the rules do not reproduce: a play that is not legal in the reached
    position (double moves and waiting players included), a wrong kind/points/sweep, out/residue/score/totals/
    winner, a card in two places or lost at a deal's end, or events after the end of the game."""
    agent = ReplayAgent(trace)
    agent.read_header(VARIANT, SPEC, lambda players: SIDES)
    assert agent.events, "event 0: the trace has no events"
    first = agent.events[0]
    first_dealer = first.get("dealer") if isinstance(first, Mapping) else None
    if first_dealer not in range(PLAYERS):
        raise agent.fail(f"the first deal's dealer {first_dealer!r} is not a seat", 0)
    if agent.rules["first_dealer"] == "fixed" and first_dealer != 0:
        raise agent.fail(f"with first_dealer=fixed seat 0 deals first, not seat {first_dealer}", 0)
    run_game(MappingProxyType(agent.rules), first_dealer, agent)
    if agent.pos != len(agent.events):
        raise agent.fail("events after the end of the game")


__all__ = [
    "PACK",
    "POLICIES",
    "Agent",
    "DealState",
    "PlayResult",
    "PolicyAgent",
    "PolicyView",
    "ReplayAgent",
    "apply_move",
    "award_residue",
    "check_trace",
    "choose_greedy",
    "choose_random",
    "deal_total",
    "exchanges",
    "finish_deal",
    "game_winner",
    "greedy_score",
    "legal_moves",
    "play_deal",
    "play_game",
    "round_leader",
    "score_deal",
    "score_pile",
    "shuffled_pack",
    "subsets_with_sum",
    "sure_total",
    "trails",
    "value_of",
]
