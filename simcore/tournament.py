"""Tournaments: every pairing of policies plays the same deals twice, seats swapped (duplicate format).

Game ``i`` of every run of a tournament uses the same seed, so its deals are the same whatever the policies
(the deal stream does not depend on them): pairing (A, B) plays each deal once with A in the even seats and once
with B there. Deal luck cancels in the pair, and every pairing meets the same deals. Each seating is a normal run
folder (``<out>/<A>-vs-<B>/ab`` and ``/ba``), so it resumes, and ``analysis`` reads it like any run;
``tournament.json`` lists the pairings.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from simcore import api
from simcore.config import RunConfig
from simcore.errors import ConfigError, OutputError
from simcore.policies import parse_policy

INDEX = "tournament.json"


@dataclass(frozen=True)
class Seating:
    """One run of a pairing: ``first`` plays the even seats (side 0), ``second`` the odd seats (side 1)."""

    first: str
    second: str
    path: Path


def split_policies(text: str) -> list[str]:
    """``"random,points:card=0.1,sweep=2,greedy"`` -> ``["random", "points:card=0.1,sweep=2", "greedy"]``.

    A comma separates policies, except before a ``key=value`` that continues the previous policy's parameters.
    """
    policies: list[str] = []
    for token in filter(None, (t.strip() for t in text.split(","))):
        if "=" in token and ":" not in token and policies and ":" in policies[-1]:
            policies[-1] += "," + token
        else:
            policies.append(token)
    return policies


def pairing_name(a: str, b: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", f"{a}-vs-{b}")


def plan(variant: str, policies: Sequence[str], games: int, seed: int, rules: dict, out: Path) -> list[Seating]:
    """The seatings of a tournament, validated (policies, rules, two sides) before anything runs."""
    labels = [parse_policy(p, variant).label for p in policies]
    if len(labels) < 2 or len(set(labels)) != len(labels):
        raise ConfigError("a tournament needs at least two different policies (--policies a,b,...)")
    config = RunConfig.create(variant, policies=[labels[0]], rules=rules, games=games, seed=seed)
    if len(config.spec.sides(config.players)) != 2:
        raise ConfigError(f"{variant} with {config.players} players has more than two sides; tournaments need two")
    seatings = []
    for a, b in itertools.combinations(labels, 2):
        folder = Path(out) / pairing_name(a, b)
        seatings += [Seating(a, b, folder / "ab"), Seating(b, a, folder / "ba")]
    return seatings


def seating_config(variant: str, seating: Seating, games: int, seed: int, rules: dict, players: int) -> RunConfig:
    """The run of one seating: ``first`` in the even seats, ``second`` in the odd ones."""
    seats = [seating.first if s % 2 == 0 else seating.second for s in range(players)]
    return RunConfig.create(variant, policies=seats, rules=rules, games=games, seed=seed)


def run_tournament(
    variant: str,
    policies: Sequence[str],
    *,
    games: int,
    seed: int,
    out: Path,
    rules: dict | None = None,
    threads: int | None = None,
    resume: bool = False,
    progress: Callable[[int], None] | None = None,
    cluster: str | None = None,
) -> dict:
    """Play every seating into ``out`` (complete ones are kept when resuming); returns the index it wrote."""
    rules = dict(rules or {})
    out = Path(out)
    seatings = plan(variant, policies, games, seed, rules, out)
    players = RunConfig.create(variant, rules=rules, games=1).players
    if out.exists() and any(out.iterdir()) and not resume:
        raise OutputError(f"output {out} already exists and is not empty (use --resume to finish it, or --out)")
    api.set_threads(threads)
    runs = []
    for seating in seatings:
        config = seating_config(variant, seating, games, seed, rules, players)
        complete = (seating.path / "manifest.json").exists() and _is_complete(seating.path)
        if complete:
            if progress:
                progress(games)
        else:
            writer = api.open_run(config, seating.path, resume=(seating.path / "manifest.json").exists())
            api.run_chunks(writer, progress, cluster=cluster)
        runs.append({"first": seating.first, "second": seating.second, "path": str(seating.path.relative_to(out))})
    index = {
        "variant": variant,
        "rules": dict(RunConfig.create(variant, rules=rules, games=1).rules),
        "policies": list(dict.fromkeys(r["first"] for r in runs) | dict.fromkeys(r["second"] for r in runs)),
        "games": games,
        "seed": seed,
        "runs": runs,
    }
    (out / INDEX).write_text(json.dumps(index, indent=2))
    return index


def _is_complete(path: Path) -> bool:
    from simcore.layout import read_manifest

    return bool(read_manifest(path).get("complete"))
