"""Checks that must hold after every action of a Panzer Blitz v2.0 game (the engine's debug mode).

`check` returns at once unless the game is played in debug mode (`st.debug[0]`); then it records
the first broken invariant and the event at which it was found (`st.viol`: code, event index),
for `balance replay --debug` and the tests (1,000 random games a situation, `make test-slow`).
The game calls it after set-up, each attack, each unit's move, each step of an Operation, each
reinforcement's entry and the administration.
"""

from __future__ import annotations

from simulator.jit import njit
from simulator.rulesets.panzerblitz_v2.combat import sp_value
from simulator.rulesets.panzerblitz_v2.engineers import W_DEMOLISH
from simulator.rulesets.panzerblitz_v2.state import AIR_WAIT, AIRBORNE, CARRIED, GONE, OFF_BOARD
from simulator.rulesets.panzerblitz_v2.tables import CITY, PROHIBITED, TOWED, TOWN

(OK, BOTH_SIDES_IN_HEX, OVERSTACKED, STEPS_OUT_OF_RANGE, ELIMINATED_ON_MAP, LIVE_OFF_MAP, OUTSIDE_PLAY_AREA,
 PROHIBITED_TERRAIN, IP_MISMATCH, IP_OVER_CAPACITY, OFF_BOARD_MOVED, PASSENGER_ASTRAY, CARRIER_OVERLOADED,
 FORT_MISMATCH, FORT_OVER_CAPACITY, MINE_MISMATCH, ARTIFICIAL_CLASH, AIRCRAFT_ASTRAY) = range(18)
BRIDGE_STATE = 30     # round 9 (its own block of codes: the lead renumbers at merge)
NAMES = {
    OK: "ok",
    BOTH_SIDES_IN_HEX: "units of both sides in one hex (PB2-4.1.8.1)",
    OVERSTACKED: "a side's units over the hex's stacking limit (PB2-2.3.5, 4.1.8; 14.2.2 vehicles double in towns)",
    STEPS_OUT_OF_RANGE: "a counter with fewer than 0 or more steps than it has (PB2-2.3.1)",
    ELIMINATED_ON_MAP: "a counter with no step left still on the map (PB2-7.7)",
    LIVE_OFF_MAP: "a counter with steps left marked eliminated",
    OUTSIDE_PLAY_AREA: "a counter outside the situation's play area (PB2-4.1.9)",
    PROHIBITED_TERRAIN: "a counter in terrain prohibited to its movement mode, with no road (PB2-14)",
    IP_MISMATCH: "a counter in an improved position where there is none (PB2-15.4)",
    IP_OVER_CAPACITY: "more stacking points in an improved position than its capacity (PB2-15.4.2)",
    OFF_BOARD_MOVED: "off-board artillery on the map or an on-map counter off board (PB2-11.1)",
    PASSENGER_ASTRAY: "a passenger whose carrier is not a live carrier on the map, or a counter marked carried "
                      "without a carrier (PB2-4.3)",
    CARRIER_OVERLOADED: "a carrier's passengers over its own SP, or a passenger it may not carry (PB2-4.3, 4.3.5)",
    FORT_MISMATCH: "a counter in a fortification where there is none, or in a fortification and an IP (PB2-15.5.2)",
    FORT_OVER_CAPACITY: "more stacking points in a fortification than its capacity (PB2-15.5.2)",
    MINE_MISMATCH: "a counter marked under a minefield's counter where there is none (PB2-15.2.3.1)",
    ARTIFICIAL_CLASH: "a fortification sharing its hex with a minefield, block or IP, or an IP with a minefield or "
                      "block (PB2-15.2.2.1, 15.3.1.1, 15.4.1, 15.5.1)",
    AIRCRAFT_ASTRAY: "an aircraft on the map, in play before its turn or with a marker off the play area, or a "
                     "ground counter in the air (PB2-16.1)",
    BRIDGE_STATE: "the destroyed bridges inconsistent: their count, a Destroyed Bridge marker missing or off "
                  "the bridge's hexes, the depressions of the moment not the static ones plus the destroyed "
                  "bridges' stream ends, an IP or hull-down there, or an engineer still working on a destroyed "
                  "bridge (PB2-17.2.1.3, 14.7.5)",
}


@njit(cache=True)
def violation(t, st):
    """The code of the first broken invariant, or OK."""
    n_hex = t.n_hexes
    for u in range(t.n_units):
        h = st.hex[u]
        full = t.t_steps[t.u_type[u]]
        if st.steps[u] < 0 or st.steps[u] > full:
            return STEPS_OUT_OF_RANGE
        if st.steps[u] == 0 and h != GONE:
            return ELIMINATED_ON_MAP
        if h == GONE and st.steps[u] > 0:
            return LIVE_OFF_MAP
        if (h == OFF_BOARD) != t.u_offboard[u]:
            return OFF_BOARD_MOVED
        if t.u_air[u]:
            ah = st.air_hex[u]
            if not (h == AIR_WAIT or h == AIRBORNE or h == GONE) or (h == AIRBORNE and t.u_enter_turn[u] > st.turn[0]) \
                    or (ah >= 0 and (h != AIRBORNE or not t.play[ah])):
                return AIRCRAFT_ASTRAY
            continue
        if h == AIR_WAIT or h == AIRBORNE:
            return AIRCRAFT_ASTRAY
        c = st.carried_by[u]
        if (h == CARRIED) != (c >= 0):
            return PASSENGER_ASTRAY
        if c >= 0:
            if st.hex[c] < 0 or st.steps[c] <= 0 or st.carried_by[c] >= 0 or t.t_carrier[t.u_type[c]] < 0:
                return PASSENGER_ASTRAY
            k = t.t_carrier[t.u_type[c]]
            g = t.t_cargo[t.u_type[u]]
            if g < 0 or t.tr_cost[k, g] == 0:
                return CARRIER_OVERLOADED
        if t.t_carrier[t.u_type[u]] >= 0 and h >= 0:
            load = 0
            for v in range(t.n_units):
                if st.carried_by[v] == u:
                    load += sp_value(t, st, v)
            if load > sp_value(t, st, u):
                return CARRIER_OVERLOADED
        if h < 0:
            continue
        if h >= n_hex or not t.play[h]:
            return OUTSIDE_PLAY_AREA
        mode = t.t_mode[t.u_type[u]]
        # (towed guns never move by themselves: their mode prohibits every hex, 4.3)
        if mode != TOWED and t.move_cost[h, mode] == PROHIBITED \
                and not (t.t_aquatic[t.u_type[u]] > 0 and t.aquatic_cost2[h] >= 0):   # 4.4: afloat
            road = False
            for d in range(6):
                road = road or t.road_side[h, d]
            if not road:
                return PROHIBITED_TERRAIN
        if st.in_ip[u] and not st.ip[h]:
            return IP_MISMATCH
        if st.in_fort[u] and (st.fort[h] < 0 or st.in_ip[u]):
            return FORT_MISMATCH
        if st.mine_ok[u] and st.mine_col[h] < 0:
            return MINE_MISMATCH
    if not bridges_consistent(t, st):
        return BRIDGE_STATE
    for h in range(n_hex):
        if st.fort[h] >= 0 and (st.mine_col[h] >= 0 or st.block[h] or st.ip[h]):
            return ARTIFICIAL_CLASH
        if st.ip[h] and (st.mine_col[h] >= 0 or st.block[h]):
            return ARTIFICIAL_CLASH
    for u in range(t.n_units):
        h = st.hex[u]
        if h < 0:
            continue
        side = t.u_side[u]
        town = t.cover[h] == TOWN or t.cover[h] == CITY
        total = t.block_sp if st.block[h] else 0          # 15.3.2.2
        eng = 0
        in_ip = 0
        in_fort = 0
        for v in range(t.n_units):
            if st.hex[v] != h:
                continue
            if t.u_side[v] != side:
                return BOTH_SIDES_IN_HEX
            sp = sp_value(t, st, v)
            if st.in_ip[v]:
                in_ip += sp
            if st.in_fort[v]:
                in_fort += sp
            if town and t.t_vehicle[t.u_type[v]]:
                sp *= t.vehicle_town_factor
            total += sp
            if st.block[h] and t.block_engineer_exempt and t.t_engineer[t.u_type[v]]:
                eng = max(eng, sp)
        total -= eng                                       # 17.3.3: one engineer in a block hex
        # A wreck placed under the survivors of an attack may fill the hex (15.1.4 limits who enters
        # afterwards); the units themselves never exceed the limit.
        if total > t.stack_limit:
            return OVERSTACKED
        if in_ip > t.ip_capacity:
            return IP_OVER_CAPACITY
        if st.fort[h] >= 0 and in_fort > t.mk_cap[st.fort[h]]:
            return FORT_OVER_CAPACITY
    return OK


@njit(cache=True)
def bridges_consistent(t, st):
    """17.2.1.3 (round 9): the state of the destroyed bridges holds together (BRIDGE_STATE)."""
    out = 0
    for k in range(t.n_bridges):
        if st.br_out[k]:
            out += 1
            if st.br_mark[k] != t.br_hex[k, 0] and st.br_mark[k] != t.br_hex[k, 1]:
                return False
        elif st.br_mark[k] != -1:
            return False
    if out != st.n_br_out[0]:
        return False
    for h in range(t.n_hexes):
        want = t.depression[h]
        k = t.hex_br[h]
        if k >= 0 and st.br_out[k]:
            want = want or t.br_depr[k, 0 if t.br_hex[k, 0] == h else 1]
            if want and st.ip[h]:
                return False
        if st.depr_now[h] != want:
            return False
    for u in range(t.n_units):
        h = st.hex[u]
        if h >= 0 and st.hd_hex[u] >= 0 and st.depr_now[h]:
            return False
        w = st.work_hex[u]
        if st.work[u] == W_DEMOLISH and (w < 0 or t.hex_br[w] < 0 or st.br_out[t.hex_br[w]]):
            return False
    return True


@njit(cache=True)
def check(t, st):
    """In debug mode: record the first violation and the event at which it was found."""
    if not st.debug[0] or st.viol[0] != OK:
        return
    code = violation(t, st)
    if code != OK:
        st.viol[0] = code
        st.viol[1] = st.n_ev[0]
