"""What the heuristic player reads off a situation before play: its goals, as arrays.

The victory conditions (docs/situation-format.md measures) become, for each side, a *goal*
(where its units should go, and whether to go there, hold there, or leave the map by it)
and a *kill weight* (how much destroying enemy units is worth against reaching the goal).
A side whose own measure names no place takes its goal from denying the enemy's measure:
the Russians of Situation 6 count kills, but the German measure is units on board 3, so the
Russians hold board 3.  Everything here is computed once per situation and shared by every
game of a run (the kernels never see the measure dictionaries).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.sparse import csgraph

from simulator.rulesets.panzerblitz.combat import crt_result
from simulator.rulesets.panzerblitz.tables import Tables
from simulator.situation import resolve_static_area
from simulator.soa import struct_of_arrays

# Goal kinds.
NO_GOAL, ADVANCE, DEFEND, EXIT = 0, 1, 2, 3
GOAL_NAMES = {NO_GOAL: "none", ADVANCE: "advance", DEFEND: "defend", EXIT: "exit"}
FAR = 99  # goal distance where a side has no goal

# Die modifiers covered by the expected-damage table, index = modifier + MOD_OFFSET.
MOD_OFFSET = 6

# Rows of `p_result`: the chance of each CRT result (PB-CRT-2): D disperses; DD disperses, or
# eliminates a unit already dispersed; X eliminates.  (The CRT codes are 0 -, 1 D, 2 DD, 3 X.)
P_D, P_DD, P_X = 0, 1, 2

PolicyT = struct_of_arrays("PolicyT", module=__name__, fields=[
    "goal_kind",    # int64[2]
    "goal_dist",    # int64[2, n_hex]: hexes to the nearest goal hex (0 inside; FAR if none)
    "return_dist",  # int64[2, n_hex]: on a round trip (PB-SIT-5), hexes to the final edge once out
    "kill_param",   # int64[2]: index of the side's kill weight in the heuristic's parameters
    "risk_param",   # int64[2]: index of its risk weight (-1: 1), >1 where own losses are what it is scored on
    "unit_value",   # float64[n_types]: worth of a unit in combat (both sides' losses)
    "victory_weight",  # float64[2, n_types]: extra worth of killing a type (measure weights)
    "p_result",     # float64[3, n_columns, 2*MOD_OFFSET+1]: P(D), P(DD), P(X) per odds column, die modifier
    "outlook",      # float64[n_hex]: share of the map a hex sees (hilltops high)
    "min_column",   # int64: the lowest odds column any attack is considered at (1-1 by default)
    "barrier_way",  # float64[2, n_hex]: share of the enemy's cheapest ways to the side's ground through the hex
    "enemy_start_dist",  # int64[2, n_hex]: hexes to the nearest hex the enemy starts in (set-up or entry)
    "way_view",     # float64[2, VIEW_RANGES, n_hex]: share of barrier_way a hex sees within each of VIEW_RANGE_HEXES
    "road_hex",     # bool[n_hex]: a road runs through the hex
    "corridor_width",  # int64[2]: width of the corridor the side must open through the enemy's sight (0: none)
    "hex_line",     # int64[n_hex]: the line (row, or column) of the hex across which such a corridor runs
    "n_lines",      # int64: how many such lines
    "odds_col",     # int8[max_df + 1, width]: odds column (combat.odds_column, -1 below the table) of AF x
                    # on defence df at [df, min(x, width - 1)] (`odds_columns`)
])


def _edge_hexes(t: Tables, edge: str) -> np.ndarray:
    return np.asarray(t.situation.map.edge_hexes(edge), dtype=np.int64)


def _area(t: Tables, m: dict) -> np.ndarray:
    sit = t.situation
    if "area" in m:
        return np.asarray(resolve_static_area(m["area"], sit.map, sit.ruleset, "", ""), dtype=np.int64)
    return np.asarray([sit.map.lookup(h) for h in m.get("hexes", [])], dtype=np.int64)


# The kill and risk weights a measure gives its side are named parameters of the heuristic player
# (players/heuristic.toml): the kill weight is what destroying an enemy unit is worth against
# reaching the goal, the risk weight what its own losses weigh.  None: 1.
KILL_ADVANCE, KILL_DEFEND, KILL_EXIT = "kill_weight_advance", "kill_weight_defend", "kill_weight_exit"
KILL_KILLS, KILL_FEW_LOSSES, KILL_PREVENT = "kill_weight_kills", "kill_weight_few_losses", "kill_weight_prevent"
RISK_FEW_LOSSES, RISK_KILL_RATIO, RISK_LINE = "risk_weight_few_losses", "risk_weight_kill_ratio", "risk_weight_line"


def own_goal(t: Tables, m: dict) -> tuple[int, np.ndarray, str, str | None]:
    """(goal kind, goal hexes, kill-weight parameter, risk-weight parameter or None) from a side's
    own measure."""
    kind = m.get("measure")
    whose = m.get("whose", "own")
    none = np.zeros(0, dtype=np.int64)
    if kind == "ratio":
        k, hexes, kw, rw = own_goal(t, m["numerator"])
        if m["denominator"].get("measure") == "destroyed" and rw is None:
            rw = RISK_KILL_RATIO  # a kill ratio: own losses count as much as kills
        return k, hexes, kw, rw
    if kind == "destroyed":
        return (NO_GOAL, none, KILL_KILLS, None) if whose == "enemy" else (NO_GOAL, none, KILL_FEW_LOSSES, RISK_FEW_LOSSES)
    if kind in ("in_area", "hexes_controlled"):
        return (ADVANCE, _area(t, m), KILL_ADVANCE, None) if whose == "own" else (DEFEND, _area(t, m), KILL_DEFEND, None)
    if kind in ("exited", "round_trip"):
        # a round trip (PB-SIT-5) begins by leaving: `return_dist` guides the way back
        return (EXIT, _edge_hexes(t, m["edge"]), KILL_EXIT, None) if whose == "own" else \
            (DEFEND, _edge_hexes(t, m["edge"]), KILL_DEFEND, None)
    if kind == "not_exited":
        return (DEFEND, _edge_hexes(t, m["edge"]), KILL_DEFEND, None) if whose == "enemy" else \
            (EXIT, _edge_hexes(t, m["edge"]), KILL_EXIT, None)
    if kind == "furthest_advance":
        return ADVANCE, _edge_hexes(t, m["toward"]), KILL_ADVANCE, None
    if kind == "line_of_fire":
        # a chain of watched hexes from one edge to the other: spread along the line between them
        return DEFEND, _midline(t, m["between"], along=True), KILL_DEFEND, RISK_LINE
    if kind == "open_corridor":
        return NO_GOAL, none, KILL_KILLS, None  # clear the enemy's units and sight out of the way
    return NO_GOAL, none, KILL_PREVENT, None    # prevent_enemy: everything comes from denial


def denial_goal(t: Tables, enemy: dict) -> tuple[int, np.ndarray]:
    """The goal that denies the enemy's measure (used where a side's own names no place)."""
    kind = enemy.get("measure")
    whose = enemy.get("whose", "own")
    if kind == "ratio":
        return denial_goal(t, enemy["numerator"])
    if kind in ("in_area", "hexes_controlled"):
        return (DEFEND, _area(t, enemy)) if whose == "own" else (ADVANCE, _area(t, enemy))
    if kind in ("exited", "round_trip"):
        return (DEFEND, _edge_hexes(t, enemy["edge"])) if whose == "own" else (EXIT, _edge_hexes(t, enemy["edge"]))
    if kind == "not_exited":
        # the enemy scores my units that stay on the map: leave it
        return (EXIT, _edge_hexes(t, enemy["edge"])) if whose == "enemy" else (DEFEND, _edge_hexes(t, enemy["edge"]))
    if kind == "furthest_advance":
        # the enemy scores its most advanced unit: hold the line it must reach for its lowest level
        return DEFEND, _advance_line(t, enemy)
    if kind == "open_corridor" and whose == "enemy":
        # the enemy needs a corridor free of my units and sight: watch a line across it
        return DEFEND, _midline(t, enemy["between"], along=False)
    return NO_GOAL, np.zeros(0, dtype=np.int64)


def scores_kills(m: dict) -> bool:
    """A measure that counts enemy units destroyed (alone or as a kill ratio)."""
    if m.get("measure") == "ratio":
        return scores_kills(m["numerator"])
    return m.get("measure") == "destroyed" and m.get("whose", "own") == "enemy"


def start_hexes(t: Tables, si: int) -> np.ndarray:
    """Where side si's units begin: its set-up areas and entry areas."""
    side = t.situation.side(t.situation.ruleset.sides[si])
    hexes = [g.hexes for g in side.groups if len(g.hexes)]
    return np.unique(np.concatenate(hexes)).astype(np.int64) if hexes else np.zeros(0, dtype=np.int64)


def held_ground(t: Tables, si: int, victory_weight: np.ndarray) -> np.ndarray:
    """What a side without a place goal guards with its minefields and blocks: the set-up areas
    of its groups with units the enemy's card weights (Situation 1's command posts, worth five
    kills to the Russians), else of the groups the card pins to a few hexes, else its whole
    start area."""
    side = t.situation.side(t.situation.ruleset.sides[si])
    groups = [g for g in side.groups if not g.entering and len(g.hexes)]
    weighted = [g.hexes for g in groups if any(victory_weight[1 - si, t.units.index(n)] > 0 for n in g.units)]
    pinned = [g.hexes for g in groups if len(g.hexes) <= 3 * max(sum(g.units.values()), 1)]
    for chosen in (weighted, pinned):
        if chosen:
            return np.unique(np.concatenate(chosen)).astype(np.int64)
    return start_hexes(t, si)


def forward_ground(t: Tables, si: int, denied: np.ndarray) -> np.ndarray:
    """The ground a side scored on kills holds to deny the enemy's goal.

    Falling back onto the enemy's goal (the exit edge of Situation 8, board 3 of Situation 6)
    gives up the fight the side is scored on: its set-up ground, forts and mines included,
    is where the enemy must pass.  So it holds its own start area when that lies between the
    enemy and its goal: nearer the enemy's start than the goal is, and nearer the goal than the
    enemy's start is (on average).  Otherwise (Situation 10: the goal, board 3, lies between
    the sides; Situation 12: it sets up on the goal) it holds the goal itself."""
    own, enemy = start_hexes(t, si), start_hexes(t, 1 - si)
    if not len(own) or not len(enemy) or not len(denied) or np.intersect1d(own, denied).size:
        return denied
    dist = t.map_t.dist
    enemy_to_goal = dist[np.ix_(enemy, denied)].min(axis=1).mean()
    enemy_to_own = dist[np.ix_(enemy, own)].min(axis=1).mean()
    own_to_goal = dist[np.ix_(own, denied)].min(axis=1).mean()
    if enemy_to_own < enemy_to_goal and own_to_goal < enemy_to_goal:
        return own
    return denied


def _advance_line(t: Tables, m: dict) -> np.ndarray:
    """The hexes where a furthest_advance measure first reaches its lowest victory level
    (victory.measure_value: toward east a unit in column c scores c + 1, and so on)."""
    gm = t.situation.map
    levels = [v["threshold"] if isinstance(v, dict) else v
              for k, v in m.items() if k in ("marginal", "tactical", "decisive", "victory")]
    thr = int(min(levels)) if levels else 1
    line = {"east": (gm.col, thr - 1), "west": (gm.col, gm.width - thr),
            "south": (gm.row, thr - 1), "north": (gm.row, gm.height - thr)}
    axis, at = line[m["toward"]]
    return np.flatnonzero(axis == at).astype(np.int64)


def _midline(t: Tables, between: list[str], along: bool) -> np.ndarray:
    """The middle line of the map joining the two edges (`along`) or crossing between them."""
    m = t.situation.map
    north_south = set(between) == {"north", "south"}
    by_row = north_south != along  # a line across a north-south axis is a row
    if by_row:
        return np.flatnonzero(m.row == m.height // 2).astype(np.int64)
    return np.flatnonzero(m.col == m.width // 2).astype(np.int64)


def result_probabilities(crt: np.ndarray, lowest_roll: int) -> np.ndarray:
    """P(D), P(DD), P(X) of one attack per odds column and net die modifier (one die, PB-CBT-11)."""
    n_cols = crt.shape[1]
    out = np.zeros((3, n_cols, 2 * MOD_OFFSET + 1))
    for col in range(n_cols):
        for mod in range(-MOD_OFFSET, MOD_OFFSET + 1):
            for roll in range(1, 7):
                r = crt_result(crt, lowest_roll, col, roll + mod)
                if r > 0:
                    out[r - 1, col, mod + MOD_OFFSET] += 1
    return out / 6


def odds_columns(col_attack: np.ndarray, col_defense: np.ndarray, max_df: int) -> np.ndarray:
    """`combat.odds_column` of every AF x against every defence df <= max_df, as a table the
    heuristic's danger reads in one look-up instead of a search over the columns per hex and
    threat (round 10): [df, x] for x below the width, and every larger AF is on the last column
    there (at least every column's threshold, ceil(a * df / d), is below the width).  The same
    integer test as the search: the same columns."""
    ca = col_attack.astype(np.int64)
    cd = col_defense.astype(np.int64)
    dfs = np.arange(max_df + 1, dtype=np.int64)
    width = int((-(-(ca[None, :] * dfs[:, None]) // cd[None, :])).max()) + 1 if len(ca) else 1
    x = np.arange(width, dtype=np.int64)
    ok = ca[None, None, :] * dfs[:, None, None] <= x[None, :, None] * cd[None, None, :]
    cols = np.arange(len(ca), dtype=np.int64)
    out = np.where(ok, cols[None, None, :], -1).max(axis=2, initial=-1)
    out[0, :] = len(ca) - 1  # odds_column: no defence, the last column
    return out.astype(np.int8)


def way_costs(t: Tables) -> sparse.csr_matrix:
    """The map as a graph for a tracked vehicle (the usual attacker): an edge to each neighbour
    at its entry cost, or the road rate along a road (half MF; closed hexes have no edges)."""
    mv, mt = t.movement, t.map_t
    cls = mv.class_index("vehicle") if "vehicle" in mv.classes else 0
    n = mt.neighbours.shape[0]
    rows, cols, costs = [], [], []
    for k in range(6):
        nb = mt.neighbours[:, k]
        ok = (nb >= 0)
        src = np.flatnonzero(ok)
        dst = nb[ok]
        road = (mt.side_features[src, k] & mv.road_bit) != 0
        c = np.where(road, mv.road_cost, mv.enter_cost[dst, cls]).astype(np.float64)
        keep = (c >= 0) & ~mt.closed[dst]
        rows.append(src[keep])
        cols.append(dst[keep])
        costs.append(np.maximum(c[keep], 0.5))
    return sparse.csr_matrix((np.concatenate(costs), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))


def barrier_ways(t: Tables, graph: sparse.csr_matrix, enemy_starts: np.ndarray, ground: np.ndarray,
                 slack: float = 1.1, samples: int = 24) -> np.ndarray:
    """Per hex, the share of the enemy's start hexes (up to `samples` of them, spread out) whose
    cheapest way to `ground` (the side's goal or start area) passes through it within `slack`
    of the cheapest cost: where the enemy must pass, for minefields and blocks."""
    n = graph.shape[0]
    out = np.zeros(n)
    if not len(enemy_starts) or not len(ground):
        return out
    starts = enemy_starts[np.linspace(0, len(enemy_starts) - 1, min(samples, len(enemy_starts))).astype(int)]
    to_ground = csgraph.dijkstra(graph.T, indices=ground, min_only=True)  # cost from each hex to the ground
    from_start = csgraph.dijkstra(graph, indices=starts)
    for i, e in enumerate(starts):
        best = to_ground[e]
        if not np.isfinite(best):
            continue
        out += (from_start[i] + to_ground <= best * slack + 1.0)
    return out / len(starts)


# The ranges (hexes) at which `way_view` is worked out; a gun reads the largest not above its range.
VIEW_RANGE_HEXES = (4, 8, 12, 16, 20)


def ways_in_view(los: np.ndarray, dist: np.ndarray, way: np.ndarray) -> np.ndarray:
    """[r, h]: the share of `way` (per hex) that hex h sees (its own hex included) within
    VIEW_RANGE_HEXES[r] hexes: where a gun that cannot move covers the enemy's ways."""
    total = way.sum()
    out = np.zeros((len(VIEW_RANGE_HEXES), len(way)))
    if total <= 0:
        return out
    seen = (los | np.eye(len(way), dtype=bool)) * way[None, :]
    for r, hexes in enumerate(VIEW_RANGE_HEXES):
        out[r] = np.where(dist <= hexes, seen, 0.0).sum(axis=1) / total
    return out


def build_policy_tables(t: Tables) -> PolicyT:
    sit = t.situation
    sides = sit.ruleset.sides
    n_hex = sit.map.n_hexes
    dist = t.map_t.dist
    goal_kind = np.zeros(2, dtype=np.int64)
    goal_dist = np.full((2, n_hex), FAR, dtype=np.int64)
    return_dist = np.full((2, n_hex), FAR, dtype=np.int64)
    from simulator.rulesets.panzerblitz.players.heuristic import (
        PARAM_NAMES,  # (heuristic imports this module)
    )

    kill_param = np.zeros(2, dtype=np.int64)
    risk_param = np.full(2, -1, dtype=np.int64)
    victory_weight = np.zeros((2, len(t.units.names)))
    measures = {sides.index(s.name): s.victory for s in sit.sides}
    for si, m in measures.items():
        kind, hexes, kw, rw = own_goal(t, m)
        if kind == NO_GOAL:
            kind, hexes = denial_goal(t, measures[1 - si])
            if kind == DEFEND and (scores_kills(m) or m.get("measure") == "prevent_enemy"):
                hexes = forward_ground(t, si, hexes)
        goal_kind[si] = kind
        kill_param[si] = PARAM_NAMES.index(kw)
        risk_param[si] = PARAM_NAMES.index(rw) if rw else -1
        if len(hexes):
            goal_dist[si] = dist[:, hexes].min(axis=1)
        if m.get("measure") == "round_trip" and m.get("return_leg", True) and m.get("whose", "own") == "own":
            return_dist[si] = dist[:, _edge_hexes(t, m["final_edge"])].min(axis=1)
        for name, w in _weights(m).items():
            victory_weight[si, t.units.index(name)] = w - 1.0
    u = t.unit_t
    strength = (u.attack + u.defense).astype(np.float64)
    counted = u.victory_count
    mean = strength[counted].mean() if counted.any() else 1.0
    # A unit's worth: one victory point plus its share of combat power.
    unit_value = np.where(counted, 0.5 + 0.5 * strength / max(mean, 1.0), 0.0)
    los = t.map_t.los
    view = los.sum(axis=1) / max(n_hex, 1)
    # Where each side's minefields and blocks go: across the enemy's ways to its goal (or, with
    # no place goal, to its start area).
    graph = way_costs(t)
    barrier_way = np.zeros((2, n_hex))
    enemy_start_dist = np.full((2, n_hex), FAR, dtype=np.int64)
    for si in range(2):
        enemy = start_hexes(t, 1 - si)
        ground = np.flatnonzero(goal_dist[si] == 0) if goal_kind[si] != NO_GOAL else held_ground(t, si, victory_weight)
        if len(enemy):
            enemy_start_dist[si] = dist[:, enemy].min(axis=1)
            barrier_way[si] = barrier_ways(t, graph, enemy, ground.astype(np.int64))
    way_view = np.stack([ways_in_view(los.astype(bool), dist, barrier_way[si]) for si in range(2)])
    road_hex = (t.map_t.side_features & t.movement.road_bit).any(axis=1)
    # PB-SIT-3/11: a side that needs a corridor free of enemy units and sight between two edges
    # picks, each turn, the band of lines along it that the fewest enemy units watch.
    corridor_width = np.zeros(2, dtype=np.int64)
    hex_line = np.zeros(n_hex, dtype=np.int64)
    for si, m in measures.items():
        if m.get("measure") == "open_corridor" and m.get("whose", "own") == "enemy":
            corridor_width[si] = int(m.get("width", 1))
            across_rows = set(m["between"]) == {"west", "east"}  # a west-east corridor is a band of rows
            hex_line = (sit.map.row if across_rows else sit.map.col).astype(np.int64)
    n_lines = int(hex_line.max()) + 1
    return PolicyT(goal_kind, goal_dist, return_dist, kill_param, risk_param, unit_value, victory_weight,
                   result_probabilities(t.combat_t.crt, t.combat_t.lowest_roll), view.astype(np.float64),
                   int(t.combat.column("1-1")) if "1-1" in t.combat.column_names else 0,
                   barrier_way, enemy_start_dist, way_view, road_hex, corridor_width, hex_line, n_lines,
                   odds_columns(t.combat_t.col_attack, t.combat_t.col_defense, max(int(u.defense.max()), 1)))


def _weights(m: dict) -> dict:
    out = dict(m.get("weights", {}))
    for key in ("numerator", "denominator"):
        if isinstance(m.get(key), dict) and m[key].get("whose") == "enemy":
            out.update(m[key].get("weights", {}))
    return out


def describe_goals(t: Tables, pt: PolicyT, params: np.ndarray | None = None) -> dict[str, str]:
    """One line per side, for reports: what the heuristic player plays for (with `params`, one
    side's parameter vector, or the defaults)."""
    if params is None:
        from simulator.rulesets.panzerblitz.players.spec import parse_policy

        params = parse_policy("heuristic").vector()
    sides = t.situation.ruleset.sides
    out = {}
    for si, s in enumerate(sides):
        kind = GOAL_NAMES[int(pt.goal_kind[si])]
        n_goal = int((pt.goal_dist[si] == 0).sum())
        kw = params[pt.kill_param[si]]
        rw = params[pt.risk_param[si]] if pt.risk_param[si] >= 0 else 1.0
        out[s] = f"{kind} ({n_goal} goal hexes), kill weight {kw:g}, risk weight {rw:g}"
    return out
