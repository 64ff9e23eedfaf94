"""Where a cold start's numba compile time goes, per jitted function and signature.

Plays one game of a situation in a fresh process (default pb-01, heuristic vs heuristic) with
listeners on numba's compiler events, then a few warm games for the compiled speed:

* ``numba:compile`` (fired on a cache miss, around one dispatcher's compile of one signature):
  inclusive time, and self time = inclusive minus the compiles nested in it (a callee is
  compiled while its caller's types are inferred, so it runs inside the caller's event);
* ``numba:run_pass``: self time per compiler pass (type inference, lowering, ...), nested
  compiles excluded;
* ``numba:llvm_lock`` (held around every llvmlite call: parsing, optimising and emitting
  machine code; building the IR text is Python and runs outside it): the LLVM share of each
  compile's self time, the rest being numba's own Python (type inference, lowering to IR);
* the disk cache's ``save_overload`` (run after a compile, inside the caller's compile).

Only cache misses are compiles: run with an empty ``NUMBA_CACHE_DIR`` to see a cold start,
e.g. (``NUMBA_OPT=0`` to compare optimisation levels)::

    NUMBA_CACHE_DIR=$(mktemp -d) .venv/bin/python bench/compile_profile.py pb-01 \\
        [--policies heuristic heuristic] [--warm-games 20] [--top 25] [--json out.json]

Times are wall-clock seconds of this process (other jobs on the machine do count).  The
listeners add a little overhead (a Python call per llvmlite call).  At NUMBA_OPT=0 numba
cannot cache most of these functions ("uses dynamic globals"), so a warm start recompiles.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# isort: off
import simulator  # noqa: E402,F401  (points NUMBA_CACHE_DIR and the cache locator before numba loads)
from numba.core import caching, config  # noqa: E402
from numba.core import event as ev  # noqa: E402
# isort: on

clock = time.perf_counter


class _Frame:
    __slots__ = ("kind", "key", "start", "nested", "llvm")

    def __init__(self, kind: str, key, start: float):
        self.kind, self.key, self.start = kind, key, start
        self.nested = 0.0  # inclusive time of compiles nested in this frame
        self.llvm = 0.0    # llvm_lock time of this frame itself (not of nested compiles)


class CompileProfiler(ev.Listener):
    """One stack of open compiles and passes; times are attributed to the innermost frame."""

    def __init__(self):
        self.stack: list[_Frame] = []
        # (function, signature) -> [compiles, self s, inclusive s, llvm self s, cache-save s]
        self.sigs: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0, 0.0, 0.0, 0.0, 0.0])
        self.passes: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])  # n, self s, llvm s
        self.top_level = 0.0       # sum of outermost compiles' inclusive time
        self.llvm_total = 0.0      # all llvm_lock time seen
        self.llvm_outside = 0.0    # llvm_lock time outside any compile (e.g. cache loads)
        self.cache_save = 0.0
        self._llvm_depth = 0
        self._llvm_t0 = 0.0

    # -- numba:compile and numba:run_pass --------------------------------------------------
    def on_start(self, event):
        if event.kind == "numba:llvm_lock":
            if self._llvm_depth == 0:
                self._llvm_t0 = clock()
            self._llvm_depth += 1
            return
        data = event.data
        if event.kind == "numba:compile":
            disp = data["dispatcher"]
            f = disp.py_func
            key = (f"{f.__module__}.{f.__qualname__}",
                   "(" + ", ".join(str(a) for a in data["args"]) + ")")
            self.stack.append(_Frame("compile", key, clock()))
        else:
            self.stack.append(_Frame("pass", data["name"].split(" [")[0], clock()))

    def on_end(self, event):
        now = clock()
        if event.kind == "numba:llvm_lock":
            self._llvm_depth -= 1
            if self._llvm_depth == 0:
                self._charge_llvm(now - self._llvm_t0)
            return
        fr = self.stack.pop()
        inclusive = now - fr.start
        own = inclusive - fr.nested
        if fr.kind == "compile":
            row = self.sigs[fr.key]
            row[0] += 1
            row[1] += own
            row[2] += inclusive
            row[3] += fr.llvm
            # the compile is nested time for every open frame up to the enclosing compile
            for outer in reversed(self.stack):
                outer.nested += inclusive
                if outer.kind == "compile":
                    break
            else:
                self.top_level += inclusive
        else:
            row = self.passes[fr.key]
            row[0] += 1
            row[1] += own
            row[2] += fr.llvm

    def _charge_llvm(self, dt: float):
        self.llvm_total += dt
        if not self.stack:
            self.llvm_outside += dt
            return
        # the innermost frame, and the innermost compile if that frame is a pass
        self.stack[-1].llvm += dt
        if self.stack[-1].kind == "pass":
            for outer in reversed(self.stack):
                if outer.kind == "compile":
                    outer.llvm += dt
                    break

    def charge_cache_save(self, dt: float, key):
        self.cache_save += dt
        if key in self.sigs:
            self.sigs[key][4] += dt

    # -- summaries ---------------------------------------------------------------------------
    def by_function(self) -> list[dict]:
        funcs: dict[str, dict] = {}
        for (name, sig), (n, own, inc, llvm, save) in self.sigs.items():
            d = funcs.setdefault(name, dict(function=name, signatures=[], compiles=0, self_s=0.0,
                                            inclusive_s=0.0, llvm_s=0.0, cache_save_s=0.0))
            d["signatures"].append(dict(args=sig, self_s=own, inclusive_s=inc, llvm_s=llvm))
            d["compiles"] += n
            d["self_s"] += own
            d["inclusive_s"] += inc
            d["llvm_s"] += llvm
            d["cache_save_s"] += save
        return sorted(funcs.values(), key=lambda d: -d["self_s"])


def _time_cache_saves(prof: CompileProfiler):
    """Wrap the disk cache's save so its time is counted (it runs outside the compile event)."""
    original = caching.Cache.save_overload

    def save_overload(self, sig, data):
        t0 = clock()
        try:
            return original(self, sig, data)
        finally:
            f = self._py_func
            args = sig if isinstance(sig, tuple) else getattr(sig, "args", sig)
            key = (f"{f.__module__}.{f.__qualname__}", "(" + ", ".join(str(a) for a in args) + ")")
            prof.charge_cache_save(clock() - t0, key)

    caching.Cache.save_overload = save_overload


def short_signature(sig: str) -> str:
    """The signature with each named tuple's member types left out: State(array(...), ...) -> State."""
    out, i = [], 0
    while i < len(sig):
        j = i
        while j < len(sig) and (sig[j].isalnum() or sig[j] == "_"):
            j += 1
        name = sig[i:j]
        if name and name[0].isupper() and name not in ("Literal", "UniTuple", "Tuple") \
                and j < len(sig) and sig[j] == "(":
            depth, k = 0, j
            while k < len(sig):
                depth += {"(": 1, ")": -1}.get(sig[k], 0)
                if depth == 0:
                    break
                k += 1
            out.append(name)
            i = k + 1
        elif j > i:
            out.append(name)
            i = j
        else:
            out.append(sig[i])
            i += 1
    return "".join(out)


def _cache_files(path: str) -> int:
    p = Path(path)
    return sum(1 for _ in p.rglob("*.nbi")) if p.exists() else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("situation", nargs="?", default="pb-01")
    ap.add_argument("--policies", nargs=2, default=["heuristic", "heuristic"], metavar="POLICY")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--warm-games", type=int, default=20, help="games timed after the first (0: none)")
    ap.add_argument("--top", type=int, default=25, help="rows of the per-function table")
    ap.add_argument("--json", type=Path, help="write every function, signature and pass here")
    a = ap.parse_args(argv)

    cache_dir = os.environ.get("NUMBA_CACHE_DIR", "")
    print(f"numba cache {cache_dir} ({_cache_files(cache_dir)} index files before the run), "
          f"NUMBA_OPT={config.OPT}")

    prof = CompileProfiler()
    _time_cache_saves(prof)
    phases: dict[str, float] = {}
    with ev.install_listener("numba:compile", prof), ev.install_listener("numba:run_pass", prof), \
            ev.install_listener("numba:llvm_lock", prof):
        t0 = clock()
        from simulator.rulesets.panzerblitz.batch import prepare
        from simulator.rulesets.panzerblitz.replay import play
        from simulator.situation import load_situation
        phases["import"] = clock() - t0
        t1 = clock()
        t = prepare(load_situation(a.situation))
        phases["prepare (tables, LOS, policy tables)"] = clock() - t1
        c_prepare = prof.top_level
        t2 = clock()
        rec = play(t, a.seed, tuple(a.policies))
        phases["first game"] = clock() - t2
        c_game = prof.top_level - c_prepare
        cold = clock() - t0
    compile_total = prof.top_level

    warm_rate = None
    if a.warm_games:
        play(t, a.seed + 1, tuple(a.policies))  # any signature not yet seen
        t3 = clock()
        for s in range(a.warm_games):
            play(t, a.seed + 2 + s, tuple(a.policies))
        warm = clock() - t3
        warm_rate = a.warm_games / warm

    funcs = prof.by_function()
    print()
    print(f"{'function':70s} {'sigs':>4s} {'runs':>4s} {'self s':>8s} {'incl s':>8s} {'llvm s':>8s}")
    for d in funcs[:a.top]:
        print(f"{d['function']:70s} {len(d['signatures']):4d} {d['compiles']:4d} {d['self_s']:8.2f} "
              f"{d['inclusive_s']:8.2f} {d['llvm_s']:8.2f}")
    rest = funcs[a.top:]
    if rest:
        print(f"{f'({len(rest)} more functions)':70s} {sum(len(d['signatures']) for d in rest):4d} "
              f"{sum(d['compiles'] for d in rest):4d} {sum(d['self_s'] for d in rest):8.2f} {'':8s} {sum(d['llvm_s'] for d in rest):8.2f}")

    n_sigs = sum(len(d["signatures"]) for d in funcs)
    self_total = sum(d["self_s"] for d in funcs)
    print()
    print(f"functions compiled {len(funcs)}, signatures {n_sigs}")
    ours = [d for d in funcs if d["function"].startswith(("simulator.", "policies."))]
    print(f"  of which the project's own functions: {len(ours)} functions, "
          f"{sum(len(d['signatures']) for d in ours)} signatures, {sum(d['self_s'] for d in ours):.1f} s self; "
          f"numba/numpy overloads {self_total - sum(d['self_s'] for d in ours):.1f} s self")
    print(f"compile time (outermost compiles, inclusive) {compile_total:8.1f} s  "
          f"(sum of self times {self_total:.1f} s)")
    print(f"  in LLVM (llvm_lock held)                   {prof.llvm_total - prof.llvm_outside:8.1f} s")
    print(f"  numba's Python (typing, lowering, ...)     {compile_total - (prof.llvm_total - prof.llvm_outside):8.1f} s")
    print(f"  disk cache saves                           {prof.cache_save:8.1f} s")
    print(f"cold start {cold:8.1f} s: " + ", ".join(f"{k} {v:.1f} s" for k, v in phases.items()))
    print(f"  compiling: in prepare {c_prepare:.1f} s, in the first game {c_game:.1f} s; "
          f"not compiling {cold - compile_total:.1f} s")
    if warm_rate is not None:
        print(f"warm: {a.warm_games} games in {a.warm_games / warm_rate:.2f} s = {warm_rate:.2f} games/s")
    print(f"first game (seed {a.seed}): {len(rec.events)} events, violation {rec.violation}")

    print()
    print("compiler passes by self time (nested compiles excluded):")
    for name, (n, own, llvm) in sorted(prof.passes.items(), key=lambda kv: -kv[1][1])[:12]:
        print(f"  {name:40s} {n:5d} runs {own:8.1f} s  (llvm {llvm:.1f} s)")

    multi = [d for d in funcs if len(d["signatures"]) > 1]
    if multi:
        print()
        print("functions compiled for more than one signature:")
        for d in multi:
            print(f"  {d['function']}  ({d['self_s']:.1f} s self)")
            for s in d["signatures"]:
                print(f"      {s['self_s']:7.2f} s  {short_signature(s['args'])}")

    if a.json:
        a.json.write_text(json.dumps(dict(
            situation=a.situation, policies=a.policies, numba_opt=config.OPT, cache_dir=cache_dir,
            cold_s=cold, phases=phases, compile_s=compile_total, compile_in_prepare_s=c_prepare,
            compile_in_game_s=c_game, llvm_s=prof.llvm_total - prof.llvm_outside,
            cache_save_s=prof.cache_save, warm_games_per_s=warm_rate, functions=funcs,
            passes={k: dict(runs=v[0], self_s=v[1], llvm_s=v[2]) for k, v in prof.passes.items()},
        ), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
