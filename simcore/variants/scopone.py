"""Scopone, the Italian partnership Scopa (RULES.md Part C: C.A.1-C.A.6 and section 7, SC1-SC10).

The Scopa pack, values, captures and scoring (SC4-SC7: Scopa's S5-S11, ``variants.scopa``), four players in two
partnerships (seats 0+2 v 1+3, SC1). ``deal="ten"`` (*scientifico*, the default): 10 cards each, an empty table,
one round of 40 plays; ``deal="nine"`` (*classico*): 9 each and 4 face up, with the three-kings redeal (SC2, SC3).
Extras (SC8, SC9): napola, re bello, and *asso piglia tutto* with its sub-rules.

What Scopone shares with Scopa is Scopa's, not a copy: the ``Rules`` fields (``scopa.scopa_rule_fields``), the
kernel scoring (``score_scopa``, with the ``re_bello`` column, for variant id SCOPONE too), the keys ``sum_choice`` and
``re_bello`` (``scopa.SUM_CHOICE``, ``scopa.RE_BELLO``), the point policies' weights and the control variates.
The ace that takes all is Foracio's kernel (``Rules.ace_sweeps``, ``ace_on_empty``), with Scopone's fields for
what Foracio lacks (``ace_single_ordinary``, ``ace_scopa``, ``ace_on_ace``, ``ace_first_play``).

Deliberate choices where RULES.md leaves room:
* ``ace_on_ace="ace_only"``: with an ace on the table a played ace makes the ordinary captures of a card of value
  1, i.e. one table ace of the player's choice; it is then an ordinary capture (a scopa when it empties the table).
* ``ace_first_play="banned"`` removes the aces from the first player's moves when the hand holds another card
  (always, with 9 or 10 cards); "plain" makes the first play's ace an ordinary card of value 1 (on the empty
  table of ``deal="ten"`` a trail).
* ``forced_capture="none"`` lets any card be trailed, an ace included (also on an empty table, as in Foracio).
* ``redeal_kings`` is compiled to 0 with ``deal="ten"`` (no table cards: it can have no effect).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import cache
from typing import Any

from simcore.variants import scopa
from simcore.variants.base import (
    ACE_CHOICE,
    ACE_FIRST_BANNED,
    ACE_FIRST_FREE,
    ACE_FIRST_PLAIN,
    ACE_KEEP,
    ACE_STAY,
    SCOPONE,
    GameInfo,
    RuleKey,
    Rules,
    VariantSpec,
    card_moves_bound,
    hand_moves_bound,
    most_sweeps,
    side_array,
    subset_sum_counts,
    without_card,
)

CATEGORIES = (*scopa.CATEGORIES, "re_bello")  # C.A.4: napola and re_bello always present, 0 when off
DEALS = {"ten": (10, 0), "nine": (9, 4)}  # SC2: (cards per hand, table cards)
ACE_ON_EMPTY = {"keep": ACE_KEEP, "stay": ACE_STAY, "choice": ACE_CHOICE}
ACE_FIRST_PLAY = {"free": ACE_FIRST_FREE, "banned": ACE_FIRST_BANNED, "plain": ACE_FIRST_PLAIN}

KEYS = (
    RuleKey("players", 4, "four players in two partnerships (seats 0+2 v 1+3, SC1)", choices=(4,)),
    RuleKey(
        "target",
        11,
        "game ends after a deal in which a side has >= target and the top score is unique (SC10)",
        min=1,
        max=1000,
    ),
    RuleKey(
        "forced_capture",
        "card",
        "card: a played card that can capture must capture; none: any card may be trailed (SC5)",
        choices=("card", "none"),
    ),
    RuleKey("single_card_priority", True, "an equal single card must be taken before any sum (SC4)"),
    RuleKey(
        "deal",
        "ten",
        "ten: 10 cards each, empty table (scientifico); nine: 9 each + 4 face up (classico) (SC2)",
        choices=("ten", "nine"),
    ),
    RuleKey(
        "redeal_kings",
        3,
        "with deal=nine: 3 or 4 kings among the 4 table cards void the deal, same dealer redeals; 0 = off (SC3)",
        choices=(3, 0),
    ),
    scopa.SUM_CHOICE,
    RuleKey("last_play_scopa", False, "whether a sweep with the deal's last card counts as a scopa (SC6)"),
    RuleKey(
        "primiera",
        "table",
        "table: 21/18/16/15/14/13/12/10 sums, a side lacking a suit cannot win; suits: suit-by-suit reading (SC7)",
        choices=("table", "suits"),
    ),
    RuleKey("napola", False, "A-2-3 of coins scores 3, +1 per further card of the unbroken coin run (SC8)"),
    scopa.RE_BELLO,
    RuleKey("ace_takes_all", False, "asso piglia tutto: a played ace takes the whole table (SC9)"),
    RuleKey("ace_scopa", False, "with ace_takes_all: an ace take-all that empties the table counts as a scopa"),
    RuleKey(
        "ace_on_empty",
        "keep",
        "with ace_takes_all: an ace on an empty table takes itself (keep), is trailed (stay), or either (choice)",
        choices=("keep", "stay", "choice"),
    ),
    RuleKey(
        "ace_on_ace",
        "all",
        "with ace_takes_all: with an ace on the table a played ace still takes all, or takes one table ace only",
        choices=("all", "ace_only"),
    ),
    RuleKey(
        "ace_first_play",
        "free",
        "with ace_takes_all: the deal's first play may be any card; may not be an ace (banned); or its ace is plain",
        choices=("free", "banned", "plain"),
    ),
)


def compile_scopone(r: Mapping[str, Any]) -> Rules:
    hand_size, table_size = DEALS[r["deal"]]
    aces = bool(r["ace_takes_all"])
    return Rules(
        variant=SCOPONE,
        players=4,
        n_sides=2,
        side_of=side_array(4),
        hand_size=hand_size,
        table_size=table_size,
        redeal_kings=int(r["redeal_kings"]) if table_size else 0,
        n_categories=len(CATEGORIES),
        max_moves=most_moves(r["forced_capture"], hand_size),
        ace_sweeps=int(aces),
        ace_on_empty=ACE_ON_EMPTY[r["ace_on_empty"]],
        ace_single_ordinary=int(aces),
        ace_scopa=int(aces and r["ace_scopa"]),
        ace_on_ace=int(aces and r["ace_on_ace"] == "ace_only"),
        ace_first_play=ACE_FIRST_PLAY[r["ace_first_play"]] if aces else ACE_FIRST_FREE,
        **scopa.scopa_rule_fields(r),
    )


@cache
def most_moves(forced: str, hand_size: int) -> int:
    """SC4, SC5 (Scopa's S5, S6): a card of value v has at most as many captures as the rest of the pack has sets
    summing to v; a hand holds at most ``hand_size`` cards, so the bound is its ``hand_size`` largest per-card
    bounds. An ace that takes all has at most 2 moves (the table or a trail; keep or stay), fewer than an ace's
    3 captures of the other aces, so the bound holds with every ace key."""
    values = [scopa.VALUE_OF_RANK[rank] for rank in scopa.RANKS for _ in range(4)]
    counts = subset_sum_counts(values, 10)
    per_card = [card_moves_bound(without_card(counts, v)[v], forced) for v in values]
    return hand_moves_bound(per_card, hand_size)


def game_info(r: Mapping[str, Any]) -> GameInfo:
    """Scopone's bounds for a resolved rule set; each line says the rule it comes from."""
    hand_size, table_size = DEALS[r["deal"]]
    plies = 4 * hand_size  # SC2: one round, every hand card played once: 40 or 36
    # SC6: a sweep empties the table, so the next play cannot sweep (a keep is not one); with deal=ten the first
    # play is on an empty table (C.A.5). A side plays half the plies.
    sweeps = most_sweeps(plies, plies // 2, table_starts_empty=table_size == 0, last_play_counts=r["last_play_scopa"])
    points = {
        "cards": 1,  # SC7: one point each for most cards, coins, the settebello and the primiera
        "coins": 1,
        "settebello": 1,
        "primiera": 1,
        "scopa": sweeps,  # SC6: 1 point a sweep
        "napola": 10 if r["napola"] else 0,  # SC8: the coin run A..K, 3 to 10
        "re_bello": 1 if r["re_bello"] else 0,  # SC8: the king of coins
    }
    return GameInfo(
        players=4,
        sides=2,
        pack_cards=40,
        max_plies=plies,
        max_hand=hand_size,
        max_moves=most_moves(r["forced_capture"], hand_size),
        max_table=table_size + plies - 1,  # the table cards and every trail but the mover's own card
        max_sweeps=sweeps,
        max_points=points,
        max_deal_total=sum(points.values()),
        immediate=("scopa",),
        mid_deal_out=False,  # C.A.5: no mid-deal win
        past_target="top",  # SC10: the highest total at or above the target wins; a tie at the top plays on
    )


# Scopa's scoring, so Scopa's card weights (re_bello included); mc's own defaults: its rollouts cut after the next
# opponent's reply by points and valued by the piles beat the full greedy rollouts (100 duplicate pairs, seed 5:
# 71.0% against lookahead where the full rollouts won 61.5%, 60.5% against defensive where they won 55.0%, at 48
# samples). On a seed not used to choose them (2027, 200 pairs; README "mc with a horizon"): 70.0% against lookahead,
# 63.7% against defensive, 58.5% (54.0-63.0%) against the full rollouts. 40 samples cost a little less than the full
# rollouts' 24 (CPU per decision 0.76 times theirs; benchmarks.searchers cost).
# search's own: one reply deep (depth 1) over 40 worlds, as Foracio's: the shared depth 3 over 8 worlds lost to mc,
# 38.0% (28.2-47.8%) of 50 duplicate pairs (seed 2032); on seed 2033 (1,000 pairs each) depth 1 won 54.5%
# (53.4-55.6%) with 40 worlds, 53.4% with 64, and depth 3 with 24 worlds 52.6% (50.7-54.6%) at five times the cost.
WEIGHTS = replace(
    scopa.WEIGHTS,
    searchers={
        "mc": {"horizon": 1.0, "rollout": 2.0, "samples": 40.0},
        "search": {"depth": 1.0, "worlds": 40.0},
    },
)


SPEC = VariantSpec(
    name="scopone",
    title="Scopone (Italian, 40 cards, 2 v 2; scientifico by default; RULES.md Part C)",
    seed_text="-",
    keys=KEYS,
    categories=CATEGORIES,
    compile_rules=compile_scopone,
    declare_info=game_info,
    weights=WEIGHTS,
    controls=scopa.CONTROLS,
)
