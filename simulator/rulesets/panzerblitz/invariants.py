"""Checks that must hold after every action of a game (the debug mode of the rules engine).

Each returns 0 when all is well, or the code of the first broken invariant; the game records
the first violation and the event at which it happened (`balance replay --debug`, tests).
"""

from __future__ import annotations

import numpy as np
from numba import types

from simulator.jit import Indirect, njit
from simulator.rulesets.panzerblitz import dispatch as ask
from simulator.rulesets.panzerblitz.move_view import view_stale
from simulator.rulesets.panzerblitz.presence import is_piece
from simulator.rulesets.panzerblitz.state import (
    N_EVENTS,
    NOT_OWN_FIRE,
    ON_MAP,
    PHASING,
    VIOLATION,
    VIOLATION_EVENT,
)

OK, BOTH_SIDES_IN_HEX, OVERSTACKED, CLOSED_HEX, PROHIBITED_TERRAIN, DISPERSED_ACTED, FIRED_AND_MOVED, \
    PASSENGER_MISMATCH, ON_TOP_MISMATCH, SWAMP_ROAD_VEHICLES, VIEW_STALE = range(11)
NAMES = {
    OK: "ok",
    BOTH_SIDES_IN_HEX: "units of both sides in one hex, other than enemy units on top of an occupied fort (PB-STACK-7)",
    OVERSTACKED: "more units in a hex than the stacking limit (PB-STACK-1)",
    CLOSED_HEX: "a unit in a hex no unit may enter (PB-GEN-4)",
    PROHIBITED_TERRAIN: "a unit in terrain prohibited to it, off the road (PB-TEC)",
    DISPERSED_ACTED: "a dispersed unit moved or fired (PB-DISP-2)",
    FIRED_AND_MOVED: "a unit fired and moved in one turn (PB-SEQ-3)",
    PASSENGER_MISMATCH: "a passenger not with its carrier (PB-TRANS)",
    ON_TOP_MISMATCH: "a unit on top of no fort (PB-FORT-10)",
    SWAMP_ROAD_VEHICLES: "two vehicles on a swamp/road hex (PB-ROAD-10)",
    VIEW_STALE: "the movement view differs from the board worked out afresh (engine bug: move_view.py)",
}


@njit(cache=True)
def violation(st, ut, mt, mv, limits):
    n_hex = mt.neighbours.shape[0]
    count = np.zeros((n_hex, 2), dtype=np.int64)
    by_road = np.zeros(n_hex, dtype=np.int64)
    inside = np.zeros((n_hex, 2), dtype=np.int64)  # units inside a fort of their side
    top = np.zeros((n_hex, 2), dtype=np.int64)     # units on top of a fort
    fort_side = np.full(n_hex, -1, dtype=np.int64)
    for u in range(st.utype.shape[0]):
        if st.status[u] == ON_MAP and ut.fort[st.utype[u]]:
            fort_side[st.hex[u]] = st.side[u]
    phasing = st.clock[PHASING]
    for u in range(st.utype.shape[0]):
        c = st.carried_by[u]
        if c >= 0 and (st.carrying[c] != u or st.hex[c] != st.hex[u] or st.status[c] != st.status[u]):
            return PASSENGER_MISMATCH
        if not is_piece(st, ut, u):
            continue
        h = st.hex[u]
        t = st.utype[u]
        count[h, st.side[u]] += ut.stack_count[t]
        if st.on_top[u]:
            if fort_side[h] < 0:
                return ON_TOP_MISMATCH  # PB-FORT-10: on top of nothing
            top[h, st.side[u]] += 1
        else:
            inside[h, st.side[u]] += 1  # (in an empty enemy fort: in the hex, as before forts had tops)
        if mt.closed[h]:
            return CLOSED_HEX
        mc = ut.mclass[t]
        if mc >= 0 and mv.enter_cost[h, mc] < 0:
            if not road_hex(mt, mv, h):
                return PROHIBITED_TERRAIN
            by_road[h] += 1
            if by_road[h] > 1:
                return SWAMP_ROAD_VEHICLES  # PB-ROAD-10.2
        if st.side[u] == phasing and st.dispersed[u] and st.fired[u] and st.own_fire_hit[u] == NOT_OWN_FIRE:
            return DISPERSED_ACTED  # (PB-FORT-13: a unit may be dispersed by its own side's fire after firing)
        if st.side[u] == phasing and st.fired[u] and st.moved[u]:
            return FIRED_AND_MOVED
    for h in range(n_hex):
        if inside[h, 0] + top[h, 0] > 0 and inside[h, 1] + top[h, 1] > 0:
            # PB-STACK-7 / PB-FORT-12: the one exception, enemy units on top of a fort that
            # still holds units of its side inside, nobody of the fort's side on top.
            s = fort_side[h]
            if s < 0 or inside[h, s] == 0 or top[h, s] > 0 or inside[h, 1 - s] > 0:
                return BOTH_SIDES_IN_HEX
        for s in range(2):
            if count[h, s] > limits[s]:
                return OVERSTACKED
    return OK


@njit(cache=True)
def road_hex(mt, mv, h):
    for d in range(6):
        if mt.side_features[h, d] & mv.road_bit:
            return True
    return False


@njit(cache=True)
def check_view(st, ut, mt, mv, side, u, occ):
    """Record VIEW_STALE if the movement view kept through the phase differs from the one
    worked out afresh, with unit u as the mover (debug mode only)."""
    if st.clock[VIOLATION] == 0 and view_stale(st, ut, mt, mv, side, u, occ):
        st.clock[VIOLATION] = VIEW_STALE
        st.clock[VIOLATION_EVENT] = st.clock[N_EVENTS]


@njit(cache=True)
def check(st, ut, mt, mv, limits):
    """Record the first violation (debug mode only)."""
    if st.clock[VIOLATION] != 0:
        return
    code = violation(st, ut, mt, mv, limits)
    if code != 0:
        st.clock[VIOLATION] = code
        st.clock[VIOLATION_EVENT] = st.clock[N_EVENTS]


# The debug mode's checks are called through their address: compiled only for a
# game played with debug checks (replay.play_into binds them), and never part of the game's own
# compiled code (simulator/jit.py, `Indirect`).
CHECK = Indirect("panzerblitz.check", ask.K_CHECK, check, types.none, ("st", "ut", "mt", "mv", "limits"))
CHECK_VIEW = Indirect("panzerblitz.check_view", ask.K_CHECK_VIEW, check_view, types.none,
                      ("st", "ut", "mt", "mv", types.int64, types.int64, types.int64[:, ::1]))
