"""One conformance suite for every registered game (``simcore.variants.VARIANTS``, never a hand list).

Each game x each player count it allows x its defaults and every non-default value of each rule key with a
small finite set of values (integer keys such as ``target`` are left to the game's own tests) x two seatings
(all random; greedy and random alternating) is simulated through ``simcore.api`` into a run folder, and a few
of the same games are traced. The same invariants are checked for every game, against the bounds the game
declares (``VariantSpec.game_info``, ``simcore.variants.base.GameInfo``):

* traces: every card dealt once per deal, from the pack; each play legal by the game's reference engine
  (``simcore.reference.<game>.legal_moves``) in the position the trace reached, with at most ``max_moves``
  legal moves and ``max_table`` table cards; hands, table and side piles partition the dealt cards at every
  deal's end (the whole pack when the deal was played out); at most ``max_plies`` plays and ``max_sweeps``
  sweeps a side per deal; immediate points add up to the immediate categories; partners' captures make one
  side pile, and the side with more cards never scores fewer card points; totals are the sums of deal points;
  the game ends exactly when the target rule says, and the traced games are the simulated rows;
* output rows (every game): each category within its bound, ``points`` its sum, ``total`` the running sum,
  the winner consistent with the totals, the target and ``past_target``; mid-deal ends only where declared.

A game without a reference module (or one without ``legal_moves``) is checked against the kernel's own
``simcore.engine.legal_moves`` instead, which still catches an inconsistent trace but not a wrong rule.
"""

from __future__ import annotations

import importlib
import operator
import random
from collections.abc import Callable
from functools import reduce
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest

from simcore import api, engine
from simcore.cards import cards_of, format_mask, mask_of, parse_card
from simcore.config import RunConfig
from simcore.variants import VARIANTS, VariantSpec
from simcore.variants.base import GameInfo, RuleKey

GAMES = 200  # simulated games per seating
TRACED = 5  # of which traced and replayed
SEED = 1111
DECISIONS = ("top", "last_capture", "countout", "call")

Moves = Callable[[int, int], set[tuple[int, int]]]  # (hand mask, table mask) -> legal (played mask, taken mask)


def player_counts(spec: VariantSpec) -> tuple[int, ...]:
    return tuple(spec.key("players").choices or (spec.key("players").default,))


def finite_values(key: RuleKey) -> tuple[Any, ...]:
    """The values of a key with a small finite set of them (choices or a boolean), else none."""
    if key.choices is not None:
        return tuple(key.choices)
    return (False, True) if isinstance(key.default, bool) else ()


def rule_sets(spec: VariantSpec) -> list[dict[str, Any]]:
    """The defaults, then each non-default value of each finite rule key on its own."""
    sets: list[dict[str, Any]] = [{}]
    for key in spec.keys:
        if key.name != "players":
            sets += [{key.name: value} for value in finite_values(key) if value != key.default]
    return sets


CASES = [
    (name, players, rules)
    for name, spec in VARIANTS.items()
    for players in player_counts(spec)
    for rules in rule_sets(spec)
]


def case_id(case: tuple[str, int, dict[str, Any]]) -> str:
    name, players, rules = case
    return "-".join([name, f"{players}p", *([f"{k}={v}" for k, v in rules.items()] or ["defaults"])])


def seatings(players: int) -> list[list[str]]:
    return [["random"] * players, ["greedy" if seat % 2 == 0 else "random" for seat in range(players)]]


# ------------------------------------------------------------------------------------------ legal moves


def reference_moves(config: RunConfig) -> Moves:
    """Legal moves by the game's reference engine, as masks (a reference may give the played card as an id)."""
    try:
        legal = importlib.import_module(f"simcore.reference.{config.variant}").legal_moves
    except (ModuleNotFoundError, AttributeError):
        rules = config.compiled_rules()
        return lambda hand, table: set(engine.legal_moves(rules, hand, table))
    resolved = dict(config.rules)
    probe = max(cards_of(config.compiled_rules().pack))  # a king: never an ace, and its id is not a mask
    by_id = legal(resolved, 1 << probe, 0)[0][0] == probe

    def moves(hand: int, table: int) -> set[tuple[int, int]]:
        found = legal(resolved, hand, table)
        return {(1 << play if by_id else play, take) for play, take in found}

    return moves


# ------------------------------------------------------------------------------------------ decisions


def decided(info: GameInfo, totals: list[int], target: int, last_capture_side: int | None) -> int | None:
    """The winning side after a played-out deal, or None for another deal (RULES.md A.5)."""
    over = [side for side, total in enumerate(totals) if total >= target]
    if not over or info.past_target == "call":  # "call": only a call in the middle of a deal ends the game
        return None
    if info.past_target == "last_capture":
        if len(over) == 1:
            return over[0]
        if last_capture_side is not None:
            return last_capture_side
    top = max(totals)
    return totals.index(top) if totals.count(top) == 1 else None


def may_go_on(info: GameInfo, totals: list[int], target: int) -> bool:
    """Whether a deal ending at ``totals`` can leave the game undecided (the last capture is not known here)."""
    over = [side for side, total in enumerate(totals) if total >= target]
    if info.past_target == "call":
        return True
    if info.past_target == "last_capture":
        return len(over) != 1
    return not over or totals.count(max(totals)) > 1


def check_mid_deal_end(info: GameInfo, totals: list[int], target: int, winner: int) -> None:
    assert info.mid_deal_out, "a mid-deal end in a game whose rules declare none"
    assert totals[winner] >= target, f"mid-deal winner at {totals[winner]}, below the target {target}"
    others = [t for side, t in enumerate(totals) if side != winner]
    if not info.mid_deal_claim:  # a claim: the first correct one wins, whoever else had reached the target
        assert all(t < target for t in others), f"mid-deal end at {totals}: another side had reached {target} before"


# ------------------------------------------------------------------------------------------ trace replay


class Replay:
    """Walks one trace, moving cards between hands, table and side piles, and checks each event."""

    def __init__(self, trace: dict[str, Any], config: RunConfig, info: GameInfo, moves: Moves) -> None:
        self.trace, self.config, self.info, self.moves = trace, config, info, moves
        self.sides: list[list[int]] = trace["sides"]
        self.side_of = {seat: side for side, seats in enumerate(self.sides) for seat in seats}
        self.pack = config.compiled_rules().pack
        self.target = int(config.rules["target"])
        self.totals = [0] * len(self.sides)
        self.deals: list[dict[str, Any]] = []  # per scored deal: cards per side pile, for the rows check
        self.out_side: int | None = None
        self.decision: int | None = None  # the winner the last scored deal gives, if any
        self.new_deal()

    def new_deal(self) -> None:
        self.hands = dict.fromkeys(range(self.config.players), 0)
        self.table = 0
        self.piles = [0] * len(self.sides)
        self.dealt = 0
        self.plies = 0
        self.sweeps = [0] * len(self.sides)
        self.play_points = [0] * len(self.sides)
        self.last_capture_side: int | None = None

    def deal_cards(self, cards: list[str]) -> int:
        mask = mask_of(parse_card(c) for c in cards)
        assert len(cards) == bin(mask).count("1"), f"a card dealt twice in one event: {cards}"
        assert mask & ~self.pack == 0, f"cards outside the pack: {format_mask(mask & ~self.pack)}"
        assert mask & self.dealt == 0, f"cards dealt twice in one deal: {format_mask(mask & self.dealt)}"
        self.dealt |= mask
        return mask

    def run(self) -> None:
        assert self.trace["sides"] == self.config.spec.sides(self.config.players)
        if self.config.players == 4:
            assert self.sides == [[0, 2], [1, 3]], "4 players play as two partnerships"
        for index, event in enumerate(self.trace["events"]):
            try:
                getattr(self, "on_" + event["type"])(event)
            except AssertionError as exc:
                raise AssertionError(f"game {self.trace['game']}, event {index} {event}: {exc}") from None
        assert self.trace["events"][-1]["type"] == "end", "the trace does not end with an end event"

    def on_deal(self, event: dict[str, Any]) -> None:
        assert self.decision is None, f"the game went on after a deal that decided it ({self.totals})"
        self.new_deal()

    def on_redeal(self, event: dict[str, Any]) -> None:
        assert self.plies == 0, "a redeal after play has started"

    def on_hand(self, event: dict[str, Any]) -> None:
        self.hands[event["seat"]] |= self.deal_cards(event["cards"])
        assert bin(self.hands[event["seat"]]).count("1") <= self.info.max_hand, "a hand above max_hand"

    def on_table(self, event: dict[str, Any]) -> None:
        self.table |= self.deal_cards(event["cards"])

    def on_play(self, event: dict[str, Any]) -> None:
        seat, side = event["seat"], self.side_of[event["seat"]]
        play = mask_of(parse_card(c) for c in event["cards"])
        take = mask_of(parse_card(c) for c in event["take"])
        assert play & ~self.hands[seat] == 0, "plays a card the seat does not hold"
        assert take & ~self.table == 0, "takes a card that is not on the table"
        assert bin(self.table).count("1") <= self.info.max_table, "more table cards than max_table"
        legal = self.moves(self.hands[seat], self.table)
        assert len(legal) <= self.info.max_moves, f"{len(legal)} legal moves, above max_moves"
        kind = event["kind"]
        assert (take != 0) == (kind == "capture"), f"kind {kind} with take {event['take']}"
        move = (play, play if kind == "keep" else take)  # a keep takes the played card itself
        shown = [" ".join([*format_mask(p), "->", *format_mask(t)]) for p, t in sorted(legal)[:6]]
        assert move in legal, f"not a legal move; {len(legal)} legal, the first: {shown}"
        self.hands[seat] &= ~play
        if kind == "trail":
            self.table |= play
        else:
            self.table &= ~take
            self.piles[side] |= play | take
            self.last_capture_side = side
        if event["sweep"]:
            assert kind == "capture" and self.table == 0, "a sweep that does not empty the table"
            self.sweeps[side] += 1
        assert event["points"] >= 0
        self.play_points[side] += event["points"]
        self.plies += 1

    def on_opening(self, event: dict[str, Any]) -> None:
        """Escoba's opening take: the whole initial table, before any play, to the seat's side, as immediate
        points (escobas, counted among the side's sweeps of the deal rows but not of the trace's plays)."""
        cards = mask_of(parse_card(c) for c in event["cards"])
        assert self.plies == 0 and cards == self.table and cards, "an opening that is not the initial table"
        side = self.side_of[event["seat"]]
        self.piles[side] |= cards
        self.table = 0
        self.last_capture_side = side
        assert event["points"] in (1, 2)
        self.play_points[side] += event["points"]

    def on_residue(self, event: dict[str, Any]) -> None:
        cards = mask_of(parse_card(c) for c in event["cards"])
        assert cards == self.table and cards, "the residue is not the whole table"
        assert all(h == 0 for h in self.hands.values()), "a residue before every hand is played out"
        # every game of RULES.md gives the residue to the last capturer, none to a deal without a capture
        assert self.side_of[event["seat"]] == self.last_capture_side, "the residue is not the last capturer's"
        self.piles[self.side_of[event["seat"]]] |= cards
        self.table = 0

    def on_out(self, event: dict[str, Any]) -> None:
        self.out_side = self.side_of[event["seat"]]

    def on_score(self, event: dict[str, Any]) -> None:
        info, categories = self.info, self.config.categories
        assert self.plies <= info.max_plies, f"{self.plies} plays in a deal, above max_plies"
        held = [*self.hands.values(), self.table, *self.piles]
        assert sum(bin(m).count("1") for m in held) == bin(self.dealt).count("1"), "a card in two places"
        assert reduce(operator.or_, held) == self.dealt, "a dealt card is nowhere"
        if self.out_side is None:
            assert self.dealt == self.pack, "a played-out deal that did not deal the whole pack"
            assert all(h == 0 for h in self.hands.values()), "the deal ended with cards in hand"
        assert len(event["points"]) == len(self.sides), "one points object per side (partners score together)"
        counts = [bin(p).count("1") for p in self.piles]
        for side, points in enumerate(event["points"]):
            assert list(points) == list(categories)
            for cat, value in points.items():
                assert 0 <= value <= info.max_points[cat], f"{cat} = {value} outside 0..{info.max_points[cat]}"
            assert sum(points.values()) <= info.max_deal_total
            assert sum(points[c] for c in info.immediate) == self.play_points[side], "immediate points differ"
            assert self.sweeps[side] <= info.max_sweeps, f"{self.sweeps[side]} sweeps, above max_sweeps"
            self.totals[side] += sum(points.values())
        for a in range(len(counts)):
            for b in range(len(counts)):
                if counts[a] >= counts[b]:
                    got_a, got_b = event["points"][a]["cards"], event["points"][b]["cards"]
                    assert got_a >= got_b, f"side piles of {counts} cards but card points {got_a} < {got_b}"
        assert event["totals"] == self.totals, f"totals {event['totals']} != sums of deal points {self.totals}"
        self.deals.append(counts)
        self.decision = decided(info, self.totals, self.target, self.last_capture_side)

    def on_end(self, event: dict[str, Any]) -> None:
        assert event["totals"] == self.totals
        winner = event["winner"]
        if self.out_side is not None:
            assert winner == self.out_side, "the side that went out did not win"
            check_mid_deal_end(self.info, self.totals, self.target, winner)
        elif self.info.past_target == "countout" and self.decision is None:  # a tie at the top, counted out
            top = max(self.totals)
            assert top >= self.target and winner in [s for s, t in enumerate(self.totals) if t == top]
        else:
            assert winner == self.decision, f"winner {winner}, but the totals {self.totals} give {self.decision}"


# ------------------------------------------------------------------------------------------ output rows


def check_rows(config: RunConfig, info: GameInfo, games, deals) -> None:
    """Every game's rows of ``games/`` and ``deals/`` against the declared bounds and the target rule."""
    categories = list(config.categories)
    n_sides = len(config.spec.sides(config.players))
    target = int(config.rules["target"])
    points = deals[categories].to_numpy()
    bounds = np.array([info.max_points[c] for c in categories])
    assert (points >= 0).all() and (points <= bounds).all(), "a category outside its declared bound"
    assert (deals["points"].to_numpy() == points.sum(axis=1)).all()
    assert (deals["points"] <= info.max_deal_total).all()
    assert (deals["sweeps"] <= info.max_sweeps).all() and (deals["sweeps"] >= 0).all()
    taken = deals.groupby(["game", "deal"])["cards_taken"].sum()
    assert (taken <= info.pack_cards).all(), "more cards taken in a deal than the pack holds"
    running = deals.groupby(["game", "side"])["points"].cumsum()
    assert (running == deals["total"]).all(), "a running total that is not the sum of the deal points"
    assert (games["plays"] <= games["deals"] * info.max_plies).all()
    if info.max_deals is not None:
        assert (games["deals"] <= info.max_deals).all()
    if not info.mid_deal_out:
        assert not games["mid_deal"].any()
    by_game = {g: rows for g, rows in deals.groupby("game")}
    for row in games.itertuples():
        rows = by_game[row.game]
        assert rows["deal"].nunique() == row.deals and len(rows) == row.deals * n_sides
        totals = [int(getattr(row, f"total_{s}")) for s in range(n_sides)]
        running = rows["total"].to_numpy().reshape(row.deals, n_sides)
        assert running[-1].tolist() == totals
        for before in running[:-1]:
            assert may_go_on(info, before.tolist(), target), f"game {row.game} went on after {before.tolist()}"
        if row.mid_deal:
            check_mid_deal_end(info, totals, target, row.winner)
            continue
        over = [side for side, t in enumerate(totals) if t >= target]
        assert row.winner in over, f"game {row.game}: winner {row.winner} below the target at {totals}"
        top = [side for side, t in enumerate(totals) if t == max(totals)]
        if info.past_target == "countout" and len(top) > 1:  # the count-out names one of the tied sides
            assert row.winner in top, f"game {row.game}: winner {row.winner} not tied at the top of {totals}"
        elif info.past_target in ("top", "countout") or len(over) == 1:
            assert decided(info, totals, target, None) == row.winner, f"game {row.game}: {totals}"


# ------------------------------------------------------------------------------------------ the tests


def play(config: RunConfig, folder: Path):
    api.simulate(config, folder, threads=1)
    return pq.read_table(folder / "games").to_pandas(), pq.read_table(folder / "deals").to_pandas()


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_every_game_keeps_its_invariants(case, tmp_path):
    name, players, rules = case
    for seats in seatings(players):
        config = RunConfig.create(name, policies=seats, rules={**rules, "players": players}, games=GAMES, seed=SEED)
        info = config.spec.game_info(config.rules)
        assert config.compiled_rules().max_moves >= info.max_moves, "the kernels' move buffer is below max_moves"
        games, deals = play(config, tmp_path / "-".join(seats))
        check_rows(config, info, games, deals)
        moves = reference_moves(config)
        for trace in api.trace(config, range(TRACED)):
            replay = Replay(trace, config, info, moves)
            replay.run()
            row = games[games["game"] == trace["game"]].iloc[0]
            assert row["winner"] == trace["events"][-1]["winner"] and row["deals"] == len(replay.deals)
            assert row["plays"] == sum(e["type"] == "play" for e in trace["events"])
            taken = deals[deals["game"] == trace["game"]].sort_values(["deal", "side"])["cards_taken"].tolist()
            assert taken == [n for deal in replay.deals for n in deal], "cards_taken is not the side piles' size"


@pytest.mark.parametrize("name", list(VARIANTS))
def test_every_game_declares_its_bounds(name):
    spec = VARIANTS[name]
    assert spec.declare_info is not None, f"{name} declares no GameInfo (VariantSpec.declare_info)"
    for players in player_counts(spec):
        for rules in rule_sets(spec):
            resolved = spec.resolve({**rules, "players": players})
            info = spec.game_info(resolved)
            assert isinstance(info, GameInfo)
            assert info.players == players and info.sides == len(spec.sides(players))
            categories = spec.categories_for(resolved)
            assert list(info.max_points) == list(categories), "a bound for each category, in order"
            assert set(info.immediate) <= set(categories)
            assert info.past_target in DECISIONS
            assert info.max_deal_total <= sum(info.max_points.values())
            assert bin(spec.compile(resolved).pack).count("1") == info.pack_cards
            assert min(info.max_plies, info.max_hand, info.max_moves, info.max_table) >= 1


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_card_masks_of_moves_hold_whole_ranks(name):
    """The quick policies count and score a hand rank by rank (``simcore.policies.quick``): each card mask the
    moves depend on holds all the pack's cards of a rank or none of them, under every rule set."""
    spec = VARIANTS[name]
    for players in player_counts(spec):
        for rules in rule_sets(spec):
            compiled = spec.compile(spec.resolve({**rules, "players": players}))
            for mask in (compiled.sum_mask, compiled.rank_only):
                for rank in range(16):
                    nibble, of_pack = (mask >> 4 * rank) & 15, (compiled.pack >> 4 * rank) & 15
                    assert nibble & ~of_pack == 0 and nibble in (0, of_pack), (name, players, rules, rank)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_max_moves_holds_on_the_largest_tables(name):
    """Random full hands against the whole rest of the pack (the largest table there is), by the reference."""
    spec = VARIANTS[name]
    rng = random.Random(7)
    for players in player_counts(spec):
        for rules in ({}, {"forced_capture": "none"}):
            config = RunConfig.create(name, policies=["random"], rules={**rules, "players": players}, games=1)
            info = spec.game_info(config.rules)
            moves = reference_moves(config)
            pack = cards_of(config.compiled_rules().pack)
            for _ in range(3):
                hand = mask_of(rng.sample(pack, info.max_hand))
                count = len(moves(hand, config.compiled_rules().pack & ~hand))
                assert 0 < count <= info.max_moves, f"{format_mask(hand)}: {count} moves, above {info.max_moves}"
