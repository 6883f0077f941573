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
from simcore.kernels.deal import EV_WIDTH, deal_hands, dealer_of, draw_first_dealer, start_deal
from simcore.kernels.workspace import DEAL_RNG, GAME_STATE_SIZE, HANDS
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


@kernel
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
    games = np.ascontiguousarray(games, dtype=np.int64)
    n_deals = np.ascontiguousarray(n_deals, dtype=np.int64)
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
