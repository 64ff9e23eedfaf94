"""Import the PanzerBlitz boards, units and twelve situations into the project's own files.

Run once by a developer (`python tools/import_panzerblitz.py ../shared/data/panzerblitz`);
the project never reads ../shared at run time.  It writes

  situations/rulesets/panzerblitz/boards/board-N.json   the three boards
  situations/rulesets/panzerblitz/units.toml            unit types (classic counter values)
  situations/pb-01.toml ... pb-12.toml                  the situations

Areas are written in the situation vocabulary (boards, map edges, ...) wherever that
vocabulary resolves to exactly the hexes the source lists; otherwise as hex lists.  Every
area is checked against the source after conversion, so a mistake here fails loudly.
Errata from the Q&A seed are carried (see docs/rulings.md).
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from tomlout import assign  # noqa: E402

from simulator.areas import resolve_static_area  # noqa: E402
from simulator.errors import DataError  # noqa: E402
from simulator.ruleset import load_ruleset  # noqa: E402

RULESET_DIR = ROOT / "situations" / "rulesets" / "panzerblitz"
SITUATIONS_DIR = ROOT / "situations"

# OpenPanzerBlitz's screen compass -> this project's map frame (a transposition: OPB draws
# each board with its long axis vertical, we draw it horizontal as on the situation cards).
OPB_EDGE = {"north": "west", "south": "east", "west": "north", "east": "south", "any": "any"}

MOVEMENT_CLASS = {"foot": "leg", "tracked_or_armored": "vehicle", "truck": "truck",
                  "wagon": "wagon", "cavalry": "cavalry"}
NO_MOVEMENT_CATEGORIES = {"fortification", "roadblock", "minefield"}


# ---------------------------------------------------------------------------- boards

def import_board(src: Path, dst: Path) -> None:
    data = json.loads(src.read_text())
    name = str(data["board"])
    hexes = {}
    changes = []
    for h in data["hexes"]:
        feats = sorted(h["features"])
        if "town" in feats and "woods" in feats:
            # PB-GEN-5 / PB-MAP-5 (QA/Mapboard E): a town-and-woods hex is a town hex.
            feats.remove("woods")
            changes.append(f"{h['label']}: town and woods -> town (PB-MAP-5)")
        sides = {d: sorted(v) for d, v in h["hexsides"].items() if v}
        entry = {"elevation": h["elevation"], "features": feats}
        if sides:
            entry["sides"] = sides
        if h.get("name"):
            entry["name"] = h["name"]
        hexes[h["label"]] = entry
    out = {
        "schema": "wargame-board/1",
        "ruleset": "panzerblitz",
        "board": name,
        "source": {
            "from": "shared/data/panzerblitz/boards/" + src.name,
            "origin": data["provenance"],
            "qa_overrides_in_source": data["qa_overrides_applied"],
            "changes_on_import": changes,
            "notes": "orange hexsides are derived in the source (see docs/rulings.md)",
        },
        "columns": data["conventions"]["columns"],
        "rows_even": 10,
        "rows_odd": 11,
        "named": {k: v["opb_region_hexes"] for k, v in data["named_features"].items()},
        "hexes": hexes,
    }
    dst.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")


# ---------------------------------------------------------------------------- units

def import_units(src: Path, dst: Path) -> None:
    data = json.loads(src.read_text())
    lines = [
        "# PanzerBlitz unit types (classic 1970 counter values).",
        "# Imported by tools/import_panzerblitz.py from shared/data/panzerblitz/units.json",
        "# (OpenPanzerBlitz classic-era configuration, checked against the rules seed's unit table;",
        "# `checked` says how far).  Stats are data: change them here or with --set/overrides.",
        "#   attack, weapon (A/H/M/I), range, defense, movement: the printed factors (PB-GEN-3)",
        "#   movement_class: leg | truck | vehicle | wagon | cavalry | none (PB-TEC-1)",
        "#   armored: an armored target (PB-WEC); carrier: may carry one passenger (PB-TRANS-1)",
        "#   optional_indirect_fire: \"any_range\" | \"beyond_half_range\" for the units the digest lets",
        "#     fire indirectly under the optional rule (PB-OPT-IF-1/4); absent = never.  (`indirect_fire`",
        "#     is OpenPanzerBlitz's own flag, kept as imported and not used.)",
        "#   intensive_fire = false: an H or M unit that may not fire intensively (PB-OPT-AMMO-4)",
        "",
    ]
    for u in sorted(data["units"], key=lambda x: x["id"]):
        cat = u["category"]
        mclass = "none" if cat in NO_MOVEMENT_CATEGORIES else MOVEMENT_CLASS.get(u["movement_type"], "leg")
        side = u["nationality"].lower()
        entry = {
            "name": u["classic_name"] or u["opb_name"],
            "side": side if side in ("german", "russian") else "any",
            "category": cat,
            "attack": u["attack"],
            "weapon": u["weapon_class"] or "",
            "range": u["range"],
            "defense": u["defense"],
            "movement": u["movement"],
            "movement_class": mclass,
            "armored": bool(u["armored"]),
            "vehicle": bool(u["vehicle"]),
            "carrier": bool(u["carrier_capacity"]),
            "indirect_fire": bool(u["indirect_fire"]),
            "anti_aircraft": bool(u["anti_aircraft"]),
            "engineer": bool(u["engineer"]),
            "checked": u["seed_check"]["status"],
        }
        lines.append(f"[units.{json.dumps(u['id'])}]")
        lines.extend(assign(k, v) for k, v in entry.items())
        if u["id"] in OPTIONAL_INDIRECT_FIRE:
            lines.append(f"{assign('optional_indirect_fire', OPTIONAL_INDIRECT_FIRE[u['id']])}  # PB-OPT-IF-1/4")
        lines.append("")
    dst.write_text("\n".join(lines))


# PB-OPT-IF-1/4 (the digest, not OpenPanzerBlitz): mortars fire indirectly at any range; the German
# SPA and the German howitzers only beyond half their range.  Russian howitzers only under PB-EXP-IF.
OPTIONAL_INDIRECT_FIRE = {
    "81mm-mortar": "any_range", "82mm-mortar": "any_range", "82mm-mortar-motorized": "any_range",
    "120mm-mortar-german": "any_range", "120mm-mortar-russian": "any_range",
    "wespe": "beyond_half_range", "hummel": "beyond_half_range", "75mm-how-company": "beyond_half_range",
    "150mm-how-company": "beyond_half_range", "105mm-how": "beyond_half_range", "150mm-how": "beyond_half_range",
}


# ---------------------------------------------------------------------------- situations

def picture_layout(src_layout: dict) -> list[list[str]]:
    """OPB rows (boards long edge to long edge) become our picture columns, and vice versa."""
    rows = src_layout["rows"]
    n_positions = len(rows)
    n_picture_rows = max(len(r) for r in rows)
    out = [[""] * n_positions for _ in range(n_picture_rows)]
    for pos, opb_row in enumerate(rows):
        for pr, b in enumerate(opb_row):
            out[pr][pos] = f"{b['board']}{'i' if b['inverted'] else ''}"
    return out


class Converter:
    def __init__(self, ruleset, game_map, number: int) -> None:
        self.ruleset = ruleset
        self.map = game_map
        self.number = number

    def hexset(self, labels) -> set[int]:
        return {self.map.lookup(x) for x in labels}

    def resolve(self, area: dict) -> set[int]:
        return set(int(i) for i in resolve_static_area(area, self.map, self.ruleset, "import", "area"))

    def area(self, src_area: dict, entering: bool) -> dict:
        """The shortest area expression that resolves to exactly the source's hexes."""
        desc = src_area["description"]
        labels = src_area["hexes"] or []
        if desc.startswith("anywhere"):
            return {"anywhere": True}
        # PB-GEN-4: the pond is never usable, though the source's zones list it.
        target = self.hexset(labels) - set(int(i) for i in np.flatnonzero(self.map.has_feature("pond")))
        boards = sorted({b for row in self.map.layout for b in row}, key=lambda b: b.rstrip("i"))
        names = [b.rstrip("i") for b in boards]
        subsets = [list(c) for k in range(1, len(names) + 1) for c in itertools.combinations(names, k)]
        candidates = []
        if entering:
            for edge in ("north", "south", "east", "west", "any"):
                candidates.append({"edge": edge})
                candidates.extend({"edge": edge, "boards": s} for s in subsets if len(s) < len(names))
        candidates.extend({"boards": s} for s in subsets)
        for cand in candidates:
            if self.resolve(cand) == target:
                return cand
        cols = self.ruleset.board(names[0]).columns
        for b in names:
            for i, j in itertools.combinations_with_replacement(range(len(cols)), 2):
                cand = {"boards": [b], "columns": f"{cols[i]}-{cols[j]}"}
                if self.resolve(cand) == target:
                    return cand
        return {"hexes": sorted(labels, key=self.map.lookup)}

    def group_area(self, group: dict) -> dict:
        src = group["area"]
        matcher = src.get("opb_matcher", {})
        entering = group["deployment"] == "enter_from_map_edge"
        if matcher.get("kind") == "distance" and matcher.get("distance") == 0:
            unit = matcher["from"]["unit"]["unit"]
            return {"with_unit": unit}  # stacked with the named unit (PB-SIT-1 fort 3)
        area = self.area(src, entering)
        if matcher.get("kind") == "all":
            for part in matcher["of"]:
                if part["kind"] == "elevation":
                    area["terrain"] = ["hilltop"]
                elif part["kind"] == "distance" and part.get("atleast"):
                    area["min_distance_from_unit"] = {"unit": part["from"]["unit"]["unit"],
                                                      "hexes": part["distance"]}
        return area

    def zone_area(self, where: dict) -> dict:
        return self.area(where, entering=False)

    def edge(self, opb_edge: str) -> str:
        return OPB_EDGE[opb_edge]

    def measure(self, node: dict, side_name: str, corrected_own: bool = False) -> dict:
        kind = node["kind"]
        if kind == "ratio":
            return {"measure": "ratio", "numerator": self.measure(node["numerator"], side_name),
                    "denominator": self.measure(node["denominator"], side_name)}
        if kind == "sum":
            # Situation 1: destroyed units + 4 x destroyed CPs = a CP counts 5.
            base, extra = node["terms"]
            unit = extra["of"]["filter"]["of"][1]["unit"]
            return {"measure": "destroyed", "whose": base["whose"],
                    "weights": {unit: 1 + extra["factor"]}}
        if kind == "furthest_advance":
            return {"measure": "furthest_advance", "whose": "own", "toward": self.edge(node["direction"])}
        if kind == "line_of_fire":
            ends = [self.edge(node["from_edge"]["opb"]), self.edge(node["to_edge"]["opb"])]
            if node["friendly"]:
                return {"measure": "line_of_fire", "whose": "own", "between": ends}
            return {"measure": "open_corridor", "whose": "enemy", "width": node["width"], "between": ends}
        if kind == "prevent_enemy":
            return {"measure": "prevent_enemy"}
        if kind == "count_units":
            whose = "own" if corrected_own else node["whose"]
            f = node["filter"]
            fk = f["kind"]
            if fk == "status" and f["status"] == "destroyed":
                return {"measure": "destroyed", "whose": whose}
            if fk == "position":
                return {"measure": "in_area", "whose": whose, "area": self.zone_area(f["where"])}
            if fk == "evacuated":
                return {"measure": "exited", "whose": whose, "edge": self.edge(f["edge"])}
            if fk == "all" and f["of"][0]["kind"] == "reconned" and f["of"][1]["kind"] == "evacuated":
                # PB-SIT-5: a unit counts once it has left by the edge, stayed off 3 turns, come
                # back on where it left and left by the far edge (OPB: reconned AND evacuated).
                return {"measure": "round_trip", "whose": whose, "edge": self.edge(f["of"][0]["edge"]),
                        "stay_off_turns": 3, "final_edge": self.edge(f["of"][1]["edge"]), "return_leg": True}
            if fk == "any" and f["of"][1]["kind"] == "not":
                edge = f["of"][1]["of"]["edge"]
                return {"measure": "not_exited", "whose": whose, "edge": self.edge(edge)}
        raise ValueError(f"situation {self.number}: no conversion for objective {json.dumps(node)[:200]}")


SITUATION_NOTES = {
    1: ["PB-SIT-1 (Q&A): three German units destroyed is a Russian decisive victory, so the German",
        "decisive level is 'at most 3 own units destroyed' (the card printed 2).",
        "A CP counts as 5 units destroyed for the Russians (source: 1 + 4 extra per CP).",
        "PB-SIT-1 forts: the digest's PB-SIT-1 gives the later-edition placement (one fort on the",
        "hilltop hexes of each hill, the third at least 3 hexes from one of the other two; the seed's",
        "copy of the Q&A leaves that answer out, the source data's notes cite it), and the Q&A says a",
        "fort 'must be on a hill-top hex (one with six Orange hex-sides)'.  So the player sets CP 1",
        "and its fort on such a hex of Hill 129, CP 2 and its fort on one of Hill 132, CP 3 and its",
        "fort on any such hex of board 2 at least 3 hexes from the other CPs (the hills are 6+ hexes",
        "apart, so this is 3 from the fort already on its hill; 'from one of the two' alone would",
        "always hold).  OpenPanzerBlitz fixes 2G7 and 2T6, its own choice (2T6 is a plateau hex",
        "with no orange side).  docs/rulings.md, 'Situation cards checked against the sources'."],
    5: ["PB-SIT-5 (Q&A): a German unit counts only once it has left the map by the south edge of",
        "board 2 (the card's east edge) and stayed off three turns; not all need leave.",
        "Return leg: OpenPanzerBlitz Scenario_05 (unit-has-reconned east AND unit-has-evacuated",
        "west; ReconOrder puts the unit back on its exit hex after three turns), the source data's",
        "victory_levels_corrected and a published game report ('re-enter Board 2 ... recross",
        "Boards 2 and 1, and exit the west edge of Board 3') all have the unit come back on where",
        "it left, cross back and leave by the far edge (here north, board 3's): `round_trip`.",
        "`return_leg = false` is the reading before (no return).  The source counted Russian units",
        "(friendly = false, an apparent data error).",
        "Turns: 10 as in OpenPanzerBlitz; a published game report plays to turn 12 (kept at 10;",
        "docs/rulings.md gives what 12 turns do)."],
    7: ["Entry as printed on the Situation 7 card in the Q&A (Russians on the board-3 road,",
        "Germans on the board-1 road); OpenPanzerBlitz had the sides swapped.",
        "Victory as on the card: Russians need MORE units than the Germans on board 2 for a",
        "marginal win, the Germans AS MANY; twice and three times as many for tactical/decisive.",
        "PzKpfw IV: 6 as in OpenPanzerBlitz.  The card's OCR (Q&A seed) reads 'x8' in the first",
        "count slot of both sides; on the Russian side that is the T-34/85, of which only six",
        "counters exist (951-956), so the slot's 8 is a misreading there; every other legible",
        "count of the card agrees with OpenPanzerBlitz.  The counter mix (12 PzKpfw IV, 931-943)",
        "would allow 8: an open question, docs/rulings.md."],
    8: ["PB-SIT-8 (Q&A: the CPs must be within 4 hexes of the 120mm mortars to spot for them): a",
        "rule of the card, so the mortars fire indirectly at what a CP within 4 hexes of them",
        "observes whether or not the optional indirect-fire rule is on (params.indirect_fire;",
        "OpenPanzerBlitz does not encode it)."],
    10: ["PB-SIT-10 (Q&A): the Germans may also win marginally by destroying all 12 Russian units",
         "on board 1 without entering board 3 ([[side.victory.also]] below; thresholds kept from the",
         "source)."],
    12: ["Russian 122mm howitzers: 2.  OpenPanzerBlitz lists the type twice in this group (2 after",
         "the 76.2mm AT guns, 3 after the 82mm mortars); the counter mix holds two (codes 71-72),",
         "and the Q&A settles a card that asks for more counters than the game has (six German",
         "wagons, here) by giving what exists.  The import kept the last line (3) before; the",
         "docs said 5.  docs/rulings.md, 'Situation cards checked against the sources'."],
}

SPECIAL_RULES = {
    7: [{"rule": "PB-SIT-7", "text": "Road march: both columns enter on the road, unstacked, infantry and guns carried, 12 hexes per turn until the lead unit comes within 3 hexes of the enemy; from turn 3 units may leave the road and move at full speed."}],
    8: [{"rule": "PB-SIT-8", "text": "Command posts must be within 4 hexes of the 120mm mortars to spot for them.",
         "params": {"indirect_fire": True, "cp_within": 4, "units": ["120mm-mortar-german", "120mm-mortar-russian"]}}],
    10: [{"rule": "PB-SIT-10", "text": "The Germans win a marginal victory by destroying all 12 Russian units that set up on board 1 without entering board 3; if they have not entered board 3 by the last turn the Russians may move onto board 3 in their final player-turn and win decisively."}],
    12: [{"rule": "PB-SIT-12", "text": "German towed artillery (105mm and 150mm howitzers) replaces the Wespe and Hummel, as the Q&A allows; it may be carried by trucks or wagons."}],
}


# Special victory rules as `[[side.victory.also]]` alternatives, appended after the levels.
VICTORY_ALSO = {
    (10, "german"): [
        "",
        "# PB-SIT-10 (Q&A): a marginal win also by destroying all 12 Russian units that set up on",
        "# board 1 (the 26th AT Bgde.) without ever entering board 3.",
        "[[side.victory.also]]",
        'rule = "PB-SIT-10"',
        'level = "marginal"',
        "all = [",
        '  { measure = "destroyed", whose = "enemy", group = "26th AT Bgde.", compare = ">=", threshold = 12 },',
        '  { measure = "entered", whose = "own", area = { boards = ["3"] }, compare = "==", threshold = 0 },',
        "]",
    ],
    (10, "russian"): [
        "",
        "# PB-SIT-10 (Q&A): if the Germans have not entered board 3 by the last turn, the Russians win",
        "# decisively by moving onto it in their final player-turn (read: a Russian unit on board 3 at",
        "# the end, no German unit ever on it; docs/rulings.md).",
        "[[side.victory.also]]",
        'rule = "PB-SIT-10"',
        'level = "decisive"',
        "all = [",
        '  { measure = "entered", whose = "enemy", area = { boards = ["3"] }, compare = "==", threshold = 0 },',
        '  { measure = "in_area", whose = "own", area = { boards = ["3"] }, compare = ">=", threshold = 1 },',
        "]",
    ],
}


# A unit type listed twice in one group of the source is refused (`group_units`) unless it is
# settled here: (situation, group) -> {unit type: (the source's counts in order, the count
# imported)}, each with its reasons in the situation's notes and docs/rulings.md.
DUPLICATE_LINES = {
    # Situation 12: 2 + 3 in OpenPanzerBlitz; two counters exist (71-72), and the Q&A gives a card
    # that asks for more counters than the game has what exists (its six wagons of this situation).
    (12, "267th & 40th Rifle Div."): {"122mm-how": ([2, 3], 2)},
}

# PB-SIT-1: the command posts' and forts' set-up groups as the digest and the Q&A place them (see
# SITUATION_NOTES[1]), instead of the source's fixed hexes: (name, units, set-up area).  The
# forts follow their command post (`with_unit`), one fort to a hex (PB-FORT-1).
HILLTOP = {"terrain": ["hilltop"], "hexsides": {"orange": 6}}  # "one with six Orange hex-sides"
REPLACED_GROUPS = {
    (1, "german"): (
        ["580th Signal Rgt. CP 1", "580th Signal Rgt. CP 2", "580th Signal Rgt. CP 3", "580th Signal Rgt. Fort 3"],
        [("580th Signal Rgt. CP 1", {"command-post": 1}, {"region": "Hill 129", **HILLTOP}),
         ("580th Signal Rgt. Fort 1", {"fort-40": 1}, {"region": "Hill 129", "with_unit": "command-post"}),
         ("580th Signal Rgt. CP 2", {"command-post": 1}, {"region": "Hill 132", **HILLTOP}),
         ("580th Signal Rgt. Fort 2", {"fort-40": 1}, {"region": "Hill 132", "with_unit": "command-post"}),
         ("580th Signal Rgt. CP 3", {"command-post": 1},
          {"boards": ["2"], **HILLTOP, "min_distance_from_unit": {"unit": "command-post", "hexes": 3}}),
         ("580th Signal Rgt. Fort 3", {"fort-40": 1}, {"with_unit": "command-post"})],
    ),
}


def group_units(n: int, src: Path, side: str, gi: int, group: dict) -> dict[str, int]:
    """The group's unit counts; a unit type listed twice is an error naming the file and the
    field, unless DUPLICATE_LINES settles it (and the source still says what it said then)."""
    out: dict[str, int] = {}
    seen: dict[str, list[int]] = {}
    for k, u in enumerate(group["units"]):
        seen.setdefault(u["unit"], []).append(k)
    fixes = DUPLICATE_LINES.get((n, group["group_name"]), {})
    for unit, lines in seen.items():
        counts = [group["units"][k]["count"] for k in lines]
        if len(lines) == 1:
            out[unit] = counts[0]
            continue
        fld = f"sides[{side}].groups[{gi}].units[{lines[1]}].unit"
        if unit not in fixes:
            raise DataError(str(src), fld, f"unit type {unit!r} listed {len(lines)} times in group "
                            f"{group['group_name']!r} (lines {lines}, counts {counts})",
                            "each unit type once per group, or the count to import settled in DUPLICATE_LINES "
                            "(tools/import_panzerblitz.py) with its reasons in docs/rulings.md")
        listed, keep = fixes[unit]
        if counts != listed:
            raise DataError(str(src), fld, f"counts {counts} for {unit!r}, DUPLICATE_LINES settled {listed}",
                            "the source as it was when the duplicate was settled; settle it again")
        out[unit] = keep
    return out


def side_groups(n: int, src: Path, side: dict, conv: Converter) -> list[dict]:
    """The groups of a side as written: {name, units, area, entering, group (the source's, or None
    for a group REPLACED_GROUPS made)}."""
    name = side["army"]
    replaced, new = REPLACED_GROUPS.get((n, name), ([], []))
    out = []
    for gi, g in enumerate(side["groups"]):
        if g["group_name"] in replaced:
            if g["group_name"] == replaced[0]:
                out += [{"name": gn, "units": units, "area": area, "entering": False, "group": None}
                        for gn, units, area in new]
            continue
        out.append({"name": g["group_name"], "units": group_units(n, src, name, gi, g), "area": conv.group_area(g),
                    "entering": g["deployment"] == "enter_from_map_edge", "group": g})
    return out


def slug(n: int) -> str:
    return f"pb-{n:02d}"


def import_situation(src: Path, ruleset) -> str:
    """The situation file's text; a duplicated unit line not settled in DUPLICATE_LINES is a DataError."""
    s = json.loads(src.read_text())
    n = s["situation"]
    layout = picture_layout(s["layout"])
    game_map = ruleset.assemble(layout)
    conv = Converter(ruleset, game_map, n)
    sides_by_name = {side["army"]: side for side in s["sides"]}
    order = s["turn_sequence"]
    out = [
        f"# PanzerBlitz Situation {n}: {s['opb_title']}",
        "# Imported by tools/import_panzerblitz.py from shared/data/panzerblitz (OpenPanzerBlitz",
        "# scenario data; the printed card is not in the sources except for Situation 7).",
        "# Format reference: docs/situation-format.md.",
    ]
    out += ["# " + line for line in SITUATION_NOTES.get(n, [])]
    out += [
        "",
        assign("id", slug(n)),
        assign("title", s["opb_title"]),
        assign("ruleset", "panzerblitz"),
        assign("turns", s["turns"]),
        assign("sets_up_first", s["setup_order"][0]),
        assign("moves_first", order[0]),
        assign("source", f"OpenPanzerBlitz Scenario_{n:02d}, commit {s['provenance']['commit'][:12]}"),
        "",
        "[map]",
        "# Picture rows top to bottom, boards left to right; \"2i\" = board 2 rotated 180 degrees.",
        assign("layout", layout),
        "",
    ]
    card = s.get("card_entry")
    for side_name in order:
        side = sides_by_name[side_name]
        out += ["[[side]]", assign("name", side_name), ""]
        for gw in side_groups(n, src, side, conv):
            g, area = gw["group"], gw["area"]
            out += ["[[side.group]]", assign("name", gw["name"]), assign("units", gw["units"])]
            if gw["entering"]:
                entry = {"turn": g["entry_turn"], **area}
                if g.get("road_march"):
                    rm = g["road_march"]
                    if card:
                        # The card (Q&A seed) over OPB: each side enters at the other's OPB origin.
                        entry = {"turn": g["entry_turn"], "hexes": card[side_name]["entry_hex"]}
                        other = "german" if side_name == "russian" else "russian"
                        toward = card[other]["entry_hex"][0]
                    else:
                        toward = rm["destination_hex"][0].split(" ")[0]
                    entry["road_march"] = {"toward": toward, "hexes_per_turn": rm["hexes_per_turn"],
                                           "stop_within": 3}
                if g.get("strict_convoy"):
                    entry["column"] = True
                out.append(assign("enter", entry))
            else:
                out.append(assign("setup", area))
            out.append("")
        levels = side.get("victory_levels_corrected") or side["victory_levels"]
        objective = levels[0]["objective"]
        node = side["victory_objectives"][objective]
        corrected_own = n == 5 and side_name == "german"
        measure = conv.measure(node, side_name, corrected_own)
        out.append("[side.victory]")
        out += [assign(k, v) for k, v in measure.items()]
        comparisons = {lv["comparison"] for lv in levels}
        assert len(comparisons) == 1, comparisons
        out.append(assign("compare", comparisons.pop()))
        for lv in levels:
            out.append(assign(lv["level"], lv["threshold"]))
        if n == 7 and side_name == "russian":
            out[-3] = assign("marginal", {"threshold": 1, "compare": ">"}, "the card: MORE than the Germans")
        out += VICTORY_ALSO.get((n, side_name), [])
        out.append("")
    for sr in SPECIAL_RULES.get(n, []):
        out += ["[[special]]", assign("rule", sr["rule"]), assign("text", sr["text"])]
        out += [assign("params", sr["params"])] if "params" in sr else []
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def verify_situation(path: Path, src: Path, ruleset) -> None:
    """Re-read the written file and compare every setup/entry area with the source."""
    from simulator.situation import load_situation

    sit = load_situation(path)
    s = json.loads(src.read_text())
    n = s["situation"]
    conv = Converter(ruleset, sit.map, n)
    written = [gw for side in s["sides"] for gw in side_groups(n, src, side, conv)]
    ours = [g for side in sit.sides for g in side.groups]
    assert len(written) == len(ours)
    for gw, g in zip(sorted(written, key=lambda g: g["name"]), sorted(ours, key=lambda g: g.name), strict=True):
        assert gw["name"] == g.name and gw["units"] == g.units
        sg = gw["group"]
        if sg is None:
            continue  # a group of REPLACED_GROUPS: its area is the Q&A's, not the source's
        # PB-GEN-4: the pond hex is never usable; the source's zones list it anyway.
        pond = set(int(i) for i in np.flatnonzero(sit.map.has_feature("pond")))
        src_hexes = {sit.map.lookup(x) for x in (sg["area"]["hexes"] or [])} - pond
        if g.area.get("anywhere") or g.area.get("with_unit") or (s.get("card_entry") and g.entering):
            continue
        # The source lists the zone only; our terrain/distance constraints narrow it further.
        zone = {k: v for k, v in g.area.items() if k not in ("terrain", "min_distance_from_unit", "turn", "road_march", "column")}
        got = set(int(i) for i in resolve_static_area(zone, sit.map, sit.ruleset, "", ""))
        assert got == src_hexes, (path.name, g.name, len(got), len(src_hexes))
    # Every counter of the source is there, but for the duplicated lines settled in DUPLICATE_LINES.
    for side in s["sides"]:
        totals: dict[str, int] = {}
        for g in side["groups"]:
            fixes = DUPLICATE_LINES.get((n, g["group_name"]), {})
            for u in g["units"]:
                totals[u["unit"]] = totals.get(u["unit"], 0) + u["count"]
            for unit, (listed, keep) in fixes.items():
                totals[unit] += keep - sum(listed)
        assert totals == sit.side(side["army"]).unit_totals(), (path.name, side["army"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source", type=Path, help="the shared/data/panzerblitz folder")
    args = ap.parse_args()
    (RULESET_DIR / "boards").mkdir(parents=True, exist_ok=True)
    for n in (1, 2, 3):
        import_board(args.source / "boards" / f"board-{n}.json", RULESET_DIR / "boards" / f"board-{n}.json")
    import_units(args.source / "units.json", RULESET_DIR / "units.toml")
    ruleset = load_ruleset("panzerblitz")
    # Every situation is converted before any is written: a refused one leaves them all as they were.
    texts = {}
    try:
        for src in sorted((args.source / "situations").glob("situation-*.json")):
            n = int(re.search(r"(\d+)", src.stem).group(1))
            texts[src] = (SITUATIONS_DIR / f"{slug(n)}.toml", import_situation(src, ruleset))
    except DataError as e:
        print(f"import_panzerblitz: {e}", file=sys.stderr)
        return 1
    for src, (dst, text) in texts.items():
        dst.write_text(text)
        verify_situation(dst, src, ruleset)
        print(f"wrote {dst.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
