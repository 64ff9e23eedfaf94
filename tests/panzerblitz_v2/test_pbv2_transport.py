"""Panzer Blitz v2.0 transport and riders (PB2 4.3, 4.3.7, 7.3.3), each case by its number in small
positions on the converted classic card pb-04 (trucks, half-tracks, tank riders, towed guns), and
the readings PB2-OQ-70 (reinforcements enter loaded) and PB2-OQ-71 (where a forced-out passenger goes)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simulator.rulesets.panzerblitz_v2 import combat, game, transport
from simulator.rulesets.panzerblitz_v2.batch import play_one, player_arrays, prepare, violation
from simulator.rulesets.panzerblitz_v2.ruleset import RULESET
from simulator.rulesets.panzerblitz_v2.state import CARRIED, EV_LOAD, EV_UNLOAD, OFF_MAP, new_state
from simulator.rulesets.panzerblitz_v2.tables import R_1X, R_D, TR_ALL, TR_HALF, TR_NONE
from simulator.situation import load_situation
from tests.panzerblitz_v2.positions import state, units_of

PB04 = str(Path(__file__).resolve().parents[2] / "situations" / "panzerblitz-v2" / "classic" / "pb-04.toml")


@pytest.fixture(scope="module")
def p4():
    return prepare(load_situation(PB04))


def open_hexes(t, k=3):
    """k hexes in a row (each the neighbour of the last) of clear terrain in the play area."""
    for h in range(t.n_hexes):
        row = [h]
        while len(row) < k:
            nxt = next((int(n) for n in t.neighbours[row[-1]] if n >= 0 and t.play[n] and t.cover[n] == 0
                        and not t.depression[n] and n not in row), -1)
            if nxt < 0:
                break
            row.append(nxt)
        if len(row) == k and all(t.play[x] and t.cover[x] == 0 and not t.depression[x] for x in row):
            return row
    raise AssertionError("no open ground")


def test_pb2_4_3_5_transport_table(p4):
    t = p4.tables
    truck, ht = units_of(p4, "truck-russian")[0], units_of(p4, "sdkfz-251")[0]
    rifle, gun45, gun88 = units_of(p4, "rifle-company-43")[0], units_of(p4, "45mm-at")[0], units_of(p4, "88mm-at")[0]
    tank, pz = units_of(p4, "t-34-c")[0], units_of(p4, "panther-g")[0]
    assert transport.load_cost(t, truck, rifle) == TR_HALF          # truck: infantry 1/2 MA
    assert transport.load_cost(t, truck, gun45) == TR_HALF          # truck: light gun (<= 82 mm) 1/2 MA
    assert transport.load_cost(t, ht, gun88) == TR_ALL              # half-track: heavy gun, all MA
    assert transport.load_cost(t, tank, rifle) == TR_HALF           # 4.3.7: a Russian tank carries riders
    assert transport.load_cost(t, tank, gun45) == TR_NONE           # 4.3.7: riders are infantry, not guns
    assert transport.load_cost(t, pz, tank) == TR_NONE              # vehicles are never passengers (4.3)
    assert transport.load_cost(t, rifle, gun45) == TR_NONE          # infantry carries nothing


def test_pb2_4_3_capacity_is_the_carriers_own_sp_and_2_3_5_2(p4):
    t = p4.tables
    st = state(p4)
    h = open_hexes(t, 1)[0]
    truck = units_of(p4, "truck-russian")[0]
    a, b = units_of(p4, "rifle-company-43")[:2]
    for u in (truck, a, b):
        st.hex[u] = h
    assert combat.sp_value(t, st, truck) == combat.sp_value(t, st, a) == 3
    assert transport.may_load(t, st, truck, a, h) == TR_HALF
    transport.load(t, st, truck, a, TR_HALF)
    assert st.hex[a] == CARRIED and st.carried_by[a] == truck
    assert transport.may_load(t, st, truck, b, h) == TR_NONE       # 3 + 3 SP > the truck's 3
    # 2.3.5.2: the loaded stack counts the carrier's SP only
    assert combat.stack_sp(t, st, h, int(t.u_side[truck]), -1) == 3 + 3


def test_pb2_4_3_1_and_4_3_8_no_loading_when_spent_or_disrupted(p4):
    t = p4.tables
    h = open_hexes(t, 1)[0]
    truck, rifle = units_of(p4, "truck-russian")[0], units_of(p4, "rifle-company-43")[0]
    for mark in ("spent", "disrupted", "carrier_disrupted"):
        st = state(p4)
        st.hex[truck] = st.hex[rifle] = h
        if mark == "carrier_disrupted":
            st.disrupted[truck] = True
        else:
            getattr(st, mark)[rifle] = True
        assert transport.may_load(t, st, truck, rifle, h) == TR_NONE, mark


def test_pb2_4_3_2_and_4_3_3_half_ma_load_then_move(p4):
    """A truck loads (1/2 MA) and moves on with the other half; the passenger rides along, off the
    map, and is where its carrier is (for victory and the maps)."""
    t = p4.tables
    st = state(p4, ["heuristic:ride_min=-99,unload_at=-99"])
    h = open_hexes(t, 1)[0]
    truck, rifle = units_of(p4, "truck-russian")[0], units_of(p4, "rifle-company-43")[0]
    st.hex[truck] = st.hex[rifle] = h
    st.active[truck] = True
    game.carrier_move(t, st, truck)
    ev = st.ev[:st.n_ev[0]]
    loads = ev[ev[:, 2] == EV_LOAD]
    assert len(loads) == 1 and loads[0, 4] == truck and loads[0, 5] == rifle and loads[0, 7] == TR_HALF
    assert st.carried_by[rifle] == truck and st.hex[rifle] == CARRIED
    assert st.mp_op[truck] <= t.t_ma[t.u_type[truck]] // 2            # the other half only
    assert transport.carried_hex(st, rifle) == st.hex[truck]
    assert st.spent[truck]


def test_pb2_4_3_3_unload_then_move_on_with_the_other_half(p4):
    t = p4.tables
    st = state(p4, ["heuristic:unload_at=99"])
    h = open_hexes(t, 1)[0]
    truck, rifle = units_of(p4, "truck-russian")[0], units_of(p4, "rifle-company-43")[0]
    st.hex[truck] = h
    st.hex[rifle] = transport.CARRIED
    st.carried_by[rifle] = truck
    st.active[truck] = True
    game.carrier_move(t, st, truck)
    assert st.hex[rifle] == h and st.spent[rifle] and st.carried_by[rifle] == -1
    assert st.mp_op[truck] <= t.t_ma[t.u_type[truck]] // 2 and st.spent[truck]


def test_pb2_4_3_2_all_ma_load_keeps_the_carrier_put(p4):
    t = p4.tables
    st = state(p4, ["heuristic:ride_min=-99,unload_at=-99"])
    h = open_hexes(t, 1)[0]
    ht, gun88 = units_of(p4, "sdkfz-251")[0], units_of(p4, "88mm-at")[0]
    st.hex[ht] = st.hex[gun88] = h
    st.active[ht] = True
    game.carrier_move(t, st, ht)
    assert st.carried_by[gun88] == ht and st.hex[ht] == h and st.mp_op[ht] == 0


def test_pb2_4_3_4_unloaded_passengers_are_spent_and_4_3_9_never_overstacked(p4):
    t = p4.tables
    h = open_hexes(t, 1)[0]
    truck, (a, b, c) = units_of(p4, "truck-russian")[0], units_of(p4, "rifle-company-43")[:3]
    st = state(p4, ["heuristic:unload_at=99"])
    st.hex[truck] = h
    st.hex[a] = CARRIED
    st.carried_by[a] = truck
    game.unload_step(t, st, truck, 0, True, False)
    assert st.hex[a] == h and st.carried_by[a] == -1 and st.spent[a]
    assert (st.ev[:st.n_ev[0], 2] == EV_UNLOAD).sum() == 1
    st = state(p4, ["heuristic:unload_at=99"])
    st.hex[truck] = st.hex[b] = h                               # truck 3 + company 3 = 6 SP: full
    st.hex[a] = CARRIED
    st.carried_by[a] = truck
    game.unload_step(t, st, truck, 0, True, False)
    assert st.carried_by[a] == truck                            # 4.3.9: not set down
    # half MA: not after moving more than half of the MA
    st = state(p4, ["heuristic:unload_at=99"])
    st.hex[truck] = h
    st.hex[c] = CARRIED
    st.carried_by[c] = truck
    game.unload_step(t, st, truck, t.t_ma[t.u_type[truck]] // 2 + 1, True, False)
    assert st.carried_by[c] == truck


def test_pb2_4_3_6_passengers_share_the_carriers_result(p4):
    t = p4.tables
    h = open_hexes(t, 1)[0]
    truck, rifle = units_of(p4, "truck-russian")[0], units_of(p4, "rifle-company-43")[0]
    # 1X on a one-step truck: it is eliminated, the company loses a step and is set down Disrupted
    st = state(p4)
    st.hex[truck] = h
    st.hex[rifle] = CARRIED
    st.carried_by[rifle] = truck
    combat.apply_result(t, st, np.array([truck]), 1, R_1X, np.zeros(1, dtype=np.bool_))
    assert st.steps[truck] == 0 and st.steps[rifle] == 1
    assert st.hex[rifle] == h and st.carried_by[rifle] == -1 and st.disrupted[rifle]
    # D on a half-track: both Disrupted, the passenger forced out with its steps
    ht, pg = units_of(p4, "sdkfz-251")[0], units_of(p4, "rifle-platoon-german-42")[0]
    st = state(p4)
    st.hex[ht] = h
    st.hex[pg] = CARRIED
    st.carried_by[pg] = ht
    combat.apply_result(t, st, np.array([ht]), 1, R_D, np.zeros(1, dtype=np.bool_))
    assert st.disrupted[ht] and st.disrupted[pg] and st.hex[pg] == h and st.steps[pg] == 2


def test_pb2_4_3_6_a_forced_out_passenger_goes_next_door_when_the_hex_is_full(p4):
    """PB2-OQ-71: the first adjacent hex (N clockwise) that is enterable, enemy-free and has room."""
    t = p4.tables
    h = open_hexes(t, 1)[0]
    truck = units_of(p4, "truck-russian")[0]
    a, b, c = units_of(p4, "rifle-company-43")[:3]
    st = state(p4)
    st.hex[truck] = st.hex[b] = h                               # with b the hex is full (6 SP)
    st.hex[a] = CARRIED
    st.carried_by[a] = truck
    st.disrupted[truck] = True
    combat.share_result(t, st, np.array([truck]), 1, np.array([1]), np.array([h]))
    assert st.hex[a] >= 0 and st.hex[a] != h and st.disrupted[a]
    assert st.hex[a] in set(int(n) for n in t.neighbours[h])


def test_pb2_7_3_3_and_4_3_11_passengers_neither_fire_nor_are_fired_at_alone(p4):
    t = p4.tables
    a, b = open_hexes(t, 2)
    truck, rifle = units_of(p4, "truck-russian")[0], units_of(p4, "rifle-company-43")[0]
    pg = units_of(p4, "rifle-platoon-german-42")[0]
    st = state(p4)
    st.hex[truck] = a
    st.hex[rifle] = CARRIED
    st.carried_by[rifle] = truck
    st.hex[pg] = b
    assert combat.can_fire(t, st, rifle, b, False) == 0           # 4.3.11
    n = game.list_targets(t, st, a, -1, int(t.u_side[truck]))
    assert rifle not in set(int(x) for x in st.targets[:n])       # 7.3.3: the carrier is the target


def test_pb2_oq_70_reinforcements_enter_loaded_and_transport_in_play(p4):
    """pb-04's Russians enter on turn 1 with 15 trucks: companies and guns ride in (PB2-OQ-70),
    are set down later, and every action keeps the invariants (debug mode)."""
    g = play_one(p4, 3, RULESET.players.parse(None, p4.sides), debug=True)
    assert violation(g) is None
    ev = g.state.ev[:g.state.n_ev[0]]
    loads, unloads = ev[ev[:, 2] == EV_LOAD], ev[ev[:, 2] == EV_UNLOAD]
    assert (loads[:, 6] == OFF_MAP).any()                         # boarded before entering
    assert len(unloads) > 0
    off = load_situation(PB04, {"readings.reinforcements_enter_loaded": False})
    g2 = play_one(prepare(off), 3, RULESET.players.parse(None, p4.sides))
    ev2 = g2.state.ev[:g2.state.n_ev[0]]
    assert not (ev2[(ev2[:, 2] == EV_LOAD), 6] == OFF_MAP).any()


def test_transport_invariants_catch_a_stray_passenger(p4):
    from simulator.rulesets.panzerblitz_v2 import invariants as inv

    t = p4.tables
    kinds, params = player_arrays(RULESET.players.parse(None, p4.sides), p4.sides)
    h = open_hexes(t, 1)[0]
    truck, a, b = units_of(p4, "truck-russian")[0], *units_of(p4, "rifle-company-43")[:2]
    st = new_state(t, 1, kinds, params, debug=True)
    st.hex[truck] = h
    st.hex[a] = CARRIED
    st.carried_by[a] = truck
    assert inv.violation(t, st) == inv.OK
    st.hex[b] = CARRIED
    st.carried_by[b] = truck
    assert inv.violation(t, st) == inv.CARRIER_OVERLOADED
    st.hex[b] = CARRIED
    st.carried_by[b] = -1
    assert inv.violation(t, st) == inv.PASSENGER_ASTRAY


def test_pb2_4_1_8_2_empty_enemy_trucks_are_overrun_by_moving_not_loaded_ones_nor_by_trucks(p4):
    from simulator.rulesets.panzerblitz_v2 import movement
    from simulator.rulesets.panzerblitz_v2.state import EV_CRUSH, GONE
    from tests.panzerblitz_v2.positions import events

    t = p4.tables
    a, b, c = open_hexes(t, 3)
    tank, truck, rifle = units_of(p4, "t-34-c")[0], units_of(p4, "truck-german")[0], units_of(p4, "rifle-platoon-german-42")[0]
    st = state(p4)
    st.hex[tank] = a
    st.hex[truck] = b
    assert movement.crushes_transports(t, st, tank, b)
    movement.reachable(t, st, tank, a, 0, t.t_ma[t.u_type[tank]], True)
    assert st.listed[b] == st.listed[c] == st.stamp[0]               # into it and through it (labelled this call)
    assert game.walk(t, st, tank, c, 0)
    assert st.hex[truck] == GONE and st.steps[truck] == 0 and st.hex[tank] == c
    assert events(st, EV_CRUSH)[0, 4] == tank
    st2 = state(p4)                                                 # a loaded truck is no empty one
    st2.hex[tank] = a
    st2.hex[truck] = b
    st2.hex[rifle] = b
    transport.load(t, st2, truck, rifle, TR_HALF)
    assert not movement.crushes_transports(t, st2, tank, b)
    movement.reachable(t, st2, tank, a, 0, t.t_ma[t.u_type[tank]], True)
    assert st2.listed[b] != st2.stamp[0]
    st3 = state(p4)                                                 # a truck does not overrun trucks
    own_truck = units_of(p4, "truck-russian")[0]
    st3.hex[own_truck] = a
    st3.hex[truck] = b
    assert not movement.crushes_transports(t, st3, own_truck, b)
    movement.reachable(t, st3, own_truck, a, 0, t.t_ma[t.u_type[own_truck]], True)
    assert st3.listed[b] != st3.stamp[0]
    st3.hex[own_truck] = -1
    st3.hex[rifle] = b                                              # nor a hex with any other enemy unit
    st3.hex[tank] = a
    assert not movement.crushes_transports(t, st3, tank, b)


def test_pb2_4_3_10_after_an_unload_the_carrier_alone_may_be_opportunity_fired_at():
    from simulator.rulesets.panzerblitz_v2.state import EV_OPP_FIRE
    from tests.panzerblitz_v2.positions import events

    p = prepare(load_situation(PB04, {"units.t-34-c.full.ap": 0}))     # it may fire at armor only
    t = p.tables
    a, b = open_hexes(t, 2)
    st = state(p, ["heuristic:opp_fire_min=0"])
    ht, rifle, tank = units_of(p, "sdkfz-251")[0], units_of(p, "rifle-platoon-german-42")[0], units_of(p, "t-34-c")[0]
    assert t.t_armored[t.u_type[ht]] and not t.t_armored[t.u_type[rifle]]
    st.hex[ht] = st.hex[rifle] = a
    st.hex[tank] = b
    st.unspotted[:] = False
    transport.load(t, st, ht, rifle, TR_HALF)
    assert game.unload_step(t, st, ht, 0, False, False) == TR_HALF          # set down: the T-34 sees it
    assert st.hex[rifle] == a
    shots = events(st, EV_OPP_FIRE)
    assert len(shots) == 1 and shots[0, 4] == a and st.opfired[tank]        # at the half-track alone


def test_pb2_4_3_7_1_riders_attacked_apart_from_their_afv_with_df_1_and_4_3_7_3_disrupted_forced_off(p4):
    from simulator.rulesets.panzerblitz_v2.tables import K_DF, K_OPP, R_1X, R_D

    t = p4.tables
    a, b = open_hexes(t, 2)
    tank, rifle, ger = units_of(p4, "t-34-c")[0], units_of(p4, "rifle-company-43")[0], units_of(p4, "rifle-platoon-german-42")[0]

    def riding():
        st = state(p4)
        st.hex[tank] = st.hex[rifle] = a
        transport.load(t, st, tank, rifle, TR_HALF)
        st.hex[ger] = b
        st.active[ger] = True
        st.unspotted[:] = False
        return st

    st = riding()
    assert combat.rider(t, st, rifle) and combat.spotted_now(t, st, rifle) == combat.spotted_now(t, st, tank)
    n = game.fire_options(t, st, int(t.u_side[ger]), K_DF)
    rows = [tuple(int(x) for x in st.opts[i, :7]) for i in range(1, n)]
    mine = [r for r in rows if r[1] == rifle]
    assert len(mine) == 1 and mine[0][0] == a                                  # a row of its own
    assert mine[0][3] == combat.ap_column(t, combat.ap2(t, st, ger), t.rider_df) and t.rider_df == 1
    drm_opp = combat.defender_drm(t, st, np.array([rifle]), 1, False, K_OPP, False, False)
    st.hex[rifle] = a                                                          # (as if it stood in the open)
    on_foot = combat.defender_drm(t, st, np.array([rifle]), 1, False, K_OPP, False, False)
    st.hex[rifle] = -4
    assert drm_opp == on_foot + 1                                              # no -1 vs infantry in the open
    steps_tank = int(st.steps[tank])
    combat.apply_result(t, st, np.array([rifle]), 1, R_1X, np.zeros(1, dtype=np.bool_))
    assert st.steps[rifle] == 1 and st.steps[tank] == steps_tank              # no adverse effect on the AFV
    assert st.disrupted[rifle] and st.carried_by[rifle] == -1 and st.disrupted[tank]   # 7.7 X: Disrupted too
    st = riding()
    combat.apply_result(t, st, np.array([rifle]), 1, R_D, np.zeros(1, dtype=np.bool_))
    assert st.disrupted[rifle] and st.hex[rifle] == a and st.carried_by[rifle] == -1 and st.disrupted[tank]   # 4.3.7.3
    st = riding()
    st.steps[rifle] = 1
    combat.apply_result(t, st, np.array([rifle]), 1, R_1X, np.zeros(1, dtype=np.bool_))
    assert st.steps[rifle] == 0 and st.carried_by[rifle] == -1 and st.steps[tank] == steps_tank
    assert not st.disrupted[tank]
