"""Write the three parametric tables of the Panzer Blitz v2.0 ruleset that the text lacks.

    python tools/pbv2_reconstruct_tables.py            # print what would be written
    python tools/pbv2_reconstruct_tables.py --write    # (re)write the three files

The player-aid card of Hill of Death (Direct Fire Table, range modifiers, AA table) is not in
the rules text; docs/panzerblitz-v2/tables.md reconstructs them from the cells and examples the
text does give.  This script is that reconstruction written down as code, so that the numbers in
situations/rulesets/panzerblitz-v2/{direct_fire,range,aa}.toml can be re-derived (or re-derived
with other parameters) and every value carries its tag: `text` (with the rule case or worked
example) or `reconstructed` (with the section of tables.md that argues for it).

Once written, the TOML files are the source: a designer holding the real card edits them
directly and never needs this script again.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from pbv2_data import write_atomic  # noqa: E402
from tomlout import key, value  # noqa: E402

OUT = ROOT / "situations" / "rulesets" / "panzerblitz-v2"

# ----------------------------------------------------------------------------- Direct Fire Table
# AP odds columns, weakest first, and the AT differential printed under each (tables.md#dft).
COLUMNS = [("1:4", -4), ("1:3", -3), ("1:2", -2), ("2:3", -1), ("1:1", 0), ("3:2", 1),
           ("2:1", 2), ("3:1", 3), ("4:1", 4), ("5:1", 5), ("6:1", 6)]
# Result r is given for a modified roll <= k + OFFSET[r], k = column index (1:4 = 0).
OFFSET = {"3X": -6, "2X": -4, "1X": -2, "DD": 0, "D": 3}
LOWEST_ROW = 1
NOT_ON_COLUMN = -99  # threshold meaning "this result is not on this column"

# Columns fixed by the text (PB2 7.4 example): 3:2, 2:1, 3:1 exist with nothing between them.
AP_LABEL_TEXT = {"3:2": "PB2 7.4 example (7:4 reduces to 3:2)",
                 "2:1": "PB2 7.4 example (11:4 reduces to 2:1); minefield 2-1 (15.2.1)",
                 "1:1": "PB2 15.2 minefield strength 1-1 names a DFT column",
                 "3:1": "PB2 15.2 minefield strength 3-1 names a DFT column"}
AT_LABEL_TEXT = {}  # no AT column is printed in the text


def tag(v, source: str, ref: str) -> dict:
    return {"value": v, "source": source, ("ref" if source == "text" else "see"): ref}


def direct_fire_toml() -> str:
    out = [
        "# Panzer Blitz v2.0 Direct Fire Table (DFT): PB2 7.2, 7.4, 7.5, 7.7, 7.1.8-7.1.9, 15.2.3.1.",
        "# One result grid; each column has two header lines: the AP odds (its key) and the AT",
        "# differential printed under it.  A column lists, per result, the highest MODIFIED roll that",
        "# gives it (low rolls are good for the attacker); rolls above the \"D\" entry are \"-\" (no effect).",
        f"# {NOT_ON_COLUMN} = the result does not appear on that column.  Every value is tagged:",
        "#   source = \"text\" (ref = rule case / worked example) or \"reconstructed\" (see = docs section).",
        "# Written once by tools/pbv2_reconstruct_tables.py; this file is now the source.  With the",
        "# real player-aid card, edit the numbers here (or per run: --set direct_fire.column.3:2.1X.value=4).",
        "",
        "[direct_fire]",
        'results = ["3X", "2X", "1X", "DD", "D", "-"]  # best first (PB2 7.7)',
        'source = "text"',
        'ref = "PB2 7.7 (results -, D, DD, #X)"',
        "",
        "[direct_fire.natural]",
        "# PB2 7.1.8: a natural 2 always has the best result of the column; 7.1.9: a natural 12 always misses.",
        f"best = {value(tag(2, 'text', 'PB2 7.1.8'))}",
        f"miss = {value(tag(12, 'text', 'PB2 7.1.9'))}",
        "",
        "[direct_fire.rows]",
        "# The lowest printed row (\"this or less\"): the best result of a column is the one at this row.",
        f"lowest = {value(tag(LOWEST_ROW, 'reconstructed', 'tables.md#rows'))}",
        "",
        "# Cells the text gives; tools/pbv2_data.py checks the grid against them.",
        "[direct_fire.given.pb2-7-7]",
        'column = "3:2"',
        "modified_roll = 3",
        'result = "1X"',
        'source = "text"',
        'ref = "PB2 7.7 example: 21:14 = 3:2, roll 5 modified -2 = 3, result X"',
    ]
    for k, (ap, at) in enumerate(COLUMNS):
        out += ["", f"[direct_fire.column.{key(ap)}]"]
        ap_src = AP_LABEL_TEXT.get(ap)
        label = tag(ap, "text", ap_src) if ap_src else tag(ap, "reconstructed", "tables.md#ap-line")
        out.append(f"ap_odds = {value(label)}")
        out.append(f"at_differential = {value(tag(at, 'reconstructed', 'tables.md#at-line'))}")
        for res, off in OFFSET.items():
            thr = k + off
            if thr < LOWEST_ROW:  # below the printed rows: never read (tables.md#rows)
                thr = NOT_ON_COLUMN
            out.append(f"{key(res)} = {value(tag(thr, 'reconstructed', 'tables.md#dft'))}")
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- range modifiers
RANGE_TEXT = {0: "PB2 9.1.9 (-2 for range 0); 16.3.2 (dive bombers at range 0: -2)",
              1: "PB2 8.1.7 (-1 for range 1); 7.9d (reaction fire at range 1)",
              4: "PB2 7.6.1 example (range 4 = +1)",
              7: "PB2 7.6.1 example (range 7 = +2)",
              10: "PB2 7.6.1 example (range 10 = +3)"}
MAX_RANGE = 40


def range_modifier(r: int) -> int:
    if r == 0:
        return -2
    if r == 1:
        return -1
    return (r - 1) // 3  # 2-3: 0, 4-6: +1, 7-9: +2, 10-12: +3, ...


def range_toml() -> str:
    out = [
        "# Panzer Blitz v2.0 Range Modifiers table (PB2 7.4, 7.5, 7.6.4): added to the DF roll by range",
        "# (hexes from firer to target, target hex counted; same hex = 0, adjacent = 1).",
        "# Ranges 0, 1, 4, 7, 10 are text; the others reconstructed (tables.md#range): 0 at 2-3, then +1",
        "# for every further 3 hexes, as the text's 4/7/10 steps go.  Fighters ignore the table",
        "# (PB2 16.1.7); IF ignores it by default (readings.if_range_modifiers, PB2-OQ-33).",
        f"# Beyond {MAX_RANGE} hexes use the {MAX_RANGE} entry + 1 per further 3 hexes (no unit reaches it).",
        "",
        "[range]",
        f"max_tabulated = {value(tag(MAX_RANGE, 'reconstructed', 'tables.md#range'))}",
        "",
        "[range.modifier]",
    ]
    for r in range(MAX_RANGE + 1):
        m = range_modifier(r)
        t = tag(m, "text", RANGE_TEXT[r]) if r in RANGE_TEXT else tag(m, "reconstructed", "tables.md#range")
        out.append(f"{key(str(r))} = {value(t)}")
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- AA table
AA_COLUMNS = [1, 2, 3, 4]
AA_OFFSET = {"X": 1, "DD": 3, "D2": 5, "D1": 7}
AA_EQUIVALENCY = [
    # unit class, equivalency, note
    ("mg", 1, "machine guns, light AA (12.7 mm, .50 cal)"),
    ("light_flak", 1, "single 20 mm"),
    ("quad_flak", 2, "20 mm Flakvierling"),
    ("medium_flak", 2, "37 mm / 40 mm Bofors"),
    ("heavy_flak", 3, "88 mm / 3.7 inch in the AA role"),
]


def aa_toml() -> str:
    out = [
        "# Panzer Blitz v2.0 Anti-Aircraft (AA Artillery results) table: PB2 16.4.",
        "# 2d6 + range modifier (the only DRM, 16.4.3.2; AA range = half the printed range, 16.4.3.1),",
        "# read in the column of the firer's AA equivalency.  Per column: the highest modified roll that",
        "# gives each result.  Results (text, 16.4.5): X destroyed (attack cancelled); DD disrupted",
        "# (attack at +3, then recalled); D2 / D1 attack disrupted (+2 / +1 to its roll, stays).",
        "# The grid and the equivalencies are reconstructed (tables.md#aa).",
        "",
        "[aa]",
        'results = ["X", "DD", "D2", "D1", "-"]  # best first',
        "",
        "[aa.effect]",
        "# What each result adds to the aircraft's attack roll (PB2 16.4.5); X cancels the attack.",
        f"DD = {value(tag(3, 'text', 'PB2 16.4.5 (DD: attack at a +3 penalty, then recalled)'))}",
        f"D2 = {value(tag(2, 'text', 'PB2 16.4.5 (D#: add # to the die roll)'))}",
        f"D1 = {value(tag(1, 'text', 'PB2 16.4.5 (D#: add # to the die roll)'))}",
        "",
        "[aa.natural]",
        "# Reading PB2-OQ-16 carried over: AA is \"resolved in a similar manner as DF\" (16.4).",
        f"best = {value(tag(2, 'reconstructed', 'tables.md#aa'))}",
        f"miss = {value(tag(12, 'reconstructed', 'tables.md#aa'))}",
    ]
    for e in AA_COLUMNS:
        out += ["", f"[aa.column.{key(str(e))}]"]
        for res, off in AA_OFFSET.items():
            out.append(f"{key(res)} = {value(tag(e + off, 'reconstructed', 'tables.md#aa'))}")
    out += ["", "[aa.equivalency]",
            "# AA equivalency by AA unit class (\"located below the Anti-Aircraft Table\", 16.4.5)."]
    for cls, e, note in AA_EQUIVALENCY:
        out.append(f"{key(cls)} = {value(tag(e, 'reconstructed', 'tables.md#aa'))}  # {note}")
    return "\n".join(out) + "\n"


FILES = {"direct_fire.toml": direct_fire_toml, "range.toml": range_toml, "aa.toml": aa_toml}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="write the files (default: print them)")
    args = ap.parse_args(argv)
    for name, make in FILES.items():
        text = make()
        if args.write:
            write_atomic(OUT / name, text)
            print(f"wrote {OUT / name}")
        else:
            print(f"==> {name}\n{text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
