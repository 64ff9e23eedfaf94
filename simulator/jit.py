"""The project's `njit`: numba's, except that a kernel called from another kernel is compiled
once per argument *type*, not once per constant value passed to it.

numba types a constant argument (`log_event(st, EV_TURN, side, 0, ...)`, `movement_phase(...,
True, ...)`) as a literal and, when the callee is a jitted function, compiles a separate copy
of it for every combination of constants its callers pass.  Measured on a cold start of pb-01:
`log_event` 40 copies, `random_play.choose` 17, `movement_phase` 2 (the whole vehicle and
foot movement phase twice), 37 functions and ~32 s of the ~115 s of compilation
(docs/performance.md, "Cold start").  None of the kernels needs the literal: they take the
value as an ordinary argument.  `KernelDispatcher` widens literal argument types to their
ordinary types before numba picks or compiles a specialisation; calls from Python are already
typed that way.  tests/core/test_jit.py checks it (one signature for calls with different constants).

Likewise one integer type per argument: a hex or unit index reaches a kernel as int64 from a
loop, as int32 from a table (`neighbours[h, d]`), as uint64 from a `prange` loop, and numba
compiled a copy for each (a cold start of pb-04: `hex_distance` three times, `los_pair`,
`line_chain`, `end_levels`, `_band_blocked` and `log_event` twice; ~7 s).  Every integer scalar
argument is widened to int64 (the type numba's own integer arithmetic works in); the values are
indices, counts and codes far below 2**63, so the widening never changes one.
"""

from __future__ import annotations

import numba
from numba.core import types
from numba.core.registry import CPUDispatcher


def kernel_arg_type(ty):
    """The type a kernel is compiled for when another kernel passes it `ty`: no literal, and
    every integer scalar as int64."""
    ty = types.unliteral(ty)
    if isinstance(ty, types.Integer):
        return types.int64
    return ty


class KernelDispatcher(CPUDispatcher):
    """numba's CPU dispatcher, compiling callees for `kernel_arg_type` argument types."""

    def get_call_template(self, args, kws):
        # The hook numba's typing calls when another kernel calls this one (types.Dispatcher).
        args = tuple(kernel_arg_type(a) for a in args)
        kws = {k: kernel_arg_type(v) for k, v in kws.items()}
        return super().get_call_template(args, kws)


def njit(**options):
    """`numba.njit(**options)` (always with keyword options, e.g. `@njit(cache=True)`), with
    `KernelDispatcher` as the dispatcher; with NUMBA_DISABLE_JIT=1 the plain function."""

    def wrap(func):
        disp = numba.njit(**options)(func)
        if type(disp) is CPUDispatcher:  # a function when the JIT is disabled
            # numba's decorators offer no public way to pick a dispatcher class short of
            # registering a new compilation target; the subclass adds no state.
            disp.__class__ = KernelDispatcher
        return disp

    return wrap
