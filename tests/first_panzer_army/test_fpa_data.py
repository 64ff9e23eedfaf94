"""First Panzer Army (issue 19): the charts, the reconstructed map and the order of battle,
checked against the rules text before any engine exists.

Case numbers (FPA 2.1, 13.8.2, ...) refer to ../shared/seeds/001_72d1415d14ba6eee.txt; the
tables printed in its section 14.0 are parsed from that file and compared cell by cell with
situations/rulesets/first-panzer-army/*.toml.  Pure Python, a few seconds in all.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import sys
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULESET_DIR = ROOT / "situations" / "rulesets" / "first-panzer-army"
BOARD_FILE = RULESET_DIR / "boards" / "board-fpa.json"
SITUATION_FILE = ROOT / "situations" / "first-panzer-army" / "kamenets-podolsky.toml"
SEED = ROOT.parent / "shared" / "seeds" / "001_72d1415d14ba6eee.txt"
DIGEST = ROOT / "docs" / "first-panzer-army" / "rules-digest.md"

sys.path.insert(0, str(ROOT / "tools"))
import fpa_grid as grid  # noqa: E402
import fpa_mapgen  # noqa: E402

from simulator.errors import DataError  # noqa: E402
from simulator.ruleset import apply_overrides, leaf_paths  # noqa: E402

# Every hex number the rules print (FPA 2.1, 3.1, 3.2, 4.1, 8.2, 9.2, 10.1, example turn).
TEXT_HEXES = ["0805", "2607", "2603", "4004", "4513", "4612", "4613", "2807", "2908", "0729",
              "1729", "1101", "4729", "0101", "4628", "0113", "1319", "2118", "2120", "2218",
              "2119", "2219", "2019", "2018", "2020", "2122", "2121", "1918", "1919", "1920",
              "2017", "1819", "2117"]

# The example turn's moves, probes, attacks and retreats: (from, to) pairs that must be
# neighbours on the grid, with the case that makes them so.
EXAMPLE_STEPS = [
    ("2218", "2119", "13.0: the stack in 2218 attacks 9 Mech in 2119 and advances into it"),
    ("2119", "2019", "13.9: 9 Mech retreats one hex to 2019"),
    ("2219", "2119", "13.4: KG in 2219 backs the attack on 2119 (within 2)"),
    ("2119", "2018", "13.6: 16 Pz and 509 probe from 2119 into 2018"),
    ("2120", "2020", "13.6: 11 Pz probes from 2120 into 2020"),
    ("2018", "1918", "12.0: 16 Pz moves to 1918"),
    ("1918", "1919", "7.2: and re-enters 9 Mech's ZOC in 1919"),
    ("2019", "1920", "13.9: 9 Mech's second retreat to 1920"),
    ("2019", "2120", "13.0: 208 Inf attacks 2019 from 2120"),
    ("2121", "2122", "168 Inf moves next to 7G"),
    ("2118", "2017", "13.6: 19 Pz probes from 2118 into 2017"),
    ("1919", "1819", "13.6: 16 Pz probes from 1919 into 1819"),
]


# ------------------------------------------------------------------------------ loading

def _toml(path: Path) -> dict:
    with open(path, "rb") as fh:
        return tomllib.load(fh)


@pytest.fixture(scope="module")
def rules() -> dict:
    """ruleset.toml with its table files merged, as simulator/ruleset.py merges them."""
    data = _toml(RULESET_DIR / "ruleset.toml")
    for fname in data["table_files"]:
        for key, table in _toml(RULESET_DIR / fname).items():
            assert key not in data, f"{fname}: table {key} defined twice"
            data[key] = table
    return data


@pytest.fixture(scope="module")
def board() -> dict:
    return json.loads(BOARD_FILE.read_text())


@pytest.fixture(scope="module")
def situation() -> dict:
    return _toml(SITUATION_FILE)


@pytest.fixture(scope="module")
def seed_lines() -> list[str]:
    assert SEED.exists(), f"the FPA rules seed is expected beside the repository: {SEED}"
    return SEED.read_text().splitlines()


def _table_rows(lines: list[str], title: str, n: int, first: int = 1) -> list[list[str]]:
    """The n tab-separated rows after the line holding `title` (first = rows to skip)."""
    i = next(k for k, ln in enumerate(lines) if title in ln)
    return [ln.split("\t") for ln in lines[i + first:i + first + n]]


def hexes_with(board: dict, feature: str) -> set[str]:
    return {h for h, rec in board["hexes"].items() if feature in rec["features"]}


def river_between(board: dict, a: str, b: str) -> str | None:
    d = grid.direction_to(a, b)
    return board["hexes"][a].get("side_info", {}).get(d, {}).get("river")


# ------------------------------------------------------------------------------ the grid (FPA 2.1)

def test_fpa_2_1_grid_has_47_columns_odd_29_even_28_hexes():
    assert grid.rows_in(47) == 29 and grid.rows_in(46) == 28
    assert len(grid.all_hexes()) == 24 * 29 + 23 * 28
    assert grid.on_grid(47, 29) and grid.on_grid(7, 29) and not grid.on_grid(46, 29)


def test_fpa_2_1_every_hex_the_text_names_is_on_the_board(board):
    for h in TEXT_HEXES:
        assert h in board["hexes"], h
    assert len(board["hexes"]) == len(grid.all_hexes())


def _adjacent_other_parity(a: str, b: str) -> bool:
    """Adjacency if the odd columns were the low ones (the opposite offset)."""
    (ca, ra), (cb, rb) = grid.parse(a), grid.parse(b)
    ya = ra + (0.5 if ca % 2 == 1 else 0.0)
    yb = rb + (0.5 if cb % 2 == 1 else 0.0)
    if ca == cb:
        return abs(ra - rb) == 1
    return abs(ca - cb) == 1 and abs(ya - yb) == 0.5


@pytest.mark.parametrize("a,b,why", EXAMPLE_STEPS)
def test_example_turn_moves_are_between_adjacent_hexes(a, b, why):
    assert grid.adjacent(a, b), why


def test_example_turn_forces_the_even_columns_low():
    # 2218 -> 2119 is only adjacent if the even columns sit half a hex lower (map.md).
    assert not _adjacent_other_parity("2218", "2119")
    assert sum(not _adjacent_other_parity(a, b) for a, b, _ in EXAMPLE_STEPS) >= 5


def test_core_geometry_agrees_when_the_map_column_is_the_fpa_column(board):
    """map.md, loader requirement 2: with map column = FPA column (offset 1) the core's
    assembler builds exactly the FPA neighbours and hexside features."""
    from simulator.mapdata import Board, BoardHex, assemble

    hexes = {}
    for h, rec in board["hexes"].items():
        c, r = grid.parse(h)
        sides = {grid.DIRECTIONS.index(d): frozenset(f) for d, f in rec.get("sides", {}).items()}
        hexes[(c, r - 1)] = BoardHex(h, c, r - 1, 0, frozenset(rec["features"]), sides)
    vocab = ("town", "fortified_locality", "forest", "rough", "marsh")
    svocab = ("river", "major_river")
    b = Board("fpa", BOARD_FILE, tuple(f"{c:02d}" for c in range(48)), 0, 0, hexes, {})
    gm = assemble([[(b, False)]], vocab, svocab)
    index = {lab: i for i, lab in enumerate(gm.labels)}
    for h in board["hexes"]:
        i = index[h]
        core = {grid.DIRECTIONS[d]: gm.labels[n] for d, n in enumerate(gm.neighbours[i]) if n >= 0}
        assert core == grid.neighbours(h), h
    river_bit = 1 << svocab.index("river")
    assert (gm.side_features[index["2218"], grid.DIRECTIONS.index("SW")] & river_bit) != 0


def test_hex_distance_matches_breadth_first_steps():
    for a, b in [("2219", "2019"), ("0101", "4729"), ("2218", "2119"), ("0805", "2607")]:
        seen, frontier, steps = {a}, [a], 0
        while b not in seen:
            frontier = sorted({n for h in frontier for n in grid.neighbours(h).values() if n not in seen})
            seen.update(frontier)
            steps += 1
        assert grid.distance(a, b) == steps


# ------------------------------------------------------------------------------ map: text facts

def test_fpa_2_1_3_1_4_1_named_towns_are_towns(board):
    vp_hexes = hexes_with(board, "town") | hexes_with(board, "fortified_locality")
    for h in ["2607", "0805", "2603", "4004", "4513", "4612", "4613"]:
        assert h in vp_hexes, h
    assert board["named"]["Vinnitsa"] == ["4513", "4612", "4613"]
    assert board["named"]["Proskurov"] == ["2607"] and board["named"]["Ternopol"] == ["0805"]
    for h in ["4513", "4612", "4613"]:
        assert board["hexes"][h]["src"] == "text"


def test_fpa_2_5_garrison_towns_are_towns_where_the_garrisons_set_up(board, situation):
    setup = {s["unit"]: s["hex"] for s in situation["side"][1]["setup"]}
    for place, garrison in [("Ternopol", "tg"), ("Kamenets-Podolsky", "kpg"), ("Khotyn", "khg"),
                            ("Chernovtsy", "cg")]:
        assert setup[garrison] == board["named"][place][0]
        assert board["places"][place]["kind"] in ("town", "fortified_locality")


def test_example_turn_hexside_2218_2119_is_a_river_and_2119_has_no_combat_terrain(board):
    # "modified left one column for the river" (13.8.3): all attackers across a river hexside.
    assert river_between(board, "2218", "2119") == "Smotrich"
    assert river_between(board, "2119", "2218") == "Smotrich"
    assert board["hexes"]["2218"]["side_info"]["SW"]["src"] == "text"
    # 2119 takes no terrain shift and its DR is applied: clear (not rough, town or FL).
    assert board["hexes"]["2119"]["features"] == []
    # 2019's DL1+DR retreat is applied: not a town or FL (OQ-FPA-13 reads it as rough).
    assert board["hexes"]["2019"]["features"] == ["rough"]


def test_fpa_8_2_9_2_10_1_4_1_edge_ranges(board):
    e = {k: v["hexes"] for k, v in board["edges"].items()}
    sup = e["soviet_supply"]
    assert sup[0] == "1101" and sup[-1] == "4729"
    assert set(sup) == {grid.label(c, 1) for c in range(11, 48)} | {grid.label(47, r) for r in range(1, 30)}
    cc = e["german_cc"]
    assert cc[0] == "0101" and cc[-1] == "4628" and "4729" not in cc
    south = {grid.label(c, grid.rows_in(c)) for c in range(1, 47)}
    assert set(cc) == {grid.label(1, r) for r in range(1, 30)} | south
    assert e["german_entry"] == [grid.label(1, r) for r in range(1, 14)]
    assert set(e["german_entry"]) <= set(cc)
    ex = e["soviet_exit"]
    assert ex[0] == "0729" and ex[-1] == "1729" and len(ex) == 11
    for h in ex:  # on the south edge: no hex beyond the S side
        assert grid.neighbour(h, "S") is None and 7 <= grid.parse(h)[0] <= 17


def test_fpa_12_5_no_go_area_is_west_of_strypa_and_north_of_dnestr(board, situation):
    region = set(board["regions"]["soviet_restricted"]["hexes"])
    assert set(board["edges"]["german_entry"]["hexes"]) <= region
    assert "0805" not in region  # Ternopol, east of the Strypa
    assert board["named"]["Buchach"][0] in region  # on the Strypa's west bank in the fit (map.md)
    for h in region:
        for n in grid.neighbours(h).values():
            if n not in region:
                assert river_between(board, h, n) in ("Strypa", "Dnestr"), (h, n)
    for s in situation["side"][0]["setup"]:
        assert s["hex"] not in region


def test_rivers_are_mirrored_and_marked(board):
    for h, rec in board["hexes"].items():
        assert rec["src"] in ("text", "fit", "estimate"), h
        for d, feats in rec.get("sides", {}).items():
            n = grid.neighbour(h, d)
            assert n is not None, (h, d)
            back = board["hexes"][n]["sides"][grid.DIRECTIONS[(grid.DIRECTIONS.index(d) + 3) % 6]]
            assert back == feats, (h, d)
            info = rec["side_info"][d]
            assert info["src"] in ("text", "fit")
            assert ("major_river" in feats) == (info["river"] in ("Dnestr", "Bug", "Prut")), (h, d)
    assert {r for r, v in board["rivers"].items() if v["plus_one_crossing"]} == {"Dnestr", "Bug", "Prut"}


def test_places_lie_on_the_right_bank_of_the_dnestr(board):
    # The generator refuses a board where they do not; this checks the committed one.
    north_of_dnestr = {"Proskurov", "Kamenets-Podolsky", "Zaleshchiki", "Mogilev-Podolsky", "Chortkov"}
    south_of_dnestr = {"Khotyn", "Chernovtsy", "Gorodenka"}
    for name in north_of_dnestr | south_of_dnestr:
        assert board["places"][name]["bank"] == ("north" if name in north_of_dnestr else "south")


def test_generator_rebuilds_the_committed_board_exactly():
    geo = _toml(fpa_mapgen.GEOGRAPHY)
    built, report = fpa_mapgen.build(geo)
    assert fpa_mapgen.render(built) == BOARD_FILE.read_text(), "run python tools/fpa_mapgen.py"
    assert report["fit"]["anchor_rms_hexes"] < 1.5


# ------------------------------------------------------------------------------ victory points (4.0-4.3)

def _vp_of_places(board: dict, holder: dict[str, str], rules: dict) -> int:
    v = rules["victory"]
    total = 0
    for name, p in board["places"].items():
        state = holder.get(name)
        if p["kind"] == "place" or state is None:
            continue
        n = len(p["hexes"])
        if state == "soviet":
            total += n * (v["fortified_locality_hex"] if p["kind"] == "fortified_locality" else v["town_hex"])
        elif state == "german_ooc":
            total += n * v["german_hex_out_of_cc_at_end"]
    return total


def test_fpa_3_1_start_vp_is_two(board, rules):
    start = set(rules["victory"]["start_control"]["soviet"])
    holder = {name: "soviet" for name, p in board["places"].items() if set(p["hexes"]) & start}
    assert _vp_of_places(board, holder, rules) == rules["victory"]["start_vp"] == 2


def test_fpa_4_0_historical_end_state_totals_31_a_draw(board, rules):
    holder = {name: p["vp_end"] for name, p in board["places"].items() if "vp_end" in p}
    hist = rules["victory"]["historical_end"]
    vp = (_vp_of_places(board, holder, rules)
          + min(hist["soviet_exits"], rules["victory"]["exit_max"]) * rules["victory"]["exit_per_corps"])
    assert hist["german_divisions_eliminated_out_of_cc"] == 0  # "all for territorial captures and unit exits"
    assert vp == rules["victory"]["historical_vp"] == 31
    t = rules["victory"]["thresholds"]
    assert t["draw_min"] <= vp <= t["draw_max"] and t["soviet_win"] == 32 and t["german_win_max"] == 27
    # every town and FL has an end state, so the calibration covers the whole VP map
    for name, p in board["places"].items():
        assert p["kind"] == "place" or "vp_end" in p, name


def test_fpa_4_1_vinnitsa_is_worth_three_and_an_fl_four(board, rules):
    assert _vp_of_places(board, {"Vinnitsa": "soviet"}, rules) == 3
    fl = next(n for n, p in board["places"].items() if p["kind"] == "fortified_locality")
    assert _vp_of_places(board, {fl: "soviet"}, rules) == 4


# ------------------------------------------------------------------------------ charts (14.0) vs the text

def test_fpa_14_0_crt_matches_the_text(rules, seed_lines):
    rows = _table_rows(seed_lines, "COMBAT RESULTS TABLE", 7)
    header = [c.strip() for c in rows[0][2:12]]
    assert header == ["< 1:2", *rules["crt"]["columns"], "> 7:1"]
    for cells in rows[1:]:
        die = cells[1].strip()
        assert rules["crt"]["rows"][die] == [c.strip() for c in cells[3:11]], die
    # the outer columns: "Automatic" over AL1 / DL1+DR (13.8.1)
    assert rows[3][2] == "Automatic" and rows[4][2] == "AL1" and rows[4][11] == "DL1+DR"
    assert rules["crt"]["below_table"] == "AL1" and rules["crt"]["above_table"] == "DL1+DR"
    assert set(itertools.chain(*rules["crt"]["rows"].values())) <= set(rules["crt"]["results"])


def test_fpa_14_0_weather_table_matches_both_printed_copies(rules, seed_lines):
    for title in ("Die I\tRolls", "Die F\tRolls"):
        rows = _table_rows(seed_lines, title, 7)
        for cells in rows:
            turn = cells[1].strip()
            assert rules["weather"]["table"][turn] == [c.strip().lower() for c in cells[2:8]], (title, turn)
    assert rules["weather"]["turn_1"] == "thaw"


def test_fpa_14_0_river_crossing_and_movement_factors_match_the_text(rules, seed_lines):
    rows = _table_rows(seed_lines, "RIVER CROSSING TABLE", 3)
    for cells in rows[1:]:
        cond = cells[0].strip().lower()
        assert rules["river_crossing"][cond] == [int(c) for c in cells[1:7]], cond
    rows = _table_rows(seed_lines, "MOVEMENT FACTORS TABLE", 4)
    for cells in rows[1:]:
        cond = cells[0].strip(" *").lower()
        assert rules["movement"]["factors"][cond] == {"non_mech": int(cells[1]), "mech": int(cells[2])}


def test_fpa_14_0_terrain_effects_match_the_text(rules, seed_lines):
    rows = _table_rows(seed_lines, "TERRAIN EFFECTS CHART", 7, first=3)
    cost = rules["terrain"]["move_cost"]
    for cells in rows:
        name = cells[1].strip().lower()
        if name in ("clear", "forest", "rough", "marsh", "town"):
            assert cost[name] == {"non_mech": int(cells[2]), "mech": int(cells[3])}, name
            shifted = "Shift Odds 1L" in cells[4] or "shift odds 1L" in cells[4]
            assert (rules["terrain"]["combat"][name]["shift"] == -1) == shifted, name
    fl = rules["terrain"]["combat"]["fortified_locality"]
    assert (fl["shift_german_defender"], fl["shift_soviet_defender"]) == (-2, -1)
    assert cost["fortified_locality"] == {"non_mech": 1, "mech": 1}
    assert rules["terrain"]["river"]["shift_if_all_attackers_across"] == -1


# ------------------------------------------------------------------------------ distributions

def test_fpa_5_2_air_superiority_marker_distribution(rules):
    a = rules["air"]
    assert (a["later_dice_each"], a["reroll_ties"], a["markers"]) == (2, True, "difference")
    two_d6 = [x + y for x in range(1, 7) for y in range(1, 7)]
    counts: dict[int, int] = {}
    for s, g in itertools.product(two_d6, two_d6):
        if s != g:
            counts[abs(s - g)] = counts.get(abs(s - g), 0) + 1
    total = sum(counts.values())
    p = {k: Fraction(v, total) for k, v in counts.items()}
    assert max(p) == a["max_markers"] == 10
    expected = [0.2435, 0.2174, 0.1809, 0.1391, 0.0974, 0.0609, 0.0348, 0.0174, 0.0070, 0.0017]
    for k, e in enumerate(expected, start=1):
        assert abs(float(p[k]) - e) < 6e-5, k
    assert abs(sum(k * float(v) for k, v in p.items()) - 3.09) < 0.01


def test_fpa_5_1_weather_distribution_per_turn(rules):
    table = rules["weather"]["table"]
    storms = sum(Fraction(row.count("storm"), 6) for row in table.values())
    thaws = 1 + sum(Fraction(row.count("thaw"), 6) for row in table.values())
    assert storms == 2 and thaws == Fraction(23, 6)
    assert table["8"].count("storm") == 0 and table["4"].count("storm") == 4


def test_fpa_12_3_expected_river_crossing_cost(rules):
    rc = rules["river_crossing"]

    def mean(cond: str, bonus: int) -> Fraction:
        return sum(Fraction(rc[cond][min(d + bonus, rc["roll_cap"]) - 1], 6) for d in range(1, 7))

    assert mean("thaw", 0) == Fraction(4, 3) and mean("thaw", 1) == Fraction(11, 6)
    assert mean("storm", 0) == Fraction(3, 2) and mean("storm", 1) == 2
    assert mean("frost", 1) == 0


# ------------------------------------------------------------------------------ the example turn's odds

def _column(rules: dict, attack: float, defence: float, shifts: int) -> str:
    """13.8 odds column after shifts, reading OQ-FPA-2 'final_odds' (ten columns)."""
    cols = ["<1:2", *rules["crt"]["columns"], ">7:1"]
    ratio = attack / defence
    raw = 0 if ratio < rules["odds"]["half_column_from"] else (1 if ratio < 1 else min(1 + math.floor(ratio), 9))
    return cols[max(0, min(len(cols) - 1, raw + shifts))]


def _result(rules: dict, column: str, die: int) -> str:
    if column == "<1:2":
        return rules["crt"]["below_table"]
    if column == ">7:1":
        return rules["crt"]["above_table"]
    return rules["crt"]["rows"][str(die)][rules["crt"]["columns"].index(column)]


def test_example_turn_first_attack_on_9_mech_is_2_to_1_and_dr_on_2_or_3(rules, board):
    u = rules["units"]
    attack = u["16-pz"]["attack"][0] + u["371-inf"]["attack"][0] + u["509-tiger"]["attack"][0]
    defence = u["9-mc"]["defense"][0]
    assert (attack, defence) == (8, 9)  # "The raw attack ratio is 8 to 9"
    # the three share 2218 at the end of a phase: within the German limit (6.1)
    steps = sum(u[k]["steps"] for k in ("16-pz", "371-inf", "509-tiger"))
    assert steps <= rules["stacking"]["german_steps"]
    assert _column(rules, attack, defence, 0) == "1:2"
    attack += rules["cas"]["factor_per_marker"]  # one air point: 9 to 9
    assert _column(rules, attack, defence, 0) == "1:1"
    river = rules["terrain"]["river"]["shift_if_all_attackers_across"] if river_between(board, "2218", "2119") else 0
    terrain = rules["terrain"]["combat"]["clear" if not board["hexes"]["2119"]["features"] else board["hexes"]["2119"]["features"][0]]["shift"]
    assert grid.distance("2219", "2119") <= rules["korpsgruppe"]["range"]
    shifts = river + terrain + rules["korpsgruppe"]["attack_shift"] + rules["tiger"]["attack_shift"]
    col = _column(rules, attack, defence, shifts)
    assert col == "2:1"  # "The final odds are 2:1"
    assert [d for d in range(1, 7) if _result(rules, col, d) == "DR"] == [2, 3]


def test_example_turn_second_attack_on_9_mech_is_concentric_3_to_1_and_a_1_is_dl1_dr(rules, board):
    u = rules["units"]
    attack = sum(u[k]["attack"][0] for k in ("16-pz", "509-tiger", "371-inf", "208-inf", "11-pz"))
    assert attack == 13  # "13 German CF"
    assert u["208-inf"]["attack"][0] + u["11-pz"]["attack"][0] == 5
    defence = u["9-mc"]["defense"][0]
    assert _column(rules, attack, defence, 0) == _column(rules, attack, 12, 0) == "1:1"  # 9 or 12 (OQ-FPA-5)
    # attackers in 1919 (16 Pz), 2018 (509), 2119 (371), 2120 (208), 2020 (11 Pz): five hexes
    attack_hexes = {"1919", "2018", "2119", "2120", "2020"}
    assert attack_hexes <= set(grid.neighbours("2019").values())
    assert set(grid.neighbours("2019").values()) - attack_hexes == {"1920"}  # "the only hex available"
    assert len(attack_hexes) >= rules["concentric"]["min_hexes_any_pattern"]
    feats = board["hexes"]["2019"]["features"]
    assert not set(feats) & set(rules["concentric"]["not_against"])
    assert grid.distance("2219", "2019") == 2  # the KG's range, its own hex not counted (13.4)
    terrain = rules["terrain"]["combat"][feats[0] if feats else "clear"]["shift"]
    shifts = rules["korpsgruppe"]["attack_shift"] + rules["concentric"]["german_shift"] + terrain
    col = _column(rules, attack, defence, shifts)
    assert col == "3:1"  # "gives a final odds ratio of 3:1" (with 2019 rough, OQ-FPA-13)
    assert _result(rules, col, 1) == "DL1+DR"


def test_example_turn_probes_enter_empty_hexes_in_soviet_zoc():
    # (probe target, Soviet units' hexes at that moment) — 13.6 needs a Soviet ZOC there.
    probes = [("2118", {"2119", "2117", "2121"}), ("2120", {"2119", "2117", "2121"}),
              ("2018", {"2019", "2117", "2121"}), ("2020", {"2019", "2117", "2121"}),
              ("2017", {"1920", "2117", "2121"}), ("1819", {"1920", "2117", "2121"})]
    for target, soviets in probes:
        assert target not in soviets
        assert any(grid.adjacent(target, s) for s in soviets), target


# ------------------------------------------------------------------------------ order of battle

def test_fpa_2_6_german_divisions_have_4_6_or_8_steps_and_9_ss_8(rules):
    for uid, u in rules["units"].items():
        assert len(u["attack"]) == len(u["defense"]) == u["steps"], uid
        assert u["attack"] == sorted(u["attack"], reverse=True), uid
        assert u["defense"] == sorted(u["defense"], reverse=True), uid
        assert u["counters"] == (u["steps"] + 1) // 2, uid
        if u["side"] == "german" and u["size"] == "XX" and uid != "18-art":
            assert u["steps"] in (4, 6, 8), uid
        if u["side"] == "soviet" or u["size"] != "XX":
            assert u["steps"] <= 2, uid  # 2.6: only German divisions have more than two steps
    assert rules["units"]["9-ss-pz"]["steps"] == 8


def test_fpa_2_7_four_static_garrisons_never_attack(rules):
    garrisons = {k: u for k, u in rules["units"].items() if u["class"] == "static"}
    assert sorted(u["label"] for u in garrisons.values()) == ["CG", "KPG", "KhG", "TG"]
    assert all(u["attack"] == [0] and u.get("garrison") for u in garrisons.values())


def test_fpa_11_1_rifle_corps_are_1_1_reduced(rules):
    rifle = [u for u in rules["units"].values() if u.get("rifle_corps")]
    assert rifle and all(u["attack"][-1] == 1 and u["defense"][-1] == 1 and u["steps"] == 2 for u in rifle)


def test_units_the_text_names_are_all_there(rules):
    labels = {(u["side"], u["label"]) for u in rules["units"].values()}
    for side, lab in [("german", x) for x in ("1SS", "2SS", "9SS", "10SS", "11", "16", "19", "96", "168",
                                               "208", "291", "371", "100J", "509", "18")] + \
                     [("soviet", x) for x in ("9M", "7G", "6G", "3GM")]:
        assert (side, lab) in labels, lab
    assert rules["units"]["3-gm"].get("rocket") and rules["units"]["18-art"]["support_range"] == 2
    assert rules["units"]["18-art"]["class"] == "mech"  # 13.1: a non-artillery mechanized unit
    assert any(u.get("tiger") for u in rules["units"].values())


def test_fpa_2_0_counter_sheet_holds_the_units_and_markers(rules):
    units = sum(u["counters"] for u in rules["units"].values())
    # markers: VP x1 and x10, turn, 3 weather, 10 CAS, 3 KG, and at least one control marker
    # a town or FL hex (two-sided Soviet/German)
    vp_hexes = 24 + 3
    markers = 2 + 1 + 3 + 10 + 3 + vp_hexes
    assert units + markers <= rules["components"]["counters"] == 176


def test_fpa_3_2_setup_and_reinforcements(rules, situation, board):
    units = rules["units"]
    placed: dict[str, int] = {}
    stack: dict[str, int] = {}
    for side in situation["side"]:
        for s in side.get("setup", []):
            u = units[s["unit"]]
            assert u["side"] == side["name"], s["unit"]
            placed[s["unit"]] = placed.get(s["unit"], 0) + 1
            assert s["hex"] in board["hexes"], s
            if side["name"] == "german" and u["class"] != "static":
                stack[s["hex"]] = stack.get(s["hex"], 0) + u["steps"]
            if u["class"] == "static" or s["unit"] in ("96-inf", "291-inf"):
                assert s["placement"] == "exact", s["unit"]
        for r in side.get("reinforcement", []):
            placed[r["unit"]] = placed.get(r["unit"], 0) + 1
            assert side["name"] == "german" and 1 <= r["turn"] <= situation["turns"]
            assert r["entry"] in board["edges"]
    assert placed == {k: 1 for k in units}, "every counter sets up or arrives exactly once"
    exact = {s["unit"]: s["hex"] for s in situation["side"][1]["setup"]}
    assert exact["96-inf"] == "2908" and exact["291-inf"] == "2807"  # 3.2(4)
    assert all(v <= rules["stacking"]["german_steps"] for v in stack.values()), stack
    assert situation["start"]["soviet_control"] == rules["victory"]["start_control"]["soviet"]


def test_soviet_set_up_hexes_trace_to_their_supply_edge_around_german_units(rules, situation, board):
    german = {s["hex"] for s in situation["side"][1]["setup"]}
    sources = set(board["edges"]["soviet_supply"]["hexes"])
    region = set(board["regions"]["soviet_restricted"]["hexes"])
    for s in situation["side"][0]["setup"]:
        seen, frontier = {s["hex"]}, [s["hex"]]
        while frontier and not seen & sources:
            frontier = sorted({n for h in frontier for n in grid.neighbours(h).values()
                               if n not in seen and n not in german and n not in region})
            seen.update(frontier)
        assert seen & sources, s


# ------------------------------------------------------------------------------ data hygiene

TAG = re.compile(r"^(text|fit|estimate|reconstructed|reading)(:|$)")


def _walk(node, inherited: str | None, path: str, out: list[str]) -> None:
    tags = node.get("provenance", {}) if isinstance(node, dict) else {}
    for key, value in node.items():
        if key == "provenance":
            continue
        tag = tags.get(key, tags.get("default", inherited))
        if isinstance(value, dict):
            _walk(value, tag, f"{path}{key}.", out)
        elif tag is None or not TAG.match(tag):
            out.append(f"{path}{key}")


def test_every_ruleset_value_carries_its_provenance(rules):
    missing: list[str] = []
    for key, table in rules.items():
        if isinstance(table, dict) and key != "provenance":
            _walk(table, None, f"{key}.", missing)
    top = rules["provenance"]
    for key, value in rules.items():
        if not isinstance(value, dict) and key != "provenance":
            assert TAG.match(top.get(key, top["default"])), key
    assert missing == []


def test_every_setup_row_carries_its_provenance(situation):
    for side in situation["side"]:
        for row in side.get("setup", []) + side.get("reinforcement", []):
            assert TAG.match(row["src"]), row


def test_dotted_keys_reach_every_table(rules):
    leaves = leaf_paths(rules)
    for key, new in [("crt.rows.6", ["AL1", "AS", "EX", "EX", "EX", "EX", "EX", "EX"]),
                     ("units.16-pz.attack", [5, 4, 3, 3, 2, 1]),
                     ("weather.table.4", ["thaw"] * 6),
                     ("terrain.move_cost.marsh.mech", 4),
                     ("movement.factors.thaw.mech", 9),
                     ("victory.thresholds.soviet_win", 30),
                     ("readings.odds_beyond_table", "clamp"),
                     ("concentric.german_shift", 1)]:
        assert key in leaves, key
        changed = apply_overrides(rules, {key: new}, "test")
        node = changed
        for part in key.split("."):
            node = node[part]
        assert node == new
    with pytest.raises(DataError):
        apply_overrides(rules, {"crt.rows.7": ["AS"] * 8}, "test")


def test_every_reading_is_an_open_question_of_the_digest(rules):
    digest = DIGEST.read_text()
    for key in rules["readings"]:
        if key != "provenance":
            assert f"`readings.{key}`" in digest, key
    cited = set(re.findall(r"OQ-FPA-\d+", " ".join(p.read_text() for p in RULESET_DIR.glob("*.toml"))))
    for oq in cited:
        assert f"**{oq}" in digest, oq
