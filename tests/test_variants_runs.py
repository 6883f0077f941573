"""Every game and player count end to end: simulate, the Parquet tables with the game's own categories, the
invariants of RULES.md on the kernel's output, trace/replay/rules from the command line, and bad rule values."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from cli.app import app
from simcore import api
from simcore.config import RunConfig
from simcore.variants import get_variant

runner = CliRunner()
GAMES = 2000

RUNS = [
    ("scopa", 2),
    ("scopa", 3),
    ("scopa", 4),
    ("kaszino", 2),
    ("foracio", 4),
    ("skopa", 2),
    ("skopa", 3),
    ("skopa", 4),
    ("scopone", 4),
    ("escoba", 2),
    ("escoba", 3),
    ("escoba", 4),
]


@pytest.fixture(scope="module", params=RUNS, ids=[f"{v}-{p}p" for v, p in RUNS])
def run(request, tmp_path_factory):
    variant, players = request.param
    config = RunConfig.create(
        variant, policies=["greedy", "random"] * (players // 2) + ["random"] * (players % 2),
        rules={"players": players}, games=GAMES, seed=31, chunk_size=700,
    )  # fmt: skip
    path = tmp_path_factory.mktemp("variants") / f"{variant}-{players}"
    api.simulate(config, path, threads=2)
    games = pd.read_parquet(path / "games")
    deals = pd.read_parquet(path / "deals")
    return config, games, deals


def completed_deals(games: pd.DataFrame, deals: pd.DataFrame) -> pd.DataFrame:
    """Deals played to the end: not the last deal of a game decided mid-deal."""
    last = games.set_index("game").deals - 1
    cut = games.set_index("game").mid_deal
    key = deals.game.map(last) == deals.deal
    return deals[~(key & deals.game.map(cut))]


def test_tables_have_the_games_categories_and_one_row_per_deal_and_side(run):
    config, games, deals = run
    spec = get_variant(config.variant)
    assert len(games) == GAMES and sorted(games.game) == list(range(GAMES))
    assert set(spec.categories) <= set(deals.columns)
    n_sides = len(spec.sides(config.players))
    assert (deals.groupby(["game", "deal"]).size() == n_sides).all()
    assert (deals.groupby("game").deal.max() + 1 == games.set_index("game").deals).all()
    points = deals[list(spec.categories)].sum(axis=1)
    assert (points == deals.points).all()
    final = deals.sort_values(["game", "deal", "side"]).groupby(["game", "side"]).total.last().unstack()
    for side in range(n_sides):
        assert (final[side].values == games.sort_values("game")[f"total_{side}"].values).all()
    winners = games[[f"total_{s}" for s in range(n_sides)]].to_numpy()
    assert (winners.max(axis=1) >= config.rules["target"]).all()
    assert set(games.winner) <= set(range(n_sides))


def test_every_card_ends_in_one_pile(run):
    config, games, deals = run
    pack = 40 if config.variant in ("scopa", "scopone", "escoba") else 52
    taken = completed_deals(games, deals).groupby(["game", "deal"]).cards_taken.sum()
    assert (taken == pack).mean() > 0.999 and (taken <= pack).all()  # a deal with no capture leaves a residue


def test_points_per_deal_within_the_rules(run):
    config, games, deals = run
    done = completed_deals(games, deals)
    per_deal = done.groupby(["game", "deal"])
    if config.variant in ("scopa", "scopone"):
        base = per_deal[["cards", "coins", "settebello", "primiera"]].sum().sum(axis=1)
        assert base.between(0, 4).all()
    elif config.variant == "kaszino":
        base = per_deal[["cards", "spades", "aces", "little_casino", "big_casino"]].sum().sum(axis=1)
        tied = per_deal.cards_taken.max() == 26
        assert (base[~tied] == 12).all() and (base[tied] == 9).all()  # K12: 12 base points; 26-26: no card points
    elif config.variant == "skopa":
        base = per_deal[["cards", "clubs", "two_clubs", "ten_diamonds"]].sum().sum(axis=1)
        no_clubs = per_deal.clubs.sum() == 0
        assert (base[~no_clubs] == 5).all() and (base[no_clubs] == 4).all()  # R11: 5, or 4 on a clubs tie
        assert config.players == 3 or not no_clubs.any()  # 13 clubs cannot tie between two sides
        assert (done.sweep == 0).all()  # no sweep points by default (R10)
    elif config.variant == "escoba":
        base = per_deal[["cards", "coins", "velo", "sevens"]].sum().sum(axis=1)
        assert base.between(1, 4).all()  # E7: the velo always scores; the majorities may tie to nothing
        assert (done.escoba == done.sweeps).all()  # 1 point an escoba, the opening ones included
    else:
        elements = done[["cards", "spade", "two_spades", "jack_spades", "ten_diamonds"]].sum(axis=1)
        assert (elements <= 6).all()
        assert ((done.all_five == 0) | ((done.all_five == 42) & (elements == 6))).all()
        assert (per_deal[["cards", "spade", "two_spades", "jack_spades", "ten_diamonds"]].sum().sum(axis=1) <= 6).all()
    if config.variant in ("kaszino", "foracio"):
        assert games.mid_deal.any()  # mid-deal wins happen by default (AUSZ, declaration)
    else:
        assert not games.mid_deal.any()


@pytest.mark.parametrize("variant", ["kaszino", "foracio", "skopa", "scopone", "escoba"])
def test_trace_replay_and_rules_from_the_command_line(variant, tmp_path):
    players = get_variant(variant).key("players").default
    out = tmp_path / "t.jsonl"
    result = runner.invoke(app, ["trace", "-v", variant, "--seed", "5", "--policy", "greedy", "-g", "0-3", "-o", out])
    assert result.exit_code == 0, result.output
    traces = [json.loads(line) for line in out.read_text().splitlines()]
    assert [t["game"] for t in traces] == [0, 1, 2, 3] and all(t["variant"] == variant for t in traces)
    assert all(t["players"] == players and t["events"][-1]["type"] == "end" for t in traces)
    result = runner.invoke(app, ["replay", "--trace", out, "--game", "2"])
    assert result.exit_code == 0 and "wins" in result.output
    result = runner.invoke(app, ["rules", variant])
    assert result.exit_code == 0
    assert all(key.name in result.output for key in get_variant(variant).keys)
    result = runner.invoke(app, ["simulate", "-v", variant, "-n", "300", "-s", "1", "-q", "-o", tmp_path / "run"])
    assert result.exit_code == 0 and "first player" in result.output


BAD_RULES = [
    ("kaszino", "max_sum=-1", "rule max_sum: -1 is below the minimum 0"),
    ("kaszino", "max_hand_cards=3", "rule max_hand_cards: 3 is not allowed"),
    ("kaszino", "after_tabla=pass", "rule after_tabla: pass is not allowed"),
    ("kaszino", "players=3", "rule players: 3 is not allowed"),
    ("kaszino", "last_round_open=sometimes", "rule last_round_open: expected true or false"),
    ("foracio", "players=2", "rule players: 2 is not allowed"),
    ("foracio", "ace_on_empty=discard", "rule ace_on_empty: discard is not allowed"),
    ("foracio", "all_five_bonus=big", "rule all_five_bonus: expected an integer"),
    ("foracio", "forced_capture=player", "rule forced_capture: player is not allowed"),
    ("skopa", "sweep_points=-2", "rule sweep_points: -2 is below the minimum 0"),
    ("skopa", "clubs_tie=half", "rule clubs_tie: half is not allowed"),
    ("skopa", "primiera=table", "unknown rule key 'primiera' for skopa"),
    ("scopone", "deal=eight", "rule deal: eight is not allowed"),
    ("scopone", "ace_first_play=never", "rule ace_first_play: never is not allowed"),
    ("scopa", "sum_choice=fewest_cards", "rule sum_choice: fewest_cards is not allowed"),
    ("escoba", "sevens_rule=setenta", "rule sevens_rule: setenta is not allowed"),
    ("escoba", "single_card_priority=true", "rule single_card_priority: true is not allowed"),
    ("escoba", "opening_escoba=mano", "rule opening_escoba: mano is not allowed"),
]


@pytest.mark.parametrize("variant,rule,message", BAD_RULES, ids=[f"{v}-{r}" for v, r, _ in BAD_RULES])
def test_bad_rule_values_are_one_line_errors(variant, rule, message, tmp_path):
    result = runner.invoke(app, ["simulate", "-v", variant, "--rule", rule, "-o", tmp_path / "out"])
    assert result.exit_code == 1 and result.output == f"error: {message}" + result.output.split(message, 1)[1]
    assert result.output.count("\n") == 1 and not (tmp_path / "out").exists()


def test_a_move_buffer_overflow_is_a_clear_error_not_a_wrong_game():
    """Kaszinó exchanges without a value cap can outgrow any buffer on a huge table: the run stops, named."""
    from simcore import engine
    from simcore.errors import ConfigError
    from simcore.variants import kaszino

    resolved = kaszino.SPEC.resolve({"max_sum": 0, "forced_capture": "none"})
    small = kaszino.SPEC.compile(resolved)._replace(max_moves=50)  # a buffer far below this rule set's needs
    with pytest.raises(ConfigError, match="more than 50 legal moves"):
        engine.play(small, 1, np.arange(200), np.zeros(2, np.int64), np.zeros((2, 64)))
    assert engine.play(small._replace(max_moves=10**5), 1, np.arange(200), np.zeros(2), np.zeros((2, 64))).winner.size
