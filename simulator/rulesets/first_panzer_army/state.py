"""The game state `S` (a struct of arrays, simulator/soa.py) and its construction.

docs/first-panzer-army/engine.md lists the fields.  Scalars of the game (turn, weather, VP
events, counters of the logs) are entries of `S.g`, named G_* below.
"""

from __future__ import annotations

import numpy as np

from simulator.decisions import Decisions, for_record
from simulator.rulesets.first_panzer_army import consts as c
from simulator.rulesets.first_panzer_army.rng import dice_state
from simulator.soa import struct_of_arrays

S = struct_of_arrays("S", module=__name__, fields=[
    "u_hex", "u_steps", "u_attacked", "u_join", "u_moved", "u_return", "u_start",
    "control", "fl_taken", "occ", "zoc", "supply", "cc",
    "kg_hex", "kg_att", "kg_def", "cas", "g", "rng",
    "ev", "decisions", "vp_turn", "steps_turn", "pos_turn", "step_hist",
    "opts", "mp", "prev", "queue", "path", "proll", "mark", "buf", "hx", "work", "pk", "pp",
])

(G_TURN, G_WEATHER, G_SEG, G_SIDE, G_EXIT_VP, G_ELIM_VP, G_N_EV, G_N_DEC, G_OVERSTACK_OK, G_ORDER_SOV,
 G_ORDER_GER, G_VIOLATION, G_DEBUG, G_AD_USED, G_EXITS, G_RIVER_ROLL, G_PHASE, G_JOINING,
 G_KG_SEL, G_AD_SEL, G_PATH_N, G_SPENT, G_BLOCK_HEX, G_BLOCK_DIR, G_STALE_SUPPLY, G_STALE_CC, G_TRACE_WEATHER,
 G_N) = range(28)
N_PARAMS = 17

# Invariant violations found in debug mode (S.g[G_VIOLATION]).
VIOLATIONS = ("", "overstacked at the end of a segment", "opposing units in one hex",
               "a Soviet unit in the no-go area (12.5)", "a unit moved from EZOC to EZOC (7.2)")


def new_state(t, seed: int, pk=(0, 0), pp=None, decisions: Decisions | None = None, debug: bool = False) -> S:
    """A fresh game: `pk` the players' kernel ids per side, `pp` their parameter rows (float64[2, N_PARAMS]),
    `decisions` the players' stream and what is done with the decisions (simulator/decisions.py:
    played, recorded or replayed; recorded unless given)."""
    n_units = t.u_side.shape[0]
    n = t.neighbours.shape[0]
    turns = int(t.k[c.K_TURNS])
    g = np.zeros(G_N, dtype=np.int64)
    g[G_OVERSTACK_OK] = 1      # FPA 3.2(1): the Soviet set-up may overstack until its turn 1 movement ends
    g[G_DEBUG] = int(debug)
    g[G_KG_SEL] = c.ANY_SUPPORT    # outside a combat, the previews count any supporter available
    g[G_AD_SEL] = c.ANY_SUPPORT
    g[G_BLOCK_HEX] = -1        # no hexside barred to the moving unit (OQ-FPA-12 may_turn_back)
    g[G_STALE_SUPPLY] = 1      # the supply and C&C maps are traced on first use (zoc.refresh_lines)
    g[G_STALE_CC] = 1
    g[G_TRACE_WEATHER] = -1
    return S(
        u_hex=np.full(n_units, c.NOT_ENTERED, dtype=np.int32),
        u_steps=t.u_max.astype(np.int8).copy(),
        u_attacked=np.zeros(n_units, dtype=np.int8),
        u_join=np.zeros(n_units, dtype=np.int8),
        u_moved=np.zeros(n_units, dtype=np.int8),
        u_return=np.zeros(n_units, dtype=np.int16),
        u_start=np.full(n_units, -1, dtype=np.int32),
        control=t.start_control.copy(),
        fl_taken=np.zeros(n, dtype=np.uint8),
        occ=np.zeros((2, n), dtype=np.int16),
        zoc=np.zeros((2, n), dtype=np.int16),
        supply=np.zeros(n, dtype=np.uint8),
        cc=np.zeros(n, dtype=np.uint8),
        kg_hex=np.full(int(t.k[c.K_KG_COUNT]), -1, dtype=np.int32),
        kg_att=np.zeros(int(t.k[c.K_KG_COUNT]), dtype=np.int8),
        kg_def=np.zeros(int(t.k[c.K_KG_COUNT]), dtype=np.int8),
        cas=np.zeros(2, dtype=np.int32),
        g=g,
        rng=dice_state(seed),
        ev=np.zeros((c.MAX_EVENTS, c.EV_WIDTH), dtype=np.int32),
        decisions=decisions if decisions is not None else for_record(seed, c.MAX_DECISIONS),
        vp_turn=np.zeros(turns + 1, dtype=np.int32),
        steps_turn=np.zeros((turns + 1, 2), dtype=np.int32),
        pos_turn=np.full((turns + 1, n_units), c.NOT_ENTERED, dtype=np.int32),
        step_hist=np.zeros((turns + 1, n_units), dtype=np.int8),
        opts=np.zeros((c.MAX_OPTIONS, 4), dtype=np.int32),
        mp=np.zeros(n, dtype=np.int32),
        prev=np.zeros(n, dtype=np.int32),
        queue=np.zeros(n * 8 + 16, dtype=np.int32),
        path=np.zeros(n, dtype=np.int32),
        proll=np.zeros(n, dtype=np.int32),
        mark=np.zeros(n, dtype=np.int32),
        buf=np.zeros((4, 64), dtype=np.int32),
        hx=np.zeros((2, n), dtype=np.int32),       # the engine's per-hex scratch (stacking map, KG counts)
        work=np.zeros((4, n), dtype=np.int32),     # the players' scratch (heuristic.py)
        pk=np.asarray(pk, dtype=np.int64),
        pp=(np.asarray(pp, dtype=np.float64) if pp is not None else np.zeros((2, N_PARAMS), dtype=np.float64)),
    )
