"""Scale-out overhead (issue 6): the same games on this machine's process pool and on a Dask
LocalCluster, and the cluster's start-up time.

    python bench/dask_overhead.py [--situation pb-04] [--games 40] [--workers 2] [--repeats 3]

Each configuration plays the same seeds; the script checks the tables are identical and prints
one line a configuration with the median wall time (`RunResult.elapsed_s`: pool or cluster
start-up, preparing the situation and playing) and writes them to bench/dask_overhead.csv.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import pandas as pd
from pandas.testing import assert_frame_equal

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simulator.rulesets.panzerblitz.players.spec import parse_side_policies  # noqa: E402
from simulator.runner import run  # noqa: E402
from simulator.situation import load_situation  # noqa: E402


def _nothing() -> None:
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--situation", default="pb-04")
    ap.add_argument("--policy", default="heuristic")
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "bench" / "dask_overhead.csv"))
    args = ap.parse_args()

    from distributed import Client, LocalCluster

    sit = load_situation(args.situation)
    pol = parse_side_policies([args.policy], sit.ruleset.sides)
    n, k = args.games, args.workers
    reference = run(sit, n, args.seed, pol, workers=1, progress=False)
    rows = []

    def timed(name: str, **kw) -> None:
        times = []
        for _ in range(args.repeats):
            res = run(sit, n, args.seed, pol, progress=False, **kw)
            assert_frame_equal(res.games, reference.games)
            assert_frame_equal(res.turns, reference.turns)
            times.append(res.elapsed_s)
        rows.append({"config": name, "games": n, "median_s": statistics.median(times),
                     "min_s": min(times), "max_s": max(times)})
        print(f"{name:44s} median {statistics.median(times):6.2f} s  (min {min(times):.2f}, max {max(times):.2f})",
              flush=True)

    timed(f"process pool, --workers {k}", workers=k)
    timed(f"--cluster local:{k} (cluster start-up included)", cluster=f"local:{k}")
    starts = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        with LocalCluster(n_workers=k, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None) as cluster, Client(cluster):
            starts.append(time.perf_counter() - t0)
    rows.append({"config": f"LocalCluster({k}) start-up alone", "games": 0, "median_s": statistics.median(starts),
                 "min_s": min(starts), "max_s": max(starts)})
    print(f"{'LocalCluster start-up alone':44s} median {statistics.median(starts):6.2f} s", flush=True)
    with LocalCluster(n_workers=k, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        # First run prepares the situation on the workers; the repeats find it prepared.
        run(sit, n, args.seed, pol, progress=False, cluster=cluster.scheduler_address)
        timed("--scheduler (running cluster, workers prepared)", cluster=cluster.scheduler_address)
        # One batch a worker: no scheduling cost to speak of, but the run waits for the slower.
        timed(f"--scheduler, batches of {n // k} games (one a worker)", cluster=cluster.scheduler_address,
              batch_size=n // k)
        # The fixed cost of one task (scheduling, sending, result back) without any play: what a
        # batch pays on top of its games.
        with Client(cluster) as client:
            one = []
            for _ in range(50):
                t0 = time.perf_counter()
                client.submit(_nothing, pure=False).result()
                one.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            client.gather([client.submit(_nothing, pure=False) for _ in range(200)])
            many = (time.perf_counter() - t0) / 200
        rows.append({"config": "empty task, one at a time (ms)", "games": 0, "median_s": 1000 * statistics.median(one),
                     "min_s": 1000 * min(one), "max_s": 1000 * max(one)})
        rows.append({"config": "empty task, 200 at once (ms a task)", "games": 0, "median_s": 1000 * many,
                     "min_s": 1000 * many, "max_s": 1000 * many})
        print(f"empty task: {1000 * statistics.median(one):.1f} ms one at a time, {1000 * many:.1f} ms a task in bulk")
    pd.DataFrame(rows).round(2).to_csv(args.out, index=False)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
