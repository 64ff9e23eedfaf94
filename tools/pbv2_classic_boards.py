"""The classic PanzerBlitz boards 1, 2, 3 as Panzer Blitz v2.0 boards (docs/panzerblitz-v2/conversion.md#boards).

    python tools/pbv2_classic_boards.py            # write boards/board-1.json, -2, -3 of panzerblitz-v2
    python tools/pbv2_classic_boards.py --check    # exit 1 if the written boards are not current

Reads  situations/rulesets/panzerblitz/boards/board-{1,2,3}.json (the classic boards) and
       situations/rulesets/panzerblitz-v2/conversion.toml [conversion.boards] (the mapping).
Writes situations/rulesets/panzerblitz-v2/boards/board-{1,2,3}.json: the same hexes, labels and named
       places, classic elevation numbers as v2 levels, classic features in the v2 vocabulary, a
       slope hexside wherever two hexes of a board differ in level (PB2 14.9).  Deterministic.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pbv2_data import write_or_check  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CLASSIC = ROOT / "situations" / "rulesets" / "panzerblitz" / "boards"
V2 = ROOT / "situations" / "rulesets" / "panzerblitz-v2"
DIRECTIONS = ("N", "NE", "SE", "S", "SW", "NW")
BOARDS = ("1", "2", "3")


def _offset(col: int, d: int) -> tuple[int, int]:
    """(d_col, d_row) of the neighbour in direction d of a hex in board column `col` (classic
    boards: columns A, C, ... low, B, D, ... high; as simulator/hexgrid.neighbour_offset)."""
    even = col % 2 == 0
    return ((0, -1), (1, 0) if even else (1, -1), (1, 1) if even else (1, 0), (0, 1),
            (-1, 1) if even else (-1, 0), (-1, 0) if even else (-1, -1))[d]


def convert(classic: dict, rule: dict) -> dict:
    levels = {int(k): int(v) for k, v in rule["levels"].items()}
    hexmap, sidemap = rule["hex_features"], rule["hexside_features"]
    cols = classic["columns"]
    name = classic["board"]
    by_cell = {}
    for label in classic["hexes"]:
        body = label[len(name):]
        letters = body.rstrip("0123456789")
        by_cell[(cols.index(letters), int(body[len(letters):]) - 1)] = label
    out_hexes = {}
    for (c, r), label in sorted(by_cell.items()):
        h = classic["hexes"][label]
        lev = levels[int(h.get("elevation", 0))]
        feats = sorted({hexmap[f] for f in h.get("features", []) if hexmap[f]})
        sides: dict[str, set[str]] = {}
        for d, fs in (h.get("sides") or {}).items():
            kept = {sidemap[f] for f in fs if sidemap[f]}
            if kept:
                sides.setdefault(d, set()).update(kept)
        if rule.get("slope_between_levels", True):
            for di, d in enumerate(DIRECTIONS):
                dc, dr = _offset(c, di)
                other = by_cell.get((c + dc, r + dr))
                if other and levels[int(classic["hexes"][other].get("elevation", 0))] != lev:
                    sides.setdefault(d, set()).add("slope")
        entry: dict = {"elevation": lev}
        if feats:
            entry["features"] = feats
        if sides:
            entry["sides"] = {d: sorted(sides[d]) for d in DIRECTIONS if d in sides}
        out_hexes[label] = entry
    return {
        "schema": "wargame-board/1",
        "ruleset": "panzerblitz-v2",
        "board": name,
        "source": {
            "from": f"situations/rulesets/panzerblitz/boards/board-{name}.json",
            "converted_by": "tools/pbv2_classic_boards.py with conversion.toml [conversion.boards]",
            "doc": "docs/panzerblitz-v2/conversion.md#boards",
            "provenance": "reconstructed (the classic board's terrain, read in the v2.0 terrain vocabulary)",
        },
        "columns": cols,
        "rows_even": classic["rows_even"],
        "rows_odd": classic["rows_odd"],
        "named": classic.get("named", {}),
        "hexes": out_hexes,
    }


def boards() -> dict[str, str]:
    rule = tomllib.loads((V2 / "conversion.toml").read_text())["conversion"]["boards"]
    out = {}
    for b in BOARDS:
        classic = json.loads((CLASSIC / f"board-{b}.json").read_text())
        out[b] = json.dumps(convert(classic, rule), indent=1, sort_keys=False) + "\n"
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if the written boards are not current")
    a = ap.parse_args(argv)
    files = {V2 / "boards" / f"board-{b}.json": text for b, text in boards().items()}
    return write_or_check(files, a.check, "tools/pbv2_classic_boards.py", ROOT)

if __name__ == "__main__":
    sys.exit(main())
