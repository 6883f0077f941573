"""Registry of playing policies: names, kernel ids and parameter schemas.

A policy is given per seat as ``name`` or ``name:key=value,key=value``. The kernels receive an int64 id per
seat and a float64 row of parameters per seat (``MAX_PARAMS`` wide; the layout is in
``simcore.policies.heuristics``). The point policies' parameters are the game's own scoring weights
(``simcore.policies.weights``), so they are checked against the variant.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from simcore.errors import ConfigError
from simcore.policies import weights
from simcore.policies.heuristics import (
    MAX_PARAMS,
    P_EPSILON,
    P_HOLD,
    P_PER_CARD,
    P_RISK,
    P_ROLLOUT,
    P_SAMPLES,
    P_SUIT,
    P_SWEEP,
)
from simcore.policies.kernels import (
    POLICY_DEFENSIVE,
    POLICY_GREEDY,
    POLICY_LOOKAHEAD,
    POLICY_MC,
    POLICY_POINTS,
    POLICY_RANDOM,
)


@dataclass(frozen=True)
class PolicySpec:
    """A policy: its kernel id, a one-line description, and whether it takes the point weights."""

    name: str
    policy_id: int
    doc: str
    weighted: bool = False
    extra: tuple[tuple[str, float], ...] = ()

    def params(self, variant: str) -> dict[str, float]:
        """The parameters this policy accepts in ``variant``, with their defaults."""
        return (weights.defaults(variant) if self.weighted else {}) | dict(self.extra)


POLICIES: dict[str, PolicySpec] = {
    p.name: p
    for p in (
        PolicySpec("random", POLICY_RANDOM, "uniform over the legal moves (its own random stream)"),
        PolicySpec(
            "greedy",
            POLICY_GREEDY,
            "most cards taken; ties by the point weight of the cards won (trailing: the least valuable card)",
        ),
        PolicySpec("points", POLICY_POINTS, "the points a move secures now: cards by the game's scoring, sweeps", True),
        PolicySpec(
            "defensive",
            POLICY_DEFENSIVE,
            "points minus the risk of the table left to the next player, from the cards not yet seen",
            True,
        ),
        PolicySpec(
            "lookahead",
            POLICY_LOOKAHEAD,
            "points minus the next player's expected best reply over hands sampled from the unseen cards",
            True,
        ),
        PolicySpec(
            "mc",
            POLICY_MC,
            "determinized Monte Carlo: sample the unseen cards, roll each move out to the end of the deal, keep "
            "the best mean margin (rollout: 1 greedy with epsilon, 2 points, 3 defensive)",
            True,
            extra=(("samples", 24.0), ("epsilon", 0.1), ("rollout", 1.0)),
        ),
    )
}

MC_MEANINGS = {
    "samples": "determinizations of the hidden cards per decision",
    "epsilon": "chance of a random move in a greedy rollout (rollout=1)",
    "rollout": "the rollouts' policy: 1 greedy with epsilon, 2 points, 3 defensive",
}


def parameter_meaning(policy: str, variant: str, key: str) -> str:
    """One line on what parameter ``key`` of ``policy`` does in ``variant``."""
    if policy == "mc" and key in MC_MEANINGS:
        return MC_MEANINGS[key]
    return weights.meaning(variant, key)


@dataclass(frozen=True)
class PolicyChoice:
    """A parsed policy for one seat of a game."""

    spec: PolicySpec
    variant: str
    params: dict[str, float]

    @property
    def label(self) -> str:
        """Canonical text: the name, then the parameters that differ from the defaults."""
        default = self.spec.params(self.variant)
        changed = {k: v for k, v in self.params.items() if v != default[k]}
        if not changed:
            return self.spec.name
        return self.spec.name + ":" + ",".join(f"{k}={v:g}" for k, v in changed.items())


def parse_policy(text: str, variant: str = "scopa") -> PolicyChoice:
    """Parse ``name`` or ``name:key=value,...`` for a game; unknown names, keys or values are a ConfigError."""
    name, _, rest = text.strip().partition(":")
    if name not in POLICIES:
        raise ConfigError(f"unknown policy {name!r} (known policies: {', '.join(POLICIES)})")
    spec = POLICIES[name]
    params = spec.params(variant)
    for item in filter(None, (s.strip() for s in rest.split(","))):
        key, eq, value = item.partition("=")
        if key not in params:
            known = ", ".join(params) or "none"
            raise ConfigError(f"policy {name} in {variant}: unknown parameter {key!r} (parameters: {known})")
        if not eq:
            raise ConfigError(f"policy {name}: parameter {key!r} needs a value ({key}=...)")
        try:
            params[key] = float(value)
        except ValueError:
            raise ConfigError(f"policy {name}: parameter {key} must be a number, got {value!r}") from None
        if key == "samples" and not (1 <= params[key] <= 200 and params[key] == int(params[key])):
            raise ConfigError(f"policy {name}: samples must be a whole number from 1 to 200, got {value}")
        if key == "rollout" and params[key] not in (1, 2, 3):
            raise ConfigError(f"policy {name}: rollout must be 1 (greedy), 2 (points) or 3 (defensive), got {value}")
        if key == "epsilon" and not 0 <= params[key] <= 1:
            raise ConfigError(f"policy {name}: epsilon must be between 0 and 1, got {value}")
    return PolicyChoice(spec, variant, params)


def policy_arrays(choices: list[PolicyChoice], rules: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """Kernel inputs: int64 ids per seat and float64 parameters ``[seat, MAX_PARAMS]``."""
    ids = np.array([c.spec.policy_id for c in choices], dtype=np.int64)
    params = np.zeros((len(choices), MAX_PARAMS), dtype=np.float64)
    for seat, c in enumerate(choices):
        if not c.spec.weighted:
            continue
        params[seat, :52] = weights.card_points(c.variant, c.params, rules)
        params[seat, P_PER_CARD] = c.params["card"]
        params[seat, P_SWEEP] = c.params["sweep"]
        params[seat, P_RISK] = c.params["risk"]
        params[seat, P_SAMPLES] = c.params["samples"]
        params[seat, P_SUIT] = weights.suit_weight(c.variant, c.params, rules)
        params[seat, P_HOLD] = c.params["hold"]
        if c.spec.policy_id == POLICY_MC:
            params[seat, P_EPSILON] = c.params["epsilon"]
            params[seat, P_ROLLOUT] = c.params["rollout"]
    return ids, params
