"""Counter-based random streams: a run is a pure function of (seed, game index, stream, substream).

Scheme ``splitmix64-lemire32/2`` (recorded in every result's metadata):

* ``key = mix64(seed + GOLDEN)``; the stream of ``(game, stream)`` (``0 <= stream < 8``) starts at
  ``state = mix64(key + mix64(game * 8 + stream + 1))`` (``stream_state``).
* A stream splits into substreams (``split_stream``): substream ``j >= 1`` of the stream whose initial state is
  ``s`` starts at ``mix64(s ^ mix64(j * SPLIT))``, ``SPLIT`` an odd constant of its own; substream 0 is the
  stream itself. So every substream is a function of (seed, game, stream, substream) (``substream_state``), and
  its start is a pseudo-random point of the 2**64 cycle, unrelated to its neighbours' (a test checks that the
  first 10**5 outputs of neighbouring substreams never meet, even shifted, and are uncorrelated).
* Each step: ``state += GOLDEN``; output ``mix64(state)`` (SplitMix64, which passes BigCrush per stream).
* A 32-bit draw is the output's top half; ``bounded(n)`` is Lemire's multiply-shift with rejection, so it is
  exactly uniform on ``0..n-1``.
* Stream 0 deals (shuffles, first dealer), stream ``1 + seat`` serves that seat's policy. Deals therefore do
  not depend on the policies, which makes policy comparisons paired for free. A Monte Carlo seat's rollouts draw
  from substreams of its stream: rollout seat ``k`` of the seat's sample number ``n`` (counted over the game)
  uses substream ``1 + 4 * n + k``.

Scheme 1 differed only in the rollout streams (seat ``k``'s was the sample's seed plus ``(k + 1) * GOLDEN``, so
seat ``k + 1`` replayed seat ``k``'s numbers one draw later): only games with an ``mc`` seat changed in scheme 2.

All arithmetic is on int64 with wrap-around; logical right shifts are arithmetic shifts masked to the kept bits.
The sums and products that overflow (the multiplications of ``mix64``, ``state + GOLDEN``, the keys) go through
``wrapping_add`` and ``wrapping_mul``: Numba emits a signed ``+``, ``-`` or ``*`` with LLVM's ``nsw`` flag ("no
signed wrap", ``numba/cpython/numbers.py`` ``_int_arith_flags``), so an overflowing ``a * b`` on int64 is undefined,
not wrapped, and the optimiser may assume it never happens. It mostly produced the wrapped value anyway, but not
everywhere: where a caller's constant argument let LLVM fold across two draws (``draw(rng, 1 << 30)`` then
``draw(rng, n)``, as ``examples/policies/tempered.py`` does), the second draw came out wrong, and differently in a
freshly compiled user policy and in the same policy loaded from Numba's cache (``tests/test_user_policies_cache.py``).
``simcore.reference.rng`` implements the same scheme on Python ints, independently, for the differential tests.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import intrinsic

from simcore._jit import kernel, llvm_inline_kernel

RNG_SCHEME = "splitmix64-lemire32/2"
DEAL_STREAM = 0
MAX_SEED = (1 << 63) - 1


def _signed(x: int) -> int:
    return x - (1 << 64) if x >= 1 << 63 else x


GOLDEN = np.int64(_signed(0x9E3779B97F4A7C15))
SPLIT = np.int64(_signed(0xD1B54A32D192ED03))  # odd, and unrelated to GOLDEN
_M1 = np.int64(_signed(0xBF58476D1CE4E5B9))
_M2 = np.int64(_signed(0x94D049BB133111EB))
LOW32 = np.int64(0xFFFFFFFF)


def _wrapping(op: str):
    """An int64 ``op`` (``add``, ``mul``) that wraps modulo 2**64: LLVM's instruction without the ``nsw`` flag."""

    def typer(typingctx, a, b):
        if not (isinstance(a, types.Integer) and isinstance(b, types.Integer)):
            return None

        def codegen(context, builder, signature, args):
            x = context.cast(builder, args[0], signature.args[0], types.int64)
            y = context.cast(builder, args[1], signature.args[1], types.int64)
            return getattr(builder, op)(x, y)

        return types.int64(a, b), codegen

    typer.__name__ = f"wrapping_{op}"
    return intrinsic(typer)


wrapping_add = _wrapping("add")
"""``a + b`` on int64, wrapped (defined on overflow, unlike Numba's ``+``; see the module docstring)."""
wrapping_mul = _wrapping("mul")
"""``a * b`` on int64, wrapped (defined on overflow, unlike Numba's ``*``; see the module docstring)."""


@llvm_inline_kernel
def mix64(z: np.int64) -> np.int64:
    """SplitMix64 finaliser on int64 bits."""
    z = wrapping_mul(z ^ ((z >> 30) & 0x3FFFFFFFF), _M1)
    z = wrapping_mul(z ^ ((z >> 27) & 0x1FFFFFFFFF), _M2)
    return z ^ ((z >> 31) & 0x1FFFFFFFF)


@kernel(nrt=False)
def stream_state(seed: np.int64, game: np.int64, stream: np.int64) -> np.int64:
    """Initial state of stream ``stream`` (0..7) of game ``game`` under master seed ``seed``."""
    key = mix64(wrapping_add(seed, GOLDEN))
    return mix64(wrapping_add(key, mix64(game * 8 + stream + 1)))


@kernel(nrt=False)
def split_stream(state: np.int64, substream: np.int64) -> np.int64:
    """Initial state of substream ``substream`` (>= 1) of the stream whose initial state is ``state``."""
    return mix64(state ^ mix64(wrapping_mul(substream, SPLIT)))


@kernel(nrt=False)
def substream_state(seed: np.int64, game: np.int64, stream: np.int64, substream: np.int64) -> np.int64:
    """Initial state of substream ``substream`` of stream ``stream`` of game ``game`` (substream 0: the stream)."""
    state = stream_state(seed, game, stream)
    return state if substream == 0 else split_stream(state, substream)


@kernel(nrt=False)
def next64(states, i):
    """Advance stream ``i`` of the ``states`` array and return 64 random bits (as int64)."""
    s = wrapping_add(states[i], GOLDEN)
    states[i] = s
    return mix64(s)


@llvm_inline_kernel
def draw_bounded(state, n):
    """(new state, uniform integer in ``0..n-1``) of a stream held in a local (``1 <= n < 2**31``): Lemire's
    method, unbiased. The shuffle keeps the deal stream in a register with it; ``bounded`` is the same draw."""
    state = wrapping_add(state, GOLDEN)
    m = ((mix64(state) >> 32) & LOW32) * n
    low = m & LOW32
    if low < n:
        threshold = ((1 << 32) - n) % n
        while low < threshold:
            state = wrapping_add(state, GOLDEN)
            m = ((mix64(state) >> 32) & LOW32) * n
            low = m & LOW32
    return state, (m >> 32) & LOW32  # the mask tells LLVM the value is not negative: no index wraparound


@llvm_inline_kernel
def bounded(states, i, n):
    """Uniform integer in ``0..n-1`` (``1 <= n < 2**31``) from stream ``i`` of ``states`` (``draw_bounded``)."""
    state, value = draw_bounded(states[i], n)
    states[i] = state
    return value
