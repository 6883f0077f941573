"""The batch kernel: the games of a chunk, in blocks that worker threads claim one at a time.

Each game is a pure function of (seed, game index, rules, policies) and writes only its own rows, so the output
does not depend on the number of threads or on how the games are scheduled. Games are split into a fixed number
of contiguous blocks; a block allocates its scratch once and reuses it game after game. Between games a block
checks the chunk's stop flag and counts the games it has finished (``simcore.kernels.control``).

Why not a Numba ``prange``: a parallel kernel goes through Numba's parfor pipeline and is compiled as two LLVM
libraries, the parfor's body as a gufunc (the whole game loop linked in and optimised) and the kernel that
launches it (linked with the first and optimised again): one more pass over the whole loop than a plain kernel
(``numba/parfors/parfor_lowering.py`` compiles the body with ``compile_ir``; ``CodeLibrary.finalize`` optimises
each library with what it links). The cold compile of a greedy Scopa run (import and the
first 100 games) took a median 8.8 CPU-s more with it (7 interleaved fresh-cache pairs: 42-55 CPU-s with it,
33-45 without; ``DESIGN.md``), for about the same machine code (``run_games`` cached at 662 KB against 635 KB).
``run_games`` is an ordinary nogil kernel instead; ``simcore.engine`` calls it from as many threads as the run
asks for, on the same control array, and each call plays the blocks it claims (``CONTROL_NEXT``) until none is
left or the chunk is stopped. Called once, it plays them all. Each call brings its scratch (``engine`` allocates
it), so the kernel itself allocates nothing.
"""

from __future__ import annotations

from simcore._jit import kernel
from simcore.kernels.control import (
    BLOCKS,
    CONTROL_DONE,
    CONTROL_NEXT,
    CONTROL_STOP,
    atomic_add,
    atomic_load,
    atomic_store,
)
from simcore.kernels.game import fill_rule_info, play_game


@kernel(nrt=False, entry=True)
def run_games(games, seed, rules, policy_ids, params, out, trace, control, s, one_card, exchange, full, tree=True):
    """Play the blocks of ``games`` (int64 game indices) not yet claimed into ``out`` rows 0..len-1; ``trace``
    records events per game.

    ``control`` (int64[CONTROL_SIZE]): a block stops before its next game once ``control[CONTROL_STOP]`` is set
    (the rows of games not played are then left as they were), and keeps ``control[CONTROL_DONE + block]`` at
    the number of games it has finished; ``control[CONTROL_NEXT]`` is the next block to claim, shared by every
    thread running this call on the same chunk. ``s``: the scratch of this call (``game.make_scratch`` on the
    same ``control``), reused game after game (every game resets what it reads). ``one_card``, ``exchange``,
    ``full``, ``tree``: what the run needs compiled, each ``True`` or ``None`` (``engine.run_features``,
    ``deal.run_deal``; ``tree``: search, ``engine.search_feature``).

    One kernel down to the deal loop (``play_game`` is inlined), without reference counting (it allocates
    nothing, and every array it passes on outlives it). A kernel is optimised and compiled to machine code with
    the kernels it calls linked in, so each level of the chain costs the whole chain below it again: with the
    blocks, the games and the game as three kernels, the levels above the deal loop took 5 s of a greedy Scopa
    run's cold compile where this one takes 2.5 s.
    """
    fill_rule_info(s.ps, rules)  # the rules' slots of the decision spaces: no game writes them
    fill_rule_info(s.rollout_ps, rules)
    n = games.shape[0]
    n_blocks = min(n, BLOCKS)
    while atomic_load(control, CONTROL_STOP) == 0:  # a stopped chunk claims no more blocks
        b = atomic_add(control, CONTROL_NEXT, 1)
        if b >= n_blocks:
            return
        start, stop = b * n // n_blocks, (b + 1) * n // n_blocks
        for done, slot in enumerate(range(start, stop), 1):
            if atomic_load(control, CONTROL_STOP) != 0:
                break
            ev_slot = slot if trace else -1
            play_game(
                slot, games[slot], seed, rules, policy_ids, params, out, s, ev_slot, one_card, exchange, full, tree
            )
            atomic_store(control, CONTROL_DONE + b, done)
