"""Python side of the kernels: allocate outputs, normalise dtypes, run games, retry the rare overflows.

Everything that calls a kernel goes through here, so each kernel compiles for one signature only.

Why a worker thread: the batch kernel runs for seconds to minutes without the GIL, and Python runs signal
handlers only in the main thread, between bytecodes. So ``play`` launches the kernel on one long-lived launcher
thread and waits in short timed waits: Ctrl-C (or SIGTERM, which the CLI turns into KeyboardInterrupt)
interrupts the wait at once, ``play`` raises the kernel's stop flag, waits for the blocks to return (each
finishes the game it is playing, and a Monte Carlo seat stops at its next sample) and re-raises. Between waits
it reads the blocks' game counters and reports progress.

Threads: a chunk is played on the calling thread's Numba thread count (``numba.get_num_threads()``, which
``api.set_threads`` sets; at most ``NUMBA_NUM_THREADS``), read once when the chunk starts. No kernel is a Numba
parallel one (``simcore.kernels.batch`` says why): the launcher runs the batch kernel itself, beside
``threads - 1`` long-lived helper threads of ``play``'s own, all claiming blocks of the same chunk (``_launch``).
"""

from __future__ import annotations

import contextlib
import hashlib
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from concurrent.futures import TimeoutError as FutureTimeout
from functools import cache

import numba
import numpy as np

from simcore._jit import CACHE, cache_dir
from simcore.collector import collecting_rarely
from simcore.errors import ConfigError
from simcore.kernels.batch import run_games
from simcore.kernels.control import BLOCKS, CONTROL_DONE, CONTROL_SIZE, CONTROL_STOP
from simcore.kernels.frozen import freeze
from simcore.kernels.game import EV_WIDTH, ChunkOut, make_scratch
from simcore.kernels.moves import exchange_moves, first_play_rules, move_rules
from simcore.kernels.moves import legal_moves as _legal_moves
from simcore.kernels.scoring import score_deal as _score_deal
from simcore.kernels.workspace import (
    FAULT_MOVES,
    FAULT_POLICY,
    FAULT_USER_MOVE,
    FAULT_VARIANT,
    MOVES,
    move_space_size,
)
from simcore.pages import small_pages
from simcore.variants.base import TURNS_EXCHANGE, TURNS_ONE_CARD, Rules

try:  # POSIX: a lock the system releases with its process
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None

DEFAULT_DEAL_SLOTS = 16
EVENTS_PER_DEAL = 64
POLL_SECONDS = 0.05  # longest a signal waits for the main thread; also the progress reports' period

_launcher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="scopasim-kernel")


class UserMoveError(ConfigError):
    """A user policy returned an index that is not a legal move in game ``game`` (``simcore.userpolicy``
    replays the game to say which decision)."""

    def __init__(self, game: int):
        super().__init__(f"game {game}: a user policy returned an index that is not a legal move")
        self.game = game


class StoppedError(Exception):
    """``play`` was asked to stop (its ``stop`` event was set) before the games were all played."""


def allocate(rules: Rules, n_games: int, deal_slots: int, trace: bool) -> ChunkOut:
    """Zeroed output arrays for ``n_games`` games of up to ``deal_slots`` deals (4 KB pages: ``small_pages``)."""
    sides, cats = rules.n_sides, rules.n_categories
    ev_games = n_games if trace else 1
    ev_len = deal_slots * EVENTS_PER_DEAL if trace else 1
    with small_pages():
        return ChunkOut(
            first_dealer=np.zeros(n_games, np.int8),
            winner=np.zeros(n_games, np.int8),
            n_deals=np.zeros(n_games, np.int16),
            n_plays=np.zeros(n_games, np.int32),
            redeals=np.zeros(n_games, np.int16),
            totals=np.zeros((n_games, sides), np.int16),
            overflow=np.zeros(n_games, np.int8),
            mid_deal=np.zeros(n_games, np.int8),
            deal_dealer=np.zeros((n_games, deal_slots), np.int8),
            deal_points=np.zeros((n_games, deal_slots, sides, cats), np.int16),
            deal_sweeps=np.zeros((n_games, deal_slots, sides), np.int16),
            deal_cards=np.zeros((n_games, deal_slots, sides), np.int16),
            deal_totals=np.zeros((n_games, deal_slots, sides), np.int16),
            events=np.zeros((ev_games, ev_len, EV_WIDTH), np.int64),
            n_events=np.zeros(ev_games, np.int64),
        )


def kernel_array(values: np.ndarray, dtype: type) -> np.ndarray:
    """``values`` as the kernels' argument type: C-contiguous, of ``dtype``, and writeable. A read-only array (as a
    Dask worker may unpickle a chunk's game indices) is a type of its own to Numba, which compiled the whole chain
    again for it (about 30 s; seen in the test suite's kernel cache)."""
    values = np.ascontiguousarray(values, dtype=dtype)
    return values if values.flags.writeable else values.copy()


def play(
    rules: Rules,
    seed: int,
    games: np.ndarray,
    policy_ids: np.ndarray,
    params: np.ndarray,
    trace: bool = False,
    deal_slots: int = DEFAULT_DEAL_SLOTS,
    progress: Callable[[int], None] | None = None,
    stop: threading.Event | None = None,
    specialise: bool = False,
) -> ChunkOut:
    """Play the games with indices ``games`` and return their output arrays (row i = ``games[i]``).

    ``specialise``: run kernels compiled for this very rule set (``simcore.kernels.frozen``; same rows, faster,
    one compile per rule set) instead of the ones every rule set shares.

    A game longer than ``deal_slots`` deals (or with more trace events than its buffer) is played again, alone,
    with four times the room: games are pure functions of their index, so the retry gives the same game.

    ``progress`` is called, while the games are played, with the number of games finished since its last call;
    the calls add up to ``len(games)``. Setting ``stop`` (from any thread) ends the kernel early and raises
    ``StoppedError``; a KeyboardInterrupt in the calling thread does the same and is re-raised.
    """
    games = kernel_array(games, np.int64)
    out = allocate(rules, len(games), deal_slots, trace)
    args = (
        games,
        np.int64(seed),
        freeze(rules) if specialise else rules,
        kernel_array(policy_ids, np.int64),
        kernel_array(params, np.float64),
        out,
        trace,
    )
    run_stoppable(args, progress, stop, kernel_features(rules, policy_ids))
    check_faults(rules, games, out.overflow)
    redo = np.flatnonzero(out.overflow)
    if len(redo) == 0:
        return out
    again = play(rules, seed, games[redo], policy_ids, params, trace, deal_slots * 4, stop=stop, specialise=specialise)
    return merge_overflow(out, again, redo)


def kernel_features(rules: Rules, policy_ids: np.ndarray) -> tuple[bool | None, ...]:
    """``run_games``' last four arguments for a run: :func:`run_features` and :func:`search_feature`. A call that
    leaves ``tree`` out gets its default, True, and compiles a copy of the chain with search in it."""
    return (*run_features(rules, policy_ids), search_feature(policy_ids))


def run_features(rules: Rules, policy_ids: np.ndarray) -> tuple[bool | None, ...]:
    """What the kernels of a run must hold, as ``run_games``' last three arguments (``deal.run_deal``): the
    one-card loop, Kaszinó's loop, and ``full``: the listed policies behind ``choose`` and the Monte Carlo seats
    (needed by any seat that is not random or greedy), each ``True`` or ``None``. A ``None`` is a type to Numba,
    which then compiles the run without that code: a greedy or random Scopa run compiles neither Kaszinó's loop
    nor the policies it never calls. Each combination is compiled, and cached, once. An unknown turn structure
    keeps both loops out, so it still raises ``FAULT_VARIANT``."""
    from simcore.policies.kernels import POLICY_GREEDY, POLICY_RANDOM

    quick = all(int(i) in (POLICY_RANDOM, POLICY_GREEDY) for i in np.asarray(policy_ids))
    one_card = True if rules.turns == TURNS_ONE_CARD else None
    exchange = True if rules.turns == TURNS_EXCHANGE else None
    return one_card, exchange, None if quick else True


def search_feature(policy_ids: np.ndarray) -> bool | None:
    """``run_games``' ``tree``: ``True`` when a seat plays search, else ``None``, which compiles the run without
    search (an mc or lookahead run would otherwise compile it, with the deal loop's copies inlined into its trees:
    2-player Scopa mc cold 51.9 s with them)."""
    from simcore.policies.kernels import POLICY_SEARCH

    return True if any(int(i) == POLICY_SEARCH for i in np.asarray(policy_ids)) else None


def run_stoppable(
    args: tuple,
    progress: Callable[[int], None] | None,
    stop: threading.Event | None,
    features: tuple[bool | None, ...] = (True, True, True, True),
) -> None:
    """``run_games(*args, control, *features)`` on the launcher thread, waited for in short waits (see the module
    docstring)."""
    if stop is not None and stop.is_set():
        raise StoppedError("stopped before the games started")
    compile_run_games(args, features)
    control = np.zeros(CONTROL_SIZE, np.int64)
    n_games, reported, future = len(args[0]), 0, None
    try:  # from the submit on: a signal between it and the wait would leave the chunk playing on its own
        future = _launcher.submit(_launch, numba.get_num_threads(), args, control, features)
        while not _finished(future):
            if stop is not None and stop.is_set():
                raise StoppedError("stopped while the games were played")
            if progress is not None:
                done = int(control[CONTROL_DONE : CONTROL_DONE + BLOCKS].sum())
                if done > reported:
                    progress(done - reported)
                    reported = done
    except BaseException:
        control[CONTROL_STOP] = 1  # set before any game: a kernel submitted as the signal came plays none
        if future is not None:
            _wait_out(future)
        raise
    future.result()  # the kernel's own exception, if any
    if progress is not None and n_games > reported:
        progress(n_games - reported)


def _launch(threads: int, args: tuple, control: np.ndarray, features: tuple) -> None:
    """Run the batch kernel on ``threads`` threads: this one and ``threads - 1`` helpers, each calling
    ``run_games`` on the same control array (``simcore.kernels.batch``: every call claims blocks until none is
    left). The blocks are handed out one at a time, not in one contiguous share each: a thread slowed by other
    work (the writer thread encoding the previous chunk, another process) then plays fewer blocks instead of
    leaving the others idle at the end of the chunk. Rows do not depend on the schedule.

    Returns only once no thread plays the chunk any more, so its rows are final (or, after an exception, no
    longer written); the first helper's exception is raised."""
    helpers: list[Future] = []
    try:
        for _ in range(threads - 1):
            helpers.append(_helpers(threads - 1).submit(_play_or_stop, args, control, features))
        _play_or_stop(args, control, features)
    except BaseException:
        control[CONTROL_STOP] = 1  # a helper already submitted stops before its next game
        raise
    finally:
        wait(helpers)
    for helper in helpers:
        helper.result()


def _play_or_stop(args: tuple, control: np.ndarray, features: tuple) -> None:
    """``_play`` in this thread; if anything in the thread raises (the kernel, or the call around it), the chunk's
    other threads stop too, before their next game, instead of playing every block left on their own."""
    try:
        _play(args, control, features)
    except BaseException:
        control[CONTROL_STOP] = 1
        raise


def _play(args: tuple, control: np.ndarray, features: tuple) -> None:
    """``run_games`` in this thread, with a scratch of its own: it plays the chunk's blocks it claims."""
    rules = args[2]  # (games, seed, rules, ids, params, out, trace)
    run_games(*args, control, make_scratch(rules.max_moves, control), *features)


@cache
def _helpers(n: int) -> ThreadPoolExecutor:
    """``n`` long-lived helper threads for runs on ``n + 1`` threads (the kernel releases the GIL, so they play in
    parallel). One pool per thread count: a pool starts at most ``n`` threads, whatever other counts ask for."""
    return ThreadPoolExecutor(max_workers=n, thread_name_prefix=f"scopasim-helper-{n}")


def _finished(future: Future) -> bool:
    try:
        future.result(timeout=POLL_SECONDS)
    except FutureTimeout:
        return False
    except Exception:  # raised again by the caller's ``future.result()``
        pass
    return True


def _wait_out(future: Future) -> None:
    """Wait for a stopped kernel to return (within a game per block), through further Ctrl-Cs."""
    while True:
        try:
            future.exception()
            return
        except KeyboardInterrupt:
            continue


def compile_run_games(args: tuple, features: tuple = (True, True, True, True)) -> None:
    """Compile (or load from the cache) the batch kernel for ``features`` in this thread, by playing no game.

    Compiling takes seconds to a minute and holds the GIL; done here, a Ctrl-C meanwhile interrupts it directly.
    Once compiled, the call plays nothing and returns at once. Processes sharing the cache compile one signature
    one at a time (``compile_lock``): the others wait and load it.
    """
    games, seed, rules, ids, params, out, trace = args
    empty = allocate(rules, 0, out.deal_dealer.shape[1], trace)
    control = np.zeros(CONTROL_SIZE, np.int64)
    # numba_without_scipy_blas: the scratch's kernel may be the first this process compiles
    with numba_without_scipy_blas(), collecting_rarely():
        scratch = make_scratch(rules.max_moves, control)
        call = (games[:0], seed, rules, ids, params, empty, trace, control, scratch, *features)
        key = repr(tuple(numba.typeof(a) for a in call))
        with compile_lock(key):
            run_games(*call)
    _compiled.add(key)


_compiled: set[str] = set()  # signatures of ``run_games`` this process has compiled or loaded


@contextlib.contextmanager
def compile_lock(key: str) -> Iterator[None]:
    """Hold an exclusive lock on signature ``key`` of ``run_games`` in the kernel cache, across processes.

    Two processes that need the same uncompiled signature (a Dask cluster's workers, the test suite's workers)
    would both spend the 20-40 CPU-s of its compile; with the lock the second waits and then loads what the
    first wrote to the cache. No lock when this process has it already, without a disk cache, or where the cache's
    file system refuses locks (some network file systems): the lock only saves work, so the compile goes on."""
    if key in _compiled or not CACHE or fcntl is None:
        yield
        return
    with contextlib.ExitStack() as held:
        try:
            folder = cache_dir()
            folder.mkdir(parents=True, exist_ok=True)
            digest = hashlib.sha256(key.encode()).hexdigest()[:16]
            handle = held.enter_context(open(folder / f"run_games-{digest}.lock", "a"))
            fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes, or when the process dies
        except OSError:
            held.close()
        yield


#: Numba imports this when it loads its NumPy support, only to see whether BLAS exists (``numba.np.arraymath``).
SCIPY_BLAS = "scipy.linalg.cython_blas"


@contextlib.contextmanager
def numba_without_scipy_blas() -> Iterator[None]:
    """Let Numba load its NumPy support without importing SciPy's linear algebra: a quarter of a second.

    The first kernel a process compiles (or, with ``SCOPASIM_NUMBA_REFRESH=1``, loads from the cache: see
    ``_jit._load_without_refresh``) makes Numba import ``numba.np.arraymath``, which imports
    ``scipy.linalg.cython_blas`` (and with it ``scipy.linalg``, ``numpy.f2py``, ``pydoc``: 0.25 s of the 0.9 s of
    ``scopasim simulate --games 1000``) only to set a flag that picks a BLAS inner product for float
    ``np.correlate``/``np.convolve``, which no kernel calls. Blocking that one import here leaves the flag off
    (the plain loop is used); ``np.dot`` and ``np.linalg`` in a kernel still work, as Numba imports SciPy for
    them when they are compiled. Nothing is blocked once SciPy's BLAS or Numba's NumPy support is loaded.
    """
    if SCIPY_BLAS in sys.modules or "numba.np.arraymath" in sys.modules:
        yield
        return
    sys.modules[SCIPY_BLAS] = None  # ``import`` raises ImportError for a module set to None
    try:
        yield
    finally:
        if SCIPY_BLAS in sys.modules and sys.modules[SCIPY_BLAS] is None:
            del sys.modules[SCIPY_BLAS]


def check_faults(rules: Rules, games: np.ndarray, overflow: np.ndarray) -> None:
    """Raise the error of the first game the kernels could not play (``ChunkOut.overflow`` fault codes)."""
    for code in (FAULT_VARIANT, FAULT_POLICY, FAULT_USER_MOVE, FAULT_MOVES):
        hit = overflow == code
        if not hit.any():
            continue
        game = int(games[np.argmax(hit)])
        if code == FAULT_VARIANT:
            raise ConfigError(
                f"game {game}: variant id {rules.variant} with turn structure {rules.turns} is not a registered game's"
            )
        if code == FAULT_POLICY:
            raise ConfigError(f"game {game}: a seat's policy id is not a known policy (or its rollout policy)")
        if code == FAULT_USER_MOVE:
            raise UserMoveError(game)
        raise ConfigError(
            f"game {game} reached a position with more than {rules.max_moves:,} legal moves (Kaszinó exchanges "
            "without a value cap on a very large table); set max_sum (e.g. 13) or keep forced_capture=player"
        )


def merge_overflow(out: ChunkOut, again: ChunkOut, rows: np.ndarray) -> ChunkOut:
    """``out`` widened to ``again``'s deal and event room, with ``rows`` replaced by ``again``'s rows."""
    merged = []
    for mine, theirs in zip(out, again, strict=True):
        if mine.ndim >= 2 and mine.shape[1] != theirs.shape[1] and mine.shape[0] == out.winner.shape[0]:
            wide = np.zeros((mine.shape[0], *theirs.shape[1:]), mine.dtype)
            wide[:, : mine.shape[1]] = mine
            mine = wide
        if mine.shape[0] == out.winner.shape[0]:
            mine[rows] = theirs
        merged.append(mine)
    return ChunkOut(*merged)


@cache
def registered_ids() -> frozenset[int]:
    """The variant ids of the registered games (what their rules compile to)."""
    from simcore.variants import VARIANTS

    return frozenset(spec.compile(spec.resolve()).variant for spec in VARIANTS.values())


def legal_moves(rules: Rules, hand_mask: int, table_mask: int, first_play: bool = False) -> list[tuple[int, int]]:
    """Legal moves ``(played mask, taken mask)`` in canonical order (a Python view of the kernel, for tests);
    ``first_play``: the position is the deal's first play (Scopone's ``ace_first_play``)."""
    if rules.variant not in registered_ids() or rules.turns not in (TURNS_ONE_CARD, TURNS_EXCHANGE):
        raise ConfigError(f"variant id {rules.variant} with turn structure {rules.turns} is not a registered game's")
    ps = np.zeros(move_space_size(rules.max_moves), np.int64)
    if rules.turns == TURNS_EXCHANGE:
        n = exchange_moves(ps, np.int64(hand_mask), np.int64(table_mask), move_rules(rules), False)
    else:
        rs = first_play_rules(rules) if first_play else move_rules(rules)
        n = _legal_moves(ps, np.int64(hand_mask), np.int64(table_mask), rs)
    return [(int(ps[MOVES + 2 * i]), int(ps[MOVES + 2 * i + 1])) for i in range(n)]


def score_deal(
    rules: Rules,
    piles: list[int],
    sweep_points: list[int],
    same_suit: list[int] | None = None,
    partial: bool = False,
) -> np.ndarray:
    """Deal points ``[side, category]`` of the kernel for side piles and immediate points (for tests)."""
    arrays = [np.zeros(4, np.int64) for _ in range(3)]
    for arr, values in zip(arrays, (piles, sweep_points, same_suit or []), strict=True):
        arr[: len(values)] = values
    points = np.zeros((4, 16), np.int64)
    if not _score_deal(rules, *arrays, points, np.zeros(4, np.int64), partial):
        raise ConfigError(f"variant id {rules.variant} is not a registered game's")
    return points[: rules.n_sides, : rules.n_categories].copy()
