"""``scopasim tournament``: every pairing of policies on the same deals, seats swapped; win rates and ratings."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from cli import render
from cli.commands.simulate import DEFAULT_RESULTS
from cli.options import Players, RuleOpts, Seed, Threads, Variant, parse_rules
from simcore.errors import OutputError


def tournament(
    policies: Annotated[
        str, typer.Option("--policies", help="Comma-separated policies, e.g. random,greedy,points:card=0.1,lookahead")
    ],
    variant: Variant = None,
    players: Players = None,
    games: Annotated[
        int, typer.Option("--games", "-n", help="Duplicate pairs per pairing (games per seating).")
    ] = 10_000,
    seed: Seed = None,
    threads: Threads = None,
    rule: RuleOpts = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Tournament folder. [default: results/tournament-...]")
    ] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Finish an interrupted tournament in --out.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    cluster: Annotated[
        str | None,
        typer.Option("--cluster", help="Run the chunks on Dask: local:N or tcp://HOST:PORT. [default: this process]"),
    ] = None,
) -> None:
    """Play every pairing of the policies in duplicate (same deals, seats swapped) and rate them."""
    import secrets

    from analysis.tournament import bradley_terry, load_tournament, pairing_table
    from simcore.config import RunConfig
    from simcore.tournament import plan, run_tournament, split_policies

    variant = variant or "scopa"
    rules = parse_rules(rule)
    if players is not None:
        rules["players"] = str(players)
    if resume and out is None:
        raise OutputError("--resume needs --out: the tournament folder to finish")
    if games < 1:
        raise OutputError(f"games must be a positive integer, got {games}")
    seed = secrets.randbelow(2**31) if seed is None else seed
    names = split_policies(policies)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    out = out or DEFAULT_RESULTS / f"tournament-{variant}-s{seed}-{stamp}"
    seatings = plan(variant, names, games, seed, rules, out)
    if cluster is not None:
        from simcore.executors import parse_cluster

        parse_cluster(cluster)
    RunConfig.create(variant, rules=rules, games=games, seed=seed)  # every setting checked before any output
    with render.progress_bar(len(seatings) * games, quiet) as advance:
        index = run_tournament(
            variant, names, games=games, seed=seed, out=out, rules=rules, threads=threads, resume=resume,
            progress=advance, cluster=cluster,
        )  # fmt: skip
    index, runs = load_tournament(out)
    table = pairing_table(index, runs)
    ratings = bradley_terry(table, index["policies"])
    console = Console()
    pairs = Table(title=f"{variant}: duplicate pairings ({games:,} deal pairs each, seed {seed})", title_justify="left")
    for col in ("A", "B", "A wins [95% CI]", "A's margin per game"):
        pairs.add_column(col, justify="left" if col in ("A", "B") else "right")
    for r in table.itertuples():
        half = (r.margin_high - r.margin_low) / 2
        pairs.add_row(r.a, r.b, f"{r.rate:.1%} [{r.ci_low:.1%}, {r.ci_high:.1%}]", f"{r.margin:+.2f} ± {half:.2f}")
    console.print(pairs)
    board = Table(title="Bradley–Terry ratings (Elo scale, first policy = 0, 95% intervals)", title_justify="left")
    for col in ("policy", "rating", "95% CI"):
        board.add_column(col, justify="left" if col == "policy" else "right")
    for r in ratings.itertuples():
        board.add_row(r.policy, f"{r.rating:+.0f}", f"{r.low:+.0f} – {r.high:+.0f}")
    console.print(board)
    console.print(f"output: {out}")
