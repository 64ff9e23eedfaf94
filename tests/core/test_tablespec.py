"""One declaration per ruleset table (simulator/tablespec.py, issue 17): the checked object and
the kernels' struct come from the same field declarations, and the struct is filled by name."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass

import numpy as np
import pytest

from simulator.errors import DataError
from simulator.tablespec import (
    computed,
    entry,
    kernel_fields,
    kernel_struct,
    read_entries,
    specs,
    switch,
    to_kernel,
)


@dataclass(frozen=True)
class Dice:
    faces: np.ndarray = computed("dice.faces", "int8: the faces", kernel_dtype=np.int64)
    bonus: int = entry("dice.bonus", "added to every roll")
    scale: float = entry("dice.scale", "a multiplier", default=1.0, minimum=0.0)
    exploding: bool = switch("readings.exploding", (True, False), False, "a six rolls again")
    cautious: bool = switch("readings.caution", ("bold", "careful"), "bold", "careful play", on="careful")
    ties: int = switch("readings.ties", ("attacker", "defender", "reroll"), "defender", "who wins a tie")
    label: str = computed("dice", "the dice's name", kernel=False)
    penalty: int = entry("dice.penalty", "taken from every roll", default=0, kernel="malus")


@dataclass(frozen=True)
class DiceSwapped:
    """The same fields declared in another order: the kernel struct holds the same values by name."""

    penalty: int = entry("dice.penalty", "taken from every roll", default=0, kernel="malus")
    bonus: int = entry("dice.bonus", "added to every roll")
    faces: np.ndarray = computed("dice.faces", "int8: the faces", kernel_dtype=np.int64)
    ties: int = switch("readings.ties", ("attacker", "defender", "reroll"), "defender", "who wins a tie")
    cautious: bool = switch("readings.caution", ("bold", "careful"), "bold", "careful play", on="careful")
    exploding: bool = switch("readings.exploding", (True, False), False, "a six rolls again")
    scale: float = entry("dice.scale", "a multiplier", default=1.0, minimum=0.0)
    label: str = computed("dice", "the dice's name", kernel=False)


DATA = {"dice": {"bonus": 2, "penalty": 1}, "readings": {"caution": "careful", "ties": "reroll"}}


def test_entries_and_switches_are_read_and_checked_from_their_declaration():
    got = read_entries(Dice, DATA, "dice.toml")
    assert got == {"bonus": 2, "scale": 1.0, "exploding": False, "cautious": True, "ties": 2, "penalty": 1}
    assert type(got["scale"]) is float and type(got["bonus"]) is int

    def error(data) -> str:
        with pytest.raises(DataError) as err:
            read_entries(Dice, data, "dice.toml")
        return err.value.line()

    assert error({"dice": {}}) == "dice.toml: dice.bonus: missing (expected added to every roll)"
    assert error({"dice": {"bonus": 1.5}}) == "dice.toml: dice.bonus: got 1.5 (expected an integer)"
    assert error({"dice": {"bonus": True}}) == "dice.toml: dice.bonus: got True (expected an integer)"
    assert error({"dice": {"bonus": 1, "scale": -1}}) == "dice.toml: dice.scale: got -1 (expected a value >= 0)"
    assert error({"dice": {"bonus": 1}, "readings": {"ties": "draw"}}) == \
        "dice.toml: readings.ties: got 'draw' (expected one of ['attacker', 'defender', 'reroll'])"
    assert error({"dice": {"bonus": 1}, "readings": {"exploding": 1}}) == \
        "dice.toml: readings.exploding: got 1 (expected one of [True, False])"
    with pytest.raises(ValueError, match="default 'x' is not one of"):
        switch("readings.z", ("a", "b"), "x", "z")


def test_the_kernel_struct_is_made_from_the_declaration_and_filled_by_name():
    assert list(kernel_fields(Dice)) == ["faces", "bonus", "scale", "exploding", "cautious", "ties", "malus"]
    assert "label" not in kernel_fields(Dice) and specs(Dice)["label"].how == "computed"
    faces = np.arange(1, 7, dtype=np.int8)
    a = Dice(faces=faces, label="d6", **read_entries(Dice, DATA, "x"))
    b = DiceSwapped(faces=faces, label="d6", **read_entries(DiceSwapped, DATA, "x"))
    one = to_kernel(kernel_struct("DiceT", __name__, Dice, extra=("sides",)), a, sides=6)
    two = to_kernel(kernel_struct("DiceT2", __name__, DiceSwapped, extra=("sides",)), b, sides=6)
    assert one._fields != two._fields  # declared in another order ...
    for name in one._fields:           # ... the same values under the same names
        assert np.array_equal(getattr(one, name), getattr(two, name)), name
    assert one.faces.dtype == np.int64 and one.malus == 1 and one.ties == 2 and one.cautious is True
    with pytest.raises(TypeError, match=r"missing \['sides'\]"):
        to_kernel(kernel_struct("DiceT3", __name__, Dice, extra=("sides",)), a)
    with pytest.raises(ValueError, match="declared twice"):
        kernel_struct("DiceT4", __name__, Dice, DiceSwapped)


def test_panzerblitz_combat_movement_and_unit_structs_come_from_their_declarations():
    from simulator.rulesets.panzerblitz.combat import CombatTables
    from simulator.rulesets.panzerblitz.movement import MovementTables
    from simulator.rulesets.panzerblitz.tables import CombatT, MoveT, UnitT
    from simulator.rulesets.panzerblitz.units import UnitTypes

    assert CombatT._fields == tuple(kernel_fields(CombatTables)) and len(CombatT._fields) == 33
    assert UnitT._fields == (*kernel_fields(UnitTypes), "cp_within", "card_indirect")
    assert MoveT._fields == tuple(kernel_fields(MovementTables)) and len(MoveT._fields) == 20  # + least_assault_step (round 9), side_step, assault_step (round 10)
    assert kernel_fields(CombatTables)["halving"] == "hill_halving"


def test_every_reading_of_the_ruleset_data_is_declared_once():
    """Each key of readings.toml is a switch or entry of the combat or movement declaration, or
    read by the unit compiler (named here): none is read twice or forgotten."""
    from simulator.ruleset import RULESETS_DIR
    from simulator.rulesets.panzerblitz.combat import CombatTables
    from simulator.rulesets.panzerblitz.movement import MovementTables

    with open(RULESETS_DIR / "panzerblitz" / "readings.toml", "rb") as fh:
        readings = set(tomllib.load(fh)["readings"])
    declared = [s.source.removeprefix("readings.") for cls in (CombatTables, MovementTables)
                for s in specs(cls).values() if s.source.startswith("readings.")]
    assert len(declared) == len(set(declared))
    elsewhere = {"intensive_fire_classes"}  # units.py
    assert readings == set(declared) | elsewhere
