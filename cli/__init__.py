"""Command-line interface of scopasim (Typer): parse, validate, call simcore/analysis, report."""
