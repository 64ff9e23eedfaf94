"""The game's event log: the kinds of event and `log_event`.

Every set-up, move, attack, die roll and result is a row (turn, phasing side, kind, a..g);
replay.py reads the fields of each kind back in words, the audit, the
loss map and the golden fingerprints read the log.
"""

from __future__ import annotations

from simulator.jit import njit
from simulator.rulesets.panzerblitz.state import N_EVENTS, PHASING, TURN

# Log event kinds (see replay.py for their fields).
EV_TURN, EV_SETUP, EV_ENTER, EV_MOVE, EV_ATTACK, EV_FIRER, EV_HIT, EV_MINE, EV_EXIT = 1, 2, 3, 4, 5, 6, 7, 8, 9
EV_RECOVER, EV_LOAD, EV_UNLOAD, EV_ELIMINATED_PASSENGER = 10, 11, 12, 13
EV_OVERRUN, EV_OVERRUNNER, EV_ASSAULT, EV_ASSAULTER = 14, 15, 16, 17   # overrun (PB-OVR), close assault (PB-CAT)
EV_SELF_DESTROYED, EV_MINE_REMOVAL = 18, 19   # voluntary destruction, mine removal (PB-MINE-9)
EV_INTENSIVE = 30   # a unit that fired intensively leaves the game (PB-OPT-AMMO-2)
# Forts with units on top (PB-FORT-2, PB-FORT-13, OQ-26): a unit moves between inside and on
# top of its fort; the fort owner's second roll, on his own fort; a unit eliminated as excess.
EV_FORT_SWITCH, EV_OWN_FORT_ATTACK, EV_EXCESS = 31, 32, 33
EV_SETUP_FAILED = 34  # a unit found no legal set-up hex (game.setup_side)
# The heuristic player's note of the best odds it had in reach at the start of its fire phase
# (a: the odds column, -1 none), read by the blunder audit (audit.py).
EV_FIRE_CHANCE = 35


@njit(cache=True)
def log_event(st, kind, a, b, c, d, e, f, g):
    k = st.clock[N_EVENTS]
    if k >= st.log.shape[0]:
        return
    row = st.log[k]
    row[0] = st.clock[TURN]
    row[1] = st.clock[PHASING]
    row[2] = kind
    row[3] = a
    row[4] = b
    row[5] = c
    row[6] = d
    row[7] = e
    row[8] = f
    row[9] = g
    st.clock[N_EVENTS] = k + 1
