"""The chunk pipeline (``simcore.pipeline``): chunk k is written while chunk k+1 plays, and nothing else changes.

No test here measures time. Overlap is shown by a write that can only finish once the next chunk has started
playing; the bound on memory by the order of events (chunk k+2 never starts before chunk k is recorded); early
stops, write errors and interruptions by what the folder holds afterwards.
"""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simcore import api, pipeline, results
from simcore.config import RunConfig
from simcore.errors import OutputError
from simcore.layout import LOCK
from simcore.results import RunWriter

ROOT = Path(__file__).resolve().parents[1]
CHUNK = 1000
WAIT = 120  # seconds: a bound that only a broken pipeline reaches (it would otherwise wait forever)


def config(**kw) -> RunConfig:
    args = {"policies": ["greedy", "random"], "games": 4 * CHUNK, "seed": 13, "chunk_size": CHUNK} | kw
    return RunConfig.create("scopa", **args)


def rows(path: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    games = pd.read_parquet(path / "games").sort_values("game", ignore_index=True)
    deals = pd.read_parquet(path / "deals").sort_values(["game", "deal", "side"], ignore_index=True)
    return games, deals


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rows of the run played as one chunk (nothing to overlap)."""
    path = tmp_path_factory.mktemp("pipeline") / "whole"
    api.simulate(config(chunk_size=4 * CHUNK), path)
    return rows(path)


def manifest(path: Path) -> dict:
    return json.loads((path / "manifest.json").read_text())


def no_temporaries(path: Path) -> bool:
    return not [p for p in path.rglob(".*") if p.name != LOCK]


def writer_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "scopasim-writer"]


class Events:
    """Records plays and writes in the order they happen, and lets a test hold a chunk's write."""

    def __init__(self, monkeypatch):
        self.log: list[tuple[str, int]] = []
        self.started: dict[int, threading.Event] = {}
        self.finished: dict[int, threading.Event] = {}
        real_play, real_write = api.play_chunk, RunWriter.write_chunk

        def play(config, games, *args, **kwargs):
            chunk = int(games[0]) // CHUNK
            self.log.append(("play", chunk))
            self.started.setdefault(chunk, threading.Event()).set()
            out = real_play(config, games, *args, **kwargs)
            self.log.append(("played", chunk))
            self.finished.setdefault(chunk, threading.Event()).set()
            return out

        def write(writer, index, games, deals):
            self.before_write(index)
            real_write(writer, index, games, deals)
            self.log.append(("recorded", index))

        monkeypatch.setattr(api, "play_chunk", play)
        monkeypatch.setattr(RunWriter, "write_chunk", write)

    def before_write(self, index: int) -> None:
        pass

    def wait_started(self, chunk: int) -> bool:
        return self.started.setdefault(chunk, threading.Event()).wait(WAIT)

    def wait_finished(self, chunk: int) -> bool:
        return self.finished.setdefault(chunk, threading.Event()).wait(WAIT)

    def at(self, event: tuple[str, int]) -> int:
        return self.log.index(event)


def test_chunk_k_is_written_while_chunk_k_plus_1_plays(tmp_path, monkeypatch, whole):
    events = Events(monkeypatch)
    overlapped = []
    # chunk k's write waits for chunk k+1 to start playing: a loop that writes before it plays on would hang here
    events.before_write = lambda k: overlapped.append(k == 3 or events.wait_started(k + 1))
    api.simulate(config(), tmp_path / "run")
    assert overlapped == [True] * 4
    for k in range(2):  # one chunk handed over at most: chunk k+2 starts only once chunk k is recorded
        assert events.at(("recorded", k)) < events.at(("play", k + 2))
    assert [e for e in events.log if e[0] == "recorded"] == [("recorded", k) for k in range(4)]
    assert manifest(tmp_path / "run")["chunks_done"] == [0, 1, 2, 3] and not writer_threads()
    for mine, theirs in zip(rows(tmp_path / "run"), whole, strict=True):
        pd.testing.assert_frame_equal(mine, theirs)


@pytest.mark.parametrize("chunk_size", [1, 333, 1000, 3999])
def test_same_seed_same_rows_whatever_the_chunking(tmp_path, whole, chunk_size):
    games = 60 if chunk_size == 1 else 4 * CHUNK  # 60 one-game chunks: many hand-offs, still quick
    api.simulate(config(chunk_size=chunk_size, games=games), tmp_path / "run")
    for mine, theirs in zip(rows(tmp_path / "run"), whole, strict=True):
        pd.testing.assert_frame_equal(mine, theirs.iloc[: len(mine)] if games < 4 * CHUNK else theirs)
    assert manifest(tmp_path / "run")["games_written"] == games


def stop_after(chunks: int, seen: list[list[int]]):
    def stop(writer):
        seen.append(list(writer.manifest["chunks_done"]))
        return "precision" if len(writer.manifest["chunks_done"]) >= chunks else None

    return stop


@pytest.mark.parametrize("halted", [True, False], ids=["halted-while-playing", "played-then-dropped"])
def test_an_early_stop_keeps_games_0_to_n_exactly(tmp_path, monkeypatch, whole, halted):
    """The stop sees chunks 0..k written, then the chunk playing meanwhile (k+1) is dropped: stopped inside the
    kernels when it is still playing, discarded when it has finished; either way the run holds games 0..n-1."""
    events = Events(monkeypatch)
    real_play = api.play_chunk

    def play(config, games, *args, stop=None, **kwargs):
        if halted and int(games[0]) == 2 * CHUNK:  # chunk 2 starts once the stop has decided: the engine refuses it
            assert stop.wait(WAIT)
        return real_play(config, games, *args, stop=stop, **kwargs)

    if not halted:  # chunk 1 is recorded, and the stop decides, only once chunk 2 has been played whole
        events.before_write = lambda k: k != 1 or events.wait_finished(2)
    monkeypatch.setattr(api, "play_chunk", play)
    seen: list[list[int]] = []
    path = tmp_path / "run"
    with api.open_run(config(), path) as writer:
        result = api.run_chunks(writer, stop=stop_after(2, seen))
    assert seen == [[0], [0, 1]]
    assert result.stopped == "precision" and result.games == result.games_played == 2 * CHUNK
    m = manifest(path)
    assert m["complete"] and m["chunks_done"] == [0, 1] and m["games_written"] == 2 * CHUNK
    assert m["stopped"] == "precision"
    assert sorted(p.name for p in (path / "deals").iterdir()) == ["part-00000.parquet", "part-00001.parquet"]
    assert no_temporaries(path) and not (path / LOCK).exists()
    assert ("recorded", 2) not in events.log and ("play", 3) not in events.log
    if not halted:
        assert ("played", 2) in events.log
    for mine, theirs in zip(rows(path), whole, strict=True):
        pd.testing.assert_frame_equal(mine, theirs[theirs.game < 2 * CHUNK].reset_index(drop=True))


def test_a_stop_after_the_last_chunk_ends_nothing_early(tmp_path):
    seen: list[list[int]] = []
    with api.open_run(config(), tmp_path / "run") as writer:
        result = api.run_chunks(writer, stop=stop_after(4, seen))
    assert len(seen) == 4 and result.stopped is None and "stopped" not in manifest(tmp_path / "run")


def fail_fsync_of(marker: str, code: int):
    real = os.fsync

    def fsync(fd):
        if marker in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(code, os.strerror(code))
        return real(fd)

    return fsync


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS])
def test_a_write_error_on_the_writer_thread_is_raised_here_and_stops_the_run(tmp_path, monkeypatch, code):
    events = Events(monkeypatch)
    monkeypatch.setattr(os, "fsync", fail_fsync_of("part-00001.parquet", code))
    path = tmp_path / "run"
    with pytest.raises(OutputError, match=os.strerror(code)) as raised:
        api.simulate(config(), path)
    assert "part-00001.parquet" in str(raised.value) and "\n" not in str(raised.value)
    m = manifest(path)
    assert m["chunks_done"] == [0] and m["complete"] is False
    assert sorted(p.name for p in (path / "games").iterdir()) == ["part-00000.parquet"]
    assert no_temporaries(path) and not (path / LOCK).exists() and not writer_threads()
    assert ("play", 3) not in events.log  # the run stopped at chunk 2 at the latest


class InterruptedRunError(Exception):
    pass


def test_an_interruption_lets_the_chunk_being_written_finish(tmp_path, monkeypatch, whole):
    """Interrupted while chunk 1 plays and chunk 0 is still being written: chunk 0 is finished and recorded, the
    writer thread has ended before the lock is released, and a resume gives the same rows."""
    events = Events(monkeypatch)
    path = tmp_path / "run"
    held = []

    def before_write(k):  # chunk 0's write waits for chunk 1 to play, so the interruption finds it in flight
        if k == 0:  # (the resume below writes chunks 1..3 straight away: the last one has no next chunk to wait for)
            held.append((path / LOCK).exists())
            assert events.wait_started(1), "chunk 1 did not start while chunk 0 was being written"

    events.before_write = before_write
    played = []

    def progress(n):
        played.append(n)
        if sum(played) > CHUNK:
            raise InterruptedRunError

    with pytest.raises(InterruptedRunError):
        api.simulate(config(), path, progress=progress)
    assert held == [True] and not writer_threads() and not (path / LOCK).exists()
    m = manifest(path)
    assert m["chunks_done"] == [0] and m["complete"] is False and no_temporaries(path)
    api.simulate(config(), path, resume=True)
    for mine, theirs in zip(rows(path), whole, strict=True):
        pd.testing.assert_frame_equal(mine, theirs)


def test_an_interruption_while_waiting_drops_the_chunk(monkeypatch):
    """A second Ctrl-C while ``close`` waits: the thread drops the chunk it holds, records nothing, and ends."""
    release = threading.Event()
    recorded = []

    class Writer:
        config = config()

        def write_chunk(self, index, games, deals):
            recorded.append(index)

    def slow_table(config, games, out):
        assert release.wait(WAIT)
        return "table"

    monkeypatch.setattr(results, "games_table", slow_table)
    monkeypatch.setattr(results, "deals_table", lambda config, games, out: "table")
    chunk_writer = pipeline.ChunkWriter(Writer(), chunks=4)
    assert chunk_writer.submit(0, [0], None)
    real_join = chunk_writer._thread.join
    calls = []

    def join():  # the first wait is interrupted (Ctrl-C), then the chunk's table is let through
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt
        release.set()
        real_join()

    chunk_writer._thread.join = join
    chunk_writer.close()
    assert recorded == [] and chunk_writer.games_written == 0 and not chunk_writer._thread.is_alive()


def test_observers_see_every_chunk_in_order_with_its_tables(tmp_path):
    seen = []
    with api.open_run(config(), tmp_path / "run") as writer:
        api.run_chunks(writer, observers=(lambda k, games, deals: seen.append((k, games.num_rows, deals.num_rows)),))
    _, deals = rows(tmp_path / "run")
    assert [k for k, _, _ in seen] == [0, 1, 2, 3] and all(g == CHUNK for _, g, _ in seen)
    assert sum(d for _, _, d in seen) == len(deals)


def summary_text(config: RunConfig, result, counts=None) -> str:
    from rich.console import Console

    from cli import render

    console = Console(file=io.StringIO(), width=render.WIDE, soft_wrap=True)
    render.print_run_summary(console, config, result, counts)
    return console.file.getvalue()


def test_the_summary_counted_while_writing_is_the_summary_of_the_files(tmp_path):
    from cli import render

    counts = render.ChunkCounts(config())
    with api.open_run(config(), tmp_path / "run") as writer:
        result = api.run_chunks(writer, observers=(counts,))
    assert counts.chunks == {0, 1, 2, 3}
    streamed = summary_text(config(), result, counts)
    assert streamed == summary_text(config(), result) and "4,000 games" in streamed


def test_after_a_resume_the_summary_reads_the_files(tmp_path, monkeypatch):
    from cli import render

    path = tmp_path / "run"
    played = []

    def progress(n):  # interrupted while chunk 2 plays: chunks 0 and 1 are written
        played.append(n)
        if sum(played) > 2 * CHUNK:
            raise InterruptedRunError

    with pytest.raises(InterruptedRunError):
        api.simulate(config(), path, progress=progress)
    counts = render.ChunkCounts(config())
    with api.open_run(config(), path, resume=True) as writer:
        result = api.run_chunks(writer, observers=(counts,))
    assert result.resumed and counts.chunks < {0, 1, 2, 3}
    fresh = tmp_path / "fresh"
    whole_result = api.simulate(config(), fresh)
    resumed_text = summary_text(config(), result, counts).replace(f" ({result.games_played:,} in this call)", "")
    # the same tables; the last lines (speed, folder) differ
    assert resumed_text.split("\n")[:-4] == summary_text(config(), whole_result).split("\n")[:-4]


def test_simulate_imports_neither_pandas_nor_scipy_stats(tmp_path):
    code = (
        "import atexit, sys; from cli.app import main; "
        "atexit.register(lambda: print(sorted(m for m in ('pandas', 'scipy.stats') if m in sys.modules), "
        "file=sys.stderr)); sys.argv = ['scopasim', *sys.argv[1:]]; main()"
    )
    args = ["simulate", "--games", "300", "--chunk-size", "100", "--seed", "1", "--quiet", "--out", tmp_path / "r"]
    done = subprocess.run([sys.executable, "-c", code, *map(str, args)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "[]" and "Win rates" in done.stdout


@pytest.mark.parametrize(
    ("args", "code", "stream", "text"),
    [
        (["--version"], 0, "stdout", "scopasim "),
        (["simulate", "--games", "0"], 1, "stderr", "error: games must be"),
        (["simulate", "--no-such-option"], 2, "stderr", "error: "),
        (["variants"], 0, "stdout", "scopa"),
    ],
)
def test_the_quick_exit_keeps_exit_codes_and_output(args, code, stream, text):
    """``cli.app.main`` ends the process with ``os._exit`` after the exit handlers and a flush: what a real
    process prints and its exit code are those of a normal exit."""
    code_line = "import sys; from cli.app import main; sys.argv = ['scopasim', *sys.argv[1:]]; main()"
    done = subprocess.run([sys.executable, "-c", code_line, *args], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == code, done.stderr
    assert text in getattr(done, stream) and "Traceback" not in done.stderr


def reference_deals(config: RunConfig, games, out) -> dict[str, list]:
    """The deals table built the slow, obvious way: a loop over games, deals and sides."""
    sides = config.spec.sides(config.players)
    side_of = {seat: k for k, seats in enumerate(sides) for seat in seats}
    cols: dict[str, list] = {c: [] for c in ["game", "deal", "side", "dealer", "leader", "dealt", "led"]}
    for c in [*config.spec.categories, "points", "sweeps", "cards_taken", "total"]:
        cols[c] = []
    for i, game in enumerate(games):
        for d in range(int(out.n_deals[i])):
            dealer = int(out.deal_dealer[i, d])
            leader = (dealer + 1) % config.players
            for s in range(len(sides)):
                row = {"game": int(game), "deal": d, "side": s, "dealer": dealer, "leader": leader}
                row |= {"dealt": side_of[dealer] == s, "led": side_of[leader] == s}
                points = [int(p) for p in out.deal_points[i, d, s]]
                row |= dict(zip(config.spec.categories, points, strict=True)) | {"points": sum(points)}
                row |= {"sweeps": int(out.deal_sweeps[i, d, s]), "cards_taken": int(out.deal_cards[i, d, s])}
                row["total"] = int(out.deal_totals[i, d, s])
                for c, v in row.items():
                    cols[c].append(v)
    assert np.all(out.n_deals > 0)
    return cols


@pytest.mark.parametrize(
    ("variant", "players"),
    [("scopa", 2), ("scopa", 3), ("scopa", 4), ("foracio", 4), ("scopone", 4), ("escoba", 3)],
)
def test_the_deals_table_is_the_obvious_one(variant, players):
    cfg = RunConfig.create(variant, players=players, policies=["random"], games=300, seed=4)
    games = np.arange(40, 240)
    out = api.play_chunk(cfg, games)
    table = results.deals_table(cfg, games, out)
    assert table.to_pydict() == reference_deals(cfg, games, out)


def deal_stats_equal(a, b) -> bool:
    """Every count of two ``DealStats`` is the same."""

    def hist(h):
        values, counts = h.items()
        return values.tolist(), counts.tolist()

    same = a.deals == b.deals and a.led == b.led and a.dealt == b.dealt and a.all == b.all
    same &= all(hist(a.diff[m]) == hist(b.diff[m]) and hist(a.total[m]) == hist(b.total[m]) for m in a.metrics)
    same &= all(a.scored[c].tolist() == b.scored[c].tolist() for c in a.categories)
    return same and all(hist(x) == hist(y) for c in a.categories for x, y in zip(a.side[c], b.side[c], strict=True))


def game_stats_equal(a, b) -> bool:
    hists = ("deals", "plays", "redeals", "victory", "first_margin")
    same = (a.games, a.mid_deal, a.digest) == (b.games, b.mid_deal, b.digest)
    return (
        same
        and all(getattr(a, h).items()[0].tolist() == getattr(b, h).items()[0].tolist() for h in hists)
        and all(getattr(a, h).items()[1].tolist() == getattr(b, h).items()[1].tolist() for h in hists)
    )


@pytest.mark.parametrize(("variant", "players"), [("scopa", 2), ("scopone", 4), ("escoba", 2), ("scopa", 3)])
def test_the_compiled_counts_are_those_of_the_analysis(variant, players):
    """The summary counts the games table, and a two-sided deals table, with ``simcore.kernels.tally``;
    ``GameStats.add`` and ``DealStats.add`` (what ``scopasim analyze`` runs on the files) count the very same
    numbers, chunk after chunk."""
    from analysis.deals import DealStats
    from analysis.games import GameStats
    from analysis.load import seat_sides
    from cli import render

    cfg = RunConfig.create(variant, players=players, policies=["random"], games=400, seed=9)
    sides = len(cfg.spec.sides(players))
    fast, slow = GameStats(sides, seat_sides(players)), GameStats(sides, seat_sides(players))
    fast_deals, slow_deals = DealStats(list(cfg.categories), sides), DealStats(list(cfg.categories), sides)
    for games in (np.arange(250), np.arange(250, 400)):
        out = api.play_chunk(cfg, games)
        part = render._columns(results.games_table(cfg, games, out), fast.columns)
        assert render._add_games(fast, part)
        slow.add(part)
        deals = render._columns(results.deals_table(cfg, games, out), fast_deals.columns)
        assert render._add_pairs(fast_deals, deals) == (sides == 2)
        slow_deals.add(deals)
    assert fast.games == 400 and game_stats_equal(fast, slow)
    if sides == 2:
        assert fast_deals.deals == slow_deals.deals > 0 and deal_stats_equal(fast_deals, slow_deals)


def test_the_compiled_game_counts_leave_games_out_of_order_to_the_analysis():
    from analysis.games import GameStats
    from analysis.load import seat_sides
    from cli import render

    cfg = config(games=300)
    games = np.arange(300)
    part = render._columns(
        results.games_table(cfg, games, api.play_chunk(cfg, games)), GameStats(2, seat_sides(2)).columns
    )
    reversed_part = {c: v[::-1] for c, v in part.items()}
    stats, expected = GameStats(2, seat_sides(2)), GameStats(2, seat_sides(2))
    assert not render._add_games(stats, reversed_part) and stats.games == 0
    stats.add(reversed_part)
    expected.add(part)
    assert game_stats_equal(stats, expected)  # the digest is of the games in order, however the rows came


def test_the_compiled_deal_counts_leave_other_tables_to_the_analysis():
    """Rows out of order, values too spread for a small histogram, or three sides: nothing is counted by the
    compiled path, so ``DealStats.add`` sorts, counts or refuses the part as it always did."""
    from analysis.deals import DealStats
    from cli import render

    cfg = config(games=300)
    games = np.arange(300)
    deals = results.deals_table(cfg, games, api.play_chunk(cfg, games))
    columns = DealStats(list(cfg.categories), 2).columns
    part = render._columns(deals, columns)
    shuffled = {c: v[::-1].copy() for c, v in part.items()}
    wide = {**part, "points": part["points"] * np.int16(300)}
    for odd in (shuffled, wide):
        stats = DealStats(list(cfg.categories), 2)
        assert not render._add_pairs(stats, odd) and stats.deals == 0
        stats.add(odd)
        assert stats.deals == deals.num_rows // 2
    unpaired = {**part, "led": np.zeros_like(part["led"])}
    assert not render._add_pairs(DealStats(list(cfg.categories), 2), unpaired)
    with pytest.raises(ValueError, match="one leading and one dealing side"):
        DealStats(list(cfg.categories), 2).add(unpaired)
    three = RunConfig.create("scopa", players=3, policies=["random"], games=50, seed=2)
    stats = DealStats(list(three.categories), 3)
    table3 = results.deals_table(three, np.arange(50), api.play_chunk(three, np.arange(50)))
    assert not render._add_pairs(stats, render._columns(table3, stats.columns))
