"""Movement (FPA 12.0-12.5): movement factors by weather and class (12.1, 14.0), terrain costs
(14.0 TEC), river crossings rolled on the River Crossing Table (12.3), the Korpsgruppe traffic
bonus (12.4), ZOC stops (7.2), the Soviet no-go area (12.5), Hitler's stand-fast order (3.2(6)),
Soviet exits off the south-west edge (4.1) and stacking by steps (6.1, 6.2)."""

from __future__ import annotations

from simulator.jit import njit
from simulator.rulesets.first_panzer_army.consts import (
    ARTILLERY,
    EV_EXIT,
    EV_MOVE,
    EV_RIVER_STOP,
    EXITED,
    F_CORPS,
    FL,
    FROST,
    GERMAN,
    K_EXIT_COST,
    K_GER_STACK,
    K_KG_MOVE_RADIUS,
    K_MAJOR_BONUS,
    K_OOS_MF_PM,
    K_RIVER_FLAT,
    K_RIVER_FLAT_COST,
    K_ROLL_CAP,
    K_SOV_ART_STACK,
    K_SOV_STACK,
    K_STAND_FAST_COL,
    K_STAND_FAST_TURN,
    K_STORM_KG,
    NON_MECH,
    SOVIET,
    STATIC,
    STORM,
    TOWN,
)
from simulator.rulesets.first_panzer_army.rng import die
from simulator.rulesets.first_panzer_army.state import (
    G_BLOCK_DIR,
    G_BLOCK_HEX,
    G_DEBUG,
    G_EXITS,
    G_PATH_N,
    G_SPENT,
    G_TURN,
    G_VIOLATION,
    G_WEATHER,
)
from simulator.rulesets.first_panzer_army.zoc import (
    enemy_in,
    ezoc,
    log,
    place,
    stack_steps,
    zoc_active,
)

INF = 1 << 20


@njit(cache=True)
def stack_ok(S, T, u: int, h: int) -> bool:
    """Whether unit `u` may end in hex `h` without overstacking it (6.1: 9 German steps of any
    type; 6.2: 4 Soviet non-artillery steps plus 1 artillery step; garrisons count nothing)."""
    side = T.u_side[u]
    if T.u_class[u] == STATIC:
        return True
    here = S.u_hex[u] == h
    steps = 0 if here else S.u_steps[u]
    if side == GERMAN:
        return stack_steps(S, T, side, h, False) + steps <= T.k[K_GER_STACK]
    art = T.u_class[u] == ARTILLERY
    limit = T.k[K_SOV_ART_STACK] if art else T.k[K_SOV_STACK]
    return stack_steps(S, T, side, h, art) + steps <= limit


@njit(cache=True)
def movement_factor(S, T, u: int) -> int:
    """12.1 / 14.0: by weather and class (artillery moves as mechanized, 2.3; garrisons never
    move, 2.7); 8.3: a Soviet unit out of supply when it starts to move has half, rounded up."""
    cls = T.u_class[u]
    if cls == STATIC:
        return 0
    mf = T.mf[S.g[G_WEATHER], 0 if cls == NON_MECH else 1]
    if T.u_side[u] == SOVIET and S.supply[S.u_hex[u]] == 0:
        mf = (mf * T.k[K_OOS_MF_PM] + 999) // 1000
    return mf


@njit(cache=True)
def kg_free(S, T, h: int) -> bool:
    """12.4: hex `h` is in the range of a Korpsgruppe whose traffic bonus holds (not in storm;
    no Soviet ZOC in any hex of its range)."""
    if S.g[G_WEATHER] == STORM and T.k[K_STORM_KG] == 0:
        return False
    radius = T.k[K_KG_MOVE_RADIUS]
    for i in range(S.kg_hex.shape[0]):
        kh = S.kg_hex[i]
        if kh < 0 or T.dist[kh, h] > radius:
            continue
        ok = True
        if S.zoc[SOVIET, kh] > 0:
            ok = False
        for d in range(6):
            nb = T.neighbours[kh, d]
            if nb >= 0 and S.zoc[SOVIET, nb] > 0:
                ok = False
        if ok:
            return True
    return False


@njit(cache=True)
def river_cost(S, T, a: int, d: int, roll: int) -> int:
    """12.3: extra MP to cross hexside (a, d) with die `roll` (0 = the cheapest the table
    allows, for planning).  Free in frost and into or out of a town or FL."""
    kind = T.river[a, d]
    if kind == 0:
        return 0
    b = T.neighbours[a, d]
    w = S.g[G_WEATHER]
    if w == FROST or T.terrain[a] == TOWN or T.terrain[a] == FL or T.terrain[b] == TOWN or T.terrain[b] == FL:
        return 0
    if T.k[K_RIVER_FLAT] == 1:
        return T.k[K_RIVER_FLAT_COST]
    r = roll if roll > 0 else 1
    if kind == 2:
        r += T.k[K_MAJOR_BONUS]   # Dnestr, Bug, Prut: +1 to the roll
    cap = T.k[K_ROLL_CAP]
    if r > cap:
        r = cap
    return T.river_cost[w, r - 1]


@njit(cache=True)
def kg_free_map(S, T, out) -> None:
    """`kg_free` of every hex at once, into `out` (1 = free): the markers and the Soviet ZOC
    stay put while a unit's reach is worked out, so each hex is asked once, not once an edge."""
    for h in range(out.shape[0]):
        out[h] = 0
    if S.g[G_WEATHER] == STORM and T.k[K_STORM_KG] == 0:
        return
    radius = T.k[K_KG_MOVE_RADIUS]
    kg_hex = S.kg_hex
    sov_zoc = S.zoc[SOVIET]
    nbr = T.neighbours
    dist = T.dist
    for i in range(kg_hex.shape[0]):
        kh = kg_hex[i]
        if kh < 0:
            continue
        ok = sov_zoc[kh] == 0
        for d in range(6):
            nb = nbr[kh, d]
            if nb >= 0 and sov_zoc[nb] > 0:
                ok = False
        if ok:
            for h in range(out.shape[0]):
                if dist[kh, h] <= radius:
                    out[h] = 1


@njit(cache=True)
def enter_cost(S, T, u: int, a: int, d: int, roll: int) -> int:
    """MP for unit `u` to enter the neighbour of `a` in direction `d`; INF where it may not."""
    b = T.neighbours[a, d]
    if b < 0:
        return INF
    return _enter_cost(S, T, u, a, d, roll, T.u_side[u] == GERMAN and kg_free(S, T, b))


@njit(cache=True, inline="always")
def _enter_cost(S, T, u: int, a: int, d: int, roll: int, free: bool) -> int:
    """`enter_cost` with the neighbour's `kg_free` known (`free`)."""
    b = T.neighbours[a, d]
    side = T.u_side[u]
    if enemy_in(S, side, b):
        return INF
    if side == SOVIET and T.restricted[b] == 1:
        return INF       # 12.5
    if side == GERMAN and S.g[G_TURN] == T.k[K_STAND_FAST_TURN] and S.u_start[u] >= 0 \
            and T.fpa_col[S.u_start[u]] >= T.k[K_STAND_FAST_COL] and T.fpa_col[b] < T.k[K_STAND_FAST_COL]:
        return INF       # 3.2(6)
    if side == GERMAN and free:
        return 0         # 12.4, river crossings included
    mech = 0 if T.u_class[u] == NON_MECH else 1
    return T.tmp[T.terrain[b], mech] + river_cost(S, T, a, d, roll)


@njit(cache=True)
def reachable(S, T, u: int, mf: int) -> None:
    """Cheapest MP (planning river crossings at their cheapest roll) from the unit's hex to
    every hex into S.mp (INF = out of reach) with the predecessor in S.prev.  7.2: a unit
    stops on entering an EZOC; one starting in an EZOC may leave only into a hex free of EZOC.

    `_enter_cost` (roll 0) written out in the loop, with every array read into a local once:
    a field read from the state or tables costs an atomic reference count (numba's
    StructRef), which inside this loop was a large part of a game's time."""
    nbr = T.neighbours
    n = nbr.shape[0]
    side = T.u_side[u]
    german = side == GERMAN
    start = S.u_hex[u]
    free = S.hx[1]
    if german:
        kg_free_map(S, T, free)
    mp = S.mp
    prev = S.prev
    mark = S.mark
    for h in range(n):
        mp[h] = INF
        prev[h] = -1
        mark[h] = 0
    zon = zoc_active(S, T)
    ez = S.zoc[1 - side]
    enemy = S.occ[1 - side]
    restricted = T.restricted
    terrain = T.terrain
    river = T.river
    tmp = T.tmp
    fpa_col = T.fpa_col
    mech = 0 if T.u_class[u] == NON_MECH else 1
    # 3.2(6): a German unit that started east of the stand-fast column may not go west of it.
    sf_col = T.k[K_STAND_FAST_COL]
    stand_fast = german and S.g[G_TURN] == T.k[K_STAND_FAST_TURN] and S.u_start[u] >= 0 \
        and fpa_col[S.u_start[u]] >= sf_col
    # 12.3 at the cheapest roll (river_cost with roll 0): free in frost and at towns and FLs.
    w = S.g[G_WEATHER]
    frost = w == FROST
    flat = T.k[K_RIVER_FLAT] == 1
    flat_cost = T.k[K_RIVER_FLAT_COST]
    cap = T.k[K_ROLL_CAP]
    r1 = 1 if 1 <= cap else cap
    r2 = 1 + T.k[K_MAJOR_BONUS]
    if r2 > cap:
        r2 = cap
    minor = T.river_cost[w, r1 - 1]
    major = T.river_cost[w, r2 - 1]
    block_hex = S.g[G_BLOCK_HEX]
    block_dir = S.g[G_BLOCK_DIR]
    start_ezoc = zon and ez[start] > 0
    mp[start] = 0
    q = S.queue
    qn = q.shape[0]
    head = 0
    tail = 1
    q[0] = start
    mark[start] = 1
    while head != tail:
        h = q[head]
        head = (head + 1) % qn
        mark[h] = 0
        if h != start and zon and ez[h] > 0:
            continue
        base = mp[h]
        town_here = terrain[h] == TOWN or terrain[h] == FL
        for d in range(6):
            b = nbr[h, d]
            if b < 0:
                continue
            if h == start and start_ezoc and zon and ez[b] > 0:
                continue       # 7.2: never directly from EZOC to EZOC
            if h == block_hex and d == block_dir:
                continue       # OQ-FPA-12 may_turn_back: not across the hexside it failed
            if enemy[b] > 0:
                continue
            if not german and restricted[b] == 1:
                continue       # 12.5
            if stand_fast and fpa_col[b] < sf_col:
                continue       # 3.2(6)
            if german and free[b] == 1:
                cost = 0       # 12.4, river crossings included
            else:
                cost = tmp[terrain[b], mech]
                kind = river[h, d]
                if kind != 0 and not frost and not town_here and terrain[b] != TOWN and terrain[b] != FL:
                    if flat:
                        cost += flat_cost
                    elif kind == 2:
                        cost += major
                    else:
                        cost += minor
            new = base + cost
            if new <= mf and new < mp[b]:
                mp[b] = new
                prev[b] = h
                if mark[b] == 0:
                    mark[b] = 1
                    q[tail] = b
                    tail = (tail + 1) % qn


@njit(cache=True)
def can_exit(S, T, u: int, mf: int) -> int:
    """4.1: the exit hex (0729-1729) from which `u`, a Soviet unit, can move off the map (1 MP),
    or -1.  Any Soviet unit may leave; only a corps scores (victory.exit_units, OQ-FPA-8)."""
    if T.u_side[u] != SOVIET:
        return -1
    best = -1
    exit_hex = T.exit_hex
    mp = S.mp
    cost = T.k[K_EXIT_COST]
    for h in range(exit_hex.shape[0]):
        if exit_hex[h] == 1 and mp[h] + cost <= mf:
            if best < 0 or mp[h] < mp[best]:
                best = h
    return best


@njit(cache=True)
def move_unit(S, T, u: int, dest: int, mf: int) -> int:
    """Move `u` along the S.prev path to `dest` (S.mp / S.prev from `reachable`), rolling each
    river crossing (12.3); a crossing it cannot pay stops it on its bank (OQ-FPA-12 "stop").
    Every hex entered takes control (3.3).  The path and its rolls stay in S.path / S.proll
    (S.g[G_PATH_N] steps) for the units of the stack that move with it (`follow`).  Returns
    the hex where it stopped."""
    n = 0
    h = dest
    while h != S.u_hex[u] and h >= 0:
        S.path[n] = h
        S.proll[n] = 0
        n += 1
        h = S.prev[h]
    S.g[G_PATH_N] = n
    start = S.u_hex[u]
    spent = 0
    here = start
    for i in range(n - 1, -1, -1):
        nxt = S.path[i]
        d = direction(T, here, nxt)
        roll = 0
        if T.river[here, d] > 0 and not kg_free(S, T, nxt):
            roll = die(S.rng)
        S.proll[i] = roll
        if S.g[G_DEBUG] == 1:
            check_zoc_step(S, T, T.u_side[u], start, here, nxt)
        cost = enter_cost(S, T, u, here, d, roll)
        if spent + cost > mf:
            log(S, EV_RIVER_STOP, T.u_side[u], u, here, nxt, roll, 0)
            S.g[G_BLOCK_HEX] = here
            S.g[G_BLOCK_DIR] = d
            break
        spent += cost
        place(S, T, u, nxt)
        here = nxt
    S.g[G_SPENT] = spent
    if here != start:
        log(S, EV_MOVE, T.u_side[u], u, here, start, spent, 0)
    return here


@njit(cache=True)
def check_zoc_step(S, T, side: int, start: int, here: int, nxt: int) -> None:
    """Debug mode, 7.2: a move goes on from no EZOC hex but its start, and never from an EZOC
    start straight into another EZOC hex (violation 4)."""
    if here != start and ezoc(S, T, side, here):
        S.g[G_VIOLATION] = 4
    elif here == start and ezoc(S, T, side, here) and ezoc(S, T, side, nxt):
        S.g[G_VIOLATION] = 4


@njit(cache=True)
def direction(T, a: int, b: int) -> int:
    for d in range(6):
        if T.neighbours[a, d] == b:
            return d
    return 0


@njit(cache=True)
def along_path(S, T, v: int, start: int, stop: int, go: bool) -> int:
    """MP for unit `v` to go from `start` to `stop` along the last moved unit's path with its
    rolls (12.3: "when moving a stack, make just one roll for the whole stack"), moving it
    there if `go`; INF if it may not enter a hex of it."""
    spent = 0
    here = start
    for i in range(S.g[G_PATH_N] - 1, -1, -1):
        if here == stop:
            break
        nxt = S.path[i]
        if go and S.g[G_DEBUG] == 1:
            check_zoc_step(S, T, T.u_side[v], start, here, nxt)
        cost = enter_cost(S, T, v, here, direction(T, here, nxt), S.proll[i])
        if cost >= INF:
            return INF
        spent += cost
        if go:
            place(S, T, v, nxt)
        here = nxt
    return spent if here == stop else INF


@njit(cache=True)
def follow_cost(S, T, v: int, start: int, stop: int) -> int:
    """MP unit `v` would pay to follow the stack's path to `stop` (INF: it may not)."""
    return along_path(S, T, v, start, stop, False)


@njit(cache=True)
def follow(S, T, v: int, start: int, stop: int) -> None:
    """12.0, 12.3: unit `v` moves with the stack it started in, along the same path with the
    same river rolls, to where the first unit stopped (its MP checked by `follow_cost`)."""
    spent = along_path(S, T, v, start, stop, True)
    log(S, EV_MOVE, T.u_side[v], v, S.u_hex[v], start, spent, 1)


@njit(cache=True)
def exit_map(S, T, u: int) -> None:
    """4.1: a Soviet unit leaves the map from an exit hex, for good; a corps counts toward the
    exit VP."""
    h = S.u_hex[u]
    place(S, T, u, EXITED)
    corps = (T.u_flags[u] & F_CORPS) != 0
    if corps:
        S.g[G_EXITS] += 1
    log(S, EV_EXIT, T.u_side[u], u, h, S.g[G_EXITS], 1 if corps else 0, 0)
