"""Layout of a worker's workspace: one int64 array that holds every piece of hot game state.

Why one array: Numba reference-counts every array a jitted function receives or extracts, with an atomic
increment and decrement per array per call. Measured here, passing half a dozen arrays to the move generator and
the policy on every play cost more than the game logic itself (73% of the time in the refcount operations).
With one workspace the per-play helpers receive a single array and scalars, and ``borrow`` gives the game loop
a view of it that carries no reference count at all.

Offsets (int64 slots)::

    HANDS   [4]      hand mask of each seat
    PILES   [4]      capture pile mask of each side (this deal)
    SWEEPS  [4]      counted sweeps of each side (this deal)
    TOTALS  [4]      game total of each side
    VIEW    [16]     what the seat to move may know (see simcore.kernels.game VIEW_*)
    RNG     [8]      random stream states: 0 = deals, 1 + seat = that seat's policy
    WEIGHT  [52]     heuristic weight of each card (Rules.card_weight)
    DECK    [52]     the shuffled pack
    TCARDS  [16]     compressed table cards for the subset sums
    SUMS    [1024]   value sum of each compressed table subset
    MOVES   [2 * max_moves]  legal moves as (played mask, taken mask) pairs
"""

from __future__ import annotations

from numba import carray, types
from numba.extending import intrinsic

from simcore._jit import kernel

HANDS = 0
PILES = 4
SWEEPS = 8
TOTALS = 12
VIEW = 16
RNG = 32
WEIGHT = 40
DECK = 92
TCARDS = 144
SMALL_TABLE = 10  # tables with at most this many sum cards use the compressed subset sums
SUMS = 160
MOVES = SUMS + (1 << SMALL_TABLE)


def workspace_size(max_moves: int) -> int:
    """Slots a workspace needs for a variant whose move buffer holds ``max_moves`` moves."""
    return MOVES + 2 * max_moves


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

    Only for the workspace, whose owner (the worker's ``Scratch``) outlives every use of the view: passing the
    view to helpers on every play costs a null test instead of two atomic operations per call.
    """
    return carray(_address_to_pointer(arr.ctypes.data), arr.shape[0])
