"""Helpers for the small positions of the v2 rule tests: counters by type, a fresh state with the
given players, the events of a kind."""

from __future__ import annotations

import numpy as np

from simulator.rulesets.panzerblitz_v2.batch import player_arrays
from simulator.rulesets.panzerblitz_v2.ruleset import RULESET
from simulator.rulesets.panzerblitz_v2.state import new_state


def units_of(p, type_id):
    """The counters of a type in the prepared situation p."""
    ti = p.type_ids.index(type_id)
    return [int(u) for u in np.flatnonzero(p.tables.u_type == ti)]


def state(p, policy=None, seed=1, turn=1):
    """A state before set-up (every counter off the map), turn `turn`, Operation 1."""
    kinds, params = player_arrays(RULESET.players.parse(None if policy is None else list(policy), p.sides), p.sides)
    st = new_state(p.tables, seed, kinds, params)
    st.turn[0] = turn
    st.op[0] = 1
    return st


def events(st, kind):
    """The rows of the game's event log of one kind."""
    ev = st.ev[:st.n_ev[0]]
    return ev[ev[:, 2] == kind]
