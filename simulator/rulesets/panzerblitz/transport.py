"""PanzerBlitz transport (PB-TRANS): carriers, their passengers and riders.

A carrier (truck, halftrack, wagon, and armored vehicles for riders) takes one unit aboard
(`load_passenger`, PB-TRANS-3: both began the turn in the hex; neither moves, OQ-21), carries it
(the passenger moves with it: `st.carried_by` / `st.carrying`, PB-TRANS-1/2), and sets it down
(`unload`, PB-TRANS-3/11, PB-STACK-4: in its hex, the carrier staying or moving on empty with
the MF it has left; `set_down`).  Groups entering by the map edge may board before they enter
(`board_entering`); PanzerBlitz Assault's riders may dismount in an overrun's entry hex
(`pba_rider`, `pba_dismount`, PB-OPT-PBA-1).  Fire at an armored carrier's passenger is in
techniques.py (PB-TRANS-8); what a result does to a passenger is in losses.py.  The movement
phase (movement_phase.py) calls these when it moves a carrier; the choices go to the players
through the dispatcher.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.panzerblitz import dispatch as ask
from simulator.rulesets.panzerblitz.decision_kinds import ENTRY_BOARD, LOAD, MOVE_ON, UNLOAD
from simulator.rulesets.panzerblitz.dispatch import offer_hexes
from simulator.rulesets.panzerblitz.events import EV_LOAD, EV_MOVE, EV_UNLOAD, log_event
from simulator.rulesets.panzerblitz.forts import capture_fort, settle_on_top
from simulator.rulesets.panzerblitz.move_view import reach_of, view_loads
from simulator.rulesets.panzerblitz.presence import (
    is_piece,
    note_advance,
    pass_through,
    place,
    side_load,
)
from simulator.rulesets.panzerblitz.state import MARCH_OVER, NO_ASSAULT_STEPS, ON_MAP, TURN, WAITING


@njit(cache=True)
def board_entering(st, ut, mt, ct, side, pl, occ):
    """Riders of a group entering by the map edge this turn may enter aboard the group's carriers.

    Reading (docs/rulings.md): off the map, a group's counters are stacked as their owner
    likes before they enter, so a carrier may enter with one of the group's infantry or guns
    aboard (PB-TRANS-1/2; the Situation 7 card's "infantry and guns in trucks and HT"; the guns
    of every entering group already start aboard, state.new_state).  The engine offers each
    empty carrier of the group the riders still off the map and not aboard; the player chooses
    one or none.  Road-march columns board everything beforehand (PB-SIT-7)."""
    n_units = st.utype.shape[0]
    riders = np.empty(n_units, dtype=np.int64)
    turn = st.clock[TURN]
    for c in range(n_units):
        tc = st.utype[c]
        g = st.group[c]
        if st.side[c] != side or st.status[c] != WAITING or not st.group_entering[g] or st.entry_turn[c] > turn \
                or not ut.carrier[tc] or st.carrying[c] >= 0 or st.carried_by[c] >= 0 \
                or st.march_state[g] != MARCH_OVER:
            continue
        n = 0
        for p in range(n_units):
            tp = st.utype[p]
            if p != c and st.group[p] == g and st.status[p] == WAITING and st.entry_turn[p] <= turn \
                    and st.carried_by[p] < 0 and st.carrying[p] < 0 and not ut.vehicle[tp] \
                    and not ut.positional[tp] and ut.mclass[tp] >= 0:
                riders[n] = p
                n += 1
        if n == 0:
            continue
        i = ask.choose(ENTRY_BOARD, offer_hexes(pl.options, riders, n), n, c, 0, riders, st, ut, mt, ct, side, occ,
                       pl)
        if i < 0:
            continue
        p = riders[i]
        st.carrying[c] = p
        st.carried_by[p] = c
        log_event(st, EV_LOAD, c, p, -1, 1, 0, 0, 0)  # d = 1: aboard before entering


@njit(cache=True)
def passenger_here(st, ut, c, h, side):
    """A unit that may board carrier c in hex h (PB-TRANS-2/3/4)."""
    hexes = st.hex  # taken once (see forts.fort_in)
    for p in range(hexes.shape[0]):
        if hexes[p] != h:
            continue
        t = st.utype[p]
        if (p != c and is_piece(st, ut, p) and st.side[p] == side
                and not ut.vehicle[t] and not st.fired[p] and not st.dispersed[p]
                and not st.moved[p] and st.carrying[p] < 0):
            return p
    return -1


@njit(cache=True)
def load_passenger(st, ut, mt, ct, side, u, start, pl, occ, options):
    """PB-TRANS-3 load, in S4/S5: carrier u, empty, may take aboard a unit of its side that began
    the turn with it in `start` (`passenger_here`); neither moves (OQ-21).  Returns whether that
    was the carrier's whole operation this turn (unless the `load_and_move` reading)."""
    if ut.carrier[st.utype[u]] and st.carrying[u] < 0:
        p = passenger_here(st, ut, u, start, side)
        if p >= 0:
            options[0] = p
        if p >= 0 and ask.choose(LOAD, offer_hexes(pl.options, options, 1), 1, u, 0, options, st, ut, mt, ct,
                                 side, occ, pl) == 0:
            st.carrying[u] = p
            st.carried_by[p] = u
            st.moved[p] = True
            log_event(st, EV_LOAD, u, p, start, 0, 0, 0, 0)
            if not ct.load_and_move:
                st.moved[u] = True
                return True
    return False


@njit(cache=True)
def unload(st, ut, mt, mv, ct, limits, side, u, p, left, pl, occ, cost, prev, options):
    """PB-TRANS-3 / PB-TRANS-11 / PB-STACK-4: carrier u may set its passenger p down in its hex
    if the hex ends within the limit: with the carrier still in it, or with the carrier moving
    on empty with the MF it has `left` (so several carriers may drop passengers in one hex and
    drive away).  Then, with MF left, the carrier may move on; it must if the hex is full."""
    here = st.hex[u]
    c_count = ut.stack_count[st.utype[u]]
    load_here = side_load(st, ut, here, side)  # the carrier and its passenger count once
    stay_ok = load_here + ut.stack_count[st.utype[p]] <= limits[side]
    alone_ok = load_here - c_count + ut.stack_count[st.utype[p]] <= limits[side]
    n = 0
    if left > 0 and (stay_ok or alone_ok):
        # Where the empty carrier could go on to (not back into a block: PB-BLOCK-2 counts
        # from the start of the turn; not off the map).
        reach_of(st, ut, mt, mv, side, u, here, left, occ, cost, prev)
        load = view_loads(st, ut, mt, side, occ)
        for h in range(mt.neighbours.shape[0]):
            if h == here:
                if stay_ok:
                    options[n] = h
                    n += 1
            elif 0 <= cost[h] <= left and not mt.closed[h] and not st.block[h] \
                    and load[h, side] + c_count <= limits[side]:
                options[n] = h
                n += 1
    if not stay_ok and (n == 0 or not alone_ok):
        return
    rows = pl.options
    rows[0, 0] = p
    if ask.choose(UNLOAD, rows, 1, u, 0, options, st, ut, mt, ct, side, occ, pl) != 0:
        return
    set_down(st, u, p, here, side, occ, NO_ASSAULT_STEPS, 0)  # PB-CAT-9: no close assault in the turn it is unloaded
    if n == 0 or (n == 1 and options[0] == here):
        return
    i = ask.choose(MOVE_ON, offer_hexes(pl.options, options, n), n, u, 0, options, st, ut, mt, ct, side, occ, pl)
    dest = options[i]
    if dest == here:
        return
    occ[here, side] -= 1
    occ[dest, side] += 1
    note_advance(st, ut, mt, side, here, dest)  # PB-VIC-6
    pass_through(st, mt, side, prev, here, dest)  # PB-VIC-5
    place(st, u, dest)
    capture_fort(st, ut, dest, side)
    settle_on_top(st, ut, u)  # PB-FORT-12
    st.mine_safe[u] = False
    log_event(st, EV_MOVE, u, here, dest, cost[dest], 0, 0, 0)


@njit(cache=True)
def set_down(st, u, p, h, side, occ, steps, how):
    """PB-TRANS-3: carrier u sets its passenger p down in hex h; the passenger may not move
    this turn, and `steps` is what counts as its move for close assault (PB-CAT-9)."""
    st.carrying[u] = -1
    st.carried_by[p] = -1
    st.hex[p] = h
    st.status[p] = ON_MAP
    # PB-FORT-10/12: set down where its carrier stands: on top if the carrier is on top of a
    # fort there, else inside a fort of its side (the default placement).
    st.on_top[p] = st.on_top[u] and st.hex[u] == h
    st.moved[p] = True
    st.steps[p] = steps
    occ[h, side] += 1
    log_event(st, EV_UNLOAD, u, p, h, how, 0, 0, 0)


@njit(cache=True)
def pba_rider(st, ut, side, u, entry):
    """PB-OPT-PBA-1: the infantry riding armored vehicle u that may dismount in the overrun's
    entry hex (room there, PB-STACK-1), or -1."""
    p = st.carrying[u]
    if p < 0 or not ut.armored[st.utype[u]] or not ut.can_assault[st.utype[p]] or st.dispersed[p]:
        return -1
    # PB-STACK-1 in the entry hex, with the carrier counted too: a cancelled overrun ends there (PB-OVR-9).
    load = side_load(st, ut, entry, side) + ut.stack_count[st.utype[p]]
    if st.hex[u] != entry:
        load += ut.stack_count[st.utype[u]]
    if load > st.limits[side]:
        return -1
    return p


@njit(cache=True)
def pba_dismount(st, ut, side, u, entry, target, occ):
    """PB-OPT-PBA-1: the rider of u gets off in the entry hex before the overrun; in S5 it may
    close-assault the overrun hex, and only it (the exception to PB-CAT-9)."""
    p = pba_rider(st, ut, side, u, entry)
    if p < 0:
        return -1
    # it got off one hex short of the target: a CAT move (PB-CAT-3); logged as a PBA dismount (1)
    set_down(st, u, p, entry, side, occ, 1, 1)
    st.pba_target[p] = target
    return p
