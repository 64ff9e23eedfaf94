"""Unit capabilities and counters, one rule ID per test (hand-made positions, tests/panzerblitz/test_rules.py)."""

from __future__ import annotations

import numpy as np

from simulator.rulesets.panzerblitz.close_assault import resolve_assault
from simulator.rulesets.panzerblitz.combat import seed_dice
from simulator.rulesets.panzerblitz.events import EV_ASSAULT
from simulator.rulesets.panzerblitz.fire import defender_stack
from simulator.rulesets.panzerblitz.presence import side_load
from simulator.rulesets.panzerblitz.spotting import spotted_hexes
from simulator.rulesets.panzerblitz.state import N_EVENTS
from simulator.rulesets.panzerblitz.tables import build_tables
from simulator.situation import load_situation
from tests.panzerblitz.test_rules import GERMAN, RUSSIAN, hexn, position, unit_of


def test_pb_gen_1_3_two_sides_and_printed_factors_from_data():
    t = build_tables(load_situation("pb-01"))
    assert t.situation.ruleset.sides == ["german", "russian"]
    i = t.units.index("t-34-c")
    u = t.situation.ruleset.units["t-34-c"]
    assert (t.units.attack[i], t.units.range[i], t.units.defense[i], t.units.movement[i]) == \
        (u["attack"], u["range"], u["defense"], 2 * u["movement"])


def test_pb_los_2_3_levels_and_obstacle_bars_are_data(pb_ruleset):
    los = pb_ruleset.data["los"]
    assert los["levels"] == ["ground", "slope", "hilltop"]
    assert los["bars"] == ["green", "gray", "brown", "orange"]


def test_pb_cav_1_cavalry_is_a_non_armored_target(pb_ruleset):
    assert not pb_ruleset.units["cavalry-russian-43"]["armored"]


def test_pb_cp_1_command_posts_count_for_stacking_and_victory(tmp_path):
    t, st = position(tmp_path, [("german", "command-post", "3M6"), ("russian", "rifle-company-43", "3A1")])
    assert side_load(st, t.unit_t, hexn(t, "3M6"), GERMAN) == 1
    assert t.unit_t.victory_count[t.units.index("command-post")]


def test_pb_mine_4_minefields_do_not_count_for_stacking(tmp_path):
    t, st = position(tmp_path, [("german", "minefield", "3M6"), ("russian", "rifle-company-43", "3A1")])
    assert side_load(st, t.unit_t, hexn(t, "3M6"), RUSSIAN) == 0
    assert side_load(st, t.unit_t, hexn(t, "3M6"), GERMAN) == 0


def test_pb_spot_5_swamps_do_not_conceal(pb_ruleset):
    m = load_situation("pb-01").map
    t = build_tables(load_situation("pb-01"))
    swamp_only = m.has_feature("swamp") & ~m.has_feature("woods") & ~m.has_feature("town")
    assert swamp_only.any() and not t.map_t.concealing[swamp_only].any()


def test_pb_spot_3_spotters_are_units_in_place_at_the_start(tmp_path):
    # Spotting is worked out from where units stand when the fire phase begins: a unit that
    # moves next to a woods hex later in the turn spots nothing this turn.
    t, st = position(tmp_path, [("german", "rifle-platoon-german-42", "3A1"), ("russian", "rifle-company-43", "3M6")])
    assert not spotted_hexes(st, t.unit_t, t.map_t, t.combat_t, GERMAN)[hexn(t, "3M6")]


def test_pb_hill_5_and_pb_wec_8_close_assault_uses_printed_af_halved_on_hills(tmp_path):
    m = load_situation("pb-01").map
    hill = next(m.labels[i] for i in range(m.n_hexes) if m.labels[i].startswith("3") and m.elevation[i] == 2)
    below = next(m.labels[x] for x in m.neighbours[m.lookup(hill)] if x >= 0 and m.elevation[x] < 2)
    t, st = position(tmp_path, [("german", "rifle-platoon-german-42", below), ("russian", "t-34-c", hill)])
    u = unit_of(t, st, "rifle-platoon-german-42")
    seed_dice(0)
    resolve_assault(st, t.unit_t, t.map_t, t.combat_t, GERMAN, np.array([u]), 1, hexn(t, hill))
    ev = [r for r in st.log[: st.clock[N_EVENTS]] if r[2] == EV_ASSAULT]
    af = t.units.attack[t.units.index("rifle-platoon-german-42")]
    # I-class against armor, no WEC (PB-WEC-8), halved against a hilltop (PB-HILL-5): 3 -> 1.
    if ev:
        assert ev[0][4] == af // 2
    else:
        assert af // 2 * 4 < t.units.defense[t.units.index("t-34-c")]  # below 1-4: no assault


def test_pb_wec_7_selective_attack_types_each_defender_on_its_own(tmp_path):
    t, st = position(tmp_path, [("russian", "t-34-c", "3M6"), ("russian", "rifle-company-43", "3M6")])
    # The stack as a whole is a tie (PB-WEC-6); a selective attack would type each unit alone.
    assert defender_stack(st, t.unit_t, t.map_t, hexn(t, "3M6"), RUSSIAN)[1] == 2
    assert t.unit_t.armored[t.units.index("t-34-c")] and not t.unit_t.armored[t.units.index("rifle-company-43")]


def test_pb_unit_1_categories_and_capabilities(pb_ruleset):
    t = build_tables(load_situation("pb-01"))
    cat = {n: pb_ruleset.units[n]["category"] for n in t.units.names}
    for n in t.units.names:
        i = t.units.index(n)
        if cat[n] in ("fortification", "roadblock", "minefield"):
            assert t.unit_t.positional[i] and t.unit_t.mclass[i] < 0
        if cat[n] == "self_propelled_artillery":
            assert not t.unit_t.can_overrun[i]  # PB-OVR-1: no overrun by the Wespe, Hummel...
        if cat[n] in ("towed_gun", "command_post"):
            assert not t.unit_t.can_assault[i] and not t.unit_t.vehicle[i]
