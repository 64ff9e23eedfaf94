"""Panzer Blitz assault (PB2-10; pbassault.py) in small positions on the converted classic card
pb-04: the declaration before the carrier moves (10.1.1), the free unloading next to the hex
(10.1, 4.3.7.4), the overrun, the infantry's close assault at once (10.1), the advance into a hex
the overrun emptied (10.1.5), who may assault from what (10.2.1), and stacking (10.1.4)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simulator.rulesets.panzerblitz_v2 import game, pbassault, transport
from simulator.rulesets.panzerblitz_v2.batch import play_one, prepare, violation
from simulator.rulesets.panzerblitz_v2.ruleset import RULESET
from simulator.rulesets.panzerblitz_v2.state import (
    CARRIED,
    EV_ADVANCE,
    EV_CAT,
    EV_OVERRUN,
    EV_OVR_MOVE,
    EV_UNLOAD,
)
from simulator.rulesets.panzerblitz_v2.tables import TR_HALF
from simulator.situation import load_situation
from tests.panzerblitz_v2.positions import events, state, units_of

PB04 = str(Path(__file__).resolve().parents[2] / "situations" / "panzerblitz-v2" / "classic" / "pb-04.toml")


@pytest.fixture(scope="module")
def p4():
    return prepare(load_situation(PB04))


def open_row(t, k):
    """k hexes in a row of clear terrain in the play area, each the neighbour of the last."""
    for h in range(t.n_hexes):
        row = [h]
        while len(row) < k:
            nxt = next((int(n) for n in t.neighbours[row[-1]] if n >= 0 and t.play[n] and t.cover[n] == 0
                        and not t.depression[n] and n not in row and all(t.dist[n, x] == len(row) - i
                                                                         for i, x in enumerate(row))), -1)
            if nxt < 0:
                break
            row.append(nxt)
        if len(row) == k and all(t.los[row[0], x] for x in row):
            return row
    raise AssertionError("no open ground")


def position(p, seed, policy=("random",)):
    """A German half-track with a rifle platoon aboard three hexes from a Russian 82 mm mortar
    (spotted), in the open; returns (state, carrier, passenger, defender, row)."""
    t = p.tables
    st = state(p, list(policy), seed)
    row = open_row(t, 4)
    ht = units_of(p, "sdkfz-251")[0]
    inf = units_of(p, "rifle-platoon-german-42")[0]
    foe = units_of(p, "82mm-mortar")[0]
    st.hex[ht] = st.hex[inf] = row[0]
    assert transport.may_load(t, st, ht, inf, row[0]) == TR_HALF
    transport.load(t, st, ht, inf, TR_HALF)
    st.hex[foe] = row[3]
    st.unspotted[foe] = False
    st.active[ht] = True
    return st, ht, inf, foe, row


def test_pb2_10_2_1_who_may_panzer_blitz_assault_from_what(p4):
    t = p4.tables
    st = state(p4)
    h = open_row(t, 1)[0]
    ht, tank = units_of(p4, "sdkfz-251")[0], units_of(p4, "t-34-c")[0]
    ger, rus = units_of(p4, "rifle-platoon-german-42")[0], units_of(p4, "rifle-company-43")[0]
    truck, rtruck = units_of(p4, "truck-german")[0], units_of(p4, "truck-russian")[0]
    for u in (ht, tank, ger, rus, truck, rtruck):
        st.hex[u] = h
    transport.load(t, st, ht, ger, TR_HALF)
    transport.load(t, st, tank, rus, TR_HALF)
    assert pbassault.may_pb_assault(t, st, ht, ger)          # infantry in a half-track (any nation)
    assert pbassault.may_pb_assault(t, st, tank, rus)        # Russian infantry riding a Russian AFV
    assert not t.t_overrun[t.u_type[rtruck]]
    st2 = state(p4)
    st2.hex[rtruck] = st2.hex[rus] = h
    transport.load(t, st2, rtruck, rus, TR_HALF)
    assert not pbassault.may_pb_assault(t, st2, rtruck, rus)  # a truck is not overrun-capable
    # a nation not in transport.panzer_blitz_assault.afv_nations may not assault from an AFV,
    # still may from a half-track (10.2.1: any nationality)
    ti = t.u_type[rus]
    t.t_pb_afv_rider[ti] = False
    try:
        assert not pbassault.may_pb_assault(t, st, tank, rus)
        st3 = state(p4)
        st3.hex[ht] = st3.hex[rus] = h
        transport.load(t, st3, ht, rus, TR_HALF)
        assert pbassault.may_pb_assault(t, st3, ht, rus)
    finally:
        t.t_pb_afv_rider[ti] = True


def test_pb2_10_1_declared_unload_free_overrun_then_cat_at_once(p4):
    """10.1.1 declared before moving (EV_OVR_MOVE's last field), 10.1 / 4.3.7.4 the passengers set
    down in the carrier's hex next to the target at no MP cost, the overrun, then their CAT (or,
    10.1.5, their advance into the hex the overrun emptied)."""
    t = p4.tables
    seen = {0: 0, 1: 0}
    cats = 0
    for seed in range(200):
        st, ht, inf, foe, row = position(p4, seed)
        game.try_overrun(t, st, ht)
        mv = events(st, EV_OVR_MOVE)
        if len(mv) == 0:
            continue
        declared = int(mv[0, 8])
        seen[declared] += 1
        frm = int(mv[0, 6])
        if not declared:
            assert st.carried_by[inf] == ht or st.hex[inf] != CARRIED    # aboard, unless fire forced it out
            assert len(events(st, EV_CAT)) == 0
            continue
        ev = st.ev[:st.n_ev[0]]
        order = [int(k) for k in ev[:, 2]]
        i_unload = next(i for i, e in enumerate(ev) if e[2] == EV_UNLOAD and e[5] == inf)
        assert ev[i_unload, 6] == frm and ev[i_unload, 7] == 1           # in the carrier's hex, by choice
        if st.hex[ht] >= 0 and not st.disrupted[ht] and EV_OVERRUN in order:
            i_ovr = order.index(EV_OVERRUN)
            assert i_unload < i_ovr                                        # unload, then the overrun
            after = order[i_ovr + 1:]
            if st.hex[inf] >= 0 and not st.disrupted[inf]:
                # the infantry close-assault at once, or advance into the emptied hex (10.1.5)
                assert EV_CAT in after or any(e[2] == EV_ADVANCE and e[4] == inf for e in ev[i_ovr + 1:]) \
                    or st.hex[inf] == frm
        assert st.carried_by[inf] < 0 and st.spent[inf]
        cats += len(events(st, EV_CAT)) > 0
    assert seen[1] > 0 and seen[0] > 0 and cats > 0     # the random player takes either row


def test_pb2_10_1_5_infantry_advance_into_the_hex_the_overrun_emptied(p4):
    t = p4.tables
    hits = 0
    for seed in range(400):
        st, ht, inf, foe, row = position(p4, seed)
        st.steps[foe] = 1                               # a reduced mortar: one step loss empties the hex
        game.try_overrun(t, st, ht)
        mv = events(st, EV_OVR_MOVE)
        if len(mv) == 0 or mv[0, 8] != 1 or st.hex[foe] >= 0 or len(events(st, EV_CAT)):
            continue
        if st.hex[inf] >= 0 and not st.disrupted[inf]:
            assert st.hex[inf] == row[3]                # no enemy left: it advanced (10.1.5)
            hits += 1
    assert hits > 0


def test_pb2_10_1_4_no_room_in_the_hex_no_unloading(p4):
    t = p4.tables
    st, ht, inf, foe, row = position(p4, 1)
    # fill the carrier's hex with friends so that the platoon could not be set down there
    extra = [u for u in units_of(p4, "truck-german")]
    for u in extra:
        st.hex[u] = row[0]
    out = np.empty(t.n_units, dtype=np.int64)
    assert pbassault.unload_for_assault(t, st, ht, out) == 0 and st.carried_by[inf] == ht


def test_pb2_10_heuristic_declares_and_games_stay_legal(p4):
    """The heuristic declares the assault when it may; a whole card with carriers plays in debug
    mode with no violation."""
    t = p4.tables
    st, ht, inf, foe, row = position(p4, 3, policy=("heuristic",))
    st.opts[0, 0] = 0
    assert pbassault.declare(t, st, ht, 5, 0, 1)
    for seed in range(20):
        g = play_one(p4, seed, RULESET.players.parse(["random"], p4.sides), debug=True)
        assert violation(g) is None
