"""A PanzerBlitz situation's victory conditions in words, for the report (from the `[side.victory]` tables
saved in summary.json; the vocabulary is docs/situation-format.md's).

`thresholds` gives the levels of a side's measure as (level, compare, threshold), for the chart of
each side's victory measure against its thresholds over the turns.
"""

from __future__ import annotations

LEVELS = ("marginal", "tactical", "decisive", "victory")
COMPARE_WORDS = {">=": "at least", "<=": "at most", ">": "more than", "<": "fewer than", "==": "exactly"}


def _side(whose: str, side: str, sides: list[str]) -> str:
    """'German' for own/enemy of `side`."""
    if whose == "enemy":
        others = [s for s in sides if s != side]
        return others[0].capitalize() if len(others) == 1 else "enemy"
    return side.capitalize()


def _hexes(hexes: list) -> str:
    """'hexes 2U5, 2U6' or, for a long list, '34 hexes (1C7, 1C6, 1C5, ..., 2GG1)'."""
    hexes = [str(h) for h in hexes]
    if len(hexes) <= 6:
        return "hex " + hexes[0] if len(hexes) == 1 else "hexes " + ", ".join(hexes)
    return f"{len(hexes)} hexes ({', '.join(hexes[:3])}, ..., {hexes[-1]})"


def _area(area: dict) -> str:
    parts = []
    if "boards" in area:
        parts.append("board " + ", ".join(map(str, area["boards"])))
    if "hexes" in area:
        parts.append(_hexes(area["hexes"]))
    if "region" in area:
        region = area["region"]
        parts.append(", ".join(region) if isinstance(region, list) else str(region))
    if "edge" in area:
        parts.append(f"the {area['edge']} edge")
    if "terrain" in area:
        parts.append(" or ".join(area["terrain"]) + " hexes")
    if "columns" in area:
        parts.append(f"columns {area['columns']}")
    if "rows" in area:
        parts.append(f"rows {area['rows']}")
    if area.get("anywhere"):
        parts.append("anywhere on the map")
    return " in ".join(parts) if parts else "the area"


def _units(m: dict, who: str) -> str:
    what = f"{who} units"
    if m.get("units"):
        what = f"{who} " + ", ".join(m["units"])
    if m.get("group"):
        what += f" of group {m['group']!r}"
    if m.get("weights"):
        what += " (" + ", ".join(f"a {k} counts {v}" for k, v in m["weights"].items()) + ")"
    return what


def measure_words(m: dict, side: str, sides: list[str]) -> str:
    """What a measure counts, e.g. 'Russian units destroyed'."""
    kind = m.get("measure")
    who = _side(m.get("whose", "own"), side, sides)
    if kind == "ratio":
        return (f"the ratio of {measure_words(m['numerator'], side, sides)} to "
                f"{measure_words(m['denominator'], side, sides)}")
    if kind == "destroyed":
        return f"{_units(m, who)} destroyed"
    if kind == "in_area":
        return f"{_units(m, who)} on {_area(m['area'])}"
    if kind == "exited":
        stay = f", staying off {m['stay_off_turns']} turns" if m.get("stay_off_turns") else ""
        return f"{_units(m, who)} exited off the {m['edge']} edge{stay}"
    if kind == "round_trip":
        stay = f", stayed off {m['stay_off_turns']} turns" if m.get("stay_off_turns") else ""
        if not m.get("return_leg", True):
            return f"{_units(m, who)} exited off the {m['edge']} edge{stay}"
        return (f"{_units(m, who)} that left by the {m['edge']} edge{stay}, came back on where they left "
                f"and then left by the {m['final_edge']} edge")
    if kind == "not_exited":
        return f"{_units(m, who)} not exited off the {m['edge']} edge"
    if kind == "entered":
        return f"whether a {who} unit entered {_area(m['area'])} (1 = yes)"
    if kind == "hexes_controlled":
        return f"{_hexes(m['hexes'])} controlled by the {who}s"
    if kind == "furthest_advance":
        return f"the furthest {who} advance toward the {m['toward']} (hex columns or rows)"
    if kind == "line_of_fire":
        return f"whether {who} units see or hold a line from the {m['between'][0]} to the {m['between'][1]} edge (1 = yes)"
    if kind == "open_corridor":
        return (f"whether a corridor {m['width']} hexes wide from the {m['between'][0]} to the {m['between'][1]} "
                f"edge is free of {who} units and their sight (1 = yes)")
    if kind == "prevent_enemy":
        return "whether the enemy reached no victory level (1 = yes)"
    return str(kind)


def thresholds(v: dict) -> list[tuple[str, str, float]]:
    """(level, compare, threshold) of each level the side can reach, lowest level first."""
    default = v.get("compare", ">=")
    out = []
    for level in LEVELS:
        if level not in v:
            continue
        spec = v[level]
        if isinstance(spec, dict):
            out.append((level, spec.get("compare", default), float(spec["threshold"])))
        else:
            out.append((level, default, float(spec)))
    return out


def _number(x: float) -> str:
    return f"{x:g}"


def victory_words(side: str, v: dict, sides: list[str]) -> str:
    """One sentence: 'German: Russian units destroyed; marginal at least 5, tactical at least 10...'."""
    if not v:
        return f"{side.capitalize()}: no victory conditions recorded."
    levels = ", ".join(f"{level} with {COMPARE_WORDS.get(c, c)} {_number(t)}" for level, c, t in thresholds(v))
    text = f"{side.capitalize()}: {measure_words(v, side, sides)} at the end of the game; {levels}"
    for alt in v.get("also", []):
        conds = " and ".join(f"{measure_words(c, side, sides)} {COMPARE_WORDS.get(c.get('compare', '>='), '')} "
                             f"{_number(c['threshold'])}" for c in alt.get("all", []))
        text += f"; also {alt.get('level')} when {conds}"
    return text + "."
