"""Road march (PB-SIT-7): a group that enters in column along a road at a set rate.

A special rule of one situation (Situation 7), apart from the movement phase (movement_phase.py)
because it moves a whole group as one column, not unit by unit, and is compiled and bound only
for a situation that has a column (`MARCH_COLUMNS`).

Situation 7's card: "Enter ... on road, unstacked, infantry and guns in trucks and HT, moving at
12 hexes per turn until lead unit comes within three hexes of enemy.  Units may then leave road
and move full speed.  Units unable to enter immediately set-up in road-march-order off board,
and enter in that order."  The Q&A: "the meeting occurs on the 11th hex of the Russian 2nd turn
... the Russian column stops its movement and beginning on Turn 3 units of both sides may leave
the road and proceed at full speed".

How the engine reads it (docs/rulings.md, "Road march"):
- The column is the group's counters in the order its player chose (passengers ride in their
  carriers), one per hex along the road path from the entry hex toward the card's hex
  (`Group.road_path`); counters still behind the entry hex wait off the map.
- In its side's S4 the column advances hex by hex, up to `hexes_per_turn`, all together.  It
  stops at once when its lead is within `stop_within` hexes of an enemy unit (the meeting),
  or when it can go no further along the road (the path's end, a block, a wreck, a minefield,
  a hex held by a unit outside the column, a dispersed counter in the column).
- A meeting ends the march of every column, of both sides, at the end of that player-turn; a
  column that cannot go on ends its own.  From then on its units move as usual and the ones
  still off the map enter through the entry hex like any late group (PB-MOVE-11).
- While marching, the column's units neither fire nor close-assault nor load or unload.
"""

from __future__ import annotations

import numpy as np
from numba import types

from simulator.errors import DataError
from simulator.jit import Indirect, njit
from simulator.rulesets.panzerblitz import dispatch as ask
from simulator.rulesets.panzerblitz.decision_kinds import MARCH_ORDER
from simulator.rulesets.panzerblitz.events import EV_ENTER, EV_MOVE, log_event
from simulator.rulesets.panzerblitz.presence import mark_passed, nearest_enemy, place
from simulator.rulesets.panzerblitz.state import (
    ELIMINATED,
    EXITED,
    MARCH_ENDING,
    MARCH_OVER,
    MARCHING,
    ON_MAP,
    TURN,
    WAITING,
)


def check_columns(sit, units) -> None:
    """PB-SIT-7: every non-vehicular unit of a road-march group rides (the card: "infantry and
    guns in trucks and HT"), so the group needs a carrier for each."""
    for si, s in enumerate(sit.sides):
        for gi, g in enumerate(s.groups):
            if g.road_path is None:
                continue
            walkers = sum(c for name, c in g.units.items()
                          if not units.vehicle[units.index(name)] and not units.positional[units.index(name)])
            carriers = sum(c for name, c in g.units.items() if units.carrier[units.index(name)])
            if walkers > carriers:
                raise DataError(sit.path, f"side[{si}].group[{gi}].enter.road_march",
                                f"{walkers} infantry and gun units but {carriers} carriers",
                                "a carrier (truck, halftrack, wagon) for every non-vehicular unit of a "
                                "road-march group: they enter aboard (PB-SIT-7)")


@njit(cache=True)
def _in_column(st, g, u):
    return (st.group[u] == g and st.carried_by[u] < 0 and st.status[u] != ELIMINATED
            and st.status[u] != EXITED)


@njit(cache=True)
def _order_column(st, ut, mt, ct, g, side, pl):
    """The road-march order, chosen by the column's player when it first moves, one counter
    after another among those left (the heuristic puts its fighting vehicles first, the random
    player draws one)."""
    members = np.empty(st.utype.shape[0], dtype=np.int64)
    n = 0
    for u in range(st.utype.shape[0]):
        if _in_column(st, g, u):
            members[n] = u
            n += 1
    no_occ = np.zeros((0, 2), dtype=np.int64)  # (not read for the march order)
    for rank in range(n):
        rows = pl.options
        for k in range(rank, n):
            rows[k - rank, 0] = members[k]
        best = rank + ask.choose(MARCH_ORDER, rows, n - rank, -1, 0, members, st, ut, mt, ct, side, no_occ, pl)
        members[rank], members[best] = members[best], members[rank]
        st.march_rank[members[rank]] = rank


@njit(cache=True)
def _free_for_column(st, g, h):
    """May the column's counter move into road hex h?  Not past a block, a wreck or a minefield
    (PB-ROAD-11, PB-MINE-3), nor into a hex held by a unit outside the column (unstacked)."""
    if st.block[h] or st.mine[h] or st.wrecks[h, 0] + st.wrecks[h, 1] > 0:
        return False
    for v in range(st.utype.shape[0]):
        if st.hex[v] == h and st.status[v] == ON_MAP and st.carried_by[v] < 0 and \
                not (st.group[v] == g and st.march_rank[v] >= 0):
            return False  # (passengers go with their carriers)
    return True


@njit(cache=True)
def marching(st):
    """Whether a road-march column is still marching (otherwise `march_columns` has nothing to do)."""
    for g in range(st.march_state.shape[0]):
        if st.march_state[g] == MARCHING:
            return True
    return False


@njit(cache=True)
def march_columns(st, ut, mt, mv, ct, side, pl):
    """S4 of `side`: each of its marching columns advances along its road (PB-SIT-7)."""
    for g in range(st.march_state.shape[0]):
        if st.march_state[g] != MARCHING or st.march_side[g] != side or st.march_turn[g] > st.clock[TURN]:
            continue
        if st.march_lead[g] < 0:
            _order_column(st, ut, mt, ct, g, side, pl)
        else:
            lead_hex = st.march_path[st.march_path_start[g] + st.march_lead[g]]
            if nearest_enemy(st, ut, mt, side, lead_hex) <= st.march_stop[g]:
                st.march_state[g] = MARCH_OVER  # the enemy came to the column: it may leave the road now
                continue
        _advance(st, ut, mt, mv, side, g)


@njit(cache=True)
def _advance(st, ut, mt, mv, side, g):
    path = st.march_path[st.march_path_start[g]:st.march_path_start[g + 1]]
    n_units = st.utype.shape[0]
    start = np.full(n_units, -1, dtype=np.int64)
    for u in range(n_units):
        if _in_column(st, g, u) and st.status[u] == ON_MAP:
            start[u] = st.hex[u]
    lead = st.march_lead[g]
    steps = 0
    while steps < st.march_speed[g]:
        nl = lead + 1
        ok = nl < path.shape[0]
        for u in range(n_units):
            if not ok:
                break
            if _in_column(st, g, u) and st.march_rank[u] >= 0:
                p = nl - st.march_rank[u]
                if p < 0:
                    continue
                if st.dispersed[u]:
                    ok = False  # a dispersed counter may not move (PB-DISP-2): the column is stuck
                else:
                    ok = _free_for_column(st, g, path[p])
        if not ok:
            st.march_state[g] = MARCH_ENDING  # the road is closed: the units go on alone next turn
            break
        lead = nl
        steps += 1
        for u in range(n_units):
            if _in_column(st, g, u) and st.march_rank[u] >= 0 and lead - st.march_rank[u] >= 0:
                h = path[lead - st.march_rank[u]]
                if st.status[u] == WAITING:
                    place(st, u, h)
                    log_event(st, EV_ENTER, u, h, mv.enter_cost[h, ut.mclass[st.utype[u]]], 0, 0, 0, 0)
                    start[u] = h
                    st.engaged[side] = True  # PB-VIC-6 reading: entering is moving toward the enemy
                else:
                    place(st, u, h)
                mark_passed(st, h, side)  # PB-VIC-5: passed through
        if nearest_enemy(st, ut, mt, side, path[lead]) <= st.march_stop[g]:
            # The meeting: this column stops, and every column's march ends with this player-turn.
            for k in range(st.march_state.shape[0]):
                if st.march_state[k] == MARCHING:
                    st.march_state[k] = MARCH_ENDING
            break
    st.march_lead[g] = lead
    for u in range(n_units):
        if start[u] >= 0 and st.hex[u] != start[u]:
            hexes = 0
            for p in range(path.shape[0]):
                if path[p] == start[u]:
                    hexes = lead - st.march_rank[u] - p
                    break
            st.moved[u] = True
            st.steps[u] = hexes
            st.mine_safe[u] = False
            log_event(st, EV_MOVE, u, start[u], st.hex[u], hexes * mv.road_cost, 0, 0, 0)


@njit(cache=True)
def end_marches(st):
    """End of a player-turn: columns whose march ended this turn move freely from now on."""
    for g in range(st.march_state.shape[0]):
        if st.march_state[g] == MARCH_ENDING:
            st.march_state[g] = MARCH_OVER


# PB-SIT-7 road-march columns (Situation 7 only): compiled and bound only for a situation that has one.
MARCH_COLUMNS = Indirect("panzerblitz.march_columns", ask.K_MARCH_COLUMNS, march_columns, types.none,
                         ("st", "ut", "mt", "mv", "ct", types.int64, "pl"))
