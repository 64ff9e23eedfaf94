"""The rules' dice of a First Panzer Army game (FPA 2.0), from the game seed.

Marsaglia's xorshift128 on four 32-bit words held in int64 (no overflow in Python or numba, so
a game is the same compiled or with NUMBA_DISABLE_JIT=1).  The players' choices draw from the
core's players' stream instead (simulator/decisions.py, `Decisions.rng`): the dice a game rolls
depend only on its seed and on what was chosen, so its recorded decisions replay it with the
players removed.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit

MASK = 0xFFFFFFFF


def dice_state(seed: int) -> np.ndarray:
    """int64[4]: the dice stream's state for a game seed (never all zero)."""
    words = np.random.SeedSequence(int(seed)).generate_state(4, dtype=np.uint32).astype(np.int64)
    words[words == 0] = 1
    return words


@njit(cache=True)
def next_u32(st: np.ndarray) -> int:
    x = st[0]
    t = (x ^ ((x << 11) & MASK)) & MASK
    st[0] = st[1]
    st[1] = st[2]
    st[2] = st[3]
    w = st[3]
    w = (w ^ (w >> 19)) ^ (t ^ (t >> 8))
    st[3] = w & MASK
    return st[3]


@njit(cache=True)
def die(st: np.ndarray) -> int:
    """One six-sided die (FPA 2.0)."""
    return next_u32(st) % 6 + 1
