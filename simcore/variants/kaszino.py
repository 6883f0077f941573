"""Hungarian Kaszinó (seed 000; RULES.md Part A and Part B section 2).

52 cards valued A1 ... 10, J11, Q12, K13; suits matter only for scoring (K1). Two players; the dealer gives 3
cards each and 4 to the table; the non-dealer moves first (K2). A move is one exchange (csere) of one or more
hand cards against one or more table cards of equal value total (at most ``max_sum``), or one trail (K3, K4);
an exchange is compulsory when one exists. An exchange that empties the table is a tábla: 1 point, or
``opening_tabla_points`` when the deal's first move takes the four initial cards (K6, K7); the opponent then
trails one card and moves again at once. A player whose hand is empty waits; when both hands are empty the last
capturer draws 3 first and leads (K8). The last round is played with both hands face up (K9). Residue to the
last capturer (K10). Deal points: 27+ cards 3, 7+ spades 2, each ace 1, the 2 of spades 1 (little casino), the 10
of diamonds 2 (big casino), táblas (K12). A player whose banked and sure points reach 11 wins at once ("AUSZ!",
K13).

Part B's options are keys (K2 ``first_dealer``, K6 ``tabla_by_recapturing_own_trail_counts``, K7
``opening_tabla_scope``, K8 ``round_leader``, K10 ``residue_if_no_capture``, K11 ``tabla_on_final_move_counts``,
K12 the points and thresholds); K4's ``forced_exchange`` is ``forced_capture`` (true = player, false = none).

Deliberate choices where RULES.md leaves room:
* ``max_sum`` is an integer 0..39 (0 = no cap; 39 = three kings, the most three hand cards can make).
* A tábla that does not count (``tabla_on_final_move_counts``, ``tabla_by_recapturing_own_trail_counts``) is a
  plain capture: no points, no double move. "Own trail" is per card: every card taken was trailed by the mover.
* ``opening_tabla_scope=first_move_after_each_draw``: the leader's first move of every round (the deal's first
  move included) scores ``opening_tabla_points`` if it empties the table, whatever cards are on it.
* ``first_dealer=fixed``: seat 0 deals first; the deal stream still draws the first dealer and ignores it, so a
  seed deals the same cards as under ``random``.
* A tábla is checked for the mid-deal win after every play; the residue award is followed by the ordinary
  end-of-deal decision (RULES.md A.5).
* ``stake_multiplier="first_deal_double"`` (K13) is data, not play: a game won in its first deal (``deals`` = 1,
  mid-deal or at the deal's end) gets ``stake`` 2 in the games table, every other game 1; without the key the
  column is absent, so default runs keep their columns. The analysis keeps counting games (a win rate is a
  share of games won, the first player's advantage a difference of such shares); a stake-weighted reading is
  ``sum(stake * won) / sum(stake)`` over the games table, for whoever wants the money view.
* ``out_call="manual"`` (K13): the built-in players are rational callers: a player calls right after each of
  his own plays (the forced trail of a double move and a plain trail included) as soon as his banked total and
  his sure points of the deal reach the target, so a call is never false. So manual differs from auto only in
  when the check runs: after the caller's own plays only, never after the residue award. A deal that ends
  without a call decides nothing (the seed: scores carry over, calling remains possible), even with a player
  at the target, who then calls after his first play of the next deal, unless the opponent reaches the target
  and calls first (and wins: the seed's "the latter has won"). The trace is auto's: ``out`` by the caller, the
  interrupted deal's sure points, ``end``. ``false_call`` is accepted and recorded, and changes nothing, since
  no built-in player makes a false call.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from functools import cache
from types import MappingProxyType
from typing import Any

import numpy as np

from simcore.cards import CARD_RANK, CARD_SUIT, DIAMONDS, N_CARDS, RANK_MASK, SPADES, SUIT_MASK, card_id, pack_mask
from simcore.variants.base import (
    FORCED_NAMES,
    KASZINO,
    LEADER_LAST_CAPTURER,
    LEADER_NON_DEALER,
    LEADER_OPPONENT,
    OUT_CALL,
    OUT_IMMEDIATE,
    OUT_OFF,
    RESIDUE_DEALER,
    RESIDUE_NOBODY,
    RESIDUE_NON_DEALER,
    TURNS_EXCHANGE,
    GameInfo,
    HeuristicWeights,
    PartBName,
    RuleKey,
    Rules,
    VariantSpec,
    most_sweeps,
    pack_values,
    side_array,
    subset_sum_counts,
    without_card,
)

VALUE_OF_RANK = {r: r for r in range(1, 14)}
CATEGORIES = ("cards", "spades", "aces", "little_casino", "big_casino", "tabla")
LITTLE_CASINO = card_id(2, SPADES)
BIG_CASINO = card_id(10, DIAMONDS)
MOVE_BUFFER_CAP = 1 << 18  # moves; a position with more legal exchanges stops its game with an error

KEYS = (
    RuleKey("players", 2, "two players", choices=(2,)),
    RuleKey("target", 11, "points to win ('AUSZ!', K13)", min=1, max=1000),
    RuleKey(
        "forced_capture",
        "player",
        "player: if any exchange exists the move must be an exchange; none: trailing is always allowed (K4; this is"
        " RULES.md's forced_exchange: true = player, false = none)",
        choices=("player", "none"),
    ),
    RuleKey("single_card_priority", False, "not used by exchanges", choices=(False,)),
    RuleKey("max_sum", 13, "largest value total of one exchange; 0 = no cap (K3)", min=0, max=39),
    RuleKey("max_hand_cards", 0, "most hand cards in one exchange; 0 = any (K3)", choices=(0, 1, 2)),
    RuleKey(
        "after_tabla",
        "trail_then_move",
        "after a tábla the opponent trails one card and moves again at once (K6); normal: an ordinary turn",
        choices=("trail_then_move", "normal"),
    ),
    RuleKey(
        "opening_tabla_points", 2, "a tábla taking the 4 initial cards with the deal's first move (K7)", min=0, max=100
    ),
    RuleKey("last_round_open", True, "both hands are public in the deal's last round (K9; matters to policies)"),
    RuleKey(
        "out_call",
        "auto",
        "auto: a player whose banked + sure points reach the target wins at once, mid-deal; end_of_deal; manual:"
        " a player calls right after his own play once his banked + sure points reach the target, the first call"
        " wins, and a deal ending without a call carries the scores over (no decision after a deal) (K13)",
        choices=("auto", "end_of_deal", "manual"),
    ),
    RuleKey(
        "round_leader",
        "last_capturer",
        "who draws first and leads after both hands are empty (K8); the non-dealer while nobody has captured",
        choices=("last_capturer", "non_dealer", "opponent_of_last_capturer"),
    ),
    RuleKey("points_cards", 3, "points for taking cards_threshold or more cards (K12)", min=0, max=100),
    RuleKey("cards_threshold", 27, "cards that score points_cards (K12; 26 or fewer: both may score)", min=1, max=52),
    RuleKey("points_spades", 2, "points for taking spades_threshold or more spades (K12)", min=0, max=100),
    RuleKey("spades_threshold", 7, "spades that score points_spades (K12; 6 or fewer: both may score)", min=1, max=13),
    RuleKey("points_ace", 1, "points for each ace taken (K12)", min=0, max=100),
    RuleKey("points_2S", 1, "points for the two of spades, the little casino (K12)", min=0, max=100),
    RuleKey("points_10D", 2, "points for the ten of diamonds, the big casino (K12)", min=0, max=100),
    RuleKey("points_tabla", 1, "points for a tábla other than the opening one (K6, K12)", min=0, max=100),
    RuleKey(
        "tabla_on_final_move_counts",
        True,
        "a tábla with the deal's final move scores (K11); false: it is a plain capture (no points)",
    ),
    RuleKey(
        "residue_if_no_capture",
        "none",
        "who takes the table left at the end of a deal in which nobody captured (K10); none: it stays unscored",
        choices=("none", "dealer", "non_dealer"),
    ),
    RuleKey(
        "opening_tabla_scope",
        "first_move_of_deal",
        "which tábla scores opening_tabla_points (K7): the deal's first move (taking the 4 initial cards), or the"
        " first move after each draw (the deal's first move included) taking the whole table",
        choices=("first_move_of_deal", "first_move_after_each_draw"),
    ),
    RuleKey(
        "tabla_by_recapturing_own_trail_counts",
        True,
        "an exchange that empties the table taking only cards the mover trailed himself is a tábla (K6); false: a"
        " plain capture (no points, no double move)",
    ),
    RuleKey(
        "first_dealer",
        "random",
        "random: the first dealer is drawn from the deal stream (A.2, K2); fixed: seat 0 deals first (the draw is"
        " still made, so a seed deals the same cards under both)",
        choices=("random", "fixed"),
    ),
    RuleKey(
        "stake_multiplier",
        "off",
        "first_deal_double: a game won in its first deal (mid-deal or at its end) counts double (K13, PAGAT-RC's"
        " double game); recorded as the games table's stake column (2 or 1), play is unchanged; off: no column",
        choices=("off", "first_deal_double"),
    ),
    RuleKey(
        "false_call",
        "loses",
        "a call under out_call=manual that has not reached the target: loses the game, or is ignored (K13, a"
        " Scopa convention); recorded only: the built-in players call only once they have reached it, so no false"
        " call is ever made",
        choices=("loses", "ignored"),
    ),
)
OUT_CALLS = {"auto": OUT_IMMEDIATE, "end_of_deal": OUT_OFF, "manual": OUT_CALL}
LEADERS = {
    "last_capturer": LEADER_LAST_CAPTURER,
    "non_dealer": LEADER_NON_DEALER,
    "opponent_of_last_capturer": LEADER_OPPONENT,
}
RESIDUES = {"none": RESIDUE_NOBODY, "dealer": RESIDUE_DEALER, "non_dealer": RESIDUE_NON_DEALER}
ROUNDS = 8  # K2, K8: the initial hands and 7 draws of 3 cards each
SPEC_DEFAULTS = MappingProxyType({k.name: k.default for k in KEYS})


def subsets_with_sum_bound(max_sum: int) -> int:
    """Most table subsets with one value total up to ``max_sum`` when the whole pack is on the table."""
    counts = [1] + [0] * max_sum
    for value in (v for v in range(1, 14) for _ in range(4)):
        for s in range(max_sum, value - 1, -1):
            counts[s] += counts[s - value]
    return max(counts[1:])


def card_weight(card: int, r: Mapping[str, Any] | None = None) -> int:
    """Point value of a card for the greedy tie-break (K12 under the rules ``r``, default rules if None): three per
    point of an ace or a casino, one for a spade while the spades score."""
    r = SPEC_DEFAULTS if r is None else r
    weight = 1 if CARD_SUIT[card] == SPADES and r["points_spades"] > 0 else 0
    if CARD_RANK[card] == 1:
        weight += 3 * r["points_ace"]
    if card == LITTLE_CASINO:
        weight += 3 * r["points_2S"]
    if card == BIG_CASINO:
        weight += 3 * r["points_10D"]
    return weight


def compile_kaszino(r: Mapping[str, Any]) -> Rules:
    pack = pack_mask(range(1, 14))
    max_sum = int(r["max_sum"])
    bound = 7 * subsets_with_sum_bound(max_sum or 39) + 3  # 7 non-empty subsets of a 3-card hand
    return Rules(
        variant=KASZINO,
        turns=TURNS_EXCHANGE,
        players=2,
        n_sides=2,
        side_of=side_array(2),
        pack=pack,
        hand_size=3,
        table_size=4,
        target=int(r["target"]),
        forced_capture=FORCED_NAMES[r["forced_capture"]],
        n_categories=len(CATEGORIES),
        max_moves=min(bound, MOVE_BUFFER_CAP),
        card_weight=np.array([card_weight(c, r) for c in range(N_CARDS)], dtype=np.int64),
        sum_mask=pack,
        value_by_rank=pack_values(VALUE_OF_RANK),
        sweep_points=int(r["points_tabla"]),
        last_play_sweep=int(bool(r["tabla_on_final_move_counts"])),
        mid_deal_out=OUT_CALLS[r["out_call"]],
        max_sum=max_sum,
        max_hand_cards=int(r["max_hand_cards"]),
        after_tabla_double=int(r["after_tabla"] == "trail_then_move"),
        opening_tabla_points=int(r["opening_tabla_points"]),
        last_round_open=int(bool(r["last_round_open"])),
        round_leader=LEADERS[r["round_leader"]],
        opening_tabla_each_round=int(r["opening_tabla_scope"] == "first_move_after_each_draw"),
        own_trail_tabla=int(bool(r["tabla_by_recapturing_own_trail_counts"])),
        residue_no_capture=RESIDUES[r["residue_if_no_capture"]],
        points_cards=int(r["points_cards"]),
        points_spades=int(r["points_spades"]),
        points_ace=int(r["points_ace"]),
        points_2s=int(r["points_2S"]),
        points_10d=int(r["points_10D"]),
        first_dealer_fixed=int(r["first_dealer"] == "fixed"),
        cards_target=int(r["cards_threshold"]),
        count_suit=3,
        count_suit_target=int(r["spades_threshold"]),
    )


@cache
def most_moves(max_sum: int, max_hand_cards: int, forced: str) -> int:
    """K3, K4: a move is an exchange (a non-empty group of at most ``max_hand_cards`` hand cards against a set of
    table cards of the same value total, at most ``max_sum``) or a trail. Every hand of 1..3 cards is tried, with
    the rest of the pack as the table (a real table is a subset of it): its exchanges are, per hand group, the
    table sets with the group's total; "player" keeps the exchanges (or the trails if none), "none" adds the
    trails. Under the defaults three kings, each against 6,945 table sets summing to 13: 20,835 moves."""
    cap = max_sum or 39  # 0 = no cap: three kings (39) are the most three hand cards can make
    full = subset_sum_counts((v for v in range(1, 14) for _ in range(4)), cap)
    most = 0
    for size in (1, 2, 3):
        for hand in itertools.combinations_with_replacement(range(1, 14), size):
            table = full
            for v in hand:
                table = without_card(table, v)
            exchanges = sum(
                table[sum(group)]
                for k in range(1, (max_hand_cards or size) + 1)
                for group in itertools.combinations(hand, k)
                if sum(group) <= cap
            )
            most = max(most, exchanges + size if forced == "none" else max(exchanges, size))
    return most


def game_info(r: Mapping[str, Any]) -> GameInfo:
    """Kaszinó's bounds for a resolved rule set; each line says the rule it comes from."""
    plies = 52 - 4  # K2, K8: every card not dealt to the table is played from a hand, at least one card a play
    final = bool(r["tabla_on_final_move_counts"])  # K11
    tablas = most_sweeps(plies, plies // 2, table_starts_empty=False, last_play_counts=final)
    # K7: only the deal's opening move (or, by opening_tabla_scope, each round's first) can score
    # opening_tabla_points; every other tábla scores points_tabla
    openings = min(tablas, 1 if r["opening_tabla_scope"] == "first_move_of_deal" else ROUNDS)
    tabla = int(r["points_tabla"])
    points = {
        "cards": int(r["points_cards"]),  # K12: thresholds are absolute, so one side scores each at most once
        "spades": int(r["points_spades"]),
        "aces": 4 * int(r["points_ace"]),
        "little_casino": int(r["points_2S"]),
        "big_casino": int(r["points_10D"]),
        "tabla": tablas * tabla + openings * max(0, int(r["opening_tabla_points"]) - tabla),
    }
    return GameInfo(
        players=2,
        sides=2,
        pack_cards=52,
        max_plies=plies,
        max_hand=3,  # K2: three cards a round
        max_moves=most_moves(int(r["max_sum"]), int(r["max_hand_cards"]), r["forced_capture"]),
        max_table=4 + plies - 1,  # the 4 initial cards and every trail but one card of the mover's
        max_sweeps=tablas,
        max_points=points,
        max_deal_total=sum(points.values()),
        immediate=("tabla",),
        mid_deal_out=r["out_call"] != "end_of_deal",  # K13: AUSZ on banked + sure points, after a move
        # A.5: after a deal, the unique top total at or above the target wins; K13 manual: only a call wins
        past_target="call" if r["out_call"] == "manual" else "top",
        mid_deal_claim=r["out_call"] == "manual",
    )


# The point policies' view of the cards (simcore.policies.weights: what a weight is, how the defaults were measured).
def _card_points(w: Mapping[str, float], rules: Mapping[str, Any], c: int) -> float:
    value = w["ace"] * (int(CARD_RANK[c]) == 1)
    return value + w["little_casino"] * (c == card_id(2, SPADES)) + w["big_casino"] * (c == card_id(10, DIAMONDS))


def _under_rules(w: Mapping[str, float], rules: Mapping[str, Any]) -> dict[str, float]:
    """The weights, given for the default scoring, scaled with the scoring keys (K12): a card's points by the
    ratio of its points to the default's, a majority's per-card weight also by the default threshold over the
    rule's (P points over about N cards: P / N a card)."""
    d = SPEC_DEFAULTS

    def ratio(points: str, threshold: str | None = None) -> float:  # integer products: exactly 1.0 at defaults
        if threshold is None:
            return rules[points] / d[points]
        return (rules[points] * d[threshold]) / (d[points] * rules[threshold])

    out = dict(w)
    out["ace"] = w["ace"] * ratio("points_ace")
    out["little_casino"] = w["little_casino"] * ratio("points_2S")
    out["big_casino"] = w["big_casino"] * ratio("points_10D")
    out["spade"] = w["spade"] * ratio("points_spades", "spades_threshold")
    out["card"] = w["card"] * ratio("points_cards", "cards_threshold")
    return out


WEIGHTS = HeuristicWeights(
    defaults={"hold": 0.2, "card": 0.11, "spade": 0.28, "ace": 1.0, "little_casino": 1.0, "big_casino": 2.0},
    meanings={
        "card": "points per card taken while the cards majority is open (at the default scoring; scaled by"
        " points_cards / cards_threshold)",
        "spade": "points per spade while the spades majority is open (at the default scoring; scaled by"
        " points_spades / spades_threshold)",
        "ace": "points for each ace (at points_ace=1; scaled with it)",
        "little_casino": "points for the two of spades (at points_2S=1; scaled with it)",
        "big_casino": "points for the ten of diamonds (at points_10D=2; scaled with it)",
    },
    card_points=_card_points,
    suit_weight=lambda w, rules: w["spade"],
    under_rules=_under_rules,
    # The search needs more worlds here than in Scopa: 1,000 duplicate pairs against mc, seed 11: 55.0%
    # (53.0-57.1%) with worlds=24, 51.8% (49.8-53.9%) with the shared 8.
    searchers={"search": {"worlds": 24.0}},
)

#: Dealt material for the control variates of the first player's advantage (analysis.control):
#: what Kaszinó's scoring rewards: the spades, the aces and the two casinos.
CONTROLS = (
    ("spades", int(SUIT_MASK[SPADES])),
    ("aces", int(RANK_MASK[1])),
    ("little casino", int(1 << card_id(2, SPADES))),
    ("big casino", int(1 << card_id(10, DIAMONDS))),
)


SPEC = VariantSpec(
    name="kaszino",
    title="Kaszinó (Hungarian, 52 cards; seed 000)",
    seed_text="000",
    keys=KEYS,
    categories=CATEGORIES,
    compile_rules=compile_kaszino,
    declare_info=game_info,
    weights=WEIGHTS,
    controls=CONTROLS,
    first_deal_stake=lambda r: 2 if r["stake_multiplier"] == "first_deal_double" else 1,
    part_b_names=(
        PartBName("exchange_max_sum", "max_sum", {"null": "0", "none": "0"}),
        PartBName("exchange_max_hand_cards", "max_hand_cards", {"unlimited": "0"}),
        PartBName("forced_exchange", "forced_capture", {"true": "player", "false": "none"}),
    ),
)
