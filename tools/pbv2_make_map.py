"""Generate the reconstructed Hill 112 board of Panzer Blitz: Hill of Death from its feature table.

    python tools/pbv2_make_map.py                       # write board-HOD.json and the PNG
    python tools/pbv2_make_map.py --png out/hod.png     # also choose where the picture goes

Reads  situations/rulesets/panzerblitz-v2/boards/hill112-features.toml  (documented, sourced)
Writes situations/rulesets/panzerblitz-v2/boards/board-HOD.json         (format wargame-board/1 +
       the "pbv2" extension, docs/panzerblitz-v2/map.md) and a PNG drawing (default
       docs/panzerblitz-v2/img/hill112-board.png).

Deterministic: the same feature table gives the same board, byte for byte.  Method (map.md):
a smooth ground surface through the spot heights (thin-plate spline), valleys cut along the
watercourses, six elevation bands; villages, woods and orchards by the hex centre dot (PB2 5.2.2);
roads, watercourses and hedges on hexsides.  No simulator code is used: the board geometry here
is the rules' own (flat-topped hexes, four-digit XXYY numbers, odd columns half a hex up).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import tomllib
from pathlib import Path

import numpy as np
from scipy.interpolate import RBFInterpolator

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pbv2_data import write_atomic  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BOARDS = ROOT / "situations" / "rulesets" / "panzerblitz-v2" / "boards"
FEATURES = BOARDS / "hill112-features.toml"
BOARD_OUT = BOARDS / "board-HOD.json"
PNG_OUT = ROOT / "docs" / "panzerblitz-v2" / "img" / "hill112-board.png"

DIRECTIONS = ("N", "NE", "SE", "S", "SW", "NW")
YARD_KM = 0.0009144


# ----------------------------------------------------------------------------- geometry

class Grid:
    """Flat-topped hexes in columns 1..C, rows 1..R; odd columns half a hex up (PB2 8.2.1.7)."""

    def __init__(self, g: dict):
        self.cols, self.rows = int(g["columns"]), int(g["rows"])
        self.odd_up = bool(g["odd_columns_up"])
        self.h = float(g["hex_yards"]) * YARD_KM        # flat-to-flat, km
        self.r = self.h / math.sqrt(3.0)                 # circumradius, km
        self.lon0, self.lat0 = float(g["origin_lon"]), float(g["origin_lat"])
        self.kx, self.ky = float(g["km_per_deg_lon"]), float(g["km_per_deg_lat"])
        self.cells = [(c, r) for c in range(1, self.cols + 1) for r in range(1, self.rows + 1)]
        self.index = {cr: i for i, cr in enumerate(self.cells)}
        xy = np.array([self.centre(c, r) for c, r in self.cells])
        self.x, self.y = xy[:, 0], xy[:, 1]

    def down(self, c: int) -> bool:
        """Is column c the lower one (shifted half a hex down)?"""
        return (c % 2 == 0) if self.odd_up else (c % 2 == 1)

    def centre(self, c: int, r: int) -> tuple[float, float]:
        return ((c - 1) * 1.5 * self.r + self.r, (r - 1) * self.h + self.h / 2 + (self.h / 2 if self.down(c) else 0.0))

    def km(self, feature: dict, key_km: str = "km", key_ll: str = "lonlat"):
        if key_ll in feature:
            pts = feature[key_ll]
            single = not isinstance(pts[0], list)
            pts = [pts] if single else pts
            out = [((lon - self.lon0) * self.kx, (self.lat0 - lat) * self.ky) for lon, lat in pts]
            return out[0] if single else out
        pts = feature[key_km]
        return tuple(pts) if not isinstance(pts[0], list) else [tuple(p) for p in pts]

    def neighbour(self, c: int, r: int, d: int) -> tuple[int, int]:
        if self.down(c):
            off = [(0, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0)][d]
        else:
            off = [(0, -1), (1, -1), (1, 0), (0, 1), (-1, 0), (-1, -1)][d]
        return c + off[0], r + off[1]

    def on_board(self, c: int, r: int) -> bool:
        return 1 <= c <= self.cols and 1 <= r <= self.rows

    def nearest(self, x: float, y: float) -> tuple[int, int]:
        i = int(np.argmin((self.x - x) ** 2 + (self.y - y) ** 2))
        return self.cells[i]

    def corners(self, c: int, r: int) -> np.ndarray:
        cx, cy = self.centre(c, r)
        ang = np.radians([0, 60, 120, 180, 240, 300])
        return np.column_stack([cx + self.r * np.cos(ang), cy + self.r * np.sin(ang)])

    def side_ends(self, c: int, r: int, d: int) -> np.ndarray:
        """The two corners of side d (N = top edge; y grows downwards)."""
        k = self.corners(c, r)  # corners at 0 (E), 60 (SE-below), 120, 180 (W), 240, 300 degrees
        pairs = {0: (4, 5), 1: (5, 0), 2: (0, 1), 3: (1, 2), 4: (2, 3), 5: (3, 4)}
        a, b = pairs[d]
        return np.array([k[a], k[b]])


def label(c: int, r: int) -> str:
    return f"{c:02d}{r:02d}"


def seg_intersect(p1, p2, q1, q2) -> bool:
    def orient(a, b, c):
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    d1, d2 = orient(q1, q2, p1), orient(q1, q2, p2)
    d3, d4 = orient(p1, p2, q1), orient(p1, p2, q2)
    return (d1 > 0) != (d2 > 0) and (d3 > 0) != (d4 > 0)


def inside(poly: list[tuple[float, float]], x: float, y: float) -> bool:
    res = False
    n = len(poly)
    for i in range(n):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            res = not res
    return res


def polyline_distance(pts, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distance from each (x, y) to a polyline and the chainage fraction (0..len-1) of the foot."""
    best = np.full(x.shape, np.inf)
    where = np.zeros(x.shape)
    for i in range(len(pts) - 1):
        (ax, ay), (bx, by) = pts[i], pts[i + 1]
        vx, vy = bx - ax, by - ay
        t = np.clip(((x - ax) * vx + (y - ay) * vy) / (vx * vx + vy * vy), 0.0, 1.0)
        d = np.hypot(x - (ax + t * vx), y - (ay + t * vy))
        better = d < best
        best[better] = d[better]
        where[better] = i + t[better]
    return best, where


# ----------------------------------------------------------------------------- the board

def ground_heights(grid: Grid, feat: dict) -> np.ndarray:
    """Height (m) at each hex centre: a thin-plate surface through the spot heights, with the
    valleys cut along the watercourses."""
    pts = np.array([grid.km(s) for s in feat["spot"]])
    z = np.array([float(s["m"]) for s in feat["spot"]])
    surface = RBFInterpolator(pts, z, kernel="thin_plate_spline", smoothing=0.0)
    h = surface(np.column_stack([grid.x, grid.y]))
    for w in feat["watercourse"].values():
        line = grid.km(w)
        bed = np.array(w["bed_m"], dtype=float)
        d, s = polyline_distance(line, grid.x, grid.y)
        i = np.minimum(np.floor(s).astype(int), len(bed) - 2)
        b = bed[i] + (s - i) * (bed[i + 1] - bed[i])
        valley = b + float(w["slope_m_per_km"]) * np.maximum(d - float(w["floor_km"]), 0.0)
        h = np.minimum(h, valley)
    return h


def level_of(height: np.ndarray, bands: list[float]) -> np.ndarray:
    return 1 + np.searchsorted(np.array(bands), height, side="right")


def road_path(grid: Grid, line) -> list[tuple[int, int]]:
    cells: list[tuple[int, int]] = []
    for (ax, ay), (bx, by) in zip(line[:-1], line[1:], strict=True):
        n = max(2, int(math.hypot(bx - ax, by - ay) / 0.02))
        for t in np.linspace(0.0, 1.0, n):
            cr = grid.nearest(ax + t * (bx - ax), ay + t * (by - ay))
            if not cells or cells[-1] != cr:
                cells.append(cr)
    return cells


def direction_between(grid: Grid, a: tuple[int, int], b: tuple[int, int]) -> int:
    for d in range(6):
        if grid.neighbour(*a, d) == b:
            return d
    raise ValueError(f"{label(*a)} and {label(*b)} are not adjacent")


def build(feat: dict) -> tuple[dict, dict]:
    grid = Grid(feat["grid"])
    height = ground_heights(grid, feat)
    level = level_of(height, feat["levels"]["bands_m"])
    n = len(grid.cells)
    features: list[set[str]] = [set() for _ in range(n)]
    sides: list[dict[int, set[str]]] = [dict() for _ in range(n)]
    named: dict[str, set[str]] = {}

    def add_side(a, d, f):
        i = grid.index[a]
        sides[i].setdefault(d, set()).add(f)
        b = grid.neighbour(*a, d)
        if grid.on_board(*b):
            sides[grid.index[b]].setdefault((d + 3) % 6, set()).add(f)

    # villages (centre dot inside the radius), orchard rings
    for v in feat["village"]:
        vx, vy = grid.km(v)
        dist = np.hypot(grid.x - vx, grid.y - vy)
        town = np.flatnonzero(dist <= float(v["radius_km"]))
        if town.size == 0:
            town = np.array([int(np.argmin(dist))])
        for i in town:
            features[i].add("town")
        named[v["name"]] = {label(*grid.cells[i]) for i in town}
        ring = float(v.get("orchard_ring_km", 0.0))
        if ring > 0:
            for i in np.flatnonzero((dist > float(v["radius_km"])) & (dist <= float(v["radius_km"]) + ring)):
                if "town" not in features[i]:
                    features[i].add("orchard")
    # woods and orchards by polygon
    for kind, key in (("woods", "woods"), ("orchard", "orchard")):
        for area in feat.get(key, []):
            poly = grid.km(area)
            hit = [i for i in range(n) if inside(poly, grid.x[i], grid.y[i]) and "town" not in features[i]]
            for i in hit:
                features[i].discard("orchard" if kind == "woods" else "woods")
                features[i].add(kind)
            named[area["name"]] = {label(*grid.cells[i]) for i in hit}
    # watercourses on hexsides; the hexes on both banks are stream hexes (depressions)
    water_side: dict[tuple[int, int], str] = {}
    for w in feat["watercourse"].values():
        line = grid.km(w)
        for (c, r) in grid.cells:
            for d in range(3):  # N, NE, SE: every side once
                b = grid.neighbour(c, r, d)
                if not grid.on_board(*b):
                    continue
                p, q = grid.centre(c, r), grid.centre(*b)
                if any(seg_intersect(p, q, line[k], line[k + 1]) for k in range(len(line) - 1)):
                    add_side((c, r), d, w["kind"])
                    water_side[(grid.index[(c, r)], d)] = w["kind"]
                    if w["kind"] in ("stream", "deep_stream"):
                        features[grid.index[(c, r)]].add("stream")
                        features[grid.index[b]].add("stream")
    # roads (and bridges where a road crosses water)
    for rd in feat["road"].values():
        path = road_path(grid, grid.km(rd))
        for a, b in zip(path[:-1], path[1:], strict=True):
            d = direction_between(grid, a, b)
            add_side(a, d, "road")
            ia, ib = grid.index[a], grid.index[b]
            features[ia].add("road")
            features[ib].add("road")
            wkey = (ia, d) if d < 3 else (ib, (d + 3) % 6)
            if wkey in water_side:
                add_side(a, d, "bridge")
                features[ia].add("bridge")
                features[ib].add("bridge")
                named.setdefault(f"Bridge {label(*a)}-{label(*b)} ({rd['name']})", set()).update({label(*a), label(*b)})
    # slopes where levels meet (PB2 5.2.3)
    for (c, r) in grid.cells:
        for d in range(3):
            b = grid.neighbour(c, r, d)
            if grid.on_board(*b) and level[grid.index[(c, r)]] != level[grid.index[b]]:
                add_side((c, r), d, "slope")
    # hedges: a fixed hash of the hexside decides, at the area's density
    for area in feat.get("hedges", []):
        poly = grid.km(area)
        dens = float(area["density"])
        for (c, r) in grid.cells:
            for d in range(3):
                b = grid.neighbour(c, r, d)
                if not grid.on_board(*b):
                    continue
                i = grid.index[(c, r)]
                s = sides[i].get(d, set())
                if s & {"road", "stream", "deep_stream", "river"} or "town" in features[i] or "town" in features[grid.index[b]]:
                    continue
                mx, my = (np.array(grid.centre(c, r)) + np.array(grid.centre(*b))) / 2
                if not inside(poly, mx, my):
                    continue
                hval = int(hashlib.sha256(f"{label(c, r)}-{d}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
                if hval < dens:
                    add_side((c, r), d, "hedge")
    # places
    for p in feat.get("place", []):
        px, py = grid.km(p)
        dist = np.hypot(grid.x - px, grid.y - py)
        sel = [i for i in np.flatnonzero(dist <= float(p["radius_km"])) if level[i] >= int(p.get("min_level", 0))]
        if not sel:
            sel = [int(np.argmin(dist))]
        named[p["name"]] = {label(*grid.cells[i]) for i in sel}

    hexes = {}
    for i, (c, r) in enumerate(grid.cells):
        h = {"elevation": int(level[i]), "height_m": round(float(height[i]), 1)}
        if features[i]:
            h["features"] = sorted(features[i])
        if sides[i]:
            h["sides"] = {DIRECTIONS[d]: sorted(fs) for d, fs in sorted(sides[i].items())}
        hexes[label(c, r)] = h
    board = {
        "schema": "wargame-board/1",
        "extensions": {
            "pbv2": {
                "version": 1,
                "label_scheme": "xxyy",
                "odd_columns_up": grid.odd_up,
                "levels": [1, 2, 3, 4, 5, 6],
                "level_bands_m": feat["levels"]["bands_m"],
                "hex_yards": feat["grid"]["hex_yards"],
                "stream_model": "hexside",
                "per_hex": {"height_m": "ground height at the centre dot, metres (reconstructed; information only)"},
                "doc": "docs/panzerblitz-v2/map.md",
            }
        },
        "ruleset": "panzerblitz-v2",
        "board": "HOD",
        "source": {
            "generator": "tools/pbv2_make_map.py",
            "features": "situations/rulesets/panzerblitz-v2/boards/hill112-features.toml",
            "feature_table_sha256": hashlib.sha256(FEATURES.read_bytes()).hexdigest(),
            "status": "reconstructed: the Hill of Death map is not in the sources (docs/panzerblitz-v2/map.md)",
        },
        "columns": [f"{c:02d}" for c in range(1, grid.cols + 1)],
        "rows_even": grid.rows,
        "rows_odd": grid.rows,
        "named": {k: sorted(v) for k, v in sorted(named.items())},
        "hexes": hexes,
    }
    return board, {"grid": grid, "height": height, "level": level, "features": features, "sides": sides, "feat": feat}


# ----------------------------------------------------------------------------- drawing

LEVEL_COLOURS = ["#2f5d2a", "#4a7a3a", "#6a9650", "#8db36b", "#b3cf8e", "#dbe8b5"]  # level 1 darkest (PB2 5.2)


def draw(geo: dict, path: Path, dpi: int = 110) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection, PolyCollection

    grid, level, features, sides, feat = geo["grid"], geo["level"], geo["features"], geo["sides"], geo["feat"]
    polys, colours = [], []
    for i, (c, r) in enumerate(grid.cells):
        polys.append(grid.corners(c, r))
        f = features[i]
        if "town" in f:
            colours.append("#a0643c")
        else:
            colours.append(LEVEL_COLOURS[level[i] - 1])
    fig, ax = plt.subplots(figsize=(grid.cols * 0.36, grid.rows * 0.36 * 1.1))
    ax.add_collection(PolyCollection(polys, facecolors=colours, edgecolors="#00000022", linewidths=0.3))
    # woods and orchards as symbols
    for i in range(len(grid.cells)):
        f = features[i]
        if "woods" in f:
            ax.add_patch(plt.Circle((grid.x[i], grid.y[i]), grid.r * 0.62, color="#133d12", alpha=0.85, lw=0))
        if "orchard" in f:
            for dx, dy in ((-0.35, -0.3), (0.35, -0.3), (0.0, 0.35)):
                ax.add_patch(plt.Circle((grid.x[i] + dx * grid.r, grid.y[i] + dy * grid.r), grid.r * 0.18,
                                        color="#1f5a1c", lw=0))
    # hexside features
    kinds = {"slope": ("#3b2a14", 1.3, "-"), "hedge": ("#0f3310", 1.4, ":"), "stream": ("#2c7fd6", 2.2, "-"),
             "deep_stream": ("#1f5fb8", 3.2, "-"), "river": ("#1a4fa0", 5.0, "-")}
    segs = {k: [] for k in kinds}
    for i, (c, r) in enumerate(grid.cells):
        for d, fs in sides[i].items():
            if d >= 3:
                continue
            for k in kinds:
                if k in fs:
                    segs[k].append(grid.side_ends(c, r, d))
    for k, (col, lw, ls) in kinds.items():
        if segs[k]:
            ax.add_collection(LineCollection(segs[k], colors=col, linewidths=lw, linestyles=ls))
    # roads centre to centre
    road_segs, bridge_pts = [], []
    for i, (c, r) in enumerate(grid.cells):
        for d, fs in sides[i].items():
            if d < 3 and "road" in fs:
                b = grid.neighbour(c, r, d)
                road_segs.append([grid.centre(c, r), grid.centre(*b)])
                if "bridge" in fs:
                    bridge_pts.append(np.mean(grid.side_ends(c, r, d), axis=0))
    ax.add_collection(LineCollection(road_segs, colors="#fffdf4", linewidths=2.6))
    ax.add_collection(LineCollection(road_segs, colors="#8b3a1a", linewidths=1.0))
    for bx, by in bridge_pts:
        ax.add_patch(plt.Rectangle((bx - grid.r * 0.35, by - grid.r * 0.2), grid.r * 0.7, grid.r * 0.4,
                                   color="#222222", zorder=5))
    # labels: villages, places, hex numbers every fifth
    for v in feat["village"]:
        vx, vy = grid.km(v)
        ax.text(vx, vy - 0.22, v["name"], ha="center", va="bottom", fontsize=8, weight="bold", color="#111111",
                bbox={"boxstyle": "round,pad=0.1", "fc": "#ffffffaa", "ec": "none"}, zorder=6)
    for p in feat.get("place", []):
        px, py = grid.km(p)
        ax.text(px + 0.3, py - 0.05, p["name"], ha="left", va="center", fontsize=7, style="italic", color="#111111",
                bbox={"boxstyle": "round,pad=0.1", "fc": "#ffffffaa", "ec": "none"}, zorder=6)
    for i, (c, r) in enumerate(grid.cells):
        if c % 5 == 0 and r % 5 == 0:
            ax.text(grid.x[i], grid.y[i] + grid.r * 0.55, label(c, r), ha="center", va="center", fontsize=5, color="#222222")
    # legend
    from matplotlib.patches import Patch
    handles = [Patch(color=LEVEL_COLOURS[k], label=f"level {k + 1}") for k in range(6)]
    handles += [Patch(color="#a0643c", label="town"), Patch(color="#133d12", label="woods"),
                Patch(color="#1f5a1c", label="orchard (dots)")]
    ax.legend(handles=handles, loc="lower right", fontsize=7, framealpha=0.9)
    ax.set_xlim(-0.05, grid.x.max() + grid.r + 0.05)
    ax.set_ylim(grid.y.max() + grid.h + 0.05, -0.1)
    ax.set_aspect("equal")
    ax.set_title("Hill 112, Normandy 1944 - reconstructed Hill of Death board (250-yard hexes, six levels; "
                 "blue = Odon / Guigne / Orne, brown lines = slopes, dotted = hedges)", fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.tmp.png")
    fig.savefig(tmp, dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    tmp.replace(path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--png", type=Path, default=PNG_OUT, help="where to draw the board")
    ap.add_argument("--no-png", action="store_true")
    args = ap.parse_args(argv)
    with open(FEATURES, "rb") as fh:
        feat = tomllib.load(fh)
    board, geo = build(feat)
    write_atomic(BOARD_OUT, json.dumps(board, indent=1, sort_keys=False) + "\n")
    print(f"wrote {BOARD_OUT} ({len(board['hexes'])} hexes)")
    if not args.no_png:
        draw(geo, args.png)
        print(f"drew {args.png}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
