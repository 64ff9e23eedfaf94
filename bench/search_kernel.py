"""Per-search timer of the movement search (`movement.reachable_bits`), in a compiled loop.

For each card, the final states of a few heuristic games; for each side, the movement view
(`move_view.open_view`) and, for every piece of the side on the map that moves, the search from
its hex with its whole movement allowance, as a move makes it (`move_view.reach_of`, without the
mover's own road flags).  A compiled loop runs those searches many times over and prints
microseconds a search, hexes reached a search and a checksum of the costs and paths found (the
same on both trees, or a change altered the search):

    python bench/search_kernel.py pb-04 pb-06 pb-12

Run it from either tree (PYTHONPATH and XDG_CACHE_HOME of that tree), alternating.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cards", nargs="+")
    ap.add_argument("--games", type=int, default=12)
    ap.add_argument("--reps", type=int, default=30)
    args = ap.parse_args()

    from simulator.rulesets.panzerblitz import move_view
    from simulator.rulesets.panzerblitz.batch import prepare
    from simulator.rulesets.panzerblitz.movement import (
        MOVE_CLOSED,
        MOVE_START_CLOSED,
        MOVE_STOP,
        reachable_bits,
    )
    from simulator.rulesets.panzerblitz.replay import play
    from simulator.rulesets.panzerblitz.state import ON_MAP
    from simulator.situation import load_situation

    @njit
    def searches(starts, budgets, steps, road_cost, swamp_stack_cost, neighbours, bits, cost, prev, scratch, reached_out,
                 reps):
        check = 0
        reached = 0
        for rep in range(reps):
            for i in range(starts.shape[0]):
                reached += reachable_bits(starts[i], budgets[i], steps[i], True, road_cost, swamp_stack_cost,
                                          neighbours, bits, MOVE_START_CLOSED, MOVE_CLOSED, MOVE_STOP, True, cost,
                                          prev, scratch, reached_out)
                if rep == 0:  # (not timed apart: a pass over the map, the same on both trees)
                    for h in range(cost.shape[0]):
                        check += (h + 1) * cost[h] + prev[h]
        return check, reached

    for sid in args.cards:
        t = prepare(load_situation(sid))
        ut, mt, mv = t.unit_t, t.map_t, t.move_t
        n_hex = t.situation.map.n_hexes
        cpu = 0.0
        n_searches = 0
        n_reached = 0
        check = 0
        for seed in range(args.games):
            st = play(t, seed, ("heuristic", "heuristic")).state
            occ = np.zeros((n_hex, 2), dtype=np.int64)
            for u in range(st.utype.shape[0]):
                if st.status[u] == ON_MAP and st.hex[u] >= 0 and st.carried_by[u] < 0:
                    occ[st.hex[u], st.side[u]] += 1
            for side in (0, 1):
                units = [u for u in range(st.utype.shape[0])
                         if st.status[u] == ON_MAP and st.side[u] == side and st.carried_by[u] < 0
                         and ut.mclass[st.utype[u]] >= 0 and ut.movement[st.utype[u]] > 0]
                if not units:
                    continue
                move_view.open_view(st, ut, mt, side, occ)
                starts = np.array([st.hex[u] for u in units], dtype=np.int64)
                budgets = np.array([ut.movement[st.utype[u]] for u in units], dtype=np.int64)
                steps = np.stack([mv.side_step[ut.mclass[st.utype[u]]] for u in units])
                bits = st.view_bits.copy()
                move_view.close_view(st)
                cost = np.empty(n_hex, dtype=st.search_scratch.dtype)
                prev = np.empty(n_hex, dtype=st.search_scratch.dtype)
                scratch = st.search_scratch.copy()
                args_ = (starts, budgets, steps, mv.road_cost, mv.swamp_stack_cost, mt.neighbours, bits, cost, prev,
                         scratch, st.search_reached.copy())
                searches(*args_, 1)
                c0 = time.process_time()
                c, r = searches(*args_, args.reps)
                cpu += time.process_time() - c0
                n_searches += len(units) * args.reps
                n_reached += r
                check += c
        print(f"{sid} {1e6 * cpu / max(n_searches, 1):6.2f} us/search  {n_reached / max(n_searches, 1):6.1f} "
              f"hexes reached  check {check}", flush=True)


if __name__ == "__main__":
    main()
