"""A user policy that draws plays the same games compiled in this process or loaded from Numba's cache, and they
are the games of its documented stream (issue 13: a run is a pure function of variant, rules, policies, seed and
game index).

The bug these pin: ``simcore.rng``'s int64 arithmetic overflowed through Numba's ``+`` and ``*``, which LLVM
compiles as "no signed wrap" (overflow undefined). ``examples/policies/tempered.py`` draws with a constant bound
(``draw(rng, 1 << 30)``) and then with the number of moves; compiled fresh and loaded from the cache it played
different games (2000 games, seed 5: 269172 plays and 1022 wins of seat 1, against 267876 and 1031).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np

from simcore._jit import cache_dir
from simcore.config import RunConfig
from simcore.kernels.game import fill_rule_info
from simcore.kernels.workspace import TRAIL_CLASSES, WEIGHT, decision_space_size
from simcore.play import Game
from simcore.policies.api import draw
from simcore.reference.rng import Stream

ROOT = Path(__file__).resolve().parents[1]
TEMPERED_FILE = ROOT / "examples" / "policies" / "tempered.py"
TEMPERED = f"{TEMPERED_FILE}:tempered"
GAMES, SEED = 300, 5

RUN = """
import json, sys
import numpy as np
from simcore import api
from simcore.config import RunConfig
config = RunConfig.create("scopa", policies=(sys.argv[1], "greedy"), games=int(sys.argv[2]), seed=int(sys.argv[3]))
out = api.play_chunk(config, np.arange(config.games, dtype=np.int64))
print(json.dumps({f: np.asarray(getattr(out, f)).tolist() for f in out._fields}))
"""


@numba.njit(cache=False)
def _two_draws(rng, n):
    first = draw(rng, 1 << 30)
    return first, draw(rng, n)


def test_issue_13_a_constant_bound_then_a_variable_one_draws_the_documented_stream():
    """The smallest form of the bug: the second draw came out as ``m``, not ``m >> 32`` (3518722964 for n=4)."""
    for state in (12345, -987654321987, 5555555555555, -1):
        for n in (1, 2, 4, 7, 40):
            ref = Stream(0, 0, 1)
            ref.state = state % (1 << 64)
            rng = np.array([state], np.int64)
            assert _two_draws(rng, n) == (ref.bounded(1 << 30), ref.bounded(n)), (state, n)
            assert int(rng[0]) % (1 << 64) == ref.state


def _run(cache: Path) -> dict:
    env = {**os.environ, "SCOPASIM_CACHE_DIR": str(cache)}
    env.pop("SCOPASIM_NO_CACHE", None)
    done = subprocess.run(
        [sys.executable, "-c", RUN, TEMPERED, str(GAMES), str(SEED)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def _user_cache_files(cache: Path) -> dict[str, int]:
    return {str(p): p.stat().st_mtime_ns for p in cache.rglob("*") if p.is_file() and "user" in p.parent.name}


def _replayed(games: int) -> list[tuple[int, int]]:
    """(plays, winner) of each game with seat 0's ``tempered`` run as plain Python, drawing by hand from its documented
    stream (seed, game, stream 1 + seat) with the reference twin ``simcore.reference.rng``."""
    namespace: dict = {}
    exec(compile(TEMPERED_FILE.read_text(), str(TEMPERED_FILE), "exec"), namespace)
    namespace["draw"] = lambda stream, n: stream.bounded(int(n))
    namespace["popcount"] = lambda mask: bin(int(mask) % (1 << 64)).count("1")
    namespace["lowest"] = lambda mask: (int(mask) & -int(mask)).bit_length() - 1
    tempered, params = namespace["tempered"], np.array(list(namespace["PARAMETERS"].values()))
    config = RunConfig.create("scopa", policies=(TEMPERED, "greedy"), games=games, seed=SEED)
    rules = config.compiled_rules()
    ps = np.zeros(decision_space_size(rules.max_moves), np.int64)
    fill_rule_info(ps, rules)
    plays = []
    for g in range(games):
        game, stream, n = Game.from_config(config, g), Stream(SEED, g, 1), 0
        while not game.over:
            n += 1
            if game.seat != 0:
                game.step()
                continue
            moves = np.array([(m.play, m.take) for m in game.moves()], np.int64)
            game.play(tempered(game.view_array(), ps[WEIGHT:TRAIL_CLASSES], moves, stream, params))
        plays.append((n, game.winner))
    return plays


def test_issue_13_a_drawing_user_policy_plays_the_same_games_compiled_or_cached(tmp_path):
    """One process compiles ``tempered`` (its ``draw``s: a constant bound, then the number of moves), another loads
    it from the cache: the same rows, and the games of the policy replayed by hand from its stream."""
    cache = tmp_path / "cache"
    kernels = cache_dir()
    if kernels.is_dir():  # the game loop from this session's cache, so only the user policy compiles
        shutil.copytree(kernels, cache / kernels.name, ignore=shutil.ignore_patterns("user*"))
    fresh = _run(cache)
    compiled = _user_cache_files(cache)
    assert any(name.endswith(".nbc") for name in compiled)  # the first process compiled it and cached it
    cached = _run(cache)
    assert _user_cache_files(cache) == compiled  # the second one loaded it: nothing recompiled or rewritten
    for field in fresh:
        assert fresh[field] == cached[field], field
    games = 12
    assert list(zip(fresh["n_plays"][:games], fresh["winner"][:games], strict=True)) == _replayed(games)
