"""Reference random streams on plain Python ints (scheme ``splitmix64-lemire32/2``).

Written independently of ``simcore.rng`` (the Numba version) so that the differential tests compare two
implementations of the same written scheme. Every value is an unsigned integer reduced mod 2**64:

* ``mix64(z)``: the SplitMix64 finaliser.
* A stream of ``(seed, game, stream)`` starts at ``mix64(key + mix64(game * 8 + stream + 1))`` with
  ``key = mix64(seed + GOLDEN)``.
* Substream ``j >= 1`` of a stream that starts at ``s`` starts at ``mix64(s ^ mix64(j * SPLIT))``; substream 0
  is the stream itself. (The reference engines play no Monte Carlo seat, the only user of substreams; the
  tests compare this twin with the kernels' ``substream_state``.)
* ``next64``: ``state += GOLDEN``; return ``mix64(state)``.
* ``draw32``: the top 32 bits of ``next64``.
* ``bounded(n)``: Lemire's multiply-shift with rejection, exactly uniform on ``0..n-1``.

Stream 0 of a game is the deal stream (first dealer, shuffles); stream ``1 + seat`` is that seat's policy
stream.
"""

from __future__ import annotations

RNG_SCHEME = "splitmix64-lemire32/2"
DEAL_STREAM = 0

MASK64 = (1 << 64) - 1
MASK32 = (1 << 32) - 1
GOLDEN = 0x9E3779B97F4A7C15
SPLIT = 0xD1B54A32D192ED03
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB


def mix64(z: int) -> int:
    """SplitMix64 finaliser of a 64-bit unsigned value."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * MIX1) & MASK64
    z = ((z ^ (z >> 27)) * MIX2) & MASK64
    return z ^ (z >> 31)


def stream_start(seed: int, game: int, stream: int) -> int:
    """Initial state of stream ``stream`` of game ``game`` under master seed ``seed``."""
    key = mix64((seed + GOLDEN) & MASK64)
    return mix64((key + mix64((game * 8 + stream + 1) & MASK64)) & MASK64)


def substream_start(seed: int, game: int, stream: int, substream: int) -> int:
    """Initial state of substream ``substream`` of stream ``stream`` of game ``game`` (0: the stream itself)."""
    start = stream_start(seed, game, stream)
    if substream == 0:
        return start
    return mix64(start ^ mix64((substream * SPLIT) & MASK64))


def policy_stream_index(seat: int) -> int:
    """Stream number of a seat's policy."""
    return 1 + seat


class Stream:
    """One random stream of one game: 64-bit outputs and unbiased bounded integers."""

    def __init__(self, seed: int, game: int, stream: int) -> None:
        if not 0 <= stream < 8:
            raise ValueError(f"stream must be in 0..7, got {stream}")
        self.seed, self.game, self.stream = seed, game, stream
        self.state = stream_start(seed, game, stream)

    def next64(self) -> int:
        """Advance the state by GOLDEN and return 64 random bits."""
        self.state = (self.state + GOLDEN) & MASK64
        return mix64(self.state)

    def draw32(self) -> int:
        """32 random bits: the top half of the next 64-bit output."""
        return self.next64() >> 32

    def bounded(self, n: int) -> int:
        """Uniform integer in ``0..n-1`` for ``1 <= n < 2**31`` (Lemire's method with rejection)."""
        if not 1 <= n < 1 << 31:
            raise ValueError(f"bounded(n) needs 1 <= n < 2**31, got {n}")
        m = self.draw32() * n
        low = m & MASK32
        if low < n:
            threshold = ((1 << 32) - n) % n
            while low < threshold:
                m = self.draw32() * n
                low = m & MASK32
        return m >> 32
