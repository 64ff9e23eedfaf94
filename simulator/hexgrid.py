"""Hex-grid geometry shared by every ruleset: flat-topped hexes in offset columns.

The assembled map is a rectangle of *map columns* (left to right) and *map rows* (top to
bottom).  Odd columns sit half a hex higher than even ones, exactly as on a single
PanzerBlitz board viewed with column A on the left and row 1 at the top, so the direction
names of the board data (N, NE, SE, S, SW, NW) hold on the whole map.

Everything here works on plain integer arrays; the kernels are numba-compiled and take the
hex *index* (0..n_hexes-1) used everywhere in the simulator.
"""

from __future__ import annotations

import math

import numpy as np

from simulator.jit import njit

DIRECTIONS = ("N", "NE", "SE", "S", "SW", "NW")
DIRECTION_INDEX = {d: i for i, d in enumerate(DIRECTIONS)}
N_DIRECTIONS = 6
NO_HEX = -1

SQRT3 = math.sqrt(3.0)


def opposite(direction: int) -> int:
    return (direction + 3) % 6


def neighbour_offset(col: int, direction: int) -> tuple[int, int]:
    """(d_col, d_row) of the neighbour in `direction` for a hex in map column `col`."""
    even = col % 2 == 0
    return (
        (0, -1),
        (1, 0) if even else (1, -1),
        (1, 1) if even else (1, 0),
        (0, 1),
        (-1, 1) if even else (-1, 0),
        (-1, 0) if even else (-1, -1),
    )[direction]


def axial(col: np.ndarray, row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Offset (column, row) to axial (q, r): r = row - ceil(col / 2) for odd-columns-up."""
    col = np.asarray(col, dtype=np.int64)
    row = np.asarray(row, dtype=np.int64)
    return col, row - (col + 1) // 2


def centres(col: np.ndarray, row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pixel centres for hexes of circumradius 1, y growing downwards (for drawing)."""
    col = np.asarray(col, dtype=np.float64)
    row = np.asarray(row, dtype=np.float64)
    x = 1.5 * col
    y = SQRT3 * (row + np.where(col.astype(np.int64) % 2 == 0, 0.5, 0.0))
    return x, y


def build_neighbours(col: np.ndarray, row: np.ndarray, index_of: np.ndarray) -> np.ndarray:
    """Neighbour table int32[n, 6]: the hex index in each direction, or NO_HEX.

    `index_of[c, r]` maps a grid cell to its hex index (NO_HEX where no printed hex exists).
    """
    n = len(col)
    width, height = index_of.shape
    table = np.full((n, N_DIRECTIONS), NO_HEX, dtype=np.int32)
    for h in range(n):
        c, r = int(col[h]), int(row[h])
        for d in range(N_DIRECTIONS):
            dc, dr = neighbour_offset(c, d)
            cc, rr = c + dc, r + dr
            if 0 <= cc < width and 0 <= rr < height:
                table[h, d] = index_of[cc, rr]
    return table


@njit(cache=True)
def hex_distance(q: np.ndarray, r: np.ndarray, a: int, b: int) -> int:
    """Number of hex steps between hexes a and b (axial coordinates q, r)."""
    dq = q[a] - q[b]
    dr = r[a] - r[b]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


@njit(cache=True)
def distance_matrix(q: np.ndarray, r: np.ndarray) -> np.ndarray:
    n = q.shape[0]
    out = np.empty((n, n), dtype=np.int16)
    for a in range(n):
        for b in range(n):
            dq = q[a] - q[b]
            dr = r[a] - r[b]
            out[a, b] = (abs(dq) + abs(dr) + abs(dq + dr)) // 2
    return out


@njit(cache=True)
def _round_axial(fq: float, fr: float) -> tuple[int, int]:
    # Cube rounding: round all three coordinates, then fix the one with the largest error.
    fs = -fq - fr
    rq = round(fq)
    rr = round(fr)
    rs = round(fs)
    eq = abs(rq - fq)
    er = abs(rr - fr)
    es = abs(rs - fs)
    if eq > er and eq > es:
        rq = -rr - rs
    elif er > es:
        rr = -rq - rs
    return int(rq), int(rr)


@njit(cache=True)
def hex_at(px, py, index_of_axial, q0, r0):
    """The hex containing the point (px, py) (flat-topped, unit size), or -1 off the map."""
    fq = px / 1.5
    fr = py / SQRT3 - 0.5 * fq
    hq, hr = _round_axial(fq, fr)
    iq = hq - q0
    ir = hr - r0
    if 0 <= iq < index_of_axial.shape[0] and 0 <= ir < index_of_axial.shape[1]:
        return index_of_axial[iq, ir]
    return -1


@njit(cache=True)
def line_chain(q: np.ndarray, r: np.ndarray, index_of_axial: np.ndarray, q0: int, r0: int,
               a: int, b: int, side: float, out: np.ndarray) -> int:
    """Shortest chain of hexes from a to b along the centre-to-centre segment.

    The segment is shifted sideways by `side` * 1e-6 hex (perpendicular to it) so that a
    segment running exactly along a hexside or through a vertex falls on one definite side;
    calling with side = +1 and -1 gives the two candidate chains of an exact tie.
    Writes the chain (distance + 1 hex indices) into `out` and returns its length.
    A hex off the printed map is written as NO_HEX: on irregular maps, and on a segment running
    exactly along the map's edge shifted to its outer side (the other `side` stays on the map).
    """
    n = hex_distance(q, r, a, b)
    # Flat-topped axial -> pixel: x = 1.5 q, y = sqrt(3) (r + q / 2).
    ax = 1.5 * q[a]
    ay = SQRT3 * (r[a] + 0.5 * q[a])
    bx = 1.5 * q[b]
    by = SQRT3 * (r[b] + 0.5 * q[b])
    dx = bx - ax
    dy = by - ay
    length = math.sqrt(dx * dx + dy * dy)
    nx = 0.0
    ny = 0.0
    if length > 0.0:
        nx = -dy / length * 1e-6 * side
        ny = dx / length * 1e-6 * side
    out[0] = a
    for i in range(1, n):
        t = i / n
        out[i] = hex_at(ax + dx * t + nx, ay + dy * t + ny, index_of_axial, q0, r0)
    out[n] = b
    return n + 1


def axial_index(q: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, int, int]:
    """Dense lookup table axial (q - q0, r - r0) -> hex index, with its origin (q0, r0)."""
    q0, r0 = int(q.min()), int(r.min())
    table = np.full((int(q.max()) - q0 + 1, int(r.max()) - r0 + 1), NO_HEX, dtype=np.int32)
    table[q - q0, r - r0] = np.arange(len(q), dtype=np.int32)
    return table, q0, r0
