"""NodeResourcesFit's shared-capacity constraint with amounts past what CP-SAT takes: dropped when
it always holds, else scaled down into a constraint the original implies (a sound relaxation)."""

from __future__ import annotations

import itertools
import random

from models.noderesources import SAFE, at_most


def test_a_constraint_that_always_holds_is_dropped() -> None:
    assert at_most([(3, "a", 2), (5, "b", 1)], 11) is None
    assert at_most([(3, "a", 2), (5, "b", 1)], 10) == ([(3, "a"), (5, "b")], 10)


def test_huge_amounts_are_scaled_into_an_implied_constraint() -> None:
    """For every assignment the original allows, the scaled one holds too (brute force), and
    every number the scaled one has stays under SAFE."""
    rnd = random.Random(3)
    for _ in range(300):
        n = rnd.randint(1, 3)
        qs = [rnd.choice([1, 7, 2**40 + 3, 2**62, 2**63 - 1, rnd.randrange(1, 2**63)]) for _ in range(n)]
        ubs = [rnd.randint(0, 3) for _ in range(n)]
        rhs = rnd.choice([0, 5, 2**41, 2**63 - 1, 3 * (2**63 - 1), rnd.randrange(0, 2**66)])
        fit = at_most([(q, i, ub) for i, (q, ub) in enumerate(zip(qs, ubs))], rhs)
        if fit is None:
            assert sum(q * ub for q, ub in zip(qs, ubs)) <= rhs
            continue
        terms, bound = fit
        assert bound <= SAFE and all(q <= SAFE for q, _ in terms) and sum(q * ubs[i] for q, i in terms) <= 2 * SAFE + sum(ubs)
        for xs in itertools.product(*(range(ub + 1) for ub in ubs)):
            if sum(q * x for q, x in zip(qs, xs)) <= rhs:
                assert sum(q * xs[i] for q, i in terms) <= bound, (qs, ubs, rhs, xs)
