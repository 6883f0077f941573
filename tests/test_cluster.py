"""Runs on a Dask cluster (``--cluster local:N``): the same rows as in one process, and a killed worker loses no
game. Dask is an optional extra; these tests need it (it is part of the test extra)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from cli.app import app
from simcore import api
from simcore.config import RunConfig
from simcore.errors import ConfigError
from simcore.executors import parse_cluster

pytest.importorskip("dask.distributed")


def rows(path: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    games = pd.read_parquet(path / "games").sort_values("game", ignore_index=True)
    deals = pd.read_parquet(path / "deals").sort_values(["game", "deal", "side"], ignore_index=True)
    return games, deals


def worker_processes() -> list[int]:
    """Child processes of this one that run a Dask worker (spawned by the nannies of a local cluster)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        parent = next((line.split()[1] for line in status.splitlines() if line.startswith("PPid:")), "")
        if parent == str(os.getpid()) and "spawn_main" in cmdline and "resource_tracker" not in cmdline:
            pids.append(int(entry.name))
    return pids


def test_parse_cluster():
    assert parse_cluster("local:2") == ("local", 2)
    assert parse_cluster("tcp://10.0.0.5:8786") == ("address", "tcp://10.0.0.5:8786")
    for bad in ("local:0", "local", "http://x:1", "tcp://host"):
        with pytest.raises(ConfigError):
            parse_cluster(bad)


def test_cluster_run_equals_single_process_and_survives_a_killed_worker(tmp_path):
    config = RunConfig.create("scopa", policies=["greedy", "random"], games=40_000, seed=4, chunk_size=1000)
    api.simulate(config, tmp_path / "one", threads=1)
    killed = []

    def kill_a_worker(n):
        if not killed:
            workers = worker_processes()
            if workers:
                os.kill(workers[0], signal.SIGKILL)
                killed.append(workers[0])

    writer = api.open_run(config, tmp_path / "two")
    api.run_chunks(writer, progress=kill_a_worker, cluster="local:2")
    assert killed, "no worker process was found to kill"
    for mine, theirs in zip(rows(tmp_path / "two"), rows(tmp_path / "one"), strict=True):
        pd.testing.assert_frame_equal(mine, theirs)
    assert sorted(p.name for p in (tmp_path / "two" / "games").iterdir()) == [
        f"part-{i:05d}.parquet" for i in range(40)
    ]


def test_cluster_option_on_the_command_line(tmp_path):
    runner = CliRunner()
    out = tmp_path / "run"
    args = ["simulate", "-n", "3000", "--chunk-size", "1000", "--seed", "2", "-q", "--cluster", "local:1", "-o", out]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert len(pd.read_parquet(out / "games")) == 3000
    bad = runner.invoke(app, ["simulate", "--cluster", "local:zero", "-o", tmp_path / "x"])
    assert bad.exit_code == 1 and bad.output.startswith("error: --cluster") and not (tmp_path / "x").exists()


def test_without_dask_cluster_says_how_to_install(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # as if the extra were not installed
    result = CliRunner().invoke(app, ["simulate", "-n", "100", "-q", "--cluster", "local:1", "-o", tmp_path / "r"])
    assert result.exit_code == 1 and "pip install 'scopasim[distributed]'" in result.output


def test_tournament_on_a_cluster(tmp_path):
    args = ["tournament", "--policies", "random,greedy", "-n", "600", "--seed", "1", "-q", "--cluster", "local:2"]
    result = CliRunner().invoke(app, [*args, "-o", tmp_path / "t"])
    assert result.exit_code == 0, result.output
    assert "Bradley" in result.output


def test_an_existing_scheduler_by_address(tmp_path):
    """``--cluster tcp://HOST:PORT`` connects to a scheduler that is already running (here a local one)."""
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://")
        config = RunConfig.create("skopa", games=3000, seed=6, chunk_size=1000)
        api.simulate(config, tmp_path / "one", threads=1)
        writer = api.open_run(config, tmp_path / "two")
        api.run_chunks(writer, cluster=address)
    for mine, theirs in zip(rows(tmp_path / "two"), rows(tmp_path / "one"), strict=True):
        pd.testing.assert_frame_equal(mine, theirs)
    with pytest.raises(ConfigError, match="cannot reach the scheduler"):
        api.run_chunks(api.open_run(config, tmp_path / "three"), cluster="tcp://127.0.0.1:9")
