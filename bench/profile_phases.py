"""Where a game's time goes: the game's phases timed one by one.

Plays games the way `run_game` does, but calls each compiled phase from Python and times it
(numba kernels cannot be sampled by a Python profiler), in CPU time of this process, so
that other work on the machine does not count.  The phase functions share numba's
random state, so the games are the very games the engine plays: each one's event log is
checked against `play()`'s.  Also times the Python around a game: the state's creation, the
victory evaluation, and the pandas tables of `play_games`.

    .venv/bin/python bench/profile_phases.py pb-04 --games 10 [--policy heuristic]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simulator import decisions  # noqa: E402
from simulator.rulesets.panzerblitz import game as g  # noqa: E402
from simulator.rulesets.panzerblitz.batch import play_games, prepare  # noqa: E402
from simulator.rulesets.panzerblitz.combat import seed_dice  # noqa: E402
from simulator.rulesets.panzerblitz.mines import minefield_attacks
from simulator.rulesets.panzerblitz.players.spec import parse_policy  # noqa: E402
from simulator.rulesets.panzerblitz.recovery import recover
from simulator.rulesets.panzerblitz.replay import play, players  # noqa: E402
from simulator.rulesets.panzerblitz.road_march import end_marches  # noqa: E402
from simulator.rulesets.panzerblitz.state import (  # noqa: E402
    FIRST_SIDE,
    N_EVENTS,
    N_TURNS,
    PHASING,
    TURN,
    new_state,
)
from simulator.rulesets.panzerblitz.victory import evaluate  # noqa: E402
from simulator.situation import load_situation  # noqa: E402


def timed_game(t, seed, specs, clock):
    def tick(name, f, *args):
        t0 = time.process_time()
        f(*args)
        clock[name] += time.process_time() - t0

    sit = t.situation
    sides = sit.ruleset.sides
    ut, mt, mv, ct, limits = t.unit_t, t.map_t, t.move_t, t.combat_t, t.stack_limit
    t0 = time.process_time()
    st = new_state(t, np.random.default_rng(seed))
    first = sides.index(sit.sets_up_first)
    pl = players(t, st, specs, decisions.for_play(seed))
    clock["new_state (Python)"] += time.process_time() - t0
    seed_dice(seed)
    for s in (first, 1 - first):
        tick("set-up", g.setup_side, st, ut, mt, mv, ct, limits, s, pl)
    tick("record_turn", g.record_turn, st, ut, 0)
    for turn in range(1, st.clock[N_TURNS] + 1):
        st.clock[TURN] = turn
        for k in range(2):
            side = (st.clock[FIRST_SIDE] + k) % 2
            st.clock[PHASING] = side
            g.log_event(st, g.EV_TURN, side, 0, 0, 0, 0, 0, 0)
            tick("minefield attacks", minefield_attacks, st, ut, mt, ct, side)
            tick("fire phase", g.fire_phase, st, ut, mt, ct, side, pl)
            tick("movement: vehicles (S4)", g.movement_phase, st, ut, mt, mv, ct, limits, side, True, pl)
            tick("movement: others (S5)", g.movement_phase, st, ut, mt, mv, ct, limits, side, False, pl)
            tick("close assault", g.assault_phase, st, ut, mt, ct, side, pl)
            tick("recover", recover, st, side)
            tick("road march (PB-SIT-7)", end_marches, st)
        tick("record_turn", g.record_turn, st, ut, turn)
    t0 = time.process_time()
    evaluate(st, t)
    clock["victory evaluation (Python)"] += time.process_time() - t0
    return st


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("situation")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--policy", default="heuristic")
    args = ap.parse_args()
    t0 = time.process_time()
    sit = load_situation(args.situation)
    t = prepare(sit)
    prep = time.process_time() - t0
    specs = (parse_policy(args.policy), parse_policy(args.policy))
    timed_game(t, 999, specs, defaultdict(float))  # warm-up: compile or load every kernel
    play(t, 999, specs)
    play_games(t, [999], dict(zip(sit.ruleset.sides, specs, strict=True)))
    clock: dict[str, float] = defaultdict(float)
    seeds = list(range(args.games))
    for seed in seeds:
        st = timed_game(t, seed, specs, clock)
        ref = play(t, seed, specs)
        assert np.array_equal(st.log[: st.clock[N_EVENTS]], ref.events), f"seed {seed}: not the engine's game"
    t1 = time.process_time()
    for seed in seeds:
        play(t, seed, specs)
    t_play = time.process_time() - t1
    t1 = time.process_time()
    play_games(t, seeds, dict(zip(sit.ruleset.sides, specs, strict=True)))
    t_batch = time.process_time() - t1
    phases = sum(clock.values())
    n = args.games
    print(f"{sit.id}, {args.policy} vs {args.policy}, {n} games (same event logs as play()); prepare() {prep:.2f} s")
    print(f"{'phase':<32}{'CPU ms/game':>12}{'share':>8}")
    for name, s in sorted(clock.items(), key=lambda kv: -kv[1]):
        print(f"{name:<32}{1000 * s / n:>12.2f}{s / phases:>8.1%}")
    print(f"{'sum of the phases':<32}{1000 * phases / n:>12.2f}")
    print(f"{'play() (one kernel call a game)':<32}{1000 * t_play / n:>12.2f}")
    print(f"{'play_games() (with the tables)':<32}{1000 * t_batch / n:>12.2f}   "
          f"tables and per-game Python: {1000 * (t_batch - t_play) / n:.2f} ms/game")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
