"""Efficiency rolls (PB2-13.2) and hull-down (PB2-15.6), the action that takes one.

An Efficiency Roll is passed on a natural 2d6 plus `efficiency.roll.modifier` at or under the
side's rating (reading PB2-OQ-44: the recovery test of 13.1 without its modifiers).  A vehicle
that stayed put may try to go hull-down: it spends half its MA (Spent, 4.1.10), draws
opportunity fire without the hull-down modifier (15.6.1), and on a passed roll is hull-down in
that hex: +1 to attacks against it (15.6.2, `modifiers.drm.hull_down`), lost as soon as it spends
any MP (15.6.3: the marker holds only while the vehicle is in the hex where it got it), one try a
turn, only in the terrain of `terrain.rules.hull_down.terrain` (15.6.4).
"""

from __future__ import annotations

from simulator.jit import njit
from simulator.rulesets.panzerblitz_v2.rng import two_dice


@njit(cache=True)
def efficiency_chance(t, side):
    """P(pass an Efficiency Roll), in 36ths (13.2)."""
    k = 0
    for a in range(1, 7):
        for b in range(1, 7):
            if a + b + t.eff_roll_mod <= t.s_efficiency[side]:
                k += 1
    return k


@njit(cache=True)
def efficiency_roll(t, st, side):
    """One Efficiency Roll from the dice stream: (passed, natural roll)."""
    natural = two_dice(st.streams)
    return natural + t.eff_roll_mod <= t.s_efficiency[side], natural


@njit(cache=True)
def hull_down(st, u):
    """Is unit u hull-down now (in the hex where it got the marker, having spent no MP since)?"""
    return st.hex[u] >= 0 and st.hd_hex[u] == st.hex[u]


@njit(cache=True)
def may_try_hull_down(t, st, u):
    """15.6.1, 15.6.4: a vehicle on the map, not Spent or Disrupted, that spent no MP this Operation,
    not yet hull-down, with no try yet this turn, in hull-down terrain."""
    h = st.hex[u]
    return (h >= 0 and t.t_vehicle[t.u_type[u]] and t.hull_ok[h] and not st.depr_now[h] and not st.spent[u] and not st.disrupted[u]
            and st.mp_op[u] == 0 and st.hd_turn[u] != st.turn[0] and not hull_down(st, u))
