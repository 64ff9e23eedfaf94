"""The heuristic's enemy fields kept across a player-turn (issue 22 item 2, dispatch.read_enemy):
the enemy part is read again only when an enemy unit or a minefield changed, and the fields
the heuristic reads are then those a new reading gives."""

from __future__ import annotations

import numpy as np

from simulator.rulesets.panzerblitz.dispatch import read_enemy
from simulator.rulesets.panzerblitz.players.heuristic import (
    N_FIELDS,
    OWN_NEAR,
    THREAT_SOFT,
    enemy_fields,
)
from simulator.rulesets.panzerblitz.replay import policy_tables
from simulator.rulesets.panzerblitz.state import ELIMINATED
from tests.panzerblitz.pb_players import pb_players
from tests.panzerblitz.test_policies import heuristic_players
from tests.panzerblitz.test_rules import GERMAN, RUSSIAN, hexn, position, unit_of


def _fresh(t, st, pl, side):
    fields = np.zeros((N_FIELDS, t.situation.map.n_hexes), dtype=np.int64)
    enemy_fields(st, t.unit_t, t.map_t, t.combat_t, policy_tables(t), pl.params[side], side, fields)
    return fields


def _read(t, st, pl, side, anew=False):
    read_enemy(st, t.unit_t, t.map_t, t.combat_t, side, pl, anew)
    return pl.ws.fields


def test_enemy_part_kept_while_the_enemy_stands_and_read_again_when_it_changes(tmp_path):
    units = [("german", "pzkw-iv-h", "3K4"), ("german", "rifle-platoon-german-42", "3K5"),
             ("russian", "t-34-c", "3K8"), ("russian", "rifle-company-43", "3M6")]
    t, st = position(tmp_path, units)
    policy, params = heuristic_players()
    pl = pb_players(t, st, policy, params)
    assert (_read(t, st, pl, GERMAN, anew=True) == _fresh(t, st, pl, GERMAN)).all()
    # A mark in the enemy part shows whether it was kept (it is a copy of the last reading).
    pl.ws.fields[THREAT_SOFT, 0] += 1000
    # The side's own unit moves (S4 to S5): the enemy part is kept, the own part read again.
    tank = unit_of(t, st, "pzkw-iv-h")
    st.hex[tank] = hexn(t, "3K6")
    fields = _read(t, st, pl, GERMAN)
    assert fields[THREAT_SOFT, 0] == _fresh(t, st, pl, GERMAN)[THREAT_SOFT, 0] + 1000
    fresh = _fresh(t, st, pl, GERMAN)
    fresh[THREAT_SOFT, 0] += 1000
    assert (fields == fresh).all()
    assert (fields[OWN_NEAR] == _fresh(t, st, pl, GERMAN)[OWN_NEAR]).all()
    # Each change of the enemy that its part reads makes a new reading.
    t34 = unit_of(t, st, "t-34-c")
    rifles = unit_of(t, st, "rifle-company-43")
    changes = [
        lambda: st.dispersed.__setitem__(t34, True),           # hit by fire (PB-CRT)
        lambda: st.hex.__setitem__(rifles, hexn(t, "3M7")),      # moved
        lambda: st.status.__setitem__(rifles, ELIMINATED),       # eliminated
        lambda: st.mine.__setitem__(hexn(t, "3K7"), True),       # a minefield (PB-MINE)
    ]
    for change in changes:
        pl.ws.fields[THREAT_SOFT, 0] += 1000
        change()
        assert (_read(t, st, pl, GERMAN) == _fresh(t, st, pl, GERMAN)).all()
    # The other side's reading is never the kept one.
    pl.ws.fields[THREAT_SOFT, 0] += 1000
    assert (_read(t, st, pl, RUSSIAN) == _fresh(t, st, pl, RUSSIAN)).all()
