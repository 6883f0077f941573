"""Russian Skopa / Konchinka (seed 004, book section 46; RULES.md Part A and Part B section 5).

52 cards: A1 ... 10 count their value; J, Q, K have no value and capture, or are captured, by equal rank only
(R2, R5). 2, 3 or 4 players (2 v 2). Four cards each and four to the table, then four more each until the pack
is used (R3, R8). The seat after the dealer leads. A played numeral takes one card of equal rank or one set of
numerals summing to its value, by free choice (R5); if any hand card can capture, the player must capture
(player-level compulsion, R6). No sweep points by default (R10). Residue to the last capturer (R9). Deal points:
most cards 2 (a tie for most: 1 each), most clubs 1, 2 of clubs 1, 10 of diamonds 1 (R11). Game to 21 (R12).

Deliberate choices where RULES.md leaves room:
* A capture that leaves the table empty is a sweep, the deal's last play included (TRACE_FORMAT: "any capture
  that leaves the table empty"); it scores ``sweep_points`` (0 by default, so the trace marks it with 0 points).
* With 3 players a tie for most clubs scores nothing (``clubs_tie="none"``) or 1 to each tied side (``"each"``).
* The RUWIKI variant (``bonus_suit="hearts"``, ``small_card="As"``) keeps the category names ``clubs`` and
  ``two_clubs`` (RULES.md A.4): they hold the majority of the bonus suit and the small card, whichever they are.
  The control variates of the first player's advantage stay the clubs and the 2 of clubs (still mean zero by
  symmetry under any rules, only less correlated with the result under the variant).
* ``multi_group_capture`` (R5 option; the seed's "takes one or several cards ... the corresponding ones"): a
  group is a capture the card could make alone under the other keys, and the card takes a *largest* union of
  pairwise disjoint groups: the most table cards it can, the player choosing among equally large unions (which
  suits, which split). Neither "any union" (a 10 against the rest of the pack would have 1.5e10 takes) nor a
  "maximal" one, a union no further group can join (74,330 takes there; 5 5 3 2 under a 10 would allow 5+5 and
  leave 3+2), but the reading "he takes the corresponding cards": all he can. So a court takes every table card of
  its rank whatever ``court_takes`` (each card is one of its groups); with ``single_card_priority`` and a table
  card of its value a numeral's groups are those single cards, so it takes them all; otherwise the equal cards
  are always taken (each a group of its own) with a largest set of smaller numerals that splits into sets
  summing to its value. Whether a card can capture, hence the compulsion, is unchanged. A numeral has at most
  ``LARGEST_UNIONS`` takes (3,888 for a 10), by exhaustion over every table.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np

from simcore.cards import CARD_SUIT, CLUBS, DIAMONDS, HEARTS, N_CARDS, SPADES, SUIT_MASK, card_id, pack_mask
from simcore.variants.base import (
    FORCED_NAMES,
    MULTI_SCRATCH,
    SKOPA,
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

VALUE_OF_RANK = {r: r for r in range(1, 11)}
CATEGORIES = ("cards", "clubs", "two_clubs", "ten_diamonds", "sweep")
TWO_CLUBS = card_id(2, CLUBS)
ACE_SPADES = card_id(1, SPADES)
TEN_DIAMONDS = card_id(10, DIAMONDS)
MAX_SUBSETS_ONE_SUM = 1702  # subsets of A..10 (4 each) with sum 10
# multi_group_capture: the most largest unions (takes) a numeral of value 1..10 has on any table, by exhaustion over
# the tables' counts of the smaller ranks (0..4 each): the product of C(t_r, c_r) summed over the largest split
# count vectors c <= t (tests/test_rules_skopa_multi_group.py derives them again). A 10's 3,888: two each of
# A..4 and four each of 6..9 (take two of each: 6**4 ways) and three 5s (take two: 3 ways).
LARGEST_UNIONS = (1, 3, 6, 18, 36, 108, 216, 648, 1296, 3888)
MAX_LARGEST_UNIONS = max(LARGEST_UNIONS)

KEYS = (
    RuleKey("players", 2, "number of players; 4 play in two partnerships (seats 0+2 v 1+3)", choices=(2, 3, 4)),
    RuleKey(
        "target",
        21,
        "game ends after a deal in which a side has >= target and the top score is unique",
        min=1,
        max=1000,
    ),
    RuleKey(
        "forced_capture",
        "player",
        "player: if any hand card can capture, the player must capture; card: a played card that can capture "
        "must; none: any card may be trailed (R6)",
        choices=("player", "card", "none"),
    ),
    RuleKey("single_card_priority", False, "an equal single card must be taken before any sum (R5 option)"),
    RuleKey(
        "sweep_points", 0, "points for a capture that leaves the table empty (none in the book, R10)", min=0, max=100
    ),
    RuleKey(
        "clubs_tie", "none", "3 players, tie for most clubs: none scores, or each tied side 1", choices=("none", "each")
    ),
    RuleKey(
        "court_takes",
        "one",
        "one: a court card takes one table card of its rank; all_same_rank: every table card of its rank (R5)",
        choices=("one", "all_same_rank"),
    ),
    RuleKey(
        "bonus_suit",
        "clubs",
        "the suit whose majority scores 1 (the 'clubs' category): clubs, or hearts (R11, the RUWIKI variant)",
        choices=("clubs", "hearts"),
    ),
    RuleKey(
        "small_card",
        "2c",
        "the card that scores 1 (the 'two_clubs' category): 2c, the 2 of clubs, or As, the ace of spades (R11)",
        choices=("2c", "As"),
    ),
    RuleKey(
        "multi_group_capture",
        False,
        "a card takes a largest union of disjoint groups, each a capture it could make alone (R5 option)",
    ),
)
BONUS_SUIT = {"clubs": CLUBS, "hearts": HEARTS}
SMALL_CARD = {"2c": TWO_CLUBS, "As": ACE_SPADES}


def card_weight(card: int, bonus_suit: int = CLUBS, small_card: int = TWO_CLUBS) -> int:
    """Point value of a card for heuristics: what taking it is worth towards this deal's points (the bonus suit's
    majority, the small card, the 10 of diamonds)."""
    weight = 1 if CARD_SUIT[card] == bonus_suit else 0  # most clubs (or hearts)
    if card in (small_card, TEN_DIAMONDS):
        weight += 3
    return weight


def compile_skopa(r: Mapping[str, Any]) -> Rules:
    players = int(r["players"])
    suit, small = BONUS_SUIT[r["bonus_suit"]], SMALL_CARD[r["small_card"]]
    pack = pack_mask(range(1, 14))
    courts = pack_mask((11, 12, 13))
    multi = int(bool(r["multi_group_capture"]))
    return Rules(
        variant=SKOPA,
        players=players,
        n_sides=2 if players == 4 else players,
        side_of=side_array(players),
        pack=pack,
        hand_size=4,
        table_size=4,
        target=int(r["target"]),
        forced_capture=FORCED_NAMES[r["forced_capture"]],
        n_categories=len(CATEGORIES),
        # multi_group_capture: room for the largest-union search's scratch after the moves (MULTI_SCRATCH slots)
        max_moves=4 * (MAX_LARGEST_UNIONS + 1) + MULTI_SCRATCH // 2 + 1 if multi else 4 * (MAX_SUBSETS_ONE_SUM + 3) + 4,
        card_weight=np.array([card_weight(c, suit, small) for c in range(N_CARDS)], dtype=np.int64),
        sum_mask=pack & ~courts,
        value_by_rank=pack_values(VALUE_OF_RANK),
        rank_only=courts,
        single_card_priority=int(bool(r["single_card_priority"])),
        sweep_points=int(r["sweep_points"]),
        last_play_sweep=1,
        clubs_tie_each=int(r["clubs_tie"] == "each"),
        cards_target=27,
        count_suit=suit,
        count_suit_target=7,
        small_card=small,
        court_takes_all=int(r["court_takes"] == "all_same_rank"),
        multi_group=multi,
    )


@cache
def most_moves(forced: str, court_takes: str = "one", multi_group: bool = False) -> int:
    """R5, R6: a numeral v takes a set of table numerals summing to v (at most the sets the rest of the pack's
    numerals A..10 have), a court one table card of its rank (3 others; all of them in one move with
    ``court_takes="all_same_rank"``); a hand holds at most 4 cards. Four 10s: 4 x 1,701 sets summing to 10.
    With ``multi_group_capture`` a numeral has at most ``LARGEST_UNIONS[v - 1]`` takes on any table (a largest
    union is not a subset of the rest of the pack's, so the bound is the maximum over all tables) and a court
    one: four 10s, 4 x 3,888."""
    numerals = [v for v in range(1, 11) for _ in range(4)]
    if multi_group:
        per_card = [card_moves_bound(LARGEST_UNIONS[v - 1], forced) for v in numerals]
        return hand_moves_bound(per_card + [card_moves_bound(1, forced)] * 12, 4)
    counts = subset_sum_counts(numerals, 10)
    per_card = [card_moves_bound(without_card(counts, v)[v], forced) for v in numerals]
    per_card += [card_moves_bound(1 if court_takes == "all_same_rank" else 3, forced)] * 12  # courts
    return hand_moves_bound(per_card, 4)


def game_info(r: Mapping[str, Any]) -> GameInfo:
    """Skopa's bounds for a resolved rule set; each line says the rule it comes from."""
    players = int(r["players"])
    sides = 2 if players == 4 else players
    plies = 52 - 4  # R3, R8: every card not dealt to the table is played once, whatever the number of players
    side_plies = plies // players * (players // sides)  # 24, 16 or 24
    sweeps = most_sweeps(plies, side_plies, table_starts_empty=False, last_play_counts=True)  # the last counts
    points = {
        "cards": 2,  # R11: most cards 2 (a tie for most 1 each), most clubs 1, the 2 of clubs 1, the 10 of coins 1
        "clubs": 1,
        "two_clubs": 1,
        "ten_diamonds": 1,
        "sweep": int(r["sweep_points"]) * sweeps,  # R10: sweep_points a sweep (0 in the book)
    }
    return GameInfo(
        players=players,
        sides=sides,
        pack_cards=52,
        max_plies=plies,
        max_hand=4,  # R3: four cards a round
        max_moves=most_moves(r["forced_capture"], r["court_takes"], bool(r["multi_group_capture"])),
        max_table=4 + plies - 1,  # the 4 initial cards and every trail but the mover's own card
        max_sweeps=sweeps,
        max_points=points,
        max_deal_total=sum(points.values()),
        immediate=("sweep",),
        mid_deal_out=False,  # R12: scored only at the end of a deal
        past_target="top",  # R12: the highest total at or above the target wins; a tie at the top plays on
    )


# The point policies' view of the cards (simcore.policies.weights: what a weight is, how the defaults were measured).
def _card_points(w: Mapping[str, float], rules: Mapping[str, Any], c: int) -> float:
    small = SMALL_CARD[rules["small_card"]]
    return w["two_clubs"] * (c == small) + w["ten_diamonds"] * (c == card_id(10, DIAMONDS))


WEIGHTS = HeuristicWeights(
    defaults={"hold": 0.2, "card": 0.077, "club": 0.14, "two_clubs": 1.0, "ten_diamonds": 1.0},
    meanings={
        "club": "points per club (per heart with bonus_suit=hearts) while that suit's majority is open",
        "two_clubs": "points for the two of clubs (the ace of spades with small_card=As)",
        "ten_diamonds": "points for the ten of diamonds",
    },
    card_points=_card_points,
    suit_weight=lambda w, rules: w["club"],
    # More worlds than in Scopa: 300 duplicate partnership pairs (4 players) against mc, seed 11: 54.2%
    # (50.6-57.8%) with worlds=24, 48.0% (44.4-51.6%) with the shared 8.
    searchers={"search": {"worlds": 24.0}},
)

#: Dealt material for the control variates of the first player's advantage (analysis.control):
#: what Skopa's scoring rewards: the clubs, the two of clubs and the ten of diamonds.
CONTROLS = (
    ("clubs", int(SUIT_MASK[CLUBS])),
    ("two of clubs", int(1 << card_id(2, CLUBS))),
    ("ten of diamonds", int(1 << card_id(10, DIAMONDS))),
)


SPEC = VariantSpec(
    name="skopa",
    title="Skopa / Konchinka (Russian, 52 cards; seed 004)",
    seed_text="004",
    keys=KEYS,
    categories=CATEGORIES,
    compile_rules=compile_skopa,
    declare_info=game_info,
    weights=WEIGHTS,
    controls=CONTROLS,
)
