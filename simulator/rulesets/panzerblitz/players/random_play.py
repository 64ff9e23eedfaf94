"""The random legal player: every choice uniform among the legal options the engine offers.

It is the baseline the heuristic players are measured against, and the way the rules engine
is exercised before they exist.  PanzerBlitz's dispatcher (simulator/panzerblitz/dispatch.py)
asks it through `random_answer` for every decision of a side it plays, and lets it plan the
fire and close-assault declarations of a phase (`random_plan_fire`, `random_plan_assaults`:
one unit after another in a random order).  It draws only from the players' stream (the
game's `Decisions.rng`, simulator/decisions.py), never from the dice: a game's dice depend on
its seed and the choices made, so its recorded decisions replay it without the players.  Its
uniform pick is the core's `random_option`; what it adds for PanzerBlitz is the chance of
answering "none" to each kind (holding fire, staying put, not loading, ...).
"""

from __future__ import annotations

import numpy as np
from numba.np.random.random_methods import random_interval

from simulator.decisions import random_option
from simulator.jit import njit
from simulator.rulesets.panzerblitz.decision_kinds import (
    ASSAULT_TARGET,
    ENTRY_BOARD,
    FIRE_TARGET,
    FORT_SWITCH,
    INTENSIVE,
    LOAD,
    MINE_CLEAR,
    MOVE_DEST,
    OVERRUN_JOIN,
    PBA_DISMOUNT,
    RETURN,
    TECHNIQUE,
    UNLOAD,
)

RANDOM = 0  # kernel id (players/spec.py)

# Parameters (players/spec.py): random play holds fire or stays put now and then, so that
# games are not all-out brawls.
HOLD_FIRE, STAY_PUT = 0, 1


@njit(cache=True)
def choose(rng, params, kind, n_options):
    """Index of the chosen option in 0..n_options-1, or -1 for "none" where allowed; `rng`: the
    players' stream."""
    if n_options <= 0:
        return -1
    if (kind == FIRE_TARGET or kind == ASSAULT_TARGET) and rng.random() < params[HOLD_FIRE]:
        return -1
    if kind == MOVE_DEST and rng.random() < params[STAY_PUT]:
        return -1
    if kind == INTENSIVE:
        return 0 if rng.random() < 0.25 else -1
    if kind == ENTRY_BOARD:
        return random_option(rng, n_options) if rng.random() < 0.5 else -1
    if kind == LOAD or kind == UNLOAD or kind == MINE_CLEAR or kind == PBA_DISMOUNT or kind == FORT_SWITCH \
            or kind == RETURN:
        return 0 if rng.random() < 0.5 else -1
    return random_option(rng, n_options)


@njit(cache=True)
def random_answer(rng, kind, options, n, prm, plan, intensive, u):
    """The random player's answer to one decision of the dispatcher (rows `options[:n]`).  Fire
    and close-assault targets and intensive fire come from its plan of the phase."""
    if kind == FIRE_TARGET or kind == ASSAULT_TARGET:
        return plan[u]
    if kind == INTENSIVE:
        return 0 if intensive[u] else -1
    if kind == OVERRUN_JOIN:
        pick = choose(rng, prm, OVERRUN_JOIN, n + 1)  # one more: not joining
        return -1 if pick >= n else pick
    if kind == TECHNIQUE:
        # uniform among the techniques (TECHNIQUE column), a multiple attack on the most defenders
        j = choose(rng, prm, TECHNIQUE, _distinct(options, n))
        for i in range(n):
            if i == 0 or options[i, 0] != options[i - 1, 0]:
                if j == 0:
                    return i
                j -= 1
        return -1
    return choose(rng, prm, kind, n)


@njit(cache=True)
def _distinct(options, n):
    """How many techniques the rows offer (the rows of one technique are consecutive)."""
    k = 0
    for i in range(n):
        if i == 0 or options[i, 0] != options[i - 1, 0]:
            k += 1
    return k


@njit(cache=True)
def random_order(rng, n):
    """0..n-1 in a random order: the same order, from the same draws, as `rng.permutation(n)`
    (numba's Generator shuffle: Fisher-Yates from the end, each swap partner drawn by
    `random_interval`), without compiling numba's general shuffle of any array along any axis,
    about 7 s of a cold start (docs/performance.md).  tests/panzerblitz/test_random_order.py
    holds it to `rng.permutation`."""
    out = np.arange(n)
    for i in range(n - 1, 0, -1):
        j = np.int64(random_interval(rng.bit_generator, i))
        if i != j:
            x = out[i]
            out[i] = out[j]
            out[j] = x
    return out


@njit(cache=True)
def random_plan_fire(rng, prm, start, may_intensive, plan, intensive):
    """PB-SEQ-2 S2: every unit, in a random order, picks one of its `start[u + 1] - start[u]`
    targets or holds fire, and fires intensively now and then where it may (PB-OPT-AMMO-1).
    `plan[u]`: the row chosen among the unit's, or -1."""
    for u in random_order(rng, start.shape[0] - 1):
        i = choose(rng, prm, FIRE_TARGET, start[u + 1] - start[u])
        if i >= 0:
            plan[u] = i
            if may_intensive[u] and choose(rng, prm, INTENSIVE, 1) == 0:
                intensive[u] = True


@njit(cache=True)
def random_plan_assaults(rng, prm, n_cand, plan):
    """PB-CAT: every unit, in a random order, picks one of its `n_cand[u]` hexes or none."""
    for u in random_order(rng, n_cand.shape[0]):
        plan[u] = choose(rng, prm, ASSAULT_TARGET, n_cand[u])
