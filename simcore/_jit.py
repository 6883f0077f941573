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
"""

from __future__ import annotations

import hashlib
import os
from functools import partial
from pathlib import Path

import numba
from numba import njit
from numba.core import types

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

# error_model="numpy": integer division by zero does not raise (kernels never divide by zero; the Python error
# model would add a check to every division in the hot loop).
_njit = partial(njit, cache=CACHE, nogil=True, error_model="numpy")


def kernel(func=None, *, inline: str = "never", nrt: bool = True):
    """``njit`` with the project's options, compiled once per argument type (see the module docstring).

    ``nrt=False`` (Numba's private ``_nrt`` flag) compiles the function without reference counting: for kernels
    that allocate nothing, return no array and only receive arrays whose owner outlives the call (the deal loop,
    the scoring, the policies' helpers); each array argument then costs no NRT call on entry and exit. A kernel
    that allocates counts (and passes its arrays down); ``tests/test_nrt_balance.py`` checks the balance."""
    if func is None:
        return partial(kernel, inline=inline, nrt=nrt)
    dispatcher = _njit(func, inline=inline, _nrt=nrt)
    typed_call = dispatcher.get_call_template

    def get_call_template(args, kws):
        return typed_call(tuple(types.unliteral(a) for a in args), {k: types.unliteral(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


inline_kernel = kernel(inline="always")
"""A :data:`kernel` whose IR Numba inlines into its callers (hot-loop helpers only; see the module docstring)."""
