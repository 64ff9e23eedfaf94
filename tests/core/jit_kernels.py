"""Small cached kernels for tests/core/test_compile_together.py (a module, so that a helper
process can import them by name)."""

from simulator.jit import njit


@njit(cache=True)
def triple(x):
    return 3 * x


@njit(cache=True)
def square_plus_triple(x):
    return x * x + triple(x)


@njit(cache=True)
def halve(x):
    return x // 2


@njit(cache=True)
def twice(x):
    return 2 * x


@njit(cache=True)
def cube_plus_twice(x):
    return x * x * x + twice(x)
