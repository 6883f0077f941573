"""Engine safety: the stop flag and live progress, independent random substreams, and total variant dispatch.

* Stopping: a kernel stops in the middle of a chunk when asked (a stop event, or a real SIGINT in the waiting
  thread), progress is reported while a chunk plays and adds up to the games played, and none of this changes
  a single row (1 or 2 threads, with or without the stop machinery, with overflow retries).
* Substreams (``simcore.rng``): every substream is a function of (seed, game, stream, substream), the Python twin
  agrees, and neighbouring substreams never overlap (exactly: the distance between two SplitMix64 streams along
  the cycle is computable) and are uncorrelated; the old rollout construction fails the same check.
* Dispatch: every registered variant (``simcore.variants.VARIANTS``) reaches its own scoring, move and weight
  branch (checked against its reference engine); an unregistered id or name is an error, in the kernels too.
"""

from __future__ import annotations

import importlib
import inspect
import random
import signal
import threading
import time
from collections import Counter

import numba
import numpy as np
import pytest

from simcore import api, engine
from simcore.cards import cards_of
from simcore.config import RunConfig
from simcore.errors import ConfigError
from simcore.kernels.batch import run_games
from simcore.kernels.control import BLOCKS, CONTROL_DONE, CONTROL_SIZE, CONTROL_STOP
from simcore.kernels.game import fill_rule_info, make_scratch, new_scratch
from simcore.kernels.workspace import FAULT, FAULT_VARIANT
from simcore.policies import POLICIES, policy_arrays, weights
from simcore.policies.heuristics import P_ROLLOUT, best_reply
from simcore.policies.kernels import POLICY_GREEDY, POLICY_MC
from simcore.reference import rng as ref_rng
from simcore.rng import RNG_SCHEME, next64, split_stream, stream_state, substream_state
from simcore.variants import VARIANTS
from simcore.variants.base import TURNS_EXCHANGE, TURNS_ONE_CARD

MASK64 = (1 << 64) - 1
GOLDEN_INVERSE = pow(ref_rng.GOLDEN, -1, 1 << 64)


def unsigned(x: int) -> int:
    return int(x) & MASK64


# --- stopping and progress ---------------------------------------------------------------------------------------


def config_of(variant: str, policies: list[str], games: int = 1000) -> RunConfig:
    rules = {"players": len(policies)} if len(policies) > 1 else {}
    return RunConfig.create(variant, policies=policies, rules=rules, games=games, seed=17)


def same_rows(a, b) -> None:
    for name, x, y in zip(a._fields, a, b, strict=True):
        np.testing.assert_array_equal(x, y, err_msg=name)


def direct(config: RunConfig, games: np.ndarray):
    """The batch kernel called in this thread, without the launcher, the waits or the stop machinery."""
    ids, params = policy_arrays(config.policy_choices(), config.rules)
    rules = config.compiled_rules()
    out = engine.allocate(rules, len(games), engine.DEFAULT_DEAL_SLOTS, False)
    features = engine.kernel_features(rules, ids)  # the engine's own: a chain no run uses is not compiled
    control = np.zeros(CONTROL_SIZE, np.int64)
    scratch = make_scratch(rules.max_moves, control)
    run_games(games, np.int64(config.seed), rules, ids, params, out, False, control, scratch, *features)
    assert not out.overflow.any()  # the comparison below needs no retry
    return out


@pytest.mark.parametrize(
    "variant,policies,games",
    [
        ("scopa", ["greedy", "random"], 3000),
        ("foracio", ["lookahead", "points", "random", "defensive"], 300),
        ("kaszino", ["mc:samples=3", "greedy"], 40),
        ("skopa", ["mc:samples=2,rollout=2", "random", "mc:samples=2,rollout=3"], 30),
        ("scopone", ["lookahead", "mc:samples=2", "defensive", "points"], 20),
        ("escoba", ["defensive", "mc:samples=2", "random", "lookahead"], 40),
        ("scopa", ["search:worlds=2", "greedy", "search:worlds=1,depth=3"], 30),
        ("kaszino", ["greedy", "search:worlds=2"], 20),
    ],
    ids=["scopa", "foracio", "kaszino-mc", "skopa-mc", "scopone-mc", "escoba-mc", "scopa-search", "kaszino-search"],
)
def test_rows_do_not_depend_on_threads_or_on_the_stop_machinery(variant, policies, games):
    config = config_of(variant, policies, games)
    indices = np.arange(games, dtype=np.int64)
    expected = direct(config, indices)
    for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
        api.set_threads(threads)
        try:
            same_rows(api.play_chunk(config, indices), expected)
        finally:
            api.set_threads(None)


def test_read_only_arguments_play_on_the_kernels_of_writeable_ones():
    """A read-only array is a type of its own to Numba: the engine hands the kernels writeable copies, so read-only
    game indices, policy ids or parameters (a Dask worker may unpickle them so) compile nothing new."""
    config = config_of("scopa", ["greedy", "random"], 30)
    rules = config.compiled_rules()
    ids, params = policy_arrays(config.policy_choices(), config.rules)
    games = np.arange(30, dtype=np.int64)
    expected = engine.play(rules, config.seed, games, ids, params)
    compiled = len(run_games.signatures)
    for array in (games, ids, params):
        array.setflags(write=False)
    same_rows(engine.play(rules, config.seed, games, ids, params), expected)
    assert len(run_games.signatures) == compiled


def helper_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("scopasim-helper")]


def test_a_chunk_plays_on_the_callers_thread_count_and_no_more(monkeypatch):
    config = config_of("scopa", ["greedy"])
    calls: list[int] = []
    launch = engine._launch
    monkeypatch.setattr(engine, "_launch", lambda threads, *args: calls.append(threads) or launch(threads, *args))
    api.set_threads(1)
    try:
        api.play_chunk(config, np.arange(10))
    finally:
        api.set_threads(None)
    n = numba.config.NUMBA_NUM_THREADS
    for _ in range(3):  # the same helpers, chunk after chunk
        api.play_chunk(config, np.arange(200))
    assert calls == [1, n, n, n]
    # one pool per thread count, of as many threads as that count asks for helpers: never more
    pools = Counter(t.name.removeprefix("scopasim-helper-").split("_")[0] for t in helper_threads())
    assert pools.get(str(n - 1), 0) == n - 1
    assert all(count <= int(k) for k, count in pools.items())


def test_progress_adds_up_to_the_games_played_and_survives_overflow_retries():
    config = config_of("scopa", ["random", "random"], 4000)
    ids, params = policy_arrays(config.policy_choices(), config.rules)
    rules, games = config.compiled_rules(), np.arange(4000)
    calls: list[int] = []
    # one deal slot per game: nearly every game overflows and is played again with more room
    retried = engine.play(rules, 17, games, ids, params, deal_slots=1, progress=calls.append)
    same_rows(retried, engine.play(rules, 17, games, ids, params))
    assert sum(calls) == 4000 and all(isinstance(n, int) and n > 0 for n in calls)


# A chunk that takes hours: 2,000 Monte Carlo games with 200 samples per decision.
SLOW = config_of("scopa", ["mc:samples=200", "mc:samples=200"], 2000)


def test_an_exception_in_a_helper_stops_the_chunk_and_is_raised(monkeypatch):
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs 2 threads")
    play = engine._play
    controls = []

    def failing(args, control, features):
        controls.append(control)
        if threading.current_thread().name.startswith("scopasim-helper"):
            raise MemoryError("a helper failed")
        # the launcher plays once the helper's failure has had 10 s to stop the chunk: what it then plays depends
        # on the stop flag alone, not on how fast either thread runs (before the fix: every game of the chunk)
        for _ in range(1000):
            if control[CONTROL_STOP] != 0:
                break
            time.sleep(0.01)
        play(args, control, features)

    monkeypatch.setattr(engine, "_play", failing)
    with pytest.raises(MemoryError, match="a helper failed"):
        api.play_chunk(SLOW, np.arange(SLOW.games))
    monkeypatch.undo()
    # the launcher stopped too, before its next game, instead of playing every block the helper left (a minute)
    played = controls[0][CONTROL_DONE : CONTROL_DONE + BLOCKS].sum()
    assert controls[0][CONTROL_STOP] == 1 and played < SLOW.games // 10
    config = config_of("scopa", ["greedy"], 2000)
    same_rows(api.play_chunk(config, np.arange(2000)), direct(config, np.arange(2000)))  # the next chunk plays on


def test_progress_is_reported_while_the_chunk_plays_and_a_stop_event_ends_it():
    stop = threading.Event()
    calls: list[int] = []

    def progress(n: int) -> None:
        calls.append(n)
        stop.set()  # the first report arrives mid-chunk: stop there

    with pytest.raises(engine.StoppedError):
        api.play_chunk(SLOW, np.arange(2000), progress=progress, stop=stop)
    assert 0 < calls[0] < 2000 and sum(calls) < 2000
    with pytest.raises(engine.StoppedError):  # a set event stops a call before any game
        api.play_chunk(SLOW, np.arange(2000), stop=stop)
    # the launcher is free again and plays the same games as ever
    quick = config_of("scopa", ["greedy"], 500)
    same_rows(api.play_chunk(quick, np.arange(500)), direct(quick, np.arange(500)))


def test_sigint_while_a_chunk_plays_stops_the_kernel_and_is_raised():
    """A real SIGINT to the main thread, sent once the chunk has reported progress (so the kernel is running)."""
    assert threading.current_thread() is threading.main_thread()
    playing = threading.Event()
    main = threading.main_thread().ident

    def interrupt() -> None:
        playing.wait(600)
        signal.pthread_kill(main, signal.SIGINT)

    calls: list[int] = []
    sender = threading.Thread(target=interrupt, daemon=True)
    sender.start()
    with pytest.raises(KeyboardInterrupt):
        api.play_chunk(SLOW, np.arange(2000), progress=lambda n: (calls.append(n), playing.set()))
    sender.join(600)
    assert 0 < sum(calls) < 2000
    quick = config_of("kaszino", ["greedy", "random"], 300)
    same_rows(api.play_chunk(quick, np.arange(300)), direct(quick, np.arange(300)))


def test_trace_of_monte_carlo_games_matches_their_rows():
    config = config_of("scopa", ["mc:samples=3", "greedy"], 20)
    rows = api.play_chunk(config, np.arange(5))
    traces = api.trace(config, range(5))
    ends = [t["events"][-1] for t in traces]
    assert [e["winner"] for e in ends] == rows.winner.tolist()
    assert [e["totals"] for e in ends] == rows.totals.tolist()


# --- random substreams -------------------------------------------------------------------------------------------


def lag(a: int, b: int) -> int:
    """How many steps stream state ``b`` lies ahead of ``a`` on the SplitMix64 cycle (negative: behind).

    Outputs are ``mix64(state)`` with ``state += GOLDEN`` per step and mix64 a bijection, so two streams share an
    output within their first L draws exactly when ``abs(lag) < L``."""
    d = ((unsigned(b) - unsigned(a)) * GOLDEN_INVERSE) & MASK64
    return d - (1 << 64) if d >= 1 << 63 else d


def outputs(state: int, n: int) -> np.ndarray:
    """The first ``n`` 64-bit outputs of a stream starting at ``state`` (numpy, independent of the kernels)."""
    s = (np.uint64(unsigned(state)) + np.arange(1, n + 1, dtype=np.uint64) * np.uint64(ref_rng.GOLDEN)).astype(
        np.uint64
    )
    s = (s ^ (s >> np.uint64(30))) * np.uint64(ref_rng.MIX1)
    s = (s ^ (s >> np.uint64(27))) * np.uint64(ref_rng.MIX2)
    return s ^ (s >> np.uint64(31))


def uniforms(state: int, n: int) -> np.ndarray:
    return (outputs(state, n) >> np.uint64(11)).astype(np.float64) / float(1 << 53)


def test_the_scheme_is_recorded_and_shared_with_the_reference():
    assert RNG_SCHEME == ref_rng.RNG_SCHEME == "splitmix64-lemire32/2"


def test_substreams_match_the_python_twin_and_substream_zero_is_the_stream():
    for seed in (0, 1, 5, 2**62 + 3, 2**63 - 1):
        for game in (0, 1, 999, 10**9):
            for stream in range(5):
                assert substream_state(seed, game, stream, 0) == stream_state(seed, game, stream)
                for sub in (0, 1, 2, 5, 1000, 2**40):
                    kernel = unsigned(substream_state(seed, game, stream, sub))
                    assert kernel == ref_rng.substream_start(seed, game, stream, sub)
                    if sub:
                        assert split_stream(stream_state(seed, game, stream), sub) == substream_state(
                            seed, game, stream, sub
                        )


def test_pinned_values():
    """Changing these changes games: bump RNG_SCHEME (and say which rows change) if it is meant."""
    assert unsigned(stream_state(42, 7, 2)) == ref_rng.stream_start(42, 7, 2) == 0x80F5C605CA276DC1
    assert unsigned(substream_state(42, 7, 2, 3)) == 0xDC87FA7F35364055


def test_numpy_outputs_are_the_kernels():
    states = np.array([substream_state(3, 4, 1, 9)], dtype=np.int64)
    start = int(states[0])
    mine = [unsigned(next64(states, 0)) for _ in range(1000)]
    assert mine == outputs(start, 1000).tolist()


def test_no_two_substreams_of_a_game_overlap():
    """Every pair among the deal stream, the 4 seat streams and 256 substreams of each seat: > 10**8 steps apart."""
    for seed, game in ((5, 0), (2026, 123_456), (2**63 - 1, 10**9)):
        states = [unsigned(stream_state(seed, game, 0))]
        states += [unsigned(substream_state(seed, game, stream, j)) for stream in range(1, 5) for j in range(257)]
        s = np.array(states, dtype=np.uint64)
        with np.errstate(over="ignore"):
            d = (s[None, :] - s[:, None]) * np.uint64(GOLDEN_INVERSE)
        steps = np.minimum(d, -d)  # distance along the cycle, either way
        np.fill_diagonal(steps, np.uint64(MASK64))
        assert int(steps.min()) > 10**8


def test_the_overlap_check_catches_the_old_rollout_streams():
    """Scheme 1: rollout seat k of a sample started at seed + (k + 1) * GOLDEN: seat k+1 replays seat k."""
    seed = unsigned(stream_state(5, 0, 1))
    old = [(seed + (k + 1) * ref_rng.GOLDEN) & MASK64 for k in range(4)]
    assert [lag(old[k], old[k + 1]) for k in range(3)] == [1, 1, 1]
    assert outputs(old[1], 1000)[:-1].tolist() == outputs(old[0], 1000)[1:].tolist()
    new = [unsigned(split_stream(stream_state(5, 0, 1), 1 + k)) for k in range(4)]
    assert min(abs(lag(new[k], new[k + 1])) for k in range(3)) > 10**12


@pytest.mark.parametrize("a,b", [(0, 1), (1, 2), (4, 5), (1, 5), (2, 3)], ids=lambda x: str(x))
def test_neighbouring_substreams_share_no_output_and_are_uncorrelated(a, b):
    """First 10**5 outputs: no value in common (so no overlap at any shift) and correlations near 0, shifts too."""
    n = 100_000
    sa, sb = substream_state(11, 3, 1, a), substream_state(11, 3, 1, b)
    assert np.intersect1d(outputs(sa, n), outputs(sb, n)).size == 0
    ua, ub = uniforms(sa, n), uniforms(sb, n)
    bound = 5 / np.sqrt(n)  # five standard errors of a correlation of independent draws
    for x, y in ((ua, ub), (ua[1:], ub[:-1]), (ua[:-1], ub[1:])):
        assert abs(np.corrcoef(x, y)[0, 1]) < bound


# --- total dispatch on the variant and the policy -----------------------------------------------------------------


def compiled(name: str):
    spec = VARIANTS[name]
    return spec.compile(spec.resolve())


def reference(name: str):
    return importlib.import_module(f"simcore.reference.{name}")


UNREGISTERED = [-1, max(compiled(n).variant for n in VARIANTS) + 1, 99]


def test_registered_variant_ids_are_distinct():
    ids = [compiled(n).variant for n in VARIANTS]
    assert len(set(ids)) == len(ids) and set(UNREGISTERED).isdisjoint(ids)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_each_variant_scores_with_its_own_branch(name):
    """The kernel's deal points equal the variant's reference scoring on random partitions of the pack."""
    spec, rules = VARIANTS[name], compiled(name)
    resolved, ref = spec.resolve(), reference(name)
    extra = len(inspect.signature(ref.score_deal).parameters) - 3  # Foracio also takes same-suit points
    rng = random.Random(name)
    pack = cards_of(rules.pack)
    for _ in range(200):
        owner = [rng.randrange(rules.n_sides) for _ in pack]
        piles = [sum(1 << c for c, o in zip(pack, owner, strict=True) if o == side) for side in range(rules.n_sides)]
        zeros = [0] * rules.n_sides
        expected = ref.score_deal(resolved, piles, zeros, *[zeros] * extra)
        kernel = engine.score_deal(rules, piles, zeros, zeros)
        assert kernel.tolist() == [[side[c] for c in spec.categories_for(resolved)] for side in expected]


@pytest.mark.parametrize("name", list(VARIANTS))
def test_each_variant_lists_its_own_moves_and_plays_every_policy(name):
    spec, rules = VARIANTS[name], compiled(name)
    resolved, ref = spec.resolve(), reference(name)
    rng = random.Random(name)
    pack = cards_of(rules.pack)
    for _ in range(200):
        cards = rng.sample(pack, 20)
        hand, table = cards[: rng.randint(1, 3)], cards[3 : 3 + rng.randint(0, 8)]
        expected = ref.legal_moves(resolved, set(hand), set(table))
        if name == "scopa":  # the Scopa reference lists (card id, take mask), the others (play mask, take mask)
            expected = [(1 << card, take) for card, take in expected]
        assert engine.legal_moves(rules, sum(1 << c for c in hand), sum(1 << c for c in table)) == expected
    for policy in (p for p in POLICIES if not POLICIES[p].games or name in POLICIES[p].games):
        chosen = f"{policy}:samples=2" if POLICIES[policy].policy_id == POLICY_MC else policy
        config = RunConfig.create(name, policies=[chosen], games=4, seed=3)
        assert api.play_chunk(config, np.arange(4)).winner.size == 4


def play_with(rules, ids=None, params=None, games: int = 5):
    players = rules.players
    ids = np.full(players, POLICY_GREEDY, np.int64) if ids is None else ids
    params = np.zeros((players, 64)) if params is None else params
    return engine.play(rules, 1, np.arange(games), ids, params)


ENTRY_POINTS = {
    "play": play_with,
    "score_deal": lambda rules: engine.score_deal(rules, [rules.pack, 0], [0, 0]),
    "legal_moves": lambda rules: engine.legal_moves(rules, 1 << 4, 1 << 5),
}


@pytest.mark.parametrize("variant_id", UNREGISTERED, ids=lambda v: f"id{v}")
@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_an_unregistered_variant_id_is_refused(entry, variant_id):
    for name in VARIANTS:  # whatever the other rules
        rules = compiled(name)._replace(variant=variant_id)
        with pytest.raises(ConfigError, match="not a registered game"):
            ENTRY_POINTS[entry](rules)


def test_the_lookahead_reply_kernel_refuses_a_turn_structure_of_no_game():
    for name in VARIANTS:
        for turns in [compiled(name).turns, 0, 3, -1, 99]:
            rules = compiled(name)._replace(turns=turns)
            s = new_scratch(rules)
            fill_rule_info(s.ps, rules)
            best_reply(s.ps, np.zeros((4, 64)), 0, np.int64(1 << 8), np.int64(1 << 9))
            assert s.ps[FAULT] == (0 if turns == compiled(name).turns else FAULT_VARIANT)


@pytest.mark.parametrize("turns", [0, 3, -1])
def test_a_turn_structure_of_no_game_is_refused(turns):
    for name in VARIANTS:
        rules = compiled(name)._replace(turns=turns)
        for entry in ("play", "legal_moves"):
            with pytest.raises(ConfigError, match="not a registered game"):
                ENTRY_POINTS[entry](rules)


def test_each_game_declares_its_turn_structure():
    turns = {name: compiled(name).turns for name in VARIANTS}
    assert turns == {
        "scopa": TURNS_ONE_CARD,
        "skopa": TURNS_ONE_CARD,
        "foracio": TURNS_ONE_CARD,
        "kaszino": TURNS_EXCHANGE,
        "scopone": TURNS_ONE_CARD,
        "escoba": TURNS_ONE_CARD,
    }


@pytest.mark.parametrize("policy_id", [-1, 1 + max(p.policy_id for p in POLICIES.values()), 99])
def test_an_unknown_policy_id_is_refused(policy_id):
    rules = compiled("scopa")
    with pytest.raises(ConfigError, match="policy id"):
        play_with(rules, ids=np.array([POLICY_GREEDY, policy_id], np.int64))


@pytest.mark.parametrize("rollout", [0, 4, 9])
def test_an_unknown_rollout_policy_is_refused(rollout):
    config = RunConfig.create("scopa", policies=["mc:samples=2", "greedy"], games=4, seed=3)
    ids, params = policy_arrays(config.policy_choices(), config.rules)
    params[0, P_ROLLOUT] = rollout
    with pytest.raises(ConfigError, match="policy id"):
        engine.play(config.compiled_rules(), 3, np.arange(4), ids, params)


def test_every_registered_game_declares_its_weights_and_what_each_means():
    for name, spec in VARIANTS.items():
        assert spec.weights is not None, name
        for key in weights.defaults(name):
            assert weights.meaning(name, key), (name, key)


def test_each_variant_has_its_own_card_points():
    """Games with card weights of their own get card points of their own (Scopone shares Scopa's scoring, so its
    ``VariantSpec.weights`` holds Scopa's card weights, with mc defaults of its own)."""
    vectors = {
        name: weights.card_points(name, weights.defaults(name), VARIANTS[name].resolve()).tobytes() for name in VARIANTS
    }
    owners = {id(VARIANTS[name].weights.card_points) for name in VARIANTS}
    assert len(set(vectors.values())) == len(owners) == len(VARIANTS) - 1
    assert vectors["scopone"] == vectors["scopa"]


@pytest.mark.parametrize("bad", ["", "Scopa", "scopa ", "briscola", "x" * 1000])
@pytest.mark.parametrize("function", ["defaults", "card_points", "suit_weight", "meaning"])
def test_an_unknown_variant_name_gets_no_weights(function, bad):
    calls = {
        "defaults": lambda: weights.defaults(bad),
        "card_points": lambda: weights.card_points(bad, weights.defaults("scopa"), VARIANTS["scopa"].resolve()),
        "suit_weight": lambda: weights.suit_weight(bad, weights.defaults("scopa"), VARIANTS["scopa"].resolve()),
        "meaning": lambda: weights.meaning(bad, "card"),
    }
    with pytest.raises(ConfigError, match="no policy weights") as info:
        calls[function]()
    assert len(str(info.value)) < 200
