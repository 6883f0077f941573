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
* Part B options: ``court_values="10/10/10"`` changes only what a court scopa scores under
  ``court_scopa_value="rank"`` (court values enter nothing else). ``table_ace_in_sums``: a table ace counts 1 in
  sums and in a same-suit capture's suit test (it is a card of its suit). ``ace_sweep_is_scopa``: an ace taking
  the whole table scores a scopa of 1 (never a same-suit bonus; an ace keeping itself takes no table card, so no
  scopa). ``same_suit_scopa_total="3v"``: the scopa of a same-suit sweep scores 2v in ``scopa``, its bonus v in
  ``same_suit``. ``declare="auto_on_secured_points"``: after every play the mover's side wins when its banked
  total, this deal's immediate points and the deal points its pile already holds (which a pile cannot lose)
  reach the target; that deal is scored in full from the piles, without the residue.
  ``court_takes="all_same_rank"``: a court takes all the table's cards of its rank in one move.
* ``no_scopa_rule="final_capture_if_in_last_round"`` (F8, "l'ultima presa dell'ultima mano"): the last round is
  the deal's last four plays, each player's 13th card. A sweep made there is provisional: a later capture in
  the deal (a keep included) makes it stand; at the deal's end, if it is still the deal's last capture, its
  scopa is withdrawn (the same-suit bonus stays; under "3v" the whole 2v scopa goes). The 52nd card's capture
  scores no scopa either way. A provisional scopa counts toward no declaration (``declare``: the banked total
  and the deal's immediate points leave out every scopa of the last round until the deal ends; the ordinary
  end-of-deal decision then counts the scope that stand); a declaration ends the deal, so a declaring capture
  that is itself a last-round sweep is the deal's last capture and loses its scopa. The trace records each
  play as finally scored: the play event of a withdrawn sweep has ``sweep: false`` and only its same-suit
  points (the engines write it when the deal ends; a trace is written after its game), so the play events'
  points still add up to the score's ``scopa`` and ``same_suit``. The policies are not told: they value a
  last-round sweep as a scopa, which it is unless no capture follows.
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
    ACE_SWEEP_SCORES,
    ACE_TAKES_ALL,
    FORACIO,
    FORCED_NAMES,
    OUT_IMMEDIATE,
    OUT_OFF,
    OUT_SECURED,
    SAME_SUIT_DOUBLES_SCOPA,
    SAME_SUIT_SCORES,
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
        "immediate: a side whose banked + immediate points reach the target wins at once; auto_on_secured_points: "
        "also counting the fixed elements and napoletane already in its pile; end_of_deal: no mid-deal win (F13)",
        choices=("immediate", "end_of_deal", "auto_on_secured_points"),
    ),
    RuleKey(
        "court_values",
        "11/12/13",
        "values of J/Q/K, which count only for scopa points under court_scopa_value=rank: 11/12/13, or 10/10/10 "
        "(F1; unsourced, for testing the weight of scopa points)",
        choices=("11/12/13", "10/10/10"),
    ),
    RuleKey(
        "dealer_rotation",
        "counter_clockwise",
        "counter_clockwise: the next deal is dealt by the next dealer in playing order; fixed: the same dealer deals "
        "every deal of the game (F2)",
        choices=("counter_clockwise", "fixed"),
    ),
    RuleKey(
        "court_takes",
        "one",
        "one: a court card takes one table card of its rank; all_same_rank: every table card of its rank (F4)",
        choices=("one", "all_same_rank"),
    ),
    RuleKey("table_ace_in_sums", False, "an ace left on the table enters sums as 1 (F5)"),
    RuleKey(
        "ace_sweep_is_scopa",
        False,
        "an ace that takes the whole table scores a scopa of 1 (not on the deal's last play; for experiments, F5)",
    ),
    RuleKey(
        "same_suit_scopa_total",
        "2v",
        "a scopa made by a same-suit sum capture of value v: 2v (scopa v + same-suit v), or 3v (scopa 2v) (F8)",
        choices=("2v", "3v"),
    ),
    RuleKey(
        "no_scopa_rule",
        "final_card_of_deal",
        "which capture scores no scopa (F8): the one made with the deal's final card; or the deal's last capture if"
        " it is made in the last round (each player's last card), decided at the deal's end: a sweep in that round"
        " is provisional, counts toward no declaration, and loses its scopa (not its same-suit points) if no"
        " capture follows it",
        choices=("final_card_of_deal", "final_capture_if_in_last_round"),
    ),
)
COURT_VALUES = {"11/12/13": (11, 12, 13), "10/10/10": (10, 10, 10)}
DECLARE = {"end_of_deal": OUT_OFF, "immediate": OUT_IMMEDIATE, "auto_on_secured_points": OUT_SECURED}


def court_scopa(r: Mapping[str, Any]) -> tuple[int, int, int]:
    """F1, F8: the scopa points of J, Q, K: their values (``court_values``) under ``court_scopa_value="rank"``."""
    if r["court_scopa_value"] == "rank":
        return COURT_VALUES[r["court_values"]]
    return COURT_SCOPA[r["court_scopa_value"]]


def sum_values(r: Mapping[str, Any]) -> dict[int, int]:
    """F3, F5: capture values of the cards that enter sums: the numerals, and the ace as 1 with
    ``table_ace_in_sums`` (a played ace still takes the whole table)."""
    return dict(VALUE_OF_RANK) | ({1: 1} if r["table_ace_in_sums"] else {})


@cache
def most_subsets_one_sum(aces_in_sums: bool) -> int:
    """Most sets of the pack's sum cards with one sum 2..10 (the sets one numeral can take): 246 for the
    numerals, 1,702 with the aces as 1."""
    values = [v for v in range(1 if aces_in_sums else 2, 11) for _ in range(4)]
    counts = subset_sum_counts(values, 10)
    return max(counts[2:])


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
    sweep_values = dict(VALUE_OF_RANK) | dict(zip((11, 12, 13), court_scopa(r), strict=True))
    if r["ace_sweep_is_scopa"]:
        sweep_values[1] = 1  # F8: a scopa scores its card's value
    majority = r["spade_element"] == "majority"
    aces_in_sums = bool(r["table_ace_in_sums"])
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
        max_moves=13 * (most_subsets_one_sum(aces_in_sums) + 3 + 2),
        card_weight=np.array([card_weight(c, majority) for c in range(N_CARDS)], dtype=np.int64),
        sum_mask=pack_mask(range(1 if aces_in_sums else 2, 11)),
        value_by_rank=pack_values(sum_values(r)),
        rank_only=courts,
        single_card_priority=int(bool(r["single_card_priority"])),
        sweep_mode=1,
        sweep_value_by_rank=pack_values(sweep_values),
        last_play_sweep=0,
        ace_sweeps=ACE_SWEEP_SCORES if r["ace_sweep_is_scopa"] else ACE_TAKES_ALL,
        ace_on_empty={"choice": ACE_CHOICE, "keep": ACE_KEEP, "stay": ACE_STAY}[r["ace_on_empty"]],
        same_suit_bonus=SAME_SUIT_DOUBLES_SCOPA if r["same_suit_scopa_total"] == "3v" else SAME_SUIT_SCORES,
        spade_majority=int(majority),
        all_five_bonus=int(r["all_five_bonus"]),
        mid_deal_out=DECLARE[r["declare"]],
        last_capture_breaks_tie=1,
        dealer_step=0 if r["dealer_rotation"] == "fixed" else 1,
        court_takes_all=int(r["court_takes"] == "all_same_rank"),
        last_capture_no_scopa=int(r["no_scopa_rule"] == "final_capture_if_in_last_round"),
        cards_target=27,
        count_suit=3 if majority else -1,
        count_suit_target=7,
    )


@cache
def most_moves(forced: str, ace_on_empty: str, court_takes: str = "one", aces_in_sums: bool = False) -> int:
    """F3..F6: a numeral v takes a set of table sum cards summing to v (at most the sets the rest of the pack's
    sum cards have: the numerals, and the aces as 1 with ``table_ace_in_sums``), a court one table card of its
    rank (3 others; all of them in one move with ``court_takes="all_same_rank"``), an ace the whole table, or on
    an empty table itself and/or nothing (2 moves with "choice"); "none" adds each card's trail (an ace's trail
    is its stay). A hand holds at most 13 cards: the 13 best bounds are the four 10s, 9s and 8s and a 7."""
    numerals = [v for v in range(2, 11) for _ in range(4)]
    counts = subset_sum_counts(numerals + ([1] * 4 if aces_in_sums else []), 10)
    per_card = [card_moves_bound(without_card(counts, v)[v], forced) for v in numerals]
    per_card += [card_moves_bound(1 if court_takes == "all_same_rank" else 3, forced)] * 12  # courts
    ace = 2 if forced == "none" or ace_on_empty == "choice" else 1
    per_card += [ace] * 4
    return hand_moves_bound(per_card, 13)


def same_suit_points(aces_in_sums: bool = False) -> int:
    """F7: a same-suit capture by a numeral v takes sum cards of its suit worth v, so it uses up 2v of that suit's
    sum cards, 2 + 3 + ... + 10 = 54 (55 with the ace as 1): at most 27 points a suit, 108 in all."""
    return 4 * ((sum(range(2, 11)) + (1 if aces_in_sums else 0)) // 2)


def game_info(r: Mapping[str, Any]) -> GameInfo:
    """Foracio's bounds for a resolved rule set; each line says the rule it comes from."""
    plies = 52  # F2: 13 cards each, no table cards, every card played
    sweeps = most_sweeps(plies, plies // 2, table_starts_empty=True, last_play_counts=False)  # F8: not the last
    # F8: a scopa scores its capturing card's value, and each is made by a different card (never an ace)
    courts = court_scopa(r)
    aces = [1] * 4 if r["ace_sweep_is_scopa"] else []  # F5 option: an ace's sweep scores 1
    sweep_values = sorted([v for v in range(2, 11) for _ in range(4)] + [v for v in courts for _ in range(4)] + aces)
    # F8 same_suit_scopa_total="3v": a same-suit sweep scores its scopa twice, so at most twice the values
    doubled = 2 if r["same_suit_scopa_total"] == "3v" else 1
    points = {
        "cards": 2,  # F11: 27+ cards 2, and 1 each for the spade element, the 2 and jack of spades, the 10 of coins
        "spade": 1,
        "two_spades": 1,
        "jack_spades": 1,
        "ten_diamonds": 1,
        "all_five": int(r["all_five_bonus"]) - 6,  # F11: the bonus above the plain 6
        "napoletana": 4 * 13,  # F12: a run of up to 13 cards in each suit
        "scopa": doubled * sum(sweep_values[-sweeps:]),
        "same_suit": same_suit_points(bool(r["table_ace_in_sums"])),
    }
    return GameInfo(
        players=4,
        sides=2,
        pack_cards=52,
        max_plies=plies,
        max_hand=13,  # F2: the whole hand is dealt at once
        max_moves=most_moves(r["forced_capture"], r["ace_on_empty"], r["court_takes"], bool(r["table_ace_in_sums"])),
        max_table=plies - 1,  # every trail but the mover's own card
        max_sweeps=sweeps,
        max_points=points,
        max_deal_total=sum(points.values()),
        immediate=("scopa", "same_suit"),
        mid_deal_out=r["declare"] != "end_of_deal",  # F13: banked + immediate (or secured) points, after a play
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
    # Thirteen-card hands make a tree wide and one sampled world says little: the search looks one decision ahead (20
    # duplicate pairs against lookahead: 37.5% with depth=1, worlds=16; 12.5% with depth=3, worlds=4, which is also 6x
    # slower), over 44 worlds. Against this mc (duplicate pairs, seed 11 unless said): 16 worlds 52.0% (100 pairs; seed
    # 2027: 50.5%, 44.9-56.1%), 44 worlds 52.8% (50.5-55.0%, 200 pairs); a leaf after this side's own play, or past the
    # reply, is worse: depth=2 28.0%, depth=1 with the leaf played on by points (rollout=2) for 2 or 3 plays (horizon=2,
    # 3) 6.0% and 8.8% (200 pairs each). On a seed not used to choose them (2028, 200 pairs; README "search against
    # mc"): 54.5% (52.2-56.8%); 2029: 52.3% (50.1-54.4%). 44 worlds cost 2.9 ms per decision (CPU, 1 thread; 16 worlds
    # 1.0 ms, mc 0.37 ms; benchmarks.searchers cost).
    # mc's rollouts to the end of the deal (52 plays) are mostly noise: against lookahead mc won 4.0% of 100 duplicate
    # pairs (seed 5) with them, and with the rollout cut after the next opponent's reply by points (horizon=1,
    # rollout=2) and valued by the piles 49.0% (55.5% at 48 samples; seed 11, 300 pairs: 49.2%, and 63.0% against
    # defensive); horizons 2, 3 and 7 did worse (22-45%). On a seed not used to choose them (2027, 500 pairs; README "mc
    # with a horizon"): 52.2% (49.8-54.6%) against lookahead, 66.4% against defensive, 94.2% against the full rollouts.
    # 44 samples cost a little less than the full rollouts' 24 (CPU per decision 0.85 times theirs; benchmarks.searchers
    # cost). That mc was lookahead's equal, not its better (1,000 pairs, seed 2028: 50.7%, 49.0-52.4%). The reply
    # played by defensive instead (rollout=3: the next opponent avoids leaving a sweep, as lookahead does) beats it:
    # 44 samples 54.8% (51.2-58.3%, seed 11, 200 pairs), 54.1% (52.4-55.9%, seed 2028, 1,000 pairs); at 32 samples,
    # which cost less than the full rollouts (CPU per decision over Scopa's mc 6.7 against 7.2; 44 samples 9.6),
    # 53.6% (51.8-55.4%, seed 2028, 1,000 pairs). The README's "mc in Foracio" has the checks on other seeds.
    # That mc caught up with search's 44 worlds (seed 2030, 300 pairs: 48.7%, 45.7-51.6%); 88 worlds won 52.2%
    # (49.3-55.0%, seed 11, 300 pairs) and 51.5% (49.9-53.2%, seed 2031, 1,000 pairs), so search has 88 (twice the
    # cost per decision); leaves with defensive's table risk for the side to move next did worse (41.5-48.5%, seed 11).
    searchers={"search": {"depth": 1.0, "worlds": 88.0}, "mc": {"horizon": 1.0, "rollout": 3.0, "samples": 32.0}},
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
    part_b_names=(
        PartBName(
            "ace_on_empty_table", "ace_on_empty", {"player_choice": "choice", "takes_itself": "keep", "stays": "stay"}
        ),
        PartBName(
            "scopa_court_value",
            "court_scopa_value",
            {"rank_value": "rank", "11/12/13": "rank", "10": "ten", "0": "zero"},
        ),
    ),
)
