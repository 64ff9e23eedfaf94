"""simulator/jit.py: kernels called with different constants are compiled once."""

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
