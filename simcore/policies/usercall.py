"""The game loop's side of a user-written policy: call it through its address, check the index it returns.

A user policy is compiled (``simcore.userpolicy``) into a C-callable function of one fixed signature,
``USER_SIG``: (pointer to the seat's decision space ``ps``, seat, number of legal moves, pointer to the seat's
row of parameters) -> move index. Its address travels as data, in the seat's parameter row (``P_ADDRESS``), so
the game loop is compiled once for every user policy there will ever be (nothing about the policy is a type or
a constant of the loop) and stays in Numba's disk cache; the call is one indirect call. The user's function
itself only receives the windows of ``simcore.policies.api`` (the view, the rules, the moves, its own stream and
parameters), never the game state.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from simcore._jit import inline_kernel
from simcore.kernels.workspace import FAULT, FAULT_POLICY, FAULT_USER_MOVE, VIEW

USER_SIG = types.int64(types.CPointer(types.int64), types.int64, types.int64, types.CPointer(types.float64))
P_ADDRESS = 63  # the policy's address, as a float64 (exact: addresses are below 2**53)
FAULT_VALUE = VIEW + 24  # the first illegal index returned (a free slot after the 24 a policy reads)


@intrinsic
def _call_address(typingctx, address, ps, seat, n_moves, params):
    """Call the ``USER_SIG`` function at ``address`` with the data pointers of ``ps`` and of row ``seat`` of
    ``params`` (computed here: slicing the row out would make an array, and reference-count it, on every call)."""
    sig = types.int64(types.int64, ps, types.int64, types.int64, params)

    def codegen(context, builder, signature, args):
        addr, ps_arr, seat_v, n_v, params_arr = args
        i64 = ir.IntType(64)
        fnty = ir.FunctionType(i64, [i64.as_pointer(), i64, i64, ir.DoubleType().as_pointer()])
        fn = builder.inttoptr(addr, fnty.as_pointer())
        ps_data = context.make_array(signature.args[1])(context, builder, ps_arr).data
        table = context.make_array(signature.args[4])(context, builder, params_arr)
        row_len = cgutils.unpack_tuple(builder, table.shape, 2)[1]
        row_data = builder.gep(table.data, [builder.mul(seat_v, row_len)])
        return builder.call(fn, [ps_data, seat_v, n_v, row_data])

    return sig, codegen


@inline_kernel
def choose_user(ps, params, n_moves, seat):
    """The move of the seat's user policy; an index that is not a legal move raises ``FAULT_USER_MOVE`` and plays
    move 0 (the game stops after the deal; ``simcore.userpolicy.explain_fault`` replays it to name the decision).
    Inlined into ``choose``: the call costs the indirect call and no more."""
    address = int(params[seat, P_ADDRESS])
    if address == 0:
        ps[FAULT] = FAULT_POLICY
        return 0
    i = _call_address(address, ps, seat, n_moves, params)
    if 0 <= i < n_moves:
        return i
    if ps[FAULT] == 0:
        ps[FAULT] = FAULT_USER_MOVE
        ps[FAULT_VALUE] = i
    return 0
