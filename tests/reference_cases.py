"""Helpers shared by the reference engines' tests (``tests/test_reference_*.py``, ``tests/test_rules_*``).

The card shorthand of the rule examples, a policy's view of a position, the check that the random policy
draws once even from a single move, and the tampered traces every game's trace check must reject, so that
each check is held to the same cases. Test files import this module by name, like ``faults``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from simcore.cards import cards_of, parse_card, parse_mask
from simcore.reference.policies import PolicyView, choose_random
from simcore.reference.rng import Stream

Trace = dict[str, Any]

# ------------------------------------------------------------------------------------------ card shorthand


def cid(name: str) -> int:
    return parse_card(name)


def cmask(text: str) -> int:
    return parse_mask(text)


def pile(text: str) -> list[int]:
    return cards_of(parse_mask(text))


# --------------------------------------------------------------------------------------------- policies


def policy_view(legal_moves: Callable, rules: Mapping[str, Any], hand: str, table: str) -> PolicyView:
    """The view of a seat holding ``hand`` with ``table`` face up, its legal moves by ``legal_moves``."""
    h, t = parse_mask(hand), parse_mask(table)
    return PolicyView(frozenset(cards_of(h)), frozenset(cards_of(t)), tuple(legal_moves(rules, h, t)), rules)


def assert_random_draws_once(view: PolicyView) -> None:
    """A view with a single legal move: "random" picks it and still takes exactly one draw from its stream."""
    assert len(view.moves) == 1
    s, ref = Stream(5, 5, 1), Stream(5, 5, 1)
    assert choose_random(view, s) == 0
    assert s.state != Stream(5, 5, 1).state
    ref.next64()
    assert s.state == ref.state


# ------------------------------------------------------------------------------------------ trace checks


def first_event(trace: Trace, predicate: Callable[[dict], bool]) -> int:
    return next(i for i, e in enumerate(trace["events"]) if predicate(e))


def game_with(games: Sequence[Trace], predicate: Callable[[dict], bool]) -> Trace:
    """A copy of the first game with an event that satisfies ``predicate``."""
    return copy.deepcopy(next(t for t in games if any(predicate(e) for e in t["events"])))


def _is_play(kind: str) -> Callable[[dict], bool]:
    return lambda e: e["type"] == "play" and e["kind"] == kind


def _changed_take(games):
    trace = game_with(games, _is_play("capture"))
    i = first_event(trace, _is_play("capture"))
    trace["events"][i]["take"] = []
    return trace, i, ""


def _take_by_a_trail(games):
    trace = game_with(games, _is_play("trail"))
    i = first_event(trace, _is_play("trail"))
    event = trace["events"][i]
    event.update(take=["Kd"] if event["cards"] != ["Kd"] else ["Kc"], kind="capture")
    return trace, i, "illegal move"


def _sweep_flag(games):
    trace = copy.deepcopy(games[0])
    i = first_event(trace, lambda e: e["type"] == "play")
    trace["events"][i]["sweep"] = not trace["events"][i]["sweep"]
    return trace, i, "sweep"


def _seat(games):
    trace = copy.deepcopy(games[0])
    i = first_event(trace, lambda e: e["type"] == "play")
    trace["events"][i]["seat"] = (trace["events"][i]["seat"] + 1) % trace["players"]
    return trace, i, "seat"


def _score_points(games):
    trace = copy.deepcopy(games[0])
    i = first_event(trace, lambda e: e["type"] == "score")
    trace["events"][i]["points"][0]["cards"] ^= 1
    return trace, i, "points"


def _score_totals(games):
    trace = copy.deepcopy(games[0])
    i = first_event(trace, lambda e: e["type"] == "score")
    trace["events"][i]["totals"][1] += 1
    return trace, i, "totals"


def _winner(games):
    trace = copy.deepcopy(games[0])
    trace["events"][-1]["winner"] = 1 - trace["events"][-1]["winner"]
    return trace, len(trace["events"]) - 1, "the winner"


def _missing_residue(games):
    trace = game_with(games, lambda e: e["type"] == "residue")
    i = first_event(trace, lambda e: e["type"] == "residue")
    del trace["events"][i]
    return trace, i, "expected a 'residue' event"


def _card_dealt_twice(games):
    trace = copy.deepcopy(games[0])
    hands = [k for k, e in enumerate(trace["events"][:9]) if e["type"] == "hand"]
    trace["events"][hands[1]]["cards"][0] = trace["events"][hands[0]]["cards"][0]
    return trace, hands[0], "the same card is dealt twice"  # the dealing step starts at its first hand


def _after_the_end(games):
    trace = copy.deepcopy(games[0])
    trace["events"].append(copy.deepcopy(trace["events"][-1]))
    return trace, len(trace["events"]) - 1, "events after the end"


def _partial_rules(games):
    trace = copy.deepcopy(games[0])
    trace["rules"] = {"players": trace["players"]}
    return trace, None, "header: rules are not fully resolved"


def _other_variant(games):
    trace = copy.deepcopy(games[0])
    trace["variant"] = "kaszino"
    return trace, None, "header: variant"


TAMPERS = [
    _changed_take,
    _take_by_a_trail,
    _sweep_flag,
    _seat,
    _score_points,
    _score_totals,
    _winner,
    _missing_residue,
    _card_dealt_twice,
    _after_the_end,
    _partial_rules,
    _other_variant,
]


def tamper_id(tamper: Callable) -> str:
    return tamper.__name__.lstrip("_")


def assert_rejects(check: Callable[[Trace], None], error: type[Exception], games: Sequence[Trace], tamper) -> None:
    """``check`` rejects the tampered trace with ``error``, naming the event (or the header) at fault."""
    trace, index, match = tamper(games)
    with pytest.raises(error, match=match if index is None else f"^event {index}: {match}"):
        check(trace)


def shuffled_dealing_step(games: Sequence[Trace]) -> Trace:
    """A copy of the first game with the events of its first dealing step in reverse order (TRACE_FORMAT.md
    lets them come in any order)."""
    trace = copy.deepcopy(games[0])
    events = trace["events"]
    end = first_event(trace, lambda e: e["type"] not in ("deal", "hand", "table"))
    events[1:end] = events[1:end][::-1]
    return trace
