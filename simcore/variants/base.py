"""Rules as data: a variant declares its rule keys; a resolved rule set compiles to the ``Rules`` kernels read.

``VariantSpec`` is what users see (``scopasim rules scopa``), what goes into Parquet metadata and traces.
``Rules`` is a NamedTuple of ints and small int64 arrays: kernels take it as an argument and never read
variant data from globals (Numba would freeze those into its cache).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from simcore.errors import ConfigError

# Rules.variant ids
SCOPA = 0

# Rules.forced_capture
FORCED_NONE, FORCED_CARD, FORCED_PLAYER = 0, 1, 2
FORCED_NAMES = {"none": FORCED_NONE, "card": FORCED_CARD, "player": FORCED_PLAYER}

MAX_PLAYERS = 4
MAX_CATEGORIES = 10


class Rules(NamedTuple):
    """Compiled rules. Every field is an int64 scalar or an int64 array (one compiled kernel signature)."""

    variant: int  # variant id (SCOPA, ...)
    players: int
    n_sides: int
    side_of: np.ndarray  # int64[4]: seat -> side
    pack: int  # mask of the cards in play
    hand_size: int  # cards per hand per round
    table_size: int  # cards dealt face up at the start of a deal
    target: int
    forced_capture: int  # FORCED_*
    single_card_priority: int  # 0/1
    sum_mask: int  # cards that take part in sum captures (capture value > 0)
    value_by_rank: int  # capture value of rank r in bits 4(r-1)..4(r-1)+3 (a scalar: no array in the hot loop)
    sweep_points: int  # points for a counted sweep
    last_play_sweep: int  # 0/1: does a sweep with the deal's last card count
    redeal_kings: int  # 0 = off, k = redeal when k or more kings are among the initial table cards
    primiera: int  # 0 = points table, 1 = suit by suit
    napola: int  # 0/1
    primiera_value: np.ndarray  # int64[52]: primiera points of each card
    card_weight: np.ndarray  # int64[52]: point value of a card for heuristics (greedy tie-break)
    n_categories: int
    max_moves: int  # size of the legal-move buffer this variant can need


@dataclass(frozen=True)
class RuleKey:
    """One canonical rule key of RULES.md Part A.3."""

    name: str
    default: int | bool | str
    doc: str
    choices: tuple[Any, ...] | None = None
    min: int | None = None
    max: int | None = None

    def parse(self, raw: object) -> int | bool | str:
        """Validate a raw value (a CLI string or a Python value) into the key's type."""
        kind = type(self.default)
        if kind is bool:
            value = _parse_bool(self.name, raw)
        elif kind is int:
            value = _parse_int(self.name, raw)
        else:
            value = str(raw).strip()
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(_show(c) for c in self.choices)
            raise ConfigError(f"rule {self.name}: {_show(raw)} is not allowed (choose one of: {allowed})")
        if self.min is not None and value < self.min:
            raise ConfigError(f"rule {self.name}: {value} is below the minimum {self.min}")
        if self.max is not None and value > self.max:
            raise ConfigError(f"rule {self.name}: {value} is above the maximum {self.max}")
        return value

    def describe_values(self) -> str:
        """Human summary of the allowed values."""
        if self.choices is not None:
            return " | ".join(_show(c) for c in self.choices)
        if type(self.default) is bool:
            return "true | false"
        return f"integer {self.min}..{self.max}"


def _show(v: object) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def _parse_bool(name: str, raw: object) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("true", "1", "yes", "on"):
        return True
    if text in ("false", "0", "no", "off"):
        return False
    raise ConfigError(f"rule {name}: expected true or false, got {raw!r}")


def _parse_int(name: str, raw: object) -> int:
    if isinstance(raw, bool):
        raise ConfigError(f"rule {name}: expected an integer, got {raw!r}")
    if isinstance(raw, int):
        return raw
    try:
        return int(str(raw).strip())
    except ValueError:
        raise ConfigError(f"rule {name}: expected an integer, got {raw!r}") from None


@dataclass(frozen=True)
class VariantSpec:
    """A game of the family: its rule keys, scoring categories and compiler to ``Rules``."""

    name: str
    title: str
    seed_text: str
    keys: tuple[RuleKey, ...]
    categories: tuple[str, ...]
    compile_rules: Callable[[Mapping[str, Any]], Rules]
    rules_version: str = "1"

    def key(self, name: str) -> RuleKey:
        for k in self.keys:
            if k.name == name:
                return k
        known = ", ".join(k.name for k in self.keys)
        raise ConfigError(f"unknown rule key {name!r} for {self.name} (known keys: {known})")

    def defaults(self) -> dict[str, Any]:
        return {k.name: k.default for k in self.keys}

    def resolve(self, overrides: Mapping[str, object] | None = None) -> dict[str, Any]:
        """Defaults updated by ``overrides``, every value validated; the canonical resolved rule set."""
        resolved = self.defaults()
        for name, raw in (overrides or {}).items():
            resolved[name] = self.key(name).parse(raw)
        return resolved

    def compile(self, resolved: Mapping[str, Any]) -> Rules:
        """Compile a resolved rule set (from :meth:`resolve`) for the kernels."""
        return self.compile_rules(resolved)

    def sides(self, players: int) -> list[list[int]]:
        """Seats of each side: partners opposite with 4 players, otherwise one seat per side."""
        if players == 4:
            return [[0, 2], [1, 3]]
        return [[s] for s in range(players)]


def pack_values(value_of_rank: Mapping[int, int]) -> int:
    """``Rules.value_by_rank`` from {rank: capture value}: 4 bits per rank, values 0..15."""
    packed = 0
    for rank, value in value_of_rank.items():
        packed |= value << (4 * (rank - 1))
    return packed


def side_array(players: int) -> np.ndarray:
    """seat -> side, as the int64[4] ``Rules.side_of``."""
    return np.array([s % 2 if players == 4 else s for s in range(MAX_PLAYERS)], dtype=np.int64)
