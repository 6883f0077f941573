"""Rules folded into the machine code: a compiled copy of the kernels for a game's default rules (``api.specialised``).

The kernels read every rule as data (``Rules``, a named tuple passed down the call tree), so one compiled copy
serves every rule set of every game; the price is that each play tests options that are off, for games that are
not being played, and keeps their scalars in registers or on the stack. With every integer rule a constant, one
thread of 2-player Scopa self-play went from 0.42 to 0.62 of the baseline kernel's games/s (greedy; random 0.45 to
0.61), and mc's decisions/s rose by half or more (DESIGN.md, benchmarks/README.md).

``freeze(rules)`` gives the same values as an instance of a class of their own, which Numba types as
:class:`FrozenRulesType`: a ``Rules`` named tuple (same fields, same data model, so every kernel accepts it)
whose type carries its integer fields' values. Reading such a field in a kernel (``rules.players``, the
``MoveRules`` record ``ruleinfo.move_rules_of`` gathers) gives a constant, so LLVM folds the tests on it away, and
every kernel the rules reach is compiled for that rule set. The arrays (``side_of``, the card weights) stay data.

Caching stays correct: the type's key and its name (which goes into the compiled functions' symbols and the
cache index) hold the values, so a cached copy is found only for the very same rule set. The class is what
Numba's dispatcher fingerprints a named tuple by, so each rule set gets a class of its own (``_CLASSES``), and a
frozen value never outlives the call that needs it: ``_make``/``_replace`` give back a plain ``Rules``, and
``engine.play`` freezes right before the kernel call (a frozen value is not picklable: its class is made at run
time).
"""

from __future__ import annotations

import hashlib

import numpy as np
from numba.core import ir, types
from numba.core.compiler_machinery import FunctionPass, register_pass
from numba.core.datamodel import models, register_default
from numba.core.extending import intrinsic, typeof_impl
from numba.core.imputils import impl_ret_borrowed, lower_getattr_generic
from numba.core.ir_utils import get_definition, guard

from simcore.variants.base import Rules


class FrozenRules(Rules):
    """Base of the per-rule-set classes of ``freeze`` (never instantiated itself)."""

    __slots__ = ()

    @classmethod
    def _make(cls, iterable):  # _replace and copies give a plain Rules: a class stands for one set of values
        return Rules._make(iterable)


class FrozenRulesType(types.NamedTuple):
    """Numba type of a frozen rule set: the ``Rules`` named tuple type plus the values of its integer fields."""

    def __init__(self, tys, values):
        self.values = tuple(values)
        super().__init__(tys, Rules)
        digest = hashlib.sha256(repr(self.values).encode()).hexdigest()[:16]
        self.name = f"FrozenRules[{digest}]"

    @property
    def key(self):
        return self.instance_class, self.types, self.values


register_default(FrozenRulesType)(models.TupleModel)

_CLASSES: dict[tuple, type] = {}


def frozen_values(rules: Rules) -> tuple:
    """The values a frozen type carries: each integer field's, ``None`` for the others (the arrays)."""
    return tuple(int(v) if isinstance(v, int | np.integer) and not isinstance(v, np.ndarray) else None for v in rules)


def freeze(rules: Rules) -> Rules:
    """``rules`` as a value whose kernels are compiled with its integer fields as constants (module docstring)."""
    values = frozen_values(rules)
    cls = _CLASSES.get(values)
    if cls is None:  # setdefault: two threads freezing the same values get the same class
        cls = _CLASSES.setdefault(values, type(f"FrozenRules{len(_CLASSES)}", (FrozenRules,), {"__slots__": ()}))
    return cls(*rules)


@typeof_impl.register(FrozenRules)
def _typeof_frozen(val, c):
    values = frozen_values(val)
    if _CLASSES.get(values) is not type(val):  # a class stands for one set of values (the dispatcher's fingerprint)
        raise TypeError("a frozen rule set was changed after freeze(); freeze the new values")
    return FrozenRulesType([typeof_impl(v, c) for v in val], values)


@lower_getattr_generic(FrozenRulesType)
def _frozen_getattr(context, builder, typ, value, attr):
    """A field of a frozen rule set: its value as a constant, or (an array) the field itself."""
    index = typ.fields.index(attr)
    if typ.values[index] is not None:
        return context.get_constant(typ.types[index], typ.values[index])
    return impl_ret_borrowed(context, builder, typ[index], builder.extract_value(value, index))


def field_value(context, builder, tup_type, tup, index):
    """Field ``index`` of a (possibly frozen) named tuple value, as a constant when the type carries it."""
    if isinstance(tup_type, FrozenRulesType) and tup_type.values[index] is not None:
        return context.get_constant(tup_type.types[index], tup_type.values[index])
    return builder.extract_value(tup, index)


@intrinsic
def refrozen(typingctx, value, like):
    """``value`` (a plain ``Rules`` tuple) typed as the frozen type of ``like``, which has the same values: for
    ``workspace.borrow_fields``, which rebuilds the tuple with borrowed arrays."""
    if not isinstance(like, FrozenRulesType) or not isinstance(value, types.BaseNamedTuple):
        return None
    if len(value.types) != len(like.types):
        return None
    ret = FrozenRulesType(value.types, like.values)

    def codegen(context, builder, signature, args):
        return args[0]

    return ret(value, like), codegen


@register_pass(mutates_CFG=False, analysis_only=False)
class FoldFrozenRules(FunctionPass):
    """Untyped pass: each read of a rule that a frozen rule set fixes becomes the constant it is, before Numba's
    dead branch pruning (``_jit``'s pipeline runs it before each pruning).

    A constant folded only by LLVM comes too late for the compile time: by then every kernel called in the dead
    branch has been typed and compiled (a Scopa run compiled Escoba's, Skopa's, Foracio's and Kaszinó's scoring,
    the claim-out and tie-break rules and Skopa's group captures, none of which it has). Numba prunes a branch on
    constants before typing, so the kernels behind it are never compiled. What is folded (``_constant``): an
    integer or boolean field (of type int64 or bool: a literal is typed int64) read from an argument of
    :class:`FrozenRulesType`, and a field of the move generators' record (``moves.move_rules``, and
    ``first_play_rules`` but for its ``ace_sweeps`` where the aces have a power) made from one; through copies,
    ``borrow_fields`` and the variables every definition of which agrees (an inlined helper's parameter, ``rs``
    chosen between two records). Anything else stays a read."""

    _name = "scopasim_fold_frozen_rules"

    def __init__(self):
        FunctionPass.__init__(self)

    def run_pass(self, state):
        frozen = {i: t for i, t in enumerate(state.args or ()) if isinstance(t, FrozenRulesType)}
        if not frozen:
            return False
        from simcore.kernels.moves import first_play_rules, move_rules
        from simcore.kernels.workspace import borrow_fields

        def first_play(attr, resolve):  # Scopone's ace_first_play changes the aces' power only where they have one
            value = _record(attr, resolve)
            return value if attr != "ace_sweeps" or value is _SEEN or value == 0 else None

        makers = {id(borrow_fields): _same, id(move_rules): _record, id(first_play_rules): first_play}
        func_ir = state.func_ir
        changed = False
        for block in func_ir.blocks.values():
            for stmt in block.body:
                value = stmt.value if isinstance(stmt, ir.Assign) else None
                if not (isinstance(value, ir.Expr) and value.op == "getattr"):
                    continue
                constant = _constant(func_ir, value.value.name, value.attr, frozen, makers, set())
                if constant is None or constant is _SEEN:
                    continue
                folded = ir.Const(constant, loc=value.loc)
                definitions = func_ir._definitions[stmt.target.name]
                definitions[definitions.index(value)] = folded
                stmt.value = folded
                changed = True
        return changed


_SEEN = object()  # a variable met again while resolving it: its other definitions decide


def _constant(func_ir, name, attr, frozen, makers, seen):
    """The constant value of ``name.attr`` (see ``FoldFrozenRules``), ``_SEEN``, or None when it is not one.

    ``makers``: id of a function of one argument -> what field ``attr`` of its result is, given ``resolve(attr)``,
    the value of that field of its argument."""
    if name in seen:
        return _SEEN
    seen.add(name)
    found = _SEEN
    for definition in func_ir._definitions.get(name, ()):
        if isinstance(definition, ir.Arg):
            value = _field(frozen.get(definition.index), attr)
        elif isinstance(definition, ir.Var):
            value = _constant(func_ir, definition.name, attr, frozen, makers, seen)
        elif isinstance(definition, ir.Expr) and definition.op == "call" and len(definition.args) == 1:
            function = guard(get_definition, func_ir, definition.func)
            key = id(getattr(function, "value", None)) if isinstance(function, ir.Global | ir.FreeVar) else None
            if key not in makers:
                return None
            argument = definition.args[0].name
            value = makers[key](attr, lambda a, arg=argument: _constant(func_ir, arg, a, frozen, makers, seen))
        else:
            return None
        if value is None or (found is not _SEEN and value is not _SEEN and value != found):
            return None
        if value is not _SEEN:
            found = value
    return found


def _same(attr, resolve):
    """A maker whose result has its argument's fields (``borrow_fields``)."""
    return resolve(attr)


def _record(attr, resolve):
    """A maker of the move generators' record (``move_rules``): its argument's fields, each an int64."""
    value = resolve(attr)
    return value if value is None or value is _SEEN else int(value)


def _field(typ, attr):
    """The constant of field ``attr`` of the frozen rules type ``typ`` (int64 or bool fields only), else None."""
    if typ is None or attr not in typ.fields:
        return None
    index = typ.fields.index(attr)
    field_type, constant = typ.types[index], typ.values[index]
    if constant is None or field_type not in (types.int64, types.boolean):
        return None
    return bool(constant) if field_type == types.boolean else constant
