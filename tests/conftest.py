"""Test-session set-up shared by every test file."""

from __future__ import annotations

import signal

# A shell that starts the suite as a background job without job control (``cmd &`` in a script) hands it SIGINT
# ignored, and the processes it spawns inherit that: Ctrl-C then neither reaches the kernels' stop flag nor a
# ``scopasim simulate`` child (tests/test_interrupt.py). Python's own handler restores what an interactive run has,
# and a child process starts from the default disposition again.
signal.signal(signal.SIGINT, signal.default_int_handler)
