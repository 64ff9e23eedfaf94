"""Games per CPU-second of heuristic games, and a hash of their games table: one tree's side of an A/B.

Run it with each tree on PYTHONPATH (and each tree's own numba cache), alternately, under the
same load; the hashes must be the same on both trees (same games), the rates say the speed.

    XDG_CACHE_HOME=... PYTHONPATH=/path/to/tree .venv/bin/python bench/ab_games.py pb-04 pb-10 --games 100

One warm-up game per card is not timed (kernels loaded from the cache).  CPU time of this
process (time.process_time), so other work on the machine counts only through caches and
frequency.  Prints one line a card: card, games, CPU-s, games per CPU-second, the load average,
and the first 16 hex digits of the sha256 of the games table as CSV (and of the turns and
losses tables).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("situations", nargs="+")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1, help="first seed; games use seed .. seed + games - 1")
    a = ap.parse_args(argv)

    import simulator
    from simulator import registry
    from simulator.situation import load_situation
    print(f"# tree {os.path.dirname(os.path.dirname(simulator.__file__))}", flush=True)
    for sid in a.situations:
        sit = load_situation(sid)
        rs = registry.ruleset(sit.ruleset.name)
        from simulator.rulesets.panzerblitz.batch import play_games, prepare

        t = prepare(sit)
        policies = rs.players.parse(None, sit.side_names)
        play_games(t, [a.seed + 10_000], policies)  # warm-up: kernels loaded, not timed
        seeds = list(range(a.seed, a.seed + a.games))
        c0 = time.process_time()
        games, turns, losses = play_games(t, seeds, policies)
        cpu = time.process_time() - c0
        digest = hashlib.sha256(games.to_csv(index=False).encode()).hexdigest()[:16]
        rest = hashlib.sha256((turns.to_csv(index=False) + losses.to_csv(index=False)).encode()).hexdigest()[:16]
        print(f"{sid} games {a.games} cpu {cpu:.2f} s  {a.games / cpu:.1f} games/cpu-s  "
              f"load {os.getloadavg()[0]:.1f}  games-sha {digest}  turns+losses-sha {rest}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
