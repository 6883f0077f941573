"""Slow, literal pure-Python reference engines, compared game by game with the Numba kernels.

Nothing here imports ``simcore.rng`` or ``simcore.kernels``: the reference is an independent implementation of
the written procedure (``rng``: the random streams; ``scopa``: the game; ``replay``: a trace checker).
"""
