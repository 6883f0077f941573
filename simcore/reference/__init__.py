"""Slow, literal pure-Python reference engines, compared game by game with the Numba kernels.

Nothing here imports ``simcore.rng``, ``simcore.kernels`` or ``simcore.policies``: the reference is an
independent implementation of the written procedure. One module per game (``scopa``, ``skopa``, ``kaszino``,
``foracio``, ``scopone``: that game's rules) over a small shared core: ``rng`` (the random streams), ``common``
(cards, seats, dealing, the winner), ``captures`` (subset-sum search, compulsion), ``policies`` ("random",
"greedy"), ``piles`` (deal state, trail or capture, residue), ``events`` (trace events), ``checking`` (trace-check
plumbing), ``stock`` (the loop and check of Scopa, Skopa and Scopone), ``replay`` (Scopa's trace check).
"""
