"""PanzerBlitz combat: attack factors, odds, die modifiers and the Combat Results Table.

Tables come from the ruleset data (`combat.toml`) compiled into small arrays; the kernels
here are numba functions over plain numbers so the game loop can call them per battle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simulator.errors import DataError
from simulator.jit import njit
from simulator.tablespec import computed, entry, read_entries, switch

# Result codes (PB-CRT-2).
NO_EFFECT, DISPERSED, DOUBLE_DISPERSED, ELIMINATED = 0, 1, 2, 3
RESULT_CODES = {"-": NO_EFFECT, "D": DISPERSED, "DD": DOUBLE_DISPERSED, "X": ELIMINATED}
RESULT_NAMES = {v: k for k, v in RESULT_CODES.items()}
# What a result does to one unit (apply_result; the `b` of an EV_HIT event).
UNHARMED, NOW_DISPERSED, NOW_ELIMINATED = 0, 1, 2
# Hex levels of the boards' `elevation` (PB-HILL): ground, slope, hilltop.
GROUND, SLOPE, HILLTOP = 0, 1, 2

# Weapon classes (PB-WEC-1) and the WEC columns.
WEAPON_CLASSES = ("A", "H", "M", "I")
WEAPON_INDEX = {c: i for i, c in enumerate(WEAPON_CLASSES)}
NO_WEAPON = -1
# The classes as the kernels read them (`UnitT.weapon`).
CLASS_A, CLASS_H, CLASS_M, CLASS_I = (WEAPON_INDEX[c] for c in ("A", "H", "M", "I"))
# A stack's target type (PB-WEC-6, `fire.defender_stack`): non-armored, armored, or a tie (each
# firer takes the type less favourable to itself).
NON_ARMORED, ARMORED, TIE = 0, 1, 2
# OQ-4, `CombatTables.dispersed_mode`: the dispersed modifier against a stack when any of its
# units is dispersed, when all are, or never.
DISPERSED_ANY, DISPERSED_ALL, DISPERSED_NEVER = 0, 1, 2
WEC_COLUMNS = ("armored_near", "armored_far", "non_armored")


@dataclass(frozen=True)
class CombatTables:
    """The combat tables, checked: every field declared once with its source in the ruleset data
    (simulator/tablespec.py); the kernels' CombatT (tables.py) is made from the declarations."""

    crt: np.ndarray = computed("crt.rows", "PB-CRT-1: int8[rows, columns] of result codes")
    lowest_roll: int = computed("crt.lowest_roll", "the modified roll of row 0")
    col_attack: np.ndarray = computed("crt.columns", "int64[columns]: the \"a\" of column \"a-d\"")
    col_defense: np.ndarray = computed("crt.columns", "int64[columns]: the \"d\"")
    column_names: tuple[str, ...] = computed("crt.columns", "the odds columns", kernel=False)
    below_table_allowed: bool = entry("odds.below_table_allowed", "OQ-2: an attack below the first column is "
                                      "resolved on it", default=False)
    multiple_minimum: int = computed("odds.multiple_attack_minimum", "PB-STK-4: the least column of a battle of "
                                     "a multiple attack (column index)")
    minefield_column: int = computed("odds.minefield_odds", "PB-MINE-5: the column minefields attack on")
    wec: np.ndarray = computed("wec", "PB-WEC-4: float64[4 classes, 3 WEC columns]")
    hill_halving: float = entry("hill.halving", "PB-HILL-1: the multiplier on a halved AF", kernel="halving")
    mod_terrain: int = entry("die_modifiers.terrain", "PB-CBT-10: the defender is in cover")
    mod_dispersed: int = entry("die_modifiers.dispersed", "PB-DISP-2: the defender is already dispersed")
    mod_overrun: int = entry("die_modifiers.overrun", "PB-OVR-5: an overrun")
    mod_close_assault: int = entry("die_modifiers.close_assault", "PB-CAT-6: a close assault")
    terrain_mod_features: tuple[str, ...] = computed("die_modifiers.terrain_features",
                                                     "the hex features that give the terrain modifier", kernel=False)
    dispersed_mode: int = switch("readings.dispersed_modifier", ("any", "all", "never"), "any",
                                 "OQ-4: the dispersed modifier against a stack: 0 any, 1 all, 2 never")
    overrun_hill_halving: bool = switch("readings.overrun_hill_halving", (True, False), False, "OQ-10")
    halftrack_majority: bool = switch("readings.halftrack_overrun", ("any", "majority"), "any", "OQ-11",
                                      on="majority")
    load_and_move: bool = switch("readings.load_and_move", (True, False), False, "OQ-21")
    fired_units_stay_spotted: bool = switch("readings.fired_units_stay_spotted", (True, False), False,
                                            "the Panzer Leader spotting variant")
    multiple_weakest_by_odds: bool = switch("readings.multiple_attack_weakest", ("printed", "odds"), "printed",
                                            "OQ-5: PB-STK-4 \"weakest\" by the odds achieved (else printed DF)",
                                            on="odds")
    leftovers_open: bool = switch("readings.attack_leftovers", ("any_technique", "selective_only"), "any_technique",
                                  "OQ-23: leftovers of a multiple attack may still be fired on", on="selective_only")
    cat_rf1_armor_barred: bool = switch("readings.rf1_close_assault_armor", (True, False), True,
                                        "OQ-18: RF-1 I-class units may not close-assault armored targets", on=False)
    passengers_counted: bool = switch("readings.passengers_in_type_count", (True, False), False,
                                      "OQ-20: passengers count by their own type in PB-WEC-6")
    # Optional rules (PB-OPT), all off by default.
    indirect_fire: bool = switch("readings.indirect_fire", (True, False), False, "PB-OPT-IF-1..5")
    indirect_armor_any_range: bool = switch("readings.indirect_fire_armor", ("any_range", "wec"), "any_range",
                                            "OQ-15: armored targets halved at any range", on="any_range")
    intensive_fire: bool = switch("readings.intensive_fire", (True, False), False, "PB-OPT-AMMO-1..4")
    intensive_factor: int = entry("readings.intensive_fire_factor", "PB-OPT-AMMO-1: the multiplier", default=3,
                                  minimum=1)
    intensive_printed: bool = switch("readings.intensive_fire_order", ("printed", "final"), "printed",
                                     "OQ-14: multiply the printed AF (else the final AF)", on="printed")
    real_space_los: bool = switch("readings.real_space_los", (True, False), False, "PB-OPT-RSLOS-1 / PB-LOS-9",
                                  kernel=False)
    band_chains: bool = switch("readings.los_chains", ("nearest", "band"), "nearest",
                               "OQ-17 alternative: every shortest chain near the line", on="band", kernel=False)
    removal_then_move: bool = switch("readings.mine_removal_then_move", (True, False), False,
                                     "OQ-13 alternative: a mine-clearing engineer may move")
    mine_block_apart: bool = switch("readings.mine_and_block_in_one_hex", (True, False), True,
                                    "OQ-25 alternative: no minefield and block in one hex", on=False)
    panzerblitz_assault: bool = switch("readings.panzerblitz_assault", (True, False), False, "PB-OPT-PBA-1")
    # Forts with units on top (PB-FORT-10..13, PB-STK-7).
    fort_whole_armored: bool = switch("readings.fort_top_armored", ("fort_as_one", "whole_stack"), "fort_as_one",
                                      "OQ-12: the whole fort+top stack is armored (else the fort counts as one "
                                      "armored unit)", on="whole_stack")
    own_fire_next_turn: bool = switch("readings.own_fire_recovery", ("same_turn", "next_turn"), "same_turn",
                                      "OQ-22: own units hit by own fire stay dispersed through their next "
                                      "player-turn", on="next_turn")
    fort_excess_eliminated: bool = switch("readings.fort_block_excess", ("stays", "eliminated"), "stays",
                                          "OQ-26: a destroyed fort's block eliminates the excess on top at once",
                                          on="eliminated")
    # Victory (PB-VIC-3): both sides reach a level; the higher wins at its own level (else at
    # the difference of the two levels, as published game reports count it).
    levels_by_difference: bool = switch("readings.both_sides_reach_level", ("higher", "difference"), "higher",
                                        "PB-VIC-3", on="difference", kernel=False)

    def column(self, name: str) -> int:
        return self.column_names.index(name)


def compile_tables(data: dict, where: str) -> CombatTables:
    """Check and compile the ruleset's combat tables."""
    def get(path: str):
        node = data
        for p in path.split("."):
            if not isinstance(node, dict) or p not in node:
                raise DataError(where, path, "missing", "a combat table entry (see combat.toml)")
            node = node[p]
        return node

    columns = tuple(get("crt.columns"))
    ratios = []
    for c in columns:
        parts = c.split("-")
        if len(parts) != 2 or not all(p.isdigit() and int(p) > 0 for p in parts):
            raise DataError(where, "crt.columns", f"bad odds column {c!r}", "columns like \"1-4\" or \"3-1\"")
        ratios.append((int(parts[0]), int(parts[1])))
    if any(a1 * d2 >= a2 * d1 for (a1, d1), (a2, d2) in zip(ratios, ratios[1:], strict=False)):
        raise DataError(where, "crt.columns", "columns not in increasing order of odds", "lowest odds first")
    rows = get("crt.rows")
    lowest = int(get("crt.lowest_roll"))
    keys = sorted(int(k) for k in rows)
    if keys != list(range(lowest, lowest + len(keys))):
        raise DataError(where, "crt.rows", f"rows {keys}", f"consecutive modified rolls from {lowest}")
    crt = np.zeros((len(keys), len(columns)), dtype=np.int8)
    for i, k in enumerate(keys):
        row = rows[str(k)]
        if len(row) != len(columns):
            raise DataError(where, f"crt.rows.{k}", f"{len(row)} results", f"{len(columns)}, one per column")
        for j, r in enumerate(row):
            if r not in RESULT_CODES:
                raise DataError(where, f"crt.rows.{k}", f"unknown result {r!r}", f"one of {list(RESULT_CODES)}")
            crt[i, j] = RESULT_CODES[r]
    wec = np.zeros((len(WEAPON_CLASSES), len(WEC_COLUMNS)), dtype=np.float64)
    for ci, cls in enumerate(WEAPON_CLASSES):
        for wi, col in enumerate(WEC_COLUMNS):
            wec[ci, wi] = float(get(f"wec.{cls}.{col}"))
    odds = get("odds")

    def col_index(name: str, fld: str) -> int:
        if name not in columns:
            raise DataError(where, fld, f"unknown column {name!r}", f"one of {list(columns)}")
        return columns.index(name)

    features = get("die_modifiers").get("terrain_features", ())
    if not isinstance(features, list | tuple) or not all(isinstance(f, str) for f in features):
        raise DataError(where, "die_modifiers.terrain_features", f"got {features!r}", "a list of hex features")
    return CombatTables(
        crt=crt, lowest_roll=lowest,
        col_attack=np.array([a for a, _ in ratios], dtype=np.int64),
        col_defense=np.array([d for _, d in ratios], dtype=np.int64),
        column_names=columns,
        multiple_minimum=col_index(odds.get("multiple_attack_minimum", columns[0]), "odds.multiple_attack_minimum"),
        minefield_column=col_index(odds.get("minefield_odds", columns[0]), "odds.minefield_odds"),
        wec=wec, terrain_mod_features=tuple(features),
        **read_entries(CombatTables, data, where),
    )


@njit(cache=True)
def odds_column(attack, defense, col_attack, col_defense):
    """PB-CBT-7: the highest column whose odds do not exceed attack:defense (the defender's
    favour); -1 when the attack is worse than the lowest column.  Better than the highest
    column is resolved on it (PB-CBT-9)."""
    if defense <= 0:
        return col_attack.shape[0] - 1
    best = -1
    for j in range(col_attack.shape[0]):
        # a/d <= A/D  <=>  a*D <= A*d, in integers.
        if col_attack[j] * defense <= attack * col_defense[j]:
            best = j
    return best


@njit(cache=True)
def crt_result(crt, lowest_roll, column, modified_roll):
    """PB-CRT-1/3/4: the result of a modified die roll on a column.

    Below the table (a net -2 or -3 brings a 1 below the first row) the first row of the next
    column to the right is read (PB-CRT-3); above it, no effect (PB-CRT-4)."""
    row = modified_roll - lowest_roll
    if row < 0:
        column = min(column + 1, crt.shape[1] - 1)
        row = 0
    if row >= crt.shape[0]:
        return 0
    return crt[row, column]


@njit(cache=True)
def weapon_factor(af, weapon, target_armored, distance, rf, wec):
    """PB-WEC-3/4 and PB-CBT-5 step 2: the AF after the weapon-to-target effect (fraction
    dropped), or 0 when the class may not fire at that target."""
    if weapon < 0 or af <= 0:
        return 0
    if target_armored:
        col = 0 if distance <= rf // 2 else 1
    else:
        col = 2
    return int(math.floor(af * wec[weapon, col]))


@njit(cache=True)
def hill_halves(attacker_level, defender_level, adjacent, brown_between):
    """PB-HILL-1..4: is the attacker's AF halved against this defender?"""
    if defender_level == HILLTOP:  # only attackers on a hilltop are spared (PB-HILL-2)
        return attacker_level != HILLTOP
    if defender_level == SLOPE:  # slope: adjacent attackers are spared unless a brown bar lies between (PB-HILL-3)
        return not (adjacent and not brown_between)
    return False


@njit(cache=True)
def modified_attack(af, weapon, target_armored, distance, rf, halved, wec, halving):
    """PB-CBT-5: printed AF -> WEC -> terrain halving, each dropping fractions."""
    x = weapon_factor(af, weapon, target_armored, distance, rf, wec)
    if halved:
        x = int(math.floor(x * halving))
    return x


@njit(cache=True)
def apply_result(result, already_dispersed):
    """PB-CRT-2 / PB-DISP-4 on one unit: UNHARMED, NOW_DISPERSED or NOW_ELIMINATED."""
    if result == ELIMINATED:
        return NOW_ELIMINATED
    if result == DOUBLE_DISPERSED:
        return NOW_ELIMINATED if already_dispersed else NOW_DISPERSED
    if result == DISPERSED:
        return NOW_DISPERSED
    return NOW_DISPERSED if already_dispersed else UNHARMED


@njit(cache=True)
def roll_die():
    """PB-GEN-7: one six-sided die (numba's generator, seeded per game)."""
    return np.random.randint(1, 7)


@njit(cache=True)
def seed_dice(seed):
    np.random.seed(seed)


@njit(cache=True)
def resolve_battle(crt, lowest_roll, column, net_modifier):
    """PB-CBT-11: roll one die, add the net modifier, read the CRT. Returns (roll, result)."""
    roll = roll_die()
    return roll, crt_result(crt, lowest_roll, column, roll + net_modifier)
