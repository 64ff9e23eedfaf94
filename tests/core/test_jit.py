"""simulator/jit.py: kernels called with different constants are compiled once; kernels called
through their address (`Indirect`)."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from numba.core import errors, types

from simulator.jit import Indirect, KernelDispatcher, call, njit

# Not cached on disk: a caller loaded from numba's cache never compiles its callee, so on every
# run after the first the callee had no signature at all and this test failed.


@njit(cache=False)
def _scaled(x, factor, flag):
    return x * factor if flag else x


@njit(cache=False)
def _calls_with_constants(x):
    return _scaled(x, 2, True) + _scaled(x, 3, False) + _scaled(x, 4, True)


def test_a_callee_gets_one_signature_whatever_constants_its_callers_pass():
    assert _calls_with_constants(5) == 10 + 5 + 20
    assert isinstance(_scaled, KernelDispatcher)
    sigs = [tuple(str(a) for a in s) for s in _scaled.signatures]
    assert sigs == [("int64", "int64", "bool")]


@njit(cache=False)
def _index_of(a, b):
    return a * 10 + b


@njit(cache=False)
def _calls_with_int_types(table, n):
    total = 0
    for i in range(n):                               # int64
        total += _index_of(table[i], i)              # int32 from the table
        total += _index_of(np.uint64(i), np.int8(1))  # uint64, int8
    return total


def test_a_callee_gets_one_integer_type_per_argument():
    table = np.arange(3, dtype=np.int32)
    assert _calls_with_int_types(table, 3) == sum(10 * i + i for i in range(3)) + sum(10 * i + 1 for i in range(3))
    sigs = [tuple(str(a) for a in s) for s in _index_of.signatures]
    assert sigs == [("int64", "int64")]


# ----------------------------------------------------------------------------- indirect calls

@njit(cache=False)
def _add_into(x, out):
    out[0] += x
    return out[0]


@njit(cache=False)
def _note(out, flag):
    out[1] = 7 if flag else 3


_ADD = Indirect("test_jit.add_into", 0, _add_into, types.int64, (types.int64, types.int64[::1]))
_NOTE = Indirect("test_jit.note", 1, _note, types.none, (types.int64[::1], types.boolean))


@njit(cache=False)
def _through_table(table, x, out):
    total = 0
    for i in range(3):
        total += call(table, _ADD, x + i, out)
    call(table, _NOTE, out, x > 2)
    return total


@njit(cache=False)
def _wrong_type(table, out):
    return call(table, _ADD, 1.5, out)


def test_an_indirect_kernel_is_called_through_the_address_bound_in_the_table():
    table = np.zeros(2, dtype=np.int64)
    out = np.zeros(2, dtype=np.int64)
    with pytest.raises(RuntimeError, match="not bound"):
        _through_table(table, 1, out)
    _ADD.bind(table)
    _NOTE.bind(table)
    out[:] = 0
    assert _through_table(table, 1, out) == 1 + 3 + 6
    assert list(out) == [6, 3]
    # the callers hold a call through a pointer: the callee is compiled once, for the declared types
    assert [tuple(str(a) for a in s) for s in _ADD.kernel.signatures] == [("int64", "array(int64, 1d, C)")]


def test_a_call_with_an_argument_of_another_type_than_declared_does_not_compile():
    with pytest.raises(errors.TypingError, match="declared int64"):
        _wrong_type(np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.int64))


# Not cached: compiled afresh in each test run (a caller loaded from the cache compiles no callee).
@njit(cache=False)
def _inner_sum(a):
    total = 0
    for i in range(a.shape[0]):
        total += a[i] * (i + 1)
    return total


@njit(cache=False)
def _outer_sum(a):
    return _inner_sum(a) + 1


def test_a_callee_compiled_for_its_caller_is_neither_optimised_again_nor_emitted_until_used(monkeypatch):
    """A library compiled because its caller is being compiled is linked into the caller, whose
    module passes optimise the linked code and whose machine code contains it: the callee's own
    module passes are skipped and its machine code is emitted only when Python calls it
    (docs/performance.md, round 7); the caller, and a kernel compiled from Python, are optimised
    and emitted as numba does."""
    from simulator import jit

    optimised = []
    original = jit._LinkOnDemandLibrary._module_passes

    def record(lib):
        optimised.append(lib.name)
        original(lib)

    monkeypatch.setattr(jit._LinkOnDemandLibrary, "_module_passes", record)
    a = np.arange(5, dtype=np.int64)
    assert _outer_sum(a) == sum(int(v) * (i + 1) for i, v in enumerate(a)) + 1
    assert any("_outer_sum" in n for n in optimised)
    assert not any("_inner_sum" in n for n in optimised)
    (inner,) = _inner_sum.overloads.values()
    (outer,) = _outer_sum.overloads.values()
    assert inner.library._deferred and not outer.library._deferred
    assert _inner_sum(np.arange(3, dtype=np.int64)) == 0 + 2 + 6  # Python's call emits it
    assert not inner.library._deferred
    assert _inner_sum(np.arange(4, dtype=np.int64)) == 0 + 2 + 6 + 12  # now from numba's C table
    optimised.clear()
    assert _inner_sum(np.arange(3.0)) == 8.0  # a new signature compiled from Python: optimised
    assert any("_inner_sum" in n for n in optimised)


# ----------------------------------------------------------------------------- wrappers across processes
#
# A kernel compiled without its CPython wrapper (a callee, an indirect kernel: "Wrappers on demand"
# in simulator/jit.py) is cached so; another process that loads it from numba's cache and calls it
# from Python builds the wrapper then.  Round 8's version failed there ("returned NULL without
# setting an exception", `make demo` then the tests on the same cache): the wrapper of a cached
# kernel was built with numba's base context, without NRT, so it returned an array's `parent`
# (NULL) instead of boxing it.  Each case runs two processes on one cache folder.

CROSS_MODULE = """
import numpy as np
from numba import types
from simulator.jit import Indirect, call, njit

@njit(cache=True)
def evens(a):                       # returns an array: boxing it needs NRT
    out = np.zeros(a.shape[0], dtype=np.int64)
    for i in range(a.shape[0]):
        out[i] = a[i] % 2 == 0
    return out

@njit(cache=True)
def count_evens(a):
    return evens(a).sum()

@njit(cache=True)
def last_even(a):                   # returns a scalar
    for i in range(a.shape[0] - 1, -1, -1):
        if a[i] % 2 == 0:
            return a[i]
    return -1

@njit(cache=True)
def plus_one(a):
    return last_even(a) + 1

@njit(cache=True)
def doubled(a):
    return a * 2

DOUBLED = Indirect("cross.doubled", 0, doubled, types.int64[::1], (types.int64[::1],))

@njit(cache=True)
def through(table, a):
    return call(table, DOUBLED, a).sum()
"""

CROSS_PROBE = """
import json, sys
import numpy as np
import simulator.jit
import cross_kernels as k
a = np.arange(6, dtype=np.int64)
steps = {"caller": lambda: int(k.count_evens(a)) + int(k.plus_one(a)),
         "callee": lambda: [k.evens(a).tolist(), int(k.last_even(a))],
         "bind": lambda: (k.DOUBLED.bind(table), int(k.through(table, a)))[1],
         "indirect": lambda: k.doubled(a).tolist()}
table = np.zeros(1, dtype=np.int64)
print(json.dumps({s: steps[s]() for s in sys.argv[1:]}))
"""

EXPECTED = {"caller": 3 + 5, "callee": [[1, 0, 1, 0, 1, 0], 4], "bind": 30, "indirect": [0, 2, 4, 6, 8, 10]}


@pytest.mark.parametrize(("first", "second", "wrappers"), [
    ("caller", "callee", ("0", "0")),       # compiled as callees, called from Python elsewhere
    ("bind", "indirect", ("0", "0")),       # an indirect kernel, called from Python elsewhere
    ("callee", "caller", ("0", "0")),       # compiled with the wrapper, loaded as a callee elsewhere
    ("indirect", "bind", ("0", "0")),
    ("caller", "callee", ("1", "0")),       # BALANCE_KERNEL_WRAPPERS=1 (numba's wrappers) then not
    ("caller", "callee", ("0", "1")),
    ("bind", "indirect", ("0", "1")),
])
def test_a_kernel_cached_without_its_python_wrapper_is_called_from_python_in_another_process(
        tmp_path, first, second, wrappers):
    from simulator._numba_cache import ROOT

    (tmp_path / "cross_kernels.py").write_text(CROSS_MODULE)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "BALANCE_"))}
    env.update(NUMBA_CACHE_DIR=str(tmp_path / "numba"), PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}",
               BALANCE_COMPILE_HELPER="0")

    def run(steps, wrapper_flag):
        out = subprocess.run([sys.executable, "-c", CROSS_PROBE, *steps], cwd=tmp_path,
                             env=dict(env, BALANCE_KERNEL_WRAPPERS=wrapper_flag), capture_output=True, text=True)
        assert out.returncode == 0, out.stderr[-3000:]
        return json.loads(out.stdout.strip().splitlines()[-1])

    assert run([first], wrappers[0]) == {first: EXPECTED[first]}
    # the second process loads what the first compiled, and calls both ways
    assert run([second, first], wrappers[1]) == {second: EXPECTED[second], first: EXPECTED[first]}
