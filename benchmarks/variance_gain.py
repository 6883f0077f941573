"""How many games pairing and the control variate save: ``python -m benchmarks.variance_gain [--games N]``.

Not timing: the gains are ratios of interval widths (pairing) and of variances (control variate) computed from
the same games, so the machine's load does not enter. For each rule comparison of issue 12 (Scopa ``napola``
off/on, Kaszinó ``out_call`` auto/end_of_deal; greedy self-play, 2 players, one seed) it simulates both runs and
prints, per row of ``compare_runs``, the paired interval's half-width, the unpaired one's and their ratio; then
the control variates' R² and gain (``analysis.control``: the cards dealt, the mirrored greedy replays of
``analysis.mirror``, both) on every game's self-play, under greedy at ``--games`` and under lookahead at
``--strong-games``, with the CPU seconds the replays cost per 10^6 games (process time: the load enters that figure
only through cache contention); then how often the blocks of a lookahead Scopa run (``--coverage-games``, 100
blocks) cover the whole run's plain rate with each control set's 95% interval, and their mean error. Target:
pairing 3x on the comparisons, the control variate 1.5x fewer games (issue 12). A report: it exits 0 either way.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

COMPARISONS = (
    ("scopa", "greedy", {}, {"napola": "true"}),
    ("scopa", "random", {}, {"napola": "true"}),
    ("kaszino", "greedy", {}, {"out_call": "end_of_deal"}),
)
CV_GAMES = (("scopa", 2), ("kaszino", 2), ("foracio", 4), ("skopa", 2), ("scopone", 4), ("escoba", 2))
ROWS = ("first player advantage", "leader's margin per deal", "points per deal", "deals per game")


def _run(tmp: Path, name: str, variant: str, policy: str, rules: dict, games: int, players: int | None = None):
    from analysis import load_run
    from simcore import api
    from simcore.config import RunConfig

    config = RunConfig.create(variant, policies=[policy], rules=rules, players=players, games=games, seed=1)
    api.simulate(config, tmp / name)
    return load_run(tmp / name)


def control_section(tmp: Path, policy: str, games: int, only: list[str] | None = None) -> list[dict]:
    """Each game's self-play under ``policy``: the control table's rows (both measures, every control set), with
    the replays' CPU seconds per 10^6 games."""
    from analysis.control import control_table, control_weights, controls_of_part
    from analysis.mirror import mirror_controls

    rows = []
    print(f"\ncontrol variates, {policy} self-play, {games:,} games")
    print(f"{'game':8} {'measure':34} {'control':17} {'plain':>8} {'adjusted':>9} {'R2':>6} {'gain':>6}")
    for variant, players in CV_GAMES:
        if only and variant not in only:
            continue
        run = _run(tmp, f"cv-{variant}-{policy}", variant, policy, {}, games, players)
        first = {c: v[:1] for c, v in next(run.arrays("games", ["game", "first_dealer", "deals"])).items()}
        mirror_controls(run, first)  # the replay kernels compiled (or loaded) before the clock starts
        controls_of_part(run, first, np.array(list(control_weights(variant).values())))
        start = time.process_time()
        control_table(run, mirror=False)
        material = time.process_time() - start
        start = time.process_time()
        table = control_table(run, mirror=True)
        replays = time.process_time() - start - material
        for r in table.itertuples():
            rows.append({"game": variant, "policy": policy, **r._asdict()})
            print(
                f"{variant:8} {r.measure:34} {r.control:17} {r.plain:8.4f} {r.estimate:9.4f} {r.r2:6.3f} {r.gain:5.2f}x"
            )
        print(f"{variant:8} replays: {replays / games * 1e6:.1f} CPU-s per 10^6 games ({players} players)")
    return rows


def coverage_section(tmp: Path, variant: str, policy: str, games: int, blocks: int = 100) -> dict[str, float]:
    """Repeated estimation: ``blocks`` blocks of one run, each estimating the first player's win rate plainly and
    with each control set; how often the 95% intervals cover the whole run's plain rate, and the blocks' mean
    error (bias) against it."""
    from analysis.control import control_weights, controls_of_part, cv_estimate
    from analysis.mirror import mirror_controls
    from analysis.paired import Moments

    run = _run(tmp, f"cover-{variant}-{policy}", variant, policy, {}, games)
    g = run.games.sort_values("game")
    part = {c: g[c].to_numpy() for c in g.columns}
    x = controls_of_part(run, part, np.array(list(control_weights(variant).values())))
    z = mirror_controls(run, part)
    y = (g.winner == run.seat_side[g.first_player]).to_numpy().astype(np.int64)
    xz = np.column_stack([x, z])
    k = x.shape[1]
    sets = {"plain": [], "cards dealt": list(range(k)), "mirrored replays": list(range(k, xz.shape[1]))}
    sets["both"] = list(range(xz.shape[1]))
    target = y.mean()
    hits, errors = dict.fromkeys(sets, 0), {name: [] for name in sets}
    for block in np.array_split(np.arange(len(y)), blocks):
        m = Moments(xz.shape[1] + 1)
        m.add(np.column_stack([xz[block], y[block]]))
        for name, xs in sets.items():
            r = cv_estimate(m, xz.shape[1], xs)
            if name == "plain":
                r = r | {"estimate": r["plain"], "ci_low": r["plain"] - r["plain_half_width"]}
                r["ci_high"] = r["plain"] + r["plain_half_width"]
            hits[name] += r["ci_low"] <= target <= r["ci_high"]
            errors[name].append(r["estimate"] - target)
    print(f"\ncoverage: {variant} {policy}, {blocks} blocks of {games // blocks:,} games, target {target:.4f}")
    for name in sets:
        bias, sd = np.mean(errors[name]), np.std(errors[name], ddof=1)
        print(f"{name:17} covered {hits[name] / blocks:6.1%}  mean error {bias:+.4f} (sd of the blocks {sd:.4f})")
    return {name: hits[name] / blocks for name in sets}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--strong-games", type=int, default=None, help="lookahead's games [default: games / 10]")
    parser.add_argument("--only", action="append", help="control variates of this game only (repeatable)")
    parser.add_argument("--no-pairing", action="store_true", help="skip the paired comparisons")
    parser.add_argument("--coverage-games", type=int, default=20_000, help="lookahead Scopa games of the coverage")
    args = parser.parse_args(argv)
    from analysis.balance import compare_runs

    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        if not args.no_pairing:
            print(f"paired against unpaired, {args.games:,} games a run (half-widths of 95% intervals)")
            print(f"{'comparison':44} {'metric':26} {'paired':>10} {'unpaired':>10} {'gain':>6} {'r':>6}")
        for i, (variant, policy, a_rules, b_rules) in enumerate(() if args.no_pairing else COMPARISONS):
            a = _run(tmp, f"a{i}", variant, policy, a_rules, args.games)
            b = _run(tmp, f"b{i}", variant, policy, b_rules, args.games)
            paired, unpaired = compare_runs(a, b), compare_runs(a, b, paired=False)
            label = f"{variant} {policy}: {', '.join(f'{k}={v}' for k, v in b_rules.items())}"
            for metric in ROWS:
                p, u = paired.loc[metric], unpaired.loc[metric]
                hp, hu = (p.ci_high - p.ci_low) / 2, (u.ci_high - u.ci_low) / 2
                print(f"{label:44} {metric:26} {hp:10.5f} {hu:10.5f} {hu / hp:5.2f}x {p.correlation:6.3f}")
        control_section(tmp, "greedy", args.games, args.only)
        control_section(tmp, "lookahead", args.strong_games or max(args.games // 10, 1000), args.only)
        if args.coverage_games:
            coverage_section(tmp, "scopa", "lookahead", args.coverage_games)


if __name__ == "__main__":
    main()
