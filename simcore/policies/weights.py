"""Default point weights of the ``points``, ``defensive`` and ``lookahead`` policies, per game.

Each weight is in deal points: what taking one such card is worth on average to the side that takes it. A
majority worth P points over a pack where about N cards settle it is worth about P / N per card (Scopa: 1 point
for most of 40 cards, so 0.05 per card; coins: 1 point for most of 10, so 0.2 per coin). Single scoring cards
are worth their points (the settebello 1, Kaszinó's big casino 2). The primiera weights approximate each
rank's share of the primiera point. Users override any of them: ``--policy points:settebello=3``.

``hold`` is what a trail gives up besides the card's points: points per unit of the card's capture value, since a
high card kept in hand can take more of the table later. Its defaults were measured in self-play against
``greedy`` (duplicate pairs, ``points:hold=H`` for a few values of H): trailing low cards first is worth about 2.5
points of win rate in Scopa, 1.5 in Kaszinó and 4 in Skopa, and it loses in Foracio, where it is 0. In Escoba a card
takes sets worth 15 minus its value, so the unit is that (``Rules.sum_to``): a trail gives up more the lower the
card, and high cards are trailed first; ``hold`` 0.05 was the best of 0, 0.05, 0.1, 0.2 (Bradley-Terry, 3,000
duplicate pairs each against greedy: +19 Elo, about 2.7 points of win rate; 0.1 +10, 0 +3). Measured the other
way round (the card's own value, as in Scopa), every positive hold lost to greedy.

Each game declares its own weights, what they mean and how they value each card, in its module
(``VariantSpec.weights``, a ``HeuristicWeights``): this module only combines them with the parameters every game
shares and turns them into the per-card vector the kernels read (``params[0:52]``). An unknown variant name is a
ConfigError, never another game's weights.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from simcore.cards import N_CARDS
from simcore.errors import ConfigError
from simcore.variants import VARIANTS
from simcore.variants.base import HeuristicWeights

COMMON = {"sweep": 1.0, "risk": 1.0, "samples": 16.0}
COMMON_MEANINGS: dict[str, str] = {
    "hold": "points per unit of capture value a trailed card gives up (a high card kept can take more later)",
    "card": "points per card taken while the cards majority is open",
    "sweep": "weight of sweep points (scope, táblas) and of Foracio's same-suit points",
    "risk": "weight of what the move leaves to the next player (defensive, lookahead, mc rollouts)",
    "samples": "sampled hands of the next player (lookahead)",
}


def _weights(variant: str) -> HeuristicWeights:
    """The weights ``variant`` declares, or a ConfigError."""
    spec = VARIANTS.get(variant)
    if spec is None or spec.weights is None:
        shown = variant if len(variant) <= 40 else variant[:40] + "..."
        known = ", ".join(name for name, s in VARIANTS.items() if s.weights is not None)
        raise ConfigError(f"no policy weights for variant {shown!r} (known: {known})")
    return spec.weights


def game_weights(variant: str) -> dict[str, float]:
    """The weights of ``variant``'s own (``hold``, ``card`` and its scoring cards), with their defaults."""
    return dict(_weights(variant).defaults)


def meaning(variant: str, key: str) -> str:
    """What a point-policy parameter means in ``variant`` (for ``scopasim policies``)."""
    if key not in defaults(variant):
        raise ConfigError(f"{variant} has no point-policy parameter {key!r}")
    return _weights(variant).meanings.get(key) or COMMON_MEANINGS[key]


def defaults(variant: str) -> dict[str, float]:
    """Every parameter of the point policies for a game, with its default."""
    return {**_weights(variant).defaults, **COMMON}


def under_rules(variant: str, weights: Mapping[str, float], rules: Mapping[str, Any]) -> dict[str, float]:
    """The weights as they apply under ``rules`` (``HeuristicWeights.under_rules``; unchanged by default)."""
    scale = _weights(variant).under_rules
    return dict(weights) if scale is None else dict(scale(weights, rules))


def searcher_defaults(variant: str, policy: str) -> dict[str, float]:
    """The game's own defaults for a searching policy (mc, search), from its module; {} for none."""
    return dict(_weights(variant).searchers.get(policy, {}))


def suit_weight(variant: str, weights: Mapping[str, float], rules: Mapping[str, Any]) -> float:
    """Points per card of the suit whose count scores (valued by the kernels only while still open)."""
    return float(_weights(variant).suit_weight(weights, rules))


def card_points(variant: str, weights: Mapping[str, float], rules: Mapping[str, Any]) -> np.ndarray:
    """Points each card is worth to the side that takes it, for the kernels (float64[52])."""
    value = _weights(variant).card_points
    return np.array([value(weights, rules, c) for c in range(N_CARDS)], dtype=np.float64)
