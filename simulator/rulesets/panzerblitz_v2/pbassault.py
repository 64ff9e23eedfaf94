"""Panzer Blitz assault (PB2-10): infantry riding an AFV or in a half-track unload next to the enemy
hex, the carrier overruns it, the infantry close-assault it at once.

Declared (10.1.1) once the player has picked an overrun and before the carrier moves: the
PB_ASSAULT decision (row 0: the overrun alone, the passengers staying aboard; row 1: the assault)
when the overrun-capable carrier carries passengers that may assault from it (10.2.1:
`transport.panzer_blitz_assault` of stacking.toml: any infantry from a half-track, German and
Russian infantry from an AFV).  The engine (game.try_overrun) then:
- moves the carrier to the hex it overruns from, with its passengers aboard (opportunity fire on
  the way hits the carrier and its passengers together, 4.3.6, 4.3.7.2; riders of an AFV may be
  attacked apart, 4.3.7.1 / 10.1.2: game.rider_opp_rows, and by aircraft air.rider_rows); stopped or
  disrupted on the way, there is no assault;
- unloads the passengers in the carrier's hex at no MP cost (10.1, 4.3.7.4) where the hex holds
  them (10.1.4, 2.3.5), each then open to opportunity fire as any voluntary unloading (4.3.10);
- resolves the overrun (8.1.2-8.1.9; an emptied hex is entered by the carrier, 8.1.9);
- the unloaded infantry not disrupted close-assault the hex (9.1 through `assault.resolve_cat`, with
  its reaction fire, 9.1.8): the defender type is a CAT decision without a stop row, the assault
  being declared; a lone unit with AP and AT facing both types may also split its factors in half
  over them (9.1.7, 10.2: a row of type 3, `assault.split_row`, one roll 9.1.12; round 9); if the
  overrun left no enemy there they advance into it instead (10.1.5).
The passengers are Spent (4.3.4) and count as having fired.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.panzerblitz_v2.assault import (
    _targets,
    across_impassable_bridge,
    advance_if_empty,
    cat_option,
    resolve_cat,
    split_row,
)
from simulator.rulesets.panzerblitz_v2.combat import ap2, at_value, stack_sp
from simulator.rulesets.panzerblitz_v2.decide import decide
from simulator.rulesets.panzerblitz_v2.players import CAT, PB_ASSAULT
from simulator.rulesets.panzerblitz_v2.transport import passengers_sp, unload


@njit(cache=True)
def may_pb_assault(t, st, c, p):
    """10.2.1: may passenger p of carrier c Panzer Blitz assault from it?"""
    tc, tp = t.u_type[c], t.u_type[p]
    if st.carried_by[p] != c or not t.t_infantry[tp] or not t.t_overrun[tc] or not t.t_pb_carrier[tc]:
        return False
    return t.t_pb_afv_rider[tp] or not t.t_afv[tc]


@njit(cache=True)
def pb_riders(t, st, c, out):
    """The passengers of c that may Panzer Blitz assault (out[:k]); k."""
    k = 0
    for p in range(t.n_units):
        if st.carried_by[p] == c and may_pb_assault(t, st, c, p):
            out[k] = p
            k += 1
    return k


@njit(cache=True)
def declare(t, st, c, col, drm, nt):
    """10.1.1: the PB_ASSAULT decision for carrier c about to overrun (its overrun's DFT column,
    DRM and defenders); True if declared.  No eligible passenger: no decision."""
    riders = np.empty(t.n_units, dtype=np.int64)
    k = pb_riders(t, st, c, riders)
    if k == 0:
        return False
    ap = 0
    for i in range(k):
        ap += ap2(t, st, riders[i])
    for i in range(2):
        st.opts[i, 0] = i
        st.opts[i, 1] = k
        st.opts[i, 2] = ap
        st.opts[i, 3] = col
        st.opts[i, 4] = drm
        st.opts[i, 5] = nt
    return decide(PB_ASSAULT, 2, t, st, t.u_side[c]) == 1


@njit(cache=True)
def unload_for_assault(t, st, c, out):
    """10.1, 4.3.7.4: the assaulting passengers leave c in its hex at no MP cost, if the hex holds
    them all (10.1.4); then each may draw opportunity fire (4.3.10).  Returns how many (out[:k])."""
    h = st.hex[c]
    k = pb_riders(t, st, c, out)
    if k == 0 or stack_sp(t, st, h, t.u_side[c], -1) + passengers_sp(t, st, c) > t.stack_limit:
        return 0
    for i in range(k):
        unload(t, st, c, out[i], h, True)
    return k


@njit(cache=True)
def assault_after_overrun(t, st, riders, k, h, side):
    """10.1: the unloaded infantry close-assault hex h at once (a CAT decision among the defender
    types, no stop row; a lone one may split over both, 9.1.7); 10.1.5: with no enemy left there,
    they advance instead."""
    att = np.empty(t.n_units, dtype=np.int64)
    m = 0
    for i in range(k):
        u = riders[i]
        if st.hex[u] >= 0 and not st.disrupted[u] and t.dist[st.hex[u], h] == 1 and st.mine_col[st.hex[u]] < 0 \
                and not across_impassable_bridge(t, st.hex[u], h):
            att[m] = u                                 # 9.2.3: not from a minefield hex; 9.2.5
            m += 1
    tgt = np.empty(t.n_units, dtype=np.int64)
    enemy = 1 - side
    n = 0
    for a in range(3):
        nt = _targets(t, st, h, a, enemy, tgt)
        if nt == 0:
            continue
        na = 0
        sub = np.empty(m, dtype=np.int64)
        for j in range(m):
            if (a >= 1 and at_value(t, st, att[j]) > 0) or (a == 0 and ap2(t, st, att[j]) > 0):
                sub[na] = att[j]
                na += 1
        if na > 0:
            n = cat_option(t, st, n, h, a, sub, na, tgt, nt)
    if m == 1 and n > 0:
        n = split_row(t, st, n, h, side, att, tgt)   # 9.1.7 in 10.1: a lone infantry unit may split
    if n > 0:
        i = decide(CAT, n, t, st, side)
        a = st.opts[i, 1]
        na = 0
        for j in range(m):
            if (a >= 1 and at_value(t, st, att[j]) > 0) or (a == 0 and ap2(t, st, att[j]) > 0):
                att[na] = att[j]                       # (a split, 3: the lone unit, which has both)
                na += 1
        resolve_cat(t, st, att, na, h, a, side, tgt)
    else:
        advance_if_empty(t, st, att, m, h, side)       # 10.1.5
    for i in range(k):
        if st.hex[riders[i]] >= 0:
            st.fired[riders[i]] = True
            st.spent[riders[i]] = True
