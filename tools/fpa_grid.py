"""The First Panzer Army hex grid: XXYY hex numbers, adjacency, centres and corners.

FPA 2.1 numbers every hex XXYY (column, row).  The grid the text's numbers imply
(docs/first-panzer-army/map.md, "The grid"): columns 01-47 west to east, rows north to south,
odd columns 29 hexes (01-29), even columns 28 (01-28), the even columns half a hex lower.
That is the core's geometry (simulator/hexgrid.py: odd map columns half a hex higher) with the
FPA column number used as the map column, so this module takes the core's neighbour offsets
as they are; map column 0 is simply empty.

Geometry is in *hex units*: centre-to-centre distance between neighbours 1 (6.8 km on the
map, FPA 1.1), x east, y south.  Corners are kept on an integer lattice (x in units of
1/(2*sqrt 3), y in half units) so that two hexes' shared corners compare equal exactly.

Used by tools/fpa_mapgen.py, tools/fpa_mapdraw.py and tests/first_panzer_army/test_fpa_data.py.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from simulator.hexgrid import DIRECTIONS, neighbour_offset  # noqa: E402

COLUMNS = 47
ROWS_ODD_COLUMN = 29
ROWS_EVEN_COLUMN = 28
SQRT3 = math.sqrt(3.0)
R = 1.0 / SQRT3  # circumradius in hex units

# Corner k of a flat-topped hex sits at angle 60k degrees (y south): 0 east, 1 lower right,
# 2 lower left, 3 west, 4 upper left, 5 upper right.  The side towards each direction joins:
SIDE_CORNERS = {"N": (4, 5), "NE": (5, 0), "SE": (0, 1), "S": (1, 2), "SW": (2, 3), "NW": (3, 4)}
# corner k: (2x/R offset, 2y offset) on the integer lattice
_CORNER_LATTICE = ((2, 0), (1, 1), (-1, 1), (-2, 0), (-1, -1), (1, -1))


def rows_in(col: int) -> int:
    return ROWS_ODD_COLUMN if col % 2 == 1 else ROWS_EVEN_COLUMN


def on_grid(col: int, row: int) -> bool:
    return 1 <= col <= COLUMNS and 1 <= row <= rows_in(col)


def label(col: int, row: int) -> str:
    return f"{col:02d}{row:02d}"


def parse(hexnum: str) -> tuple[int, int]:
    """'2119' -> (21, 19).  Raises ValueError for anything but four digits."""
    if len(hexnum) != 4 or not hexnum.isdigit():
        raise ValueError(f"not an XXYY hex number: {hexnum!r}")
    return int(hexnum[:2]), int(hexnum[2:])


def all_hexes() -> list[str]:
    return [label(c, r) for c in range(1, COLUMNS + 1) for r in range(1, rows_in(c) + 1)]


def neighbour(hexnum: str, direction: str) -> str | None:
    c, r = parse(hexnum)
    dc, dr = neighbour_offset(c, DIRECTIONS.index(direction))
    return label(c + dc, r + dr) if on_grid(c + dc, r + dr) else None


def neighbours(hexnum: str) -> dict[str, str]:
    """Direction name -> neighbouring hex number, for the neighbours on the map."""
    out = {}
    for d in DIRECTIONS:
        n = neighbour(hexnum, d)
        if n is not None:
            out[d] = n
    return out


def direction_to(a: str, b: str) -> str | None:
    """The direction from hex a to its neighbour b, or None if they are not adjacent."""
    for d, n in neighbours(a).items():
        if n == b:
            return d
    return None


def adjacent(a: str, b: str) -> bool:
    return direction_to(a, b) is not None


def centre(hexnum: str) -> tuple[float, float]:
    c, r = parse(hexnum)
    return (c - 1) * SQRT3 / 2.0, (r - 1) + (0.5 if c % 2 == 0 else 0.0)


def corner_key(hexnum: str, k: int) -> tuple[int, int]:
    """Exact lattice key of corner k (shared corners of two hexes have equal keys)."""
    c, r = parse(hexnum)
    kx = 3 * (c - 1) + _CORNER_LATTICE[k][0]
    ky = 2 * (r - 1) + (1 if c % 2 == 0 else 0) + _CORNER_LATTICE[k][1]
    return kx, ky


def corner_xy(key: tuple[int, int]) -> tuple[float, float]:
    return key[0] * R / 2.0, key[1] / 2.0


def distance(a: str, b: str) -> int:
    """Hex steps between two hexes (cube coordinates of the core's odd-columns-up layout)."""
    (ca, ra), (cb, rb) = parse(a), parse(b)
    qa, qb = ca, cb
    za, zb = (ra - 1) - (ca + 1) // 2, (rb - 1) - (cb + 1) // 2
    dq, dz = qa - qb, za - zb
    return (abs(dq) + abs(dz) + abs(dq + dz)) // 2
