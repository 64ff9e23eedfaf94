"""Play batches of games on a Dask `distributed` cluster: `--cluster local:N` or `--scheduler tcp://HOST:PORT`.

The runner only sees an object with `batch_size(n)` and `play(seed, start, stop, size, report)`
(as `runner._Players`), so any command gets the cluster by calling `add_cluster_options` on its
parser and passing `cluster_from_args(args)` as `cluster=` to `runner.run`.

Each Dask worker prepares a situation once and keeps the prepared tables in a per-process cache
keyed by a hash of the pickled situation; the compiled kernels come from numba's disk cache, so a
worker compiles at most once.  Batches are fixed by game index (game i uses `game_seed(S, i)`),
so a batch that Dask reschedules after a worker dies gives the same games: the tables equal a
local run's.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib
import logging
import math
import pickle
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from simulator.api import PlayerSpec, Ruleset
from simulator.errors import DataError
from simulator.situation import Situation

if TYPE_CHECKING:  # annotations only: `balance`'s pool workers import this module and need no pandas
    import pandas as pd

WHERE = "balance run"
# A Dask task costs 5-20 ms (scheduling, result transfer; measured in docs/performance.md):
# batches of at least this many games (>= 1 s of heuristic play for the built-in situations, whose
# games take 11-85 ms) keep that to 1-2 %, except in runs too small for 4 batches a worker, where
# balancing the end matters more.
CLUSTER_BATCH_MIN = 100
BATCHES_PER_WORKER_MIN = 4
CONNECT_TIMEOUT = "30s"  # distributed retries a refused connection until then
PREPARED_MAX = 4  # situations a worker keeps prepared (a sweep sends many variants)


def add_cluster_options(parser: argparse.ArgumentParser) -> None:
    """--cluster / --scheduler on a command's parser; read them back with `cluster_from_args`."""
    parser.add_argument("--cluster", metavar="local:N", help="play on a Dask LocalCluster of N worker processes")
    parser.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                        help="play on an existing Dask cluster (`dask scheduler` + `dask worker`)")


def cluster_from_args(args: argparse.Namespace) -> str | None:
    return parse_cluster(getattr(args, "cluster", None), getattr(args, "scheduler", None))


@contextlib.contextmanager
def shared_cluster(cluster: str | None):
    """One LocalCluster for a whole command (`compare`, `sweep` and `suggest` make many runs):
    yields the address its runs use, so workers start, and load the kernels, once.  A scheduler
    address or None passes through."""
    if cluster is None or not cluster.startswith("local:"):
        yield cluster
        return
    from distributed import LocalCluster

    local = LocalCluster(n_workers=int(cluster.split(":")[1]), threads_per_worker=1, processes=True,
                         host="127.0.0.1", dashboard_address=None, silence_logs=logging.ERROR)
    try:
        yield local.scheduler_address
    finally:
        local.close()


def parse_cluster(cluster: str | None, scheduler: str | None) -> str | None:
    """The `cluster=` argument of `runner.run` from the CLI options: 'local:N', 'tcp://HOST:PORT' or None."""
    if cluster and scheduler:
        raise DataError(WHERE, "--cluster/--scheduler", "got both", "one of them")
    if scheduler:
        host, _, port = scheduler.removeprefix("tcp://").rpartition(":")
        if not scheduler.startswith("tcp://") or not host or not port.isdigit():
            raise DataError(WHERE, "--scheduler", f"got {scheduler!r}", "tcp://HOST:PORT")
        return scheduler
    if cluster:
        kind, _, n = cluster.partition(":")
        if kind != "local" or not n.isdigit() or int(n) < 1:
            raise DataError(WHERE, "--cluster", f"got {cluster!r}", "local:N with N >= 1 workers")
        return cluster
    return None


def cluster_batch_size(n_games: int, workers: int) -> int:
    """The local pool's batch size, but at least CLUSTER_BATCH_MIN games unless that leaves fewer
    than BATCHES_PER_WORKER_MIN batches a worker."""
    from simulator.runner import default_batch_size

    balanced = math.ceil(n_games / (BATCHES_PER_WORKER_MIN * workers))
    return max(1, min(balanced, max(CLUSTER_BATCH_MIN, default_batch_size(n_games, workers))))


class DaskPlayers:
    """Plays ranges of games as Dask tasks, one task a batch, on a LocalCluster or an existing scheduler."""

    def __init__(self, rs: Ruleset, situation: Situation, policies: dict[str, PlayerSpec], cluster: str) -> None:
        from distributed import Client, LocalCluster

        self.policies = policies
        self.rs = rs
        self.sides = tuple(situation.side_names)
        self.module_name = module_name = rs.engine
        self.local = None
        self.ready_at: float | None = None
        try:
            if cluster.startswith("local:"):
                # Loopback only, no dashboard (no port conflicts); one single-threaded process a
                # worker, as the engine is single-threaded numba code holding the GIL.  Errors
                # only: on a busy machine the nanny warns it had to kill a slow-exiting worker at
                # the end of every run, which is harmless (workers keep nothing).
                self.local = LocalCluster(n_workers=int(cluster.split(":")[1]), threads_per_worker=1,
                                          processes=True, host="127.0.0.1", dashboard_address=None,
                                          silence_logs=logging.ERROR)
                self.client = Client(self.local, timeout="60s")
            else:
                try:
                    self.client = Client(cluster, timeout=CONNECT_TIMEOUT)
                except OSError as exc:  # refused, unreachable, timed out: one line, not a traceback
                    raise DataError(WHERE, "--scheduler", f"cannot connect to {cluster}: {exc}",
                                    "a running Dask scheduler (`dask scheduler`)") from exc
        except BaseException:
            if self.local is not None:
                self.local.close()
            raise
        self.key = hashlib.sha256(module_name.encode() + pickle.dumps(situation)).hexdigest()
        # The situation as a task, not scattered data: the scheduler can compute it again if the
        # only worker holding it dies, and it is sent to each worker once, not with every batch.
        self.situation = self.client.submit(_same, situation, key=f"situation-{self.key}", pure=False)

    @property
    def workers(self) -> int:
        """Threads on the cluster now (at least 1: a scheduler may get its workers later)."""
        info = self.client.scheduler_info()["workers"]
        return max(1, sum(w.get("nthreads", 1) for w in info.values()))

    def batch_size(self, n_games: int) -> int:
        return cluster_batch_size(n_games, self.workers)

    def note_batch(self, seconds: float) -> None:
        """As `runner._Players.note_batch`: playing began no later than `seconds` ago."""
        began = time.perf_counter() - seconds
        self.ready_at = began if self.ready_at is None else min(self.ready_at, began)

    def __enter__(self) -> DaskPlayers:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            self.client.close()
        finally:
            if self.local is not None:
                self.local.close()

    def play(self, seed: int, start: int, stop: int, size: int,
             report: Callable[[int, int], None]) -> list[tuple[pd.DataFrame, ...]]:
        from distributed import as_completed

        from simulator.runner import _checked, game_seed

        batches = [(a, [game_seed(seed, i) for i in range(a, min(a + size, stop))]) for a in range(start, stop, size)]
        # Batch tasks in game order, so the scheduler starts the first games first.
        futures = [self.client.submit(play_batch, self.module_name, self.key, self.situation, first, seeds,
                                      self.policies, pure=False)
                   for first, seeds in batches]
        done: dict[int, tuple[pd.DataFrame, ...]] = {}
        played = start
        try:
            for f in as_completed(futures):
                first, seeds, tables, seconds = f.result()
                self.note_batch(seconds)
                done[first] = _checked(self.rs, self.sides, tables, first, seeds)
                played += len(seeds)
                report(played, stop)
        finally:
            for f in futures:
                if not f.done():
                    f.cancel()
        return [done[first] for first, _ in batches]


def _same(situation: Situation) -> Situation:
    return situation


# A worker process's prepared situations, oldest first: key -> (engine module, tables).
_PREPARED: dict[str, tuple] = {}


def play_batch(module_name: str, key: str, situation: Situation, first: int, seeds: list[int],
               policies: dict[str, PlayerSpec]):
    """Runs on a Dask worker: prepare the situation the first time this process sees it, then play."""
    from simulator.runner import _prepare

    if key not in _PREPARED:
        module = importlib.import_module(module_name)
        _PREPARED[key] = (module, _prepare(module, situation, policies))
        while len(_PREPARED) > PREPARED_MAX:
            del _PREPARED[next(iter(_PREPARED))]
    module, tables = _PREPARED[key]
    t0 = time.perf_counter()
    out = module.play_games(tables, seeds, policies)
    return first, seeds, out, time.perf_counter() - t0
