"""`balance bench`: how fast the engine plays, against what, on this machine.

For each situation, its ruleset's default players on both sides (PanzerBlitz: heuristic
against heuristic):
- games per second on one worker (one core), and on every core with the runner's process
  pool (the speed-up over one worker says how well the pool scales);
- the floor, where the ruleset measures one (PanzerBlitz: simulator/rulesets/panzerblitz/floor.py, the
  same situation's unavoidable movement searches and target scans alone); engine/floor = how
  many times the floor a game costs;
- pure Python: a few games with numba's JIT disabled, in a subprocess with a time limit;
- peak memory of a pool worker (ru_maxrss, read inside the workers).
And once per run, the time to the first game's result in a new process, cold (empty numba
and LOS caches: everything is compiled) and warm (the same caches again).

Speeds are measured after a warm-up game, so they leave out compilation and pool start-up.
The table goes to the terminal and to a CSV; the run's machine and one-off numbers to a JSON
file beside it.  Never used in tests for timing: speeds depend on the machine and its load.
"""

from __future__ import annotations

import csv
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Issue 22's targets ("Numbers to reach"; they replace issue 6's 200 games/s and warm < 3 s).
TARGET_GAMES_PER_S = 100      # median over the situations, one worker (one core), wall clock
TARGET_FLOOR_RATIO = 3.0      # engine time per game <= 3x the honest floor's (the tight search)
TARGET_SCALING = 1.8          # 2 workers >= 1.8x one
TARGET_COLD_S = 30.0          # new process to the first result, empty numba and LOS caches
TARGET_WARM_S = 2.0           # the same with the caches the cold run filled
# "Worker memory not above today's": the largest pool worker's peak when issue 22 was written
# (the idle bench of 046c243, docs/performance.md: 352-353 MB on every situation).
TARGET_RSS_MB = 353.0

COLUMNS = ["situation", "ruleset", "units", "turns", "games", "games_per_s_1w", "games_per_cpu_s_1w", "games_per_s_all", "workers", "speedup_all",
           "floor_games_per_s", "engine_over_floor", "python_games", "python_games_per_s", "compiled_speedup", "peak_rss_mb"]


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def machine() -> dict:
    import numba

    from simulator.runner import default_workers

    return {"cpu": cpu_model(), "cores": default_workers(), "python": platform.python_version(),
            "numba": numba.__version__, "platform": platform.platform()}


def _ruleset(sit):
    from simulator import registry

    return registry.ruleset(sit.ruleset.name)


def heuristic_policies(sit) -> dict:
    """The ruleset's default player on every side (PanzerBlitz: the heuristic)."""
    return _ruleset(sit).players.parse(None, sit.side_names)


def peak_rss_mb() -> tuple[int, float]:
    """This process's id and its peak resident memory (MB).  Sleeps a little so that the pool
    hands one call to each worker rather than all of them to the first one free."""
    time.sleep(0.3)
    return os.getpid(), _own_peak_kb() / 1024


def _own_peak_kb() -> float:
    # Linux: VmHWM is the peak of this process's own address space.  getrusage's ru_maxrss
    # survives fork and exec, so a spawned worker would report its parent's peak if larger
    # (the bench's own process, after compiling every kernel, is near 900 MB).
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return float(line.split()[1])
    except OSError:
        pass
    return float(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)  # kilobytes on Linux


def warm_worker(seed: int, policies: dict) -> int:
    """In a pool worker: play one game (numba loads the cached kernels on a worker's first game,
    about a second), then hold the worker a little so that the pool gives the next warm-up to
    another one.  Returns the worker's process id."""
    from simulator.pool_worker import _play_batch

    _play_batch(0, [seed], policies)
    time.sleep(0.3)
    return os.getpid()


def engine_speed(sit, policies: dict, n_games: int, workers: int, seed: int = 1) -> tuple[float, float, float | None]:
    """Games per second (all workers together, by the wall clock), games per CPU-second of
    this process (one worker: the games are played here; on a machine shared with other
    work the wall clock also counts the time the CPU was busy elsewhere) and, with a pool,
    the largest worker's peak memory in MB.  A warm-up game in every worker is not timed."""
    from simulator.runner import _Players, default_batch_size

    with _Players(_ruleset(sit), sit, policies, workers) as players:
        if players.pool is None:
            players.play(seed + 1, 0, 1, 1, lambda *_: None)
        else:
            # Every worker must have played before the clock starts: a worker whose first game
            # falls in the timed run would count its kernel loading as play.
            warmed: set[int] = set()
            for _ in range(5):
                warmed |= {f.result() for f in [players.pool.submit(warm_worker, seed + 1, policies)
                                                 for _ in range(2 * workers)]}
                if len(warmed) == workers:
                    break
        t0, c0 = time.perf_counter(), time.process_time()
        players.play(seed, 0, n_games, default_batch_size(n_games, workers), lambda *_: None)
        rate = n_games / (time.perf_counter() - t0)
        cpu_rate = n_games / max(time.process_time() - c0, 1e-9)
        rss = None
        if players.pool is not None:
            futures = [players.pool.submit(peak_rss_mb) for _ in range(2 * workers)]
            per_pid = dict(f.result() for f in futures)
            rss = max(per_pid.values())
    return rate, cpu_rate, rss


def _child(mode: str, sid: str, n_games: int = 1) -> None:
    """Run in a subprocess: play games of `sid` and print one JSON line of timings."""
    t0 = time.perf_counter()
    import importlib

    from simulator.situation import load_situation

    sit = load_situation(sid)
    engine = importlib.import_module(_ruleset(sit).engine)
    t = engine.prepare(sit)
    policies = heuristic_policies(sit)
    t1 = time.perf_counter()
    engine.play_games(t, list(range(n_games)), policies)
    t2 = time.perf_counter()
    print(json.dumps({"mode": mode, "import_prepare_s": t1 - t0, "games_s": t2 - t1, "games": n_games}))


def _run_child(args: list[str], env: dict, timeout: float) -> tuple[dict | None, float]:
    t0 = time.perf_counter()
    try:
        out = subprocess.run([sys.executable, "-m", "simulator.bench", *args], env=env, cwd=ROOT,
                             capture_output=True, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t0
    return json.loads(out.stdout.strip().splitlines()[-1]), time.perf_counter() - t0


def python_speed(sid: str, n_games: int, timeout: float) -> float | None:
    """Games per second with numba's JIT off (plain Python running the same kernels); None if
    the games did not finish within `timeout` seconds."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res, _ = _run_child(["_play", sid, str(n_games)], env, timeout)
    return None if res is None else res["games"] / res["games_s"]


def first_result_times(sid: str, timeout: float) -> tuple[float | None, float | None]:
    """Seconds from starting a new process to the first game's result: cold (empty numba and
    LOS caches) then warm (the caches the cold run filled).  None where it timed out."""
    with tempfile.TemporaryDirectory() as numba_cache, tempfile.TemporaryDirectory() as data_cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=numba_cache, BALANCE_CACHE_DIR=data_cache)
        env.pop("NUMBA_DISABLE_JIT", None)
        cold, cold_s = _run_child(["_first", sid], env, timeout)
        warm, warm_s = _run_child(["_first", sid], env, timeout)
    return (cold_s if cold else None), (warm_s if warm else None)


def bench_situation(sid: str, n_games: int, workers: int, python_games: int, python_timeout: float,
                    log=print) -> dict:
    import importlib

    from simulator.situation import load_situation

    sit = load_situation(sid)
    rs = _ruleset(sit)
    t = importlib.import_module(rs.engine).prepare(sit)
    policies = heuristic_policies(sit)
    one, one_cpu, _ = engine_speed(sit, policies, n_games, 1)
    log(f"  {sid}: 1 worker {one:.1f} games/s ({one_cpu:.1f} per CPU-second)", flush=True)
    all_, _, rss = engine_speed(sit, policies, n_games, workers) if workers > 1 else (one, one_cpu, None)
    floor = rs.floor_games_per_s(t, max(5, n_games), policies)  # over the same players' games
    py = python_speed(sid, python_games, python_timeout) if python_games > 0 else None
    return {
        "situation": sid, "ruleset": rs.name, "units": rs.unit_count(sit),
        "turns": sit.turns, "games": n_games,
        "games_per_s_1w": round(one, 2), "games_per_cpu_s_1w": round(one_cpu, 2), "games_per_s_all": round(all_, 2), "workers": workers,
        "speedup_all": round(all_ / one, 2), "floor_games_per_s": None if floor is None else round(floor, 2),
        "engine_over_floor": None if floor is None else round(floor / one, 2),
        "python_games": python_games, "python_games_per_s": None if py is None else round(py, 4),
        "compiled_speedup": None if py is None else round(one / py, 1),
        "peak_rss_mb": None if rss is None else round(rss, 1),
    }


def targets(rows: list[dict], cold: float | None, warm: float | None) -> dict:
    """Each target of issue 22: the measured value and whether it is met (None: not measured).
    The targets are read over the rows of the first row's ruleset (the classic situations by
    default): a median over several rulesets' situations would mix games of unlike cost;
    `medians_by_ruleset` gives every ruleset its own."""
    def met(value, ok):
        return {"value": value, "met": None if value is None else bool(ok(value))}

    rows = [r for r in rows if r.get("ruleset") == rows[0].get("ruleset")]
    med = statistics.median(r["games_per_s_1w"] for r in rows)
    ratios = [r["engine_over_floor"] for r in rows if r["engine_over_floor"] is not None]
    ratio = statistics.median(ratios) if ratios else None
    scaling = [r["speedup_all"] for r in rows if r["workers"] > 1]
    rss = [r["peak_rss_mb"] for r in rows if r["peak_rss_mb"] is not None]
    return {
        "median_games_per_s_per_core >= 100": met(round(med, 1), lambda v: v >= TARGET_GAMES_PER_S),
        "median_engine_over_floor <= 3": met(None if ratio is None else round(ratio, 2),
                                             lambda v: v <= TARGET_FLOOR_RATIO),
        "median_speedup_all_workers >= 1.8": met(round(statistics.median(scaling), 2) if scaling else None,
                                                 lambda v: v >= TARGET_SCALING),
        "cold_start_s <= 30": met(None if cold is None else round(cold, 1), lambda v: v <= TARGET_COLD_S),
        "warm_start_s <= 2": met(None if warm is None else round(warm, 2), lambda v: v <= TARGET_WARM_S),
        "max_peak_rss_mb <= 353": met(max(rss) if rss else None, lambda v: v <= TARGET_RSS_MB),
    }


def medians_by_ruleset(rows: list[dict]) -> dict:
    """Median games per second on one worker, and per CPU-second, of each ruleset's situations."""
    out = {}
    for name in dict.fromkeys(r.get("ruleset") for r in rows):
        mine = [r for r in rows if r.get("ruleset") == name]
        out[str(name)] = {"situations": len(mine),
                          "games_per_s_1w": round(statistics.median(r["games_per_s_1w"] for r in mine), 2),
                          "games_per_cpu_s_1w": round(statistics.median(r["games_per_cpu_s_1w"] for r in mine), 2)}
    return out


def format_table(rows: list[dict]) -> list[str]:
    head = (f"{'situation':<10}{'units':>6}{'turns':>6}{'games/s 1w':>12}{'/CPU s':>8}{'all':>8}{'x':>6}{'floor/s':>9}"
            f"{'eng/floor':>10}{'py games/s':>12}{'jit x':>8}{'RSS MB':>8}")
    lines = [head]
    for r in rows:
        py = ("-" if not r["python_games"] else "timeout" if r["python_games_per_s"] is None
              else f"{r['python_games_per_s']:.3f}")
        jit = "-" if r["compiled_speedup"] is None else f"{r['compiled_speedup']:.0f}"
        rss = "-" if r["peak_rss_mb"] is None else f"{r['peak_rss_mb']:.0f}"
        floor = "-" if r["floor_games_per_s"] is None else f"{r['floor_games_per_s']:.1f}"
        ratio = "-" if r["engine_over_floor"] is None else f"{r['engine_over_floor']:.2f}"
        lines.append(f"{r['situation']:<10}{r['units']:>6}{r['turns']:>6}{r['games_per_s_1w']:>12.1f}"
                     f"{r['games_per_cpu_s_1w']:>8.1f}"
                     f"{r['games_per_s_all']:>8.1f}{r['speedup_all']:>6.2f}{floor:>9}"
                     f"{ratio:>10}{py:>12}{jit:>8}{rss:>8}")
    return lines


def run_bench(situations: list[str], n_games: int, out: Path, workers: int | None = None,
              python_games: int = 1, python_timeout: float = 120.0, first_result: str | None = "pb-04",
              first_timeout: float = 1800.0) -> dict:
    from simulator.runner import default_workers

    info = machine()
    workers = workers or default_workers()
    print(f"machine: {info['cpu']}, {info['cores']} cores, Python {info['python']}, numba {info['numba']}")
    print(f"heuristic vs heuristic, {n_games} games a situation, 1 and {workers} workers", flush=True)
    rows = [bench_situation(sid, n_games, workers, python_games, python_timeout) for sid in situations]
    cold = warm = None
    if first_result:
        print(f"time to the first result ({first_result}): cold start (compiles everything) ...", flush=True)
        cold, warm = first_result_times(first_result, first_timeout)
    result = {"machine": info, "workers": workers, "games": n_games, "first_result_situation": first_result,
              "cold_start_s": None if cold is None else round(cold, 2),
              "warm_start_s": None if warm is None else round(warm, 2),
              "targets": targets(rows, cold, warm), "medians_by_ruleset": medians_by_ruleset(rows), "rows": rows}
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    out.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")
    for line in format_table(rows):
        print(line)
    if first_result:
        print(f"first result, new process: cold {_s(cold)}, warm {_s(warm)}")
    for name, m in result["medians_by_ruleset"].items():
        print(f"median of {name} ({m['situations']} situations): {m['games_per_s_1w']} games/s on one worker, "
              f"{m['games_per_cpu_s_1w']} per CPU-second")
    print(f"targets (issue 22) over the {rows[0].get('ruleset')} situations:")
    for name, t in result["targets"].items():
        state = "not measured" if t["met"] is None else ("met" if t["met"] else "NOT met")
        print(f"target {name}: {t['value']} -> {state}")
    print(f"wrote {out} and {out.with_suffix('.json')}")
    return result


def _s(x: float | None) -> str:
    return "timeout" if x is None else f"{x:.1f} s"


if __name__ == "__main__":
    # Subprocess entry points of the benchmark (not a user command: use `balance bench`).
    _child(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 1)
