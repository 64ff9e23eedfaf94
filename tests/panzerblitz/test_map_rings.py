"""The map's discs by distance (tables._rings): the hexes the heuristic walks when it spreads a
weapon's fire over its range or a unit's support over `support_radius` (docs/performance.md)."""

import numpy as np

from simulator.rulesets.panzerblitz.batch import prepare
from simulator.situation import load_situation


def test_rings_list_every_hex_by_distance():
    mt = prepare(load_situation("pb-12")).map_t
    n = mt.dist.shape[0]
    rng = np.random.default_rng(0)
    for h in rng.choice(n, 40, replace=False):
        ring = mt.by_dist[h]
        assert sorted(ring.tolist()) == list(range(n))  # every hex once
        d = mt.dist[h, ring]
        assert ring[0] == h and np.all(np.diff(d) >= 0)  # nearest first
        for r in range(mt.within.shape[1]):
            disc = set(ring[: mt.within[h, r]].tolist())
            assert disc == set(np.flatnonzero(mt.dist[h] <= r).tolist())
        assert mt.within[h, -1] == n  # the farthest distance covers the map
