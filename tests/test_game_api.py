"""``simcore.play.Game``: a game played move by move from Python is exactly the game ``simulate`` plays."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simcore import api
from simcore.cards import parse_mask
from simcore.config import RunConfig
from simcore.errors import ConfigError
from simcore.play import Game, Move, play_game

ROOT = Path(__file__).resolve().parents[1]
GREEDY = f"{ROOT / 'examples' / 'policies' / 'greedy.py'}:greedy"
TEMPERED = f"{ROOT / 'examples' / 'policies' / 'tempered.py'}:tempered"
CASES = [
    ("scopa", ["greedy", "random"], {}),
    ("scopa", ["points", TEMPERED, "lookahead"], {"players": 3}),
    ("skopa", ["defensive", "mc:samples=3"], {}),
    ("foracio", ["random", "careful", "greedy", GREEDY], {}),
    ("scopone", ["lookahead", GREEDY, "mc:samples=2", "random_card"], {"ace_takes_all": True}),
    ("kaszino", ["lookahead", "random"], {}),
    ("escoba", ["lookahead", "mc:samples=2", "careful"], {"players": 3}),
    ("kaszino", ["mc:samples=2,rollout=2", "points"], {"last_round_open": True}),
    (
        "kaszino",
        ["mc:samples=2", "random"],
        {"first_dealer": "fixed", "tabla_by_recapturing_own_trail_counts": False, "points_tabla": 2},
    ),
]


def rows_of(out, row: int, deals: int) -> list[np.ndarray]:
    """The output arrays of one game (deal arrays cut to the run's deal slots; the events apart)."""
    fields = [f for f in out._fields if f not in ("events", "n_events")]
    return [np.asarray(getattr(out, f))[row][:deals] if getattr(out, f).ndim > 1 else getattr(out, f)[row]
            for f in fields]  # fmt: skip


@pytest.mark.parametrize(("variant", "policies", "rules"), CASES)
def test_stepping_every_game_gives_the_run_rows_and_trace(variant, policies, rules):
    for seed in (0, 9):
        config = RunConfig.create(variant, policies=policies, rules=rules, games=5, seed=seed)
        out = api.play_chunk(config, np.arange(5, dtype=np.int64))
        traces = api.trace(config, range(5))
        deals = out.deal_dealer.shape[1]
        for g in range(5):
            game = play_game(config, g)
            for mine, theirs in zip(rows_of(game._out, 0, deals), rows_of(out, g, deals), strict=True):
                assert np.array_equal(mine, theirs), (variant, seed, g)
            assert game.trace() == traces[g]


def test_reading_and_moving_by_hand():
    g = Game("scopa", seed=7, game=3, policies=["greedy", "random"])
    assert g.seat in (0, 1) and not g.over and g.decision == 0
    view = g.view()
    assert view["version"] == 1 and len(view["hand"]) == 3 and len(view["table"]) == 4
    assert view["hand_counts"] == [3, 3] and view["stock"] == 30 and set(view["hand"]) <= set(view["seen"])
    moves = g.moves()
    assert all(isinstance(m, Move) and m.play & parse_mask(" ".join(view["hand"])) == m.play for m in moves)
    assert str(moves[0]).startswith("0: ")
    with pytest.raises(ConfigError, match="not a legal move index"):
        g.play(len(moves))
    plays = 0
    while not g.over:
        g.play(g.moves()[-1])  # the last legal move, every time
        plays += 1
    assert g.seat is None and g.winner in (0, 1) and sum(g.totals) > 0 and g.decision == plays
    assert g.trace()["events"][-1]["type"] == "end"
    with pytest.raises(ConfigError, match="game is over"):
        g.moves()


def test_a_hand_driven_game_equals_a_user_policy_that_plays_the_same(tmp_path):
    """Playing move 0 by hand at every decision is the game of a user policy that returns 0."""
    path = tmp_path / "first.py"
    path.write_text("def first(view, rules, moves, rng, params):\n    return 0\n")
    config = RunConfig.create("skopa", policies=[f"{path}:first"], games=4, seed=5)
    out = api.play_chunk(config, np.arange(4, dtype=np.int64))
    for g in range(4):
        game = Game.from_config(config, g)
        while not game.over:
            game.play(0)
        assert game.totals == list(out.totals[g]) and game.winner == out.winner[g]


def test_suggest_asks_any_policy_and_can_leave_the_streams_alone():
    g = Game("scopa", seed=1, game=0, policies=["random"])
    first = [g.suggest("random", consume=False) for _ in range(5)]
    assert len(set(first)) == 1  # the same draw each time: nothing consumed
    assert g.suggest("greedy") == g.suggest(GREEDY)
    assert g.suggest("random") == first[0]  # consumed now, with the same draw
    with pytest.raises(ConfigError, match="unknown policy"):
        g.suggest("minimax")


def test_the_readme_game_example_runs(monkeypatch, capsys):
    """The README's ``Game`` example, as written, from the repository root (as on a fresh clone)."""
    text = (ROOT / "README.md").read_text()
    block = text.split("<!-- game-example -->\n```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(ROOT)
    exec(compile(block, "README.md", "exec"), {})
    assert capsys.readouterr().out.strip()
