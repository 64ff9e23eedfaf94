"""The random legal player: every choice uniform among the legal options the engine offers.

It is the baseline the heuristic players are measured against, and the way the rules engine
is exercised before they exist.  Choices go through `choose`, the one entry point the game
kernel calls for every decision, so other policies plug in beside it.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit

RANDOM = 0  # kernel id (policies/spec.py)

# Decision kinds the engine asks about (the options' meaning is per kind; see game.py).
SETUP_HEX, FIRE_TARGET, MOVE_DEST, ENTRY_HEX, LOAD, UNLOAD, ASSAULT_TARGET, TECHNIQUE, MINE_CLEAR = range(9)
MOVE_ON = 9  # where an empty carrier goes on to after unloading (PB-TRANS-3); staying is an option
OVERRUN_JOIN = 10  # which path a unit joins another's overrun by (PB-OVR-4); the last option: not at all
# Optional rules (asked only when their switch is on): fire intensively (PB-OPT-AMMO), dismount
# at an overrun's entry hex to close-assault its target (PB-OPT-PBA).
INTENSIVE, PBA_DISMOUNT = 11, 12
# PB-FORT-2: a unit in its side's fort moves between inside and on top (its move this turn).
FORT_SWITCH = 13
MARCH_ORDER = 14  # which of the counters left goes next in a road-march column (PB-SIT-7)
RETURN = 15  # a unit off the map on a round trip comes back on now, or stays off (PB-SIT-5)
ENTRY_BOARD = 16  # which rider of its group boards an empty carrier before it enters; -1 none

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
