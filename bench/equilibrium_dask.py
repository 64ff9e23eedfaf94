"""`balance equilibrium` on one card on the process pool and on a Dask LocalCluster (issue 18):
the same results, the wall and CPU times, and how loaded the machine was.

    python bench/equilibrium_dask.py [--situation pb-04] [--configs "workers 1,workers 2,cluster 1,cluster 2"]
                                     [--out bench/equilibrium/dask_scaling.csv]

Each configuration runs `balance equilibrium SITUATION --json` at its defaults in a child process,
one after another, with its own output directory.  Wall time is the child's; CPU time is the
child's and its worker processes' (user + sys, from `resource.getrusage(RUSAGE_CHILDREN)`); the
machine's load is the 1-minute load average sampled every 2 s while it ran (other people's work
included: on a shared machine that is what the times mean).  The script checks every
configuration's cross-table, mixtures, value, population, verdicts and games played are the
same as the first's, and writes one CSV row a configuration.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
SAME = ("table", "mixtures", "value", "population", "verdicts", "games_played", "stop")


def _load() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def run_one(situation: str, config: str, outdir: Path) -> dict:
    kind, n = config.split()
    where = ["--workers", n] if kind == "workers" else ["--cluster", f"local:{n}"]
    cmd = [sys.executable, "-m", "simulator.cli", "equilibrium", situation, "--json", "--out", str(outdir), *where]
    samples: list[float] = []
    done = threading.Event()

    def sample() -> None:
        while not done.wait(2.0):
            samples.append(_load())

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    sampler = threading.Thread(target=sample, daemon=True)
    t0 = time.perf_counter()
    sampler.start()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    done.set()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{config}: balance equilibrium failed:\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"config": config, "result": json.loads(proc.stdout), "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
            "load_mean": round(statistics.mean(samples), 2) if samples else _load(),
            "load_max": round(max(samples), 2) if samples else _load()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--situation", default="pb-04")
    ap.add_argument("--configs", default="workers 1,workers 2,cluster 1,cluster 2")
    ap.add_argument("--out", default=str(ROOT / "bench" / "equilibrium" / "dask_scaling.csv"))
    args = ap.parse_args()
    rows, first = [], None
    with tempfile.TemporaryDirectory() as tmp:
        for k, config in enumerate(args.configs.split(",")):
            r = run_one(args.situation, config.strip(), Path(tmp) / f"eq{k}")
            res = r.pop("result")
            first = first or res
            same = all(res[key] == first[key] for key in SAME)
            rows.append({"situation": args.situation, **r, "games": res["games_played"],
                         "equilibrium_s": res["elapsed_s"], "cpus": os.cpu_count(),
                         "same_as_first": same})
            print(rows[-1], file=sys.stderr, flush=True)
    df = pd.DataFrame(rows)
    df.to_csv(args.out, index=False)
    print(df.to_string(index=False))
    return 0 if df.same_as_first.all() else 1


if __name__ == "__main__":
    raise SystemExit(main())
