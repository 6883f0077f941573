"""mc's ``horizon`` (simcore.policies.montecarlo): rollouts cut after H plays and valued by the piles.

A horizon past the end of every deal must be exactly today's full rollouts (the stepped loop picks the moves the
quick path picks, from the same random numbers), so the rows match move for move; the parameter is checked, reaches
the kernel row, changes what mc reads (the piles' weights), and the games that set it record it in their module.
Honesty is tested with the other searchers' (tests/test_policies.py)."""

from __future__ import annotations

import numpy as np
import pytest

from simcore import api
from simcore.config import RunConfig
from simcore.errors import ConfigError
from simcore.policies import parse_policy, policy_arrays
from simcore.policies.heuristics import P_HORIZON
from simcore.variants.scopa import SPEC


@pytest.mark.parametrize(
    "variant,policies,games",
    [
        ("scopa", ["mc:samples=2", "greedy"], 4),
        ("scopa", ["mc:samples=2,rollout=3", "lookahead"], 3),
        ("kaszino", ["mc:samples=2", "greedy"], 2),
        ("skopa", ["greedy", "mc:samples=2,rollout=2", "random"], 2),
        ("foracio", ["mc:samples=1,horizon=0", "greedy", "random", "greedy"], 1),
    ],
)
def test_a_horizon_past_every_deal_is_the_full_rollout(variant, policies, games):
    """``horizon=100`` (more plays than any deal has) plays exactly as ``horizon=0``: same rows, every array."""
    players = len(policies)
    rows = []
    for horizon in (0, 100):
        seats = [p.replace("horizon=0", f"horizon={horizon}") if p.startswith("mc") else p for p in policies]
        seats = [p + f",horizon={horizon}" if p.startswith("mc") and "horizon" not in p else p for p in seats]
        config = RunConfig.create(variant, policies=seats, players=players, games=games, seed=21)
        rows.append(api.play_chunk(config, np.arange(games)))
    assert not rows[0].overflow.any()
    for name, a in rows[0]._asdict().items():
        assert np.array_equal(a, getattr(rows[1], name)), name


def test_a_short_horizon_changes_the_play():
    """Cut after one play, the rollouts see less of the deal: some decisions of a few Scopa games differ."""
    policies = ([f"mc:samples=4,horizon={h}", "greedy"] for h in (0, 1))
    configs = [RunConfig.create("scopa", policies=p, games=6, seed=3) for p in policies]
    full, short = (api.play_chunk(c, np.arange(6)) for c in configs)
    assert not short.overflow.any() and (short.winner >= 0).all()
    assert not np.array_equal(full.deal_points, short.deal_points)


def test_horizon_parameters():
    """Range checked; with a horizon mc values the piles, so it reads the game's weights and ``sweep`` (not
    ``hold``: no trail term); the value reaches the kernel row; the label keeps it."""
    for text, message in (
        ("mc:horizon=-1", "horizon must be a whole number from 0 to 100"),
        ("mc:horizon=2.5", "horizon must be a whole number"),
        ("mc:horizon=101", "horizon must be a whole number"),
        ("mc:settebello=2", "read only with rollout=2 or 3 or horizon above 0"),
        ("mc:horizon=3,hold=0.2", "hold is read only with rollout=2 or 3"),
    ):
        with pytest.raises(ConfigError, match=message):
            parse_policy(text)
    choice = parse_policy("mc:horizon=3,settebello=2,sweep=1.5")
    assert choice.label == "mc:horizon=3,settebello=2,sweep=1.5"
    assert "settebello" not in parse_policy("mc").params and "hold" not in choice.params
    _, params = policy_arrays([choice, parse_policy("greedy")], SPEC.resolve({}))
    assert params[0, P_HORIZON] == 3 and params[1, P_HORIZON] == 0


def test_a_game_records_its_own_mc_defaults():
    """Foracio and Scopone set mc's horizon, rollout and samples in their modules (``HeuristicWeights.searchers``);
    the other games keep the shared defaults (full rollouts, so their rows do not change). The label is relative to
    the game's defaults, and ``scopasim policies`` shows them and what another rollout or horizon reads."""
    from typer.testing import CliRunner

    from cli.app import app

    own = {"foracio": (1, 3, 32), "scopone": (1, 2, 40), "escoba": (1, 2, 48), "scopa": (0, 1, 24), "skopa": (0, 1, 24)}
    for variant, (horizon, rollout, samples) in own.items():
        params = parse_policy("mc", variant).params
        assert (params["horizon"], params["rollout"], params["samples"]) == (horizon, rollout, samples), variant
    assert parse_policy("mc:horizon=1,rollout=3,samples=32", "foracio").label == "mc"
    assert parse_policy("mc:horizon=0,rollout=1,samples=24", "foracio").label == "mc:samples=24,horizon=0,rollout=1"
    with pytest.raises(ConfigError, match=r"epsilon is read only with rollout=1 \(this policy has rollout=3, horizon"):
        parse_policy("mc:epsilon=0.2", "foracio")
    parse_policy("mc:rollout=1,epsilon=0.2,spade=2", "foracio")  # the horizon values the piles: weights are read
    with pytest.raises(ConfigError, match="spade is read only with rollout=2 or 3 or horizon above 0"):
        parse_policy("mc:horizon=0,rollout=1,spade=2", "foracio")

    def shown(variant):
        return CliRunner().invoke(app, ["policies", variant], env={"COLUMNS": "2000"}).output

    foracio, scopa = shown("foracio"), shown("scopa")
    assert "samples=32, horizon=1, rollout=3, hold=0, card=0.074" in foracio
    assert "sweep=1, risk=1; with rollout=1 instead of hold, risk: epsilon=0.1; with rollout=2 without risk" in foracio
    assert "samples=24, horizon=0, rollout=1, epsilon=0.1;" in scopa
    assert "with horizon above 0 also card=0.05, coin=0.2, settebello=1" in scopa
    assert "mc (rollout=2 or 3 or horizon above 0)" in scopa
