"""RunConfig: everything a run is a pure function of, validated once at the boundary."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from simcore.errors import ConfigError, shown
from simcore.policies import PolicyChoice, parse_policy
from simcore.rng import MAX_SEED
from simcore.variants import VariantSpec, get_variant
from simcore.variants.base import Rules

DEFAULT_CHUNK = 50_000
# 10**12 games are months of one machine, and every game index stays far inside int64.
MAX_GAMES = 10**12
# A chunk's output arrays are allocated at once: at most 898 bytes a game (Scopa with 3 players, the widest of the
# games, measured with ``engine.allocate``; ``tests/test_bad_input.py`` checks the bound for every game), so a
# chunk of a million games stays under 1 GB.
MAX_CHUNK = 1_000_000


def whole(name: str, value: object, low: int, high: int) -> int:
    """``value`` if it is an integer from ``low`` to ``high``, else a ConfigError that says the range."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        kind = "a positive integer" if low == 1 else "an integer"
        raise ConfigError(f"{name} must be {kind} from {low:,} to {high:,}, got {shown(value)}")
    return value


@dataclass(frozen=True)
class RunConfig:
    """A run: variant, resolved rules, one policy per seat, number of games, master seed, chunk size.

    Game ``i`` of a run depends only on (variant, rules, policies, seed, i); the chunk size only decides how the
    games are grouped into part files. ``sources`` holds the text of every user policy file the policies name
    (path as given -> text): it travels with the config (to a cluster's workers, into the manifest), so a run
    says exactly which code played, and a changed file is a different config (``--resume`` refuses it).
    """

    variant: str
    rules: Mapping[str, Any]
    policies: tuple[str, ...]
    games: int
    seed: int
    chunk_size: int = DEFAULT_CHUNK
    sources: Mapping[str, str] = field(default_factory=dict)

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
        sources: Mapping[str, str] | None = None,
    ) -> RunConfig:
        """Validate user input into a config. One policy is used for every seat.

        ``players`` and a ``players`` rule are the same setting: given both, they must agree. A user policy's
        file is read from ``sources`` (path -> text) when it is there, else from disk.
        """
        spec = get_variant(variant)
        overrides = dict(rules or {})
        if players is not None:
            key = spec.key("players")
            if "players" in overrides and key.parse(overrides["players"]) != key.parse(players):
                given, rule = key.parse(players), key.parse(overrides["players"])
                raise ConfigError(f"--players {given} and --rule players={rule} disagree: give one of them")
            overrides["players"] = players
        resolved = spec.resolve(overrides)
        n_players = int(resolved["players"])
        if isinstance(policies, str):
            policies = [policies]
        if len(policies) == 1:
            policies = list(policies) * n_players
        if len(policies) != n_players:
            raise ConfigError(
                f"{len(policies)} policies given for {n_players} players: give one policy, or one per seat"
            )
        choices = [parse_policy(p, spec.name, resolved, sources) for p in policies]
        labels = tuple(c.label for c in choices)
        texts = {c.source.path: c.source.text for c in choices if c.source is not None and not c.spec.file}
        whole("games", games, 1, MAX_GAMES)
        whole("seed", seed, 0, MAX_SEED)
        whole("chunk size", chunk_size, 1, MAX_CHUNK)
        return cls(spec.name, resolved, labels, games, seed, chunk_size, texts)

    @property
    def spec(self) -> VariantSpec:
        return get_variant(self.variant)

    @property
    def players(self) -> int:
        return int(self.rules["players"])

    @property
    def categories(self) -> tuple[str, ...]:
        """The scoring categories of this run's rules (``VariantSpec.categories_for``)."""
        return self.spec.categories_for(self.rules)

    def compiled_rules(self) -> Rules:
        return self.spec.compile(self.rules)

    def policy_choices(self) -> list[PolicyChoice]:
        return [parse_policy(p, self.variant, self.rules, self.sources) for p in self.policies]

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
        del d["sources"]
        if self.sources:  # only runs with user policies carry the key, so older manifests still compare equal
            d["sources"] = {
                path: {"sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(), "text": text}
                for path, text in sorted(self.sources.items())
            }
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
            sources={path: entry["text"] for path, entry in d.get("sources", {}).items()},
        )
