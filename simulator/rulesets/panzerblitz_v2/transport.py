"""Transport and riders (PB2 4.3, 4.3.7) and passengers' share of their carrier's result (4.3.6, 7.3.3).

A passenger is off the map inside its carrier: its hex is CARRIED and `carried_by` names the
carrier, so it neither fires (4.3.11), nor is fired at alone (7.3.3: it defends with the carrier's
DF and class), nor counts for stacking (2.3.5.2: the loaded stack counts the carrier's SP), nor is
activated by a chit; it is where its carrier is for victory (victory.py) and the replay's maps.
Loading and unloading are part of the carrier's move (4.3.1) and cost it half or all of its MA by
the 4.3.5 table (`tr_cost`); game.py asks the LOAD and UNLOAD decisions and moves the carrier.
The passengers' share of the carrier's result (4.3.6) is applied with the result, in combat.py
(`share_result`).

An unarmed jeep or motorcycle (a carrier kind with `moves_empty = false`) may not move without a
passenger (4.3.5 footnote 6: `grounded`, read by game.move_unit_roads; round 8 A; no counter of
the situations is one).  A unit that was a passenger at any time in an Operation may not close-assault in it (9.2.1:
`carried_op`, read by assault.cat_eligible; the Panzer Blitz assault's infantry are the exception,
10.0, and close-assault through pbassault.py).
"""

from __future__ import annotations

from simulator.jit import njit
from simulator.rulesets.panzerblitz_v2.combat import log_event, sp_value, stack_sp
from simulator.rulesets.panzerblitz_v2.state import CARRIED, EV_LOAD, EV_UNLOAD
from simulator.rulesets.panzerblitz_v2.tables import TR_NONE


@njit(cache=True)
def load_cost(t, c, p):
    """4.3.5: what carrier c pays to load or unload p (TR_NONE: it may not carry it)."""
    k = t.t_carrier[t.u_type[c]]
    g = t.t_cargo[t.u_type[p]]
    if k < 0 or g < 0:
        return TR_NONE
    return t.tr_cost[k, g]


@njit(cache=True)
def passengers_sp(t, st, c):
    total = 0
    for p in range(t.n_units):
        if st.carried_by[p] == c:
            total += sp_value(t, st, p)
    return total


@njit(cache=True)
def has_passengers(t, st, c):
    for p in range(t.n_units):
        if st.carried_by[p] == c:
            return True
    return False


@njit(cache=True)
def may_load(t, st, c, p, h):
    """4.3, 4.3.1, 4.3.8: p (in hex h, or due to enter with c when h < 0) may board c now: a
    friendly non-vehicular unit the carrier may carry, neither Spent nor Disrupted (nor the
    carrier Disrupted), not an FO with a request, within the carrier's SP (capacity = its own SP)."""
    if p == c or t.u_side[p] != t.u_side[c] or st.carried_by[p] >= 0 or st.steps[p] <= 0:
        return TR_NONE
    if h >= 0 and st.hex[p] != h:
        return TR_NONE
    if st.disrupted[c] or st.disrupted[p] or st.spent[p] or st.fo[p]:
        return TR_NONE
    cost = load_cost(t, c, p)
    if cost == TR_NONE or passengers_sp(t, st, c) + sp_value(t, st, p) > sp_value(t, st, c):
        return TR_NONE
    return cost


@njit(cache=True)
def load(t, st, c, p, cost):
    """p boards c (4.3.1): off the map inside it."""
    h = st.hex[c]
    st.hex[p] = CARRIED
    st.carried_by[p] = c
    st.in_ip[p] = False
    st.in_fort[p] = False                  # out of its fortification and from under a minefield's
    st.mine_ok[p] = False                  # counter (unloading takes the carrier's, 15.2.3.1)
    st.hd_hex[p] = -1
    st.active[p] = False
    st.carried_op[p] = st.op[0]            # 9.2.1: a passenger in this Operation may not CAT
    log_event(st, EV_LOAD, t.u_side[c], c, p, h, cost, 0)


@njit(cache=True)
def unload(t, st, c, p, h, by_choice):
    """p leaves c in hex h, Spent (4.3.1, 4.3.4); spotted as its carrier was."""
    st.hex[p] = h
    st.carried_by[p] = -1
    st.mine_ok[p] = st.mine_ok[c]          # 15.2.3.1: attacked with its carrier, under the counter with it
    st.spent[p] = True
    st.unspotted[p] = st.unspotted[c]
    st.carried_op[p] = st.op[0]            # 9.2.1
    log_event(st, EV_UNLOAD, t.u_side[c], c, p, h, 1 if by_choice else 0, 0)


@njit(cache=True)
def room_to_unload(t, st, c):
    """4.3.9: the carrier's hex holds its passengers without overstacking."""
    h = st.hex[c]
    return stack_sp(t, st, h, t.u_side[c], -1) + passengers_sp(t, st, c) <= t.stack_limit


@njit(cache=True)
def unload_cost(t, st, c):
    """The highest 4.3.5 cost among c's passengers (unloading them together)."""
    worst = TR_NONE
    for p in range(t.n_units):
        if st.carried_by[p] == c:
            worst = max(worst, load_cost(t, c, p))
    return worst


@njit(cache=True)
def grounded(t, st, u):
    """4.3.5 footnote 6: u is an unarmed jeep or motorcycle without a passenger, which may not move."""
    return t.t_no_empty_move[t.u_type[u]] and not has_passengers(t, st, u)


@njit(cache=True)
def carried_hex(st, u):
    """The hex a unit is in, a passenger's being its carrier's."""
    h = st.hex[u]
    if h == CARRIED and st.carried_by[u] >= 0:
        return st.hex[st.carried_by[u]]
    return h
