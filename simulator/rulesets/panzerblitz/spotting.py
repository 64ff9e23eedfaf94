"""Spotting and line of sight for fire (PB-SPOT, PB-LOS): the hexes a side spots, what a unit
can see, what the command posts observe for indirect fire (PB-OPT-IF).
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.panzerblitz.presence import is_piece


@njit(cache=True)
def spotted_hexes(st, ut, mt, ct, side):
    """PB-SPOT-2/3: hexes adjacent to (or holding) an undispersed unit of `side` (at the start of its turn).
    With the Panzer Leader variant, also the hexes of enemy units that fired from woods or a
    town in their last player-turn."""
    n_hex = mt.neighbours.shape[0]
    out = np.zeros(n_hex, dtype=np.bool_)
    if ct.fired_units_stay_spotted:
        for u in range(st.utype.shape[0]):
            if st.side[u] != side and st.revealed[u] and is_piece(st, ut, u):
                out[st.hex[u]] = True
    for u in range(st.utype.shape[0]):
        if is_piece(st, ut, u) and st.side[u] == side and not st.dispersed[u]:
            h = st.hex[u]
            # its own hex too: only a fort's inside and top hold enemies there (PB-FORT-13),
            # and they see each other
            out[h] = True
            for d in range(6):
                nb = mt.neighbours[h, d]
                if nb >= 0:
                    out[nb] = True
    return out


@njit(cache=True)
def brown_between(mt, a, b):
    for d in range(6):
        if mt.neighbours[a, d] == b:
            return (mt.side_features[a, d] & mt.brown_bit) != 0
    return False


@njit(cache=True, inline="always")
def can_see(mt, spotted, a, b):
    """PB-CBT-4 / PB-LOS / PB-SPOT: may a unit in a fire at a unit in b (LOS and spotting)?"""
    dist = mt.dist[a, b]
    if dist <= 1:
        return True  # PB-LOS-5, and adjacent units are spotted by the firer itself
    if mt.los[a, b] == 0:
        return False
    if mt.concealing[b] and not spotted[b]:
        return False  # PB-SPOT-1: woods and towns hide units not spotted
    return True


@njit(cache=True)
def observe(st, ut, mt, side, spotted):
    """PB-OPT-IF-2/3, PB-CP-2: mark the hexes `side` may fire on indirectly this phase: an
    unloaded command post of the side (undispersed: a dispersed unit does not spot, PB-SPOT-2)
    has a clear LOS to the hex; a hex in woods or a town must also be spotted by a unit
    adjacent to it that the CP can see.  `st.observed[h]` has one bit per command post of the
    side (in unit order) that observes h, for PB-SIT-8's distance limit."""
    n_hex = mt.neighbours.shape[0]
    # The arrays read out of the structs once: a struct field read in the loop over the map is
    # reference-counted at every hex (docs/performance.md, round 9).
    observed, dist, los, concealing = st.observed, mt.dist, mt.los, mt.concealing
    unit_hex, unit_side, dispersed = st.hex, st.side, st.dispersed
    observed[:] = 0
    slot = -1
    for c in range(st.utype.shape[0]):
        if unit_side[c] != side or not ut.observer[st.utype[c]]:
            continue
        slot += 1
        if not is_piece(st, ut, c) or dispersed[c] or slot > 62:
            continue
        bit = np.int64(1) << slot
        hc = unit_hex[c]
        for h in range(n_hex):
            if observed[h] & bit or (dist[hc, h] > 1 and los[hc, h] == 0):
                continue
            if not concealing[h]:
                observed[h] |= bit
                continue
            if not spotted[h]:
                continue
            for s in range(unit_hex.shape[0]):
                if is_piece(st, ut, s) and unit_side[s] == side and not dispersed[s] \
                        and dist[unit_hex[s], h] == 1 \
                        and (dist[hc, unit_hex[s]] <= 1 or los[hc, unit_hex[s]] != 0):
                    observed[h] |= bit  # PB-OPT-IF-3: the CP sees the spotter
                    break
