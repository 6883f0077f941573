"""Statistics of finished runs, read from their Parquet folders.

Kept apart from ``simcore`` so that analysing results never loads Numba or the kernels: importing this package
costs nothing until a name is used, and pyarrow (plus pandas where a DataFrame is made) after that: scipy,
statsmodels and matplotlib are imported by the functions that use them, and the summary of ``scopasim simulate``
needs neither pandas nor scipy.stats,
and works on a machine that only has the result files.

- ``load``: :func:`load_run`, :func:`load_runs` and the :class:`Run` they return (tables read on first use).
- ``deals``, ``games``, ``hist``: what the tables need from a run, gathered one part file at a time (sums and
  counts of integer values), so that memory stays bounded by one part however large the run.
- ``stats``: win rates and the opening advantage (over games, by seat, side and policy pairing, per deal).
- ``balance``: points per category, how games unfold, comparisons of two runs, convergence.
- ``tables``: the tables of ``scopasim analyze``, for people (rich, Markdown) and machines (CSV, JSON).
- ``plots`` and ``report``: matplotlib figures and the self-contained HTML page of ``scopasim report``.
- ``precision``: the stopping rule of ``simulate --precision``.
"""

# Names are imported on first use (PEP 562), so that ``from analysis.load import load_run`` or the summary of
# ``scopasim simulate`` do not import pandas with every module of the package.
_HOME = {
    **dict.fromkeys(
        ["category_distribution", "category_table", "compare_runs", "convergence", "game_shape"], "analysis.balance"
    ),
    **dict.fromkeys(["Run", "load_run", "load_runs", "seat_sides"], "analysis.load"),
    **dict.fromkeys(
        [
            "deal_advantage",
            "mean_interval",
            "opening_advantage",
            "pairing_advantage",
            "points_per_deal",
            "run_summary",
            "seat_advantage",
            "seat_win_rates",
            "win_rate",
        ],
        "analysis.stats",
    ),
}


def __getattr__(name: str):
    if name not in _HOME:
        raise AttributeError(f"module 'analysis' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_HOME[name]), name)
    globals()[name] = value
    return value


__all__ = [
    "Run",
    "category_distribution",
    "category_table",
    "compare_runs",
    "convergence",
    "deal_advantage",
    "game_shape",
    "load_run",
    "load_runs",
    "mean_interval",
    "opening_advantage",
    "pairing_advantage",
    "points_per_deal",
    "run_summary",
    "seat_advantage",
    "seat_sides",
    "seat_win_rates",
    "win_rate",
]
