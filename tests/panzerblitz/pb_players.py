"""The engine's players (simulator/rulesets/panzerblitz/dispatch.py) for tests that call a phase of the
game kernel directly: the policy ids and parameters of both sides, as `replay.play` makes them."""

from __future__ import annotations

import numpy as np

from simulator import decisions
from simulator.rulesets.panzerblitz.dispatch import Players, new_players
from simulator.rulesets.panzerblitz.replay import bind_engine, policy_tables


def pb_players(t, st, policy, params, dec: decisions.Decisions | None = None) -> Players:
    """`policy`: int64[2] kernel ids (simulator/rulesets/panzerblitz/players/spec.py), `params`: float64[2, N_PARAMS]."""
    pl = new_players(np.asarray(policy, dtype=np.int64), np.asarray(params, dtype=np.float64), policy_tables(t),
                     st, t.unit_t, t.map_t, t.combat_t, dec or decisions.for_play(0))
    bind_engine(pl, st, t)
    return pl
