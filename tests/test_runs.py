"""Run folders: determinism across threads and chunkings, resume after an interruption, metadata, no overwrite."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow.parquet as pq
import pytest

from simcore import api
from simcore.config import RunConfig
from simcore.errors import ConfigError, OutputError
from simcore.results import METADATA_KEY, SCHEMA_VERSION


def read(path):
    games = pd.read_parquet(path / "games").sort_values("game", ignore_index=True)
    deals = pd.read_parquet(path / "deals").sort_values(["game", "deal", "side"], ignore_index=True)
    return games, deals


def config(**kw) -> RunConfig:
    args = {"policies": ["greedy", "random"], "games": 3000, "seed": 7, "chunk_size": 1000} | kw
    return RunConfig.create("scopa", **args)


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    path = tmp_path_factory.mktemp("runs") / "baseline"
    api.simulate(config(), path, threads=1)
    return read(path)


def test_same_rows_on_two_threads_and_other_chunkings(tmp_path, baseline):
    api.simulate(config(chunk_size=333), tmp_path / "a", threads=2)
    api.simulate(config(chunk_size=3000), tmp_path / "b", threads=2)
    for path in (tmp_path / "a", tmp_path / "b"):
        games, deals = read(path)
        pd.testing.assert_frame_equal(games, baseline[0])
        pd.testing.assert_frame_equal(deals, baseline[1])


def test_other_seed_other_games(tmp_path, baseline):
    api.simulate(config(seed=8, games=1000), tmp_path / "c", threads=2)
    games, _ = read(tmp_path / "c")
    assert not games[["winner", "total_0", "total_1"]].equals(baseline[0].head(1000)[["winner", "total_0", "total_1"]])


class InterruptedRunError(Exception):
    pass


def test_interrupted_run_resumes_to_the_same_rows(tmp_path, baseline):
    path = tmp_path / "run"
    calls = []

    def stop_after_first_chunk(n):
        calls.append(n)
        if sum(calls) > 1000:  # progress is live: past 1,000 games, chunk 0 is written and chunk 1 is playing
            raise InterruptedRunError

    with pytest.raises(InterruptedRunError):
        api.simulate(config(), path, progress=stop_after_first_chunk)
    manifest = json.loads((path / "manifest.json").read_text())
    assert manifest["complete"] is False and manifest["chunks_done"] == [0]
    assert sorted(p.name for p in (path / "games").iterdir()) == ["part-00000.parquet"]
    with pytest.raises(OutputError, match="--resume"):
        api.simulate(config(), path)
    with pytest.raises(OutputError, match="different settings"):
        api.simulate(config(seed=8), path, resume=True)
    result = api.simulate(config(), path, resume=True)
    assert result.resumed and result.games_played == 2000
    games, deals = read(path)
    pd.testing.assert_frame_equal(games, baseline[0])
    pd.testing.assert_frame_equal(deals, baseline[1])
    assert json.loads((path / "manifest.json").read_text())["complete"] is True
    with pytest.raises(OutputError, match="already complete"):
        api.simulate(config(), path, resume=True)


def test_resume_recomputes_a_damaged_part(tmp_path, baseline):
    path = tmp_path / "run"
    api.simulate(config(), path)
    manifest = json.loads((path / "manifest.json").read_text())
    manifest["complete"] = False
    (path / "manifest.json").write_text(json.dumps(manifest))
    (path / "deals" / "part-00001.parquet").write_bytes(b"not parquet")
    writer = api.open_run(config(), path, resume=True)
    assert writer.damaged == [path / "deals" / "part-00001.parquet"]
    assert api.run_chunks(writer).games_played == 1000
    pd.testing.assert_frame_equal(read(path)[1], baseline[1])


def test_metadata_dtypes_and_layout(tmp_path):
    path = tmp_path / "run"
    api.simulate(config(games=500, chunk_size=200), path)
    assert sorted(p.name for p in (path / "games").iterdir()) == [f"part-0000{i}.parquet" for i in range(3)]
    meta = json.loads(pq.read_schema(path / "deals" / "part-00000.parquet").metadata[METADATA_KEY])
    assert meta["schema_version"] == SCHEMA_VERSION and meta["table"] == "deals"
    assert meta["variant"] == "scopa" and meta["seed"] == 7 and meta["policies"] == ["greedy", "random"]
    assert meta["rules"]["target"] == 11 and meta["versions"]["numba"]
    games = pd.read_parquet(path / "games")
    assert len(games) == 500 and sorted(games.game) == list(range(500))
    assert str(games.winner.dtype) == "int8" and str(games.total_0.dtype) == "int16"
    assert isinstance(games.policy_0.dtype, pd.CategoricalDtype)
    deals = pd.read_parquet(path / "deals")
    assert {"cards", "coins", "settebello", "primiera", "scopa", "napola", "points", "led", "dealt"} <= set(deals)
    assert (deals.groupby(["game", "deal"]).cards_taken.sum() == 40).all()
    assert (deals.groupby("game").deal.max() + 1 == games.set_index("game").deals).all()


def test_existing_output_is_never_overwritten_unless_asked(tmp_path):
    path = tmp_path / "run"
    api.simulate(config(games=100), path)
    before = (path / "games" / "part-00000.parquet").read_bytes()
    with pytest.raises(OutputError, match="already exists"):
        api.simulate(config(games=100, seed=1), path)
    assert (path / "games" / "part-00000.parquet").read_bytes() == before
    api.simulate(config(games=100, seed=1), path, overwrite=True)
    assert (path / "games" / "part-00000.parquet").read_bytes() != before
    other = tmp_path / "not-a-run"
    other.mkdir()
    (other / "precious.txt").write_text("keep me")
    with pytest.raises(OutputError, match="not a scopasim run"):
        api.simulate(config(games=100), other, overwrite=True)
    assert (other / "precious.txt").read_text() == "keep me"


def test_bad_settings_are_config_errors():
    with pytest.raises(ConfigError, match="games"):
        config(games=0)
    with pytest.raises(ConfigError, match="players"):
        config(policies=["greedy"] * 3)
    with pytest.raises(ConfigError, match="seed"):
        config(seed=-1)
    with pytest.raises(ConfigError, match="threads"):
        api.set_threads(0)
    with pytest.raises(ConfigError, match="at most"):
        api.set_threads(10_000)
