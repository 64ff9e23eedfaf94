"""Situation files: the twelve built-ins load, and every kind of mistake gets a clear line."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulator.cli import main as cli_main
from simulator.errors import DataError, DataErrors
from simulator.situation import builtin_situations, check_file, load_situation

PB01 = Path(__file__).resolve().parents[2] / "situations" / "pb-01.toml"
LINE = re.compile(r"^(?P<file>[^:]+): (?P<field>[^:]+): (?P<problem>.+?)( \(expected (?P<expected>.+)\))?$")


def test_twelve_builtin_situations_load():
    paths = builtin_situations()
    assert [p.stem for p in paths] == [f"pb-{n:02d}" for n in range(1, 13)]
    for p in paths:
        sit = load_situation(p)
        assert sit.ruleset.name == "panzerblitz"
        assert {s.name for s in sit.sides} == {"german", "russian"}
        assert all(len(g.hexes) > 0 or "with_unit" in g.area for s in sit.sides for g in s.groups)


def test_situation_1_carries_the_qa_erratum():
    # PB-SIT-1: three German units destroyed is a Russian decisive victory.
    sit = load_situation("pb-01")
    assert sit.side("german").victory["decisive"] == 3
    assert sit.side("german").victory["compare"] == "<="


def test_situation_7_uses_the_card_entries():
    sit = load_situation("pb-07")
    rus = sit.side("russian").groups[0]
    assert [sit.map.labels[h] for h in rus.hexes] == ["3Q1"]
    assert rus.road_march == {"toward": "1Q10", "hexes_per_turn": 12, "stop_within": 3}


def test_unit_totals_match_the_source_counts():
    # Situation 9's Russians have three 120mm mortars (PB-SIT-9), Situation 12's Germans four wagons.
    assert load_situation("pb-09").side("russian").unit_totals()["120mm-mortar-russian"] == 3
    assert load_situation("pb-12").side("german").unit_totals()["wagon"] == 4


def write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def variant(tmp_path: Path, old: str, new: str) -> list[DataError]:
    text = PB01.read_text()
    assert old in text, old
    return check_file(write(tmp_path, text.replace(old, new, 1)))


def only(errors: list[DataError]) -> DataError:
    assert len(errors) == 1, [e.line() for e in errors]
    e = errors[0]
    assert LINE.match(e.line()), e.line()
    return e


def test_unknown_unit_type_suggests_close_names(tmp_path):
    e = only(variant(tmp_path, "t-34-c = 3", "t-34c = 3"))
    assert e.field.endswith(".units.t-34c")
    assert "'t-34-c'" in e.expected


def test_unit_of_the_wrong_side(tmp_path):
    e = only(variant(tmp_path, "t-34-c = 3", "panther-g = 3"))
    assert "german unit in the russian forces" in e.problem


# Situation 1's first command post: on a full hilltop of Hill 129 of its player's choice (PB-SIT-1).
CP1_SETUP = 'setup = { region = "Hill 129", terrain = ["hilltop"], hexsides = { orange = 6 } }'
CP2_SETUP = 'setup = { region = "Hill 132", terrain = ["hilltop"], hexsides = { orange = 6 } }'


def test_hex_off_the_map(tmp_path):
    e = only(variant(tmp_path, CP1_SETUP, 'setup = { hexes = ["2G17"] }'))
    assert e.field == "side[german].group[0].setup.hexes[0]"
    assert "not on this map" in e.problem


def test_hex_on_a_board_not_in_the_layout(tmp_path):
    e = only(variant(tmp_path, CP1_SETUP, 'setup = { hexes = ["4G7"] }'))
    assert "not on this map" in e.problem


def test_empty_setup_area(tmp_path):
    e = only(variant(tmp_path, 'setup = { boards = ["2"] }', 'setup = { boards = ["2"], terrain = ["pond"] }'))
    assert "contains no usable hex" in e.problem


def test_fixed_setup_that_breaks_the_stacking_limit(tmp_path):
    errors = variant(tmp_path, f'units = {{ command-post = 1 }}\n{CP1_SETUP}',
                     'units = { command-post = 1, security-platoon-german = 3 }\nsetup = { hexes = ["2G7"] }')
    e = only(errors)
    assert "puts 4 units on 2G7" in e.problem and "PB-STACK-1" in e.expected


def test_two_fixed_groups_on_one_hex_are_added_up(tmp_path):
    text = PB01.read_text().replace(CP1_SETUP, 'setup = { hexes = ["2G7"] }', 1)
    text = text.replace(f'units = {{ command-post = 1 }}\n{CP2_SETUP}',
                        'units = { command-post = 1, 88mm-at = 2 }\nsetup = { hexes = ["2G7"] }', 1)
    errors = check_file(write(tmp_path, text))
    # 2G7 now holds CP 1 and CP 2 + 2 guns: 4 units.
    assert "puts 4 units on 2G7" in only(errors).problem


def test_area_too_small_for_its_units(tmp_path):
    e = only(variant(tmp_path, 'setup = { boards = ["2"] }', 'setup = { hexes = ["2A1", "2A2"] }'))
    assert "cannot set up in 2 hexes" in e.problem


def test_victory_condition_naming_an_unknown_board(tmp_path):
    text = PB01.read_text().replace(
        'measure = "destroyed"\nwhose = "own"',
        'measure = "in_area"\nwhose = "own"\narea = { boards = ["5"] }')
    e = only(check_file(write(tmp_path, text)))
    assert e.field == "side[german].victory.area.boards[0]"
    assert "not in this situation's layout" in e.problem


def test_victory_condition_naming_an_unknown_hex(tmp_path):
    text = PB01.read_text().replace(
        'measure = "destroyed"\nwhose = "own"',
        'measure = "hexes_controlled"\nwhose = "own"\nhexes = ["2G7", "2Q99"]')
    e = only(check_file(write(tmp_path, text)))
    assert "2Q99" in e.problem


def test_victory_levels_out_of_order(tmp_path):
    e = only(variant(tmp_path, "marginal = 8", "marginal = 13"))
    assert "out of order" in e.problem


def test_unknown_measure(tmp_path):
    e = only(variant(tmp_path, 'measure = "destroyed"', 'measure = "destroy"'))
    assert e.field == "side[russian].victory.measure"


@pytest.mark.parametrize("old,new,field", [
    ("turns = 10", 'turns = "ten"', "turns"),
    ("turns = 10", "turns = 0", "turns"),
    ('moves_first = "russian"', 'moves_first = "soviet"', "moves_first"),
    ("marginal = 8", 'marginal = "eight"', "side[russian].victory.marginal"),
    ('enter = { turn = 1, edge = "any" }', 'enter = { turn = 11, edge = "any" }', "side[russian].group[0].enter.turn"),
    ('enter = { turn = 1, edge = "any" }', 'enter = { turn = 1, edge = "up" }', "side[russian].group[0].enter.edge"),
    ("t-34-c = 3", "t-34-c = 0", "side[russian].group[0].units.t-34-c"),
    ('layout = [["1"], ["2"], ["3"]]', 'layout = [["1"], ["2"], ["7"]]', "map.layout[2][0]"),
    ('ruleset = "panzerblitz"', 'ruleset = "panzerblits"', "ruleset"),
    ('title = "Russian', 'titel = "Russian', "titel"),
])
def test_wrong_values_and_types(tmp_path, old, new, field):
    errors = variant(tmp_path, old, new)
    assert errors, "the change must be reported"
    assert any(e.field == field for e in errors), [e.line() for e in errors]
    for e in errors:
        assert LINE.match(e.line())
        assert e.file.endswith("s.toml")


def test_missing_field(tmp_path):
    errors = variant(tmp_path, "turns = 10\n", "")
    assert [e.field for e in errors] == ["turns"]


def test_syntax_error_names_the_line(tmp_path):
    e = only(check_file(write(tmp_path, "id = \n")))
    assert e.field == "(syntax)" and "line 1" in e.problem


def test_override_of_an_unknown_key_lists_close_keys(tmp_path):
    text = PB01.read_text() + '\n[overrides]\n"units.t-34-c.atack" = 5\n'
    e = only(check_file(write(tmp_path, text)))
    assert "units.t-34-c.attack" in e.expected


def test_override_of_the_wrong_type(tmp_path):
    text = PB01.read_text() + '\n[overrides]\n"units.t-34-c.attack" = "strong"\n'
    e = only(check_file(write(tmp_path, text)))
    assert "an integer" in e.expected


def test_override_is_applied():
    sit = load_situation("pb-01", {"units.t-34-c.attack": 5, "stacking.limit.russian": 3})
    assert sit.ruleset.units["t-34-c"]["attack"] == 5
    from simulator.rulesets.panzerblitz.stacking import stacking_limit

    assert stacking_limit(sit.ruleset, "russian") == 3
    assert load_situation("pb-01").ruleset.units["t-34-c"]["attack"] != 5  # no leak


def test_cli_validate_exit_status_and_lines(tmp_path, capsys):
    bad = write(tmp_path, PB01.read_text().replace("t-34-c = 3", "t-34c = 3"), "bad.toml")
    assert cli_main(["validate", str(PB01)]) == 0
    assert cli_main(["validate", str(PB01), str(bad)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("pb-01.toml: ok")
    assert out[2].startswith(f"{bad}: side[russian].group[0].units.t-34c: unknown unit type (expected")


def test_cli_list_shows_the_twelve(capsys):
    assert cli_main(["list"]) == 0
    out = capsys.readouterr().out
    for n in range(1, 13):
        assert f"pb-{n:02d}" in out
    assert "Battle of Prochorovka" in out


# ------------------------------------------------------------------ fuzzing the loader

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 200), st.floats(allow_nan=False, width=32),
                    st.text(max_size=8), st.lists(st.integers(0, 3), max_size=3),
                    st.dictionaries(st.sampled_from(["unit", "hexes", "x"]), st.integers(0, 4), max_size=2))


def _paths(doc, prefix=()):
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield (*prefix, k)
            yield from _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield (*prefix, i)
            yield from _paths(v, (*prefix, i))


BASE = tomllib.loads(PB01.read_text())
ALL_PATHS = list(_paths(BASE))


def _to_toml(v) -> str:
    import json
    if v is None:
        return '""'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_to_toml(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {_to_toml(x)}" for k, x in v.items()) + " }"
    raise TypeError(v)


def _dump(doc: dict) -> str:
    """Whole document as TOML using inline tables only (enough for the fuzzer)."""
    return "\n".join(f"{_to_toml(str(k))} = {_to_toml(v)}" for k, v in doc.items()) + "\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(ALL_PATHS), new=SCALARS, delete=st.booleans())
def test_malformed_documents_give_clean_errors(tmp_path, path, new, delete):
    import copy
    doc = copy.deepcopy(BASE)
    node = doc
    for p in path[:-1]:
        node = node[p]
    last = path[-1]
    if delete and isinstance(node, dict):
        del node[last]
    elif new is not None:
        node[last] = new
    f = tmp_path / "fuzz.toml"
    f.write_text(_dump(doc))
    errors = check_file(f)  # must never raise
    for e in errors:
        assert isinstance(e, DataError)
        assert LINE.match(e.line()), e.line()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=200))
def test_garbage_files_give_clean_errors(tmp_path, data):
    f = tmp_path / "garbage.toml"
    f.write_bytes(data)
    for e in check_file(f):
        assert isinstance(e, DataError)


def test_load_situation_raises_all_problems_at_once(tmp_path):
    text = PB01.read_text().replace("t-34-c = 3", "t-34c = 3").replace(CP1_SETUP, 'setup = { hexes = ["2G77"] }')
    with pytest.raises(DataErrors) as exc:
        load_situation(write(tmp_path, text))
    assert len(exc.value.errors) == 2


def test_the_documented_example_is_valid(tmp_path):
    doc = (Path(__file__).resolve().parents[2] / "docs" / "situation-format.md").read_text()
    example = doc.split("```toml\n", 1)[1].split("```", 1)[0]
    assert check_file(write(tmp_path, example, "example.toml")) == []
    sit = load_situation(tmp_path / "example.toml")
    assert sit.ruleset.units["88mm-at"]["range"] == 16


def test_a_side_name_that_is_no_side_is_reported_once_and_not_echoed_in_fields(tmp_path):
    # Found by the fuzzer: a side named ":" gave fields "side[:]..." that no reader could split.
    errors = check_file(write(tmp_path, PB01.read_text().replace('name = "russian"', 'name = ":"', 1)))
    assert any(e.field == "side" and "exactly one [[side]]" in e.line() for e in errors)
    assert all(LINE.match(e.line()) and "side[:]" not in e.line() and "the : forces" not in e.line() for e in errors)
