"""The cards each seat was dealt in each deal of a run's games, recomputed from (seed, game, rules) alone.

The results tables do not hold the dealt cards, and need not: stream 0 of (seed, game) serves only the deal
(the first dealer, then one shuffle per deal or redeal; ``simcore.rng``), so the deals of game i are a pure
function of the seed, the game index and the rules, whatever the policies did. Given how many deals a game played
(the games table's ``deals``), :func:`dealt_hands` replays that stream with the engine's own functions
(``simcore.kernels.deal.start_deal``, which shuffles, deals the first round and redeals void deals, and
``deal_hands`` for the later rounds), so it cannot drift from what the games were dealt.

Per deal it returns each seat's first-round hand and the union of every round's hand in the nominal order (the
leader first, as the one-card-a-turn games always deal, and as Kaszinó deals when ``round_leader`` is
``non_dealer``; under Kaszinó's default the last capturer draws first after the first round, which depends on the
play, so the later rounds are then assigned as if the non-dealer led: a function of the shuffle still). A game
decided in the middle of a deal never dealt that deal's later rounds; they are counted all the same, as the cards
the shuffle put there. This is what the seat-advantage control variate (``analysis.control``) needs: material
that depends on the shuffles only, so that its mean is known by symmetry.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simcore._jit import kernel
from simcore.engine import kernel_array, run_features
from simcore.kernels.deal import (
    DEAL_OUT,
    EV_WIDTH,
    begin_deal,
    deal_hands,
    dealer_of,
    draw_first_dealer,
    run_deal,
    start_deal,
)
from simcore.kernels.game import fill_rule_info, new_scratch
from simcore.kernels.scoring import score_deal
from simcore.kernels.workspace import (
    DEAL_RNG,
    GAME_STATE_SIZE,
    HANDS,
    PILES,
    RNG,
    SAME_SUIT,
    STREAM_KEY,
    SUBSTREAM,
    SWEEP_PTS,
    TOTALS,
)
from simcore.rng import DEAL_STREAM, stream_state
from simcore.variants.base import Rules


class DealtHands(NamedTuple):
    """Per game: ``first_dealer`` (int64[G]); per deal, in (game, deal) order: ``game`` and ``deal`` (int64[R]),
    ``dealer`` (int64[R]), ``first_round`` and ``hands`` (int64[R, players] card masks: the first round's hand,
    and every round's hand of the deal, of each seat), ``table`` (int64[R]: the initial table)."""

    first_dealer: np.ndarray
    game: np.ndarray
    deal: np.ndarray
    dealer: np.ndarray
    first_round: np.ndarray
    hands: np.ndarray
    table: np.ndarray


@kernel(entry=True)
def deal_games(rules, seed, games, n_deals, first_dealer, dealer, first_round, hands, table):
    """Replay the deal stream of ``games`` (int64[G]) for ``n_deals[g]`` deals each and write the output arrays of
    :class:`DealtHands` (rows of a game's deals consecutive, in game order)."""
    gs = np.zeros(GAME_STATE_SIZE, np.int64)
    events = np.zeros((1, 1, EV_WIDTH), np.int64)  # never written: ev_slot is -1
    players, hand_size = rules.players, rules.hand_size
    row = 0
    for g in range(len(games)):
        gs[DEAL_RNG] = stream_state(seed, games[g], DEAL_STREAM)
        fd = draw_first_dealer(gs, players, rules.first_dealer_fixed)
        first_dealer[g] = fd
        for d in range(n_deals[g]):
            deal_dealer = dealer_of(rules, fd, d)
            tab, pos, n, _, _ = start_deal(rules, gs, d, deal_dealer, events, -1, 0)
            dealer[row] = deal_dealer
            table[row] = tab
            for s in range(players):
                first_round[row, s] = gs[HANDS + s]
                hands[row, s] = gs[HANDS + s]
            first = (deal_dealer + 1 + rules.deal_rotation) % players
            while pos + players * hand_size <= n:
                pos, _ = deal_hands(gs, players, hand_size, first, pos, events, -1, 0)
                for s in range(players):
                    hands[row, s] |= gs[HANDS + s]
            row += 1


def dealt_hands(rules: Rules, seed: int, games: np.ndarray, n_deals: np.ndarray) -> DealtHands:
    """The hands dealt in the first ``n_deals[i]`` deals of game ``games[i]`` of a run seeded ``seed``."""
    games = kernel_array(games, np.int64)
    n_deals = kernel_array(n_deals, np.int64)
    if games.shape != n_deals.shape or (len(n_deals) and n_deals.min() < 0):
        raise ValueError("give one non-negative deal count per game")
    rows = int(n_deals.sum())
    out = DealtHands(
        np.zeros(len(games), np.int64),
        np.repeat(games, n_deals),
        np.arange(rows, dtype=np.int64) - np.repeat(np.cumsum(n_deals) - n_deals, n_deals),
        np.zeros(rows, np.int64),
        np.zeros((rows, rules.players), np.int64),
        np.zeros((rows, rules.players), np.int64),
        np.zeros(rows, np.int64),
    )
    deal_games(
        rules, np.int64(seed), games, n_deals, out.first_dealer, out.dealer, out.first_round, out.hands, out.table
    )
    return out


@kernel(entry=True)
def play_deals(rules, seed, games, n_deals, policy_ids, params, points, one_card, exchange):
    """Play each of the first ``n_deals[g]`` deals of ``games`` on its own, from totals of zero, with quick
    policies (random or greedy: ``run_deal`` compiled without the others), and write each side's points of each
    deal to ``points[row, side]`` (rows in (game, deal) order, as :class:`DealtHands`). Deal d is the game's
    d-th deal, whatever the deals before it: a function of the deal stream and the seats' streams only."""
    s = new_scratch(rules)
    gs, ps = s.gs, s.ps
    events = np.zeros((1, 1, EV_WIDTH), np.int64)  # never written: ev_slot is -1
    fill_rule_info(ps, rules)
    players = rules.players
    row = 0
    for g in range(len(games)):
        gs[DEAL_RNG] = stream_state(seed, games[g], DEAL_STREAM)
        for seat in range(players):
            ps[RNG + 1 + seat] = stream_state(seed, games[g], 1 + seat)
            ps[STREAM_KEY + seat] = ps[RNG + 1 + seat]
            ps[SUBSTREAM + seat] = 0
        fd = draw_first_dealer(gs, players, rules.first_dealer_fixed)
        for d in range(n_deals[g]):
            for side in range(4):
                gs[TOTALS + side] = 0
            begin_deal(rules, gs, d, dealer_of(rules, fd, d), events, -1, 0)
            status, _ = run_deal(rules, policy_ids, params, gs, ps, events, -1, 0, -1, one_card, exchange, None)
            piles, sweep_pts = gs[PILES : PILES + 4], gs[SWEEP_PTS : SWEEP_PTS + 4]
            score_deal(rules, piles, sweep_pts, gs[SAME_SUIT : SAME_SUIT + 4], s.points, s.work, status == DEAL_OUT)
            for side in range(rules.n_sides):
                total = 0
                for k in range(rules.n_categories):
                    total += s.points[side, k]
                points[row, side] = total
            row += 1


def deal_points(
    rules: Rules, seed: int, games: np.ndarray, n_deals: np.ndarray, policy_ids: np.ndarray, params: np.ndarray
) -> np.ndarray:
    """Each side's points of each of the first ``n_deals[i]`` deals of game ``games[i]``, every deal played on its
    own from totals of zero by quick policies (``policy_ids``: random or greedy; :func:`play_deals`)."""
    games = kernel_array(games, np.int64)
    n_deals = kernel_array(n_deals, np.int64)
    one_card, exchange, full = run_features(rules, policy_ids)
    if full is not None:
        raise ValueError("deal_points plays random and greedy seats only")
    points = np.zeros((int(n_deals.sum()), rules.n_sides), np.int64)
    ids = kernel_array(policy_ids, np.int64)
    play_deals(rules, np.int64(seed), games, n_deals, ids, kernel_array(params, np.float64), points,
               one_card, exchange)  # fmt: skip
    return points
