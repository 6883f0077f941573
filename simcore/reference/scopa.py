"""Reference engine of classic Scopa (seed 003; RULES.md Part A and Part B section 4).

Slow, literal, plain Python: sets of card ids, one small function per rule point. It exists to be compared
game by game with the Numba kernels, so it follows one exact procedure (documented on :func:`play_game`) and
uses its own random streams (:mod:`simcore.reference.rng`), never ``simcore.rng`` or ``simcore.kernels``.

Conventions:
* a card is its id from :mod:`simcore.cards` (``(rank - 1) * 4 + suit``); a move is ``(card, take_mask)`` with
  ``take_mask`` the int bitmask of the table cards taken (0 = trail);
* the legal moves of a turn are sorted ascending by ``(card, take_mask)``; policies index into that list;
* seats play in order s, s+1, ... mod players; with 4 players seats {0, 2} and {1, 3} are sides 0 and 1,
  otherwise each seat is its own side (A.2).

Choices where RULES.md leaves room are those of ``simcore.variants.scopa`` (its module docstring); the dealing
order is hands first (playing order from the seat after the dealer), then the table (B 0.2 point 5).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

from simcore.cards import DIAMONDS, card_id, cards_of, format_card, mask_of
from simcore.errors import ConfigError
from simcore.reference.common import check_policy_names, rank_of, shuffle, suit_of
from simcore.reference.rng import DEAL_STREAM, Stream, policy_stream_index
from simcore.variants.scopa import (
    CATEGORIES,
    PRIMIERA_OF_RANK,
    RANKS,
    SETTEBELLO,
    SPEC,
    VALUE_OF_RANK,
    card_weight,
)

TRACE_FORMAT = "scopasim-trace/1"
VARIANT = "scopa"
HAND_SIZE = 3  # S3: three cards each, in every round
TABLE_SIZE = 4  # S3: four cards face up at the start of a deal
KING = 13
PACK: tuple[int, ...] = tuple(sorted(card_id(rank, suit) for rank in RANKS for suit in range(4)))  # S1
PACK_SET = frozenset(PACK)
# Napola: A, 2, 3 of coins, then the further consecutive coins in this order.
NAPOLA_RUN: tuple[int, ...] = tuple(card_id(rank, DIAMONDS) for rank in RANKS)
# Safety net only: a deal always scores the settebello unless nobody captured, so games end long before this.
MAX_DEALS = 10_000

Move = tuple[int, int]


# ---------------------------------------------------------------------------------- cards and seats


def value_of(card: int) -> int:
    """Capture value (S1): A..7 = 1..7, J = 8, Q = 9, K = 10."""
    return VALUE_OF_RANK[rank_of(card)]


def sum_value(cards: Iterable[int]) -> int:
    """Sum of the capture values of a set of cards."""
    return sum(value_of(c) for c in cards)


def primiera_points(card: int) -> int:
    """Primiera value (S11): 7 = 21, 6 = 18, A = 16, 5 = 15, 4 = 14, 3 = 13, 2 = 12, J/Q/K = 10."""
    return PRIMIERA_OF_RANK[rank_of(card)]


def as_cards(cards: int | Iterable[int]) -> frozenset[int]:
    """A set of card ids from an int bitmask or an iterable of ids."""
    if isinstance(cards, int):
        return frozenset(cards_of(cards))
    return frozenset(cards)


def card_names(cards: Iterable[int]) -> list[str]:
    """Trace form of a card list: names sorted by card id."""
    return [format_card(c) for c in sorted(cards)]


def side_of(seat: int, players: int) -> int:
    """Side of a seat (A.2): partners opposite with 4 players, otherwise one seat per side."""
    return seat % 2 if players == 4 else seat


def n_sides(players: int) -> int:
    """Number of sides: 2 with 4 players (partnerships), otherwise one per player."""
    return 2 if players == 4 else players


def sides_of(players: int) -> list[list[int]]:
    """Seats of each side, as in the trace header."""
    return [[s for s in range(players) if side_of(s, players) == side] for side in range(n_sides(players))]


def playing_order(first: int, players: int) -> list[int]:
    """Seats in playing order starting at ``first`` (A.2: seat s+1 plays after seat s)."""
    return [(first + k) % players for k in range(players)]


# ------------------------------------------------------------------------------------------ dealing


def shuffled_pack(stream: Stream) -> list[int]:
    """The pack in ascending id order, Fisher-Yates shuffled: for i = 39..1, swap i and bounded(i + 1)."""
    return shuffle(PACK, stream)


def deal_round(stock: list[int], first: int, players: int) -> dict[int, list[int]]:
    """Take HAND_SIZE cards per seat off the front of ``stock`` (in place), playing order from ``first``."""
    dealt = {}
    for seat in playing_order(first, players):
        dealt[seat] = stock[:HAND_SIZE]
        del stock[:HAND_SIZE]
    return dealt


def deal_table(stock: list[int]) -> list[int]:
    """Take the TABLE_SIZE initial table cards off the front of ``stock`` (in place)."""
    table = stock[:TABLE_SIZE]
    del stock[:TABLE_SIZE]
    return table


def is_void_deal(rules: Mapping[str, Any], table: Iterable[int]) -> bool:
    """S4: with ``redeal_kings`` = 3, three or four kings among the initial table cards void the deal."""
    need = rules["redeal_kings"]
    return need > 0 and sum(1 for c in table if rank_of(c) == KING) >= need


# -------------------------------------------------------------------------------------- legal moves


def subsets_with_sum(cards: Iterable[int], total: int) -> list[frozenset[int]]:
    """Every non-empty set of ``cards`` whose capture values add up to ``total``.

    A depth-first walk over the cards in id order that only extends sets whose sum stays within ``total``
    (values are >= 1), so it visits each qualifying set once without enumerating the whole power set.
    """
    ordered = sorted(cards)
    found: list[frozenset[int]] = []

    def extend(start: int, chosen: tuple[int, ...], remaining: int) -> None:
        if remaining == 0:
            found.append(frozenset(chosen))
            return
        for i in range(start, len(ordered)):
            v = value_of(ordered[i])
            if v <= remaining:
                extend(i + 1, (*chosen, ordered[i]), remaining - v)

    if total > 0:
        extend(0, (), total)
    return found


def captures(rules: Mapping[str, Any], card: int, table: Iterable[int]) -> list[frozenset[int]]:
    """The sets of table cards ``card`` may take (S5).

    With ``single_card_priority``, if a table card has the played card's value, only single equal cards may
    be taken; otherwise any set summing to the value (including single equal cards when the priority is off).
    """
    table = frozenset(table)
    v = value_of(card)
    if rules["single_card_priority"]:
        singles = [frozenset({t}) for t in sorted(table) if value_of(t) == v]
        if singles:
            return singles
    return subsets_with_sum(table, v)


def legal_moves(rules: Mapping[str, Any], hand: int | Iterable[int], table: int | Iterable[int]) -> list[Move]:
    """Legal ``(card, take_mask)`` moves of a hand on a table, sorted ascending (S5, S6).

    ``forced_capture``: "card" = a card that can capture must capture, one that cannot is trailed; "none" =
    every card may also be trailed; "player" (not a Scopa option, kept generic) = if any card can capture,
    only captures are legal, else every card is trailed.
    """
    hand, table = as_cards(hand), as_cards(table)
    takes = {card: captures(rules, card, table) for card in hand}
    forced = rules["forced_capture"]
    if forced not in ("card", "none", "player"):
        raise ConfigError(f"forced_capture {forced!r} is not card, none or player")
    any_card_can_capture = any(takes.values())
    moves: list[Move] = []
    for card in hand:
        moves.extend((card, mask_of(taken)) for taken in takes[card])
        if may_trail(forced, bool(takes[card]), any_card_can_capture):
            moves.append((card, 0))
    return sorted(moves)


def may_trail(forced: str, card_can_capture: bool, any_card_can_capture: bool) -> bool:
    """S6: whether a hand card may be trailed under ``forced_capture``."""
    if forced == "none":
        return True
    if forced == "card":
        return not card_can_capture
    return not any_card_can_capture  # "player"


# ----------------------------------------------------------------------------------------- policies


class PolicyView(NamedTuple):
    """Everything a policy may see: its own hand, the table, the legal moves (sorted) and the rules."""

    hand: frozenset[int]
    table: frozenset[int]
    moves: tuple[Move, ...]
    rules: Mapping[str, Any]


def choose_random(view: PolicyView, stream: Stream) -> int:
    """Uniform move: index ``stream.bounded(len(moves))``, drawn even when there is a single move."""
    return stream.bounded(len(view.moves))


def greedy_score(move: Move, napola: bool) -> int:
    """Greedy value of a move: captures 1000 per table card taken plus the card weights of taken + played
    cards; a trail minus the played card's weight (``simcore.variants.scopa.card_weight``)."""
    card, take_mask = move
    if take_mask == 0:
        return -card_weight(card, napola)
    taken = cards_of(take_mask)
    return 1000 * len(taken) + sum(card_weight(c, napola) for c in [*taken, card])


def choose_greedy(view: PolicyView, stream: Stream) -> int:
    """Highest greedy score; ties go to the first move in sorted order. Draws nothing from ``stream``."""
    napola = bool(view.rules["napola"])
    best = 0
    for i, move in enumerate(view.moves):
        if greedy_score(move, napola) > greedy_score(view.moves[best], napola):
            best = i
    return best


POLICIES = {"random": choose_random, "greedy": choose_greedy}


def check_policies(policies: Sequence[str], players: int) -> list[str]:
    """Validate one known policy name per seat."""
    return check_policy_names(policies, players, POLICIES)


# --------------------------------------------------------------------------------------- deal state


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

    def __post_init__(self) -> None:
        self.piles = self.piles or [set() for _ in range(n_sides(self.players))]
        self.sweeps = self.sweeps or [0] * n_sides(self.players)

    def hands_empty(self) -> bool:
        return all(not h for h in self.hands)


class PlayResult(NamedTuple):
    """What a move did: capture or trail, and whether it counted as a sweep."""

    kind: str  # "capture" | "trail"
    sweep: bool
    points: int


def counts_as_sweep(rules: Mapping[str, Any], table_after: set[int], last_play: bool) -> bool:
    """S8: a capture that empties the table is a scopa, except with the deal's last card (unless
    ``last_play_scopa``)."""
    return not table_after and (rules["last_play_scopa"] or not last_play)


def apply_play(rules: Mapping[str, Any], state: DealState, seat: int, move: Move) -> PlayResult:
    """Play ``move`` for ``seat``: a capture goes, with the played card, to the side's pile; a trail is laid.

    The caller must have checked that the move is legal. The last play of a deal is the one after which every
    hand and the stock are empty.
    """
    card, take_mask = move
    taken = as_cards(take_mask)
    state.hands[seat].remove(card)
    if not taken:
        state.table.add(card)
        return PlayResult("trail", False, 0)
    side = side_of(seat, state.players)
    state.table -= taken
    state.piles[side] |= taken | {card}
    state.last_capturer = seat
    last_play = state.hands_empty() and not state.stock
    sweep = counts_as_sweep(rules, state.table, last_play)
    if sweep:
        state.sweeps[side] += 1
    return PlayResult("capture", sweep, 1 if sweep else 0)


def award_residue(state: DealState) -> tuple[int, list[int]] | None:
    """S9: the cards left on the table go to the last capturer's side; unscored if nobody captured.

    Returns ``(seat, cards)`` of the residue event, or None when there is none (empty table or no capture).
    """
    if not state.table or state.last_capturer is None:
        return None
    cards = sorted(state.table)
    state.piles[side_of(state.last_capturer, state.players)] |= state.table
    state.table = set()
    return state.last_capturer, cards


# ------------------------------------------------------------------------------------------ scoring


def majority_points(counts: Sequence[int]) -> list[int]:
    """1 to the unique side with the largest count; nothing on a tie or when the top count is 0 (S10, A.5)."""
    top = max(counts)
    if top == 0 or counts.count(top) > 1:
        return [0] * len(counts)
    return [1 if c == top else 0 for c in counts]


def best_primiera_by_suit(pile: Iterable[int]) -> list[int]:
    """A pile's best primiera value in each suit c, d, h, s (0 for a missing suit)."""
    best = [0, 0, 0, 0]
    for card in pile:
        best[suit_of(card)] = max(best[suit_of(card)], primiera_points(card))
    return best


def primiera_table(piles: Sequence[Iterable[int]]) -> list[int]:
    """S11 "table": among sides holding all four suits, the unique largest sum of best values scores 1."""
    bests = [best_primiera_by_suit(p) for p in piles]
    totals = [sum(b) if all(b) else 0 for b in bests]  # ineligible sides count 0, which never wins
    return majority_points(totals)


def primiera_suits(piles: Sequence[Iterable[int]]) -> list[int]:
    """S11 "suits": a side scores 1 when in every suit its best card beats every other side's best."""
    bests = [best_primiera_by_suit(p) for p in piles]
    points = []
    for side, mine in enumerate(bests):
        others = [b for i, b in enumerate(bests) if i != side]
        wins = all(mine[s] > 0 and all(mine[s] > o[s] for o in others) for s in range(4))
        points.append(1 if wins else 0)
    return points


def napola_points(pile: Iterable[int]) -> int:
    """Napola: A, 2, 3 of coins score 3, plus 1 per further consecutive coin 4, 5, 6, 7, J, Q, K."""
    pile = set(pile)
    if not set(NAPOLA_RUN[:3]) <= pile:
        return 0
    run = 3
    for card in NAPOLA_RUN[3:]:
        if card not in pile:
            break
        run += 1
    return run


def score_deal(
    rules: Mapping[str, Any], piles_per_side: Sequence[int | Iterable[int]], sweeps_per_side: Sequence[int]
) -> list[dict[str, int]]:
    """Deal points per side, categories in order cards, coins, settebello, primiera, scopa, napola (S10, S11).

    ``piles_per_side``: each side's captured cards (a mask or ids, residue included);
    ``sweeps_per_side``: the counted sweeps of each side.
    """
    piles = [as_cards(p) for p in piles_per_side]
    cards = majority_points([len(p) for p in piles])
    coins = majority_points([sum(1 for c in p if suit_of(c) == DIAMONDS) for p in piles])
    settebello = [1 if SETTEBELLO in p else 0 for p in piles]
    primiera = primiera_table(piles) if rules["primiera"] == "table" else primiera_suits(piles)
    napola = [napola_points(p) if rules["napola"] else 0 for p in piles]
    points = []
    for side in range(len(piles)):
        per_category = (cards[side], coins[side], settebello[side], primiera[side], sweeps_per_side[side])
        points.append(dict(zip(CATEGORIES, (*per_category, napola[side]), strict=True)))
    return points


def deal_total(points: Mapping[str, int]) -> int:
    """A side's points of one deal, all categories."""
    return sum(points[c] for c in CATEGORIES)


def game_winner(totals: Sequence[int], target: int) -> int | None:
    """S12: the side with the unique top total if that total reaches ``target``, else None (another deal)."""
    top = max(totals)
    if top >= target and list(totals).count(top) == 1:
        return list(totals).index(top)
    return None


# ----------------------------------------------------------------------------------------- the game


def _hand_event(seat: int, cards: Iterable[int]) -> dict[str, Any]:
    return {"type": "hand", "seat": seat, "cards": card_names(cards)}


def _deal_cards(
    rules: Mapping[str, Any], deal: int, dealer: int, stream: Stream, events: list[dict[str, Any]]
) -> DealState:
    """Shuffle and deal until the deal is not void (S3, S4), recording deal/hand/table/redeal events."""
    players = rules["players"]
    first = (dealer + 1) % players
    while True:
        stock = shuffled_pack(stream)
        hands = deal_round(stock, first, players)
        table = deal_table(stock)
        events.append({"type": "deal", "deal": deal, "dealer": dealer})
        events.extend(_hand_event(seat, cards) for seat, cards in hands.items())
        events.append({"type": "table", "cards": card_names(table)})
        if not is_void_deal(rules, table):
            return DealState(players, first, [set(hands[s]) for s in range(players)], set(table), stock)
        events.append({"type": "redeal", "reason": "kings"})


def _play_deal(
    rules: Mapping[str, Any],
    state: DealState,
    policies: Sequence[str],
    streams: Sequence[Stream],
    events: list[dict[str, Any]],
) -> None:
    """S7, S8: turns from the first seat; when all hands are empty, deal a round until the stock is out."""
    seat = state.first
    while True:
        if state.hands_empty():
            if not state.stock:
                return
            for s, cards in deal_round(state.stock, state.first, state.players).items():
                state.hands[s] |= set(cards)
                events.append(_hand_event(s, cards))
        moves = legal_moves(rules, state.hands[seat], state.table)
        view = PolicyView(frozenset(state.hands[seat]), frozenset(state.table), tuple(moves), rules)
        card, take_mask = move = moves[POLICIES[policies[seat]](view, streams[seat])]
        result = apply_play(rules, state, seat, move)
        events.append(
            {
                "type": "play",
                "seat": seat,
                "cards": [format_card(card)],
                "take": card_names(cards_of(take_mask)),
                "kind": result.kind,
                "points": result.points,
                "sweep": result.sweep,
            }
        )
        seat = (seat + 1) % state.players


def play_game(seed: int, game: int, rules: Mapping[str, Any] | None, policies: Sequence[str]) -> dict[str, Any]:
    """Play one game and return its trace (TRACE_FORMAT.md, ``scopasim-trace/1``).

    Procedure (the kernels follow the same one):
    1. deal stream = ``Stream(seed, game, 0)``; seat s's policy uses ``Stream(seed, game, 1 + s)``;
    2. first dealer = ``deal.bounded(players)``; deal d is dealt by ``(first_dealer + d) % players`` and led
       by the next seat;
    3. each deal: shuffle, 3 cards per seat in playing order, 4 to the table; void (S4) → reshuffle, same
       dealer; play; new rounds of 3 when every hand is empty; residue to the last capturer; score; the game
       ends after the first deal with a unique top total >= target.

    ``rules`` may be partial; it is resolved with ``simcore.variants.scopa.SPEC``. ``policies``: one of
    "random", "greedy" per seat.
    """
    rules = SPEC.resolve(rules)
    players = rules["players"]
    names = check_policies(policies, players)
    deal_stream = Stream(seed, game, DEAL_STREAM)
    policy_streams = [Stream(seed, game, policy_stream_index(s)) for s in range(players)]
    frozen_rules = MappingProxyType(rules)
    events: list[dict[str, Any]] = []
    totals = [0] * n_sides(players)
    first_dealer = deal_stream.bounded(players)
    for deal in itertools.count():
        if deal >= MAX_DEALS:
            raise RuntimeError(f"game {game} (seed {seed}) did not end within {MAX_DEALS} deals")
        dealer = (first_dealer + deal) % players
        state = _deal_cards(frozen_rules, deal, dealer, deal_stream, events)
        _play_deal(frozen_rules, state, names, policy_streams, events)
        residue = award_residue(state)
        if residue is not None:
            events.append({"type": "residue", "seat": residue[0], "cards": card_names(residue[1])})
        points = score_deal(frozen_rules, state.piles, state.sweeps)
        totals = [t + deal_total(p) for t, p in zip(totals, points, strict=True)]
        events.append({"type": "score", "deal": deal, "points": points, "totals": list(totals)})
        winner = game_winner(totals, rules["target"])
        if winner is not None:
            events.append({"type": "end", "winner": winner, "totals": list(totals)})
            break
    return {
        "format": TRACE_FORMAT,
        "variant": VARIANT,
        "rules": dict(rules),
        "players": players,
        "sides": sides_of(players),
        "policies": names,
        "seed": seed,
        "game": game,
        "events": events,
    }
