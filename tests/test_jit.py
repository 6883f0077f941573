"""The project's Numba decorator: a kernel called from a kernel is compiled once per argument type."""

from __future__ import annotations

import importlib
import io
import os
import subprocess
import sys
import textwrap

import numba
import pytest

from simcore import _jit

# the Numba whose internals ``_jit``'s compile-time patches were checked against; a later one may differ
PINNED_NUMBA = tuple(int(part) for part in numba.__version__.split(".")[:2]) <= (0, 68)

SCRIPT = textwrap.dedent(
    """
    from simcore._jit import kernel

    @kernel
    def add(x, a, flag):
        return x + a if flag else x - a

    @kernel
    def calls_with_constants(x):
        return add(x, -1, True) + add(x, 0, False) + add(x, 7, True)

    assert calls_with_constants(10) == 9 + 10 + 17
    print([str(t) for t in add.signatures[0]], len(add.signatures))
    """
)


def test_constant_arguments_do_not_make_new_specializations():
    """Plain Numba compiles ``add`` three times (Literal[int](-1), (0), (7)): compile time grows with every constant.

    Runs in a fresh process without the on-disk cache, since a cached caller never compiles its callees again.
    """
    env = {**os.environ, "SCOPASIM_NO_CACHE": "1"}
    result = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "['int64', 'int64', 'bool'] 1"


TWIN_SCRIPT = textwrap.dedent(
    """
    from simcore._jit import _KernelDispatcher, kernel

    @kernel
    def add_one(x):
        return x + 1

    @kernel(entry=True)
    def twice_plus_two(x):
        return 2 * add_one(x)

    assert isinstance(add_one, _KernelDispatcher) and not isinstance(twice_plus_two, _KernelDispatcher)
    assert add_one.targetoptions["no_cpython_wrapper"] and "no_cpython_wrapper" not in twice_plus_two.targetoptions
    first = twice_plus_two(3)  # compiles (or loads) the wrapper-less add_one inside it first
    second = add_one(3)  # then Python's call: the twin, compiled with the wrappers (or loaded: its own files)
    twin = add_one._scopasim_entry
    hits = twice_plus_two.stats.cache_hits, twin.stats.cache_hits
    print(first, second, twin.py_func.__qualname__, len(hits[0]) > 0, len(hits[1]) > 0)
    """
)


def test_python_calls_a_kernel_through_a_twin_with_wrappers_cached_apart(tmp_path):
    """Kernels only kernels call are compiled without Numba's wrappers; a call from Python compiles a twin with
    them. The twin's cache files must be its own: Numba's index does not tell the two builds apart, and a twin
    that loaded the wrapper-less build would call a null entry point. Two fresh processes on one cache folder:
    the first compiles both builds (the wrapper-less one first), the second loads both."""
    script = tmp_path / "twins.py"
    script.write_text(TWIN_SCRIPT)
    env = {**os.environ, "SCOPASIM_NO_CACHE": "0", "SCOPASIM_CACHE_DIR": str(tmp_path / "cache")}
    runs = [
        subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, check=True).stdout
        for _ in range(2)
    ]
    assert runs[0].split() == ["8", "4", "add_one__entry", "False", "False"]
    assert runs[1].split() == ["8", "4", "add_one__entry", "True", "True"]


LINK_SCRIPT = textwrap.dedent(
    """
    import sys
    from simcore import _jit
    from simcore._jit import kernel

    @kernel
    def add_one(x):
        return x + 1

    @kernel
    def add_two(x):  # a link-only kernel calling one: links it in, emits nothing either
        return add_one(add_one(x))

    @kernel(entry=True)
    def twice(x):
        return 2 * add_two(x)

    @kernel(entry=True)
    def thrice(x):
        return 3 * add_two(x)

    @kernel(entry=True)
    def four_times(x):
        return 4 * add_two(x)

    entry = globals()[sys.argv[1]]
    value = entry(4)
    outer = next(iter(entry.overloads.values())).library
    inner = [(type(o.library).__name__, o.library._compiled) for o in add_two.overloads.values()]
    print(value, _jit.LINK_ONLY_LIBRARY is not None, inner, outer._compiled, len(add_two.stats.cache_hits),
          len(entry.stats.cache_hits))
    """
)


def test_a_kernel_only_kernels_call_is_linked_into_its_callers_not_emitted(tmp_path):
    """``_jit._link_only_library_class``: a kernel without wrappers gets a library that is linked into its callers
    and never turned into machine code of its own (``_compiled`` stays False; the entry's is emitted). A later
    process loads its cache entry (bitcode) and links it into a new entry kernel, also when
    ``SCOPASIM_NUMBA_LINK_CODEGEN=1`` turns the patch off; with the patch off a recompiled kernel gets Numba's
    library, emitted."""
    script = tmp_path / "linked.py"
    script.write_text(LINK_SCRIPT)
    env = {**os.environ, "SCOPASIM_NO_CACHE": "0", "SCOPASIM_CACHE_DIR": str(tmp_path / "cache")}

    def run(entry: str, switch: str = "0") -> str:
        env["SCOPASIM_NUMBA_LINK_CODEGEN"] = switch
        result = subprocess.run([sys.executable, str(script), entry], env=env, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    if not PINNED_NUMBA and not _jit.LINK_ONLY_LIBRARY:
        pytest.skip("Numba's code library has another shape: left alone")
    assert run("twice") == "12 True [('LinkOnlyLibrary', False)] True 0 0"  # compiled
    assert run("twice") == "12 True [] False 0 1"  # the entry loaded (not emitted): its callees not looked at
    assert run("thrice") == "18 True [('LinkOnlyLibrary', False)] True 1 0"  # a new caller links the loaded one
    assert run("four_times", "1") == "24 False [('LinkOnlyLibrary', False)] True 1 0"
    script.write_text(LINK_SCRIPT.replace("add_one(add_one(x))", "add_one(add_one(x)) + 0"))  # all recompiled
    assert run("four_times", "1") == "24 False [('JITCodeLibrary', True)] True 0 0"


LOAD_SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    from simcore import _jit, api
    from simcore.config import RunConfig

    config = RunConfig.create("scopa", games=3, seed=1)
    out = api.play_chunk(config, np.arange(3, dtype=np.int64))
    loaded = "numba.np.arraymath" in sys.modules
    blocked = sys.modules.get("scipy.linalg.cython_blas", "absent")
    import numba

    @numba.njit
    def dot(a, b):
        return np.dot(a, b)

    print(_jit.LOAD_WITHOUT_REFRESH, loaded, "scipy.linalg" in sys.modules, blocked, int(out.n_deals.sum()) > 0,
          dot(np.ones(3), np.ones(3)), "numba.np.arraymath" in sys.modules)
    """
)


@pytest.mark.parametrize("refresh", ["0", "1"])
def test_loading_the_kernels_imports_neither_numbas_registries_nor_scipy(refresh):
    """A process that loads its kernels from the cache (the second of two runs) does not install Numba's lowering
    registries (``_jit._load_without_refresh``, 0.1 s of every command's start) and, with
    ``SCOPASIM_NUMBA_REFRESH=1`` (which installs them), not SciPy's linear algebra either
    (``engine.numba_without_scipy_blas``, 0.25 s); either way the kernels play, nothing stays blocked, and
    ``np.dot`` still compiles in a later kernel (whose compile installs the registries)."""
    env = {**os.environ, "SCOPASIM_NUMBA_REFRESH": refresh}
    for _ in range(2):  # the first run may compile the kernels: the second loads them
        result = subprocess.run([sys.executable, "-c", LOAD_SCRIPT], env=env, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
    applied, loaded, linalg, blocked, played, dot, loaded_after = result.stdout.split()
    assert (linalg, blocked, played, dot, loaded_after) == ("False", "absent", "True", "3.0", "True")
    if refresh == "1":
        assert (applied, loaded) == ("False", "True")
    elif PINNED_NUMBA:
        assert (applied, loaded) == ("True", "False")


PRUNE_SCRIPT = textwrap.dedent(
    """
    import numpy as np
    from simcore import api
    from simcore.config import RunConfig
    from simcore.kernels.deal import run_family, run_kaszino
    from simcore.policies.kernels import choose, choose_quick
    from simcore.policies.montecarlo import choose_mc
    from simcore.policies.search import choose_search, move_value

    api.play_chunk(RunConfig.create("scopa", policies=["greedy", "random"], games=3, seed=1), np.arange(3))
    print(len(run_family.signatures), len(choose_quick.signatures), len(run_kaszino.signatures),
          len(choose.signatures), len(choose_mc.signatures))
    api.play_chunk(RunConfig.create("scopa", policies=["mc:samples=2", "greedy"], games=1, seed=1), np.arange(1))
    print(len(choose_mc.signatures), len(choose_search.signatures), len(move_value.signatures))
    """
)


@pytest.fixture(scope="module")
def compiled_counts() -> list[list[str]]:
    """How many signatures of some kernels a fresh process compiled for a greedy/random Scopa run (first line),
    then for an mc run (second line). Without the on-disk cache, so that every kernel a run needs is compiled in
    this process; on the kernels specialised for the rules (the cheaper compile; the same features). One process
    for both tests: what the two runs share is compiled once."""
    env = {**os.environ, "SCOPASIM_NO_CACHE": "1", "SCOPASIM_SPECIALISE": "1"}
    result = subprocess.run([sys.executable, "-c", PRUNE_SCRIPT], env=env, capture_output=True, text=True, check=True)
    return [line.split() for line in result.stdout.splitlines()]


def test_a_run_compiles_only_the_loops_and_policies_it_uses(compiled_counts):
    """``engine.run_features``: a greedy/random Scopa run compiles the one-card loop and the quick policies, and
    neither Kaszinó's loop nor ``choose`` with its listed policies nor the Monte Carlo chain (about 40% of the cold
    compile)."""
    assert compiled_counts[0] == ["1", "1", "0", "0", "0"]


def test_a_run_without_search_seats_compiles_no_search(compiled_counts):
    """``engine.search_feature``: an mc run compiles mc (its count shows the process counts what it compiles) but
    not search, whose trees hold inlined copies of the deal loop (about 6 s of an mc run's cold compile); a search
    seat asks for it (every search test plays through it; compiling it here as well cost the suite 25 CPU-s)."""
    assert compiled_counts[1] == ["1", "0", "0"]
    from simcore import engine
    from simcore.config import RunConfig
    from simcore.policies import policy_arrays

    cfg = RunConfig.create("scopa", policies=["search:worlds=1", "greedy"])
    ids = policy_arrays(cfg.policy_choices(), cfg.rules)[0]
    assert engine.search_feature(ids) is True
    assert engine.search_feature(ids[1:]) is None


INLINE_SCRIPT = textwrap.dedent(
    """
    from simcore import _jit

    @_jit.inline_kernel
    def clipped(x, lo, hi):
        if x < lo:
            return lo
        for _ in range(2):
            x = x + 0
        return hi if x > hi else x

    @_jit.kernel
    def twice(a, b):
        return clipped(a, 0, 10) * 100 + clipped(b, 0, 10)  # two call sites: each inlines its own IR

    @_jit.kernel
    def other(a):  # another caller: its site gets a copy of the IR the first one built (``_jit._UNTYPED_IR``)
        return clipped(a, 1, 4) + clipped(a + 10, 0, 12)

    print(_jit.INLINE_WITHOUT_COPIES, twice(-5, 7), twice(12, 3), other(-3), other(9))
    """
)


@pytest.mark.parametrize("copies,applied", [("0", "True"), ("1", "False")])
def test_inlining_without_copies_applies_on_this_numba_and_can_be_turned_off(copies, applied):
    """``_jit._inline_without_copies``: on the pinned Numba the inliner has the shape the patch relies on (else
    it would silently compile slower); ``SCOPASIM_NUMBA_INLINE_COPIES=1`` leaves Numba alone; either way an
    inlined kernel with branches and a loop, inlined at four call sites of two callers (sharing one built IR when
    the patch applies), computes the same."""
    env = {**os.environ, "SCOPASIM_NUMBA_INLINE_COPIES": copies, "SCOPASIM_NO_CACHE": "1"}
    result = subprocess.run([sys.executable, "-c", INLINE_SCRIPT], env=env, capture_output=True, text=True, check=True)
    was_applied, *values = result.stdout.split()
    assert values == ["7", "1003", "8", "16"]
    if applied == "False" or PINNED_NUMBA:
        assert was_applied == applied


# large kernels with loops and variables assigned many times: what the compile-time patches are checked on
LARGE_KERNELS = [
    ("simcore.kernels.deal", "family_loop"),
    ("simcore.kernels.deal", "kaszino_loop"),
    ("simcore.policies.search", "choose_search"),
    ("simcore.policies.quick", "quick_rank_slots"),
]


def ssa_dump(blocks) -> str:
    """The text of IR blocks, label by label."""
    out = io.StringIO()
    for label in sorted(blocks):
        print(label, file=out)
        blocks[label].dump(file=out)
    return out.getvalue()


@pytest.mark.parametrize("module,name", LARGE_KERNELS)
def test_ssa_by_blocks_builds_the_very_ir_of_numbas_ssa(module, name):
    """``_jit._ssa_by_blocks``: on large kernels with loops and variables assigned many times, the SSA form built
    walking only the blocks that name each variable is Numba's own, statement for statement, names and phi nodes
    included."""
    from numba.core import ssa
    from numba.core.compiler import run_frontend

    if not _jit.SSA_BY_BLOCKS:
        assert not PINNED_NUMBA
        pytest.skip("Numba's SSA module has another shape: left alone")
    func = getattr(importlib.import_module(module), name).py_func
    ours, numbas = run_frontend(func).blocks, run_frontend(func).blocks
    assert ssa_dump(ours) == ssa_dump(numbas)
    ours, numbas = ssa._run_ssa(ours), ssa._run_ssa.numba_original(numbas)
    assert "phi(" in ssa_dump(ours)
    assert ssa_dump(ours) == ssa_dump(numbas)


@pytest.mark.parametrize("module,name", LARGE_KERNELS)
def test_live_map_by_bits_is_numbas_live_map(module, name):
    """``_jit._live_map_by_bits``: on large kernels with loops, before and after SSA (with its phi nodes), the
    variables live at each block's entry are Numba's own, block for block."""
    from numba.core import analysis, ir_utils, ssa
    from numba.core.compiler import run_frontend

    if not _jit.LIVE_MAP_BY_BITS:
        assert not PINNED_NUMBA
        pytest.skip("Numba's liveness analysis has another shape: left alone")
    assert ir_utils.compute_live_map is analysis.compute_live_map
    ours, numbas = analysis.compute_live_map, analysis.compute_live_map.numba_original
    blocks = run_frontend(getattr(importlib.import_module(module), name).py_func).blocks
    for version in (blocks, ssa._run_ssa(blocks)):
        cfg = analysis.compute_cfg_from_blocks(version)
        usedefs = analysis.compute_use_defs(version)
        live = ours(cfg, version, usedefs.usemap, usedefs.defmap)
        assert live == numbas(cfg, version, usedefs.usemap, usedefs.defmap)
        assert sum(map(len, live.values())) > 100


@pytest.mark.parametrize(
    "switch,flag,patched",
    [("SCOPASIM_NUMBA_SSA", "SSA_BY_BLOCKS", "ssa._run_ssa"),
     ("SCOPASIM_NUMBA_LIVENESS", "LIVE_MAP_BY_BITS", "analysis.compute_live_map")],
)  # fmt: skip
def test_a_numba_patch_can_be_turned_off(switch, flag, patched):
    """``SCOPASIM_NUMBA_SSA=1`` leaves Numba's SSA pass as it is, ``SCOPASIM_NUMBA_LIVENESS=1`` its liveness."""
    module = patched.split(".")[0]
    script = f"from simcore import _jit; from numba.core import {module}; "
    script += f"print(_jit.{flag}, hasattr({patched}, 'numba_original'))"
    env = {**os.environ, switch: "1"}
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]
