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

from simulator.jit import njit
from simulator.rulesets.first_panzer_army.consts import (
    ADVANCE,
    ARTILLERY,
    ATTACK,
    CAS,
    F_ARMY_SUPPORT,
    F_CORPS,
    FIGHT_MOVE,
    GERMAN,
    JOIN,
    K_EXIT_MAX,
    KG_PLACE,
    LOSS,
    MOVE_FIGHT,
    MOVE_TO,
    MOVE_UNIT,
    ORDER,
    OVERSTACK,
    REINFORCE,
    REPLACE,
    RETREAT,
    SETUP,
    SOVIET,
    STATIC,
    SUPPORT,
)
from simulator.rulesets.first_panzer_army.state import G_EXITS, G_TURN

P_SOV_MIN_COL, P_GER_MIN_COL, P_WEST, P_TOWN, P_EXIT_TURN, P_CAS, P_SCREEN = range(7)
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
def soviet_hex_value(S, T, h: int, u: int, params) -> float:
    s = 0.0
    town = params[P_TOWN]
    # German-held towns and FLs, nearer is better; an empty one is taken by entering it.
    for v in range(T.vp_hex.shape[0]):
        if T.vp_hex[v] > 0 and S.control[v] == GERMAN:
            d = T.dist[h, v]
            s += town * T.vp_hex[v] / (1.0 + d)
            if d == 0 and S.occ[GERMAN, v] == 0:
                s += town * T.vp_hex[v] * 2.0
    dg = nearest_unit(S, T, GERMAN, h)
    s -= params[P_SCREEN] * 0.3 * dg
    # Close the pocket from the west and south: between the Germans and their C&C edges.
    if dg <= 2 and S.cc[h] == 1:
        s += params[P_SCREEN]
    if S.supply[h] == 1:
        s += 1.0
    if T.u_class[u] == ARTILLERY:
        partner = False
        for v in range(T.u_side.shape[0]):
            if v != u and S.u_hex[v] == h and T.u_side[v] == SOVIET and T.u_class[v] != ARTILLERY:
                partner = True
        if not partner:
            s -= 6.0       # 13.2: artillery alone is easy prey
    if (T.u_flags[u] & F_CORPS) != 0 and S.g[G_TURN] >= params[P_EXIT_TURN] and S.g[G_EXITS] < T.k[K_EXIT_MAX]:
        s -= 2.0 * T.exit_dist[h]
    return s


@njit(cache=True)
def german_hex_value(S, T, h: int, u: int, params) -> float:
    s = 0.0
    if T.u_entry[u] > 0:
        head = pocket_head(S, T)
        if head >= 0:
            s -= 1.5 * params[P_WEST] * T.dist[h, head]    # the relief drives to meet the pocket
    else:
        s -= params[P_WEST] * west_distance(T, h)
    if T.vp_hex[h] > 0:
        near = nearest_unit(S, T, SOVIET, h)
        if near <= 3:
            s += params[P_TOWN] * T.vp_hex[h] * 0.5           # hold what is threatened
    if S.cc[h] == 1:
        s += 1.0
    return s


@njit(cache=True)
def best_option(kind: int, opts, n: int, S, T, side: int, params) -> int:
    best = 0
    best_score = NEG
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
            h = opts[i, 0]
            u = opts[i, 2]
            if h < 0:          # 4.1: an exit scores for good, up to the four that count
                score = 1.0e6 if S.g[G_EXITS] < T.k[K_EXIT_MAX] else -1.0e6
            elif side == SOVIET:
                score = soviet_hex_value(S, T, h, u, params)
            else:
                score = german_hex_value(S, T, h, u, params)
            score -= 0.001 * opts[i, 1]
        elif kind == ATTACK:
            if opts[i, 0] < 0:
                score = 0.0
            elif opts[i, 1] == 1:   # a probe (13.6): worth it westward or onto a town
                u = opts[i, 2]
                frm = S.u_hex[u]
                gain = west_distance(T, frm) - west_distance(T, opts[i, 0])
                score = -0.5 + gain + T.vp_hex[opts[i, 0]]
                if T.u_entry[u] > 0:
                    score = -1.0
            else:
                need = params[P_SOV_MIN_COL] if side == SOVIET else params[P_GER_MIN_COL]
                score = opts[i, 2] - need + 0.5 + 0.3 * T.vp_hex[opts[i, 0]]
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
                score = -west_distance(T, h) - 3.0 * opts[i, 2] + 2.0 * S.cc[h]
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
                gain = west_distance(T, opts[i, 2]) - west_distance(T, opts[i, 1])
                score = gain + T.vp_hex[opts[i, 1]] - 0.5 + opts[i, 3] * 0.01
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
