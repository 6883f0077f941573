"""Golden playthroughs: one small trace file per registered game and player count, rewritten on purpose.

Run from the repository root: ``python tests/golden/regenerate.py``. It rewrites ``tests/golden/<game>-<N>p.jsonl``
for every game of ``simcore.variants.VARIANTS`` and every player count it allows, removes files of games no
longer registered, and prints which files changed and where. ``tests/test_golden.py`` replays the same games and
fails on any difference, so a change of rules or engine shows up as a diff of these files, reviewed in the commit.

Each file is ``scopasim-trace/1`` JSON lines (one game a line, as ``scopasim trace`` writes them): games 0, 1 and
2 of seed 2026, seats alternating greedy and random (seat 0 greedy), the default rules except one: a game that is
decided only at the end of a deal is played to target 1, so it lasts one deal (more when the top totals tie) and
its file stays a few kB; a game that can be won mid-deal keeps its target (at 1 it would end at the first point).
A file is the output of e.g. ``scopasim trace -v scopa -p 2 --policy greedy --policy random -r target=1 -s 2026
-g 0-2``.

Reading a diff: one line per game is hard to compare by eye, so ``--show FILE`` prints a file one event per line.
Let git use it for these files (``tests/golden/.gitattributes`` names the driver) with
``git config diff.golden-trace.textconv "python tests/golden/regenerate.py --show"``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).resolve().parent
sys.path.insert(0, str(FOLDER.parents[1]))  # run as a script from the root: import this checkout's simcore

from simcore import api  # noqa: E402
from simcore.config import RunConfig  # noqa: E402
from simcore.variants import VARIANTS, VariantSpec  # noqa: E402

SEED = 2026
GAMES = (0, 1, 2)


def player_counts(spec: VariantSpec) -> tuple[int, ...]:
    return tuple(spec.key("players").choices or (spec.key("players").default,))


def golden_cases() -> list[tuple[str, int]]:
    """Every registered game and player count."""
    return [(name, players) for name, spec in VARIANTS.items() for players in player_counts(spec)]


def golden_path(name: str, players: int) -> Path:
    return FOLDER / f"{name}-{players}p.jsonl"


def golden_config(name: str, players: int) -> RunConfig:
    """The run whose games the file holds (see the module docstring for the choice of target)."""
    spec = VARIANTS[name]
    rules: dict[str, Any] = {"players": players}
    if not spec.game_info(spec.resolve(rules)).mid_deal_out:
        rules["target"] = spec.key("target").min
    seats = ["greedy" if seat % 2 == 0 else "random" for seat in range(players)]
    return RunConfig.create(name, policies=seats, rules=rules, games=max(GAMES) + 1, seed=SEED)


def golden_lines(name: str, players: int) -> list[str]:
    """The file's lines, played now: compact JSON, one game a line, as ``scopasim trace`` writes them."""
    return [json.dumps(t, separators=(",", ":")) for t in api.trace(golden_config(name, players), GAMES)]


def first_difference(old: list[str], new: list[str]) -> str | None:
    """Where two versions of a file first differ, in a few readable lines; None when they are equal."""
    if old == new:
        return None
    for line, (a, b) in enumerate(zip(old, new, strict=False)):
        if a == b:
            continue
        was, now = json.loads(a), json.loads(b)
        head = f"line {line + 1} (game {now.get('game')})"
        for key in sorted(set(was) | set(now)):
            if key != "events" and was.get(key) != now.get(key):
                return f"{head}: {key} was {was.get(key)!r}, now {now.get(key)!r}"
        events_was, events_now = was["events"], now["events"]
        changed = sum(x != y for x, y in zip(events_was, events_now, strict=False))
        counts = f"{len(events_was)} events before, {len(events_now)} now, {changed} of the common ones differ"
        for i, (x, y) in enumerate(zip(events_was, events_now, strict=False)):
            if x != y:
                return f"{head}, event {i}:\n  was {json.dumps(x)}\n  now {json.dumps(y)}\n  ({counts})"
        i = min(len(events_was), len(events_now))
        extra = (events_was or events_now)[i] if i < max(len(events_was), len(events_now)) else None
        side = "only before" if len(events_was) > i else "only now"
        return f"{head}, event {i} {side}: {json.dumps(extra)}\n  ({counts})"
    return f"{len(old)} games before, {len(new)} now"


def show(path: Path) -> str:
    """A golden file one event per line (the git textconv of the module docstring)."""
    out = []
    for line in path.read_text().splitlines():
        game = json.loads(line)
        events = game.pop("events")
        out.append(json.dumps(game))
        out += ["  " + json.dumps(e) for e in events]
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    if argv[:1] == ["--show"] and len(argv) == 2:
        sys.stdout.write(show(Path(argv[1])))
        return 0
    if argv:
        print(__doc__.strip().splitlines()[0] + "\nusage: python tests/golden/regenerate.py [--show FILE]")
        return 2
    wanted = set()
    for name, players in golden_cases():
        path = golden_path(name, players)
        wanted.add(path)
        new = golden_lines(name, players)
        old = path.read_text().splitlines() if path.exists() else None
        path.write_text("\n".join(new) + "\n")
        if old is None:
            print(f"{path.name}: new ({path.stat().st_size:,} bytes)")
        else:
            diff = first_difference(old, new)
            print(f"{path.name}: " + ("unchanged" if diff is None else f"CHANGED at {diff}"))
    for stale in sorted(set(FOLDER.glob("*.jsonl")) - wanted):
        stale.unlink()
        print(f"{stale.name}: removed (no such registered game and player count)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
