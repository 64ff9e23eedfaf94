"""Hex geometry and the assembled maps: neighbours, distance, labels, board joins."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.hexgrid import DIRECTION_INDEX, NO_HEX, distance_matrix, hex_distance, line_chain
from simulator.mapdata import index_tables
from simulator.situation import load_situation

LAYOUTS = {
    "pb-01": 1006,  # three boards long edge to long edge: 3 x 346 - 2 x 16 merged half hexes
    "pb-10": 1018,  # three boards end to end: 3 x 346 - 2 x 10 merged half hexes
    "pb-04": 1018,
    "pb-12": 1006,
}


@pytest.fixture(scope="module", params=sorted(LAYOUTS))
def sit(request):
    return load_situation(request.param)


@pytest.fixture(scope="module")
def pb01():
    return load_situation("pb-01")


def test_hex_counts_per_layout(sit):
    assert sit.map.n_hexes == LAYOUTS[sit.id]
    assert len(set(sit.map.labels)) == sit.map.n_hexes


hex_pairs = st.tuples(st.integers(0, 1005), st.integers(0, 1005), st.integers(0, 1005))


@settings(max_examples=300, deadline=None)
@given(hex_pairs)
def test_distance_is_a_metric(pb01, abc):
    m = pb01.map
    a, b, c = abc
    dab = hex_distance(m.q, m.r, a, b)
    assert dab == hex_distance(m.q, m.r, b, a)
    assert (dab == 0) == (a == b)
    assert hex_distance(m.q, m.r, a, c) <= dab + hex_distance(m.q, m.r, b, c)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 1005), st.integers(0, 5))
def test_neighbours_are_reciprocal_and_at_distance_one(pb01, h, d):
    m = pb01.map
    n = m.neighbours[h, d]
    if n == NO_HEX:
        return
    assert m.neighbours[n, (d + 3) % 6] == h
    assert hex_distance(m.q, m.r, h, n) == 1


def test_every_hex_at_distance_one_is_a_neighbour(pb01):
    m = pb01.map
    dist = distance_matrix(m.q, m.r)
    for h in range(0, m.n_hexes, 7):
        ring = set(np.flatnonzero(dist[h] == 1).tolist())
        assert ring == {int(x) for x in m.neighbours[h] if x != NO_HEX}


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 1005), st.integers(0, 1005), st.sampled_from([1.0, -1.0]))
def test_line_chain_is_a_shortest_chain_of_adjacent_hexes(pb01, a, b, side):
    m = pb01.map
    table, q0, r0 = index_tables(m)
    out = np.empty(200, dtype=np.int64)
    n = line_chain(m.q, m.r, table, q0, r0, a, b, side, out)
    chain = out[:n].copy()
    assert n == hex_distance(m.q, m.r, a, b) + 1
    assert chain[0] == a and chain[-1] == b
    if (chain == NO_HEX).any():
        # A segment running exactly along the map's edge (1D1 -> 1F1) passes between a map hex
        # and the half hex beyond the edge; shifted to the outer side it names the hex off the
        # map (NO_HEX).  The other side of the tie is then a chain on the map.
        other = out[:line_chain(m.q, m.r, table, q0, r0, a, b, -side, out)]
        assert not (other == NO_HEX).any()
        chain = other
    for x, y in zip(chain[:-1], chain[1:], strict=True):
        assert y in m.neighbours[x]


def test_labels_and_merged_half_hexes(pb01):
    m = pb01.map
    # Boards 1 and 2 meet long edge to long edge: 1B11 and 2B1 are one hex, named for the
    # middle board (PB-VIC-2), and both names find it.
    assert m.lookup("1B11") == m.lookup("2B1")
    assert m.labels[m.lookup("1B11")] == "2B1"
    assert m.boards_of[m.lookup("2B1")] == ("1", "2")
    assert m.lookup("2g10") == m.lookup("2G10")
    with pytest.raises(KeyError):
        m.lookup("4A1")


def test_neighbours_follow_the_board_data(pb01):
    m = pb01.map
    h = m.lookup("1C9")
    names = {d: m.labels[m.neighbours[h, i]] for d, i in DIRECTION_INDEX.items()}
    assert names == {"N": "1C8", "NE": "1D9", "SE": "1D10", "S": "1C10", "SW": "1B10", "NW": "1B9"}
    # Across the board join: 1C10 (bottom row of board 1) touches 2B1 = 1B11 and 2C1.
    h = m.lookup("1C10")
    assert m.labels[m.neighbours[h, DIRECTION_INDEX["S"]]] == "2C1"


def test_hexside_features_of_an_upright_board(pb01):
    m = pb01.map
    h = m.lookup("1C9")  # gray N and NE, green SE and SW in the board data
    gray, green = m.side_bit("gray"), m.side_bit("green")
    assert m.side_features[h, DIRECTION_INDEX["N"]] & gray
    assert m.side_features[h, DIRECTION_INDEX["NE"]] & gray
    assert m.side_features[h, DIRECTION_INDEX["SE"]] & green
    assert m.side_features[h, DIRECTION_INDEX["SW"]] & green


def test_inverted_board_rotates_positions_and_hexsides():
    sit = load_situation("pb-04")  # layout 1i, 3i, 2 end to end
    m = sit.map
    h = m.lookup("1C9")
    # 1C9 on an inverted board: its N neighbour is what was its S (1C10), etc.
    assert m.labels[m.neighbours[h, DIRECTION_INDEX["N"]]] == "1C10"
    assert m.labels[m.neighbours[h, DIRECTION_INDEX["SW"]]] == "1D9"
    gray, green = m.side_bit("gray"), m.side_bit("green")
    assert m.side_features[h, DIRECTION_INDEX["S"]] & gray
    assert m.side_features[h, DIRECTION_INDEX["SW"]] & gray
    assert m.side_features[h, DIRECTION_INDEX["NW"]] & green
    # Board 1 inverted is leftmost: its column GG forms the map's west edge.
    assert m.col[m.lookup("1GG5")] == 0
    # The end-to-end join merges 1A (inverted, right end of board 1) with 3GG (inverted).
    assert m.lookup("1A5") == m.lookup("3GG5")


def test_join_hexsides_are_consistent(sit):
    # Every hexside seen from both hexes carries the same bars, roads and streams (the
    # source data checks its joins; this checks our merging and rotation of them).
    m = sit.map
    for h in range(m.n_hexes):
        for d in range(6):
            n = m.neighbours[h, d]
            if n != NO_HEX:
                assert m.side_features[h, d] == m.side_features[n, (d + 3) % 6], (m.labels[h], d)


def test_edges(pb01):
    m = pb01.map
    assert len(m.edge_hexes("west")) == 30  # column A of three boards
    assert {m.labels[i][1] for i in m.edge_hexes("west")} == {"A"}
    assert len(m.edge_hexes("north")) == 33  # row 1 of board 1
    assert all(m.labels[i].startswith("3") for i in m.edge_hexes("south"))
    assert len(m.edge_hexes("any")) == 122  # as the source counts for Situation 1


def test_roads_leave_every_board_where_the_data_says(pb01):
    m = pb01.map
    road = m.side_bit("road")
    for label in ("1A3", "1A8", "1GG3", "1GG8"):
        h = m.lookup(label)
        assert (m.side_features[h] & road).any()
