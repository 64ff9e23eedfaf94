"""A cold start's timeline over its two compiling processes (the process and its compile helper).

Runs ``python -m simulator.bench _first SITUATION`` in TREE (default: this checkout) with empty
numba and LOS caches, tracing each process through bench/_cold_trace/sitecustomize.py: every
top-level kernel compile or cache load (start, end, CPU-s), every wait longer than 50 ms for
another process's compile lock, each process's CPU-s.  Prints per process its kernels in order,
the CPU-s and the estimate of an idle two-core machine's wall:

    serial (this process's CPU before the helper starts) + max(the rest of its CPU, the helper's CPU)

(each process on its own core; the waits are where the two lists meet), and the same counting this
process's last wait for a job the helper holds: serial + max(the rest of its CPU, the helper's CPU
+ its CPU after that wait).  Several trees are
alternated run by run (``--tree A --tree B --runs 2``: A B A B), the way A/B pairs are measured
on a shared machine; the load average is printed with each run.

    .venv/bin/python bench/cold_timeline.py [pb-04] [--tree PATH ...] [--runs N] [--keep DIR]
        [--env NAME=VALUE ...] [--json F]

``--warm N`` times N warm starts after each cold one (same caches, no trace: wall and CPU-s);
``--keep DIR`` keeps each run's numba cache (DIR/run-N) for a look at what was saved.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def run_once(tree: Path, sid: str, extra_env: dict, keep: Path | None, warm: int = 0) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="cold-"))
    numba_cache = keep if keep is not None else tmp / "numba"
    trace = tmp / "trace.jsonl"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(numba_cache), BALANCE_CACHE_DIR=str(tmp / "data"),
               BALANCE_COLD_TRACE=str(trace), PYTHONPATH=f"{HERE / '_cold_trace'}:{tree}", **extra_env)
    env.pop("NUMBA_DISABLE_JIT", None)
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    subprocess.run([sys.executable, "-m", "simulator.bench", "_first", sid], cwd=tree, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    wall = time.time() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    recs = [json.loads(line) for line in trace.read_text().splitlines()]
    warm_runs = []
    for _ in range(warm):  # the same again on the caches the cold run filled, not traced
        env.pop("BALANCE_COLD_TRACE", None)
        env["PYTHONPATH"] = str(tree)
        r0, w0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.time()
        subprocess.run([sys.executable, "-m", "simulator.bench", "_first", sid], cwd=tree, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        warm_runs.append((time.time() - w0, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime))
    shutil.rmtree(tmp, ignore_errors=True)
    procs: dict[int, dict] = {}
    for r in recs:
        p = procs.setdefault(r["pid"], {"kernels": [], "waits": []})
        if r["ev"] == "start":
            p["t_start"] = r["t"]
        elif r["ev"] == "end":
            p["t_end"], p["cpu"] = r["t"], r["cpu"]
        elif r["ev"] == "kernel":
            p["kernels"].append({"name": r["name"], "t0": r["t0"] - t0, "t1": r["t"] - t0,
                                 "cpu": r["cpu"] - r["cpu0"], "compiled": r["compiled"]})
        elif r["ev"] == "wait":
            p["waits"].append({"name": r["name"], "t0": r["t0"] - t0, "s": r["t"] - r["t0"], "depth": r["depth"],
                               "cpu": r["cpu"]})
    main_pid = min(procs, key=lambda k: procs[k].get("t_start", 1e18))
    main = procs[main_pid]
    helpers = [p for k, p in procs.items() if k != main_pid]
    helper = helpers[0] if helpers else None
    # This process's CPU before the helper started: the CPU reading of its first record after it.
    serial = main.get("cpu", 0.0)
    if helper is not None:
        hs = helper["t_start"]
        later = [r for r in recs if r["pid"] == main_pid and r["t"] >= hs]
        earlier = [r for r in recs if r["pid"] == main_pid and r["t"] < hs]
        serial = earlier[-1]["cpu"] if earlier else 0.0
        if later and earlier:  # interpolate to the helper's start
            a, b = earlier[-1], later[0]
            serial = a["cpu"] + (b["cpu"] - a["cpu"]) * (hs - a["t"]) / max(b["t"] - a["t"], 1e-9)
    main_cpu = main.get("cpu", 0.0)
    helper_cpu = helper.get("cpu", 0.0) if helper else 0.0
    est = serial + max(main_cpu - serial, helper_cpu)
    # The same, counting a last wait of this process for a job the helper holds (its end then waits
    # for the helper's): the helper's CPU, then this process's CPU after that wait.
    last = [w for w in main["waits"] if w["depth"] == 0]
    critical = est if not last else serial + max(main_cpu - serial, helper_cpu + main_cpu - last[-1]["cpu"])
    return {"tree": str(tree), "load": load, "wall": wall,
            "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            "main_cpu": main_cpu, "helper_cpu": helper_cpu, "serial_cpu": serial, "idle_estimate": est,
            "idle_critical": critical,
            "warm": warm_runs, "main": main, "helper": helper}


def show(res: dict) -> None:
    print(f"== {res['tree']}: wall {res['wall']:.1f} s, CPU {res['cpu']:.1f} s (process {res['main_cpu']:.1f}, "
          f"helper {res['helper_cpu']:.1f}, serial {res['serial_cpu']:.1f}), load {res['load']:.2f}: "
          f"idle estimate {res['idle_estimate']:.1f} s (with its last wait {res['idle_critical']:.1f} s)", flush=True)
    for wall, cpu in res["warm"]:
        print(f"   warm: wall {wall:.2f} s, CPU {cpu:.2f} s")
    for label, p in (("process", res["main"]), ("helper", res["helper"])):
        if not p:
            continue
        for k in p["kernels"]:
            if k["compiled"] or k["t1"] - k["t0"] > 0.5:
                print(f"   {label:8s} {k['t0']:7.1f} {k['t1']:7.1f} {k['cpu']:6.1f} CPU-s "
                      f"{'compiled' if k['compiled'] else 'loaded  '} {k['name']}")
        for w in p["waits"]:
            print(f"   {label:8s} {w['t0']:7.1f} waited {w['s']:5.1f} s for {w['name']} (depth {w['depth']})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("situation", nargs="?", default="pb-04")
    ap.add_argument("--tree", action="append", type=Path, help="a checkout to run (repeatable; default this one)")
    ap.add_argument("--runs", type=int, default=1, help="rounds of the trees, alternated")
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--keep", type=Path, help="keep each run's numba cache under this folder")
    ap.add_argument("--warm", type=int, default=0, help="warm runs after each cold one (untraced)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    extra = dict(e.split("=", 1) for e in args.env)
    results = []
    n = 0
    for _ in range(args.runs):
        for tree in args.tree or [ROOT]:
            n += 1
            keep = None if args.keep is None else args.keep / f"run-{n}"
            res = run_once(tree.resolve(), args.situation, extra, keep, args.warm)
            show(res)
            results.append(res)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
