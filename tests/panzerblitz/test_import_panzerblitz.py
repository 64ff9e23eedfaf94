"""The importer of the PanzerBlitz source data (tools/import_panzerblitz.py): the situation files
are what it writes, and it refuses a source that lists a unit type twice in a group (issue 21:
it used to keep the last line, which made Situation 12's 122 mm howitzers 3)."""

from __future__ import annotations

import copy
import importlib
import json
import sys
from pathlib import Path

import pytest

from simulator.errors import DataError
from simulator.ruleset import load_ruleset

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT.parent / "shared" / "data" / "panzerblitz"

pytestmark = pytest.mark.skipif(not SOURCE.is_dir(), reason=f"the source data {SOURCE} is not beside the clone")


@pytest.fixture(scope="module")
def importer():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        return importlib.import_module("import_panzerblitz")
    finally:
        sys.path.remove(str(ROOT / "tools"))


@pytest.fixture(scope="module")
def ruleset():
    return load_ruleset("panzerblitz")


def source(n: int) -> dict:
    return json.loads((SOURCE / "situations" / f"situation-{n:02d}.json").read_text())


def test_situation_files_are_what_the_importer_writes(importer, ruleset):
    # Every correction of the cards lives in the importer (with its sources): the files are its output.
    for n in range(1, 13):
        text = importer.import_situation(SOURCE / "situations" / f"situation-{n:02d}.json", ruleset)
        assert text == (ROOT / "situations" / f"pb-{n:02d}.toml").read_text(), f"pb-{n:02d}"


def test_importer_refuses_a_duplicated_unit_line(importer, ruleset, tmp_path):
    s = source(3)
    side = next(i for i, x in enumerate(s["sides"]) if x["army"] == "german")
    units = s["sides"][side]["groups"][0]["units"]
    units.append(copy.deepcopy(units[0]) | {"count": 7})
    bad = tmp_path / "situation-03.json"
    bad.write_text(json.dumps(s))
    with pytest.raises(DataError) as e:
        importer.import_situation(bad, ruleset)
    msg = str(e.value)
    assert str(bad) in msg and f"sides[german].groups[0].units[{len(units) - 1}].unit" in msg
    assert f"{units[0]['unit']!r} listed 2 times" in msg and "DUPLICATE_LINES" in msg


def test_situation_12_howitzer_lines_are_settled_and_rechecked(importer, ruleset, tmp_path):
    # The settled duplicate (OpenPanzerBlitz: 2 + 3 x 122 mm howitzer) imports as 2 ...
    assert "122mm-how = 2," in importer.import_situation(SOURCE / "situations" / "situation-12.json", ruleset)
    # ... and a source that no longer says 2 + 3 is refused, to be settled again.
    s = source(12)
    for g in s["sides"][[x["army"] for x in s["sides"]].index("russian")]["groups"]:
        for u in g["units"]:
            if u["unit"] == "122mm-how" and u["count"] == 3:
                u["count"] = 4
    changed = tmp_path / "situation-12.json"
    changed.write_text(json.dumps(s))
    with pytest.raises(DataError, match=r"counts \[2, 4\].*settled \[2, 3\]"):
        importer.import_situation(changed, ruleset)
