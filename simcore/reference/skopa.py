"""Reference engine of Russian Skopa / Konchinka (seed 004; RULES.md Part A and Part B section 5, R1-R12).

Slow, literal, plain Python: sets of card ids, one small function per rule point. It exists to be compared
game by game with the Numba kernels, so it follows one exact procedure (documented on :func:`play_game`) and
uses its own random streams (:mod:`simcore.reference.rng`), never ``simcore.rng`` or ``simcore.kernels``.

Conventions:
* a card is its id from :mod:`simcore.cards` (``(rank - 1) * 4 + suit``); a move is ``(play_mask, take_mask)``,
  the int bitmasks of the played hand card and of the table cards taken (``take_mask`` 0 = trail);
* the legal moves of a turn are sorted ascending by ``(play_mask, take_mask)``; policies index into that list;
* seats play in order s, s+1, ... mod players; with 4 players seats {0, 2} and {1, 3} are sides 0 and 1,
  otherwise each seat is its own side (A.2).

Rules (``simcore.variants.skopa``, whose module docstring lists the choices where RULES.md leaves room):
* 52 cards; A..10 capture by value 1..10; J, Q, K (courts) have no value: a court takes, and is taken by, an
  equal rank only, one card per move, and courts never enter sums (R2, R5); with ``multi_group_capture`` a
  card takes a largest union of disjoint groups (:func:`largest_unions`);
* 4 cards each and 4 to the table, then rounds of 4 more each with no table cards until the stock is out: 48
  plays per deal for 2, 3 or 4 players (R3, R8); the seat after the dealer leads (R4);
* a sweep is any capture that leaves the table empty, the deal's last play included; it scores
  ``sweep_points`` (0 by default) (R10); the residue goes to the last capturer (R9);
* deal points: most cards 2 (two sides tied for most: 1 each), most clubs 1 (a tie: nothing, or 1 each with
  ``clubs_tie="each"``), 2 of clubs 1, 10 of diamonds 1, sweeps x ``sweep_points`` (R11); with the RUWIKI
  variant hearts replace the clubs (``bonus_suit``) and the ace of spades the 2 of clubs (``small_card``);
  no mid-deal win;
  after a deal the unique top total >= ``target`` wins (R12).
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

from simcore.cards import CLUBS, HEARTS, SPADES, card_id, cards_of, mask_of
from simcore.reference import events as ev
from simcore.reference.captures import capture_or_trail, same_rank_captures, sum_captures
from simcore.reference.captures import subsets_with_sum as _subsets_with_sum
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
from simcore.variants.skopa import CATEGORIES, SPEC, TEN_DIAMONDS, TWO_CLUBS, VALUE_OF_RANK, card_weight

# R11, the RUWIKI variant: the suit whose majority scores, and the card that scores 1 (the 2 of clubs)
BONUS_SUITS = {"clubs": CLUBS, "hearts": HEARTS}
SMALL_CARDS = {"2c": TWO_CLUBS, "As": card_id(1, SPADES)}

TRACE_FORMAT = ev.TRACE_FORMAT
VARIANT = "skopa"
HAND_SIZE = 4  # R3, R8: four cards each in every round
TABLE_SIZE = 4  # R3: four cards face up at the start of a deal (none in later rounds)
PLAYS_PER_DEAL = 48  # R3: 52 - 4 table cards, whatever the number of players
PACK: tuple[int, ...] = tuple(range(52))  # R2: the full 52-card pack, ascending ids
PACK_SET = frozenset(PACK)
COURT_RANKS = frozenset((11, 12, 13))  # J, Q, K
# Safety net only: a deal in which anybody captures scores 5 points, so games end long before this.
MAX_DEALS = 10_000

Move = tuple[int, int]


class TraceError(AssertionError):
    """A trace that the reference rules do not reproduce; the message names the first bad event."""


# ---------------------------------------------------------------------------------------------- cards


@cache
def is_court(card: int) -> bool:
    """R2: J, Q and K are court cards ("pictures"), with no capture value."""
    return rank_of(card) in COURT_RANKS


@cache
def value_of(card: int) -> int:
    """R2: capture value of a numeral, A = 1 ... 10 = 10; a court card has none (0)."""
    return VALUE_OF_RANK.get(rank_of(card), 0)


def the_card(play_mask: int) -> int:
    """The single card id of a one-card play mask."""
    cards = cards_of(play_mask)
    if len(cards) != 1:
        raise ValueError(f"a Skopa play is one card, got mask {play_mask:#x}")
    return cards[0]


# -------------------------------------------------------------------------------------------- dealing


def shuffled_pack(stream: Stream) -> list[int]:
    """The 52 card ids ascending, Fisher-Yates shuffled: for i = 51..1, swap i and ``bounded(i + 1)``."""
    return shuffle(PACK, stream)


# ---------------------------------------------------------------------------------------- legal moves


def subsets_with_sum(cards: Iterable[int], total: int) -> list[frozenset[int]]:
    """Every non-empty set of NUMERALS among ``cards`` whose values add up to ``total`` (courts, of value 0,
    never enter a sum; depth-first, id order)."""
    return _subsets_with_sum(cards, total, value_of)


def captures(rules: Mapping[str, Any], card: int, table: Iterable[int]) -> list[frozenset[int]]:
    """The sets of table cards ``card`` may take (R5), sorted by their masks.

    * a court takes exactly one table card of its own rank (one set per such card), or all of them in one set
      with ``court_takes="all_same_rank"``;
    * a numeral takes any non-empty set of table numerals whose values sum to its value (a single card of
      equal value is such a set); with ``single_card_priority``, if a table numeral of equal value exists,
      only those single cards;
    * with ``multi_group_capture``, the largest unions of disjoint such sets (:func:`largest_unions`).
    """
    table = frozenset(table)
    if rules.get("multi_group_capture"):
        found = largest_unions(rules, card, table)
    elif is_court(card):
        found = same_rank_captures(card, table, rules["court_takes"])
    else:
        found = sum_captures(table, value_of(card), value_of, rules["single_card_priority"])
    return sorted(found, key=mask_of)


def value_groups(total: int) -> list[tuple[int, ...]]:
    """The sets of numerals of values below ``total`` that sum to it, as counts per value 1..total-1 (at most 4
    cards a value: the pack's)."""
    found: list[tuple[int, ...]] = []

    def extend(value: int, remaining: int, counts: tuple[int, ...]) -> None:
        if remaining == 0:
            found.append(counts + (0,) * (total - 1 - len(counts)))
        elif value < total and value <= remaining:
            for k in range(min(4, remaining // value) + 1):
                extend(value + 1, remaining - k * value, (*counts, k))

    extend(1, total, ())
    return found


@cache
def splits(total: int, counts: tuple[int, ...]) -> bool:
    """Whether numerals with ``counts`` per value 1..total-1 split into disjoint sets each summing to ``total``:
    the highest card present lies in one of them, so try each set holding it and split what is left."""
    if not any(counts):
        return True
    if sum((i + 1) * c for i, c in enumerate(counts)) % total != 0:
        return False
    top = max(i for i, c in enumerate(counts) if c)
    for group in value_groups(total):
        fits = group[top] and all(g <= c for g, c in zip(group, counts, strict=True))
        if fits and splits(total, tuple(c - g for c, g in zip(counts, group, strict=True))):
            return True
    return False


def removals(counts: Sequence[int], k: int) -> Iterable[tuple[int, ...]]:
    """Every vector of ``k`` cards to leave out of ``counts`` (at most ``counts[i]`` of value i + 1)."""
    if not counts:
        if k == 0:
            yield ()
        return
    for here in range(min(counts[0], k) + 1):
        for tail in removals(counts[1:], k - here):
            yield (here, *tail)


@cache
def largest_splits(total: int, counts: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The largest parts of numerals with ``counts`` per value 1..total-1 that split into sets each summing to
    ``total`` (:func:`splits`), as counts per value: the fewest cards left out first (0, 1, ...), every choice of how
    many of each value. A function of the counts alone, so a table's cards ask it once per count vector."""
    for left_out in range(sum(counts)):
        kept = [tuple(c - d for c, d in zip(counts, out, strict=True)) for out in removals(counts, left_out)]
        kept = [k for k in kept if splits(total, k)]
        if kept:
            return kept
    return [tuple(0 for _ in counts)]  # every card left out: nothing left to split


def largest_unions(rules: Mapping[str, Any], card: int, table: Iterable[int]) -> list[frozenset[int]]:
    """R5 option ``multi_group_capture``: the largest unions of pairwise disjoint groups ``card`` may take, each
    group a capture it could make alone (:func:`captures` without the option).

    A court's groups are its rank's table cards one by one, so it takes them all (whatever ``court_takes``).
    With ``single_card_priority`` and a table numeral of its value, a numeral's groups are those single cards:
    all of them. Otherwise the table numerals of its value are taken (each is a group), with every largest set
    of the smaller numerals that splits into sets summing to its value: the fewest cards left out first (0, 1,
    ...), every choice of which cards of each value.
    """
    table = frozenset(table)
    if is_court(card):
        same = frozenset(t for t in table if rank_of(t) == rank_of(card))
        return [same] if same else []
    total = value_of(card)
    equal = frozenset(t for t in table if not is_court(t) and value_of(t) == total)
    if rules["single_card_priority"] and equal:
        return [equal]
    by_value = [sorted(t for t in table if not is_court(t) and value_of(t) == v) for v in range(1, total)]
    kept = largest_splits(total, tuple(len(cards) for cards in by_value))
    if not any(kept[0]):
        return [equal] if equal else []
    found = []
    for k in kept:
        per_value = (itertools.combinations(cards, n) for cards, n in zip(by_value, k, strict=True))
        found += [equal.union(*choice) for choice in itertools.product(*per_value)]
    return found


def legal_moves(rules: Mapping[str, Any], hand: int | Iterable[int], table: int | Iterable[int]) -> list[Move]:
    """Legal ``(play_mask, take_mask)`` moves of a hand on a table, sorted ascending (R5, R6).

    Every capture of every hand card is legal (under "player" compulsion a player who can capture has only
    captures, and may choose any of them); a trail ``(play_mask, 0)`` is added for each card
    ``simcore.reference.captures.may_trail`` allows (R6).
    """
    hand, table = as_cards(hand), as_cards(table)
    takes = {card: captures(rules, card, table) for card in hand}
    return capture_or_trail(takes, rules["forced_capture"], lambda card: 1 << card)


# ------------------------------------------------------------------------------------------- policies


def greedy_score(move: Move, rules: Mapping[str, Any] | None = None) -> int:
    """Greedy value of a move: a capture scores 1000 per table card taken plus the card weights of the taken
    and played cards; a trail scores minus the played card's weight (``simcore.variants.skopa.card_weight``,
    for the bonus suit and small card of ``rules``; the defaults' without)."""
    rules = rules or SPEC.resolve()
    suit, small = BONUS_SUITS[rules["bonus_suit"]], SMALL_CARDS[rules["small_card"]]
    return greedy_value(*move, lambda c: card_weight(c, suit, small))


def choose_greedy(view: PolicyView, stream: Stream) -> int:
    """Highest greedy score; ties go to the first move in sorted order. Draws nothing from ``stream``."""
    return first_best(greedy_score(move, view.rules) for move in view.moves)


POLICIES = {"random": choose_random, "greedy": choose_greedy}


def check_policies(policies: Sequence[str], players: int) -> list[str]:
    """Validate one known policy name per seat."""
    return check_policy_names(policies, players, POLICIES)


# -------------------------------------------------------------------------------------------- playing


def apply_play(rules: Mapping[str, Any], state: DealState, seat: int, move: Move) -> PlayResult:
    """Play ``move`` for ``seat`` (the caller has checked it is legal).

    R6: a trail lays the card on the table. R5, R7: a capture puts the played and taken cards on the side's
    pile and makes the mover the last capturer. R10: a capture that leaves the table empty is a sweep, the
    deal's last play included, and scores ``sweep_points``.
    """
    play_mask, take_mask = move
    card = the_card(play_mask)
    state.hands[seat].remove(card)
    side = side_of(seat, state.players)
    if not lay_or_capture(state, seat, side, {card}, cards_of(take_mask)):
        return PlayResult("trail", 0, False)
    if state.table:
        return PlayResult("capture", 0, False)
    state.sweeps[side] += 1
    return PlayResult("capture", rules["sweep_points"], True)


def award_residue(state: DealState) -> tuple[int, list[int]] | None:
    """R9: the cards left on the table go to the last capturer's side; unscored if nobody captured (A.5).

    Returns ``(seat, cards)`` of the residue event, or None when there is none (empty table or no capture).
    """
    return _award_residue(state, lambda seat: side_of(seat, state.players))


# -------------------------------------------------------------------------------------------- scoring


def most_cards_points(counts: Sequence[int]) -> list[int]:
    """R11 cards: the unique most scores 2; exactly two sides tied for the most score 1 each; nothing when
    the top count is 0 (A.5) or (impossibly, with 52 cards) three sides tie."""
    top = max(counts)
    tied = list(counts).count(top)
    if top == 0 or tied > 2:
        return [0] * len(counts)
    per_side = 2 if tied == 1 else 1
    return [per_side if c == top else 0 for c in counts]


def most_clubs_points(counts: Sequence[int], clubs_tie: str) -> list[int]:
    """R11 clubs: the unique most scores 1; a tie for the most scores nothing, or 1 to each tied side with
    ``clubs_tie="each"``; nothing when the top count is 0 (A.5)."""
    top = max(counts)
    if top == 0 or (list(counts).count(top) > 1 and clubs_tie != "each"):
        return [0] * len(counts)
    return [1 if c == top else 0 for c in counts]


def holder_points(piles: Sequence[frozenset[int]], card: int) -> list[int]:
    """R11: 1 to the side holding ``card`` (2 of clubs, 10 of diamonds)."""
    return [1 if card in p else 0 for p in piles]


def score_deal(
    rules: Mapping[str, Any], piles_per_side: Sequence[int | Iterable[int]], sweeps_per_side: Sequence[int]
) -> list[dict[str, int]]:
    """Deal points per side, categories in order cards, clubs, two_clubs, ten_diamonds, sweep (R10, R11).

    ``piles_per_side``: each side's captured cards, partners combined (a mask or ids, residue included);
    ``sweeps_per_side``: the number of sweeps of each side (each worth ``sweep_points``).
    """
    piles = [as_cards(p) for p in piles_per_side]
    cards = most_cards_points([len(p) for p in piles])
    suit = BONUS_SUITS[rules["bonus_suit"]]  # clubs, or hearts (RUWIKI); the category keeps its name
    clubs = most_clubs_points([sum(1 for c in p if suit_of(c) == suit) for p in piles], rules["clubs_tie"])
    two_clubs = holder_points(piles, SMALL_CARDS[rules["small_card"]])  # the 2 of clubs, or the ace of spades
    ten_diamonds = holder_points(piles, TEN_DIAMONDS)
    sweep = [n * rules["sweep_points"] for n in sweeps_per_side]
    columns = (cards, clubs, two_clubs, ten_diamonds, sweep)
    return [dict(zip(CATEGORIES, (col[side] for col in columns), strict=True)) for side in range(len(piles))]


def deal_total(points: Mapping[str, int]) -> int:
    """A side's points of one deal, all categories."""
    return sum(points[c] for c in CATEGORIES)


# ------------------------------------------------------------------------------------------- the game


def deal_cards(
    rules: Mapping[str, Any], deal: int, dealer: int, stream: Stream, events: list[dict[str, Any]]
) -> DealState:
    """R3: shuffle, 4 cards per seat in playing order from the seat after the dealer, 4 to the table."""
    players = rules["players"]
    first = (dealer + 1) % players
    stock = shuffled_pack(stream)
    hands = deal_round(stock, playing_order(first, players), HAND_SIZE)
    table = take_from_stock(stock, TABLE_SIZE)
    events.extend(ev.dealing_events(deal, dealer, hands, table))
    return DealState(players, first, [set(hands[s]) for s in range(players)], set(table), stock)


def is_void_deal(rules: Mapping[str, Any], table: Iterable[int]) -> bool:
    """R3: Skopa has no void deals (no redeal on the initial table)."""
    return False


def move_of(card: int, take_mask: int) -> Move:
    """A Skopa move names its played card by its mask."""
    return 1 << card, take_mask


def play_mask(move: Move) -> int:
    return move[0]


def play_game(seed: int, game: int, rules: Mapping[str, Any] | None, policies: Sequence[str]) -> dict[str, Any]:
    """Play one game and return its trace (TRACE_FORMAT.md, ``scopasim-trace/1``).

    Procedure (the kernels follow the same one):
    1. deal stream = ``Stream(seed, game, 0)``; seat s's policy uses ``Stream(seed, game, 1 + s)``;
    2. first dealer = ``deal.bounded(players)``; deal d is dealt by ``(first_dealer + d) % players`` and led
       by the next seat;
    3. each deal: shuffle the 52 cards, 4 per seat in playing order, 4 to the table; play; a new round of 4
       per seat (no table cards) whenever every hand is empty, until the stock is out (48 plays); residue to
       the last capturer; score; the game ends after the first deal with a unique top total >= target.

    ``rules`` may be partial; it is resolved with ``simcore.variants.skopa.SPEC``. ``policies``: one of
    "random", "greedy" per seat.
    """
    return play_stock_game(sys.modules[__name__], seed, game, rules, policies)


# ------------------------------------------------------------------------------------------ the check


def check_trace(trace: Mapping[str, Any]) -> None:
    """Re-play a Skopa trace from its hand/table events (no random stream) and check every event.

    Every play must be legal in the position reached and carry the kind, points and sweep flag the rules
    give it; residues, deal points, totals and the winner must be what the reference computes; every card of
    the pack must end each deal in exactly one place (a side pile or the unscored residue). The hand and table
    events of one dealing step may come in any order (TRACE_FORMAT.md). Raises :class:`TraceError` (an
    ``AssertionError``) naming the first bad event's index.
    """
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
    "largest_unions",
    "legal_moves",
    "most_cards_points",
    "most_clubs_points",
    "move_of",
    "play_game",
    "play_mask",
    "score_deal",
    "shuffled_pack",
    "subsets_with_sum",
    "value_of",
]
