"""Dask worker preload used by tests/core/test_cluster.py (test only): every batch sleeps first, so the
test can kill a worker while it is surely in the middle of one.

Tasks name `simulator.cluster.play_batch` by reference, so replacing it in the worker process
slows exactly the batches, without a test hook in the package.
"""

from __future__ import annotations

import time

import simulator.cluster as cluster

DELAY_S = 3.0
_play = cluster.play_batch


def _slow_play_batch(*args):
    time.sleep(DELAY_S)  # sleeping releases the GIL: the worker still answers the test's calls
    return _play(*args)


def dask_setup(worker) -> None:
    cluster.play_batch = _slow_play_batch
