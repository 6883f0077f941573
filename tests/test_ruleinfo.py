"""The policy-visible rule scalars are declared once (``simcore.kernels.ruleinfo.POLICY_RULES``): these tests tie
the slots, the copy into the decision space, the move generators' record and the public ``R_*`` names to it."""

from __future__ import annotations

import re
from pathlib import Path

import numba
import numpy as np
import pytest
from numba.core.errors import TypingError

from simcore.errors import ConfigError
from simcore.kernels import workspace as ws
from simcore.kernels.game import fill_rule_info
from simcore.kernels.moves import ACES_BANNED, first_play_rules, move_rules
from simcore.kernels.ruleinfo import POLICY_RULES, MoveRules, replaced
from simcore.policies import api
from simcore.policies.heuristics import reply_rules
from simcore.variants import VARIANTS

README = Path(__file__).resolve().parents[1] / "README.md"

# The slots user policies read under VIEW_VERSION 1 (``rules[R_*]``): never renumbered within the version.
VIEW_1_SLOTS = {
    "R_PACK": 52,
    "R_SUM_MASK": 53,
    "R_VALUE_BY_RANK": 54,
    "R_RANK_ONLY": 55,
    "R_PRIORITY": 56,
    "R_SWEEP_MODE": 57,
    "R_SWEEP_POINTS": 58,
    "R_SWEEP_VALUE_BY_RANK": 59,
    "R_LAST_SWEEP": 60,
    "R_ACE_SWEEPS": 61,
    "R_SAME_SUIT": 62,
    "R_FORCED": 63,
    "R_ACE_ON_EMPTY": 64,
    "R_MAX_SUM": 65,
    "R_MAX_HAND": 66,
    "R_TURNS": 67,
    "R_PLAYERS": 68,
    "R_CARDS_TARGET": 69,
    "R_COUNT_SUIT": 70,
    "R_COUNT_SUIT_TARGET": 71,
    "R_SUM_FEWEST": 72,
    "R_ACE_ON_ACE": 73,
    "R_ACE_SINGLE": 74,
    "R_ACE_SCOPA": 75,
    "R_SUM_TO": 76,
    "R_COURT_ALL": 77,
}


def rule_sets():
    """(label, Rules) of every registered game: its defaults, and each non-default value of each of its keys (of an
    integer key, its bounds), one key at a time, where the game accepts it alone."""
    out = []
    for name, spec in VARIANTS.items():
        out.append((f"{name}", spec.compile(spec.resolve())))
        for key in spec.keys:
            if key.choices is not None:
                values = key.choices
            elif type(key.default) is bool:
                values = (True, False)
            else:
                values = tuple(v for v in (key.min, key.max) if v is not None)
            for value in values:
                if value == key.default:
                    continue
                try:
                    rules = spec.compile(spec.resolve({key.name: value}))
                except ConfigError:
                    continue  # a value this game refuses without other keys
                out.append((f"{name}:{key.name}={value}", rules))
    return out


RULE_SETS = rule_sets()


def decision_space(rules):
    ps = np.zeros(ws.decision_space_size(rules.max_moves), np.int64)
    fill_rule_info(ps, rules)
    return ps


def test_every_entry_reaches_the_decision_space_with_its_rules_value():
    """For every registered game's defaults and single-key option sets (over 100 rule sets): each entry's slot,
    the user's ``rules[R_*]`` window and the move record all hold the ``Rules`` value."""
    assert len({label.split(":")[0] for label, _ in RULE_SETS}) == len(VARIANTS) and len(RULE_SETS) > 100
    for label, rules in RULE_SETS:
        ps = decision_space(rules)
        window = ps[ws.WEIGHT : ws.TRAIL_CLASSES]
        assert list(window[:52]) == list(rules.card_weight), label
        for rule in POLICY_RULES:
            value = int(getattr(rules, rule.field))
            assert ps[getattr(ws.RI, rule.field)] == value, (label, rule.name)
            assert window[getattr(api, f"R_{rule.name}")] == value, (label, rule.name)
        assert ps[ws.SUMS :].max(initial=0) == 0, label  # nothing written past the rule slots and trail classes


def test_a_misplaced_slot_cannot_pass():
    """Every entry set to its own value: a slot copied from the wrong field, or to the wrong place, shows."""
    base = VARIANTS["scopa"].compile(VARIANTS["scopa"].resolve())
    rules = base._replace(**{rule.field: 1000 + k for k, rule in enumerate(POLICY_RULES)})
    ps = decision_space(rules)
    assert list(ps[ws.RULE_INFO : ws.TRAIL_CLASSES]) == [1000 + k for k in range(len(POLICY_RULES))]
    rs = reply_rules(ps)
    assert rs == move_rules(rules)
    assert [getattr(rs, f) for f in MoveRules._fields] == [1000 + k for k, r in enumerate(POLICY_RULES) if r.moves]


@pytest.mark.parametrize("label, rules", RULE_SETS, ids=[label for label, _ in RULE_SETS])
def test_reply_rules_from_the_decision_space_equal_move_rules(label, rules):
    """What the look-ahead policies rebuild from ``ps`` is the record the deal loop builds from ``Rules``, field by
    field; the deal's first play differs in ``ace_sweeps`` only (Scopone's ``ace_first_play``)."""
    rs, replies, first = move_rules(rules), reply_rules(decision_space(rules)), first_play_rules(rules)
    assert type(rs) is type(replies) is type(first) is MoveRules
    assert rs._asdict() == replies._asdict() == {f: int(getattr(rules, f)) for f in MoveRules._fields}
    assert first._replace(ace_sweeps=rs.ace_sweeps) == rs
    if rs.ace_sweeps and rules.ace_first_play:
        assert first.ace_sweeps in (0, ACES_BANNED)
    else:
        assert first == rs


def test_scopone_first_play_record_under_banned_and_plain():
    spec = VARIANTS["scopone"]
    for value, aces in (("free", 1), ("banned", ACES_BANNED), ("plain", 0)):
        rules = spec.compile(spec.resolve({"ace_takes_all": True, "ace_first_play": value}))
        assert first_play_rules(rules).ace_sweeps == aces and move_rules(rules).ace_sweeps == 1


def test_slots_are_allocated_in_table_order_and_end_before_the_subset_sums():
    n = len(POLICY_RULES)
    assert ws.RULE_INFO == ws.WEIGHT + 52 and tuple(ws.RI) == tuple(range(ws.RULE_INFO, ws.RULE_INFO + n))
    assert ws.RI._fields == tuple(rule.field for rule in POLICY_RULES)
    assert ws.RULE_INFO + n == ws.TRAIL_CLASSES and ws.TRAIL_CLASSES + ws.SMALL_TABLE <= ws.SUMS
    assert ws.MOVES == ws.SUMS + (1 << ws.SMALL_TABLE)
    assert api.RULES_SIZE == ws.TRAIL_CLASSES - ws.WEIGHT == 52 + n
    assert MoveRules._fields == tuple(rule.field for rule in POLICY_RULES if rule.moves)


def test_user_slots_keep_their_view_version_1_numbers():
    """Entries are only ever appended: the slots of VIEW_VERSION 1 stay; a new entry comes after them."""
    assert api.VIEW_VERSION == 1
    assert {name: api.RULE_SLOTS[name] for name in VIEW_1_SLOTS} == VIEW_1_SLOTS
    later = [slot for name, slot in api.RULE_SLOTS.items() if name not in VIEW_1_SLOTS]
    assert all(slot > max(VIEW_1_SLOTS.values()) for slot in later)


def test_api_names_and_docs_come_from_the_table():
    from simcore.policies.api import R_COURT_ALL, R_SUM_TO  # generated names import like written ones

    assert (ws.RI.sum_to - ws.WEIGHT, ws.RI.court_takes_all - ws.WEIGHT) == (R_SUM_TO, R_COURT_ALL)
    for rule in POLICY_RULES:
        name = f"R_{rule.name}"
        assert getattr(api, name) == getattr(ws.RI, rule.field) - ws.WEIGHT
        assert re.search(rf"^    {name} +{getattr(api, name)}  {re.escape(rule.doc)}$", api.__doc__, re.M), name
        assert rule.doc and "\n" not in rule.doc
    mentioned = set(re.findall(r"`(R_[A-Z_]+)`", README.read_text()))
    assert mentioned and mentioned <= set(api.RULE_SLOTS) | {"R_WEIGHT"}  # the README names no slot that is gone


def test_a_numba_policy_reads_generated_constants():
    """User policies read ``api.R_*`` (module attribute) or imported names as compile-time constants."""
    from simcore.policies.api import R_SUM_TO

    @numba.njit(cache=False)
    def read(rules):
        return rules[api.R_PLAYERS] * 100 + rules[R_SUM_TO] + api.card_value(rules, 24)

    rules = VARIANTS["escoba"].compile(VARIANTS["escoba"].resolve())
    window = decision_space(rules)[ws.WEIGHT : ws.TRAIL_CLASSES]
    assert read(window) == rules.players * 100 + 15 + 7  # Escoba's sum_to; a seven (card 24) is worth 7


def test_replaced_refuses_an_unknown_field():
    @numba.njit(cache=False)
    def bad(rs):
        return replaced(rs, "no_such_rule", 1)

    with pytest.raises(TypingError, match="no_such_rule"):
        bad(move_rules(VARIANTS["scopa"].compile(VARIANTS["scopa"].resolve())))
