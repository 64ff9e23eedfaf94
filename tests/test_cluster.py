"""Dask scale-out: `--cluster local:N` / `--scheduler tcp://...` give the same tables as a local run,
also when a worker process is killed mid-run (Dask reschedules its batch).  Loopback only."""

from __future__ import annotations

import os
import signal

import pytest
from pandas.testing import assert_frame_equal

from policies.spec import parse_side_policies
from simulator import runner
from simulator.cluster import parse_cluster
from simulator.errors import DataError
from simulator.runner import run
from simulator.situation import load_situation

distributed = pytest.importorskip("distributed")

GAMES = 24


@pytest.fixture(scope="module")
def sit():
    return load_situation("pb-01")


@pytest.fixture(scope="module")
def heur(sit):
    return parse_side_policies(["heuristic"], sit.ruleset.sides)


@pytest.fixture(scope="module")
def local(sit, heur):
    return run(sit, GAMES, 7, heur, workers=1, progress=False)


def same(a, b):
    assert_frame_equal(a.games, b.games)
    assert_frame_equal(a.turns, b.turns)


def test_local_cluster_equals_local_run(sit, heur, local):
    same(run(sit, GAMES, 7, heur, progress=False, cluster="local:2", batch_size=4), local)


def test_killed_worker_batch_is_rescheduled(sit, heur, local, monkeypatch):
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None)
    client = distributed.Client(cluster, timeout="30s")
    try:
        pids = client.run(os.getpid)
        victim = sorted(pids.values())[0]
        number, killed = runner._number, []

        def kill_after_first_batch(*args):
            if not killed:
                os.kill(victim, signal.SIGKILL)
                killed.append(victim)
            return number(*args)

        monkeypatch.setattr(runner, "_number", kill_after_first_batch)
        result = run(sit, GAMES, 7, heur, progress=False, cluster=cluster.scheduler_address, batch_size=2)
        assert killed == [victim]
        assert len(result.games) == GAMES
        same(result, local)
    finally:
        client.close()
        cluster.close()


@pytest.mark.parametrize("cluster, scheduler, field", [
    ("local:0", None, "--cluster"), ("remote:2", None, "--cluster"), (None, "127.0.0.1:8786", "--scheduler"),
    ("local:2", "tcp://127.0.0.1:8786", "--cluster/--scheduler"),
])
def test_bad_cluster_options_are_named(cluster, scheduler, field):
    with pytest.raises(DataError) as e:
        parse_cluster(cluster, scheduler)
    assert field in e.value.line()


def test_cluster_options_pass_through():
    assert parse_cluster("local:3", None) == "local:3"
    assert parse_cluster(None, "tcp://127.0.0.1:8786") == "tcp://127.0.0.1:8786"
    assert parse_cluster(None, None) is None
