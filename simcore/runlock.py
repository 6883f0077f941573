"""One writer per run folder: a lock file, created atomically, that names its holder.

``RunWriter`` takes the lock (``writer.lock`` in the run folder) before it creates, resumes or overwrites a run,
and releases it when the run ends however it ends (finish, error, Ctrl-C or SIGTERM). The file is created with
``O_CREAT | O_EXCL``, so of two processes exactly one gets it; it holds the holder's pid, host, start time and
command line, so a refusal can say who writes the run. A lock is stale when its holder is gone: same host, and
the pid is not alive (or is alive but was started after the lock, a reused pid). A stale lock is taken over; a
lock from another host cannot be judged and is refused with a hint. On a Dask cluster the client holds the lock
and the workers write the part files.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import socket
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from simcore.errors import OutputError
from simcore.layout import LOCK, short_path

_READ_TRIES = 20  # a lock file is written just after it is created: give its creator up to ~1 s to fill it
# Locks this process holds, so that a lock naming our own pid is told apart from a dead process whose pid we reuse.
_HELD: set[Path] = set()


def _process_start(pid: int) -> str | None:
    """The start time of process ``pid`` (Linux: field 22 of /proc/<pid>/stat), or None where unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[-1].split()[19]


def _record() -> dict[str, Any]:
    return {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "since": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": shlex.join(sys.argv)[:1000],
        "process_start": _process_start(os.getpid()),
        "token": uuid.uuid4().hex,
    }


def _read(path: Path) -> dict[str, Any] | None:
    """The holder recorded in a lock file; None if there is no lock file. Refuses one that stays unreadable."""
    for _ in range(_READ_TRIES):
        try:
            holder = json.loads(path.read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            holder = None
        if isinstance(holder, dict) and isinstance(holder.get("pid"), int) and isinstance(holder.get("host"), str):
            return holder
        time.sleep(0.05)
    raise OutputError(
        f"lock file {short_path(path)} is unreadable; if no scopasim process is writing this run, delete the lock file"
    )


def _alive(path: Path, holder: dict[str, Any]) -> bool:
    """Whether the holder may still be writing (a lock from another host is assumed alive: it cannot be judged)."""
    if holder["host"] != socket.gethostname():
        return True
    pid = holder["pid"]
    if pid == os.getpid():
        return path in _HELD
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, another user's
    except (OverflowError, OSError):
        return False  # not a pid at all
    started = holder.get("process_start")
    now = _process_start(pid)
    return started is None or now is None or started == now


def describe(holder: dict[str, Any]) -> str:
    return f"pid {holder['pid']} on {str(holder['host'])[:80]} since {str(holder.get('since', '?'))[:40]}"


def _refusal(folder: Path, holder: dict[str, Any]) -> OutputError:
    hint = "" if holder["host"] == socket.gethostname() else f" (if it is gone, delete {LOCK})"
    where = short_path(folder)
    return OutputError(f"run {where} is being written by another scopasim process: {describe(holder)}{hint}")


def check_free(folder: Path) -> None:
    """Refuse, naming the holder, if a live process holds the lock of ``folder``; a stale lock is let be."""
    path = folder.resolve() / LOCK
    holder = _read(path)
    if holder is not None and _alive(path, holder):
        raise _refusal(folder, holder)


class RunLock:
    """The lock of one run folder, held by this process until :meth:`release` (idempotent)."""

    def __init__(self, path: Path, token: str):
        self.path = path
        self.token = token

    @classmethod
    def acquire(cls, folder: Path) -> RunLock:
        """Take the lock of ``folder``, taking over a stale one; refuse (naming the holder) a live one."""
        path = folder.resolve() / LOCK
        for _ in range(5):
            record = _record()
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                holder = _read(path)
                if holder is not None and _alive(path, holder):
                    raise _refusal(folder, holder) from None
                if holder is not None:
                    _break(folder, path, holder)
                continue
            try:
                with os.fdopen(fd, "w") as handle:
                    handle.write(json.dumps(record))
                    handle.flush()
                    os.fsync(handle.fileno())
            except BaseException:
                path.unlink(missing_ok=True)
                raise
            _HELD.add(path)
            return cls(path, record["token"])
        raise OutputError(f"cannot take the lock of {short_path(folder)}: other processes keep taking it")

    def release(self) -> None:
        """Remove the lock file if it is still ours."""
        if self.path not in _HELD:
            return
        _HELD.discard(self.path)
        try:
            if json.loads(self.path.read_text()).get("token") == self.token:
                self.path.unlink()
        except (OSError, ValueError, AttributeError):
            pass

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _break(folder: Path, path: Path, stale: dict[str, Any]) -> None:
    """Remove a stale lock. It is first renamed to a name of our own, so that of two processes taking it over only
    one removes it, and a fresh lock that replaced it in between is put back rather than removed."""
    moved = path.with_name(f".{LOCK}.{os.getpid()}.stale")
    try:
        os.rename(path, moved)
    except FileNotFoundError:
        return  # another process broke it first
    try:
        taken = json.loads(moved.read_text())
    except (OSError, ValueError):
        taken = {}
    if taken.get("token") != stale.get("token") or taken.get("pid") != stale.get("pid"):
        with contextlib.suppress(FileExistsError):  # a live lock: put it back, unless another took its place
            os.link(moved, path)
        moved.unlink(missing_ok=True)
        raise _refusal(folder, taken if isinstance(taken.get("pid"), int) else stale)
    moved.unlink(missing_ok=True)
