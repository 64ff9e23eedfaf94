"""Play batches of games on a Dask `distributed` cluster: `--cluster local:N` or `--scheduler tcp://HOST:PORT`.

The runner only sees an object with `play(seed, start, stop, size, report)` (as `runner._Players`),
so `balance run`, `compare` and `sweep` all get the cluster by passing `cluster=` to `runner.run`.

Each Dask worker prepares a situation once and keeps the prepared tables in a per-process cache
keyed by a hash of the pickled situation; the compiled kernels come from numba's disk cache, so a
worker compiles at most once.  Batches are fixed by game index (game i uses `game_seed(S, i)`),
so a batch that Dask reschedules after a worker dies gives the same games: the tables equal a
local run's.
"""

from __future__ import annotations

import hashlib
import importlib
import pickle
from collections.abc import Callable

import pandas as pd

from policies.spec import PolicySpec
from simulator.errors import DataError
from simulator.situation import Situation

WHERE = "balance run"


def parse_cluster(cluster: str | None, scheduler: str | None) -> str | None:
    """The `cluster=` argument of `runner.run` from the CLI options: 'local:N', 'tcp://HOST:PORT' or None."""
    if cluster and scheduler:
        raise DataError(WHERE, "--cluster/--scheduler", "got both", "one of them")
    if scheduler:
        if not scheduler.startswith("tcp://") or ":" not in scheduler[len("tcp://"):]:
            raise DataError(WHERE, "--scheduler", f"got {scheduler!r}", "tcp://HOST:PORT")
        return scheduler
    if cluster:
        kind, _, n = cluster.partition(":")
        if kind != "local" or not n.isdigit() or int(n) < 1:
            raise DataError(WHERE, "--cluster", f"got {cluster!r}", "local:N with N >= 1 workers")
        return cluster
    return None


class DaskPlayers:
    """Plays ranges of games as Dask tasks, one task a batch, on a LocalCluster or an existing scheduler."""

    def __init__(self, module_name: str, situation: Situation, policies: dict[str, PolicySpec], cluster: str) -> None:
        from distributed import Client, LocalCluster

        self.policies = policies
        self.local = None
        if cluster.startswith("local:"):
            # Loopback only, no dashboard (no port conflicts); one single-threaded process a worker,
            # as the engine is single-threaded numba code holding the GIL.
            self.local = LocalCluster(n_workers=int(cluster.split(":")[1]), threads_per_worker=1,
                                      processes=True, host="127.0.0.1", dashboard_address=None)
            self.client = Client(self.local)
        else:
            self.client = Client(cluster, timeout="30s")
        blob = pickle.dumps(situation)
        self.key = hashlib.sha256(module_name.encode() + blob).hexdigest()
        self.module_name = module_name
        # Sent once to every worker, not with every batch.
        self.situation = self.client.scatter(situation, broadcast=True, hash=False)

    @property
    def workers(self) -> int:
        return max(1, len(self.client.scheduler_info()["workers"]))

    def __enter__(self) -> DaskPlayers:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.client.close()
        if self.local is not None:
            self.local.close()

    def play(self, seed: int, start: int, stop: int, size: int,
             report: Callable[[int, int], None]) -> list[tuple[pd.DataFrame, pd.DataFrame]]:
        from distributed import as_completed

        from simulator.runner import _number, game_seed

        batches = [(a, [game_seed(seed, i) for i in range(a, min(a + size, stop))]) for a in range(start, stop, size)]
        futures = [self.client.submit(play_batch, self.module_name, self.key, self.situation, first, seeds,
                                      self.policies, pure=False, retries=0)
                   for first, seeds in batches]
        done: dict[int, tuple[pd.DataFrame, pd.DataFrame]] = {}
        played = start
        try:
            for f in as_completed(futures):
                first, seeds, g, t = f.result()
                done[first] = _number(g, t, first, seeds)
                played += len(seeds)
                report(played, stop)
        finally:
            for f in futures:
                if not f.done():
                    f.cancel()
        return [done[first] for first, _ in batches]


# A worker process's prepared situations: key -> (engine module, tables).
_PREPARED: dict[str, tuple] = {}


def play_batch(module_name: str, key: str, situation: Situation, first: int, seeds: list[int],
               policies: dict[str, PolicySpec]):
    """Runs on a Dask worker: prepare the situation the first time this process sees it, then play."""
    if key not in _PREPARED:
        module = importlib.import_module(module_name)
        _PREPARED[key] = (module, module.prepare(situation))
    module, tables = _PREPARED[key]
    g, t = module.play_games(tables, seeds, policies)
    return first, seeds, g, t
