"""Areas of a map named by filters (`{ boards = ["2"], edge = "north" }`): checking and resolving them.

Set-up areas, entry areas and victory areas of every ruleset use this vocabulary
(docs/situation-format.md, "Areas"): hexes, boards, edge, region, columns, rows, terrain,
hexsides, anywhere, and exclude_hexes.  Filters intersect.  A ruleset may allow more keys in its
areas (PanzerBlitz's set-up next to a unit) and checks and resolves those itself.
"""

from __future__ import annotations

import re

import numpy as np

from simulator.mapdata import EDGES, GameMap
from simulator.problems import Problems, known, suggest
from simulator.ruleset import RulesetData

AREA_FILTERS = ("hexes", "boards", "edge", "region", "columns", "rows", "terrain", "hexsides", "anywhere")
AREA_KEYS = {*AREA_FILTERS, "exclude_hexes"}
RANGE_RE = re.compile(r"^\s*([A-Za-z0-9]+)\s*(?:-\s*([A-Za-z0-9]+))?\s*$")


def _column_range(spec: str, columns: tuple[str, ...]) -> set[int] | None:
    m = RANGE_RE.match(spec.upper())
    if not m or m.group(1) not in columns or (m.group(2) and m.group(2) not in columns):
        return None
    a = columns.index(m.group(1))
    b = columns.index(m.group(2)) if m.group(2) else a
    return set(range(min(a, b), max(a, b) + 1))


def _row_range(spec) -> set[int] | None:
    if isinstance(spec, int) and not isinstance(spec, bool):
        return {spec}
    if not isinstance(spec, str):
        return None
    m = RANGE_RE.match(spec)
    if not m or not m.group(1).isdigit() or (m.group(2) and not m.group(2).isdigit()):
        return None
    a, b = int(m.group(1)), int(m.group(2) or m.group(1))
    return set(range(min(a, b), max(a, b) + 1))


def check_area(area, game_map: GameMap, ruleset: RulesetData, probs: Problems, fld: str,
               allowed: set[str] = AREA_KEYS, standalone: tuple[str, ...] = ()) -> bool:
    """Schema and meaning checks of one area table; True when it can be resolved.

    `allowed`: the keys the table may have (a ruleset adds its own, checked by itself);
    `standalone`: keys of those that place units without any filter (PanzerBlitz's `with_unit`)."""
    if not probs.check_type(area, dict, fld, "a table of area filters, e.g. { boards = [\"2\"] }"):
        return False
    n0 = len(probs.items)
    probs.unknown_keys(area, allowed, fld)
    filters = [k for k in area if k in AREA_FILTERS]
    if not filters and not any(k in area for k in standalone):
        probs.add(fld, "no area filter given",
                  "at least one of hexes, boards, edge, region, columns, rows, terrain, hexsides, anywhere")
    for key in ("hexes", "exclude_hexes"):
        if key in area and probs.check_type(area[key], list, f"{fld}.{key}", "a list of hex labels like \"2G7\""):
            for i, label in enumerate(area[key]):
                if not isinstance(label, str):
                    probs.add(f"{fld}.{key}[{i}]", f"got {label!r}", "a hex label string like \"2G7\"")
                elif label.strip().upper() not in game_map.index:
                    probs.add(f"{fld}.{key}[{i}]", f"hex {label!r} is not on this map (boards {game_map.board_names()})",
                              "a hex label on one of the situation's boards, board number + column letters + row, e.g. \"2G7\"")
    on_map = {b.removesuffix("i") for b in game_map.board_names()}
    if "boards" in area and probs.check_type(area["boards"], list, f"{fld}.boards", "a list of board names like [\"2\"]"):
        for i, b in enumerate(area["boards"]):
            if str(b) not in on_map:
                probs.add(f"{fld}.boards[{i}]", f"board {b!r} is not in this situation's layout", f"one of {sorted(on_map)}")
    if "edge" in area and area["edge"] not in (*EDGES, "any"):
        probs.add(f"{fld}.edge", f"got {area['edge']!r}", f"one of {[*EDGES, 'any']} (north = top of the drawn map)")
    if "region" in area:
        regions = area["region"] if isinstance(area["region"], list) else [area["region"]]
        for r in regions:
            if not known(r, game_map.named):
                probs.add(f"{fld}.region", f"unknown region {r!r}", suggest(str(r), game_map.named, "town or hill name"))
    if "terrain" in area and probs.check_type(area["terrain"], list, f"{fld}.terrain", "a list of hex features"):
        for t in area["terrain"]:
            if not known(t, game_map.hex_vocab):
                probs.add(f"{fld}.terrain", f"unknown terrain {t!r}", f"one of {list(game_map.hex_vocab)}")
    if "hexsides" in area and probs.check_type(area["hexsides"], dict, f"{fld}.hexsides",
                                               "a table hexside feature -> how many, e.g. { orange = 6 }"):
        for feat, k in area["hexsides"].items():
            if not known(feat, game_map.side_vocab):
                probs.add(f"{fld}.hexsides.{feat}", "unknown hexside feature", f"one of {list(game_map.side_vocab)}")
            if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= 6:
                probs.add(f"{fld}.hexsides.{feat}", f"got {k!r}", "a number of hexsides, 0 to 6")
    if "columns" in area:
        cols = ruleset.board(game_map.board_names()[0].removesuffix("i")).columns
        if not isinstance(area["columns"], str) or _column_range(area["columns"], cols) is None:
            probs.add(f"{fld}.columns", f"got {area['columns']!r}", "a column letter or range like \"A-J\"")
    if "rows" in area and _row_range(area["rows"]) is None:
        probs.add(f"{fld}.rows", f"got {area['rows']!r}", "a row number or range like \"1-3\"")
    if "anywhere" in area and area["anywhere"] is not True:
        probs.add(f"{fld}.anywhere", f"got {area['anywhere']!r}", "true")
    return len(probs.items) == n0


def resolve_static_area(area: dict, game_map: GameMap, ruleset: RulesetData, where: str, fld: str) -> np.ndarray:
    """The hexes an area names, before constraints that depend on where units are.

    Filters intersect.  `boards` keeps only hexes that belong to those boards alone: a half
    hex shared by two boards belongs to neither for set-up and victory (PB-VIC-2).
    """
    n = game_map.n_hexes
    keep = np.ones(n, dtype=bool)
    if "hexes" in area:
        sel = np.zeros(n, dtype=bool)
        sel[[game_map.lookup(h) for h in area["hexes"]]] = True
        keep &= sel
    if "boards" in area:
        sel = np.zeros(n, dtype=bool)
        for b in area["boards"]:
            sel[game_map.sole_board_hexes(str(b))] = True
        keep &= sel
    if "edge" in area:
        sel = np.zeros(n, dtype=bool)
        sel[game_map.edge_hexes(area["edge"])] = True
        keep &= sel
    if "region" in area:
        regions = area["region"] if isinstance(area["region"], list) else [area["region"]]
        sel = np.zeros(n, dtype=bool)
        for r in regions:
            sel[list(game_map.named[r])] = True
        keep &= sel
    if "terrain" in area:
        sel = np.zeros(n, dtype=bool)
        for t in area["terrain"]:
            sel |= game_map.has_feature(t)
        keep &= sel
    for feat, k in area.get("hexsides", {}).items():
        # at least k of the hex's six sides carry the feature (PB-SIT-1: a hilltop hex "with six
        # Orange hex-sides")
        keep &= ((game_map.side_features & game_map.side_bit(feat)) != 0).sum(axis=1) >= k
    if "columns" in area or "rows" in area:
        cols = ruleset.board(game_map.board_names()[0].removesuffix("i")).columns
        col_set = _column_range(area["columns"], cols) if "columns" in area else None
        row_set = _row_range(area["rows"]) if "rows" in area else None
        sel = np.zeros(n, dtype=bool)
        for i, cells in enumerate(game_map.cells):
            for col, row in cells:  # every name of a merged half hex, on its own board
                if (col_set is None or col in col_set) and (row_set is None or row in row_set):
                    sel[i] = True
        keep &= sel
    if "exclude_hexes" in area:
        keep[[game_map.lookup(h) for h in area["exclude_hexes"]]] = False
    # Closed hexes (PB-GEN-4: the pond) can never be set up in or entered.
    for f in ruleset.data["map"].get("closed_hex_features", []):
        keep &= ~game_map.has_feature(f)
    return np.flatnonzero(keep)
