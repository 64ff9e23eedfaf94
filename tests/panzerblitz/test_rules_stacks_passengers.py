"""Multiple attacks (PB-STK-4, OQ-5, OQ-23) and attacks on an armored carrier's passenger alone
(PB-TRANS-8 / PB-STK-8), in small hand-made positions on board 3 (open ground around 3M6)."""

from __future__ import annotations

import numpy as np

from simulator.rulesets.panzerblitz.events import EV_ATTACK, EV_FIRER, EV_HIT, EV_MOVE, EV_UNLOAD
from simulator.rulesets.panzerblitz.game import FORT, fire_phase
from simulator.rulesets.panzerblitz.players import heuristic as hp
from simulator.rulesets.panzerblitz.presence import occupancy, side_load
from simulator.rulesets.panzerblitz.replay import policy_tables
from simulator.rulesets.panzerblitz.spotting import spotted_hexes
from simulator.rulesets.panzerblitz.state import ELIMINATED, ON_MAP
from simulator.rulesets.panzerblitz.techniques import (
    AT_LEFTOVERS,
    NOT_FIRING,
    exposed_passenger,
    multiple_attack_ok,
    plan_multiple,
    resolve_multiple,
    resolve_passenger,
)
from simulator.rulesets.panzerblitz.transport import unload
from simulator.situation import load_situation
from tests.panzerblitz.pb_players import pb_players, seed_game
from tests.panzerblitz.test_rules import GERMAN, RUSSIAN, hexn, unit_of
from tests.panzerblitz.test_rules_coverage_more import events, players, position, units_named

# A Panther and a PzKw IV against a T-34 stacked with a truck: each is far better against one
# of the two (WEC: A-class doubles against armor within half range, halves against soft targets).
TANK_AND_TRUCK = [("german", "panther-g", "3M4"), ("german", "pzkw-iv-h", "3M3"),
                  ("russian", "t-34-c", "3M6"), ("russian", "truck-russian", "3M6")]
# Russian tanks against a German stack of three: security platoon (DF 5), SMG platoon (DF 6)
# and a PzKw IV (DF 8); a 45mm AT gun too weak to attack the tank at 1-1.
GERMAN_THREE = [("russian", "t-34-c", "3M4"), ("russian", "t-34_85", "3M4"), ("russian", "45mm-at", "3M3"),
                ("german", "security-platoon-german", "3M6"), ("german", "smg-platoon-german", "3M6"),
                ("german", "pzkw-iv-h", "3M6")]


def _spotted(t, st, side):
    return spotted_hexes(st, t.unit_t, t.map_t, t.combat_t, side)


def _ok(t, st, ct, side, h, attackers, assign):
    return multiple_attack_ok(st, t.unit_t, t.map_t, ct, side, h, np.array(attackers, dtype=np.int64), len(attackers),
                              np.array(assign, dtype=np.int64), _spotted(t, st, side))


def test_pb_stk_4_multiple_attack_one_battle_per_defender(tmp_path):
    for seed in range(20):
        t, st = position(tmp_path, TANK_AND_TRUCK)
        h = hexn(t, "3M6")
        panther, pz4 = unit_of(t, st, "panther-g"), unit_of(t, st, "pzkw-iv-h")
        tank, truck = unit_of(t, st, "t-34-c"), unit_of(t, st, "truck-russian")
        seed_game(seed)
        n = resolve_multiple(st, t.unit_t, t.map_t, t.combat_t, GERMAN, h, np.array([panther, pz4]), 2,
                             np.array([tank, truck]), _spotted(t, st, GERMAN))
        assert n == 2
        attacks = events(st, EV_ATTACK)
        assert len(attacks) == 2  # two battles, two die rolls
        # the truck (DF 1, non-armored: 14 x 1/2 = 7 -> 4-1), the T-34 (DF 9, armored at 2 hexes: 16 x 2 = 32 -> 3-1)
        assert sorted((int(a[4]), int(a[5])) for a in attacks) == [(7, 1), (32, 9)]
        assert {int(a[6]) for a in attacks} == {t.combat.column("4-1"), t.combat.column("3-1")}
        assert st.fired[panther] and st.fired[pz4]
        by_df = {int(a[5]): int(a[9]) for a in attacks}
        for unit, df in ((tank, 9), (truck, 1)):
            hits = [r for r in events(st, EV_HIT) if r[3] == unit]
            if by_df[df] == 0:
                assert not hits and st.status[unit] == ON_MAP and not st.dispersed[unit]
            else:
                assert len(hits) == 1 and int(hits[0][5]) == by_df[df]  # each its own result


def test_pb_stk_4_multiple_attack_legality(tmp_path):
    t, st = position(tmp_path, GERMAN_THREE)
    ct = t.combat_t
    h = hexn(t, "3M6")
    t34, t85, gun = unit_of(t, st, "t-34-c"), unit_of(t, st, "t-34_85"), unit_of(t, st, "45mm-at")
    sec, smg, pz4 = (unit_of(t, st, n) for n in ("security-platoon-german", "smg-platoon-german", "pzkw-iv-h"))
    # The two weakest by printed DF, each at 1-1 or better (T-34 vs soft: 12 x 1/2 = 6): legal,
    # the strongest left out.
    assert _ok(t, st, ct, RUSSIAN, h, [t34, t85], [sec, smg])
    # Only one defender: not a multiple attack.
    assert not _ok(t, st, ct, RUSSIAN, h, [t34, t85], [sec, sec])
    # The weakest must be attacked first: not the SMG and the tank leaving the security platoon.
    assert not _ok(t, st, ct, RUSSIAN, h, [t34, t85], [smg, pz4])
    # Every battle at 1-1 at least: the 45mm alone against the PzKw IV is 7-8 (1-2).
    assert not _ok(t, st, ct, RUSSIAN, h, [t34, t85, gun], [sec, smg, pz4])
    assert not _ok(t, st, ct, RUSSIAN, h, [t85, t34, gun], [pz4, sec, smg])  # 45mm x 1/2 = 3 vs SMG 6: 1-2
    # A unit fires only once.
    assert not _ok(t, st, ct, RUSSIAN, h, [t34, t34], [sec, smg])
    # Not in a town (PB-STK-6): the same position in the town hex 3Q5.
    town = [(s, n, "3Q5" if h_ == "3M6" else h_) for s, n, h_ in GERMAN_THREE]
    tt, st2 = position(tmp_path, [(s, n, {"3M4": "3Q3", "3M3": "3Q2"}.get(h_, h_)) for s, n, h_ in town])
    assert not _ok(tt, st2, tt.combat_t, RUSSIAN, hexn(tt, "3Q5"), [unit_of(tt, st2, "t-34-c"),
                   unit_of(tt, st2, "t-34_85")], [unit_of(tt, st2, "security-platoon-german"),
                                                  unit_of(tt, st2, "smg-platoon-german")])


def test_pb_stk_4_random_and_heuristic_players_use_multiple_attacks(tmp_path):
    # Random play: the technique is one of combination, selective and multiple.
    techniques = set()
    for seed in range(30):
        t, st = position(tmp_path, TANK_AND_TRUCK)
        seed_game(seed)
        fire_phase(st, t.unit_t, t.map_t, t.combat_t, GERMAN, pb_players(t, st, *players()))
        attacks = events(st, EV_ATTACK)
        dfs = sorted(int(a[5]) for a in attacks)
        techniques.add({(10,): "combination", (1,): "selective", (9,): "selective",
                        (1, 9): "multiple"}[tuple(dfs)])
    assert techniques == {"combination", "selective", "multiple"}
    # The heuristic: a combination against this tie stack is 8 + 7 against 10 (each tank takes the
    # type worse for itself, PB-WEC-6): 1-1.  Separately: 3-1 and 4-1.  It attacks twice.
    from tests.panzerblitz.test_policies import heuristic_players

    t, st = position(tmp_path, TANK_AND_TRUCK)
    pt = policy_tables(t)
    h = hexn(t, "3M6")
    att = np.array([unit_of(t, st, "panther-g"), unit_of(t, st, "pzkw-iv-h")], dtype=np.int64)
    assign = np.full(2, NOT_FIRING, dtype=np.int64)
    prm = heuristic_players()[1][GERMAN]
    tech = hp.pick_technique(st, t.unit_t, t.map_t, t.combat_t, pt, prm, GERMAN, h, att, 2, _spotted(t, st, GERMAN),
                             assign, 2, False)
    assert tech == hp.MULTIPLE
    assert set(assign) == {unit_of(t, st, "t-34-c"), unit_of(t, st, "truck-russian")}
    seed_game(1)
    # (fire_escape off: the fire plan weighs an attack at the combination's odds, 1-1 here, and at
    # those odds the tanks would rather step out of the T-34's reach, two hexes off; the multiple
    # attack's 3-1 and 4-1 are seen only when the technique is chosen: docs/policies.md)
    policy, params = heuristic_players()
    params[:, hp.FIRE_ESCAPE] = 0.0
    fire_phase(st, t.unit_t, t.map_t, t.combat_t, GERMAN, pb_players(t, st, policy, params))
    assert len(events(st, EV_ATTACK)) == 2
    # Two trucks: one combined 4-1 is as good as two 4-1 battles, so it combines.
    t, st = position(tmp_path, [("german", "panther-g", "3M4"), ("german", "pzkw-iv-h", "3M3"),
                                ("russian", "truck-russian", "3M6"), ("russian", "wagon", "3M6")])
    assign = np.full(2, NOT_FIRING, dtype=np.int64)
    assert plan_multiple(st, t.unit_t, t.map_t, t.combat_t, GERMAN, h, att, 2, _spotted(t, st, GERMAN), 2, assign)
    assert hp.pick_technique(st, t.unit_t, t.map_t, t.combat_t, policy_tables(t), prm, GERMAN, h, att, 2,
                             _spotted(t, st, GERMAN), assign, 2, False) == hp.COMBINE


def test_oq_5_multiple_attack_weakest_by_printed_df_or_by_odds(tmp_path):
    t, st = position(tmp_path, GERMAN_THREE)
    h = hexn(t, "3M6")
    t34, t85 = unit_of(t, st, "t-34-c"), unit_of(t, st, "t-34_85")
    sec, smg, pz4 = (unit_of(t, st, n) for n in ("security-platoon-german", "smg-platoon-german", "pzkw-iv-h"))
    # The tank and the security platoon, leaving the SMG platoon: by printed DF the SMG (6) is
    # weaker than the tank (8), so it may not be left out; by the odds the two T-34s achieve
    # (armored x2: 54 vs 8 = 4-1; soft x1/2: 13 vs 5 and 13 vs 6, both 2-1) the tank is the
    # weakest and the two platoons tie, so the attacker may leave either.
    assert not _ok(t, st, t.combat_t, RUSSIAN, h, [t85, t34], [pz4, sec])
    odds = t.combat_t._replace(multiple_weakest_by_odds=True)
    assert _ok(t, st, odds, RUSSIAN, h, [t85, t34], [pz4, sec])
    assert _ok(t, st, odds, RUSSIAN, h, [t85, t34], [pz4, smg])
    # By the odds, the two platoons without the tank is not legal.
    assert not _ok(t, st, odds, RUSSIAN, h, [t85, t34], [sec, smg])
    assert _ok(t, st, t.combat_t, RUSSIAN, h, [t85, t34], [sec, smg])
    # The switch is read from readings.toml.
    assert not load_situation("pb-01").ruleset.data["readings"]["multiple_attack_weakest"] == "odds"
    from simulator.rulesets.panzerblitz.tables import build_tables
    assert build_tables(load_situation("pb-01", {"readings.multiple_attack_weakest": "odds"})).combat_t \
        .multiple_weakest_by_odds


def test_oq_23_leftovers_of_a_multiple_attack(tmp_path):
    t, st = position(tmp_path, GERMAN_THREE)
    h = hexn(t, "3M6")
    t34, t85, gun = unit_of(t, st, "t-34-c"), unit_of(t, st, "t-34_85"), unit_of(t, st, "45mm-at")
    sec, smg, pz4 = (unit_of(t, st, n) for n in ("security-platoon-german", "smg-platoon-german", "pzkw-iv-h"))
    # The two platoons in a multiple attack, the 45mm at the tank the attack left out (7 vs 8:
    # 1-2, too weak to be part of the multiple attack).
    att, assign = [t34, t85, gun], [sec, smg, AT_LEFTOVERS]
    assert not _ok(t, st, t.combat_t, RUSSIAN, h, att, assign)  # adopted: the leftovers are closed
    seed_game(0)
    assert resolve_multiple(st, t.unit_t, t.map_t, t.combat_t, RUSSIAN, h, np.array(att), 3, np.array(assign),
                            _spotted(t, st, RUSSIAN)) == -1
    assert len(events(st, EV_ATTACK)) == 0 and not st.fired.any()
    open_ct = t.combat_t._replace(leftovers_open=True)
    assert _ok(t, st, open_ct, RUSSIAN, h, att, assign)
    seed_game(0)
    assert resolve_multiple(st, t.unit_t, t.map_t, open_ct, RUSSIAN, h, np.array(att), 3, np.array(assign),
                            _spotted(t, st, RUSSIAN)) == 3
    attacks = events(st, EV_ATTACK)
    assert len(attacks) == 3
    assert (int(attacks[-1][4]), int(attacks[-1][5]), int(attacks[-1][6])) == (7, 8, t.combat.column("1-2"))
    assert len(events(st, EV_FIRER)) == 3
    for r in events(st, EV_HIT):
        if r[3] == pz4:
            assert int(r[5]) == int(attacks[-1][9])
    # Even so, every unit attacked: no leftovers to fire on.
    t, st = position(tmp_path, GERMAN_THREE)
    assert not _ok(t, st, open_ct, RUSSIAN, h, [t34, t85, gun], [sec, pz4, AT_LEFTOVERS])


def test_pb_trans_8_passenger_of_an_armored_carrier_attacked_alone(tmp_path):
    # A German rifle platoon (I-class, AF 3) may not fire at the T-34 (PB-WEC-5), but at its
    # passenger alone: 3 against DF 1, 3-1.
    units = [("german", "rifle-platoon-german-42", "3M4"), ("russian", "t-34-c", "3M6"),
             ("russian", "rifle-company-43", "3M6")]
    outcomes = set()
    for seed in range(40):
        t, st = position(tmp_path, units)
        h = hexn(t, "3M6")
        tank, rifle = unit_of(t, st, "t-34-c"), unit_of(t, st, "rifle-company-43")
        platoon = unit_of(t, st, "rifle-platoon-german-42")
        st.carrying[tank] = rifle
        st.carried_by[rifle] = tank
        assert exposed_passenger(st, t.unit_t, t.map_t, h, RUSSIAN) == rifle
        seed_game(seed)
        result = resolve_passenger(st, t.unit_t, t.map_t, t.combat_t, GERMAN, h, np.array([platoon]), 1,
                                   _spotted(t, st, GERMAN))
        a = events(st, EV_ATTACK)
        assert len(a) == 1 and (int(a[0][4]), int(a[0][5]), int(a[0][6])) == (3, 1, t.combat.column("3-1"))
        assert st.status[tank] == ON_MAP and not st.dispersed[tank]  # the carrier is left out
        if result == 3:
            assert st.status[rifle] == ELIMINATED and st.carrying[tank] == -1 and st.carried_by[rifle] == -1
            outcomes.add("X")
        elif result in (1, 2):
            assert st.dispersed[rifle] and st.carried_by[rifle] == tank  # dispersed, still aboard
            outcomes.add("D")
        else:
            assert not st.dispersed[rifle] and st.carried_by[rifle] == tank
    assert outcomes == {"X", "D"}
    # No passenger alone in a town (PB-STK-6) nor aboard a truck (PB-TRANS-6: one DF for both).
    t, st = position(tmp_path, [("russian", "t-34-c", "3Q5"), ("russian", "rifle-company-43", "3Q5")])
    tank, rifle = unit_of(t, st, "t-34-c"), unit_of(t, st, "rifle-company-43")
    st.carrying[tank] = rifle
    st.carried_by[rifle] = tank
    assert exposed_passenger(st, t.unit_t, t.map_t, hexn(t, "3Q5"), RUSSIAN) == -1
    t, st = position(tmp_path, [("russian", "truck-russian", "3M6"), ("russian", "rifle-company-43", "3M6")])
    truck, rifle = unit_of(t, st, "truck-russian"), unit_of(t, st, "rifle-company-43")
    st.carrying[truck] = rifle
    st.carried_by[rifle] = truck
    assert exposed_passenger(st, t.unit_t, t.map_t, hexn(t, "3M6"), RUSSIAN) == -1


def test_pb_stk_8_random_player_may_attack_the_passenger_alone(tmp_path):
    units = [("german", "panther-g", "3M4"), ("russian", "t-34-c", "3M6"), ("russian", "rifle-company-43", "3M6")]
    seen = set()
    for seed in range(20):
        t, st = position(tmp_path, units)
        tank, rifle = unit_of(t, st, "t-34-c"), unit_of(t, st, "rifle-company-43")
        st.carrying[tank] = rifle
        st.carried_by[rifle] = tank
        seed_game(seed)
        fire_phase(st, t.unit_t, t.map_t, t.combat_t, GERMAN, pb_players(t, st, *players()))
        a = events(st, EV_ATTACK)
        assert len(a) == 1
        seen.add(int(a[0][5]))  # DF 9: the carrier (with its passenger); DF 1: the passenger alone
    assert seen == {1, 9}


# ------------------------------------------------------------------ unloading and moving on


def _unload_call(t, st, u, left, seed, stay=0.0):
    """The game's unload step for carrier u with `left` half-MF (random player)."""
    n_hex = t.situation.map.n_hexes
    bufs = [np.empty(n_hex, dtype=np.int32) for _ in range(2)]
    options = np.empty(2 * n_hex + 2, dtype=np.int64)
    policy, params = players(stay=stay)
    seed_game(seed)
    unload(st, t.unit_t, t.map_t, t.move_t, t.combat_t, t.stack_limit, int(st.side[u]), u,
            int(st.carrying[u]), left, pb_players(t, st, policy, params), occupancy(st, t.unit_t, n_hex), bufs[0],
            bufs[1], options)


def test_pb_trans_3_carrier_moves_on_empty_after_unloading(tmp_path):
    # A truck with a gun, alone in 3M6, unloads without moving, then drives on with the MF left
    # (the random player picks uniformly among the hexes it can reach, its own among them).
    ends = set()
    for seed in range(30):
        t, st = position(tmp_path, [("russian", "truck-russian", "3M6"), ("russian", "76_2mm-at", "3M6")])
        truck, gun = unit_of(t, st, "truck-russian"), unit_of(t, st, "76_2mm-at")
        st.carrying[truck], st.carried_by[gun] = gun, truck
        st.moved[truck] = True
        _unload_call(t, st, truck, 10, seed)
        if len(events(st, EV_UNLOAD)) == 0:
            continue
        assert st.hex[gun] == hexn(t, "3M6") and st.carried_by[gun] == -1 and st.moved[gun]
        moved = events(st, EV_MOVE)
        if st.hex[truck] == hexn(t, "3M6"):
            ends.add("stayed")
            assert len(moved) == 0
        else:
            ends.add("moved on")
            assert len(moved) == 1 and 0 < moved[0][6] <= 10  # within the MF it had left
    assert "moved on" in ends
    # With no MF left it stays with the gun.
    for seed in range(10):
        t, st = position(tmp_path, [("russian", "truck-russian", "3M6"), ("russian", "76_2mm-at", "3M6")])
        truck, gun = unit_of(t, st, "truck-russian"), unit_of(t, st, "76_2mm-at")
        st.carrying[truck], st.carried_by[gun] = gun, truck
        _unload_call(t, st, truck, 0, seed)
        assert st.hex[truck] == hexn(t, "3M6")


def test_pb_trans_11_several_carriers_unload_in_one_hex_and_drive_away(tmp_path):
    # Two Russian trucks with a gun each in one hex (2 units: the limit).  Both guns may be set
    # down there only if both trucks drive away; a truck with no MF left may not unload.
    done = 0
    for seed in range(40):
        t, st = position(tmp_path, [("russian", "truck-russian", "3M6"), ("russian", "76_2mm-at", "3A1"),
                                    ("russian", "truck-russian", "3M6"), ("russian", "45mm-at", "3A2")])
        trucks = [int(u) for u in np.flatnonzero(st.utype == t.units.index("truck-russian"))]
        guns = [unit_of(t, st, "76_2mm-at"), unit_of(t, st, "45mm-at")]
        h = hexn(t, "3M6")
        for c, g in zip(trucks, guns, strict=True):
            st.carrying[c], st.carried_by[g] = g, c
            st.hex[g] = h
        _unload_call(t, st, trucks[0], 0, seed)
        assert len(events(st, EV_UNLOAD)) == 0  # full, and no MF to leave
        for c in trucks:
            _unload_call(t, st, c, 8, seed)
        assert side_load(st, t.unit_t, h, RUSSIAN) <= t.stack_limit[RUSSIAN]
        for c, g in zip(trucks, guns, strict=True):
            if st.carried_by[g] < 0:
                assert st.hex[g] == h and st.hex[c] != h
        if all(st.carried_by[g] < 0 for g in guns):
            done += 1
    assert done > 0


def test_pb_trans_5_dispersed_passenger_is_not_unloaded(tmp_path):
    for seed in range(10):
        t, st = position(tmp_path, [("russian", "t-34-c", "3M6"), ("russian", "rifle-company-43", "3M6")])
        tank, rifle = unit_of(t, st, "t-34-c"), unit_of(t, st, "rifle-company-43")
        st.carrying[tank], st.carried_by[rifle] = rifle, tank
        st.dispersed[rifle] = True  # hit alone aboard (PB-TRANS-8)
        from tests.panzerblitz.test_rules_coverage_more import Move
        Move(t, st, tank, seed)
        assert st.carried_by[rifle] == tank and len(events(st, EV_UNLOAD)) == 0


# ------------------------------------------------------------------ victory: control, no battle


def test_pb_vic_5_control_by_last_passed_through(tmp_path):
    from simulator.rulesets.panzerblitz.victory import measure_value
    from tests.panzerblitz.test_rules_coverage_more import Move

    def controlled(t, st, side, label):
        return measure_value({"measure": "hexes_controlled", "whose": "own", "hexes": [label]}, st, t, side)

    for seed in range(6):
        t, st = position(tmp_path, [("german", "panther-g", "3M4"), ("russian", "rifle-company-43", "3A10")])
        panther = unit_of(t, st, "panther-g")
        Move(t, st, panther, seed)
        end = t.situation.map.labels[st.hex[panther]]
        assert controlled(t, st, GERMAN, end) == 1  # occupied
        if end != "3M4":
            # left behind, but the Panther was the last to pass through: still German
            assert controlled(t, st, GERMAN, "3M4") == 1 and controlled(t, st, RUSSIAN, "3M4") == 0
            # ... unless a Russian unit stands there now.
            st.hex[unit_of(t, st, "rifle-company-43")] = hexn(t, "3M4")
            assert controlled(t, st, GERMAN, "3M4") == 0 and controlled(t, st, RUSSIAN, "3M4") == 1
        assert controlled(t, st, GERMAN, "3A1") == 0  # never visited
    # An overrun that destroys the occupants passes through the hex; a close assault does not.
    from simulator.rulesets.panzerblitz.game import assault_phase
    from simulator.rulesets.panzerblitz.overrun import single_overrun
    kinds = set()
    for seed in range(30):
        t, st = position(tmp_path, [("german", "panther-g", "3M4"), ("russian", "rifle-company-43", "3M6")])
        panther, mortar = unit_of(t, st, "panther-g"), unit_of(t, st, "rifle-company-43")
        target = hexn(t, "3M6")
        st.control[target] = RUSSIAN
        seed_game(seed)
        single_overrun(st, t.unit_t, t.map_t, t.combat_t, GERMAN, panther, hexn(t, "3M4"), hexn(t, "3M5"), target,
                 hexn(t, "3M7"), occupancy(st, t.unit_t, t.situation.map.n_hexes))
        if st.status[mortar] == ELIMINATED:
            kinds.add("destroyed")
            assert controlled(t, st, GERMAN, "3M6") == 1
        else:
            kinds.add("survived")
            assert controlled(t, st, GERMAN, "3M6") == 0 and controlled(t, st, RUSSIAN, "3M6") == 1
        assert controlled(t, st, GERMAN, "3M7") == 1
    assert kinds == {"destroyed", "survived"}
    killed = 0
    for seed in range(30):
        t, st = position(tmp_path, [("german", "smg-platoon-german", "3M5"), ("german", "smg-platoon-german", "3L6"),
                                    ("russian", "82mm-mortar", "3M6")])
        st.control[hexn(t, "3M6")] = RUSSIAN
        seed_game(seed)
        assault_phase(st, t.unit_t, t.map_t, t.combat_t, GERMAN, pb_players(t, st, *players()))
        if st.status[unit_of(t, st, "82mm-mortar")] == ELIMINATED:
            killed += 1
            assert controlled(t, st, GERMAN, "3M6") == 0  # the assaulters never entered
    assert killed > 0


def test_pb_vic_6_no_battle_when_nobody_engages(tmp_path):
    from simulator.rulesets.panzerblitz.victory import evaluate
    from tests.panzerblitz.test_rules_coverage_more import Move

    units = [("german", "panther-g", "3M4"), ("russian", "rifle-company-43", "3M8")]
    t, st = position(tmp_path, units)
    out = evaluate(st, t)
    assert out.no_battle and out.winner is None and out.level == "none"
    # Once a side has fired, the card's conditions apply.
    seed_game(0)
    fire_phase(st, t.unit_t, t.map_t, t.combat_t, GERMAN, pb_players(t, st, *players()))
    assert st.engaged[GERMAN] and not st.engaged[RUSSIAN]
    assert not evaluate(st, t).no_battle
    # Or moved a unit toward the enemy: a move that ends nearer the nearest enemy engages,
    # one that ends farther does not.
    seen = set()
    for seed in range(20):
        t, st = position(tmp_path, units)
        rifle = unit_of(t, st, "rifle-company-43")
        before = int(t.map_t.dist[st.hex[rifle], hexn(t, "3M4")])
        Move(t, st, rifle, seed)
        after = int(t.map_t.dist[st.hex[rifle], hexn(t, "3M4")])
        assert bool(st.engaged[RUSSIAN]) == (after < before)
        seen.add(after < before)
    assert seen == {True, False}


def test_oq_18_rf1_infantry_close_assault_on_armor(tmp_path):
    from simulator.rulesets.panzerblitz.close_assault import resolve_assault
    from simulator.rulesets.panzerblitz.events import EV_ASSAULT
    units = [("russian", "smg-company-43", "3M5"), ("russian", "rifle-company-43", "3L6"),
             ("german", "pzkw-iv-h", "3M6")]
    afs = {}
    for barred in (False, True):
        t, st = position(tmp_path, units)
        ct = t.combat_t._replace(cat_rf1_armor_barred=barred)
        smg, rifle = unit_of(t, st, "smg-company-43"), unit_of(t, st, "rifle-company-43")
        seed_game(0)
        assert resolve_assault(st, t.unit_t, t.map_t, ct, RUSSIAN, np.array([smg, rifle]), 2, hexn(t, "3M6")) >= 0
        afs[barred] = int(events(st, EV_ASSAULT)[0][4])
        assert bool(st.assaulted[smg]) == (not barred)
        # the SMG company (RF 1) alone
        t, st = position(tmp_path, units)
        seed_game(0)
        r = resolve_assault(st, t.unit_t, t.map_t, ct, RUSSIAN, np.array([smg]), 1, hexn(t, "3M6"))
        assert (r >= 0) == (not barred)
    assert afs == {False: 8 + 5, True: 5}
    assert not t.combat_t.cat_rf1_armor_barred  # adopted: allowed at normal AF


def test_oq_20_passengers_in_the_armored_count(tmp_path):
    from simulator.rulesets.panzerblitz.fire import defender_stack, resolve_fire, stack_kind_of
    units = [("german", "rifle-platoon-german-42", "3M4"), ("russian", "t-34-c", "3M6"),
             ("russian", "rifle-company-43", "3M6"), ("russian", "truck-russian", "3A1")]
    results = {}
    for counted in (False, True):
        t, st = position(tmp_path, units)
        tank, rifle, truck = (unit_of(t, st, n) for n in ("t-34-c", "rifle-company-43", "truck-russian"))
        st.carrying[tank], st.carried_by[rifle] = rifle, tank
        st.hex[truck] = hexn(t, "3M6")
        ct = t.combat_t._replace(passengers_counted=counted)
        h = hexn(t, "3M6")
        kind = stack_kind_of(st, t.unit_t, t.map_t, ct, h, RUSSIAN, defender_stack(st, t.unit_t, t.map_t, h, RUSSIAN)[1])
        # a T-34 and a truck: a tie; with the passenger counted, two soft units to one armored
        assert kind == (0 if counted else 2)
        seed_game(0)
        results[counted] = resolve_fire(st, t.unit_t, t.map_t, ct, GERMAN, h,
                                        np.array([unit_of(t, st, "rifle-platoon-german-42")]), 1,
                                        _spotted(t, st, GERMAN))
    # The I-class platoon may not fire at the tie (it takes the armored type, PB-WEC-5), but may
    # at a non-armored stack.
    assert results[False] == -1 and results[True] >= 0


# ------------------------------------------------------------------ several overrunners


def test_pb_ovr_4_several_units_overrun_one_hex_together(tmp_path):
    from simulator.rulesets.panzerblitz.events import EV_OVERRUN, EV_OVERRUNNER
    from simulator.rulesets.panzerblitz.overrun import overrun_together

    # Two PzKw III (printed AF 8 each) and a Russian guards company (DF 18) in the open: alone
    # 8-18 (1-3), together 16-18 (1-2), one column up either way.  The first tank overruns from
    # 3M5 to 3M7; the second (random player) may join it by a path of its own.
    units = [("german", "pzkw-iii-g", "3M4"), ("german", "pzkw-iii-g", "3K4"), ("russian", "guards-company-43", "3M6")]
    seen = set()
    for seed in range(30):
        t, st = position(tmp_path, units)
        tanks = [int(u) for u in np.flatnonzero(st.utype == t.units.index("pzkw-iii-g"))]
        n_hex = t.situation.map.n_hexes
        bufs = [np.empty(n_hex, dtype=np.int32) for _ in range(2)] + [np.empty(6 * n_hex, dtype=np.int64)
                                                                        for _ in range(3)]
        policy, params = players()
        seed_game(seed)
        overrun_together(st, t.unit_t, t.map_t, t.move_t, t.combat_t, t.stack_limit, GERMAN,
                          tanks[0], hexn(t, "3M4"), hexn(t, "3M5"), hexn(t, "3M6"), hexn(t, "3M7"),
                          pb_players(t, st, policy, params), occupancy(st, t.unit_t, n_hex), *bufs)
        ovr = events(st, EV_OVERRUN)
        movers = events(st, EV_OVERRUNNER)
        assert len(ovr) == 1  # one combined attack
        assert st.hex[tanks[0]] == hexn(t, "3M7") and st.assaulted[tanks[0]]
        if len(movers) == 2:
            seen.add("together")
            assert (int(ovr[0][4]), int(ovr[0][5])) == (16, 18)  # printed AF added, PB-OVR-5
            assert [int(r[3]) for r in movers] == tanks
            entries = [int(r[5]) for r in movers]
            exits = [int(r[7]) for r in movers]
            assert entries[0] != entries[1] and exits[0] != exits[1]  # own entry and exit hexes
            assert st.hex[tanks[1]] == exits[1] and st.moved[tanks[1]] and st.assaulted[tanks[1]]  # PB-OVR-8
            assert t.map_t.dist[exits[1], hexn(t, "3M6")] == 1
        else:
            seen.add("alone")
            assert int(ovr[0][4]) == 8 and not st.moved[tanks[1]]
    assert seen == {"together", "alone"}


def test_pb_ovr_4_heuristic_joins_only_when_it_raises_the_odds(tmp_path):
    units = [("german", "pzkw-iii-g", "3M3"), ("german", "pzkw-iii-g", "3K4"), ("russian", "guards-company-43", "3M6")]
    t, st = position(tmp_path, units)
    pt = policy_tables(t)
    from simulator.rulesets.panzerblitz.players.spec import parse_policy
    prm = parse_policy("heuristic:noise=0").vector()
    tanks = [int(u) for u in np.flatnonzero(st.utype == t.units.index("pzkw-iii-g"))]
    n_hex = t.situation.map.n_hexes
    fields = np.zeros((hp.N_FIELDS, n_hex), dtype=np.int64)
    occ = occupancy(st, t.unit_t, n_hex)
    paths = np.array([0], dtype=np.int64)
    exits = np.array([hexn(t, "3L7")], dtype=np.int64)
    movers = np.array([tanks[0]], dtype=np.int64)
    target = hexn(t, "3M6")
    assert hp.want_join(st, t.unit_t, t.map_t, t.combat_t, pt, prm, GERMAN, tanks[1], movers, 1, target, paths, 1,
                        exits, occ, fields, np.random.default_rng(0)) == 0  # 8-18 -> 16-18: a better column
    # Against a truck (DF 1) one PzKw III is already at 4-1: the second adds nothing.
    t, st = position(tmp_path, [("german", "pzkw-iii-g", "3M3"), ("german", "pzkw-iii-g", "3K4"),
                                ("russian", "truck-russian", "3M6")])
    assert hp.want_join(st, t.unit_t, t.map_t, t.combat_t, pt, prm, GERMAN, tanks[1], movers, 1, target, paths, 1,
                        exits, occ, fields, np.random.default_rng(0)) == -1


# ------------------------------------------------------------------ overruns across the map edge


def test_pb_ovr_10_overrun_leaving_the_map(tmp_path):
    from simulator.rulesets.panzerblitz.overrun import (
        edge_overrun_options,
        overrun_options,
        single_overrun,
    )
    from simulator.rulesets.panzerblitz.presence import stack_loads
    from simulator.rulesets.panzerblitz.state import EXITED

    units = [("german", "panther-g", "3K4"), ("russian", "rifle-company-43", "3K1")]
    t, st = position(tmp_path, units)
    target = hexn(t, "3K1")
    n_hex = t.situation.map.n_hexes

    def options(st):
        occ = occupancy(st, t.unit_t, n_hex)
        buf = [np.empty(n_hex, dtype=np.int32) for _ in range(2)] + [np.empty(6 * n_hex, dtype=np.int64)
                                                                       for _ in range(3)]
        load = stack_loads(st, t.unit_t, n_hex)
        n = overrun_options(st, t.unit_t, t.map_t, t.move_t, t.combat_t, t.stack_limit, GERMAN, 0, hexn(t, "3K4"),
                            20, occ, buf[0], buf[1], FORT, buf[2], buf[3], buf[4], load)
        n = edge_overrun_options(st, t.unit_t, t.map_t, t.move_t, t.combat_t, t.stack_limit, GERMAN, 0,
                                 hexn(t, "3K4"), 20, occ, buf[0], FORT, buf[2], buf[3], buf[4], n, load)
        return [(int(buf[2][k]), int(buf[3][k]), int(buf[4][k])) for k in range(n)]

    # The target is on the map edge: no overrun that would exit the map...
    assert all(x >= 0 for _, _, x in options(st))
    # ... unless the side may leave by that edge: then through 3K2, off the map beyond 3K1.
    st.exit_edges[GERMAN] = t.map_t.edge_mask[target]
    assert (hexn(t, "3K2"), target, -1) in options(st)
    seen = set()
    for seed in range(30):
        t, st = position(tmp_path, units)
        st.exit_edges[GERMAN] = t.map_t.edge_mask[target]
        panther = unit_of(t, st, "panther-g")
        seed_game(seed)
        single_overrun(st, t.unit_t, t.map_t, t.combat_t, GERMAN, panther, hexn(t, "3K4"), hexn(t, "3K2"), target, -1,
                 occupancy(st, t.unit_t, n_hex))
        assert st.status[panther] == EXITED and st.exit_edge[panther] != 0  # off the map, whatever the result
        seen.add(st.status[unit_of(t, st, "rifle-company-43")] == ELIMINATED)
    assert seen == {True, False}


def test_pb_ovr_10_overrun_entering_the_map(tmp_path):
    from simulator.rulesets.panzerblitz.events import EV_OVERRUN, EV_OVERRUNNER
    from simulator.rulesets.panzerblitz.overrun import entry_overrun_options
    from simulator.rulesets.panzerblitz.presence import stack_loads
    from simulator.rulesets.panzerblitz.state import WAITING
    from tests.panzerblitz.test_rules_coverage_more import Move

    units = [("german", "panther-g", "3A1"), ("russian", "rifle-company-43", "3K1")]
    entered = set()
    for seed in range(20):
        t, st = position(tmp_path, units)
        n_hex = t.situation.map.n_hexes
        panther = unit_of(t, st, "panther-g")
        g = st.group[panther]
        st.group_hexes[st.group_hex_start[g]] = hexn(t, "3K1")  # it enters at 3K1, where the rifles stand
        st.status[panther], st.hex[panther] = WAITING, -1
        occ = occupancy(st, t.unit_t, n_hex)
        tg, ex = np.empty(6, dtype=np.int64), np.empty(6, dtype=np.int64)
        k = entry_overrun_options(st, t.unit_t, t.map_t, t.move_t, t.combat_t, t.stack_limit, GERMAN, panther, occ,
                                  FORT, tg, ex, stack_loads(st, t.unit_t, n_hex))
        assert (hexn(t, "3K1"), hexn(t, "3K2")) in set(zip(tg[:k].tolist(), ex[:k].tolist(), strict=True))
        Move(t, st, panther, seed)  # the only way in is the overrun
        assert len(events(st, EV_OVERRUNNER)) == 1 and int(events(st, EV_OVERRUNNER)[0][4]) == -1
        if len(events(st, EV_OVERRUN)):
            assert st.status[panther] == ON_MAP and t.map_t.dist[st.hex[panther], hexn(t, "3K1")] == 1
            entered.add(True)
    assert entered == {True}


# ------------------------------------------------------------------ one's own fort


def test_pb_fort_9_a_player_destroys_his_own_fort_by_attacking_it(tmp_path):
    from simulator.rulesets.panzerblitz.techniques import resolve_own_fort_attack
    # A Hummel (H, 60 against armor within half range) and two Nashorns (A, 20 x 2) beside
    # their own empty fort (DF 40, an armored target): 140 against 40, 3-1.
    units = [("german", "hummel", "3M4"), ("german", "nashorn", "3L5"), ("german", "nashorn", "3M7"),
             ("german", "fort-40", "3M6"), ("russian", "rifle-company-43", "3A1")]
    seen = set()
    for seed in range(40):
        t, st = position(tmp_path, units)
        h = hexn(t, "3M6")
        tanks = np.array([unit_of(t, st, "hummel")] + units_named(t, st, "nashorn"))
        fort = unit_of(t, st, "fort-40")
        seed_game(seed)
        r = resolve_own_fort_attack(st, t.unit_t, t.map_t, t.combat_t, GERMAN, h, tanks, 3)
        a = events(st, EV_ATTACK)
        assert len(a) == 1 and (int(a[0][4]), int(a[0][5]), int(a[0][6])) == (140, 40, t.combat.column("3-1"))
        assert st.fired[tanks].all()
        if st.status[fort] == ELIMINATED:
            assert st.status[fort] == ELIMINATED and st.block[h]  # PB-FORT-16: a block replaces it
            seen.add("destroyed")
            assert r in (2, 3)
        elif r in (1, 2):
            assert st.dispersed[fort]
            seen.add("dispersed")
    assert "destroyed" in seen
    # Only one's own fort: not the enemy's, not a hex without one.
    t, st = position(tmp_path, units)
    tanks = np.array([unit_of(t, st, "hummel")] + units_named(t, st, "nashorn"))
    assert resolve_own_fort_attack(st, t.unit_t, t.map_t, t.combat_t, RUSSIAN, hexn(t, "3M6"),
                                   np.array([unit_of(t, st, "rifle-company-43")]), 1) == -1
    assert resolve_own_fort_attack(st, t.unit_t, t.map_t, t.combat_t, GERMAN, hexn(t, "3A1"), tanks, 3) == -1
