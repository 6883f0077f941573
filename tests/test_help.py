"""``--help`` of every command says what a user needs: every default, flags as flags, readable metavars; and
``scopasim --version`` and a bare ``scopasim`` behave.

The commands are taken from the app itself, so a new command is checked without being listed here.
"""

from __future__ import annotations

import re

import pytest
import typer
from typer.testing import CliRunner

from cli.app import app
from simcore import __version__

runner = CliRunner()
GROUP = typer.main.get_command(app)
COMMANDS = sorted(GROUP.commands)
TYPER_TYPES = re.compile(r"<(bool|int|str|float|path|Path|list\[[^>]*\])>")


@pytest.fixture(autouse=True)
def wide_help(monkeypatch):
    """Help as wide as it needs: each option on one line, so that a row can be read whole."""
    monkeypatch.setattr("typer.rich_utils.MAX_WIDTH", 500)


def help_text(*args: str) -> str:
    result = runner.invoke(app, [*args, "--help"])
    assert result.exit_code == 0, result.output
    return result.output


def row(text: str, option: str) -> str:
    """The help table's line of ``option`` (its long name)."""
    rows = [line for line in text.splitlines() if re.search(rf"│\s+(\*\s+)?{re.escape(option)}(\s|,)", line)]
    assert len(rows) == 1, f"{option}: {rows}"
    return rows[0]


def test_every_command_is_checked():
    assert {"simulate", "trace", "replay", "rules", "policies", "variants", "analyze", "report"} <= set(COMMANDS)


@pytest.mark.parametrize("name", COMMANDS)
def test_help_shows_defaults_flags_and_metavars(name):
    text = help_text(name)
    assert help_text(name) == text and "\\[" not in text  # escaped once, however often the app is built
    assert not TYPER_TYPES.search(text), TYPER_TYPES.search(text)
    usage = next(line for line in text.splitlines() if "Usage:" in line)
    assert "{" not in usage and "<" not in usage, usage
    command = GROUP.commands[name]
    for param in command.params:
        if param.param_type_name == "argument":
            assert param.metavar and param.metavar.rstrip(".").isupper(), param.name
            assert param.metavar in usage and param.metavar in text
            continue
        line = row(text, next(o for o in param.opts if o.startswith("--")))
        if param.is_flag:
            assert "bool" not in line.lower(), line
            continue
        assert param.metavar and param.metavar in line, line
        if not param.required:
            assert "[default: " in line, f"{name}: no default shown for {param.opts}: {line}"
        written = re.search(r"\[default: [^\]]*\]", (param.help or "").replace("\\[", "["))
        if written:
            assert written.group(0) in line, line


def test_shared_options_have_the_metavars_users_expect():
    assert "VARIANT" in row(help_text("simulate"), "--variant")
    assert "KEY=VALUE" in row(help_text("simulate"), "--rule")
    assert "INTEGER" in row(help_text("simulate"), "--games")
    assert "PATH" in row(help_text("trace"), "--out")
    assert "Usage: scopasim rules [OPTIONS] VARIANT" in help_text("rules")
    assert "Usage: scopasim analyze [OPTIONS] RUN..." in help_text("analyze")
    assert "[default: greedy]" in row(help_text("simulate"), "--policy")
    assert "[default: a fresh random seed]" in row(help_text("simulate"), "--seed")
    assert "without --run: required]" in row(help_text("trace"), "--seed")


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout == f"scopasim {__version__}\n" and not result.stderr


def test_bare_scopasim_prints_help_and_no_error():
    result = runner.invoke(app, [])
    assert result.exit_code == 0
    assert "Usage: scopasim" in result.stdout and "simulate" in result.stdout
    assert "error" not in result.stderr


def test_top_level_help_lists_every_command():
    text = help_text()
    for name in COMMANDS:
        assert re.search(rf"│\s+{name}\s", text), name
    assert "--version" in text
