"""Benchmark: map assembly and line-of-sight tables for every built-in situation.

Measures, per situation: assembling the map from the board files, building the LOS table
(compiled kernel, JIT already warm), and loading it back from the disk cache.  Also the
cold start (numba compilation from an empty cache) in a fresh process.  Writes
bench/los.csv and prints the table.  Run with `make bench`.
"""

from __future__ import annotations

import csv
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simulator.bench import cpu_model  # noqa: E402


def cold_start_seconds() -> float:
    """Time to the first LOS table in a new process with an empty numba cache."""
    with tempfile.TemporaryDirectory() as numba_cache, tempfile.TemporaryDirectory() as los_cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=numba_cache, BALANCE_CACHE_DIR=los_cache)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "simulator.cli", "los", "pb-01"], env=env, check=True,
                       cwd=ROOT, capture_output=True)
        return time.perf_counter() - t0


def main() -> int:
    from simulator.los import LineOfSight, compile_rules
    from simulator.situation import builtin_situations, load_situation

    rows = []
    with tempfile.TemporaryDirectory() as cache:
        for path in builtin_situations():
            t0 = time.perf_counter()
            sit = load_situation(path)
            t1 = time.perf_counter()
            rules = compile_rules(sit.ruleset.data["los"], sit.map, "ruleset.toml")
            los = LineOfSight(sit.map, rules)
            los.build()  # JIT warm-up (compiled once per process, or loaded from numba's cache)
            t2 = time.perf_counter()
            table = los.build()
            t3 = time.perf_counter()
            los.table(Path(cache))  # writes the cache (or finds the same map's table there)
            t3b = time.perf_counter()
            los.table(Path(cache))
            t4 = time.perf_counter()
            n = sit.map.n_hexes
            rows.append({
                "situation": sit.id, "hexes": n, "pairs": n * (n - 1) // 2,
                "clear_fraction": round(float(table.mean()), 4),
                "load_situation_s": round(t1 - t0, 4),
                "los_build_s": round(t3 - t2, 4),
                "los_cached_load_s": round(t4 - t3b, 4),
            })
    cold = cold_start_seconds()
    out = ROOT / "bench" / "los.csv"
    with open(out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"{'situation':<10}{'hexes':>7}{'clear':>8}{'load s':>9}{'LOS build s':>13}{'cached s':>10}")
    for r in rows:
        print(f"{r['situation']:<10}{r['hexes']:>7}{r['clear_fraction']:>8.1%}{r['load_situation_s']:>9.3f}"
              f"{r['los_build_s']:>13.3f}{r['los_cached_load_s']:>10.4f}")
    print(f"cold start (new process, empty numba and LOS caches) to the pb-01 table: {cold:.1f} s")
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
