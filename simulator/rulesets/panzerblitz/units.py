"""Unit types of the ruleset compiled into arrays, one entry per type (PB-GEN-3, PB-UNIT)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulator.errors import DataError
from simulator.rulesets.panzerblitz.combat import NO_WEAPON, WEAPON_INDEX
from simulator.tablespec import computed

CATEGORIES = ("tank", "assault_gun", "tank_destroyer", "self_propelled_artillery", "armored_car",
              "transport", "towed_gun", "infantry", "cavalry", "command_post", "fortification",
              "roadblock", "minefield")
CATEGORY_INDEX = {c: i for i, c in enumerate(CATEGORIES)}
# Counters without men: never move, never fire, never counted as units (PB-VIC-4, PB-UNIT-1).
POSITIONAL = ("fortification", "roadblock", "minefield")
# PB-OVR-1: German self-propelled artillery may not overrun.
NO_OVERRUN = ("self_propelled_artillery",)
# PB-CAT-1: infantry-category units and cavalry may close-assault.
CLOSE_ASSAULT = ("infantry", "cavalry")
# PB-OPT-IF-1/4: a unit type's `optional_indirect_fire` (index = UnitTypes.indirect).
INDIRECT_KINDS = ("none", "any_range", "beyond_half_range")
INDIRECT_NEVER, INDIRECT_ANY_RANGE, INDIRECT_BEYOND_HALF = range(len(INDIRECT_KINDS))


def _column(source: str, meaning: str, kernel_dtype=None):
    return computed(f"units.*.{source}" if source else "units", meaning, kernel_dtype=kernel_dtype)


@dataclass(frozen=True)
class UnitTypes:
    """The unit types, checked: one array a property, one entry a type (sorted by name).  Every
    field is declared once (simulator/tablespec.py); the kernels' UnitT (tables.py) is made
    from the declarations, integer columns widened to int64."""

    names: tuple[str, ...] = computed("units", "the unit types' names", kernel=False)
    side: np.ndarray = _column("side", "int8: side index, -1 = either side", np.int64)
    category: np.ndarray = _column("category", "int8 into CATEGORIES", np.int64)
    attack: np.ndarray = _column("attack", "int32: AF", np.int64)
    weapon: np.ndarray = _column("weapon", "int8 into WEAPON_CLASSES, -1 none", np.int64)
    range: np.ndarray = _column("range", "int32: RF", np.int64)
    defense: np.ndarray = _column("defense", "int32: DF", np.int64)
    movement: np.ndarray = _column("movement", "int32: MF in half movement factors", np.int64)
    mclass: np.ndarray = _column("movement_class", "int8 into the terrain movement classes, -1 never moves",
                                 np.int64)
    armored: np.ndarray = _column("armored", "bool: an armored target (PB-WEC-2)")
    vehicle: np.ndarray = _column("vehicle", "bool: moves in the vehicle phase (PB-SEQ-2 S4; cavalry too, "
                                  "PB-CAV-2)")
    carrier: np.ndarray = _column("carrier", "bool (PB-TRANS-1)")
    positional: np.ndarray = _column("category", "bool: fort, block, minefield")
    stack_count: np.ndarray = computed("stacking.category_counts", "int8: what it counts against the stacking "
                                       "limit (PB-STACK-3)", kernel_dtype=np.int64)
    victory_count: np.ndarray = computed("victory.uncounted_categories", "bool: counts as a unit for victory "
                                         "(PB-VIC-4)")
    leaves_wreck: np.ndarray = _column("", "bool: an armored vehicle leaves a wreck (PB-WRECK-1)")
    can_overrun: np.ndarray = _column("", "bool (PB-OVR-1)")
    can_assault: np.ndarray = _column("category", "bool (PB-CAT-1)")
    engineer: np.ndarray = _column("engineer", "bool")
    fort: np.ndarray = _column("category", "bool: a fortification (PB-FORT)")
    # Optional rules (PB-OPT): who may fire indirectly / intensively, who observes for them.
    indirect: np.ndarray = _column("optional_indirect_fire", "int8: 0 never, 1 at any range, 2 beyond half range "
                                   "(PB-OPT-IF-1/4)", np.int64)
    intensive: np.ndarray = computed("readings.intensive_fire_classes", "bool: may fire intensively "
                                     "(PB-OPT-AMMO-1/4)")
    observer: np.ndarray = _column("category", "bool: a command post (PB-CP-2, PB-OPT-IF-2)")

    def index(self, name: str) -> int:
        return self.names.index(name)


def compile_units(data: dict, sides: list[str], movement_classes: tuple[str, ...], where: str) -> UnitTypes:
    units = data["units"]
    names = tuple(sorted(units))
    stack_counts = data["stacking"].get("category_counts", {})
    uncounted = set(data.get("victory", {}).get("uncounted_categories", []))
    intensive_classes = data.get("readings", {}).get("intensive_fire_classes", ["H", "M"])
    if not isinstance(intensive_classes, list) or any(c not in WEAPON_INDEX for c in intensive_classes):
        raise DataError(where, "readings.intensive_fire_classes", f"got {intensive_classes!r}",
                        f"a list of weapon classes from {list(WEAPON_INDEX)}")
    rows = []
    for name in names:
        u = units[name]
        fld = f"units.{name}"
        cat = u.get("category")
        if cat not in CATEGORY_INDEX:
            raise DataError(where, f"{fld}.category", f"got {cat!r}", f"one of {list(CATEGORIES)}")
        weapon = u.get("weapon", "")
        if weapon and weapon not in WEAPON_INDEX:
            raise DataError(where, f"{fld}.weapon", f"got {weapon!r}", f"one of {list(WEAPON_INDEX)} or \"\"")
        mc = u.get("movement_class", "none")
        if mc != "none" and mc not in movement_classes:
            raise DataError(where, f"{fld}.movement_class", f"got {mc!r}", f"none or one of {list(movement_classes)}")
        for k in ("attack", "range", "defense", "movement"):
            v = u.get(k)
            if not isinstance(v, int | float) or isinstance(v, bool) or v < 0:
                raise DataError(where, f"{fld}.{k}", f"got {v!r}", "a number >= 0")
        side = u.get("side", "any")
        armored = bool(u.get("armored", False))
        indirect = u.get("optional_indirect_fire", "none")
        if indirect not in INDIRECT_KINDS:
            raise DataError(where, f"{fld}.optional_indirect_fire", f"got {indirect!r}", f"one of {list(INDIRECT_KINDS)}")
        vehicle = bool(u.get("vehicle", False))
        rows.append(dict(
            side=sides.index(side) if side in sides else -1,
            category=CATEGORY_INDEX[cat],
            attack=int(u["attack"]), weapon=WEAPON_INDEX[weapon] if weapon else NO_WEAPON,
            range=int(u["range"]), defense=int(u["defense"]), movement=int(round(u["movement"] * 2)),
            mclass=movement_classes.index(mc) if mc != "none" else -1,
            armored=armored,
            vehicle=vehicle or mc == "cavalry",
            carrier=bool(u.get("carrier", False)),
            positional=cat in POSITIONAL,
            stack_count=int(stack_counts.get(cat, 1)),
            victory_count=cat not in uncounted,
            leaves_wreck=armored and vehicle,
            can_overrun=armored and vehicle and cat not in NO_OVERRUN,
            can_assault=cat in CLOSE_ASSAULT,
            engineer=bool(u.get("engineer", False)),
            fort=cat == "fortification",
            indirect=INDIRECT_KINDS.index(indirect),
            intensive=weapon in intensive_classes and bool(u.get("intensive_fire", True)),
            observer=cat == "command_post",
        ))

    def col(key, dtype):
        return np.array([r[key] for r in rows], dtype=dtype)

    return UnitTypes(
        names=names, side=col("side", np.int8), category=col("category", np.int8),
        attack=col("attack", np.int32), weapon=col("weapon", np.int8), range=col("range", np.int32),
        defense=col("defense", np.int32), movement=col("movement", np.int32), mclass=col("mclass", np.int8),
        armored=col("armored", np.bool_), vehicle=col("vehicle", np.bool_), carrier=col("carrier", np.bool_),
        positional=col("positional", np.bool_), stack_count=col("stack_count", np.int8),
        victory_count=col("victory_count", np.bool_), leaves_wreck=col("leaves_wreck", np.bool_),
        can_overrun=col("can_overrun", np.bool_), can_assault=col("can_assault", np.bool_),
        engineer=col("engineer", np.bool_), fort=col("fort", np.bool_),
        indirect=col("indirect", np.int8), intensive=col("intensive", np.bool_), observer=col("observer", np.bool_),
    )
