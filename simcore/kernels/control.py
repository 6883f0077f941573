"""A chunk's control array: the stop flag the kernels poll, and the games each block has finished.

``simcore.engine`` runs the batch kernel in a worker thread and keeps the main thread free for signals: on
Ctrl-C or SIGTERM it raises the flag, and every block stops before its next game (a Monte Carlo seat also
checks it between samples, so even a very slow game ends at once); meanwhile it reads the counters to report
progress inside a chunk. Layout (int64)::

    CONTROL_STOP  [1]       0 = play on, 1 = stop (written by the caller)
    CONTROL_DONE  [BLOCKS]  games finished by each block (each written by its own block only)
    CONTROL_NEXT  [1]       the next block not yet claimed (``atomic_add``: each worker thread claims blocks)

Why atomic loads and stores (relaxed, i.e. "monotonic"): another thread writes the flag and reads the counters
while the kernel runs. With plain accesses LLVM may keep the flag in a register for the whole loop, or delay the
counter's stores to the loop's end; atomics forbid both and compile to ordinary moves on x86 and ARM.
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

BLOCKS = 64  # blocks of games of one chunk (``simcore.kernels.batch``)
CONTROL_STOP = 0
CONTROL_DONE = 1
CONTROL_NEXT = CONTROL_DONE + BLOCKS
CONTROL_SIZE = CONTROL_NEXT + 1


def _element_pointer(context, builder, arr_type, arr, index, index_type):
    ary = context.make_array(arr_type)(context, builder, arr)
    i = context.cast(builder, index, index_type, types.intp)
    return cgutils.get_item_pointer(context, builder, arr_type, ary, [i])


def _int64_slot(arr, index, value=types.int64) -> bool:
    """Whether the intrinsics below accept these argument types: an int64 array, an integer index and value."""
    is_array = isinstance(arr, types.Array) and arr.dtype == types.int64
    return is_array and isinstance(index, types.Integer) and isinstance(value, types.Integer)


@intrinsic
def atomic_load(typingctx, arr, index):
    """``arr[index]`` read atomically (an int64 array)."""
    if not _int64_slot(arr, index):
        return None

    def codegen(context, builder, signature, args):
        ptr = _element_pointer(context, builder, signature.args[0], args[0], args[1], signature.args[1])
        return builder.load_atomic(ptr, "monotonic", 8)

    return types.int64(arr, index), codegen


@intrinsic
def atomic_store(typingctx, arr, index, value):
    """``arr[index] = value`` written atomically (an int64 array)."""
    if not _int64_slot(arr, index, value):
        return None

    def codegen(context, builder, signature, args):
        ptr = _element_pointer(context, builder, signature.args[0], args[0], args[1], signature.args[1])
        v = context.cast(builder, args[2], signature.args[2], types.int64)
        builder.store_atomic(v, ptr, "monotonic", 8)
        return context.get_dummy_value()

    return types.void(arr, index, value), codegen


@intrinsic
def atomic_add(typingctx, arr, index, value):
    """``arr[index] += value`` atomically (an int64 array); returns the value before the addition."""
    if not _int64_slot(arr, index, value):
        return None

    def codegen(context, builder, signature, args):
        ptr = _element_pointer(context, builder, signature.args[0], args[0], args[1], signature.args[1])
        v = context.cast(builder, args[2], signature.args[2], types.int64)
        return builder.atomic_rmw("add", ptr, v, "monotonic")

    return types.int64(arr, index, value), codegen


__all__ = [
    "BLOCKS",
    "CONTROL_DONE",
    "CONTROL_NEXT",
    "CONTROL_SIZE",
    "CONTROL_STOP",
    "atomic_add",
    "atomic_load",
    "atomic_store",
]
