"""Published opponents (issue 14): Furbo, Tartaluca's HeuristicBot and Scimmietta's random against plain Python
versions of their sources' descriptions; they cannot see hidden cards; they play whole games."""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np
import pytest

from simcore.cards import cards_of, mask_of, parse_mask
from simcore.errors import ConfigError
from simcore.kernels.game import MOVES_EXCHANGE, MOVES_FAMILY, VIEW_N_MOVES, decide, fill_rule_info
from simcore.kernels.moves import move_rules
from simcore.kernels.workspace import GAME_STATE_SIZE, HANDS, MOVES, PILES, RNG, TOTALS, VIEW, decision_space_size
from simcore.policies import POLICIES, parse_policy
from simcore.rng import stream_state
from simcore.variants import get_variant

# The sources' own facts, retyped here on purpose (the kernels take them from simcore.variants.scopa).
PRIME = {7: 21, 6: 18, 1: 16, 5: 15, 4: 14, 3: 13, 2: 12, 11: 10, 12: 10, 13: 10}  # vlvovch constants.ts
VALUE = {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 11: 8, 12: 9, 13: 10}  # J, Q, K count 8, 9, 10
COINS = 1  # diamonds = denari
SETTEBELLO = parse_mask("7d").bit_length() - 1


def rank(c: int) -> int:
    return c // 4 + 1


def suit(c: int) -> int:
    return c % 4


# ------------------------------------------------------------------ plain versions of the published descriptions


def furbo_score(play: int, taken: list[int], table: list[int]) -> float:
    """vlvovch/scopa-ai heuristic.ts ``scoreMove``: ``taken`` are the table cards the move takes."""
    if not taken:
        score = 0.0
        if suit(play) == COINS:
            score -= 10
        if rank(play) == 7:
            score -= 20
        if VALUE[rank(play)] >= 8:
            score += 5
        return score
    score = 100.0
    if set(taken) == set(table):
        score += 1000
    if SETTEBELLO in taken:
        score += 500
    score += 50 * sum(suit(c) == COINS for c in taken)
    for c in taken:
        score += {7: 30, 6: 20, 1: 15}.get(rank(c), PRIME[rank(c)] / 2)
    return score + (1 + len(taken)) * 5


def tartaluca_score(play: int, taken: list[int], table: list[int]) -> float:
    """Tartaluca21/scopa-engine engine/heuristic.py (43d272d) ``HeuristicBot`` with ``Weights()`` (all 1)."""

    def exposed(cards: list[int]) -> int:  # non-empty subsets summing to <= 10, by brute force
        values = [VALUE[rank(c)] for c in cards]
        return sum(sum(s) <= 10 for k in range(1, len(values) + 1) for s in combinations(values, k))

    if not taken:
        return -0.25 * exposed([*table, play])
    best: dict[int, int] = {}
    for c in taken:
        best[suit(c)] = max(best.get(suit(c), 0), PRIME[rank(c)])
    value = len(taken) + sum(suit(c) == COINS for c in taken) + (SETTEBELLO in taken) + sum(best.values())
    rest = [c for c in table if c not in taken]
    if not rest:
        value += 1
    return value - 0.25 * exposed(rest)


def source_moves(hand: list[int], table: list[int]) -> set[tuple[int, int]]:
    """Both sources' capture rules: an equal single card if any (one move per such card), else every set summing
    to the card's value, else a trail; a card that can capture must."""
    moves = set()
    for card in hand:
        singles = [t for t in table if VALUE[rank(t)] == VALUE[rank(card)]]
        takes = [[t] for t in singles]
        if not singles:
            takes = [
                list(s)
                for k in range(2, len(table) + 1)
                for s in combinations(table, k)
                if sum(VALUE[rank(t)] for t in s) == VALUE[rank(card)]
            ]
        moves |= {(1 << card, mask_of(t)) for t in takes} or {(1 << card, 0)}
    return moves


# ------------------------------------------------------------------------------------------------ harness


def spaces(variant: str, hand: list[int], others: list[list[int]], pile: list[int], seed: int = 1):
    spec = get_variant(variant)
    rules = spec.compile(spec.resolve({}))
    gs = np.zeros(GAME_STATE_SIZE, np.int64)
    ps = np.zeros(decision_space_size(rules.max_moves), np.int64)
    fill_rule_info(ps, rules)
    for seat in range(4):
        ps[RNG + 1 + seat] = stream_state(seed, 0, 1 + seat)
    gs[HANDS] = mask_of(hand)
    for seat, cards in enumerate(others, start=1):
        gs[HANDS + seat] = mask_of(cards)
    gs[PILES] = mask_of(pile)
    gs[TOTALS : TOTALS + 2] = (3, 4)
    return rules, gs, ps


def decide_in(variant: str, policy: str, hand, table, others=(), pile=(), seed: int = 1, stock: int = 10):
    """(chosen index, the listed moves, the seat's stream after) of ``policy`` for seat 0."""
    rules, gs, ps = spaces(variant, hand, list(others), list(pile), seed)
    mode = MOVES_EXCHANGE if variant == "kaszino" else MOVES_FAMILY
    seen = mask_of(table) | mask_of(pile)
    policy_id = POLICIES[policy].policy_id
    i = decide(
        gs, ps, 0, 0, mask_of(table), seen, stock, 1, 4, move_rules(rules), policy_id, np.zeros((4, 64)), mode, 0
    )
    n = int(ps[VIEW + VIEW_N_MOVES])
    moves = [(int(ps[MOVES + 2 * k]), int(ps[MOVES + 2 * k + 1])) for k in range(n)]
    return i, moves, int(ps[RNG + 1])


def random_position(rng: random.Random, pack: list[int]) -> tuple[list[int], list[int]]:
    cards = rng.sample(pack, 14)
    return cards[: rng.randint(1, 3)], cards[3 : 3 + rng.choice([0, 1, 2, 3, 4, 4, 5, 6, 8, 10])]


SCOPA_PACK = cards_of(get_variant("scopa").compile(get_variant("scopa").resolve({})).pack)


@pytest.mark.parametrize(("policy", "score"), [("furbo", furbo_score), ("tartaluca", tartaluca_score)])
def test_kernel_plays_the_first_best_move_of_the_published_score(policy, score):
    """3,000 random positions: the listed moves are the sources' moves, and the kernel picks the first move of
    the best score by the plain version (ties and all-trail positions counted, so both are really exercised)."""
    rng = random.Random(policy)
    ties = trails = sweeps = 0
    for _ in range(3000):
        hand, table = random_position(rng, SCOPA_PACK)
        i, moves, _ = decide_in("scopa", policy, hand, table)
        assert set(moves) == source_moves(hand, table)
        scores = [score(cards_of(play)[0], cards_of(take), table) for play, take in moves]
        best = max(scores)
        assert i == scores.index(best), (hand, table, moves, scores)
        ties += scores.count(best) > 1
        trails += all(take == 0 for _, take in moves)
        sweeps += any(take == mask_of(table) for _, take in moves if take)
    assert ties > 100 and trails > 100 and sweeps > 50, (ties, trails, sweeps)


def test_furbo_and_tartaluca_worked_examples():
    """Hand-checked positions: Furbo's sweep and settebello bonuses, Tartaluca's primiera and exposure terms."""
    table = parse_mask("7d 3c 4h")
    # Furbo: 7s must take 7d (priority): 100 + 500 + 50 + 30 + 10 = 690; 4c takes 4h: 100 + 7 + 10 = 117
    i, moves, _ = decide_in("scopa", "furbo", cards_of(parse_mask("7s 4c")), cards_of(table))
    assert moves[i] == (parse_mask("7s"), parse_mask("7d"))
    # Tartaluca: 7s takes 7d: 1 + 1 + 1 + 21 = 24, leaves {3c 4h}: subsets 3, 4, 3+4 -> -0.75;
    # Kc takes 3c + 7d (two suits, primiera 21 + 13): 2 + 1 + 1 + 34 = 38, leaves {4h}: 37.75
    i, moves, _ = decide_in("scopa", "tartaluca", cards_of(parse_mask("7s Kc")), cards_of(table))
    assert moves[i] == (parse_mask("Kc"), parse_mask("3c 7d"))
    # Trails only: Tartaluca leaves the fewest small subsets (Kh next to Qc leaves 9 and 10; Ah leaves 9, 1, 10)
    i, moves, _ = decide_in("scopa", "tartaluca", cards_of(parse_mask("Ah Kh")), cards_of(parse_mask("Qc")))
    assert moves[i] == (parse_mask("Kh"), 0)
    # Furbo trails the court card (+5) before the coin (-10) and the seven (-20)
    i, moves, _ = decide_in("scopa", "furbo", cards_of(parse_mask("2d 7h Jh")), cards_of(parse_mask("Kc Qc")))
    assert moves[i] == (parse_mask("Jh"), 0)


def test_random_card_draws_a_card_first():
    """Kc has three captures on this table (3+7, 4+6, A+3+6) and 2h none (it trails): Scimmietta plays each card
    half the time, scopasim's random plays Kc three times in four."""
    hand, table = cards_of(parse_mask("Kc 2h")), cards_of(parse_mask("3c 4c 6h 7s Ac"))
    counts = {"random_card": 0, "random": 0}
    n = 4000
    for policy in counts:
        for seed in range(n):
            i, moves, _ = decide_in("scopa", policy, hand, table, seed=seed)
            counts[policy] += moves[i][0] == parse_mask("Kc")
        assert len(moves) == 4
    assert abs(counts["random_card"] / n - 0.5) < 4 * (0.25 / n) ** 0.5
    assert abs(counts["random"] / n - 0.75) < 4 * (0.1875 / n) ** 0.5


def test_random_card_picks_uniformly_within_the_card():
    hand, table = cards_of(parse_mask("Kc")), cards_of(parse_mask("3c 4c 6h 7s Ac"))
    seen = {}
    for seed in range(2000):
        i, moves, _ = decide_in("scopa", "random_card", hand, table, seed=seed)
        seen[moves[i]] = seen.get(moves[i], 0) + 1
    assert len(seen) == 3 and min(seen.values()) > 550


@pytest.mark.parametrize(
    ("variant", "policy"),
    [("scopa", "furbo"), ("scopa", "tartaluca"), ("scopa", "random_card"), ("kaszino", "random_card")],
)
def test_published_policies_cannot_see_hidden_cards(variant, policy):
    """Redraw the other hands and the stock from the unseen cards: the same move and the same random stream."""
    spec = get_variant(variant)
    pack = cards_of(spec.compile(spec.resolve({})).pack)
    rng = random.Random(policy)
    for _ in range(60):
        cards = rng.sample(pack, len(pack))
        hand, table, pile, unseen = cards[:3], cards[3 : 3 + rng.randint(0, 6)], cards[20:26], cards[26:]
        decisions = set()
        for _redraw in range(3):
            rng.shuffle(unseen)
            i, moves, stream = decide_in(variant, policy, hand, table, [unseen[:3]], pile)
            decisions.add((moves[i], stream))
        assert len(decisions) == 1


def test_furbo_and_tartaluca_play_only_scopa():
    for policy in ("furbo", "tartaluca"):
        assert parse_policy(policy, "scopa").label == policy
        for variant in ("kaszino", "foracio", "skopa", "scopone", "escoba"):
            with pytest.raises(ConfigError, match=f"policy {policy} plays only scopa, not {variant}"):
                parse_policy(policy, variant)
    with pytest.raises(ConfigError, match="policy furbo does not read risk"):
        parse_policy("furbo:risk=1", "scopa")
    assert parse_policy("random_card", "foracio").label == "random_card"


@pytest.mark.parametrize(
    ("variant", "players", "policies"),
    [
        ("scopa", 2, ["furbo", "tartaluca"]),
        ("scopa", 3, ["random_card", "furbo", "tartaluca"]),
        ("scopa", 4, ["tartaluca", "furbo", "tartaluca", "furbo"]),
        ("kaszino", 2, ["random_card", "greedy"]),
        ("foracio", 4, ["random_card", "greedy", "random_card", "greedy"]),
        ("skopa", 3, ["random_card"]),
        ("scopone", 4, ["random_card", "greedy", "random_card", "points"]),
        ("escoba", 4, ["random_card", "greedy", "random_card", "careful"]),
    ],
)
def test_published_policies_play_whole_games(variant, players, policies):
    from simcore import api
    from simcore.config import RunConfig

    config = RunConfig.create(variant, policies=policies, games=200, seed=4, players=players)
    out = api.play_chunk(config, np.arange(200))
    assert out.winner.size == 200 and (out.winner >= 0).all()
