"""Layouts of a worker's two int64 work arrays: the game state, and the seat's decision space.

Why flat arrays: Numba reference-counts every array a jitted function receives or extracts, with an atomic
increment and decrement per array per call. Measured here (perf), passing half a dozen arrays to the move
generator and the policy on every play spent 73% of the time in those atomic operations. So the hot state lives
in two flat arrays, and ``borrow`` gives the game loop views of them that carry no reference count at all.

Why two: a policy must not be able to read what its seat may not know. The game state (hands of every seat, the
stock) stays in ``gs``; the policy only ever receives ``ps``, which holds the seat's view, the legal moves, the
card weights and the policy random streams.

Game state ``gs`` (int64 slots, numbered by ``Slots`` in this order)::

    HANDS     [4]    hand mask of each seat
    PILES     [4]    capture pile mask of each side (this deal)
    SWEEPS    [4]    counted sweeps of each side (this deal)
    TOTALS    [4]    game total of each side, banked before this deal
    SWEEP_PTS [4]    sweep points of each side this deal (scope, táblas)
    SAME_SUIT [4]    Foracio same-suit capture points of each side this deal
    DEAL_RNG  [1]    state of the deal stream
    DECK      [52]   the shuffled pack
    DS_*      [14]   where the deal stands (plays made, stock position, table, turn state), so that a deal can
                     stop for a Monte Carlo decision and resume, and a rollout can continue a sampled copy
    SWEEP_ORDER, SWEEP_COUNT [2]  the order of the deal's sweeps by side (Scopa's count-out)
    LAST_ROUND_SCOPA [4], DS_PROVISIONAL, DS_PROVISIONAL_EVENT [2]  Foracio's provisional last-round scope
    DRAWS     [52]   the shuffle's scratch (not state: copies of the state stop before it, at ``CARRIED``)

Decision space ``ps`` (int64 slots, numbered the same way)::

    VIEW    [27]     what the seat to move may know (see simcore.kernels.game VIEW_*)
    FAULT   [1]      0, or why the game cannot go on (``FAULT_*``: the code ``ChunkOut.overflow`` reports)
    RNG     [8]      policy stream of seat s at RNG + 1 + s
    STREAM_KEY [4]   initial state of seat s's policy stream: the root of its substreams (``simcore.rng``)
    SUBSTREAM  [4]   Monte Carlo samples seat s has drawn in this game (numbers its rollout substreams)
    WEIGHT  [52]     heuristic weight of each card (Rules.card_weight)
    RI      [n]      the rules a policy may need to look ahead: one slot per entry of ``ruleinfo.POLICY_RULES``
                     (allocated in its order, n = 27 at VIEW_VERSION 1; ``RI.<Rules field>`` is the slot)
    TRAIL_CLASSES [10]  the number of card weights, then the cards of each weight, lightest first (0 weights: more
                     than 9), from ``game.fill_rule_info`` (until 2026-12-05: the compressed table cards)
    SUMS    [1024]   scratch of the move generators within one play: Kaszinó's listed table subsets and their sums
                     (``captures.bounded_table_sums``), the quick policies' prefix lanes (``store_prefix_lanes``)
    MOVES   [2 * max_moves]  legal moves as (played mask, taken mask) pairs; under Skopa's multi_group_capture
                     the last MULTI_SCRATCH slots are the largest-union search's (``Rules.max_moves`` counts them)
    --- then a second space of the same layout (``reply_space``), where look-ahead policies list the replies
    --- then SAMPLE [MAX_SAMPLES] sampled hidden hands
"""

from __future__ import annotations

from numba import carray, types
from numba.extending import intrinsic, overload

from simcore._jit import inline_kernel, kernel
from simcore.kernels.frozen import FrozenRulesType, refrozen
from simcore.kernels.ruleinfo import POLICY_RULES, RuleSlots


class Slots:
    """Hands out consecutive int64 slots of a layout in the order they are declared: a slot's number is never
    typed by hand, so two blocks cannot overlap and a new block goes at the end (``tests/test_ruleinfo.py`` pins
    the decision space's numbers that the public policy API promises)."""

    def __init__(self) -> None:
        self.size = 0

    def take(self, count: int = 1) -> int:
        """The first of ``count`` new slots."""
        first = self.size
        self.size += count
        return first


# game state
_gs = Slots()
HANDS = _gs.take(4)
PILES = _gs.take(4)
SWEEPS = _gs.take(4)
TOTALS = _gs.take(4)
SWEEP_PTS = _gs.take(4)
SAME_SUIT = _gs.take(4)
DEAL_RNG = _gs.take()
DECK = _gs.take(52)
DS_T = _gs.take()  # plays made in this deal
DS_POS = _gs.take()  # next card of the deck
DS_N = _gs.take()  # cards in the pack
DS_TABLE = _gs.take()
DS_SEEN = _gs.take()  # cards seen face up this deal
DS_LAST = _gs.take()  # last capturer's seat, or -1
DS_FIRST = _gs.take()  # seat that led the deal (Kaszinó: the non-dealer)
DS_DEAL = _gs.take()  # deal index
DS_TO_MOVE = _gs.take()  # Kaszinó: seat whose turn comes next
DS_PENDING = _gs.take()  # Kaszinó: seat owed a double move, or -1
DS_MOVER = _gs.take()  # Kaszinó: seat in the middle of a turn when the deal stopped
DS_STEP = _gs.take()  # Kaszinó: step of that turn (0, or 1 in a double move)
DS_DOUBLE = _gs.take()  # Kaszinó: 1 if that turn is a double move
DS_OUT_SIDE = _gs.take()  # side that won mid-deal, or -1
DS_TRAILED = _gs.take(2)  # Kaszinó: cards each seat has trailed in this deal (tabla_by_recapturing_own_trail_counts)
SWEEP_ORDER = _gs.take()  # Scopa count-out: side of the deal's k-th counted sweep in bits 2k, 2k+1 (at most 18)
SWEEP_COUNT = _gs.take()  # Scopa count-out: counted sweeps of the deal so far
# Foracio no_scopa_rule="final_capture_if_in_last_round" (F8): a sweep in the deal's last round is provisional
LAST_ROUND_SCOPA = _gs.take(4)  # scopa points each side made in the last round (in SWEEP_PTS, not in declarations)
DS_PROVISIONAL = _gs.take()  # scopa points of the deal's latest capture if it is a last-round sweep, else -1
DS_PROVISIONAL_EVENT = _gs.take()  # that play's trace event index, or -1
# the shuffle's scratch, last: its draws, computed together before the swaps (``deal.shuffle``); not state, so a
# copy of the state (a Monte Carlo sample, a search node) carries only the ``CARRIED`` slots before it
DRAWS = _gs.take(52)
CARRIED = DRAWS
GAME_STATE_SIZE = _gs.size

# decision space
_ps = Slots()
VIEW = _ps.take(27)  # what the seat to move may know: ``VIEW_*`` of simcore.kernels.deal
FAULT = _ps.take()
RNG = _ps.take(8)
STREAM_KEY = _ps.take(4)
SUBSTREAM = _ps.take(4)
WEIGHT = _ps.take(52)
RULE_INFO = _ps.take(len(POLICY_RULES))  # the policy-visible rule values, one slot per entry of POLICY_RULES
RI = RuleSlots(*range(RULE_INFO, RULE_INFO + len(POLICY_RULES)))  # slot of each by its Rules field: ps[RI.sum_to]
SMALL_TABLE = 10  # sizes SUMS (2**SMALL_TABLE slots)
# greedy's trail classes (``quick.lightest_class_trail``): their number, then the cards of each weight, lightest first;
# 0 classes when the weights are more than ``TRAIL_CLASSES_MAX``. The end of the rule slots.
TRAIL_CLASSES = _ps.take(SMALL_TABLE)
TRAIL_CLASSES_MAX = SMALL_TABLE - 1
SUMS = _ps.take(1 << SMALL_TABLE)  # move generators' scratch within a play (Kaszinó's listed subsets, prefix lanes)
MOVES = _ps.take()  # the legal moves from here on: 2 * max_moves slots (``move_space_size``)
MAX_SAMPLES = 256

# ``ps[FAULT]`` codes, equal to the ``ChunkOut.overflow`` codes that ``simcore.engine`` turns into errors
FAULT_MOVES = 3  # a position had more legal moves than the buffer holds (Kaszinó without a value cap)
FAULT_VARIANT = 4  # ``Rules.variant`` is no registered game's id
FAULT_POLICY = 5  # a seat's policy id (or a Monte Carlo seat's rollout policy) is no known policy
FAULT_USER_MOVE = 6  # a user-written policy returned an index that is not a legal move (simcore.policies.usercall)


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


@inline_kernel
def reply_space(ps):
    """The second move space of ``ps`` (same layout), for listing the replies to a candidate move."""
    size = (ps.shape[0] - MAX_SAMPLES) // 2
    return ps[size : 2 * size]


@kernel
def sample_base(ps):
    """Offset of the sample slots of ``ps``."""
    return ps.shape[0] - MAX_SAMPLES


@intrinsic
def data_pointer(typingctx, arr):
    """The data pointer of an array, typed by its dtype (for ``borrow``; the deal loop hands it to the quick
    policies: a pointer, unlike an array, carries no reference count into an inlined helper)."""
    if not isinstance(arr, types.Array):
        return None
    sig = types.CPointer(arr.dtype)(arr)

    def codegen(context, builder, signature, args):
        return context.make_array(signature.args[0])(context, builder, args[0]).data

    return sig, codegen


@kernel
def borrow(arr):
    """A view of a C-contiguous array without reference counting (no meminfo).

    Only for arrays whose owner (the worker's ``Scratch``, the chunk's output, the run's rules and parameters)
    outlives every use of the view: passing the view to helpers costs a null test instead of two atomic
    operations per call.
    """
    return carray(data_pointer(arr), arr.shape)


def borrow_fields(tup):
    """The same named tuple with every array field replaced by its ``borrow`` view (jitted code only)."""
    raise NotImplementedError("borrow_fields runs only inside jitted code")


@overload(borrow_fields)
def _borrow_fields(tup):
    """Numba implementation of ``borrow_fields`` for one named tuple type: its constructor over the fields."""
    if not isinstance(tup, types.BaseNamedTuple):
        return None
    fields = [f"borrow(tup[{i}])" if isinstance(t, types.Array) else f"tup[{i}]" for i, t in enumerate(tup.types)]
    namespace = {"cls": tup.instance_class, "borrow": borrow, "refrozen": refrozen}
    made = f"cls({', '.join(fields)})"
    if isinstance(tup, FrozenRulesType):  # the rebuilt tuple keeps the frozen values (simcore.kernels.frozen)
        made = f"refrozen({made}, tup)"
    exec(f"def impl(tup):\n    return {made}\n", namespace)
    return namespace["impl"]
