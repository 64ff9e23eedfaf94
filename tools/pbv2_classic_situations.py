"""The classic PanzerBlitz cards as Panzer Blitz v2.0 situations (docs/panzerblitz-v2/conversion.md#classic-situations).

    python tools/pbv2_classic_situations.py            # write situations/panzerblitz-v2/classic/pb-*.toml
    python tools/pbv2_classic_situations.py --check    # exit 1 if a written file is not current

Reads  situations/pb-*.toml (the classic cards: boards, forces, set-up, entry, turns, victory) and
       situations/rulesets/panzerblitz-v2/classic-cards.toml (efficiency and Ops chits a v2 card needs).
Writes situations/panzerblitz-v2/classic/pb-NN.toml (id pb-NN-v2) for every card whose victory
       measures the v2 engine evaluates (victory.py); the others are listed with the reason.

What changes from the classic file, card by card, is written into the file's header: set-up filters in the classic
board vocabulary (hilltop hexes with six orange sides) or next to another unit, road-march entry
(PB-SIT-7), moves_first (the chit pull replaces it), special victory alternatives (PB-SIT-10).
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pbv2_data import write_or_check  # noqa: E402
from tomlout import assign  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
V2 = ROOT / "situations" / "rulesets" / "panzerblitz-v2"
OUT = ROOT / "situations" / "panzerblitz-v2" / "classic"
PLAYED = ("destroyed", "in_area", "ratio", "furthest_advance", "prevent_enemy", "entered", "open_corridor",
          "line_of_fire", "exited", "not_exited", "round_trip")
CLASSIC_ONLY_FILTERS = ("terrain", "hexsides", "with_unit", "min_distance_from_unit")
ENTER_DROPPED = ("road_march", "column")
LEVELS = ("marginal", "tactical", "decisive")
# The classic boards' column letters (situations/rulesets/panzerblitz/boards/board-*.json).
BOARD_COLUMNS = tuple([chr(ord("A") + i) for i in range(26)] + [2 * chr(ord("A") + i) for i in range(7)])


def measures(v: dict) -> list[str]:
    out = [v.get("measure")]
    for part in ("numerator", "denominator"):
        if isinstance(v.get(part), dict):
            out += measures(v[part])
    for alt in v.get("also", []):
        for c in alt["all"]:
            out += measures(c)
    return out


def first_area(v: dict, me: str, other: str):
    """(side whose units count, area) of the first in_area measure of a victory table."""
    if v.get("measure") == "in_area":
        return (me if v.get("whose", "own") == "own" else other), v["area"]
    for part in ("numerator", "denominator"):
        if isinstance(v.get(part), dict):
            hit = first_area(v[part], me, other)
            if hit:
                return hit
    return None


def goal_of(card: dict) -> tuple[str, dict, str]:
    """The ground the players steer by (conversion.md#victory): the first victory area, else
    the edge a furthest advance heads for, else the set-up boards of the side an attacker must
    destroy."""
    sides = [s["name"] for s in card["side"]]
    for s in card["side"]:
        other = next(x for x in sides if x != s["name"])
        hit = first_area(s["victory"], s["name"], other)
        if hit:
            return hit[0], hit[1], f"the {hit[0]} units in this area count for victory"
    for s in card["side"]:
        v = s["victory"]
        if v.get("measure") == "furthest_advance":
            # the line of the decisive advance, where a single column of boards makes it one column
            top = max((x["threshold"] if isinstance(x, dict) else x) for k, x in v.items() if k in LEVELS)
            layout = card["map"]["layout"]
            if v["toward"] in ("east", "west") and all(len(row) == 1 for row in layout):
                cols = BOARD_COLUMNS
                col = cols[top - 1] if v["toward"] == "east" else cols[len(cols) - top]
                return s["name"], {"columns": col}, (f"the {s['name']} advance {v['toward']}: the column of "
                                                     f"their decisive level ({top} columns)")
            return s["name"], {"edge": v["toward"]}, f"the {s['name']} advance toward this edge"
    for s in card["side"]:
        v = s["victory"]
        if v.get("measure") in ("exited", "not_exited", "round_trip"):
            # the side whose units leave by the edge goes for it (the other bars the way); a round
            # trip's way back is steered by the engine (exits.py: its final edge)
            other = next(x["name"] for x in card["side"] if x["name"] != s["name"])
            who = s["name"] if v.get("whose", "own") == "own" else other
            return who, {"edge": v["edge"]}, f"the {who} units leave the map by the {v['edge']} edge"
    for s in card["side"]:
        v = s["victory"]
        if v.get("measure") == "open_corridor" and v.get("whose") == "enemy":
            # a corridor free of the enemy's units and sight: drive them off the ground they hold
            # (their set-up boards; the middle board of the layout when they set up anywhere)
            other = next(x for x in card["side"] if x["name"] != s["name"])
            boards = sorted({b for g in other["group"] for b in g.get("setup", {}).get("boards", [])})
            layout = card["map"]["layout"]
            middle = layout[len(layout) // 2][len(layout[0]) // 2].rstrip("i")
            return s["name"], {"boards": boards or [middle]}, (f"the {s['name']} must open a corridor "
                                                              f"{' to '.join(v['between'])} through the {other['name']}")
    for s in card["side"]:
        v = s["victory"]
        if v.get("measure") == "destroyed" and v.get("whose") == "enemy" and v.get("compare", ">=") == ">=":
            other = next(x for x in card["side"] if x["name"] != s["name"])
            boards = sorted({b for g in other["group"] for b in g.get("setup", {}).get("boards", [])})
            area = {"boards": boards} if boards else {"anywhere": True}
            return s["name"], area, f"the {s['name']} must destroy the {other['name']} units set up here"
    raise ValueError(f"{card['id']}: no goal can be derived")


def convert_area(area: dict, notes: list[str], gname: str) -> dict:
    kept = {k: v for k, v in area.items() if k not in CLASSIC_ONLY_FILTERS}
    dropped = [k for k in area if k in CLASSIC_ONLY_FILTERS]
    if dropped:
        notes.append(f"{gname}: set-up filter(s) {', '.join(dropped)} dropped (classic board vocabulary or "
                     "placement next to a unit)")
    return kept


def card_file(cid: str, classic: dict, v2: dict, units: dict) -> tuple[str | None, str]:
    unplayed = sorted({m for s in classic["side"] for m in measures(s["victory"]) if m not in PLAYED})
    if unplayed:
        return None, f"victory measure(s) {', '.join(unplayed)} not evaluated under v2 yet"
    notes: list[str] = []
    if "moves_first" in classic:
        notes.append(f"moves_first = {classic['moves_first']!r} dropped: the chit pull decides who acts (PB2 3.1)")
    body: list[str] = []
    for s in classic["side"]:
        name = s["name"]
        sv2 = v2["side"][name]
        body += ["", "[[side]]", assign("name", name),
                 assign("efficiency", sv2["efficiency"], "classic-cards.toml (conversion.md#efficiency)"),
                 assign("chits", {f"op{k[2:] if k.startswith('op') else k}": n for k, n in sv2["chits"].items()}),
                 assign("chits_added", {str(t): c for t, c in sv2["chits_added"].items()})]
        for g in s["group"]:
            # minefields, blocks and forts are placed by their owner in the group's set-up area
            # (PB2 15.2.2, 15.3.1, 15.5.1), as the classic card places them
            gu = dict(g["units"])
            body += ["", "[[side.group]]", assign("name", g["name"]), assign("units", gu)]
            if "setup" in g:
                area = convert_area(g["setup"], notes, g["name"])
                if not area and "with_unit" in g["setup"]:
                    # a fort set up with a unit (pb-01's CPs): the area of that unit's group, whose
                    # counter then sets up in it (markers are placed before units, PB2 15.5.1)
                    area = next((convert_area(x["setup"], [], x["name"]) for x in reversed(s["group"][:s["group"].index(g)])
                                 if g["setup"]["with_unit"] in x["units"] and "setup" in x), {})
                if not area:
                    area = {"anywhere": True}
                body.append(assign("setup", area))
            else:
                e = {k: v for k, v in g["enter"].items() if k not in ENTER_DROPPED}
                if any(k in g["enter"] for k in ENTER_DROPPED):
                    notes.append(f"{g['name']}: road march entry (PB-SIT-7) read as a reinforcement entry at the hex "
                                 "(PB2 3.1.2.3)")
                body.append(assign("enter", e))
        # the card's special alternatives (`also`, e.g. PB-SIT-10) are kept: victory.py evaluates them
        v = dict(s["victory"])
        body += ["", "[side.victory]"] + [assign(k, x) for k, x in v.items()]
    kept = {alt.get("rule") for side in classic["side"] for alt in side["victory"].get("also", [])}
    for sp in classic.get("special", []):
        # a special rule lives on only through what the forces, entries and victory above carry
        if sp.get("rule") not in kept and set(sp.get("params", {})) != {"replaces"}:
            notes.append(f"special rule {sp.get('rule')} not played beyond the entries above "
                         f"({sp.get('text', '').rstrip('.')})")
    gside, garea, why = goal_of(classic)
    head = [f"# PanzerBlitz Situation {cid[3:]} under the Panzer Blitz v2.0 rules: {classic['title']}.",
            "# GENERATED by tools/pbv2_classic_situations.py from situations/" + cid + ".toml and",
            "# situations/rulesets/panzerblitz-v2/classic-cards.toml (docs/panzerblitz-v2/conversion.md#classic-situations).",
            "# Boards, forces, set-up, entry, turns and victory are the classic card's; counters, efficiency and",
            "# chits are the documented conversion's.  Changed from the classic card:"]
    head += [f"#   - {n}" for n in notes] or ["#   - nothing"]
    top = ["", assign("id", f"{cid}-v2"), assign("title", f"{classic['title']} (v2.0 rules)"),
           assign("ruleset", "panzerblitz-v2"), assign("classic", f"situations/{cid}.toml"),
           assign("turns", classic["turns"]), assign("sets_up_first", classic["sets_up_first"]),
           assign("source", f"converted: docs/panzerblitz-v2/conversion.md#classic-situations; {classic.get('source', '')}"),
           "", "[map]", assign("layout", classic["map"]["layout"]),
           "", "# The ground the players steer by (conversion.md#victory): " + why + ".",
           "[goal]", assign("side", gside), assign("area", garea)]
    return "\n".join(head + top + body) + "\n", ""


def build() -> tuple[dict[str, str], dict[str, str]]:
    cards = tomllib.loads((V2 / "classic-cards.toml").read_text())["cards"]
    units = {}
    for f in ("units-classic.toml", "units-hod.toml"):
        units.update(tomllib.loads((V2 / f).read_text())["units"])
    files, skipped = {}, {}
    for cid in sorted(cards):
        classic = tomllib.loads((ROOT / "situations" / f"{cid}.toml").read_text())
        text, why = card_file(cid, classic, cards[cid], units)
        if text is None:
            skipped[cid] = why
        else:
            files[cid] = text
    return files, skipped


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args(argv)
    files, skipped = build()
    for cid, why in skipped.items():
        print(f"not converted: {cid}: {why}")
    return write_or_check({OUT / f"{cid}.toml": text for cid, text in files.items()}, a.check,
                          "tools/pbv2_classic_situations.py", ROOT)

if __name__ == "__main__":
    sys.exit(main())
