"""``scopasim report``: a self-contained HTML page whose tables hold the analysis functions' numbers and whose
figures are embedded PNGs; and its bad inputs."""

from __future__ import annotations

import base64
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analysis import category_table, deal_advantage, game_shape, load_run, points_per_deal, seat_advantage
from analysis.balance import compare_runs
from cli.app import app
from simcore import api
from simcore.config import RunConfig

runner = CliRunner()
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


class Page(HTMLParser):
    """Collects the tables (by ``data-table``: rows of cell texts), figures (``data-figure``: image bytes), and
    every external reference."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.figures: dict[str, bytes] = {}
        self.external: list[str] = []
        self._table: str | None = None
        self._figure: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and "data-table" in a:
            self._table = a["data-table"]
            self.tables[self._table] = []
        elif tag == "tr" and self._table:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "figure":
            self._figure = a.get("data-figure")
        elif tag == "img":
            src = a.get("src", "")
            assert src.startswith("data:image/png;base64,"), src[:40]
            self.figures[self._figure] = base64.b64decode(src.split(",", 1)[1])
        for key in ("src", "href"):
            if key in a and not a[key].startswith("data:"):
                self.external.append(a[key])

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("report")
    a, b = base / "scopa4", base / "scopa4b"
    config = RunConfig.create("scopa", players=4, policies=["greedy", "random"] * 2, games=1500, seed=9, chunk_size=500)
    api.simulate(config, a)
    api.simulate(RunConfig.create("scopa", players=4, games=1500, seed=9, chunk_size=500), b)
    return a, b


@pytest.fixture(scope="module")
def page(runs, tmp_path_factory) -> tuple[str, Page]:
    out = tmp_path_factory.mktemp("html") / "report.html"
    result = run("report", runs[0], "--out", out)
    assert result.exit_code == 0, result.output
    assert f"report: {out}" in result.output
    text = out.read_text(encoding="utf-8")
    parser = Page()
    parser.feed(text)
    return text, parser


def rows_by_first_cells(rows: list[list[str]], n: int = 1) -> dict[tuple[str, ...], list[str]]:
    return {tuple(r[:n]): r for r in rows[1:]}


def test_report_is_self_contained_html(page):
    text, parser = page
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    assert parser.external == []  # no link, script or image outside the page
    assert "<script" not in text
    assert set(parser.figures) == {"advantage", "convergence", "categories", "shape"}
    for png in parser.figures.values():
        assert png.startswith(PNG_MAGIC) and len(png) > 10_000


def test_report_tables_match_the_analysis(runs, page):
    _, parser = page
    run = load_run(runs[0])
    assert {
        "key",
        "seat_advantage",
        "deal_advantage",
        "pairings",
        "seats",
        "categories",
        "points",
        "game_shape",
    } <= set(parser.tables)
    adv = seat_advantage(run)
    shown = rows_by_first_cells(parser.tables["seat_advantage"], 2)
    assert len(shown) == len(adv)  # all, 4 seats, 2 sides, for both roles
    for r in adv.itertuples():
        row = shown[(r.role, r.group)]
        assert row[2:6] == [
            f"{r.wins:,}",
            f"{r.games:,}",
            f"{r.rate:.2%}",
            f"{r.ci_low:.2%}"[:-1] + "–" + f"{r.ci_high:.2%}",
        ]
    key = rows_by_first_cells(parser.tables["key"])
    first = adv.iloc[0]
    assert key[("first player's side wins",)][1] == f"{first['rate']:.2%}"
    margin = deal_advantage(run).set_index("measure").loc["points margin per deal"]
    assert key[("leader's points margin per deal",)][1] == f"{margin['estimate']:+.3f}"
    points = points_per_deal(run)
    shown = rows_by_first_cells(parser.tables["points"])
    for cat, r in points.iterrows():
        assert shown[(cat,)][1:3] == [f"{r['leader_side']:,.3f}", f"{r['dealer_side']:,.3f}"]
    cats = category_table(run)
    shown = rows_by_first_cells(parser.tables["categories"])
    assert shown[("scopa",)][1] == f"{cats.loc['scopa', 'side_0']:,.3f} ± {cats.loc['scopa', 'side_0_half_width']:,.3f}"
    shape = game_shape(run)
    shown = rows_by_first_cells(parser.tables["game_shape"])
    assert shown[("deals per game",)][1] == f"{shape.loc['deals per game', 'estimate']:,.3f}"
    pairings = rows_by_first_cells(parser.tables["pairings"], 2)
    assert ("first player", "greedy v random") in pairings and ("first player", "random v greedy") in pairings


def test_report_metadata(runs, page):
    text, _ = page
    for needle in ("scopa, 4 players", "greedy, random, greedy, random", "seed 9", "1,500 games", "target=11"):
        assert needle in text
    assert str(runs[0]) in text


def test_report_of_two_runs_compares_them(runs, tmp_path):
    out = tmp_path / "two.html"
    result = run("report", *runs, "--out", out)
    assert result.exit_code == 0, result.output
    parser = Page()
    parser.feed(out.read_text(encoding="utf-8"))
    comparison = rows_by_first_cells(parser.tables["comparison"])
    expected = compare_runs(load_run(runs[0]), load_run(runs[1]))
    assert comparison[("deals per game",)][3] == f"{expected.loc['deals per game', 'difference']:+,.3f}"
    assert len(parser.figures) == 4  # figures of the last run overwrite those of the first in this parser


def test_report_refuses_to_overwrite(runs, tmp_path):
    out = tmp_path / "r.html"
    out.write_text("keep me")
    result = run("report", runs[0], "--out", out)
    assert result.exit_code == 1 and "already exists" in result.output and "--overwrite" in result.output
    assert out.read_text() == "keep me"
    result = run("report", runs[0], "--out", out, "--overwrite")
    assert result.exit_code == 0 and out.read_text().startswith("<!DOCTYPE html>")


@pytest.mark.parametrize(
    ("make_args", "message"),
    [
        (lambda run_, tmp: [tmp / "nothing", "--out", tmp / "r.html"], "not a scopasim run folder"),
        (lambda run_, tmp: [run_, "--out", tmp], "is a folder"),
        (lambda run_, tmp: [run_, "--out", tmp / "missing" / "r.html"], "does not exist"),
        (lambda run_, tmp: [run_, "--out", tmp / "r.html", "--level", "0"], "--level"),
        (lambda run_, tmp: [run_], "--out"),
    ],
)
def test_report_bad_input_writes_nothing(runs, tmp_path, make_args, message):
    (tmp_path / "nothing").mkdir()
    result = run("report", *make_args(runs[0], tmp_path))
    assert result.exit_code != 0
    assert message in result.output
    assert "error: " in result.output
    assert not (tmp_path / "r.html").exists()
