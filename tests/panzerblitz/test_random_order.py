"""The random player's unit order (random_play.random_order) is numpy's Generator permutation,
draw for draw: the random player's games must not change when it stops calling
`rng.permutation` (whose compiled shuffle costs seconds of a cold start)."""

import numpy as np
from numba import njit

from simulator.rulesets.panzerblitz.players.random_play import random_order


@njit
def _ours(seed_rng, n):
    order = random_order(seed_rng, n)
    return order, seed_rng.random()  # the stream after it too


@njit
def _numbas(seed_rng, n):
    order = seed_rng.permutation(n)
    return order, seed_rng.random()


def test_random_order_is_the_generator_permutation():
    for seed in range(60):
        for n in (0, 1, 2, 3, 7, 40, 64, 65, 129, 300):
            a, after_a = _ours(np.random.default_rng(seed), n)
            b, after_b = _numbas(np.random.default_rng(seed), n)
            assert a.tolist() == b.tolist() and after_a == after_b, (seed, n)
            assert a.tolist() == np.random.default_rng(seed).permutation(n).tolist()  # numpy's own
