"""Classic Scopa (seed 003, German description; RULES.md Part A and Part B section 4).

40 cards (the 52-card pack without 8, 9, 10): A1 ... 7, J8, Q9, K10; diamonds are coins, 7d is the settebello.
2 players, 3, or 4 in partnerships. Hands of 3, 4 cards to the table; the seat after the dealer leads.
A played card takes an equal single card (priority, S5) or a set summing to its value; capture is compulsory
for the played card (S6). A capture that empties the table is a scopa (1 point), except with the deal's last
card (S8). Residue to the last capturer (S9). Deal points: cards, coins, settebello, primiera, scope, and the
optional napola (S10, S11). Game to ``target``; the top total must be unique (S12).

Deliberate choices where RULES.md leaves room:
* ``redeal_kings=3`` redeals when three *or four* of the initial table cards are kings (S4).
* ``primiera="suits"`` (literal reading): a side wins the point when, in every suit, its best card outranks
  every other side's best card in that suit (7 > 6 > A > 5 > 4 > 3 > 2 > J = Q = K; a missing suit is lowest).
* Napola: A-2-3 of coins scores 3, plus 1 for each further consecutive coin (4, 5, 6, 7, J, Q, K): at most 10.
* Part B's ``sum_choice`` (S5) and ``re_bello`` (S10) are Scopone's keys (``SUM_CHOICE``, ``RE_BELLO``), values
  and meaning included: "fewest" (S5 writes fewest_cards) keeps, of each played card's captures, those with the
  fewest cards. The ``re_bello`` category exists only when the key is on, so default Scopa rows keep 6 columns.
* ``direction`` (S3) is recorded and nothing else: seat s+1 plays after seat s in either direction (A.2), so
  ``cw`` only says that seat s+1 sits on seat s's left. It is a key so that a run states which game it models.
* ``tie_break="parlett_countout"`` (S12, PARLETT): a tie at the top, at or past the target, is settled by
  counting the last deal again from the totals before it, category by category (napola after primiera) and then
  the scope one at a time in the order they were made; the first tied side to reach the target wins. Tied sides
  that were already at the target before that deal (a tie carried over) reach it together: another deal.
* ``claim_out="on"`` (S12, PAGAT-S's *chiamarsi fuori*; a false claim loses): a claim is made right after the
  claimant's own play, and the built-in players (like any player who counts) claim exactly when their banked
  points, the scope of the deal and the points they are sure of reach the target. Sure means whatever happens to
  the cards not captured yet (``kernels.scoring.scopa_secured``), so no claim is false and a false claim never
  has to be settled. The deal is then scored with the points each side is sure of (TRACE_FORMAT.md, a game that
  ends in the middle of a deal); without a claim the deal ends as usual.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np

from simcore.cards import CARD_RANK, CARD_SUIT, DIAMONDS, N_CARDS, RANK_MASK, SUIT_MASK, card_id, pack_mask
from simcore.variants.base import (
    FORCED_NAMES,
    OUT_CLAIM,
    OUT_OFF,
    SCOPA,
    GameInfo,
    HeuristicWeights,
    PartBName,
    RuleKey,
    Rules,
    VariantSpec,
    card_moves_bound,
    hand_moves_bound,
    most_sweeps,
    pack_values,
    primiera_order,
    side_array,
    subset_sum_counts,
    without_card,
)

RANKS = (1, 2, 3, 4, 5, 6, 7, 11, 12, 13)
VALUE_OF_RANK = {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 11: 8, 12: 9, 13: 10}
PRIMIERA_OF_RANK = {7: 21, 6: 18, 1: 16, 5: 15, 4: 14, 3: 13, 2: 12, 11: 10, 12: 10, 13: 10}
SETTEBELLO = card_id(7, DIAMONDS)
CATEGORIES = ("cards", "coins", "settebello", "primiera", "scopa", "napola")
# Largest number of table subsets with one sum (10) in a 40-card pack: bounds the captures of one card.
MAX_SUBSETS_ONE_SUM = 1702

KEYS = (
    RuleKey("players", 2, "number of players; 4 play in two partnerships (seats 0+2 v 1+3)", choices=(2, 3, 4)),
    RuleKey(
        "target",
        11,
        "game ends after a deal in which a side has >= target and the top score is unique",
        min=1,
        max=1000,
    ),
    RuleKey(
        "forced_capture",
        "card",
        "card: a played card that can capture must capture; none: any card may be trailed",
        choices=("card", "none"),
    ),
    RuleKey("single_card_priority", True, "an equal single card must be taken before any sum (S5)"),
    RuleKey(
        "redeal_kings",
        0,
        "3: three or four kings among the initial table cards void the deal; same dealer redeals (S4)",
        choices=(0, 3),
    ),
    RuleKey("last_play_scopa", False, "whether a sweep with the deal's last card counts as a scopa (S8)"),
    RuleKey(
        "primiera",
        "table",
        "table: 21/18/16/15/14/13/12/10 sums, a side lacking a suit cannot win; suits: suit-by-suit reading",
        choices=("table", "suits"),
    ),
    RuleKey("napola", False, "A-2-3 of coins scores 3, +1 per further consecutive coin (Italian extra)"),
    RuleKey(
        "direction",
        "ccw",
        "ccw: counter-clockwise, the dealer's right leads; cw: the dealer's left leads (S3). Changes nothing in "
        "play, scoring or traces: seats are numbered in playing order (A.2), so the two are the same game; the "
        "value is only recorded",
        choices=("ccw", "cw"),
    ),
    RuleKey(
        "tie_break",
        "play_on",
        "a tie at the top at or past the target after a deal: play_on (another deal), or parlett_countout (count "
        "that deal's points again from the totals before it, cards, coins, settebello, primiera, napola, then the "
        "scope in the order made: the first of the tied sides to reach the target wins) (S12)",
        choices=("play_on", "parlett_countout"),
    ),
    RuleKey(
        "claim_out",
        "off",
        "on: a side may claim the game in the middle of a deal (chiamarsi fuori; S12, PAGAT-S) and a false claim "
        "loses; the built-in players claim right after their own play, once their banked and sure points reach the "
        "target, so no claim is false (an out event, the deal scored with the points each side is sure of)",
        choices=("off", "on"),
    ),
)
# Part B keys Scopa shares with Scopone (RULES.md S5, S10; SC4, SC8): one declaration, one meaning, both games
SUM_CHOICE = RuleKey(
    "sum_choice",
    "free",
    "free: any capture of the played card; fewest: only its captures with the fewest cards (S5, SC4)",
    choices=("free", "fewest"),
)
RE_BELLO = RuleKey("re_bello", False, "the king of coins scores 1 (category re_bello; S10, SC8)")
KEYS = (*KEYS, SUM_CHOICE, RE_BELLO)
KING_OF_COINS = card_id(13, DIAMONDS)


def card_weight(card: int, napola: bool, re_bello: bool = False) -> int:
    """Point value of a card for heuristics: what holding it is worth towards this deal's points."""
    rank, suit = int(CARD_RANK[card]), int(CARD_SUIT[card])
    weight = {7: 3, 6: 2, 1: 1}.get(rank, 0)  # primiera
    if suit == DIAMONDS:
        weight += 2  # coins
        if card == SETTEBELLO:
            weight += 6
        if napola and rank <= 3:
            weight += 1
        if re_bello and card == KING_OF_COINS:
            weight += 6
    return weight


def scopa_rule_fields(r: Mapping[str, Any]) -> dict[str, Any]:
    """The ``Rules`` fields Scopa and Scopone compile the same way (pack, values, sweeps, primiera, extras)."""
    pack = pack_mask(RANKS)
    primiera = np.zeros(N_CARDS, dtype=np.int64)
    weight = np.zeros(N_CARDS, dtype=np.int64)
    for c in range(N_CARDS):
        rank = int(CARD_RANK[c])
        if rank in VALUE_OF_RANK:
            primiera[c] = PRIMIERA_OF_RANK[rank]
            weight[c] = card_weight(c, bool(r["napola"]), bool(r["re_bello"]))
    return {
        "pack": pack,
        "target": int(r["target"]),
        "forced_capture": FORCED_NAMES[r["forced_capture"]],
        "single_card_priority": int(bool(r["single_card_priority"])),
        "sum_mask": pack,
        "value_by_rank": pack_values(VALUE_OF_RANK),
        "sweep_points": 1,
        "last_play_sweep": int(bool(r["last_play_scopa"])),
        "primiera": 0 if r["primiera"] == "table" else 1,
        "napola": int(bool(r["napola"])),
        "primiera_value": primiera,
        "primiera_order": primiera_order(primiera),
        "card_weight": weight,
        "cards_target": 21,
        "count_suit": 1,
        "count_suit_target": 6,
        "sum_fewest": int(r["sum_choice"] == "fewest"),
        "re_bello": int(bool(r["re_bello"])),
    }


def compile_scopa(r: Mapping[str, Any]) -> Rules:
    players = int(r["players"])
    return Rules(
        variant=SCOPA,
        players=players,
        n_sides=2 if players == 4 else players,
        side_of=side_array(players),
        hand_size=3,
        table_size=4,
        redeal_kings=int(r["redeal_kings"]),
        n_categories=len(CATEGORIES) + int(bool(r["re_bello"])),
        max_moves=3 * MAX_SUBSETS_ONE_SUM + 3,
        **scopa_rule_fields(r),
        countout=int(r["tie_break"] == "parlett_countout"),
        mid_deal_out=OUT_CLAIM if r["claim_out"] == "on" else OUT_OFF,
    )


@cache
def most_moves(forced: str) -> int:
    """S5, S6: a played card takes a set of table cards whose values add up to its own (single-card priority only
    removes sets), so a card of value v has at most as many captures as the rest of the pack has sets summing
    to v; a hand holds at most 3 cards. Three kings: 3 x 1,701 sets summing to 10."""
    values = [VALUE_OF_RANK[rank] for rank in RANKS for _ in range(4)]
    counts = subset_sum_counts(values, 10)
    per_card = [card_moves_bound(without_card(counts, v)[v], forced) for v in values]
    return hand_moves_bound(per_card, 3)


def game_info(r: Mapping[str, Any]) -> GameInfo:
    """Scopa's bounds for a resolved rule set; each line says the rule it comes from."""
    players = int(r["players"])
    sides = 2 if players == 4 else players
    plies = 40 - 4  # S7: every card not dealt to the table is played once, whatever the number of players
    side_plies = plies // players * (players // sides)  # 18, 12 or 18: a side's seats play their hands
    sweeps = most_sweeps(plies, side_plies, table_starts_empty=False, last_play_counts=bool(r["last_play_scopa"]))
    points = {
        "cards": 1,  # S10: one point each for most cards, coins, the settebello and the primiera
        "coins": 1,
        "settebello": 1,
        "primiera": 1,
        "scopa": sweeps,  # S8: 1 point a sweep
        "napola": 10 if r["napola"] else 0,  # A-2-3 of coins 3, +1 for each of the 7 further coins in a row
    }
    if r["re_bello"]:
        points["re_bello"] = 1  # the king of coins
    return GameInfo(
        players=players,
        sides=sides,
        pack_cards=40,
        max_plies=plies,
        max_hand=3,  # S3: three cards a round
        max_moves=most_moves(r["forced_capture"]),
        max_table=4 + plies - 1,  # the 4 initial cards and every trail but the mover's own card
        max_sweeps=sweeps,
        max_points=points,
        max_deal_total=sum(points.values()),
        immediate=("scopa",),
        mid_deal_out=r["claim_out"] == "on",  # S12: after a deal, or by a claim after a side's play
        # S12: the highest total at or above the target wins; a tie at the top plays on, or is counted out
        past_target="countout" if r["tie_break"] == "parlett_countout" else "top",
        mid_deal_claim=r["claim_out"] == "on",
    )


# The point policies' view of the cards (simcore.policies.weights: what a weight is, how the defaults were measured).
def _card_points(w: Mapping[str, float], rules: Mapping[str, Any], c: int) -> float:
    rank, suit = int(CARD_RANK[c]), int(CARD_SUIT[c])
    value = w["settebello"] * (c == SETTEBELLO)
    value += {7: w["seven"], 6: w["six"], 1: w["ace"]}.get(rank, 0.0)
    value += w["re_bello"] * (bool(rules["re_bello"]) and c == KING_OF_COINS)
    return value + w["napola"] * (bool(rules["napola"]) and suit == DIAMONDS and rank <= 3)


WEIGHTS = HeuristicWeights(
    defaults={
        "hold": 0.1,
        "card": 0.05,
        "coin": 0.2,
        "settebello": 1.0,
        "seven": 0.3,
        "six": 0.15,
        "ace": 0.1,
        "napola": 0.3,
        "re_bello": 1.0,
    },
    meanings={
        "coin": "points per coin while the coins majority is open",
        "settebello": "points for the seven of coins (the settebello point)",
        "seven": "share of the primiera point for a seven",
        "six": "share of the primiera point for a six",
        "ace": "share of the primiera point for an ace",
        "napola": "points for each of the ace, two and three of coins when napola is on",
        "re_bello": "points for the king of coins when re_bello is on",
    },
    card_points=_card_points,
    suit_weight=lambda w, rules: w["coin"],
)

#: Dealt material for the control variates of the first player's advantage (analysis.control):
#: what Scopa's scoring rewards: the coins, the settebello, and the primiera's best ranks.
CONTROLS = (
    ("coins", int(SUIT_MASK[DIAMONDS])),
    ("settebello", int(1 << card_id(7, DIAMONDS))),
    ("sevens", int(RANK_MASK[7])),
    ("sixes", int(RANK_MASK[6])),
    ("aces", int(RANK_MASK[1])),
)


SPEC = VariantSpec(
    name="scopa",
    title="Scopa (classic, 40 cards; seed 003)",
    seed_text="003",
    keys=KEYS,
    categories=CATEGORIES,
    compile_rules=compile_scopa,
    declare_info=game_info,
    weights=WEIGHTS,
    controls=CONTROLS,
    optional_categories=(("re_bello", "re_bello"),),
    part_b_names=(
        PartBName("primiera_method", "primiera", {"points_table": "table", "suit_by_suit": "suits"}),
        PartBName("redeal_if_kings_on_table", "redeal_kings"),
    ),
)
