"""Everything the CLI shows a person: progress, run summaries, variant and rule tables, replayed games."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from simcore.api import RunResult
from simcore.config import RunConfig

WIDE = 100_000  # columns of a console that writes to a file or a pipe: nothing is folded or cut


def console(stderr: bool = False) -> Console:
    """The console a command prints to: the terminal's width on a terminal; in a file or a pipe wide enough that
    numbers, intervals and paths stay whole (rich would fold every line at 80 columns there)."""
    stream = sys.stderr if stderr else sys.stdout
    if stream.isatty():
        return Console(stderr=stderr)
    return Console(stderr=stderr, width=WIDE, soft_wrap=True)


def is_wide(console: Console) -> bool:
    return console.width >= WIDE


def print_table(console: Console, table: Table) -> None:
    """Print a table; to a file or a pipe its title and caption go on lines of their own, because rich wraps them
    to the table's width (a title wider than its table would come out a word per line)."""
    if not is_wide(console):
        console.print(table)
        return
    title, caption = table.title, table.caption
    table.title = table.caption = None
    if title:
        console.print(title, style="italic", highlight=False)
    console.print(table)
    if caption:
        console.print(caption, style="dim", highlight=False)
    table.title, table.caption = title, caption


def heading(console: Console, text: str) -> None:
    """A section heading: a rule across the terminal, or one plain line in a file or a pipe."""
    if is_wide(console):
        console.print(f"== {text} ==", style="bold", highlight=False)
    else:
        console.rule(f"[bold]{text}")


class GamesPerSecond(ProgressColumn):
    """Throughput column: games per second."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:,.0f} games/s", style="cyan")


@contextmanager
def progress_bar(total: int, quiet: bool) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr (games done, games/s, ETA); yields the function that advances it."""
    if quiet:
        yield lambda n: None
        return
    progress = Progress(
        TextColumn("simulating"),
        BarColumn(),
        MofNCompleteColumn(),
        GamesPerSecond(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
    )
    with progress:
        task = progress.add_task("simulate", total=total)
        yield lambda n: progress.advance(task, n)


def _rate(row: dict[str, Any]) -> tuple[str, str]:
    return f"{row['rate']:.2%}", f"{row['ci_low']:.2%}–{row['ci_high']:.2%}"


SUMMARY_LEVEL = 0.95  # the level of the simulate summary's intervals (``scopasim analyze --level`` for others)


class ChunkCounts:
    """What the run summary counts, gathered from each chunk's tables as the writer thread writes them.

    An observer of ``api.run_chunks``: it feeds each chunk's tables, in chunk order, to the very accumulators the
    analysis fills from the part files (``analysis.games``, ``analysis.deals``), so the summary need not read the
    run again and its numbers are those of ``scopasim analyze``. It only stands in for the files when it has
    seen exactly the chunks the run holds (not after a resume: the summary then reads the files).
    """

    def __init__(self, config: RunConfig):
        from analysis.deals import DealStats
        from analysis.games import GameStats, OutcomeStats
        from analysis.load import seat_sides

        players, sides = config.players, len(config.spec.sides(config.players))
        self.chunks: set[int] = set()
        self.outcomes = OutcomeStats(np.zeros((players, players, sides + 1), np.int64))
        self.games = GameStats(sides, seat_sides(players))
        self.deals = DealStats(list(config.categories), sides)

    def __call__(self, index: int, games: Any, deals: Any) -> None:
        self.outcomes.add(_columns(games, self.outcomes.columns))
        part = _columns(games, self.games.columns)
        if not _add_games(self.games, part):
            self.games.add(part)
        part = _columns(deals, self.deals.columns)
        if not _add_pairs(self.deals, part):
            self.deals.add(part)
        self.chunks.add(index)

    def give(self, run: Any) -> None:
        """Let ``run`` use these counts instead of reading its files, if they are of exactly its chunks."""
        if self.chunks == set(run.manifest["chunks_done"]):
            run.cached("outcome_stats", lambda: self.outcomes)
            run.cached("game_stats", lambda: self.games)
            run.cached("deal_stats", lambda: self.deals)


def _add_pairs(stats: Any, part: dict[str, np.ndarray]) -> bool:
    """Count a deals part of two sides into ``stats`` (a ``DealStats``) from the joint histograms of
    ``simcore.kernels.tally`` (one compiled pass instead of a dozen numpy ones per metric); False, with nothing
    counted, when the part is not of that shape (``DealStats.add`` then counts it, or says what is wrong)."""
    from simcore.kernels.tally import TALLY_OK, pair_histograms

    metrics = stats.metrics
    types = {**dict.fromkeys(metrics, np.int16), "game": np.int64, "deal": np.int16, "side": np.int8}
    types |= {"led": np.bool_, "dealt": np.bool_}
    if stats.n_sides != 2 or any(part[c].dtype != t for c, t in types.items()):
        return False
    columns = (np.stack([part[m] for m in metrics]), *(part[c] for c in ("game", "deal", "side", "led", "dealt")))
    status, lo, width, start, joint = pair_histograms(*(_read_only(c) for c in columns))
    if status != TALLY_OK:
        return False
    joints = {
        m: (joint[start[k] : start[k + 1]].reshape(2, width[k, 0], width[k, 1]), int(lo[k, 0]), int(lo[k, 1]))
        for k, m in enumerate(metrics)
    }
    stats.add_pair_counts(len(part["side"]) // 2, joints)
    return True


def _add_games(stats: Any, part: dict[str, np.ndarray]) -> bool:
    """Count a games part into ``stats`` (a ``GameStats``) from the histograms of ``simcore.kernels.tally`` (one
    compiled pass); False, with nothing counted, when the part is not what the writer emits (``GameStats.add``
    then counts it, or says what is wrong)."""
    from simcore.kernels.tally import GAME_HISTS, game_histograms

    types = {"game": np.int64, "first_player": np.int8, "winner": np.int8, "deals": np.int16, "plays": np.int32}
    types |= {"redeals": np.int16, **dict.fromkeys(stats.totals, np.int16)}
    if any(part[c].dtype != t for c, t in types.items()):
        return False
    totals = np.stack([part[t] for t in stats.totals])
    columns = (part["game"], part["first_player"], part["winner"], totals, part["deals"], part["plays"])
    ok, outcome, lo, start, counts = game_histograms(
        *(_read_only(c) for c in (*columns, part["redeals"], np.asarray(stats.seat_side, np.int8)))
    )
    if not ok:
        return False
    hists = {
        h: (int(lo[k]), counts[start[k] : start[k + 1]]) for k, h in enumerate(GAME_HISTS) if start[k + 1] > start[k]
    }
    stats.add_counts(int(np.count_nonzero(part["mid_deal"])), hists, outcome)
    return True


def _read_only(values: np.ndarray) -> np.ndarray:
    """A read-only view of ``values`` (contiguous): a column read from Arrow's buffers is read-only, a computed one
    is not, and Numba compiles a kernel once for each; passing every column read-only keeps it to one."""
    view = np.ascontiguousarray(values).view()
    view.flags.writeable = False
    return view


def _columns(table: Any, names: Any) -> dict[str, np.ndarray]:
    from simcore.layout import column_array  # not ``to_numpy``, which imports pandas

    return {name: column_array(table, name) for name in names}


def prefetch_summary() -> threading.Thread:
    """Import, on a daemon thread, what :func:`print_run_summary` needs and the run has not loaded: mostly
    ``scipy.special`` (0.2 CPU-s, a quarter of ``scopasim simulate --games 1000``), whose ``__init__`` a submodule
    import runs too. Started as the first chunk begins, it is done while the kernels play (without the GIL)
    instead of after the last chunk, when nothing else runs; the summary's own imports then find it loaded (or
    wait for it: imports are thread-safe)."""

    def load() -> None:
        with contextlib.suppress(Exception):  # a failing import fails again, and says why, in the summary itself
            import scipy.special  # noqa: F401

            import analysis.stats  # noqa: F401

    thread = threading.Thread(target=load, name="scopasim-prefetch", daemon=True)
    thread.start()
    return thread


def print_run_summary(
    console: Console, config: RunConfig, result: RunResult, counts: ChunkCounts | None = None
) -> None:
    """Win rates with 95% intervals, mean points per deal by category, speed and where the data went.

    ``counts``, gathered while the run was written, spare reading the run again; without them the tables are
    read part by part, so memory stays flat in the run's size either way. Neither pandas nor scipy.stats is
    imported (``analysis.special``): a summary of a few games costs little next to the run.
    """
    from analysis.games import game_stats
    from analysis.load import load_run
    from analysis.stats import level_text, opening_rows, points_rows, seat_win_rows

    run = load_run(result.path)
    if counts is not None:
        counts.give(run)
    level = level_text(SUMMARY_LEVEL)
    wins = Table(
        title=f"Win rates ({level} Wilson intervals)",
        title_justify="left",
        caption="first player / first dealer: the side of the seat that led / dealt the first deal; "
        "p: binomial test of no advantage",
        caption_justify="left",
    )
    for col in ("", "policy", "wins", "games", "win rate", f"{level} CI", "p"):
        wins.add_column(col, justify="left" if col in ("", "policy") else "right")
    for row in seat_win_rows(run, SUMMARY_LEVEL):
        wins.add_row(f"seat {row['seat']}", row["policy"], f"{row['wins']:,}", f"{row['games']:,}", *_rate(row), "")
    for name, row in opening_rows(run, SUMMARY_LEVEL).items():
        wins.add_row(name, "", f"{row['wins']:,}", f"{row['games']:,}", *_rate(row), f"{row['p_value']:.2g}")
    print_table(console, wins)

    table = Table(
        title="Mean points per deal",
        title_justify="left",
        caption=f"difference: leader's side minus dealer's side, deal by deal, ± the half-width of its {level} "
        "t interval",
        caption_justify="left",
    )
    table.add_column("category")
    for col in ("leader's side", "dealer's side", f"difference ± {level} CI", "any side"):
        table.add_column(col, justify="right")
    for name, row in points_rows(run, SUMMARY_LEVEL).items():
        table.add_row(
            str(name),
            f"{row['leader_side']:.3f}",
            f"{row['dealer_side']:.3f}",
            f"{row['difference']:+.3f} ± {row['half_width']:.3f}",
            f"{row['all_sides']:.3f}",
        )
    print_table(console, table)

    n_deals = game_stats(run).deals.total
    resumed = f" ({result.games_played:,} in this call)" if result.resumed else ""
    console.print(
        f"{result.games:,} games{resumed}, {n_deals:,} deals ({n_deals / result.games:.2f} per game), "
        f"seed {config.seed}; {result.games_per_second:,.0f} games/s, {result.elapsed:.1f} s",
        highlight=False,
    )
    console.print(f"output: {result.path}", markup=False, highlight=False)
    console.print(
        f"  pandas.read_parquet('{result.path}/games')  and  '{result.path}/deals'",
        style="dim",
        markup=False,
        highlight=False,
    )


SUIT_SYMBOLS = {"c": ("♣", "white"), "d": ("♦", "red"), "h": ("♥", "red"), "s": ("♠", "white")}


def card_text(cards: list[str]) -> str:
    """Cards as a person reads them (``10♦ 7♠``), with rich colour markup."""
    parts = []
    for card in cards:
        rank = "10" if card[0] == "T" else card[0]
        symbol, colour = SUIT_SYMBOLS[card[1]]
        parts.append(f"[{colour}]{rank}{symbol}[/]")
    return " ".join(parts) if parts else "-"


def _sorted_table(table: set[str], order: list[str]) -> list[str]:
    return sorted(table, key=order.index)


def print_game(console: Console, trace: dict[str, Any]) -> None:
    """Render a ``scopasim-trace/1`` game: header, then every event with the table after each play."""
    from simcore.cards import RANK_CHARS, SUIT_CHARS

    order = [r + s for r in RANK_CHARS for s in SUIT_CHARS]
    # a trace read from a file is the user's text: escaped, so that a "[" in it is not taken for rich markup
    seats = ", ".join(f"seat {i} {escape(p)}" for i, p in enumerate(trace["policies"]))
    sides = " v ".join("+".join(str(s) for s in side) for side in trace["sides"])
    head = f"[bold]{escape(trace['variant'])}[/] game {trace['game']} of seed {trace['seed']}: {seats}; sides {sides}"
    console.print(head)
    rules = ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in trace["rules"].items())
    console.print("rules: " + rules, style="dim", markup=False)
    table: set[str] = set()
    for ev in trace["events"]:
        kind = ev["type"]
        if kind == "deal":
            table = set()
            console.print(f"\n[bold]Deal {ev['deal']}[/], dealer seat {ev['dealer']}")
        elif kind == "hand":
            console.print(f"  seat {ev['seat']} gets {card_text(ev['cards'])}")
        elif kind == "table":
            table |= set(ev["cards"])
            console.print(f"  table: {card_text(_sorted_table(table, order))}")
        elif kind == "redeal":
            console.print(f"  [yellow]deal void ({escape(ev['reason'])}): redealt[/]")
        elif kind == "opening":  # Escoba: the initial table taken at once
            table -= set(ev["cards"])
            escobas = "escoba" if ev["points"] == 1 else "escobas"
            console.print(
                f"  seat {ev['seat']} takes the opening table {card_text(ev['cards'])}"
                f"  [bold green]{ev['points']} {escobas}[/]"
            )
        elif kind == "play":
            if ev["kind"] == "trail":
                table |= set(ev["cards"])
                what = "trails"
            elif ev["kind"] == "keep":
                what = "keeps it"
            else:
                table -= set(ev["take"])
                what = f"takes {card_text(ev['take'])}"
            sweep = f"  [bold green]sweep +{ev['points']}[/]" if ev["sweep"] else ""
            console.print(
                f"  seat {ev['seat']} plays {card_text(ev['cards'])}, {what}{sweep}"
                f"   [dim]table: {card_text(_sorted_table(table, order))}[/]"
            )
        elif kind == "residue":
            table = set()
            console.print(f"  the table {card_text(ev['cards'])} goes to seat {ev['seat']} (last capture)")
        elif kind == "score":
            for side, pts in enumerate(ev["points"]):
                detail = escape(", ".join(f"{k} {v}" for k, v in pts.items() if v))
                console.print(f"  side {side}: {sum(pts.values())} points ({detail or 'none'})")
            console.print(f"  [bold]totals: {' : '.join(str(t) for t in ev['totals'])}[/]")
        elif kind == "out":
            console.print(f"  seat {ev['seat']} declares out")
        elif kind == "end":
            console.print(f"\n[bold]side {ev['winner']} wins[/] {' : '.join(str(t) for t in ev['totals'])}")
