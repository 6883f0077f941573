"""Reference engine of Escoba del quince (RULES.md Part C: C.A and section 8, E1-E8).

Slow, literal, plain Python: sets of card ids, one small function per rule point. It exists to be compared
game by game with the Numba kernels, so it follows one exact procedure (documented on :func:`play_game`) and
uses its own random streams (:mod:`simcore.reference.rng`), never ``simcore.rng`` or ``simcore.kernels``.

Conventions (as :mod:`simcore.reference.skopa`):
* a card is its id from :mod:`simcore.cards` (``(rank - 1) * 4 + suit``); a move is ``(play_mask, take_mask)``,
  the int bitmasks of the played hand card and of the table cards taken (``take_mask`` 0 = trail);
* the legal moves of a turn are sorted ascending by ``(play_mask, take_mask)``; policies index into that list;
* seats play in order s, s+1, ... mod players; with 4 players seats {0, 2} and {1, 3} are sides 0 and 1,
  otherwise each seat is its own side (A.2).

Rules (``simcore.variants.escoba``, whose module docstring lists the choices where RULES.md leaves room):
* 40 cards, A..7 at face value, J 8, Q 9, K 10 (E1); 3 cards each and 4 to the table, then rounds of 3 each until
  the stock is out: 36 plays (E2); the seat after the dealer leads;
* a played card of value v takes any non-empty set of table cards whose values total 15 - v (E3); trailing is
  allowed under ``forced_capture`` as in A.3 (E6, "none" by default);
* the opening (E4): four initial table cards that total 15, or split into two pairs of 15, are taken at once by
  the dealer (or the first player) as 1 or 2 escobas;
* an escoba is any capture that empties the table, the deal's last play unless ``last_play_scopa`` is false (E5);
  the residue goes to the last capturer;
* deal points (E7): most cards, most coins, the 7 of coins (velo), the sevens point (``sevens_rule``), 1 per
  escoba; ties by ``majority_tie``, bonuses by ``all_bonus``; the game as A.5 (E8).
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from simcore.cards import DIAMONDS, card_id, cards_of, mask_of
from simcore.reference import events as ev
from simcore.reference.captures import capture_or_trail, subsets_with_sum
from simcore.reference.common import (
    as_cards,
    check_policy_names,
    deal_round,
    game_winner,
    playing_order,
    rank_of,
    shuffle,
    side_of,
    suit_of,
    take_from_stock,
)
from simcore.reference.piles import DealState, PlayResult, lay_or_capture
from simcore.reference.piles import award_residue as _award_residue
from simcore.reference.policies import PolicyView, choose_random, first_best, greedy_value
from simcore.reference.rng import Stream
from simcore.reference.stock import StockChecker, play_stock_game
from simcore.variants.escoba import CATEGORIES, SPEC, card_weight
from simcore.variants.scopa import PRIMIERA_OF_RANK, VALUE_OF_RANK

TRACE_FORMAT = ev.TRACE_FORMAT
VARIANT = "escoba"
FIFTEEN = 15
HAND_SIZE = 3  # E2: three cards each in every round
TABLE_SIZE = 4  # E2: four cards face up at the start of a deal (none in later rounds)
PLAYS_PER_DEAL = 36  # E2: 40 - 4 table cards, whatever the number of players
PACK: tuple[int, ...] = tuple(sorted(card_id(r, s) for r in VALUE_OF_RANK for s in range(4)))  # E1: 40 cards
PACK_SET = frozenset(PACK)
VELO = card_id(7, DIAMONDS)
SEVENS_TIEBREAK_RANKS = (7, 6, 1, 5)  # E7 count_tiebreak: sevens, then sixes, aces, fives
# Safety net only: a deal in which anybody captures scores a point, so games end long before this.
MAX_DEALS = 10_000

Move = tuple[int, int]


class TraceError(AssertionError):
    """A trace that the reference rules do not reproduce; the message names the first bad event."""


# ---------------------------------------------------------------------------------------------- cards


def value_of(card: int) -> int:
    """E1: A = 1 ... 7 = 7, sota (J) 8, caballo (Q) 9, rey (K) 10."""
    return VALUE_OF_RANK[rank_of(card)]


def the_card(play_mask: int) -> int:
    """The single card id of a one-card play mask."""
    cards = cards_of(play_mask)
    if len(cards) != 1:
        raise ValueError(f"an Escoba play is one card, got mask {play_mask:#x}")
    return cards[0]


# ---------------------------------------------------------------------------------------- legal moves


def captures(card: int, table: Iterable[int]) -> list[frozenset[int]]:
    """E3: every non-empty set of table cards whose values and the played card's add up to 15, by their masks."""
    return sorted(subsets_with_sum(table, FIFTEEN - value_of(card), value_of), key=mask_of)


def legal_moves(rules: Mapping[str, Any], hand: int | Iterable[int], table: int | Iterable[int]) -> list[Move]:
    """Legal ``(play_mask, take_mask)`` moves of a hand on a table, sorted ascending (E3, E6): every capture of
    every hand card, and a trail for each card ``simcore.reference.captures.may_trail`` allows."""
    hand, table = as_cards(hand), as_cards(table)
    takes = {card: captures(card, table) for card in hand}
    return capture_or_trail(takes, rules["forced_capture"], lambda card: 1 << card)


# ------------------------------------------------------------------------------------------- policies


def greedy_score(move: Move, rules: Mapping[str, Any]) -> int:
    """Greedy value of a move with Escoba's card weights (``simcore.variants.escoba.card_weight``)."""
    return greedy_value(*move, lambda c: card_weight(c, rules["sevens_rule"]))


def choose_greedy(view: PolicyView, stream: Stream) -> int:
    """Highest greedy score; ties go to the first move in sorted order. Draws nothing from ``stream``."""
    return first_best(greedy_score(move, view.rules) for move in view.moves)


POLICIES = {"random": choose_random, "greedy": choose_greedy}


def check_policies(policies: Sequence[str], players: int) -> list[str]:
    """Validate one known policy name per seat."""
    return check_policy_names(policies, players, POLICIES)


# -------------------------------------------------------------------------------------------- dealing


def opening_escobas(table: Iterable[int]) -> int:
    """E4, C.A.5: four table cards totalling 15 are 1 escoba; four that split into two pairs of 15 are 2 (every
    split of the four into two pairs is tried); anything else, a 30 that does not split included, is none."""
    cards = sorted(table)
    if sum(value_of(c) for c in cards) == FIFTEEN:
        return 1
    for pair in itertools.combinations(cards, 2):
        rest = [c for c in cards if c not in pair]
        if sum(value_of(c) for c in pair) == FIFTEEN and sum(value_of(c) for c in rest) == FIFTEEN:
            return 2
    return 0


def opening_take(rules: Mapping[str, Any], state: DealState, dealer: int) -> tuple[int, list[int], int] | None:
    """E4: the opening take, if due, applied to ``state``: the initial table goes to the dealer's side
    (``opening_escoba="dealer"``) or the first player's ("first_player"), which scores its escobas and becomes
    the last capturer. Returns ``(seat, cards, escobas)`` for the ``opening`` event, or None."""
    escobas = opening_escobas(state.table)
    if rules["opening_escoba"] == "none" or escobas == 0:
        return None
    seat = dealer if rules["opening_escoba"] == "dealer" else state.first
    cards = sorted(state.table)
    side = side_of(seat, state.players)
    state.piles[side] |= state.table
    state.table = set()
    state.sweeps[side] += escobas
    state.last_capturer = seat
    return seat, cards, escobas


def deal_cards(
    rules: Mapping[str, Any], deal: int, dealer: int, stream: Stream, events: list[dict[str, Any]]
) -> DealState:
    """E2, E4: shuffle the 40 cards, 3 per seat in playing order from the seat after the dealer, 4 to the table;
    then the opening take, if due (an ``opening`` event)."""
    players = rules["players"]
    first = (dealer + 1) % players
    stock = shuffle(PACK, stream)
    hands = deal_round(stock, playing_order(first, players), HAND_SIZE)
    table = take_from_stock(stock, TABLE_SIZE)
    events.extend(ev.dealing_events(deal, dealer, hands, table))
    state = DealState(players, first, [set(hands[s]) for s in range(players)], set(table), stock)
    opening = opening_take(rules, state, dealer)
    if opening is not None:
        events.append(ev.opening_event(*opening))
    return state


def is_void_deal(rules: Mapping[str, Any], table: Iterable[int]) -> bool:
    """Escoba has no void deals."""
    return False


# -------------------------------------------------------------------------------------------- playing


def apply_play(rules: Mapping[str, Any], state: DealState, seat: int, move: Move) -> PlayResult:
    """Play ``move`` for ``seat`` (the caller has checked it is legal).

    A trail lays the card on the table. A capture puts the played and taken cards on the side's pile and makes
    the mover the last capturer; it is an escoba (1 point) when it empties the table, except with the deal's
    last card (every hand empty, the stock out) when ``last_play_scopa`` is false (E5).
    """
    card = the_card(move[0])
    state.hands[seat].remove(card)
    side = side_of(seat, state.players)
    if not lay_or_capture(state, seat, side, {card}, cards_of(move[1])):
        return PlayResult("trail", 0, False)
    last_play = state.hands_empty() and not state.stock
    if state.table or (last_play and not rules["last_play_scopa"]):
        return PlayResult("capture", 0, False)
    state.sweeps[side] += 1
    return PlayResult("capture", 1, True)


def award_residue(state: DealState) -> tuple[int, list[int]] | None:
    """E5: the cards left on the table go to the last capturer's side (an opening take counts); unscored if
    nobody captured (A.5). Returns ``(seat, cards)`` of the residue event, or None."""
    return _award_residue(state, lambda seat: side_of(seat, state.players))


def move_of(card: int, take_mask: int) -> Move:
    """An Escoba move names its played card by its mask."""
    return 1 << card, take_mask


def play_mask(move: Move) -> int:
    return move[0]


# -------------------------------------------------------------------------------------------- scoring


def majority(counts: Sequence[Any], each: bool) -> list[int]:
    """E7: 1 to the unique top of ``counts``; tied tops nothing, or 1 each with ``each``; nothing when the top
    is 0 (A.5) or below (a primiera nobody can make)."""
    top = max(counts)
    winners = [i for i, c in enumerate(counts) if c == top]
    nothing = top <= 0 if isinstance(top, int) else not any(top)  # a tuple of counts (count_tiebreak)
    if nothing or (len(winners) > 1 and not each):
        return [0] * len(counts)
    return [1 if i in winners else 0 for i in range(len(counts))]


def setenta(pile: Iterable[int]) -> int:
    """E7 ``sevens_rule="primiera"``: the Scopa table (7 21, 6 18, A 16, 5 15, 4 14, 3 13, 2 12, figures 10),
    the best card of each suit summed; -1 for a pile lacking a suit (it cannot win)."""
    best = [0] * 4
    for c in pile:
        best[suit_of(c)] = max(best[suit_of(c)], PRIMIERA_OF_RANK[rank_of(c)])
    return sum(best) if all(best) else -1


def sevens_measure(rules: Mapping[str, Any], pile: frozenset[int]) -> Any:
    """What the sevens point compares for one side under ``sevens_rule`` (E7)."""
    if rules["sevens_rule"] == "primiera":
        return setenta(pile)
    counts = tuple(sum(1 for c in pile if rank_of(c) == r) for r in SEVENS_TIEBREAK_RANKS)
    return counts if rules["sevens_rule"] == "count_tiebreak" else counts[0]


def score_deal(
    rules: Mapping[str, Any], piles_per_side: Sequence[int | Iterable[int]], sweeps_per_side: Sequence[int]
) -> list[dict[str, int]]:
    """Deal points per side, categories cards, coins, velo, sevens, escoba (E7).

    ``piles_per_side``: each side's captured cards, partners combined (residue and opening take included);
    ``sweeps_per_side``: each side's escobas, the opening ones included.
    """
    piles = [as_cards(p) for p in piles_per_side]
    each = rules["majority_tie"] == "each"
    cards = majority([len(p) for p in piles], each)
    coin_counts = [sum(1 for c in p if suit_of(c) == DIAMONDS) for p in piles]
    coins = majority(coin_counts, each)
    sevens = majority([sevens_measure(rules, p) for p in piles], each)
    if rules["all_bonus"]:
        coins = [2 if n == 10 else pts for n, pts in zip(coin_counts, coins, strict=True)]
        sevens = [2 if sum(1 for c in p if rank_of(c) == 7) == 4 else pts for p, pts in zip(piles, sevens, strict=True)]
    velo = [1 if VELO in p else 0 for p in piles]
    columns = (cards, coins, velo, sevens, list(sweeps_per_side))
    return [dict(zip(CATEGORIES, (col[side] for col in columns), strict=True)) for side in range(len(piles))]


def deal_total(points: Mapping[str, int]) -> int:
    """A side's points of one deal, all categories."""
    return sum(points[c] for c in CATEGORIES)


# ------------------------------------------------------------------------------------------- the game


def play_game(seed: int, game: int, rules: Mapping[str, Any] | None, policies: Sequence[str]) -> dict[str, Any]:
    """Play one game and return its trace (TRACE_FORMAT.md, ``scopasim-trace/1``).

    Procedure (the kernels follow the same one):
    1. deal stream = ``Stream(seed, game, 0)``; seat s's policy uses ``Stream(seed, game, 1 + s)``;
    2. first dealer = ``deal.bounded(players)``; deal d is dealt by ``(first_dealer + d) % players`` and led
       by the next seat;
    3. each deal: shuffle the 40 cards, 3 per seat in playing order, 4 to the table; the opening take if due;
       play; a new round of 3 per seat whenever every hand is empty, until the stock is out (36 plays); residue
       to the last capturer; score; the game ends after the first deal with a unique top total >= target.

    ``rules`` may be partial; it is resolved with ``simcore.variants.escoba.SPEC``. ``policies``: one of
    "random", "greedy" per seat.
    """
    return play_stock_game(sys.modules[__name__], seed, game, rules, policies)


def check_trace(trace: Mapping[str, Any]) -> None:
    """Re-play an Escoba trace from its hand/table events (no random stream) and check every event, the
    ``opening`` events included (``StockChecker``); raises :class:`TraceError` naming the first bad event."""
    StockChecker(sys.modules[__name__], trace, TraceError).run()


__all__ = [  # also what simcore.reference.stock reads of this module (StockGame)
    "CATEGORIES",
    "PACK",
    "PLAYS_PER_DEAL",
    "SPEC",
    "DealState",
    "PolicyView",
    "TraceError",
    "apply_play",
    "award_residue",
    "captures",
    "check_trace",
    "choose_greedy",
    "choose_random",
    "deal_cards",
    "deal_total",
    "game_winner",
    "greedy_score",
    "is_void_deal",
    "legal_moves",
    "majority",
    "move_of",
    "opening_escobas",
    "opening_take",
    "play_game",
    "play_mask",
    "score_deal",
    "setenta",
    "value_of",
]
