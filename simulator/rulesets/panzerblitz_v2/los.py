"""Line of sight with six elevation levels (PB2-5.x), a table of every pair of play-area hexes.

A straight line between hex centres (5.4) crosses a chain of hexes; where it runs exactly along a
hexspine there are two candidate chains (the core's `line_chain` with side +1 / -1).  Each
intervening hex is an obstacle of height level + its terrain's obstacle height (5.3.2: towns,
cities, woods, orchards, swamp +1; terrain.toml).  Against the two units' levels lo <= hi:
- an obstacle no higher than the lower unit never blocks (5.4.3);
- one higher than both, or equal to the higher and above the lower, blocks (5.4.1, 5.4.2);
- one between them is judged by the partial-height chart (5.4.4, 5.4.5): it leaves the line
  clear if its distance from the higher unit is at most floor(fraction x D).
Inherent terrain (towns, cities, swamp; 5.5) blocks on either chain (through the hexspine too);
elevation, woods (depiction = hex interior, readings.woods_depiction) and orchards (whose spine
blocks only between two orchards, 5.5) block only when both chains are blocked
(readings.hexspine_rule = both_sides_for_non_inherent).  A line along a hexspine between hexes
of different levels runs along a slope (5.2.3) and is blocked when the slope rises above the lower
unit (14.9.3, readings.slope_along_blocks).  Adjacent hexes always see each other (5.4.6).
Depressions (stream and gully hexes not on a bridge, 5.6): a unit in one sees a unit at the same
level or lower outside one only when adjacent (5.6.2); a higher unit sees it by the normal rules
(5.6.1); two depression hexes see each other only along a line of depression hexes (5.6.3, the
"only gully hexsides" of the text as the hexes of the chain).
"""

from __future__ import annotations

import numpy as np

from simulator.hexgrid import axial_index, line_chain
from simulator.jit import njit


@njit(cache=True)
def _chain_blocks(chain, n, la, lb, obstacle, inherent, pn, pd, out2):
    """(blocked by an inherent obstacle, blocked by any obstacle) along one chain of n hexes."""
    lo = min(la, lb)
    hi = max(la, lb)
    d = n - 1
    inh = False
    blk = False
    for k in range(1, n - 1):
        h = chain[k]
        if h < 0:
            continue
        height = obstacle[h]
        if height <= lo:
            continue                      # 5.4.3 (and an obstacle level with both units)
        blocks = False
        if height >= hi:
            blocks = True                 # 5.4.1, 5.4.2
        else:                             # 5.4.4: the partial-height chart 5.4.5
            diff = min(hi - lo, 5)
            above = min(height - lo, 4)
            from_higher = k if la >= lb else d - k
            blocks = from_higher * pd[diff, above] > pn[diff, above] * d
        if blocks:
            blk = True
            if inherent[h]:
                inh = True
    out2[0] = inh
    out2[1] = blk


@njit(cache=True)
def los_pair(a, b, q, r, iax, q0, r0, level, obstacle, inherent, depression, neighbours, dist, pn, pd,
             chain_a, chain_b, out2):
    """Whether a unit in hex a and one in hex b see each other (reciprocal, 5.7)."""
    if a == b:
        return True
    d = dist[a, b]
    if d == 1:
        return True                       # 5.4.6
    la = level[a]
    lb = level[b]
    na = line_chain(q, r, iax, q0, r0, a, b, 1.0, chain_a)
    nb = line_chain(q, r, iax, q0, r0, a, b, -1.0, chain_b)
    if depression[a] and depression[b]:   # 5.6.3
        for k in range(1, na - 1):
            if chain_a[k] < 0 or not depression[chain_a[k]]:
                return False
        return True
    if depression[a] and lb <= la:        # 5.6.2
        return False
    if depression[b] and la <= lb:
        return False
    _chain_blocks(chain_a, na, la, lb, obstacle, inherent, pn, pd, out2)
    inh_a = out2[0]
    blk_a = out2[1]
    _chain_blocks(chain_b, nb, la, lb, obstacle, inherent, pn, pd, out2)
    if inh_a or out2[0]:
        return False
    if blk_a and out2[1]:
        return False
    # 14.9.3: along a slope (the two chains part on the two sides of a hexspine).
    lo = min(la, lb)
    for k in range(1, na - 1):
        x = chain_a[k]
        y = chain_b[k]
        if x >= 0 and y >= 0 and x != y and level[x] != level[y] and max(level[x], level[y]) > lo:
            for j in range(6):
                if neighbours[x, j] == y:
                    return False
    return True


@njit(cache=True)
def _build(play_idx, q, r, iax, q0, r0, level, obstacle, inherent, depression, neighbours, dist, pn, pd, table):
    n = play_idx.shape[0]
    maxd = 0
    for i in range(n):
        for j in range(n):
            if dist[play_idx[i], play_idx[j]] > maxd:
                maxd = dist[play_idx[i], play_idx[j]]
    chain_a = np.empty(maxd + 2, dtype=np.int64)
    chain_b = np.empty(maxd + 2, dtype=np.int64)
    out2 = np.zeros(2, dtype=np.bool_)
    for i in range(n):
        a = play_idx[i]
        table[a, a] = 1
        for j in range(i + 1, n):
            b = play_idx[j]
            ok = los_pair(a, b, q, r, iax, q0, r0, level, obstacle, inherent, depression, neighbours, dist,
                          pn, pd, chain_a, chain_b, out2)
            table[a, b] = 1 if ok else 0
            table[b, a] = table[a, b]


def los_table(t) -> np.ndarray:
    """int8[n_hexes, n_hexes]: 1 where the two hexes see each other (play-area hexes only)."""
    iax, q0, r0 = axial_index(t.q, t.r)
    table = np.zeros((t.n_hexes, t.n_hexes), dtype=np.int8)
    _build(np.flatnonzero(t.play).astype(np.int64), t.q, t.r, iax.astype(np.int64), q0, r0, t.level, t.obstacle,
           t.inherent, t.depression, t.neighbours, t.dist, t.partial_num, t.partial_den, table)
    return table


@njit(cache=True)
def _row(a, play_idx, q, r, iax, q0, r0, level, obstacle, inherent, depression, neighbours, dist, pn, pd, out):
    """The LoS row of hex a against every play-area hex, with the depressions given."""
    maxd = 0
    for j in range(play_idx.shape[0]):
        maxd = max(maxd, dist[a, play_idx[j]])
    chain_a = np.empty(maxd + 2, dtype=np.int64)
    chain_b = np.empty(maxd + 2, dtype=np.int64)
    out2 = np.zeros(2, dtype=np.bool_)
    for j in range(play_idx.shape[0]):
        b = play_idx[j]
        x = min(a, b)                     # the table's order (_build: the lower index first)
        y = max(a, b)
        out[b] = 1 if los_pair(x, y, q, r, iax, q0, r0, level, obstacle, inherent, depression, neighbours, dist,
                               pn, pd, chain_a, chain_b, out2) else 0


def blown_depression(t, blown) -> np.ndarray:
    """The depressions with the bridges of `blown` (indices) destroyed (17.2.1.3: their stream ends)."""
    dep = t.depression.copy()
    for k in blown:
        for j in range(2):
            dep[t.br_hex[k, j]] |= t.br_depr[k, j]
    return dep


def blown_rows(t) -> np.ndarray:
    """int8[n_bridges, 2, n_hexes] (PB2-17.2.1.3, 5.6): the LoS rows of each bridge's two end hexes
    with that bridge destroyed (its stream ends depressions).  A depression hex between two others
    is no obstacle, so only lines from and to the ends change, but for one kind: a line between two
    depression hexes along the stream through an end (5.6.3), which `smoke.sees` computes live."""
    iax, q0, r0 = axial_index(t.q, t.r)
    play_idx = np.flatnonzero(t.play).astype(np.int64)
    out = np.zeros((max(t.n_bridges, 1), 2, t.n_hexes), dtype=np.int8)
    for k in range(t.n_bridges):
        dep = blown_depression(t, [k])
        for j in range(2):
            _row(int(t.br_hex[k, j]), play_idx, t.q, t.r, iax.astype(np.int64), q0, r0, t.level, t.obstacle,
                 t.inherent, dep, t.neighbours, t.dist, t.partial_num, t.partial_den, out[k, j])
    return out


def los_table_with(t, depression) -> np.ndarray:
    """The whole LoS table with other depressions (a test's full recompute)."""
    return los_table(t._replace(depression=depression))
