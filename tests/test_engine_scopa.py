"""The Numba engine against the rules: RNG, worked examples S-EX1..S-EX5, legal moves, scoring, invariants."""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy.stats import chisquare

from simcore import engine
from simcore.cards import cards_of, mask_of, parse_card, parse_mask
from simcore.kernels.deal import shuffle
from simcore.kernels.scoring import game_winner
from simcore.kernels.workspace import DEAL_RNG, DECK, GAME_STATE_SIZE
from simcore.reference import scopa as ref
from simcore.reference.common import shuffle as shuffle_reference
from simcore.reference.rng import GOLDEN as GOLDEN_U64
from simcore.reference.rng import MASK64, MIX1, MIX2, Stream
from simcore.rng import bounded, next64, stream_state
from simcore.variants.scopa import CATEGORIES, SPEC


def rules_of(**overrides):
    return SPEC.compile(SPEC.resolve(overrides))


def moves_text(rules, hand: str, table: str) -> list[tuple[str, list[str]]]:
    """Kernel legal moves as (played card, sorted taken cards) for readable assertions."""
    out = []
    for play, take in engine.legal_moves(rules, parse_mask(hand), parse_mask(table)):
        out.append((ref.card_names(cards_of(play))[0], ref.card_names(cards_of(take))))
    return out


def captures_of(rules, card: str, table: str) -> list[list[str]]:
    return [take for play, take in moves_text(rules, card, table) if take]


# --------------------------------------------------------------------------------------------- rng


@pytest.mark.parametrize("seed,game,stream", [(42, 7, 0), (0, 0, 0), (2**63 - 1, 123456789, 4), (17, 10**9, 2)])
def test_kernel_rng_matches_reference(seed, game, stream):
    states = np.array([stream_state(seed, game, stream)], dtype=np.int64)
    reference = Stream(seed, game, stream)
    for _ in range(5):
        assert int(next64(states, 0)) & (2**64 - 1) == reference.next64()
    for n in (1, 2, 3, 40, 52, 1000, 2**31 - 1):
        assert bounded(states, 0, n) == reference.bounded(n)


def unmix64(z: int) -> int:
    """The inverse of the SplitMix64 finaliser: the input whose ``mix64`` is ``z``."""
    z ^= (z >> 31) ^ (z >> 62)
    z = (z * pow(MIX2, -1, 2**64)) & MASK64
    z ^= (z >> 27) ^ (z >> 54)
    z = (z * pow(MIX1, -1, 2**64)) & MASK64
    return z ^ (z >> 30) ^ (z >> 60)


def reference_shuffle(pack: int, state: int) -> tuple[list[int], int]:
    stream = Stream(0, 0, 0)
    stream.state = state
    return shuffle_reference(cards_of(pack), stream), stream.state


@pytest.mark.parametrize("pack", [SPEC.compile(SPEC.resolve({})).pack, (1 << 52) - 1], ids=["40 cards", "52 cards"])
def test_shuffle_matches_reference_also_when_a_draw_is_rejected(pack):
    """The kernel computes a shuffle's draws together and takes a slower path when one of them might be rejected
    (about once in 10**8 draws, so random deals almost never meet it): states made so that draw ``k`` is rejected
    (its 32 bits 0: low half 0, below the threshold of every bound that is not a power of two) or lands just above
    the threshold give the reference's deck and the reference's state after it, as random states do."""
    n = bin(pack).count("1")
    gs = np.zeros(GAME_STATE_SIZE, np.int64)
    rng = random.Random(5)
    states = [rng.getrandbits(64) for _ in range(20)]
    for k in (0, 1, 7, n - 3, n - 2):
        bound = n - k
        threshold = (2**32 - bound) % bound
        for top in (0, 1, (2**32 + threshold - 1) // bound + 1):  # rejected, rejected or near, accepted near it
            states.append((unmix64(top << 32 | rng.getrandbits(32)) - (k + 1) * GOLDEN_U64) & MASK64)
    for state in states:
        gs[DEAL_RNG] = state - 2**64 if state >= 2**63 else state
        assert shuffle(gs, pack) == n
        deck, after = reference_shuffle(pack, state)
        assert list(gs[DECK : DECK + n]) == deck
        assert int(gs[DEAL_RNG]) & MASK64 == after


def test_bounded_is_uniform():
    """Chi-square on 60,000 draws of bounded(7): no bias (fixed seed, generous threshold)."""
    states = np.array([stream_state(3, 0, 0)], dtype=np.int64)
    counts = np.bincount([bounded(states, 0, 7) for _ in range(60_000)], minlength=7)
    assert chisquare(counts).pvalue > 1e-4


# ---------------------------------------------------------------------------------- worked examples


def test_s_ex1_single_card_priority_and_sums():
    rules = rules_of()
    table = "5d 2c 3h Ks"
    assert captures_of(rules, "5s", table) == [["5d"]]
    assert captures_of(rules, "Kh", table) == [["Ks"]]
    assert captures_of(rules, "7c", table) == [["2c", "5d"]]
    assert captures_of(rules, "Jc", table) == [["3h", "5d"]]
    assert moves_text(rules, "6c", table) == [("6c", [])]
    assert moves_text(rules, "Qd", table) == [("Qd", [])]


def test_s_ex1_without_priority_sums_are_allowed_too():
    rules = rules_of(single_card_priority=False)
    assert captures_of(rules, "5s", "5d 2c 3h Ks") == [["2c", "3h"], ["5d"]]  # canonical order: by mask
    assert captures_of(rules, "Kh", "5d 2c 3h Ks") == [["2c", "3h", "5d"], ["Ks"]]


def test_s_ex2_must_take_one_seven():
    assert captures_of(rules_of(), "7h", "7d 7c 2h 5s") == [["7c"], ["7d"]]


def test_forced_capture_none_allows_trailing_a_capturing_card():
    assert moves_text(rules_of(forced_capture="none"), "7h", "7d 2h") == [("7h", []), ("7h", ["7d"])]


def test_s_ex3_scopa_and_last_card():
    """4c 3d on the table, 7s takes both: a sweep (the game loop's rule, checked on a real trace)."""
    assert captures_of(rules_of(), "7s", "4c 3d") == [["3d", "4c"]]
    traces = _traces(rules={}, policies=["greedy", "greedy"], games=range(40))
    sweeps = [e for t in traces for e in t["events"] if e["type"] == "play" and e["sweep"]]
    assert sweeps and all(e["points"] == 1 for e in sweeps)
    for t in traces:  # the last play of each deal never scores a sweep by default
        plays = [i for i, e in enumerate(t["events"]) if e["type"] == "play"]
        ends = [i for i, e in enumerate(t["events"]) if e["type"] in ("residue", "score")]
        last_plays = {max(p for p in plays if p < end) for end in ends}
        assert all(not t["events"][i]["sweep"] for i in last_plays)


def _score(rules, x: str, y: str, sweeps=(0, 0)) -> dict[str, list[int]]:
    points = engine.score_deal(rules, [parse_mask(x), parse_mask(y)], list(sweeps))
    return {cat: [int(points[0, k]), int(points[1, k])] for k, cat in enumerate(CATEGORIES)}


def test_s_ex4_primiera_table():
    rules = rules_of()
    x = "7d 6c Ah Ks"  # 21 + 18 + 16 + 10 = 65
    y = "6d 7c 7h 5s"  # 18 + 21 + 21 + 15 = 75
    assert _score(rules, x, y)["primiera"] == [0, 1]
    assert _score(rules, x, "6d 7c 7h")["primiera"] == [1, 0]  # Y lacks spades
    assert _score(rules, "7d 6c Ah", "6d 7c 7h")["primiera"] == [0, 0]  # neither complete


def test_primiera_suits_reading():
    rules = rules_of(primiera="suits")
    assert _score(rules, "7d 7c 7h 7s", "6d 6c 6h 6s")["primiera"] == [1, 0]
    assert _score(rules, "7d 7c 7h 5s", "6d 6c 6h 6s")["primiera"] == [0, 0]  # spades lost: nobody
    assert _score(rules, "7d 7c 7h Js", "6d 6c 6h Qs")["primiera"] == [0, 0]  # courts tie


def test_s_ex5_deal_points_and_game_end():
    rules = rules_of()
    pack = cards_of(rules.pack)
    # X: 22 cards with 6 coins incl. the settebello and the best primiera; Y: 18 cards, 4 coins
    coins = [parse_card(c) for c in ("7d", "Ad", "2d", "3d", "4d", "5d")]
    y_coins = [parse_card(c) for c in ("6d", "Jd", "Qd", "Kd")]
    rest = [c for c in pack if c not in coins and c not in y_coins]
    x_cards = coins + [parse_card(c) for c in ("7c", "7h", "7s")]
    rest = [c for c in rest if c not in x_cards]
    x_cards += rest[: 22 - len(x_cards)]
    y_cards = y_coins + rest[22 - 9 :]
    assert len(x_cards) == 22 and len(y_cards) == 18
    x = " ".join(ref.card_names(x_cards))
    y = " ".join(ref.card_names(y_cards))
    points = _score(rules, x, y, sweeps=(1, 2))
    assert [sum(p[0] for p in points.values()), sum(p[1] for p in points.values())] == [5, 2]
    assert game_winner(np.array([14, 12, 0, 0]), 2, 11, 0, -1) == 0
    assert game_winner(np.array([12, 12, 0, 0]), 2, 11, 0, -1) == -1
    assert game_winner(np.array([10, 9, 0, 0]), 2, 11, 0, -1) == -1


def test_ties_score_nothing_and_napola():
    rules = rules_of(napola=True)
    half = cards_of(rules.pack)
    x_cards, y_cards = half[::2], half[1::2]  # 20 - 20 cards
    pts = _score(rules, " ".join(ref.card_names(x_cards)), " ".join(ref.card_names(y_cards)))
    assert pts["cards"] == [0, 0]
    assert _score(rules, "Ad 2d 3d 4d 5d", "6d")["napola"] == [5, 0]
    assert _score(rules, "Ad 2d 3d 5d 6d", "4d")["napola"] == [3, 0]
    assert _score(rules, "Ad 2d 4d 5d 6d 7d Jd Qd Kd", "3d")["napola"] == [0, 0]
    assert _score(rules, "Ad 2d 3d 4d 5d 6d 7d Jd Qd Kd", "")["napola"] == [10, 0]
    assert _score(rules_of(), "Ad 2d 3d", "")["napola"] == [0, 0]


# ---------------------------------------------------------------------------- legal moves vs reference


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"single_card_priority": False},
        {"forced_capture": "none"},
        {"forced_capture": "none", "single_card_priority": False},
    ],
)
def test_legal_moves_match_reference_on_random_positions(overrides):
    """3,000 random positions per rule set, tables of 0..24 cards (the large ones take the search path)."""
    resolved = SPEC.resolve(overrides)
    rules = SPEC.compile(resolved)
    pack = cards_of(rules.pack)
    rng = random.Random(11)
    for _ in range(3000):
        cards = rng.sample(pack, 27)
        hand = cards[: rng.randint(1, 3)]
        table = cards[3 : 3 + rng.choice([0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 24])]
        kernel = engine.legal_moves(rules, mask_of(hand), mask_of(table))
        expected = [(1 << card, take) for card, take in ref.legal_moves(resolved, set(hand), set(table))]
        assert kernel == expected, (ref.card_names(hand), ref.card_names(table))


def test_legal_moves_player_level_compulsion():
    """forced_capture=player is not a Scopa option, but the kernel implements it for the Skopa family."""
    rules = rules_of()._replace(forced_capture=2)
    assert moves_text(rules, "Qs Ks", "7s 2h") == [("Qs", ["2h", "7s"])]  # Q = 9 must capture; K may not trail
    assert moves_text(rules, "Ks 6d", "7s 2h") == [("6d", []), ("Ks", [])]


# ---------------------------------------------------------------------------------------- invariants


def _traces(rules, policies, games):
    from simcore import api
    from simcore.config import RunConfig

    config = RunConfig.create("scopa", policies=policies, rules=rules, games=max(games) + 1, seed=5)
    return api.trace(config, games)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_card_in_one_place_and_points_in_bounds(players):
    """Over 300 games: each deal's piles partition the 40 cards; deal points are within the rules' bounds."""
    for t in _traces({"players": players, "napola": True}, ["random"] * players, range(300)):
        piles = [set() for _ in t["sides"]]
        for e in t["events"]:
            if e["type"] == "deal":
                piles = [set() for _ in t["sides"]]
            side = None if "seat" not in e else (e["seat"] % 2 if players == 4 else e["seat"])
            if e["type"] == "play" and e["kind"] == "capture":
                piles[side] |= set(e["cards"]) | set(e["take"])
            elif e["type"] == "residue":
                piles[side] |= set(e["cards"])
            elif e["type"] == "score":
                assert sum(len(p) for p in piles) == 40 and len(set().union(*piles)) == 40
                base = [sum(v for k, v in p.items() if k not in ("scopa", "napola")) for p in e["points"]]
                assert sum(base) <= 4 and min(base) >= 0
                assert all(0 <= p["napola"] <= 10 and p["scopa"] >= 0 for p in e["points"])
