"""More PanzerBlitz rules, one test each, in hand-made positions (see tests/panzerblitz/test_rules.py)."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.rulesets.panzerblitz.close_assault import may_assault, resolve_assault
from simulator.rulesets.panzerblitz.combat import DISPERSED, DOUBLE_DISPERSED, crt_result
from simulator.rulesets.panzerblitz.combat import ELIMINATED as RES_X
from simulator.rulesets.panzerblitz.events import EV_ENTER, EV_MOVE, EV_TURN
from simulator.rulesets.panzerblitz.fire import fire_options, may_fire, resolve_fire
from simulator.rulesets.panzerblitz.losses import apply_to_stack
from simulator.rulesets.panzerblitz.presence import fits, occupancy, side_load
from simulator.rulesets.panzerblitz.replay import play
from simulator.rulesets.panzerblitz.spotting import spotted_hexes
from simulator.rulesets.panzerblitz.state import ELIMINATED, N_EVENTS, ON_MAP
from simulator.rulesets.panzerblitz.tables import build_tables
from simulator.situation import load_situation
from tests.panzerblitz.pb_players import pb_players
from tests.panzerblitz.test_rules import GERMAN, RUSSIAN, hexn, position, random_players, unit_of


def type_flags(t, name):
    i = t.units.index(name)
    return t.unit_t.can_assault[i], t.unit_t.can_overrun[i], t.unit_t.vehicle[i], t.unit_t.carrier[i]


@pytest.fixture(scope="module")
def pb01_tables():
    return build_tables(load_situation("pb-01"))


def test_pb_cat_1_who_may_close_assault(pb01_tables):
    t = pb01_tables
    assert type_flags(t, "rifle-company-43")[0] and type_flags(t, "engineer-platoon-german")[0]
    assert type_flags(t, "cavalry-russian-43")[0]
    for name in ("sdkfz-251", "m-2", "76_2mm-at", "82mm-mortar", "12_7mm-mg", "command-post", "t-34-c"):
        assert not type_flags(t, name)[0], name


def test_pb_cat_3_9_no_assault_after_moving_two_hexes_or_being_unloaded(tmp_path):
    t, st = position(tmp_path, [("german", "rifle-platoon-german-42", "3M5"), ("russian", "rifle-company-43", "3M6")])
    u = unit_of(t, st, "rifle-platoon-german-42")
    assert may_assault(st, t.unit_t, u, GERMAN)
    st.steps[u] = 1
    assert may_assault(st, t.unit_t, u, GERMAN)  # one hex is allowed
    st.steps[u] = 2
    assert not may_assault(st, t.unit_t, u, GERMAN)
    st.steps[u] = 99  # unloaded this turn (PB-CAT-9)
    assert not may_assault(st, t.unit_t, u, GERMAN)


def test_pb_cat_4_5_7_adjacent_assaulters_combined_df_and_no_assault_below_1_4(tmp_path):
    t, st = position(tmp_path, [("german", "rifle-platoon-german-42", "3M5"), ("russian", "t-34-c", "3M6"),
                                ("russian", "t-34-c", "3M6")])
    u = unit_of(t, st, "rifle-platoon-german-42")
    # 3 against 2 x DF 9 = 18 is below 1-4: no assault (PB-CAT-7).
    assert resolve_assault(st, t.unit_t, t.map_t, t.combat_t, GERMAN, np.array([u]), 1, hexn(t, "3M6")) == -1
    assert not st.assaulted[u]


def test_pb_cav_2_3_4_cavalry_moves_as_a_vehicle_never_overruns_never_carried(pb01_tables):
    t = pb01_tables
    assault, overrun, vehicle, carrier = type_flags(t, "cavalry-russian-43")
    assert vehicle and not overrun and not carrier
    cav = t.units.index("cavalry-russian-43")
    assert t.movement.classes[t.unit_t.mclass[cav]] == "cavalry"


def test_pb_cbt_3_4_who_may_fire_and_only_once(tmp_path):
    t, st = position(tmp_path, [("german", "panther-g", "3M4"), ("russian", "rifle-company-43", "3M6")])
    u = unit_of(t, st, "panther-g")
    assert may_fire(st, t.unit_t, u, GERMAN)
    st.fired[u] = True
    assert not may_fire(st, t.unit_t, u, GERMAN)  # PB-CBT-3: one attack a turn
    st.fired[u] = False
    st.dispersed[u] = True
    assert not may_fire(st, t.unit_t, u, GERMAN)  # PB-DISP-2: dispersed units do not fire
    assert not may_fire(st, t.unit_t, u, RUSSIAN)  # PB-CBT-1: only the phasing player attacks


def test_pb_cbt_6_and_pb_stk_1_units_firing_at_a_lone_defender_combine(tmp_path):
    t, st = position(tmp_path, [("german", "panther-g", "3M4"), ("german", "pzkw-iv-h", "3K4"),
                                ("russian", "t-34-c", "3M6")])
    ut, mt = t.unit_t, t.map_t
    spotted = spotted_hexes(st, ut, mt, t.combat_t, GERMAN)
    attackers = np.array([unit_of(t, st, "panther-g"), unit_of(t, st, "pzkw-iv-h")])
    resolve_fire(st, ut, mt, t.combat_t, GERMAN, hexn(t, "3M6"), attackers, 2, spotted)
    ev = st.log[[i for i in range(st.clock[N_EVENTS]) if st.log[i, 2] == 5][0]]
    # Panther 16 A x2 (range 2 <= 6) + PzKw IV 16? A; whatever their factors, the total is the sum.
    firers = [r for r in st.log[: st.clock[N_EVENTS]] if r[2] == 6]
    assert ev[4] == sum(int(r[5]) for r in firers) and len(firers) == 2
    assert all(st.fired[attackers])


def test_pb_crt_2_5_results_apply_to_every_defender_dd_unit_by_unit(tmp_path):
    t, st = position(tmp_path, [("russian", "rifle-company-43", "3M6"), ("russian", "smg-company-43", "3M6")])
    rifle, smg = unit_of(t, st, "rifle-company-43"), unit_of(t, st, "smg-company-43")
    st.dispersed[rifle] = True  # already dispersed this player-turn
    apply_to_stack(st, t.unit_t, hexn(t, "3M6"), RUSSIAN, DOUBLE_DISPERSED)
    assert st.status[rifle] == ELIMINATED  # DD on a dispersed unit eliminates
    assert st.status[smg] == ON_MAP and st.dispersed[smg]


def test_pb_disp_1_2_6_dispersed_units_and_passengers(tmp_path):
    t, st = position(tmp_path, [("russian", "truck-russian", "3M6"), ("russian", "76_2mm-at", "3M6")])
    truck, gun = unit_of(t, st, "truck-russian"), unit_of(t, st, "76_2mm-at")
    st.carrying[truck] = gun
    st.carried_by[gun] = truck
    apply_to_stack(st, t.unit_t, hexn(t, "3M6"), RUSSIAN, DISPERSED)
    assert st.dispersed[truck] and st.dispersed[gun]  # PB-DISP-6
    assert st.carried_by[gun] == truck  # a truck keeps its passenger (PB-TRANS-9 is for armor)


def test_pb_stack_3_blocks_count_for_both_sides_mines_and_forts_do_not(tmp_path):
    t, st = position(tmp_path, [("german", "block", "3M6"), ("german", "minefield", "3M5"), ("german", "fort-40", "3M4")])
    ut = t.unit_t
    assert side_load(st, ut, hexn(t, "3M6"), RUSSIAN) == 1
    assert side_load(st, ut, hexn(t, "3M5"), RUSSIAN) == 0
    assert side_load(st, ut, hexn(t, "3M4"), GERMAN) == 0


def test_pb_stack_1_limits_german_3_russian_2(tmp_path):
    t, st = position(tmp_path, [("german", "rifle-platoon-german-42", "3M6"), ("german", "rifle-platoon-german-42", "3M6"),
                                ("russian", "rifle-company-43", "3M4"), ("russian", "rifle-company-43", "3M4")])
    g = unit_of(t, st, "rifle-platoon-german-42")
    r = unit_of(t, st, "rifle-company-43")
    assert fits(st, t.unit_t, t.stack_limit, hexn(t, "3M6"), GERMAN, g)      # a third German fits
    assert not fits(st, t.unit_t, t.stack_limit, hexn(t, "3M4"), RUSSIAN, r)  # a third Russian does not


def test_pb_stk_6_town_stacks_are_attacked_together_as_armor(tmp_path):
    from simulator.rulesets.panzerblitz.fire import defender_stack
    from simulator.rulesets.panzerblitz.techniques import selective_allowed
    t, st = position(tmp_path, [("russian", "rifle-company-43", "3Q5"), ("russian", "smg-company-43", "3Q5")])
    h = hexn(t, "3Q5")  # a town hex
    df, kind, n, _ = defender_stack(st, t.unit_t, t.map_t, h, RUSSIAN)
    assert kind == 1 and n == 2  # PB-WEC-2: everything in a town is an armored target
    assert not selective_allowed(st, t.unit_t, t.map_t, h, RUSSIAN)


def test_pb_wec_6_majority_type_of_a_mixed_stack(tmp_path):
    from simulator.rulesets.panzerblitz.fire import defender_stack
    t, st = position(tmp_path, [("russian", "t-34-c", "3M6"), ("russian", "rifle-company-43", "3M6")])
    assert defender_stack(st, t.unit_t, t.map_t, hexn(t, "3M6"), RUSSIAN)[1] == 2  # a tie
    t, st = position(tmp_path, [("german", "panther-g", "3M6"), ("german", "pzkw-iv-h", "3M6"),
                                ("german", "rifle-platoon-german-42", "3M6")])
    assert defender_stack(st, t.unit_t, t.map_t, hexn(t, "3M6"), GERMAN)[1] == 1  # armored majority


def test_pb_spot_2_dispersed_units_do_not_spot(tmp_path):
    t, st = position(tmp_path, [("german", "rifle-platoon-german-42", "3M5"), ("russian", "rifle-company-43", "3M6")])
    u = unit_of(t, st, "rifle-platoon-german-42")
    assert spotted_hexes(st, t.unit_t, t.map_t, t.combat_t, GERMAN)[hexn(t, "3M6")]
    st.dispersed[u] = True
    assert not spotted_hexes(st, t.unit_t, t.map_t, t.combat_t, GERMAN)[hexn(t, "3M6")]


def test_pb_cbt_4_range_limits_fire(tmp_path):
    t, st = position(tmp_path, [("german", "81mm-mortar", "3A1"), ("russian", "rifle-company-43", "3Z1")])
    n_hex = t.situation.map.n_hexes
    occ = occupancy(st, t.unit_t, n_hex)
    oh, oa = np.empty(n_hex, dtype=np.int64), np.empty(n_hex, dtype=np.int64)
    spotted = spotted_hexes(st, t.unit_t, t.map_t, t.combat_t, GERMAN)
    assert fire_options(st, t.unit_t, t.map_t, t.combat_t, GERMAN, spotted, occ, unit_of(t, st, "81mm-mortar"), oh, oa, np.full(n_hex, -1)) == 0


def test_pb_seq_1_2_and_pb_move_8_order_of_play(pb01_tables):
    rec = play(pb01_tables, 2)
    ev = rec.events
    turns = ev[ev[:, 2] == EV_TURN]
    sides = pb01_tables.situation.ruleset.sides
    first = sides.index("russian")
    assert [int(r[3]) for r in turns[:4]] == [first, 1 - first, first, 1 - first]
    assert int(turns[-1, 0]) == 10
    # Within each player-turn, all vehicle moves precede non-vehicle moves (S4 before S5).
    vehicle = pb01_tables.unit_t.vehicle
    seen_leg = False
    for r in ev:
        if r[2] == EV_TURN:
            seen_leg = False
        elif r[2] in (EV_MOVE, EV_ENTER) and rec.state.carried_by[r[3]] < 0:
            if vehicle[rec.state.utype[r[3]]]:
                assert not seen_leg
            else:
                seen_leg = True


def test_pb_move_10_units_leave_only_by_edges_the_card_allows(tmp_path):
    from simulator.rulesets.panzerblitz.movement_phase import movement_phase
    from simulator.rulesets.panzerblitz.state import EXITED
    from tests.panzerblitz.pb_players import seed_game
    for edges, can_exit in ((0, False), (1, True)):  # 1 = the north edge
        exits = 0
        for seed in range(40):
            t, st = position(tmp_path, [("german", "panther-g", "3M2"), ("russian", "rifle-company-43", "3A10")])
            st.exit_edges[GERMAN] = edges
            seed_game(seed)
            movement_phase(st, t.unit_t, t.map_t, t.move_t, t.combat_t, t.stack_limit, GERMAN, True,
                           pb_players(t, st, *random_players()))
            u = unit_of(t, st, "panther-g")
            if st.status[u] == EXITED:
                exits += 1
                assert st.exit_edge[u] == 1
        assert (exits > 0) == can_exit

def test_pb_move_10_exit_edges_come_from_either_sides_card():
    # Situation 8: the German card counts German exits north.  Situation 9: the German card
    # counts the Russian units that have NOT left by the north edge, so the Russians may leave
    # by it (and the Germans may not leave at all).
    from simulator.rulesets.panzerblitz.state import new_state
    for sid, german, russian in (("pb-08", 1, 0), ("pb-09", 0, 1), ("pb-01", 0, 0)):
        st = new_state(build_tables(load_situation(sid)), np.random.default_rng(0))
        assert (st.exit_edges[GERMAN], st.exit_edges[RUSSIAN]) == (german, russian), sid



def test_pb_move_11_reinforcements_enter_on_their_turn():
    t = build_tables(load_situation("pb-02"))
    rec = play(t, 1)
    for r in rec.events[rec.events[:, 2] == EV_ENTER]:
        assert r[0] >= rec.state.entry_turn[r[3]]


def test_pb_mine_2_minefields_attack_their_owners_too(tmp_path):
    from simulator.rulesets.panzerblitz.mines import minefield_attacks
    t, st = position(tmp_path, [("russian", "rifle-company-43", "3M6"), ("russian", "minefield", "3M6")])
    minefield_attacks(st, t.unit_t, t.map_t, t.combat_t, GERMAN)  # the German rolls for it
    assert st.clock[N_EVENTS] == 1


def test_pb_gen_7_and_pb_cbt_11_one_die_per_battle():
    # The die shows 1..6 (tests/panzerblitz/test_combat.py checks the frequencies); minefield at 2-1 with a 1: X.
    t = build_tables(load_situation("pb-01"))
    assert crt_result(t.combat.crt, t.combat.lowest_roll, t.combat.column("2-1"), 1) == RES_X


@pytest.mark.parametrize("sid,absent", [("pb-03", ("minefield", "block")), ("pb-06", ("minefield", "block"))])
def test_pb_sit_3_6_no_mines_or_blocks(sid, absent):
    totals = load_situation(sid).side("russian" if sid == "pb-03" else "german").unit_totals()
    assert not any(a in totals for a in absent)


def test_pb_sit_5_germans_count_own_units_out_three_turns_back_and_out_the_far_edge():
    v = load_situation("pb-05").side("german").victory
    assert v["measure"] == "round_trip" and v["whose"] == "own" and v["stay_off_turns"] == 3
    assert (v["edge"], v["final_edge"]) == ("south", "north") and v.get("return_leg", True)
    assert load_situation("pb-05").turns == 10  # OpenPanzerBlitz; a published report plays 12 (docs/rulings.md)


@pytest.mark.parametrize("sid,rule", [("pb-07", "PB-SIT-7"), ("pb-08", "PB-SIT-8"), ("pb-10", "PB-SIT-10"), ("pb-12", "PB-SIT-12")])
def test_pb_sit_special_rules_are_recorded(sid, rule):
    assert rule in [s["rule"] for s in load_situation(sid).special]


def test_pb_gen_4_pb_map_7_nobody_sets_up_in_the_pond():
    sit = load_situation("pb-05")  # board 3 set-up area
    pond = sit.map.lookup("3W4")
    assert all(pond not in g.hexes for s in sit.sides for g in s.groups)


def test_pb_map_4_5_board_errata():
    m = load_situation("pb-01").map
    assert not m.has_feature("town")[m.lookup("3C4")]
    assert m.has_feature("town")[m.lookup("1C9")] and not m.has_feature("woods")[m.lookup("1C9")]


def test_pb_self_1_2_voluntary_destruction_leaves_a_wreck_and_counts_as_a_loss(tmp_path):
    """PB-SELF-1 and PB-SELF-2."""
    from simulator.rulesets.panzerblitz.mines import may_self_destroy, self_destroy
    from simulator.rulesets.panzerblitz.victory import measure_value
    t, st = position(tmp_path, [("russian", "t-34-c", "3M6"), ("russian", "minefield", "3M8"),
                                ("german", "panther-g", "3A1")])
    tank, mine = unit_of(t, st, "t-34-c"), unit_of(t, st, "minefield")
    assert may_self_destroy(st, t.unit_t, tank, RUSSIAN)
    assert not may_self_destroy(st, t.unit_t, mine, RUSSIAN)      # positional defences never
    assert not may_self_destroy(st, t.unit_t, tank, GERMAN)       # only one's own units
    self_destroy(st, t.unit_t, tank)
    assert st.status[tank] == ELIMINATED and st.wrecks[hexn(t, "3M6")].sum() == 1
    assert measure_value({"measure": "destroyed", "whose": "enemy"}, st, t, GERMAN) == 1


def test_pb_mine_9_engineers_clear_minefields_on_a_1(tmp_path):
    from simulator.rulesets.panzerblitz.game import MINE
    from simulator.rulesets.panzerblitz.mines import attempt_mine_removal, mine_removal_targets
    from tests.panzerblitz.pb_players import seed_game
    removed = 0
    for s in range(60):
        t, st = position(tmp_path, [("german", "engineer-platoon-german", "3M5"), ("russian", "minefield", "3M6")])
        eng = unit_of(t, st, "engineer-platoon-german")
        out = np.empty(6, dtype=np.int64)
        assert mine_removal_targets(st, t.unit_t, t.map_t, GERMAN, eng, out) == 1 and out[0] == hexn(t, "3M6")
        seed_game(s)
        ok = attempt_mine_removal(st, t.unit_t, eng, hexn(t, "3M6"), MINE)
        assert st.fired[eng]  # the attempt is its attack: it may not move (OQ-13)
        assert st.mine[hexn(t, "3M6")] != ok
        removed += ok
    assert 2 <= removed <= 25  # about one in six
    t, st = position(tmp_path, [("german", "rifle-platoon-german-42", "3M5"), ("russian", "minefield", "3M6")])
    assert mine_removal_targets(st, t.unit_t, t.map_t, GERMAN, 0, np.empty(6, dtype=np.int64)) == 0


@pytest.mark.parametrize("then_move", [False, True])
def test_oq_13_mine_removal_then_move(tmp_path, then_move):
    """OQ-13 (PB-MINE-9): adopted, the engineer that tried to clear a minefield does not move
    that turn (its `fired` flag, as for a unit that fired); the alternative lets it move, but
    it has made its attack: no fire and no close assault."""
    from simulator.rulesets.panzerblitz.events import EV_MINE_REMOVAL
    from simulator.rulesets.panzerblitz.game import fire_phase
    t, st = position(tmp_path, [("german", "engineer-platoon-german", "3M5"), ("russian", "minefield", "3M6"),
                                ("russian", "rifle-company-43", "3N6")])
    eng = unit_of(t, st, "engineer-platoon-german")
    st.mine[hexn(t, "3M6")] = True
    ct = t.combat_t._replace(removal_then_move=then_move)
    policy, params = random_players()
    fire_phase(st, t.unit_t, t.map_t, ct, GERMAN, pb_players(t, st, np.array([1, 1]), params))  # heuristic
    rows = st.log[:st.clock[N_EVENTS]]
    assert (rows[:, 2] == EV_MINE_REMOVAL).sum() == 1  # it tried
    assert st.fired[eng] == (not then_move)
    assert not may_assault(st, t.unit_t, eng, GERMAN)


@pytest.mark.parametrize("together", [True, False])
def test_oq_25_minefield_and_block_in_one_hex(tmp_path, together):
    from simulator.rulesets.panzerblitz.game import _setup_ok
    t, st = position(tmp_path, [("russian", "block", "3M6"), ("russian", "minefield", "3M8")])
    mine = unit_of(t, st, "minefield")
    st.hex[mine], st.status[mine] = -1, 0
    st.mine[hexn(t, "3M8")] = False
    ok = _setup_ok(st, t.unit_t, t.map_t, t.move_t, t.stack_limit, mine, hexn(t, "3M6"), RUSSIAN, not together)
    assert ok == together
    assert t.combat_t.mine_block_apart is False  # the digest's reading by default
