"""The dice of a game (engine.md): splitmix64 (Steele, Lea and Flood 2014) on a uint64 word
seeded from the game's seed.  The players' choices draw from the other stream, the core's
`simulator.decisions.player_stream` (in `Decisions.rng`), so that a game's recorded decisions
replay it with the players removed: the dice never depend on what the players drew.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit

DICE = 0
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)


def seed_streams(seed: int) -> np.ndarray:
    """uint64[1]: the dice stream of a game."""
    base = np.uint64(seed & 0xFFFFFFFFFFFFFFFF)
    with np.errstate(over="ignore"):
        return np.array([base * np.uint64(2) + np.uint64(1)], dtype=np.uint64)


@njit(cache=True)
def next_u64(streams, which):
    z = streams[which] + _GOLDEN
    streams[which] = z
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True)
def below(streams, which, n):
    """A whole number 0 <= k < n from a stream (n >= 1)."""
    return np.int64((next_u64(streams, which) >> _S11) % np.uint64(n))


@njit(cache=True)
def two_dice(streams):
    """A natural 2d6 roll from the dice stream (every roll of the system is 2d6, PB2-SRC-3)."""
    return below(streams, DICE, 6) + below(streams, DICE, 6) + 2


# the inverse of the stream's increment mod 2**64 (round 8 A): the number of draws between two
# words of a stream, for the attacks that share one roll (8.1.6, 9.1.12)
_GOLDEN_INV = np.uint64(17428512612931826493)


@njit(cache=True)
def draws_between(s0, s1):
    """How many draws took a stream from word s0 to word s1."""
    return (s1 - s0) * _GOLDEN_INV


@njit(cache=True)
def furthest(streams, s0, word, draws):
    """8.1.6, 9.1.12 (one roll for the attacks on one hex, each replayed from word s0): the word
    the stream should end at, `word` (after `draws` draws) or where it is now if further."""
    d = draws_between(s0, streams[DICE])
    if d > draws:
        return streams[DICE], d
    return word, draws
