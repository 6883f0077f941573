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
``simcore.reference.rng`` implements the same scheme on Python ints, independently, for the differential tests.
"""

from __future__ import annotations

import numpy as np

from simcore._jit import kernel

RNG_SCHEME = "splitmix64-lemire32/2"
DEAL_STREAM = 0
MAX_SEED = (1 << 63) - 1


def _signed(x: int) -> int:
    return x - (1 << 64) if x >= 1 << 63 else x


GOLDEN = np.int64(_signed(0x9E3779B97F4A7C15))
SPLIT = np.int64(_signed(0xD1B54A32D192ED03))  # odd, and unrelated to GOLDEN
_M1 = np.int64(_signed(0xBF58476D1CE4E5B9))
_M2 = np.int64(_signed(0x94D049BB133111EB))
_LOW32 = np.int64(0xFFFFFFFF)


@kernel
def mix64(z: np.int64) -> np.int64:
    """SplitMix64 finaliser on int64 bits."""
    z = (z ^ ((z >> 30) & 0x3FFFFFFFF)) * _M1
    z = (z ^ ((z >> 27) & 0x1FFFFFFFFF)) * _M2
    return z ^ ((z >> 31) & 0x1FFFFFFFF)


@kernel
def stream_state(seed: np.int64, game: np.int64, stream: np.int64) -> np.int64:
    """Initial state of stream ``stream`` (0..7) of game ``game`` under master seed ``seed``."""
    key = mix64(seed + GOLDEN)
    return mix64(key + mix64(game * 8 + stream + 1))


@kernel
def split_stream(state: np.int64, substream: np.int64) -> np.int64:
    """Initial state of substream ``substream`` (>= 1) of the stream whose initial state is ``state``."""
    return mix64(state ^ mix64(substream * SPLIT))


@kernel
def substream_state(seed: np.int64, game: np.int64, stream: np.int64, substream: np.int64) -> np.int64:
    """Initial state of substream ``substream`` of stream ``stream`` of game ``game`` (substream 0: the stream)."""
    state = stream_state(seed, game, stream)
    return state if substream == 0 else split_stream(state, substream)


@kernel
def next64(states, i):
    """Advance stream ``i`` of the ``states`` array and return 64 random bits (as int64)."""
    s = states[i] + GOLDEN
    states[i] = s
    return mix64(s)


@kernel
def draw_bounded(state, n):
    """(new state, uniform integer in ``0..n-1``) of a stream held in a local (``1 <= n < 2**31``): Lemire's
    method, unbiased. The shuffle keeps the deal stream in a register with it; ``bounded`` is the same draw."""
    state += GOLDEN
    m = ((mix64(state) >> 32) & _LOW32) * n
    low = m & _LOW32
    if low < n:
        threshold = ((1 << 32) - n) % n
        while low < threshold:
            state += GOLDEN
            m = ((mix64(state) >> 32) & _LOW32) * n
            low = m & _LOW32
    return state, m >> 32


@kernel
def bounded(states, i, n):
    """Uniform integer in ``0..n-1`` (``1 <= n < 2**31``) from stream ``i`` of ``states`` (``draw_bounded``)."""
    state, value = draw_bounded(states[i], n)
    states[i] = state
    return value
