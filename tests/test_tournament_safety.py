"""Bad input and foreign files given to ``scopasim tournament`` (and ``analyze`` of a tournament): each is one line
``error: ...``, a non-zero exit code, and not a byte written or changed (checked by ``faults.refused``).

The resume cases start from a copy of one small finished tournament and change one thing: the settings asked
for, the index, or a seating folder. The same command on the unchanged copy succeeds (the control), so each
refusal is caused by the one change.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from faults import refused
from typer.testing import CliRunner

from cli.app import app
from simcore.tournament import run_tournament

POLICIES, GAMES, SEED = "random,greedy", 20, 5
PAIRING = "random-vs-greedy"


def command(out: Path, *extra: object, policies: str = POLICIES, games: object = GAMES, seed: object = SEED) -> list:
    return ["tournament", "--policies", policies, "--games", games, "--seed", seed, "-q", "--out", out, *extra]


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("finished") / "t"
    run_tournament("scopa", POLICIES.split(","), games=GAMES, seed=SEED, out=out, threads=1)
    result = CliRunner().invoke(app, [str(a) for a in command(out, "--resume")])  # writes the result files
    assert result.exit_code == 0, result.output
    return out


def _copy(finished: Path, out: Path) -> None:
    shutil.copytree(finished, out)


def _edit_json(path: Path, change: Callable[[dict], None]) -> None:
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


def _swap_seatings(finished: Path, out: Path) -> None:
    _copy(finished, out)
    pairing = out / PAIRING
    (pairing / "ab").rename(pairing / "tmp")
    (pairing / "ba").rename(pairing / "ab")
    (pairing / "tmp").rename(pairing / "ba")


def _seating_from(name: str, **settings) -> Callable[[Path, Path], None]:
    """The copy, with seating folder ``name`` replaced by the same seating of a real tournament with other
    ``settings`` (a consistent run folder, just not this tournament's)."""

    def setup(finished: Path, out: Path) -> None:
        _copy(finished, out)
        other = out.parent / "other"
        run_tournament("scopa", POLICIES.split(","), out=other, threads=1, **{"games": GAMES, "seed": SEED, **settings})
        shutil.rmtree(out / PAIRING / name)
        shutil.copytree(other / PAIRING / name, out / PAIRING / name)
        shutil.rmtree(other)

    return setup


def _seating_file(finished: Path, out: Path) -> None:
    _copy(finished, out)
    shutil.rmtree(out / PAIRING / "ba")
    (out / PAIRING / "ba").write_text("not a folder")


def _seating_symlink(finished: Path, out: Path) -> None:
    _copy(finished, out)
    shutil.move(out / PAIRING / "ba", out.parent / "elsewhere")
    (out / PAIRING / "ba").symlink_to(out.parent / "elsewhere", target_is_directory=True)


def _seating_no_manifest(finished: Path, out: Path) -> None:
    _copy(finished, out)
    (out / PAIRING / "ab" / "manifest.json").unlink()


def _seating_bad_manifest(finished: Path, out: Path) -> None:
    _copy(finished, out)
    (out / PAIRING / "ab" / "manifest.json").write_text('{"schema_version": 1, "config": ')


def _index(text: str) -> Callable[[Path, Path], None]:
    def setup(finished: Path, out: Path) -> None:
        _copy(finished, out)
        (out / "tournament.json").write_text(text)

    return setup


def _no_index_plus(name: str) -> Callable[[Path, Path], None]:
    def setup(finished: Path, out: Path) -> None:
        _copy(finished, out)
        for result in ("tournament.json", "pairings.csv", "ratings.csv", "results.json"):
            (out / result).unlink()
        (out / name).write_text("a,b\n1,2\n")

    return setup


def _user_folder(finished: Path, out: Path) -> None:
    out.mkdir()
    (out / "notes.txt").write_text("my notes")


def _file(finished: Path, out: Path) -> None:
    out.write_text("my file")


def _nothing(finished: Path, out: Path) -> None:
    pass


def resume(out: Path) -> list:
    """The finished tournament's own command, resuming."""
    return command(out, "--resume")


# (id, setup, arguments after "scopasim" given the out folder, expected exit code, text of the message)
CASES = [
    ("policies-empty", _nothing, lambda o: command(o, policies=""), 1, "--policies is empty"),
    ("policies-only-commas", _nothing, lambda o: command(o, policies=" , ,"), 1, "--policies is empty"),
    ("policies-one", _nothing, lambda o: command(o, policies="greedy"), 1, "at least two different policies"),
    ("policies-duplicate", _nothing, lambda o: command(o, policies="greedy,random,greedy"), 1, "more than once"),
    (
        "policies-duplicate-spelled-apart",
        _nothing,
        lambda o: command(o, policies="points:card=2,points:card=2,sweep=1"),
        1,
        "more than once",
    ),
    ("policies-unknown", _nothing, lambda o: command(o, policies="greedy,alphazero"), 1, "unknown policy"),
    ("policies-bad-value", _nothing, lambda o: command(o, policies="greedy,points:card=x"), 1, "must be a number"),
    ("policies-unknown-parameter", _nothing, lambda o: command(o, policies="greedy,points:bogus=1"), 1, "bogus"),
    ("games-zero", _nothing, lambda o: command(o, games=0), 1, "games must be a positive integer"),
    ("games-negative", _nothing, lambda o: command(o, games=-5), 1, "games must be a positive integer"),
    ("games-huge", _nothing, lambda o: command(o, games=10**13), 1, "from 1 to 1,000,000,000,000"),
    ("games-beyond-int64", _nothing, lambda o: command(o, games=10**20), 1, "from 1 to 1,000,000,000,000"),
    ("players-three-sides", _nothing, lambda o: command(o, "--players", 3), 1, "3 sides; a tournament needs two"),
    (
        "rule-players-three-sides",
        _nothing,
        lambda o: command(o, "-v", "skopa", "--rule", "players=3"),
        1,
        "3 sides; a tournament needs two",
    ),
    ("players-not-allowed", _nothing, lambda o: command(o, "--players", 5), 1, "not allowed"),
    ("players-disagree", _nothing, lambda o: command(o, "--players", 2, "--rule", "players=4"), 1, "disagree"),
    ("level-zero", _nothing, lambda o: command(o, "--level", 0), 1, "--level"),
    ("level-one-and-a-half", _nothing, lambda o: command(o, "--level", 1.5), 1, "--level"),
    ("level-nan", _nothing, lambda o: command(o, "--level", "nan"), 1, "--level"),
    ("format-unknown", _nothing, lambda o: command(o, "--format", "xml"), 2, "--format"),
    ("resume-without-out", _nothing, lambda o: [*command(o)[:-2], "--resume"], 1, "--resume needs --out"),
    ("out-is-a-file", _file, lambda o: command(o), 1, "not a folder"),
    ("out-is-a-file-resume", _file, resume, 1, "not a folder"),
    ("out-user-folder", _user_folder, lambda o: command(o), 1, "already exists"),
    ("out-user-folder-resume", _user_folder, resume, 1, "'notes.txt'"),
    ("out-finished-without-resume", _copy, lambda o: command(o), 1, "already exists"),
    ("resume-other-games", _copy, lambda o: command(o, "--resume", games=30), 1, "games: 20 there, 30 now"),
    ("resume-other-seed", _copy, lambda o: command(o, "--resume", seed=6), 1, "seed: 5 there, 6 now"),
    ("resume-other-rules", _copy, lambda o: command(o, "--resume", "--rule", "target=21"), 1, "rule target: 11"),
    ("resume-other-policies", _copy, lambda o: command(o, "--resume", policies="random,points"), 1, "policies:"),
    ("resume-other-variant", _copy, lambda o: command(o, "--resume", "-v", "skopa"), 1, "variant: 'scopa' there"),
    ("index-not-json", _index('{"variant": "scopa", '), resume, 1, "not a scopasim tournament index"),
    ("index-foreign-object", _index('{"name": "my experiment", "runs": []}'), resume, 1, "signature"),
    ("index-json-array", _index("[1, 2, 3]"), resume, 1, "not a scopasim tournament index"),
    ("seatings-swapped", _swap_seatings, resume, 1, "/ab holds a run of other settings"),
    ("seating-other-seed", _seating_from("ba", seed=SEED + 1), resume, 1, "seed: 6 there, 5 now"),
    ("seating-other-games", _seating_from("ab", games=GAMES * 2), resume, 1, "games: 40 there, 20 now); choose"),
    ("seating-is-a-file", _seating_file, resume, 1, "/ba exists and is not a folder"),
    ("seating-symlink", _seating_symlink, resume, 1, "/ba is a symbolic link"),
    ("seating-without-manifest", _seating_no_manifest, resume, 1, "holds no run"),
    ("seating-bad-manifest", _seating_bad_manifest, resume, 1, "seating folder"),
    ("no-index-user-results", _no_index_plus("pairings.csv"), resume, 1, "pairings.csv"),
    ("no-index-user-file", _no_index_plus("draft.txt"), resume, 1, "did not create"),
]


@pytest.mark.parametrize(("setup", "args", "code", "match"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_refused(finished, tmp_path, setup, args, code, match):
    out = tmp_path / "t"
    setup(finished, out)
    refused(args(out), tmp_path, code=code, match=match)


def test_the_control_resume_succeeds(finished, tmp_path):
    """The unchanged copy resumes (every seating complete: only the tables are rewritten)."""
    out = tmp_path / "t"
    _copy(finished, out)
    result = CliRunner().invoke(app, [str(a) for a in command(out, "--resume")])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "tournament.json").read_text())["complete"] is True


ANALYZE_CASES = [
    ("two-tournaments", lambda t: ["analyze", t, t], "analysed alone"),
    ("tournament-and-run", lambda t: ["analyze", t, t / PAIRING / "ab"], "analysed alone"),
    ("partial", lambda t: ["analyze", t, "--partial"], "--partial does not apply"),
    ("unknown-table", lambda t: ["analyze", t, "--table", "seats"], "unknown table"),
    ("level", lambda t: ["analyze", t, "--level", "1"], "--level"),
]


@pytest.mark.parametrize(("args", "match"), [c[1:] for c in ANALYZE_CASES], ids=[c[0] for c in ANALYZE_CASES])
def test_analyze_of_a_tournament_refused(finished, tmp_path, args, match):
    out = tmp_path / "t"
    _copy(finished, out)
    refused(args(out), tmp_path, code=1, match=match)


def _incomplete(finished: Path, out: Path) -> None:
    _copy(finished, out)
    _edit_json(out / "tournament.json", lambda index: index.update(complete=False))


def _runs_cut(finished: Path, out: Path) -> None:
    _copy(finished, out)
    _edit_json(out / "tournament.json", lambda index: index.update(runs=index["runs"][:1]))


ANALYZE_DAMAGED = [
    ("index-incomplete", _incomplete, "is incomplete"),
    ("index-runs-cut", _runs_cut, "not the seatings of its policies"),
    ("seatings-swapped", _swap_seatings, "/ab is not the run its tournament.json lists (policies)"),
    (
        "seating-of-another-seed",
        _seating_from("ba", seed=SEED + 1),
        "/ba is not the run its tournament.json lists (seed)",
    ),
    ("index-foreign", _index('{"runs": []}'), "not a scopasim tournament index"),
]


@pytest.mark.parametrize(("setup", "match"), [c[1:] for c in ANALYZE_DAMAGED], ids=[c[0] for c in ANALYZE_DAMAGED])
def test_analyze_of_a_damaged_tournament_refused(finished, tmp_path, setup, match):
    out = tmp_path / "t"
    setup(finished, out)
    refused(["analyze", out], tmp_path, code=1, match=match)
