"""Command-line interface of scopasim (Typer): parse, validate, call simcore/analysis, report."""

import os

from simcore.collector import collect_rarely

collect_rarely()  # before the commands' imports: the command owns its process (``simcore.collector``)
# OpenBLAS (numpy's copy and scipy's) starts a pool of threads when it loads, which spin on the cores the kernels
# play on: importing numpy, scipy.special, pandas and pyarrow took 0.56 CPU-s with them, 0.33 without, and
# ``scopasim simulate -n 1000000`` 0.3 CPU-s more (benchmarks/README.md, session 19). No command needs a threaded
# BLAS; a value the user set stays. Set before anything imports numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
