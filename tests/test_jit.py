"""The project's Numba decorator: a kernel called from a kernel is compiled once per argument type."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

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
