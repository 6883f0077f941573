"""Policies: registry and parameters, what greedy and random choose, and that no policy can see hidden cards."""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy.stats import chisquare

from simcore.cards import cards_of, mask_of, parse_mask
from simcore.engine import run_features
from simcore.errors import ConfigError
from simcore.kernels.game import MOVES_FAMILY, decide
from simcore.kernels.moves import move_rules
from simcore.kernels.workspace import DECK, GAME_STATE_SIZE, HANDS, MOVES, PILES, RNG, WEIGHT, decision_space_size
from simcore.policies import POLICIES, parse_policy, policy_arrays
from simcore.policies.kernels import POLICY_DEFENSIVE, POLICY_GREEDY, POLICY_LOOKAHEAD, POLICY_POINTS, POLICY_RANDOM
from simcore.rng import stream_state
from simcore.variants import VARIANTS
from simcore.variants.scopa import SPEC

RULES = SPEC.compile(SPEC.resolve({}))
SCALARS = move_rules(RULES)
PARAMS = np.zeros((4, 64))


def fresh_spaces(hands: list[int], piles=(0, 0), seed: int = 1):
    gs = np.zeros(GAME_STATE_SIZE, np.int64)
    ps = np.zeros(decision_space_size(RULES.max_moves), np.int64)
    gs[HANDS : HANDS + len(hands)] = hands
    gs[PILES : PILES + 2] = piles
    ps[WEIGHT : WEIGHT + 52] = RULES.card_weight
    for seat in range(4):
        ps[RNG + 1 + seat] = stream_state(seed, 0, 1 + seat)
    return gs, ps


def play(ps, i):
    return int(ps[MOVES + 2 * i]), int(ps[MOVES + 2 * i + 1])


def test_registry_and_parameters():
    assert {"random", "greedy"} <= set(POLICIES)
    assert parse_policy("greedy").label == "greedy"
    ids, params = policy_arrays([parse_policy("random"), parse_policy("greedy")], SPEC.resolve({}))
    assert list(ids) == [POLICY_RANDOM, POLICY_GREEDY] and params.shape[0] == 2
    with pytest.raises(ConfigError, match="unknown policy"):
        parse_policy("minimax")
    with pytest.raises(ConfigError, match="unknown parameter"):
        parse_policy("random:eps=0.1")


def test_greedy_takes_most_cards_then_most_valuable():
    table = parse_mask("Ac 2h 3s 7d 4c")
    gs, ps = fresh_spaces([parse_mask("7h 6c Kc"), 0])
    i = decide(gs, ps, 0, 0, table, table, 20, 0, 0, SCALARS, POLICY_GREEDY, PARAMS, MOVES_FAMILY, 0)
    # 7h must take a single 7 (priority): only 7d; 6c takes {Ac 2h 3s}? 1+2+3=6, or {2h 4c}; Kc takes 10 = 1+2+3+4
    assert play(ps, i) == (parse_mask("Kc"), parse_mask("Ac 2h 3s 4c"))
    table = parse_mask("7d 7c")
    gs, ps = fresh_spaces([parse_mask("7h"), 0])
    i = decide(gs, ps, 0, 0, table, table, 20, 0, 0, SCALARS, POLICY_GREEDY, PARAMS, MOVES_FAMILY, 0)
    assert play(ps, i) == (parse_mask("7h"), parse_mask("7d"))  # the settebello before the other seven
    gs, ps = fresh_spaces([parse_mask("7d 2c"), 0])
    i = decide(
        gs, ps, 0, 0, parse_mask("Kc"), parse_mask("Kc"), 20, 0, 0, SCALARS, POLICY_GREEDY, PARAMS, MOVES_FAMILY, 0
    )
    assert play(ps, i) == (parse_mask("2c"), 0)  # trailing, it keeps the settebello


def test_random_is_uniform_over_legal_moves():
    table = parse_mask("Ac 2h 3s 4c 5d")
    gs, ps = fresh_spaces([parse_mask("5h 6c Kc"), 0], seed=9)
    counts: dict[tuple[int, int], int] = {}
    for _ in range(6000):
        i = decide(gs, ps, 0, 0, table, table, 20, 0, 0, SCALARS, POLICY_RANDOM, PARAMS, MOVES_FAMILY, 0)
        counts[play(ps, i)] = counts.get(play(ps, i), 0) + 1
    assert len(counts) == 7  # 5h: 5d (priority); 6c: {1,5} {2,4} {1,2,3}; Kc: {1,2,3,4} {2,3,5} {1,4,5}
    assert chisquare(list(counts.values())).pvalue > 1e-4


@pytest.mark.parametrize("policy", [POLICY_RANDOM, POLICY_GREEDY])
def test_hidden_cards_do_not_change_a_decision(policy):
    """Same seat knowledge, different other hands and stock order: same move and same random stream after.

    The policy is only ever handed the decision space ``ps``; the game state with every hand and the deck stays
    in ``gs``. Here the other seats' hands and the deck are redrawn from the cards the seat has not seen.
    """
    rng = random.Random(5)
    pack = cards_of(RULES.pack)
    for _ in range(300):
        cards = rng.sample(pack, len(pack))
        hand, table, pile = cards[:3], cards[3 : 3 + rng.randint(0, 6)], cards[10:18]
        unseen = cards[18:]
        decisions = []
        for _variant in range(3):
            rng.shuffle(unseen)
            gs, ps = fresh_spaces(
                [mask_of(hand), mask_of(unseen[:3]), mask_of(unseen[3:6]), 0], piles=(mask_of(pile), 0)
            )
            gs[DECK : DECK + len(unseen)] = unseen
            seen = mask_of(table) | mask_of(pile)
            i = decide(gs, ps, 0, 0, mask_of(table), seen, len(unseen), 1, 4, SCALARS, policy, PARAMS, MOVES_FAMILY, 0)
            decisions.append((play(ps, i), ps[RNG + 1]))
        assert decisions[0] == decisions[1] == decisions[2]


# ------------------------------------------------------------------------ point policies, every game

POINT_POLICIES = [POLICY_POINTS, POLICY_DEFENSIVE, POLICY_LOOKAHEAD]


def test_point_policy_parameters_follow_the_game():
    assert parse_policy("points:settebello=3", "scopa").label == "points:settebello=3"
    assert parse_policy("lookahead:samples=8,risk=0.5", "kaszino").params["samples"] == 8
    with pytest.raises(ConfigError, match="unknown parameter 'settebello'"):
        parse_policy("points:settebello=3", "kaszino")
    with pytest.raises(ConfigError, match="must be a number"):
        parse_policy("defensive:risk=high", "skopa")
    with pytest.raises(ConfigError, match="samples must be a whole number"):
        parse_policy("lookahead:samples=0", "foracio")
    rules = SPEC.resolve({})
    _, params = policy_arrays([parse_policy("points", "scopa"), parse_policy("points:settebello=3", "scopa")], rules)
    settebello = parse_mask("7d").bit_length() - 1
    assert params[0, settebello] == pytest.approx(1.3) and params[1, settebello] == pytest.approx(3.3)  # + a seven


def test_points_takes_the_settebello_over_more_cards():
    table = parse_mask("7d 3c 4h")
    gs, ps = fresh_spaces([parse_mask("7s"), 0])
    _, params = policy_arrays([parse_policy("points", "scopa")] * 2, SPEC.resolve({}))
    i = decide(gs, ps, 0, 0, table, table, 20, 0, 0, SCALARS, POLICY_POINTS, params, MOVES_FAMILY, 0)
    assert play(ps, i) == (parse_mask("7s"), parse_mask("7d"))
    gs, ps = fresh_spaces([parse_mask("7s"), 0])
    i = decide(gs, ps, 0, 0, table, table, 20, 0, 0, SCALARS, POLICY_GREEDY, params, MOVES_FAMILY, 0)
    assert play(ps, i) == (parse_mask("7s"), parse_mask("7d"))  # priority: greedy too must take the single 7


def test_points_trails_low_cards_and_keeps_high_ones():
    """A trail gives up the card's points and, by ``hold``, its capture power: the 2 of coins goes before a king."""
    from simcore.kernels.game import fill_rule_info

    table = parse_mask("Jc")
    hand = parse_mask("2d Kh")
    for label, trailed in (("points", "2d"), ("points:hold=0", "Kh"), ("points:hold=0.1,coin=0.9", "Kh")):
        gs, ps = fresh_spaces([hand, 0])
        fill_rule_info(ps, RULES)
        _, params = policy_arrays([parse_policy(label, "scopa")] * 2, SPEC.resolve({}))
        i = decide(gs, ps, 0, 0, table, table, 20, 0, 0, SCALARS, POLICY_POINTS, params, MOVES_FAMILY, 0)
        assert play(ps, i) == (parse_mask(trailed), 0), label


def test_defensive_does_not_leave_an_easy_sweep():
    """Trailing a 2 onto a lone 5 leaves 7 on the table (four sevens unseen); trailing the K leaves 15: no sweep.

    ``hold=0`` leaves the risk alone to decide (by default the king's capture power also counts against trailing it).
    """
    table = parse_mask("5c")
    gs, ps = fresh_spaces([parse_mask("2h Kd"), parse_mask("Ac")])
    _, params = policy_arrays([parse_policy("defensive:hold=0", "scopa")] * 2, SPEC.resolve({}))
    from simcore.kernels.game import fill_rule_info

    fill_rule_info(ps, RULES)
    gs[HANDS + 1] = parse_mask("Ac As Ah")
    i = decide(gs, ps, 0, 0, table, table, 20, 0, 0, SCALARS, POLICY_DEFENSIVE, params, MOVES_FAMILY, 0)
    assert play(ps, i) == (parse_mask("Kd"), 0)


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("policy", ["points", "defensive", "lookahead"])
def test_point_policies_cannot_see_hidden_cards(variant, policy):
    """Redraw the other hands and the stock from the unseen cards: the same move and the same random stream."""
    from simcore.kernels.game import MOVES_EXCHANGE, fill_rule_info
    from simcore.kernels.workspace import TOTALS
    from simcore.variants import get_variant

    spec = get_variant(variant)
    resolved = spec.resolve({})
    rules = spec.compile(resolved)
    scalars = move_rules(rules)
    mode = MOVES_EXCHANGE if variant == "kaszino" else MOVES_FAMILY
    _, params = policy_arrays([parse_policy(policy, variant)] * 4, resolved)
    policy_id = POLICIES[policy].policy_id
    rng = random.Random(8)
    pack = cards_of(rules.pack)
    hand_size = 13 if variant == "foracio" else rules.hand_size
    for _ in range(60):
        cards = rng.sample(pack, len(pack))
        hand, table = cards[:hand_size], cards[hand_size : hand_size + rng.randint(0, 6)]
        pile = cards[20:26]
        unseen = cards[26:]
        decisions = set()
        for _variant in range(3):
            rng.shuffle(unseen)
            gs = np.zeros(GAME_STATE_SIZE, np.int64)
            ps = np.zeros(decision_space_size(rules.max_moves), np.int64)
            fill_rule_info(ps, rules)
            ps[RNG + 1] = stream_state(1, 0, 1)
            gs[HANDS] = mask_of(hand)
            for seat in range(1, rules.players):
                gs[HANDS + seat] = mask_of(unseen[3 * seat : 3 * seat + 3])
            gs[PILES] = mask_of(pile)
            gs[TOTALS : TOTALS + 2] = (3, 4)
            seen = mask_of(table) | mask_of(pile)
            args = (gs, ps, 0, 0, mask_of(table), seen, 10, 1, 4, scalars, policy_id, params, mode, 0)
            i = decide(*args)
            decisions.add((play(ps, i), int(ps[RNG + 1])))
        assert len(decisions) == 1


@pytest.mark.parametrize("policy", ["mc:samples=4", "mc:samples=4,horizon=3", "search:worlds=3,depth=2"])
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_mc_cannot_see_hidden_cards(variant, policy):
    """The Monte Carlo (or search) seat's move and random stream do not change when the hidden cards are redrawn.

    A deal is stopped at the Monte Carlo seat's decision (``DEAL_NEED``); the other hands and the stock are then
    permuted among themselves (the cards that seat has not seen, in the same hand sizes) before it decides.
    """
    from simcore.kernels.deal import DEAL_NEED, begin_deal, run_deal
    from simcore.kernels.game import fill_rule_info, new_scratch
    from simcore.kernels.workspace import (
        DEAL_RNG,
        DS_N,
        DS_POS,
    )
    from simcore.policies.montecarlo import choose_mc
    from simcore.policies.search import choose_search
    from simcore.variants import get_variant

    spec = get_variant(variant)
    resolved = spec.resolve({})
    rules = spec.compile(resolved)
    players = rules.players
    events = np.zeros((1, 1, 7), np.int64)
    rng = random.Random(6)
    for game in range(4):
        s = new_scratch(rules)
        dealer = game % players
        mc_seat = (dealer + 1) % players
        policies = ["greedy"] * players
        policies[mc_seat] = policy if variant != "foracio" else policy.replace("depth=2", "depth=1")
        ids, params = policy_arrays([parse_policy(p, variant) for p in policies], resolved)
        s.gs[DEAL_RNG] = stream_state(9, game, 0)
        for seat in range(players):
            s.ps[RNG + 1 + seat] = stream_state(9, game, 1 + seat)
        fill_rule_info(s.ps, rules)
        fill_rule_info(s.rollout_ps, rules)
        begin_deal(rules, s.gs, 0, dealer, events, -1, 0)  # the mc seat leads
        pos, n = int(s.gs[DS_POS]), int(s.gs[DS_N])
        features = run_features(rules, ids)  # the kernels a run of these seats compiled, not new ones
        status, _ = run_deal(rules, ids, params, s.gs, s.ps, events, -1, 0, -1, *features)
        assert status == DEAL_NEED
        gs0, ps0 = s.gs.copy(), s.ps.copy()
        others = [seat for seat in range(players) if seat != mc_seat]
        decisions = set()
        for _ in range(3):
            s.gs[:], s.ps[:] = gs0, ps0
            hidden = [c for seat in others for c in cards_of(int(gs0[HANDS + seat]))]
            hidden += [int(c) for c in gs0[DECK + pos : DECK + n]]
            rng.shuffle(hidden)
            k = 0
            for seat in others:
                size = bin(int(gs0[HANDS + seat])).count("1")
                s.gs[HANDS + seat] = mask_of(hidden[k : k + size])
                k += size
            s.gs[DECK + pos : DECK + n] = hidden[k:]
            by_state = choose_mc if policy.startswith("mc") else choose_search
            choice = by_state(rules, s, params, mc_seat, events, *features)
            decisions.add((int(choice), int(s.ps[RNG + 1 + mc_seat])))
        assert len(decisions) == 1
