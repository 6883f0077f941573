"""Default point weights of the ``points``, ``defensive`` and ``lookahead`` policies, per game.

Each weight is in deal points: what taking one such card is worth on average to the side that takes it. A
majority worth P points over a pack where about N cards settle it is worth about P / N per card (Scopa: 1 point
for most of 40 cards, so 0.05 per card; coins: 1 point for most of 10, so 0.2 per coin). Single scoring cards
are worth their points (the settebello 1, Kaszinó's big casino 2). The primiera weights approximate each
rank's share of the primiera point. Users override any of them: ``--policy points:settebello=3``.

``hold`` is what a trail gives up besides the card's points: points per unit of the card's capture value, since a
high card kept in hand can take more of the table later. Its defaults were measured in self-play against
``greedy`` (duplicate pairs, ``points:hold=H`` for a few values of H): trailing low cards first is worth about 2.5
points of win rate in Scopa, 1.5 in Kaszinó and 4 in Skopa, and it loses in Foracio, where it is 0.

``card_points`` turns the named weights into the per-card vector the kernels read (``params[0:52]``). Every
table here is keyed by the registered variant names (a test checks they match ``simcore.variants.VARIANTS``);
an unknown name is a ConfigError, never another game's weights.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from simcore.cards import CARD_RANK, CARD_SUIT, CLUBS, DIAMONDS, N_CARDS, SPADES, card_id
from simcore.errors import ConfigError

COMMON = {"sweep": 1.0, "risk": 1.0, "samples": 16.0}

WEIGHTS: dict[str, dict[str, float]] = {
    "scopa": {
        "hold": 0.1,
        "card": 0.05,
        "coin": 0.2,
        "settebello": 1.0,
        "seven": 0.3,
        "six": 0.15,
        "ace": 0.1,
        "napola": 0.3,
    },
    "kaszino": {"hold": 0.2, "card": 0.11, "spade": 0.28, "ace": 1.0, "little_casino": 1.0, "big_casino": 2.0},
    "foracio": {
        "hold": 0.0,
        "card": 0.074,
        "spade": 1.0,
        "two_spades": 1.0,
        "jack_spades": 1.0,
        "ten_diamonds": 1.0,
        "napoletana": 0.5,
    },
    "skopa": {"hold": 0.2, "card": 0.077, "club": 0.14, "two_clubs": 1.0, "ten_diamonds": 1.0},
}


MEANINGS: dict[str, str] = {
    "hold": "points per unit of capture value a trailed card gives up (a high card kept can take more later)",
    "card": "points per card taken while the cards majority is open",
    "sweep": "weight of sweep points (scope, táblas) and of Foracio's same-suit points",
    "risk": "weight of what the move leaves to the next player (defensive, lookahead, mc rollouts)",
    "samples": "sampled hands of the next player (lookahead)",
    "coin": "points per coin while the coins majority is open",
    "settebello": "points for the seven of coins (the settebello point)",
    "seven": "share of the primiera point for a seven",
    "six": "share of the primiera point for a six",
    "napola": "points for each of the ace, two and three of coins when napola is on",
    "spade": "Kaszinó: points per spade while the spades majority is open; Foracio: the seven of spades "
    "(per spade with spade_element=majority)",
    "little_casino": "points for the two of spades",
    "big_casino": "points for the ten of diamonds",
    "two_spades": "points for the two of spades",
    "jack_spades": "points for the jack of spades",
    "ten_diamonds": "points for the ten of diamonds",
    "napoletana": "points for each ace, two and three (napoletana runs)",
    "club": "points per club while the clubs majority is open",
    "two_clubs": "points for the two of clubs",
}
ACE_MEANING = {"scopa": "share of the primiera point for an ace", "kaszino": "points for each ace"}


def _known(variant: str) -> str:
    """``variant`` itself if the weights know it, else a ConfigError."""
    if variant not in WEIGHTS:
        shown = variant if len(variant) <= 40 else variant[:40] + "..."
        raise ConfigError(f"no policy weights for variant {shown!r} (known: {', '.join(WEIGHTS)})")
    return variant


def meaning(variant: str, key: str) -> str:
    """What a point-policy parameter means in ``variant`` (for ``scopasim policies``)."""
    if key not in defaults(variant):
        raise ConfigError(f"{variant} has no point-policy parameter {key!r}")
    return ACE_MEANING[variant] if key == "ace" else MEANINGS[key]


def defaults(variant: str) -> dict[str, float]:
    """Every parameter of the point policies for a game, with its default."""
    return {**WEIGHTS[_known(variant)], **COMMON}


SUIT_WEIGHT = {"scopa": "coin", "kaszino": "spade", "foracio": "spade", "skopa": "club"}


def suit_weight(variant: str, weights: Mapping[str, float], rules: Mapping[str, Any]) -> float:
    """Points per card of the suit whose count scores (valued by the kernels only while still open)."""
    if _known(variant) == "foracio" and rules["spade_element"] != "majority":
        return 0.0
    weight = weights[SUIT_WEIGHT[variant]]
    return weight / 7 if variant == "foracio" else weight


def _scopa_card(w: Mapping[str, float], rules: Mapping[str, Any], c: int) -> float:
    rank, suit = int(CARD_RANK[c]), int(CARD_SUIT[c])
    value = w["settebello"] * (c == card_id(7, DIAMONDS))
    value += {7: w["seven"], 6: w["six"], 1: w["ace"]}.get(rank, 0.0)
    return value + w["napola"] * (bool(rules["napola"]) and suit == DIAMONDS and rank <= 3)


def _kaszino_card(w: Mapping[str, float], rules: Mapping[str, Any], c: int) -> float:
    value = w["ace"] * (int(CARD_RANK[c]) == 1)
    return value + w["little_casino"] * (c == card_id(2, SPADES)) + w["big_casino"] * (c == card_id(10, DIAMONDS))


def _foracio_card(w: Mapping[str, float], rules: Mapping[str, Any], c: int) -> float:
    value = w["spade"] * (c == card_id(7, SPADES)) * (rules["spade_element"] != "majority")
    value += w["two_spades"] * (c == card_id(2, SPADES)) + w["jack_spades"] * (c == card_id(11, SPADES))
    return value + w["ten_diamonds"] * (c == card_id(10, DIAMONDS)) + w["napoletana"] * (int(CARD_RANK[c]) <= 3)


def _skopa_card(w: Mapping[str, float], rules: Mapping[str, Any], c: int) -> float:
    return w["two_clubs"] * (c == card_id(2, CLUBS)) + w["ten_diamonds"] * (c == card_id(10, DIAMONDS))


CARD_VALUE = {"scopa": _scopa_card, "kaszino": _kaszino_card, "foracio": _foracio_card, "skopa": _skopa_card}


def card_points(variant: str, weights: Mapping[str, float], rules: Mapping[str, Any]) -> np.ndarray:
    """Points each card is worth to the side that takes it, for the kernels (float64[52])."""
    value = CARD_VALUE[_known(variant)]
    return np.array([value(weights, rules, c) for c in range(N_CARDS)], dtype=np.float64)
