"""Venetian Foracio / Foraccio (seed 001; RULES.md Part A and Part B section 3).

52 Treviso cards, four players in two partnerships (seats 0+2 v 1+3), 13 cards each and an empty table (F1, F2).
The seat after the dealer leads. A numeral 2..10 takes one equal numeral or a set of numerals summing to its
value, by free choice (F3); a court card takes one table card of its own rank (F4); an ace takes the whole table
and never scores a scopa; on an empty table it may keep itself (a capture) or stay on the table (F5). A played
card that can capture must (F6). A same-suit sum capture scores the capturing card's value at once (F7). A scopa
scores the capturing card's value (courts 11/12/13 by default), doubled by the same-suit bonus, never with the
deal's last card (F8). Deal points: 27+ cards 2, the 7 of spades, the 2 of spades, the jack of spades and the 10
of diamonds 1 each, 48 instead of 6 for all five (F11); napoletane in every suit (F12). Game to 71, won at once
on banked + immediate points; if both sides pass 71 at the end of a deal, the last capturer's side wins (F13).

Deliberate choices where RULES.md leaves room:
* An ace played on an empty table with ``ace_on_empty="choice"`` gives two moves: keep (a capture of itself; the
  trace kind "keep") or stay (a trail). Under ``forced_capture="none"`` an ace may also be trailed on a full table.
* A scopa made with a court card when ``court_scopa_value="zero"`` still counts as a sweep (``sweep: true``) and
  scores 0.
* ``all_five`` records the bonus above the plain 6 (42 by default), so the five element columns stay 0/1/2.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np

from simcore.cards import CARD_RANK, CARD_SUIT, DIAMONDS, N_CARDS, RANK_MASK, SPADES, SUIT_MASK, card_id, pack_mask
from simcore.variants.base import (
    ACE_CHOICE,
    ACE_KEEP,
    ACE_STAY,
    FORACIO,
    FORCED_NAMES,
    GameInfo,
    HeuristicWeights,
    RuleKey,
    Rules,
    VariantSpec,
    card_moves_bound,
    hand_moves_bound,
    most_sweeps,
    pack_values,
    side_array,
    subset_sum_counts,
    without_card,
)

VALUE_OF_RANK = {r: r for r in range(2, 11)}  # the ace and the courts stay out of sums
COURT_SCOPA = {"rank": (11, 12, 13), "ten": (10, 10, 10), "zero": (0, 0, 0)}
CATEGORIES = (
    "cards",
    "spade",
    "two_spades",
    "jack_spades",
    "ten_diamonds",
    "all_five",
    "napoletana",
    "scopa",
    "same_suit",
)
SEVEN_SPADES = card_id(7, SPADES)
TWO_SPADES = card_id(2, SPADES)
JACK_SPADES = card_id(11, SPADES)
TEN_DIAMONDS = card_id(10, DIAMONDS)
MAX_SUBSETS_ONE_SUM = 246  # subsets of 2..10 (4 each) with one sum

KEYS = (
    RuleKey("players", 4, "four players in two partnerships (seats 0+2 v 1+3)", choices=(4,)),
    RuleKey("target", 71, "points to win (F13)", min=1, max=1000),
    RuleKey(
        "forced_capture",
        "card",
        "card: a played card that can capture must capture; none: any card may be trailed (F6)",
        choices=("card", "none"),
    ),
    RuleKey("single_card_priority", False, "an equal single card must be taken before any sum (F3 option)"),
    RuleKey(
        "ace_on_empty",
        "choice",
        "an ace played on an empty table: choice (keep it or leave it), keep, or stay (F5)",
        choices=("choice", "keep", "stay"),
    ),
    RuleKey(
        "court_scopa_value",
        "rank",
        "points of a scopa made with J/Q/K: rank (11/12/13), ten, or zero (F8)",
        choices=("rank", "ten", "zero"),
    ),
    RuleKey(
        "spade_element",
        "seven",
        "the 'Spade' element: the 7 of spades, or 7+ spades (F11)",
        choices=("seven", "majority"),
    ),
    RuleKey("all_five_bonus", 48, "points for winning all five fixed elements (6 = no bonus, F11)", min=6, max=1000),
    RuleKey(
        "declare",
        "immediate",
        "immediate: a side whose banked + immediate points reach the target wins at once; end_of_deal (F13)",
        choices=("immediate", "end_of_deal"),
    ),
)


def card_weight(card: int, spade_majority: bool) -> int:
    """Point value of a card for heuristics: the fixed elements, the spade count and the napoletana cards."""
    rank, suit = int(CARD_RANK[card]), int(CARD_SUIT[card])
    weight = 3 if card in (TWO_SPADES, JACK_SPADES, TEN_DIAMONDS) else 0
    if card == SEVEN_SPADES and not spade_majority:
        weight += 3
    if suit == SPADES and spade_majority:
        weight += 1
    if rank <= 3:
        weight += 1  # A-2-3 start a napoletana
    return weight


def compile_foracio(r: Mapping[str, Any]) -> Rules:
    pack = pack_mask(range(1, 14))
    courts = pack_mask((11, 12, 13))
    sweep_values = dict(VALUE_OF_RANK) | dict(zip((11, 12, 13), COURT_SCOPA[r["court_scopa_value"]], strict=True))
    majority = r["spade_element"] == "majority"
    return Rules(
        variant=FORACIO,
        players=4,
        n_sides=2,
        side_of=side_array(4),
        pack=pack,
        hand_size=13,
        table_size=0,
        target=int(r["target"]),
        forced_capture=FORCED_NAMES[r["forced_capture"]],
        n_categories=len(CATEGORIES),
        max_moves=13 * (MAX_SUBSETS_ONE_SUM + 3 + 2),
        card_weight=np.array([card_weight(c, majority) for c in range(N_CARDS)], dtype=np.int64),
        sum_mask=pack_mask(range(2, 11)),
        value_by_rank=pack_values(VALUE_OF_RANK),
        rank_only=courts,
        single_card_priority=int(bool(r["single_card_priority"])),
        sweep_mode=1,
        sweep_value_by_rank=pack_values(sweep_values),
        last_play_sweep=0,
        ace_sweeps=1,
        ace_on_empty={"choice": ACE_CHOICE, "keep": ACE_KEEP, "stay": ACE_STAY}[r["ace_on_empty"]],
        same_suit_bonus=1,
        spade_majority=int(majority),
        all_five_bonus=int(r["all_five_bonus"]),
        mid_deal_out=int(r["declare"] == "immediate"),
        last_capture_breaks_tie=1,
        cards_target=27,
        count_suit=3 if majority else -1,
        count_suit_target=7,
    )


@cache
def most_moves(forced: str, ace_on_empty: str) -> int:
    """F3..F6: a numeral v takes a set of table numerals summing to v (at most the sets the rest of the pack's
    numerals have), a court one table card of its rank (3 others), an ace the whole table, or on an empty table
    itself and/or nothing (2 moves with "choice"); "none" adds each card's trail (an ace's trail is its stay).
    A hand holds at most 13 cards: the 13 best bounds are the four 10s, 9s and 8s and a 7."""
    numerals = [v for v in range(2, 11) for _ in range(4)]
    counts = subset_sum_counts(numerals, 10)
    per_card = [card_moves_bound(without_card(counts, v)[v], forced) for v in numerals]
    per_card += [card_moves_bound(3, forced)] * 12  # courts
    ace = 2 if forced == "none" or ace_on_empty == "choice" else 1
    per_card += [ace] * 4
    return hand_moves_bound(per_card, 13)


def same_suit_points() -> int:
    """F7: a same-suit capture by a numeral v takes numerals of its suit worth v, so it uses up 2v of that suit's
    numerals, 2 + 3 + ... + 10 = 54: at most 27 points a suit, 108 in all."""
    return 4 * (sum(range(2, 11)) // 2)


def game_info(r: Mapping[str, Any]) -> GameInfo:
    """Foracio's bounds for a resolved rule set; each line says the rule it comes from."""
    plies = 52  # F2: 13 cards each, no table cards, every card played
    sweeps = most_sweeps(plies, plies // 2, table_starts_empty=True, last_play_counts=False)  # F8: not the last
    # F8: a scopa scores its capturing card's value, and each is made by a different card (never an ace)
    courts = COURT_SCOPA[r["court_scopa_value"]]
    sweep_values = sorted([v for v in range(2, 11) for _ in range(4)] + [v for v in courts for _ in range(4)])
    points = {
        "cards": 2,  # F11: 27+ cards 2, and 1 each for the spade element, the 2 and jack of spades, the 10 of coins
        "spade": 1,
        "two_spades": 1,
        "jack_spades": 1,
        "ten_diamonds": 1,
        "all_five": int(r["all_five_bonus"]) - 6,  # F11: the bonus above the plain 6
        "napoletana": 4 * 13,  # F12: a run of up to 13 cards in each suit
        "scopa": sum(sweep_values[-sweeps:]),
        "same_suit": same_suit_points(),
    }
    return GameInfo(
        players=4,
        sides=2,
        pack_cards=52,
        max_plies=plies,
        max_hand=13,  # F2: the whole hand is dealt at once
        max_moves=most_moves(r["forced_capture"], r["ace_on_empty"]),
        max_table=plies - 1,  # every trail but the mover's own card
        max_sweeps=sweeps,
        max_points=points,
        max_deal_total=sum(points.values()),
        immediate=("scopa", "same_suit"),
        mid_deal_out=r["declare"] == "immediate",  # F13: banked + immediate points, after every play
        past_target="last_capture",  # F13: both sides at 71 after a deal: the deal's last capturer wins
    )


# The point policies' view of the cards (simcore.policies.weights: what a weight is, how the defaults were measured).
def _card_points(w: Mapping[str, float], rules: Mapping[str, Any], c: int) -> float:
    value = w["spade"] * (c == card_id(7, SPADES)) * (rules["spade_element"] != "majority")
    value += w["two_spades"] * (c == card_id(2, SPADES)) + w["jack_spades"] * (c == card_id(11, SPADES))
    return value + w["ten_diamonds"] * (c == card_id(10, DIAMONDS)) + w["napoletana"] * (int(CARD_RANK[c]) <= 3)


WEIGHTS = HeuristicWeights(
    defaults={
        "hold": 0.0,
        "card": 0.074,
        "spade": 1.0,
        "two_spades": 1.0,
        "jack_spades": 1.0,
        "ten_diamonds": 1.0,
        "napoletana": 0.5,
    },
    meanings={
        "spade": "points for the seven of spades (with spade_element=majority: for the majority, a seventh a spade)",
        "two_spades": "points for the two of spades",
        "jack_spades": "points for the jack of spades",
        "ten_diamonds": "points for the ten of diamonds",
        "napoletana": "points for each ace, two and three (napoletana runs)",
    },
    card_points=_card_points,
    suit_weight=lambda w, rules: w["spade"] / 7 if rules["spade_element"] == "majority" else 0.0,
    # Thirteen-card hands make a tree wide and one sampled world says little: the search looks one decision
    # ahead over twice the worlds (20 duplicate pairs against lookahead: 37.5% with depth=1, worlds=16; 12.5%
    # with depth=3, worlds=4, which is also 6x slower).
    searchers={"search": {"depth": 1.0, "worlds": 16.0}},
)

#: Dealt material for the control variates of the first player's advantage (analysis.control):
#: what Foracio's scoring rewards: the spades, its scoring cards and the aces.
CONTROLS = (
    ("spades", int(SUIT_MASK[SPADES])),
    ("seven of spades", int(1 << card_id(7, SPADES))),
    ("two of spades", int(1 << card_id(2, SPADES))),
    ("jack of spades", int(1 << card_id(11, SPADES))),
    ("ten of diamonds", int(1 << card_id(10, DIAMONDS))),
    ("aces", int(RANK_MASK[1])),
)


SPEC = VariantSpec(
    name="foracio",
    title="Foracio (Venetian, 52 Treviso cards, 2 v 2; seed 001)",
    seed_text="001",
    keys=KEYS,
    categories=CATEGORIES,
    compile_rules=compile_foracio,
    declare_info=game_info,
    weights=WEIGHTS,
    controls=CONTROLS,
)
