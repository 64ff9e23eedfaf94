"""Build the reconstructed First Panzer Army map from its geography table.

    python tools/fpa_mapgen.py            # writes situations/rulesets/first-panzer-army/boards/board-fpa.json
    python tools/fpa_mapgen.py --check    # exit 1 if the committed board differs from a fresh build
    python tools/fpa_mapgen.py --report   # also print the fit, the towns' hexes and the checks

The map sheet of FPA is not in the source text (FPA 2.1).  This script takes the documented
table of real geography (situations/rulesets/first-panzer-army/geography.toml: towns, river
polylines, terrain areas, all in latitude/longitude) and projects it onto the hex grid the
text's hex numbers imply (tools/fpa_grid.py):

1. a least-squares similarity transform (scale, rotation, shift) fitted on the text's anchor
   towns (Ternopol 0805, Proskurov 2607, Krasilov 2603, Khmelnik 4004, Vinnitsa 4513/4612/4613);
2. a smooth Gaussian radial-basis correction that puts every anchor, and the example turn's
   river hexside 2218|2119, exactly in place (the printed map is "amended slightly to make it
   conform to the map's hex-grid", FPA 2.1);
3. places to their nearest hex; terrain areas to the hexes whose centres they cover;
   rivers to chains of hexsides (a shortest path along hex edges that stays close to the
   projected polyline, tributaries ending on the river they join);
4. the edge hex ranges of the text (8.2, 9.2, 10.1, 4.1) and the Soviet no-go area of 12.5
   (everything west of the Strypa and north of the Dnestr, by flood fill).

Every hex and hexside carries its provenance (`text`, `fit`, `estimate`).  Deterministic: the
same table gives the same file, byte for byte.  Pure Python and numpy; runs in about a second.
"""

from __future__ import annotations

import argparse
import hashlib
import heapq
import itertools
import json
import math
import sys
import tomllib
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fpa_grid as grid  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RULESET_DIR = ROOT / "situations" / "rulesets" / "first-panzer-army"
GEOGRAPHY = RULESET_DIR / "geography.toml"
BOARD = RULESET_DIR / "boards" / "board-fpa.json"

TERRAINS = ("clear", "forest", "rough", "marsh", "town", "fortified_locality")


class MapError(Exception):
    pass


# ------------------------------------------------------------------------------ projection

class Projection:
    """lat/lon -> hex units: local km, similarity fit on the anchors, then an exact RBF warp."""

    def __init__(self, geo: dict):
        p = geo["projection"]
        self.lat0, self.lon0 = p["lat0"], p["lon0"]
        self.ky = p["km_per_deg_lat"]
        self.kx = p["km_per_deg_lon_equator"] * math.cos(math.radians(self.lat0))
        self.sigma = p["warp_sigma"]
        anchors = geo["anchor"]
        src = np.array([self.km(a["lat"], a["lon"]) for a in anchors])
        dst = np.array([np.mean([grid.centre(h) for h in a["hexes"]], axis=0) for a in anchors])
        # Similarity as complex least squares: z' = a z + b.
        z = src[:, 0] + 1j * src[:, 1]
        w = dst[:, 0] + 1j * dst[:, 1]
        design = np.vstack([z, np.ones_like(z)]).T
        (self.a, self.b), *_ = np.linalg.lstsq(design, w, rcond=None)
        fitted = design @ np.array([self.a, self.b])
        self.anchor_residuals = {a["name"]: (float((w - fitted)[i].real), float((w - fitted)[i].imag))
                                 for i, a in enumerate(anchors)}
        # Warp control points: anchors and the text's river hexsides.
        ctrl_src, ctrl_dst = list(fitted), list(w)
        for c in geo.get("control", []):
            h1, h2 = c["hexside"]
            mid = np.mean([grid.centre(h1), grid.centre(h2)], axis=0)
            ctrl_src.append(self.similarity(c["lat"], c["lon"]))
            ctrl_dst.append(complex(*mid))
        self.ctrl = np.array(ctrl_src)
        resid = np.array(ctrl_dst) - self.ctrl
        phi = self._phi(self.ctrl[:, None] - self.ctrl[None, :])
        self.weights = np.linalg.solve(phi, resid)
        self.control_shift = {c["name"]: (float(r.real), float(r.imag))
                              for c, r in zip(geo.get("control", []), resid[len(anchors):], strict=True)}

    def _phi(self, d):
        return np.exp(-np.abs(d) ** 2 / (2.0 * self.sigma ** 2))

    def km(self, lat: float, lon: float) -> tuple[float, float]:
        return (lon - self.lon0) * self.kx, -(lat - self.lat0) * self.ky

    def similarity(self, lat: float, lon: float) -> complex:
        return self.a * complex(*self.km(lat, lon)) + self.b

    def __call__(self, lat: float, lon: float) -> tuple[float, float]:
        q = self.similarity(lat, lon)
        q = q + np.sum(self.weights * self._phi(q - self.ctrl))
        return float(q.real), float(q.imag)

    @property
    def hex_units_per_km(self) -> float:
        return abs(self.a)

    def summary(self) -> dict:
        return {
            "method": "local equirectangular km -> least-squares similarity on the anchors -> "
                      "Gaussian RBF correction exact at anchors and control hexsides",
            "scale_hex_per_km": round(abs(self.a), 6),
            "km_per_hex_geographic": round(1.0 / abs(self.a), 4),
            "map_scale_vs_nominal_6_8_km": round(6.8 * abs(self.a), 4),
            "rotation_deg": round(math.degrees(math.atan2(self.a.imag, self.a.real)), 3),
            "warp_sigma_hexes": self.sigma,
            "anchor_residuals_hexes": {k: [round(v[0], 3), round(v[1], 3)]
                                       for k, v in self.anchor_residuals.items()},
            "anchor_rms_hexes": round(math.sqrt(np.mean([v[0] ** 2 + v[1] ** 2 for v in self.anchor_residuals.values()])), 3),
            "control_shift_hexes": {k: [round(v[0], 3), round(v[1], 3)] for k, v in self.control_shift.items()},
        }


# ------------------------------------------------------------------------------ geometry helpers

HEXES = grid.all_hexes()
CENTRES = {h: grid.centre(h) for h in HEXES}


def nearest_hex(x: float, y: float) -> tuple[str, float]:
    best, bd = None, math.inf
    for h, (cx, cy) in CENTRES.items():
        d = (cx - x) ** 2 + (cy - y) ** 2
        if d < bd:
            best, bd = h, d
    return best, math.sqrt(bd)


def point_in_polygon(x: float, y: float, poly: list[tuple[float, float]]) -> bool:
    inside = False
    n = len(poly)
    for i in range(n):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
        if (y1 > y) != (y2 > y) and x < (x2 - x1) * (y - y1) / (y2 - y1) + x1:
            inside = not inside
    return inside


def dist_to_polyline(x: float, y: float, line: list[tuple[float, float]]) -> float:
    best = math.inf
    for (x1, y1), (x2, y2) in itertools.pairwise(line):
        dx, dy = x2 - x1, y2 - y1
        t = 0.0 if dx == dy == 0 else max(0.0, min(1.0, ((x - x1) * dx + (y - y1) * dy) / (dx * dx + dy * dy)))
        best = min(best, math.hypot(x - x1 - t * dx, y - y1 - t * dy))
    return best


# ------------------------------------------------------------------------------ hexside graph

def build_edge_graph():
    """Corner lattice graph: corner -> {corner: (hexA, hexB or None)} over every hex side."""
    graph: dict[tuple[int, int], dict[tuple[int, int], tuple[str, str | None]]] = {}
    for h in HEXES:
        nb = grid.neighbours(h)
        for d, (k1, k2) in grid.SIDE_CORNERS.items():
            a, b = grid.corner_key(h, k1), grid.corner_key(h, k2)
            pair = tuple(sorted((h, nb[d]))) if d in nb else (h, None)
            graph.setdefault(a, {})[b] = pair
            graph.setdefault(b, {})[a] = pair
    return graph


def nearest_corner(graph, x: float, y: float, among=None) -> tuple[int, int]:
    keys = among if among is not None else graph.keys()
    return min(keys, key=lambda k: (grid.corner_xy(k)[0] - x) ** 2 + (grid.corner_xy(k)[1] - y) ** 2)


def route(graph, start, goals: set, line, penalty: float = 12.0):
    """Cheapest corner path from start to any goal; each side costs its length (R) times
    1 + penalty * (distance of its midpoint from the projected river line)^2."""
    dist = {start: 0.0}
    prev = {}
    heap = [(0.0, start)]
    while heap:
        d, k = heapq.heappop(heap)
        if k in goals:
            path = [k]
            while path[-1] != start:
                path.append(prev[path[-1]])
            return path[::-1]
        if d > dist[k]:
            continue
        kx, ky = grid.corner_xy(k)
        for n in sorted(graph[k]):
            nx, ny = grid.corner_xy(n)
            m = dist_to_polyline((kx + nx) / 2, (ky + ny) / 2, line)
            nd = d + grid.R * (1.0 + penalty * m * m)
            if nd < dist.get(n, math.inf) - 1e-12:
                dist[n] = nd
                prev[n] = k
                heapq.heappush(heap, (nd, n))
    raise MapError("no hexside path for a river")


def shared_corners(a: str, b: str) -> tuple[tuple[int, int], tuple[int, int]]:
    d = grid.direction_to(a, b)
    if d is None:
        raise MapError(f"{a} and {b} are not adjacent")
    k1, k2 = grid.SIDE_CORNERS[d]
    return grid.corner_key(a, k1), grid.corner_key(a, k2)


# ------------------------------------------------------------------------------ build

def build(geo: dict) -> tuple[dict, dict]:
    proj = Projection(geo)
    report: dict = {"fit": proj.summary(), "places": {}, "warnings": []}

    terrain = {h: ("clear", "estimate", "default: open Podolian farmland") for h in HEXES}

    # Terrain areas (later entries win).
    upk = proj.hex_units_per_km
    for area in geo.get("area", []):
        if area["terrain"] not in TERRAINS:
            raise MapError(f"area {area['name']!r}: terrain {area['terrain']!r} not one of {TERRAINS}")
        if "polygon" in area:
            poly = [proj(la, lo) for la, lo in area["polygon"]]
            members = [h for h in HEXES if point_in_polygon(*CENTRES[h], poly)]
        else:
            line = [proj(la, lo) for la, lo in area["band"]]
            half = area["half_width_km"] * upk
            members = [h for h in HEXES if dist_to_polyline(*CENTRES[h], line) <= half]
        for h in members:
            terrain[h] = (area["terrain"], "fit", area["name"])
        report.setdefault("areas", {})[area["name"]] = len(members)

    # Places.
    named: dict[str, list[str]] = {}
    places: dict[str, dict] = {}
    occupied: dict[str, str] = {}
    for p in geo["place"]:
        x, y = proj(p["lat"], p["lon"])
        if "hexes" in p:
            hexes = list(p["hexes"])
        elif "hex" in p:
            hexes = [p["hex"]]
        else:
            h, d = nearest_hex(x, y)
            hexes = [h]
        fitted, off = nearest_hex(x, y)
        for h in hexes:
            c, r = grid.parse(h)
            if not grid.on_grid(c, r):
                raise MapError(f"place {p['name']}: hex {h} is off the map")
        if p["kind"] in ("town", "fortified_locality"):
            for h in hexes:
                if h in occupied:
                    raise MapError(f"places {occupied[h]} and {p['name']} fall on the same hex {h}")
                occupied[h] = p["name"]
                terrain[h] = (p["kind"], p["src"], p["name"])
        named[p["name"]] = hexes
        places[p["name"]] = {
            "kind": p["kind"], "hexes": hexes, "src": p["src"],
            "kind_src": p.get("kind_src", p["src"] if p["kind"] != "place" else "estimate"),
            "lat": p["lat"], "lon": p["lon"], "projected": [round(x, 3), round(y, 3)],
            "fit_hex": fitted,
            **({"garrison": p["garrison"]} if "garrison" in p else {}),
            **({"vp_end": p["vp_end"]} if "vp_end" in p else {}),
            **({"bank": p["bank"]} if "bank" in p else {}),
        }
        report["places"][p["name"]] = (hexes, fitted, round(off, 2))

    # Text overrides.
    for o in geo.get("override", []):
        if terrain[o["hex"]][0] in ("town", "fortified_locality"):
            raise MapError(f"override {o['hex']}: would replace the town {terrain[o['hex']][2]}")
        terrain[o["hex"]] = (o["terrain"], o["src"], o["why"])

    # Rivers.
    graph = build_edge_graph()
    rivers: dict[str, dict] = {}
    chains: dict[str, list[tuple[int, int]]] = {}
    sides: dict[tuple[str, str], dict] = {}
    for rv in geo["river"]:
        line = [proj(la, lo) for la, lo in rv["points"]]
        start = nearest_corner(graph, *line[0])
        if "joins" in rv:
            parent = chains[rv["joins"]]
            end_goals = {nearest_corner(graph, *line[-1], among=parent)}
        else:
            end_goals = {nearest_corner(graph, *line[-1])}
        forced = set()
        path = [start]
        for h1, h2 in rv.get("via", []):
            a, b = shared_corners(h1, h2)
            xa, ya = grid.corner_xy(a)
            xb, yb = grid.corner_xy(b)
            sx, sy = grid.corner_xy(path[-1])
            if math.hypot(xb - sx, yb - sy) < math.hypot(xa - sx, ya - sy):
                a, b = b, a
            path += route(graph, path[-1], {a}, line)[1:]
            path.append(b)
            forced.add(tuple(sorted((h1, h2))))
        path += route(graph, path[-1], end_goals, line)[1:]
        chains[rv["name"]] = path
        n_sides = 0
        for k1, k2 in itertools.pairwise(path):
            a, b = graph[k1][k2]
            if b is None:
                continue  # a side on the map's rim: no hex beyond it
            key = (a, b)
            if key in sides:
                continue  # confluence: the river drawn first keeps the hexside
            sides[key] = {"river": rv["name"], "kind": rv["kind"],
                          "src": "text" if key in forced else "fit"}
            n_sides += 1
        rivers[rv["name"]] = {"kind": rv["kind"], "hexsides": n_sides,
                              "joins": rv.get("joins"), "plus_one_crossing": rv["kind"] == "major"}

    # Per-hex records.
    hexes_out: dict[str, dict] = {}
    for h in HEXES:
        t, src, why = terrain[h]
        rec: dict = {"elevation": 0, "features": [] if t == "clear" else [t], "src": src}
        if src != "fit" or t != "clear":
            rec["why"] = why
        hexes_out[h] = rec
    for (a, b), info in sorted(sides.items()):
        feats = ["river", "major_river"] if info["kind"] == "major" else ["river"]
        for x, y in ((a, b), (b, a)):
            d = grid.direction_to(x, y)
            hexes_out[x].setdefault("sides", {})[d] = feats
            hexes_out[x].setdefault("side_info", {})[d] = {"river": info["river"], "src": info["src"]}
    for rec in hexes_out.values():
        if "sides" in rec:
            order = {d: i for i, d in enumerate(grid.DIRECTIONS)}
            rec["sides"] = dict(sorted(rec["sides"].items(), key=lambda kv: order[kv[0]]))
            rec["side_info"] = dict(sorted(rec["side_info"].items(), key=lambda kv: order[kv[0]]))

    edges = edge_roles()
    restricted = soviet_restricted(sides, geo)
    check_banks(places, sides, report)

    board = {
        "schema": "wargame-board/1",
        # The same two grid keys as the pbv2 board (docs/panzerblitz-v2/map.md), so the core's
        # loader implements one scheme for both: XXYY labels and odd columns up.
        "extensions": {"fpa": {
            "version": 1,
            "label_scheme": "xxyy",
            "odd_columns_up": True,
            "terrain_types": list(TERRAINS),
            "per_hex": {
                "src": "provenance of the hex's terrain: text | fit | estimate",
                "why": "the reason for that terrain (area name, text fact, default)",
                "side_info": "per hexside direction: river name and provenance (text | fit)",
            },
            "places": "every named place: kind, hexes, coordinates, provenance, VP end state",
            "rivers": "per river: kind, hexsides, the river it joins, +1 crossing roll",
            "edges": "the rules' edge ranges as hex lists (FPA 4.1, 8.2, 9.2, 10.1)",
            "regions": "hex sets the rules define by geography or column (FPA 12.5, 3.2(6))",
            "doc": "docs/first-panzer-army/map.md",
        }},
        "ruleset": "first-panzer-army",
        "board": "fpa",
        "columns": [f"{c:02d}" for c in range(1, grid.COLUMNS + 1)],
        # Board-local parity as the core reads it: index 0, 2, ... (= FPA 01, 03, ...) are even.
        "rows_even": grid.ROWS_ODD_COLUMN,
        "rows_odd": grid.ROWS_EVEN_COLUMN,
        "source": {
            "generator": "tools/fpa_mapgen.py",
            "geography": "situations/rulesets/first-panzer-army/geography.toml",
            "geography_sha256": hashlib.sha256(GEOGRAPHY.read_bytes()).hexdigest(),
            "fit": proj.summary(),
            "notes": "reconstruction: the printed FPA map is not in the source text; see docs/first-panzer-army/map.md",
        },
        "named": dict(sorted(named.items())),
        "places": dict(sorted(places.items())),
        "rivers": rivers,
        "edges": edges,
        "regions": {
            "soviet_restricted": {
                "rule": "FPA 12.5",
                "text": "west of the Strypa River and north of the Dnestr River",
                "src": "fit",
                "hexes": restricted,
            },
            "stand_fast": {
                "rule": "FPA 3.2(6)",
                "text": "German units set up in or east of hex row 23xx may not move west of it on Turn 1",
                "src": "text",
                "hexes": [h for h in HEXES if grid.parse(h)[0] >= 23],
            },
        },
        "hexes": hexes_out,
    }
    report["rivers"] = rivers
    report["restricted"] = len(restricted)
    return board, report


def edge_roles() -> dict:
    west = [grid.label(1, r) for r in range(1, grid.rows_in(1) + 1)]
    south = [grid.label(c, grid.rows_in(c)) for c in range(1, grid.COLUMNS + 1)]
    north = [grid.label(c, 1) for c in range(1, grid.COLUMNS + 1)]
    east = [grid.label(grid.COLUMNS, r) for r in range(1, grid.rows_in(grid.COLUMNS) + 1)]

    def span(seq, a, b):
        i, j = seq.index(a), seq.index(b)
        return seq[i:j + 1]

    north_east = north + east[1:]  # 0101 ... 4701, 4702 ... 4729
    west_south = west + south[1:]  # 0101 ... 0129, 0228 ... 4729
    return {
        "soviet_supply": {"rule": "FPA 8.2", "text": "north and east map edges from 1101 to 4729, inclusive",
                          "src": "text", "hexes": span(north_east, "1101", "4729")},
        "german_cc": {"rule": "FPA 9.2", "text": "west and south map edge hexes from 0101 to 4628, inclusive",
                      "src": "text", "hexes": span(west_south, "0101", "4628")},
        "german_entry": {"rule": "FPA 10.1", "text": "any C&C source hex from 0101 to 0113, inclusive (or Ternopol 0805)",
                         "src": "text", "hexes": span(west, "0101", "0113")},
        "soviet_exit": {"rule": "FPA 4.1", "text": "exiting the map between hexes 0729 and 1729, inclusive (1 MP)",
                        "src": "text", "hexes": span(south, "0729", "1729")},
    }


def _components_without(sides: dict, rivers: set[str]) -> dict[str, int]:
    blocked = {k for k, v in sides.items() if v["river"] in rivers}
    comp: dict[str, int] = {}
    for h in HEXES:
        if h in comp:
            continue
        cid = len(set(comp.values()))
        stack = [h]
        comp[h] = cid
        while stack:
            x = stack.pop()
            for n in grid.neighbours(x).values():
                if n not in comp and tuple(sorted((x, n))) not in blocked:
                    comp[n] = cid
                    stack.append(n)
    return comp


def soviet_restricted(sides: dict, geo: dict) -> list[str]:
    """FPA 12.5: the hexes cut off from the rest of the map by the Strypa and Dnestr chains,
    on the north-west side (the component of 0101)."""
    comp = _components_without(sides, {"Strypa", "Dnestr"})
    region = sorted(h for h in HEXES if comp[h] == comp["0101"])
    if comp["0805"] == comp["0101"] or len(region) > 200:
        raise MapError("the Strypa/Dnestr chains do not close off the area west of the Strypa")
    return region


def check_banks(places: dict, sides: dict, report: dict) -> None:
    comp = _components_without(sides, {"Dnestr"})
    north = comp["2607"]
    for name, p in places.items():
        if "bank" not in p:
            continue
        is_north = comp[p["hexes"][0]] == north
        if is_north != (p["bank"] == "north"):
            raise MapError(f"{name} ({p['hexes'][0]}) is on the wrong bank of the Dnestr; adjust the river points")


def render(board: dict) -> str:
    """JSON with one hex a line (readable diffs), deterministic."""
    head = {k: v for k, v in board.items() if k != "hexes"}
    text = json.dumps(head, indent=1, ensure_ascii=False)
    lines = [f'  "{h}": {json.dumps(rec, ensure_ascii=False, sort_keys=False)}' for h, rec in board["hexes"].items()]
    return text[:-2] + ',\n "hexes": {\n' + ",\n".join(lines) + "\n }\n}\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="fail if the committed board is stale")
    ap.add_argument("--report", action="store_true", help="print the fit and where every place fell")
    ap.add_argument("--out", type=Path, default=BOARD)
    args = ap.parse_args(argv)
    with open(GEOGRAPHY, "rb") as fh:
        geo = tomllib.load(fh)
    try:
        board, report = build(geo)
    except MapError as exc:
        print(f"{GEOGRAPHY}: {exc}", file=sys.stderr)
        return 2
    text = render(board)
    if args.report:
        print(json.dumps(report["fit"], indent=1))
        for name, (hexes, fitted, off) in report["places"].items():
            print(f"  {name:20s} {','.join(hexes):16s} fit {fitted} ({off:.2f} from its centre)")
        for name, r in report["rivers"].items():
            print(f"  river {name:10s} {r['hexsides']} hexsides")
        print(f"  areas: {report.get('areas')}")
        print(f"  restricted (12.5): {report['restricted']} hexes")
    if args.check:
        if not args.out.exists() or args.out.read_text() != text:
            print(f"{args.out} is out of date: run python tools/fpa_mapgen.py", file=sys.stderr)
            return 1
        return 0
    tmp = args.out.with_suffix(".json.tmp")
    tmp.write_text(text)
    tmp.replace(args.out)
    print(f"wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
