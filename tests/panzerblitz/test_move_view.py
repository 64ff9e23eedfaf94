"""The movement view (simulator/rulesets/panzerblitz/move_view.py): the search's flags and the stacking
loads kept up to date through a movement phase must always equal the ones worked out afresh
(presence.move_flags, swamp_road_stacks, stack_loads)."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.rulesets.panzerblitz.invariants import NAMES, VIEW_STALE
from simulator.rulesets.panzerblitz.move_view import (
    close_view,
    open_view,
    reach_of,
    view_loads,
    view_stale,
)
from simulator.rulesets.panzerblitz.movement import reachable
from simulator.rulesets.panzerblitz.presence import (
    move_flags,
    occupancy,
    place,
    stack_loads,
    swamp_road_stacks,
)
from simulator.rulesets.panzerblitz.replay import play
from simulator.rulesets.panzerblitz.state import VIEW_SIDE
from simulator.situation import builtin_situations
from tests.panzerblitz.test_rules import GERMAN, RUSSIAN, hexn, position, unit_of

SITUATIONS = [p.stem for p in builtin_situations()]


@pytest.mark.parametrize("sid", SITUATIONS)
def test_the_view_equals_a_recomputation_after_every_move(tables_of, sid):
    # Debug mode compares the view with move_flags / swamp_road_stacks / stack_loads after every
    # move of every movement phase (game.movement_phase); random play moves, loads, unloads and
    # overruns far more variously than the heuristic player, so both.
    t = tables_of(sid)
    for seed, players in ((0, ("random", "random")), (1, ("random", "random")), (2, ("heuristic", "heuristic"))):
        rec = play(t, seed, players, debug=True)
        assert rec.violation is None, (sid, seed, players, rec.violation)


def test_the_check_sees_a_stale_view(tmp_path):
    # A wreck dropped behind the view's back (the game only makes wrecks where a unit is lost,
    # which the view follows) must be seen as a stale view: the check can fail.
    t, st = position(tmp_path, [("german", "panther-g", "3F5"), ("russian", "t-34-c", "3F9")])
    ut, mt, mv = t.unit_t, t.map_t, t.move_t
    occ = occupancy(st, ut, mt.neighbours.shape[0])
    u = unit_of(t, st, "panther-g")
    open_view(st, ut, mt, GERMAN, occ)
    assert not view_stale(st, ut, mt, mv, GERMAN, u, occ)
    st.wrecks[hexn(t, "3F7"), RUSSIAN] += 1
    assert view_stale(st, ut, mt, mv, GERMAN, u, occ)
    assert "movement view" in NAMES[VIEW_STALE]
    close_view(st)
    assert not view_stale(st, ut, mt, mv, GERMAN, u, occ)  # closed: built afresh for each read


def test_a_move_is_followed_in_both_hexes(tmp_path):
    t, st = position(tmp_path, [("german", "panther-g", "3F5"), ("german", "panther-g", "3F6"),
                                ("russian", "t-34-c", "3F9")])
    ut, mt, mv = t.unit_t, t.map_t, t.move_t
    n_hex = mt.neighbours.shape[0]
    occ = occupancy(st, ut, n_hex)
    open_view(st, ut, mt, GERMAN, occ)
    assert st.clock[VIEW_SIDE] == GERMAN + 1
    u = unit_of(t, st, "panther-g")
    a, b = hexn(t, "3F5"), hexn(t, "3C5")
    place(st, u, b)
    occ[a, GERMAN] -= 1
    occ[b, GERMAN] += 1
    load = view_loads(st, ut, mt, GERMAN, occ)
    assert load[a, GERMAN] == 0 and load[b, GERMAN] == ut.stack_count[st.utype[u]]
    assert np.array_equal(load, stack_loads(st, ut, n_hex))
    # The search from the view gives what the search from freshly worked-out flags gives.
    cost, prev = np.empty(n_hex, np.int32), np.empty(n_hex, np.int32)
    mf = int(ut.movement[st.utype[u]])
    reach_of(st, ut, mt, mv, GERMAN, u, b, mf, occ, cost, prev)
    enemy, usable, clear, stop = move_flags(st, ut, mt, GERMAN, u, occ)
    soft = swamp_road_stacks(st, ut, mt, mv, GERMAN, u)
    fresh = np.empty(n_hex, np.int32)
    reachable(b, mf, mv.side_cost[ut.mclass[st.utype[u]]], mv.road_side, True, mv.road_cost, mv.swamp_stack_cost,
              mt.neighbours, usable, clear, soft, enemy, stop, st.block, fresh, prev)
    assert np.array_equal(cost, fresh)
    assert not view_stale(st, ut, mt, mv, GERMAN, u, occ)
