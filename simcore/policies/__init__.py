"""Registry of playing policies: names, kernel ids and parameter schemas.

A policy is given per seat as ``name`` or ``name:key=value,key=value``. The kernels receive an int64 id per
seat and a float64 row of parameters per seat (in the order of the policy's schema).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simcore.errors import ConfigError
from simcore.policies.kernels import POLICY_GREEDY, POLICY_RANDOM

MAX_PARAMS = 8


@dataclass(frozen=True)
class PolicySpec:
    """A policy: its kernel id, a one-line description and its parameters with defaults."""

    name: str
    policy_id: int
    doc: str
    params: dict[str, float] = field(default_factory=dict)


POLICIES: dict[str, PolicySpec] = {
    p.name: p
    for p in (
        PolicySpec("random", POLICY_RANDOM, "uniform over the legal moves (its own random stream)"),
        PolicySpec(
            "greedy",
            POLICY_GREEDY,
            "most cards taken; ties by the point weight of the cards won (trailing: the least valuable card)",
        ),
    )
}


@dataclass(frozen=True)
class PolicyChoice:
    """A parsed policy for one seat."""

    spec: PolicySpec
    params: dict[str, float]

    @property
    def label(self) -> str:
        """Canonical text: the name, then the parameters that differ from the defaults."""
        changed = {k: v for k, v in self.params.items() if v != self.spec.params[k]}
        if not changed:
            return self.spec.name
        return self.spec.name + ":" + ",".join(f"{k}={v:g}" for k, v in changed.items())


def parse_policy(text: str) -> PolicyChoice:
    """Parse ``name`` or ``name:key=value,...``; unknown names, keys or values are a ConfigError."""
    name, _, rest = text.strip().partition(":")
    if name not in POLICIES:
        raise ConfigError(f"unknown policy {name!r} (known policies: {', '.join(POLICIES)})")
    spec = POLICIES[name]
    params = dict(spec.params)
    for item in filter(None, (s.strip() for s in rest.split(","))):
        key, eq, value = item.partition("=")
        if key not in spec.params:
            known = ", ".join(spec.params) or "none"
            raise ConfigError(f"policy {name}: unknown parameter {key!r} (parameters: {known})")
        if not eq:
            raise ConfigError(f"policy {name}: parameter {key!r} needs a value ({key}=...)")
        try:
            params[key] = float(value)
        except ValueError:
            raise ConfigError(f"policy {name}: parameter {key} must be a number, got {value!r}") from None
    return PolicyChoice(spec, params)


def policy_arrays(choices: list[PolicyChoice]) -> tuple[np.ndarray, np.ndarray]:
    """Kernel inputs: int64 ids per seat and float64 parameters ``[seat, MAX_PARAMS]``."""
    ids = np.array([c.spec.policy_id for c in choices], dtype=np.int64)
    params = np.zeros((len(choices), MAX_PARAMS), dtype=np.float64)
    for seat, c in enumerate(choices):
        for k, value in enumerate(c.params.values()):
            params[seat, k] = value
    return ids, params
