"""Smoke (PB2-12): the counters artillery fires instead of HE, and the line of sight of the moment.

The static LoS table (los.py) is built once a situation; smoke comes and goes, so every LoS read of
the engine goes through `sees`, which is the table while no smoke lies on the map (the common case
costs one more test) and otherwise also asks whether a smoke hex lies on the line (12.2.2: an
obstacle at all elevations, inherent terrain: it blocks on either of the two chains of a line
along a hexspine, 5.5).  A unit can see into and out of a smoke hex (12.2.4: units in it may be
seen and attacked; 12.2.6: fire from it is possible, at +2), so only smoke strictly between the two
hexes blocks; adjacent hexes always see each other (5.4.6).
- 12.2.1: unscattered smoke is placed SMOKE 1 side up, scattered smoke SMOKE 2 side up; in the
  administration (3.1.3 step 2) SMOKE 2 counters go and SMOKE 1 counters flip
  (`artillery.smoke_administration`).
- 12.2.3: none in all-water, swamp or river hexes (`t.smoke_ok`; a smoke round landing there has no effect).
- 12.2.4: a unit in smoke is spotted as in a non-clear hex (combat.spotted_now; the woods range, a reading).
- 12.2.5: +1 MP to enter (movement.reachable); 12.2.6: +1 to DF into it, +2 to all fire from it
  (modifiers.toml fire_into_smoke / fire_from_smoke; combat.attacker_drm, defender_drm, artillery).
A destroyed bridge (17.2) changes the static table too: `bridges.los_now` while one is out.
The victory measures read the static table (a corridor or line of fire at the game's end).
"""

from __future__ import annotations

import numpy as np

from simulator.hexgrid import line_chain
from simulator.jit import njit
from simulator.rulesets.panzerblitz_v2.bridges import los_now
from simulator.rulesets.panzerblitz_v2.los import _chain_blocks
from simulator.rulesets.panzerblitz_v2.state import AIRBORNE
from simulator.rulesets.panzerblitz_v2.tables import AIR_O


@njit(cache=True)
def _on_chain(t, a, b, s, side):
    chain = np.empty(t.dist[a, b] + 1, dtype=np.int64)
    n = line_chain(t.q, t.r, t.ax_index, t.ax_q0, t.ax_r0, a, b, side, chain)
    for k in range(1, n - 1):
        if chain[k] == s:
            return True
    return False


@njit(cache=True)
def smoke_between(t, st, a, b):
    """A smoke counter on a hex strictly between a and b on the line (either chain, 12.2.2, 5.5)."""
    d = t.dist[a, b]
    if d <= 1:
        return False                          # 5.4.6
    for s in range(t.n_hexes):
        if st.smoke[s] == 0 or s == a or s == b or t.dist[a, s] + t.dist[s, b] != d:
            continue                          # (a hex of the line lies on a shortest path)
        if _on_chain(t, a, b, s, 1.0) or _on_chain(t, a, b, s, -1.0):
            return True
    return False


@njit(cache=True)
def sees(t, st, a, b):
    """The line of sight between hexes a and b now: the static table, with the destroyed bridges
    (bridges.los_now, 17.2.1.3), less the smoke on the map."""
    if st.n_br_out[0] == 0:
        if not t.los[a, b]:
            return False
    elif not los_now(t, st, a, b):
        return False
    if st.n_smoke[0] == 0:
        return True
    return not smoke_between(t, st, a, b)


@njit(cache=True)
def place_smoke(t, st, h, scattered):
    """12.1, 12.2.1, 12.2.3: a smoke round lands on hex h; returns the side up (0: none placed)."""
    if not t.smoke_ok[h]:
        return 0
    up = 2 if scattered else 1
    if st.smoke[h] == 0:
        st.n_smoke[0] += 1
        st.smoke[h] = up
    else:
        st.smoke[h] = min(st.smoke[h], up)    # the fresher counter stays
    return st.smoke[h]


@njit(cache=True)
def air_sees(t, st, a, b):
    """16.1.8: LoS between an aircraft over hex a and a unit in hex b: the aircraft two levels above
    the highest level of the play area (t.air_level), the blocking rules of 5.4-5.5 along the line
    (inherent terrain on either chain blocks, other obstacles when both chains are blocked) and smoke
    (12.2.2: at all elevations)."""
    d = t.dist[a, b]
    if d <= 1:
        return True                                # 5.4.6
    ca = np.empty(d + 2, dtype=np.int64)
    cb = np.empty(d + 2, dtype=np.int64)
    out2 = np.zeros(2, dtype=np.bool_)
    na = line_chain(t.q, t.r, t.ax_index, t.ax_q0, t.ax_r0, a, b, 1.0, ca)
    nb = line_chain(t.q, t.r, t.ax_index, t.ax_q0, t.ax_r0, a, b, -1.0, cb)
    _chain_blocks(ca, na, t.air_level, t.level[b], t.obstacle, t.inherent, t.partial_num, t.partial_den, out2)
    inh_a = out2[0]
    blk_a = out2[1]
    _chain_blocks(cb, nb, t.air_level, t.level[b], t.obstacle, t.inherent, t.partial_num, t.partial_den, out2)
    if inh_a or out2[0] or (blk_a and out2[1]):
        return False
    return st.n_smoke[0] == 0 or not smoke_between(t, st, a, b)


@njit(cache=True)
def obs_sees(t, st, o, h):
    """PB2-16.2 (round 8): does observation aircraft o, in play and placed, spot hex h: within 30
    hexes of its marker (5 into town, city, woods, orchard or swamp; air.toml [air.observation]) and
    in sight from the air (16.1.8)?  (Here, not in air.py, so that spotting and the FOs can read it.)"""
    if st.hex[o] != AIRBORNE or st.air_hex[o] < 0 or st.air_recall[o]:
        return False
    a = st.air_hex[o]
    if t.dist[a, h] > (t.obs_range_hidden if t.obs_hidden[t.cover[h]] else t.obs_range):
        return False
    return air_sees(t, st, a, h)


@njit(cache=True)
def obs_spots(t, st, side, h):
    """PB2-16.2: does an observation aircraft of `side` spot hex h now?"""
    for o in range(t.n_units):
        if t.u_side[o] == side and t.t_air[t.u_type[o]] == AIR_O and obs_sees(t, st, o, h):
            return True
    return False
