"""The cheapest user policy there is (the benchmark's floor): the first legal move, reading nothing."""


def first(view, rules, moves, rng, params):
    """Move 0."""
    return 0
