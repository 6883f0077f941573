"""Golden playthroughs (``tests/golden/``): every registered game and player count replays its file exactly.

A difference means the games changed. If the change is intended (a rule or engine change), run
``python tests/golden/regenerate.py`` and commit the files, so the change is reviewed as a diff of them.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from simcore.trace import check_trace

FOLDER = Path(__file__).parent / "golden"
_spec = importlib.util.spec_from_file_location("golden_regenerate", FOLDER / "regenerate.py")
regenerate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(regenerate)

HINT = "if the change is intended, run `python tests/golden/regenerate.py` from the repository root and commit"


@pytest.mark.parametrize("name,players", regenerate.golden_cases(), ids=lambda v: str(v))
def test_games_replay_their_golden_file(name, players):
    path = regenerate.golden_path(name, players)
    assert path.exists(), f"no golden file {path.name} for {name} with {players} players: {HINT}"
    old = path.read_text().splitlines()
    new = regenerate.golden_lines(name, players)
    diff = regenerate.first_difference(old, new)
    assert diff is None, f"{path.name} differs from the games played now, at {diff}\n{HINT}"


def test_golden_files_are_registered_games_and_valid_traces():
    wanted = {regenerate.golden_path(n, p) for n, p in regenerate.golden_cases()}
    stale = sorted(p.name for p in set(FOLDER.glob("*.jsonl")) - wanted)
    assert not stale, f"golden files of no registered game and player count: {stale}; {HINT}"
    for path in sorted(wanted & set(FOLDER.glob("*.jsonl"))):
        for line in path.read_text().splitlines():
            problem = check_trace(json.loads(line))
            assert problem is None, f"{path.name}: not a scopasim-trace/1 game: {problem}"


def test_a_difference_is_shown_at_its_first_event():
    name, players = regenerate.golden_cases()[0]
    lines = regenerate.golden_lines(name, players)
    changed = lines[1].replace('"kind":"trail"', '"kind":"capture"', 1)
    diff = regenerate.first_difference(lines, [lines[0], changed, *lines[2:]])
    assert diff.startswith("line 2 (game 1), event ") and '"kind": "capture"' in diff
    assert regenerate.first_difference(lines, lines) is None
    assert regenerate.first_difference(lines, lines[:2]) == "3 games before, 2 now"
