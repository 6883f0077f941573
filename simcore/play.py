"""Play a game move by move from Python: ``from simcore.play import Game``.

>>> g = Game("scopa", seed=7, game=3, policies=["greedy", "random"])
>>> while not g.over:
...     if g.seat == 0:
...         g.play(g.suggest())          # ask seat 0's policy, play its move (or choose any index of g.moves())
...     else:
...         g.step()                     # the seat's own policy moves
>>> g.totals, g.winner, g.trace()["events"][-1]

The game is driven by the very kernels ``simulate`` runs, through the stop the deal loop makes for a Monte Carlo
seat: every seat is given the id ``POLICY_MC`` for the deal loop, so it stops at each decision with the legal
moves and the seat's view prepared in the decision space (``DEAL_NEED``) and resumes with the index chosen here.
The seat's own policy is asked by the policies' own kernels (``choose``, ``choose_mc``), with the seat's random
stream, so a game whose every move is ``step()`` is exactly game ``game`` of a run with that seed and those
policies (``tests/test_game_api.py`` compares the rows and the traces). Python speed per move; exact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simcore.cards import format_mask
from simcore.config import RunConfig
from simcore.errors import ConfigError

DEAL_SLOTS = 64  # longest game a Game plays (simulate's retry grows its buffer; a Game stops with an error)


@dataclass(frozen=True)
class Move:
    """A legal move: its index (what ``play`` takes), the cards played and taken (masks and names)."""

    index: int
    play: int
    take: int

    @property
    def cards(self) -> list[str]:
        return format_mask(self.play)

    @property
    def taken(self) -> list[str]:
        return format_mask(self.take)

    def __str__(self) -> str:
        took = " takes " + " ".join(self.taken) if self.take else " (trail)"
        return f"{self.index}: {' '.join(self.cards)}{took}"


class Game:
    """One game of a variant, played step by step (see the module docstring).

    ``policies``: one label per seat, or one for every seat (built-in names, ``name:k=v``, or user policy files
    ``file.py:function``): what ``step`` and ``suggest`` ask. ``seed`` and ``game`` select the deals, as in a run.
    """

    def __init__(
        self,
        variant: str = "scopa",
        rules: Mapping[str, object] | None = None,
        seed: int = 0,
        game: int = 0,
        policies: Sequence[str] = ("greedy",),
        players: int | None = None,
    ):
        config = RunConfig.create(variant, policies=policies, rules=rules, players=players, games=game + 1, seed=seed)
        self._setup(config, game)

    @classmethod
    def from_config(cls, config: RunConfig, game: int) -> Game:
        """Game ``game`` of a run's config (its policies, rules and seed)."""
        self = cls.__new__(cls)
        self._setup(config, game)
        return self

    # ------------------------------------------------------------------ state machine over the kernels

    def _setup(self, config: RunConfig, game: int) -> None:
        from simcore import engine
        from simcore.kernels.game import draw_first_dealer, fill_rule_info, new_scratch
        from simcore.kernels.workspace import DEAL_RNG, FAULT, RNG, STREAM_KEY, SUBSTREAM, TOTALS
        from simcore.policies import policy_arrays
        from simcore.policies.kernels import POLICY_MC
        from simcore.rng import stream_state

        self.config = config
        self.index = int(game)
        self.rules = config.compiled_rules()
        self._choices = config.policy_choices()
        self._ids, self._params = policy_arrays(self._choices, config.rules)
        self._stops = np.full(len(self._ids), POLICY_MC, np.int64)  # the deal loop stops at every decision
        self._out = engine.allocate(self.rules, 1, DEAL_SLOTS, True)
        s = self._s = new_scratch(self.rules)
        gs, ps, players = s.gs, s.ps, self.rules.players
        gs[DEAL_RNG] = stream_state(config.seed, game, 0)
        for seat in range(players):
            ps[RNG + 1 + seat] = stream_state(config.seed, game, 1 + seat)
            ps[STREAM_KEY + seat] = ps[RNG + 1 + seat]
            ps[SUBSTREAM + seat] = 0
        gs[TOTALS : TOTALS + 4] = 0
        fill_rule_info(ps, self.rules)
        fill_rule_info(s.rollout_ps, self.rules)
        self._first_dealer = int(draw_first_dealer(gs, players, self.rules.first_dealer_fixed))
        ps[FAULT] = 0
        self._ne, self._deals, self._plays, self._redeals = 0, 0, 0, 0
        self._decisions = 0
        self.winner: int | None = None
        self._pending = False
        self._start_deal()

    def _start_deal(self) -> None:
        from simcore.kernels.game import begin_deal, dealer_of

        if self._deals == DEAL_SLOTS:
            raise ConfigError(f"game {self.index}: longer than {DEAL_SLOTS} deals, which a Game does not hold")
        gs = self._s.gs
        self._dealer = int(dealer_of(self.rules, self._first_dealer, self._deals))
        redeals, self._ne = begin_deal(self.rules, gs, self._deals, self._dealer, self._out.events, 0, self._ne)
        self._redeals += int(redeals)
        self._run(-1)

    def _run(self, forced: int) -> None:
        """Run the deal loop on until the next decision, or the end of the deal (then score it, go on)."""
        from simcore.engine import run_features
        from simcore.kernels.game import DEAL_NEED, run_deal

        s, features = self._s, run_features(self.rules, self._stops)  # the kernels a run with mc seats uses
        status, self._ne = run_deal(
            self.rules, self._stops, self._params, s.gs, s.ps, self._out.events, 0, self._ne, forced, *features
        )
        if status == DEAL_NEED:
            self._pending = True
            return
        self._pending = False
        self._end_deal()

    def _end_deal(self) -> None:
        from simcore import engine
        from simcore.kernels.game import EV_END, EV_SCORE, deal_winner, emit, record_deal
        from simcore.kernels.workspace import DS_LAST, DS_OUT_SIDE, DS_T, FAULT, SWEEP_COUNT, SWEEP_ORDER, TOTALS

        s, out, rules = self._s, self._out, self.rules
        out_side = int(s.gs[DS_OUT_SIDE])
        if s.ps[FAULT] == 0:
            record_deal(0, self._deals, self._dealer, rules, out, s, out_side >= 0)
        if s.ps[FAULT] != 0:
            engine.check_faults(rules, np.array([self.index]), np.array([s.ps[FAULT]]))
        self._ne = emit(out.events, 0, self._ne, EV_SCORE, self._deals, 0, 0, 0, 0, 0)
        self._plays += int(s.gs[DS_T])
        self._deals += 1
        if out_side >= 0:
            winner = out_side
            out.mid_deal[0] = 1
        else:
            last = int(s.gs[DS_LAST])
            last_side = int(rules.side_of[last]) if last >= 0 else -1
            winner = int(deal_winner(rules, s.gs[TOTALS : TOTALS + 4], s.points, last_side,
                                     s.gs[SWEEP_ORDER], s.gs[SWEEP_COUNT]))  # fmt: skip
        if winner < 0:
            self._start_deal()
            return
        self.winner = winner
        self._ne = emit(out.events, 0, self._ne, EV_END, winner, 0, 0, 0, 0, 0)
        out.n_events[0] = self._ne
        out.first_dealer[0], out.winner[0], out.n_deals[0] = self._first_dealer, winner, self._deals
        out.n_plays[0], out.redeals[0] = self._plays, self._redeals
        out.totals[0, :] = s.gs[TOTALS : TOTALS + rules.n_sides]

    # ------------------------------------------------------------------ reading the position

    @property
    def over(self) -> bool:
        return self.winner is not None

    @property
    def seat(self) -> int | None:
        """Seat to move, or None once the game is over."""
        from simcore.kernels.game import VIEW_SEAT

        return int(self._s.ps[VIEW_SEAT]) if self._pending else None

    @property
    def decision(self) -> int:
        """Decisions made so far in this game (the number the next one has, from 0)."""
        return self._decisions

    def view(self) -> dict[str, Any]:
        """The seat to move's view, by name (``simcore.policies.api``; masks as card names)."""
        from simcore.policies import api

        self._need_decision()
        v = self.view_array()
        players, sides = self.rules.players, self.rules.n_sides
        return {
            "version": api.VIEW_VERSION,
            "seat": int(v[api.SEAT]),
            "side": int(v[api.SIDE]),
            "hand": format_mask(int(v[api.HAND])),
            "table": format_mask(int(v[api.TABLE])),
            "seen": format_mask(int(v[api.SEEN])),
            "stock": int(v[api.STOCK]),
            "deal": int(v[api.DEAL]),
            "play": int(v[api.PLAY]),
            "piles": [format_mask(int(v[api.PILES + k])) for k in range(sides)],
            "totals": [int(v[api.TOTALS + k]) for k in range(sides)],
            "open": format_mask(int(v[api.OPEN])),
            "hand_counts": [int(v[api.HAND_COUNTS + k]) for k in range(players)],
            "last_play": bool(v[api.LAST]),
        }

    def view_array(self) -> np.ndarray:
        """The raw view a user policy receives (int64[VIEW_SIZE], a copy)."""
        from simcore.kernels.workspace import VIEW
        from simcore.policies.api import VIEW_SIZE

        return self._s.ps[VIEW : VIEW + VIEW_SIZE].copy()

    def moves(self) -> list[Move]:
        """The legal moves of the seat to move, in the kernels' canonical order."""
        from simcore.kernels.game import VIEW_N_MOVES
        from simcore.kernels.workspace import MOVES

        self._need_decision()
        ps = self._s.ps
        return [Move(i, int(ps[MOVES + 2 * i]), int(ps[MOVES + 2 * i + 1])) for i in range(int(ps[VIEW_N_MOVES]))]

    @property
    def totals(self) -> list[int]:
        """Game totals of every side: banked after each deal (a deal in progress counts once it is scored)."""
        from simcore.kernels.workspace import TOTALS

        return [int(x) for x in self._s.gs[TOTALS : TOTALS + self.rules.n_sides]]

    def trace(self) -> dict[str, Any]:
        """The game's trace (``scopasim-trace/1``), as ``scopasim trace`` writes it: once the game is over."""
        if not self.over:
            raise ConfigError("the trace is written at the end of the game: play it to the end first")
        return self._trace()

    def events_so_far(self) -> list[dict[str, Any]]:
        """The trace events up to now (a game in progress has no ``end`` event): what led to this position."""
        return self._trace()["events"]

    def _trace(self) -> dict[str, Any]:
        from simcore.trace import game_trace

        c, out = self.config, self._out
        if not self.over:
            out.n_events[0] = self._ne
        return game_trace(out, 0, spec=c.spec, rules=dict(c.rules), policies=list(c.policies), seed=c.seed,
                          game=self.index)  # fmt: skip

    # ------------------------------------------------------------------ moving

    def play(self, move: int | Move) -> None:
        """Play legal move ``move`` (an index of ``moves()``, or a ``Move``)."""
        self._need_decision()
        index = move.index if isinstance(move, Move) else int(move)
        n = len(self.moves())
        if not 0 <= index < n:
            raise ConfigError(f"move {index} is not a legal move index (0..{n - 1})")
        self._decisions += 1
        self._run(index)

    def suggest(self, policy: str | None = None, *, consume: bool = True) -> int:
        """The index the seat's policy (or ``policy``, any label) picks here, with the seat's random stream.

        ``consume=False`` leaves every random stream as it was (advice); ``step`` consumes, as a run does.
        """
        from simcore import engine
        from simcore.kernels.game import VIEW_N_MOVES
        from simcore.kernels.workspace import FAULT, FAULT_USER_MOVE, RNG, SUBSTREAM
        from simcore.policies import parse_policy, policy_arrays
        from simcore.policies.kernels import POLICY_MC, POLICY_SEARCH, choose
        from simcore.policies.montecarlo import choose_mc
        from simcore.policies.search import choose_search
        from simcore.policies.usercall import FAULT_VALUE

        self._need_decision()
        s, seat = self._s, self.seat
        assert seat is not None
        ids, params, choice = self._ids, self._params, None
        if policy is not None:
            c = self.config
            choice = parse_policy(policy, c.variant, c.rules, c.sources)
            ids, params = policy_arrays([choice] * len(self._ids), c.rules)
        saved = s.ps[RNG : SUBSTREAM + 4].copy()
        n_moves = int(s.ps[VIEW_N_MOVES])
        if ids[seat] in (POLICY_MC, POLICY_SEARCH):
            features = engine.run_features(self.rules, self._stops)
            by_state = choose_mc if ids[seat] == POLICY_MC else choose_search
            index = int(by_state(self.rules, s, params, seat, self._out.events, *features))
        else:
            index = int(choose(s.ps, ids[seat], params, n_moves, seat))
        fault = int(s.ps[FAULT])
        if fault not in (0, FAULT_USER_MOVE):
            engine.check_faults(self.rules, np.array([self.index]), np.array([fault]))
        if fault == FAULT_USER_MOVE or not 0 <= index < n_moves:
            index = int(s.ps[FAULT_VALUE]) if fault == FAULT_USER_MOVE else index
            s.ps[FAULT] = 0
            s.ps[RNG : SUBSTREAM + 4] = saved
            choice = choice if policy is not None else self._choices[seat]
            label = policy or self.config.policies[seat]
            raise ConfigError(self._illegal(label, index, n_moves, choice, saved, params[seat]))
        if not consume:
            s.ps[RNG : SUBSTREAM + 4] = saved
        return index

    def _illegal(self, label: str, index: int, n_moves: int, choice: Any, saved: np.ndarray, row: np.ndarray) -> str:
        """The one-line error for a policy's illegal index (or exception): where in the game it happened."""
        from simcore import userpolicy
        from simcore.policies import api

        v = self.view_array()
        what = f"returned {index}, not a legal move index (0..{n_moves - 1})"
        if index == userpolicy.RAISED and choice.source is not None:
            arrays = self._arrays(saved, row[: len(choice.params)])
            what = f"raised {userpolicy.raised_message(choice.source, arrays)}"
        return (
            f"policy {label} {what}: game {self.index}, decision {self._decisions} (deal {v[api.DEAL]}, "
            f"play {v[api.PLAY]}, seat {v[api.SEAT]}); see it with scopasim trace --game {self.index}"
        )

    def _arrays(self, saved: np.ndarray, row: np.ndarray) -> tuple:
        """Copies of what the seat's policy received (its stream as it was before the call)."""
        from simcore.kernels.workspace import MOVES, TRAIL_CLASSES, WEIGHT

        ps, seat = self._s.ps, int(self.seat or 0)
        n = len(self.moves())
        rng = saved[1 + seat : 2 + seat].copy()  # ``saved`` is ps[RNG : SUBSTREAM + 4]
        moves = ps[MOVES : MOVES + 2 * n].reshape(n, 2).copy()
        return self.view_array(), ps[WEIGHT:TRAIL_CLASSES].copy(), moves, rng, row.copy()

    def step(self) -> int:
        """Play the seat's own policy's move; returns its index."""
        index = self.suggest()
        self.play(index)
        return index

    def run(self) -> Game:
        """Play the game to its end with the configured policies."""
        while not self.over:
            self.step()
        return self

    def _need_decision(self) -> None:
        if not self._pending:
            raise ConfigError("the game is over: no seat is to move")


def play_game(config: RunConfig, game: int) -> Game:
    """Game ``game`` of ``config`` played to its end through :class:`Game` (what the tests compare with a run)."""
    return Game.from_config(config, game).run()


class PolicyFaultError(ConfigError):
    """A user policy returned an illegal index (or raised): the message names the decision; ``events`` are the
    game's trace events up to it and ``position`` the seat's hand, table and legal moves there, so that
    ``scopasim trace`` can show how the game got there (a trace file would claim a finished game)."""

    def __init__(self, message: str, events: list[dict[str, Any]], position: list[str]):
        super().__init__(message)
        self.events = events
        self.position = position


def explain_fault(config: RunConfig, game: int) -> PolicyFaultError:
    """Which decision of game ``game`` got an illegal index from a user policy (the game replayed here)."""
    g = Game.from_config(config, game)
    try:
        g.run()
    except ConfigError as exc:
        if g.over or not g._pending:
            return PolicyFaultError(str(exc), g.events_so_far(), [])
        view = g.view()
        moves = [f"  {m}" for m in g.moves()]
        position = [
            f"seat {view['seat']} to move, deal {view['deal']}, play {view['play']}",
            f"hand: {' '.join(view['hand']) or '-'}",
            f"table: {' '.join(view['table']) or '-'}",
            f"legal moves ({len(moves)}):",
            *moves,
        ]
        return PolicyFaultError(str(exc), g.events_so_far(), position)
    return PolicyFaultError(f"game {game}: a user policy returned an index that is not a legal move", [], [])
