"""Each game compiles to its own ``Rules`` type, and the kernels pick the game's code from that type.

``simcore.kernels.deal.game_deal`` and ``simcore.kernels.scoring.game_score`` choose the game when Numba types
``rules``: only the game a run plays is compiled, and a ``Rules`` that is not of a game's type (or whose variant
id is not its type's game) plays and scores nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numba
import pytest

from simcore import engine
from simcore.errors import ConfigError
from simcore.variants import VARIANTS, Rules, get_variant
from simcore.variants.base import GAME_OF_TYPE


def compiled(name: str) -> Rules:
    spec = get_variant(name)
    return spec.compile(spec.resolve({}))


def test_each_game_has_its_own_rules_type():
    rules = {name: compiled(name) for name in VARIANTS}
    assert len({type(r) for r in rules.values()}) == len(VARIANTS)
    assert len({numba.typeof(r) for r in rules.values()}) == len(VARIANTS)
    for r in rules.values():
        assert isinstance(r, Rules) and r._fields == Rules._fields
        assert GAME_OF_TYPE[type(r)] == r.variant
        assert type(r._replace(target=1)) is type(r)  # a rule set derived from a game's stays that game's


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_scoring_follows_the_type_not_the_variant_id(name):
    rules = compiled(name)
    assert engine.score_deal(rules, [rules.pack, 0], [0, 0]).shape == (rules.n_sides, rules.n_categories)
    with pytest.raises(ConfigError, match="not a registered game"):
        engine.score_deal(Rules(*rules), [rules.pack, 0], [0, 0])  # the base type: no game's code
    other = next(r for r in map(compiled, VARIANTS) if r.variant != rules.variant)
    with pytest.raises(ConfigError, match="not a registered game"):
        engine.score_deal(rules._replace(variant=other.variant), [rules.pack, 0], [0, 0])


COMPILES = textwrap.dedent(
    """
    import numpy as np
    from simcore.kernels import deal
    from simcore.kernels.game import new_scratch
    from simcore.variants import get_variant

    spec = get_variant("scopa")
    rules = spec.compile(spec.resolve({}))
    s = new_scratch(rules)
    deal.run_deal(rules, np.zeros(4, np.int64), np.zeros((4, 64)), s.gs, s.ps, np.zeros((1, 1, 7), np.int64), -1, 0, -1)
    print(len(deal.run_family.signatures), len(deal.run_kaszino.signatures))
    """
)


def test_a_scopa_deal_compiles_no_kaszino_loop():
    """In a fresh process without the on-disk cache (a cached caller never compiles its callees)."""
    env = {**os.environ, "SCOPASIM_NO_CACHE": "1"}
    result = subprocess.run([sys.executable, "-c", COMPILES], env=env, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "1 0"
