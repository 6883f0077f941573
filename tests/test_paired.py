"""analysis.paired (issue 12): when two runs are paired by game index, and the paired intervals of compare_runs,
each checked against scipy / numpy computed directly on the merged games; duplicate pairs in tournaments and the
mirrored self-play symmetry."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats
from statsmodels.stats import proportion as smp

from analysis import load_run
from analysis.balance import compare_runs
from analysis.paired import pairing, tango_interval
from analysis.tournament import bradley_terry, load_tournament, pairing_table
from simcore import api
from simcore.config import RunConfig
from simcore.tournament import run_tournament


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Scopa 2p greedy, 1500 games in 3 chunks: napola off and on (pairable), another seed, 3 players, a kings
    redeal (which changes the deal schedule), and Kaszinó's out_call both ways."""
    base = tmp_path_factory.mktemp("paired")
    configs = {
        "off": ("scopa", {}, 7, None),
        "napola": ("scopa", {"napola": "true"}, 7, None),
        "other_seed": ("scopa", {"napola": "true"}, 8, None),
        "kings": ("scopa", {"redeal_kings": "3"}, 7, None),
        "three": ("scopa", {}, 7, 3),
        "auto": ("kaszino", {}, 7, None),
        "end_of_deal": ("kaszino", {"out_call": "end_of_deal"}, 7, None),
    }
    paths = {}
    for name, (variant, rules, seed, players) in configs.items():
        config = RunConfig.create(variant, rules=rules, seed=seed, players=players, games=1500, chunk_size=500)
        paths[name] = base / name
        api.simulate(config, paths[name], threads=1)
    return {name: load_run(p) for name, p in paths.items()}


def test_pairing_follows_the_dealing(runs):
    assert pairing(runs["off"], runs["napola"]).paired
    assert pairing(runs["auto"], runs["end_of_deal"]).paired
    assert pairing(runs["off"], runs["other_seed"]) == pairing(runs["off"], runs["other_seed"])
    assert pairing(runs["off"], runs["other_seed"]).reason == "different seed"
    assert pairing(runs["off"], runs["three"]).reason == "different players"
    assert "deal schedule" in pairing(runs["off"], runs["kings"]).reason
    assert pairing(runs["off"], runs["auto"]).reason == "different variant"


def test_unpaired_runs_fall_back_and_say_so(runs):
    table = compare_runs(runs["off"], runs["other_seed"])
    assert (table["method"] == "unpaired").all() and table["gain"].isna().all()
    forced = compare_runs(runs["off"], runs["napola"], paired=False)
    assert (forced["method"] == "unpaired").all()
    paired = compare_runs(runs["off"], runs["napola"])
    assert (paired["method"] == "paired").all()
    assert list(paired.index) == list(forced.index)  # the same rows either way
    assert paired["a"].to_numpy() == pytest.approx(forced["a"].to_numpy(), rel=1e-12)
    assert paired["difference"].to_numpy() == pytest.approx(forced["difference"].to_numpy(), rel=1e-9, abs=1e-12)


def _games(run) -> pd.DataFrame:
    return run.games.sort_values("game").reset_index(drop=True)


def test_paired_rate_is_tango_with_mcnemar(runs):
    a, b = runs["off"], runs["napola"]
    row = compare_runs(a, b).loc["first player advantage"]
    ga, gb = _games(a), _games(b)
    won_a = (ga.winner == ga.first_player).to_numpy()  # 2 players: the side is the seat
    won_b = (gb.winner == gb.first_player).to_numpy()
    b_only, a_only = int((won_b & ~won_a).sum()), int((won_a & ~won_b).sum())
    assert row["difference"] == pytest.approx((b_only - a_only) / 1500)
    assert row["p_value"] == pytest.approx(stats.binomtest(b_only, b_only + a_only).pvalue)
    low, high = tango_interval(b_only, a_only, 1500)
    assert (row["ci_low"], row["ci_high"]) == (low, high)
    newcombe = smp.confint_proportions_2indep(won_b.sum(), 1500, won_a.sum(), 1500, method="newcomb", compare="diff")
    assert row["gain"] == pytest.approx((newcombe[1] - newcombe[0]) / (high - low))
    assert row["correlation"] == pytest.approx(np.corrcoef(won_a, won_b)[0, 1])


def _tango_by_brute_force(x: int, y: int, n: int, level: float) -> tuple[float, float]:
    """The score interval with the restricted MLE found numerically (not from the closed form)."""
    z = stats.norm.ppf(0.5 + level / 2)
    m = n - x - y

    def statistic(delta: float) -> float:
        lo, hi = max(0.0, -delta) + 1e-13, (1 - delta) / 2 - 1e-13

        def nll(q: float) -> float:
            return -(y * math.log(q) + x * math.log(q + delta) + m * math.log(max(1 - 2 * q - delta, 1e-300)))

        q = optimize.minimize_scalar(nll, bounds=(lo, hi), method="bounded", options={"xatol": 1e-14}).x
        return (x - y - n * delta) / math.sqrt(n * (2 * q + delta * (1 - delta)))

    d = (x - y) / n
    low = optimize.brentq(lambda t: statistic(t) - z, -1 + 1e-9, d - 1e-12)
    high = optimize.brentq(lambda t: statistic(t) + z, d + 1e-12, 1 - 1e-9)
    return low, high


@pytest.mark.parametrize(("x", "y", "n"), [(12, 5, 100), (40, 41, 1000), (3, 0, 50), (25, 2, 60)])
def test_tango_interval_inverts_the_score_test(x, y, n):
    assert tango_interval(x, y, n, 0.95) == pytest.approx(_tango_by_brute_force(x, y, n, 0.95), abs=1e-6)


def test_tango_interval_without_discordant_pairs_is_not_a_point():
    low, high = tango_interval(0, 0, 10_000)
    assert low < 0 < high and high == pytest.approx(-low) and high < 1e-3


def test_paired_means_are_paired_t_and_delta_method(runs):
    a, b = runs["off"], runs["napola"]
    table = compare_runs(a, b, level=0.9)
    ga, gb = _games(a), _games(b)
    t = stats.ttest_rel(gb.deals, ga.deals)
    ci = t.confidence_interval(0.9)
    row = table.loc["deals per game"]
    assert (row["ci_low"], row["ci_high"], row["p_value"]) == pytest.approx((ci.low, ci.high, t.pvalue), rel=1e-9)
    welch = stats.ttest_ind(gb.deals, ga.deals, equal_var=False).confidence_interval(0.9)
    assert row["gain"] == pytest.approx((welch.high - welch.low) / (ci.high - ci.low), rel=1e-9)
    # per-deal means: ratio estimators with the game as the unit, linearised
    per_game = []
    for run in (a, b):
        d = run.deals.groupby("game").agg(points=("points", "sum"), rows=("side", "size"))
        per_game.append((d.points.to_numpy(float), d.rows.to_numpy(float) / run.n_sides))
    (sa, na), (sb, nb) = per_game
    ra, rb = sa.sum() / na.sum(), sb.sum() / nb.sum()
    u = (sb - rb * nb) / nb.mean() - (sa - ra * na) / na.mean()
    half = stats.t.ppf(0.95, 1499) * u.std(ddof=1) / math.sqrt(1500)
    row = table.loc["points per deal"]
    assert row["difference"] == pytest.approx(rb - ra, rel=1e-12)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((rb - ra - half, rb - ra + half), rel=1e-9)


def test_a_run_against_itself(runs):
    same = compare_runs(runs["off"], runs["off"])
    assert (same["difference"] == 0).all() and (same["p_value"] == 1).all()
    rate = same.loc["first player advantage"]
    assert rate["ci_low"] < 0 < rate["ci_high"]  # no discordant pairs is evidence, not certainty
    assert same.loc["points per deal", "ci_low"] == same.loc["points per deal", "ci_high"] == 0


def test_out_call_comparison_is_much_tighter_paired(runs):
    table = compare_runs(runs["auto"], runs["end_of_deal"])
    row = table.loc["first player advantage"]
    assert row["method"] == "paired" and row["correlation"] > 0.5 and row["gain"] > 1.4


# ---------------------------------------------------------------- tournaments: duplicate pairs as units


@pytest.mark.parametrize(("x", "y"), [("points", "defensive"), ("greedy", "lookahead")])
def test_a_tournament_read_from_either_side_is_exactly_mirrored(tmp_path, x, y):
    """Listing the policies the other way round plays the same seatings (the same deals, each policy in the same
    seats), so the pairing row must be the exact mirror: A's rate becomes 1 - rate, the pair interval and the
    margin flip, the split pairs stay, the ratings change sign. A slip in which seat or seating counts for whom
    breaks it."""
    tables = []
    for order in ((x, y), (y, x)):
        out = tmp_path / "-".join(order)
        run_tournament("scopa", list(order), games=200, seed=9, out=out)
        index, runs = load_tournament(out)
        table = pairing_table(index, runs)
        tables.append((table.iloc[0], bradley_terry(table, index["policies"]).set_index("policy")))
    (one, r1), (two, r2) = tables
    assert (one.a, one.b) == (two.b, two.a) and one.games == two.games
    assert one.rate == pytest.approx(1 - two.rate, abs=1e-15)
    assert (one.ci_low, one.ci_high) == pytest.approx((1 - two.ci_high, 1 - two.ci_low), abs=1e-12)
    assert (one.pairs_won, one.pairs_split, one.pairs_lost) == (two.pairs_lost, two.pairs_split, two.pairs_won)
    assert one.margin == pytest.approx(-two.margin) and one.margin_low == pytest.approx(-two.margin_high)
    assert r1.loc[y, "rating"] - r1.loc[x, "rating"] == pytest.approx(r2.loc[y, "rating"] - r2.loc[x, "rating"])


def test_pairing_interval_counts_pairs_not_games(tmp_path):
    out = tmp_path / "t"
    run_tournament("scopa", ["random", "greedy"], games=400, seed=2, out=out)
    index, runs = load_tournament(out)
    row = pairing_table(index, runs).iloc[0]
    (_, _, ab), (_, _, ba) = runs
    ab, ba = ab.sort_values("game"), ba.sort_values("game")
    score = ((ab.winner == 0).to_numpy().astype(float) + (ba.winner == 1).to_numpy()) / 2
    half = stats.t.ppf(0.975, 399) * stats.sem(score)
    assert (row.ci_low, row.ci_high) == pytest.approx((score.mean() - half, score.mean() + half))
    assert row.pairs_won + row.pairs_split + row.pairs_lost == 400 and row.rate == pytest.approx(score.mean())
    wilson = smp.proportion_confint(row.wins, 800, method="wilson")
    assert (row.wilson_low, row.wilson_high) == pytest.approx(wilson)


# ---------------------------------------------------------------- self-play on mirrored seats, in the engine


def _play_deal(config: RunConfig, dealer: int, deal_state: int, streams: list[int]) -> np.ndarray:
    """One deal played by the engine's own deal loop from a given deal-stream state, dealer and policy streams
    (``simcore.kernels.game.play_deal`` without the Monte Carlo branch); returns its event rows."""
    from simcore.kernels.game import EV_WIDTH, begin_deal, fill_rule_info, new_scratch, run_deal
    from simcore.kernels.workspace import DEAL_RNG, RNG
    from simcore.policies import policy_arrays

    rules = config.compiled_rules()
    ids, params = policy_arrays(config.policy_choices(), config.rules)
    s = new_scratch(rules)
    gs, ps = s.gs, s.ps
    fill_rule_info(ps, rules)
    for seat, state in enumerate(streams):
        ps[RNG + 1 + seat] = state
    gs[DEAL_RNG] = deal_state
    events = np.zeros((1, 4096, EV_WIDTH), np.int64)
    _, ne = begin_deal(rules, gs, 0, dealer, events, 0, 0)
    from simcore.engine import run_features  # the kernels a run of these seats compiled, not new ones

    status, ne = run_deal(rules, ids, params, gs, ps, events, 0, ne, -1, *run_features(rules, ids))
    assert status != 2 and ne < events.shape[1]  # no Monte Carlo stop; every event kept
    return events[0, :ne].copy()


SEAT_FIELD = {0: 2, 1: 1, 4: 1, 5: 1, 7: 1}  # event type -> the field holding a seat (EV_DEAL: b, the dealer)


@pytest.mark.parametrize(
    ("variant", "players"),
    [
        ("scopa", 2),
        ("scopa", 3),
        ("scopa", 4),
        ("kaszino", 2),
        ("skopa", 3),
        ("foracio", 4),
        ("scopone", 4),
        ("escoba", 2),
        ("escoba", 3),
    ],
)
@pytest.mark.parametrize("policy", ["greedy", "points", "defensive", "lookahead"])
def test_a_policy_against_itself_on_mirrored_seats_plays_the_mirrored_deal(variant, players, policy):
    """The same shuffle dealt by the next seat hands every seat's cards to the seat after it; with the policy
    streams moved along too, the deal must be played card for card the same way, one seat on. Anything that
    treats a seat number differently (a tie broken by seat, a side looked up wrongly, a stream or a parameter
    row read for the wrong seat) shows as a different play; with the streams left in place, lookahead fails it."""
    config = RunConfig.create(variant, players=players, policies=[policy], games=1, seed=0)
    rng = np.random.default_rng(players * 31 + len(policy))
    for _ in range(4):
        deal_state, *streams = (int(x) for x in rng.integers(-(2**63), 2**63 - 1, size=players + 1))
        base = _play_deal(config, 0, deal_state, streams)
        moved = _play_deal(config, 1, deal_state, streams[-1:] + streams[:-1])
        assert base.shape == moved.shape
        expected = base.copy()
        for row in expected:
            if int(row[0]) in SEAT_FIELD:
                row[SEAT_FIELD[int(row[0])]] = (row[SEAT_FIELD[int(row[0])]] + 1) % players
        assert (moved == expected).all()


def test_a_metric_without_spread_is_exact_and_claims_no_gain(tmp_path):
    """Scopa's settebello is one point every deal, in both runs: the delta method's variances are of rounding size
    (they printed a gain of 0.3x), so the difference is exact (a zero-width interval) and no gain is claimed."""
    from analysis import load_run
    from analysis.balance import compare_runs
    from simcore import api
    from simcore.config import RunConfig

    for name, rules in (("a", {}), ("b", {"napola": "true"})):
        api.simulate(RunConfig.create("scopa", rules=rules, games=2000, seed=1), tmp_path / name)
    row = compare_runs(load_run(tmp_path / "a"), load_run(tmp_path / "b")).loc["settebello per deal"]
    assert row["method"] == "paired" and row["difference"] == 0 and row["ci_low"] == row["ci_high"] == 0
    assert math.isnan(row["gain"])
