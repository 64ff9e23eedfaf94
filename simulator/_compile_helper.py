"""The helper process of `simulator.jit.compile_together`: compiles kernels into numba's disk
cache, going down the list its parent gives it (the other half of related call trees first,
then the parent's half: simulator/jit.py `compile_together`) and taking each job neither
process has taken yet, skipping what is cached.

Reads from stdin a pickled list of (module, function name, argument types); writes to stdout
the name of each kernel it compiled (not loaded).  Nothing else: no situation, no game.
"""

from __future__ import annotations

import importlib
import os
import pickle
import sys

import simulator  # noqa: F401  (the cache folder and locator, before numba loads)


def main() -> int:
    jobs = pickle.loads(sys.stdin.buffer.read())
    from simulator.jit import claimed, in_disk_cache

    parent = os.getppid()
    for module, name, argtypes in jobs:
        disp = getattr(importlib.import_module(module), name, None)
        if os.getppid() != parent:
            break  # the parent is gone
        if disp is None or argtypes in disp.overloads or in_disk_cache(disp, argtypes):
            continue  # done
        with claimed(disp) as mine:
            if not mine:
                continue  # being compiled by the parent
            misses = sum(disp.stats.cache_misses.values())
            disp.compile(argtypes)
            if sum(disp.stats.cache_misses.values()) > misses:  # not loaded after another's compile
                print(f"{module}.{name}", flush=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # the terminal's ^C reaches the parent too, which reports it
        sys.exit(130)
