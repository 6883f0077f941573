"""Processes sharing the kernel cache compile a signature of ``run_games`` one at a time (``engine.compile_lock``)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from simcore import engine

TRY_LOCK = textwrap.dedent(
    """
    import fcntl, sys
    with open(sys.argv[1], "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print("held")
        else:
            print("free")
    """
)


def lock_state(path) -> str:
    return subprocess.run([sys.executable, "-c", TRY_LOCK, str(path)], capture_output=True, text=True).stdout.strip()


@pytest.mark.skipif(engine.fcntl is None or not engine.CACHE, reason="POSIX locks and a disk cache")
def test_another_process_waits_while_a_signature_compiles(tmp_path, monkeypatch):
    monkeypatch.setattr(engine, "cache_dir", lambda: tmp_path / "cache")
    key = "a signature no process has compiled"
    with engine.compile_lock(key):
        (path,) = (tmp_path / "cache").glob("run_games-*.lock")
        assert lock_state(path) == "held"
        with engine.compile_lock("another signature"):  # other signatures compile meanwhile
            assert len(list((tmp_path / "cache").glob("run_games-*.lock"))) == 2
    assert lock_state(path) == "free"
    engine._compiled.add(key)  # compiled in this process: no lock taken any more
    try:
        with engine.compile_lock(key):
            assert lock_state(path) == "free"
    finally:
        engine._compiled.discard(key)
    assert os.path.getsize(path) == 0


@pytest.mark.skipif(engine.fcntl is None or not engine.CACHE, reason="POSIX locks and a disk cache")
def test_a_file_system_without_locks_only_costs_the_lock(tmp_path, monkeypatch):
    def refused(handle, operation):
        raise OSError(37, "No locks available")

    monkeypatch.setattr(engine, "cache_dir", lambda: tmp_path / "cache")
    monkeypatch.setattr(engine.fcntl, "flock", refused)
    entered = []
    with engine.compile_lock("a signature on NFS"):
        entered.append(True)
    assert entered == [True]
