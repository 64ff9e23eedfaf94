"""Loaded by bench/cold_timeline.py into the cold-start process and its compile helper (through
PYTHONPATH): appends one JSON line per top-level kernel compile or cache load, per wait for
another process's compile lock, and the process's start and end, to $BALANCE_COLD_TRACE."""

import atexit
import json
import os
import sys
import time

_PATH = os.environ.get("BALANCE_COLD_TRACE")


def _write(**rec):
    rec.update(pid=os.getpid(), t=time.time(), cpu=time.process_time())
    with open(_PATH, "a") as fh:
        fh.write(json.dumps(rec) + "\n")


def _install():
    _write(ev="start", argv=sys.argv[1:3])
    atexit.register(lambda: _write(ev="end"))
    import simulator.jit as jit

    lock = jit.compile_lock
    compile_ = jit.KernelDispatcher.compile

    def compile(self, sig):
        top = jit._DEPTH[0] == 0
        name = f"{self.py_func.__module__}.{self.py_func.__qualname__}"
        if not top:
            misses = sum(self.stats.cache_misses.values())
            t0 = time.time()
            try:
                return compile_(self, sig)
            finally:
                if sum(self.stats.cache_misses.values()) > misses:
                    _write(ev="callee", name=name, t0=t0, depth=jit._DEPTH[0])
        misses = sum(self.stats.cache_misses.values())
        t0, c0 = time.time(), time.process_time()
        try:
            return compile_(self, sig)
        finally:
            _write(ev="kernel", name=name, t0=t0, cpu0=c0,
                   compiled=sum(self.stats.cache_misses.values()) > misses)

    class _Lock:
        def __init__(self, disp):
            self.cm = lock(disp)
            self.disp = disp

        def __enter__(self):
            t0 = time.time()
            self.cm.__enter__()
            if time.time() - t0 > 0.05:
                f = self.disp.py_func
                _write(ev="wait", name=f"{f.__module__}.{f.__qualname__}", t0=t0, depth=jit._DEPTH[0])

        def __exit__(self, *exc):
            return self.cm.__exit__(*exc)

    jit.KernelDispatcher.compile = compile
    jit.compile_lock = _Lock


if _PATH:
    _install()
