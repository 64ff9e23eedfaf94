"""Dask scale-out: `--cluster local:N` / `--scheduler tcp://...` give the same tables as a local run,
also when a worker process is killed while it plays a batch (Dask reschedules the batch).
Real `distributed.LocalCluster`s of worker processes on loopback; every cluster is closed in a
fixture's teardown so no worker process outlives its test."""

from __future__ import annotations

import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from simulator.cli import main
from simulator.cluster import cluster_batch_size, parse_cluster
from simulator.errors import DataError
from simulator.rulesets.panzerblitz.players.spec import parse_side_policies
from simulator.runner import run
from simulator.situation import load_situation

distributed = pytest.importorskip("distributed")

GAMES = 16
SEED = 7
SLOW_BATCHES = Path(__file__).with_name("dask_slow_batches.py")
WAIT_S = 120  # generous: worker start-up and kernel loading on a loaded two-core machine


@pytest.fixture(scope="module")
def sit():
    return load_situation("pb-01")


@pytest.fixture(scope="module")
def rnd(sit):
    return parse_side_policies(["random"], sit.ruleset.sides)


@pytest.fixture(scope="module")
def local(sit, rnd):
    return run(sit, GAMES, SEED, rnd, workers=1, progress=False)


def by_game(games: pd.DataFrame, turns: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    g = games.sort_values("game", kind="stable").reset_index(drop=True)
    t = turns.sort_values(["game", "turn", "side"], kind="stable").reset_index(drop=True)
    return g, t


def assert_same_tables(a: tuple[pd.DataFrame, pd.DataFrame], b: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    (ga, ta), (gb, tb) = by_game(*a), by_game(*b)
    assert len(ga) == GAMES and list(ga["game"]) == list(range(GAMES))
    assert_frame_equal(ga, gb)
    assert_frame_equal(ta, tb)


@pytest.fixture
def slow_cluster():
    """Two worker processes whose batches each sleep first (tests/core/dask_slow_batches.py)."""
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None, preload=[str(SLOW_BATCHES)])
    client = distributed.Client(cluster, timeout="60s")
    try:
        yield cluster, client
    finally:
        client.close()
        cluster.close()


def test_cli_local_cluster_writes_the_tables_of_a_local_run(tmp_path):
    common = ["run", "pb-01", "--games", str(GAMES), "--seed", str(SEED), "--policy", "random", "--json"]
    assert main([*common, "--workers", "1", "--out", str(tmp_path / "local")]) == 0
    assert main([*common, "--cluster", "local:2", "--out", str(tmp_path / "dask")]) == 0
    tables = {k: (pd.read_parquet(tmp_path / k / "games.parquet"), pd.read_parquet(tmp_path / k / "turns.parquet"))
              for k in ("local", "dask")}
    assert_same_tables(tables["dask"], tables["local"])


def _executing(dask_worker) -> list[str]:
    return [str(ts.key) for ts in dask_worker.state.executing]


def _times_processing(key: str, dask_scheduler) -> int:
    """How often the scheduler sent the task `key` to a worker (its transition log)."""
    return sum(1 for t in dask_scheduler.story(key) if t[0] == key and t[2] == "processing")


def test_killed_worker_batch_is_rescheduled(sit, rnd, local, slow_cluster):
    cluster, client = slow_cluster
    pids = client.run(os.getpid)
    with ThreadPoolExecutor(1) as pool:
        # Batches of 4: each worker holds a batch for several seconds (the preload's sleep).
        future = pool.submit(run, sit, GAMES, SEED, rnd, progress=False, cluster=cluster.scheduler_address,
                             batch_size=4)
        victim, batch = None, None
        deadline = time.monotonic() + WAIT_S
        while batch is None and time.monotonic() < deadline and not future.done():
            for addr, keys in client.processing().items():
                if keys:  # assigned; ask the worker whether it is playing a batch right now
                    playing = [k for k in client.run(_executing, workers=[addr]).get(addr, [])
                               if k.startswith("play_batch")]
                    if playing:
                        victim, batch = addr, playing[0]
                        break
            else:
                time.sleep(0.1)
        assert batch is not None, "no worker was seen playing a batch"
        os.kill(pids[victim], signal.SIGKILL)
        result = future.result(timeout=WAIT_S)
    assert pids[victim] not in client.run(os.getpid).values()
    # The batch the dead worker was playing was sent to a worker again.
    assert client.run_on_scheduler(_times_processing, batch) >= 2
    assert_same_tables((result.games, result.turns), (local.games, local.turns))
    assert_frame_equal(result.games, local.games)  # also in game order as returned


@pytest.mark.parametrize("cluster, scheduler, field", [
    ("local:0", None, "--cluster"), ("remote:2", None, "--cluster"), (None, "127.0.0.1:8786", "--scheduler"),
    (None, "tcp://127.0.0.1", "--scheduler"), ("local:2", "tcp://127.0.0.1:8786", "--cluster/--scheduler"),
])
def test_bad_cluster_options_are_named(cluster, scheduler, field):
    with pytest.raises(DataError) as e:
        parse_cluster(cluster, scheduler)
    assert field in e.value.line()


def test_unreachable_scheduler_is_one_clear_line(monkeypatch, capsys):
    import socket

    from simulator import cluster

    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", "2s")
    argv = ["run", "pb-01", "--games", "2", "--policy", "random", "--scheduler", f"tcp://127.0.0.1:{port}"]
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(f"balance run: --scheduler: cannot connect to tcp://127.0.0.1:{port}")


@pytest.mark.parametrize("n_games, workers, size", [
    (3, 2, 1), (16, 2, 2), (40, 2, 5),  # small runs: 4 batches a worker, so the end stays balanced
    (200, 2, 25), (1000, 2, 100), (4000, 2, 200), (20_000, 8, 200),  # otherwise >= 100 games, as the pool when larger
])
def test_cluster_batches_are_big_unless_too_few_for_every_worker(n_games, workers, size):
    assert cluster_batch_size(n_games, workers) == size


def test_cluster_options_pass_through():
    assert parse_cluster("local:3", None) == "local:3"
    assert parse_cluster(None, "tcp://127.0.0.1:8786") == "tcp://127.0.0.1:8786"
    assert parse_cluster(None, None) is None


def test_compare_on_one_local_cluster_gives_the_local_figures(capsys):
    """`compare` (three runs) on one shared LocalCluster: the same figures as in-process runs."""
    import json

    common = ["compare", "pb-01", "--games", "8", "--seed", str(SEED), "--policy", "random", "--json",
              "--variant", "short:situation.turns=3"]
    assert main([*common, "--workers", "1"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert main([*common, "--cluster", "local:2"]) == 0
    dask = json.loads(capsys.readouterr().out)
    assert dask["variants"] == local["variants"] and dask["baseline"] == local["baseline"]
