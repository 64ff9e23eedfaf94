"""The floor of a game's cost: only the work no implementation of the rules can skip.

In every player-turn of a real game (the situation's default players, its event log read back
by replay_frames.player_turns), every unit of the phasing side that may fire scans the enemy
hexes for targets in range and in line of sight (the LOS table), and every unit that may move
and did not fire (PB-MOVE-2) searches where it can move (the engine's own search,
`movement.reachable_bits`), from where it stands at the start of the player-turn or from its
entry hex.  No policy, no dice, no event log, no statistics: a real game does this and more
(choosing, resolving, logging), so `engine time / floor time` says how much the rest costs; it
is a yardstick for the benchmark (`balance bench`), not a game.

The positions are the games' own (issue 22, round 14): the floor before it left every unit
where the set-up put it for the whole game (pb-04: 60 units in its 2 entry hexes, all ten
turns, no unit ever lost or dispersed), searches repeated from the same few hexes that cost
less than the engine's from where units really stand, so the engine read 9-11 floors while
its own searches were a quarter of its time (docs/performance.md).
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

RECORDED_GAMES = 10   # real games whose player-turns the floor replays (cycled)


@njit(cache=True)
def floor_game(utype, side, phasing, at, fires, moves, ut, mt, mv, cost, prev):
    """One game's unavoidable work; returns a checksum (targets found plus hexes reached) so
    nothing is optimised away.  Player-turn k: side `phasing[k]` moves, unit u stands in
    `at[k, u]` (-1: not on the map), `fires[k, u]` whether it scans for targets, `moves[k, u]`
    whether it searches."""
    n_hex = mt.neighbours.shape[0]
    n_units = utype.shape[0]
    # The search's per-hex flags (movement.HEX_*): every road usable and clear, enemy units.
    bits = np.empty(n_hex, dtype=np.uint8)
    scratch = np.empty(2 * (6 * n_hex + 1) + 2 * (max(ut.movement.max(), 0) + 1), dtype=np.int32)
    reached = np.empty((n_hex + 63) // 64, dtype=np.uint64)
    enemy_hexes = np.empty(n_units, dtype=np.int64)
    total = 0
    for k in range(phasing.shape[0]):
        s = phasing[k]
        hexes = at[k]
        # Per-hex inputs of the search and the enemy's hexes, once per player-turn.
        bits[:] = HEX_ROAD_USABLE | HEX_ROAD_CLEAR
        n_enemy = 0
        for v in range(n_units):
            if side[v] != s and hexes[v] >= 0 and (bits[hexes[v]] & HEX_ENEMY) == 0:
                bits[hexes[v]] |= HEX_ENEMY
                enemy_hexes[n_enemy] = hexes[v]
                n_enemy += 1
        for u in range(n_units):
            t = utype[u]
            a = hexes[u]
            if fires[k, u]:
                for j in range(n_enemy):
                    h = enemy_hexes[j]
                    if mt.dist[a, h] <= ut.range[t] and (mt.dist[a, h] <= 1 or mt.los[a, h] != 0):
                        total += 1
            if moves[k, u]:
                total += reachable_bits(a, ut.movement[t], mv.side_step[ut.mclass[t]], True, mv.road_cost,
                                        mv.swamp_stack_cost, mt.neighbours, bits, MOVE_START_CLOSED,
                                        MOVE_CLOSED, MOVE_STOP, True, cost, prev, scratch, reached)
    return total


def floor_turns(t, rec) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`floor_game`'s phasing, at, fires and moves for the game `rec` (replay.GameRecord) of
    situation `t`: its positional counters (mines, blocks, forts) stand nowhere; passengers
    aboard are not on the map (they neither fire nor move on their own, PB-TRANS)."""
    from simulator.rulesets.panzerblitz.replay_frames import player_turns

    ut = t.unit_t
    utype, side = rec.state.utype, rec.state.side
    piece = ~ut.positional[utype]
    armed = (ut.attack[utype] > 0) & (ut.weapon[utype] >= 0)
    mobile = (ut.mclass[utype] >= 0) & (ut.movement[utype] > 0)
    turns = player_turns(rec)
    n = utype.shape[0]
    phasing = np.array([p.side for p in turns], dtype=np.int64)
    at = np.full((len(turns), n), -1, dtype=np.int64)
    fires = np.zeros((len(turns), n), dtype=np.bool_)
    moves = np.zeros((len(turns), n), dtype=np.bool_)
    for k, p in enumerate(turns):
        for u, h in p.start.items():
            at[k, u] = h
        ready = (at[k] >= 0) & (side == p.side) & piece    # on the map at the start, the phasing side's
        ready[list(p.start_dispersed)] = False              # PB-MOVE-2, PB-CBT-4: dispersed units neither fire nor move
        fires[k] = ready & armed
        entering = np.zeros(n, dtype=np.bool_)
        for u, h in p.entered.items():
            at[k, u] = h
            entering[u] = True
        moving = ready | (entering & piece)
        moving[list(p.fired)] = False                       # PB-MOVE-2: a unit that fired does not move
        moves[k] = moving & mobile
        at[k, ~piece] = -1
    return phasing, at, fires, moves


def floor_games_per_s(t, n_games: int, policies: dict, recorded: int = RECORDED_GAMES) -> float:
    """Games per second of the floor probe for this situation (one core, kernel warm), over the
    player-turns of `recorded` real games of `policies` (side name -> spec; seeds 1..recorded),
    cycled for `n_games` floor games."""
    from simulator.rulesets.panzerblitz.replay import play

    order = [policies[s] for s in t.situation.ruleset.sides]
    recs = [play(t, seed, tuple(order)) for seed in range(1, recorded + 1)]
    games = [floor_turns(t, rec) for rec in recs]
    utype, side = recs[0].state.utype, recs[0].state.side   # the situation's units: the same in every game
    n_hex = t.map_t.neighbours.shape[0]
    cost = np.empty(n_hex, dtype=np.int32)
    prev = np.empty(n_hex, dtype=np.int32)

    def one(g) -> int:
        return floor_game(utype, side, *g, t.unit_t, t.map_t, t.move_t, cost, prev)

    one(games[0])  # compile or load from the cache
    t0 = time.perf_counter()
    for i in range(n_games):
        one(games[i % recorded])
    return n_games / (time.perf_counter() - t0)
