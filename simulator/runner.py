"""Play many games of a situation, in parallel, reproducibly: the engine of `balance run`.

Reproducibility: game i of a run with seed S is played with `game_seed(S, i)` whatever the
number of workers, the batch size or the `--until-ci` rounds, so a run's tables depend only on
(situation, policies, S, number of games).

Parallelism: worker processes are started with "spawn", not "fork" (a forked copy of a process
that has numba's compiler and threads loaded is not safe).  Each worker prepares the situation
once (tables, line of sight; the compiled kernels come from numba's disk cache) and then plays
batches of consecutive games; batches come back in any order and are put back in game order.
With `cluster=` the batches are Dask tasks instead (simulator/cluster.py), with the same games.

The rules are the situation's ruleset's (simulator/registry.py): workers import its engine
module by name, and every batch is checked against its results schema (simulator/results.py).
"""

from __future__ import annotations

import contextlib
import importlib
import math
import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from types import ModuleType

import numpy as np
import pandas as pd

from simulator import pool_worker, registry
from simulator.api import PlayerSpec, Ruleset
from simulator.errors import DataError
from simulator.progress import Progress
from simulator.results import check_batch, fill_families
from simulator.situation import Situation
from simulator.stats import wilson_half_width
from simulator.summary import summarize

FIRST_ROUND = 200       # --until-ci: games in the first round when --games is not given
MAX_GAMES = 20_000      # --until-ci: default cap
BATCHES_PER_WORKER = 8  # enough batches that a slow batch does not leave a worker idle at the end
BATCH_MIN, BATCH_MAX = 5, 200
WHERE = "balance run"   # what argument errors name as their source


@dataclass
class RunResult:
    games: pd.DataFrame   # one row a game, column `game` = 0..N-1
    turns: pd.DataFrame   # one row a game x turn x side, sorted by game
    events: pd.DataFrame  # one row an event on the map (PanzerBlitz: a unit lost, `losses`)
    summary: dict
    elapsed_s: float      # the whole run, start-up included
    games_per_s: float    # playing speed: games / play_s
    startup_s: float = 0.0  # preparing the situation and loading (or compiling) the engine
    play_s: float = 0.0     # from the first game played to the last

    def winners(self) -> np.ndarray:
        """Each game's result (a side, or "draw"), in game order."""
        column = registry.ruleset(self.summary["ruleset"]).results.winner
        return self.games.sort_values("game")[column].to_numpy()


def game_seed(seed: int, i: int) -> int:
    """The seed of game i: child i of `SeedSequence(seed)` (as `.spawn()` makes it), as 32 bits.

    32 bits because numba's `np.random.seed` takes nothing larger.  Two of 20,000 games share a
    seed with a chance of about 5%; such a pair is the same game played twice, which does not
    bias the estimates.
    """
    return int(np.random.SeedSequence(seed, spawn_key=(i,)).generate_state(1, np.uint32)[0])


def default_workers() -> int:
    # The CPUs this process may run on (containers and `taskset` limit them), else all of them.
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1


def default_batch_size(n_games: int, workers: int) -> int:
    return min(BATCH_MAX, max(BATCH_MIN, math.ceil(n_games / (workers * BATCHES_PER_WORKER))))


def run(situation: Situation, n_games: int | None, seed: int, policies: dict[str, PlayerSpec],
        workers: int | None = None, progress: bool = True, until_ci: float | None = None,
        max_games: int | None = None, batch_size: int | None = None, cluster: str | None = None,
        pool: _Players | None = None) -> RunResult:
    """Play `n_games` games (with `until_ci`: the first round, default 200) and summarize them.

    `until_ci=h` plays rounds of games until the 95% Wilson interval of every side's chance of
    winning has a half-width <= h, or `max_games` (default 20,000) games are played.
    `cluster`: 'local:N' (a Dask LocalCluster of N workers) or 'tcp://HOST:PORT' (an existing Dask
    scheduler) plays the batches on Dask instead of this machine's process pool (see
    `simulator.cluster.parse_cluster` for the CLI options).
    """
    rs = registry.ruleset(situation.ruleset.name, str(situation.path))
    sides = list(situation.side_names)
    n_games, max_games = _check_args(n_games, seed, policies, sides, workers, until_ci, max_games, batch_size)
    workers = workers or default_workers()
    bar = Progress(progress)
    t0 = time.perf_counter()
    if pool is not None:
        pool.policies = policies
        compiling = False
    else:
        compiling = not rs.engine_ready()
    bar.starting(f"preparing {situation.id}" + (f" in {workers} worker processes" if workers > 1 and not cluster else ""),
                 compiling=compiling)
    if compiling and workers > 1 and cluster is None:
        # Compile once, here, before the pool starts: K workers would each compile the same
        # kernels at once (K times the CPU for the same wait); they then load them from the cache.
        try:
            _prepare(importlib.import_module(rs.engine), situation, policies)
        except BaseException:
            bar.close()
            raise
    games: list[pd.DataFrame] = []
    turns: list[pd.DataFrame] = []
    events: list[pd.DataFrame] = []
    opened = contextlib.nullcontext(pool) if pool is not None else _players(rs, situation, policies, workers, cluster)
    with opened as players, _closing(bar):
        target, played = n_games, 0
        while True:
            size = batch_size or players.batch_size(target - played)
            for g, t, lo in players.play(seed, played, target, size, lambda done, tgt=target: bar.update(done, tgt)):
                games.append(g)
                turns.append(t)
                events.append(lo)
            played = target
            if until_ci is None:
                break
            wins = _wins(games, sides, rs.results.winner)
            if max(wilson_half_width(k, played) for k in wins) <= until_ci or played >= max_games:
                break
            target = min(max_games, _next_round(played, wins, until_ci))
        ready = players.ready_at
    elapsed = time.perf_counter() - t0
    # Start-up (the situation prepared, the engine loaded or compiled, one warm-up game) is
    # reported apart from playing: a first run's minute of compiling is not its playing speed.
    startup = min(max(0.0, (ready if ready is not None else t0) - t0), elapsed)
    play_s = elapsed - startup
    g_all, t_all, lo_all = _join(rs, tuple(sides), games, turns, events)
    ci = None
    if until_ci is not None:
        reached = max(wilson_half_width(k, played) for k in _wins(games, sides, rs.results.winner)) <= until_ci
        ci = {"half_width": until_ci, "max_games": max_games, "reached": reached}
    summary = summarize(g_all, situation=situation, seed=seed, policies=policies, ruleset=rs,
                        elapsed_s=elapsed, until_ci=ci, startup_s=startup, play_s=play_s)
    return RunResult(g_all, t_all, lo_all, summary, elapsed, played / play_s if play_s > 0 else float("inf"),
                     startup, play_s)


@contextlib.contextmanager
def _closing(bar: Progress):
    try:
        yield bar
    finally:
        bar.close()  # end the bar's line, also when interrupted


def _check_args(n_games, seed, policies, sides, workers, until_ci, max_games, batch_size) -> tuple[int, int]:
    def whole(value, option, minimum):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
            raise DataError(WHERE, option, f"got {value!r}", f"a whole number >= {minimum}")

    if n_games is None:
        if until_ci is None:
            raise DataError(WHERE, "--games", "missing", "the number of games to play, or --until-ci H")
        n_games = FIRST_ROUND
    whole(n_games, "--games", 1)
    whole(seed, "--seed", 0)
    if workers is not None:
        whole(workers, "--workers", 1)
    if batch_size is not None:
        whole(batch_size, "batch_size", 1)
    if until_ci is None:
        if max_games is not None:
            raise DataError(WHERE, "--max-games", "given without --until-ci", "--until-ci H as well")
        max_games = n_games
    else:
        if not 0 < until_ci <= 0.5:
            raise DataError(WHERE, "--until-ci", f"got {until_ci!r}",
                            "a half-width of the win probability's 95% interval in (0, 0.5], e.g. 0.02")
        max_games = MAX_GAMES if max_games is None else max_games
        whole(max_games, "--max-games", 1)
        n_games = min(n_games, max_games)
    if sorted(policies) != sorted(sides):
        raise DataError(WHERE, "--policy", f"policies for {sorted(policies)}", "one for each side: " + ", ".join(sides))
    return n_games, max_games


def _wins(games: list[pd.DataFrame], sides: list[str], winner: str) -> list[int]:
    counts = pd.concat([g[winner] for g in games], ignore_index=True).value_counts()
    return [int(counts.get(s, 0)) for s in sides]


def _next_round(played: int, wins: list[int], h: float) -> int:
    """Games to have played after the next round: what the current estimates say is enough
    (Wilson half-width ≈ z·sqrt(p(1-p)/(n+z²))), plus 10%, growing by 1.5x to 4x a round so a
    poor early estimate costs neither many tiny rounds nor a huge overshoot."""
    z2 = 1.959964 ** 2
    need = 0.0
    for k in wins:
        p = (k + z2 / 2) / (played + z2)  # the Wilson centre: never 0 or 1, unlike k/n
        need = max(need, z2 * p * (1 - p) / h**2 - z2)
    return int(min(4 * played, max(math.ceil(1.5 * played), math.ceil(1.1 * need))))


def _join(rs: Ruleset, sides: tuple[str, ...], games: list[pd.DataFrame], turns: list[pd.DataFrame],
          events: list[pd.DataFrame]) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """One table of each kind, in game order.  The games table's count families
    (`lost:<side>:<type>`) are counts an engine reports only when non-zero: 0 where a batch
    lacked them, and sorted by name so the column order does not depend on how the games were
    batched."""
    g = fill_families(rs.results.games, pd.concat(games, ignore_index=True), sides)
    return g, pd.concat(turns, ignore_index=True), pd.concat(events, ignore_index=True)


def _checked(rs: Ruleset, sides: tuple[str, ...], tables: tuple[pd.DataFrame, ...], first: int,
             seeds: list[int]) -> tuple[pd.DataFrame, ...]:
    """One batch's tables, checked against the ruleset's results schema and numbered."""
    check_batch(rs.name, rs.results, tables, sides)
    return _number(tables, first, seeds)


def _number(tables: tuple[pd.DataFrame, ...], first: int, seeds: list[int]) -> tuple[pd.DataFrame, ...]:
    """Put the run's game index in front of every table of one batch (games first ..
    first+len-1), from the `batch_game` column the engine gives each row."""
    g = tables[0]
    if len(g) != len(seeds) or list(g["seed"]) != list(seeds):
        raise RuntimeError(f"engine returned games for seeds {list(g['seed'])[:5]}..., asked for {seeds[:5]}...")
    out = []
    for table in tables:
        index = table.pop("batch_game").to_numpy()
        if len(index) and (index.min() < 0 or index.max() >= len(seeds)):
            raise RuntimeError(f"engine returned rows for game {index.max()} of a batch of {len(seeds)}")
        table.insert(0, "game", (first + index).astype(np.int64))
        out.append(table)
    return tuple(out)


# --------------------------------------------------------------------------- playing

@contextlib.contextmanager
def player_pool(situation: Situation, policies: dict[str, PlayerSpec], workers: int | None = None,
                cluster: str | None = None):
    """Worker processes (or a Dask cluster) kept open for many runs of one situation with
    different players: `balance tune` and `balance equilibrium` play hundreds of short runs, and
    starting a pool (and loading the engine in it) for each would cost more than their games.
    Pass it to `run(..., pool=...)`; every run's games are the same as without it."""
    rs = registry.ruleset(situation.ruleset.name, str(situation.path))
    workers = workers or default_workers()
    if workers > 1 and cluster is None and not rs.engine_ready():
        _prepare(importlib.import_module(rs.engine), situation, policies)   # compile once, here
    with _players(rs, situation, policies, workers, cluster) as players:
        yield players


def pool_batch_size(pool, n_games: int) -> int:
    """One batch a worker for the short runs of `balance tune` and `equilibrium`: with a pool
    kept open, a run's cost beyond its games is one round trip a batch, so few batches are best."""
    return max(1, math.ceil(n_games / max(1, pool.workers)))


def _players(rs: Ruleset, situation: Situation, policies: dict[str, PlayerSpec], workers: int,
             cluster: str | None):
    if cluster is None:
        return _Players(rs, situation, policies, workers)
    from simulator.cluster import DaskPlayers

    return DaskPlayers(rs, situation, policies, cluster)


class _Players:
    """Plays ranges of games, in this process (workers=1) or in a pool of worker processes."""

    def __init__(self, rs: Ruleset, situation: Situation, policies: dict[str, PlayerSpec], workers: int) -> None:
        self.rs = rs
        self.sides = tuple(situation.side_names)
        self.policies = policies
        self.workers = workers
        self.pool: ProcessPoolExecutor | None = None
        self.ready_at: float | None = None  # when playing began (perf_counter), once known
        if workers == 1:
            self.module: ModuleType = importlib.import_module(rs.engine)
            self.tables = _prepare(self.module, situation, policies)
            self.ready_at = time.perf_counter()
        else:
            # The situation object itself goes to the workers (pickled), not its file name: they
            # play exactly what this process loaded, even if the file changes during the run.
            self.pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                            initializer=pool_worker._init_worker,
                                            initargs=(rs.engine, situation, policies))

    def __enter__(self) -> _Players:
        return self

    def batch_size(self, n_games: int) -> int:
        return default_batch_size(n_games, self.workers)

    def __exit__(self, exc_type, exc, tb) -> None:
        if self.pool is None:
            return
        if exc_type is None:
            self.pool.shutdown(wait=True)
            return
        # Interrupted or failed: do not wait for batches still being played (up to minutes);
        # stop this pool's own worker processes.  The executor has no public call for that.
        workers = list(getattr(self.pool, "_processes", {}).values())
        self.pool.shutdown(wait=False, cancel_futures=True)
        for proc in workers:
            proc.terminate()
        for proc in workers:
            proc.join(timeout=5)

    def note_batch(self, seconds: float) -> None:
        """A batch that took `seconds` to play has just come back: playing began no later than
        that long ago (the workers' start-up is what came before)."""
        began = time.perf_counter() - seconds
        self.ready_at = began if self.ready_at is None else min(self.ready_at, began)

    def play(self, seed: int, start: int, stop: int, size: int,
             report: Callable[[int, int], None]) -> list[tuple[pd.DataFrame, ...]]:
        """Games start..stop-1 as (games, turns, events) tables, one triple per batch, in game order."""
        batches = [(a, [game_seed(seed, i) for i in range(a, min(a + size, stop))]) for a in range(start, stop, size)]
        done: dict[int, tuple[pd.DataFrame, ...]] = {}
        played = start
        if self.pool is None:
            for first, seeds in batches:
                done[first] = _checked(self.rs, self.sides, self.module.play_games(self.tables, seeds, self.policies),
                                       first, seeds)
                played += len(seeds)
                report(played, stop)
        else:
            pending = {self.pool.submit(pool_worker._play_batch, first, seeds, self.policies)
                       for first, seeds in batches}
            try:
                while pending:
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for f in finished:
                        first, seeds, tables, seconds = f.result()
                        self.note_batch(seconds)
                        done[first] = _checked(self.rs, self.sides, as_tables(tables), first, seeds)
                        played += len(seeds)
                        report(played, stop)
            finally:
                for f in pending:
                    f.cancel()
        return [done[first] for first, _ in batches]


def _prepare(module: ModuleType, situation: Situation, policies: dict[str, PlayerSpec]):
    """The situation's tables, after one warm-up game (simulator/pool_worker.py `prepare`)."""
    return pool_worker.prepare(module, situation, policies)


def as_tables(tables: tuple) -> tuple[pd.DataFrame, ...]:
    """A batch's tables as pandas frames: a pool worker returns columns (dicts of arrays) where
    the engine offers `play_batch_columns` (simulator/pool_worker.py)."""
    return tuple(t if isinstance(t, pd.DataFrame) else pd.DataFrame(t) for t in tables)
