"""Rules as data: a variant declares its rule keys; a resolved rule set compiles to the ``Rules`` kernels read.

``VariantSpec`` is what users see (``scopasim rules scopa``), what goes into Parquet metadata and traces.
``Rules`` is a NamedTuple of ints and small int64 arrays: kernels take it as an argument and never read
variant data from globals (Numba would freeze those into its cache).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from simcore.errors import ConfigError, shown

# Rules.variant ids
SCOPA, KASZINO, FORACIO, SKOPA, SCOPONE, ESCOBA = 0, 1, 2, 3, 4, 5

# Rules.turns: the turn structure the deal loop plays (0 is no game's: a fault, never a guess)
TURNS_ONE_CARD, TURNS_EXCHANGE = 1, 2  # one card a turn (Scopa, Skopa, Foracio); Kaszinó's exchanges and double move

# Rules.forced_capture
FORCED_NONE, FORCED_CARD, FORCED_PLAYER = 0, 1, 2
FORCED_NAMES = {"none": FORCED_NONE, "card": FORCED_CARD, "player": FORCED_PLAYER}

# Rules.ace_on_empty (Foracio, Scopone)
ACE_CHOICE, ACE_KEEP, ACE_STAY = 0, 1, 2
# Rules.ace_first_play (Scopone): the deal's first play may be an ace with its power; may not be an ace (when the
# hand holds another card); or an ace played then is an ordinary card of value 1
ACE_FIRST_FREE, ACE_FIRST_BANNED, ACE_FIRST_PLAIN = 0, 1, 2

# Rules.round_leader and Rules.residue_no_capture (Kaszino)
LEADER_NON_DEALER, LEADER_LAST_CAPTURER, LEADER_OPPONENT = 0, 1, 2
RESIDUE_NOBODY, RESIDUE_DEALER, RESIDUE_NON_DEALER = 0, 1, 2

# Rules.ace_sweeps (Foracio): an ace takes the whole table, never a sweep; or its sweep counts as a scopa
ACE_TAKES_ALL, ACE_SWEEP_SCORES = 1, 2

# Rules.mid_deal_out: off, on the points scored at once (Foracio's scope and same-suit points), or on every point
# secured so far (Foracio: also the fixed elements and napoletane already in the pile)
OUT_OFF, OUT_IMMEDIATE, OUT_SECURED, OUT_CLAIM = 0, 1, 2, 3  # OUT_CLAIM: Scopa's claim_out
# OUT_CALL: Kaszino's out_call="manual": a player calls after its own play (trails included) once its banked and
# sure points reach the target, and only a call ends the game (no decision after a deal)
OUT_CALL = 4

# Rules.same_suit_bonus (Foracio): off, on, or on with a sweep by a same-suit capture scoring its scopa twice
SAME_SUIT_SCORES, SAME_SUIT_DOUBLES_SCOPA = 1, 2

MAX_PLAYERS = 4
MAX_CATEGORIES = 16
_ZEROS = np.zeros(52, dtype=np.int64)


class Rules(NamedTuple):
    """Compiled rules. Every field is an int64 scalar or an int64 array, so all variants share one compiled
    signature; a variant sets the fields it uses and leaves the others at their neutral defaults."""

    variant: int  # variant id (SCOPA, KASZINO, FORACIO, SKOPA, SCOPONE, ESCOBA): picks the game's scoring
    players: int
    n_sides: int
    side_of: np.ndarray  # int64[4]: seat -> side
    pack: int  # mask of the cards in play
    hand_size: int  # cards per hand per round
    table_size: int  # cards dealt face up at the start of a deal
    target: int
    forced_capture: int  # FORCED_*
    n_categories: int
    max_moves: int  # size of the legal-move buffer this variant can need
    card_weight: np.ndarray  # int64[52]: point value of a card for heuristics (greedy tie-break)
    turns: int = TURNS_ONE_CARD  # TURNS_*: the turn structure of the deal loop and of the move generator
    sum_mask: int = 0  # cards that take part in sum captures (capture value > 0)
    value_by_rank: int = 0  # capture value of rank r in bits 4(r-1)..4(r-1)+3 (a scalar: no array in the hot loop)
    rank_only: int = 0  # cards that capture, and are captured, by equal rank only (court cards)
    single_card_priority: int = 0  # 0/1: an equal single card must be taken before any sum
    sweep_points: int = 0  # points of a counted sweep (sweep_mode 0)
    sweep_mode: int = 0  # 0: sweep_points; 1: the capturing card's value from sweep_value_by_rank (Foracio)
    sweep_value_by_rank: int = 0  # packed like value_by_rank
    last_play_sweep: int = 1  # 0/1: does a sweep with the deal's last card count
    redeal_kings: int = 0  # 0 = off, k = redeal when k or more kings are among the initial table cards
    primiera: int = 0  # Scopa: 0 = points table, 1 = suit by suit
    napola: int = 0  # Scopa: 0/1
    primiera_value: np.ndarray = _ZEROS  # int64[52]: Scopa primiera points of each card
    primiera_order: int = 0  # the ranks with primiera points, most first: rank + 1 in nibble k (``primiera_order``)
    ace_sweeps: int = 0  # Foracio, Scopone ace_takes_all: a played ace takes the whole table; 1: no sweep (but see
    # ace_scopa), 2: its sweep counts (Foracio ace_sweep_is_scopa, ACE_SWEEP_SCORES)
    ace_on_empty: int = ACE_CHOICE  # Foracio, Scopone: ACE_*
    ace_single_ordinary: int = 0  # Scopone: an ace taking exactly one table ace is an ordinary capture (may sweep)
    ace_scopa: int = 0  # Scopone: an ace take-all that empties the table counts as a sweep
    ace_on_ace: int = 0  # Scopone: 1 = with an ace on the table, a played ace takes one table ace only
    ace_first_play: int = ACE_FIRST_FREE  # Scopone: ACE_FIRST_*
    sum_fewest: int = 0  # Scopa, Scopone sum_choice="fewest": only a card's captures with the fewest cards are legal
    re_bello: int = 0  # Scopa, Scopone: the king of coins scores 1 (category ``re_bello``)
    same_suit_bonus: int = 0  # Foracio: a same-suit sum capture scores the capturing card's value at once; 2: and
    # a sweep made by it scores its scopa twice (same_suit_scopa_total="3v")
    spade_majority: int = 0  # Foracio: the "spade" element is 7+ spades instead of the 7 of spades
    all_five_bonus: int = 6  # Foracio: points for winning all five fixed elements
    mid_deal_out: int = 0  # a side whose banked + secured points reach the target wins at once (OUT_*)
    last_capture_breaks_tie: int = 0  # Foracio: both sides past the target after a deal: last capturer wins
    clubs_tie_each: int = 0  # Skopa, 3 players: sides tied for most clubs score 1 each
    max_sum: int = 0  # Kaszino: largest value total of an exchange (0 = no cap)
    max_hand_cards: int = 0  # Kaszino: most hand cards in one exchange (0 = any)
    after_tabla_double: int = 0  # Kaszino: after a tabla the opponent trails then moves again
    opening_tabla_points: int = 1  # Kaszino: tabla with the deal's first move taking the initial table
    last_round_open: int = 0  # Kaszino: both hands public in the deal's last round
    round_leader: int = 0  # Kaszino: LEADER_* (who draws first and leads after both hands are empty)
    opening_tabla_each_round: int = 0  # Kaszino: the first move after every draw can score opening_tabla_points
    own_trail_tabla: int = 1  # Kaszino: 0/1: does a tabla that takes only the mover's own trails count
    residue_no_capture: int = RESIDUE_NOBODY  # Kaszino: RESIDUE_*: who takes the table when nobody captured
    # Kaszino's deal points (K12): cards_target+ cards, count_suit_target+ spades, each ace, 2S, 10D; sweep_points
    # is the tabla's
    points_cards: int = 0
    points_spades: int = 0
    points_ace: int = 0
    points_2s: int = 0
    points_10d: int = 0
    first_dealer_fixed: int = 0  # 0/1: seat 0 deals the first deal (else drawn from the deal stream)
    # Escoba (RULES.md Part C section 8)
    sum_to: int = 0  # 0: a card takes sets summing to its value; 15 (Escoba): sets summing to 15 minus its value
    opening: int = 0  # Escoba's opening take of the initial table: 0 none, 1 by the dealer, 2 by the first player
    sevens_rule: int = 0  # Escoba's sevens point: 0 most sevens, 1 ties broken by sixes/aces/fives, 2 primiera
    majority_tie_each: int = 0  # Escoba: a tie for a majority scores 1 to each tied side
    all_bonus: int = 0  # Escoba: all ten coins, all four sevens score 2
    dealer_step: int = 1  # seats the deal passes on after each deal (1: to the next seat, 0: the dealer stays)
    court_takes_all: int = 0  # 0/1: a rank-only card takes every table card of its rank in one move
    small_card: int = 4  # Skopa: the card of the "two_clubs" category (the 2 of clubs, or the ace of spades)
    countout: int = 0  # Scopa: a tie at the top past the target is settled by Parlett's count-out
    # For heuristics: a side holding ``cards_target`` cards has settled the cards category; ``count_suit`` (or
    # -1) is the suit whose count scores (coins, spades, clubs), settled at ``count_suit_target`` cards. Kaszino's
    # scoring reads the two targets as its thresholds.
    cards_target: int = 99
    count_suit: int = -1
    count_suit_target: int = 99
    # Internal, never a rule key (so never in a run's rules, traces or rows): seat s is dealt, in every round of
    # every deal, the hand the shuffle put for seat s - deal_rotation (``deal.deal_hands``); the table and the
    # stock keep their cards. ``analysis.mirror`` replays games with it; 0 in every run.
    deal_rotation: int = 0
    # Foracio no_scopa_rule="final_capture_if_in_last_round" (F8): a sweep made in the deal's last round (the last
    # ``players`` plays) counts toward no declaration, and scores no scopa if no capture follows it in the deal
    last_capture_no_scopa: int = 0
    multi_group: int = 0  # Skopa multi_group_capture: a card takes a largest union of disjoint groups (0/1)


@dataclass(frozen=True)
class RuleKey:
    """One canonical rule key of RULES.md Part A.3."""

    name: str
    default: int | bool | str
    doc: str
    choices: tuple[Any, ...] | None = None
    min: int | None = None
    max: int | None = None

    def parse(self, raw: object) -> int | bool | str:
        """Validate a raw value (a CLI string or a Python value) into the key's type."""
        kind = type(self.default)
        if isinstance(raw, str) and not raw.strip():
            raise ConfigError(f"rule {self.name}: empty value (values: {self.describe_values()})")
        if kind is bool:
            value = _parse_bool(self.name, raw)
        elif kind is int:
            value = _parse_int(self.name, raw)
        else:
            value = str(raw).strip()
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(_show(c) for c in self.choices)
            value_text = shown(_show(raw), quote=False)
            raise ConfigError(f"rule {self.name}: {value_text} is not allowed (choose one of: {allowed})")
        if self.min is not None and value < self.min:
            raise ConfigError(f"rule {self.name}: {shown(value)} is below the minimum {self.min}")
        if self.max is not None and value > self.max:
            raise ConfigError(f"rule {self.name}: {shown(value)} is above the maximum {self.max}")
        return value

    def describe_values(self) -> str:
        """Human summary of the allowed values."""
        if self.choices is not None:
            return " | ".join(_show(c) for c in self.choices)
        if type(self.default) is bool:
            return "true | false"
        return f"integer {self.min}..{self.max}"


def _show(v: object) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def _parse_bool(name: str, raw: object) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("true", "1", "yes", "on"):
        return True
    if text in ("false", "0", "no", "off"):
        return False
    raise ConfigError(f"rule {name}: expected true or false, got {shown(raw)}")


def _parse_int(name: str, raw: object) -> int:
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    text = str(raw).strip() if isinstance(raw, str) else ""
    # ASCII digits only: int() would also take "1_000" and other scripts' digits, and spend long on huge strings
    if not re.fullmatch(r"[+-]?[0-9]{1,18}", text):
        raise ConfigError(f"rule {name}: expected an integer, got {shown(raw)}")
    return int(text)


@dataclass(frozen=True)
class HeuristicWeights:
    """What a game tells the point policies (``points``, ``defensive``, ``lookahead``, ``mc`` rollouts) about its
    cards: each weight in deal points (``simcore.policies.weights`` says how they are used and measured).

    ``defaults``: the game's own weights (``hold``, ``card`` and its scoring cards and suit), users override any;
    ``meanings``: what each of them means in this game (``scopasim policies``); ``card_points(weights, rules,
    card)``: points a card is worth to the side that takes it; ``suit_weight(weights, rules)``: points per card
    of the suit whose count scores (0 when no suit count scores under ``rules``); ``under_rules(weights,
    rules)``: the weights a rule set makes of the given ones (a game whose rule keys set its points scales its
    weights with them; None: the weights as given), applied before the two others; ``searchers``: the game's own
    defaults of the searching policies' parameters (policy name -> {key: value}, e.g. mc's rollout), measured in
    that game, over the defaults every game shares (``simcore.policies``).
    """

    defaults: Mapping[str, float]
    meanings: Mapping[str, str]
    card_points: Callable[[Mapping[str, float], Mapping[str, Any], int], float]
    suit_weight: Callable[[Mapping[str, float], Mapping[str, Any]], float]
    under_rules: Callable[[Mapping[str, float], Mapping[str, Any]], Mapping[str, float]] | None = None
    searchers: Mapping[str, Mapping[str, float]] = field(default_factory=dict)


@dataclass(frozen=True)
class PartBName:
    """A rule key under the name RULES.md Part B gives it (``primiera_method`` for Part A's ``primiera``), with
    Part B's spellings of its values (``suit_by_suit`` for ``suits``); other values pass through unchanged."""

    name: str
    key: str
    values: Mapping[str, str] = field(default_factory=dict)

    def value(self, raw: object) -> object:
        return self.values.get(str(raw).strip().lower(), raw)


@dataclass(frozen=True)
class VariantSpec:
    """A game of the family: its rule keys, scoring categories and compiler to ``Rules``."""

    name: str
    title: str
    seed_text: str
    keys: tuple[RuleKey, ...]
    categories: tuple[str, ...]
    compile_rules: Callable[[Mapping[str, Any]], Rules]
    rules_version: str = "1"
    declare_info: Callable[[Mapping[str, Any]], GameInfo] | None = None  # the game's bounds for a rule set
    weights: HeuristicWeights | None = None  # its cards' worth to the point policies
    # dealt material whose difference between seats has mean zero by symmetry: (name, card mask) pairs, the
    # control variates of the first player's advantage (analysis.control)
    controls: tuple[tuple[str, int], ...] = ()
    # (category, boolean rule key): a category that exists only while its key is on, after ``categories`` in this
    # order (Scopa's ``re_bello``: adding it always would change every default Scopa row and column)
    optional_categories: tuple[tuple[str, str], ...] = ()
    # how many stakes a game won in its first deal is worth under a resolved rule set (Kaszinó's
    # ``stake_multiplier``, K13): other than 1, the games table gets a ``stake`` column (that many for a game of
    # one deal, else 1), absent otherwise, so default runs keep their columns
    first_deal_stake: Callable[[Mapping[str, Any]], int] | None = None
    # RULES.md Part B's names of Part A keys (:class:`PartBName`): accepted as rule keys, resolved to the canonical
    # key and value, so a run records one spelling
    part_b_names: tuple[PartBName, ...] = ()

    def categories_for(self, resolved: Mapping[str, Any]) -> tuple[str, ...]:
        """The scoring categories of a resolved rule set: ``categories``, then the optional ones switched on."""
        return self.categories + tuple(cat for cat, key in self.optional_categories if resolved.get(key))

    def key(self, name: str) -> RuleKey:
        for k in self.keys:
            if k.name == name:
                return k
        alias = self.part_b_name(name)
        if alias is not None:
            return self.key(alias.key)
        known = ", ".join(k.name for k in self.keys)
        raise ConfigError(f"unknown rule key {shown(name)} for {self.name} (known keys: {known})")

    def part_b_name(self, name: str) -> PartBName | None:
        return next((alias for alias in self.part_b_names if alias.name == name), None)

    def defaults(self) -> dict[str, Any]:
        return {k.name: k.default for k in self.keys}

    def resolve(self, overrides: Mapping[str, object] | None = None) -> dict[str, Any]:
        """Defaults updated by ``overrides``, every value validated; the canonical resolved rule set."""
        resolved = self.defaults()
        given: dict[str, str] = {}  # canonical key -> the name it was given under
        for name, raw in (overrides or {}).items():
            alias = self.part_b_name(name)
            key = alias.key if alias is not None else name
            if key in given:
                raise ConfigError(f"rule key {key} given twice for {self.name}: as {given[key]} and as {name}")
            given[key] = name
            resolved[key] = self.key(key).parse(alias.value(raw) if alias is not None else raw)
        return resolved

    def compile(self, resolved: Mapping[str, Any]) -> Rules:
        """Compile a resolved rule set (from :meth:`resolve`) for the kernels."""
        return self.compile_rules(resolved)

    def game_info(self, resolved: Mapping[str, Any]) -> GameInfo:
        """The bounds this game declares for a resolved rule set (from :meth:`resolve`)."""
        if self.declare_info is None:
            raise ConfigError(f"variant {self.name} declares no bounds (VariantSpec.declare_info)")
        return self.declare_info(resolved)

    def sides(self, players: int) -> list[list[int]]:
        """Seats of each side: partners opposite with 4 players, otherwise one seat per side."""
        if players == 4:
            return [[0, 2], [1, 3]]
        return [[s] for s in range(players)]


def pack_values(value_of_rank: Mapping[int, int]) -> int:
    """``Rules.value_by_rank`` from {rank: capture value}: 4 bits per rank, values 0..15."""
    packed = 0
    for rank, value in value_of_rank.items():
        packed |= value << (4 * (rank - 1))
    return packed


def primiera_order(primiera_value: np.ndarray) -> int:
    """``Rules.primiera_order`` of a primiera table: the ranks whose cards score, most points first, rank + 1 in
    nibble k. ``scoring.primiera_total`` walks it to find each suit's best card (the first rank that holds the suit),
    which needs every card of a rank to score the same: a table of another shape is refused here."""
    by_rank = np.asarray(primiera_value, dtype=np.int64).reshape(13, 4)
    if (by_rank != by_rank[:, :1]).any():
        raise ValueError("a primiera table must give the four cards of a rank the same points")
    ranks = sorted((r for r in range(13) if by_rank[r, 0] > 0), key=lambda r: -int(by_rank[r, 0]))
    return sum((r + 1) << (4 * k) for k, r in enumerate(ranks))


def side_array(players: int) -> np.ndarray:
    """seat -> side, as the int64[4] ``Rules.side_of``."""
    return np.array([s % 2 if players == 4 else s for s in range(MAX_PLAYERS)], dtype=np.int64)


# ---------------------------------------------------------------------------------------- declared bounds


@dataclass(frozen=True)
class GameInfo:
    """What a game promises about every game it plays under one rule set, OpenSpiel's ``GameInfo`` in spirit.

    Every bound is a proven upper bound derived from the rules (each game's module says how), not a figure
    observed in simulations; several are far from attained. ``tests/test_conformance.py`` plays every
    registered game and checks its traces and output rows against them. Points are never negative.
    """

    players: int
    sides: int
    pack_cards: int  # cards in the pack
    max_plies: int  # most ``play`` events in one deal
    max_hand: int  # most cards in one hand
    max_moves: int  # most legal moves in one position
    max_table: int  # most cards on the table when a player is to move
    max_sweeps: int  # most counted sweeps (``sweep: true`` plays) of one side in one deal
    max_points: Mapping[str, int]  # category -> most points one side scores in one deal
    max_deal_total: int  # most points one side scores in one deal, all categories together
    immediate: tuple[str, ...]  # categories scored at once by ``play`` events (their ``points``)
    mid_deal_out: bool  # a side can win in the middle of a deal (an ``out`` event)
    # When several sides reach the target at the end of a deal: "top" = the unique top total wins (a tie at the
    # top plays another deal); "last_capture" = the side that made the deal's last capture wins; "countout" = as
    # "top", but a tie at the top is settled by counting the deal out (Scopa's tie_break), or plays on; "call" =
    # nobody wins after a deal, only a call in the middle of one ends the game (Kaszino's out_call="manual").
    past_target: str
    max_deals: int | None = None  # most deals of one game; None = no bound (ties at the top play on)
    # a mid-deal end is a claim made right after the claimant's own play, which another side that has reached the
    # target without the move to claim cannot prevent (Scopa's claim_out; Kaszino's out_call="manual")
    mid_deal_claim: bool = False


def subset_sum_counts(values: Iterable[int], most: int) -> list[int]:
    """``counts[s]`` = how many sets of cards with these capture values (one value per card) add up to ``s``,
    for s = 0..most: the coefficients of prod (1 + x^v) up to x^most."""
    counts = [1] + [0] * most
    for v in values:
        for s in range(most, v - 1, -1):
            counts[s] += counts[s - v]
    return counts


def without_card(counts: list[int], value: int) -> list[int]:
    """``counts`` of :func:`subset_sum_counts` with one card of ``value`` taken out (divide by 1 + x^value)."""
    out = list(counts)
    for s in range(value, len(out)):
        out[s] -= out[s - value]
    return out


def card_moves_bound(captures: int, forced: str) -> int:
    """Most legal moves of one hand card that has at most ``captures`` captures.

    "none": every capture plus the trail; "card" and "player": its captures, or its trail when it has none (under
    "player" a hand with a capture has only captures, so a card's share is never above this either).
    """
    return captures + 1 if forced == "none" else max(captures, 1)


def hand_moves_bound(card_bounds: Iterable[int], hand_size: int) -> int:
    """Most legal moves of a hand of at most ``hand_size`` cards: the ``hand_size`` largest per-card bounds, each
    computed against the whole rest of the pack as the table (a real table is a subset of it, and a card's
    captures of a subset of the table are a subset of its captures of the table)."""
    return sum(sorted(card_bounds, reverse=True)[:hand_size])


def most_sweeps(plies: int, side_plies: int, table_starts_empty: bool, last_play_counts: bool) -> int:
    """Most counted sweeps of one side in one deal of ``plies`` plays, ``side_plies`` of them by that side.

    After a sweep the table is empty, so the next play cannot capture a card: no two consecutive plays sweep.
    The first play can sweep only if the deal starts with cards on the table, the last only if the rules count
    it. So at most ceil(n / 2) of the n plays that may sweep, and never more than the side's own plays.
    """
    first = 2 if table_starts_empty else 1
    last = plies if last_play_counts else plies - 1
    return min(side_plies, max(0, (last - first + 2) // 2))


# Skopa's multi_group_capture (``Rules.multi_group``): the search for a card's largest unions of disjoint groups
# (``kernels.captures.append_largest_unions``) runs over the count vectors of the table's smaller-valued sum cards,
# at most 4 of each of 9 ranks (values 1..9): 5**9 states, one bit each, in scratch slots at the end of the move
# space, after the dimensions' ranks and the groups found (two slots each).
MULTI_STATES = 5**9
MULTI_GROUPS = 64  # count vectors of one value total <= 10 (at most 41: the partitions of 10 into parts <= 9)
MULTI_DIMS = 16
MULTI_SCRATCH = MULTI_DIMS + 2 * MULTI_GROUPS + (MULTI_STATES + 63) // 64
