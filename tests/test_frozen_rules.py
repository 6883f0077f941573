"""Kernels compiled for one rule set (``simcore.kernels.frozen``): the same rows as the shared kernels, a type of
their own per rule set, and the runs that get them (``api.specialised``)."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from typer.testing import CliRunner

from cli.app import app
from simcore import engine
from simcore.api import specialised
from simcore.config import RunConfig
from simcore.errors import ConfigError
from simcore.kernels.frozen import FrozenRules, FrozenRulesType, freeze
from simcore.policies import policy_arrays
from simcore.variants.base import Rules


def config(variant: str, policies: tuple[str, ...], games: int = 200, **kw) -> RunConfig:
    return RunConfig.create(variant, policies=policies, games=games, seed=7, **kw)


@njit
def read_fields(rules):
    return rules.players * 1000 + rules.hand_size * 10 + rules.side_of[1]


def test_freeze_keeps_the_values_and_gives_back_plain_rules():
    rules = config("scopa", ("greedy",)).compiled_rules()
    frozen = freeze(rules)
    assert isinstance(frozen, FrozenRules) and isinstance(frozen, Rules)
    assert all(np.array_equal(a, b) for a, b in zip(frozen, rules, strict=True))
    assert type(frozen._replace(target=21)) is Rules  # a frozen class stands for one set of values only
    assert type(freeze(rules)) is type(frozen)  # the same values: the same class, so the same compiled copy


def test_each_rule_set_is_a_type_of_its_own_with_its_values():
    """Two frozen rule sets in one process, and the plain one, each read their own values (the dispatcher
    fingerprints a named tuple by its class: a shared class would serve one rule set's machine code to the other)."""
    two = config("scopa", ("greedy",)).compiled_rules()
    four = config("scopa", ("greedy",), players=4).compiled_rules()
    assert read_fields(freeze(two)) == read_fields(two) == 2000 + 30 + 1
    assert read_fields(freeze(four)) == read_fields(four) == 4000 + 30 + 1
    types_seen = {str(sig[0]) for sig in read_fields.signatures}
    assert len(types_seen) == 3
    assert sum(isinstance(sig[0], FrozenRulesType) for sig in read_fields.signatures) == 2


def play(cfg: RunConfig, special: bool, trace: bool = False):
    ids, params = policy_arrays(cfg.policy_choices(), cfg.rules)
    games = np.arange(cfg.games, dtype=np.int64)
    return engine.play(cfg.compiled_rules(), cfg.seed, games, ids, params, trace=trace, specialise=special)


@pytest.mark.parametrize(
    ("variant", "policies", "rules"),
    [
        ("scopa", ("greedy", "mc:samples=4"), {}),  # the one-card loop, the quick policies and mc's rollouts
        # Kaszinó's own loop, with options folded in the way that is not the default
        ("kaszino", ("random", "points"), {"max_sum": 0, "max_hand_cards": 2, "out_call": "manual"}),
    ],
)
def test_specialised_kernels_play_the_same_games(variant, policies, rules):
    cfg = config(variant, policies, rules=rules)
    shared, special = play(cfg, False), play(cfg, True)
    for name, a, b in zip(shared._fields, shared, special, strict=True):
        assert np.array_equal(a, b), name
    small = config(variant, policies, games=30, rules=rules)
    traced, traced_special = play(small, False, trace=True), play(small, True, trace=True)
    assert np.array_equal(traced.events, traced_special.events)
    assert np.array_equal(traced.n_events, traced_special.n_events)


def test_which_runs_are_specialised(monkeypatch):
    monkeypatch.delenv("SCOPASIM_SPECIALISE", raising=False)
    big = 1_000_000
    assert specialised(config("scopa", ("greedy",), games=big))
    assert specialised(config("scopa", ("greedy",), games=1))  # the default rules at any size
    assert specialised(config("scopa", ("greedy", "mc"), games=10))  # and any policies
    assert specialised(config("skopa", ("greedy",), games=big, players=3))  # defaults at any player count
    assert not specialised(config("scopa", ("greedy",), games=big, rules={"napola": "on"}))  # a varied rule set
    monkeypatch.setenv("SCOPASIM_SPECIALISE", "1")
    assert specialised(config("scopa", ("greedy",), games=10, rules={"napola": "on"}))
    monkeypatch.setenv("SCOPASIM_SPECIALISE", "0")
    assert not specialised(config("scopa", ("greedy",), games=big))
    monkeypatch.setenv("SCOPASIM_SPECIALISE", "yes")
    with pytest.raises(ConfigError, match="SCOPASIM_SPECIALISE"):
        specialised(config("scopa", ("greedy",), games=big))


def test_a_bad_setting_stops_simulate_before_it_writes(tmp_path, monkeypatch):
    monkeypatch.setenv("SCOPASIM_SPECIALISE", "yes")
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["simulate", "-n", "10", "-q", "-o", str(out)])
    assert result.exit_code == 1 and "SCOPASIM_SPECIALISE" in result.output
    assert not out.exists()
