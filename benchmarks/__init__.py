"""Benchmarks: reports of measured speed, never part of the tests (``benchmarks/README.md``)."""

import os

# Start-up figures are what a user's install gives, and pip writes bytecode caches when it installs: a shell that
# sets PYTHONDONTWRITEBYTECODE (the development sandbox does) makes every fresh process compile the ~45 modules a
# command imports from source, about 70 ms of ``scopasim simulate --games 1000``. The processes a benchmark starts
# therefore run without it (their first run writes the caches, as the install would have).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
