"""A/B timer for the heuristic: heuristic games of some cards, CPU time and a hash of each games table.

Run it once per tree (the other tree through PYTHONPATH and its own XDG_CACHE_HOME), alternating:

    python bench/heur_ab.py --games 100 pb-04 pb-10

Prints one line per card: games per CPU-second (time.process_time over the timed batch, after one
untimed warm-up game) and the sha256 of the games table's CSV, which must be the same on both trees.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cards", nargs="+")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    from simulator.bench import heuristic_policies
    from simulator.rulesets.panzerblitz.batch import play_games, prepare
    from simulator.situation import load_situation

    for sid in args.cards:
        sit = load_situation(sid)
        t = prepare(sit)
        policies = heuristic_policies(sit)
        play_games(t, [args.seed + 10_000], policies)  # warm: kernels loaded, not timed
        c0 = time.process_time()
        games, _, _ = play_games(t, list(range(args.seed, args.seed + args.games)), policies)
        cpu = time.process_time() - c0
        digest = hashlib.sha256(games.to_csv(index=False).encode()).hexdigest()[:16]
        load = os.getloadavg()[0]
        print(f"{sid} {args.games / cpu:7.1f} games/CPU-s  cpu {cpu:6.2f}s  load {load:4.1f}  games {digest}"
              f"  tree {os.path.dirname(os.path.dirname(sys.modules['simulator'].__file__))}", flush=True)


if __name__ == "__main__":
    main()
