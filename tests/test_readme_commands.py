"""Every ``scopasim`` command in README.md's bash code blocks runs, in a small form, in README order.

Extraction: each ```bash block is read line by line; a line ending in ``\\`` continues on the next; ``# ...``
comments are dropped; a line is split on ``&&`` and every segment whose program is ``scopasim`` (or a path ending
in ``/scopasim``, as in ``.venv/bin/scopasim``) is a command. Other programs (``pip``, ``python3``) are not run.

Small form (so that the whole file costs well under a minute of CPU), every other flag kept as written:

- ``simulate``, ``tournament`` and ``balance`` play ``--games 20`` (``-n`` and ``--games`` rewritten, and added
  where the README relies on the default), except ``simulate --resume``, whose games come from its run folder;
- an absolute ``--out`` (``/shared/results/big``) is moved under the temporary working directory; relative ones
  stay as written, relative to that directory;
- ``--cluster tcp://scheduler:8786`` (a scheduler the README assumes) is pointed at a local Dask scheduler that the
  test starts for that command.

Commands run in README order through Typer's CliRunner in one temporary working directory, so a command finds the
folders and files that earlier ones wrote (``results/my-run``, ``games.jsonl``). Where the README names an input
that no earlier command writes, the test creates it first: a run folder (``analyze results/a results/b``) with a
small ``simulate``, a trace file with ``trace``. ``simulate --resume --out X`` needs an interrupted run: the test
plays the command that wrote X again (with ``--chunk-size 10``) and interrupts it after its first progress report,
checks that it left an incomplete run, then runs the README's ``--resume``, which must complete it.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import time
from contextlib import contextmanager
from pathlib import Path

from typer.testing import CliRunner

from cli.app import app

ROOT = Path(__file__).resolve().parents[1]
SMALL_GAMES = "20"
PLAYS = {"simulate", "tournament", "balance"}
FLAGS = {"--resume", "--overwrite", "--partial", "--quiet", "-q"}  # options without a value


def readme_commands(markdown: str) -> list[list[str]]:
    """The argv (without ``scopasim``) of every scopasim command in the markdown's bash blocks, in order."""
    commands = []
    for block in re.findall(r"^```bash\n(.*?)^```", markdown, flags=re.S | re.M):
        logical, pending = [], ""
        for line in block.splitlines():
            if line.rstrip().endswith("\\"):
                pending += line.rstrip()[:-1] + " "
                continue
            logical.append(pending + line)
            pending = ""
        for line in logical:
            for segment in line.split("&&"):
                words = shlex.split(segment, comments=True)
                if words and (words[0] == "scopasim" or words[0].endswith("/scopasim")):
                    commands.append(words[1:])
    return commands


def small_form(argv: list[str], tmp: Path, scheduler: str | None = None) -> list[str]:
    """See the module docstring."""
    command, rest, out, games = argv[0], argv[1:], [argv[0]], False
    i = 0
    while i < len(rest):
        word = rest[i]
        if command in PLAYS and (word in ("--games", "-n") or word.startswith("--games=")):
            out += ["--games", SMALL_GAMES]
            games = True
            i += 1 if "=" in word else 2
            continue
        if word in ("--out", "-o") and i + 1 < len(rest) and Path(rest[i + 1]).is_absolute():
            out += [word, str(tmp / rest[i + 1].lstrip("/"))]
            i += 2
            continue
        if word.startswith("tcp://") and scheduler is not None:
            word = scheduler
        out.append(word)
        i += 1
    if command in PLAYS and not games and "--resume" not in rest:
        out += ["--games", SMALL_GAMES]
    return out


def option(argv: list[str], *names: str) -> str | None:
    for i, word in enumerate(argv[:-1]):
        if word in names:
            return argv[i + 1]
    return None


def positionals(argv: list[str]) -> list[str]:
    found, i = [], 1
    while i < len(argv):
        if argv[i].startswith("-"):
            i += 1 if argv[i] in FLAGS or "=" in argv[i] else 2
            continue
        found.append(argv[i])
        i += 1
    return found


def inputs(argv: list[str]) -> list[tuple[str, str]]:
    """What a command reads that must exist before it runs: (kind, path), kind ``run``, ``trace`` or
    ``interrupted``."""
    command = argv[0]
    if command in ("analyze", "report"):
        return [("run", p) for p in positionals(argv)]
    if command == "simulate" and "--resume" in argv:
        return [("interrupted", option(argv, "--out", "-o"))]
    needed = []
    if command in ("trace", "replay") and option(argv, "--run"):
        needed.append(("run", option(argv, "--run")))
    if command == "replay" and option(argv, "--trace"):
        needed.append(("trace", option(argv, "--trace")))
    return needed


@contextmanager
def interrupt_after_first_report(monkeypatch):
    """A progress bar whose first advance is a Ctrl-C, as if the user pressed it while the run played."""
    from cli import render

    @contextmanager
    def bar(total, quiet):
        def advance(n):
            raise KeyboardInterrupt

        yield advance

    with monkeypatch.context() as m:
        m.setattr(render, "progress_bar", bar)
        yield


@contextmanager
def local_scheduler():
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        yield cluster.scheduler_address


def identical_rule_sets(grid: Path) -> list[tuple[str, str]]:
    """Pairs of rule sets of a balance grid whose games came out identical (greedy always captures, so the
    README's old ``forced_capture`` example gave the same games twice and "+0.00 pp, p 1")."""
    from analysis import load_run

    outcomes = {}
    for folder in sorted(p for p in grid.iterdir() if p.is_dir()):
        games = load_run(folder).games.sort_values("game").filter(regex="^(winner|total_.*)$").to_numpy()
        outcomes[folder.name] = (games.shape, games.tobytes())
    return [(a, b) for a in outcomes for b in outcomes if a < b and outcomes[a] == outcomes[b]]


def invoke(argv: list[str]):
    return CliRunner().invoke(app, argv)


def describe(result) -> str:
    text = (result.output or "").strip().splitlines()[-3:]
    return f"exit {result.exit_code}: {' | '.join(text)} {result.exception!r}"


def test_extraction_of_continuations_comments_and_chains():
    markdown = (
        "text\n```bash\nscopasim simulate --games 5 \\\n    --seed 1   # a comment\n"
        "python3 -m venv .venv && .venv/bin/scopasim variants\npip install x\n```\n"
        "```python\nscopasim not_bash\n```\n"
    )
    assert readme_commands(markdown) == [["simulate", "--games", "5", "--seed", "1"], ["variants"]]
    tmp = Path("/tmp/x")
    assert small_form(["simulate", "-n", "100", "--out", "/shared/big"], tmp) == [
        "simulate",
        "--games",
        "20",
        "--out",
        "/tmp/x/shared/big",
    ]
    assert small_form(["tournament", "--policies", "a,b"], tmp) == ["tournament", "--policies", "a,b", "--games", "20"]
    assert small_form(["simulate", "--resume", "--out", "r"], tmp) == ["simulate", "--resume", "--out", "r"]
    assert small_form(["trace", "--seed", "1", "--game", "0-9"], tmp) == ["trace", "--seed", "1", "--game", "0-9"]
    assert inputs(["analyze", "results/a", "results/b", "--format", "json"]) == [
        ("run", "results/a"),
        ("run", "results/b"),
    ]
    assert inputs(["replay", "--trace", "g.jsonl", "--game", "3"]) == [("trace", "g.jsonl")]


def test_every_readme_command_runs(tmp_path, monkeypatch):
    commands = readme_commands((ROOT / "README.md").read_text())
    names = [c[0] for c in commands]
    assert len(commands) >= 20 and {"simulate", "tournament", "analyze", "balance", "report", "trace"} <= set(names)
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / "examples", tmp_path / "examples")  # as in a clone: the README's policy files
    cpu = time.process_time()
    failures, writers, created = [], {}, []
    for argv in commands:
        line = "scopasim " + shlex.join(argv)
        for kind, path in inputs(argv):
            if kind == "run" and not Path(path).exists():
                prepared = invoke(["simulate", "--games", SMALL_GAMES, "--seed", str(len(created)), "-q", "-o", path])
            elif kind == "trace" and not Path(path).exists():
                prepared = invoke(["trace", "--seed", "1", "--game", "0-9", "--out", path])
            elif kind == "interrupted":
                shutil.rmtree(path, ignore_errors=True)
                writer = writers.get(path, ["simulate", "--games", SMALL_GAMES, "--out", path])
                with interrupt_after_first_report(monkeypatch):
                    prepared = invoke([*writer, "--chunk-size", "10"])
                manifest = json.loads((Path(path) / "manifest.json").read_text())
                assert prepared.exit_code == 130 and manifest["complete"] is False, describe(prepared)
                created.append(path)
                continue
            else:
                continue
            created.append(path)
            assert prepared.exit_code == 0, f"preparing {path} for {line}: {describe(prepared)}"
        if any(word.startswith("tcp://") for word in argv):
            with local_scheduler() as address:
                small = small_form(argv, tmp_path, address)
                result = invoke(small)
        else:
            small = small_form(argv, tmp_path)
            result = invoke(small)
        if result.exit_code != 0:
            failures.append(f"{line}\n    ran as: scopasim {shlex.join(small)}\n    {describe(result)}")
        out = option(small, "--out", "-o")
        if small[0] == "simulate" and out and "--resume" not in small:
            writers[out] = small
        if small[0] == "balance" and result.exit_code == 0:
            same = identical_rule_sets(tmp_path / (out or max(Path("results").glob("balance-*"))))
            if same:
                failures.append(f"{line}\n    rule sets with identical games (the varied rule never mattered): {same}")
    print(f"{len(commands)} README commands, inputs created first: {created}; {time.process_time() - cpu:.1f} s CPU")
    assert not failures, "README commands that fail:\n" + "\n".join(failures)
