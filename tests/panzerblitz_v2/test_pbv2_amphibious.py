"""Amphibious movement (PB2-4.4; movement.reachable_amphibious) played by the engine in a small
position: hod-01's tables with a lake made around a line of hexes and a test unit type (the
British carrier given the example's 10 land / 3 aquatic MP: no counter of the situations is
amphibious, and none is invented in the data).  The worked example PB2-EX-4.4.3 both ways."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simulator.rulesets.panzerblitz_v2 import movement
from simulator.rulesets.panzerblitz_v2.batch import prepare
from simulator.rulesets.panzerblitz_v2.invariants import violation as invariant
from simulator.rulesets.panzerblitz_v2.movement import other_used
from simulator.rulesets.panzerblitz_v2.tables import CLEAR, TRACKED, WATER
from simulator.situation import load_situation
from tests.panzerblitz_v2 import positions
from tests.panzerblitz_v2.positions import units_of

HOD01 = Path(__file__).resolve().parents[2] / "situations" / "panzerblitz-v2" / "hod-01.toml"


def line(t, n):
    """n play-area hexes in a straight line along one hex direction, far enough inside the play
    area that a lake of radius 3 around the second fits in it."""
    for h0 in range(t.n_hexes):
        for d in range(6):
            out = [h0]
            while len(out) < n and out[-1] >= 0:
                out.append(int(t.neighbours[out[-1], d]))
            if len(out) == n and min(out) >= 0 and all(t.play[h] for h in out):
                disk = np.flatnonzero(t.dist[out[1]] <= 4)
                if t.play[disk].all():
                    return out
    raise AssertionError("no line")


@pytest.fixture(scope="module")
def lake():
    """(prepared, tables with the lake, the carrier, the line A W1 W2 L L2 L3)."""
    p = prepare(load_situation(HOD01))
    t = p.tables
    a, w1, w2, land, land2, land3 = line(t, 6)
    region = np.flatnonzero(t.dist[w1] <= 4)
    cover, level = t.cover.copy(), t.level.copy()
    move, side = t.move_cost.copy(), t.side_cost.copy()
    slope, aquatic = t.slope_side.copy(), t.aquatic_cost2.copy()
    clear = t.move_cost[np.flatnonzero(t.cover == CLEAR)[0]].copy()
    for h in region:
        level[h] = 2
        slope[h] = False
        side[h] = 0
        wet = t.dist[w1, h] <= 3 and h not in (a, land, land2, land3)
        cover[h] = WATER if wet else CLEAR
        move[h] = -1 if wet else clear
        aquatic[h] = 2 if wet else -1                    # 4.4.1: one aquatic MP a water hex
    for h in region:                                     # no hexside costs or slopes into the region
        for d in range(6):
            n = t.neighbours[h, d]
            if n >= 0:
                for e in range(6):
                    if t.neighbours[n, e] == h:
                        side[n, e] = 0
                        slope[n, e] = False
    carrier = units_of(p, "gb-universal-carrier")[0]
    ty = t.u_type[carrier]
    ma, aq = t.t_ma.copy(), t.t_aquatic.copy()
    ma[ty], aq[ty] = 20, 6                               # the example: 10 land, 3 aquatic MP
    t2 = t._replace(cover=cover, level=level, move_cost=move, side_cost=side, slope_side=slope,
                    aquatic_cost2=aquatic, t_ma=ma, t_aquatic=aq)
    assert t2.t_mode[ty] == TRACKED
    return p, t2, carrier, (a, w1, w2, land, land2, land3)


def search(p, t, u, start, spent0):
    st = positions.state(p)
    st.hex[u] = start
    n = movement.reachable(t, st, u, start, spent0, t.t_ma[t.u_type[u]], False)
    reached = {int(st.order[i]): int(st.reach[st.order[i]]) for i in range(n)}
    return st, reached


def test_pb2_4_4_3_entering_water_after_3_of_10_land_mp_leaves_2_aquatic_mp(lake):
    p, t, u, (a, w1, w2, land, land2, land3) = lake
    assert other_used(6, 20, 6) == 2                     # 3/10 x 3 = 0.9 -> 1 aquatic MP used
    st, reached = search(p, t, u, a, 6)                  # 3 land MP spent on land before
    # 2 aquatic MP left: W1 (1) and W2 (the second); no third water hex
    third = [h for h in np.flatnonzero(t.aquatic_cost2 >= 0) if t.dist[a, h] == 3]
    assert w1 in reached and w2 in reached
    assert not any(h in reached for h in third)
    # no land hex across the water either: 3 aquatic MP used are all 10 land MP
    assert land not in reached
    # a land unit never enters the lake
    inf = units_of(p, "gb-motor-platoon")[0]
    st, plain = search(p, t, inf, a, 0)
    assert set(plain) == {a}


def test_pb2_4_4_3_leaving_water_after_2_of_3_aquatic_mp_leaves_3_land_mp(lake):
    p, t, u, (a, w1, w2, land, land2, land3) = lake
    assert other_used(4, 6, 20) == 14                    # 2/3 x 10 = 6.67 -> 7 land MP used
    st, reached = search(p, t, u, a, 0)
    # the water hexes hold their land equivalent: W1 1 aquatic MP (4 land), W2 2 (7 land)
    assert reached[w1] == other_used(2, 6, 20) == 8 and reached[w2] == 14
    # 4.4.2: out onto clear ground costs twice its 1 MP (tracked): 7 + 2 = 9 of 10
    assert reached[land] == 18
    assert reached[land2] == 20                          # the last land MP
    assert land3 not in reached
    # and it may end its move afloat: the invariants take a counter in water for an amphibious one
    st.hex[u] = w2
    assert invariant(t, st) == 0
