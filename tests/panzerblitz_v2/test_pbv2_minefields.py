"""Dummy minefields and the Mine Exchange Chart (PB2-15.2, 15.2.1, 15.2.3.1; round 8) on the converted
classic card pb-12 (11 German 2-1 minefields; `units-hod.toml` adds the 1-1, 3-1 and dummy counters)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simulator.rulesets.panzerblitz_v2 import game
from simulator.rulesets.panzerblitz_v2.batch import prepare
from simulator.rulesets.panzerblitz_v2.state import (
    EV_DUMMY,
    EV_MARKER,
    EV_MINE,
    EV_MINE_TRADE,
    EV_MOVE,
)
from simulator.rulesets.panzerblitz_v2.tables import CLEAR, MINE_DUMMY, MINE_STRENGTHS, MK_MINE
from simulator.situation import load_situation
from tests.panzerblitz_v2 import positions
from tests.panzerblitz_v2.positions import events, units_of

PB12 = str(Path(__file__).resolve().parents[2] / "situations" / "panzerblitz-v2" / "classic" / "pb-12.toml")


@pytest.fixture(scope="module")
def p12():
    return prepare(load_situation(PB12))


def ringed(t):
    """A clear hex whose six neighbours are clear play hexes."""
    for h in np.flatnonzero(t.play & (t.cover == CLEAR)):
        nb = t.neighbours[h]
        if (nb >= 0).all() and all(t.play[x] and t.cover[x] == CLEAR and t.mine_ok[x] for x in nb):
            return int(h), [int(x) for x in nb]
    raise AssertionError("no ringed hex")


def test_pb2_15_2_3_1_a_dummy_minefield_is_removed_when_entered_and_the_unit_moves_on(p12):
    t = p12.tables
    tank = units_of(p12, "t-34-c")[0]
    h, ring = ringed(t)
    beyond = {False: 0, True: 0}
    for dummy in (True, False):
        for seed in range(1, 13):
            st = positions.state(p12, ("random",), seed)
            st.hex[tank] = h
            st.active[tank] = True
            for x in ring:                                 # every way out crosses a minefield
                st.mine_col[x] = t.ms_col[1]
                st.mine_dummy[x] = dummy
            game.move_unit(t, st, tank, h, 0)
            if st.hex[tank] == h:
                continue                                   # it stayed
            mines, dummies = events(st, EV_MINE), events(st, EV_DUMMY)
            if dummy:
                assert len(mines) == 0 and len(dummies) == 1           # revealed, no attack
                x = int(dummies[0, 4])
                assert st.mine_col[x] == -1 and not st.mine_dummy[x] and dummies[0, 5] == tank
            else:
                assert len(mines) == 1 and len(dummies) == 0 and st.hex[tank] in ring   # stopped (15.2.3)
            far = [m for m in events(st, EV_MOVE) if t.dist[h, m[6]] >= 2]
            beyond[dummy] += len(far) > 0
    assert beyond[True] > 0 and beyond[False] == 0       # after a dummy it may go on (15.2.3.1)


def placed(p, policy, seed=1):
    t = p.tables
    st = positions.state(p, policy, seed)
    ger = p.sides.index("german")
    game.place_markers(t, st, ger)
    ev = events(st, EV_MARKER)
    mines = ev[ev[:, 5] == MK_MINE]
    return st, mines, events(st, EV_MINE_TRADE)


def test_pb2_15_2_1_the_exchange_chart_both_ways_and_the_heuristic_splits_2_1s(p12):
    t = p12.tables
    ger = p12.sides.index("german")
    n21 = int(((t.mk_str == 1) & (t.mk_side == ger) & (t.mk_kind == MK_MINE)).sum())
    assert n21 == 11 and MINE_STRENGTHS[1] == "2-1"
    # the chart as data, both ways: 2-1 -> two 1-1, two 1-1 -> 2-1, two 2-1 -> 3-1, 3-1 -> two 2-1
    trades = sorted(zip(t.ex_give_s, t.ex_give_n, t.ex_take_s, t.ex_take_n, strict=True))
    assert trades == [(0, 2, 1, 1), (1, 1, 0, 2), (1, 2, 2, 1), (2, 1, 1, 2)]
    st, mines, tr = placed(p12, ("heuristic:mine_split=1",))
    assert len(tr) == n21 and (tr[:, 4] == 1).all() and (tr[:, 6] == 0).all()   # each 2-1 for two 1-1s
    cols = st.mine_col[st.mine_col >= 0]
    assert len(mines) == len(cols) and (cols == t.ms_col[0]).all() and len(cols) > n21
    st, mines, tr = placed(p12, ("heuristic:mine_split=0",))
    assert len(tr) == 0 and len(mines) == n21 and (st.mine_col[st.mine_col >= 0] == t.ms_col[1]).all()
    kinds = set()
    for seed in range(1, 9):                                   # the random player trades both ways
        _, _, tr = placed(p12, ("random",), seed)
        kinds |= {(int(r[4]), int(r[6])) for r in tr}
    assert {(1, 0), (0, 1)} <= kinds or {(1, 0), (1, 2)} <= kinds


def test_pb2_15_2_dummies_given_by_a_card_are_placed_as_minefields_and_never_traded():
    p = prepare(load_situation(PB12, {"units.minefield.strength": "dummy"}))
    t = p.tables
    ger = p.sides.index("german")
    assert (t.mk_str[(t.mk_kind == MK_MINE) & (t.mk_side == ger)] == MINE_DUMMY).all()
    st, mines, tr = placed(p, ("random",))
    assert len(tr) == 0 and len(mines) == 11                  # 15.2.1: dummies may not be traded
    assert st.mine_dummy[mines[:, 4]].all() and (st.mine_col[mines[:, 4]] >= 0).all()   # a minefield till revealed


def test_pb2_oq_93_the_chart_one_way_only():
    p = prepare(load_situation(PB12, {"readings.mine_exchange_both_ways": False}))
    t = p.tables
    assert sorted(zip(t.ex_give_s, t.ex_give_n, t.ex_take_s, t.ex_take_n, strict=True)) == [(1, 1, 0, 2), (1, 2, 2, 1)]
