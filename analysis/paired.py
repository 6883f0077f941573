"""Two runs compared game by game: when they are pairable, and the paired intervals that follow.

Game i of a run is a pure function of (seed, game i, rules, policies); its deals come from stream 0 of
(seed, i) alone: the first dealer (``bounded(players)``), then one shuffle of the pack per deal or redeal
(``simcore.rng``, ``simcore.kernels.deal.start_deal``). So game i of two runs with the same seed starts from the
same packs whatever the policies, and whatever the rules that leave the dealing alone: the runs are *paired* by
game index, and their difference game by game carries far less deal luck than two independent samples.

Which rules change the dealing is read from the compiled ``Rules``, not guessed from key names: the deal stream
is read only by the first dealer's draw and by ``start_deal`` (shuffle, hands, table, redeal test), which use
exactly :data:`DEAL_FIELDS` (players, pack, hand and table sizes, the kings redeal). Two rule sets that compile
to the same values there deal game i's d-th deal identically for every d both games reach (a rule such as
``target``, Scopa's ``napola`` or Kaszinó's ``out_call`` changes how long a game lasts, not its packs). Runs are
pairable when they also share the variant, seed, RNG scheme and the same game indices in the same chunks
(manifest ``chunks_done`` and chunk size; each part's games are checked again while reading).

A paired analysis is valid for any two runs holding the same games (pairs are independent across games); it
is *tighter* only when the games are correlated, which is what the pairability check predicts. Estimates:

- win rates (0/1 per game): the difference ``p_b - p_a`` with Tango's score interval for paired proportions
  (Tango 1998, Stat. Med. 17:891; the score test inverted, with the restricted MLE in closed form). It works
  from the discordant pairs (games won in one run only) like McNemar's test, keeps its coverage when those are
  few (a paired Wald interval collapses to a point when they are none) and never leaves [-1, 1]. The test of no
  difference is McNemar's exact test (binomial on the discordant pairs; scipy's numbers via ``analysis.special``).
- per-game means (deals per game, margin of victory, ...): the paired t interval of the per-game differences.
- per-deal means (points per deal, the leader's margin, ...): a ratio of sums over games (deals per game vary),
  so the game is the unit: the paired difference of the two ratio estimators by the delta method (linearised
  per-game values ``(S - r N) / mean(N)``), a t interval with n - 1 degrees of freedom.

Each row also gives ``correlation`` (between the runs' per-game values: phi for win rates) and ``gain``: how many
times narrower the paired interval is than the unpaired one computed from the same counts (Newcombe's interval
for rates, Welch's t for per-game means, the same delta method without the covariance for per-deal means).
Everything is read part by part, both runs in step, so memory stays bounded by a part of each.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from analysis import special
from analysis.deals import deal_order
from analysis.load import Run
from simcore.errors import ConfigError

#: The ``Rules`` fields the deal stream's consumers read (first dealer, shuffle, hands, table, kings redeal, and
#: the dealer of each later deal: Foracio's ``dealer_rotation``; ``deal_rotation``, 0 in every run, moves the hands
#: in ``analysis.mirror``'s replays).
DEAL_FIELDS = ("variant", "players", "pack", "hand_size", "table_size", "redeal_kings", "dealer_step", "deal_rotation")

#: Per-game quantities compared game by game (the names of ``analysis.balance.SHAPE_METRICS``).
GAME_METRICS = ("deals per game", "plays per game", "redeals per game", "margin of victory")


@dataclass(frozen=True)
class Pairing:
    """Whether two runs are paired by game index, and why not when they are not."""

    paired: bool
    reason: str


def deal_signature(run: Run) -> tuple[Any, ...]:
    """The values of :data:`DEAL_FIELDS` under the run's rules (compiled by its variant)."""
    from simcore.variants import get_variant

    spec = get_variant(run.variant)
    rules = spec.compile(spec.resolve(run.rules))
    return tuple(int(getattr(rules, name)) for name in DEAL_FIELDS)


def pairing(a: Run, b: Run) -> Pairing:
    """Are ``a`` and ``b`` paired by game index (same seed, dealing and games)? See the module docstring."""
    checks = (
        ("variant", a.variant, b.variant),
        ("players", a.players, b.players),
        ("seed", a.seed, b.seed),
        ("RNG scheme", a.meta.get("rng_scheme"), b.meta.get("rng_scheme")),
        ("games", a.n_games, b.n_games),
        ("chunks", _chunks(a), _chunks(b)),
    )
    for what, x, y in checks:
        if x != y:
            return Pairing(False, f"different {what}")
    try:
        same_deals = deal_signature(a) == deal_signature(b)
    except (ConfigError, KeyError, TypeError, ValueError) as exc:  # rules this version cannot compile
        return Pairing(False, f"rules not compiled ({exc})")
    if not same_deals:
        return Pairing(False, "rules that change the pack or the deal schedule differ")
    return Pairing(True, "same seed, packs and deal schedule")


def _chunks(run: Run) -> tuple[Any, ...]:
    config = run.manifest.get("config", {})
    return (config.get("chunk_size"), tuple(sorted(run.manifest.get("chunks_done", []))))


# ---------------------------------------------------------------- sufficient statistics


class Moments:
    """Count, sums and cross products of integer vectors, exactly (Python integers): their means and covariance."""

    def __init__(self, k: int) -> None:
        self.n = 0
        self.s = [0] * k
        self.ss = [[0] * k for _ in range(k)]

    def add(self, z: np.ndarray) -> None:
        z = np.asarray(z, dtype=np.int64)
        if not len(z):
            return
        self.n += len(z)
        sums, cross = z.sum(axis=0).tolist(), (z.T @ z).tolist()
        k = len(self.s)
        for i in range(k):
            self.s[i] += sums[i]
            for j in range(k):
                self.ss[i][j] += cross[i][j]

    @property
    def mean(self) -> np.ndarray:
        return np.array([x / self.n for x in self.s]) if self.n else np.full(len(self.s), math.nan)

    @property
    def cov(self) -> np.ndarray:
        """Sample covariance (ddof 1), exact before the final division."""
        n, k = self.n, len(self.s)
        if n < 2:
            return np.full((k, k), math.nan)
        return np.array(
            [[(n * self.ss[i][j] - self.s[i] * self.s[j]) / (n * (n - 1)) for j in range(k)] for i in range(k)]
        )


@dataclass
class PairStats:
    """What a paired comparison needs, gathered from both runs in step.

    ``tables[name]``: games by (won in a, won in b) as ``[[both lost, b only], [a only, both won]]``;
    ``games[name]``: moments of (value in a, value in b) per game; ``deals[name]``: moments of
    (sum in a, deals in a, sum in b, deals in b) per game, for per-deal means.
    """

    tables: dict[str, np.ndarray] = field(default_factory=dict)
    games: dict[str, Moments] = field(default_factory=dict)
    deals: dict[str, Moments] = field(default_factory=dict)


class NotAlignedError(ValueError):
    """The two runs' parts do not hold the same games in the same order."""


def _games_columns(run: Run) -> list[str]:
    totals = [f"total_{k}" for k in range(run.n_sides)]
    return ["game", "first_player", "first_dealer", "winner", *totals, "deals", "plays", "redeals", "mid_deal"]


def _deals_columns(run: Run, categories: list[str]) -> list[str]:
    return ["game", "deal", "side", "led", "dealt", *categories, "points", "sweeps"]


def common_categories(a: Run, b: Run) -> list[str]:
    return [c for c in a.categories if c in b.categories]


def paired_stats(a: Run, b: Run) -> PairStats:
    """:class:`PairStats` of two runs of the same games (raises :class:`NotAlignedError` otherwise)."""
    return a.cached(f"paired_stats:{id(b)}:{b.path}", lambda: _paired_stats(a, b))


def _paired_stats(a: Run, b: Run) -> PairStats:
    cats = common_categories(a, b)
    out = PairStats()
    for name in ("first player", "first dealer", "mid-deal"):
        out.tables[name] = np.zeros((2, 2), np.int64)
    for name in GAME_METRICS:
        out.games[name] = Moments(2)
    for name in ("leader's margin per deal", "points per deal", "sweeps per deal", *(f"{c} per deal" for c in cats)):
        out.deals[name] = Moments(4)
    parts = zip(
        _aligned(a.arrays("games", _games_columns(a)), b.arrays("games", _games_columns(b))),
        _aligned(a.arrays("deals", _deals_columns(a, cats)), b.arrays("deals", _deals_columns(b, cats))),
        strict=True,
    )
    for (ga, gb), (da, db) in parts:
        _add_games(out, a, ga, gb)
        _add_deals(out, a.n_sides, cats, ga["game"], da, db)
    return out


def _aligned(xs: Iterator[dict], ys: Iterator[dict]) -> Iterator[tuple[dict, dict]]:
    """The parts of two tables in step; :class:`NotAlignedError` if one table has more parts."""
    end = object()
    while True:
        x, y = next(xs, end), next(ys, end)
        if x is end and y is end:
            return
        if x is end or y is end:
            raise NotAlignedError("the runs have different numbers of parts")
        yield x, y


def _sorted_games(part: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    game = np.asarray(part["game"], dtype=np.int64)
    if np.any(np.diff(game) <= 0):
        order = np.argsort(game, kind="stable")
        return {k: np.asarray(v)[order] for k, v in part.items()}
    return part


def _add_games(out: PairStats, run: Run, ga: dict, gb: dict) -> None:
    ga, gb = _sorted_games(ga), _sorted_games(gb)
    if not np.array_equal(ga["game"], gb["game"]) or np.any(np.diff(np.asarray(ga["game"])) <= 0):
        raise NotAlignedError("the runs' parts hold different games")
    side = run.seat_side
    for name, column in (("first player", "first_player"), ("first dealer", "first_dealer")):
        won_a = np.asarray(ga["winner"]) == side[np.asarray(ga[column], dtype=np.int64)]
        won_b = np.asarray(gb["winner"]) == side[np.asarray(gb[column], dtype=np.int64)]
        out.tables[name] += _table(won_a, won_b)
    out.tables["mid-deal"] += _table(np.asarray(ga["mid_deal"], bool), np.asarray(gb["mid_deal"], bool))
    for name, column in (("deals per game", "deals"), ("plays per game", "plays"), ("redeals per game", "redeals")):
        out.games[name].add(np.column_stack([ga[column], gb[column]]))
    va, vb = _victory(ga, run.n_sides), _victory(gb, run.n_sides)
    decided = (np.asarray(ga["winner"]) >= 0) & (np.asarray(gb["winner"]) >= 0)
    out.games["margin of victory"].add(np.column_stack([va[decided], vb[decided]]))


def _table(won_a: np.ndarray, won_b: np.ndarray) -> np.ndarray:
    return np.bincount(won_a.astype(np.int64) * 2 + won_b.astype(np.int64), minlength=4).reshape(2, 2)


def _victory(part: dict, n_sides: int) -> np.ndarray:
    """Winner's total minus the best other side's (``analysis.games``' margin of victory); 0 without a winner."""
    totals = np.column_stack([np.asarray(part[f"total_{k}"], dtype=np.int64) for k in range(n_sides)])
    winner = np.maximum(np.asarray(part["winner"], dtype=np.int64), 0)
    rows = np.arange(len(totals))
    others = totals.copy()
    others[rows, winner] = np.iinfo(np.int64).min
    return totals[rows, winner] - others.max(axis=1)


def _per_game(part: dict, n_sides: int, cats: list[str], games: np.ndarray) -> dict[str, tuple[np.ndarray, ...]]:
    """Per game of ``games`` (sorted): the sum over its deals of each per-deal quantity, and its deal count."""
    order, n_deals = deal_order(part, n_sides)
    shape = (n_deals, n_sides)
    game = np.asarray(part["game"], dtype=np.int64)[order].reshape(shape)[:, 0]
    index = np.searchsorted(games, game)
    if np.any(index >= len(games)) or np.any(games[np.minimum(index, len(games) - 1)] != game):
        raise NotAlignedError("a deals part holds games its games part does not")
    rows = np.arange(n_deals)
    led = np.asarray(part["led"])[order].reshape(shape).argmax(axis=1)
    dealt = np.asarray(part["dealt"])[order].reshape(shape).argmax(axis=1)

    def per_game(values: np.ndarray) -> np.ndarray:
        return np.bincount(index, weights=values, minlength=len(games)).round().astype(np.int64)

    points = np.asarray(part["points"])[order].reshape(shape).astype(np.int64)
    count = np.bincount(index, minlength=len(games)).astype(np.int64)
    out = {"leader's margin per deal": per_game(points[rows, led] - points[rows, dealt])}
    out["points per deal"] = per_game(points.sum(axis=1))
    for name, column in (("sweeps per deal", "sweeps"), *((f"{c} per deal", c) for c in cats)):
        out[name] = per_game(np.asarray(part[column])[order].reshape(shape).astype(np.int64).sum(axis=1))
    return {name: (values, count) for name, values in out.items()}


def _add_deals(out: PairStats, n_sides: int, cats: list[str], games: np.ndarray, da: dict, db: dict) -> None:
    games = np.sort(np.asarray(games, dtype=np.int64))
    sa, sb = _per_game(da, n_sides, cats, games), _per_game(db, n_sides, cats, games)
    for name, moments in out.deals.items():
        moments.add(np.column_stack([sa[name][0], sa[name][1], sb[name][0], sb[name][1]]))


# ---------------------------------------------------------------- estimates


def _row(difference: float, low: float, high: float, p: float, corr: float, gain: float) -> dict[str, Any]:
    return {
        "difference": difference,
        "ci_low": low,
        "ci_high": high,
        "p_value": p,
        "method": "paired",
        "correlation": corr,
        "gain": gain,
    }


def tango_interval(b_only: int, a_only: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Tango's score interval for ``p_b - p_a`` of paired 0/1 outcomes: ``b_only`` pairs with only b's 1,
    ``a_only`` with only a's, ``n`` pairs in all."""
    from scipy.optimize import brentq
    from scipy.special import ndtri

    if n < 1:
        return math.nan, math.nan
    z = float(ndtri(0.5 + level / 2))
    x, y = b_only, a_only

    def score(delta: float) -> float:
        w = -(x + y) + (2 * n - x + y) * delta
        q = (math.sqrt(max(w * w + 8 * n * y * delta * (1 - delta), 0.0)) - w) / (4 * n)  # restricted MLE of a only
        var = n * (2 * q + delta * (1 - delta))
        gap = x - y - n * delta
        if gap == 0:
            return 0.0
        return gap / math.sqrt(var) if var > 0 else math.copysign(math.inf, gap)

    d = (x - y) / n
    eps = 1e-12
    low = -1.0 if score(-1 + eps) <= z else brentq(lambda t: score(t) - z, -1 + eps, d, xtol=1e-14)
    high = 1.0 if score(1 - eps) >= -z else brentq(lambda t: score(t) + z, d, 1 - eps, xtol=1e-14)
    return float(low), float(high)


def paired_rate(table: np.ndarray, level: float = 0.95) -> dict[str, Any]:
    """``p_b - p_a`` from a paired 2x2 ``table`` (``[won in a][won in b]``): Tango's interval, McNemar's exact test,
    phi, and the gain over Newcombe's unpaired interval from the same games."""
    from analysis.balance import rate_difference

    t = np.asarray(table, dtype=np.int64)
    n = int(t.sum())
    a_only, b_only = int(t[1, 0]), int(t[0, 1])
    if n < 1:
        return _row(math.nan, math.nan, math.nan, math.nan, math.nan, math.nan)
    low, high = tango_interval(b_only, a_only, n, level)
    discordant = a_only + b_only
    p = special.binomtest_pvalue(b_only, discordant, 0.5) if discordant else 1.0
    wins_a, wins_b = int(t[1].sum()), int(t[:, 1].sum())
    unpaired = rate_difference(wins_a, n, wins_b, n, level)
    gain = (unpaired["ci_high"] - unpaired["ci_low"]) / (high - low) if high > low else math.inf
    return _row((b_only - a_only) / n, low, high, float(p), _phi(t), gain)


def _phi(t: np.ndarray) -> float:
    rows, cols = t.sum(axis=1), t.sum(axis=0)
    denom = float(rows[0]) * float(rows[1]) * float(cols[0]) * float(cols[1])
    if denom == 0:
        return math.nan
    return float(t[0, 0] * t[1, 1] - t[0, 1] * t[1, 0]) / math.sqrt(denom)


def _t_row(diff: float, var_paired: float, var_unpaired: float, n: int, df_unpaired: float, corr: float, level: float):
    from analysis.special import t_ppf, t_sf

    if n < 2 or not math.isfinite(var_paired):
        return _row(diff, math.nan, math.nan, math.nan, corr, math.nan)
    # A metric with no spread (settebello per deal: one point every deal) gets variances of rounding size from
    # the delta method's products, not 0; their ratio would print a gain of noise. Below it, they are 0.
    noise = 1e-12 * max(1.0, diff * diff)
    var_paired, var_unpaired = (v if v > noise else 0.0 for v in (var_paired, var_unpaired))
    half_u = t_ppf(0.5 + level / 2, df_unpaired) * math.sqrt(var_unpaired / n) if var_unpaired > 0 else 0.0
    if var_paired <= 0:  # every pair differs by the same amount: the difference is known exactly
        return _row(diff, diff, diff, 1.0 if diff == 0 else 0.0, corr, math.inf if half_u > 0 else math.nan)
    se = math.sqrt(var_paired / n)
    half = t_ppf(0.5 + level / 2, n - 1) * se
    p = min(2 * t_sf(abs(diff / se), n - 1), 1.0)
    return _row(diff, diff - half, diff + half, p, corr, half_u / half)


def paired_mean(m: Moments, level: float = 0.95) -> dict[str, Any]:
    """``mean(b) - mean(a)`` of per-game pairs (moments of (a, b)): the paired t interval and test."""
    n = m.n
    mean, c = m.mean, m.cov
    diff = float(mean[1] - mean[0])
    var_a, var_b, cov = c[0, 0], c[1, 1], c[0, 1]
    corr = cov / math.sqrt(var_a * var_b) if n >= 2 and var_a > 0 and var_b > 0 else math.nan
    va, vb = var_a / n if n else math.nan, var_b / n if n else math.nan
    df = (va + vb) ** 2 / (va**2 / (n - 1) + vb**2 / (n - 1)) if n >= 2 and va + vb > 0 else max(n - 1, 1)
    return _t_row(diff, var_a + var_b - 2 * cov, var_a + var_b, n, df, corr, level)


def paired_ratio(m: Moments, level: float = 0.95) -> dict[str, Any]:
    """``r_b - r_a`` of two per-deal means (ratios of per-game sums to per-game deals; moments of
    (S_a, N_a, S_b, N_b)), by the delta method with the game as the unit."""
    n = m.n
    if n < 2:
        return _row(math.nan, math.nan, math.nan, math.nan, math.nan, math.nan)
    mean, c = m.mean, m.cov
    r_a, r_b = mean[0] / mean[1], mean[2] / mean[3]
    g_a = np.array([1 / mean[1], -r_a / mean[1], 0.0, 0.0])
    g_b = np.array([0.0, 0.0, 1 / mean[3], -r_b / mean[3]])
    var_a, var_b, cov = float(g_a @ c @ g_a), float(g_b @ c @ g_b), float(g_a @ c @ g_b)
    corr = cov / math.sqrt(var_a * var_b) if var_a > 0 and var_b > 0 else math.nan
    return _t_row(float(r_b - r_a), var_a + var_b - 2 * cov, var_a + var_b, n, n - 1, corr, level)
