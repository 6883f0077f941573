"""Reference engine of Scopone (RULES.md Part C section 7, SC1-SC10), on the shared loop of :mod:`.stock`.

Slow, literal, plain Python, independent of the kernels: Scopa's reference rules (:mod:`.scopa`: values,
captures with ``single_card_priority`` and ``sum_choice``, the scopa, the residue, the deal points) for four
players in two partnerships, dealt ``deal="ten"`` (10 each, no table) or ``"nine"`` (9 each and 4 face up, with
the three-kings redeal), plus the *asso piglia tutto* family (SC9), written here from the rule text:

* a played ace with its power takes the whole table (over single-card priority and ``sum_choice``); on an
  empty table it keeps itself (``ace_on_empty``: keep, stay, or either); with ``ace_on_ace="ace_only"`` and an
  ace on the table it is an ordinary card of value 1 (it takes one table ace);
* the deal's first play (``ace_first_play``): "banned" removes the aces from a hand that holds another card,
  "plain" takes the ace's power away (an ordinary card of value 1);
* an ace capture taking exactly one table ace is ordinary (a scopa when it empties the table); any other is a
  take-all, a scopa only with ``ace_scopa``; a keep is a capture (last capturer) and never a scopa.

Moves are ``(play_mask, take_mask)`` as in :mod:`.skopa`; a kept ace is ``(ace_mask, ace_mask)`` (its trace
``take`` is empty). Choices where RULES.md leaves room are those of ``simcore.variants.scopone``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from simcore.cards import mask_of
from simcore.reference import events as ev
from simcore.reference import scopa
from simcore.reference.captures import may_trail
from simcore.reference.common import as_cards, check_policy_names, deal_round, playing_order, rank_of, shuffle
from simcore.reference.piles import DealState, PlayResult, lay_or_capture
from simcore.reference.piles import award_residue as _award_residue
from simcore.reference.policies import PolicyView, choose_random, first_best, greedy_value
from simcore.reference.rng import Stream
from simcore.reference.stock import StockChecker, play_stock_game
from simcore.variants.scopone import CATEGORIES, SPEC

VARIANT = "scopone"
PLAYERS = 4  # SC1
PACK = scopa.PACK  # SC2: the Scopa pack
PACK_SET = scopa.PACK_SET
DEAL_SIZES = {"ten": (10, 0), "nine": (9, 4)}  # SC2: cards per hand, table cards
ACE = 1
MAX_DEALS = scopa.MAX_DEALS

Move = tuple[int, int]


class TraceError(AssertionError):
    """A Scopone trace the reference rules do not reproduce; the message names the first bad event."""


def deal_sizes(rules: Mapping[str, Any]) -> tuple[int, int]:
    """SC2: (cards per hand, table cards) of the rule set's deal."""
    return DEAL_SIZES[rules["deal"]]


def is_ace(card: int) -> bool:
    return rank_of(card) == ACE


# -------------------------------------------------------------------------------------- legal moves


def ace_has_power(rules: Mapping[str, Any], table: frozenset[int], first_play: bool) -> bool:
    """SC9: whether a played ace takes all here: ``ace_takes_all``, not the first play's plain ace, and not an
    ace on a table holding an ace under ``ace_on_ace="ace_only"``."""
    if not rules["ace_takes_all"]:
        return False
    if first_play and rules["ace_first_play"] == "plain":
        return False
    return not (rules["ace_on_ace"] == "ace_only" and any(is_ace(t) for t in table))


def ace_moves(rules: Mapping[str, Any], ace: int, table: frozenset[int]) -> list[Move]:
    """SC9: the whole table; on an empty table itself (keep) and/or a trail (stay), by ``ace_on_empty``; a
    trail also under ``forced_capture="none"``."""
    play = 1 << ace
    moves = []
    if table:
        moves.append((play, mask_of(table)))
    else:
        if rules["ace_on_empty"] in ("keep", "choice"):
            moves.append((play, play))
        if rules["ace_on_empty"] in ("stay", "choice"):
            moves.append((play, 0))
    if rules["forced_capture"] == "none" and (play, 0) not in moves:
        moves.append((play, 0))
    return moves


def legal_moves(
    rules: Mapping[str, Any], hand: int | Iterable[int], table: int | Iterable[int], first_play: bool = False
) -> list[Move]:
    """Legal ``(play_mask, take_mask)`` moves, sorted (SC4, SC5, SC9); ``first_play``: the deal's first play."""
    hand, table = as_cards(hand), as_cards(table)
    if first_play and rules["ace_takes_all"] and rules["ace_first_play"] == "banned":
        others = frozenset(c for c in hand if not is_ace(c))
        hand = others or hand  # the regola del vile: no ace to lead, unless the hand holds nothing else
    forced = rules["forced_capture"]
    moves: list[Move] = []
    for card in hand:
        if is_ace(card) and ace_has_power(rules, table, first_play):
            moves.extend(ace_moves(rules, card, table))
            continue
        takes = scopa.captures(rules, card, table)
        moves.extend((1 << card, mask_of(t)) for t in takes)
        if may_trail(forced, bool(takes), False):
            moves.append((1 << card, 0))
    return sorted(moves)


def is_first_play(rules: Mapping[str, Any], state: DealState) -> bool:
    """The deal has one round, so its first play is the one made while every hand is full."""
    return sum(len(h) for h in state.hands) == PLAYERS * deal_sizes(rules)[0]


def deal_moves(rules: Mapping[str, Any], state: DealState, seat: int) -> list[Move]:
    """The seat's legal moves in the deal's state (the first play has its own ace rules)."""
    return legal_moves(rules, state.hands[seat], state.table, is_first_play(rules, state))


# ----------------------------------------------------------------------------------------- policies


def choose_greedy(view: PolicyView, stream: Stream) -> int:
    """Greedy (Scopa's card weights, the re bello included); a keep scores as a capture of one card."""
    napola, re_bello = bool(view.rules["napola"]), bool(view.rules["re_bello"])
    weight = lambda c: scopa.card_weight(c, napola, re_bello)  # noqa: E731
    return first_best(greedy_value(play, take, weight) for play, take in view.moves)


POLICIES = {"random": choose_random, "greedy": choose_greedy}


def check_policies(policies: Sequence[str], players: int) -> list[str]:
    return check_policy_names(policies, players, POLICIES)


# ------------------------------------------------------------------------------------------ playing


def is_take_all(rules: Mapping[str, Any], card: int, taken: frozenset[int]) -> bool:
    """C.A.5: an ace's capture is a take-all unless it takes exactly one ace (then it is ordinary)."""
    lone_ace = len(taken) == 1 and is_ace(next(iter(taken)))
    return bool(rules["ace_takes_all"]) and is_ace(card) and not lone_ace


def apply_play(rules: Mapping[str, Any], state: DealState, seat: int, move: Move) -> PlayResult:
    """Play a legal move: a keep puts the ace in the side's pile; a capture takes, a trail lays (SC4-SC6, SC9)."""
    play, take_mask = move
    card = play.bit_length() - 1
    state.hands[seat].remove(card)
    side = seat % 2
    if take_mask == play:  # a kept ace: a capture for the last-capturer rule, never a scopa
        state.piles[side].add(card)
        state.last_capturer = seat
        return PlayResult("keep", 0, False)
    taken = as_cards(take_mask)
    if not lay_or_capture(state, seat, side, {card}, taken):
        return PlayResult("trail", 0, False)
    last_play = state.hands_empty()
    sweep = scopa.counts_as_sweep(rules, state.table, last_play)
    if is_take_all(rules, card, taken):
        sweep = sweep and bool(rules["ace_scopa"])
    if sweep:
        state.sweeps[side] += 1
    return PlayResult("capture", 1 if sweep else 0, sweep)


def award_residue(state: DealState) -> tuple[int, list[int]] | None:
    """SC6: the table left goes to the last capturer's side; unscored if nobody captured."""
    return _award_residue(state, lambda seat: seat % 2)


def score_deal(
    rules: Mapping[str, Any], piles: Sequence[int | Iterable[int]], sweeps: Sequence[int]
) -> list[dict[str, int]]:
    """SC7, SC8: Scopa's deal points with every category of C.A.4 (napola and re_bello 0 when off)."""
    return scopa.deal_points(rules, piles, sweeps, CATEGORIES)


def deal_total(points: Mapping[str, int]) -> int:
    return sum(points.values())


# ----------------------------------------------------------------------------------------- the game


def is_void_deal(rules: Mapping[str, Any], table: Iterable[int]) -> bool:
    """SC3: with ``deal="nine"``, three or four kings among the table cards (``redeal_kings``) void the deal."""
    return rules["deal"] == "nine" and scopa.is_void_deal(rules, table)


def deal_cards(
    rules: Mapping[str, Any], deal: int, dealer: int, stream: Stream, events: list[dict[str, Any]]
) -> DealState:
    """Shuffle and deal (hands in playing order, then the table) until the deal is not void (SC2, SC3)."""
    hand_size, table_size = deal_sizes(rules)
    first = (dealer + 1) % PLAYERS
    while True:
        stock = shuffle(PACK, stream)
        hands = deal_round(stock, playing_order(first, PLAYERS), hand_size)
        table = stock[:table_size]
        del stock[:table_size]
        events.extend(ev.dealing_events(deal, dealer, hands, table))
        if not is_void_deal(rules, table):
            return DealState(PLAYERS, first, [set(hands[s]) for s in range(PLAYERS)], set(table), stock)
        events.append({"type": "redeal", "reason": "kings"})


def move_of(card: int, take_mask: int) -> Move:
    """A Scopone move names its played card by its mask (a keep: ``(ace_mask, ace_mask)``, the kernel's)."""
    return 1 << card, take_mask


def play_mask(move: Move) -> int:
    return move[0]


def play_game(seed: int, game: int, rules: Mapping[str, Any] | None, policies: Sequence[str]) -> dict[str, Any]:
    """Play one game and return its trace (``scopasim-trace/1``), by the procedure of :mod:`.stock`: the deal
    stream deals, seat s's policy draws from stream 1 + s; the first dealer is drawn, deals rotate; each deal is
    dealt (redealt while void), played in one round, its residue awarded and scored; the game ends after the
    first deal with a unique top total at or above the target (SC10)."""
    return play_stock_game(sys.modules[__name__], seed, game, rules, policies)


def check_trace(trace: Mapping[str, Any]) -> None:
    """Re-play a Scopone trace from its hand/table events (no random stream) and check every event; raises
    :class:`TraceError` naming the first bad one."""
    StockChecker(sys.modules[__name__], trace, TraceError).run()


__all__ = [
    "CATEGORIES",
    "PACK",
    "PACK_SET",
    "SPEC",
    "TraceError",
    "apply_play",
    "award_residue",
    "check_policies",
    "check_trace",
    "choose_greedy",
    "deal_cards",
    "deal_moves",
    "deal_sizes",
    "deal_total",
    "is_void_deal",
    "legal_moves",
    "move_of",
    "play_game",
    "play_mask",
    "score_deal",
]
