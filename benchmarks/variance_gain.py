"""How many games pairing and the control variate save: ``python -m benchmarks.variance_gain [--games N]``.

Not timing: the gains are ratios of interval widths (pairing) and of variances (control variate) computed from
the same games, so the machine's load does not enter. For each rule comparison of issue 12 (Scopa ``napola``
off/on, Kaszinó ``out_call`` auto/end_of_deal; greedy self-play, 2 players, one seed) it simulates both runs and
prints, per row of ``compare_runs``, the paired interval's half-width, the unpaired one's and their ratio; then
the control variate's R² and gain on each game's 2-player greedy self-play (Foracio at 4 players). Target:
pairing 3x on the comparisons, the control variate 1.5x fewer games (issue 12). A report: it exits 0 either way.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

COMPARISONS = (
    ("scopa", "greedy", {}, {"napola": "true"}),
    ("scopa", "random", {}, {"napola": "true"}),
    ("kaszino", "greedy", {}, {"out_call": "end_of_deal"}),
)
CV_GAMES = (("scopa", 2), ("kaszino", 2), ("skopa", 2), ("foracio", 4), ("scopone", 4))
ROWS = ("first player advantage", "leader's margin per deal", "points per deal", "deals per game")


def _run(tmp: Path, name: str, variant: str, policy: str, rules: dict, games: int, players: int | None = None):
    from analysis import load_run
    from simcore import api
    from simcore.config import RunConfig

    config = RunConfig.create(variant, policies=[policy], rules=rules, players=players, games=games, seed=1)
    api.simulate(config, tmp / name)
    return load_run(tmp / name)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    args = parser.parse_args(argv)
    from analysis.balance import compare_runs
    from analysis.control import control_table

    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        print(f"paired against unpaired, {args.games:,} games a run (half-widths of 95% intervals)")
        print(f"{'comparison':44} {'metric':26} {'paired':>10} {'unpaired':>10} {'gain':>6} {'r':>6}")
        for i, (variant, policy, a_rules, b_rules) in enumerate(COMPARISONS):
            a = _run(tmp, f"a{i}", variant, policy, a_rules, args.games)
            b = _run(tmp, f"b{i}", variant, policy, b_rules, args.games)
            paired, unpaired = compare_runs(a, b), compare_runs(a, b, paired=False)
            label = f"{variant} {policy}: {', '.join(f'{k}={v}' for k, v in b_rules.items())}"
            for metric in ROWS:
                p, u = paired.loc[metric], unpaired.loc[metric]
                hp, hu = (p.ci_high - p.ci_low) / 2, (u.ci_high - u.ci_low) / 2
                print(f"{label:44} {metric:26} {hp:10.5f} {hu:10.5f} {hu / hp:5.2f}x {p.correlation:6.3f}")
        print(f"\ncontrol variate, greedy self-play, {args.games:,} games")
        print(f"{'game':10} {'measure':34} {'plain':>8} {'adjusted':>9} {'R2':>6} {'gain':>6}")
        for variant, players in CV_GAMES:
            run = _run(tmp, f"cv-{variant}", variant, "greedy", {}, args.games, players)
            for r in control_table(run).itertuples():
                print(f"{variant:10} {r.measure:34} {r.plain:8.4f} {r.estimate:9.4f} {r.r2:6.3f} {r.gain:5.2f}x")


if __name__ == "__main__":
    main()
