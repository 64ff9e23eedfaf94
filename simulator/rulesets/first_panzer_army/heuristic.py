"""The First Panzer Army heuristic player: it scores the options the engine offers and picks
the best.  It reads the state and tables (read-only) and imports no rules module.

Germans: break out west toward the II SS Panzer Corps relief (the entry edge 0101-0113), hold
the towns and FLs they stand on, attack where the odds are fair (the developer notes: attrition
pays), probe westward, retreat west and into C&C; the relief drives east to meet the pocket.
Soviets: take German-held towns and FLs, close on the Germans from the west and south (cutting
their C&C), attack at good odds, stack artillery with corps, and from `exit_turn` send corps to
the exit hexes 0729-1729.  Parameters: players.HEURISTIC_PARAMS (in this order).
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.first_panzer_army.consts import (
    ADVANCE,
    ARTILLERY,
    ATTACK,
    CAS,
    F_ARMY_SUPPORT,
    F_CORPS,
    FIGHT_MOVE,
    FL,
    FROST,
    GERMAN,
    JOIN,
    K_EXIT_MAX,
    K_GER_STACK,
    K_SOV_ART_STACK,
    K_SOV_STACK,
    K_TURNS,
    KG_PLACE,
    LOSS,
    MOVE_FIGHT,
    MOVE_TO,
    MOVE_UNIT,
    MOVE_WITH,
    ORDER,
    OVERSTACK,
    PROBE_WITH,
    REINFORCE,
    REPLACE,
    RETREAT,
    SETUP,
    SOVIET,
    STATIC,
    SUPPORT,
    TOWN,
)
from simulator.rulesets.first_panzer_army.state import G_EXITS, G_TURN, G_WEATHER
from simulator.rulesets.first_panzer_army.zoc import stack_map

(P_SOV_MIN_COL, P_GER_MIN_COL, P_WEST, P_TOWN, P_EXIT_TURN, P_CAS, P_SCREEN, P_HOLD_RADIUS, P_HOLD_STEPS, P_GOAL,
 P_CC, P_DANGER, P_ATTACK_EDGE, P_SOV_DANGER, P_STACK, P_SOV_MASS, P_RESERVE) = range(17)
NEG = -1.0e18


@njit(cache=True)
def west_distance(T, h: int) -> int:
    """Hexes to the nearest German entry hex (0101-0113): where the relief comes from."""
    return T.west_dist[h]


@njit(cache=True)
def nearest_unit(S, T, side: int, h: int) -> int:
    """Distance from `h` to the nearest unit of `side` on the map (large if none)."""
    best = 1 << 20
    for u in range(T.u_side.shape[0]):
        x = S.u_hex[u]
        if x >= 0 and T.u_side[u] == side and T.dist[h, x] < best:
            best = T.dist[h, x]
    return best


@njit(cache=True)
def hexes_of(S, T, side: int, out) -> int:
    """The hexes of `side`'s units on the map into `out` (one a unit); returns their number."""
    u_side = T.u_side
    u_hex = S.u_hex
    k = 0
    for u in range(u_side.shape[0]):
        x = u_hex[u]
        if x >= 0 and u_side[u] == side:
            out[k] = x
            k += 1
    return k


@njit(cache=True)
def nearest_of(T, h: int, hexes, n: int) -> int:
    """`nearest_unit` with the side's hexes listed once (`hexes_of`)."""
    dist = T.dist
    best = 1 << 20
    for j in range(n):
        d = dist[h, hexes[j]]
        if d < best:
            best = d
    return best


@njit(cache=True)
def pocket_head(S, T) -> int:
    """The hex of the westernmost German unit of the pocket (not a reinforcement or garrison)."""
    best = -1
    bd = 1 << 20
    for u in range(T.u_side.shape[0]):
        x = S.u_hex[u]
        if x >= 0 and T.u_side[u] == GERMAN and T.u_entry[u] == 0 and T.u_class[u] != STATIC:
            d = west_distance(T, x)
            if d < bd:
                bd = d
                best = x
    return best


@njit(cache=True)
def soviet_steps_near(S, T, h: int, skip: int, radius: int) -> int:
    """Soviet steps within `radius` hexes of `h`, unit `skip` not counted."""
    u_side = T.u_side
    u_hex = S.u_hex
    u_steps = S.u_steps
    dist = T.dist
    total = 0
    for v in range(u_side.shape[0]):
        x = u_hex[v]
        if v != skip and x >= 0 and u_side[v] == SOVIET and dist[h, x] <= radius:
            total += u_steps[v]
    return total


@njit(cache=True)
def soviet_targets(S, T, params, tw, tv, mover: int) -> int:
    """The German-held town and FL hexes a Soviet unit may go for, into `tv` (hexes) and `tw`
    (worth: its VP, 4.1, over the German steps holding it, so that weakly held towns draw the
    Soviets rather than only the strongest FL); returns their number.  A town already ringed
    by more Soviet steps (within 2 hexes, `mover` not counted) than `soviet_mass` times one
    plus the German steps in it pulls less, in proportion: the next unit goes for another town
    instead of piling onto one (replays: 18 of 23 Soviet units around one 2-step town)."""
    k = 0
    vp_hex = T.vp_hex
    control = S.control
    restricted = T.restricted
    vp_list = T.vp_list
    for i in range(vp_list.shape[0]):
        v = vp_list[i]
        if vp_hex[v] > 0 and control[v] == GERMAN and restricted[v] == 0:
            held = german_steps_in(S, T, v, -1)
            w = params[P_TOWN] * vp_hex[v] / (1.0 + 0.5 * held)
            if params[P_SOV_MASS] > 0:
                need = params[P_SOV_MASS] * (1.0 + held)
                have = soviet_steps_near(S, T, v, mover, 2)
                if have > need:
                    w *= need / have
            tv[k] = v
            tw[k] = w
            k += 1
    return k


@njit(cache=True)
def soviet_hex_value(S, T, h: int, u: int, tw, tv, nt: int, params, germans, ng: int) -> float:
    """Where a Soviet unit should stop (`germans`: the German units' hexes, `hexes_of`):
    German-held towns and FLs, nearer and weaker held better (an empty one is taken by entering
    it); late in the game, standing in a taken town the Germans could retake (3.3: they move
    last); closing the pocket from the west and south (`screen_weight`); in supply; powerful
    but brittle (dev notes): alone next to German masses is easy prey, a stack shares the
    threat; artillery never alone (13.2); corps toward the exits from `exit_turn` (4.1).
    The arithmetic is `move_to_scores`'s (one row, no path or stacking terms)."""
    return _value(S, T, h, u, SOVIET, params, tw, tv, nt, germans, ng, -1)


@njit(cache=True)
def german_steps_in(S, T, h: int, skip: int) -> int:
    """German mobile steps in hex `h`, unit `skip` not counted."""
    u_side = T.u_side
    u_class = T.u_class
    u_hex = S.u_hex
    u_steps = S.u_steps
    total = 0
    for v in range(u_side.shape[0]):
        if v != skip and u_hex[v] == h and u_side[v] == GERMAN and u_class[v] != STATIC:
            total += u_steps[v]
    return total


@njit(cache=True)
def hold_hex(T, h: int, params) -> bool:
    """A town or FL the Germans mean to keep: near the relief's entry edge (the pocket moves
    there, dev notes), outside the no-go area (12.5: the Soviets never reach those anyway)."""
    return T.vp_hex[h] > 0 and T.restricted[h] == 0 and T.west_dist[h] <= params[P_HOLD_RADIUS]


@njit(cache=True)
def german_goal(S, T, u: int, params) -> int:
    """The held town or FL unit `u` is sent to: the nearest one short of its wanted steps
    (`hold_steps`, twice for an FL) and free of Soviet units, an FL counting as nearer by its
    worth; -1 when every one is manned (the unit then joins the line in the west)."""
    x = S.u_hex[u]
    if x < 0:
        return -1
    best = -1
    best_d = 1.0e9
    vp_hex = T.vp_hex
    restricted = T.restricted
    west_dist = T.west_dist
    is_fl = T.is_fl
    dist = T.dist
    sov_occ = S.occ[SOVIET]
    radius = params[P_HOLD_RADIUS]
    vp_list = T.vp_list
    for j in range(vp_list.shape[0]):
        v = vp_list[j]
        # hold_hex(T, v, params), written out
        if vp_hex[v] <= 0 or restricted[v] != 0 or west_dist[v] > radius or sov_occ[v] > 0:
            continue
        need = params[P_HOLD_STEPS] * (2.0 if is_fl[v] == 1 else 1.0)
        have = german_steps_in(S, T, v, u)
        if have >= need:
            continue
        d = dist[x, v] - 2.0 * vp_hex[v]
        if d < best_d:
            best_d = d
            best = v
    if best < 0 and params[P_RESERVE] > 0:
        best = threatened_hold(S, T, params)
    return best


@njit(cache=True)
def threatened_hold(S, T, params) -> int:
    """The held town or FL (German-controlled) with the most Soviet steps within 2 hexes, at
    least `reserve_threat` of them; -1 if none.  Units with no town to man go there as a
    reserve: to stand by the garrison and counterattack the Soviets massing on it (replays:
    the spare German line stood idle in the west while the Soviets took towns one by one)."""
    best = -1
    most = params[P_RESERVE] - 1.0
    u_side = T.u_side
    u_hex = S.u_hex
    u_steps = S.u_steps
    dist = T.dist
    control = S.control
    vp_hex = T.vp_hex
    restricted = T.restricted
    west_dist = T.west_dist
    radius = params[P_HOLD_RADIUS]
    vp_list = T.vp_list
    for j in range(vp_list.shape[0]):
        v = vp_list[j]
        # hold_hex(T, v, params), written out
        if vp_hex[v] <= 0 or restricted[v] != 0 or west_dist[v] > radius or control[v] != GERMAN:
            continue
        threat = 0
        for w in range(u_side.shape[0]):
            y = u_hex[w]
            if y >= 0 and u_side[w] == SOVIET and dist[v, y] <= 2:
                threat += u_steps[w]
        if threat > most:
            most = threat
            best = v
    return best


@njit(cache=True)
def goal_gain(S, T, u: int, frm: int, to: int, params, stop_in_hold_zone: bool) -> float:
    """Hexes unit `u` gains toward its goal (`german_goal`) by going from `frm` to `to`; with no
    goal, toward the relief's entry edge (nothing once within `hold_radius` of it, if
    `stop_in_hold_zone`)."""
    g = german_goal(S, T, u, params)
    if g >= 0:
        return T.dist[frm, g] - T.dist[to, g]
    if stop_in_hold_zone and west_distance(T, to) <= params[P_HOLD_RADIUS]:
        return 0.0
    return west_distance(T, frm) - west_distance(T, to)


@njit(cache=True)
def empties_town(S, T, u: int, frm: int) -> bool:
    """Whether unit `u` leaving `frm` leaves a town or FL without German mobile units."""
    return T.vp_hex[frm] > 0 and german_steps_in(S, T, frm, u) == 0


@njit(cache=True)
def german_hex_value(S, T, h: int, u: int, goal: int, params) -> float:
    """Where a German unit should stop: at the town or FL it is sent to hold (`german_goal`),
    else in the west near the relief; in C&C; retaking empty towns (3.3; worth most on the
    last turn; 4.1: a German town out of C&C still scores 1); away from Soviet masses unless
    the hex is a town or FL (doubled out of C&C).  The arithmetic is `move_to_scores`'s."""
    return _value(S, T, h, u, GERMAN, params, np.zeros(0, dtype=np.float64), np.zeros(0, dtype=np.int64), 0,
                  S.work[1], 0, goal)


@njit(cache=True)
def crt_edge(T, col: int) -> float:
    """Expected defender steps lost minus attacker steps lost at column `col`, plus a third of
    the chance of a retreat (13.9, the CRT read from the tables)."""
    e = 0.0
    for d in range(6):
        r = T.crt[d, col]
        e += T.res_def[r] - T.res_att[r] + 0.3 * T.res_ret[r]
    return e / 6.0


@njit(cache=True)
def _value(S, T, h: int, u: int, side: int, params, tw, tv, nt: int, germans, ng: int, goal: int) -> float:
    """One hex's value for unit `u` (`move_to_scores` on one row, without the path terms)."""
    row = np.zeros((1, 4), dtype=np.int32)
    row[0, 0] = h
    row[0, 2] = u
    out = np.zeros(1, dtype=np.float64)
    move_to_scores(S, T, row, 1, side, params, tw, tv, nt, germans, ng, goal, S.work[0], S.work[3], out, False)
    return out[0]


@njit(cache=True)
def move_to_scores(S, T, opts, n: int, side: int, params, tw, tv, nt: int, germans, ng: int, goal: int,
                   steps_map, memo, out, paths: bool) -> None:
    """The MOVE_TO rows' scores into `out`: `soviet_hex_value` / `german_hex_value` of each
    destination and, if `paths`, less 0.001 an MP, less 1e4 for staying overstacked (3.2(5),
    6.0) or 50 for a bank risk: a path that crosses a river at a die roll's cost (12.3: not in
    frost, not into or out of a town or FL) and then runs through a hex where the unit could
    not stay, where a bad roll leaves it short of MP (12.2), overstacked (6.0).  `memo` (zeroed
    for each unit's reach): per hex 1 + 2 (a paying crossing on the way to it) + 4 (a hex before
    it where the unit could not stay, after a crossing); the paths form a tree (S.prev), so each
    hex is worked out once for all the destinations behind it.  The same arithmetic as those functions, written out in one loop over the
    rows with every array read once: each field read from the state or tables costs an atomic
    reference count (numba's StructRef) and a helper taking arrays is not inlined cheaply
    (issue 22), and this loop runs ~150 rows a move, ~700 moves a game."""
    if n == 0:
        return
    u = opts[0, 2]               # every row moves the same unit
    dist = T.dist
    vp_hex = T.vp_hex
    control = S.control
    cc = S.cc
    supply = S.supply
    ger_occ = S.occ[GERMAN]
    sov_occ = S.occ[SOVIET]
    ger_zoc = S.zoc[GERMAN]
    sov_zoc = S.zoc[SOVIET]
    west_dist = T.west_dist
    exit_dist = T.exit_dist
    u_hex = S.u_hex
    u_side = T.u_side
    u_class = T.u_class
    prev = S.prev
    nbr = T.neighbours
    river = T.river
    terrain = T.terrain
    stack = S.work[2]
    turn = S.g[G_TURN]
    turns = T.k[K_TURNS]
    exits = S.g[G_EXITS]
    exit_max = T.k[K_EXIT_MAX]
    frost = S.g[G_WEATHER] == FROST
    here = u_hex[u]
    corps = (T.u_flags[u] & F_CORPS) != 0
    artillery = u_class[u] == ARTILLERY
    # fits_stack(S, T, u, x, steps_map), written out
    static = u_class[u] == STATIC
    steps_u = S.u_steps[u]
    if side == GERMAN:
        limit = T.k[K_GER_STACK]
    else:
        limit = T.k[K_SOV_ART_STACK] if artillery else T.k[K_SOV_STACK]
    for i in range(n):
        h = opts[i, 0]
        if h < 0:
            # 4.1: a corps' exit scores for good, up to the four that count, but takes it out
            # of the fight: only from `exit_turn` (replays: three tank corps left on turn 1).
            scores = corps and exits < exit_max and turn >= params[P_EXIT_TURN]
            out[i] = (1.0e6 if scores else -1.0e6) - 0.001 * opts[i, 1]
            continue
        s = 0.0
        if side == SOVIET:
            # soviet_hex_value(S, T, h, u, tw, tv, nt, params, germans, ng)
            assault = False
            for j in range(nt):
                v = tv[j]
                d = dist[h, v]
                s += tw[j] / (1.0 + d)
                if d == 0 and ger_occ[v] == 0:
                    s += tw[j] * 2.0
                elif d == 1 and ger_occ[v] > 0:
                    assault = True
                    s += tw[j]
            dg = 1 << 20
            for j in range(ng):
                dd = dist[h, germans[j]]
                if dd < dg:
                    dg = dd
            s -= params[P_SCREEN] * 0.3 * dg
            if vp_hex[h] > 0 and control[h] == SOVIET and dg <= 10:
                mates = sov_occ[h] - (1 if here == h else 0)
                if mates == 0:
                    s += params[P_TOWN] * vp_hex[h] * turn / turns
            if dg <= 2 and cc[h] == 1:
                s += params[P_SCREEN]
            if supply[h] == 1:
                s += 1.0
            threat = ger_zoc[h]
            if threat > 0 and vp_hex[h] == 0:
                mates = sov_occ[h]
                if here == h:
                    mates -= 1
                if not assault:
                    s -= params[P_SOV_DANGER] * threat / (1.0 + mates)
                if mates > 0:
                    s += params[P_STACK]
            if artillery:
                partner = False
                for v in range(u_side.shape[0]):
                    if v != u and u_hex[v] == h and u_side[v] == SOVIET and u_class[v] != ARTILLERY:
                        partner = True
                if not partner:
                    s -= 6.0
            if corps and turn >= params[P_EXIT_TURN] and exits < exit_max:
                s -= 2.0 * exit_dist[h]
        else:
            # german_hex_value(S, T, h, u, goal, params)
            if goal >= 0:
                s -= params[P_GOAL] * dist[h, goal]
                if h == goal:
                    s += 4.0
            else:
                over = west_dist[h] - params[P_HOLD_RADIUS]
                if over > 0:
                    s -= params[P_WEST] * over
            s += params[P_CC] * cc[h]
            if vp_hex[h] > 0 and ger_occ[h] == 0:
                gain = vp_hex[h] if control[h] == SOVIET else 0.5 * vp_hex[h]
                if cc[h] == 0:
                    gain -= 1.0
                s += params[P_TOWN] * gain * (0.5 + 0.5 * turn / turns)
            elif vp_hex[h] == 0:
                threat = sov_zoc[h]
                if cc[h] == 0:
                    threat *= 2
                s -= params[P_DANGER] * threat
        if not paths:
            out[i] = s
            continue
        s -= 0.001 * opts[i, 1]
        if h == here and not (static or steps_map[h] <= limit):
            s -= 1.0e4
            out[i] = s
            continue
        # bank_risk(S, T, u, h, steps_map, memo), written out
        risky = False
        if not frost:
            m = 0
            b = h
            while b != here and b >= 0 and memo[b] == 0 and m < 64:
                stack[m] = b
                m += 1
                b = prev[b]
            crossed = False
            if b != here and b >= 0:
                crossed = (memo[b] & 2) != 0
                risky = (memo[b] & 4) != 0
            x = b
            for k in range(m - 1, -1, -1):
                nxt = stack[k]
                for d in range(6):
                    if nbr[x, d] == nxt and river[x, d] > 0:
                        if not (terrain[x] == TOWN or terrain[x] == FL or terrain[nxt] == TOWN
                                or terrain[nxt] == FL):
                            crossed = True
                if crossed and x != here and not (static or steps_map[x] + steps_u <= limit):
                    risky = True
                memo[nxt] = 1 + (2 if crossed else 0) + (4 if risky else 0)
                x = nxt
        if risky:
            s -= 50.0
        out[i] = s


@njit(cache=True)
def best_option(kind: int, opts, n: int, S, T, side: int, params) -> int:
    best = 0
    best_score = NEG
    goal = -1
    nt = 0
    soviet_move = side == SOVIET and (kind == MOVE_TO or kind == MOVE_WITH)
    tw = np.zeros(64 if soviet_move else 0, dtype=np.float64)
    tv = np.zeros(64 if soviet_move else 0, dtype=np.int64)
    germans = S.work[1]
    ng = 0
    if soviet_move:
        nt = soviet_targets(S, T, params, tw, tv, opts[0, 2] if kind == MOVE_TO else opts[0, 0])
        ng = hexes_of(S, T, GERMAN, germans)
    steps_map = S.work[0]
    memo = S.work[3]
    if kind == MOVE_TO and n > 0:
        stack_map(S, T, opts[0, 2], steps_map)      # every row moves the same unit
        for h in range(memo.shape[0]):
            memo[h] = 0
    if side == GERMAN and n > 0 and (kind == MOVE_TO or kind == ADVANCE or kind == RETREAT):
        u0 = opts[0, 2] if kind == MOVE_TO else opts[0, 1] if kind == RETREAT else -1
        if kind == RETREAT and opts[0, 3] != GERMAN:
            u0 = -1
        if u0 >= 0:
            goal = german_goal(S, T, u0, params)
    scores = np.empty(n if kind == MOVE_TO else 0, dtype=np.float64)
    if kind == MOVE_TO:
        move_to_scores(S, T, opts, n, side, params, tw, tv, nt, germans, ng, goal, steps_map, memo, scores, True)
    for i in range(n):
        score = 0.0
        if kind == ORDER:
            want = MOVE_FIGHT if side == SOVIET else FIGHT_MOVE
            score = 1.0 if opts[i, 0] == want else 0.0
        elif kind == KG_PLACE:
            score = 0.0 if opts[i, 0] < 0 else opts[i, 1] + 2.0 * opts[i, 2] + 0.5 * opts[i, 3]
        elif kind == SETUP:
            score = 10.0 * opts[i, 1] + T.vp_hex[opts[i, 0]] - 0.1 * west_distance(T, opts[i, 0])
        elif kind == MOVE_UNIT:
            score = 1.0 if opts[i, 0] >= 0 else 0.0
            if score > 0:
                score -= 0.001 * i
        elif kind == MOVE_TO:
            score = scores[i]     # move_to_scores
        elif kind == ATTACK:
            if opts[i, 0] < 0:
                score = 0.0
            elif opts[i, 1] == 1:   # a probe (13.6): worth it toward the unit's goal or onto a town
                u = opts[i, 2]
                frm = S.u_hex[u]
                score = -0.5 + goal_gain(S, T, u, frm, opts[i, 0], params, True) + T.vp_hex[opts[i, 0]]
                if empties_town(S, T, u, frm):
                    score -= 3.0        # never leave a town or FL empty
            elif side == SOVIET:
                score = opts[i, 2] - params[P_SOV_MIN_COL] + 0.5 + 0.3 * T.vp_hex[opts[i, 0]]
            else:
                col = opts[i, 2]
                if col < params[P_GER_MIN_COL]:
                    score = -1.0
                else:
                    target = opts[i, 0]
                    score = crt_edge(T, col) - params[P_ATTACK_EDGE]
                    if T.vp_hex[target] > 0:
                        score += 0.3 * T.vp_hex[target]     # a Soviet stack in a town: retake it
                    for d in range(6):
                        nb = T.neighbours[target, d]
                        if nb >= 0 and hold_hex(T, nb, params) and S.control[nb] == GERMAN:
                            score += 0.2                    # it threatens a town we hold
                            break
        elif kind == CAS:
            base = opts[0, 1]
            m = opts[i, 0]
            better = opts[i, 1] > base if opts[i, 3] == 1 else opts[i, 1] < base
            if m == 0:
                score = 0.0
            elif m <= params[P_CAS] and better:
                score = 10.0 - m
            else:
                score = -1.0
        elif kind == LOSS:
            score = 10.0 * opts[i, 1] - opts[i, 2]
            if (opts[i, 3] & F_ARMY_SUPPORT) != 0:
                score += 100.0
        elif kind == RETREAT:
            h = opts[i, 0]
            if opts[i, 3] == GERMAN:
                toward = T.dist[h, goal] if goal >= 0 else west_distance(T, h)
                score = -toward - 3.0 * opts[i, 2] + 2.0 * S.cc[h] + T.vp_hex[h]
            else:       # the German player retreats a Soviet unit: into German ZOC, away from supply
                score = 3.0 * opts[i, 2] - 2.0 * S.supply[h] + west_distance(T, h) * 0.1
        elif kind == ADVANCE:
            u = opts[i, 0]
            if u < 0:
                score = 0.0
            elif S.occ[side, opts[i, 1]] > 0:
                score = -1.0    # one unit takes the hex
            elif side == SOVIET:
                score = 1.0 + opts[i, 3] * 0.01
            else:
                frm = opts[i, 2]
                score = goal_gain(S, T, u, frm, opts[i, 1], params, False) + T.vp_hex[opts[i, 1]] - 0.5 \
                    + opts[i, 3] * 0.01
                if empties_town(S, T, u, frm):
                    score -= 3.0        # never leave a town or FL empty
        elif kind == JOIN:
            # Every unit that raises the column joins; one that adds nothing joins only if it
            # has no other enemy hex to attack (it still shares the losses).
            if opts[i, 0] < 0:
                score = 0.5
            else:
                score = 10.0 * opts[i, 2] + (0.6 if opts[i, 3] == 0 else 0.2)
        elif kind == SUPPORT:
            # A KG or the 18th AD serves the combat when it moves the column the German way.
            col = opts[i, 1] if opts[i, 3] == 1 else -opts[i, 1]
            score = col + (0.5 if opts[i, 0] < 0 else 0.0)
        elif kind == PROBE_WITH:
            # Another unit of the stack goes with a probe (13.6) when that brings it closer to
            # where it is sent, never leaving a town or FL empty.
            v = opts[i, 0]
            if v < 0:
                score = 0.0
            else:
                frm = opts[i, 2]
                score = goal_gain(S, T, v, frm, opts[i, 1], params, True) - 0.5 + 0.01 * opts[i, 3]
                if empties_town(S, T, v, frm):
                    score -= 3.0
        elif kind == MOVE_WITH:
            # A unit goes with the stack (12.0, one river roll, 12.3) when where the stack
            # stopped is clearly better for it than where it stands.
            v = opts[i, 0]
            if v < 0:
                score = 0.0
            else:
                stop = opts[i, 1]
                frm = opts[i, 2]
                if side == SOVIET:
                    score = soviet_hex_value(S, T, stop, v, tw, tv, nt, params, germans, ng) \
                        - soviet_hex_value(S, T, frm, v, tw, tv, nt, params, germans, ng) - 0.5
                else:
                    g = german_goal(S, T, v, params)
                    score = german_hex_value(S, T, stop, v, g, params) - german_hex_value(S, T, frm, v, g, params) - 0.5
                    if empties_town(S, T, v, frm):
                        score -= 3.0
        elif kind == OVERSTACK:
            score = -opts[i, 2] - 10.0 * opts[i, 1]
        elif kind == REINFORCE:
            head = pocket_head(S, T)
            score = -T.dist[opts[i, 0], head] if head >= 0 else 0.0
        elif kind == REPLACE:
            score = -nearest_unit(S, T, GERMAN, opts[i, 0])
        if score > best_score:
            best_score = score
            best = i
    return best
