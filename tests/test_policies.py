"""Policies: registry and parameters, what greedy and random choose, and that no policy can see hidden cards."""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy.stats import chisquare

from simcore.cards import cards_of, mask_of, parse_mask
from simcore.errors import ConfigError
from simcore.kernels.game import MOVES_FAMILY, decide
from simcore.kernels.moves import move_rules
from simcore.kernels.workspace import DECK, GAME_STATE_SIZE, HANDS, MOVES, PILES, RNG, WEIGHT, decision_space_size
from simcore.policies import POLICIES, parse_policy, policy_arrays
from simcore.policies.kernels import POLICY_GREEDY, POLICY_RANDOM
from simcore.rng import stream_state
from simcore.variants.scopa import SPEC

RULES = SPEC.compile(SPEC.resolve({}))
SCALARS = move_rules(RULES)
PARAMS = np.zeros((4, 8))


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
    ids, params = policy_arrays([parse_policy("random"), parse_policy("greedy")])
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
