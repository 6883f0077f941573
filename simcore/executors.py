"""Running a run's chunks on a Dask cluster: ``--cluster local:N`` (N worker processes here) or ``tcp://host:port``.

A chunk is one task, a pure function of (run config, chunk index): the worker plays it and writes its two part
files under their deterministic names, atomically (``RunWriter.write_parts``). Only this process writes the
manifest, recording each chunk as its task completes. So a retried task (a worker died) rewrites the same files
with the same bytes, no game is lost or written twice, and the result equals a single-process run row for row.
For a real cluster the output folder must be on a filesystem every worker shares. Dask is an optional extra:
``pip install 'scopasim[distributed]'``.

Ctrl-C (or SIGTERM) ends a cluster run promptly: the remaining futures are cancelled, and every worker is told to
stop this call's tasks (``stop_tasks``, run on the workers' event loops, which stay responsive while a task's
kernel runs without the GIL). A task's kernel then stops within a game, the task raises without writing, and
the cluster closes without waiting for chunks to finish. Tasks are tagged with a token of this call, so on a
shared cluster only this run's tasks are stopped.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import threading
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from simcore.errors import ConfigError

INSTALL_HINT = "--cluster needs Dask: pip install 'scopasim[distributed]'"
TASK_RETRIES = 3

_stops: dict[str, threading.Event] = {}  # in a worker: the stop event of each run_on_cluster call (by token)
_stops_lock = threading.Lock()


def stop_event(token: str) -> threading.Event:
    """The stop event of the tasks tagged ``token`` in this process (created unset)."""
    with _stops_lock:
        return _stops.setdefault(token, threading.Event())


def stop_tasks(token: str) -> None:
    """Stop this process's tasks tagged ``token``, running or still to start (run on the workers)."""
    stop_event(token).set()


def parse_cluster(spec: str) -> tuple[str, Any]:
    """``local:N`` -> ("local", N); ``tcp://host:port`` -> ("address", spec); anything else is a ConfigError."""
    match = re.fullmatch(r"local:(\d+)", spec.strip())
    if match:
        workers = int(match.group(1))
        if workers < 1:
            raise ConfigError(f"--cluster {spec}: a local cluster needs at least 1 worker")
        return "local", workers
    if re.fullmatch(r"tcp://[^\s:/]+:\d+", spec.strip()):
        return "address", spec.strip()
    raise ConfigError(f"--cluster {spec!r}: expected local:N (N worker processes) or tcp://HOST:PORT")


def play_and_write_chunk(config_dict: dict, index: int, out: str, token: str = "") -> int:
    """The task of one chunk: play its games on one thread and write its part files; returns the index.

    Once ``stop_tasks(token)`` has run in this worker, the task raises ``simcore.engine.StoppedError`` instead
    (within a game if it is playing) and writes nothing."""
    from simcore import api
    from simcore.config import RunConfig
    from simcore.results import RunWriter, deals_table, games_table

    config = RunConfig.from_dict(config_dict)
    api.set_threads(1)  # one task per worker process: the cluster, not Numba, spreads the work
    rng = config.chunk_range(index)
    games = np.arange(rng.start, rng.stop, dtype=np.int64)
    result = api.play_chunk(config, games, stop=stop_event(token))
    RunWriter.write_parts(
        Path(out), config, index, games_table(config, games, result), deals_table(config, games, result)
    )
    return index


def connect(spec: str):
    """A Dask client for ``spec``, and the local cluster it started (or None)."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ConfigError(INSTALL_HINT) from None
    kind, value = parse_cluster(spec)
    if kind == "local":
        # The workers share this terminal. Their warnings at shutdown (a heartbeat to a scheduler that is closing,
        # with its traceback) are noise after Ctrl-C; errors still show. The workers are spawned processes, so they
        # read the level from the environment when they import distributed.
        os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "error")
        logging.getLogger("distributed").setLevel(logging.ERROR)
        cluster = LocalCluster(n_workers=value, threads_per_worker=1, processes=True, dashboard_address=":0")
        return Client(cluster), cluster
    host, port = value.removeprefix("tcp://").rsplit(":", 1)
    try:
        socket.create_connection((host, int(port)), timeout=5).close()  # fail fast, with a clear message
        return Client(value, timeout=10), None
    except OSError as exc:
        raise ConfigError(f"--cluster {value}: cannot reach the scheduler ({exc})") from None


def run_on_cluster(writer, todo: list[int], spec: str, progress=None) -> None:
    """Run the chunks ``todo`` of ``writer``'s run as Dask tasks, recording each in the manifest as it completes."""
    client, cluster = connect(spec)
    from dask.distributed import as_completed

    config = writer.config
    token = uuid.uuid4().hex
    futures = []
    try:
        futures = [
            client.submit(
                play_and_write_chunk,
                config.to_dict(),
                index,
                str(writer.path.resolve()),
                token,
                key=f"scopasim-{writer.path.resolve()}-{index}",
                retries=TASK_RETRIES,
            )
            for index in todo
        ]
        for future in as_completed(futures):
            index = future.result()
            writer.record_chunk(index)
            if progress:
                progress(len(config.chunk_range(index)))
    except BaseException:
        # Ctrl-C: stop the remaining chunks and the running ones; the manifest lists the chunks recorded
        stop_cluster_tasks(client, futures, token)
        raise
    finally:
        client.close()
        if cluster is not None:
            # with the tasks stopped this takes about 0.5 s; with a task still playing, about 4 s (measured), after
            # which the nanny kills its worker
            cluster.close()


def stop_cluster_tasks(client, futures: list, token: str) -> None:
    """Cancel ``futures`` and stop the workers' running tasks of ``token``, without waiting for any chunk."""
    client.cancel(futures)
    try:
        client.run(stop_tasks, token)
    except Exception:  # a cluster already going away: closing it ends the tasks too
        logging.getLogger(__name__).debug("could not reach the workers to stop their tasks", exc_info=True)
