"""The Numba engine and the plain-Python reference play the same games: same deals, moves, scores and winners.

Each configuration plays 1,000 seeded games in both engines and compares the complete traces event by event
(every dealt card, every legal choice taken by deterministic and random policies, every point). The kernel's
traces also replay through the reference rules (legality of every move, every card in exactly one place).
"""

from __future__ import annotations

import pytest

from simcore import api
from simcore.config import RunConfig
from simcore.reference import scopa as ref
from simcore.reference.replay import replay_trace

GAMES = 1000  # the default rules (the first configuration)
OPTION_GAMES = 400  # every other configuration

CONFIGS = [
    ({}, ["greedy", "greedy"]),
    ({"target": 21, "redeal_kings": 3}, ["random", "greedy"]),
    ({"players": 3, "napola": True, "primiera": "suits"}, ["random", "greedy", "random"]),
    ({"players": 4, "last_play_scopa": True}, ["greedy", "random", "greedy", "random"]),
    ({"forced_capture": "none", "single_card_priority": False}, ["random", "random"]),
    ({"players": 4, "forced_capture": "none", "redeal_kings": 3, "target": 5}, ["random"] * 4),
    ({"sum_choice": "fewest", "single_card_priority": False, "re_bello": True}, ["greedy", "random"]),
    ({"players": 4, "sum_choice": "fewest", "re_bello": True, "napola": True}, ["random", "greedy"] * 2),
    # Part B options (S3, S12): a direction that changes nothing, and the count-out of a tie at the top
    ({"tie_break": "parlett_countout", "direction": "cw"}, ["random", "greedy"]),
    ({"tie_break": "parlett_countout", "players": 3, "napola": True, "target": 5}, ["random"] * 3),
    ({"tie_break": "parlett_countout", "players": 4}, ["random", "greedy", "random", "greedy"]),
    # S12 claim_out: a side claims the game once its sure points reach the target, mid-deal
    ({"claim_out": "on"}, ["greedy", "random"]),
    ({"claim_out": "on", "players": 3, "napola": True, "primiera": "suits"}, ["random", "greedy", "random"]),
]


def first_difference(kernel: dict, reference: dict) -> str:
    for i, (a, b) in enumerate(zip(kernel["events"], reference["events"], strict=False)):
        if a != b:
            return f"event {i}: kernel {a} != reference {b}"
    if len(kernel["events"]) != len(reference["events"]):
        return f"{len(kernel['events'])} kernel events, {len(reference['events'])} reference events"
    return ", ".join(k for k in kernel if kernel[k] != reference.get(k))


@pytest.mark.parametrize(
    "rules,policies,games",
    [(r, p, GAMES if i == 0 else OPTION_GAMES) for i, (r, p) in enumerate(CONFIGS)],
    ids=[f"config{i}" for i in range(len(CONFIGS))],
)
def test_kernel_and_reference_play_the_same_games(rules, policies, games):
    config = RunConfig.create("scopa", policies=policies, rules=rules, games=games, seed=2026)
    traces = api.trace(config, range(games))
    for trace in traces:
        expected = ref.play_game(config.seed, trace["game"], dict(config.rules), list(config.policies))
        assert trace == expected, f"game {trace['game']}: {first_difference(trace, expected)}"
    for trace in traces[:200]:
        replay_trace(trace)


def test_traces_are_the_games_simulate_writes(tmp_path):
    """Game i of a trace is row i of the simulate output with the same settings: winner, totals, deals."""
    import pandas as pd

    config = RunConfig.create("scopa", policies=["greedy", "random"], games=300, seed=99, chunk_size=128)
    api.simulate(config, tmp_path / "run", threads=1)
    games = pd.read_parquet(tmp_path / "run" / "games").set_index("game")
    deals = pd.read_parquet(tmp_path / "run" / "deals")
    for trace in api.trace(config, [0, 1, 127, 128, 299]):
        row = games.loc[trace["game"]]
        end = trace["events"][-1]
        assert (end["winner"], end["totals"]) == (row.winner, [row.total_0, row.total_1])
        scores = [e for e in trace["events"] if e["type"] == "score"]
        assert len(scores) == row.deals
        mine = deals[deals.game == trace["game"]].sort_values(["deal", "side"])
        assert list(mine.total) == [t for s in scores for t in s["totals"]]
        assert list(mine.scopa) == [p["scopa"] for s in scores for p in s["points"]]
