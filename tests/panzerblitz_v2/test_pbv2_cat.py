"""Close assault (PB2-9; assault.py), round 8 A, in small positions on the Hill 112 board: a lone
attacker's split over both defender types (9.1.7, one roll 9.1.12) and no CAT by a unit that was
a passenger in the Operation (9.2.1); round 9: the split in a Panzer Blitz assault's close assault
(10.1 with 9.1.7, pbassault.py).  9.2.5 (bridges) is in test_pbv2_overrun.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simulator.decisions import finished, for_record
from simulator.rulesets.panzerblitz_v2 import assault, game, pbassault, transport
from simulator.rulesets.panzerblitz_v2.batch import player_arrays, prepare
from simulator.rulesets.panzerblitz_v2.combat import ap2, ap_column, at_column, at_value, df_value
from simulator.rulesets.panzerblitz_v2.players import CAT, DECISION_KINDS
from simulator.rulesets.panzerblitz_v2.ruleset import RULESET
from simulator.rulesets.panzerblitz_v2.state import EV_CAT, EV_CAT_SPLIT, new_state
from simulator.rulesets.panzerblitz_v2.tables import TR_HALF
from simulator.situation import load_situation
from tests.panzerblitz_v2.positions import events, state, units_of
from tests.panzerblitz_v2.test_pbv2_overrun import open_row

HOD = str(Path(__file__).resolve().parents[2] / "situations" / "panzerblitz-v2" / "hod-0{}.toml")


@pytest.fixture(scope="module")
def p1():
    return prepare(load_situation(HOD.format(1)))


def _position(p, seed, attackers=1):
    """`attackers` SS panzergrenadier platoons next to a hex holding a British motor platoon and a
    Universal Carrier, all spotted, the Germans active and fresh."""
    t = p.tables
    st = state(p, ["random"], seed)
    row = open_row(t, 2)
    ss = units_of(p, "de-ss-panzergrenadier-platoon")[:attackers]
    for u in ss:
        st.hex[u] = row[0]
        st.active[u] = True
    inf, carrier = units_of(p, "gb-motor-platoon")[0], units_of(p, "gb-universal-carrier")[0]
    st.hex[inf] = st.hex[carrier] = row[1]
    st.unspotted[:] = False
    return t, st, ss, inf, carrier, row


def _rows(st, n):
    return [tuple(int(x) for x in st.opts[i, :9]) for i in range(1, n)]


def test_pb2_9_1_7_a_lone_attacker_splits_its_factors_in_half(p1):
    t, st, (ss,), inf, carrier, row = _position(p1, 1)
    side = int(t.u_side[ss])
    rows = _rows(st, assault.cat_options(t, st, side))
    split = [r for r in rows if r[1] == 3]
    assert len(split) == 1 and {r[1] for r in rows} == {0, 1, 3}
    r = split[0]
    c_soft = ap_column(t, (ap2(t, st, ss) // 4) * 2, df_value(t, st, inf))   # AP 4 -> 2, fractions dropped
    c_arm = at_column(t, at_value(t, st, ss) // 2 - df_value(t, st, carrier))   # AT 2 -> 1
    assert r[:3] == (row[1], 3, 1) and r[3] == c_soft and r[5] == 1 and r[8] > 0
    assert assault.split_columns(t, st, ss, np.array([inf]), 1, np.array([carrier]), 1) == (c_soft, c_arm)
    # two attackers: none may split (9.1.6)
    t, st, ss2, inf, carrier, row = _position(p1, 1, attackers=2)
    assert all(x[1] != 3 for x in _rows(st, assault.cat_options(t, st, side)))
    # the split resolved: both halves, one roll (9.1.12)
    seen = 0
    for seed in range(80):
        t, st, (ss,), inf, carrier, row = _position(p1, seed)
        att = np.array([ss] + [0] * (t.n_units - 1), dtype=np.int64)
        assault.resolve_cat(t, st, att, 1, row[1], 3, side, np.empty(t.n_units, dtype=np.int64))
        cat = events(st, EV_CAT)
        if len(cat) == 0:
            continue                                                # disrupted by reaction fire
        assert len(cat) == 2 and cat[0, 6] == cat[1, 6]
        assert sorted(int(x) for x in cat[:, 5]) == sorted((c_soft, c_arm))
        assert st.spent[ss]
        seen += 1
    assert seen > 0


def test_pb2_9_2_1_a_unit_that_was_a_passenger_in_the_operation_may_not_close_assault(p1):
    """A platoon set down next to the enemy by a carrier may not CAT in that Operation, even were it
    fresh and active (the unloading also Spends it, 4.3.4); in the next Operation it may."""
    t = p1.tables
    st = state(p1, ["random"])
    row = open_row(t, 2)
    carrier, inf = units_of(p1, "gb-universal-carrier")[0], units_of(p1, "gb-motor-platoon")[0]
    foe = units_of(p1, "de-ss-panzergrenadier-platoon")[0]
    st.hex[carrier] = st.hex[inf] = row[0]
    st.hex[foe] = row[1]
    st.unspotted[:] = False
    st.opfired[:] = True                                            # (no opportunity fire at the unloading)
    transport.load(t, st, carrier, inf, TR_HALF)
    assert game.unload_step(t, st, carrier, 0, False, False) == TR_HALF
    assert st.hex[inf] == row[0] and st.spent[inf]
    side = int(t.u_side[inf])
    st.spent[inf] = False                                           # as if fresh and activated
    st.active[inf] = True
    assert not assault.cat_eligible(t, st, inf, side)               # 9.2.1
    st.op[0] += 1                                                   # the next Operation
    assert assault.cat_eligible(t, st, inf, side)


def _unloaded_for_pb_assault(p, seed, riders=1, policy=("random",), record=False):
    """The position of `_position` as a Panzer Blitz assault leaves it (10.1, 4.3.7.4): the SS
    platoons were set down next to the hex in this Operation (Spent, passengers of it: no plain CAT
    for them, 9.2.1) and close-assault it at once; the players' decisions recorded if asked."""
    t = p.tables
    kinds, params = player_arrays(RULESET.players.parse(list(policy), p.sides), p.sides)
    st = new_state(t, seed, kinds, params, for_record(seed) if record else None)
    st.turn[0] = 1
    st.op[0] = 1
    row = open_row(t, 2)
    ss = units_of(p, "de-ss-panzergrenadier-platoon")[:riders]
    for u in ss:
        st.hex[u] = row[0]
        st.active[u] = True
        st.spent[u] = True
        st.carried_op[u] = st.op[0]
    inf, carrier = units_of(p, "gb-motor-platoon")[0], units_of(p, "gb-universal-carrier")[0]
    st.hex[inf] = st.hex[carrier] = row[1]
    st.unspotted[:] = False
    return t, st, np.array(ss + [0] * (t.n_units - riders), dtype=np.int64), inf, carrier, row


def test_pb2_10_1_5_with_9_1_7_a_lone_panzer_blitz_assaulter_splits_its_factors_in_half(p1):
    """10.1 / 10.2 with 9.1.7: the one infantry unit a Panzer Blitz assault unloaded may split its
    factors over both defender types of the hex, as a lone close assaulter does (the same row,
    assault.split_row; one roll 9.1.12); two unloaded units may not (9.1.6).  The random player
    takes the split and the plain rows."""
    t = p1.tables
    t_, st, att, inf, carrier, row = _unloaded_for_pb_assault(p1, 1, record=True)
    ss = int(att[0])
    side = int(t.u_side[ss])
    assert not assault.cat_eligible(t, st, ss, side) and assault.lone_attacker(t, st, row[1], side, att.copy()) < 0
    pbassault.assault_after_overrun(t, st, att.copy(), 1, row[1], side)
    rec = finished(st.dec, DECISION_KINDS)
    cats = rec[rec[:, 0] == CAT]
    assert len(cats) == 1 and cats[0, 1] == 3                       # non-armored, armored, split
    assert sorted(int(st.opts[i, 1]) for i in range(3)) == [0, 1, 3]
    split = next(i for i in range(3) if st.opts[i, 1] == 3)
    got = tuple(int(x) for x in st.opts[split, :9])
    # the very row close assault offers the same unit when it may CAT (assault.split_option)
    t_, st2, (ss2,), inf2, carrier2, row2 = _position(p1, 1)
    rows = _rows(st2, assault.cat_options(t, st2, side))
    assert [r for r in rows if r[1] == 3] == [got]
    # two unloaded platoons: the plain types only (9.1.6)
    t_, st, att2, inf, carrier, row = _unloaded_for_pb_assault(p1, 1, riders=2, record=True)
    pbassault.assault_after_overrun(t, st, att2.copy(), 2, row[1], side)
    rec = finished(st.dec, DECISION_KINDS)
    assert rec[rec[:, 0] == CAT][0, 1] == 2
    # the random player's split, resolved: both halves on one roll
    c_soft, c_arm = assault.split_columns(t, st2, ss, np.array([inf]), 1, np.array([carrier]), 1)
    split_seen = plain_seen = 0
    for seed in range(60):
        t_, st, att, inf, carrier, row = _unloaded_for_pb_assault(p1, seed)
        pbassault.assault_after_overrun(t, st, att.copy(), 1, row[1], side)
        if len(events(st, EV_CAT_SPLIT)):
            split_seen += 1
            cat = events(st, EV_CAT)
            if len(cat):                                            # (none if reaction fire disrupted it)
                assert len(cat) == 2 and cat[0, 6] == cat[1, 6]
                assert sorted(int(x) for x in cat[:, 5]) == sorted((c_soft, c_arm))
        elif len(events(st, EV_CAT)):
            plain_seen += 1
        assert st.spent[ss] and st.fired[ss]
    assert split_seen > 0 and plain_seen > 0
