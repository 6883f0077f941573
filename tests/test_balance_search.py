"""``balance --search`` and ``balance --precision``: the racing rule on synthetic paired data (numpy only: it finds
the best arm, rarely drops it, and spends few games on clear losers), then the command on a tiny grid (stops
recorded in the manifests and the index, resume replays the same race, formats, bad input)."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from analysis import load_run
from analysis.search import Objective, Racer, _distance_gap, identical_outcomes, ranking
from cli.app import app

runner = CliRunner()


class FakeData:
    """``analysis.precision.RaceData`` over synthetic chunks: common random numbers per game, as the engine's
    shared deal stream gives (arm j wins game i when ``u_i < p_j``, so arms differ only in the games between
    their rates)."""

    def __init__(self, rates: list[float], chunk: int, rounds: int, rng: np.random.Generator, noise: float = 0.3):
        u = rng.random(chunk * rounds)
        own = rng.random((len(rates), chunk * rounds))
        mixed = np.where(rng.random((len(rates), chunk * rounds)) < noise, own, u)  # some games change per arm
        self.all = (mixed < np.asarray(rates)[:, None]).astype(float)
        self.chunk = chunk
        self.chunks: list[list[np.ndarray]] = [[] for _ in rates]

    def read(self, rnd: int, active: list[int]) -> None:
        for i in active:
            while len(self.chunks[i]) < rnd:
                k = len(self.chunks[i])
                self.chunks[i].append(self.all[i, k * self.chunk : (k + 1) * self.chunk])

    def values(self, i: int) -> np.ndarray:
        return np.concatenate(self.chunks[i]) if self.chunks[i] else np.zeros(0)


def race(racer: Racer, rounds: int) -> list[int]:
    """What ``simcore.rounds.race`` does with ``decide``, without runs: the arms still going after each round."""
    active = list(range(racer.k))
    for rnd in range(1, rounds + 1):
        ends = racer(rnd, list(active))
        active = [i for i in active if i not in ends]
        if not active:
            break
    return active


def fair(rates: list[float]) -> Objective:
    return Objective("fair", tuple(0.5 for _ in rates), 0.0, 1.0)


def test_distance_gap_is_the_minimum_over_the_box():
    rng = np.random.default_rng(3)
    for _ in range(300):
        u = tuple(sorted(rng.uniform(-0.2, 0.2, 2)))
        e = tuple(sorted(rng.uniform(-0.2, 0.2, 2)))
        xs = np.linspace(*u, 401)
        dense = min(abs(x) - abs(x - y) for x, y in itertools.product(xs, np.linspace(*e, 41)))
        gap = _distance_gap(u, e)
        assert dense - (u[1] - u[0]) / 200 <= gap <= dense + 1e-12  # never above a point of the box, close to it


def test_racing_finds_the_fairest_and_spends_little_on_clear_losers():
    rates = [0.56, 0.505, 0.47, 0.53, 0.44, 0.515, 0.58, 0.45]
    data = FakeData(rates, 5000, 40, np.random.default_rng(4))
    racer = Racer(data, fair(rates), 0.05, [f"r{p}" for p in rates])
    left = race(racer, 40)
    table = ranking(racer, 0.95)
    assert table.iloc[0]["rule_set"] == "r0.505" and table.iloc[0]["status"] == "best"
    games = dict(zip(table["rule_set"], table["games"], strict=True))
    assert games["r0.58"] < games["r0.505"] / 4  # a clear loser is dropped early
    assert sum(games.values()) < len(rates) * 200_000 / 3
    assert left == [] and set(racer.dropped) == set(range(8)) - {1}
    assert table["ci_low"].le(table["estimate"]).all() and table["estimate"].le(table["ci_high"]).all()


def test_the_best_arm_is_rarely_dropped():
    """Many races where the best arm is only a little better than the next: it is dropped at most alpha of the
    time (the racing rule's guarantee; here it is far rarer)."""
    drops = 0
    races = 150
    rates = [0.51, 0.52, 0.53, 0.47]
    for seed in range(races):
        data = FakeData(rates, 1000, 20, np.random.default_rng(100 + seed))
        racer = Racer(data, fair(rates), 0.05, ["a", "b", "c", "d"])
        race(racer, 20)
        drops += 0 in racer.dropped
    assert drops / races <= 0.05


# ---------------------------------------------------------------- the command


def run(*args):
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})


def search_args(out: Path, *extra) -> list:
    return [
        "balance", "-v", "scopa", "--vary", "target=1,11", "--vary", "napola=false,true", "--search",
        "--games", 3000, "--seed", 8, "--chunk-size", 500, "--threads", 1, "--out", out, "-q", *extra,
    ]  # fmt: skip


@pytest.fixture(scope="module")
def searched(tmp_path_factory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("search") / "grid"
    result = run(*search_args(out))
    assert result.exit_code == 0, result.output
    return out, result.output


def test_search_ranks_records_and_plots(searched):
    out, output = searched
    table = pd.read_csv(out / "search.csv")
    assert (
        len(table) == 4
        and table.iloc[0]["status"] == "best"
        and f"best rule set: {table.iloc[0]['rule_set']}" in output
    )
    index = json.loads((out / "balance.json").read_text())
    assert index["settings"]["sequential"] == {"mode": "search", "objective": "fair", "level": 0.95}
    assert index["search"]["best"] == table.iloc[0]["rule_set"] and index["status"] == "complete"
    for name, rec in index["runs"].items():
        run_ = load_run(out / name)
        assert len(run_.games) == rec["games"] == int(table.set_index("rule_set").loc[run_label(name), "games"])
        assert run_.manifest.get("stopped") == rec["stopped"]
        if rec["games"] < 3000:
            assert rec["stopped"].startswith("search: ")
    assert index["search"]["games"] == table["games"].sum()
    assert (out / "balance.png").read_bytes().startswith(b"\x89PNG")


def run_label(folder: str) -> str:
    return folder.replace(",", ", ")


def test_search_resumes_an_interrupted_race_to_the_same_answer(searched, tmp_path):
    """Cut every run back to its first chunk, incomplete, as an interruption would leave it: the rerun replays the
    rounds from the part files and ends every run where the uninterrupted race did."""
    out, _ = searched
    copy = Path(shutil.copytree(out, tmp_path / "grid"))
    for folder in (p for p in copy.iterdir() if (p / "manifest.json").exists()):
        manifest = json.loads((folder / "manifest.json").read_text())
        for key in ("stopped", "games_written", "finished"):
            manifest.pop(key, None)
        manifest.update(complete=False, chunks_done=[0])
        (folder / "manifest.json").write_text(json.dumps(manifest))
    (copy / "search.csv").unlink()
    result = run(*search_args(copy))
    assert result.exit_code == 0, result.output
    assert pd.read_csv(copy / "search.csv").equals(pd.read_csv(out / "search.csv"))
    again = run(*search_args(copy))  # complete: everything reused, same answer
    assert again.exit_code == 0, again.output
    assert pd.read_csv(copy / "search.csv").equals(pd.read_csv(out / "search.csv"))


def test_search_in_other_formats(searched, tmp_path):
    out, _ = searched
    copy = Path(shutil.copytree(out, tmp_path / "grid"))
    csv = run(*search_args(copy, "--format", "csv"))
    assert csv.exit_code == 0, csv.output
    assert csv.stdout.startswith("rank,rule_set,games,")
    js = run(*search_args(copy, "--format", "json"))
    assert json.loads(js.stdout)["summary"]["best"] == pd.read_csv(out / "search.csv").iloc[0]["rule_set"]
    md = run(*search_args(copy, "--format", "markdown"))
    assert md.stdout.startswith("| rank | rule set | games |")


def test_search_refuses_other_settings_in_the_same_folder(searched, tmp_path):
    out, _ = searched
    copy = Path(shutil.copytree(out, tmp_path / "grid"))
    other = run(*search_args(copy, "--objective", "points"))
    assert other.exit_code != 0 and "other settings" in other.output
    plain = run(*[a for a in search_args(copy) if a != "--search"])
    assert plain.exit_code != 0 and "other settings" in plain.output


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--target", "0.4"], "--target goes with --objective target"),
        (["--objective", "target"], "needs --target"),
        (["--precision", "0.02"], "exclude each other"),
        (["--cluster", "local:1"], "drop --cluster"),
    ],
)
def test_search_bad_input(tmp_path, extra, message):
    result = run(*search_args(tmp_path / "g", *extra))
    assert result.exit_code != 0 and message in result.output
    assert not (tmp_path / "g").exists()


def test_precision_stops_each_comparison_and_records_why(tmp_path):
    out = tmp_path / "grid"
    args = [
        "balance", "-v", "scopa", "--vary", "target=1,11,21", "--games", 4000, "--seed", 9, "--chunk-size", 500,
        "--threads", 1, "--out", out, "-q", "--precision", "0.2", "--stop-on-difference",
    ]  # fmt: skip
    result = run(*args)
    assert result.exit_code == 0, result.output
    table = pd.read_csv(out / "precision.csv")
    index = json.loads((out / "balance.json").read_text())
    assert index["settings"]["sequential"]["precision"] == 0.2
    for row in table.to_dict("records")[1:]:
        rec = index["runs"][row["rule_set"].replace(", ", ",")]
        assert rec["games"] == row["games"]
        if row["games"] < 4000:
            assert rec["stopped"] in ("precision", "difference") and row["stopped"] == rec["stopped"]
            assert row["half_width"] <= 0.2 or not row["cs_low"] <= 0 <= row["cs_high"]
    base = table.iloc[0]
    assert base["games"] == table["games"].max()  # the baseline plays while any comparison does
    assert (out / "balance.csv").exists() and "Stopped by --precision" in result.output


def test_identical_rule_sets_are_named():
    """Two rule sets whose games all end alike (a rule these policies never meet) cannot be told apart: said."""
    rates = [0.505, 0.505, 0.6]
    data = FakeData(rates, 1000, 5, np.random.default_rng(6), noise=0.3)
    data.all[1] = data.all[0]
    racer = Racer(data, fair(rates), 0.05, ["a", "b", "c"])
    race(racer, 5)
    warnings = identical_outcomes(racer)
    assert 2 in racer.dropped and warnings == [
        "rule sets 'a', 'b' had the same outcome in all 5,000 games: the search cannot tell them apart"
    ]
