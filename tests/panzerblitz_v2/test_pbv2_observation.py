"""Observation aircraft (PB2-16.2, round 8) in small positions on hod-02 (an Air OP Auster with the
rocket Typhoons, the German 20 mm quad flak; units-air.toml gb-auster-aop, reconstructed)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simulator.rulesets.panzerblitz_v2 import air, artillery, combat
from simulator.rulesets.panzerblitz_v2.batch import play_one, prepare
from simulator.rulesets.panzerblitz_v2.ruleset import RULESET
from simulator.rulesets.panzerblitz_v2.smoke import obs_sees
from simulator.rulesets.panzerblitz_v2.state import AIRBORNE, EV_AA, EV_AR, EV_OBSERVE
from simulator.rulesets.panzerblitz_v2.tables import CLEAR, WOODS
from simulator.situation import load_situation
from tests.panzerblitz_v2 import positions
from tests.panzerblitz_v2.positions import events, units_of

HOD02 = str(Path(__file__).resolve().parents[2] / "situations" / "panzerblitz-v2" / "hod-02.toml")
AOP = "gb-auster-aop"


@pytest.fixture(scope="module")
def p2():
    return prepare(load_situation(HOD02))


def over(st, o, h):
    st.hex[o] = AIRBORNE
    st.air_hex[o] = h


def hex_at(t, st, o, x, d, cover):
    """A play hex d hexes from x of this cover class, in sight from the air over x."""
    for h in np.flatnonzero((t.dist[x] == d) & t.play & (t.cover == cover)):
        if air.air_sees(t, st, x, int(h)):
            return int(h)
    return -1


def test_pb2_16_2_an_observation_aircraft_spots_to_30_hexes_5_into_woods(p2):
    t = p2.tables
    st = positions.state(p2, ("random",), 1, 2)
    o = units_of(p2, AOP)[0]
    ger = units_of(p2, "de-ss-panzergrenadier-platoon")[0]
    x = next(int(h) for h in np.flatnonzero(t.play & (t.cover == CLEAR))
             if hex_at(t, st, 0, int(h), 20, CLEAR) >= 0 and hex_at(t, st, 0, int(h), 5, WOODS) >= 0
             and hex_at(t, st, 0, int(h), 6, WOODS) >= 0)
    over(st, o, x)
    far, w5, w6 = hex_at(t, st, o, x, 20, CLEAR), hex_at(t, st, o, x, 5, WOODS), hex_at(t, st, o, x, 6, WOODS)
    assert obs_sees(t, st, o, far) and obs_sees(t, st, o, w5) and not obs_sees(t, st, o, w6)
    st.hex[ger] = far                                       # no British unit on the map: the Auster alone
    assert combat.spotted_now(t, st, ger)
    st.hex[ger] = w6
    assert not combat.spotted_now(t, st, ger)
    st.air_hex[o] = -1                                      # in play but not over the map yet
    st.hex[ger] = far
    assert not combat.spotted_now(t, st, ger)
    assert t.obs_range == 30 and t.obs_range_hidden == 5


def test_pb2_16_2_it_acts_as_the_fo_of_an_artillery_request_one_a_turn(p2):
    t = p2.tables
    brit = p2.sides.index("british")
    o = units_of(p2, AOP)[0]
    battery = units_of(p2, "gb-25pdr-battery")[0]
    ger = units_of(p2, "de-ss-panzergrenadier-platoon")[:2]
    st = positions.state(p2, ("heuristic", "heuristic"), 1, 2)
    x = next(int(h) for h in np.flatnonzero(t.play & (t.cover == CLEAR)) if hex_at(t, st, 0, int(h), 8, CLEAR) >= 0)
    h = hex_at(t, st, 0, x, 8, CLEAR)
    over(st, o, x)
    for u in ger:
        st.hex[u] = h
    assert artillery.observer_for(t, st, brit, h, battery) == o          # no ground FO: the aircraft
    artillery.ar_step(t, st, brit)
    ar = events(st, EV_AR)
    assert len(ar) >= 1 and ar[0, 6] == o and ar[0, 4] == h and st.fo[o]
    k = int(np.flatnonzero(st.ar[:st.n_ar[0], 1] == ar[0, 5])[0])
    assert st.ar[k, 6] == 1 and t.scat_obs_air == 1                     # its scatter roll +1 (scatter.toml)
    assert artillery.observer_for(t, st, brit, h, units_of(p2, "gb-25pdr-battery")[1]) == -1   # 11.2.5


def test_pb2_16_2_16_4_2_placed_in_an_air_operation_and_engaged_by_aa_as_a_spotting_aircraft(p2):
    t = p2.tables
    brit = p2.sides.index("british")
    o = units_of(p2, AOP)[0]
    flak = units_of(p2, "20mm_4-aa")[0]
    ger = units_of(p2, "de-ss-panzergrenadier-platoon")
    h = next(int(x) for x in np.flatnonzero(t.play & (t.cover == CLEAR))
             if any(t.dist[x, y] == 1 and t.cover[y] == CLEAR and t.play[y] for y in range(t.n_hexes)))
    nb = next(int(y) for y in t.neighbours[h] if y >= 0 and t.play[y] and t.move_cost[y, 2] >= 0)
    engaged = placed = 0
    for seed in range(1, 16):
        st = positions.state(p2, ("random",), seed, 2)
        for a in range(t.n_units):
            if t.u_air[a]:
                st.hex[a] = -2                                  # the Typhoons out of it
        st.hex[o] = AIRBORNE
        st.air_hex[o] = -1
        for u in ger[:3]:
            st.hex[u] = h
        st.hex[flak] = nb
        air.air_operation(t, st, brit)
        ev = events(st, EV_OBSERVE)
        if len(ev):
            placed += 1
            assert ev[0, 5] in (h, nb) and not st.spent[o]      # over an enemy-held hex; 16.1: not Spent
        engaged += int((events(st, EV_AA)[:, 5] == o).sum())
    assert placed > 0 and engaged > 0


def test_pb2_16_2_the_heuristic_goes_where_it_spots_the_most_and_uses_it_in_games(p2):
    t = p2.tables
    st = positions.state(p2, ("heuristic", "heuristic"), 1, 2)
    opts = np.zeros((8, 10), dtype=np.int32)
    opts[0, :4] = (-1, 0, 0, 0)
    opts[1, :4] = (100, 3, 6, 0)
    opts[2, :4] = (101, 5, 9, 2)          # more steps, but two flak units can reach it
    from simulator.rulesets.panzerblitz_v2.players import AIR_OBSERVE, choose

    brit = p2.sides.index("british")
    assert choose(AIR_OBSERVE, opts, 3, t, st, brit, 1, st.params[brit], st.dec) == 1
    observed = spotted = 0
    for seed in range(1, 4):
        g = play_one(p2, seed, RULESET.players.parse(["heuristic"], p2.sides))
        ev = g.state.ev[:g.state.n_ev[0]]
        observed += int((ev[:, 2] == EV_OBSERVE).sum())
        o = units_of(p2, AOP)[0]
        spotted += int(((ev[:, 2] == EV_AR) & (ev[:, 6] == o)).sum())
    assert observed > 0 and spotted > 0
