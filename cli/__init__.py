"""Command-line interface of scopasim (Typer): parse, validate, call simcore/analysis, report."""

from simcore.collector import collect_rarely

collect_rarely()  # before the commands' imports: the command owns its process (``simcore.collector``)
