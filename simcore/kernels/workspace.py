"""Layouts of a worker's two int64 work arrays: the game state, and the seat's decision space.

Why flat arrays: Numba reference-counts every array a jitted function receives or extracts, with an atomic
increment and decrement per array per call. Measured here (perf), passing half a dozen arrays to the move
generator and the policy on every play spent 73% of the time in those atomic operations. So the hot state lives
in two flat arrays, and ``borrow`` gives the game loop views of them that carry no reference count at all.

Why two: a policy must not be able to read what its seat may not know. The game state (hands of every seat, the
stock) stays in ``gs``; the policy only ever receives ``ps``, which holds the seat's view, the legal moves, the
card weights and the policy random streams.

Game state ``gs`` (int64 slots)::

    HANDS     [4]    hand mask of each seat
    PILES     [4]    capture pile mask of each side (this deal)
    SWEEPS    [4]    counted sweeps of each side (this deal)
    TOTALS    [4]    game total of each side, banked before this deal
    SWEEP_PTS [4]    sweep points of each side this deal (scope, táblas)
    SAME_SUIT [4]    Foracio same-suit capture points of each side this deal
    DEAL_RNG  [1]    state of the deal stream
    DECK      [52]   the shuffled pack

Decision space ``ps`` (int64 slots)::

    VIEW    [23]     what the seat to move may know (see simcore.kernels.game VIEW_*)
    MOVE_OVERFLOW [1] set when a position has more legal moves than the buffer holds (Kaszinó without a cap)
    RNG     [8]      policy stream of seat s at RNG + 1 + s
    WEIGHT  [52]     heuristic weight of each card (Rules.card_weight)
    RI_*    [20]     the rules a policy may need to look ahead (pack, capture rules, sweep values)
    TCARDS  [16]     compressed table cards for the subset sums
    SUMS    [1024]   value sum of each compressed table subset
    MOVES   [2 * max_moves]  legal moves as (played mask, taken mask) pairs
    --- then a second space of the same layout (``reply_space``), where look-ahead policies list the replies
    --- then SAMPLE [MAX_SAMPLES] sampled hidden hands
"""

from __future__ import annotations

from numba import carray, types
from numba.extending import intrinsic

from simcore._jit import kernel

# game state
HANDS = 0
PILES = 4
SWEEPS = 8
TOTALS = 12
SWEEP_PTS = 16
SAME_SUIT = 20
DEAL_RNG = 24
DECK = 28
GAME_STATE_SIZE = DECK + 52

# decision space
VIEW = 0
MOVE_OVERFLOW = 23
RNG = 24
WEIGHT = 32
RI_PACK = 84
RI_SUM_MASK = 85
RI_VALUE_BY_RANK = 86
RI_RANK_ONLY = 87
RI_PRIORITY = 88
RI_SWEEP_MODE = 89
RI_SWEEP_POINTS = 90
RI_SWEEP_VALUE_BY_RANK = 91
RI_LAST_SWEEP = 92
RI_ACE_SWEEPS = 93
RI_SAME_SUIT = 94
RI_FORCED = 95
RI_ACE_ON_EMPTY = 96
RI_MAX_SUM = 97
RI_MAX_HAND = 98
RI_VARIANT = 99
RI_PLAYERS = 100
RI_CARDS_TARGET = 101
RI_COUNT_SUIT = 102
RI_COUNT_SUIT_TARGET = 103
TCARDS = 104
SMALL_TABLE = 10  # tables with at most this many sum cards use the compressed subset sums
SUMS = 120
MOVES = SUMS + (1 << SMALL_TABLE)
MAX_SAMPLES = 256


def move_space_size(max_moves: int) -> int:
    """Slots of one move space (view, rules, subset sums, moves) for ``max_moves`` moves."""
    return MOVES + 2 * max_moves


def decision_space_size(max_moves: int) -> int:
    """Slots of a whole decision space: the seat's move space, a reply space, and the samples."""
    return 2 * move_space_size(max_moves) + MAX_SAMPLES


@kernel
def seat_space(ps):
    """The seat's own move space of ``ps``: the move generators write the legal moves there."""
    return ps[: (ps.shape[0] - MAX_SAMPLES) // 2]


@kernel
def reply_space(ps):
    """The second move space of ``ps`` (same layout), for listing the replies to a candidate move."""
    size = (ps.shape[0] - MAX_SAMPLES) // 2
    return ps[size : 2 * size]


@kernel
def sample_base(ps):
    """Offset of the sample slots of ``ps``."""
    return ps.shape[0] - MAX_SAMPLES


@intrinsic
def _address_to_pointer(typingctx, address):
    """int64 address -> int64* (for ``borrow``)."""
    sig = types.CPointer(types.int64)(address)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(signature.return_type))

    return sig, codegen


@kernel
def borrow(arr):
    """A view of an int64 array without reference counting (no meminfo).

    Only for the work arrays, whose owner (the worker's ``Scratch``) outlives every use of the view: passing
    the view to helpers on every play costs a null test instead of two atomic operations per call.
    """
    return carray(_address_to_pointer(arr.ctypes.data), arr.shape[0])
