"""Test-session set-up shared by every test file."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

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


# What each pytest-xdist worker compiles first when the whole suite runs on two workers: the shared kernels' run
# signatures that many test files need (``engine.run_features``, ``engine.search_feature``), split so that the two
# workers compile different ones side by side. Without it, both workers' first tests needed Scopa's greedy/random
# kernels: one compiled them (43 s from an empty cache) while the other waited on the compile lock, idle. Each share
# is a family whose kernels reuse one another's compiled callees in the same process.
SIDE_BY_SIDE = (
    (
        ("scopa", ("greedy", "random")),
        ("kaszino", ("greedy", "random")),
        ("kaszino", ("lookahead", "greedy")),
        ("kaszino", ("search:worlds=1", "greedy")),
    ),
    (("scopa", ("lookahead", "greedy")), ("scopa", ("search:worlds=1", "greedy"))),
)


@pytest.fixture(scope="session", autouse=True)
def kernels_compiled_side_by_side(request):
    """Worker k of two compiles (or loads) share k of ``SIDE_BY_SIDE`` before its first test, when every test file
    runs (a few selected files compile only what they need)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if os.environ.get("PYTEST_XDIST_WORKER_COUNT") != "2" or not every_test_file(request.session):
        return
    import numpy as np

    from simcore import api
    from simcore.config import RunConfig

    for variant, policies in SIDE_BY_SIDE[int(worker.removeprefix("gw")) % 2]:
        api.play_chunk(RunConfig.create(variant, policies=list(policies), games=1, seed=1), np.arange(1))


def every_test_file(session: pytest.Session) -> bool:
    tests = Path(__file__).parent
    return {Path(item.path) for item in session.items} >= set(tests.glob("test_*.py"))


# The test files that take the most CPU time once the shared kernels are compiled (a per-test log of a full run on two
# workers, session 27: 30-210 CPU-s each), most first. pytest-xdist hands each worker the next file as it frees up;
# by default it orders the files by their number of tests, which put the frozen-rules and compile-pruning files,
# five to ten slow tests each, last: one worker played them alone for the last half minute while the other idled.
# Heaviest first, the small files fill the end on both workers. A file not listed keeps its collection order.
HEAVY_FIRST = (
    "test_differential_variants.py",
    "test_frozen_pruning.py",
    "test_differential_scopa.py",
    "test_jit.py",
    "test_search_policy.py",
    "test_frozen_rules.py",
    "test_quick_policies.py",
    "test_policies.py",
    "test_conformance.py",
    "test_interrupt.py",
    "test_reference_skopa.py",
)


def pytest_configure(config: pytest.Config) -> None:
    """Keep the file order of ``pytest_collection_modifyitems`` under ``--dist loadfile`` (xdist's own reordering
    by number of tests off)."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The files of ``HEAVY_FIRST`` first, in its order; the rest after them, as collected."""
    rank = {name: k for k, name in enumerate(HEAVY_FIRST)}
    items.sort(key=lambda item: rank.get(Path(item.path).name, len(rank)))
