"""The core's map loader reads the First Panzer Army and Hill of Death boards as their docs ask
(docs/first-panzer-army/map.md "What the core's map loader must accept", docs/panzerblitz-v2/map.md
"What the core's loader will need"): four-digit xxyy labels without a board prefix, odd columns
up, one board without a layout, their own keys ignored, no line of sight required; and the
classic boards load exactly as before."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from simulator.areas import resolve_static_area
from simulator.errors import DataError
from simulator.hexgrid import DIRECTION_INDEX, hex_distance
from simulator.mapdata import Board, BoardHex, assemble, load_board
from simulator.ruleset import load_ruleset
from simulator.situation import load_situation


@pytest.fixture(scope="module")
def fpa():
    rs = load_ruleset("first-panzer-army")
    return rs, rs.assemble([["fpa"]])


@pytest.fixture(scope="module")
def hod():
    rs = load_ruleset("panzerblitz-v2")
    return rs, rs.assemble([["HOD"]])


def adjacent(m, a: str, b: str) -> bool:
    return m.lookup(b) in m.neighbours[m.lookup(a)]


def test_data_only_rulesets_load_without_line_of_sight_or_stacking(fpa, hod):
    # map.md requirement 7: FPA has no line of sight, HOD no classic `los` table (its own LoS is
    # the v2 engine's) and its units in unit files of its own, which the core merges into `units`
    # (so --set reaches them): the core asks neither for PanzerBlitz's tables
    assert "los" not in fpa[0].data and fpa[0].sides == ["soviet", "german"]
    assert "los" not in hod[0].data and hod[0].name == "panzerblitz-v2"
    assert {"pzkw-iv-h", "gb-churchill-vii"} <= set(hod[0].data["units"])


def test_fpa_grid_size_and_labels_as_printed(fpa):
    _, m = fpa
    assert m.n_hexes == 24 * 29 + 23 * 28 == 1340        # map.md, "The grid"
    assert m.width == 48 and not (m.col == 0).any()       # FPA column c is map column c: column 0 empty
    assert m.lookup("2119") == m.index["2119"] and m.labels[m.lookup("0805")] == "0805"
    assert all(len(label) == 4 and label.isdigit() for label in m.labels)
    assert m.board_names() == ["fpa"] and m.boards_of[0] == ("fpa",)


def test_fpa_example_turn_adjacencies_force_the_even_columns_low(fpa):
    # map.md: the stack in 2218 attacks 2119; 9 Mech retreats 2119 -> 2019 -> 1920; the probes go
    # 2119 -> 2018, 2120 -> 2020, 2118 -> 2017, 1919 -> 1819; 16 Pz moves 2018 -> 1918 -> 1919.
    _, m = fpa
    for a, b in [("2218", "2119"), ("2119", "2019"), ("2019", "1920"), ("2119", "2018"), ("2120", "2020"),
                 ("2118", "2017"), ("1919", "1819"), ("2018", "1918"), ("1918", "1919")]:
        assert adjacent(m, a, b) and adjacent(m, b, a), (a, b)
    assert not adjacent(m, "2218", "2117")
    # column 21 (odd) sits up: 2119's north-east neighbour is 2218, its south-east one 2219
    nb = m.neighbours[m.lookup("2119")]
    assert m.labels[nb[DIRECTION_INDEX["NE"]]] == "2218" and m.labels[nb[DIRECTION_INDEX["SE"]]] == "2219"


def test_fpa_text_facts_on_the_loaded_map(fpa):
    _, m = fpa
    river = m.side_bit("river")
    # the example's river hexside 2218|2119 (the Smotrich), on both sides of it
    assert m.side_features[m.lookup("2218"), DIRECTION_INDEX["SW"]] & river
    assert m.side_features[m.lookup("2119"), DIRECTION_INDEX["NE"]] & river
    fl, town = m.has_feature("fortified_locality"), m.has_feature("town")
    assert fl[[m.lookup(h) for h in ("0805", "2607", "2220")]].all()    # Ternopol, Proskurov, Kamenets-Podolsky
    assert town[[m.lookup(h) for h in ("2603", "4004", "4513", "4612", "4613")]].all()
    assert not (fl | town)[m.lookup("2119")]                            # 2119: no combat terrain
    assert sorted(m.labels[i] for i in m.named["Vinnitsa"]) == ["4513", "4612", "4613"]
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    import fpa_grid  # the FPA-side grid helper (tools/fpa_grid.py)

    for a, b in [("0101", "4729"), ("2219", "2019"), ("0805", "2607"), ("4628", "0113")]:
        assert hex_distance(m.q, m.r, m.lookup(a), m.lookup(b)) == fpa_grid.distance(a, b), (a, b)
    for h in ("0101", "2119", "4729", "4628"):
        core = {d: m.labels[n] for d, n in zip(("N", "NE", "SE", "S", "SW", "NW"), m.neighbours[m.lookup(h)], strict=True)
                if n >= 0}
        assert core == fpa_grid.neighbours(h), h


def test_fpa_rules_edges_come_from_the_board_not_the_geometry(fpa):
    """Requirement 6: the rules' edge ranges are the board's data; the core gives the
    geometric edges, and every hex the rules' ranges name is on the map."""
    rs, m = fpa
    data = json.loads(rs.board("fpa").path.read_text())
    for name, edge in {**data["edges"], **data["regions"]}.items():
        assert all(h in m.index for h in edge["hexes"]), name
    west = {m.labels[i] for i in m.edge_hexes("west")}
    assert {"0101", "0113", "0129"} <= west and "0201" not in west
    assert {m.labels[i] for i in m.edge_hexes("north")} >= {"0101", "0201", "4701"}


def test_hod_numbering_parity_of_the_8_2_1_7_example(hod):
    _, m = hod
    assert m.n_hexes == 46 * 31 == 1426
    assert adjacent(m, "4104", "4203") and adjacent(m, "4104", "4105") and adjacent(m, "4315", "4316")
    assert not adjacent(m, "4114", "4315")


def test_hod_levels_places_and_play_area(hod):
    rs, m = hod
    summit = sorted(m.labels[i] for i in m.named["Hill 112"])
    assert len(summit) == 14 and "2519" in summit
    assert (m.elevation[list(m.named["Hill 112"])] == 6).all() and set(np.unique(m.elevation)) == {1, 2, 3, 4, 5, 6}
    assert m.has_feature("orchard")[m.lookup("2519")]
    # a situation's play area, `columns = "05-34"`, resolves on the board's own columns and rows
    area = resolve_static_area({"columns": "05-34", "rows": "10-16"}, m, rs, "", "")
    cols = {int(m.labels[i][:2]) for i in area}
    rows = {int(m.labels[i][2:]) for i in area}
    assert cols == set(range(5, 35)) and rows == set(range(10, 17)) and len(area) == 30 * 7


def test_a_board_numbered_odd_columns_up_stands_alone(fpa):
    rs, _ = fpa
    with pytest.raises(DataError, match="odd columns up"):
        rs.assemble([["fpa", "fpa"]])
    with pytest.raises(DataError, match="inverted"):
        rs.assemble([["fpai"]])


def test_bad_xxyy_labels_and_extensions_that_disagree(tmp_path):
    base = {"board": "T", "columns": ["01", "02"], "rows_even": 2, "rows_odd": 2,
            "extensions": {"x": {"label_scheme": "xxyy", "odd_columns_up": True}},
            "hexes": {f"{c:02d}{r:02d}": {} for c in (1, 2) for r in (1, 2)}}
    path = tmp_path / "board-T.json"
    path.write_text(json.dumps(base))
    board = load_board(path, (), ())
    assert board.label_scheme == "xxyy" and board.odd_columns_up and len(board.hexes) == 4
    for bad in ("T0101", "0301", "011"):
        doc = json.loads(json.dumps(base))
        doc["hexes"][bad] = {}
        path.write_text(json.dumps(doc))
        with pytest.raises(DataError, match="bad hex label"):
            load_board(path, (), ())
    doc = json.loads(json.dumps(base))
    doc["extensions"]["y"] = {"label_scheme": "classic"}
    path.write_text(json.dumps(doc))
    with pytest.raises(DataError, match="disagrees"):
        load_board(path, (), ())


def test_classic_boards_assemble_exactly_as_before():
    """The hexes, their names, boards, neighbours and the LOS cache key of three layouts, as the
    loader before the xxyy scheme made them (recorded on main, 15c345e)."""
    recorded = {"pb-01": ("a11af8a9ac365a68", "c0e6d9600579f868"), "pb-07": ("6e8bfad9832668d6", "496f4d239e0bf6b1"),
                "pb-10": ("03c4346690423b63", "40417af40bb4d38c")}
    for sid, (fingerprint, layout) in recorded.items():
        m = load_situation(sid).map
        h = hashlib.sha256()
        h.update(repr((m.labels, m.aliases, m.boards_of, sorted(m.named.items()))).encode())
        h.update(m.neighbours.tobytes())
        assert (m.fingerprint()[:16], h.hexdigest()[:16]) == (fingerprint, layout), sid


def test_columns_and_rows_of_a_merged_half_hex_count_on_either_board(pb_ruleset):
    # A half hex shared by two boards has a column and row on each: `rows = "1"` takes board 2's
    # first row, merged with board 1's last row of the odd columns (as the label-based selection did).
    m = pb_ruleset.assemble([["1"], ["2"]])
    assert m.lookup("2B1") == m.lookup("1B11")
    first_rows = resolve_static_area({"rows": "1"}, m, pb_ruleset, "", "")
    assert m.lookup("1B11") in first_rows and m.lookup("1A1") in first_rows and m.lookup("2A1") in first_rows
    assert m.lookup("1A10") not in first_rows


def test_a_hand_made_xxyy_board_is_placed_one_column_right():
    cells = {(c, r): BoardHex(f"{c + 1:02d}{r + 1:02d}", c, r, 0, frozenset(), {}) for c in range(3) for r in range(2)}
    board = Board("X", Path("<x>"), ("01", "02", "03"), 2, 2, cells, {}, "xxyy", True)
    m = assemble([[(board, False)]], (), ())
    assert sorted(set(m.col.tolist())) == [1, 2, 3]
    # column 01 up: 0102 touches 0201 and 0202, 0101 touches 0201 only
    assert adjacent(m, "0101", "0201") and adjacent(m, "0102", "0201") and adjacent(m, "0102", "0202")
    assert not adjacent(m, "0101", "0202")
