"""The rule values a policy may read, declared once (``POLICY_RULES``); everything else is derived from it.

A rule scalar that a policy or the move generators must see used to be kept by hand in four parallel lists (the
``Rules`` field, the positional ``rs`` tuple and its twin read from the decision space, a hand-typed ``RI_*``
slot with its copy in ``fill_rule_info``, and the public ``R_*`` constant); merging five branches that each
extended them gave two rules one slot, one slot inside the subset sums and three meanings to ``rs[9]``. Now one
entry of ``POLICY_RULES`` (API name, ``Rules`` field, one-line doc, whether the move generators read it) gives:

* its decision-space slot: ``workspace.RI.<field>``, allocated in table order after the card weights;
* its copy into the decision space: ``game.fill_rule_info`` stores :func:`rule_values` (every entry, in order);
* its public name: ``simcore.policies.api.R_<NAME>`` (= slot - ``WEIGHT``), with its doc in that module's docs;
* for an entry the move generators read, a field of :data:`MoveRules`, the record ``rs`` they take, read by
  name (``rs.sum_fewest``): :func:`move_rules_of` builds it from ``Rules``, :func:`move_rules_at` from the
  decision space (``heuristics.reply_rules``), :func:`replaced` changes one field (``moves.first_play_rules``).

Adding a policy-visible rule is one entry at the END of ``POLICY_RULES`` (plus its ``Rules`` field, which the
rule needs anyway): an entry placed earlier would move the slots user policies read (a new ``VIEW_VERSION``).

Why intrinsics and no array in ``Rules``: the record and the copy are built from ``Rules`` by field name when
Numba compiles them, so there is no generated source (Numba's cache needs real files) and no second copy of the
values that a ``rules._replace(...)`` (tests do that) would leave stale. The intrinsics below are plain loads and
stores; the machine code is that of the hand-written tuples they replace.
"""

from __future__ import annotations

from collections import namedtuple
from typing import NamedTuple

from numba.core import cgutils, types
from numba.core.errors import TypingError
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic

from simcore.kernels.frozen import field_value
from simcore.variants.base import Rules


class PolicyRule(NamedTuple):
    """One policy-visible rule scalar."""

    name: str  # the policy API's name without ``R_`` (``R_SUM_TO``)
    field: str  # the ``Rules`` field it copies (also its name in ``workspace.RI`` and in ``MoveRules``)
    doc: str  # one line: what its values mean (the API's documentation of ``R_<name>``)
    moves: bool = False  # the move generators read it (a field of ``MoveRules``)


# Table order is slot order: new entries go at the end (see the module docstring).
POLICY_RULES = (
    PolicyRule("PACK", "pack", "the cards in play (mask)"),
    PolicyRule("SUM_MASK", "sum_mask", "cards that capture, and are captured, by sum (mask)", True),
    PolicyRule("VALUE_BY_RANK", "value_by_rank", "capture values, 4 bits per rank (use card_value)", True),
    PolicyRule("RANK_ONLY", "rank_only", "cards that capture, and are captured, by equal rank only (mask)", True),
    PolicyRule("PRIORITY", "single_card_priority", "1: an equal single card must be taken before a sum", True),
    PolicyRule("SWEEP_MODE", "sweep_mode", "0: a sweep scores R_SWEEP_POINTS; 1: the card's R_SWEEP_VALUE_BY_RANK"),
    PolicyRule("SWEEP_POINTS", "sweep_points", "points of a counted sweep under R_SWEEP_MODE 0 (scopa, tabla)"),
    PolicyRule("SWEEP_VALUE_BY_RANK", "sweep_value_by_rank", "sweep value of each rank, packed as R_VALUE_BY_RANK"),
    PolicyRule("LAST_SWEEP", "last_play_sweep", "1: a sweep with the deal's last card counts"),
    PolicyRule(
        "ACE_SWEEPS", "ace_sweeps", "1: an ace takes the whole table (Foracio, Scopone); 2: and it sweeps", True
    ),
    PolicyRule("SAME_SUIT", "same_suit_bonus", "1: a same-suit sum capture scores its value at once; 2: scopa x2"),
    PolicyRule("FORCED", "forced_capture", "0: any card may trail; 1: a card that can take must; 2: a player", True),
    PolicyRule(
        "ACE_ON_EMPTY", "ace_on_empty", "a take-all ace on an empty table: 0 stays or keeps, 1 keeps, 2 stays", True
    ),
    PolicyRule("MAX_SUM", "max_sum", "largest value total of a Kaszino exchange (0: no cap)", True),
    PolicyRule("MAX_HAND", "max_hand_cards", "most hand cards in one Kaszino exchange (0: any)", True),
    PolicyRule("TURNS", "turns", "1: one card a turn (Scopa, Skopa, Foracio, Scopone, Escoba); 2: Kaszino's exchanges"),
    PolicyRule("PLAYERS", "players", "number of players (2 to 4)"),
    PolicyRule("CARDS_TARGET", "cards_target", "cards that settle the cards majority (99: none)"),
    PolicyRule("COUNT_SUIT", "count_suit", "the suit whose count scores (coins, spades, clubs), or -1"),
    PolicyRule("COUNT_SUIT_TARGET", "count_suit_target", "cards of R_COUNT_SUIT that settle its majority"),
    PolicyRule("SUM_FEWEST", "sum_fewest", "1: only a card's captures with the fewest cards are legal", True),
    PolicyRule("ACE_ON_ACE", "ace_on_ace", "1: with an ace on the table, an ace takes one table ace only", True),
    PolicyRule("ACE_SINGLE", "ace_single_ordinary", "1: an ace taking exactly one table ace is an ordinary capture"),
    PolicyRule("ACE_SCOPA", "ace_scopa", "1: an ace's take-all that empties the table is a sweep"),
    PolicyRule("SUM_TO", "sum_to", "0: a card takes sets summing to its value; 15 (Escoba): to 15 minus it", True),
    PolicyRule("COURT_ALL", "court_takes_all", "1: a court takes every table card of its rank (court_takes)", True),
    PolicyRule("MULTI_GROUP", "multi_group", "1: a card takes a largest union of disjoint groups (Skopa)", True),
)

_UNKNOWN = [rule.field for rule in POLICY_RULES if rule.field not in Rules._fields]
assert not _UNKNOWN, f"POLICY_RULES names fields that Rules does not have: {_UNKNOWN}"
assert len({rule.field for rule in POLICY_RULES}) == len({rule.name for rule in POLICY_RULES}) == len(POLICY_RULES)

RuleSlots = namedtuple("RuleSlots", [rule.field for rule in POLICY_RULES])  # one int per entry (``workspace.RI``)
MoveRules = namedtuple("MoveRules", [rule.field for rule in POLICY_RULES if rule.moves])
MoveRules.__doc__ = "The rule scalars the move generators read (``rs``): the ``moves`` entries of POLICY_RULES."
_MOVE_OFFSETS = tuple(k for k, rule in enumerate(POLICY_RULES) if rule.moves)  # slot offsets of MoveRules' fields
MOVE_RULES_TYPE = types.NamedUniTuple(types.int64, len(MoveRules._fields), MoveRules)


def _scalar_indices(tup, fields):
    """Positions of ``fields`` in the named tuple type ``tup``, each checked to be an integer or a boolean."""
    indices = []
    for name in fields:
        if name not in tup.fields:
            raise TypingError(f"{tup} has no field {name!r}")
        i = tup.fields.index(name)
        if not isinstance(tup.types[i], types.Integer | types.Boolean):
            raise TypingError(f"field {name!r} of {tup} is {tup.types[i]}, not an integer")
        indices.append(i)
    return indices


def _gather(context, builder, tup_type, tup, indices, ret):
    """The tuple ``ret`` of the fields ``indices`` of ``tup``, each as an int64."""
    values = [
        context.cast(builder, field_value(context, builder, tup_type, tup, i), tup_type.types[i], types.int64)
        for i in indices
    ]
    return context.make_tuple(builder, ret, values)


@intrinsic
def rule_values(typingctx, rules):
    """Every ``POLICY_RULES`` field of ``rules`` in table order, as a tuple of int64 (``fill_rule_info``)."""
    if not isinstance(rules, types.BaseNamedTuple):
        return None
    indices = _scalar_indices(rules, RuleSlots._fields)
    ret = types.UniTuple(types.int64, len(indices))

    def codegen(context, builder, signature, args):
        return _gather(context, builder, signature.args[0], args[0], indices, ret)

    return ret(rules), codegen


@intrinsic
def move_rules_of(typingctx, rules):
    """The ``MoveRules`` record of a ``Rules`` tuple: its fields of the same names."""
    if not isinstance(rules, types.BaseNamedTuple):
        return None
    indices = _scalar_indices(rules, MoveRules._fields)

    def codegen(context, builder, signature, args):
        return _gather(context, builder, signature.args[0], args[0], indices, MOVE_RULES_TYPE)

    return MOVE_RULES_TYPE(rules), codegen


@intrinsic
def move_rules_at(typingctx, space, base):
    """The ``MoveRules`` record stored in a 1-d integer array whose rule slots start at ``base`` (the decision
    space and ``workspace.RULE_INFO``): field k is ``space[base + offset]`` of its entry."""
    if not (isinstance(space, types.Array) and space.ndim == 1 and isinstance(space.dtype, types.Integer)):
        return None
    if not isinstance(base, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        start = context.cast(builder, args[1], signature.args[1], types.intp)
        values = []
        for offset in _MOVE_OFFSETS:
            at = builder.add(start, context.get_constant(types.intp, offset))
            ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [at])
            value = context.unpack_value(builder, aryty.dtype, ptr)
            values.append(context.cast(builder, value, aryty.dtype, types.int64))
        return context.make_tuple(builder, MOVE_RULES_TYPE, values)

    return MOVE_RULES_TYPE(space, base), codegen


@intrinsic
def replaced(typingctx, tup, name, value):
    """``tup._replace(name=value)`` for jitted code (Numba has no ``_replace``): ``name`` a string constant."""
    if not isinstance(tup, types.BaseNamedTuple) or not isinstance(name, types.StringLiteral):
        return None
    field = name.literal_value
    if field not in tup.fields:
        raise TypingError(f"{tup} has no field {field!r}")
    i = tup.fields.index(field)
    if typingctx.can_convert(value, tup.types[i]) is None:
        raise TypingError(f"cannot store {value} in field {field!r} ({tup.types[i]}) of {tup}")

    def codegen(context, builder, signature, args):
        new = context.cast(builder, args[2], signature.args[2], tup.types[i])
        result = builder.insert_value(args[0], new, i)
        return impl_ret_borrowed(context, builder, signature.return_type, result)

    return tup(tup, name, value), codegen
