"""What a frozen compile prunes before typing (``simcore.kernels.frozen.FoldFrozenRules``) is dead for its rules: the
specialised kernels of every game, with the options that are off by default turned on, play the same games as the
shared kernels, which compile every branch. Random and greedy seats only: each case is one more compile of the
chain, and the branches pruned are the rules' (scoring, options, the move generators' record), not the policies'
(``test_frozen_rules.py`` has a Monte Carlo case)."""

from __future__ import annotations

import numpy as np
import pytest

from simcore import engine
from simcore.config import RunConfig
from simcore.policies import policy_arrays


def play(cfg: RunConfig, special: bool, trace: bool):
    ids, params = policy_arrays(cfg.policy_choices(), cfg.rules)
    games = np.arange(cfg.games, dtype=np.int64)
    return engine.play(cfg.compiled_rules(), cfg.seed, games, ids, params, trace=trace, specialise=special)


@pytest.mark.parametrize(
    ("variant", "players", "rules"),
    [
        ("scopa", 3, {"claim_out": "on", "tie_break": "parlett_countout", "napola": True}),
        ("skopa", 2, {"multi_group_capture": True}),
        ("foracio", 4, {}),
        ("scopone", 4, {}),
        ("escoba", 3, {}),
    ],
)
def test_pruned_kernels_play_the_same_games(variant, players, rules):
    policies = ("greedy", "random", "greedy", "random")[:players]
    for games, trace in ((300, False), (30, True)):
        cfg = RunConfig.create(variant, policies=policies, games=games, seed=7, rules={"players": players, **rules})
        shared, special = play(cfg, False, trace), play(cfg, True, trace)
        for name, a, b in zip(shared._fields, shared, special, strict=True):
            assert np.array_equal(a, b), (variant, name, trace)
