"""Convert classic PanzerBlitz units into Panzer Blitz v2.0 counters, by the rule in conversion.toml.

    python tools/pbv2_convert_units.py            # print a summary of what would change
    python tools/pbv2_convert_units.py --write    # (re)write the three output files

Reads
  situations/rulesets/panzerblitz-v2/conversion.toml    the conversion rule (docs/panzerblitz-v2/conversion.md)
  situations/rulesets/panzerblitz/units.toml            the classic counters
  situations/rulesets/panzerblitz-v2/units-hod-source.toml  Hill of Death units as classic-style profiles
  situations/pb-*.toml                                  the twelve classic situations (for classic-cards.toml)
Writes
  situations/rulesets/panzerblitz-v2/units-classic.toml  the classic counters as v2 counters
  situations/rulesets/panzerblitz-v2/units-hod.toml      the Hill of Death counters
  situations/rulesets/panzerblitz-v2/classic-cards.toml  v2 parameters of the twelve classic cards

Pure Python (tomllib); deterministic; files are written to a temporary name and moved into place.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from pbv2_data import write_atomic  # noqa: E402
from tomlout import assign, key, value  # noqa: E402

V2 = ROOT / "situations" / "rulesets" / "panzerblitz-v2"
CLASSIC_UNITS = ROOT / "situations" / "rulesets" / "panzerblitz" / "units.toml"
CLASSIC_CARDS = sorted((ROOT / "situations").glob("pb-*.toml"))

AFV_CATEGORIES = {"tank", "assault_gun", "tank_destroyer", "armored_car", "self_propelled_artillery"}
MARKER_CATEGORIES = {"minefield", "roadblock", "fortification"}


class ConversionError(ValueError):
    pass


def val(x):
    return x["value"] if isinstance(x, dict) and "value" in x else x


def half_up(x: float) -> int:
    return int(math.floor(x + 0.5))


def load(path: Path) -> dict:
    with open(path, "rb") as fh:
        return tomllib.load(fh)


class Rule:
    """conversion.toml as plain numbers."""

    def __init__(self, conv: dict):
        c = conv["conversion"]
        self.ap_mult = {k: float(val(v)) for k, v in c["ap_multiplier"].items()}
        self.at_mult = {k: float(val(v)) for k, v in c["at_multiplier"].items()}
        s = c["armor_scale"]
        self.step, self.base = float(val(s["step"])), float(val(s["base"]))
        self.min_at, self.min_armored_df = int(val(s["min_at"])), int(val(s["min_armored_df"]))
        self.at_for_i = {k: bool(val(v)) for k, v in c["at_for_i_class"].items()}
        self.red_df = float(val(c["red_df"]["multiplier"]))
        self.steps = {k: int(val(v)) for k, v in c["steps"].items()}
        r = c["reduced"]
        self.red_ap, self.red_rdf = float(val(r["ap_factor"])), float(val(r["red_df_factor"]))
        self.red_at, self.red_adf = int(val(r["at_minus"])), int(val(r["armored_df_minus"]))
        self.sp_full = {k: int(val(v)) for k, v in c["sp_full"].items()}
        self.ma_factor = float(val(c["movement"]["ma_factor"]))
        self.range_factor = float(val(c["movement"]["range_factor"]))
        self.mode = {k: str(val(v)) for k, v in c["mode"].items()}
        self.light_max = int(val(c["gun_size"]["light_max_mm"]))
        self.caps = {k: {kk: vv for kk, vv in v.items() if kk not in ("source", "ref", "see")}
                     for k, v in c["capabilities"].items()}
        self.rider_nations = set(c["rider_nations"]["nations"])
        self.smoke_if = bool(val(c["smoke"]["if_units"]))
        self.aa_max_mg = int(val(c["aa_class"]["max_mg"]))
        self.aa_max_light = int(val(c["aa_class"]["max_light"]))
        self.efficiency = {side: {int(y): int(val(v)) for y, v in years.items()}
                           for side, years in c["efficiency"].items()}
        self.classic_year = {k: int(val(v)) for k, v in c["classic_year"].items()}
        ch = c["chits"]
        self.chit_radius, self.sp_per_chit = int(val(ch["radius"])), int(val(ch["sp_per_chit"]))
        self.chit_min, self.chit_max = int(val(ch["min"])), int(val(ch["max"]))

    def scale(self, factor: float) -> int:
        """The armor scale: points of a classic factor (AT attack or armored defence)."""
        if factor <= 0:
            return 0
        return half_up(math.log(factor / self.base) / math.log(self.step))


def gun_size(uid: str, u: dict, rule: Rule) -> str:
    mm = u.get("caliber_mm")
    if mm is None:
        m = re.match(r"(\d+)(?:_(\d+))?mm", uid)
        if not m:
            return ""
        mm = float(m.group(1) + ("." + m.group(2) if m.group(2) else ""))
    return "light" if float(mm) <= rule.light_max else "heavy"


def convert(uid: str, u: dict, rule: Rule) -> dict:
    """One classic-style profile -> one v2 counter (docs/panzerblitz-v2/conversion.md)."""
    cat, side, w = u["category"], u["side"], u.get("weapon") or "I"  # weaponless counters: no attack
    af, df = float(u["attack"]), float(u["defense"])
    where = f"{uid}"
    if cat in MARKER_CATEGORIES:
        return convert_marker(uid, u, rule)
    if w not in rule.ap_mult:
        raise ConversionError(f"{where}: weapon class {w!r} not in conversion.ap_multiplier")
    armored = bool(u["armored"])
    infantry = cat in ("infantry", "cavalry")
    # AP (odds line) and AT (differential line)
    ap = math.floor(af * rule.ap_mult[w])
    if w == "I" and not (infantry and rule.at_for_i["infantry"]):
        at = 0
    else:
        at = max(rule.scale(af * rule.at_mult[w]), rule.min_at) if af > 0 else 0
    # defence: red = classic value, black = the armor scale
    dfv = max(rule.scale(df), rule.min_armored_df) if armored else half_up(df * rule.red_df)
    # steps and the reduced side
    if cat == "transport" and not armored:
        steps = rule.steps["transport"]
    elif cat == "command_post":
        steps = rule.steps["command_post"]
    else:
        steps = rule.steps["combat"]
    sp = rule.sp_full["command_post"] if cat == "command_post" else rule.sp_full[side]
    full = {"ap": ap, "at": at, "df": dfv, "sp": sp}
    reduced = None
    if steps == 2:
        reduced = {"ap": half_up(ap * rule.red_ap) if ap else 0,
                   "at": max(at - rule.red_at, 0) if at else 0,
                   "df": max(dfv - rule.red_adf, 1) if armored else max(half_up(dfv * rule.red_rdf), 1),
                   "sp": max(half_up(sp / 2), 1)}
    # movement
    ma = half_up(float(u["movement"]) * rule.ma_factor)
    mclass = u["movement_class"]
    if cat == "armored_car":
        mode = rule.mode["armored_car"]
    elif cat == "towed_gun" and ma == 0:
        mode = rule.mode["gun_without_ma"]
    else:
        mode = rule.mode[mclass]
    gun = gun_size(uid, u, rule) if cat == "towed_gun" else ""
    # capabilities
    caps = dict(rule.caps.get(cat, {}))
    overrun = bool(caps.get("overrun", False))
    rider = bool(caps.get("rider", False)) and side in rule.rider_nations
    carrier = bool(caps.get("carrier", False)) and cat == "transport"
    if cat == "transport" and armored:
        overrun = True  # half-tracks (PB2 10.0, 10.2.1; classic halftrack overrun)
    carrier_type = ""
    if carrier:
        carrier_type = u.get("carrier_type") or {"truck": "truck", "wagon": "wagon"}.get(mclass, "half_track")
    indirect = bool(u.get("indirect_fire")) or w == "M"
    mortar = w == "M"
    aa = bool(u.get("anti_aircraft"))
    aa_class = ""
    if aa:
        aa_class = "mg" if w == "I" else ("light_flak" if af <= rule.aa_max_light else "quad_flak")
    codes = [c for c, on in (("IF", indirect and not mortar), ("M", mortar), ("AA", aa), ("C", carrier),
                             ("OVR", overrun)) if on]
    kind = ("infantry" if infantry else "afv" if cat in AFV_CATEGORIES else "gun" if cat == "towed_gun"
            else "transport" if cat == "transport" else cat)
    out = {
        "name": u["name"],
        "side": side,
        "kind": kind,
        "category": cat,
        "armored": armored,
        "steps": steps,
        "full": full,
    }
    if reduced:
        out["reduced"] = reduced
    out.update({
        "range": half_up(float(u["range"]) * rule.range_factor),
        "ma": ma,
        "mode": mode,
        "codes": codes,
        "overrun": overrun,
        "carrier": carrier,
        "carrier_type": carrier_type,
        "rider": rider,
        "infantry": infantry,
        "indirect_fire": indirect,
        "mortar": mortar,
        "smoke": indirect and rule.smoke_if,
        "anti_aircraft": aa,
        "aa_class": aa_class,
        "engineer": bool(u.get("engineer")),
        "slope_exempt": bool(u.get("slope_exempt", False)),
        "gun": gun,
        "from": f"{af:g} {w}, range {u['range']}, defence {df:g}, movement {u['movement']} ({mclass}), {cat}",
        "source": "reconstructed",
        "see": "conversion.md",
    })
    text = dict(u.get("text", {}))
    if uid == "pzkw-iv-h":
        text["full.ap"] = "PB2 7.7 example (three PzKw IV: AP 21)"
    if "defense" in text:
        text["full.df"] = text.pop("defense")
    if text:
        out["text"] = text
    return out


def convert_marker(uid: str, u: dict, rule: Rule) -> dict:
    cat = u["category"]
    out = {"name": u["name"], "side": u["side"], "kind": "marker", "category": cat, "armored": cat == "fortification",
           "steps": 1}
    if cat == "minefield":
        # PB2 15.2: the strength on the back, or a dummy (15.2.3.1)
        out["strength"] = "dummy" if u.get("dummy") else f"{int(u['attack'])}-1"
    elif cat == "fortification":
        out["full"] = {"ap": 0, "at": 0, "df": max(rule.scale(float(u["defense"])), rule.min_armored_df), "sp": 0}
        out["capacity"] = 6
    elif cat == "roadblock":
        out["full"] = {"ap": 0, "at": 0, "df": 0, "sp": 4}
    out.update({"from": f"classic {cat}: attack {u['attack']}, defence {u['defense']}",
                "source": "reconstructed", "see": "conversion.md#markers"})
    return out


# ----------------------------------------------------------------------------- writing

def unit_block(uid: str, u: dict) -> list[str]:
    lines = [f"[units.{key(uid)}]"]
    for k, v in u.items():
        if isinstance(v, dict):
            continue
        lines.append(assign(k, v))
    for k, v in u.items():
        if isinstance(v, dict):
            lines.append(f"{key(k)} = {value(v)}")
    return lines


def units_file(header: list[str], units: dict[str, dict]) -> str:
    out = list(header) + [""]
    for uid in sorted(units):
        out += unit_block(uid, units[uid]) + [""]
    return "\n".join(out)


HEADER_CLASSIC = [
    "# The classic PanzerBlitz counters as Panzer Blitz v2.0 counters.  GENERATED by",
    "# tools/pbv2_convert_units.py from situations/rulesets/panzerblitz/units.toml and conversion.toml;",
    "# do not edit by hand: change conversion.toml (or the classic unit) and re-run the converter.",
    "# Reasoning: docs/panzerblitz-v2/conversion.md.  Every counter is `reconstructed` (see) except the",
    "# fields listed in its `text` table, which a rule case or worked example fixes.",
    "#   full / reduced: ap (red attack, AP odds line), at (black attack, AT differential line),",
    "#                   df (defence; red if armored = false, black if true), sp (stacking points)",
    "#   range (hexes), ma (movement points), mode (wheeled | tracked | leg | towed | none),",
    "#   codes (printed special capabilities, PB2 2.3.2), steps (1 or 2), gun (light | heavy towed gun)",
]

HEADER_HOD = [
    "# Hill of Death counters (British, and German ones the classic set lacks) as Panzer Blitz v2.0",
    "# counters.  GENERATED by tools/pbv2_convert_units.py from units-hod-source.toml and conversion.toml;",
    "# change those and re-run.  Same fields as units-classic.toml.  Reasoning: conversion.md#hod-units.",
]


def side_force(card: dict, units: dict[str, dict]) -> dict[str, dict]:
    """Per side: full-strength SP set up at the start and entering on each turn."""
    out = {}
    for side in card["side"]:
        start, entering, count = 0, {}, 0
        for g in side.get("group", []):
            sp = sum(n * units[uid]["full"]["sp"] for uid, n in g["units"].items() if units[uid]["kind"] != "marker")
            count += sum(n for uid, n in g["units"].items() if units[uid]["kind"] != "marker")
            if "enter" in g:
                t = int(g["enter"].get("turn", 1))
                entering[t] = entering.get(t, 0) + sp
            else:
                start += sp
        out[side["name"]] = {"start_sp": start, "entering_sp": entering, "units": count}
    return out


def chit_counts(force: dict, rule: Rule) -> tuple[int, dict[int, int]]:
    """Op chits at the start and added with each entering group (one per sp_per_chit SP, the
    total kept within [min, max])."""
    start = math.ceil(force["start_sp"] / rule.sp_per_chit)
    added = {t: math.ceil(sp / rule.sp_per_chit) for t, sp in sorted(force["entering_sp"].items())}
    total = start + sum(added.values())
    if total < rule.chit_min:
        start += rule.chit_min - total
    for t in sorted(added, reverse=True):
        excess = start + sum(added.values()) - rule.chit_max
        if excess <= 0:
            break
        cut = min(excess, added[t])
        added[t] -= cut
    added = {t: n for t, n in added.items() if n > 0}
    start = min(start, rule.chit_max)
    return start, added


def classic_cards(units: dict[str, dict], rule: Rule) -> str:
    out = [
        "# The twelve classic PanzerBlitz situations under Panzer Blitz v2.0: the parameters a v2 card",
        "# needs that a classic card lacks (efficiency, Ops chits, reinforcement chits).  GENERATED by",
        "# tools/pbv2_convert_units.py from situations/pb-*.toml and conversion.toml (conversion.md#classic-cards).",
        "# Forces, boards, set-up, turns and victory stay those of the classic file named by `classic`.",
        "",
    ]
    for path in CLASSIC_CARDS:
        card = load(path)
        cid = card["id"]
        if cid not in rule.classic_year:
            raise ConversionError(f"conversion.classic_year: no year for {cid} ({path.name})")
        year = rule.classic_year[cid]
        force = side_force(card, units)
        out.append(f"[cards.{key(cid)}]")
        out.append(assign("classic", f"situations/{path.name}"))
        out.append(assign("title", card["title"]))
        out.append(assign("year", year))
        out.append(assign("turns", card["turns"]))
        out.append('source = "reconstructed"')
        out.append('see = "conversion.md#classic-cards"')
        for side, f in force.items():
            eff = rule.efficiency[side][year]
            start, added = chit_counts(f, rule)
            op = f"op{rule.chit_radius}"
            out.append("")
            out.append(f"[cards.{key(cid)}.side.{key(side)}]")
            out.append(assign("efficiency", eff))
            out.append(assign("chits", {op: start}))
            out.append(assign("chits_added", {str(t): {op: n} for t, n in added.items()}))
            out.append(assign("reinforcement_chit_turns", sorted(f["entering_sp"])))
            out.append(assign("force_sp", f["start_sp"] + sum(f["entering_sp"].values()), f"{f['units']} units"))
        out.append("")
    return "\n".join(out)


def build() -> dict[str, str]:
    rule = Rule(load(V2 / "conversion.toml"))
    classic = load(CLASSIC_UNITS)["units"]
    hod_src = load(V2 / "units-hod-source.toml")["units"]
    dup = set(classic) & set(hod_src)
    if dup:
        raise ConversionError(f"units-hod-source.toml: ids already in the classic set: {sorted(dup)}")
    conv_classic = {uid: convert(uid, u, rule) for uid, u in classic.items()}
    conv_hod = {uid: convert(uid, u, rule) for uid, u in hod_src.items()}
    return {
        "units-classic.toml": units_file(HEADER_CLASSIC, conv_classic),
        "units-hod.toml": units_file(HEADER_HOD, conv_hod),
        "classic-cards.toml": classic_cards(conv_classic, rule),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="write the files (default: report differences)")
    args = ap.parse_args(argv)
    files = build()
    for name, text in files.items():
        path = V2 / name
        old = path.read_text() if path.exists() else None
        if args.write:
            write_atomic(path, text)
            print(f"wrote {path}")
        else:
            print(f"{name}: {'unchanged' if old == text else 'would change'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
