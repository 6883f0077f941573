"""The only parallel loop: games of a chunk spread over Numba threads.

Each game is a pure function of (seed, game index, rules, policies) and writes only its own rows, so the output
does not depend on the number of threads or on how the games are scheduled. Games are split into a fixed number
of contiguous blocks; a block allocates its scratch once and reuses it game after game.
"""

from __future__ import annotations

from numba import prange

from simcore._jit import parallel_kernel
from simcore.kernels.game import new_scratch, play_game

BLOCKS = 64


@parallel_kernel
def run_games(games, seed, rules, policy_ids, params, out, trace):
    """Play ``games`` (int64 game indices) into ``out`` rows 0..len-1; ``trace`` records events per game."""
    n = games.shape[0]
    n_blocks = min(n, BLOCKS)
    for b in prange(n_blocks):
        s = new_scratch(rules)
        for slot in range(b * n // n_blocks, (b + 1) * n // n_blocks):
            play_game(slot, games[slot], seed, rules, policy_ids, params, out, s, slot if trace else -1)
