"""The ``scopasim`` command: one Typer app, one module per command.

Errors reach the user as one line on stderr and a non-zero exit code, never a traceback: usage errors (exit 2),
scopasim errors such as an unknown rule or an existing output (exit 1), an operating-system error that no command
caught (exit 1), interruption (exit 130).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Annotated, Any, NoReturn, get_args, get_origin

import typer
from rich.markup import escape
from typer.core import TyperArgument, TyperGroup, TyperOption

try:  # Typer vendors click from 0.24 on; before that it depends on it
    from typer._click import Context
    from typer._click.exceptions import ClickException, NoArgsIsHelpError
except ImportError:  # pragma: no cover
    from click import Context
    from click.exceptions import ClickException, NoArgsIsHelpError

from cli.commands import analyze, balance, policies, replay, report, rules, simulate, tournament, trace, variants
from simcore import __version__
from simcore.errors import ScopasimError

KERNEL_THREADS = ("scopasim-kernel", "scopasim-helper")  # name prefixes of ``simcore.engine``'s launcher and helpers
MAX_ERROR = 300  # characters of an error line: whatever a message echoes, it stays readable


def one_line(message: str) -> str:
    """``error: ...`` on one line and at most ``MAX_ERROR`` characters: the last guard against a message that
    quotes a long or multi-line value."""
    text = " ".join(str(message).split()) or "unknown error"
    if len(text) > MAX_ERROR:
        text = text[: MAX_ERROR - 30] + f"… ({len(text):,} characters)"
    return f"error: {text}"


def os_error_line(exc: OSError) -> str:
    """An operating-system error as a user reads it: ``<strerror>: <filename>``."""
    where = f": {exc.filename}" if exc.filename is not None else ""
    return one_line(f"{exc.strerror or exc}{where}")


class OneLineErrors(TyperGroup):
    """Typer group whose errors are one line (``error: ...``) instead of a panel or a traceback, and whose help
    shows defaults, flags and metavars as a user expects (see :func:`tidy_help`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        tidy_help(self)
        for command in self.commands.values():
            tidy_help(command)

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
        except NoArgsIsHelpError as exc:  # a bare ``scopasim``: the help, and no error
            message = exc.format_message()
            if message.strip():
                typer.echo(message)
            rv = 0
        except ClickException as exc:
            typer.echo(one_line(exc.format_message()), err=True)
            sys.exit(exc.exit_code)
        except ScopasimError as exc:
            typer.echo(one_line(str(exc)), err=True)
            sys.exit(1)
        except (typer.Abort, KeyboardInterrupt):
            typer.echo("interrupted", err=True)
            sys.exit(130)
        except BrokenPipeError:  # the reader of a pipe went away (``| head``): nothing left to say to it
            # Python flushes stdout again at exit: point it at /dev/null so that it cannot fail there too (a test
            # runner's buffer has no file descriptor: nothing to do then)
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(1)
        except OSError as exc:  # a file system error no command turned into its own message
            typer.echo(os_error_line(exc), err=True)
            sys.exit(1)
        code = rv if isinstance(rv, int) else 0
        if standalone_mode:
            sys.exit(code)
        return code


def tidy_help(command: Any) -> None:
    """Make ``--help`` say what it should, for every command of the app at once.

    Typer's rich help reads help texts as rich markup, which swallows every written ``[default: ...]``: texts are
    escaped. It shows a flag with a ``<bool>`` type and a list option as ``<list[str]>``: flags get no metavar,
    other options one of INTEGER, FLOAT, TEXT, PATH or their choices, unless they set their own; arguments show
    their metavar (``VARIANT``, ``RUN...``), as click's usage line does.
    """
    command.help = escape(command.help) if command.help else command.help
    help_option = command.get_help_option(Context(command))
    for param in [*command.params, *([help_option] if help_option is not None else [])]:
        if getattr(param, "help", None):
            param.help = escape(param.help)
        if isinstance(param, TyperArgument):
            param.__class__ = HelpArgument
            if param.metavar is None:
                name = param.name.upper()
                param.metavar = name.removesuffix("S") + "..." if param.nargs != 1 else name
        elif isinstance(param, TyperOption) or getattr(param, "is_flag", False):
            if param.is_flag:
                param.metavar = ""
            elif param.metavar is None:
                param.metavar = _metavar(param)


def _metavar(option: TyperOption) -> str:
    descriptor = option.type_descriptor
    if descriptor.is_choice:
        return "|".join(str(getattr(c, "value", c)) for c in descriptor.choices)
    annotation = descriptor.annotation
    if get_origin(annotation) is list:
        annotation = get_args(annotation)[0]
    if descriptor.is_path or annotation is Path:
        return "PATH"
    return {int: "INTEGER", float: "FLOAT", str: "TEXT"}.get(annotation, "VALUE")


class HelpArgument(TyperArgument):
    """An argument shown by its metavar alone, in the usage line as in the table (no ``<list[Path]>`` type)."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None

    def _rich_display_name(self) -> str:
        return self.display_name_raw

    def _usage_display_name(self) -> str:
        return self.display_name_raw if self.required else f"[{self.display_name_raw}]"


def _version(value: bool) -> None:
    if value:
        typer.echo(f"scopasim {__version__}")
        raise typer.Exit()


app = typer.Typer(
    cls=OneLineErrors,
    name="scopasim",
    help="Monte Carlo simulation of the Scopa family of fishing card games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """Monte Carlo simulation of the Scopa family of fishing card games."""


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
    try:
        app()
    except SystemExit as exc:
        code = exc.code
    else:
        code = 0
    exit_now(code)


def exit_now(code: object) -> NoReturn:
    """End the process as ``sys.exit(code)`` would, without the interpreter's teardown.

    Once Numba has loaded the kernels, tearing the interpreter down takes about 0.3 s (freeing its compiled code
    and every module, measured on the 2-core machine): a third of ``scopasim simulate --games 1000``. Everything
    that must happen does happen first: the exit handlers (``atexit``: Dask's, temporary folders'), then the
    flush of both streams. Output files are closed and synced by then. A thread that is not a daemon makes this
    fall back to the normal exit, which waits for it; but for the engine's kernel launcher and helper threads,
    which are idle once a command returns (``simcore.engine.play`` returns, even when interrupted, only after
    every thread of the kernel has).
    """
    if isinstance(code, bool) or not isinstance(code, int | None):
        typer.echo(code, err=True)  # what ``sys.exit("message")`` does
        code = 1
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and t.is_alive()]
    if any(not t.daemon and not t.name.startswith(KERNEL_THREADS) for t in others):
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code or 0)
