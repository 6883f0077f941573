"""ruff (configured in pyproject.toml) is part of the test command: lint and format are checked with the tests."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def ruff(*args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    return subprocess.run([exe, *args], cwd=ROOT, capture_output=True, text=True)


@pytest.mark.parametrize("args", [("check", "."), ("format", "--check", ".")], ids=["lint", "format"])
def test_ruff(args):
    result = ruff(*args)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ci_runs_the_readme_test_command():
    """.ci/run must run the README's test command: it reads it from the README, so they cannot drift apart."""
    readme = (ROOT / "README.md").read_text()
    assert "<!-- test-command -->" in readme and "bash .ci/run" not in readme
    assert "README.md" in (ROOT / ".ci" / "run").read_text()
