"""Every reference the kernels take on an array is given back: no leaked and no doubled release.

Most policy kernels are compiled without reference counting (``kernel(nrt=False)``), which is sound only while
none of them keeps an array it did not get from its caller: one that received a new reference (an array made or
sliced by a counting callee and returned) would leak the array, and a counting caller given an uncounted view as if
it were new would free it under the kernels' feet. Numba's runtime counts the memory blocks it allocates and frees
(``NUMBA_NRT_STATS``, read at start-up, hence the child process): after every registered policy of every registered
game has played at each of its player counts, each block the kernels allocated has been freed exactly once.
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
    from simcore.policies import POLICIES
    from simcore.variants import VARIANTS

    BUDGET = {"mc": "mc:samples=2", "search": "search:worlds=1"}  # every code path, at a fraction of the cost
    warm = RunConfig.create("scopa", policies=("greedy",), games=1, seed=5)
    play_chunk(warm, np.arange(1, dtype=np.int64))  # the runtime starts (and its counters with it) on first use
    played = 0
    before = rtsys.get_allocation_stats()
    for variant, spec in VARIANTS.items():  # every registered game, at each of its player counts
        for players in spec.key("players").choices or (spec.key("players").default,):
            for name, policy in POLICIES.items():
                if policy.games and variant not in policy.games:
                    continue
                config = RunConfig.create(variant, policies=(BUDGET.get(name, name),), games=3, seed=5,
                                          rules={"players": players})
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
