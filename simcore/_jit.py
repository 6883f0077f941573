"""The one place where Numba compile options live.

Every jitted function in scopasim is decorated with :data:`kernel`, so caching, GIL release and the error model
are decided here once. No kernel is a Numba parallel one (``simcore.kernels.batch`` says why): the threads are
Python's, each running a nogil kernel.

The on-disk cache lives in a folder named after a hash of all of ``simcore``'s sources. Numba invalidates a
cached function only when its own file changes, not when a function it calls (in another file) does, so a
cache keyed on the whole package is the only one that can never serve stale machine code.
``SCOPASIM_NO_CACHE=1`` turns caching off (to measure cold compile time); ``SCOPASIM_CACHE_DIR`` moves it.

:data:`inline_kernel` is for the few helpers of the hot loop: Numba inlines their IR into every caller, so a
call costs nothing (a non-inlined helper taking an array makes two NRT calls and passes every array field on the
stack, ~16 arguments), at the price of compiling the helper once more in each caller.

A kernel called from another kernel is compiled once per argument *type*, never per constant value. Numba's
default types a constant argument as a literal (``Literal[int](-1)``) and compiles a separate specialization of the
callee, and of everything it calls, for each constant: the deal loop was compiled three times (once with the
normal arguments, once with ``choice=-1``, once for the Monte Carlo rollouts) and ``emit`` 23 times. Typing the
arguments as plain types cut the cold compile from 40 s to 24 s.

A kernel only kernels call is compiled without Numba's CPython and C-callback wrappers (:class:`_KernelDispatcher`):
the wrapper of a kernel taking the rule tuple unboxes 70 fields, and LLVM optimised it again in every library
linking the kernel in (the four seed games' cold compile 46 -> 33 s without them). Python's calls go to a twin
that has them; the kernels a run calls from Python are marked ``kernel(entry=True)``. Such a kernel's code library
is only linked into its callers' (:func:`_link_only_library_class`): LLVM optimises and emits a run's whole chain
once, in the entry kernel's library, not once for each kernel on the way up to it.
"""

from __future__ import annotations

import copy
import hashlib
import os
import types as pytypes
from collections import defaultdict
from functools import partial
from pathlib import Path

import numba
from numba import njit
from numba.core import ir, types
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import LoweringPass, register_pass
from numba.core.registry import CPUDispatcher

CACHE = os.environ.get("SCOPASIM_NO_CACHE", "0") != "1"


def _source_hash() -> str:
    root = Path(__file__).parent
    digest = hashlib.sha256(numba.__version__.encode())
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_dir() -> Path:
    """Folder of this source tree's compiled kernels."""
    base = os.environ.get("SCOPASIM_CACHE_DIR")
    if base is None:
        base = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "scopasim")
    return Path(base) / f"numba-{_source_hash()}"


if CACHE:
    numba.config.CACHE_DIR = str(cache_dir())


def wanted(switch: str) -> bool:
    """False when the environment turns a patch of Numba off (``switch=1``): each patch below has one."""
    return os.environ.get(switch, "0") != "1"


class _BlocksUncopied:
    """The ``copy`` module as Numba's inliner sees it while it inlines a function's freshly built IR: the IR's
    blocks are used as they are (their deep copies would be thrown away), everything else is copied as usual."""

    copy = staticmethod(copy.copy)

    @staticmethod
    def deepcopy(value, memo=None):
        return value if isinstance(value, ir.Block) else copy.deepcopy(value, memo)


_UNTYPED_IR: dict = {}  # (function, no_rewrites) -> its untyped IR, built once a process (``_inline_without_copies``)


def _inline_without_copies() -> bool:
    """Make Numba's ``inline="always"`` stop deep-copying the IR it has just built for the call site.

    ``InlineWorker.inline_function`` builds the callee's IR anew for every call site (the untyped passes), then
    ``inline_ir`` deep-copies it twice, block by block: once to mutate (the IR is fresh, nobody else holds it) and
    once to return an unmutated copy (which its two callers in Numba throw away). Each block's copy copies the
    whole function's scope again, so the cost grows with blocks times variables: the quick policies' decision,
    inlined into the deal loop, took 2.3 s of copying alone. Without the copies the cold compile of a greedy
    Scopa run fell by 5.6 s (27.2 to 21.6 s) for the same IR. numba/numba#8989 and #9204 report the cost; the
    overloads' inlining (``inline_ir`` on a cached IR, which must be copied) is left as it is.

    The callee's IR is also built once a process (``_UNTYPED_IR``), not once a call site: the untyped passes,
    nested inlining included, ran again at every site of every helper (6.5 s of a greedy Scopa run's 16.5 s cold
    compile, the sites of the helpers nested in the quick decision counted in each). A site gets a copy of its
    blocks made in one ``deepcopy`` (so the scope is copied once, not once a block) and definitions rebuilt from
    it. The four seed games' cold compile in one process fell from 50.6 to 43-45 s (session 32), the same rows.

    Applied only where the inliner has the shape this relies on (else Numba is left alone: slower to compile,
    the same machine code); ``SCOPASIM_NUMBA_INLINE_COPIES=1`` leaves it alone too. Returns whether it applied.
    """
    from numba.core import inline_closurecall
    from numba.core.ir_utils import build_definitions

    worker = inline_closurecall.InlineWorker
    if getattr(worker.inline_function, "scopasim_uncopied", False):
        return True
    nested = [c for c in worker.inline_ir.__code__.co_consts if getattr(c, "co_name", "") == "copy_ir"]
    shape = (
        wanted("SCOPASIM_NUMBA_INLINE_COPIES")
        and getattr(inline_closurecall, "copy", None) is copy
        and len(nested) == 1
        and {"copy", "deepcopy"} <= set(nested[0].co_names)
        and worker.inline_function.__code__.co_names == ("run_untyped_passes", "__code__", "co_freevars", "inline_ir")
    )
    if not shape:
        return False

    def inline_function(self, caller_ir, block, i, function, arg_typs=None):
        key = (function, self.flags.no_rewrites)  # what the untyped passes of the callee depend on
        built = _UNTYPED_IR.get(key)
        if built is None:
            built = _UNTYPED_IR[key] = self.run_untyped_passes(function)
        callee_ir = copy.copy(built)  # the inliner mutates it: a copy of the blocks, the scope copied once
        callee_ir.blocks = copy.deepcopy(built.blocks)
        callee_ir.block_entry_vars = {}
        callee_ir._definitions = build_definitions(callee_ir.blocks)
        freevars = function.__code__.co_freevars
        inline_closurecall.copy = _BlocksUncopied  # Numba compiles under its global compiler lock: one at a time
        try:
            return self.inline_ir(caller_ir, block, i, callee_ir, freevars, arg_typs=arg_typs)
        finally:
            inline_closurecall.copy = copy

    inline_function.scopasim_uncopied = True
    worker.inline_function = inline_function
    return True


INLINE_WITHOUT_COPIES = _inline_without_copies()


def _ssa_by_blocks() -> bool:
    """Make Numba's SSA reconstruction rewrite only the blocks that name the variable it is fixing.

    ``ssa._run_ssa`` fixes the variables assigned more than once one at a time, and for each it rebuilds every
    block of the function twice, statement by statement (a fresh name for each assignment, then each use tied
    to its reaching definition): the cost grows with such variables times statements, and the deal loop with its
    inlined helpers has thousands of each (1.6-2.0 s of a greedy Scopa run's cold compile in this one pass). A
    block that does not name the variable comes out of both rewrites as it went in, so here it is carried over
    without the walk: the same statements, names and phi nodes, in the same order. Which blocks name which
    variables is read once, before the first fix; a fix only renames its own variable and adds phi nodes of it,
    so the sets stay true for the variables after it.

    Applied only where Numba's SSA module has the shape this relies on (else left alone: slower to compile, the
    same IR); ``SCOPASIM_NUMBA_SSA=1`` leaves it alone too. Returns whether it applied."""
    from numba.core import errors, ssa
    from numba.core.analysis import compute_cfg_from_blocks

    if getattr(ssa._run_ssa, "scopasim_by_blocks", False):
        return True
    fix_names = ("_make_states", "defaultdict", "list", "_compute_phi_locations", "_run_block_rewrite")
    fix_names += ("_FixSSAVars", "items", "body")
    shape = (
        wanted("SCOPASIM_NUMBA_SSA")
        and ssa.reconstruct_ssa.__code__.co_names == ("_run_ssa", "blocks")
        and ssa._fresh_vars.__code__.co_names
        == ("_make_states", "defaultdict", "list", "_run_block_rewrite", "_FreshVarHandler")
        and ssa._fix_ssa_vars.__code__.co_names == fix_names
        and {"_iterated_domfronts", "_find_defs_violators", "_CacheListVars", "_fresh_vars", "_fix_ssa_vars"}
        <= set(ssa._run_ssa.__code__.co_names)
    )
    if not shape:
        return False

    def rewrite(blocks, states, handler, named):
        """``ssa._run_block_rewrite``, walking only the blocks in ``named``."""
        rewritten = {}
        for label, block in blocks.items():
            new_block = ir.Block(scope=block.scope, loc=block.loc)
            if label in named:
                states["label"], states["block"] = label, block
                new_block.body = [
                    handler.on_assign(states, stmt) if isinstance(stmt, ir.Assign) else handler.on_other(states, stmt)
                    for stmt in block.body
                ]
            else:
                new_block.body = list(block.body)
            rewritten[label] = new_block
        return rewritten

    def run_ssa(blocks):
        if not blocks:
            return {}
        cfg = compute_cfg_from_blocks(blocks)
        df_plus = ssa._iterated_domfronts(cfg)
        violators = ssa._find_defs_violators(blocks, cfg)
        cache_list_vars = ssa._CacheListVars()
        naming = defaultdict(set)  # variable name -> the labels of the blocks that name it
        for label, block in blocks.items():
            for stmt in block.body:
                for var in stmt.list_vars():
                    naming[var.name].add(label)
        for varname in violators:
            named = naming[varname]
            states = ssa._make_states(blocks)
            states["varname"], states["defmap"] = varname, (defmap := defaultdict(list))
            blocks = rewrite(blocks, states, ssa._FreshVarHandler(), named)
            states = ssa._make_states(blocks)
            states["varname"], states["defmap"], states["phimap"] = varname, defmap, (phimap := defaultdict(list))
            states["cfg"], states["phi_locations"] = cfg, ssa._compute_phi_locations(df_plus, defmap)
            blocks = rewrite(blocks, states, ssa._FixSSAVars(cache_list_vars), named)
            for label, phis in phimap.items():
                blocks[label].body = phis + blocks[label].body
        if compute_cfg_from_blocks(blocks) != cfg:
            raise errors.CompilerError("CFG mutated in SSA pass")
        return blocks

    run_ssa.scopasim_by_blocks = True
    run_ssa.numba_original = ssa._run_ssa  # for the test that compares the two
    ssa._run_ssa = run_ssa
    return True


SSA_BY_BLOCKS = _ssa_by_blocks()


def _live_map_by_bits() -> bool:
    """Make Numba's liveness analysis compute with integers as bit sets instead of sets of names.

    ``analysis.compute_live_map`` runs after every pass that changes the IR (Numba's post-processor and dead code
    removal call it). It first finds, for each block, every variable used or defined in any block that reaches
    it: a union of sets of names that grow to nearly every variable of the function, block after block, until
    nothing changes. The deal loop with its inlined helpers has thousands of blocks and of variables: 2.4 s of a
    greedy Scopa run's 18 s cold compile went here. The same algorithm (the same unions, in the same order, to
    the same fixed point) on integers whose bits stand for the variables gives the very same sets.

    Applied only where the analysis has the shape this relies on (else left alone: slower to compile, the same
    IR); ``SCOPASIM_NUMBA_LIVENESS=1`` leaves it alone too. Returns whether it applied."""
    from numba.core import analysis, ir_utils

    if getattr(analysis.compute_live_map, "scopasim_by_bits", False):
        return True
    code = analysis.compute_live_map.__code__
    nested = {c.co_name: c for c in code.co_consts if hasattr(c, "co_name")}
    shape = (
        wanted("SCOPASIM_NUMBA_LIVENESS")
        and code.co_varnames[:4] == ("cfg", "blocks", "var_use_map", "var_def_map")
        and code.co_names == ("topo_order", "keys", "set", "defaultdict")
        and set(nested) == {"fix_point_progress", "fix_point", "def_reach", "liveness"}
        and nested["def_reach"].co_names == ("successors",)
        and nested["liveness"].co_names == ("reversed", "predecessors")
        and ir_utils.compute_live_map is analysis.compute_live_map
    )
    if not shape:
        return False

    def compute_live_map(cfg, blocks, var_use_map, var_def_map):
        """``analysis.compute_live_map`` with bit sets: bit ``index[name]`` of an integer stands for ``name``."""
        topo_order = cfg.topo_order()
        index: dict[str, int] = {}
        for mapping in (var_use_map, var_def_map):
            for names in mapping.values():
                for name in names:
                    index.setdefault(name, len(index))
        n_bytes = len(index) // 8 + 1

        def bits(names):
            buffer = bytearray(n_bytes)
            for name in names:
                i = index[name]
                buffer[i >> 3] |= 1 << (i & 7)
            return int.from_bytes(buffer, "little")

        uses = {offset: bits(names) for offset, names in var_use_map.items()}
        defs = {offset: bits(names) for offset, names in var_def_map.items()}

        def fix_point(fn, dct):
            old_point, new_point = None, tuple(v.bit_count() for v in dct.values())
            while old_point != new_point:
                fn(dct)
                old_point, new_point = new_point, tuple(v.bit_count() for v in dct.values())

        def def_reach(dct):
            for offset in topo_order:
                dct[offset] |= defs[offset] | uses[offset]
                for out_blk, _ in cfg.successors(offset):
                    dct[out_blk] |= dct[offset]

        def liveness(dct):
            for offset in reversed(topo_order):
                live_vars = dct[offset]
                for inc_blk, _ in cfg.predecessors(offset):
                    dct[inc_blk] |= live_vars & def_reach_map[inc_blk] & ~defs[inc_blk]

        live_map = {offset: uses[offset] for offset in blocks}
        def_reach_map = defaultdict(int)
        fix_point(def_reach, def_reach_map)
        fix_point(liveness, live_map)
        names = list(index)

        def as_set(value):
            found = set()
            while value:
                low = value & -value
                found.add(names[low.bit_length() - 1])
                value ^= low
            return found

        return {offset: as_set(value) for offset, value in live_map.items()}

    compute_live_map.scopasim_by_bits = True
    compute_live_map.numba_original = analysis.compute_live_map  # for the test that compares the two
    analysis.compute_live_map = ir_utils.compute_live_map = compute_live_map
    return True


LIVE_MAP_BY_BITS = _live_map_by_bits()


def _load_without_refresh() -> bool:
    """Make Numba load a cached kernel without first installing everything it could compile.

    ``Cache.load_overload`` refreshes the target context before it reads the cache: that imports and installs
    every lowering registry of Numba (NumPy's linear algebra and random generators, typed containers...) and
    refreshes the typing context, 0.1 s of the 0.8 s of ``scopasim simulate --games 1000``. Loaded machine code
    is linked, not lowered or typed, so none of that is used; what it does use, the runtime's functions (NRT,
    for the kernels that allocate), is initialised here. A compile still gets the full refresh: Numba's compiler
    refreshes both contexts when it starts (``CompilerBase.__init__``).

    Applied only where the loader and the compiler have that shape (else Numba is left alone: the same kernels,
    a slower start); ``SCOPASIM_NUMBA_REFRESH=1`` leaves it alone too. Returns whether it applied."""
    from numba.core import caching, compiler
    from numba.core.runtime import rtsys

    cache = caching.Cache
    if getattr(cache.load_overload, "scopasim_unrefreshed", False):
        return True
    shape = (
        wanted("SCOPASIM_NUMBA_REFRESH")
        and cache.load_overload.__code__.co_names == ("refresh", "_guard_against_spurious_io_errors", "_load_overload")
        and compiler.CompilerBase.__init__.__code__.co_names[:3] == ("config", "reload_config", "refresh")
        and callable(getattr(rtsys, "initialize", None))
    )
    if not shape:
        return False

    def load_overload(self, sig, target_context):
        rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)

    load_overload.scopasim_unrefreshed = True
    cache.load_overload = load_overload
    return True


LOAD_WITHOUT_REFRESH = _load_without_refresh()


LINK_ONLY = "scopasim-link-only"  # the serialization kind of a link-only library's cache entry (its bitcode)


def _link_only_library_class() -> type | None:
    """The code library of the kernels only kernels call (:class:`_KernelDispatcher`): linked, for the libraries
    that link it in, but neither optimised as a module nor turned into machine code of its own.

    Numba finalises every library it compiles: it links in the modules of the kernels it calls, runs LLVM's module
    passes (O3, with inlining) over the whole and emits machine code. Up a chain of kernels the deal loop was so
    optimised and emitted once for each kernel on the way up to ``run_games``, the only one a run executes (a
    kernel without wrappers has no entry point: nothing ever called the rest). Here a link-only library only
    links: each function has had Numba's function passes, and the entry kernel's library, an ordinary one, runs
    the module passes once over the whole program and emits it. A search run's cold compile fell from about 130 s
    to 52 s (DESIGN.md, "The cold compile"). Its cache entry is its module as bitcode (what a caller compiled
    later links in; Numba's keeps it next to the object code), and loading it emits nothing either.

    Applied only where Numba's library and loader have that shape (else Numba is left alone: the same results, a
    slower compile); ``SCOPASIM_NUMBA_LINK_CODEGEN=1`` leaves it alone too (the loader still reads link-only
    entries, which any caller can link). Returns the class, or None."""
    from numba.core import codegen
    from numba.core.compiler_lock import require_global_compiler_lock

    library, jit_codegen = codegen.JITCodeLibrary, codegen.JITCPUCodegen
    installed = getattr(jit_codegen.set_env, "scopasim_link_only", None)
    if installed is not None:
        return installed if wanted("SCOPASIM_NUMBA_LINK_CODEGEN") else None
    shape = (
        library.finalize.__code__.co_names[-6:]
        == ("_final_module", "link_in", "_get_module_for_linking", "_optimize_final_module", "verify",
            "_finalize_final_module")
        and library._unserialize.__func__.__code__.co_varnames[:3] == ("cls", "codegen", "state")
        and jit_codegen.set_env.__code__.co_names[:2] == ("_engine", "get_global_value_address")
        and callable(getattr(library, "_verify_declare_only_symbols", None))
    )  # fmt: skip
    if not shape:
        return None

    class LinkOnlyLibrary(library):
        def __init__(self, codegen_, name):
            super().__init__(codegen_, name)
            self.enable_object_caching()  # as NativeLowering does for its libraries: cachable, no object code yet

        def finalize(self):
            """Numba's ``finalize`` without the module passes and the machine code."""
            require_global_compiler_lock()
            self._raise_if_finalized()
            for linked in dict.fromkeys(self._linking_libraries):  # each once, in order, as Numba's
                self._reload_init.update(linked._reload_init)
                self._final_module.link_in(linked._get_module_for_linking(), preserve=True)
            self._final_module.verify()
            self._finalize_dynamic_globals()
            self._verify_declare_only_symbols()
            self._finalized = True

        def get_pointer_to_function(self, name):
            self._ensure_finalized()
            return 0  # no machine code: what Numba's library answers for a kernel without wrappers

        def serialize_using_object_code(self):
            return (self.name, LINK_ONLY, self._get_module_for_linking().as_bitcode())

    numba_unserialize, numba_set_env = library._unserialize.__func__, jit_codegen.set_env

    def unserialize(cls, codegen_, state):
        name, kind, data = state
        if kind != LINK_ONLY:
            return numba_unserialize(cls, codegen_, state)
        loaded = LinkOnlyLibrary(codegen_, name)
        loaded._final_module = loaded._shared_module = codegen.ll.parse_bitcode(data)
        loaded._finalize_dynamic_globals()
        loaded._finalized = True
        return loaded

    def set_env(self, env_name, env):
        """Numba's, for an environment some machine code holds: a link-only library's has none (its kernel,
        without wrappers, never reads it; the entry kernel holding its code sets its own)."""
        if self._engine.get_global_value_address(env_name):
            numba_set_env(self, env_name, env)

    set_env.scopasim_link_only = LinkOnlyLibrary
    library._unserialize = classmethod(unserialize)
    jit_codegen.set_env = set_env
    return LinkOnlyLibrary if wanted("SCOPASIM_NUMBA_LINK_CODEGEN") else None


LINK_ONLY_LIBRARY = _link_only_library_class()


@register_pass(mutates_CFG=False, analysis_only=True)
class _LinkOnlyLowering(LoweringPass):
    """Gives a kernel compiled without wrappers (only kernels call it) a link-only code library
    (:data:`LINK_ONLY_LIBRARY`) before Numba's lowering would create an ordinary one."""

    _name = "scopasim_link_only_lowering"

    def __init__(self):  # abstract in Numba's pass classes
        LoweringPass.__init__(self)

    def run_pass(self, state):
        if state.library is None and state.flags.no_cpython_wrapper and state.flags.no_cfunc_wrapper:
            state.library = LINK_ONLY_LIBRARY(state.targetctx.codegen(), state.func_id.func_qualname)
        return False


class _Compiler(CompilerBase):
    """Numba's nopython pipeline, plus ``frozen.FoldFrozenRules`` before the dead branch pruning that follows the
    closures' and then the inlined helpers' inlining: a kernel compiled for a frozen rule set (``freeze``) never
    types, nor compiles, what its rules switch off. Other compiles are Numba's own (the pass finds no frozen
    argument)."""

    def define_pipelines(self):
        from numba.core.typed_passes import IRLegalization
        from numba.core.untyped_passes import InlineClosureLikes, InlineInlinables

        from simcore.kernels.frozen import FoldFrozenRules

        pipeline = DefaultPassBuilder.define_nopython_pipeline(self.state)
        pipeline.add_pass_after(FoldFrozenRules, InlineClosureLikes)
        pipeline.add_pass_after(FoldFrozenRules, InlineInlinables)
        if LINK_ONLY_LIBRARY is not None:
            pipeline.add_pass_after(_LinkOnlyLowering, IRLegalization)
        pipeline.finalize()
        return [pipeline]


# error_model="numpy": integer division by zero does not raise (kernels never divide by zero; the Python error
# model would add a check to every division in the hot loop).
_njit = partial(njit, cache=CACHE, nogil=True, error_model="numpy", pipeline_class=_Compiler)


class _KernelDispatcher(CPUDispatcher):
    """The dispatcher of a kernel compiled for calls from other kernels only (:func:`kernel`'s ``entry=False``).

    Numba gives every compiled function a CPython wrapper and a C-callback wrapper by default. A kernel whose
    arguments include the rule tuple (67 fields, three arrays) gets a wrapper that unboxes each of them, and LLVM
    optimises that wrapper again in every library that links the kernel in; a call from another kernel never goes
    through it. Without the wrappers the four seed games' cold compile fell from 46 to 33 s (LLVM's passes had
    taken 30.5 s of the 46; ``benchmarks/README.md``, session 23). Such a function has no entry point
    Python could call, so a call from Python (tests, the interactive play) goes to a twin compiled with the
    wrappers (``_entry_twin``), on first use."""

    def __call__(self, *args, **kwargs):
        twin = self.__dict__.get("_scopasim_entry")
        if twin is None:
            twin = self.__dict__["_scopasim_entry"] = _entry_twin(self)
        return twin(*args, **kwargs)


def _entry_twin(dispatcher: CPUDispatcher) -> CPUDispatcher:
    """A copy of a kernel compiled with Numba's wrappers, for calls from Python. Its own qualified name keeps its
    cache files apart: Numba's cache index does not tell a function compiled with wrappers from one without."""
    func = dispatcher.py_func
    twin = pytypes.FunctionType(func.__code__, func.__globals__, func.__name__, func.__defaults__, func.__closure__)
    twin.__qualname__ = f"{func.__qualname__}__entry"
    twin.__module__, twin.__doc__, twin.__kwdefaults__ = func.__module__, func.__doc__, func.__kwdefaults__
    options = dispatcher.targetoptions
    return kernel(twin, nrt=options.get("_nrt", True), entry=True)


def kernel(func=None, *, inline: str = "never", nrt: bool = True, forceinline: bool = False, entry: bool = False):
    """``njit`` with the project's options, compiled once per argument type (see the module docstring).

    ``nrt=False`` (Numba's private ``_nrt`` flag) compiles the function without reference counting: for kernels
    that allocate nothing, return no array and only receive arrays whose owner outlives the call (the deal loop,
    the scoring, the policies' helpers); each array argument then costs no NRT call on entry and exit. A kernel
    that allocates counts (and passes its arrays down); ``tests/test_nrt_balance.py`` checks the balance.
    ``forceinline=True``: see :data:`llvm_inline_kernel`. ``entry=True`` for the kernels Python calls in a run
    (``run_games``, ``make_scratch``, ``dealt``'s two): they keep Numba's wrappers; every other kernel is compiled
    without them (``_KernelDispatcher``), and a call from Python compiles a twin that has them."""
    if func is None:
        return partial(kernel, inline=inline, nrt=nrt, forceinline=forceinline, entry=entry)
    if entry:
        dispatcher = _njit(func, inline=inline, _nrt=nrt, forceinline=forceinline)
    else:
        dispatcher = _njit(
            func, inline=inline, _nrt=nrt, forceinline=forceinline, no_cpython_wrapper=True, no_cfunc_wrapper=True
        )
        dispatcher.__class__ = _KernelDispatcher
    typed_call = dispatcher.get_call_template

    def get_call_template(args, kws):
        return typed_call(tuple(types.unliteral(a) for a in args), {k: types.unliteral(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


inline_kernel = kernel(inline="always")
"""A :data:`kernel` whose IR Numba inlines into its callers (hot-loop helpers only; see the module docstring)."""


llvm_inline_kernel = kernel(forceinline=True, nrt=False)
"""A :data:`kernel` compiled once on its own, without reference counting, and marked for LLVM to inline into its
callers' machine code: for per-deal helpers too big to copy into every caller's IR (the scorers) and for tiny
ones LLVM left out of line (the random draws). Not for the quick decision: out of line in Numba's IR it cost 3-4% of
random self-play (DESIGN.md, "The cold compile")."""
