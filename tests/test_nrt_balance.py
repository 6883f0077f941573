"""Every reference the kernels take on an array is given back: no leaked and no doubled release.

Most policy kernels are compiled without reference counting (``kernel(nrt=False)``), which is sound only while
none of them keeps an array it did not get from its caller: one that received a new reference (an array made or
sliced by a counting callee and returned) would leak the array, and a counting caller given an uncounted view as if
it were new would free it under the kernels' feet. Numba's runtime counts the memory blocks it allocates and frees
(``NUMBA_NRT_STATS``, read at start-up, hence the child process): after every policy of every game has played, each
block the kernels allocated has been freed exactly once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

CHILD = textwrap.dedent(
    """
    import gc, json
    import numpy as np
    from numba.core.runtime import rtsys
    from simcore.api import play_chunk
    from simcore.config import RunConfig

    SCOPA_ONLY = ("furbo", "tartaluca")
    POLICIES = ("random", "greedy", "points", "defensive", "lookahead", "mc:samples=2", "search:worlds=1",
                "random_card", *SCOPA_ONLY)
    GAMES = (("scopa", 2), ("scopa", 3), ("scopa", 4), ("kaszino", 2), ("skopa", 3), ("foracio", 4),
             ("scopone", 4), ("escoba", 2))
    warm = RunConfig.create("scopa", policies=("greedy",), games=1, seed=5)
    play_chunk(warm, np.arange(1, dtype=np.int64))  # the runtime starts (and its counters with it) on first use
    played = 0
    before = rtsys.get_allocation_stats()
    for variant, players in GAMES:
        for policy in POLICIES:
            if variant != "scopa" and policy in SCOPA_ONLY:
                continue
            config = RunConfig.create(variant, policies=(policy,), games=3, seed=5, rules={"players": players})
            out = play_chunk(config, np.arange(3, dtype=np.int64))
            played += int(out.n_plays.sum())
            del out
    gc.collect()
    after = rtsys.get_allocation_stats()
    print(json.dumps({"played": played, "mi_alloc": after.mi_alloc - before.mi_alloc,
                      "mi_free": after.mi_free - before.mi_free, "alloc": after.alloc - before.alloc,
                      "free": after.free - before.free}))
    """
)


def test_the_kernels_free_every_array_they_allocate_once():
    env = {**os.environ, "NUMBA_NRT_STATS": "1", "PYTHONPATH": str(Path(__file__).parents[1])}
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    stats = json.loads(proc.stdout.strip().splitlines()[-1])
    assert stats["played"] > 0
    assert stats["mi_alloc"] > 0  # the scratch arrays of every chunk, the lookahead's per-card values, ...
    assert stats["mi_alloc"] == stats["mi_free"], stats
    assert stats["alloc"] == stats["free"], stats
