"""simulator/jit.py, compiling on two cores: a compile holds a lock shared by every process on
numba's cache (a second process waits, then loads instead of compiling again), and the helper
process of `compile_together` compiles into the cache what its parent then loads."""

from __future__ import annotations

import fcntl
import json
import os
import pickle
import subprocess
import sys
import time

from numba import types

from simulator._numba_cache import ROOT

SIG = (types.int64,)

# Compiles (or loads) the kernels named on the command line through compile_together, and prints
# numba's cache statistics and what the helper process compiled.
PROBE = """
import json, sys
from numba import types
from simulator.jit import LAST_HELPER, compile_together
from tests.core import jit_kernels as k
kernels = [getattr(k, name) for name in sys.argv[1:]]
done = compile_together([(d, (types.int64,)) for d in kernels])
print(json.dumps({"hits": {d.__name__: sum(d.stats.cache_hits.values()) for d in kernels},
                  "misses": {d.__name__: sum(d.stats.cache_misses.values()) for d in kernels},
                  "compiled": {d.__name__: len(d.signatures) for d in kernels},
                  "helper": list(LAST_HELPER), "done": len(done),
                  "value": int(k.square_plus_triple(4))}))
"""


def _env(cache, helper="1"):
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT), BALANCE_COMPILE_HELPER=helper)
    return env


def _probe(cache, *names, helper="1"):
    out = subprocess.run([sys.executable, "-c", PROBE, *names], cwd=ROOT, env=_env(cache, helper),
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_helper_process_compiles_into_the_cache_what_the_parent_then_loads(tmp_path):
    cache = tmp_path / "numba"
    jobs = [("tests.core.jit_kernels", name, SIG) for name in ("halve", "square_plus_triple")]
    out = subprocess.run([sys.executable, "-m", "simulator._compile_helper"], input=pickle.dumps(jobs), cwd=ROOT,
                         env=_env(cache, "0"), capture_output=True, check=True)
    assert out.stdout.decode().split() == ["tests.core.jit_kernels.halve", "tests.core.jit_kernels.square_plus_triple"]
    got = _probe(cache, "square_plus_triple", "halve")
    # both loaded from the cache, none compiled; nothing cold, so no helper was started
    assert got["hits"] == {"square_plus_triple": 1, "halve": 1}
    assert got["misses"] == {"square_plus_triple": 0, "halve": 0}
    assert got["helper"] == [] and got["done"] == 2 and got["value"] == 16 + 12


def test_a_cold_start_compiles_every_job_with_or_without_the_helper(tmp_path):
    for helper in ("1", "0"):
        got = _probe(tmp_path / f"numba{helper}", "square_plus_triple", "halve", "triple", helper=helper)
        assert got["compiled"] == {"square_plus_triple": 1, "halve": 1, "triple": 1}
        assert got["value"] == 28
        # what the helper compiled, this process loaded (a hit), and compiled the rest itself
        for name in got["helper"]:
            assert got["hits"][name.rsplit(".", 1)[1]] == 1
        if helper == "0":
            assert got["helper"] == []


def test_a_second_process_waits_for_the_compile_under_way_and_loads_it(tmp_path):
    cache = tmp_path / "numba"
    lock_dir = cache / ".locks"
    lock_dir.mkdir(parents=True)
    lock = lock_dir / "tests.core.jit_kernels.halve.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)  # as a process compiling `halve` holds it
    try:
        proc = subprocess.Popen([sys.executable, "-c", PROBE, "halve"], cwd=ROOT, env=_env(cache, "0"),
                                stdout=subprocess.PIPE, text=True)
        time.sleep(3.0)
        assert proc.poll() is None  # still waiting for the lock
    finally:
        os.close(fd)
    out, _ = proc.communicate(timeout=120)
    got = json.loads(out.strip().splitlines()[-1])
    assert got["compiled"] == {"halve": 1}  # nobody wrote the cache meanwhile: compiled here


def test_related_call_trees_share_a_half_and_unrelated_kernels_are_the_tail():
    # Each process compiles one half first, so kernels sharing callees are compiled in one
    # process; a kernel sharing nothing (as soa._make) is left to the end of both lists.
    from simulator.jit import largest_first, related_halves
    from tests.core import jit_kernels as k

    jobs = largest_first([(d, SIG) for d in (k.halve, k.triple, k.twice, k.square_plus_triple, k.cube_plus_twice)])
    first, second, tail = related_halves(jobs)
    names = {frozenset(d.__name__ for d, _ in half) for half in (first, second)}
    assert names == {frozenset({"square_plus_triple", "triple"}), frozenset({"cube_plus_twice", "twice"})}
    assert [d.__name__ for d, _ in first][0] == jobs[0][0].__name__  # the largest seeds the first half
    assert tail == [(k.halve, SIG)]
