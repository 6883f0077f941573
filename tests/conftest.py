"""Test-session set-up shared by every test file."""

from __future__ import annotations

import os
import signal
import sys

import pytest

# Runs of a game's default rules big enough to repay it use kernels compiled for their rule set
# (``simcore.api.specialised``), one more compile (~35 CPU-s) per game and policy mix. The suite's runs are small,
# but a few (an 80-game search run) would cross the line and compile a second copy of the chain: the suite keeps to
# the shared kernels, and tests/test_frozen_rules.py checks the specialised ones against them and the rule itself.
os.environ.setdefault("SCOPASIM_SPECIALISE", "0")

# A shell that starts the suite as a background job without job control (``cmd &`` in a script) hands it SIGINT
# ignored, and the processes it spawns inherit that: Ctrl-C then neither reaches the kernels' stop flag nor a
# ``scopasim simulate`` child (tests/test_interrupt.py). Python's own handler restores what an interactive run has,
# and a child process starts from the default disposition again.
signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def all_threads():
    """Every test starts on all of Numba's threads: ``api.simulate(..., threads=1)`` keeps its count as the calling
    thread's (``api.set_threads``), and a test that needs two threads (tests/test_engine_safety.py) would otherwise
    depend on which tests its worker ran before it (it failed under ``pytest -n 2`` without ``--dist loadfile``)."""
    api = sys.modules.get("simcore.api")  # not loaded: no thread count was set
    if api is not None:
        api.set_threads(None)
