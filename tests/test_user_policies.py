"""User-written policies (``--policy file.py:function``): same rows as the built-ins they re-implement, one
compiled game loop for all of them, honest by construction, content-addressed, and one-line errors."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from cli.app import app
from simcore import api, userpolicy
from simcore.cards import cards_of, mask_of
from simcore.config import RunConfig
from simcore.errors import ConfigError
from simcore.kernels.game import MOVES_FAMILY, decide, fill_rule_info
from simcore.kernels.moves import move_rules
from simcore.kernels.workspace import DECK, GAME_STATE_SIZE, HANDS, MOVES, PILES, RNG, decision_space_size
from simcore.policies import parse_policy, policy_arrays
from simcore.policies.kernels import POLICY_USER
from simcore.rng import stream_state
from simcore.variants import VARIANTS

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "policies"
GREEDY = f"{EXAMPLES / 'greedy.py'}:greedy"
SWEEP_AVERSE = f"{EXAMPLES / 'sweep_averse.py'}:sweep_averse"
TEMPERED = f"{EXAMPLES / 'tempered.py'}:tempered"


def chunk(policies, variant="scopa", games=200, seed=3, **kw):
    config = RunConfig.create(variant, policies=policies, games=games, seed=seed, **kw)
    return api.play_chunk(config, np.arange(games, dtype=np.int64))


def same_rows(a, b) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


SPY = """
from simcore.policies.api import draw

def spy(view, rules, moves, rng, params):
    '''Reads every slot it is given, draws from its stream, and hashes it all into a move.'''
    h = 0
    for i in range(view.shape[0]):
        h = (h * 31 + view[i]) & 0xFFFFFFFFFFFF
    for i in range(rules.shape[0]):
        h = (h * 31 + rules[i]) & 0xFFFFFFFFFFFF
    for i in range(moves.shape[0]):
        h = (h * 31 + moves[i, 0] + 7 * moves[i, 1]) & 0xFFFFFFFFFFFF
    h = h * 31 + draw(rng, 1000)
    return h % moves.shape[0]
"""


# ------------------------------------------------------------------ the examples


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_example_greedy_plays_exactly_the_builtin_greedy(variant):
    for seed in (3, 11):
        assert same_rows(chunk(["greedy"], variant, seed=seed), chunk([GREEDY], variant, seed=seed))
    players = 4 if variant in ("foracio", "scopone") else 2
    mixed = chunk(["random", GREEDY] * (players // 2), variant, seed=5)
    assert same_rows(chunk(["random", "greedy"] * (players // 2), variant, seed=5), mixed)


def test_examples_play_and_are_listed(tmp_path):
    for label in (SWEEP_AVERSE, TEMPERED, f"{TEMPERED}:explore=0.3,sweep_bonus=0"):
        out = chunk([label, "greedy"], games=300)
        assert (out.overflow == 0).all() and set(np.unique(out.winner)) <= {0, 1}
    assert not same_rows(chunk([TEMPERED, "greedy"]), chunk([f"{TEMPERED}:explore=0.3", "greedy"]))
    result = CliRunner().invoke(app, ["policies", "scopa", "--file", str(EXAMPLES / "tempered.py")])
    assert result.exit_code == 0, result.output
    assert "tempered" in result.output and "explore=0.05" in result.output
    result = CliRunner().invoke(app, ["policies", "scopa", "--file", str(EXAMPLES / "sweep_averse.py")])
    assert "sweep_averse" in result.output and "sweepable" not in result.output  # a helper, not a policy


def test_sweep_averse_beats_greedy_and_the_careful_builtin_plays_it():
    """The example's idea pays (it wins more than half its games against greedy), and the built-in ``careful``,
    written against the same public API, makes exactly the example's moves."""
    ours = chunk([SWEEP_AVERSE, "greedy"], games=2000, seed=1)
    theirs = chunk(["greedy", SWEEP_AVERSE], games=2000, seed=1)
    wins = (ours.winner == 0).sum() + (theirs.winner == 1).sum()
    assert wins > 2000
    assert same_rows(chunk(["careful", "greedy"], games=500), chunk([SWEEP_AVERSE, "greedy"], games=500))


def test_parameters_and_labels():
    choice = parse_policy(f"{TEMPERED}:explore=0.2")
    assert choice.params == {"explore": 0.2, "trail_low": 1.0, "sweep_bonus": 500.0}
    assert choice.label == f"{TEMPERED}:explore=0.2"
    assert parse_policy(f"{TEMPERED}:explore=0.05").label == TEMPERED  # a default is not part of the label
    ids, params = policy_arrays([choice], {})
    assert ids[0] == POLICY_USER and list(params[0, :3]) == [0.2, 1.0, 500.0] and params[0, 63] > 0


# ------------------------------------------------------------------ one game loop, content-addressed cache


def test_the_game_loop_is_compiled_once_for_every_user_policy(tmp_path):
    from simcore.kernels.batch import run_games

    chunk([GREEDY], games=5)
    before = len(run_games.signatures)
    chunk([TEMPERED, SWEEP_AVERSE], games=5)
    other = write(tmp_path, "mine.py", SPY)
    chunk([f"{other}:spy"], games=5)
    assert len(run_games.signatures) == before  # no new compile: the same signature (run_features: full)


def test_a_file_is_known_by_its_content(tmp_path):
    path = write(tmp_path, "p.py", "def first(view, rules, moves, rng, params):\n    return 0\n")
    a = RunConfig.create("scopa", policies=[f"{path}:first"], games=10)
    Path(path).write_text("def first(view, rules, moves, rng, params):\n    return moves.shape[0] - 1\n")
    b = RunConfig.create("scopa", policies=[f"{path}:first"], games=10)
    assert a.policies == b.policies and a.sources != b.sources
    assert a.to_dict()["sources"][path]["sha256"] == userpolicy.digest(a.sources[path])
    assert not same_rows(api.play_chunk(a, np.arange(10)), api.play_chunk(b, np.arange(10)))
    # a worker (or a later process) rebuilds the config from its dict alone: the file itself is not needed
    Path(path).unlink()
    again = RunConfig.from_dict(a.to_dict())
    assert same_rows(api.play_chunk(again, np.arange(10)), api.play_chunk(a, np.arange(10)))


def test_resume_refuses_a_changed_file(tmp_path):
    path = write(tmp_path, "p.py", SPY)
    out = tmp_path / "run"
    args = ["simulate", "-n", "400", "--chunk-size", "200", "--seed", "1", "-q", "--policy", f"{path}:spy"]
    result = CliRunner().invoke(app, [*args, "-o", str(out)])
    assert result.exit_code == 0, result.output
    games = pd.read_parquet(out / "games")
    assert len(games) == 400 and set(games["policy_0"]) == {f"{path}:spy"}
    Path(path).write_text(SPY.replace("1000", "999"))
    result = CliRunner().invoke(app, [*args, "-o", str(out), "--resume"])
    assert result.exit_code != 0 and "p.py has changed since run" in result.output, result.output
    from simcore.results import describe_diff

    changed = RunConfig.create("scopa", policies=[f"{path}:spy"], games=400, seed=1, chunk_size=200)
    recorded = RunConfig.from_dict(json.loads((out / "manifest.json").read_text())["config"])
    assert describe_diff(recorded.to_dict(), changed.to_dict()).startswith("sources: {")  # hashes, not texts
    result = CliRunner().invoke(app, ["trace", "--run", str(out), "--game", "3", "--policy", f"{path}:spy"])
    assert result.exit_code != 0 and "has changed" in result.output, result.output


def test_trace_replay_tournament_balance_take_a_user_policy(tmp_path):
    runner = CliRunner()
    for args in (
        ["trace", "--game", "2", "--policy", GREEDY, "--seed", "4"],
        ["replay", "--game", "2", "--policy", GREEDY, "--policy", "random", "--seed", "4"],
        ["tournament", "--policies", f"greedy,{TEMPERED}", "-n", "200", "--seed", "1", "-q", "-o", tmp_path / "t"],
        ["balance", "--policy", SWEEP_AVERSE, "--vary", "target=11,16", "-n", "100", "-q", "-o", tmp_path / "b"],
    ):
        result = runner.invoke(app, [str(a) for a in args])
        assert result.exit_code == 0, (args, result.output)


# ------------------------------------------------------------------ honest by construction


def test_hidden_cards_never_change_a_user_decision(tmp_path):
    """Redraw the other hands and the stock from the cards the seat has not seen: a policy that reads every
    slot it is given makes the same move and leaves its stream in the same state."""
    from simcore.variants.scopa import SPEC

    rules = SPEC.compile(SPEC.resolve({}))
    choice = parse_policy(f"{write(tmp_path, 'spy.py', SPY)}:spy")
    _, params = policy_arrays([choice] * 4, {})
    rng = random.Random(5)
    pack = cards_of(rules.pack)
    for _ in range(200):
        cards = rng.sample(pack, len(pack))
        hand, table, pile, unseen = cards[:3], cards[3 : 3 + rng.randint(0, 6)], cards[10:18], cards[18:]
        decisions = set()
        for _redraw in range(3):
            rng.shuffle(unseen)
            gs = np.zeros(GAME_STATE_SIZE, np.int64)
            ps = np.zeros(decision_space_size(rules.max_moves), np.int64)
            fill_rule_info(ps, rules)
            for seat in range(4):
                ps[RNG + 1 + seat] = stream_state(1, 0, 1 + seat)
            gs[HANDS : HANDS + 3] = mask_of(hand), mask_of(unseen[:3]), mask_of(unseen[3:6])
            gs[PILES] = mask_of(pile)
            gs[DECK : DECK + len(unseen)] = unseen
            seen = mask_of(table) | mask_of(pile)
            args = (gs, ps, 0, 0, mask_of(table), seen, len(unseen), 1, 4, move_rules(rules), POLICY_USER, params)
            i = decide(*args, MOVES_FAMILY, 0)
            decisions.add((int(ps[MOVES + 2 * i]), int(ps[MOVES + 2 * i + 1]), int(ps[RNG + 1])))
        assert len(decisions) == 1


# ------------------------------------------------------------------ errors: one line, naming file and function


def test_error_no_such_file(tmp_path):
    with pytest.raises(ConfigError, match=r"^policy file .*nothing\.py: no such file$"):
        RunConfig.create("scopa", policies=[f"{tmp_path / 'nothing.py'}:f"])


def test_error_no_such_function_lists_the_file_policies():
    with pytest.raises(ConfigError, match=r"greedy\.py:gredy: no function 'gredy' in the file \(policies: greedy\)"):
        parse_policy(f"{EXAMPLES / 'greedy.py'}:gredy")


def test_error_wrong_signature(tmp_path):
    path = write(tmp_path, "sig.py", "def two(view, moves):\n    return 0\n")
    with pytest.raises(ConfigError, match=r"sig\.py:two: takes \(view, moves\), expected 5 arguments"):
        parse_policy(f"{path}:two")


def test_error_numba_cannot_compile(tmp_path):
    bad = "def bad(view, rules, moves, rng, params):\n    return undefined_helper(view)\n"
    path = write(tmp_path, "bad.py", bad)
    with pytest.raises(ConfigError) as info:
        parse_policy(f"{path}:bad")
    message = str(info.value)
    assert message.startswith(f"policy {path}:bad: Numba cannot compile it: ") and "undefined_helper" in message
    assert "\n" not in message
    writes = "def writes(view, rules, moves, rng, params):\n    view[0] = 1\n    return 0\n"
    path = write(tmp_path, "writes.py", writes)
    readonly = r"writes\.py:writes: Numba cannot compile it: .*Cannot modify readonly array.* \(line 2\)$"
    with pytest.raises(ConfigError, match=readonly):
        parse_policy(f"{path}:writes")


def test_error_unknown_parameter():
    unknown = r"tempered\.py:tempered: unknown parameter 'explor' \(its PARAMETERS: explore"
    with pytest.raises(ConfigError, match=unknown):
        parse_policy(f"{TEMPERED}:explor=0.1")
    with pytest.raises(ConfigError, match="must be a number"):
        parse_policy(f"{TEMPERED}:explore=lots")


def test_error_an_illegal_index_names_the_game_and_decision(tmp_path):
    text = (
        "def late(view, rules, moves, rng, params):\n"
        "    if view[6] == 1 and view[7] >= 5:\n"  # deal 1, from play 5: an index past the last move
        "        return moves.shape[0]\n"
        "    return 0\n"
    )
    path = write(tmp_path, "late.py", text)
    config = RunConfig.create("scopa", policies=[f"{path}:late", "greedy"], games=20, seed=2)
    with pytest.raises(ConfigError) as info:
        api.play_chunk(config, np.arange(20))
    message = str(info.value)
    found = re.search(rf"{re.escape(path)}:late returned (\d+), not a legal move index \(0\.\.(\d+)\)", message)
    assert "\n" not in message and found, message
    assert int(found.group(1)) == int(found.group(2)) + 1  # the value it returned: one past the last move
    assert "game 0, decision" in message and re.search(r"\(deal 1, play [56], seat 0\)", message), message
    out = tmp_path / "late.jsonl"
    args = ["trace", "--game", "0", "--seed", "2", "--policy", f"{path}:late", "-o", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1 and "game 0, decision" in result.output
    assert not out.exists(), "an unfinished game must not be written as a trace"


def test_trace_shows_the_game_up_to_an_illegal_decision(tmp_path):
    """The trace events before the faulty decision are the run's own (those of the same game played by a policy
    that plays move 0 throughout), then the position: seat, hand, table and the legal moves it had."""
    late = "def late(view, rules, moves, rng, params):\n    return moves.shape[0] if view[6] == 1 else 0\n"
    first = "def first(view, rules, moves, rng, params):\n    return 0\n"
    late_path, first_path = write(tmp_path, "late.py", late), write(tmp_path, "first.py", first)
    result = CliRunner().invoke(app, ["trace", "--game", "4", "--seed", "9", "--policy", f"{late_path}:late"])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    start = lines.index("the game up to that decision (trace events):")
    events = [json.loads(line) for line in lines[start + 1 :] if line.startswith("{")]
    played = [e for e in events if e["type"] == "play"]
    assert events[0]["type"] == "deal" and not any(e["type"] == "end" for e in events)
    config = RunConfig.create("scopa", policies=[f"{first_path}:first"], games=5, seed=9)
    full = api.trace(config, [4])[0]["events"]
    assert full[: len(events)] == events  # move 0 everywhere: the same game until deal 1 starts
    assert sum(e["type"] == "score" for e in events) == 1 and played  # deal 0 was played to its end
    position = lines[start + 1 + len(events) :]
    assert position[0].startswith("seat ") and ", deal 1, play 0" in position[0], position
    assert position[1].startswith("hand: ") and position[2].startswith("table: ")
    assert re.match(r"legal moves \((\d+)\):", position[3]) and position[4].startswith("  0: ")
    assert lines[-1].startswith("error: policy ") and "game 4, decision" in lines[-1]


def test_a_cluster_run_gets_the_file_from_the_config(tmp_path):
    """The workers build the policy from the text the config carries: the same rows as in one process."""
    pytest.importorskip("dask.distributed")
    path = write(tmp_path, "spy.py", SPY)
    config = RunConfig.create("scopa", policies=[f"{path}:spy", "greedy"], games=600, seed=4, chunk_size=200)
    api.simulate(config, tmp_path / "one", threads=1)
    api.run_chunks(api.open_run(config, tmp_path / "two"), cluster="local:1")
    for part in ("games", "deals"):
        one = pd.read_parquet(tmp_path / "one" / part).sort_values(["game"], kind="stable", ignore_index=True)
        two = pd.read_parquet(tmp_path / "two" / part).sort_values(["game"], kind="stable", ignore_index=True)
        pd.testing.assert_frame_equal(one, two)


def test_error_bad_parameters_declaration_and_missing_file_on_the_command_line(tmp_path):
    path = write(tmp_path, "decl.py", 'PARAMETERS = {"depth": "deep"}\n\n' + SPY)
    with pytest.raises(ConfigError, match=r"decl\.py: PARAMETERS\['depth'\] must be a finite number, got 'deep'"):
        parse_policy(f"{path}:spy")
    result = CliRunner().invoke(app, ["policies", "scopa", "--file", str(tmp_path / "gone.py")])
    assert result.exit_code == 1 and result.output.startswith("error: policy file") and "no such file" in result.output
    result = CliRunner().invoke(app, ["simulate", "-n", "10", "-q", "--policy", f"{tmp_path / 'gone.py'}:f"])
    assert result.exit_code == 1 and "gone.py: no such file" in result.output


def test_the_view_a_policy_reads_ends_before_the_engine_slots():
    """The user's view is ``ps[VIEW : VIEW + VIEW_SIZE]``: the fault slot and the streams lie past it."""
    from simcore.kernels.deal import VIEW_N_MOVES
    from simcore.kernels.workspace import FAULT, VIEW
    from simcore.policies import api as policy_api
    from simcore.policies.usercall import FAULT_VALUE

    assert policy_api.VIEW_SIZE == VIEW_N_MOVES + 1 <= FAULT_VALUE - VIEW < FAULT
    # the rule slots are appended, never moved, within version 1 (tests/test_ruleinfo.py pins their numbers)
    assert policy_api.RULES_SIZE >= 78 and policy_api.R_COURT_ALL == 77 and policy_api.VIEW_VERSION == 1


def test_error_an_exception_in_the_policy_is_named(tmp_path):
    """A compiled callback cannot raise: the game loop sees an illegal index, and the replay runs the policy as
    plain Python at that decision to name the exception."""
    text = (
        "def raiser(view, rules, moves, rng, params):\n"
        "    if view[7] == 3:\n"
        "        raise ValueError('no good move')\n"
        "    return 0\n"
    )
    path = write(tmp_path, "raiser.py", text)
    config = RunConfig.create("scopa", policies=["greedy", f"{path}:raiser"], games=5, seed=1)
    named = r"raiser\.py:raiser raised ValueError: no good move: game 0, decision \d+ \(deal \d+, play 3, seat 1\)"
    with pytest.raises(ConfigError, match=named):
        api.play_chunk(config, np.arange(5))
