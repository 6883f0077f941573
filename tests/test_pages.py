"""The chunk's arrays are allocated without numpy's huge-page advice, which is restored afterwards."""

import threading

import pytest

from simcore import pages
from simcore.pages import small_pages

pytestmark = pytest.mark.skipif(pages._set_madvise_hugepage is None, reason="this numpy has no huge-page switch")


def advice() -> bool:
    """numpy's current huge-page advice (read by setting it back to what it was)."""
    now = pages._set_madvise_hugepage(True)
    pages._set_madvise_hugepage(now)
    return now


@pytest.mark.parametrize("before", [True, False])
def test_off_inside_and_restored(before):
    pages._set_madvise_hugepage(before)
    try:
        with small_pages():
            assert advice() is False
            with small_pages():
                assert advice() is False
            assert advice() is False
        assert advice() is before
    finally:
        pages._set_madvise_hugepage(True)


def test_restored_after_overlapping_threads():
    pages._set_madvise_hugepage(True)
    inside, leave = threading.Barrier(2), threading.Event()

    def hold():
        with small_pages():
            inside.wait()
            leave.wait()

    worker = threading.Thread(target=hold)
    worker.start()
    with small_pages():
        inside.wait()
    assert advice() is False  # the other thread is still allocating
    leave.set()
    worker.join()
    assert advice() is True


def test_allocations_use_it(monkeypatch):
    from simcore import engine
    from simcore.config import RunConfig
    from simcore.kernels.rows import allocate_rows

    seen = []
    real = pages._set_madvise_hugepage
    monkeypatch.setattr(pages, "_set_madvise_hugepage", lambda on: seen.append(on) or real(on))
    config = RunConfig.create("scopa", policies=["greedy"], games=10, seed=1)
    engine.allocate(config.compiled_rules(), 10, 4, False)
    allocate_rows(100, 6)
    assert seen == [False, True, False, True]
