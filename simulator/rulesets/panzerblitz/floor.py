"""The floor of a game's cost: only the work no implementation of the rules can skip.

For each game-turn and each side, every unit of the side searches where it can move (the
engine's own search, `movement.reachable_bits`) and every unit that can fire scans the enemy
hexes for targets in range and in line of sight (the LOS table).  No policy, no dice, no
event log, no statistics: units stay where they were set up.  A real game does this and
more (choosing, resolving, logging), so `engine time / floor time` says how much the rest
costs; it is a yardstick for the benchmark (`balance bench`), not a game.
"""

from __future__ import annotations

import time

import numpy as np

from simulator.jit import njit
from simulator.rulesets.panzerblitz.movement import (
    HEX_ENEMY,
    HEX_ROAD_CLEAR,
    HEX_ROAD_USABLE,
    MOVE_CLOSED,
    MOVE_START_CLOSED,
    MOVE_STOP,
    reachable_bits,
)
from simulator.rulesets.panzerblitz.state import ON_MAP, WAITING


@njit(cache=True)
def floor_game(utype, side, hexes, n_turns, ut, mt, mv, cost, prev):
    """One game's unavoidable searches; returns a checksum so nothing is optimised away."""
    n_hex = mt.neighbours.shape[0]
    n_units = utype.shape[0]
    # The search's per-hex flags (movement.HEX_*): every road usable and clear, enemy units.
    bits = np.empty(n_hex, dtype=np.uint8)
    scratch = np.empty(2 * (6 * n_hex + 1) + 2 * (max(ut.movement.max(), 0) + 1), dtype=np.int32)
    reached = np.empty((n_hex + 63) // 64, dtype=np.uint64)
    enemy_hexes = np.empty(n_units, dtype=np.int64)
    total = 0
    for _turn in range(n_turns):
        for s in range(2):
            # Per-hex inputs of the search and the enemy's hexes, once per player-turn.
            bits[:] = HEX_ROAD_USABLE | HEX_ROAD_CLEAR
            n_enemy = 0
            for v in range(n_units):
                if side[v] != s and hexes[v] >= 0 and (bits[hexes[v]] & HEX_ENEMY) == 0:
                    bits[hexes[v]] |= HEX_ENEMY
                    enemy_hexes[n_enemy] = hexes[v]
                    n_enemy += 1
            for u in range(n_units):
                if side[u] != s or hexes[u] < 0:
                    continue
                t = utype[u]
                a = hexes[u]
                if ut.attack[t] > 0 and ut.weapon[t] >= 0:
                    for k in range(n_enemy):
                        h = enemy_hexes[k]
                        if mt.dist[a, h] <= ut.range[t] and (mt.dist[a, h] <= 1 or mt.los[a, h] != 0):
                            total += 1
                if ut.mclass[t] >= 0 and ut.movement[t] > 0:
                    total += reachable_bits(a, ut.movement[t], mv.side_step[ut.mclass[t]], True, mv.road_cost,
                                            mv.swamp_stack_cost, mt.neighbours, bits, MOVE_START_CLOSED,
                                            MOVE_CLOSED, MOVE_STOP, True, cost, prev, scratch, reached)
    return total


def floor_positions(t, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where the floor's units stand: a random set-up (the engine's), entering units at their
    group's first entry hex, passengers and positional counters left out (hex -1)."""
    from simulator import decisions
    from simulator.rulesets.panzerblitz.combat import seed_dice
    from simulator.rulesets.panzerblitz.game import setup_side
    from simulator.rulesets.panzerblitz.players.spec import parse_policy
    from simulator.rulesets.panzerblitz.replay import players
    from simulator.rulesets.panzerblitz.state import new_state

    sit = t.situation
    sides = sit.ruleset.sides
    st = new_state(t, np.random.default_rng(seed))
    seed_dice(seed)
    first = sides.index(sit.sets_up_first)
    pl = players(t, st, [parse_policy("random")] * 2, decisions.for_play(seed))
    for s in (first, 1 - first):
        setup_side(st, t.unit_t, t.map_t, t.move_t, t.combat_t, t.stack_limit, s, pl)
    hexes = np.where(st.status == ON_MAP, st.hex, -1)
    for u in np.flatnonzero(st.status == WAITING):
        g = st.group[u]
        if st.group_entering[g] and st.group_hex_start[g + 1] > st.group_hex_start[g]:
            hexes[u] = st.group_hexes[st.group_hex_start[g]]
    keep = (st.carried_by < 0) & ~t.unit_t.positional[st.utype]
    hexes = np.where(keep, hexes, -1)
    return st.utype.copy(), st.side.copy(), hexes.astype(np.int64)


def floor_games_per_s(t, n_games: int) -> float:
    """Games per second of the floor probe for this situation (one core, kernel warm)."""
    utype, side, hexes = floor_positions(t)
    n_hex = t.map_t.neighbours.shape[0]
    cost = np.empty(n_hex, dtype=np.int32)
    prev = np.empty(n_hex, dtype=np.int32)
    turns = t.situation.turns

    def one() -> int:
        return floor_game(utype, side, hexes, turns, t.unit_t, t.map_t, t.move_t, cost, prev)

    one()  # compile or load from the cache
    t0 = time.perf_counter()
    for _ in range(n_games):
        one()
    return n_games / (time.perf_counter() - t0)
