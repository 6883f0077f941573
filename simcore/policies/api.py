"""The public policy API (``VIEW_VERSION`` 1): what a user-written policy receives, and helpers it may call.

A policy is a plain Python function compiled by Numba (``simcore.userpolicy``)::

    def my_policy(view, rules, moves, rng, params) -> int

and returns the index of a legal move, ``0 <= i < moves.shape[0]``. Its arguments are windows onto the seat's
decision space ``ps`` that the game loop already fills for the built-in policies (``simcore.kernels.deal``
``prepare``, ``simcore.kernels.game`` ``fill_rule_info``); nothing is copied, and nothing of the game state (other
hands, the stock) is reachable from them:

* ``view``: int64[VIEW_SIZE], read-only: what the seat to move may know (slots below).
* ``rules``: int64[RULES_SIZE], read-only: each card's heuristic weight (``rules[c]``, card id ``c``), then the
  rule values a policy may need (``R_*`` slots, listed at the end).
* ``moves``: int64[n_moves, 2], read-only: the legal moves in canonical order, ``(played mask, taken mask)``;
  a trail takes 0.
* ``rng``: int64[1]: the seat's own random stream; draw with :func:`draw` (the engine's unbiased bounded draw).
* ``params``: float64[n], read-only: the policy's parameters, in the order of its file's ``PARAMETERS`` dict.

Cards are ids ``(rank - 1) * 4 + suit`` (suits c=0, d=1, h=2, s=3), and a set of cards is an int64 bitmask. A
read-only array cannot be written: Numba refuses such a policy when it compiles it. The slot numbers below never
change within a ``VIEW_VERSION``; a change of meaning or layout is a new version.
"""

from __future__ import annotations

from numba import carray, types
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic

from simcore._jit import inline_kernel
from simcore.kernels import deal as _deal
from simcore.kernels import workspace as _ws
from simcore.kernels.bits import lowest, popcount, suit_mask
from simcore.kernels.captures import card_value as _card_value
from simcore.kernels.ruleinfo import POLICY_RULES, RuleSlots
from simcore.rng import bounded

VIEW_VERSION = 1

# ---- view slots (the same slots as simcore.kernels.deal VIEW_*: the built-in policies read them too)
SEAT = _deal.VIEW_SEAT  # seat to move (0..players-1)
SIDE = _deal.VIEW_SIDE  # its side (team)
HAND = _deal.VIEW_HAND  # own hand (mask)
TABLE = _deal.VIEW_TABLE  # table (mask)
SEEN = _deal.VIEW_SEEN  # every card seen face up this deal, own hand and a public hand included (mask)
STOCK = _deal.VIEW_STOCK  # cards left in the stock
DEAL = _deal.VIEW_DEAL  # deal index in the game (0, 1, ...)
PLAY = _deal.VIEW_PLAY  # plays already made in this deal
PILES = _deal.VIEW_PILES  # + side (0..3): that side's capture pile this deal (mask)
TOTALS = _deal.VIEW_TOTALS  # + side (0..3): that side's game total before this deal
OPEN = _deal.VIEW_OPEN  # the other hand where the rules make it public (Kaszino's last round), else 0
NEXT_COUNT = _deal.VIEW_NEXT_COUNT  # cards in the next player's hand
LAST = _deal.VIEW_LAST  # 1 if this is the deal's last play
HAND_COUNTS = _deal.VIEW_HAND_COUNTS  # + seat (0..3): cards in each hand
N_MOVES = _deal.VIEW_N_MOVES  # number of legal moves
VIEW_SIZE = N_MOVES + 1

# ---- rules slots: rules[c] is card c's weight (Rules.card_weight), then the rule values. Each ``R_<NAME>`` is
# generated from an entry of simcore.kernels.ruleinfo.POLICY_RULES (its slot in the decision space, less WEIGHT),
# and listed with its meaning at the end of this module's docstring.
R_WEIGHT = 0
RULE_SLOTS = {f"R_{rule.name}": slot - _ws.WEIGHT for rule, slot in zip(POLICY_RULES, _ws.RI, strict=True)}
globals().update(RULE_SLOTS)  # R_PACK, R_SUM_MASK, ..., R_COURT_ALL: ``from simcore.policies.api import R_SUM_TO``
_R = RuleSlots(*RULE_SLOTS.values())  # the same slots by Rules field, for the helpers below (``rules[_R.sum_to]``)
RULES_SIZE = _ws.TRAIL_CLASSES - _ws.WEIGHT
_LISTED = "".join(
    f"    {name:<22} {slot:>3}  {rule.doc}\n"
    for (name, slot), rule in zip(RULE_SLOTS.items(), POLICY_RULES, strict=True)
)
__doc__ = f"{__doc__ or ''}\nRule slots (``rules[R_*]``, from ``simcore.kernels.ruleinfo.POLICY_RULES``)::\n\n{_LISTED}"

ACES = 0xF

__all__ = [
    "VIEW_VERSION",
    "capture_total",
    "card_rank",
    "card_suit",
    "card_value",
    "draw",
    "lowest",
    "popcount",
    "secured_points",
    "suit_mask",
    "weight_of",
]


# ---------------------------------------------------------------- helpers a policy may call
# Inlined into the policy that calls them (and ``windows`` into the entry point): a non-inlined call passes every
# field of each array argument. Measured on a 7-move position, the example greedy's ``choose`` went from 80 ns to
# 50 ns (the built-in greedy's ``choose_greedy``: 27 ns; listing the moves: ~110 ns).


@inline_kernel
def draw(rng, n):
    """Uniform integer in ``0..n-1`` (``1 <= n < 2**31``) from the seat's stream ``rng`` (int64[1])."""
    return bounded(rng, 0, n)


@inline_kernel
def card_rank(card):
    """Rank 1..13 (A..K) of a card id."""
    return (card >> 2) + 1


@inline_kernel
def card_suit(card):
    """Suit 0..3 (c, d, h, s) of a card id."""
    return card & 3


@inline_kernel
def card_value(rules, card):
    """Capture value of a card in this game (what sums are made of)."""
    return _card_value(card, rules[_R.value_by_rank])


@inline_kernel
def capture_total(rules, card):
    """The value total of the table cards ``card`` takes by sum: its own value, or in Escoba what makes 15 with
    it (``R_SUM_TO``)."""
    v = _card_value(card, rules[_R.value_by_rank])
    return v if rules[_R.sum_to] == 0 else rules[_R.sum_to] - v


@inline_kernel
def weight_of(rules, mask):
    """Sum of the heuristic card weights of a mask (what built-in greedy breaks its ties with)."""
    total = 0
    while mask != 0:
        c = lowest(mask)
        mask &= mask - 1
        total += rules[R_WEIGHT + c]
    return total


@inline_kernel
def secured_points(view, rules, play, take):
    """Points the move ``(play, take)`` scores at once, as the engine counts them: a sweep's points (scopa, tábla;
    not with the deal's last card unless the rules say so, with Foracio's ace only under ace_sweep_is_scopa, doubled
    for a same-suit sweep under same_suit_scopa_total=3v) and Foracio's same-suit points. Card points (primiera,
    settebello, majorities) are scored only at the end of the deal. Scopone's ace: taking exactly one table ace is
    an ordinary capture; a take-all sweeps only with ``R_ACE_SCOPA``."""
    if take == 0 or take == play:
        return 0  # a trail, or an ace keeping itself
    ace = rules[_R.ace_sweeps] != 0 and play & ACES  # an ace that takes all
    if ace:
        if rules[_R.ace_single_ordinary] != 0 and popcount(take) == 1 and (take & ACES) != 0:
            ace = False  # Scopone: an ace taking one table ace captures as any card
        elif rules[_R.ace_scopa] == 0 and rules[_R.ace_sweeps] != 2:
            return 0
    c = lowest(play)
    points = 0
    if not ace and rules[_R.same_suit_bonus] != 0 and popcount(take) >= 2 and (take & ~suit_mask(c & 3)) == 0:
        points += _card_value(c, rules[_R.value_by_rank])
    if (view[TABLE] & ~take) == 0 and (view[LAST] == 0 or rules[_R.last_play_sweep] != 0):
        times = 2 if points != 0 and rules[_R.same_suit_bonus] == 2 else 1  # same_suit_scopa_total="3v"
        if rules[_R.sweep_mode] == 0:
            points += rules[_R.sweep_points] * times
        else:
            points += _card_value(c, rules[_R.sweep_value_by_rank]) * times
    return points


# ---------------------------------------------------------------- the windows onto ``ps`` (engine side)


@intrinsic
def readonly(typingctx, arr):
    """The same array typed read-only: Numba refuses, at compile time, a function that writes into it."""
    if not isinstance(arr, types.Array):
        return None
    sig = arr.copy(readonly=True)(arr)

    def codegen(context, builder, signature, args):
        return impl_ret_borrowed(context, builder, signature.return_type, args[0])

    return sig, codegen


@intrinsic
def offset_pointer(typingctx, ptr, k):
    """``ptr + k`` (elements) of a typed pointer: where a window starts in the decision space."""
    if not isinstance(ptr, types.CPointer) or not isinstance(k, types.Integer):
        return None
    sig = ptr(ptr, k)

    def codegen(context, builder, signature, args):
        return builder.gep(args[0], [context.cast(builder, args[1], signature.args[1], types.intp)])

    return sig, codegen


@inline_kernel
def windows(ps_ptr, seat, n_moves, params_ptr, n_params):
    """(view, rules, moves, rng, params) of a seat's decision space given by its data pointer: arrays made
    straight on the pointers (no slicing, no reshape), whose shapes but ``moves``'s first are constants."""
    view = readonly(carray(offset_pointer(ps_ptr, _ws.VIEW), (VIEW_SIZE,)))
    rules = readonly(carray(offset_pointer(ps_ptr, _ws.WEIGHT), (RULES_SIZE,)))
    moves = readonly(carray(offset_pointer(ps_ptr, _ws.MOVES), (n_moves, 2)))
    rng = carray(offset_pointer(ps_ptr, _ws.RNG + 1 + seat), (1,))
    params = readonly(carray(params_ptr, (n_params,)))
    return view, rules, moves, rng, params
