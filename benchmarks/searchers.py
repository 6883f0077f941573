"""mc and search: what a decision costs, and play with more than two sides: ``python -m benchmarks.searchers``.

``cost``: CPU seconds per decision of one policy in self-play on one thread, next to mc's default in 2-player
Scopa (the issue's cost ceiling), the runs interleaved round by round so a drift of the machine's load hits both;
the ratio of each round is reported (median and range). Process CPU time, not wall time, so waiting for a core
does not count (a loaded machine still slows the caches: compare ratios, not seconds).

``sides``: a policy in one seat against another policy in every other seat of a game with three sides (3-player
Scopa, Skopa, Escoba), the first policy's seat rotated over the three seats on the same deals (same seed and game
indices), so its fair share of the games is 1/3. Reports its share of the wins with a 95% t interval over the
games (each game index scores the mean of its three rotations), and the time. ``scopasim tournament`` cannot seat a
game of more than two sides, hence this.

    python -m benchmarks.searchers cost --variant foracio --policy mc:horizon=3 --games 20 --rounds 3
    python -m benchmarks.searchers sides --variant skopa --policy search:tree=1 --other mc --games 200 --seed 11
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import numpy as np

BASELINE = ("scopa", "mc")  # the ceiling: mc's default cost per decision in 2-player Scopa


def decision_seconds(variant: str, policy: str, games: int, seed: int, players: int | None = None) -> float:
    """Process CPU seconds per play of ``games`` self-play games (every seat ``policy``), kernels only."""
    from simcore import api
    from simcore.config import RunConfig

    config = RunConfig.create(variant, policies=[policy], games=games, seed=seed, players=players)
    api.warm_up(config)
    start = time.process_time()
    out = api.play_chunk(config, np.arange(games, dtype=np.int64))
    return (time.process_time() - start) / int(out.n_plays.sum())


def cost(args: argparse.Namespace) -> None:
    from simcore import api

    api.set_threads(1)  # one thread: the process's CPU time is the kernels' (and nothing runs beside them)
    ratios, mine, base = [], [], []
    for r in range(args.rounds):
        seed = args.seed + r
        b = decision_seconds(*BASELINE, args.base_games, seed)
        m = decision_seconds(args.variant, args.policy, args.games, seed, args.players)
        base.append(b)
        mine.append(m)
        ratios.append(m / b)
        print(f"round {r}: {args.variant} {args.policy} {m * 1e3:.3f} ms/decision, scopa mc {b * 1e3:.3f}, "
              f"ratio {m / b:.2f}", flush=True)  # fmt: skip
    print(f"{args.variant} {args.policy}: {statistics.median(mine) * 1e3:.3f} ms per decision (CPU, 1 thread); "
          f"over scopa mc ({statistics.median(base) * 1e3:.3f} ms): median {statistics.median(ratios):.2f}, "
          f"range {min(ratios):.2f}-{max(ratios):.2f}, {args.rounds} rounds")  # fmt: skip


def sides(args: argparse.Namespace) -> None:
    from simcore import api
    from simcore.config import RunConfig

    api.set_threads(args.threads)
    players = 3
    games = np.arange(args.first, args.first + args.games, dtype=np.int64)  # a long run can be split by game index
    wins = np.zeros(args.games)
    start = time.perf_counter()
    for seat in range(players):
        policies = [args.other] * players
        policies[seat] = args.policy
        config = RunConfig.create(args.variant, policies=policies, games=args.games, seed=args.seed, players=players)
        out = api.play_chunk(config, games)
        if np.any(out.overflow != 0):
            raise SystemExit(f"seat {seat}: {int(np.count_nonzero(out.overflow))} games overflowed or faulted")
        wins += out.winner == seat  # 3 players: one seat per side
    seconds = time.perf_counter() - start
    share = wins / players
    mean = float(share.mean())
    sd = float(share.std(ddof=1))
    half = 1.96 * sd / math.sqrt(args.games)
    print(f"{args.variant} 3p, {args.policy} in one seat (rotated) vs {args.other}: {mean:.1%} of the games "
          f"(95% CI {mean - half:.1%}-{mean + half:.1%}; fair share 33.3%), {args.games} games x 3 seats (games "
          f"{args.first}-{args.first + args.games - 1}), seed {args.seed}, {seconds:.0f} s wall; share sd "
          f"{sd:.6f}")  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    c = sub.add_parser("cost", help="CPU per decision next to mc in 2-player Scopa")
    c.add_argument("--variant", default="foracio")
    c.add_argument("--policy", default="mc")
    c.add_argument("--players", type=int, default=None)
    c.add_argument("--games", type=int, default=20)
    c.add_argument("--base-games", type=int, default=100)
    c.add_argument("--rounds", type=int, default=3)
    c.add_argument("--seed", type=int, default=1)
    s = sub.add_parser("sides", help="one seat against the others in a 3-sided game, rotated")
    s.add_argument("--variant", default="skopa")
    s.add_argument("--policy", default="search")
    s.add_argument("--other", default="mc")
    s.add_argument("--games", type=int, default=200)
    s.add_argument("--first", type=int, default=0, help="index of the first game (to split a long run)")
    s.add_argument("--seed", type=int, default=11)
    s.add_argument("--threads", type=int, default=None)
    args = parser.parse_args(argv)
    if args.what == "sides" and (args.first < 0 or args.games < 2):
        parser.error("sides: --first must be 0 or more and --games at least 2")
    cost(args) if args.what == "cost" else sides(args)


if __name__ == "__main__":
    main()
