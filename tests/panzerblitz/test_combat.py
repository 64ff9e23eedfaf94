"""PanzerBlitz combat arithmetic: odds (PB-CBT), the CRT (PB-CRT), weapons (PB-WEC), hills (PB-HILL)."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from scipy.stats import chisquare

from simulator.errors import DataError
from simulator.ruleset import load_ruleset
from simulator.rulesets.panzerblitz.combat import (
    DISPERSED,
    DOUBLE_DISPERSED,
    ELIMINATED,
    NO_EFFECT,
    RESULT_CODES,
    WEAPON_INDEX,
    apply_result,
    compile_tables,
    crt_result,
    hill_halves,
    modified_attack,
    odds_column,
    resolve_battle,
    seed_dice,
    weapon_factor,
)

GROUND, SLOPE, HILLTOP = 0, 1, 2


@pytest.fixture(scope="module")
def tables():
    return compile_tables(load_ruleset("panzerblitz").data, "combat.toml")


def column_name(tables, attack, defense):
    j = odds_column(attack, defense, tables.col_attack, tables.col_defense)
    return None if j < 0 else tables.column_names[j]


@pytest.mark.parametrize("attack,defense,expected", [
    (11, 3, "3-1"), (5, 12, "1-3"), (3, 4, "1-2"), (4, 4, "1-1"), (8, 4, "2-1"),
    (7, 4, "1-1"), (1, 4, "1-4"), (2, 7, "1-4"), (16, 4, "4-1"),
])
def test_pb_cbt_7_odds_rounded_in_the_defenders_favour(tables, attack, defense, expected):
    assert column_name(tables, attack, defense) == expected


def test_pb_cbt_9_odds_beyond_the_table(tables):
    assert column_name(tables, 40, 2) == "4-1"   # better than 4-1: resolved at 4-1 (OQ-3)
    assert column_name(tables, 1, 5) is None     # worse than 1-4: not allowed (OQ-2)


def test_pb_crt_1_table_cells(tables):
    def res(col, roll):
        return crt_result(tables.crt, tables.lowest_roll, tables.column(col), roll)
    assert res("1-1", 4) == NO_EFFECT            # the rules' example (PB-HILL-6)
    assert res("1-1", 0) == DOUBLE_DISPERSED
    assert res("1-4", -1) == DISPERSED
    assert res("3-1", 4) == DOUBLE_DISPERSED
    assert res("4-1", 6) == ELIMINATED          # row 6 (OQ-1 adopted reading)
    assert res("3-1", 6) == NO_EFFECT
    # every column: 1 is at least as bad for the defender as 6
    for j in range(len(tables.column_names)):
        assert tables.crt[1 - tables.lowest_roll, j] >= tables.crt[6 - tables.lowest_roll, j]


def test_pb_crt_3_below_the_table_reads_the_next_column(tables):
    res = lambda col, roll: crt_result(tables.crt, tables.lowest_roll, tables.column(col), roll)  # noqa: E731
    assert res("1-4", -2) == DOUBLE_DISPERSED
    assert res("1-3", -2) == ELIMINATED
    assert res("4-1", -2) == ELIMINATED


def test_pb_crt_4_above_the_table_is_no_effect(tables):
    for j in range(len(tables.column_names)):
        assert crt_result(tables.crt, tables.lowest_roll, j, 7) == NO_EFFECT
        assert crt_result(tables.crt, tables.lowest_roll, j, 8) == NO_EFFECT


@njit(cache=True)
def _many_battles(crt, lowest, column, modifier, n, seed):
    seed_dice(seed)
    counts = np.zeros(4, dtype=np.int64)
    rolls = np.zeros(7, dtype=np.int64)
    for _ in range(n):
        roll, result = resolve_battle(crt, lowest, column, modifier)
        counts[result] += 1
        rolls[roll] += 1
    return counts, rolls


@pytest.mark.parametrize("modifier", [0, 1, -1, -3])
def test_pb_crt_result_frequencies_match_the_table(tables, modifier):
    # Chi-square of simulated battles against the table's exact probabilities, per column.
    n = 12_000
    for j, name in enumerate(tables.column_names):
        counts, rolls = _many_battles(tables.crt, tables.lowest_roll, j, modifier, n, 1000 + j)
        assert rolls[0] == 0 and rolls[1:].min() > 0, "the die shows 1..6"
        expected = np.zeros(4)
        for roll in range(1, 7):
            expected[crt_result(tables.crt, tables.lowest_roll, j, roll + modifier)] += n / 6
        seen = expected > 0
        assert counts[~seen].sum() == 0, (name, counts, expected)
        if seen.sum() > 1:
            p = chisquare(counts[seen], expected[seen]).pvalue
            assert p > 1e-4, (name, modifier, counts, expected)


def test_pb_crt_table_is_data(tables):
    # OQ-1 alternative (c): 4-1 at a modified 6 is DD.  Overriding the data changes the engine.
    rs = load_ruleset("panzerblitz").with_overrides(
        {"crt.rows.6": ["-", "-", "-", "-", "-", "-", "DD"]}, "test")
    alt = compile_tables(rs.data, "combat.toml")
    assert crt_result(alt.crt, alt.lowest_roll, alt.column("4-1"), 6) == DOUBLE_DISPERSED
    assert crt_result(tables.crt, tables.lowest_roll, tables.column("4-1"), 6) == ELIMINATED


def test_bad_crt_data_is_reported(tables):
    rs = load_ruleset("panzerblitz").with_overrides({"crt.rows.3": ["-", "-", "-", "D", "DD", "Y", "X"]}, "test")
    with pytest.raises(DataError, match=r"crt.rows.3: unknown result 'Y'"):
        compile_tables(rs.data, "combat.toml")


@pytest.mark.parametrize("weapon,armored,distance,rf,af,expected", [
    ("A", True, 6, 12, 16, 32),    # A at half range or less against armour: x2
    ("A", True, 7, 12, 16, 16),    # beyond half range: x1
    ("A", False, 3, 12, 16, 8),    # against non-armored: x1/2
    ("A", False, 3, 5, 7, 3),      # 7/2 -> 3 (fraction dropped)
    ("H", True, 10, 20, 40, 40),
    ("H", True, 11, 20, 40, 20),
    ("M", False, 12, 12, 3, 3),
    ("I", True, 1, 4, 6, 0),       # PB-WEC-5: I never fires at armour
    ("I", False, 4, 4, 6, 6),
])
def test_pb_wec_4_weapons_effectiveness(tables, weapon, armored, distance, rf, af, expected):
    assert weapon_factor(af, WEAPON_INDEX[weapon], armored, distance, rf, tables.wec) == expected


def test_pb_wec_3_half_range_drops_the_fraction(tables):
    a = WEAPON_INDEX["A"]
    assert weapon_factor(10, a, True, 4, 9, tables.wec) == 20   # half of 9 is 4
    assert weapon_factor(10, a, True, 5, 9, tables.wec) == 10


def test_pb_cbt_5_factors_are_modified_per_unit_then_added(tables):
    # QA/Combat: three 7-AF A-class guns at infantry: 3 + 3 + 3 = 9, not 21/2.
    a = WEAPON_INDEX["A"]
    total = sum(modified_attack(7, a, False, 2, 5, False, tables.wec, tables.hill_halving) for _ in range(3))
    assert total == 9


@pytest.mark.parametrize("att,dfn,adjacent,brown,halved", [
    (GROUND, HILLTOP, False, False, True),
    (SLOPE, HILLTOP, True, False, True),     # PB-HILL-4: even adjacent
    (HILLTOP, HILLTOP, False, False, False),  # PB-HILL-2
    (GROUND, SLOPE, True, False, False),     # PB-HILL-3: adjacent, no brown bar
    (SLOPE, SLOPE, True, True, True),        # PB-HILL-3/4: across a brown bar
    (HILLTOP, SLOPE, False, False, True),    # PB-HILL-4: not adjacent
    (HILLTOP, GROUND, False, False, False),  # PB-HILL-1: only slope/hilltop defenders
])
def test_pb_hill_halving(att, dfn, adjacent, brown, halved):
    assert hill_halves(att, dfn, adjacent, brown) == halved


def test_pb_hill_6_worked_example(tables):
    # A Panther (16 A) at ground level fires at a recon company (DF 4) in a woods/hilltop hex
    # two hexes away: WEC 16 -> 8, hilltop 8 -> 4; 4 to 4 is 1-1; roll 3 + 1 (woods) = 4: no effect.
    halved = hill_halves(GROUND, HILLTOP, False, False)
    af = modified_attack(16, WEAPON_INDEX["A"], False, 2, 12, halved, tables.wec, tables.hill_halving)
    assert af == 4
    col = odds_column(af, 4, tables.col_attack, tables.col_defense)
    assert tables.column_names[col] == "1-1"
    assert crt_result(tables.crt, tables.lowest_roll, col, 3 + tables.mod_terrain) == NO_EFFECT


@pytest.mark.parametrize("result,already,after", [
    ("X", False, 2), ("DD", True, 2), ("DD", False, 1), ("D", False, 1), ("D", True, 1),
    ("-", False, 0), ("-", True, 1),
])
def test_pb_disp_4_results_on_one_unit(result, already, after):
    assert apply_result(RESULT_CODES[result], already) == after


def test_pb_cbt_10_modifiers_are_data(tables):
    assert (tables.mod_terrain, tables.mod_dispersed, tables.mod_overrun, tables.mod_close_assault) == (1, -1, -2, -2)
    assert set(tables.terrain_mod_features) == {"town", "woods", "swamp"}
