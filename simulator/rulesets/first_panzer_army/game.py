"""The turn sequence of FPA 5.0, set-up (3.0-3.2), reinforcements (10.0), replacements (11.0),
stacking checks (6.0), victory points (4.0-4.3) and the debug-mode invariants."""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.first_panzer_army.combat import (
    E_COL,
    E_N,
    attack,
    evaluate,
    may_attack,
    probe,
    probe_ok,
    stand_fast_blocks,
)
from simulator.rulesets.first_panzer_army.consts import (
    ARTILLERY,
    ATTACK,
    ELIMINATED,
    EV_AIR,
    EV_KG,
    EV_ORDER,
    EV_OVERSTACK,
    EV_REINFORCE,
    EV_REPLACE,
    EV_SETUP,
    EV_TURN,
    EV_WEATHER,
    EXITED,
    F_RIFLE,
    FIGHT_MOVE,
    GERMAN,
    K_CAS_MAX,
    K_EXIT_MAX,
    K_EXIT_VP,
    K_GER_STACK,
    K_KG_FIRST_TURN,
    K_LATER_AIR_DICE,
    K_REPL_NO_HEX,
    K_RIVER_SHORT,
    K_SOV_ART_STACK,
    K_SOV_STACK,
    K_SOV_T1_ORDER,
    K_T1_AIR_DIE,
    K_TERNOPOL,
    K_TURNS,
    K_VP_OOC_END,
    KG_PLACE,
    MAX_OPTIONS,
    MOVE_FIGHT,
    MOVE_TO,
    MOVE_UNIT,
    MOVE_WITH,
    NOT_ENTERED,
    ORDER,
    OVERSTACK,
    REINFORCE,
    REPLACE,
    RIVER_TURN_BACK,
    SEG_FIGHT,
    SEG_MECH,
    SEG_MOVE,
    SETUP,
    SOVIET,
    STATIC,
)
from simulator.rulesets.first_panzer_army.movement import (
    INF,
    can_exit,
    exit_map,
    follow,
    follow_cost,
    move_unit,
    movement_factor,
    reachable,
    stack_ok,
)
from simulator.rulesets.first_panzer_army.players import decide, put_option
from simulator.rulesets.first_panzer_army.rng import die
from simulator.rulesets.first_panzer_army.state import (
    G_AD_USED,
    G_BLOCK_HEX,
    G_DEBUG,
    G_ELIM_VP,
    G_EXITS,
    G_OVERSTACK_OK,
    G_PHASE,
    G_SEG,
    G_SIDE,
    G_SPENT,
    G_TURN,
    G_VIOLATION,
    G_WEATHER,
)
from simulator.rulesets.first_panzer_army.zoc import (
    ezoc,
    log,
    place,
    refresh_lines,
    refresh_moving,
    stack_map,
    stack_steps,
)

# ----------------------------------------------------------------------------- victory (4.0-4.3)

@njit(cache=True)
def victory_points(S, T, final: bool) -> int:
    """4.1-4.2: town hexes 1 (Vinnitsa 1 a hex), FL hexes 4 (OQ-FPA-14: a taken FL keeps its 4),
    German-held town/FL hexes out of C&C 1 (at the end of turn 8; the per-turn measure counts
    them as if the game ended then), exits 1 a corps (at most 4), German divisions eliminated
    out of C&C their maximum steps.  The start (3.1: Krasilov, Khmelnik) gives 2."""
    refresh_lines(S, T)
    vp = 0
    for h in range(T.vp_hex.shape[0]):
        if T.vp_hex[h] > 0:
            if S.control[h] == SOVIET:
                vp += T.vp_hex[h]
            elif S.control[h] == GERMAN and S.cc[h] == 0:
                vp += T.k[K_VP_OOC_END]
    exits = min(S.g[G_EXITS], T.k[K_EXIT_MAX])
    vp += exits * T.k[K_EXIT_VP]
    vp += S.g[G_ELIM_VP]
    return vp


@njit(cache=True)
def side_steps(S, T, side: int) -> int:
    total = 0
    for u in range(T.u_side.shape[0]):
        if T.u_side[u] == side and S.u_hex[u] >= 0:
            total += S.u_steps[u]
    return total


# ----------------------------------------------------------------------------- stacking (6.0)

@njit(cache=True)
def overstacked(S, T, side: int, h: int) -> bool:
    if side == GERMAN:
        return stack_steps(S, T, GERMAN, h, False) > T.k[K_GER_STACK]
    return stack_steps(S, T, SOVIET, h, False) > T.k[K_SOV_STACK] or \
        stack_steps(S, T, SOVIET, h, True) > T.k[K_SOV_ART_STACK]


@njit(cache=True)
def resolve_overstacks(S, T, side: int) -> None:
    """6.0: at the end of a phase the opposing player eliminates units of his choice from an
    overstacked hex until it is within the limits."""
    occ = S.occ[side]
    for h in range(occ.shape[0]):
        while occ[h] > 0 and overstacked(S, T, side, h):
            k = 0
            for u in range(T.u_side.shape[0]):
                if S.u_hex[u] == h and T.u_side[u] == side and T.u_class[u] != STATIC:
                    lost = T.u_max[u] - S.u_steps[u]
                    k = put_option(S.opts, k, u, S.u_steps[u], T.u_att[u, lost] + T.u_def[u, lost], side)
            i = decide(S, T, OVERSTACK, k, 1 - side)
            u = S.opts[i, 0]
            place(S, T, u, ELIMINATED)
            log(S, EV_OVERSTACK, side, u, h, 0, 0, 0)


@njit(cache=True)
def check_invariants(S, T) -> None:
    """Debug mode: stacking within the limits (6.1, 6.2; the Soviet set-up overstack excepted),
    no hex with both sides' units (6.0), no Soviet unit in the no-go area (12.5); ZOC entry and
    exit (7.2) are checked on every step of a move (movement.check_zoc_step)."""
    if S.g[G_VIOLATION] != 0:
        return
    for h in range(T.neighbours.shape[0]):
        if S.occ[SOVIET, h] > 0 and S.occ[GERMAN, h] > 0:
            S.g[G_VIOLATION] = 2
            return
        if S.occ[SOVIET, h] > 0 and T.restricted[h] == 1:
            S.g[G_VIOLATION] = 3
            return
        if overstacked(S, T, GERMAN, h) or (S.g[G_OVERSTACK_OK] == 0 and overstacked(S, T, SOVIET, h)):
            S.g[G_VIOLATION] = 1
            return


@njit(cache=True)
def end_segment(S, T, side: int) -> None:
    refresh_lines(S, T)
    resolve_overstacks(S, T, GERMAN)
    if S.g[G_OVERSTACK_OK] == 0:
        resolve_overstacks(S, T, SOVIET)
    if S.g[G_DEBUG] == 1:
        check_invariants(S, T)


# ----------------------------------------------------------------------------- set-up (3.2)

@njit(cache=True)
def setup(S, T) -> None:
    """3.2: the Soviets set up on their printed hexes (overstacking allowed until the end of
    their turn 1 movement), roll their turn 1 air superiority (5.2), then the German garrisons
    and the 96th and 291st Infantry exactly, every other German unit in or adjacent to its hex."""
    nu = T.u_side.shape[0]
    for u in range(nu):
        if T.u_side[u] == SOVIET and T.u_setup[u] >= 0:
            place(S, T, u, T.u_setup[u])
            S.u_start[u] = T.u_setup[u]
    S.cas[SOVIET] = dice(S, T.k[K_T1_AIR_DIE])     # 5.2: turn 1, one die (air.turn_1_dice), Soviet only
    S.cas[GERMAN] = 0
    log(S, EV_AIR, SOVIET, -1, -1, S.cas[SOVIET], 0, 0)
    for u in range(nu):
        if T.u_side[u] == GERMAN and T.u_setup[u] >= 0 and T.u_exact[u] == 1:
            place(S, T, u, T.u_setup[u])
            S.u_start[u] = T.u_setup[u]
    for u in range(nu):
        if T.u_side[u] != GERMAN or T.u_setup[u] < 0 or T.u_exact[u] == 1:
            continue
        h0 = T.u_setup[u]
        k = 0
        for j in range(7):
            h = h0 if j == 0 else T.neighbours[h0, j - 1]
            if h < 0 or S.occ[SOVIET, h] > 0 or not stack_ok(S, T, u, h):
                continue
            k = put_option(S.opts, k, h, 1 if j == 0 else 0, u, 0)
        if k == 0:
            S.opts[0, 0] = h0
            k = 1
        i = decide(S, T, SETUP, k, GERMAN)
        place(S, T, u, S.opts[i, 0])
        S.u_start[u] = S.opts[i, 0]
        log(S, EV_SETUP, GERMAN, u, S.opts[i, 0], h0, 0, 0)
    refresh_lines(S, T)


# ----------------------------------------------------------------------------- phases

@njit(cache=True)
def dice(S, n: int) -> int:
    """The sum of `n` dice of the rules' stream."""
    total = 0
    for _ in range(n):
        total += die(S.rng)
    return total


@njit(cache=True)
def weather_phase(S, T) -> None:
    """5.1 / 14.0: thaw on turn 1, then one die on the turn's row."""
    turn = S.g[G_TURN]
    roll = 0 if turn == 1 else die(S.rng)
    S.g[G_WEATHER] = T.weather[turn, 0] if turn == 1 else T.weather[turn, roll - 1]
    log(S, EV_WEATHER, SOVIET, -1, -1, S.g[G_WEATHER], roll, 0)


@njit(cache=True)
def air_phase(S, T) -> None:
    """5.2: from turn 2 each player rolls two dice (air.later_dice_each), ties rerolled; the
    higher total gets the difference in CAS markers (1-10) for the turn (turn 1 is rolled at
    set-up)."""
    if S.g[G_TURN] == 1:
        return
    while True:
        a = dice(S, T.k[K_LATER_AIR_DICE])
        b = dice(S, T.k[K_LATER_AIR_DICE])
        if a != b:
            break
    S.cas[SOVIET] = 0
    S.cas[GERMAN] = 0
    side = SOVIET if a > b else GERMAN
    S.cas[side] = min(abs(a - b), T.k[K_CAS_MAX])
    log(S, EV_AIR, side, -1, -1, S.cas[side], a, b)


@njit(cache=True)
def kg_phase(S, T) -> None:
    """5.3: from turn 3 the German player deploys his three KG markers, at most one a hex, on
    any hex of the map, Soviet-held ones included (or keeps a marker off: -1).  Columns: hex,
    German units within 1, German units within 2 in contact with Soviet units, 1 if no Soviet
    ZOC in its range (12.4)."""
    if S.g[G_TURN] < T.k[K_KG_FIRST_TURN]:
        return
    n = T.neighbours.shape[0]
    # The units do not move while the markers go down: count them around every hex once.
    near = S.hx[0]
    contact = S.hx[1]
    dist = T.dist
    nbr = T.neighbours
    sov_zoc = S.zoc[SOVIET]
    kg_hex = S.kg_hex
    opts = S.opts
    u_side = T.u_side
    u_class = T.u_class
    u_hex = S.u_hex
    for x in range(n):
        near[x] = 0
        contact[x] = 0
    ring = S.buf[0]
    for u in range(u_side.shape[0]):
        y = u_hex[u]
        if y < 0 or u_side[u] != GERMAN or u_class[u] == STATIC:
            continue
        touching = sov_zoc[y] > 0
        # the hexes within 2 of y, each once (the hexes x with dist[x, y] <= 2)
        m = 1
        ring[0] = y
        for d in range(6):
            a = nbr[y, d]
            if a < 0:
                continue
            for e in range(-1, 6):
                x = a if e < 0 else nbr[a, e]
                if x < 0:
                    continue
                seen = False
                for j in range(m):
                    if ring[j] == x:
                        seen = True
                        break
                if not seen:
                    ring[m] = x
                    m += 1
        for j in range(m):
            x = ring[j]
            if dist[x, y] <= 1:
                near[x] += 1
            if touching:
                contact[x] += 1
    for i in range(kg_hex.shape[0]):
        k = 0
        for x in range(n):
            taken = False
            for j in range(kg_hex.shape[0]):
                if kg_hex[j] == x:
                    taken = True
            if taken or k >= MAX_OPTIONS - 1:
                continue
            free = 1
            if sov_zoc[x] > 0:
                free = 0
            for d in range(6):
                nb = nbr[x, d]
                if nb >= 0 and sov_zoc[nb] > 0:
                    free = 0
            k = put_option(opts, k, x, near[x], contact[x], free)
        put_option(S.opts, k, -1, 0, 0, 0)
        c = decide(S, T, KG_PLACE, k + 1, GERMAN)
        S.kg_hex[i] = S.opts[c, 0]
        log(S, EV_KG, GERMAN, i, S.kg_hex[i], 0, 0, 0)


@njit(cache=True)
def movement_segment(S, T, side: int) -> None:
    """A movement segment (12.0): units move one at a time, each as far as its MF allows."""
    S.g[G_SEG] = SEG_MOVE
    nu = T.u_side.shape[0]
    for u in range(nu):
        S.u_moved[u] = 0
    while True:
        refresh_moving(S, T, side)       # 8.1: supply when the unit starts to move
        k = 0
        u_side = T.u_side
        u_class = T.u_class
        u_hex = S.u_hex
        u_moved = S.u_moved
        opts = S.opts
        for u in range(nu):
            if u_side[u] == side and u_hex[u] >= 0 and u_moved[u] == 0 and u_class[u] != STATIC:
                k = put_option(opts, k, u, u_hex[u], u_class[u], 0)
        if k == 0:
            break
        put_option(S.opts, k, -1, -1, 0, 0)
        i = decide(S, T, MOVE_UNIT, k + 1, side)
        u = S.opts[i, 0]
        if u < 0:
            break
        S.u_moved[u] = 1
        S.g[G_BLOCK_HEX] = -1     # a hexside barred to one unit (OQ-FPA-12) bars no other
        mf = movement_factor(S, T, u)
        k = destinations(S, T, u, mf)
        ex = can_exit(S, T, u, mf)
        if ex >= 0:
            k = put_option(S.opts, k, EXITED, S.mp[ex], u, ex)
        i = decide(S, T, MOVE_TO, k, side)
        dest = S.opts[i, 0]
        start = S.u_hex[u]
        if dest == EXITED:
            move_unit(S, T, u, S.opts[i, 3], mf)
            if S.u_hex[u] == S.opts[i, 3]:
                exit_map(S, T, u)
        elif dest != S.u_hex[u]:
            stop = move_unit(S, T, u, dest, mf)
            if stop != dest and T.k[K_RIVER_SHORT] == RIVER_TURN_BACK:
                turn_back(S, T, side, u, start, mf - S.g[G_SPENT])
            elif stop != start:
                move_with(S, T, side, start, stop)
        S.g[G_BLOCK_HEX] = -1
    if side == SOVIET and S.g[G_OVERSTACK_OK] == 1:
        S.g[G_OVERSTACK_OK] = 0       # 3.2(5): the set-up overstack ends with this movement
    end_segment(S, T, side)


@njit(cache=True)
def destinations(S, T, u: int, mf: int) -> int:
    """MOVE_TO rows for unit `u` with `mf` MP: every hex it can reach and end in without
    overstacking (its own hex = stay), with the MP it costs; returns their number."""
    reachable(S, T, u, mf)
    steps = S.hx[0]
    stack_map(S, T, u, steps)
    k = 0
    mp = S.mp
    opts = S.opts
    here = S.u_hex[u]
    # fits_stack(S, T, u, h, steps) written out: its field reads cost a reference count a hex
    static = T.u_class[u] == STATIC
    if T.u_side[u] == GERMAN:
        limit = T.k[K_GER_STACK]
    else:
        limit = T.k[K_SOV_ART_STACK] if T.u_class[u] == ARTILLERY else T.k[K_SOV_STACK]
    limit -= S.u_steps[u]
    for h in range(mp.shape[0]):
        if mp[h] < INF and k < MAX_OPTIONS - 1 and (h == here or static or steps[h] <= limit):
            k = put_option(opts, k, h, mp[h], u, 0)
    return k


@njit(cache=True)
def turn_back(S, T, side: int, u: int, start: int, left: int) -> None:
    """Reading OQ-FPA-12 "may_turn_back" (readings.river_crossing_short): a unit whose river
    roll costs more than it has left keeps those MP and may go elsewhere, never across that
    hexside this phase (again after each crossing it cannot pay).  Not when it stopped in an
    EZOC (7.2: its move ends there).  The units of its stack then move on their own."""
    while left > 0 and not (S.u_hex[u] != start and ezoc(S, T, side, S.u_hex[u])):
        here = S.u_hex[u]
        k = destinations(S, T, u, left)
        i = decide(S, T, MOVE_TO, k, side)
        dest = S.opts[i, 0]
        if dest == here:
            return
        stop = move_unit(S, T, u, dest, left)
        left -= S.g[G_SPENT]
        if stop == dest:
            return


@njit(cache=True)
def move_with(S, T, side: int, start: int, stop: int) -> None:
    """12.0 "units are moved as stacks or one at a time", 12.3 one river roll a stack: after a
    unit has moved, the player chooses, one at a time, which units that began the segment in
    the same hex and have not moved go with it, along its path and rolls, to where it stopped.
    Rows: unit, hex reached, hex left, MP it pays (last row -1: no more).  Only units with the
    MP (8.1: supply when they start) and the stacking room to end there are offered."""
    while True:
        refresh_moving(S, T, side)
        k = 0
        for v in range(T.u_side.shape[0]):
            if T.u_side[v] != side or S.u_hex[v] != start or S.u_moved[v] != 0 or T.u_class[v] == STATIC:
                continue
            if not stack_ok(S, T, v, stop):
                continue
            cost = follow_cost(S, T, v, start, stop)
            if cost > movement_factor(S, T, v):
                continue
            k = put_option(S.opts, k, v, stop, start, cost)
        if k == 0:
            return
        put_option(S.opts, k, -1, stop, start, 0)
        i = decide(S, T, MOVE_WITH, k + 1, side)
        v = S.opts[i, 0]
        if v < 0:
            return
        S.u_moved[v] = 1
        follow(S, T, v, start, stop)


@njit(cache=True)
def combat_segment(S, T, side: int, seg: int) -> None:
    """A combat segment (13.0) or a German mechanized one (5.5, 13.7): attacks one at a time in
    the attacker's order; German probes (13.6)."""
    S.g[G_SEG] = seg
    nu = T.u_side.shape[0]
    n = T.neighbours.shape[0]
    for u in range(nu):
        S.u_attacked[u] = 0
    for i in range(S.kg_hex.shape[0]):
        if side == GERMAN:
            S.kg_att[i] = 0
        else:
            S.kg_def[i] = 0
    S.g[G_AD_USED] = 0
    ev = np.zeros(E_N, dtype=np.int64)
    while True:
        refresh_lines(S, T)
        for h in range(n):
            S.mark[h] = 0
        k = 0
        for u in range(nu):
            if T.u_side[u] != side or S.u_hex[u] < 0 or not may_attack(S, T, u, seg):
                continue
            h = S.u_hex[u]
            for d in range(6):
                x = T.neighbours[h, d]
                if x < 0 or k >= MAX_OPTIONS - 2:
                    continue
                if S.occ[1 - side, x] > 0:
                    if S.mark[x] == 1 or (side == SOVIET and T.restricted[x] == 1):
                        continue       # 12.5: no Soviet attack into the no-go area
                    S.mark[x] = 1
                    evaluate(S, T, side, x, seg, 0, 0, ev)
                    k = put_option(S.opts, k, x, 0, ev[E_COL], S.occ[1 - side, x])
                elif side == GERMAN and probe_ok(S, T, x) and stack_ok(S, T, u, x) and not stand_fast_blocks(S, T, u, x):
                    k = put_option(S.opts, k, x, 1, u, 0)
        if k == 0:
            break
        put_option(S.opts, k, -1, 0, 0, 0)
        i = decide(S, T, ATTACK, k + 1, side)
        target = S.opts[i, 0]
        if target < 0:
            break
        if S.opts[i, 1] == 1:
            from_unit = S.opts[i, 2]
            probe(S, T, from_unit, target, seg)
        else:
            attack(S, T, side, target, seg)
    end_segment(S, T, side)


@njit(cache=True)
def player_turn(S, T, side: int) -> None:
    """5.4: the order is announced (Soviet turn 1: move/fight); the first phase runs in it, the
    second in the other; each German combat segment is followed by a mechanized one (5.5)."""
    S.g[G_SIDE] = side
    n = 2
    S.opts[0, 0] = MOVE_FIGHT
    S.opts[1, 0] = FIGHT_MOVE
    if side == SOVIET and S.g[G_TURN] == 1:
        S.opts[0, 0] = T.k[K_SOV_T1_ORDER]
        n = 1
    order = S.opts[decide(S, T, ORDER, n, side), 0]
    log(S, EV_ORDER, side, -1, -1, order, 0, 0)
    for phase in range(2):
        S.g[G_PHASE] = (4 if side == SOVIET else 6) + phase
        first_move = (order == MOVE_FIGHT) == (phase == 0)
        for step in range(2):
            if (step == 0) == first_move:
                movement_segment(S, T, side)
            else:
                combat_segment(S, T, side, SEG_FIGHT)
                if side == GERMAN:
                    combat_segment(S, T, side, SEG_MECH)


@njit(cache=True)
def reinforcement_phase(S, T) -> None:
    """10.1: German reinforcements of the turn enter at no MP cost on an entry hex 0101-0113
    (not one holding a Soviet unit, OQ-FPA-23) or at Ternopol if German and in C&C (EZOC
    allowed); one that cannot is forfeit."""
    S.g[G_PHASE] = 10
    refresh_lines(S, T)
    tern = T.k[K_TERNOPOL]
    for u in range(T.u_side.shape[0]):
        if T.u_side[u] != GERMAN or T.u_entry[u] != S.g[G_TURN] or S.u_hex[u] != NOT_ENTERED:
            continue
        k = 0
        for h in range(T.neighbours.shape[0]):
            ok = T.entry[h] == 1 or (h == tern and S.control[h] == GERMAN and S.cc[h] == 1)
            if ok and S.occ[SOVIET, h] == 0 and stack_ok(S, T, u, h):
                k = put_option(S.opts, k, h, u, 0, 0)
        if k == 0:
            log(S, EV_REINFORCE, GERMAN, u, -1, 0, 0, 0)
            continue
        i = decide(S, T, REINFORCE, k, GERMAN)
        place(S, T, u, S.opts[i, 0])
        S.u_start[u] = S.opts[i, 0]
        log(S, EV_REINFORCE, GERMAN, u, S.opts[i, 0], 1, 0, 0)
    end_segment(S, T, GERMAN)


@njit(cache=True)
def replacement_phase(S, T) -> None:
    """11.2: a rifle corps whose turn has come returns reduced, one a hex, on a Soviet-held,
    in-supply town or FL hex free of EZOC; with none it waits (readings.replacement_no_hex)."""
    S.g[G_PHASE] = 11
    refresh_lines(S, T)
    n = T.neighbours.shape[0]
    for h in range(n):
        S.mark[h] = 0
    for u in range(T.u_side.shape[0]):
        if T.u_side[u] != SOVIET or (T.u_flags[u] & F_RIFLE) == 0 or S.u_hex[u] != ELIMINATED:
            continue
        if S.u_return[u] <= 0 or S.u_return[u] > S.g[G_TURN]:
            continue
        k = 0
        S.u_steps[u] = 1
        for h in range(n):
            if T.vp_hex[h] > 0 and S.control[h] == SOVIET and S.supply[h] == 1 and S.mark[h] == 0 \
                    and S.occ[GERMAN, h] == 0 and not ezoc(S, T, SOVIET, h) and stack_ok(S, T, u, h):
                k = put_option(S.opts, k, h, u, 0, 0)
        if k == 0:
            S.u_steps[u] = 0
            if T.k[K_REPL_NO_HEX] == 1:
                S.u_return[u] = 0
            continue
        i = decide(S, T, REPLACE, k, SOVIET)
        h = S.opts[i, 0]
        S.mark[h] = 1
        S.u_return[u] = 0
        place(S, T, u, h)
        log(S, EV_REPLACE, SOVIET, u, h, 0, 0, 0)


@njit(cache=True)
def admin_phase(S, T) -> None:
    """5.8: KG and CAS markers come off; the VP count is checked (recorded per turn)."""
    S.g[G_PHASE] = 12
    for i in range(S.kg_hex.shape[0]):
        S.kg_hex[i] = -1
    S.cas[SOVIET] = 0
    S.cas[GERMAN] = 0
    turn = S.g[G_TURN]
    S.vp_turn[turn] = victory_points(S, T, turn == T.k[K_TURNS])
    S.steps_turn[turn, SOVIET] = side_steps(S, T, SOVIET)
    S.steps_turn[turn, GERMAN] = side_steps(S, T, GERMAN)
    record_positions(S, turn)


@njit(cache=True)
def record_positions(S, turn: int) -> None:
    for u in range(S.u_hex.shape[0]):
        S.pos_turn[turn, u] = S.u_hex[u]
        S.step_hist[turn, u] = S.u_steps[u]


@njit(cache=True)
def play_game(S, T) -> int:
    """A whole game; returns the final Soviet VP (4.3)."""
    S.g[G_TURN] = 0
    setup(S, T)
    S.vp_turn[0] = victory_points(S, T, False)
    S.steps_turn[0, SOVIET] = side_steps(S, T, SOVIET)
    S.steps_turn[0, GERMAN] = side_steps(S, T, GERMAN)
    record_positions(S, 0)
    for turn in range(1, T.k[K_TURNS] + 1):
        S.g[G_TURN] = turn
        S.g[G_PHASE] = 1
        log(S, EV_TURN, SOVIET, -1, -1, turn, 0, 0)
        weather_phase(S, T)
        S.g[G_PHASE] = 2
        air_phase(S, T)
        S.g[G_PHASE] = 3
        kg_phase(S, T)
        refresh_lines(S, T)
        player_turn(S, T, SOVIET)
        player_turn(S, T, GERMAN)
        reinforcement_phase(S, T)
        replacement_phase(S, T)
        admin_phase(S, T)
    return S.vp_turn[T.k[K_TURNS]]
