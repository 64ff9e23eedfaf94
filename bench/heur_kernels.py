"""Per-call timer of the heuristic's scoring kernels, in a compiled loop over captured positions.

For each card, the final states of a few heuristic games (both sides), each side's fields read
(`enemy_fields`), and for every piece of the side on the map the hexes within its movement
allowance's reach (`by_dist` disc, up to 60 hexes).  A compiled loop then calls `danger_hexes`,
`score_hexes` and `enemy_part` on them, many times over, and prints microseconds a call and a
checksum of what they wrote (the same on both trees, or a change altered the heuristic):

    python bench/heur_kernels.py pb-04 pb-10 pb-12

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
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--reps", type=int, default=200)
    args = ap.parse_args()

    from simulator.rulesets.panzerblitz.batch import prepare
    from simulator.rulesets.panzerblitz.players import heuristic as hp
    from simulator.rulesets.panzerblitz.players.spec import parse_policy
    from simulator.rulesets.panzerblitz.replay import play, policy_tables
    from simulator.rulesets.panzerblitz.state import ON_MAP
    from simulator.situation import load_situation

    danger_hexes, score_hexes, enemy_part = hp.danger_hexes, hp.score_hexes, hp.enemy_part

    @njit
    def time_danger(st, ut, mt, ct, pt, prm, side, units, hexes, counts, fields, nears, dangers, reps):
        total = 0.0
        for _ in range(reps):
            for i in range(units.shape[0]):
                danger_hexes(st, ut, mt, ct, pt, prm, side, units[i], hexes[i], counts[i], fields, nears, dangers)
                for j in range(counts[i]):
                    total += dangers[j] + nears[j]
        return total

    @njit
    def time_score(st, ut, mt, ct, pt, prm, side, units, hexes, counts, occ, fields, out, rng_state, nears,
                   dangers, reps):
        total = 0.0
        for _ in range(reps):
            np.random.seed(1)
            for i in range(units.shape[0]):
                score_hexes(st, ut, mt, ct, pt, prm, side, units[i], hexes[i], counts[i], occ, fields, out,
                            np.random, nears, dangers)
                for j in range(counts[i]):
                    total += out[j]
        return total

    @njit
    def time_enemy(st, ut, mt, ct, pt, prm, side, fields, reps):
        total = 0
        for _ in range(reps):
            enemy_part(st, ut, mt, ct, pt, prm, side, fields)
            total += fields.sum()
        return total

    spec = parse_policy("heuristic:noise=0")
    prm = spec.vector()
    for sid in args.cards:
        t = prepare(load_situation(sid))
        pt = policy_tables(t)
        ut, mt, ct = t.unit_t, t.map_t, t.combat_t
        n_hex = t.situation.map.n_hexes
        acc = {"danger": [0.0, 0, 0.0], "score": [0.0, 0, 0.0], "enemy": [0.0, 0, 0.0]}
        for seed in range(args.games):
            st = play(t, seed, ("heuristic", "heuristic")).state
            occ = np.zeros((n_hex, 2), dtype=np.int64)
            for u in range(st.utype.shape[0]):
                if st.status[u] == ON_MAP and st.hex[u] >= 0:
                    occ[st.hex[u], st.side[u]] += 1
            for side in (0, 1):
                fields = np.zeros((hp.N_FIELDS, n_hex), dtype=np.int64)
                hp.enemy_fields(st, ut, mt, ct, pt, prm, side, fields)
                units = [u for u in range(st.utype.shape[0])
                         if st.status[u] == ON_MAP and st.side[u] == side and st.hex[u] >= 0
                         and st.carried_by[u] < 0 and not ut.positional[st.utype[u]]]
                if not units:
                    continue
                hexes = np.full((len(units), 64), -1, dtype=np.int64)
                counts = np.zeros(len(units), dtype=np.int64)
                for i, u in enumerate(units):
                    h = st.hex[u]
                    r = min(max(int(ut.movement[st.utype[u]]) // 2, 1), mt.within.shape[1] - 1)
                    k = min(int(mt.within[h, r]), 60)
                    hexes[i, :k] = mt.by_dist[h, :k]
                    counts[i] = k
                units_a = np.array(units, dtype=np.int64)
                nears = np.zeros(64, dtype=np.int64)
                dangers = np.zeros(64)
                out = np.zeros(64)
                work = [
                    ("danger", time_danger,
                     (st, ut, mt, ct, pt, prm, side, units_a, hexes, counts, fields, nears, dangers), len(units)),
                    ("score", time_score,
                     (st, ut, mt, ct, pt, prm, side, units_a, hexes, counts, occ, fields, out, None, nears, dangers),
                     len(units)),
                    ("enemy", time_enemy, (st, ut, mt, ct, pt, prm, side, fields.copy()), 1),
                ]
                for name, f, f_args, calls in work:
                    f(*f_args, 1)
                    c0 = time.process_time()
                    check = f(*f_args, args.reps)
                    acc[name][0] += time.process_time() - c0
                    acc[name][1] += calls * args.reps
                    acc[name][2] += float(check)
        print(sid, "  ".join(f"{k} {1e6 * v[0] / max(v[1], 1):6.2f} us/call (check {v[2]:.6g})" for k, v in acc.items()),
              flush=True)


if __name__ == "__main__":
    main()
