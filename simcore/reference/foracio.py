"""Reference engine of Venetian Foracio / Foraccio (seed 001; RULES.md Part A and Part B section 3).

Slow, literal, plain Python: sets of card ids, one small function per rule point (F1..F13). It exists to be
compared game by game with the Numba kernels, so it follows one exact procedure (documented on
:func:`play_game`) and uses its own random streams (:mod:`simcore.reference.rng`), never ``simcore.rng`` or
``simcore.kernels``.

Conventions:
* a card is its id from :mod:`simcore.cards` (``(rank - 1) * 4 + suit``); a move is ``(play_mask, take_mask)``,
  two int bitmasks: the one hand card played and the table cards taken (0 = trail). The ace that keeps itself
  on an empty table (F5) is ``(ace, ace)``: take == play, the trace kind ``"keep"`` with an empty ``take``;
* the legal moves of a turn are sorted ascending by ``(play_mask, take_mask)``; policies index into that list;
* four seats play in order s, s+1, ... mod 4; seats {0, 2} are side 0 and {1, 3} side 1 (F1, A.2).

Choices where RULES.md leaves room (those of ``simcore.variants.foracio`` and of the common reference contract):
* numerals 2..10 are the only cards in sums; a table ace and court cards are never part of a sum (F3, F5);
* an ace on a non-empty table takes the whole table, a single move; on an empty table ``ace_on_empty`` gives
  keep and/or stay; ``forced_capture="none"`` adds the trail of every card, aces included (F5, F6);
* the same-suit bonus needs two or more taken cards, all of the numeral's suit (F7); a scopa is a numeral or
  court capture emptying the table, never with the deal's 52nd play; a court scopa worth 0 still has
  ``sweep: true`` (F8);
* ``all_five`` holds the bonus above the plain 6, so the five element columns keep 2, 1, 1, 1, 1 (F11);
* ``declare="immediate"``: after every play (any kind, the 52nd included) the mover's side wins at once when its
  banked total plus this deal's scopa and same-suit points reach the target (F13);
* after a completed deal with both sides at or over the target the deal's last capturer's side wins; if nobody
  captured in that deal, the unique higher total wins and a tie plays another deal (F13);
* ``no_scopa_rule="final_capture_if_in_last_round"`` (F8): a sweep with a seat's last card (the last round) is
  provisional and counts toward no declaration; a later capture makes it stand; when the deal ends (played out
  or by a declaration) the deal's last capture, if it is such a sweep, loses its scopa, on its play event too.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType
from typing import Any

from simcore.cards import DIAMONDS, SPADES, card_id, cards_of, mask_of
from simcore.errors import ConfigError
from simcore.reference import events as ev
from simcore.reference.captures import same_rank_captures, subsets_with_sum, sum_captures
from simcore.reference.checking import TraceReader
from simcore.reference.common import as_cards, check_policy_names, deal_round, rank_of, shuffle, suit_of
from simcore.reference.common import playing_order as seats_in_order
from simcore.reference.piles import PlayResult
from simcore.reference.piles import award_residue as _award_residue
from simcore.reference.policies import PolicyView, choose_random, first_best, greedy_value
from simcore.reference.rng import DEAL_STREAM, Stream, policy_stream_index
from simcore.variants.foracio import CATEGORIES, SPEC, card_weight

TRACE_FORMAT = ev.TRACE_FORMAT
VARIANT = "foracio"
PLAYERS = 4  # F1: two partnerships
N_SIDES = 2
SIDES = [[0, 2], [1, 3]]
HAND_SIZE = 13  # F2: all 52 cards dealt, 13 each
PACK: tuple[int, ...] = tuple(range(52))  # F1: the full 52-card Treviso pack
PACK_SET = frozenset(PACK)
PLAYS_PER_DEAL = len(PACK)  # F2: one round of 13 plays each
ACE, JACK, QUEEN, KING = 1, 11, 12, 13
NUMERAL_RANKS = range(2, 11)  # F3: the only cards with a capture value
COURT_RANKS = (JACK, QUEEN, KING)
# F8: scopa value of a court card under each ``court_scopa_value`` (J, Q, K)
COURT_SCOPA_VALUES = {"rank": (11, 12, 13), "ten": (10, 10, 10), "zero": (0, 0, 0)}
SEVEN_SPADES = card_id(7, SPADES)
TWO_SPADES = card_id(2, SPADES)
JACK_SPADES = card_id(JACK, SPADES)
TEN_DIAMONDS = card_id(10, DIAMONDS)
CARDS_NEEDED = 27  # F11: 27 or more cards score 2; 26-26 nobody
CARDS_POINTS = 2
SPADES_NEEDED = 7  # F11 option "majority": 7 or more of the 13 spades
PLAIN_FIVE = 6  # F11: the five elements are worth 2+1+1+1+1
ELEMENTS = ("cards", "spade", "two_spades", "jack_spades", "ten_diamonds")
# Safety net only: every completed deal hands out points, so games end long before this.
MAX_DEALS = 10_000

Move = tuple[int, int]


# ---------------------------------------------------------------------------------- cards and seats


# the card predicates are functions of the card id alone, asked millions of times a test: cached
@cache
def is_ace(card: int) -> bool:
    return rank_of(card) == ACE


@cache
def is_court(card: int) -> bool:
    """F4: fante, cavallo, re (J, Q, K) capture, and are captured, by equal rank only."""
    return rank_of(card) in COURT_RANKS


@cache
def is_numeral(card: int) -> bool:
    """F3: the numerals 2..10, the only cards that enter sums."""
    return rank_of(card) in NUMERAL_RANKS


@cache
def value_of(card: int) -> int:
    """F3: capture value of a numeral (its face value); 0 for an ace or a court card (they never enter sums)."""
    return rank_of(card) if is_numeral(card) else 0


def sum_value(rules: Mapping[str, Any]) -> Callable[[int], int]:
    """F3, F5: the value a card counts for in sums: :func:`value_of`, and 1 for a (table) ace with
    ``table_ace_in_sums``."""
    if rules["table_ace_in_sums"]:
        return lambda card: 1 if is_ace(card) else value_of(card)
    return value_of


def side_of(seat: int) -> int:
    """Side of a seat (F1, A.2): seats 0 and 2 are side 0, seats 1 and 3 side 1."""
    return seat % 2


def playing_order(first: int) -> list[int]:
    """Seats in playing order starting at ``first`` (A.2: seat s+1 plays after seat s)."""
    return seats_in_order(first, PLAYERS)


def single(mask: int) -> int:
    """The card id of a one-card mask."""
    cards = cards_of(mask)
    if len(cards) != 1:
        raise ValueError(f"expected one card, got {len(cards)}")
    return cards[0]


# ------------------------------------------------------------------------------------------ dealing


def shuffled_pack(stream: Stream) -> list[int]:
    """The 52 card ids in ascending order, Fisher-Yates shuffled: for i = 51..1, swap i and bounded(i + 1)."""
    return shuffle(PACK, stream)


def deal_hands(deck: Sequence[int], first: int) -> dict[int, list[int]]:
    """F2: 13 cards per seat off the front of ``deck``, in playing order from ``first``; nothing to the table."""
    return deal_round(list(deck), playing_order(first), HAND_SIZE)


# -------------------------------------------------------------------------------------- legal moves


def numeral_sets(table: Iterable[int], total: int) -> list[frozenset[int]]:
    """F3: every non-empty set of table numerals (never aces or courts, of value 0) whose values add up to
    ``total`` (depth-first, id order)."""
    return subsets_with_sum(table, total, value_of)


def numeral_captures(rules: Mapping[str, Any], card: int, table: frozenset[int]) -> list[frozenset[int]]:
    """F3: the sets a numeral may take; with ``single_card_priority`` an equal single numeral excludes sums. A
    table ace is part of no set, or counts 1 with ``table_ace_in_sums`` (F5)."""
    return sum_captures(table, value_of(card), sum_value(rules), rules["single_card_priority"])


def court_captures(rules: Mapping[str, Any], card: int, table: frozenset[int]) -> list[frozenset[int]]:
    """F4: a court card takes one table card of its own rank (any one of them), or all of them at once with
    ``court_takes="all_same_rank"``."""
    return same_rank_captures(card, table, rules["court_takes"])


def ace_moves(rules: Mapping[str, Any], ace: int, table: frozenset[int]) -> list[Move]:
    """F5 under ``forced_capture="card"``: an ace takes the whole table; on an empty table it keeps itself
    (``(ace, ace)``) and/or stays as a trail (``(ace, 0)``) as ``ace_on_empty`` allows."""
    play = 1 << ace
    if table:
        return [(play, mask_of(table))]
    option = rules["ace_on_empty"]
    if option not in ("choice", "keep", "stay"):
        raise ConfigError(f"ace_on_empty {option!r} is not choice, keep or stay")
    moves = []
    if option in ("choice", "stay"):
        moves.append((play, 0))
    if option in ("choice", "keep"):
        moves.append((play, play))
    return moves


def card_moves(rules: Mapping[str, Any], card: int, table: int | Iterable[int]) -> list[Move]:
    """Legal moves of one hand card (F3..F6), sorted.

    ``forced_capture="card"``: the card's captures if it has any, else its trail (an ace always has its F5
    moves). ``"none"``: the same plus the trail of the card (an ace included, on a full or an empty table).
    """
    table = as_cards(table)
    forced = rules["forced_capture"]
    if forced not in ("card", "none"):
        raise ConfigError(f"forced_capture {forced!r} is not card or none")
    play = 1 << card
    if is_ace(card):
        moves = set(ace_moves(rules, card, table))
    else:
        takes = court_captures(rules, card, table) if is_court(card) else numeral_captures(rules, card, table)
        moves = {(play, mask_of(t)) for t in takes} or {(play, 0)}
    if forced == "none":
        moves.add((play, 0))
    return sorted(moves)


def legal_moves(rules: Mapping[str, Any], hand: int | Iterable[int], table: int | Iterable[int]) -> list[Move]:
    """Legal ``(play_mask, take_mask)`` moves of a hand on a table, sorted ascending (F3..F6)."""
    table = as_cards(table)
    return sorted(m for card in as_cards(hand) for m in card_moves(rules, card, table))


def move_kind(move: Move) -> str:
    """Trace kind of a move: ``"trail"`` (take 0), ``"keep"`` (take == play, F5) or ``"capture"``."""
    play, take = move
    if take == 0:
        return "trail"
    return "keep" if take == play else "capture"


# ----------------------------------------------------------------------------------------- policies


def greedy_score(move: Move, spade_majority: bool) -> int:
    """Greedy value of a move: with take != 0 (a keep included), 1000 per card of ``take`` plus the weights of
    the cards of ``take | play``; a trail scores minus the played card's weight
    (``simcore.variants.foracio.card_weight``)."""
    return greedy_value(*move, lambda c: card_weight(c, spade_majority))


def choose_greedy(view: PolicyView, stream: Stream) -> int:
    """Highest greedy score; ties go to the first move in sorted order. Draws nothing from ``stream``."""
    majority = view.rules["spade_element"] == "majority"
    return first_best(greedy_score(m, majority) for m in view.moves)


POLICIES: dict[str, Callable[[PolicyView, Stream], int]] = {"random": choose_random, "greedy": choose_greedy}


def check_policies(policies: Sequence[str]) -> list[str]:
    """Validate one known policy name per seat."""
    return check_policy_names(policies, PLAYERS, POLICIES)


# --------------------------------------------------------------------------------------- deal state


@dataclass
class DealState:
    """Cards of one deal in play: hands by seat, the table, side piles and this deal's immediate points."""

    first: int
    hands: list[set[int]]
    table: set[int] = field(default_factory=set)
    piles: list[set[int]] = field(default_factory=lambda: [set(), set()])
    scopa: list[int] = field(default_factory=lambda: [0, 0])  # F8, per side
    same_suit: list[int] = field(default_factory=lambda: [0, 0])  # F7, per side
    last_capturer: int | None = None  # seat of the deal's last capture (a keep included)
    # F8 no_scopa_rule="final_capture_if_in_last_round": the scope of the last round per side (in ``scopa``), and
    # the scopa of the deal's latest capture when it is a sweep of the last round (None otherwise)
    last_round_scopa: list[int] = field(default_factory=lambda: [0, 0])
    provisional: int | None = None

    def hands_empty(self) -> bool:
        return all(not h for h in self.hands)

    def immediate(self, side: int) -> int:
        """F13: a side's immediate points of this deal so far (scope and same-suit bonuses), for a declaration:
        without the provisional scope of the last round (F8 option)."""
        return self.scopa[side] + self.same_suit[side] - self.last_round_scopa[side]


def same_suit_bonus(card: int, taken: Iterable[int]) -> int:
    """F7: a numeral taking two or more cards that all share its suit scores its value at once."""
    taken = list(taken)
    if is_numeral(card) and len(taken) >= 2 and all(suit_of(t) == suit_of(card) for t in taken):
        return value_of(card)
    return 0


def scopa_value(rules: Mapping[str, Any], card: int) -> int:
    """F8: a numeral's scopa is worth its value; a court's follows ``court_scopa_value`` (its value from
    ``court_values``: 11/12/13 or 10/10/10; 10; or 0); an ace's (``ace_sweep_is_scopa``) is 1."""
    if is_court(card):
        if rules["court_scopa_value"] == "rank":
            values = (11, 12, 13) if rules["court_values"] == "11/12/13" else (10, 10, 10)
        else:
            values = COURT_SCOPA_VALUES[rules["court_scopa_value"]]
        return values[rank_of(card) - JACK]
    return 1 if is_ace(card) else value_of(card)


def is_scopa(rules: Mapping[str, Any], card: int, table_after: set[int], last_play: bool) -> bool:
    """F8: a numeral or court capture that empties the table, except with the deal's 52nd play; an ace's capture
    of the whole table only with ``ace_sweep_is_scopa`` (F5)."""
    if is_ace(card) and not rules["ace_sweep_is_scopa"]:
        return False
    return not table_after and not last_play


def apply_play(rules: Mapping[str, Any], state: DealState, seat: int, move: Move) -> PlayResult:
    """Play ``move`` for ``seat`` (F5, F7, F8); the caller must have checked that it is legal.

    A trail lays the card on the table. A capture or keep puts the played and taken cards on the side's pile
    and makes ``seat`` the last capturer; a capture may score a same-suit bonus and a scopa. The deal's last
    play is the one after which every hand is empty.
    """
    play, take = move
    card = single(play)
    kind = move_kind(move)
    state.hands[seat].remove(card)
    if kind == "trail":
        state.table.add(card)
        return PlayResult(kind, 0, False)
    side = side_of(seat)
    state.last_capturer = seat
    state.provisional = None  # F8 option: a capture after a last-round sweep makes that sweep stand
    if kind == "keep":
        state.piles[side].add(card)
        return PlayResult(kind, 0, False)
    taken = as_cards(take)
    state.table -= taken
    state.piles[side] |= taken | {card}
    bonus = same_suit_bonus(card, taken)
    sweep = is_scopa(rules, card, state.table, state.hands_empty())
    scopa = scopa_value(rules, card) if sweep else 0
    if bonus and rules["same_suit_scopa_total"] == "3v":
        scopa *= 2  # F8: the scopa of a same-suit sweep doubled, and the bonus on top: 3v
    state.same_suit[side] += bonus
    state.scopa[side] += scopa
    if sweep and rules["no_scopa_rule"] == "final_capture_if_in_last_round" and not state.hands[seat]:
        state.last_round_scopa[side] += scopa  # the seat's last card: the last round; provisional until the end
        state.provisional = scopa
    return PlayResult(kind, bonus + scopa, sweep)


def withdraw_last_scopa(state: DealState) -> int | None:
    """F8 ``no_scopa_rule="final_capture_if_in_last_round"``, when the deal ends (played out or by a
    declaration): the deal's last capture, if it swept in the last round, scores no scopa. Takes its scopa off
    its side's scope; returns the points withdrawn, or None when the last capture was no such sweep."""
    if state.provisional is None or state.last_capturer is None:
        return None
    side, withdrawn = side_of(state.last_capturer), state.provisional
    state.scopa[side] -= withdrawn
    state.last_round_scopa[side] -= withdrawn
    state.provisional = None
    return withdrawn


def finally_scored(result: PlayResult, withdrawn: int | None) -> PlayResult:
    """A play's result as finally scored: a sweep whose scopa was withdrawn (:func:`withdraw_last_scopa`) is no
    sweep, and keeps only its same-suit points."""
    if withdrawn is None:
        return result
    return PlayResult(result.kind, result.points - withdrawn, False)


def wins_mid_deal(rules: Mapping[str, Any], banked: Sequence[int], state: DealState, seat: int) -> bool:
    """F13 ``declare="immediate"``: after a play, the mover's side wins at once when its banked total plus this
    deal's immediate points reach the target. ``"auto_on_secured_points"``: also counting the deal points its
    pile already holds (:func:`pile_points`: a pile only grows, and so does each of those points)."""
    side = side_of(seat)
    if rules["declare"] == "end_of_deal":
        return False
    secured = pile_points(rules, state.piles[side]) if rules["declare"] == "auto_on_secured_points" else 0
    return banked[side] + state.immediate(side) + secured >= rules["target"]


def award_residue(state: DealState) -> tuple[int, list[int]] | None:
    """F9: the cards left on the table go to the last capturer's side; unscored if nobody captured (A.5).

    Returns ``(seat, cards)`` of the residue event, or None when there is none (empty table or no capture).
    """
    return _award_residue(state, side_of)


# ------------------------------------------------------------------------------------------ scoring


def spade_element(rules: Mapping[str, Any], pile: frozenset[int]) -> bool:
    """F11 "Spade": the 7 of spades (``spade_element="seven"``), or 7+ spades (``"majority"``)."""
    if rules["spade_element"] == "majority":
        return sum(1 for c in pile if suit_of(c) == SPADES) >= SPADES_NEEDED
    return SEVEN_SPADES in pile


def elements_won(rules: Mapping[str, Any], pile: frozenset[int]) -> dict[str, bool]:
    """F11: which of the five fixed elements a side's pile wins (27+ cards, Spade, 2♠, J♠, 10♦)."""
    return {
        "cards": len(pile) >= CARDS_NEEDED,
        "spade": spade_element(rules, pile),
        "two_spades": TWO_SPADES in pile,
        "jack_spades": JACK_SPADES in pile,
        "ten_diamonds": TEN_DIAMONDS in pile,
    }


def pile_points(rules: Mapping[str, Any], pile: Iterable[int]) -> int:
    """F11, F12: the fixed elements (with the all-five bonus) and napoletane that the cards of ``pile`` win."""
    points = score_deal(rules, [frozenset(pile)], [0], [0])[0]
    return deal_total(points)


def napoletana_points(pile: Iterable[int]) -> int:
    """F12: per suit holding A, 2, 3, the length of the unbroken run A, 2, ..., 10, J, Q, K (3..13), summed."""
    pile = set(pile)
    points = 0
    for suit in range(4):
        run = 0
        for rank in range(ACE, KING + 1):
            if card_id(rank, suit) not in pile:
                break
            run += 1
        if run >= 3:
            points += run
    return points


def score_deal(
    rules: Mapping[str, Any],
    piles_per_side: Sequence[int | Iterable[int]],
    scopa_per_side: Sequence[int],
    same_suit_per_side: Sequence[int],
) -> list[dict[str, int]]:
    """Deal points per side in CATEGORIES order (F11, F12; scopa F8 and same_suit F7 as scored during play).

    ``piles_per_side``: each side's captured cards (a mask or ids, residue included). ``all_five`` is
    ``all_five_bonus - 6`` for a side winning all five elements, so its deal is worth ``all_five_bonus`` plus
    napoletane and immediate points.
    """
    points = []
    for side, raw in enumerate(piles_per_side):
        pile = as_cards(raw)
        won = elements_won(rules, pile)
        per = {
            "cards": CARDS_POINTS if won["cards"] else 0,
            "spade": int(won["spade"]),
            "two_spades": int(won["two_spades"]),
            "jack_spades": int(won["jack_spades"]),
            "ten_diamonds": int(won["ten_diamonds"]),
            "all_five": rules["all_five_bonus"] - PLAIN_FIVE if all(won.values()) else 0,
            "napoletana": napoletana_points(pile),
            "scopa": scopa_per_side[side],
            "same_suit": same_suit_per_side[side],
        }
        points.append({c: per[c] for c in CATEGORIES})
    return points


def interrupted_deal_points(state: DealState, rules: Mapping[str, Any] | None = None) -> list[dict[str, int]]:
    """F13 mid-deal win: the interrupted deal scores only its immediate points (scopa, same_suit); with
    ``declare="auto_on_secured_points"`` every point its piles hold (no residue: the deal did not end)."""
    if rules is not None and rules["declare"] == "auto_on_secured_points":
        return score_deal(rules, state.piles, state.scopa, state.same_suit)
    return [
        {c: state.scopa[side] if c == "scopa" else state.same_suit[side] if c == "same_suit" else 0 for c in CATEGORIES}
        for side in range(N_SIDES)
    ]


def deal_total(points: Mapping[str, int]) -> int:
    """A side's points of one deal, all categories."""
    return sum(points[c] for c in CATEGORIES)


def winner_after_deal(totals: Sequence[int], target: int, last_capture_side: int | None) -> int | None:
    """F13 after a completed deal: no side at the target → None (next deal); one → it wins; both → the side of
    the deal's last capture; if nobody captured, the unique higher total, a tie → None (another deal)."""
    over = [side for side, total in enumerate(totals) if total >= target]
    if not over:
        return None
    if len(over) == 1:
        return over[0]
    if last_capture_side is not None:
        return last_capture_side
    top = max(totals)
    return list(totals).index(top) if list(totals).count(top) == 1 else None


# ----------------------------------------------------------------------------------------- the game


def play_event(seat: int, move: Move, result: PlayResult) -> dict[str, Any]:
    """The trace ``play`` event of a move (a keep lists the ace in ``cards`` and an empty ``take``)."""
    play, take = move
    return ev.play_event(seat, play, 0 if result.kind == "keep" else take, result)


Chooser = Callable[[int, PolicyView], int]


def play_deal(
    rules: Mapping[str, Any], state: DealState, banked: Sequence[int], choose: Chooser, events: list[dict[str, Any]]
) -> bool:
    """F2..F8, F13: the 52 plays from ``state.first`` on, appending ``play`` events; ``choose(seat, view)``
    returns the index of the move. Returns True when the mover's side won mid-deal (the play that won is the
    last event appended), False when the deal was played out. At the end, a withdrawn last-round scopa (F8
    option) is taken off its play event too, which then records the play as finally scored."""
    seat = state.first
    capture: dict[str, Any] | None = None  # the play event of the deal's latest capture
    won = False
    while not state.hands_empty():
        moves = legal_moves(rules, state.hands[seat], state.table)
        view = PolicyView(frozenset(state.hands[seat]), frozenset(state.table), tuple(moves), rules)
        move = moves[choose(seat, view)]
        result = apply_play(rules, state, seat, move)
        events.append(play_event(seat, move, result))
        capture = events[-1] if result.kind != "trail" else capture
        if wins_mid_deal(rules, banked, state, seat):
            won = True
            break
        seat = (seat + 1) % PLAYERS
    withdrawn = withdraw_last_scopa(state)
    if withdrawn is not None and capture is not None:
        capture["points"], capture["sweep"] = capture["points"] - withdrawn, False
    return won


def dealer_of(rules: Mapping[str, Any], first_dealer: int, deal: int) -> int:
    """F2: deal d is dealt by ``(first_dealer + d) % 4``, or always by the first dealer with
    ``dealer_rotation="fixed"``."""
    return first_dealer if rules["dealer_rotation"] == "fixed" else (first_dealer + deal) % PLAYERS


def new_deal(deal: int, dealer: int, stream: Stream, events: list[dict[str, Any]]) -> DealState:
    """Shuffle and deal 13 cards to each seat in playing order from the dealer's next seat (F2); the table is
    empty. Records the deal, hand and (empty) table events."""
    first = (dealer + 1) % PLAYERS
    hands = deal_hands(shuffled_pack(stream), first)
    events.extend(ev.dealing_events(deal, dealer, hands, []))
    return DealState(first, [set(hands[s]) for s in range(PLAYERS)])


def play_game(seed: int, game: int, rules: Mapping[str, Any] | None, policies: Sequence[str]) -> dict[str, Any]:
    """Play one game and return its trace (TRACE_FORMAT.md, ``scopasim-trace/1``).

    Procedure (the kernels follow the same one):
    1. deal stream = ``Stream(seed, game, 0)``; seat s's policy uses ``Stream(seed, game, 1 + s)``;
    2. first dealer = ``deal.bounded(4)``; deal d is dealt by ``(first_dealer + d) % 4`` and led by the next seat;
    3. each deal: shuffle the 52 ids, 13 cards per seat in playing order, empty table; 52 plays, each chosen by
       the seat's policy from the sorted legal moves;
    4. ``declare="immediate"``: after a play that brings the mover's side's banked total + this deal's immediate
       points to the target: ``out``, the interrupted deal's ``score`` (scopa and same_suit only), ``end``;
    5. otherwise, after 52 plays: residue to the last capturer, ``score``, and the game ends if
       :func:`winner_after_deal` names a side.

    ``rules`` may be partial; it is resolved with ``simcore.variants.foracio.SPEC``. ``policies``: one of
    "random", "greedy" per seat.
    """
    rules = SPEC.resolve(rules)
    names = check_policies(policies)
    deal_stream = Stream(seed, game, DEAL_STREAM)
    streams = [Stream(seed, game, policy_stream_index(s)) for s in range(PLAYERS)]
    frozen_rules = MappingProxyType(rules)
    events: list[dict[str, Any]] = []
    totals = [0] * N_SIDES

    def choose(seat: int, view: PolicyView) -> int:
        return POLICIES[names[seat]](view, streams[seat])

    first_dealer = deal_stream.bounded(PLAYERS)
    for deal in itertools.count():
        if deal >= MAX_DEALS:
            raise RuntimeError(f"game {game} (seed {seed}) did not end within {MAX_DEALS} deals")
        state = new_deal(deal, dealer_of(frozen_rules, first_dealer, deal), deal_stream, events)
        if play_deal(frozen_rules, state, totals, choose, events):
            mover = events[-1]["seat"]
            points = interrupted_deal_points(state, frozen_rules)
            totals = [t + deal_total(p) for t, p in zip(totals, points, strict=True)]
            events.append(ev.out_event(mover))
            events.append(ev.score_event(deal, points, totals))
            events.append(ev.end_event(side_of(mover), totals))
            break
        residue = award_residue(state)
        if residue is not None:
            events.append(ev.residue_event(residue))
        points = score_deal(frozen_rules, state.piles, state.scopa, state.same_suit)
        totals = [t + deal_total(p) for t, p in zip(totals, points, strict=True)]
        events.append(ev.score_event(deal, points, totals))
        last_side = None if state.last_capturer is None else side_of(state.last_capturer)
        winner = winner_after_deal(totals, rules["target"], last_side)
        if winner is not None:
            events.append(ev.end_event(winner, totals))
            break
    return ev.trace_document(VARIANT, rules, SIDES, names, seed, game, events)


# -------------------------------------------------------------------------------------- trace check


class TraceError(AssertionError):
    """A trace the reference rules do not reproduce; the message names the first bad event."""


def check_trace(trace: Mapping[str, Any]) -> None:
    """Re-play a Foracio trace from its hand/table events (no random stream) and check every event.

    Every play must be legal in the position reached, with the kind, points and sweep flag the rules give; the
    ``out`` events, residues, deal points, totals and winner must be what the rules give; every card of the
    pack must end each deal in exactly one place. Raises :class:`TraceError` (an AssertionError) naming the
    event index of the first mismatch. Hand and table events of the dealing step may come in any order.
    """
    _Checker(trace).run()


class _Checker(TraceReader):
    """Walks the events of one trace in order, keeping the state the reference rules reach."""

    def __init__(self, trace: Mapping[str, Any]) -> None:
        super().__init__(trace, TraceError, PACK_SET)

    def run(self) -> None:
        self.read_header(VARIANT, SPEC, lambda players: SIDES)
        totals = [0] * N_SIDES
        first_dealer: int | None = None
        for deal in range(MAX_DEALS):
            dealer, first_dealer = self.read_deal(deal, first_dealer)
            hands, _ = self.read_dealing_step(playing_order((dealer + 1) % PLAYERS), HAND_SIZE, 0, PACK)  # F2
            state = DealState((dealer + 1) % PLAYERS, [set(hands[s]) for s in range(PLAYERS)])
            if self.play_deal(state, totals):
                self.read_mid_deal_end(state, deal, totals)
                return
            totals = self.end_deal(state, deal, totals)
            last_side = None if state.last_capturer is None else side_of(state.last_capturer)
            winner = winner_after_deal(totals, self.rules["target"], last_side)
            if winner is not None:
                self.read_end(winner, totals)
                return
        raise self.fail(f"no end within {MAX_DEALS} deals")

    def play_deal(self, state: DealState, banked: list[int]) -> bool:
        """Every play of a deal; True when a side won mid-deal (the next event must be its ``out``). A play that
        sweeps in the last round under the F8 option is checked once the deal has settled it: at the next
        capture (it stands) or at the deal's end (its scopa may be withdrawn)."""
        seat = state.first
        pending: tuple[int, Mapping[str, Any], PlayResult] | None = None  # a provisional sweep's play
        won = False
        while not state.hands_empty():
            index, event, played, taken = self.read_play(seat, "a Foracio play is one card")
            if self.field(index, event, "kind") == "keep":  # F5: the ace keeps itself, listing no taken cards
                self.check(not taken, index, "a keep lists no taken cards")
                move = (1 << played[0], 1 << played[0])
            else:
                move = (1 << played[0], mask_of(taken))
            self.check_move(index, event, move, legal_moves(self.rules, state.hands[seat], state.table))
            result = apply_play(self.rules, state, seat, move)
            if pending is not None and result.kind != "trail":  # a later capture: the provisional sweep stands
                self.check_result(*pending)
                pending = None
            if state.provisional is not None and result.kind != "trail":
                pending = (index, event, result)
            else:
                self.check_result(index, event, result)
            if wins_mid_deal(self.rules, banked, state, seat):
                won = True
                break
            self.check(self.peek_type() != "out", self.pos, "an 'out' event without a mid-deal win")
            seat = (seat + 1) % PLAYERS
        withdrawn = withdraw_last_scopa(state)
        if pending is not None:
            self.check_result(pending[0], pending[1], finally_scored(pending[2], withdrawn))
        return won

    def read_mid_deal_end(self, state: DealState, deal: int, banked: list[int]) -> None:
        """F13: ``out`` by the mover, the interrupted deal's score (immediate points only), ``end``."""
        mover = self.events[self.pos - 1]["seat"]
        index, event = self.take("out")
        self.same(index, "the out's seat", self.field(index, event, "seat"), mover)
        points = interrupted_deal_points(state, self.rules)
        totals = [t + deal_total(p) for t, p in zip(banked, points, strict=True)]
        self.read_score(deal, points, totals, CATEGORIES)
        self.read_end(side_of(mover), totals)

    def end_deal(self, state: DealState, deal: int, totals: list[int]) -> list[int]:
        """Residue (F9), card conservation, deal points (F11, F12) and totals; returns the new totals."""
        self.read_residue(award_residue(state))
        self.check_split(state.piles, state.table)
        points = score_deal(self.rules, state.piles, state.scopa, state.same_suit)
        new_totals = [t + deal_total(p) for t, p in zip(totals, points, strict=True)]
        self.read_score(deal, points, new_totals, CATEGORIES)
        return new_totals


__all__ = [
    "DealState",
    "PlayResult",
    "PolicyView",
    "TraceError",
    "apply_play",
    "award_residue",
    "card_moves",
    "check_trace",
    "choose_greedy",
    "choose_random",
    "deal_total",
    "elements_won",
    "greedy_score",
    "interrupted_deal_points",
    "legal_moves",
    "move_kind",
    "napoletana_points",
    "numeral_sets",
    "play_deal",
    "play_game",
    "same_suit_bonus",
    "scopa_value",
    "score_deal",
    "shuffled_pack",
    "winner_after_deal",
    "wins_mid_deal",
    "withdraw_last_scopa",
]
