"""The collector's thresholds while kernels compile and in the ``scopasim`` command (``simcore.collector``)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from simcore import engine
from simcore.collector import RARE, collecting_rarely
from simcore.config import RunConfig

DEFAULT = (700, 10, 10)


@pytest.fixture
def default_thresholds():
    before = gc.get_threshold()
    gc.set_threshold(*DEFAULT)
    yield
    gc.set_threshold(*before)


def test_the_block_collects_rarely_and_the_thresholds_come_back(default_thresholds):
    with collecting_rarely():
        assert gc.get_threshold() == RARE
        with collecting_rarely():
            assert gc.get_threshold() == RARE
        assert gc.get_threshold() == RARE  # the outer block is still running
    assert gc.get_threshold() == DEFAULT
    with pytest.raises(RuntimeError), collecting_rarely():
        raise RuntimeError("a failed compile")
    assert gc.get_threshold() == DEFAULT


def test_overlapping_blocks_in_two_threads_restore_the_thresholds(default_thresholds):
    first_in, second_out = threading.Event(), threading.Event()

    def first():
        with collecting_rarely():
            first_in.set()
            second_out.wait(10)  # the other thread's block starts after this one and ends before it

    thread = threading.Thread(target=first)
    thread.start()
    first_in.wait(10)
    with collecting_rarely():
        pass
    assert gc.get_threshold() == RARE
    second_out.set()
    thread.join()
    assert gc.get_threshold() == DEFAULT


def test_higher_thresholds_and_a_disabled_collector_are_kept():
    before = gc.get_threshold()
    try:
        gc.set_threshold(50_000, 5, 500)
        with collecting_rarely():
            assert gc.get_threshold() == (50_000, 10, 500)
        gc.set_threshold(0)  # automatic collection off: not turned back on
        with collecting_rarely():
            assert gc.get_threshold()[0] == 0
    finally:
        gc.set_threshold(*before)


def test_the_kernel_compiles_collecting_rarely(default_thresholds, monkeypatch):
    seen = []
    monkeypatch.setattr(engine, "run_games", lambda *args: seen.append(gc.get_threshold()))
    config = RunConfig.create("scopa", policies=["random"], games=1, seed=1)
    rules = config.compiled_rules()
    engine.play(rules, 1, np.arange(0), np.zeros(2, np.int64), np.zeros((2, 8)))
    assert seen[0] == RARE  # ``compile_run_games``; then the games are played at the thresholds of the caller
    assert seen[1:] and set(seen[1:]) == {DEFAULT}


def test_the_command_collects_rarely_from_its_start():
    code = "import gc, cli; print(gc.get_threshold())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == str(RARE)


@pytest.mark.parametrize(("given", "expected"), [(None, "1"), ("2", "2")])
def test_the_command_keeps_blas_to_one_thread_unless_told(given, expected):
    """Set before numpy loads (else OpenBLAS has started its threads already); a value the user set stays."""
    code = "import os, sys, cli; print('numpy' in sys.modules, os.environ['OPENBLAS_NUM_THREADS'])"
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.split() == ["False", expected]
