"""simulator/jit.py: kernels called with different constants are compiled once."""

import numpy as np

from simulator.jit import KernelDispatcher, njit

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
