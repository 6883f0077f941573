"""Shared checks for the bad-input and fault cases: how a refusal must look, whatever the command.

A refused command exits with a non-zero code, prints exactly one line on stderr (``error: ...``, no traceback),
and leaves every file under the watched folder as it was: same names, same bytes, no temporary file. Test files
import :func:`refused` (in-process, through Typer's CliRunner) or :func:`refused_process` (a real ``scopasim``
process, for what needs signals, resource limits or a real terminal), so that every case is checked the same way.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from cli.app import app

ROOT = Path(__file__).resolve().parents[1]
CLI_CODE = "import sys; from cli.app import main; sys.argv = ['scopasim', *sys.argv[1:]]; main()"
MAX_MESSAGE = 400  # a one-line error longer than this echoes something it should have cut


def snapshot(root: Path) -> dict[str, str]:
    """Every entry under ``root``: relative path -> content hash (files), link target (symlinks) or "dir"."""
    root = Path(root)
    if not root.exists() and not root.is_symlink():
        return {}
    entries: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            key = str(path.relative_to(root))
            if path.is_symlink():
                entries[key] = "link:" + os.readlink(path)
            elif path.is_dir():
                entries[key] = "dir"
            else:
                entries[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return entries


def check_refusal(code: int, stderr: str, expect_code: int | None, match: str | None) -> str:
    """Assert the shape of a refusal; returns its one message line."""
    assert code != 0, f"exit code 0 for a case that must be refused; stderr: {stderr!r}"
    if expect_code is not None:
        assert code == expect_code, f"exit code {code}, expected {expect_code}; stderr: {stderr!r}"
    assert "Traceback" not in stderr, stderr
    lines = stderr.strip("\n").splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {len(lines)}: {stderr!r}"
    message = lines[0]
    assert message.startswith("error: ") and len(message) > len("error: "), message
    assert len(message) <= MAX_MESSAGE, f"message of {len(message)} characters: {message[:200]}..."
    if match is not None:
        assert match.lower() in message.lower(), f"{match!r} not in {message!r}"
    return message


def refused(
    args: list[object], watch: Path, *, code: int | None = None, match: str | None = None, input: str | None = None
) -> str:
    """Run ``scopasim *args`` in-process; assert it is refused cleanly and ``watch`` is unchanged."""
    before = snapshot(watch)
    result = CliRunner().invoke(app, [str(a) for a in args], input=input)
    after = snapshot(watch)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    message = check_refusal(result.exit_code, result.stderr, code, match)
    assert before == after, f"files changed: {sorted(set(before.items()) ^ set(after.items()))}"
    return message


def run_process(args: list[object], *, cwd: Path = ROOT, timeout: float = 300, **kwargs) -> subprocess.CompletedProcess:
    """Run ``scopasim *args`` as a real process (stdout and stderr captured as text)."""
    return subprocess.run(
        [sys.executable, "-c", CLI_CODE, *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        **kwargs,
    )


def refused_process(
    args: list[object], watch: Path, *, code: int | None = None, match: str | None = None, **kwargs
) -> str:
    """:func:`refused` for a real process (``kwargs`` go to ``subprocess.run``: env, preexec_fn, ...)."""
    before = snapshot(watch)
    result = run_process(args, **kwargs)
    after = snapshot(watch)
    message = check_refusal(result.returncode, result.stderr, code, match)
    assert before == after, f"files changed: {sorted(set(before.items()) ^ set(after.items()))}"
    return message
