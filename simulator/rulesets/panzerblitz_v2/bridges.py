"""Destroyed bridges (PB2-17.2, 14.7.5): the terrain of a bridge hex changes in mid-game.

The per-situation tables (LoS, terrain, hexside costs) are static; a destroyed bridge is an overlay
on them, as smoke is (smoke.py), read only while a bridge is out (`st.n_br_out[0] > 0`: one integer
test on the hot paths while none is):
- **LoS** (5.6; `los_now`, read by smoke.sees): its stream end hexes are depressions.  With one
  bridge out, the precomputed rows of its two end hexes (`t.los_blown`) and, for a line between two
  depression hexes that may run along the stream through an end (5.6.3), the pair computed live;
  with two or more out, every pair that touches a depression is computed live (`st.depr_now`).
- **movement** (`movement.reachable`, `enter_cost_now`): the bridge hexside takes its water's
  crossing cost (`t.br_alt_cost`: the Odon's deep stream, foot units only, all MP) and no road rate.
- **TEM, overrun, IPs, hull-down** (14.7.5, 14.6.5, 8.2.4, 15.4.1, 15.6.4): an end hex is its stream
  type (`tem_df`, `tem_if`, `overrun_ok`, `depression`).
The victory measures and the players' goal distances read the static tables (engine.md).
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.panzerblitz_v2.los import los_pair


@njit(cache=True)
def blown_end(t, st, h):
    """(bridge, end 0/1) if hex h is an end of a destroyed bridge, else (-1, -1)."""
    k = t.hex_br[h]
    if k < 0 or not st.br_out[k]:
        return -1, -1
    return k, (0 if t.br_hex[k, 0] == h else 1)


@njit(cache=True)
def _live(t, st, a, b):
    d = t.dist[a, b]
    ca = np.empty(d + 2, dtype=np.int64)
    cb = np.empty(d + 2, dtype=np.int64)
    out2 = np.zeros(2, dtype=np.bool_)
    if a > b:
        a, b = b, a                                  # the table's order (los._build: the lower index first)
    return los_pair(a, b, t.q, t.r, t.ax_index, t.ax_q0, t.ax_r0, t.level, t.obstacle, t.inherent, st.depr_now,
                    t.neighbours, t.dist, t.partial_num, t.partial_den, ca, cb, out2)


@njit(cache=True)
def _through_blown(t, st, a, b):
    """An end of a destroyed bridge lies on a shortest path between a and b (so maybe on the line)."""
    d = t.dist[a, b]
    for k in range(t.n_bridges):
        if st.br_out[k]:
            for j in range(2):
                e = t.br_hex[k, j]
                if t.dist[a, e] + t.dist[e, b] == d:
                    return True
    return False


@njit(cache=True)
def los_now(t, st, a, b):
    """The line of sight between hexes a and b with the destroyed bridges (no smoke); call it only
    when st.n_br_out[0] > 0 (otherwise it is t.los[a, b])."""
    if not t.play[a] or not t.play[b]:
        return t.los[a, b] != 0
    ka, ja = blown_end(t, st, a)
    kb, jb = blown_end(t, st, b)
    if st.n_br_out[0] == 1:
        if ka >= 0:
            return t.los_blown[ka, ja, b] != 0
        if kb >= 0:
            return t.los_blown[kb, jb, a] != 0
        if st.depr_now[a] and st.depr_now[b] and _through_blown(t, st, a, b):
            return _live(t, st, a, b)                # 5.6.3: maybe along the stream through an end
        return t.los[a, b] != 0
    if ka >= 0 or kb >= 0 or (st.depr_now[a] and st.depr_now[b]):
        return _live(t, st, a, b)
    return t.los[a, b] != 0


@njit(cache=True)
def depression(t, st, h):
    """Hex h is a depression now (5.6; 17.2.1.3: a destroyed bridge's stream end is one)."""
    return st.depr_now[h]


@njit(cache=True)
def tem_df(t, st, h):
    """The hex's TEM against direct fire now (14.7.5: a destroyed bridge's hex is its stream type)."""
    if st.n_br_out[0] > 0:
        k, j = blown_end(t, st, h)
        if k >= 0:
            return t.br_tem[k, j]
    return t.tem_df[h]


@njit(cache=True)
def tem_if(t, st, h, soft):
    """The hex's TEM against indirect fire now (soft: leg, truck, wagon targets, 14.4.5)."""
    if st.n_br_out[0] > 0:
        k, j = blown_end(t, st, h)
        if k >= 0:
            return t.br_tem_if[k, j, 0 if soft else 1]
    return t.tem_if_soft[h] if soft else t.tem_if_hard[h]


@njit(cache=True)
def overrun_ok(t, st, h):
    """8.2.4: units in hex h may be overrun (a destroyed bridge's hex as its stream type)."""
    if st.n_br_out[0] > 0:
        k, j = blown_end(t, st, h)
        if k >= 0:
            return t.br_ovr_ok[k, j]
    return t.overrun_ok[h]


@njit(cache=True)
def side_out(t, st, h, d):
    """The bridge of hex h's side d is destroyed (its water is crossed as if never bridged)."""
    if st.n_br_out[0] == 0:
        return False
    k = t.side_br[h, d]
    return k >= 0 and st.br_out[k]


@njit(cache=True)
def destroy(t, st, k, marker_hex):
    """17.2.1.3: bridge k is destroyed; the Destroyed Bridge marker (a Block counter) in
    `marker_hex`; both its end hexes are then their stream type for the rest of the game."""
    if st.br_out[k]:
        return
    st.br_out[k] = True
    st.n_br_out[0] += 1
    st.br_mark[k] = marker_hex
    for j in range(2):
        h = t.br_hex[k, j]
        if t.br_depr[k, j]:
            st.depr_now[h] = True
            st.ip[h] = False                         # 15.4.1: no IP in a stream hex (a reading)
    if t.demo_marker_block:
        st.block[marker_hex] = True                  # PB2-OQ-97 "block": the counter is also a block
    for u in range(t.n_units):                       # 15.6.4, 15.4.1: nor hull-down
        h = st.hex[u]
        if h >= 0 and t.hex_br[h] == k and st.depr_now[h]:
            st.hd_hex[u] = -1
            st.in_ip[u] = False

