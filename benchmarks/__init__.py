"""Benchmarks: reports of measured speed, never part of the tests (``benchmarks/README.md``)."""

from __future__ import annotations

import os


def user_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a process a benchmark starts: this one's, as a user's install runs it.

    pip writes bytecode caches when it installs, so a user's start-up reads them; a shell that sets
    PYTHONDONTWRITEBYTECODE (the development sandbox does) would make every fresh process compile the ~45 modules
    a command imports from source, about 70 ms of ``scopasim simulate --games 1000``. The benchmark's processes
    run without it (the first writes the caches, as the install would have). Only the children's environment is
    changed: a test that imports a benchmark module leaves its own, and its children's, alone."""
    env = {**os.environ, **(extra or {})}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env
