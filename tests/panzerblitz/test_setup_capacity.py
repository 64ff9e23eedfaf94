"""Set-up that cannot place a unit is never silent (issue 16): an area too small for its units
whatever the placements is refused on loading (setup_capacity.py); a unit left without a hex in
play is lost at set-up, logged, counted in the tables and warned about, and never enters later."""

from __future__ import annotations

import re

import numpy as np
import pytest

from simulator.cli import main
from simulator.errors import DataErrors
from simulator.rulesets.panzerblitz.batch import play_games, prepare
from simulator.rulesets.panzerblitz.events import EV_ENTER, EV_SETUP_FAILED
from simulator.rulesets.panzerblitz.players.spec import parse_side_policies
from simulator.rulesets.panzerblitz.replay import describe, play
from simulator.rulesets.panzerblitz.state import NOT_PLACED, ON_MAP
from simulator.situation import SITUATIONS_DIR, builtin_situations, check_file, load_situation

PB01 = (SITUATIONS_DIR / "pb-01.toml").read_text()
HEAD, GERMAN = PB01.split('[[side]]\nname = "german"')
VICTORY = GERMAN[GERMAN.index("[side.victory]"):]


def german(groups: str, tmp_path, name="variant.toml"):
    """pb-01 with these German groups (TOML) instead of the card's."""
    path = tmp_path / name
    path.write_text(HEAD + '[[side]]\nname = "german"\n' + groups + "\n" + VICTORY)
    return path


# The case: three CPs in forts in Bednost's three hexes, and nine units in the town.
TOWN = """
[[side.group]]
name = "CP 1"
units = { command-post = 1, fort-40 = 1 }
setup = { hexes = ["2U5"] }

[[side.group]]
name = "CP 2"
units = { command-post = 1, fort-40 = 1 }
setup = { hexes = ["2U6"] }

[[side.group]]
name = "CP 3"
units = { command-post = 1, fort-40 = 1 }
setup = { hexes = ["2V6"] }

[[side.group]]
name = "Town garrison"
units = { security-platoon-german = 3, engineer-platoon-german = 2, smg-platoon-german = 2, 88mm-at = 2 }
setup = { region = "Bednost" }

[[side.group]]
name = "Flak and obstacles"
units = { 50mm-at = 2, 20mm-aa = 2, 20mm_4-aa = 1, block = 4, minefield = 4 }
setup = { boards = ["2"] }
"""


def test_every_builtin_situation_has_room_for_its_set_up():
    for path in builtin_situations():
        assert check_file(path) == [], path.stem


def test_town_too_small_is_refused_naming_the_group_units_area_and_why(tmp_path):
    path = german(TOWN, tmp_path)
    problems = check_file(path)
    assert len(problems) == 1
    p = problems[0]
    assert p.file == str(path) and p.field == "side[german].group[3].setup"
    assert "'Town garrison'" in p.problem and "88mm-at x2" in p.problem and "smg-platoon-german x1" in p.problem
    assert "Bednost" in p.problem and "3 hexes" in p.problem and "PB-STACK-1" in p.problem
    assert "'CP 1', 'CP 2', 'CP 3'" in p.problem  # the groups that take the room
    assert main(["validate", str(path)]) == 1
    with pytest.raises(DataErrors):
        load_situation(path)


def test_eight_units_in_the_town_fit(tmp_path):
    path = german(TOWN.replace("88mm-at = 2", "88mm-at = 1").replace("smg-platoon-german = 2",
                                                                       "smg-platoon-german = 0"), tmp_path)
    # a count of 0 is itself an error; with one SMG platoon the town holds 3 CPs + 6 units
    assert any(p.field.endswith("smg-platoon-german") for p in check_file(path))
    path = german(TOWN.replace("88mm-at = 2", "88mm-at = 0").replace(
        "smg-platoon-german = 2, 88mm-at = 0", "smg-platoon-german = 1"), tmp_path, "fits.toml")
    assert check_file(path) == []


def test_terrain_closed_to_a_units_class_is_named(tmp_path):
    sit = load_situation("pb-01")
    m = sit.map
    road = ((m.side_features & m.side_bit("road")) != 0).any(axis=1)
    swamp = [m.labels[h] for h in np.flatnonzero(m.has_feature("swamp") & ~road) if m.labels[h].startswith("1")]
    assert swamp, "board 1 has swamp hexes off the road"
    groups = TOWN.split("[[side.group]]\nname = \"Town garrison\"")[0] + f"""
[[side.group]]
name = "Tanks in the swamp"
units = {{ pzkw-iv-h = 1 }}
setup = {{ hexes = ["{swamp[0]}"] }}
"""
    problems = check_file(german(groups, tmp_path))
    assert len(problems) == 1 and "closed to its units by terrain (PB-TEC-1)" in problems[0].problem


def test_minefields_need_a_hex_each(tmp_path):
    groups = """
[[side.group]]
name = "CP"
units = { command-post = 1 }
setup = { hexes = ["2G7"] }

[[side.group]]
name = "Mines"
units = { minefield = 3 }
setup = { hexes = ["2A1", "2A2"] }
"""
    problems = check_file(german(groups, tmp_path))
    assert len(problems) == 1 and "minefield x1 (one to a hex)" in problems[0].problem


# A case only play can decide: forts that set up "with a command post", one more than the CPs
# can take (each hex holds one fort): the last fort finds no hex in every game.
EXTRA_FORT = PB01.replace('''[[side.group]]
name = "286th Sec. Rgt.''', '''[[side.group]]
name = "Fort 4"
units = { fort-40 = 1 }
setup = { with_unit = "command-post" }

[[side.group]]
name = "286th Sec. Rgt.''')


@pytest.fixture(scope="module")
def extra_fort(tmp_path_factory):
    path = tmp_path_factory.mktemp("fort") / "extra-fort.toml"
    path.write_text(EXTRA_FORT)
    return path


def test_a_unit_without_a_hex_in_play_is_lost_at_setup_and_never_enters(extra_fort):
    assert check_file(extra_fort) == []  # nothing static to see: the CPs' hexes are chosen in play
    t = prepare(load_situation(extra_fort))
    for pairing in (("random", "random"), ("heuristic", "heuristic")):
        rec = play(t, 3, pairing)
        st = rec.state
        lost = np.flatnonzero(st.status == NOT_PLACED)
        assert [t.units.names[st.utype[u]] for u in lost] == ["fort-40"]
        events = rec.events
        assert [int(e[3]) for e in events if e[2] == EV_SETUP_FAILED] == list(lost)
        assert not any(e[2] == EV_ENTER and e[3] in lost for e in events)  # never "enters" later
        text = "\n".join(describe(rec, t))
        assert re.search(r"Ger fort-40#\d+ LOST AT SET-UP", text)
        # every other German counter is on the map (or was, before the Russians hit it)
        german = (st.side == 0) & (st.status != NOT_PLACED)
        assert (st.snap_status[0][german] == ON_MAP).all()


def test_lost_at_setup_is_in_the_tables_summary_and_report(extra_fort, tmp_path, capsys):
    sit = load_situation(extra_fort)
    g, turns, _ = play_games(prepare(sit), [1, 2], parse_side_policies(["random"], sit.ruleset.sides))
    assert list(g["lost_at_setup_german"]) == [1, 1] and list(g["lost_at_setup_russian"]) == [0, 0]
    assert list(g["lost_at_setup:german:fort-40"]) == [1, 1]
    assert (turns["units_lost_at_setup"] == 0).all()  # forts do not count for victory (PB-VIC-4)
    out = tmp_path / "run"
    assert main(["run", str(extra_fort), "--games", "3", "--workers", "1", "--policy", "random",
                 "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "warning: in 3 of 3 games german counters found no legal set-up hex" in err and "fort-40" in err
    import json

    summary = json.loads((out / "summary.json").read_text())
    assert summary["lost_at_setup"] == {"german": {"games": 3, "mean": 1.0, "units": {"fort-40": 1.0}}}
    assert "Units lost at set-up" in (out / "report.html").read_text()
