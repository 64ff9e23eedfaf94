"""The random legal player: every choice uniform among the legal options the engine offers.

It is the baseline the heuristic players are measured against, and the way the rules engine
is exercised before they exist.  PanzerBlitz's dispatcher (simulator/panzerblitz/dispatch.py)
asks it through `random_answer` for every decision of a side it plays, and lets it plan the
fire and close-assault declarations of a phase (`random_plan_fire`, `random_plan_assaults`:
one unit after another in a random order, as it has always drawn them, so that every game
stays the same).  It draws from the dice's generator; the core's `random_option` on the
players' stream (simulator/decisions.py) replaces it when the streams are split.
"""

from __future__ import annotations

import numpy as np

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

RANDOM = 0  # kernel id (policies/spec.py)

# Parameters (policies/spec.py): random play holds fire or stays put now and then, so that
# games are not all-out brawls.
HOLD_FIRE, STAY_PUT = 0, 1


@njit(cache=True)
def choose(policy, params, kind, n_options):
    """Index of the chosen option in 0..n_options-1, or -1 for "none" where allowed."""
    if n_options <= 0:
        return -1
    if (kind == FIRE_TARGET or kind == ASSAULT_TARGET) and np.random.random() < params[HOLD_FIRE]:
        return -1
    if kind == MOVE_DEST and np.random.random() < params[STAY_PUT]:
        return -1
    if kind == INTENSIVE:
        return 0 if np.random.random() < 0.25 else -1
    if kind == ENTRY_BOARD:
        return np.random.randint(0, n_options) if np.random.random() < 0.5 else -1
    if kind == LOAD or kind == UNLOAD or kind == MINE_CLEAR or kind == PBA_DISMOUNT or kind == FORT_SWITCH \
            or kind == RETURN:
        return 0 if np.random.random() < 0.5 else -1
    return np.random.randint(0, n_options)


@njit(cache=True)
def random_answer(kind, options, n, prm, plan, intensive, u):
    """The random player's answer to one decision of the dispatcher (rows `options[:n]`).  Fire
    and close-assault targets and intensive fire come from its plan of the phase."""
    if kind == FIRE_TARGET or kind == ASSAULT_TARGET:
        return plan[u]
    if kind == INTENSIVE:
        return 0 if intensive[u] else -1
    if kind == OVERRUN_JOIN:
        pick = choose(RANDOM, prm, OVERRUN_JOIN, n + 1)  # one more: not joining
        return -1 if pick >= n else pick
    if kind == TECHNIQUE:
        # uniform among the techniques (TECHNIQUE column), a multiple attack on the most defenders
        j = choose(RANDOM, prm, TECHNIQUE, _distinct(options, n))
        for i in range(n):
            if i == 0 or options[i, 0] != options[i - 1, 0]:
                if j == 0:
                    return i
                j -= 1
        return -1
    return choose(RANDOM, prm, kind, n)


@njit(cache=True)
def _distinct(options, n):
    """How many techniques the rows offer (the rows of one technique are consecutive)."""
    k = 0
    for i in range(n):
        if i == 0 or options[i, 0] != options[i - 1, 0]:
            k += 1
    return k


@njit(cache=True)
def random_plan_fire(prm, start, may_intensive, plan, intensive):
    """PB-SEQ-2 S2: every unit, in a random order, picks one of its `start[u + 1] - start[u]`
    targets or holds fire, and fires intensively now and then where it may (PB-OPT-AMMO-1).
    `plan[u]`: the row chosen among the unit's, or -1."""
    for u in np.random.permutation(start.shape[0] - 1):
        i = choose(RANDOM, prm, FIRE_TARGET, start[u + 1] - start[u])
        if i >= 0:
            plan[u] = i
            if may_intensive[u] and choose(RANDOM, prm, INTENSIVE, 1) == 0:
                intensive[u] = True


@njit(cache=True)
def random_plan_assaults(prm, n_cand, plan):
    """PB-CAT: every unit, in a random order, picks one of its `n_cand[u]` hexes or none."""
    for u in np.random.permutation(n_cand.shape[0]):
        plan[u] = choose(RANDOM, prm, ASSAULT_TARGET, n_cand[u])
