"""The seat-advantage control variate (issue 12): the dealt hands replayed by simcore.dealt are the trace's, the
estimator is OLS's intercept, its controls have mean zero, and its intervals cover the long-run rate."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats

from analysis import load_run
from analysis.control import control_table, control_weights, controls_of_part, cv_estimate, material
from analysis.paired import Moments
from simcore import api
from simcore.cards import parse_card
from simcore.config import RunConfig
from simcore.dealt import dealt_hands
from simcore.variants import VARIANTS

GAMES = [
    ("scopa", {}, None),
    ("scopa", {"redeal_kings": "3"}, 3),
    ("scopa", {}, 4),
    ("kaszino", {"round_leader": "non_dealer"}, None),
    ("kaszino", {}, None),
    ("foracio", {}, None),
    ("foracio", {"dealer_rotation": "fixed"}, None),
    ("skopa", {}, 3),
    ("escoba", {}, None),
    ("escoba", {}, 4),
]


def _mask(cards: list[str]) -> int:
    return sum(1 << parse_card(c) for c in cards)


@pytest.mark.parametrize(("variant", "rules", "players"), GAMES)
def test_dealt_hands_are_the_traced_deals(variant, rules, players):
    config = RunConfig.create(variant, rules=rules, players=players, games=40, seed=21, policies=["random"])
    traces = api.trace(config, range(40))
    spec = config.spec
    n_deals = [sum(e["type"] == "score" for e in t["events"]) for t in traces]
    dealt = dealt_hands(spec.compile(config.rules), config.seed, np.arange(40), np.array(n_deals))
    nominal = variant != "kaszino" or rules.get("round_leader") == "non_dealer"
    row = 0
    for game, trace in enumerate(traces):
        deals = []  # per deal: the dealer, the last table, every seat's hands (a redeal starts the deal again)
        for e in trace["events"]:
            if e["type"] == "deal":
                if deals and deals[-1]["deal"] == e["deal"]:
                    deals.pop()
                deals.append({"deal": e["deal"], "dealer": e["dealer"], "hands": {}, "first": {}, "table": 0, "out": 0})
            elif e["type"] == "out":
                deals[-1]["out"] = 1
            elif e["type"] == "hand":
                d = deals[-1]
                d["first"].setdefault(e["seat"], _mask(e["cards"]))
                d["hands"][e["seat"]] = d["hands"].get(e["seat"], 0) | _mask(e["cards"])
            elif e["type"] == "table":
                deals[-1]["table"] = _mask(e["cards"])
        assert dealt.first_dealer[game] == deals[0]["dealer"]
        for d in deals[: n_deals[game]]:
            assert dealt.dealer[row] == d["dealer"] and dealt.table[row] == d["table"]
            everyone = int(np.bitwise_or.reduce(dealt.hands[row]))
            assert everyone | d["table"] == spec.compile(config.rules).pack  # the whole pack, every round
            for seat in range(config.players):
                assert dealt.first_round[row, seat] == d["first"][seat]
                traced, replayed = d["hands"][seat], int(dealt.hands[row, seat])
                if not nominal:  # Kaszino's default: the last capturer draws first after the first round
                    assert traced & ~everyone == 0
                elif d["out"]:  # won mid-deal: the later rounds were never dealt
                    assert traced & ~replayed == 0
                else:
                    assert traced == replayed
            row += 1


def test_material_counts_the_weighted_cards():
    weights = np.stack([control_weights("scopa")["coins"], control_weights("scopa")["sevens"]])
    masks = np.array([_mask(["7d", "7c", "Ad", "Kd"]), 0, _mask(["2h"])])
    assert material(masks, weights).tolist() == [[3, 2], [0, 0], [0, 0]]


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    path = tmp_path_factory.mktemp("cv") / "scopa"
    api.simulate(RunConfig.create("scopa", games=40_000, seed=17, chunk_size=10_000), path, threads=1)
    return load_run(path)


def test_the_estimate_is_the_ols_intercept(big):
    games = big.games.iloc[:3000]
    controls = control_weights("scopa")
    names = list(controls)
    weights = np.array([controls[n] for n in names])
    x = controls_of_part(big, {c: games[c].to_numpy() for c in games.columns}, weights)
    y = (games.winner == games.first_player).to_numpy().astype(np.int64)
    m = Moments(len(names) + 1)
    m.add(np.column_stack([x, y]))
    r = cv_estimate(m, len(names), list(range(len(names))), level=0.9)
    fit = sm.OLS(y.astype(float), sm.add_constant(x.astype(float))).fit()
    low, high = fit.conf_int(0.1)[0]
    assert (r["estimate"], r["ci_low"], r["ci_high"]) == pytest.approx((fit.params[0], low, high), rel=1e-9)
    assert r["r2"] == pytest.approx(fit.rsquared, rel=1e-9)


def test_controls_have_mean_zero_and_intervals_cover(big):
    """200 blocks of 200 games: the controls' means are zero within their errors, and the adjusted 95%
    intervals of the blocks cover the 40,000 games' plain rate about 95% of the time (binomial sd 1.5 points)."""
    games = big.games.sort_values("game")
    controls = control_weights("scopa")
    names = list(controls)
    weights = np.array([controls[n] for n in names])
    x = controls_of_part(big, {c: games[c].to_numpy() for c in games.columns}, weights)
    for k in range(len(names)):
        assert abs(stats.ttest_1samp(x[:, k], 0).statistic) < 4, names[k]
    y = (games.winner == games.first_player).to_numpy().astype(np.int64)
    target = y.mean()
    covered = 0
    for block in np.split(np.arange(len(y)), 200):
        m = Moments(len(names) + 1)
        m.add(np.column_stack([x[block], y[block]]))
        r = cv_estimate(m, len(names), list(range(len(names))))
        covered += r["ci_low"] <= target <= r["ci_high"]
    assert 0.91 <= covered / 200 <= 0.99


def test_control_table(big):
    table = control_table(big).set_index(["measure", "control"])
    wins = table.loc[("first player's side wins", "cards dealt")]
    assert wins["plain"] == pytest.approx((big.games.winner == big.games.first_player).mean())
    assert wins["gain"] > 1 and 0 < wins["r2"] < 1 and wins["controls"] == len(control_weights("scopa"))
    assert wins["ci_low"] < wins["estimate"] < wins["ci_high"]


def test_analyze_and_report_show_the_adjusted_figure(big):
    from analysis.report import render_report
    from analysis.tables import Analysis, to_markdown

    text = to_markdown(Analysis.of([big], names=["control_variate"]))
    assert "adjusted for the cards dealt" in text and "| first player's side wins |" in text
    assert 'data-table="control_variate"' in render_report([big])


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_game_declares_controls_of_its_own_pack(variant):
    """The controls are a game's facts, in its module (``VariantSpec.controls``): every registered game declares
    some, with distinct names, each a set of cards of its pack."""
    spec = VARIANTS[variant]
    pack = spec.compile(spec.resolve({})).pack
    names = [name for name, _ in spec.controls]
    assert names and len(set(names)) == len(names)
    assert all(mask & pack for _, mask in spec.controls)
