"""Registry of playing policies: names, kernel ids and parameter schemas.

A policy is given per seat as ``name`` or ``name:key=value,key=value``, or, for a user-written policy, as
``path/to/file.py:function[:key=value,...]`` (``simcore.userpolicy``). The kernels receive an int64 id per
seat and a float64 row of parameters per seat (``MAX_PARAMS`` wide; the layout is in
``simcore.policies.heuristics``). The point policies' parameters are the game's own scoring weights
(``simcore.policies.weights``), so they are checked against the variant.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from simcore.errors import ConfigError, shown
from simcore.policies import weights
from simcore.policies.heuristics import (
    MAX_DEPTH,
    MAX_PARAMS,
    P_DEPTH,
    P_EPSILON,
    P_HOLD,
    P_HORIZON,
    P_LEAF_HORIZON,
    P_PER_CARD,
    P_RISK,
    P_ROLLOUT,
    P_SAMPLES,
    P_SUIT,
    P_SWEEP,
    P_TREE,
    P_WORLDS,
)
from simcore.policies.kernels import (
    POLICY_DEFENSIVE,
    POLICY_FURBO,
    POLICY_GREEDY,
    POLICY_LOOKAHEAD,
    POLICY_MC,
    POLICY_POINTS,
    POLICY_RANDOM,
    POLICY_RANDOM_CARD,
    POLICY_SEARCH,
    POLICY_TARTALUCA,
    POLICY_USER,
)
from simcore.policies.usercall import P_ADDRESS

# What a kernel reads from a seat's parameter row, by group: ``WEIGHTS`` is the game's point weights
# (each game's ``VariantSpec.weights``: the cards' points, ``card``, the counted suit, ``hold``).
WEIGHTS = "weights"
MAX_WEIGHT = 1e6  # larger weights overflow the kernels' sums to inf, and inf - inf ranks every move alike
ROLLOUTS = {1: "greedy with epsilon", 2: "points", 3: "defensive"}
# Rollout policy -> what the mc seat's rollouts read besides samples and rollout (montecarlo.choose_mc copies the
# seat's row to every rollout seat: epsilon-greedy reads P_EPSILON, points and defensive their own groups).
# search reads the same, and has rollout 0 too: no rollout, the leaves valued by their piles (search.piles_margin).
ROLLOUT_READS = {0: (WEIGHTS, "sweep"), 1: ("epsilon",), 2: (WEIGHTS, "sweep"), 3: (WEIGHTS, "sweep", "risk")}
SEARCH_ROLLOUTS = {0: "none (the piles valued by the game's weights)", **ROLLOUTS}
MC_DEFAULTS = {"samples": 24.0, "horizon": 0.0, "rollout": 1.0, "epsilon": 0.1}
# search's tree with three sides is max-n (tree=1): against mc in the two other seats (benchmarks.searchers sides,
# 1,000 games x 3 seats, seed 2033) it won 40.4% (38.8-41.9%) in Scopa and 41.4% (39.8-42.9%) in Skopa of a fair
# 33.3%, where the paranoid tree won 38.0% and 38.0% of 100 (seed 2032) and 32.2% in Skopa (README).
SEARCH_DEFAULTS = {"worlds": 8.0, "depth": 3.0, "tree": 1.0, "rollout": 0.0, "horizon": 0.0, "epsilon": 0.1}
MAX_HORIZON = 100  # mc, search: more plays than any deal has (Foracio's 52) mean "to the end"
# A weight that the kernels read only under a rule: (variant, weight) -> (rule, value it needs).
RULE_BOUND = {(game, key): (key, True) for game in ("scopa", "scopone") for key in ("napola", "re_bello")}


@dataclass(frozen=True)
class PolicySpec:
    """A policy: its kernel id, a one-line description, and the parameter groups its kernel reads.

    ``reads`` lists exactly what the kernel reads (``simcore.policies.heuristics``: points reads the weights and
    ``sweep``, defensive also ``risk``, lookahead also ``samples``); a parameter outside it is refused, since it
    would change the label and nothing else. mc's reads depend on its rollout policy (``ROLLOUT_READS``).
    """

    name: str
    policy_id: int
    doc: str
    reads: tuple[str, ...] = ()
    games: tuple[str, ...] = ()  # the games it plays; () = every game
    file: str = ""  # a built-in written against the public API: its module in this package (``simcore.userpolicy``)

    @property
    def rollouts(self) -> dict[int, str]:
        """The rollout policies it accepts (mc, search), else none."""
        return {POLICY_MC: ROLLOUTS, POLICY_SEARCH: SEARCH_ROLLOUTS}.get(self.policy_id, {})

    def params(self, variant: str, rollout: float | None = None, horizon: float | None = None) -> dict[str, float]:
        """The parameters this policy reads in ``variant`` (mc, search: with ``rollout``, default theirs; search
        reads ``horizon`` only with a rollout; a ``horizon`` above 0 also values the piles, so reads the weights and
        ``sweep``), with defaults."""
        groups, chosen = self.reads, -1
        common = weights.defaults(variant) | own_defaults(self.policy_id, variant)
        if self.rollouts:
            chosen = int(common["rollout"] if rollout is None else rollout)
            groups = (*self.reads, "rollout", *ROLLOUT_READS[chosen])
            if self.policy_id == POLICY_SEARCH and chosen != 0:
                groups = (*groups, "horizon")  # a leaf's rollout cut after H plays (rollout 0 has no rollout)
            if "horizon" in groups and (common["horizon"] if horizon is None else horizon) > 0:
                groups = (*groups, *ROLLOUT_READS[0])  # the piles' value, as search's leaves with rollout 0
        out: dict[str, float] = {}
        for group in groups:
            if group == WEIGHTS:
                out |= weights.game_weights(variant)
            else:
                out[group] = common[group]
        if chosen in (0, 1):
            out.pop("hold", None)  # the piles' value (rollout 0, mc's horizon) reads no trail term
        return out

    def read_with(self, variant: str, key: str) -> str:
        """The settings under which mc or search reads ``key``: ``"rollout=2 or 3"``; adds ``"or horizon above
        0"`` when a horizon makes another rollout read it too (the piles' weights)."""
        read_by = [str(r) for r in self.rollouts if key in self.params(variant, r, 0)]
        text = f"rollout={' or '.join(read_by)}" if read_by else ""
        others = [r for r in self.rollouts if str(r) not in read_by]
        if any(key in self.params(variant, r, 1) for r in others):
            text += " or horizon above 0" if text else "horizon above 0"
        return text

    def all_params(self, variant: str) -> dict[str, float]:
        """Every parameter this policy can read in ``variant`` (mc, search: under one rollout or another)."""
        if not self.rollouts:
            return self.params(variant)
        out: dict[str, float] = {}
        for rollout in self.rollouts:
            out |= self.params(variant, rollout)
        return out


def own_defaults(policy_id: int, variant: str) -> dict[str, float]:
    """The defaults of the parameters a policy has besides the game's point weights (mc, search): the shared
    ones, then the game's own (``HeuristicWeights.searchers``, in the game's module)."""
    shared = {POLICY_MC: MC_DEFAULTS, POLICY_SEARCH: SEARCH_DEFAULTS}.get(policy_id)
    if shared is None:
        return {}
    name = "mc" if policy_id == POLICY_MC else "search"
    return {**shared, **weights.searcher_defaults(variant, name)}


POLICIES: dict[str, PolicySpec] = {
    p.name: p
    for p in (
        PolicySpec("random", POLICY_RANDOM, "uniform over the legal moves (its own random stream)"),
        PolicySpec(
            "greedy",
            POLICY_GREEDY,
            "most cards taken; ties by the point weight of the cards won (trailing: the least valuable card)",
        ),
        PolicySpec(
            "points",
            POLICY_POINTS,
            "the points a move secures now: cards by the game's scoring, sweeps",
            (WEIGHTS, "sweep"),
        ),
        PolicySpec(
            "defensive",
            POLICY_DEFENSIVE,
            "points minus the risk of the table left to the next player, from the cards not yet seen",
            (WEIGHTS, "sweep", "risk"),
        ),
        PolicySpec(
            "lookahead",
            POLICY_LOOKAHEAD,
            "points minus the next player's expected best reply over hands sampled from the unseen cards",
            (WEIGHTS, "sweep", "risk", "samples"),
        ),
        PolicySpec(
            "mc",
            POLICY_MC,
            "determinized Monte Carlo: sample the unseen cards, roll each move out to the end of the deal "
            "(horizon=0) or for H plays, then value the piles at the game's weights (horizon=H), keep the best "
            "mean margin (rollout: 1 greedy with epsilon, 2 points, 3 defensive; rollouts 2 and 3 read the points "
            "or defensive parameters)",
            ("samples", "horizon"),
        ),
        PolicySpec(
            "search",
            POLICY_SEARCH,
            "determinized search (PIMC): sample the unseen cards, follow each move with alpha-beta over the next "
            "depth decisions of the deal, value the leaves by a rollout (as mc's, to the end or for horizon plays) "
            "or, rollout=0, by the piles' points; keep the best mean margin (tree=1: max-n, each side for itself, "
            "with more than two sides)",
            ("worlds", "depth", "tree"),
        ),
        PolicySpec("furbo", POLICY_FURBO, "vlvovch/scopa-ai's greedy Furbo (Scopa only)", games=("scopa",)),
        PolicySpec("tartaluca", POLICY_TARTALUCA, "Tartaluca21's one-ply HeuristicBot (Scopa only)", games=("scopa",)),
        PolicySpec("random_card", POLICY_RANDOM_CARD, "a hand card uniformly, then one of its moves (Scimmietta)"),
        PolicySpec(
            "careful",
            POLICY_USER,
            "greedy that will not leave a table one unseen card can sweep, if it can help it (written against the "
            "public policy API: simcore/policies/careful.py)",
            file="careful.py",
        ),
    )
}

MC_MEANINGS = {
    "samples": "determinizations of the hidden cards per decision",
    "epsilon": "chance of a random move in a greedy rollout (rollout=1)",
    "rollout": "the rollouts' policy: 1 greedy with epsilon, 2 points, 3 defensive",
    "horizon": "plays a rollout runs after the move before the piles are valued at the game's weights (0: to the "
    "end of the deal)",
}
SEARCH_MEANINGS = {
    "worlds": "determinizations of the hidden cards per decision (the search's budget)",
    "depth": f"decisions searched by alpha-beta after each move before the leaf's value (0 to {MAX_DEPTH})",
    "tree": "with more than two sides: 0 paranoid (every other side against this one), 1 max-n (each side "
    "maximises its own margin)",
    "epsilon": "chance of a random move in a greedy rollout at the leaves (rollout=1)",
    "rollout": "the leaves' value: 0 the piles' points, else a rollout by 1 greedy with epsilon, 2 points, 3 defensive",
    "horizon": "plays a leaf's rollout runs before the piles are valued at the game's weights (0: to the end of the "
    "deal)",
}


def parameter_meaning(policy: str, variant: str, key: str) -> str:
    """One line on what parameter ``key`` of ``policy`` does in ``variant``."""
    if policy == "mc" and key in MC_MEANINGS:
        return MC_MEANINGS[key]
    if policy == "search" and key in SEARCH_MEANINGS:
        return SEARCH_MEANINGS[key]
    return weights.meaning(variant, key)


@dataclass(frozen=True)
class PolicyChoice:
    """A parsed policy for one seat of a game: every parameter its kernel reads, defaults filled in."""

    spec: PolicySpec
    variant: str
    params: dict[str, float]
    source: Any = None  # a user policy's ``simcore.userpolicy.UserSource`` (its file's text and hash), else None

    @property
    def label(self) -> str:
        """Canonical text: the name, then the parameters that differ from the defaults."""
        default = self.source.defaults if self.source is not None else self.spec.all_params(self.variant)
        changed = {k: v for k, v in self.params.items() if v != default[k]}
        if not changed:
            return self.spec.name
        return self.spec.name + ":" + ",".join(f"{k}={_number_text(v)}" for k, v in changed.items())


def _number_text(value: float) -> str:
    """``0.1`` as ``0.1``, but ``0.123456789`` whole: the label is what a run replays, so it must not round."""
    short = f"{value:g}"
    return short if float(short) == value else repr(value)


def _number(name: str, key: str, value: str) -> float:
    """A parameter's value: a finite number (``nan`` and ``inf`` parse as floats, and would rank moves at random)."""
    try:
        number = float(value)
    except ValueError:
        raise ConfigError(f"policy {name}: parameter {key} must be a number, got {shown(value)}") from None
    if not math.isfinite(number):
        raise ConfigError(f"policy {name}: parameter {key} must be a finite number, got {shown(value)}")
    return number


def _check_range(name: str, key: str, number: float, text: str) -> None:
    if key in ("samples", "rollout", "epsilon", "worlds", "depth", "horizon", "tree"):
        if key in ("samples", "worlds") and not (1 <= number <= 200 and number == int(number)):
            raise ConfigError(f"policy {name}: {key} must be a whole number from 1 to 200, got {shown(text)}")
        if key == "depth" and not (0 <= number <= MAX_DEPTH and number == int(number)):
            raise ConfigError(f"policy {name}: depth must be a whole number from 0 to {MAX_DEPTH}, got {shown(text)}")
        if key == "rollout" and number not in POLICIES[name].rollouts:
            zero = "0 (none), " if 0 in POLICIES[name].rollouts else ""
            raise ConfigError(
                f"policy {name}: rollout must be {zero}1 (greedy), 2 (points) or 3 (defensive), got {shown(text)}"
            )
        if key == "horizon" and not (0 <= number <= MAX_HORIZON and number == int(number)):
            bound = f"from 0 to {MAX_HORIZON}"
            raise ConfigError(f"policy {name}: horizon must be a whole number {bound}, got {shown(text)}")
        if key == "tree" and number not in (0, 1):
            raise ConfigError(f"policy {name}: tree must be 0 (paranoid) or 1 (max-n), got {shown(text)}")
        if key == "epsilon" and not 0 <= number <= 1:
            raise ConfigError(f"policy {name}: epsilon must be between 0 and 1, got {shown(text)}")
    elif abs(number) > MAX_WEIGHT:
        bound = f"{MAX_WEIGHT:,.0f}"
        raise ConfigError(f"policy {name}: {key} must be between -{bound} and {bound}, got {shown(text)}")


def _split(name: str, rest: str) -> dict[str, str]:
    """``"card=1,sweep=2"`` -> ``{"card": "1", "sweep": "2"}``, refusing blanks and repeated keys."""
    given: dict[str, str] = {}
    for item in rest.split(","):
        key, eq, value = (part.strip() for part in item.partition("="))
        if not key:
            raise ConfigError(f"policy {name}: empty parameter in {shown(rest)} (expected key=value,...)")
        if not eq or not value:
            raise ConfigError(f"policy {name}: parameter {shown(key)} needs a value (key=value)")
        if key in given:
            raise ConfigError(f"policy {name}: parameter {shown(key)} given twice")
        given[key] = value
    return given


def parse_policy(
    text: str,
    variant: str = "scopa",
    rules: Mapping[str, Any] | None = None,
    sources: Mapping[str, str] | None = None,
) -> PolicyChoice:
    """Parse ``name`` or ``name:key=value,...`` for a game; unknown names, keys or values are a ConfigError.

    A parameter is accepted only if the policy's kernel reads it (with ``rules``, under those rules too). A user
    policy ``file.py:function[:...]`` is read from ``sources`` (file path -> recorded text) when it is there,
    else from the file.
    """
    from simcore import userpolicy

    if userpolicy.is_user_spec(text):
        return _parse_user(text, variant, sources or {})
    name, colon, rest = (part.strip() for part in text.partition(":"))
    if not name:
        raise ConfigError(f"policy {shown(text)}: no policy name (known policies: {', '.join(POLICIES)})")
    if name not in POLICIES:
        raise ConfigError(f"unknown policy {shown(name)} (known policies: {', '.join(POLICIES)})")
    spec = POLICIES[name]
    if spec.games and variant not in spec.games:
        raise ConfigError(f"policy {name} plays only {', '.join(spec.games)}, not {variant}")
    if spec.file:
        return _parse_packaged(spec, text, rest, variant)
    if colon and not rest:
        raise ConfigError(f"policy {shown(text)}: no parameters after ':' (expected {name}:key=value,...)")
    given = _split(name, rest) if rest else {}
    numbers = {key: _number(name, key, value) for key, value in given.items()}
    for key, number in numbers.items():
        if key in spec.all_params(variant):
            _check_range(name, key, number, given[key])
    params = spec.params(variant, numbers.get("rollout"), numbers.get("horizon"))
    for key, number in numbers.items():
        if key not in params:
            raise ConfigError(_unread(spec, variant, key, numbers.get("rollout"), numbers.get("horizon")))
        bound = RULE_BOUND.get((variant, key))
        if bound is not None and rules is not None and rules.get(bound[0]) != bound[1]:
            raise ConfigError(f"policy {name}: {key} is read only with --rule {bound[0]}={str(bound[1]).lower()}")
        params[key] = number
    return PolicyChoice(spec, variant, params)


def _parse_packaged(spec: PolicySpec, text: str, rest: str, variant: str) -> PolicyChoice:
    """A built-in policy written against the public API: its module of this package, loaded as a user file."""
    from pathlib import Path

    from simcore import userpolicy

    if text.strip().endswith(":"):
        raise ConfigError(f"policy {shown(text)}: no parameters after ':' (expected {spec.name}:key=value,...)")
    source = userpolicy.load(str(Path(__file__).parent / spec.file), spec.name)
    return _user_choice(spec, source, rest, variant)


def _parse_user(text: str, variant: str, sources: Mapping[str, str]) -> PolicyChoice:
    """A user policy: the file's function checked and compiled, its ``PARAMETERS`` with the values given."""
    from simcore import userpolicy

    path, function, rest = userpolicy.split_spec(text)
    source = userpolicy.load(path, function, sources.get(path))
    return _user_choice(PolicySpec(source.name, POLICY_USER, source.doc), source, rest, variant)


def _user_choice(spec: PolicySpec, source: Any, rest: str, variant: str) -> PolicyChoice:
    from simcore import userpolicy

    label = spec.name
    given = _split(label, rest) if rest else {}
    params = source.defaults
    for key, value in given.items():
        if key not in params:
            names = ", ".join(params) or "none"
            raise ConfigError(f"policy {label}: unknown parameter {shown(key)} (its PARAMETERS: {names})")
        params[key] = _number(label, key, value)
    userpolicy.compiled(source)  # compile errors surface here, when the run is configured
    return PolicyChoice(spec, variant, params, source)


def _unread(spec: PolicySpec, variant: str, key: str, rollout: float | None, horizon: float | None = None) -> str:
    """Why ``key`` is refused: unknown to the policy, or read only under another rollout (mc, search) or, mc, with
    a horizon."""
    known = spec.all_params(variant)
    if key in known:
        own = own_defaults(spec.policy_id, variant)
        now = f"rollout={int(own['rollout'] if rollout is None else rollout)}"
        chosen = int(own["rollout"] if rollout is None else rollout)
        if spec.policy_id == POLICY_MC or (spec.policy_id == POLICY_SEARCH and chosen != 0):
            now += f", horizon={int(own['horizon'] if horizon is None else horizon)}"
        return f"policy {spec.name}: {key} is read only with {spec.read_with(variant, key)} (this policy has {now})"
    names = ", ".join(known) or "none"
    readers = [p.name for p in POLICIES.values() if key in p.all_params(variant)]
    if readers:
        return f"policy {spec.name} does not read {key} (its parameters: {names}; {key} is for {', '.join(readers)})"
    return f"policy {spec.name} in {variant}: unknown parameter {shown(key)} (parameters: {names})"


def policy_arrays(choices: list[PolicyChoice], rules: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """Kernel inputs: int64 ids per seat and float64 parameters ``[seat, MAX_PARAMS]``.

    A slot a seat's kernel does not read is filled with its default all the same, so rows stay comparable.
    """
    ids = np.array([c.spec.policy_id for c in choices], dtype=np.int64)
    params = np.zeros((len(choices), MAX_PARAMS), dtype=np.float64)
    for seat, c in enumerate(choices):
        if c.source is not None:  # a user policy: its parameters in PARAMETERS order, then its address
            from simcore import userpolicy

            params[seat, : len(c.params)] = list(c.params.values())
            params[seat, P_ADDRESS] = float(userpolicy.address(c.source))
            continue
        if not c.spec.reads and c.spec.policy_id != POLICY_MC:
            continue
        row = weights.defaults(c.variant) | own_defaults(c.spec.policy_id, c.variant) | c.params
        row = weights.under_rules(c.variant, row, rules)
        params[seat, :52] = weights.card_points(c.variant, row, rules)
        params[seat, P_PER_CARD] = row["card"]
        params[seat, P_SWEEP] = row["sweep"]
        params[seat, P_RISK] = row["risk"]
        params[seat, P_SAMPLES] = row["samples"]
        params[seat, P_SUIT] = weights.suit_weight(c.variant, row, rules)
        params[seat, P_HOLD] = row["hold"]
        if c.spec.policy_id == POLICY_MC:
            params[seat, P_EPSILON] = row["epsilon"]
            params[seat, P_ROLLOUT] = row["rollout"]
            params[seat, P_HORIZON] = row["horizon"]
        if c.spec.policy_id == POLICY_SEARCH:
            params[seat, P_EPSILON] = row["epsilon"]
            params[seat, P_WORLDS] = row["worlds"]
            params[seat, P_DEPTH] = row["depth"]
            params[seat, P_ROLLOUT] = row["rollout"]
            params[seat, P_TREE] = row["tree"]
            params[seat, P_LEAF_HORIZON] = row["horizon"]
    return ids, params
