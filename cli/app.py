"""The ``scopasim`` command: one Typer app, one module per command.

Errors reach the user as one line on stderr and a non-zero exit code, never a traceback: usage errors (exit 2),
scopasim errors such as an unknown rule or an existing output (exit 1), interruption (exit 130).
"""

from __future__ import annotations

import signal
import sys
from typing import Any

import typer
from typer.core import TyperGroup

try:  # Typer vendors click from 0.24 on; before that it depends on it
    from typer._click.exceptions import ClickException
except ImportError:  # pragma: no cover
    from click.exceptions import ClickException

from cli.commands import analyze, balance, policies, replay, report, rules, simulate, tournament, trace, variants
from simcore.errors import ScopasimError


class OneLineErrors(TyperGroup):
    """Typer group whose errors are one line (``error: ...``) instead of a panel or a traceback."""

    def main(
        self,
        args: Any = None,
        prog_name: Any = None,
        complete_var: Any = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        try:
            rv = super().main(args=args, prog_name=prog_name, complete_var=complete_var, standalone_mode=False, **extra)
        except ClickException as exc:
            typer.echo(f"error: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code)
        except ScopasimError as exc:
            typer.echo(f"error: {exc}", err=True)
            sys.exit(1)
        except (typer.Abort, KeyboardInterrupt):
            typer.echo("interrupted", err=True)
            sys.exit(130)
        code = rv if isinstance(rv, int) else 0
        if standalone_mode:
            sys.exit(code)
        return code


app = typer.Typer(
    cls=OneLineErrors,
    name="scopasim",
    help="Monte Carlo simulation of the Scopa family of fishing card games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)
app.command("simulate")(simulate.simulate)
app.command("trace")(trace.trace)
app.command("tournament")(tournament.tournament)
app.command("replay")(replay.replay)
app.command("variants")(variants.variants)
app.command("rules")(rules.rules)
app.command("policies")(policies.policies)
app.command("analyze")(analyze.analyze)
app.command("report")(report.report)
app.command("balance")(balance.balance)


def _terminate(signum: int, frame: Any) -> None:
    """SIGTERM ends a run like Ctrl-C: the chunk being written is finished or dropped, the manifest stays
    incomplete, and ``--resume`` finishes the run."""
    raise KeyboardInterrupt


def main() -> None:
    """Console-script entry point."""
    signal.signal(signal.SIGTERM, _terminate)
    app()
