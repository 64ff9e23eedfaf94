"""Overrides of situation fields (`--set situation.…`): applied before the checks, clear errors."""

from __future__ import annotations

import pytest

from simulator.errors import DataError, DataErrors
from simulator.overrides import leaf_keys, normalize, split_sets
from simulator.rulesets.panzerblitz.players.spec import parse_side_policies
from simulator.runner import run
from simulator.situation import load_situation


def problem(sets: dict, count: int = 1) -> DataError:
    with pytest.raises(DataErrors) as info:
        load_situation("pb-01", sets)
    assert len(info.value.errors) == count, info.value
    return info.value.errors[0]


def test_split_and_normalize():
    sit_sets, rules = split_sets({"situation.side[german].group[6].units.88mm-at": 1, "units.t-34-c.attack": 5})
    assert sit_sets == {"side.german.group.6.units.88mm-at": 1}
    assert rules == {"units.t-34-c.attack": 5}
    assert normalize('side["german"].group[0]') == "side.german.group.0"


def test_leaf_keys_name_sides_and_index_groups():
    from simulator.ruleset import read_toml
    from simulator.situation import find_situation

    keys = leaf_keys(read_toml(find_situation("pb-01")))
    assert keys["turns"] == 10
    assert keys["side.german.victory.marginal"] == 7
    assert keys["side.german.group.0.setup.region"] == "Hill 129"
    assert keys["side.russian.group.0.units.t-34-c"] == 3
    # A group goes by index even when its name would do as a key.
    doc = {"side": [{"name": "german", "group": [{"name": "cp", "units": {"command-post": 1}}]}]}
    assert list(leaf_keys(doc)) == ["side.german.name", "side.german.group.0.name", "side.german.group.0.units.command-post"]


def test_turns_victory_and_forces_change():
    sit = load_situation("pb-01", {"situation.turns": 7, "situation.side.russian.victory.marginal": 9,
                                   "situation.side[german].group[6].units.88mm-at": 3,
                                   "situation.side.german.group.6.units.50mm-at": 0,
                                   "situation.side.german.group.6.units.75mm-at": 1,
                                   "situation.side.german.group.6.setup.rows": "1-5"})
    assert sit.turns == 7
    assert sit.side("russian").victory["marginal"] == 9
    units = sit.side("german").groups[6].units
    assert units["88mm-at"] == 3 and "50mm-at" not in units and units["75mm-at"] == 1
    assert sit.side("german").groups[6].area["rows"] == "1-5"
    # The overrides are part of the record of the run.
    assert sit.overrides["situation.turns"] == 7
    # The file itself is untouched.
    assert load_situation("pb-01").turns == 10


def test_ruleset_keys_keep_working_beside_situation_keys():
    sit = load_situation("pb-01", {"units.t-34-c.attack": 20, "situation.turns": 9})
    assert sit.ruleset.units["t-34-c"]["attack"] == 20 and sit.turns == 9


def test_unknown_key_lists_the_closest():
    e = problem({"situation.turn": 8})
    assert e.file == "--set" and e.problem == "no such situation entry"
    assert "situation.turns" in e.expected
    e = problem({"situation.side.germn.victory.marginal": 3})
    assert "situation.side.german.victory.marginal" in e.expected
    e = problem({"situation.side.german.group.9.units.fort-40": 1})
    assert "no such situation entry" in e.problem and "group.1.units.fort-40" in e.expected


def test_unknown_area_filter_and_table_targets():
    e = problem({"situation.side.german.group.6.setup.rowz": "1-3"})
    assert e.problem == "no such area filter" and "'rows'" in e.expected
    e = problem({"situation.side.german.victory": 3})
    assert e.problem == "is a table, not one value"


def test_unprefixed_situation_key_points_to_the_prefix():
    e = problem({"turns": 8})
    assert e.problem == "no such ruleset entry" and "'situation.turns'" in e.expected


@pytest.mark.parametrize("key, value, expected", [
    ("situation.turns", "eight", "a whole number"),
    ("situation.turns", 8.0, "a whole number"),
    ("situation.side.german.group.6.units.88mm-at", -1, "whole number >= 0"),
    ("situation.side.german.group.6.units.88mm-at", True, "whole number >= 0"),
    ("situation.side.german.victory.compare", 3, "a string"),
    ("situation.side.german.group.6.setup.boards", "2", "a list"),
    ("situation.side.german.group.6.units.75mm-at", "two", "whole number >= 0"),  # a new unit type
    ("situation.side.german.victory.marginal", "7", "a whole number"),
])
def test_wrong_type_says_what_is_expected(key, value, expected):
    e = problem({key: value})
    assert e.problem == f"got {value!r}" and expected in e.expected


def test_result_goes_through_every_check():
    # Out-of-order levels, a unit of the other side, an unknown unit type: the file's own checks.
    e = problem({"situation.side.german.victory.marginal": 1})
    assert e.file.endswith("pb-01.toml with --set") and "out of order" in e.problem
    e = problem({"situation.side.german.group.6.units.t-34-c": 2})
    assert "a russian unit in the german forces" in e.problem
    e = problem({"situation.side.german.group.6.units.tiger": 2})
    assert "tiger-i" in e.expected
    e = problem({"situation.turns": 0})  # issue 16: no follow-on "entry turn 1..0" error
    assert e.field == "turns"


def test_fewer_turns_make_shorter_games():
    sit = load_situation("pb-01", {"situation.turns": 3})
    res = run(sit, 4, 1, parse_side_policies(["random"], sit.ruleset.sides), workers=1, progress=False)
    assert set(res.games["turns_played"]) == {3}
    assert res.turns["turn"].max() == 3
