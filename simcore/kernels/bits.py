"""Bit tricks on int64 card masks (see simcore.cards for the layout)."""

from __future__ import annotations

from llvmlite import ir
from numba.core import types
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from numba.extending import intrinsic

from simcore._jit import kernel

# Masks of one suit: every 4th bit of the 52 (c=0, d=1, h=2, s=3).
CLUBS_MASK = 0x1111111111111
DIAMONDS_MASK = CLUBS_MASK << 1
HEARTS_MASK = CLUBS_MASK << 2
SPADES_MASK = CLUBS_MASK << 3
KINGS_MASK = 0xF << 48


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of an int64 (LLVM ctpop: one instruction where the CPU has it)."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(x)

    def codegen(context, builder, signature, args):
        return builder.ctpop(context.cast(builder, args[0], signature.args[0], types.int64))

    return sig, codegen


@kernel(nrt=False)
def lowest(mask):
    """Id of the lowest card of a non-empty mask."""
    return trailing_zeros(mask)


@kernel(nrt=False)
def highest(mask):
    """Id of the highest card of a non-empty mask."""
    return 63 - leading_zeros(mask)


@kernel(nrt=False)
def list_cards(out, start, mask):
    """Write the ids of a mask's cards, ascending, into ``out[start:]``; returns how many."""
    n = 0
    while mask != 0:
        c = lowest(mask)
        mask &= mask - 1
        out[start + n] = c
        n += 1
    return n


@kernel(nrt=False)
def suit_mask(suit):
    """Mask of every card of a suit (0..3)."""
    return CLUBS_MASK << suit


@intrinsic
def opaque(typingctx, x):
    """``x`` as a value LLVM cannot see into (an empty inline asm): a choice between two loaded values then stays a
    choice of values, which LLVM otherwise makes a load from a chosen address, and a load waits for the choice
    (``captures.nth_summing_subset``)."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(x)

    def codegen(context, builder, signature, args):
        value = context.cast(builder, args[0], signature.args[0], types.int64)
        return builder.asm(ir.FunctionType(value.type, [value.type]), "", "=r,0", [value], False)

    return sig, codegen
