"""Units on top of a fort (PB-FORT-2, PB-FORT-10..13, PB-STACK-7, PB-STK-7, PB-CAT-8) and the
readings OQ-12, OQ-22 and OQ-26, in small hand-made positions on board 3 (open ground around
3M6; 3M5 and 3M7 are next to 3M6, 3M4 two hexes away).

A German fort in 3M6 with German units inside; Russian units put on top of it either by a move
(`move_unit`) or by hand (`st.on_top`)."""

from __future__ import annotations

import numpy as np

from simulator.rulesets.panzerblitz.combat import DISPERSED
from simulator.rulesets.panzerblitz.combat import ELIMINATED as RES_X
from simulator.rulesets.panzerblitz.events import (
    EV_ASSAULT,
    EV_ASSAULTER,
    EV_ATTACK,
    EV_EXCESS,
    EV_FIRER,
    EV_FORT_SWITCH,
    EV_OWN_FORT_ATTACK,
)
from simulator.rulesets.panzerblitz.fire import defender_stack, firer_af, stack_kind_of
from simulator.rulesets.panzerblitz.game import assault_phase, fire_phase
from simulator.rulesets.panzerblitz.invariants import (
    BOTH_SIDES_IN_HEX,
    OK,
    ON_TOP_MISMATCH,
    violation,
)
from simulator.rulesets.panzerblitz.losses import apply_to_stack, hit_fort
from simulator.rulesets.panzerblitz.players import heuristic as hp
from simulator.rulesets.panzerblitz.presence import fits, occupancy
from simulator.rulesets.panzerblitz.recovery import recover
from simulator.rulesets.panzerblitz.replay import policy_tables
from simulator.rulesets.panzerblitz.spotting import spotted_hexes
from simulator.rulesets.panzerblitz.state import ELIMINATED, ON_MAP, PHASING
from simulator.rulesets.panzerblitz.techniques import (
    multiple_attack_ok,
    own_fort_roll,
    resolve_selective,
    selective_allowed,
)
from tests.panzerblitz.pb_players import pb_players, seed_game
from tests.panzerblitz.test_rules import GERMAN, RUSSIAN, hexn, unit_of
from tests.panzerblitz.test_rules_coverage_more import (
    Move,
    can_fire_at,
    events,
    players,
    position,
    reach,
    units_named,
)

FORT = [("german", "fort-40", "3M6"), ("german", "rifle-platoon-german-42", "3M6")]


def _on_top(st, *units):
    for u in units:
        st.on_top[u] = True


def _spotted(t, st, side):
    return spotted_hexes(st, t.unit_t, t.map_t, t.combat_t, side)


def _violation(t, st, phasing):
    st.clock[PHASING] = phasing
    return violation(st, t.unit_t, t.map_t, t.move_t, t.stack_limit)


def _moved_onto_fort(tmp_path, units, mover_name, target="3M6", seeds=200):
    """Random moves of the mover (never staying put) until one ends in `target`."""
    for seed in range(seeds):
        t, st = position(tmp_path, units)
        u = unit_of(t, st, mover_name)
        Move(t, st, u, seed)
        if st.hex[u] == hexn(t, target):
            return t, st, u
    raise AssertionError("the mover never ended on the fort")


# ------------------------------------------------------------------ movement (PB-FORT-12, PB-STACK-7)


def test_pb_fort_12_enemy_stops_on_top(tmp_path):
    # A T-34 may enter the German fort's hex (German units inside) but not pass through it.
    units = FORT + [("russian", "t-34-c", "3M4")]
    t, st = position(tmp_path, units)
    h = hexn(t, "3M6")
    cost, prev = reach(t, st, unit_of(t, st, "t-34-c"))
    assert cost[h] > 0
    assert not (prev == h).any()  # it stops there: no path goes on from the fort
    # Without units inside it is an enemy unit's hex like any other: closed (PB-MOVE-6) ...
    t2, st2 = position(tmp_path, [("german", "rifle-platoon-german-42", "3M6"), ("russian", "t-34-c", "3M4")])
    assert reach(t2, st2, unit_of(t2, st2, "t-34-c"))[0][hexn(t2, "3M6")] < 0
    # ... and an empty fort is simply entered and taken over (PB-FORT-8), not stood on.
    t3, st3 = position(tmp_path, [("german", "fort-40", "3M6"), ("russian", "t-34-c", "3M4")])
    assert reach(t3, st3, unit_of(t3, st3, "t-34-c"))[0][hexn(t3, "3M6")] > 0


def test_pb_fort_12_a_move_onto_the_fort_ends_on_top_and_there(tmp_path):
    units = FORT + [("russian", "rifle-company-43", "3M5")]
    t, st, rifle = _moved_onto_fort(tmp_path, units, "rifle-company-43")
    h = hexn(t, "3M6")
    fort = unit_of(t, st, "fort-40")
    assert st.on_top[rifle] and st.moved[rifle]
    assert st.side[fort] == GERMAN  # not taken over: Germans are inside
    assert _violation(t, st, RUSSIAN) == OK  # PB-STACK-7's one exception
    # The next turn it may move off the fort again.
    st.moved[rifle] = False
    cost, _ = reach(t, st, rifle)
    assert cost[hexn(t, "3M5")] >= 0 and cost[h] == 0


def test_pb_fort_12_nobody_enters_a_top_held_by_the_other_side_and_the_inside_stays(tmp_path):
    units = FORT + [("russian", "rifle-company-43", "3M6"), ("german", "smg-platoon-german", "3M5"),
                    ("russian", "t-34-c", "3M4")]
    t, st = position(tmp_path, units)
    h = hexn(t, "3M6")
    _on_top(st, unit_of(t, st, "rifle-company-43"))
    # The German SMG platoon may not enter its own fort's hex: Russians hold the top.
    assert reach(t, st, unit_of(t, st, "smg-platoon-german"))[0][h] < 0
    # A second Russian may join the first on top (within the Russian limit).
    assert reach(t, st, unit_of(t, st, "t-34-c"))[0][h] > 0
    # The units inside may not leave while enemy units sit on top.
    inside = unit_of(t, st, "rifle-platoon-german-42")
    Move(t, st, inside, 0)
    assert st.hex[inside] == h and not st.on_top[inside] and not st.moved[inside]
    # With the Russians gone, it may.
    st.hex[unit_of(t, st, "rifle-company-43")] = hexn(t, "3A1")
    st.on_top[unit_of(t, st, "rifle-company-43")] = False
    assert reach(t, st, inside)[0][hexn(t, "3M7")] >= 0


def test_pb_stack_7_opposing_units_share_a_hex_only_on_top_of_an_occupied_fort(tmp_path):
    units = FORT + [("russian", "rifle-company-43", "3M6"), ("russian", "smg-company-43", "3M6")]
    t, st = position(tmp_path, units)
    h = hexn(t, "3M6")
    rus = [unit_of(t, st, "rifle-company-43"), unit_of(t, st, "smg-company-43")]
    _on_top(st, *rus)
    assert _violation(t, st, RUSSIAN) == OK
    # Stacking per side: the two Russians fill the Russian limit (2) whatever is inside.
    assert not fits(st, t.unit_t, t.stack_limit, h, RUSSIAN, rus[0])
    assert fits(st, t.unit_t, t.stack_limit, h, GERMAN, unit_of(t, st, "rifle-platoon-german-42"))
    # Russians inside a German fort, or Germans on top with them: broken.
    st.on_top[rus[0]] = False
    assert _violation(t, st, RUSSIAN) == BOTH_SIDES_IN_HEX
    st.on_top[rus[0]] = True
    st.on_top[unit_of(t, st, "rifle-platoon-german-42")] = True
    assert _violation(t, st, RUSSIAN) == BOTH_SIDES_IN_HEX
    # No units inside: no exception.
    st.status[unit_of(t, st, "rifle-platoon-german-42")] = ELIMINATED
    st.hex[unit_of(t, st, "rifle-platoon-german-42")] = -1
    assert _violation(t, st, RUSSIAN) == OK  # (only Russians left in the hex, on top)
    # On top of no fort at all.
    t2, st2 = position(tmp_path, [("russian", "rifle-company-43", "3M6"), ("german", "panther-g", "3A1")])
    _on_top(st2, unit_of(t2, st2, "rifle-company-43"))
    assert _violation(t2, st2, RUSSIAN) == ON_TOP_MISMATCH


# ------------------------------------------------------------------ inside and on top (PB-FORT-2, PB-FORT-10)


def test_pb_fort_2_a_unit_moves_between_inside_and_on_top(tmp_path):
    units = FORT + [("german", "50mm-at", "3M6"), ("russian", "t-34-c", "3A1")]
    seen = set()
    for seed in range(40):
        t, st = position(tmp_path, units)
        gun = unit_of(t, st, "50mm-at")  # MF 0: it may still go up or down (PB-FORT-2)
        Move(t, st, gun, seed)
        if len(events(st, EV_FORT_SWITCH)):
            assert st.on_top[gun] and st.moved[gun] and st.hex[gun] == hexn(t, "3M6")
            seen.add("up")
            # ... and back down in a later turn.
            st.moved[gun] = False
            for s2 in range(40):
                Move(t, st, gun, s2)
                if not st.on_top[gun]:
                    seen.add("down")
                    break
                st.moved[gun] = False
            break
    assert seen == {"up", "down"}
    # Not after firing.
    t, st = position(tmp_path, units)
    gun = unit_of(t, st, "50mm-at")
    st.fired[gun] = True
    for seed in range(10):
        Move(t, st, gun, seed)
    assert not st.on_top[gun] and len(events(st, EV_FORT_SWITCH)) == 0


def test_pb_fort_10_units_on_top_are_outside_the_fort(tmp_path):
    units = FORT + [("german", "smg-platoon-german", "3M6"), ("russian", "t-34-c", "3M4")]
    t, st = position(tmp_path, units)
    h = hexn(t, "3M6")
    smg = unit_of(t, st, "smg-platoon-german")
    assert defender_stack(st, t.unit_t, t.map_t, h, GERMAN)[:2] == (40, 1)  # both inside: the fort alone
    _on_top(st, smg)
    # On top, its DF is added to the fort's (PB-STK-7); the one inside still does not count.
    df, kind, n, _ = defender_stack(st, t.unit_t, t.map_t, h, GERMAN)
    assert df == 40 + 6 and n == 2
    # A destroyed fort takes the unit inside with it, not the one on top (PB-FORT-5).
    hit_fort(st, t.unit_t, unit_of(t, st, "fort-40"), RES_X, False)
    assert st.status[unit_of(t, st, "rifle-platoon-german-42")] == ELIMINATED
    assert st.status[smg] == ON_MAP and not st.on_top[smg]
    assert st.block[h]  # PB-FORT-16


# ------------------------------------------------------------------ attacking the fort and its top (PB-FORT-11, PB-STK-7)


def test_pb_fort_11_the_fort_and_its_top_take_any_technique(tmp_path):
    units = FORT + [("german", "smg-platoon-german", "3M6"), ("german", "security-platoon-german", "3M6"),
                    ("russian", "t-34-c", "3M4"), ("russian", "t-34_85", "3M5")]
    t, st = position(tmp_path, units)
    h = hexn(t, "3M6")
    ut, mt, ct = t.unit_t, t.map_t, t.combat_t
    fort, smg, sec = unit_of(t, st, "fort-40"), unit_of(t, st, "smg-platoon-german"), unit_of(t, st,
                                                                                         "security-platoon-german")
    t34, t85 = unit_of(t, st, "t-34-c"), unit_of(t, st, "t-34_85")
    assert not selective_allowed(st, ut, mt, h, GERMAN)  # units inside only: the fort alone (PB-STK-7)
    _on_top(st, smg, sec)
    assert selective_allowed(st, ut, mt, h, GERMAN)
    # A multiple attack on the two units on top (the weakest first; the fort, strongest, left out).
    sp = _spotted(t, st, RUSSIAN)
    att = np.array([t34, t85], dtype=np.int64)
    assert multiple_attack_ok(st, ut, mt, ct, RUSSIAN, h, att, 2, np.array([sec, smg], dtype=np.int64), sp)
    # The unit inside is never a defender of its own.
    rifle = unit_of(t, st, "rifle-platoon-german-42")
    assert not multiple_attack_ok(st, ut, mt, ct, RUSSIAN, h, att, 2, np.array([sec, rifle], dtype=np.int64), sp)
    # A selective attack picks one of them and touches nobody else.
    for seed in range(10):
        t, st = position(tmp_path, units)
        _on_top(st, smg, sec)
        seed_game(seed)
        r = resolve_selective(st, ut, mt, ct, RUSSIAN, h, att, 2, _spotted(t, st, RUSSIAN))
        assert r >= 0
        assert st.status[fort] == ON_MAP and not st.dispersed[fort] and not st.dispersed[rifle]
    # A combination: every unit on top takes the result, the fort for itself and the one inside.
    t, st = position(tmp_path, units)
    _on_top(st, smg, sec)
    apply_to_stack(st, ut, h, GERMAN, DISPERSED)
    assert st.dispersed[smg] and st.dispersed[sec] and st.dispersed[fort] and st.dispersed[rifle]


def test_pb_fort_11_oq_12_armored_count_of_a_fort_with_units_on_top(tmp_path):
    units = FORT + [("german", "smg-platoon-german", "3M6"), ("german", "security-platoon-german", "3M6"),
                    ("russian", "t-34-c", "3M4")]
    t, st = position(tmp_path, units)
    h = hexn(t, "3M6")
    ut, mt = t.unit_t, t.map_t
    whole = t.combat_t._replace(fort_whole_armored=True)
    smg, sec = unit_of(t, st, "smg-platoon-german"), unit_of(t, st, "security-platoon-german")

    def kind(ct):
        return stack_kind_of(st, ut, mt, ct, h, GERMAN, defender_stack(st, ut, mt, h, GERMAN)[1])

    # OQ-12 adopted: the fort is one armored unit beside the units on top, each by its own type.
    _on_top(st, smg)
    assert kind(t.combat_t) == 2  # one armored (the fort), one not: a tie
    _on_top(st, sec)
    assert kind(t.combat_t) == 0  # two non-armored on top outnumber the fort
    # OQ-12 alternative ([IMPL]): the whole stack is armored.
    assert kind(whole) == 1
    # A T-34 two hexes off: against the soft stack it fires at half (12 x 1/2), against armor doubled.
    t34 = unit_of(t, st, "t-34-c")
    assert firer_af(st, ut, mt, t.combat_t, t34, h, 0) == 6 and firer_af(st, ut, mt, t.combat_t, t34, h, 1) == 24


# ------------------------------------------------------------------ fighting across the counter (PB-FORT-13, PB-CAT-8)


def test_pb_fort_13_inside_and_top_fire_at_each_other_as_if_adjacent(tmp_path):
    units = FORT + [("german", "50mm-at", "3M6"), ("russian", "t-34-c", "3M6")]
    t, st = position(tmp_path, units)
    h = hexn(t, "3M6")
    ut, mt, ct = t.unit_t, t.map_t, t.combat_t
    gun, t34 = unit_of(t, st, "50mm-at"), unit_of(t, st, "t-34-c")
    _on_top(st, t34)
    assert can_fire_at(t, st, gun, GERMAN, "3M6")  # the units inside at the tank on top
    assert firer_af(st, ut, mt, ct, gun, h, 1) == 16  # A-class within half range: doubled
    assert can_fire_at(t, st, t34, RUSSIAN, "3M6")   # the tank on top at the fort under it
    # As if adjacent: within half range (A-class doubled against the armored fort).
    assert firer_af(st, ut, mt, ct, t34, h, 1) == 24
    # The tank fires at the fort: the fort's DF, the tank itself untouched whatever the result.
    for seed in range(8):
        t, st = position(tmp_path, units)
        _on_top(st, t34)
        seed_game(seed)
        fire_phase(st, ut, mt, ct, RUSSIAN, pb_players(t, st, *players()))
        a = events(st, EV_ATTACK)
        assert len(a) == 1 and int(a[0][3]) == h and int(a[0][5]) == 40
        assert st.status[t34] == ON_MAP and not st.dispersed[t34]


def test_pb_fort_13_firing_at_the_top_of_ones_own_fort_rolls_twice(tmp_path):
    units = FORT + [("german", "panther-g", "3M5"), ("russian", "rifle-company-43", "3M6")]
    seen_second = 0
    for seed in range(12):
        t, st = position(tmp_path, units)
        h = hexn(t, "3M6")
        _on_top(st, unit_of(t, st, "rifle-company-43"))
        seed_game(seed)
        fire_phase(st, t.unit_t, t.map_t, t.combat_t, GERMAN, pb_players(t, st, *players()))
        firsts, seconds = events(st, EV_ATTACK), events(st, EV_OWN_FORT_ATTACK)
        assert len(firsts) == 1 and int(firsts[0][5]) == 16  # the Russians on top (DF 16)
        assert len(seconds) == 1 and int(seconds[0][3]) == h and int(seconds[0][5]) == 40  # the own fort
        # the Panther next to it: A-class doubled against the armored fort (16 x 2), the rifle
        # inside at the top as if adjacent
        assert int(seconds[0][4]) >= 32
        seen_second += 1
        assert _violation(t, st, GERMAN) == OK  # a unit may be dispersed by its own fire after firing
    assert seen_second == 12


def test_pb_fort_13_oq_22_own_units_dispersed_by_own_fire_recover(tmp_path):
    units = FORT + [("german", "panther-g", "3M5"), ("russian", "rifle-company-43", "3M6")]
    got = {}
    for next_turn in (False, True):
        for seed in range(200):
            t, st = position(tmp_path, units)
            ct = t.combat_t._replace(own_fire_next_turn=next_turn)
            h = hexn(t, "3M6")
            _on_top(st, unit_of(t, st, "rifle-company-43"))
            panther = unit_of(t, st, "panther-g")
            st.fired[panther] = True  # it fired at the Russians on top
            seed_game(seed)
            r = own_fort_roll(st, t.unit_t, t.map_t, ct, GERMAN, h, np.array([panther], dtype=np.int64), 1,
                              _spotted(t, st, GERMAN))
            if r != DISPERSED:
                continue
            fort, rifle = unit_of(t, st, "fort-40"), unit_of(t, st, "rifle-platoon-german-42")
            assert st.dispersed[fort] and st.dispersed[rifle]
            recover(st, GERMAN)  # S6 of the German player-turn
            got[next_turn] = [bool(st.dispersed[rifle])]
            recover(st, RUSSIAN)
            recover(st, GERMAN)  # S6 of the next German player-turn
            got[next_turn].append(bool(st.dispersed[rifle]))
            break
    # OQ-22 adopted: face-up at once; alternative: dispersed through the next German player-turn.
    assert got == {False: [False, False], True: [True, False]}


def test_pb_cat_8_units_on_top_close_assault_the_fort_not_the_other_way(tmp_path):
    # Two Russian companies on top (AF 5 + 6 = 11 against the fort's 40: 1-4).
    units = FORT + [("russian", "rifle-company-43", "3M6"), ("russian", "guards-company-43", "3M6"),
                    ("german", "smg-platoon-german", "3M6")]
    for seed in range(6):
        t, st = position(tmp_path, units)
        h = hexn(t, "3M6")
        rus = unit_of(t, st, "rifle-company-43")
        _on_top(st, rus, unit_of(t, st, "guards-company-43"))
        seed_game(seed)
        # The German units inside may not close-assault the Russians on top (not adjacent).
        assault_phase(st, t.unit_t, t.map_t, t.combat_t, GERMAN, pb_players(t, st, *players()))
        assert len(events(st, EV_ASSAULTER)) == 0
        # The Russians on top may assault the fort under them: the fort's DF.
        assault_phase(st, t.unit_t, t.map_t, t.combat_t, RUSSIAN, pb_players(t, st, *players()))
        a = events(st, EV_ASSAULT)
        assert len(a) == 1 and int(a[0][3]) == h and int(a[0][5]) == 40
        assert sorted(int(r[3]) for r in events(st, EV_ASSAULTER)) == sorted([rus, unit_of(t, st, "guards-company-43")])
    # The heuristic counts the units on top among the assaulters of the fort under them.  It
    # assaults at 1-1 or better only, which two companies never reach against a fort of DF 40:
    # here a fort of DF 10 (11 against 10).
    from simulator.rulesets.panzerblitz.players.spec import parse_policy

    prm = np.tile(parse_policy("heuristic").vector(), (2, 1))
    n_units = len(st.utype)
    for on_top in (False, True):
        t, st = position(tmp_path, units)
        h = hexn(t, "3M6")
        ut = t.unit_t._replace(defense=t.unit_t.defense.copy())
        ut.defense[st.utype[unit_of(t, st, "fort-40")]] = 10
        cand = np.full((n_units, 7), -1, dtype=np.int64)
        n_cand = np.zeros(n_units, dtype=np.int64)
        if on_top:
            _on_top(st, *units_named(t, st, "rifle-company-43"), *units_named(t, st, "guards-company-43"))
            for u in (*units_named(t, st, "rifle-company-43"), *units_named(t, st, "guards-company-43")):
                cand[u, 0], n_cand[u] = h, 1  # the fort under them: the engine's option (PB-CAT-8)
        target_of = np.full(n_units, -1, dtype=np.int64)
        hp.plan_assaults(st, ut, t.map_t, t.combat_t, policy_tables(t), prm[RUSSIAN], RUSSIAN, cand, n_cand,
                         target_of)
        assert (target_of == h).sum() == (2 if on_top else 0)


# ------------------------------------------------------------------ a destroyed fort under units on top (PB-FORT-5/16, OQ-26)


def test_pb_fort_5_oq_26_a_destroyed_fort_spares_the_top_and_the_block_may_overstack_it(tmp_path):
    units = FORT + [("russian", "rifle-company-43", "3M6"), ("russian", "smg-company-43", "3M6")]
    for eliminate, left in ((False, 2), (True, 1)):
        t, st = position(tmp_path, units)
        h = hexn(t, "3M6")
        rus = [unit_of(t, st, "rifle-company-43"), unit_of(t, st, "smg-company-43")]
        _on_top(st, *rus)
        apply_to_stack(st, t.unit_t, h, GERMAN, RES_X, eliminate)
        assert st.status[unit_of(t, st, "fort-40")] == ELIMINATED
        assert st.status[unit_of(t, st, "rifle-platoon-german-42")] == ELIMINATED  # inside: with the fort
        assert st.block[h]  # PB-FORT-16
        on = [u for u in rus if st.status[u] == ON_MAP]
        assert len(on) == left  # OQ-26: the block counts at once; the excess stays, or is eliminated
        assert not st.on_top[on].any()  # no fort to be on top of any more
        assert len(events(st, EV_EXCESS)) == 2 - left
        if eliminate:
            # the weaker (lower DF) goes
            weak = min(rus, key=lambda u: t.unit_t.defense[st.utype[u]])
            assert st.status[weak] == ELIMINATED
    # The switch as the game reads it (readings.fort_block_excess).
    assert t.combat_t.fort_excess_eliminated is False


def test_oq_12_22_26_switches_read_from_the_readings(tmp_path):
    from simulator.rulesets.panzerblitz.tables import build_tables
    from simulator.situation import load_situation

    t = build_tables(load_situation("pb-01", {"readings.fort_top_armored": "whole_stack",
                                              "readings.own_fire_recovery": "next_turn",
                                              "readings.fort_block_excess": "eliminated"}))
    ct = t.combat_t
    assert ct.fort_whole_armored and ct.own_fire_next_turn and ct.fort_excess_eliminated
    d = build_tables(load_situation("pb-01")).combat_t
    assert not (d.fort_whole_armored or d.own_fire_next_turn or d.fort_excess_eliminated)


def test_pb_fort_13_random_play_fires_from_inside_at_the_top(tmp_path):
    units = FORT + [("russian", "45mm-at", "3M6")]
    t, st = position(tmp_path, units)
    _on_top(st, unit_of(t, st, "45mm-at"))  # DF 3: the rifle platoon's 3 makes 1-1
    seed_game(1)
    fire_phase(st, t.unit_t, t.map_t, t.combat_t, GERMAN, pb_players(t, st, *players()))
    f = events(st, EV_FIRER)
    assert len(f) == 1 and int(f[0][3]) == unit_of(t, st, "rifle-platoon-german-42") \
        and int(f[0][4]) == hexn(t, "3M6")


def test_pb_fort_12_the_heuristic_moves_onto_an_enemy_fort_it_must_hold(tmp_path):
    """The heuristic player whose goal is the fort hex (the Russians must occupy 3M6) moves onto
    the German fort and ends there, on top."""
    from simulator.rulesets.panzerblitz.dispatch import begin_move
    from simulator.rulesets.panzerblitz.movement_phase import move_unit
    from simulator.rulesets.panzerblitz.players.spec import parse_policy
    from simulator.rulesets.panzerblitz.tables import build_tables
    from simulator.situation import load_situation
    from tests.panzerblitz.test_rules import placed_state, position_file

    units = FORT + [("russian", "rifle-company-43", "3M5")]
    goal = ['measure = "in_area"', 'whose = "own"', 'area = { hexes = ["3M6"] }', 'compare = ">="', "marginal = 1"]
    path = position_file(tmp_path, units, turns=3, victory={"russian": goal})
    t = build_tables(load_situation(path))
    st = placed_state(t)
    u = unit_of(t, st, "rifle-company-43")
    spec = parse_policy("heuristic:noise=0")
    policy = np.array([spec.kernel_id] * 2, dtype=np.int64)
    params = np.tile(spec.vector(), (2, 1))
    n_hex = t.situation.map.n_hexes
    pl = pb_players(t, st, policy, params)
    begin_move(st, t.unit_t, t.map_t, t.combat_t, RUSSIAN, pl)  # the heuristic reads the enemy (hp.enemy_fields)
    occ = occupancy(st, t.unit_t, n_hex)
    bufs = [np.empty(n_hex, dtype=np.int32) for _ in range(4)]
    options = np.empty(2 * n_hex + 2, dtype=np.int64)
    ov = [np.empty(6 * n_hex, dtype=np.int64) for _ in range(3)]
    move_unit(st, t.unit_t, t.map_t, t.move_t, t.combat_t, t.stack_limit, RUSSIAN, u, pl, occ,
              bufs[0], bufs[1], options, bufs[2], bufs[3], ov[0], ov[1], ov[2])
    assert st.hex[u] == hexn(t, "3M6") and st.on_top[u]
    assert st.side[unit_of(t, st, "fort-40")] == GERMAN


def test_pb_trans_9_a_passenger_set_down_on_top_of_an_enemy_fort_stays_on_top(tmp_path):
    # PB-TRANS-9 with PB-FORT-12: a Russian T-34 on top of the German fort, carrying a rifle
    # company, is dispersed: the company is set down at once where its carrier stands, on top of
    # the fort (outside it), not inside a German fort.  (Found by a heuristic game of pb-08 in
    # issue 15, once riders rode more: the invariant "units of both sides in one hex" broke.)
    from simulator.rulesets.panzerblitz.losses import disperse

    t, st = position(tmp_path, FORT + [("russian", "t-34-c", "3M6"), ("russian", "rifle-company-43", "3M6")])
    tank, rifle = unit_of(t, st, "t-34-c"), unit_of(t, st, "rifle-company-43")
    st.carrying[tank], st.carried_by[rifle] = rifle, tank
    _on_top(st, tank)
    disperse(st, t.unit_t, tank)
    assert st.carried_by[rifle] < 0 and st.dispersed[rifle] and st.on_top[rifle]
    assert violation(st, t.unit_t, t.map_t, t.move_t, t.stack_limit) != BOTH_SIDES_IN_HEX
