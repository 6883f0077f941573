"""The last Part B options of Foracio and Kaszinó (issue 15): Kaszinó's ``stake_multiplier`` (K13), ``out_call=
"manual"`` with ``false_call`` (K13), and Foracio's ``no_scopa_rule`` (F8).

Each option: what it changes, in worked positions or games of both engines (the Numba kernels and the plain-Python
reference), that the defaults are unchanged, and that the key is validated and recorded. Whole games under the
options are also compared engine against reference in ``test_differential_variants.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from simcore import api
from simcore.config import RunConfig
from simcore.errors import ConfigError
from simcore.reference import kaszino as rk
from simcore.results import games_table
from simcore.variants import get_variant

FORACIO, KASZINO = get_variant("foracio"), get_variant("kaszino")


# ------------------------------------------------------------------------------ Kaszinó stake_multiplier


def test_k13_stake_multiplier_doubles_a_first_deal_win_in_the_games_table():
    """A game won in its first deal (mid-deal AUSZ or at the deal's end) has stake 2, a longer one 1; the games
    play as without the key (same winners, totals, deals), and without it the table has no stake column."""
    games = np.arange(120, dtype=np.int64)
    on = RunConfig.create("kaszino", policies=["greedy", "random"], rules={"stake_multiplier": "first_deal_double"})
    off = RunConfig.create("kaszino", policies=["greedy", "random"])
    out_on, out_off = api.play_chunk(on, games), api.play_chunk(off, games)
    for name in ("winner", "totals", "n_deals", "mid_deal"):
        assert np.array_equal(getattr(out_on, name), getattr(out_off, name)), name
    table = games_table(on, games, out_on)
    stake = table.column("stake").to_numpy()
    deals = table.column("deals").to_numpy()
    assert table.schema.field("stake").type == "int8"
    assert np.array_equal(stake, np.where(deals == 1, 2, 1))
    assert 0 < (stake == 2).sum() < len(games)  # both kinds occur: games of one deal and longer ones
    assert "stake" not in games_table(off, games, out_off).column_names
    assert games_table(off, games, out_off).column_names == [c for c in table.column_names if c != "stake"]


def test_k13_stake_multiplier_is_validated_and_recorded():
    with pytest.raises(ConfigError, match="not allowed"):
        KASZINO.resolve({"stake_multiplier": "triple"})
    trace = api.trace(RunConfig.create("kaszino", rules={"stake_multiplier": "first_deal_double"}, games=1), [0])[0]
    assert trace["rules"]["stake_multiplier"] == "first_deal_double"
    assert trace == rk.play_game(trace["seed"], 0, trace["rules"], trace["policies"])  # no effect on play
