"""Typed errors. Library code raises them; only the CLI turns them into a message and an exit code."""


class ScopasimError(Exception):
    """Base class of every error scopasim reports to a user."""


class ConfigError(ScopasimError, ValueError):
    """A variant, rule, policy or run setting that is unknown, of the wrong type or out of range."""


class OutputError(ScopasimError):
    """An output location that cannot be written, already holds a result, or holds an unusable one."""
