"""Movement (PB2-4, 14.x): the cost of entering a hex and the hexes a unit can reach.

Costs are in half movement points (road movement is 1/2 MP a hex, 14.3.1.1), from the terrain
chart of `Tables`: the hex's terrain by movement mode (14.1-14.10), woods to woods (14.4.1.1-2),
town to town (14.2.1), water hexsides (14.6.1.2-4; none where a bridge or ford crosses, 14.7),
the uphill slope surcharge (14.9.1; none at road rate, none for Churchills); across a destroyed
bridge (17.2.1.3, bridges.py) the water's crossing and no road rate (`enter_cost_now`).  An amphibious
unit (4.4) searches with `reachable_amphibious`.  "All of its movement
points" costs the whole MA and can be paid only by a unit that has not moved (4.1.7 minimum move
covers a hex dearer than the whole MA too).
"""

from __future__ import annotations

from simulator.jit import njit
from simulator.rulesets.panzerblitz_v2.combat import sp_value
from simulator.rulesets.panzerblitz_v2.tables import ALL_MA, CITY, PROHIBITED, TOWN, WOODS

UNREACHED = 1 << 40


@njit(cache=True)
def enter_cost(t, u, frm, d, to, use_roads):
    """Half-MP cost for unit u to enter `to` from its neighbour `frm` across side d; PROHIBITED or ALL_MA."""
    ty = t.u_type[u]
    mode = t.t_mode[ty]
    if use_roads and t.road_side[frm, d]:
        return 1                                           # 14.3.1.1: road rate, other terrain ignored
    base = t.move_cost[to, mode]
    if t.cover[to] == WOODS and t.cover[frm] == WOODS:
        base = t.woods_to_woods[mode]                      # 14.4.1.1, 14.4.1.2
    elif (t.cover[to] == TOWN or t.cover[to] == CITY) and (t.cover[frm] == TOWN or t.cover[frm] == CITY):
        base = t.town_to_town                              # 14.2.1
    side = t.side_cost[frm, d, mode]
    if base == PROHIBITED or side == PROHIBITED:
        return PROHIBITED
    if base == ALL_MA or side == ALL_MA:
        return ALL_MA
    cost = base + side
    if t.slope_side[frm, d] and t.level[to] > t.level[frm] and not t.t_slope_exempt[ty]:
        cost += t.slope_extra[mode]                        # 14.9.1
    return cost


@njit(cache=True)
def enter_cost_now(t, st, u, frm, d, to, use_roads):
    """enter_cost with the destroyed bridges (17.2.1.3): across a destroyed bridge's hexside, no
    road rate and the cost of its water (t.br_alt_cost), as a stream or gully never bridged."""
    if st.n_br_out[0] > 0:
        k = t.side_br[frm, d]
        if k >= 0 and st.br_out[k]:
            return _enter(t, u, frm, d, to, False, t.br_alt_cost[k, t.t_mode[t.u_type[u]]])
    return enter_cost(t, u, frm, d, to, use_roads)


@njit(cache=True)
def _enter(t, u, frm, d, to, road, side):
    ty = t.u_type[u]
    mode = t.t_mode[ty]
    if road:
        return 1                                           # 14.3.1.1: road rate, other terrain ignored
    base = t.move_cost[to, mode]
    if t.cover[to] == WOODS and t.cover[frm] == WOODS:
        base = t.woods_to_woods[mode]                      # 14.4.1.1, 14.4.1.2
    elif (t.cover[to] == TOWN or t.cover[to] == CITY) and (t.cover[frm] == TOWN or t.cover[frm] == CITY):
        base = t.town_to_town                              # 14.2.1
    if base == PROHIBITED or side == PROHIBITED:
        return PROHIBITED
    if base == ALL_MA or side == ALL_MA:
        return ALL_MA
    cost = base + side
    if t.slope_side[frm, d] and t.level[to] > t.level[frm] and not t.t_slope_exempt[ty]:
        cost += t.slope_extra[mode]                        # 14.9.1
    return cost


@njit(cache=True)
def enemy_in(t, st, h, side):
    for u in range(t.n_units):
        if st.hex[u] == h and t.u_side[u] != side:
            return True
    return False


@njit(cache=True)
def crushes_transports(t, st, u, h):
    """PB2-4.1.8.2: may unit u (not a truck or wagon) enter hex h, whose enemy units are all empty
    truck or wagon units (they are eliminated when it does)?  False if h holds no enemy unit."""
    if t.t_truck_wagon[t.u_type[u]]:
        return False
    found = False
    for v in range(t.n_units):
        if st.hex[v] == h and t.u_side[v] != t.u_side[u]:
            if not t.t_truck_wagon[t.u_type[v]]:
                return False
            for w in range(t.n_units):
                if st.carried_by[w] == v:
                    return False                   # loaded: not empty
            found = True
    return found


@njit(cache=True)
def stacking_and_enemy(t, st, u):
    """For a search by unit u: st.hex_sp[h] the stacking points of u's side's other counters in
    hex h (vehicles doubled in towns, 14.2.2) and st.hex_enemy[h] the enemy's presence (4.1.8.1;
    not for a unit that is neither a truck nor a wagon where the enemy has only empty trucks or
    wagons, 4.1.8.2), summed once a search: the same sums as combat.stack_sp and enemy_in, read
    per neighbour by `reachable` and `reachable_amphibious`."""
    side = t.u_side[u]
    for h in range(t.n_hexes):
        st.hex_sp[h] = 0
        st.hex_enemy[h] = False
    crusher = not t.t_truck_wagon[t.u_type[u]]
    for v in range(t.n_units):
        h = st.hex[v]
        if h < 0:
            c = st.carried_by[v]
            if crusher and c >= 0 and t.u_side[c] != side and st.hex[c] >= 0:
                st.hex_enemy[st.hex[c]] = True     # a loaded truck or wagon is no empty one (4.1.8.2)
            continue
        if t.u_side[v] != side:
            if not (crusher and t.t_truck_wagon[t.u_type[v]]):
                st.hex_enemy[h] = True             # 4.1.8.1 (4.1.8.2: empty trucks and wagons aside)
        elif v != u:
            sp = sp_value(t, st, v)
            if (t.cover[h] == TOWN or t.cover[h] == CITY) and t.t_vehicle[t.u_type[v]]:
                sp *= t.vehicle_town_factor
            st.hex_sp[h] += sp


@njit(cache=True)
def reachable(t, st, u, start, spent0, ma, roads):
    """Dijkstra over half MP from `start` (having spent `spent0` of `ma`), with the road rate
    when `roads` (not in a move that includes an overrun, 8.2.1.3): st.reach[h] = cost of
    the cheapest way in (UNREACHED if none), st.prev[h] the hex before it.  Returns the number of
    hexes reached (listed in st.order, start first).  Enemy hexes are never entered (4.1.8.1; but
    those holding only empty enemy trucks or wagons by a unit that is neither, 4.1.8.2), the
    stacking limit holds in every hex passed (4.1.8), the play area is not left.  A minefield or
    block hex ends the move (15.2.3, 15.3.2); a block is entered only by infantry starting next to
    it (15.3.2); no road rate into a block or fortification hex (14.3.9, 15.3.2.2)."""
    if t.t_aquatic[t.u_type[u]] > 0:
        return reachable_amphibious(t, st, u, start, spent0, ma, roads)   # 4.4
    infantry = t.t_infantry[t.u_type[u]]
    stacking_and_enemy(t, st, u)              # labels by call stamp, below
    own_sp = sp_value(t, st, u)
    own_veh = t.t_vehicle[t.u_type[u]]
    blown = st.n_br_out[0] > 0                 # a destroyed bridge (17.2.1.3): its hexside's cost
    stamp = st.stamp[0] + 1
    st.stamp[0] = stamp
    st.reach[start] = spent0
    st.prev[start] = -1
    st.order[0] = start
    st.listed[start] = stamp
    n_list = 1
    done = 0
    # selection over the (small) list of labelled hexes: the first of the cheapest.  Costs are never
    # negative, so no label is below the last one closed (`floor`): the first label at the floor is
    # the one the whole scan would pick (speed only, the same order).
    floor = spent0
    while True:
        best = -1
        bc = UNREACHED
        for i in range(done, n_list):
            h = st.order[i]
            if st.reach[h] < bc:
                bc = st.reach[h]
                best = i
                if bc <= floor:
                    break
        floor = bc
        if best < 0:
            break
        h = st.order[best]
        st.order[best] = st.order[done]
        st.order[done] = h
        st.closed[h] = stamp
        done += 1
        if h != start and (st.mine_col[h] >= 0 or st.block[h]):
            continue                                       # 15.2.3, 15.3.2: it stops there
        for d in range(6):
            n = t.neighbours[h, d]
            if n < 0 or not t.play[n]:
                continue
            if st.block[n] and not (infantry and h == start):
                continue                                   # 15.3.2
            # 15.1.5, 14.3.9, 15.3.2.2: no road rate into a wreck, block or fortification hex
            road_ok = roads and st.wreck_sp[n] == 0 and not st.block[n] and st.fort[n] < 0
            c = enter_cost_now(t, st, u, h, d, n, road_ok) if blown else enter_cost(t, u, h, d, n, road_ok)
            if st.wreck_sp[n] > 0 and c != PROHIBITED and c != ALL_MA:
                c += t.wreck_extra2                            # 15.1.3
            if st.smoke[n] > 0 and c != PROHIBITED and c != ALL_MA:
                c += t.smoke_extra2                            # 12.2.5
            if c == PROHIBITED:
                continue
            if c == ALL_MA or bc + c > ma:
                if bc == 0 and h == start:
                    c = ma                                 # 4.1.7 minimum move (whole MA)
                else:
                    continue
            if st.hex_enemy[n]:
                continue
            town = t.cover[n] == TOWN or t.cover[n] == CITY
            sp = st.hex_sp[n] + (own_sp * t.vehicle_town_factor if town and own_veh else own_sp)
            sp += st.wreck_sp[n] * (t.vehicle_town_factor if town else 1)     # as combat.stack_sp
            if st.block[n]:
                sp += t.block_sp
                if t.block_engineer_exempt and t.t_engineer[t.u_type[u]]:
                    sp -= own_sp                     # 17.3.3 (as combat.stack_sp: one engineer)
            if sp > t.stack_limit:
                continue
            nc = bc + c
            if st.listed[n] != stamp:
                st.listed[n] = stamp
                st.reach[n] = nc
                st.prev[n] = h
                st.order[n_list] = n
                n_list += 1
            elif nc < st.reach[n] and st.closed[n] != stamp:
                st.reach[n] = nc
                st.prev[n] = h
    return n_list


@njit(cache=True)
def path_to(st, dest, out):
    """The hexes from the start to `dest` (start first) from st.prev; returns their number."""
    k = 0
    h = dest
    while h >= 0:
        out[k] = h
        k += 1
        h = st.prev[h]
    for i in range(k // 2):
        a = out[i]
        out[i] = out[k - 1 - i]
        out[k - 1 - i] = a
    return k


@njit(cache=True)
def other_used(used2, from2, to2):
    """PB2-4.4.3: half MP of the other kind already used for `used2` half MP of a `from2` half-MP
    allowance against a `to2` one, in whole MP rounded up (the example: 3 of 10 land MP are 1 of
    3 aquatic; 2 of 3 aquatic are 7 of 10 land)."""
    return 2 * ((used2 * to2 + 2 * from2 - 1) // (2 * from2))


@njit(cache=True)
def reachable_amphibious(t, st, u, start, spent0, ma, roads):
    """`reachable` for an amphibious unit (PB2-4.4): it may enter the water obstacles (lakes,
    oceans, rivers: `t.aquatic_cost2`, 1 aquatic MP a hex unless the terrain says otherwise,
    4.4.1).  A hex's label is in the MP of its medium (aquatic in water, land ashore); going from
    one to the other converts the MP used so far in proportion, rounded up (4.4.3), and leaving
    the water costs twice the hex entered (4.4.2; the slope surcharge on top only under
    readings.amphibious_exit_slope, PB2-OQ-64).  The order of the search is the fraction of the
    medium's allowance used (never decreasing along a path: the conversions round up).  On return
    st.reach holds every hex's cost in land half MP (a water hex: its aquatic MP converted back),
    as the callers read it.  The rest is as `reachable`: no enemy hexes, stacking, play area."""
    aq = t.t_aquatic[t.u_type[u]]
    stacking_and_enemy(t, st, u)
    own_sp = sp_value(t, st, u)
    own_veh = t.t_vehicle[t.u_type[u]]
    stamp = st.stamp[0] + 1
    st.stamp[0] = stamp
    wet0 = t.aquatic_cost2[start] >= 0
    st.reach[start] = other_used(spent0, ma, aq) if wet0 else spent0
    st.prev[start] = -1
    st.order[0] = start
    st.listed[start] = stamp
    n_list = 1
    done = 0
    while True:
        best = -1
        bk = UNREACHED
        for i in range(done, n_list):
            h = st.order[i]
            k = st.reach[h] * (ma if t.aquatic_cost2[h] >= 0 else aq)   # the fraction used, x ma x aq
            if k < bk:
                bk = k
                best = i
        if best < 0:
            break
        h = st.order[best]
        st.order[best] = st.order[done]
        st.order[done] = h
        st.closed[h] = stamp
        done += 1
        wet = t.aquatic_cost2[h] >= 0
        bc = st.reach[h]
        if h != start and (st.mine_col[h] >= 0 or st.block[h]):
            continue                                       # 15.2.3, 15.3.2
        for d in range(6):
            n = t.neighbours[h, d]
            if n < 0 or not t.play[n] or st.block[n] or st.hex_enemy[n]:
                continue
            if t.aquatic_cost2[n] >= 0:                    # into (or on in) the water: aquatic MP
                nc = (bc if wet else other_used(bc, ma, aq)) + t.aquatic_cost2[n]
                if nc > aq:
                    continue
            else:
                c = enter_cost_now(t, st, u, h, d, n, roads and not wet and st.wreck_sp[n] == 0 and st.fort[n] < 0)
                if c == PROHIBITED:
                    continue
                if wet and c != ALL_MA:
                    slope = 0
                    if t.slope_side[h, d] and t.level[n] > t.level[h] and not t.t_slope_exempt[t.u_type[u]]:
                        slope = t.slope_extra[t.t_mode[t.u_type[u]]]
                    c = t.amph_exit_factor * (c - slope) + (slope if t.amph_exit_slope else 0)   # 4.4.2
                if c != ALL_MA:
                    if st.wreck_sp[n] > 0:
                        c += t.wreck_extra2
                    if st.smoke[n] > 0:
                        c += t.smoke_extra2
                land = other_used(bc, aq, ma) if wet else bc
                if c == ALL_MA or land + c > ma:
                    if land == 0 and h == start:
                        c = ma                             # 4.1.7 minimum move
                    else:
                        continue
                nc = land + c
            town = t.cover[n] == TOWN or t.cover[n] == CITY
            sp = st.hex_sp[n] + (own_sp * t.vehicle_town_factor if town and own_veh else own_sp)
            sp += st.wreck_sp[n] * (t.vehicle_town_factor if town else 1)
            if sp > t.stack_limit:
                continue
            if st.listed[n] != stamp:
                st.listed[n] = stamp
                st.reach[n] = nc
                st.prev[n] = h
                st.order[n_list] = n
                n_list += 1
            elif nc < st.reach[n] and st.closed[n] != stamp:
                st.reach[n] = nc
                st.prev[n] = h
    for i in range(n_list):
        h = st.order[i]
        if t.aquatic_cost2[h] >= 0:
            st.reach[h] = other_used(st.reach[h], aq, ma)   # the land MP it stands for (4.4.3)
    return n_list
