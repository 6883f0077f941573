"""Typed errors. Library code raises them; only the CLI turns them into a message and an exit code."""

SHOWN_LIMIT = 60  # characters of a user's value that an error message echoes


class ScopasimError(Exception):
    """Base class of every error scopasim reports to a user."""


class ConfigError(ScopasimError, ValueError):
    """A variant, rule, policy or run setting that is unknown, of the wrong type or out of range."""


class OutputError(ScopasimError):
    """An output location that cannot be written, already holds a result, or holds an unusable one."""


def shown(value: object, limit: int = SHOWN_LIMIT, quote: bool | None = None) -> str:
    """A user's value as an error message quotes it: on one line, cut to ``limit`` characters with its length
    said, so that a 100,000-character argument does not come back whole. Strings are ``repr``-quoted (blanks and
    control characters stay visible) unless ``quote`` is False; other values are shown plain."""
    try:
        plain = value if isinstance(value, str) else str(value)
    except ValueError:  # an int too long for str(): Python refuses more than 4,300 digits
        return f"an integer of {value.bit_length():,} bits"  # type: ignore[attr-defined]
    if quote is None:
        quote = isinstance(value, str)
    text = repr(plain) if quote else " ".join(plain.split())
    if len(text) <= limit:
        return text
    return f"{text[: limit - 1]}… ({len(plain):,} characters)"
