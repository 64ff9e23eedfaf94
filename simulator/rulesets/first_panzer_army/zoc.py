"""Where units are, and what that projects: placement and hex control (FPA 3.3), zones of
control (7.0-7.5), Soviet supply lines (8.1-8.4) and German command and communications (9.2),
and the game log.  Every change of a unit's hex goes through `place`, which keeps the
occupancy and ZOC counts in step."""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.first_panzer_army.consts import (
    ARTILLERY,
    FL,
    GERMAN,
    K_CC_OWN_EZOC,
    K_GER_STACK,
    K_SOV_ART_STACK,
    K_SOV_STACK,
    K_STORM_ZOC,
    K_SUPPLY_OWN_EZOC,
    MAX_EVENTS,
    SOVIET,
    STATIC,
    STORM,
)
from simulator.rulesets.first_panzer_army.state import (
    G_N_EV,
    G_PHASE,
    G_STALE_CC,
    G_STALE_SUPPLY,
    G_TRACE_WEATHER,
    G_TURN,
    G_WEATHER,
)


@njit(cache=True)
def log(S, code: int, side: int, unit: int, hexi: int, a: int, b: int, cc: int) -> None:
    """One event of the game log (replay lines, the losses table)."""
    i = S.g[G_N_EV]
    if i < MAX_EVENTS:
        S.ev[i, 0] = code
        S.ev[i, 1] = S.g[G_TURN] * 100 + S.g[G_PHASE]
        S.ev[i, 2] = side
        S.ev[i, 3] = unit
        S.ev[i, 4] = hexi
        S.ev[i, 5] = a
        S.ev[i, 6] = b
        S.ev[i, 7] = cc
        S.g[G_N_EV] = i + 1


@njit(cache=True)
def _add(S, T, side: int, h: int, delta: int) -> None:
    S.occ[side, h] += delta
    S.zoc[side, h] += delta
    for d in range(6):
        n = T.neighbours[h, d]
        if n >= 0:
            S.zoc[side, n] += delta


@njit(cache=True)
def place(S, T, u: int, h: int) -> None:
    """Unit `u` to hex `h` (or off the map: NOT_ENTERED, ELIMINATED, EXITED).  Every ground unit
    exerts a ZOC into its hex and the six around it, whatever its supply (7.0); entering a hex
    takes control of it (3.3, readings.control_by = enter); an FL the Soviets take is a town for
    combat from then on (13.8.4)."""
    side = T.u_side[u]
    old = S.u_hex[u]
    # A German unit's place bears on Soviet supply, a Soviet one's on German C&C (8.2, 9.2).
    if side == GERMAN:
        S.g[G_STALE_SUPPLY] = 1
    else:
        S.g[G_STALE_CC] = 1
    if old >= 0:
        _add(S, T, side, old, -1)
    S.u_hex[u] = h
    if h >= 0:
        _add(S, T, side, h, 1)
        S.control[h] = side
        if side == SOVIET and T.terrain[h] == FL:
            S.fl_taken[h] = 1


@njit(cache=True)
def zoc_active(S, T) -> bool:
    """7.5: no unit exerts a ZOC in storm."""
    return not (S.g[G_WEATHER] == STORM and T.k[K_STORM_ZOC] == 0)


@njit(cache=True)
def ezoc(S, T, side: int, h: int) -> bool:
    """Whether hex `h` is in an enemy ZOC for `side` (7.1: friendly units do not negate it)."""
    return S.zoc[1 - side, h] > 0 and zoc_active(S, T)


@njit(cache=True)
def enemy_in(S, side: int, h: int) -> bool:
    return S.occ[1 - side, h] > 0


@njit(cache=True)
def trace(S, T, side: int, out: np.ndarray) -> None:
    """Soviet supply (8.2-8.4) or German C&C (9.2) of every hex, into `out` (1 = a line).

    A line runs from the unit's hex over contiguous hexes to a source hex of its side's edge
    (Soviet: 1101-4729; German: 0101-4628).  No hex of the line may hold an enemy unit; no hex
    but the unit's own may be in an EZOC (7.4: "into but never through"); a source in an EZOC
    still serves a unit standing on it.  Reading OQ-FPA-1 (readings.supply_own_hex_ezoc,
    cc_own_hex_ezoc): "allowed" lets the unit's own hex be in an EZOC, "blocks" does not.
    The flood goes from the open sources over open hexes, then one step into EZOC hexes."""
    # Every array is read into a local once: a field read from the state or the tables inside
    # the loop costs an atomic reference count each time (numba's StructRef), ~1/3 of a game.
    nbr = T.neighbours
    n = nbr.shape[0]
    src = T.src_supply if side == SOVIET else T.src_cc
    own_ezoc_ok = (T.k[K_SUPPLY_OWN_EZOC] if side == SOVIET else T.k[K_CC_OWN_EZOC]) == 1
    zon = zoc_active(S, T)
    ez = S.zoc[1 - side]
    enemy = S.occ[1 - side]
    q = S.queue
    head = 0
    tail = 0
    for h in range(n):
        out[h] = 0
    for h in range(n):
        if src[h] == 1 and enemy[h] == 0:
            out[h] = 1       # 8.4, 9.2: a unit on a source hex in an EZOC still has its line
            if not (zon and ez[h] > 0):
                q[tail] = h
                tail += 1
    while head < tail:
        h = q[head]
        head += 1
        for d in range(6):
            nb = nbr[h, d]
            if nb < 0 or out[nb] == 1 or enemy[nb] > 0:
                continue
            if zon and ez[nb] > 0:
                if own_ezoc_ok:
                    out[nb] = 1     # the line may end in it, not go on
                continue
            out[nb] = 1
            q[tail] = nb
            tail += 1


@njit(cache=True)
def refresh_lines(S, T) -> None:
    """Soviet supply and German C&C of every hex, up to date.  A side's lines depend only on
    where the enemy units are and on the weather (their ZOC, 7.5), so a map is traced again
    only after an enemy unit was placed (`place`) or the weather changed."""
    if S.g[G_WEATHER] != S.g[G_TRACE_WEATHER]:
        S.g[G_TRACE_WEATHER] = S.g[G_WEATHER]
        S.g[G_STALE_SUPPLY] = 1
        S.g[G_STALE_CC] = 1
    if S.g[G_STALE_SUPPLY] == 1:
        trace(S, T, SOVIET, S.supply)
        S.g[G_STALE_SUPPLY] = 0
    if S.g[G_STALE_CC] == 1:
        trace(S, T, GERMAN, S.cc)
        S.g[G_STALE_CC] = 0


@njit(cache=True)
def refresh_moving(S, T, side: int) -> None:
    """`refresh_lines` for a decision inside `side`'s movement segment.  A German move makes the
    Soviet supply map stale, but no rule and no player reads it before the segment ends
    (8.1 reads supply for Soviet units only; the German heuristic reads C&C), so in German
    movement it is traced once, by `end_segment`, not after every German move (the same map:
    it depends only on where the units stand).  Soviet moves: both maps, as always."""
    if side == SOVIET or S.g[G_WEATHER] != S.g[G_TRACE_WEATHER]:
        refresh_lines(S, T)
    elif S.g[G_STALE_CC] == 1:
        trace(S, T, GERMAN, S.cc)
        S.g[G_STALE_CC] = 0


@njit(cache=True)
def stack_steps(S, T, side: int, h: int, artillery: bool) -> int:
    """Steps of `side` in hex `h` that count for stacking (6.0: garrisons and markers count
    nothing); Soviet artillery apart from the rest (6.2)."""
    u_side = T.u_side
    u_class = T.u_class
    u_hex = S.u_hex
    u_steps = S.u_steps
    total = 0
    for u in range(u_side.shape[0]):
        if u_hex[u] == h and u_side[u] == side and u_class[u] != STATIC:
            if side == SOVIET and (u_class[u] == ARTILLERY) != artillery:
                continue
            total += u_steps[u]
    return total


@njit(cache=True)
def stack_map(S, T, u: int, out) -> None:
    """`stack_steps` of every hex at once, for unit `u`'s side (and, Soviet, its artillery or
    not) into `out`: one pass over the units instead of one a hex, where many hexes are asked."""
    u_side = T.u_side
    u_class = T.u_class
    u_hex = S.u_hex
    u_steps = S.u_steps
    side = u_side[u]
    artillery = u_class[u] == ARTILLERY
    for h in range(out.shape[0]):
        out[h] = 0
    for v in range(u_side.shape[0]):
        x = u_hex[v]
        if x >= 0 and u_side[v] == side and u_class[v] != STATIC:
            if side == SOVIET and (u_class[v] == ARTILLERY) != artillery:
                continue
            out[x] += u_steps[v]


@njit(cache=True)
def fits_stack(S, T, u: int, h: int, steps_map) -> bool:
    """Whether unit `u` may end in hex `h` within the stacking limits (6.1, 6.2; garrisons
    count nothing), `steps_map` being `stack_map` for `u`."""
    if T.u_class[u] == STATIC:
        return True
    steps = 0 if S.u_hex[u] == h else S.u_steps[u]
    if T.u_side[u] == GERMAN:
        return steps_map[h] + steps <= T.k[K_GER_STACK]
    limit = T.k[K_SOV_ART_STACK] if T.u_class[u] == ARTILLERY else T.k[K_SOV_STACK]
    return steps_map[h] + steps <= limit
