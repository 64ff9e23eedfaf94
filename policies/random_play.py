"""The random legal player: every choice uniform among the legal options the engine offers.

It is the baseline the heuristic players are measured against, and the way the rules engine
is exercised before they exist.  Choices go through `choose`, the one entry point the game
kernel calls for every decision, so other policies plug in beside it.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit

# The kinds of decision are PanzerBlitz's (simulator/panzerblitz/decision_kinds.py); the engine
# still imports them from here until it asks one dispatcher (issue 17 phase B).
from simulator.panzerblitz.decision_kinds import (  # noqa: F401
    ASSAULT_TARGET,
    ENTRY_BOARD,
    ENTRY_HEX,
    FIRE_TARGET,
    FORT_SWITCH,
    INTENSIVE,
    LOAD,
    MARCH_ORDER,
    MINE_CLEAR,
    MOVE_DEST,
    MOVE_ON,
    OVERRUN_JOIN,
    PBA_DISMOUNT,
    RETURN,
    SETUP_HEX,
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
