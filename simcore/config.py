"""RunConfig: everything a run is a pure function of, validated once at the boundary."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from simcore.errors import ConfigError
from simcore.policies import PolicyChoice, parse_policy
from simcore.rng import MAX_SEED
from simcore.variants import VariantSpec, get_variant
from simcore.variants.base import Rules

DEFAULT_CHUNK = 50_000


@dataclass(frozen=True)
class RunConfig:
    """A run: variant, resolved rules, one policy per seat, number of games, master seed, chunk size.

    Game ``i`` of a run depends only on (variant, rules, policies, seed, i); the chunk size only decides how the
    games are grouped into part files.
    """

    variant: str
    rules: Mapping[str, Any]
    policies: tuple[str, ...]
    games: int
    seed: int
    chunk_size: int = DEFAULT_CHUNK

    @classmethod
    def create(
        cls,
        variant: str,
        *,
        policies: Sequence[str] = ("greedy",),
        rules: Mapping[str, object] | None = None,
        players: int | None = None,
        games: int = 1_000_000,
        seed: int = 0,
        chunk_size: int = DEFAULT_CHUNK,
    ) -> RunConfig:
        """Validate user input into a config. One policy is used for every seat."""
        spec = get_variant(variant)
        overrides = dict(rules or {})
        if players is not None:
            overrides["players"] = players
        resolved = spec.resolve(overrides)
        n_players = int(resolved["players"])
        if len(policies) == 1:
            policies = list(policies) * n_players
        if len(policies) != n_players:
            raise ConfigError(
                f"{len(policies)} policies given for {n_players} players: give one policy, or one per seat"
            )
        labels = tuple(parse_policy(p, spec.name).label for p in policies)
        if isinstance(games, bool) or not isinstance(games, int) or games < 1:
            raise ConfigError(f"games must be a positive integer, got {games!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise ConfigError(f"seed must be an integer from 0 to {MAX_SEED}, got {seed!r}")
        if chunk_size < 1:
            raise ConfigError(f"chunk size must be a positive integer, got {chunk_size!r}")
        return cls(spec.name, resolved, labels, games, seed, chunk_size)

    @property
    def spec(self) -> VariantSpec:
        return get_variant(self.variant)

    @property
    def players(self) -> int:
        return int(self.rules["players"])

    def compiled_rules(self) -> Rules:
        return self.spec.compile(self.rules)

    def policy_choices(self) -> list[PolicyChoice]:
        return [parse_policy(p, self.variant) for p in self.policies]

    @property
    def n_chunks(self) -> int:
        return -(-self.games // self.chunk_size)

    def chunk_range(self, index: int) -> range:
        """Game indices of chunk ``index``."""
        start = index * self.chunk_size
        return range(start, min(start + self.chunk_size, self.games))

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["rules"] = dict(self.rules)
        d["policies"] = list(self.policies)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RunConfig:
        """Rebuild (and re-validate) a config written by :meth:`to_dict`."""
        return cls.create(
            d["variant"],
            policies=d["policies"],
            rules=d["rules"],
            games=d["games"],
            seed=d["seed"],
            chunk_size=d["chunk_size"],
        )
