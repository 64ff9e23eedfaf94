"""numba's disk cache is found again by a checkout at another path (simulator/_numba_cache.py,
CheckoutCacheLocator): a fresh clone of the same sources loads the kernels instead of compiling."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from simulator._numba_cache import ROOT, checkout_subfolder

# Compiles (or loads) one small kernel of the checkout on sys.path[0] and prints numba's cache
# statistics of that dispatcher and the file it came from.
PROBE = """
import json, sys
import numpy as np
from simulator import hexgrid
q = np.arange(4, dtype=np.int32)
hexgrid.hex_distance(q, q, 0, 3)
s = hexgrid.hex_distance.stats
print(json.dumps({"hits": sum(s.cache_hits.values()), "misses": sum(s.cache_misses.values()),
                  "file": hexgrid.__file__}))
"""


def _probe(checkout: Path, cache: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(checkout))
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=checkout, env=env, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_copy_of_the_checkout_at_another_path_reuses_the_cache(tmp_path):
    clone = tmp_path / "elsewhere" / "clone"
    for pkg in ("simulator", "policies"):
        shutil.copytree(ROOT / pkg, clone / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "numba"
    first = _probe(clone, cache)
    assert first["file"].startswith(str(clone)) and first["misses"] == 1 and first["hits"] == 0
    assert (cache / "checkout_simulator").is_dir()
    again = _probe(ROOT, cache)  # the real checkout, another absolute path, same sources
    assert again["file"].startswith(str(ROOT)) and (again["hits"], again["misses"]) == (1, 0)
    # An edited kernel file is compiled again, not loaded stale.
    src = clone / "simulator" / "hexgrid.py"
    src.write_text(src.read_text().replace("Number of hex steps", "Hex steps"))
    edited = _probe(clone, cache)
    assert (edited["hits"], edited["misses"]) == (0, 1)


def test_subfolder_is_the_place_in_the_checkout():
    assert checkout_subfolder(ROOT / "simulator" / "rulesets" / "panzerblitz" / "game.py") == "checkout_simulator_rulesets_panzerblitz"
    assert checkout_subfolder(ROOT / "simulator" / "rulesets" / "panzerblitz" / "players" / "heuristic.py") == \
        "checkout_simulator_rulesets_panzerblitz_players"
    assert checkout_subfolder(Path("/") / "elsewhere" / "x.py") is None


# Loads hex_distance from the cache (the previous probe compiled it), then compiles a new kernel
# that calls it: numba links the loaded kernel's module, which simulator/jit.py parses only then.
LINK_PROBE = """
import json
import numpy as np
import simulator.jit
from numba import njit
from simulator import hexgrid
q = np.arange(4, dtype=np.int32)
hexgrid.hex_distance(q, q, 0, 3)
lib = hexgrid.hex_distance.overloads[hexgrid.hex_distance.signatures[0]].library
parsed_at_load = lib._shared_module is not None
@njit(cache=False)
def twice(q, r):
    return 2 * hexgrid.hex_distance(q, r, 0, 3)
print(json.dumps({"hits": sum(hexgrid.hex_distance.stats.cache_hits.values()), "parsed_at_load": parsed_at_load,
                  "class": type(lib).__name__, "twice": int(twice(q, q)), "expected": int(2 * hexgrid.hex_distance(q, q, 0, 3))}))
"""


def test_a_kernel_loaded_from_the_cache_keeps_its_link_module_unparsed_until_linked(tmp_path):
    cache = tmp_path / "numba"
    _probe(ROOT, cache)  # compiles into the cache
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", LINK_PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                         check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["hits"] == 1 and got["class"] == "_LinkOnDemandLibrary"
    assert not got["parsed_at_load"]
    assert got["twice"] == got["expected"]


# Two cached kernels, the second calling the first: in a first process the caller compiles the
# callee, whose machine code is not emitted (simulator/jit.py, `_LinkOnDemandLibrary`) and which
# is cached as LLVM bitcode; a second process calls the callee from Python.
CALLEE_MODULE = """
from simulator.jit import njit

@njit(cache=True)
def last_even(a):
    for i in range(a.shape[0] - 1, -1, -1):
        if a[i] % 2 == 0:
            return a[i]
    return -1

@njit(cache=True)
def plus_one(a):
    return last_even(a) + 1
"""

CALLEE_PROBE = """
import json, sys
import numpy as np
import simulator.jit
import callee_kernels as k
a = np.arange(6, dtype=np.int64)
if sys.argv[1] == "caller":
    got = int(k.plus_one(a))
    (cres,) = k.last_even.overloads.values()
    print(json.dumps({"got": got, "deferred": cres.library._deferred}))
else:
    got = int(k.last_even(a))
    print(json.dumps({"got": got, "hits": sum(k.last_even.stats.cache_hits.values()),
                      "misses": sum(k.last_even.stats.cache_misses.values())}))
"""


def test_a_callee_cached_unemitted_is_loaded_and_emitted_when_python_calls_it(tmp_path):
    (tmp_path / "callee_kernels.py").write_text(CALLEE_MODULE)
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(NUMBA_CACHE_DIR=str(tmp_path / "numba"), PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")

    def run(mode):
        out = subprocess.run([sys.executable, "-c", CALLEE_PROBE, mode], cwd=tmp_path, env=env,
                             capture_output=True, text=True, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])

    expected = 4  # the last even number of 0..5
    first = run("caller")
    assert first == {"got": expected + 1, "deferred": True}
    again = run("callee")
    assert again == {"got": expected, "hits": 1, "misses": 0}
