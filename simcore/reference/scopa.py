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
``direction`` (S3) is read by nothing here: seats are numbered in playing order in either direction (A.2).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

from simcore.cards import DIAMONDS, card_id
from simcore.errors import ConfigError
from simcore.reference import events as ev
from simcore.reference.captures import capture_or_trail, sum_captures
from simcore.reference.captures import subsets_with_sum as _subsets_with_sum
from simcore.reference.common import (
    as_cards,
    card_names,
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
from simcore.reference.stock import play_stock_game
from simcore.variants.scopa import (
    CATEGORIES,
    PRIMIERA_OF_RANK,
    RANKS,
    SETTEBELLO,
    SPEC,
    VALUE_OF_RANK,
    card_weight,
)

TRACE_FORMAT = ev.TRACE_FORMAT
VARIANT = "scopa"
HAND_SIZE = 3  # S3: three cards each, in every round
TABLE_SIZE = 4  # S3: four cards face up at the start of a deal
KING = 13
PACK: tuple[int, ...] = tuple(sorted(card_id(rank, suit) for rank in RANKS for suit in range(4)))  # S1
PACK_SET = frozenset(PACK)
# Napola: A, 2, 3 of coins, then the further consecutive coins in this order.
NAPOLA_RUN: tuple[int, ...] = tuple(card_id(rank, DIAMONDS) for rank in RANKS)
KING_OF_COINS = card_id(KING, DIAMONDS)  # the re bello (S10, SC8)
# Safety net only: a deal always scores the settebello unless nobody captured, so games end long before this.
MAX_DEALS = 10_000

Move = tuple[int, int]


# ---------------------------------------------------------------------------------------------- cards


def value_of(card: int) -> int:
    """Capture value (S1): A..7 = 1..7, J = 8, Q = 9, K = 10."""
    return VALUE_OF_RANK[rank_of(card)]


def sum_value(cards: Iterable[int]) -> int:
    """Sum of the capture values of a set of cards."""
    return sum(value_of(c) for c in cards)


@cache  # a function of the card id alone, asked for every card of every pile (claim_out: after every play)
def primiera_points(card: int) -> int:
    """Primiera value (S11): 7 = 21, 6 = 18, A = 16, 5 = 15, 4 = 14, 3 = 13, 2 = 12, J/Q/K = 10."""
    return PRIMIERA_OF_RANK[rank_of(card)]


# ------------------------------------------------------------------------------------------ dealing


def shuffled_pack(stream: Stream) -> list[int]:
    """The pack in ascending id order, Fisher-Yates shuffled: for i = 39..1, swap i and bounded(i + 1)."""
    return shuffle(PACK, stream)


def is_void_deal(rules: Mapping[str, Any], table: Iterable[int]) -> bool:
    """S4: with ``redeal_kings`` = 3, three or four kings among the initial table cards void the deal."""
    need = rules["redeal_kings"]
    return need > 0 and sum(1 for c in table if rank_of(c) == KING) >= need


# -------------------------------------------------------------------------------------- legal moves


def subsets_with_sum(cards: Iterable[int], total: int) -> list[frozenset[int]]:
    """Every non-empty set of ``cards`` whose capture values add up to ``total`` (depth-first, id order)."""
    return _subsets_with_sum(cards, total, value_of)


def captures(rules: Mapping[str, Any], card: int, table: Iterable[int]) -> list[frozenset[int]]:
    """The sets of table cards ``card`` may take (S5).

    With ``single_card_priority``, if a table card has the played card's value, only single equal cards may
    be taken; otherwise any set summing to the value (including single equal cards when the priority is off).
    ``sum_choice="fewest"``: of those sets, only the ones with the fewest cards.
    """
    takes = sum_captures(frozenset(table), value_of(card), value_of, rules["single_card_priority"])
    if rules["sum_choice"] == "fewest" and takes:
        fewest = min(len(t) for t in takes)
        takes = [t for t in takes if len(t) == fewest]
    return takes


def legal_moves(rules: Mapping[str, Any], hand: int | Iterable[int], table: int | Iterable[int]) -> list[Move]:
    """Legal ``(card, take_mask)`` moves of a hand on a table, sorted ascending (S5, S6).

    ``forced_capture``: "card" = a card that can capture must capture, one that cannot is trailed; "none" =
    every card may also be trailed; "player" (not a Scopa option, kept generic) = if any card can capture,
    only captures are legal, else every card is trailed.
    """
    hand, table = as_cards(hand), as_cards(table)
    forced = rules["forced_capture"]
    if forced not in ("card", "none", "player"):
        raise ConfigError(f"forced_capture {forced!r} is not card, none or player")
    return capture_or_trail({card: captures(rules, card, table) for card in hand}, forced, lambda card: card)


# ----------------------------------------------------------------------------------------- policies


def greedy_score(move: Move, napola: bool, re_bello: bool = False) -> int:
    """Greedy value of a move: captures 1000 per table card taken plus the card weights of taken + played
    cards; a trail minus the played card's weight (``simcore.variants.scopa.card_weight``)."""
    card, take_mask = move
    return greedy_value(1 << card, take_mask, lambda c: card_weight(c, napola, re_bello))


def choose_greedy(view: PolicyView, stream: Stream) -> int:
    """Highest greedy score; ties go to the first move in sorted order. Draws nothing from ``stream``."""
    napola, re_bello = bool(view.rules["napola"]), bool(view.rules["re_bello"])
    return first_best(greedy_score(move, napola, re_bello) for move in view.moves)


POLICIES = {"random": choose_random, "greedy": choose_greedy}


def check_policies(policies: Sequence[str], players: int) -> list[str]:
    """Validate one known policy name per seat."""
    return check_policy_names(policies, players, POLICIES)


# ------------------------------------------------------------------------------------------ playing


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
    state.hands[seat].remove(card)
    side = side_of(seat, state.players)
    if not lay_or_capture(state, seat, side, {card}, as_cards(take_mask)):
        return PlayResult("trail", 0, False)
    last_play = state.hands_empty() and not state.stock
    sweep = counts_as_sweep(rules, state.table, last_play)
    if sweep:
        state.sweeps[side] += 1
        state.sweep_order.append(side)
    return PlayResult("capture", 1 if sweep else 0, sweep)


def award_residue(state: DealState) -> tuple[int, list[int]] | None:
    """S9: the cards left on the table go to the last capturer's side; unscored if nobody captured.

    Returns ``(seat, cards)`` of the residue event, or None when there is none (empty table or no capture).
    """
    return _award_residue(state, lambda seat: side_of(seat, state.players))


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
        suit, points = suit_of(card), primiera_points(card)
        if points > best[suit]:
            best[suit] = points
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
    """Deal points per side, categories in order cards, coins, settebello, primiera, scopa, napola (S10, S11),
    and re_bello (the king of coins) when the rule is on (``SPEC.categories_for``).

    ``piles_per_side``: each side's captured cards (a mask or ids, residue included);
    ``sweeps_per_side``: the counted sweeps of each side.
    """
    return deal_points(rules, piles_per_side, sweeps_per_side, SPEC.categories_for(rules))


def deal_points(
    rules: Mapping[str, Any],
    piles_per_side: Sequence[int | Iterable[int]],
    sweeps_per_side: Sequence[int],
    categories: Sequence[str],
) -> list[dict[str, int]]:
    """:func:`score_deal` with the categories given: Scopa's, then re_bello if ``categories`` has it (Scopone
    always has it)."""
    piles = [as_cards(p) for p in piles_per_side]
    cards = majority_points([len(p) for p in piles])
    coins = majority_points([sum(1 for c in p if suit_of(c) == DIAMONDS) for p in piles])
    settebello = [1 if SETTEBELLO in p else 0 for p in piles]
    primiera = primiera_table(piles) if rules["primiera"] == "table" else primiera_suits(piles)
    napola = [napola_points(p) if rules["napola"] else 0 for p in piles]
    points = []
    for side in range(len(piles)):
        per_category = (cards[side], coins[side], settebello[side], primiera[side], sweeps_per_side[side])
        re_bello = 1 if rules["re_bello"] and KING_OF_COINS in piles[side] else 0
        values = (*per_category, napola[side], re_bello)
        points.append(dict(zip(categories, values[: len(categories)], strict=True)))
    return points


def deal_total(points: Mapping[str, int]) -> int:
    """A side's points of one deal, all categories."""
    return sum(points.values())


def sure_points(rules: Mapping[str, Any], state: DealState) -> list[dict[str, int]]:
    """``claim_out``: the deal points each side is sure of in the middle of a deal, per category (the scope as
    made). A side's counts, sums and runs only grow as it captures, so the worst that the cards nobody has captured
    yet can do to it is that one other side takes them all: a side is sure of a point that it scores in each of
    those completions."""
    free = set(PACK_SET).difference(*state.piles)
    sure = []
    for side in range(len(state.piles)):
        worst: dict[str, int] | None = None
        for other in range(len(state.piles)):
            if other == side:
                continue
            piles = [set(p) | (free if i == other else set()) for i, p in enumerate(state.piles)]
            points = score_deal(rules, piles, state.sweeps)[side]
            worst = points if worst is None else {k: min(worst[k], v) for k, v in points.items()}
        sure.append(worst)
    return sure


def claims_out(rules: Mapping[str, Any], state: DealState, seat: int, totals: Sequence[int]) -> bool:
    """``claim_out="on"`` (S12): whether ``seat`` claims right after its play, its side's total so far and the
    deal's sure points (:func:`sure_points`) reaching the target. A claim made on sure points is never false."""
    if rules["claim_out"] != "on":
        return False
    side = side_of(seat, state.players)
    return totals[side] + deal_total(sure_points(rules, state)[side]) >= rules["target"]


def countout_order(points: Mapping[str, int], side: int, sweep_order: Sequence[int]) -> list[int]:
    """S12 count-out (PARLETT): a side's points of the last deal in the order they are counted again: cards,
    coins, settebello, primiera, napola, then one entry per scopa made in the deal (0 for the other sides'
    scope, so that every side's list has the same steps)."""
    cards = [points[c] for c in ("cards", "coins", "settebello", "primiera", "napola")]
    return cards + [1 if s == side else 0 for s in sweep_order]


def deal_winner(
    rules: Mapping[str, Any], totals: Sequence[int], points: Sequence[Mapping[str, int]], sweep_order: Sequence[int]
) -> int | None:
    """S12 after a deal: the unique top total at the target wins (A.5); a tie at the top at or past the target
    plays on, or with ``tie_break="parlett_countout"`` goes to the tied side that reaches the target first when
    the deal is counted again from the totals before it (:func:`countout_order`). A tied side already at the
    target before the deal reached it at step -1; two sides reaching it at the same step: None (another deal)."""
    winner = game_winner(totals, rules["target"])
    top = max(totals)
    if winner is not None or rules["tie_break"] != "parlett_countout" or top < rules["target"]:
        return winner
    reached = {}
    for side, total in enumerate(totals):
        if total != top:
            continue
        running = total - deal_total(points[side])
        step = -1 if running >= rules["target"] else None
        for i, value in enumerate(countout_order(points[side], side, sweep_order)):
            if step is not None:
                break
            running += value
            if running >= rules["target"]:
                step = i
        reached[side] = step
    first = min(reached.values())  # every tied side reaches the target by the end of the count
    leaders = [side for side, step in reached.items() if step == first]
    return leaders[0] if len(leaders) == 1 else None


# ----------------------------------------------------------------------------------------- the game


def deal_cards(
    rules: Mapping[str, Any], deal: int, dealer: int, stream: Stream, events: list[dict[str, Any]]
) -> DealState:
    """Shuffle and deal until the deal is not void (S3, S4), recording deal/hand/table/redeal events."""
    players = rules["players"]
    first = (dealer + 1) % players
    while True:
        stock = shuffled_pack(stream)
        hands = deal_round(stock, playing_order(first, players), HAND_SIZE)
        table = take_from_stock(stock, TABLE_SIZE)
        events.extend(ev.dealing_events(deal, dealer, hands, table))
        if not is_void_deal(rules, table):
            return DealState(players, first, [set(hands[s]) for s in range(players)], set(table), stock)
        events.append({"type": "redeal", "reason": "kings"})


def move_of(card: int, take_mask: int) -> Move:
    """A Scopa move names its played card by id."""
    return card, take_mask


def play_mask(move: Move) -> int:
    return 1 << move[0]


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
    return play_stock_game(sys.modules[__name__], seed, game, rules, policies)


__all__ = [  # also what simcore.reference.stock reads of this module (StockGame)
    "CATEGORIES",
    "PACK",
    "PACK_SET",
    "SPEC",
    "DealState",
    "PolicyView",
    "apply_play",
    "award_residue",
    "best_primiera_by_suit",
    "captures",
    "card_names",
    "choose_greedy",
    "choose_random",
    "claims_out",
    "deal_cards",
    "deal_total",
    "deal_winner",
    "game_winner",
    "greedy_score",
    "is_void_deal",
    "legal_moves",
    "move_of",
    "napola_points",
    "play_game",
    "play_mask",
    "primiera_suits",
    "primiera_table",
    "score_deal",
    "shuffled_pack",
    "subsets_with_sum",
    "sure_points",
    "value_of",
]
