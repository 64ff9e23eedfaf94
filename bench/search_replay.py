"""The movement search (`movement.reachable`) timed on the very searches real games make.

`capture`: copies a tree's `simulator/` (and `situations/`) into a scratch folder, wraps its
`reachable` so that every call hands its arguments and results to Python (numba's objmode),
plays heuristic games there (a numba cache of its own: the first run compiles, a few
minutes) and saves the searches to an .npz file.  Only a tree before round 10 (3e1339a and
earlier) can be captured: there the game searched through `reachable`; since then it calls
`reachable_bits` on the movement view's packed flags, and `reachable` is the tests' Python entry.

`time`: replays the saved searches through this tree's `reachable` (whatever is on PYTHONPATH)
in one compiled loop, checks every cost and path against the capture, and prints the CPU time a
search (best of --repeat).  `--evict KB` writes that much of a scratch array between searches,
so each search starts with the caches in about the state a game leaves them (the heuristic's
map-sized fields run between two moves).

    .venv/bin/python bench/search_replay.py capture pb-04 --games 4 --out /tmp/pb04-searches.npz
    PYTHONPATH=<tree> .venv/bin/python bench/search_replay.py time /tmp/pb04-searches.npz [--evict 2048]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

_WRAP = '''

from numba import objmode as _objmode

CAPTURED = []


def _record(*args):
    CAPTURED.append(tuple(a.copy() if hasattr(a, "copy") else a for a in args))


@njit(cache=True)
def reachable(start, mf_half, side_cost, road_side, road_rate, road_cost, swamp_stack_cost, neighbours,
              road_usable, road_clear, swamp_stack, enemy, stop_here, block, cost_out, prev_out):
    r = _reachable_inner(start, mf_half, side_cost, road_side, road_rate, road_cost, swamp_stack_cost, neighbours,
                         road_usable, road_clear, swamp_stack, enemy, stop_here, block, cost_out, prev_out)
    with _objmode():
        _record(start, mf_half, side_cost, road_side, road_rate, road_cost, swamp_stack_cost, road_usable,
                road_clear, swamp_stack, enemy, stop_here, block, cost_out, prev_out, r)
    return r
'''

FIELDS = ("start", "mf_half", "side_cost", "road_side", "road_rate", "road_cost", "swamp_stack_cost",
          "road_usable", "road_clear", "swamp_stack", "enemy", "stop_here", "block", "cost", "prev", "reached")


def capture(sid: str, games: int, out: Path, tree: Path) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="search-capture-"))
    for part in ("simulator", "situations", "policies", "pyproject.toml"):
        src = tree / part
        if src.is_dir():
            shutil.copytree(src, scratch / part, ignore=shutil.ignore_patterns("__pycache__"))
        elif src.exists():
            shutil.copy(src, scratch / part)
    mv = scratch / "simulator/rulesets/panzerblitz/movement.py"
    text = mv.read_text()
    text, k = re.subn(r"@njit\(cache=True\)\ndef reachable\(", "@njit(cache=True)\ndef _reachable_inner(", text)
    assert k == 1, "no compiled reachable in this tree: capture a tree before round 10 (the module docstring)"
    mv.write_text(text + _WRAP)
    # numba's objmode needs the entry points the project's deferred emission leaves out (simulator/jit.py)
    jit = scratch / "simulator/jit.py"
    text, k = re.subn(r"^_DEFER_ALLOWED = \(", "_DEFER_ALLOWED = False and (", jit.read_text(), flags=re.M)
    assert k == 1, "jit.py's _DEFER_ALLOWED not found"
    jit.write_text(text)
    env = dict(os.environ, PYTHONPATH=str(scratch), XDG_CACHE_HOME=str(Path(tempfile.gettempdir()) / "search-capture.cache"))
    code = f"""
import numpy as np
from simulator import registry
from simulator.situation import load_situation
from simulator.rulesets.panzerblitz.batch import play_games, prepare
from simulator.rulesets.panzerblitz import movement
sit = load_situation({sid!r})
t = prepare(sit)
play_games(t, list(range(1, {games} + 1)), registry.ruleset(sit.ruleset.name).players.parse(None, sit.side_names))
c = movement.CAPTURED
cols = list(zip(*c))
names = {FIELDS!r}
kw = {{}}
for name, col in zip(names, cols):
    if name in ("side_cost", "road_side"):
        # a few distinct tables (one per movement class, and the assault costs): stored once each
        uniq, index = [], []
        for a in col:
            for j, b in enumerate(uniq):
                if a.shape == b.shape and (a == b).all():
                    index.append(j)
                    break
            else:
                index.append(len(uniq))
                uniq.append(a)
        kw[name + "_tables"] = np.stack(uniq)
        kw[name + "_index"] = np.array(index)
    elif isinstance(col[0], np.ndarray):
        kw[name] = np.stack(col)
    else:
        kw[name] = np.array(col)
kw["neighbours"] = t.map_t.neighbours
np.savez_compressed({str(out)!r}, **kw)
print(len(c), "searches of", {games}, "games saved to", {str(out)!r})
"""
    subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=scratch)
    shutil.rmtree(scratch)


def time_searches(path: Path, repeat: int, evict_kb: int) -> None:
    from simulator.jit import njit
    from simulator.rulesets.panzerblitz import movement

    d = np.load(path)
    n = len(d["start"])
    nb = d["neighbours"]
    n_hex = nb.shape[0]
    cost = np.empty((n, n_hex), dtype=np.int32)
    prev = np.empty((n, n_hex), dtype=np.int32)
    scratch = np.zeros(max(1, evict_kb * 128), dtype=np.int64)
    words = evict_kb * 128
    common = (d["start"].astype(np.int64), d["mf_half"].astype(np.int64), d["road_rate"].astype(np.bool_),
              d["road_cost"].astype(np.int64), d["swamp_stack_cost"].astype(np.int64), nb)
    if hasattr(movement, "reachable_bits"):
        # the packed search (round 10): its inputs packed here, outside the clock, as the game keeps them
        m = movement
        reachable_bits = m.reachable_bits
        # one packed table per (side cost table, road side table) pair the searches used
        pairs = sorted(set(zip(d["side_cost_index"].tolist(), d["road_side_index"].tolist(), strict=True)))
        steps = np.stack([m.packed_steps(d["side_cost_tables"][i][None], d["road_side_tables"][j], nb)[0]
                          for i, j in pairs])
        step_index = np.array([pairs.index(p) for p in zip(d["side_cost_index"].tolist(),
                                                           d["road_side_index"].tolist(), strict=True)])
        bits = np.zeros((n, n_hex), dtype=np.uint8)
        for name, bit in (("enemy", m.HEX_ENEMY), ("block", m.HEX_BLOCK), ("road_usable", m.HEX_ROAD_USABLE),
                          ("road_clear", m.HEX_ROAD_CLEAR), ("swamp_stack", m.HEX_SWAMP_STACK),
                          ("stop_here", m.HEX_STOP_HERE)):
            bits |= np.where(d[name], bit, 0).astype(np.uint8)
        work = m.search_scratch(n_hex, int(d["mf_half"].max()))

        import inspect
        if len(inspect.signature(reachable_bits.py_func).parameters) == 16:  # the reached bits (round 12)
            reached = np.zeros((n_hex + 63) // 64, dtype=np.uint64)

            @njit()
            def search(start, mf, step, rate, rc, sc, nb, bits, closed_start, closed, stop, one, cost, prev, work):
                return reachable_bits(start, mf, step, rate, rc, sc, nb, bits, closed_start, closed, stop, one, cost,
                                      prev, work, reached)
        else:
            search = reachable_bits

        @njit()
        def replay(starts, mfs, st_t, st_i, rates, road_cost, swamp_cost, nb, bits, cost, prev, work, scratch,
                   evict_words):
            total = 0
            for i in range(starts.shape[0]):
                for k in range(evict_words):
                    scratch[k] += 1
                total += search(starts[i], mfs[i], st_t[st_i[i]], rates[i], road_cost[i], swamp_cost[i], nb,
                                bits[i], m.MOVE_START_CLOSED, m.MOVE_CLOSED, m.MOVE_STOP, True, cost[i], prev[i],
                                work)
            return total

        s0, m0, rates, rc, sc, _ = common
        args = (s0, m0, steps, step_index, rates, rc, sc, nb, bits, cost, prev, work, scratch)
        kind = "reachable_bits"
    else:
        reachable = movement.reachable

        @njit()
        def replay(starts, mfs, sc_t, sc_i, rs_t, rs_i, rates, road_cost, swamp_cost, nb, ru, rc, ss, en, sh, bl,
                   cost, prev, scratch, evict_words):
            total = 0
            for i in range(starts.shape[0]):
                for k in range(evict_words):
                    scratch[k] += 1
                total += reachable(starts[i], mfs[i], sc_t[sc_i[i]], rs_t[rs_i[i]], rates[i], road_cost[i],
                                   swamp_cost[i], nb, ru[i], rc[i], ss[i], en[i], sh[i], bl[i], cost[i], prev[i])
            return total

        s0, m0, rates, rc, sc, _ = common
        args = (s0, m0, d["side_cost_tables"], d["side_cost_index"], d["road_side_tables"], d["road_side_index"],
                rates, rc, sc, nb, d["road_usable"], d["road_clear"], d["swamp_stack"], d["enemy"], d["stop_here"],
                d["block"], cost, prev, scratch)
        kind = "reachable"
    total = replay(*args, words)  # compiles
    assert (cost == d["cost"]).all() and (prev == d["prev"]).all(), "a search differs from the capture"
    assert total == d["reached"].sum(), "a search reached another number of hexes"
    best = []
    for _ in range(repeat):
        c0 = time.process_time()
        replay(*args, words)
        best.append(time.process_time() - c0)
    evict_only = 0.0
    if evict_kb:
        e = []
        for _ in range(repeat):
            c0 = time.process_time()
            _evict_kernel(scratch, words, n)
            e.append(time.process_time() - c0)
        evict_only = min(e)
    tb = min(best)
    print(f"{path.name} ({kind}): {n} searches, mean mf_half {d['mf_half'].mean():.1f}, mean reached "
          f"{d['reached'].mean():.1f} of {n_hex}; best of {repeat}: {(tb - evict_only) / n * 1e6:.2f} us a search"
          + (f" ({evict_kb} KB written between searches, their {evict_only / n * 1e6:.2f} us left out)"
             if evict_kb else "") + f"; load {os.getloadavg()[0]:.1f}", flush=True)


def _make_evict():
    from simulator.jit import njit

    @njit()
    def k(scratch, words, n):
        for _ in range(n):
            for j in range(words):
                scratch[j] += 1
    return k


_evict_kernel = None


def main(argv: list[str] | None = None) -> None:
    global _evict_kernel
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("capture")
    c.add_argument("situation")
    c.add_argument("--games", type=int, default=4)
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--tree", type=Path, default=ROOT)
    tm = sub.add_parser("time")
    tm.add_argument("npz", type=Path)
    tm.add_argument("--repeat", type=int, default=5)
    tm.add_argument("--evict", type=int, default=0, help="KB written between two searches")
    a = ap.parse_args(argv)
    if a.cmd == "capture":
        capture(a.situation, a.games, a.out.resolve(), a.tree.resolve())
    else:
        _evict_kernel = _make_evict()
        _evict_kernel(np.zeros(1, dtype=np.int64), 1, 1)
        time_searches(a.npz, a.repeat, a.evict)


if __name__ == "__main__":
    main()
