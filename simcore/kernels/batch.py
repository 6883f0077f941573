"""The only parallel loop: games of a chunk spread over Numba threads.

Each game is a pure function of (seed, game index, rules, policies) and writes only its own rows, so the output
does not depend on the number of threads or on how the games are scheduled. Games are split into a fixed number
of contiguous blocks; a block allocates its scratch once and reuses it game after game. Between games a block
checks the chunk's stop flag and counts the games it has finished (``simcore.kernels.control``).
"""

from __future__ import annotations

from numba import prange

from simcore._jit import parallel_kernel
from simcore.kernels.control import BLOCKS, CONTROL_DONE, CONTROL_STOP, atomic_load, atomic_store
from simcore.kernels.game import make_scratch, play_game


@parallel_kernel
def run_games(games, seed, rules, policy_ids, params, out, trace, control, one_card, exchange, full):
    """Play ``games`` (int64 game indices) into ``out`` rows 0..len-1; ``trace`` records events per game.

    ``control`` (int64[CONTROL_SIZE]): a block stops before its next game once ``control[CONTROL_STOP]`` is set
    (the rows of games not played are then left as they were), and keeps ``control[CONTROL_DONE + block]`` at
    the number of games it has finished. ``one_card``, ``exchange``, ``full``: what the run needs compiled, each
    ``True`` or ``None`` (``engine.run_features``, ``deal.run_deal``).
    """
    n = games.shape[0]
    n_blocks = min(n, BLOCKS)
    for b in prange(n_blocks):
        s = make_scratch(rules, control)
        for done, slot in enumerate(range(b * n // n_blocks, (b + 1) * n // n_blocks), 1):
            if atomic_load(control, CONTROL_STOP) != 0:
                break
            play_game(
                slot,
                games[slot],
                seed,
                rules,
                policy_ids,
                params,
                out,
                s,
                slot if trace else -1,
                one_card,
                exchange,
                full,
            )
            atomic_store(control, CONTROL_DONE + b, done)
