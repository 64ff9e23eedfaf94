"""Terrain, roads, stacking, transport, wrecks and victory counting, one rule ID per test."""

from __future__ import annotations

import pytest

from simulator.rulesets.panzerblitz.combat import DISPERSED, crt_result
from simulator.rulesets.panzerblitz.combat import ELIMINATED as RES_X
from simulator.rulesets.panzerblitz.fire import defender_stack, firer_af
from simulator.rulesets.panzerblitz.losses import apply_to_stack, eliminate
from simulator.rulesets.panzerblitz.mines import minefield_attacks
from simulator.rulesets.panzerblitz.movement import compile_movement
from simulator.rulesets.panzerblitz.presence import fits, move_flags, occupancy
from simulator.rulesets.panzerblitz.state import ELIMINATED, EXITED, N_EVENTS
from simulator.rulesets.panzerblitz.tables import build_tables
from simulator.rulesets.panzerblitz.victory import evaluate, level_reached
from simulator.situation import load_situation
from tests.conftest import make_map
from tests.panzerblitz.pb_players import pb_players
from tests.panzerblitz.test_movement import column_road, run, setup
from tests.panzerblitz.test_rules import GERMAN, RUSSIAN, hexn, position, random_players, unit_of


def test_pb_tec_1_movement_classes_are_data(pb_ruleset):
    assert pb_ruleset.data["terrain"]["movement_classes"] == ["leg", "truck", "vehicle", "wagon", "cavalry"]
    units = pb_ruleset.units
    assert units["truck-russian"]["movement_class"] == "truck"
    assert units["t-34-c"]["movement_class"] == "vehicle"
    assert units["rifle-company-43"]["movement_class"] == "leg"


def test_pb_tec_3_road_hex_entered_off_the_road_costs_its_terrain(pb_ruleset):
    feats, sides = column_road()
    feats[(0, 2)] = {"road", "woods"}
    m, mt = setup(pb_ruleset, feats, sides)
    assert run(m, mt, "9B3", 2, "truck")[0]["9A3"] == 2  # woods for a truck, not 1/2


def test_pb_tec_8_clear_hilltop_costs_as_clear(pb_ruleset):
    m, mt = setup(pb_ruleset, {(0, 1): {"hilltop"}}, levels={(0, 1): 2})
    assert run(m, mt, "9A1", 1, "vehicle")[0]["9A2"] == 1


def test_pb_tec_14_hexside_bars_other_than_green_do_not_hinder_movement(pb_ruleset):
    for bar in ("gray", "brown", "orange"):
        m, mt = setup(pb_ruleset, sides={(0, 1): {"S": {bar}}})
        assert run(m, mt, "9A2", 2, "truck")[0]["9A3"] == 2, bar


def test_pb_tec_13_no_terrain_modifier_for_minefield_attacks(tmp_path):
    m = load_situation("pb-01").map
    woods = next(m.labels[i] for i in range(m.n_hexes) if m.labels[i].startswith("3") and m.has_feature("woods")[i])
    t, st = position(tmp_path, [("russian", "rifle-company-43", woods), ("german", "minefield", woods)])
    minefield_attacks(st, t.unit_t, t.map_t, t.combat_t, GERMAN)
    ev = st.log[st.clock[N_EVENTS] - 1]
    assert ev[6] == crt_result(t.combat.crt, t.combat.lowest_roll, t.combat.minefield_column, ev[5])


def test_pb_move_1_3_5_units_move_through_friends_within_their_mf(pb_ruleset):
    m, mt = setup(pb_ruleset)
    reach, _ = run(m, mt, "9A1", 3, "leg", occupied=["9A2"])  # a friendly unit in A2
    assert reach["9A4"] == 3 and "9A5" not in reach


def test_pb_move_2_dispersed_or_fired_units_and_mf_0_do_not_move(tmp_path):
    from simulator.rulesets.panzerblitz.movement_phase import movement_phase
    t, st = position(tmp_path, [("german", "panther-g", "3M4"), ("german", "pzkw-iv-h", "3K4"),
                                ("german", "75mm-at", "3M8"), ("russian", "rifle-company-43", "3A10")])
    panther, pz, gun = (unit_of(t, st, n) for n in ("panther-g", "pzkw-iv-h", "75mm-at"))
    st.dispersed[panther] = True
    st.fired[pz] = True
    before = st.hex.copy()
    for phase in (True, False):
        movement_phase(st, t.unit_t, t.map_t, t.move_t, t.combat_t, t.stack_limit, GERMAN, phase,
                       pb_players(t, st, *random_players()))
    assert st.hex[panther] == before[panther] and st.hex[pz] == before[pz] and st.hex[gun] == before[gun]


def test_pb_move_9_and_pb_move_12_counters_in_the_way(tmp_path):
    # Wrecks and blocks negate the road; other units' presence blocks the road rate.
    t, st = position(tmp_path, [("german", "panther-g", "3M4"), ("german", "block", "3M6"),
                                ("russian", "rifle-company-43", "3A10")])
    occ = occupancy(st, t.unit_t, t.situation.map.n_hexes)
    enemy, road_usable, road_clear, stop_here = move_flags(st, t.unit_t, t.map_t, GERMAN, 0, occ)
    h = hexn(t, "3M6")
    assert not road_usable[h] and stop_here[h] and enemy[hexn(t, "3A10")]


def test_pb_road_3_4_road_and_off_road_mix_and_benefits_only_at_road_rate(pb_ruleset):
    feats, sides = column_road(rows=range(3))
    feats[(0, 3)] = {"slope"}
    m, mt = setup(pb_ruleset, feats, sides, levels={(0, 3): 1})
    reach, _ = run(m, mt, "9A1", 4, "vehicle")
    assert reach["9A3"] == 1 and reach["9A4"] == 4  # 1/2 + 1/2 on the road, then 3 up the slope


def test_pb_road_6_passing_costs_the_non_road_cost_both_steps(pb_ruleset):
    feats, sides = column_road()
    m, mt = setup(pb_ruleset, feats, sides)
    reach, _ = run(m, mt, "9A1", 4, "truck", occupied=["9A3"])
    assert reach["9A3"] == 0.5 + 2  # into the occupied hex at the truck's clear cost
    assert "9A4" not in reach       # and out of it at the clear cost again: 4.5 > 4


def test_pb_road_8_9_a_loaded_carrier_uses_the_road_rate(tmp_path):
    t, st = position(tmp_path, [("russian", "truck-russian", "3M6"), ("russian", "76_2mm-at", "3M6"),
                                ("german", "rifle-platoon-german-42", "3A1")])
    truck, gun = unit_of(t, st, "truck-russian"), unit_of(t, st, "76_2mm-at")
    st.carrying[truck] = gun
    st.carried_by[gun] = truck
    occ = occupancy(st, t.unit_t, t.situation.map.n_hexes)
    # The gun aboard does not count as another unit on the road (PB-ROAD-9, PB-STACK-2).
    assert occ[hexn(t, "3M6"), RUSSIAN] == 1


def test_pb_road_12_pb_map_3_partial_road_hexes_exist_in_the_data():
    b = load_situation("pb-01").map
    h = b.lookup("2G10")
    road = b.side_bit("road")
    assert sum(1 for d in range(6) if b.side_features[h, d] & road) == 1


def test_pb_stack_2_4_carrier_and_passenger_count_once_checked_at_the_end(tmp_path):
    t, st = position(tmp_path, [("russian", "truck-russian", "3M6"), ("russian", "76_2mm-at", "3M6"),
                                ("russian", "rifle-company-43", "3M5")])
    truck, gun, rifle = (unit_of(t, st, n) for n in ("truck-russian", "76_2mm-at", "rifle-company-43"))
    st.carrying[truck] = gun
    st.carried_by[gun] = truck
    assert fits(st, t.unit_t, t.stack_limit, hexn(t, "3M6"), RUSSIAN, rifle)


def test_pb_stack_6_a_full_wreck_hex_may_be_passed_but_not_stopped_in(tmp_path):
    t, st = position(tmp_path, [("russian", "rifle-company-43", "3M5")])
    st.wrecks[hexn(t, "3M6"), 0] = 3
    assert not fits(st, t.unit_t, t.stack_limit, hexn(t, "3M6"), RUSSIAN, unit_of(t, st, "rifle-company-43"))


def test_pb_stk_5_combination_attack_sums_the_stack_and_hits_all(tmp_path):
    t, st = position(tmp_path, [("russian", "rifle-company-43", "3M6"), ("russian", "smg-company-43", "3M6")])
    # The whole stack defends with one combined DF (the sum of the printed DFs) ...
    df, kind, n_def, n_disp = defender_stack(st, t.unit_t, t.map_t, hexn(t, "3M6"), RUSSIAN)
    printed = sum(int(t.unit_t.defense[st.utype[unit_of(t, st, n)]]) for n in ("rifle-company-43", "smg-company-43"))
    assert (df, kind, n_def, n_disp) == (printed, 0, 2, 0)
    # ... and the one result applies to every unit in it.
    apply_to_stack(st, t.unit_t, hexn(t, "3M6"), RUSSIAN, DISPERSED)
    assert st.dispersed[unit_of(t, st, "rifle-company-43")] and st.dispersed[unit_of(t, st, "smg-company-43")]


def test_pb_stk_7_fort_occupants_are_attacked_through_the_fort(tmp_path):
    from simulator.rulesets.panzerblitz.techniques import selective_allowed
    t, st = position(tmp_path, [("german", "rifle-platoon-german-42", "3M6"), ("german", "smg-platoon-german", "3M6"),
                                ("german", "fort-40", "3M6")])
    assert not selective_allowed(st, t.unit_t, t.map_t, hexn(t, "3M6"), GERMAN)


def test_pb_trans_1_2_who_carries_and_who_is_carried(pb_ruleset):
    t = build_tables(load_situation("pb-01"))
    carrier = t.unit_t.carrier
    for name in ("truck-russian", "wagon", "m-2", "t-34-c", "sdkfz-251"):
        assert carrier[t.units.index(name)], name
    for name in ("rifle-company-43", "76_2mm-at", "cavalry-russian-43", "command-post"):
        assert not carrier[t.units.index(name)], name


def test_pb_trans_3_4_5_load_unload_one_operation_and_passenger_restrictions():
    from simulator.rulesets.panzerblitz.events import EV_LOAD, EV_UNLOAD
    from simulator.rulesets.panzerblitz.replay import play
    t = build_tables(load_situation("pb-02"))
    rec = play(t, 4, debug=True)
    ev = rec.events
    by_turn = {}
    for r in ev:
        if r[2] == EV_LOAD and r[6] == 1:
            assert r[5] == -1  # boarding before entering (docs/rulings.md) happens off the map: not a load
            continue
        if r[2] in (EV_LOAD, EV_UNLOAD):
            key = (int(r[0]), int(r[1]), int(r[3]))
            by_turn.setdefault(key, set()).add(int(r[2]))
    assert all(len(v) == 1 for v in by_turn.values())  # never load and unload in one turn
    assert rec.violation is None


def test_pb_trans_7_halftrack_with_passenger_is_armored(tmp_path):
    from simulator.rulesets.panzerblitz.fire import defender_stack
    t, st = position(tmp_path, [("german", "sdkfz-251", "3M6"), ("german", "rifle-platoon-german-42", "3M6")])
    ht, rifle = unit_of(t, st, "sdkfz-251"), unit_of(t, st, "rifle-platoon-german-42")
    st.carrying[ht] = rifle
    st.carried_by[rifle] = ht
    df, kind, _, _ = defender_stack(st, t.unit_t, t.map_t, hexn(t, "3M6"), GERMAN)
    assert kind == 1 and df == t.units.defense[t.units.index("sdkfz-251")]


def test_pb_trans_12_minefield_treats_carrier_and_passenger_as_one(tmp_path):
    t, st = position(tmp_path, [("russian", "truck-russian", "3M6"), ("russian", "76_2mm-at", "3M6"),
                                ("german", "minefield", "3M6")])
    truck, gun = unit_of(t, st, "truck-russian"), unit_of(t, st, "76_2mm-at")
    st.carrying[truck] = gun
    st.carried_by[gun] = truck
    minefield_attacks(st, t.unit_t, t.map_t, t.combat_t, GERMAN)
    assert st.clock[N_EVENTS] in (1, 2)  # one attack (and a passenger line if it died)
    assert st.status[gun] == st.status[truck]


def test_pb_wec_1_7_8_9_classes_and_per_defender_types(tmp_path):
    t, st = position(tmp_path, [("german", "panther-g", "3M4"), ("russian", "t-34-c", "3M6")])
    panther = unit_of(t, st, "panther-g")
    # PB-WEC-9: weapon effect first (16 x2 at range 2), then terrain (none in the open).
    assert firer_af(st, t.unit_t, t.map_t, t.combat_t, panther, hexn(t, "3M6"), 1) == 32
    assert firer_af(st, t.unit_t, t.map_t, t.combat_t, panther, hexn(t, "3M6"), 0) == 8
    assert set(pb_classes(t)) <= {"A", "H", "M", "I", ""}


def pb_classes(t):
    return [t.situation.ruleset.units[n]["weapon"] for n in t.units.names]


def test_pb_wreck_2_3_4_wrecks_stay_and_negate_roads(tmp_path):
    t, st = position(tmp_path, [("russian", "t-34-c", "3M6"), ("german", "panther-g", "3A1")])
    eliminate(st, t.unit_t, unit_of(t, st, "t-34-c"))
    h = hexn(t, "3M6")
    occ = occupancy(st, t.unit_t, t.situation.map.n_hexes)
    _, road_usable, road_clear, _ = move_flags(st, t.unit_t, t.map_t, GERMAN, unit_of(t, st, "panther-g"), occ)
    assert st.wrecks[h].sum() == 1 and not road_usable[h] and not road_clear[h]


def test_pb_vic_1_3_4_levels_and_what_counts(tmp_path):
    v = {"measure": "destroyed", "whose": "enemy", "compare": ">=", "marginal": 2, "tactical": 4, "decisive": 6}
    assert [level_reached(v, x) for x in (1, 2, 5, 6)] == [0, 1, 2, 3]
    t, st = position(tmp_path, [("german", "panther-g", "3M4"), ("russian", "rifle-company-43", "3M6"),
                                ("russian", "minefield", "3M8"), ("russian", "block", "3M9")])
    for name in ("rifle-company-43", "minefield", "block"):
        u = unit_of(t, st, name)
        st.status[u] = ELIMINATED
    st.engaged[:] = True  # the sides have fought (else no battle, PB-VIC-6)
    outcome = evaluate(st, t)
    assert outcome.values["german"] == 1  # minefields and blocks are not units (PB-VIC-4)


def test_pb_vic_3_exits_count_for_the_exiting_side(tmp_path):
    from simulator.rulesets.panzerblitz.victory import measure_value
    t, st = position(tmp_path, [("german", "panther-g", "3M4"), ("russian", "rifle-company-43", "3M6")])
    u = unit_of(t, st, "panther-g")
    st.status[u] = EXITED
    st.exit_edge[u] = 1
    st.exit_turn[u] = 0
    m = {"measure": "exited", "whose": "own", "edge": "north", "stay_off_turns": 1}
    assert measure_value(m, st, t, GERMAN) == 1
    assert measure_value(dict(m, edge="south"), st, t, GERMAN) == 0


@pytest.mark.parametrize("result,expected", [(RES_X, ELIMINATED)])
def test_pb_crt_5_passengers_share_the_result(tmp_path, result, expected):
    t, st = position(tmp_path, [("russian", "m-2", "3M6"), ("russian", "rifle-company-43", "3M6")])
    ht, rifle = unit_of(t, st, "m-2"), unit_of(t, st, "rifle-company-43")
    st.carrying[ht] = rifle
    st.carried_by[rifle] = ht
    apply_to_stack(st, t.unit_t, hexn(t, "3M6"), RUSSIAN, result)
    assert st.status[ht] == expected and st.status[rifle] == expected


def test_make_map_helper_is_a_real_board(pb_ruleset):
    m = make_map(pb_ruleset)
    assert m.n_hexes == 4 * 10 + 3 * 11
    assert compile_movement(pb_ruleset.data, m, "t").enter_cost.shape == (m.n_hexes, 5)


# ------------------------------------------------------------------ PB-ROAD-10 swamp/road hexes

def _reach(t, st, u):
    import numpy as np

    from simulator.rulesets.panzerblitz.move_view import reach_of
    n = t.situation.map.n_hexes
    occ = occupancy(st, t.unit_t, n)
    cost, prev = np.empty(n, dtype=np.int32), np.empty(n, dtype=np.int32)
    reach_of(st, t.unit_t, t.map_t, t.move_t, st.side[u], u, st.hex[u], int(t.unit_t.movement[st.utype[u]]),
             occ, cost, prev)  # (movement is kept in half MF)
    return cost, prev


def test_pb_road_10_a_vehicle_joins_foot_units_on_a_swamp_road_for_1_mf_and_stops(tmp_path):
    """1BB10 and 1CC9 are swamp/road hexes (the road runs 1AA9 - 1BB10 - 1CC9 - ...)."""
    t, st = position(tmp_path, [("german", "truck-german", "1AA9")], '[["1", "3"]]')
    cost, _ = _reach(t, st, unit_of(t, st, "truck-german"))
    assert cost[hexn(t, "1BB10")] == 1 and cost[hexn(t, "1CC9")] == 2  # empty: the road rate (half MF)
    t, st = position(tmp_path, [("german", "truck-german", "1AA9"), ("german", "rifle-platoon-german-42", "1BB10")],
                     '[["1", "3"]]')
    cost, prev = _reach(t, st, unit_of(t, st, "truck-german"))
    assert cost[hexn(t, "1BB10")] == 2 * t.move_t.swamp_stack_cost // 2 == 2  # PB-ROAD-10.3: 1 MF
    assert prev[hexn(t, "1CC9")] != hexn(t, "1BB10")  # PB-ROAD-10.4: onto, not through
    # PB-ROAD-10.1: foot units join a stack there too, but not at the road rate (the swamp's 1 MF).
    t, st = position(tmp_path, [("german", "rifle-platoon-german-42", "1AA9"), ("german", "truck-german", "1BB10")],
                     '[["1", "3"]]')
    cost, _ = _reach(t, st, unit_of(t, st, "rifle-platoon-german-42"))
    assert cost[hexn(t, "1BB10")] == 2


def test_pb_road_10_never_two_vehicles_on_a_swamp_road(tmp_path):
    from simulator.rulesets.panzerblitz.game import _setup_ok
    from simulator.rulesets.panzerblitz.invariants import OK, SWAMP_ROAD_VEHICLES, violation
    t, st = position(tmp_path, [("german", "sdkfz-251", "1AA9"), ("german", "truck-german", "1BB10")], '[["1", "3"]]')
    ht, truck = unit_of(t, st, "sdkfz-251"), unit_of(t, st, "truck-german")
    cost, prev = _reach(t, st, ht)
    assert cost[hexn(t, "1BB10")] == -1 and prev[hexn(t, "1CC9")] != hexn(t, "1BB10")  # not even passing
    ut, mt, mv = t.unit_t, t.map_t, t.move_t
    assert violation(st, ut, mt, mv, t.stack_limit) == OK
    st.hex[ht] = hexn(t, "1BB10")
    assert violation(st, ut, mt, mv, t.stack_limit) == SWAMP_ROAD_VEHICLES
    st.hex[ht] = -1
    assert not _setup_ok(st, ut, mt, mv, t.stack_limit, ht, hexn(t, "1BB10"), GERMAN)
    assert _setup_ok(st, ut, mt, mv, t.stack_limit, ht, hexn(t, "1AA9"), GERMAN)
    st.hex[truck] = -1
    assert _setup_ok(st, ut, mt, mv, t.stack_limit, ht, hexn(t, "1BB10"), GERMAN)
