"""Two random streams a game (FPA rules' dice, players' choices), both from the game seed.

Marsaglia's xorshift128 on four 32-bit words held in int64 (no overflow in Python or numba, so
a game is the same compiled or with NUMBA_DISABLE_JIT=1).  Stream 0: the dice; stream 1: the
players.  A game's recorded decisions replay it with the players removed (engine.py).
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit

DICE, PLAYERS = 0, 1
MASK = 0xFFFFFFFF


def seed_streams(seed: int) -> np.ndarray:
    """int64[2, 4]: the two streams' states for a game seed."""
    words = np.random.SeedSequence(int(seed)).generate_state(8, dtype=np.uint32).astype(np.int64)
    words[words == 0] = 1
    return words.reshape(2, 4)


@njit(cache=True)
def next_u32(st: np.ndarray, s: int) -> int:
    x = st[s, 0]
    t = (x ^ ((x << 11) & MASK)) & MASK
    st[s, 0] = st[s, 1]
    st[s, 1] = st[s, 2]
    st[s, 2] = st[s, 3]
    w = st[s, 3]
    w = (w ^ (w >> 19)) ^ (t ^ (t >> 8))
    st[s, 3] = w & MASK
    return st[s, 3]


@njit(cache=True)
def randint(st: np.ndarray, s: int, n: int) -> int:
    """Uniform in 0..n-1."""
    return next_u32(st, s) % n


@njit(cache=True)
def die(st: np.ndarray) -> int:
    """One six-sided die on the dice stream (FPA 2.0)."""
    return next_u32(st, DICE) % 6 + 1


@njit(cache=True)
def uniform(st: np.ndarray, s: int) -> float:
    return next_u32(st, s) / 4294967296.0
