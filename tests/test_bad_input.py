"""Bad input to simulate, trace, replay, rules, policies and variants: each case is one line ``error: ...``, a
non-zero exit code, no traceback, and no file written or changed (``tests/faults.py``).

The cases are grouped by class: numbers beyond what fits, non-finite or unread policy parameters, empty and
absurd strings, repeated or conflicting settings, settings that are not the run's, malformed game lists, trace
files that are not traces, and trace outputs that cannot be written.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import signal

import numpy as np
import pytest
from faults import refused, refused_process
from typer.testing import CliRunner

from cli.app import app
from simcore import engine
from simcore.config import MAX_CHUNK
from simcore.variants import VARIANTS

LONG = "x" * 100_000
HUGE = str(10**20)


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    """A complete run of 300 games, seed 42, greedy v random, target 21, and a trace file of its game 5."""
    root = tmp_path_factory.mktemp("bad-input")
    out = root / "run"
    args = ["simulate", "-n", 300, "--chunk-size", 100, "--seed", 42, "--policy", "greedy", "--policy", "random"]
    result = CliRunner().invoke(app, [str(a) for a in [*args, "--rule", "target=21", "-q", "-o", out]])
    assert result.exit_code == 0, result.output
    trace_file = root / "game5.jsonl"
    result = CliRunner().invoke(app, ["trace", "--run", str(out), "--game", "5", "--out", str(trace_file)])
    assert result.exit_code == 0, result.output
    return out, trace_file


# ------------------------------------------------------------------------------------------------- simulate

SIMULATE = {
    # numbers beyond what fits
    "games 10**13": (["--games", 10**13], "games must be a positive integer from 1 to 1,000,000,000,000"),
    "games 10**20": (["--games", HUGE], "games must be"),
    "chunk size 0": (["--chunk-size", 0], "chunk size must be a positive integer"),
    "chunk size beyond 1 GB": (["--chunk-size", MAX_CHUNK + 1], "chunk size must be"),
    "seed 2**63": (["--seed", 2**63], "seed must be an integer from 0 to"),
    "threads 10**20": (["--threads", HUGE], "threads"),
    "players 10**20": (["--players", HUGE], "rule players"),
    "players -2": (["--players", -2], "rule players: -2 is not allowed"),
    "precision nan": (["--precision", "nan"], "--precision must be between"),
    "precision inf": (["--precision", "inf"], "--precision must be between"),
    "cluster local:100000": (["--cluster", "local:100000"], "a local cluster has 1 to"),
    "games too long to parse": (["--games", "9" * 100_000], "Invalid value for '--games'"),
    # NaN, infinite and absurd policy parameters
    "policy card=nan": (["--policy", "points:card=nan"], "must be a finite number"),
    "policy card=inf": (["--policy", "defensive:card=inf"], "must be a finite number"),
    "policy sweep=-1e999": (["--policy", "points:sweep=-1e999"], "must be a finite number"),
    "policy weight 1e300": (["--policy", "lookahead:card=1e300"], "card must be between"),
    "policy samples 0.5": (["--policy", "mc:samples=0.5"], "samples must be a whole number"),
    # parameters a policy accepts but never reads
    "points reads no risk": (["--policy", "points:risk=50,samples=2"], "points does not read risk"),
    "defensive reads no samples": (["--policy", "defensive:samples=4"], "defensive does not read samples"),
    "greedy reads no weights": (["--policy", "greedy:card=1"], "greedy does not read card"),
    "mc rollout 1 reads no weights": (["--policy", "mc:settebello=2"], "read only with rollout=2 or 3"),
    "mc rollout 2 reads no epsilon": (["--policy", "mc:rollout=2,epsilon=0.2"], "epsilon is read only with rollout=1"),
    "mc rollout 2 reads no risk": (["--policy", "mc:rollout=2,risk=2"], "risk is read only with rollout=3"),
    "napola weight without napola": (["--policy", "points:napola=0.5"], "napola is read only with --rule napola=true"),
    "parameter of no policy": (["--policy", "points:width=3"], "unknown parameter 'width'"),
    # malformed policy texts
    "policy repeated key": (["--policy", "points:card=1,card=2"], "parameter 'card' given twice"),
    "policy empty entry": (["--policy", "points:card=1,,sweep=2"], "empty parameter"),
    "policy colon only": (["--policy", "points:"], "no parameters after ':'"),
    "policy key without value": (["--policy", "points:card="], "needs a value"),
    "policy empty": (["--policy", ""], "no policy name"),
    "policy blank": (["--policy", "   "], "no policy name"),
    "policy 100,000 characters": (["--policy", LONG], "unknown policy 'xxxx"),
    # empty and absurd strings
    "variant empty": (["--variant", ""], "unknown variant ''"),
    "variant blank": (["--variant", " "], "unknown variant ' '"),
    "variant 100,000 characters": (["--variant", LONG], "(100,000 characters)"),
    "rule empty value": (["--rule", "target="], "rule target: empty value"),
    "rule empty key": (["--rule", " =3"], "expected KEY=VALUE"),
    "rule key 100,000 characters": (["--rule", f"{LONG}=1"], "unknown rule key"),
    "rule value 100,000 digits": (["--rule", "target=" + "1" * 100_000], "rule target: expected an integer"),
    "rule value 1_000": (["--rule", "target=1_000"], "rule target: expected an integer"),
    "cluster 100,000 characters": (["--cluster", LONG], "expected local:N"),
    # repeated or conflicting settings
    "rule given twice": (["--rule", "target=11", "--rule", "target=21"], "--rule target given twice"),
    "players and players rule": (["--players", "2", "--rule", "players=3"], "--players 2 and --rule players=3"),
}


@pytest.mark.parametrize("args,match", SIMULATE.values(), ids=SIMULATE.keys())
def test_simulate_refuses(args, match, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the default output folder would be results/ here
    refused(["simulate", *args, "--out", tmp_path / "out"], tmp_path, match=match)


def test_identical_repeats_are_one_setting(tmp_path):
    """``--rule target=21`` twice, or ``--players 2 --rule players=2``, say one thing once: not refused."""
    for args in (["--rule", "target=21", "--rule", "target=21"], ["--players", "2", "--rule", "players=2"]):
        refused(["simulate", *args, "--games", 0, "--out", tmp_path / "out"], tmp_path, match="games must be")


def test_resume_with_settings_that_are_not_the_run(run_folder):
    out, _ = run_folder
    refused(["simulate", "--resume", "--out", out, "--seed", 7], out, match="--seed 7 is not the seed of run")
    refused(["simulate", "--resume", "--out", out, "--games", 900], out, match="is not the number of games")


# ---------------------------------------------------------------------------------------------------- trace

GAME_LISTS = {
    "empty entry": "1,,2",
    "blank": "",
    "whitespace": "  ",
    "dash": "-",
    "open range": "3-",
    "negative": "-3",
    "letters": "a-b",
    "downwards": "5-2",
    "plus sign": "+3",
    "underscore": "1_0",
    "other script's digits": "\uff11",
    "index 10**20": HUGE,
    "range of 10**10 games": "0-10000000000",
    "too many games in a list": ",".join(str(i) for i in range(1001)),
}


@pytest.mark.parametrize("games", GAME_LISTS.values(), ids=GAME_LISTS.keys())
def test_trace_refuses_malformed_game_lists(games, tmp_path):
    refused(["trace", "--seed", 1, "--game", games, "--out", tmp_path / "t.jsonl"], tmp_path, match="--game")


@pytest.mark.parametrize("games", ["1,,2", "5-2", HUGE], ids=["empty entry", "downwards", "index 10**20"])
def test_replay_refuses_malformed_game_indices(games, tmp_path):
    refused(["replay", "--seed", 1, "--game", games], tmp_path, match="--game")


NOT_THE_RUN = {
    "game beyond the run": (["--game", 300], "holds games 0 to 299 only"),
    "game list beyond the run": (["--game", "290-310"], "holds games 0 to 299 only"),
    "other seed": (["--seed", 7], "--seed 7 is not the seed of run"),
    "other variant": (["--variant", "skopa"], "--variant skopa is not the variant of run"),
    "other policy": (["--policy", "random"], "--policy random is not the policies of run"),
    "other rule": (["--rule", "target=11"], "--rule target=11 is not the rule of run"),
    "other players": (["--players", 3], "--players 3 is not the player count of run"),
    "unknown rule": (["--rule", "colour=red"], "unknown rule key 'colour'"),
}


@pytest.mark.parametrize("command", ["trace", "replay"])
@pytest.mark.parametrize("args,match", NOT_THE_RUN.values(), ids=NOT_THE_RUN.keys())
def test_settings_must_be_the_runs(command, args, match, run_folder):
    out, _ = run_folder
    if command == "replay" and args[0] == "--game" and "-" in str(args[1]):
        args = ["--game", 310]
    refused([command, "--run", out, *args], out, match=match)


def test_the_runs_own_settings_are_accepted(run_folder):
    out, _ = run_folder
    args = ["--seed", 42, "--policy", "greedy", "--policy", "random", "--rule", "target=21", "--players", 2]
    result = CliRunner().invoke(app, ["trace", "--run", str(out), "--game", "5", *map(str, args)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == json.loads(run_folder[1].read_text())


def long_name(tmp_path):
    return tmp_path / ("n" * 256 + ".jsonl")


OUTPUTS = {
    "existing file": (lambda d: d / "old.jsonl", [], "already exists"),
    "existing folder": (lambda d: d / "folder", [], "is a folder"),
    "existing folder, --overwrite": (lambda d: d / "folder", ["--overwrite"], "is a folder"),
    "missing folder": (lambda d: d / "missing" / "t.jsonl", [], "does not exist"),
    "name over 255 bytes": (long_name, [], "longer than 255 bytes"),
    "path over PATH_MAX": (lambda d: d.joinpath(*["d" * 200] * 30, "t.jsonl"), [], "cannot write"),
}


@pytest.mark.parametrize("path,extra,match", OUTPUTS.values(), ids=OUTPUTS.keys())
def test_trace_refuses_outputs_it_cannot_write(path, extra, match, tmp_path):
    (tmp_path / "old.jsonl").write_text("mine\n")
    (tmp_path / "folder").mkdir()
    refused(["trace", "--seed", 1, "--out", path(tmp_path), *extra], tmp_path, match=match)


@pytest.mark.parametrize("code", [errno.EROFS, errno.ENOSPC], ids=["read-only file system", "full disk"])
def test_trace_on_a_failing_file_system_leaves_nothing(code, tmp_path, monkeypatch):
    """Creating the file fails (read-only), or writing it fails half-way (a full disk): one line, the old file as
    it was, and no temporary file left."""
    (tmp_path / "old.jsonl").write_text("mine\n")
    real_open, real_write = os.open, os.write

    def failing_open(path, *args, **kwargs):
        if ".trace-" in str(path):
            raise OSError(code, os.strerror(code), str(path))
        return real_open(path, *args, **kwargs)

    def failing_write(fd, data):
        real_write(fd, bytes(data[:10]))
        raise OSError(code, os.strerror(code))

    if code == errno.EROFS:
        monkeypatch.setattr("cli.commands.trace.os.open", failing_open)
    else:
        monkeypatch.setattr("cli.commands.trace.os.write", failing_write)
    args = ["trace", "--seed", 1, "--game", "0-2", "--out", tmp_path / "old.jsonl", "--overwrite"]
    refused(args, tmp_path, match=os.strerror(code))


def test_trace_beyond_the_file_size_limit_leaves_nothing(tmp_path, run_folder):
    """A real short write: a process limited to 1 kB files (SIGXFSZ ignored, so the write fails with EFBIG).

    ``run_folder`` has compiled the kernels into the cache first: the limited process only reads it.
    """

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

    args = ["trace", "--seed", 1, "--game", "0-3", "--out", tmp_path / "t.jsonl"]
    # no bytecode written: the limit would cut a module's cache file at 1 kB, which Python then replaces the whole
    # one with (a stale cache, after a source edit, was rewritten so and broke every later import of that module)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    refused_process(args, tmp_path, code=1, match="File too large", preexec_fn=limit, env=env)


# --------------------------------------------------------------------------------------------------- replay


def game_line(trace_file, **change):
    game = json.loads(trace_file.read_text())
    for key, value in change.items():
        if value is None:
            del game[key]
        else:
            game[key] = value
    return json.dumps(game) + "\n"


NOT_A_TRACE = {
    "binary": (lambda t: b"\x89PNG\r\n\x1a\n\x00\xff\xfe" * 50, "not UTF-8 text"),
    "JSON array": (lambda t: b"[1, 2, 3]\n", "a JSON array, not a game object"),
    "JSON object without the fields": (lambda t: b'{"a": 1}\n', "no 'format' field"),
    "another format": (lambda t: game_line(t, format="other/1").encode(), "format is 'other/1'"),
    "no events": (lambda t: game_line(t, events=None).encode(), "no 'events' field"),
    "events not a list": (lambda t: game_line(t, events={}).encode(), "field 'events' is not a JSON array"),
    "unknown event": (lambda t: game_line(t, events=[{"type": "dance"}]).encode(), "no known type"),
    "play without cards": (
        lambda t: game_line(t, events=[{"type": "play", "seat": 0}]).encode(),
        "event 0 (play) has no valid 'cards'",
    ),
    "not a card": (lambda t: game_line(t, events=[{"type": "table", "cards": ["Zz"]}]).encode(), "no valid 'cards'"),
    "not JSON": (lambda t: b"hello\n", "not JSON"),
    "empty file": (lambda t: b"", "holds no game"),
    "blank lines only": (lambda t: b"\n \n\n", "holds no game"),
    "huge line": (lambda t: b"x" * (17 << 20), "longer than 16 MiB"),
    "deep nesting": (lambda t: b"[" * 100_000 + b"]" * 100_000 + b"\n", "line 1"),
}


@pytest.mark.parametrize("content,match", NOT_A_TRACE.values(), ids=NOT_A_TRACE.keys())
def test_replay_refuses_a_file_that_is_not_a_trace(content, match, run_folder, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(content(run_folder[1]))
    message = refused(["replay", "--trace", bad], tmp_path, match=match)
    assert "bad.jsonl" in message


def test_replay_refuses_trace_paths_that_are_not_files(run_folder, tmp_path):
    refused(["replay", "--trace", tmp_path], tmp_path, match="is a folder, not a trace file")
    refused(["replay", "--trace", tmp_path / "missing.jsonl"], tmp_path, match="No such file or directory")
    refused(["replay", "--trace", tmp_path / LONG], tmp_path, match="File name too long")
    refused(["replay", "--trace", run_folder[1], "--game", 6], tmp_path, match="has no game 6 (games: 5)")
    refused(["replay", "--trace", run_folder[1], "--seed", 3], tmp_path, match="--seed: the game comes from --trace")


def test_replay_of_a_trace_with_markup_in_it_prints_it(run_folder, tmp_path):
    """Text of a trace file is printed as it is: a ``[/bold]`` in a policy name is not rich markup."""
    odd = tmp_path / "odd.jsonl"
    odd.write_text(game_line(run_folder[1], policies=["[/bold]", "[red]x"]))
    result = CliRunner().invoke(app, ["replay", "--trace", str(odd)])
    assert result.exit_code == 0, result.output
    assert "seat 0 [/bold], seat 1 [red]x" in result.output


# --------------------------------------------------------------------------------------- listing commands

LISTINGS = {
    "rules empty variant": (["rules", ""], "unknown variant ''", 1),
    "rules 100,000 characters": (["rules", LONG], "(100,000 characters)", 1),
    "policies blank variant": (["policies", " "], "unknown variant ' '", 1),
    "variants extra argument": (["variants", "scopa"], "unexpected extra argument", 2),
    "rules without a variant": (["rules"], "Missing argument 'VARIANT'", 2),
}


@pytest.mark.parametrize("args,match,code", LISTINGS.values(), ids=LISTINGS.keys())
def test_listings_refuse(args, match, code, tmp_path):
    refused(args, tmp_path, code=code, match=match)


SHARED = {
    "tournament empty variant": (["tournament", "--policies", "random,greedy", "--variant", ""], "unknown variant ''"),
    "tournament rule twice": (
        ["tournament", "--policies", "random,greedy", "--rule", "target=11", "--rule", "target=21"],
        "--rule target given twice",
    ),
    "balance negative seed": (["balance", "--vary", "players=2,3", "--seed", "-1"], "seed must be an integer"),
}


@pytest.mark.parametrize("args,match", SHARED.values(), ids=SHARED.keys())
def test_shared_options_are_checked_for_every_command(args, match, tmp_path, monkeypatch):
    """Variant, rule and seed options are checked as they are parsed, so tournament and balance refuse them too."""
    monkeypatch.chdir(tmp_path)
    refused([*args, "--out", tmp_path / "out"], tmp_path, code=1, match=match)


def test_an_uncaught_os_error_is_one_line(tmp_path, monkeypatch):
    """The last safety net: an OSError that no command turned into its own message."""

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "/some/file")

    monkeypatch.setattr("cli.commands.variants.render.print_table", full)
    assert refused(["variants"], tmp_path, code=1) == "error: No space left on device: /some/file"


def test_a_multi_line_or_endless_message_is_cut_to_one_line(tmp_path, monkeypatch):
    from simcore.errors import ConfigError

    def noisy(*args, **kwargs):
        raise ConfigError("first line\nsecond line " + LONG)

    monkeypatch.setattr("cli.commands.variants.render.print_table", noisy)
    message = refused(["variants"], tmp_path, code=1, match="first line second line")
    assert len(message) <= 300


def test_a_chunk_of_the_largest_size_fits_in_1_gb():
    """``MAX_CHUNK`` keeps a chunk's output arrays under 1 GB for every game and player count."""
    widest = 0.0
    for spec in VARIANTS.values():
        players = spec.key("players")
        for count in players.choices or (players.default,):
            rules = spec.compile(spec.resolve({"players": count}))
            out = engine.allocate(rules, 1000, engine.DEFAULT_DEAL_SLOTS, False)
            widest = max(widest, sum(a.nbytes for a in out) / 1000)
    assert MAX_CHUNK * widest < 2**30


# ------------------------------------------------------------------ a policy accepts what its kernel reads

SLOTS = {  # parameter group -> (slots of the kernels' parameter row, how a test changes them)
    "weights": ([*range(52), 52, 56, 59], lambda row, slots: row.__setitem__(slots, -5 * row[slots] - 1)),
    "sweep": ([53], lambda row, slots: row.__setitem__(slots, -30.0)),  # avoid sweeps: they are taken anyway
    "risk": ([54], lambda row, slots: row.__setitem__(slots, 40.0)),
    "samples": ([55], lambda row, slots: row.__setitem__(slots, 1.0)),
    "epsilon": ([57], lambda row, slots: row.__setitem__(slots, 0.9)),
}


def _groups(choice) -> set[str]:
    """The parameter groups a parsed policy accepts."""
    from simcore.policies.weights import game_weights

    keys = set(choice.params)
    groups = {g for g in ("sweep", "risk", "samples", "epsilon") if g in keys}
    return groups | ({"weights"} if keys & set(game_weights(choice.variant)) else set())


@pytest.mark.parametrize(
    "label",
    [
        "random",
        "greedy",
        "points",
        "defensive",
        "lookahead:samples=4",
        "mc:samples=3",
        "mc:samples=3,rollout=2",
        "mc:samples=3,rollout=3",
    ],
)
def test_a_policy_accepts_exactly_the_parameters_its_kernel_reads(label):
    """Changing a slot of the parameter row that the policy refuses leaves every game as it was; changing a group
    it accepts changes some game. So a refused parameter could not have had an effect, and an accepted one has."""
    from simcore.config import RunConfig
    from simcore.policies import policy_arrays

    config = RunConfig.create("scopa", policies=[label, "greedy"], games=60, seed=11)
    rules = config.compiled_rules()
    ids, params = policy_arrays(config.policy_choices(), config.rules)
    games = np.arange(60)

    def outcome(row):
        out = engine.play(rules, config.seed, games, ids, row)
        return out.winner.tolist(), out.totals.tolist(), out.n_plays.tolist()

    baseline = outcome(params)
    accepted = _groups(config.policy_choices()[0])
    for group, (slots, change) in SLOTS.items():
        row = params.copy()
        change(row[0], slots)
        same = outcome(row) == baseline
        assert same == (group not in accepted), f"{label}: {group} {'unread' if same else 'read'}"


def test_labels_are_canonical_and_keep_every_digit():
    from simcore.policies import parse_policy

    assert parse_policy("mc:card=0.1,rollout=2").label == "mc:rollout=2,card=0.1"
    assert parse_policy("mc:samples=24,epsilon=0.1").label == "mc"
    label = parse_policy("points:card=0.123456789").label
    assert label == "points:card=0.123456789" and parse_policy(label).params["card"] == 0.123456789
    assert parse_policy("points:napola=0.5", "scopa", {"napola": True}).label == "points:napola=0.5"
