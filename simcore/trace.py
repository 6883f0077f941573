"""Game traces (``../shared/TRACE_FORMAT.md``, ``scopasim-trace/1``): decode the kernels' event rows into them,
and read them back from a file, checked, for ``scopasim replay --trace``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from simcore.cards import RANK_CHARS, SUIT_CHARS, format_mask
from simcore.errors import ConfigError, shown
from simcore.kernels.game import (
    EV_DEAL,
    EV_END,
    EV_HAND,
    EV_OPENING,
    EV_OUT,
    EV_PLAY,
    EV_REDEAL,
    EV_RESIDUE,
    EV_SCORE,
    EV_TABLE,
    KIND_CAPTURE,
    KIND_KEEP,
    KIND_TRAIL,
    ChunkOut,
)
from simcore.layout import short_path
from simcore.variants.base import VariantSpec

TRACE_FORMAT = "scopasim-trace/1"
REDEAL_REASONS = ("kings",)
PLAY_KINDS = {KIND_CAPTURE: "capture", KIND_TRAIL: "trail", KIND_KEEP: "keep"}


def game_trace(
    out: ChunkOut,
    row: int,
    *,
    spec: VariantSpec,
    rules: dict[str, Any],
    policies: list[str],
    seed: int,
    game: int,
) -> dict[str, Any]:
    """The trace of the game in row ``row`` of a chunk played with ``trace=True``."""
    players = int(rules["players"])
    n_sides = len(spec.sides(players))
    events: list[dict[str, Any]] = []
    for ev in out.events[row, : out.n_events[row]]:
        kind, a, b, c, d, m1, m2 = (int(x) for x in ev)
        if kind == EV_DEAL:
            events.append({"type": "deal", "deal": a, "dealer": b})
        elif kind == EV_HAND:
            events.append({"type": "hand", "seat": a, "cards": format_mask(m1)})
        elif kind == EV_TABLE:
            events.append({"type": "table", "cards": format_mask(m1)})
        elif kind == EV_REDEAL:
            events.append({"type": "redeal", "reason": REDEAL_REASONS[a]})
        elif kind == EV_PLAY:
            events.append(
                {
                    "type": "play",
                    "seat": a,
                    "cards": format_mask(m1),
                    "take": format_mask(m2),
                    "kind": PLAY_KINDS[b],
                    "points": c,
                    "sweep": bool(d),
                }
            )
        elif kind == EV_RESIDUE:
            events.append({"type": "residue", "seat": a, "cards": format_mask(m1)})
        elif kind == EV_SCORE:
            points = [
                {cat: int(out.deal_points[row, a, side, k]) for k, cat in enumerate(spec.categories_for(rules))}
                for side in range(n_sides)
            ]
            totals = [int(out.deal_totals[row, a, side]) for side in range(n_sides)]
            events.append({"type": "score", "deal": a, "points": points, "totals": totals})
        elif kind == EV_OUT:
            events.append({"type": "out", "seat": a})
        elif kind == EV_OPENING:
            events.append({"type": "opening", "seat": a, "cards": format_mask(m1), "points": b})
        elif kind == EV_END:
            totals = [int(x) for x in out.totals[row, :n_sides]]
            events.append({"type": "end", "winner": a, "totals": totals})
    return {
        "format": TRACE_FORMAT,
        "variant": spec.name,
        "rules": dict(rules),
        "players": players,
        "sides": spec.sides(players),
        "policies": list(policies),
        "seed": seed,
        "game": game,
        "events": events,
    }


# ---------------------------------------------------------------------------------------------- reading traces

MAX_LINE = 16 << 20  # bytes of one game's line; a real game is tens of kilobytes
CARD = re.compile(f"[{RANK_CHARS}][{SUIT_CHARS}]")
HEADER = {
    "format": str,
    "variant": str,
    "rules": dict,
    "players": int,
    "sides": list,
    "policies": list,
    "seed": int,
    "game": int,
    "events": list,
}
CARDS = "cards"  # a field that is a list of cards
JSON_NAMES = {dict: "object", list: "array", str: "string", int: "integer", float: "number", bool: "boolean"}
EVENT_FIELDS: dict[str, dict[str, Any]] = {
    "deal": {"deal": int, "dealer": int},
    "table": {"cards": CARDS},
    "hand": {"seat": int, "cards": CARDS},
    "redeal": {"reason": str},
    "play": {"seat": int, "cards": CARDS, "take": CARDS, "kind": str, "points": int, "sweep": bool},
    "residue": {"seat": int, "cards": CARDS},
    "score": {"deal": int, "points": list, "totals": list},
    "out": {"seat": int},
    "end": {"winner": int, "totals": list},
    "opening": {"seat": int, "cards": CARDS, "points": int},
}


def _fits(value: Any, kind: Any) -> bool:
    if kind is CARDS:
        return isinstance(value, list) and all(isinstance(c, str) and CARD.fullmatch(c) for c in value)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def check_trace(game: Any) -> str | None:
    """What makes ``game`` not a ``scopasim-trace/1`` game object (its required fields, ../shared/TRACE_FORMAT.md),
    or None if it is one."""
    if not isinstance(game, dict):
        return f"a JSON {JSON_NAMES.get(type(game), 'value')}, not a game object"
    if "format" not in game:
        return "no 'format' field"
    if game["format"] != TRACE_FORMAT:
        return f"format is {shown(game['format'])}, not {TRACE_FORMAT!r}"
    for key, kind in HEADER.items():
        if key not in game:
            return f"no {key!r} field"
        if not _fits(game[key], kind):
            return f"field {key!r} is not a JSON {JSON_NAMES[kind]}"
    if not all(isinstance(p, str) for p in game["policies"]):
        return "field 'policies' is not a list of strings"
    if not all(isinstance(side, list) and all(_fits(s, int) for s in side) for side in game["sides"]):
        return "field 'sides' is not a list of lists of seats"
    for i, event in enumerate(game["events"]):
        kind = event.get("type") if isinstance(event, dict) else None
        if kind not in EVENT_FIELDS:
            return f"event {i} has no known type ({shown(kind)})"
        for key, field in EVENT_FIELDS[kind].items():
            if not _fits(event.get(key), field):
                return f"event {i} ({kind}) has no valid {key!r}"
        if kind == "play" and event["kind"] not in PLAY_KINDS.values():
            return f"event {i} (play) has an unknown kind {shown(event['kind'])}"
        if kind == "score" and not all(
            isinstance(side, dict) and all(_fits(v, int) for v in side.values()) for side in event["points"]
        ):
            return f"event {i} (score) has points that are not category: integer objects"
        if kind in ("score", "end") and not all(_fits(t, int) for t in event["totals"]):
            return f"event {i} ({kind}) has totals that are not integers"
    return None


def read_trace(path: Path, game: int | None = None) -> dict[str, Any]:
    """Game ``game`` (default: the first) of a JSON-lines trace file, read line by line and checked; any problem
    is a ConfigError naming the file and the line."""
    name = short_path(" ".join(str(path).split()))  # the file's name stays whole in the message
    seen: list[int] = []  # the first few games of the file, for the message when ``game`` is not among them
    count = 0
    try:
        if Path(path).is_dir():
            raise ConfigError(f"{name} is a folder, not a trace file")
        with open(path, "rb") as f:
            for number, line in enumerate(iter(lambda: f.readline(MAX_LINE + 1), b""), 1):
                if len(line) > MAX_LINE:
                    raise ConfigError(f"{name}, line {number}: longer than {MAX_LINE >> 20} MiB, not a trace")
                if not line.strip():
                    continue
                trace = _parse_line(name, number, line)
                if game is None or trace["game"] == game:
                    return trace
                count += 1
                if len(seen) < 10:
                    seen.append(trace["game"])
    except OSError as exc:
        raise ConfigError(f"cannot read {name}: {exc.strerror or exc}") from None
    if not count:
        raise ConfigError(f"{name} holds no game (an empty file)")
    listed = ", ".join(str(g) for g in seen) + (f", ... ({count:,} games)" if count > len(seen) else "")
    raise ConfigError(f"{name} has no game {game} (games: {listed})")


def _parse_line(name: str, number: int, line: bytes) -> dict[str, Any]:
    try:
        trace = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{name}, line {number}: not UTF-8 text (a binary file?), not a trace") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{name}, line {number}: not JSON ({exc.msg} at column {exc.colno}), not a trace") from None
    except RecursionError:
        raise ConfigError(f"{name}, line {number}: JSON nested too deeply, not a trace") from None
    problem = check_trace(trace)
    if problem is not None:
        raise ConfigError(f"{name}, line {number}: not a {TRACE_FORMAT} game: {problem}")
    return trace
