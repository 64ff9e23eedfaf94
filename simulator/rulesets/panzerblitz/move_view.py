"""What the movement rules read of the board during a movement phase, kept up to date move by move.

A different job from the rules (movement.py: costs and the search; movement_phase.py: moving a
unit): a cache of what `presence.hex_move_flags` and `presence.stack_loads` give, with no rule of
its own, kept apart so that the rules read as rules; `reach_of` is the search for one mover on it.

Every mover's search reads per-hex flags (`presence.hex_move_flags`: enemy units, PB-MOVE-6;
usable and clear roads, PB-ROAD-5/11; minefields and blocks, PB-MINE-3 / PB-BLOCK-2; tops of
enemy forts, PB-FORT-12; swamp roads, PB-ROAD-10), and the end of every move reads the
stacking load of each hex (PB-STACK-1).  Worked out from all the units for every mover
(`presence.move_flags`, `presence.stack_loads`) they cost more than the search itself
(docs/performance.md).  The *view* keeps them in the state (`st.view_*`): built when a
movement phase opens (`open_view`), then brought up to date before each read (`sync_view`):
one pass over the units finds those whose hex, status, carrier, side or place on a fort
changed since the last sync (against a snapshot), and only their old and new hexes are
worked out again.  Everything a hex's entries depend on changes only with a unit in it or
with the phase's `occ` (which the game changes with the units it moves): a wreck or a block
appears where a unit is eliminated, minefields change only in the fire phase, before the
view opens.

In debug mode the game compares the view with `presence.move_flags` / `presence.stack_loads` after
every move (`view_stale`, invariants.VIEW_STALE).  Outside a movement phase `reach_of` and
`view_loads` build the view afresh for each call.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.panzerblitz.movement import (
    HEX_ROAD_CLEAR,
    HEX_SWAMP_STACK,
    MOVE_CLOSED,
    MOVE_START_CLOSED,
    MOVE_STOP,
    hex_bits,
    reachable_bits,
)
from simulator.rulesets.panzerblitz.presence import (
    ROADBLOCK,
    block_count,
    hex_move_flags,
    move_flags,
    stack_loads,
    swamp_road_stacks,
)
from simulator.rulesets.panzerblitz.state import (
    N_VIEW_COUNTS,
    N_VIEW_FLAGS,
    N_VIEW_SEEN,
    ON_MAP,
    VIEW_SIDE,
)

# Rows of st.view_flags (bool[N_VIEW_FLAGS, n_hex]): the search's inputs, as `presence.move_flags`
# gives them with no mover left out; SWAMP_STACK is the mover's own (`reach_of`), all False
# between searches.  The overrun search's (overrun.overrun_options, PB-OVR-3): ANY_ENEMY, enemy
# fighting units there (an enemy fort's top included); MINE_OR_BLOCK, where it stops.  The
# search reads them packed, a byte a hex (`st.view_bits`, movement.HEX_*), kept beside them.
ENEMY, STOP_HERE, ROAD_USABLE, ROAD_CLEAR, SWAMP_STACK, ANY_ENEMY, MINE_OR_BLOCK = range(N_VIEW_FLAGS)
# Rows of st.view_count (int64[N_VIEW_COUNTS, n_hex]), per hex: the side's fighting units on a swamp
# hex, non-vehicular and vehicular (PB-ROAD-10); enemy forts and enemy units on top of a fort
# (PB-FORT-12); roadblock counters (PB-BLOCK-4/6).
FOOT, WHEELS, ENEMY_FORT, ENEMY_ON_TOP, BLOCK_COUNTER = range(N_VIEW_COUNTS)
# Columns of st.view_seen (int64[n_units, N_VIEW_SEEN]): what the view last saw of each unit.
SEEN_HEX, SEEN_STATUS, SEEN_CARRIED_BY, SEEN_SIDE, SEEN_ON_TOP = range(N_VIEW_SEEN)


@njit(cache=True)
def open_view(st, ut, mt, side, occ):
    """Start keeping the view for `side`'s movement phase (`occ`: the phase's fighting units
    per hex and side, kept by the game)."""
    _build(st, ut, mt, side, occ)
    st.clock[VIEW_SIDE] = side + 1


@njit(cache=True)
def close_view(st):
    """End of the movement phase: what happens next (fire, assault) is not followed."""
    st.clock[VIEW_SIDE] = 0


@njit(cache=True)
def view_for(st, ut, mt, side, occ):
    """Bring the view up to date for `side` (built afresh outside its movement phase)."""
    if st.clock[VIEW_SIDE] == side + 1:
        sync_view(st, ut, mt, side, occ)
    else:
        _build(st, ut, mt, side, occ)


@njit(cache=True)
def view_loads(st, ut, mt, side, occ):
    """`presence.stack_loads`, from the view: int64[n_hex, 2] (read it before anything moves)."""
    view_for(st, ut, mt, side, occ)
    return st.view_load


@njit(cache=True)
def _build(st, ut, mt, side, occ):
    """The whole view afresh.  A hex with nothing in it (no unit, wreck, block or minefield, no
    `occ`) has the same entries for either side, so every hex is given those first (row fills)
    and only the others are worked out by `_refresh` (a few dozen of pb-01's 1,006 hexes; its
    view is built ~40 times a game, at each movement phase and for the searches outside it)."""
    n_hex = mt.neighbours.shape[0]
    load, count, flags, bits = st.view_load, st.view_count, st.view_flags, st.view_bits
    enemy, road_usable, road_clear, stop_here = hex_move_flags(0, 0, False, False, False, False)
    load[:] = 0
    count[:] = 0
    flags[ENEMY] = enemy
    flags[ROAD_USABLE] = road_usable
    flags[ROAD_CLEAR] = road_clear
    flags[STOP_HERE] = stop_here
    flags[ANY_ENEMY] = False
    flags[MINE_OR_BLOCK] = False
    bits[:] = hex_bits(enemy, False, road_usable, road_clear, False, stop_here, False, False)
    dirty = st.view_dirty
    dirty[:] = False
    hexes = np.empty(n_hex, dtype=np.int64)
    n = 0
    unit_hex, status = st.hex, st.status
    for v in range(st.utype.shape[0]):
        h = unit_hex[v]
        if status[v] == ON_MAP and h >= 0 and not dirty[h]:
            dirty[h] = True
            hexes[n] = h
            n += 1
    wrecks, block, mine = st.wrecks, st.block, st.mine
    for h in range(n_hex):
        if not dirty[h] and (wrecks[h, 0] + wrecks[h, 1] > 0 or block[h] or mine[h] or occ[h, 0] != 0
                             or occ[h, 1] != 0):
            dirty[h] = True
            hexes[n] = h
            n += 1
    _refresh(st, ut, mt, side, occ, hexes, n)
    for i in range(n):
        dirty[hexes[i]] = False
    seen = st.view_seen
    for v in range(st.utype.shape[0]):
        seen[v, SEEN_HEX] = st.hex[v]
        seen[v, SEEN_STATUS] = st.status[v]
        seen[v, SEEN_CARRIED_BY] = st.carried_by[v]
        seen[v, SEEN_SIDE] = st.side[v]
        seen[v, SEEN_ON_TOP] = st.on_top[v]


@njit(cache=True)
def sync_view(st, ut, mt, side, occ):
    """Work out again the hexes of the units that changed since the view last looked."""
    n_units = st.utype.shape[0]
    seen = st.view_seen
    dirty = st.view_dirty
    hexes = st.view_changed  # the state's, not an array made a call (round 15: a fifth of a game's allocations)
    n = 0
    unit_hex = st.hex
    status = st.status
    carried_by = st.carried_by
    unit_side = st.side
    on_top = st.on_top
    for v in range(n_units):
        if seen[v, SEEN_HEX] == unit_hex[v] and seen[v, SEEN_STATUS] == status[v] \
                and seen[v, SEEN_CARRIED_BY] == carried_by[v] and seen[v, SEEN_SIDE] == unit_side[v] \
                and seen[v, SEEN_ON_TOP] == on_top[v]:
            continue
        for h in (seen[v, SEEN_HEX], unit_hex[v]):
            if h >= 0 and not dirty[h]:
                dirty[h] = True
                hexes[n] = h
                n += 1
        seen[v, SEEN_HEX] = unit_hex[v]
        seen[v, SEEN_STATUS] = status[v]
        seen[v, SEEN_CARRIED_BY] = carried_by[v]
        seen[v, SEEN_SIDE] = unit_side[v]
        seen[v, SEEN_ON_TOP] = on_top[v]
    if n > 0:
        _refresh(st, ut, mt, side, occ, hexes, n)
        for i in range(n):
            dirty[hexes[i]] = False


@njit(cache=True)
def _refresh(st, ut, mt, side, occ, hexes, n):
    """The view's entries of the n hexes `hexes[:n]` (marked in st.view_dirty), worked out
    from the units in them: as `presence.stack_loads`, `presence.move_flags` (no mover left out) and
    the counts `presence.swamp_road_stacks` reads; `st.view_bits`, the flags packed as the
    search reads them (no mover's own swamp road stacks: `_own_flags`)."""
    load = st.view_load
    count = st.view_count
    flags = st.view_flags
    dirty = st.view_dirty
    wrecks = st.wrecks
    swamp = mt.swamp
    for i in range(n):
        h = hexes[i]
        w = wrecks[h, 0] + wrecks[h, 1]
        load[h, 0] = w
        load[h, 1] = w
        for k in range(N_VIEW_COUNTS):
            count[k, h] = 0
    unit_hex = st.hex
    status = st.status
    carried_by = st.carried_by
    unit_side = st.side
    on_top = st.on_top
    utype = st.utype
    category = ut.category
    positional = ut.positional
    stack_count = ut.stack_count
    fort = ut.fort
    vehicle = ut.vehicle
    for v in range(utype.shape[0]):
        if status[v] != ON_MAP or not dirty[unit_hex[v]]:
            continue
        h = unit_hex[v]
        t = utype[v]
        if category[t] == ROADBLOCK:
            count[BLOCK_COUNTER, h] += 1
        piece = not positional[t] and carried_by[v] < 0  # presence.is_piece
        if carried_by[v] < 0:
            if positional[t]:
                load[h, 0] += stack_count[t]  # a block counts against either side, like a wreck
                load[h, 1] += stack_count[t]
            else:
                load[h, unit_side[v]] += stack_count[t]
        if unit_side[v] != side:
            if fort[t]:
                count[ENEMY_FORT, h] += 1
            if on_top[v] and piece:
                count[ENEMY_ON_TOP, h] += 1
        elif piece and swamp[h]:
            count[WHEELS if vehicle[t] else FOOT, h] += 1
    bc = block_count(ut)
    block = st.block
    mine = st.mine
    bits = st.view_bits
    for i in range(n):
        h = hexes[i]
        if block[h] and count[BLOCK_COUNTER, h] == 0:
            load[h, 0] += bc  # PB-BLOCK-4/6: the block a destroyed fort left has no counter
            load[h, 1] += bc
        flags[ENEMY, h], flags[ROAD_USABLE, h], flags[ROAD_CLEAR, h], flags[STOP_HERE, h] = hex_move_flags(
            occ[h, 1 - side], occ[h, side], wrecks[h, 0] + wrecks[h, 1] > 0, block[h], mine[h],
            count[ENEMY_FORT, h] > 0 and count[ENEMY_ON_TOP, h] == 0)
        flags[ANY_ENEMY, h] = occ[h, 1 - side] > 0
        flags[MINE_OR_BLOCK, h] = mine[h] or block[h]
        bits[h] = hex_bits(flags[ENEMY, h], block[h], flags[ROAD_USABLE, h], flags[ROAD_CLEAR, h], False,
                           flags[STOP_HERE, h], flags[ANY_ENEMY, h], flags[MINE_OR_BLOCK, h])


@njit(cache=True)
def reach_of(st, ut, mt, mv, side, u, start, mf_half, occ, cost, prev):
    """Where unit u of `side` can move from `start` with `mf_half` half MF this turn
    (`movement.reachable_bits` on the view's flags, with the mover's own): fills cost and prev,
    returns the hexes reached."""
    view_for(st, ut, mt, side, occ)
    here, saved = _own_flags(st, ut, mt, mv, side, u, occ)
    reached = reachable_bits(start, mf_half, mv.side_step[ut.mclass[st.utype[u]]], True, mv.road_cost,
                             mv.swamp_stack_cost, mt.neighbours, st.view_bits, MOVE_START_CLOSED, MOVE_CLOSED,
                             MOVE_STOP, True, cost, prev, st.search_scratch, st.search_reached)
    _drop_own_flags(st, mt, here, saved)
    return reached


@njit(cache=True)
def _mover_here(st, ut, u):
    """The hex unit u stands in as a fighting unit of its own (presence.is_piece), else -1."""
    t = st.utype[u]
    if st.status[u] == ON_MAP and not ut.positional[t] and st.carried_by[u] < 0:
        return st.hex[u]
    return -1


@njit(cache=True)
def _own_flags(st, ut, mt, mv, side, u, occ):
    """Set the view's flags that are mover u's own; returns what to restore (`_drop_own_flags`):
    the hex it stands in (-1: none) and its road flag.

    The road of the hex it stands in is clear if no other unit of its side is there
    (PB-ROAD-5).  The swamp roads it may join foot units on (`SWAMP_STACK`, PB-ROAD-10.2-4): a
    vehicle that may be there only by road, onto its side's non-vehicular units with no
    vehicle (itself left out) or wreck there; it pays `mv.swamp_stack_cost` and stops."""
    flags = st.view_flags
    bits = st.view_bits
    count = st.view_count
    here = _mover_here(st, ut, u)
    saved = False
    if here >= 0:
        saved = flags[ROAD_CLEAR, here]
        clear = hex_move_flags(
            occ[here, 1 - side], occ[here, side] - 1, st.wrecks[here, 0] + st.wrecks[here, 1] > 0, st.block[here],
            st.mine[here], count[ENEMY_FORT, here] > 0 and count[ENEMY_ON_TOP, here] == 0)[2]
        flags[ROAD_CLEAR, here] = clear
        bits[here] = (bits[here] | HEX_ROAD_CLEAR) if clear else (bits[here] & ~np.uint8(HEX_ROAD_CLEAR))
    t = st.utype[u]
    mclass = ut.mclass[t]
    if mclass >= 0:
        vehicle = ut.vehicle[t]
        swamp_hexes = mt.swamp_hexes
        for i in range(swamp_hexes.shape[0]):
            h = swamp_hexes[i]
            foot = count[FOOT, h] - (1 if h == here and not vehicle else 0)
            wheels = count[WHEELS, h] - (1 if h == here and vehicle else 0)
            joins = foot > 0 and wheels == 0 and mv.enter_cost[h, mclass] < 0 and \
                st.wrecks[h, 0] + st.wrecks[h, 1] == 0
            flags[SWAMP_STACK, h] = joins
            if joins:
                bits[h] |= HEX_SWAMP_STACK
    return here, saved


@njit(cache=True)
def _drop_own_flags(st, mt, here, saved):
    flags = st.view_flags
    bits = st.view_bits
    if here >= 0:
        flags[ROAD_CLEAR, here] = saved
        bits[here] = (bits[here] | HEX_ROAD_CLEAR) if saved else (bits[here] & ~np.uint8(HEX_ROAD_CLEAR))
    swamp_hexes = mt.swamp_hexes
    for i in range(swamp_hexes.shape[0]):
        h = swamp_hexes[i]
        flags[SWAMP_STACK, h] = False
        bits[h] &= ~np.uint8(HEX_SWAMP_STACK)


@njit(cache=True)
def view_stale(st, ut, mt, mv, side, u, occ):
    """Debug mode: whether the view, with mover u's own flags, differs from the flags, swamp
    roads and loads worked out afresh (presence.move_flags, swamp_road_stacks, stack_loads),
    its flags packed (`st.view_bits`) included."""
    view_for(st, ut, mt, side, occ)
    enemy, road_usable, road_clear, stop_here = move_flags(st, ut, mt, side, u, occ)
    soft = swamp_road_stacks(st, ut, mt, mv, side, u)
    here, saved = _own_flags(st, ut, mt, mv, side, u, occ)
    flags = st.view_flags
    stale = not (np.array_equal(flags[ENEMY], enemy) and np.array_equal(flags[ROAD_USABLE], road_usable)
                 and np.array_equal(flags[ROAD_CLEAR], road_clear) and np.array_equal(flags[STOP_HERE], stop_here)
                 and np.array_equal(flags[SWAMP_STACK], soft)
                 and np.array_equal(flags[ANY_ENEMY], occ[:, 1 - side] > 0)
                 and np.array_equal(flags[MINE_OR_BLOCK], st.mine | st.block)
                 and np.array_equal(st.view_load, stack_loads(st, ut, enemy.shape[0])))
    for h in range(enemy.shape[0]):
        if st.view_bits[h] != hex_bits(enemy[h], st.block[h], road_usable[h], road_clear[h], soft[h], stop_here[h],
                                       occ[h, 1 - side] > 0, st.mine[h] or st.block[h]):
            stale = True
    _drop_own_flags(st, mt, here, saved)
    return stale
