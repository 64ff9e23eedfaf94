"""Overrun (PB2-8; overrun.py, game.try_overrun / join_step), round 8 A, in small positions on the
Hill 112 board: several overrunners combining into one overrun (8.1.3), a lone overrunner's split
(8.1.4), overrunning again in the same move (8.1.9), bridges (8.2.1.7, 14.7.4), and no close
assault across an impassable bridge (9.2.5, 14.7.6)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simulator.rulesets.panzerblitz_v2 import assault, game, movement, overrun
from simulator.rulesets.panzerblitz_v2.batch import play_one, prepare, violation
from simulator.rulesets.panzerblitz_v2.combat import (
    ap2,
    ap_column,
    at_column,
    at_value,
    df_value,
    fire_column,
)
from simulator.rulesets.panzerblitz_v2.ruleset import RULESET
from simulator.rulesets.panzerblitz_v2.state import (
    EV_ADVANCE,
    EV_OVERRUN,
    EV_OVR_JOIN,
    EV_OVR_MOVE,
    EV_REACTION,
)
from simulator.situation import load_situation
from tests.panzerblitz_v2.positions import events, state, units_of

HOD = str(Path(__file__).resolve().parents[2] / "situations" / "panzerblitz-v2" / "hod-0{}.toml")


@pytest.fixture(scope="module")
def p1():
    return prepare(load_situation(HOD.format(1)))


@pytest.fixture(scope="module")
def p3():
    """hod-03 (Maltot): the Orne bridge 4316-4415 is in its play area."""
    return prepare(load_situation(HOD.format(3)))


def open_row(t, k):
    """k hexes in a row of clear, overrunnable terrain in the play area, each the neighbour of the
    last, every one seeing every other."""
    for h in range(t.n_hexes):
        row = [h]
        while len(row) < k:
            nxt = next((int(n) for n in t.neighbours[row[-1]] if n >= 0 and t.play[n] and t.cover[n] == 0
                        and t.overrun_ok[n] and not t.depression[n] and n not in row
                        and all(t.dist[n, x] == len(row) - i for i, x in enumerate(row))), -1)
            if nxt < 0:
                break
            row.append(nxt)
        if len(row) == k and all(t.los[x, y] for x in row for y in row) and t.cover[h] == 0:
            return row
    raise AssertionError("no open ground")


def _position(p, seed, policy, tanks=1, defenders=("de-ss-panzergrenadier-platoon",), distance=2, k=3):
    """`tanks` British Shermans in row[0], active and spotted, `defenders` in row[distance]."""
    t = p.tables
    st = state(p, policy, seed)
    row = open_row(t, k)
    shermans = units_of(p, "gb-sherman-v")[:tanks]
    for u in shermans:
        st.hex[u] = row[0]
        st.active[u] = True
    used = {}
    foes = []
    for d in defenders:
        u = units_of(p, d)[used.get(d, 0)]
        used[d] = used.get(d, 0) + 1
        st.hex[u] = row[distance]
        foes.append(u)
    st.unspotted[:] = False
    return t, st, shermans, foes, row


def test_pb2_8_1_3_several_overrunners_combine_into_one_overrun(p1):
    """A second Sherman joins the first one's overrun (OVR_JOIN, 8.1.3): it moves there next
    (8.2.1.1), one reaction fire (8.1.5), one attack a defender type by the units given to it (the
    AP of both together on the non-armored units), one roll for both types (8.1.6)."""
    seen = set()
    for seed in range(300):
        t, st, (a, b), foes, row = _position(p1, seed, ["random"], tanks=2,
                                             defenders=("de-ss-panzergrenadier-platoon", "pzkw-iv-h"))
        soft, tank = foes
        if not game.try_overrun(t, st, a):
            continue
        joins = events(st, EV_OVR_JOIN)
        if len(joins) == 0:
            continue
        assert joins[0, 4] == b and joins[0, 5] == row[2] and st.acted[b]
        assert len(events(st, EV_REACTION)) <= 1                    # 8.1.5: one overrunning hex
        ovr = events(st, EV_OVERRUN)
        if len(ovr) == 0:
            continue                                                # both disrupted by reaction fire
        if len(ovr) == 1 and ovr[0, 8] % 100 == 2:
            seen.add("together")                                    # both on one type: one attack, two firers
        elif len(ovr) == 2:
            assert ovr[0, 6] == ovr[1, 6]                            # 8.1.6: the same natural roll
            assert ovr[0, 8] % 100 == 1 and ovr[1, 8] % 100 == 1
            seen.add("apart")
        assert st.spent[a] or st.hex[a] < 0
        assert st.spent[b] or st.hex[b] < 0
        if len(seen) == 2:
            break
    assert seen == {"together", "apart"}


def test_pb2_8_1_3_the_combined_column_and_who_may_join(p1):
    t, st, (a, b), (soft,), row = _position(p1, 1, ["random"], tanks=2)
    att = np.array([a, -1], dtype=np.int64)
    asg = np.array([-1, -1], dtype=np.int64)
    assert overrun.may_join(t, st, b, int(t.u_side[b]), att, 1)
    nl = movement.reachable(t, st, b, row[0], 0, t.t_ma[t.u_type[b]], False)
    n = overrun.join_options(t, st, b, row[2], att, asg, 1, row[0], nl)
    assert n == 2 and st.opts[0, 0] == -1
    both = fire_column(t, st, np.array([a, b]), 2, np.ones(2, dtype=np.int64), np.array([soft]), 1, False)
    alone = fire_column(t, st, np.array([a]), 1, np.ones(1, dtype=np.int64), np.array([soft]), 1, False)
    assert st.opts[1, 3] == both > alone and st.opts[1, 7] == 1     # the AP of both together
    assert st.opts[1, 8] > st.opts[1, 9] > 0                         # it adds expected step losses
    for flag in ("acted", "spent", "disrupted"):
        getattr(st, flag)[b] = True
        assert not overrun.may_join(t, st, b, int(t.u_side[b]), att, 1)
        getattr(st, flag)[b] = False
    st.active[b] = False
    assert not overrun.may_join(t, st, b, int(t.u_side[b]), att, 1)  # only activated units (8.0)


def test_pb2_8_1_4_a_lone_overrunner_splits_its_attack_equally(p1):
    """A hex with an SS platoon and an SdKfz 251: besides the two plain rows, a split row (column
    8 = 1): half the Sherman's AP (fractions dropped) on the platoon and half its AT on the
    half-track, resolved with one roll (8.1.6)."""
    t, st, (a,), (soft, ht), row = _position(p1, 1, ["random"], defenders=("de-ss-panzergrenadier-platoon",
                                                                            "sdkfz-251"))
    nl = movement.reachable(t, st, a, row[0], 0, t.t_ma[t.u_type[a]], False)
    n = overrun.overrun_options(t, st, a, row[0], nl)
    rows = [tuple(int(x) for x in st.opts[i]) for i in range(1, n)]
    split = [r for r in rows if r[8] == 1]
    assert len(rows) == 3 and len(split) == 1
    r = split[0]
    assert r[1] == ht and r[5] == 1
    assert r[3] == ap_column(t, (ap2(t, st, a) // 4) * 2, df_value(t, st, soft))   # 12 AP -> 6 (in halves)
    c_soft, c_arm = overrun.split_columns(t, st, a, np.array([soft]), 1, ht)
    assert c_arm == at_column(t, at_value(t, st, a) // 2 - df_value(t, st, ht))
    plain = [x for x in rows if x[8] == 0]
    assert all(x[9] > 0 for x in plain) and r[9] > 0
    seen = 0
    for seed in range(60):
        t, st, (a,), (soft, ht), row = _position(p1, seed, ["random"], distance=1,
                                                 defenders=("de-ss-panzergrenadier-platoon", "sdkfz-251"))
        st.streams[:] = state(p1, ["random"], seed).streams
        entered = np.zeros(1, dtype=np.bool_)
        overrun.resolve_combined(t, st, np.array([a]), np.array([ht]), 1, row[1], True, 0, entered)
        ovr = events(st, EV_OVERRUN)
        if len(ovr) == 0:
            continue                                                 # disrupted by reaction fire
        assert len(ovr) == 2 and ovr[0, 6] == ovr[1, 6]            # both parts, one roll
        assert sorted(int(x) for x in ovr[:, 5]) == sorted((c_soft, c_arm))
        seen += 1
    assert seen > 0


def test_pb2_8_1_9_overrunning_again_in_the_same_move(p1):
    """A Sherman overruns a reduced platoon two hexes off; the hex emptied, it enters it free and,
    with the MP it has left, overruns a second platoon two hexes further (8.1.9)."""
    for seed in range(300):
        t, st, (a,), (f1, f2), row = _position(p1, seed, ["heuristic:ovr_min=0,jitter=0"], k=5,
                                               defenders=("de-ss-panzergrenadier-platoon",) * 2)
        st.hex[f2] = row[4]
        st.steps[f1] = st.steps[f2] = 1
        assert game.try_overrun(t, st, a)
        mv = events(st, EV_OVR_MOVE)
        if st.hex[f1] >= 0 or len(events(st, EV_ADVANCE)) == 0:
            continue
        assert len(mv) == 2 and mv[0, 4] == mv[1, 4] == a
        assert mv[0, 5] == row[2] and mv[1, 5] == row[4] and mv[1, 6] == row[3]
        ev = st.ev[:st.n_ev[0]]
        order = [int(k) for k in ev[:, 2]]
        assert order.index(EV_ADVANCE) < max(i for i, k in enumerate(order) if k == EV_OVR_MOVE)
        assert st.ovr_op[row[2]] == st.ovr_op[row[4]] == st.op[0] and st.spent[a]
        return
    raise AssertionError("no first overrun emptied its hex")


def test_pb2_8_2_1_7_and_14_7_4_no_overrun_from_across_a_bridge(p3):
    """The Orne bridge 4316-4415: a Churchill in 4316 may not overrun a unit across the river next to
    4415 from 4415 (it would have just crossed the bridge; from a hex further on it may), nor 4415
    itself across the bridge hexside; one that starts in 4415 may."""
    t = p3.tables
    m = p3.situation.map
    west, east = m.lookup("4316"), m.lookup("4415")
    d = next(k for k in range(6) if t.neighbours[west, k] == east)
    assert t.bridge_side[west, d] and t.bridge_no_cat[west, d]
    # across the river from 4316, next to 4415
    target = next(int(t.neighbours[west, k]) for k in range(6) if t.side_cost[west, k, 0] == movement.PROHIBITED
                  and t.dist[t.neighbours[west, k], east] == 1)
    play = t.play.copy()
    t.play[:] = True
    try:
        for start, expect in ((west, False), (east, True)):
            st = state(p3, ["random"])
            a = units_of(p3, "gb-churchill-vii")[0]
            foe = units_of(p3, "de-ss-panzergrenadier-platoon")[0]
            st.hex[a] = start
            st.hex[foe] = target
            st.unspotted[:] = False
            nl = movement.reachable(t, st, a, start, 0, t.t_ma[t.u_type[a]], False)
            n = overrun.overrun_options(t, st, a, start, nl)
            froms = {int(st.opts[i, 2]) for i in range(1, n) if st.opts[i, 0] == target}
            assert (east in froms) == expect
            if start == west:
                saved = t.bridge_side.copy()
                t.bridge_side[:] = False                             # without 8.2.1.7 it would
                try:
                    nl = movement.reachable(t, st, a, start, 0, t.t_ma[t.u_type[a]], False)
                    n = overrun.overrun_options(t, st, a, start, nl)
                    assert east in {int(st.opts[i, 2]) for i in range(1, n) if st.opts[i, 0] == target}
                finally:
                    t.bridge_side[:] = saved
            st.hex[foe] = east if start == west else -1
            if start == west:                                        # 4415 itself, across the bridge hexside
                nl = movement.reachable(t, st, a, start, 0, t.t_ma[t.u_type[a]], False)
                n = overrun.overrun_options(t, st, a, start, nl)
                assert all(st.opts[i, 2] != west for i in range(1, n) if st.opts[i, 0] == east)
    finally:
        t.play[:] = play


def test_pb2_9_2_5_no_close_assault_across_an_impassable_bridge(p3):
    """No CAT from 4316 at 4415 across the Orne bridge (the river is impassable on foot); across
    the deep-stream bridge 2803-2804 (passable on foot at all MP) it may."""
    t = p3.tables
    m = p3.situation.map
    play = t.play.copy()
    t.play[:] = True
    try:
        for a_lab, b_lab, expect in (("4316", "4415", False), ("2803", "2804", True)):
            st = state(p3, ["random"])
            inf = units_of(p3, "gb-rifle-platoon")[0]
            foe = units_of(p3, "de-ss-panzergrenadier-platoon")[0]
            st.hex[inf], st.hex[foe] = m.lookup(a_lab), m.lookup(b_lab)
            st.active[inf] = True
            st.unspotted[:] = False
            n = assault.cat_options(t, st, int(t.u_side[inf]))
            assert (n > 1) == expect, (a_lab, b_lab)
            if not expect:
                saved = t.bridge_no_cat.copy()
                t.bridge_no_cat[:] = False
                try:
                    assert assault.cat_options(t, st, int(t.u_side[inf])) > 1   # without 9.2.5 it could
                finally:
                    t.bridge_no_cat[:] = saved
    finally:
        t.play[:] = play


def test_overrun_round_8_players_and_debug_games(p1):
    """The heuristic joins an overrun where it adds to the attack and takes a split when it is
    worth more; random games with these rules stay legal in debug mode."""
    from simulator.rulesets.panzerblitz_v2.players import (
        HEURISTIC_PARAMS,
        OVERRUN,
        OVR_JOIN,
        heuristic,
    )

    params = np.array([v.default for v in HEURISTIC_PARAMS.values()], dtype=np.float64)
    params[list(HEURISTIC_PARAMS).index("jitter")] = 0.0
    rng = np.random.default_rng(1)
    opts = np.zeros((3, 10), dtype=np.int32)
    opts[0, 0] = -1
    opts[1, :] = (5, -1, 4, 3, 0, 1, 0, 1, 90, 40)                  # adds 0.5 expected steps
    opts[2, :] = (5, 7, 4, 3, 0, 1, 0, 0, 20, 0)                    # adds 0.2
    st = state(p1)
    assert heuristic(OVR_JOIN, opts, 3, p1.tables, st, 0, params, rng) == 1
    opts[1, 8:] = (10, 0)
    opts[2, 8:] = (10, 0)
    assert heuristic(OVR_JOIN, opts, 3, p1.tables, st, 0, params, rng) == 0   # under ovr_join_min
    opts[2, :] = (5, 7, 4, 0, 5, 1, 0, 0, 1, 150)                    # a split worth 1.5 steps
    opts[1, :] = (5, 7, 4, 0, 5, 1, 0, 0, 0, 0)
    assert heuristic(OVERRUN, opts, 3, p1.tables, st, 0, params, rng) == 2
    for seed in range(10):
        g = play_one(p1, seed, RULESET.players.parse(["random"], p1.sides), debug=True)
        assert violation(g) is None
