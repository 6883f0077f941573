"""Statistics of finished runs, read from their Parquet folders.

Kept apart from ``simcore`` so that analysing results never loads Numba or the kernels: importing this package
costs pandas, pyarrow and scipy only, and works on a machine that only has the result files.
"""

from analysis.load import Run, load_run, seat_sides
from analysis.stats import opening_advantage, points_per_deal, run_summary, seat_win_rates, win_rate

__all__ = [
    "Run",
    "load_run",
    "opening_advantage",
    "points_per_deal",
    "run_summary",
    "seat_sides",
    "seat_win_rates",
    "win_rate",
]
