"""`fire.defender_stack_listed` (a stack read through `units_by_hex`' lists) is `defender_stack`
(PB-STK-5, PB-WEC-2/6, PB-TRANS-6, PB-FORT-3/10/11): the same DF, target type, unit count and
dispersed count for every hex and both sides, on real games' positions and on hand-made ones
with a fort, units on top of it, a dispersed unit and a loaded truck."""

from __future__ import annotations

import numpy as np

from simulator.rulesets.panzerblitz.fire import defender_stack, defender_stack_listed, units_by_hex
from simulator.rulesets.panzerblitz.replay import play
from tests.panzerblitz.test_rules import GERMAN, RUSSIAN, unit_of
from tests.panzerblitz.test_rules_coverage_more import position


def _same_everywhere(t, st):
    n_hex = t.map_t.neighbours.shape[0]
    first = np.empty(n_hex, dtype=np.int64)
    nxt = np.empty(st.utype.shape[0], dtype=np.int64)
    units_by_hex(st, first, nxt)
    # the lists hold each unit on the map once, in its own hex, in unit order
    listed = []
    for h in range(n_hex):
        u = first[h]
        while u >= 0:
            assert st.hex[u] == h
            listed.append(u)
            assert nxt[u] < 0 or nxt[u] > u
            u = nxt[u]
    assert sorted(listed) == [u for u in range(st.utype.shape[0]) if st.hex[u] >= 0]
    checked = 0
    for h in range(n_hex):
        for side in (GERMAN, RUSSIAN):
            plain = defender_stack(st, t.unit_t, t.map_t, h, side)
            assert defender_stack_listed(st, t.unit_t, t.map_t, h, side, first, nxt) == plain, (h, side)
            checked += plain[2] > 0
    return checked


def test_pb_stk_5_listed_stacks_are_the_scanned_ones_in_real_games(tables_of):
    stacks = 0
    for sid in ("pb-01", "pb-04", "pb-12"):
        t = tables_of(sid)
        for seed in (1, 2):
            stacks += _same_everywhere(t, play(t, seed, ("heuristic", "heuristic")).state)
    assert stacks > 50


def test_pb_fort_10_listed_stacks_with_a_fort_units_on_top_a_dispersed_unit_and_a_loaded_truck(tmp_path):
    units = [("german", "fort-40", "3M6"), ("german", "rifle-platoon-german-42", "3M6"),
             ("russian", "rifle-company-43", "3M6"), ("russian", "t-34-c", "3M6"),
             ("german", "truck-german", "3M4"), ("german", "smg-platoon-german", "3M4"),
             ("russian", "smg-company-43", "3M5")]
    t, st = position(tmp_path, units)
    st.on_top[unit_of(t, st, "rifle-company-43")] = True
    st.on_top[unit_of(t, st, "t-34-c")] = True
    st.dispersed[unit_of(t, st, "rifle-company-43")] = True
    truck, smg = unit_of(t, st, "truck-german"), unit_of(t, st, "smg-platoon-german")
    st.carrying[truck] = smg
    st.carried_by[smg] = truck
    assert _same_everywhere(t, st) == 4
