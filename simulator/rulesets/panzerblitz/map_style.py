"""How a PanzerBlitz map looks and what a situation card adds to it, for the core's map drawing
(reports/mapview.py): the colours of the printed boards, terrain fills, hexside bars, roads and
streams, the legend, and each side's set-up areas, entries, objectives and force notes."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from simulator.api import (
    BarFeature,
    EntryMark,
    LegendEntry,
    LineFeature,
    MapStyle,
    SetupMark,
    SituationMarks,
)
from simulator.rulesets.panzerblitz.combat import HILLTOP, SLOPE

# Hex fills, as on the printed PanzerBlitz boards.
TERRAIN_COLOURS: dict[str, str] = {
    "clear": "#f4ecd2",    # pale cream
    "woods": "#4f9a47",    # green
    "town": "#8e8e8e",     # grey
    "swamp": "#7db8a8",    # blue-green (drawn with a hatch)
    "slope": "#cfa46c",    # tan
    "hilltop": "#c0702f",  # orange-brown, darker than slope
    "gully": "#b7d5ef",    # light blue
    "ford": "#e3eef9",     # very light blue
    "pond": "#3f7fd0",     # blue
}
SWAMP_HATCH_COLOUR = "#2f6f60"

# Hexside symbols (thick bars on hex edges).
HEXSIDE_COLOURS: dict[str, str] = {
    "green": "#14501a",   # woods hexside
    "gray": "#333333",    # town hexside
    "brown": "#6b3a17",   # slope hexside
    "orange": "#ff8a1c",  # hilltop hexside
    "pond": "#1b4fa8",    # pond edge
}
HEXSIDE_LABELS: dict[str, str] = {
    "green": "woods hexside",
    "gray": "town hexside",
    "brown": "slope hexside",
    "orange": "hilltop hexside",
    "pond": "pond edge",
}
BAR_FEATURES = ("green", "gray", "brown", "orange", "pond")

ROAD_COLOUR = "#6e1010"    # dark red
STREAM_COLOUR = "#1f66d1"  # blue
ROAD_WIDTH = 0.10          # hex units
STREAM_WIDTH = 0.09


def terrain_fills(m) -> tuple[list[str], list[str | None], np.ndarray]:
    """Per hex: the fill colour, the colour of an inner hex (or None) and a swamp mask.

    The fill shows the ground (pond, swamp, hilltop, slope, gully, ford, else clear); town
    and woods fill the hex on clear ground and are drawn as an inner hex on anything else,
    so woods on a hilltop or in a gully show both.
    """
    has = {f: m.has_feature(f) if f in m.hex_vocab else np.zeros(m.n_hexes, bool)
           for f in ("pond", "swamp", "hilltop", "slope", "gully", "ford", "town", "woods")}
    has["hilltop"] |= m.elevation >= HILLTOP  # the board's elevation levels (PB-HILL)
    has["slope"] |= m.elevation == SLOPE
    ground_order = ("pond", "swamp", "hilltop", "slope", "gully", "ford")
    fills: list[str] = []
    inner: list[str | None] = []
    for i in range(m.n_hexes):
        ground = next((g for g in ground_order if has[g][i]), "clear")
        cover = next((c for c in ("town", "woods") if has[c][i]), None)
        if cover and ground == "clear":
            fills.append(TERRAIN_COLOURS[cover])
            inner.append(None)
        else:
            fills.append(TERRAIN_COLOURS[ground])
            inner.append(TERRAIN_COLOURS[cover] if cover else None)
    return fills, inner, has["swamp"]


def _legend() -> tuple[LegendEntry, ...]:
    t = TERRAIN_COLOURS
    fills = [LegendEntry(name, colour=t[name]) for name in ("clear", "woods", "town")]
    fills.append(LegendEntry("swamp", colour=t["swamp"], hatch="---"))
    fills += [LegendEntry(name, colour=t[name]) for name in ("slope", "hilltop")]
    fills.append(LegendEntry("woods (inner hex) on hilltop / in gully", colour=t["woods"], edge=t["hilltop"],
                             edge_width=3))
    fills += [LegendEntry(name, colour=t[name]) for name in ("gully", "ford", "pond")]
    bars = [LegendEntry(HEXSIDE_LABELS[f], kind="bar", colour=HEXSIDE_COLOURS[f]) for f in BAR_FEATURES]
    lines = [LegendEntry("road", kind="line", colour=ROAD_COLOUR),
             LegendEntry("stream / gully bed", kind="line", colour=STREAM_COLOUR)]
    return (*fills, *bars, *lines)


def map_style(m) -> MapStyle:
    fills, inner, swamp = terrain_fills(m)
    return MapStyle(
        fills=fills, inner=inner, hatched=swamp, hatch="---", hatch_colour=SWAMP_HATCH_COLOUR,
        # streams under roads: a road crossing a stream stays one line
        lines=(LineFeature(("stream", "ford"), STREAM_COLOUR, STREAM_WIDTH),
               LineFeature(("road",), ROAD_COLOUR, ROAD_WIDTH)),
        bars=tuple(BarFeature(f, HEXSIDE_COLOURS[f]) for f in BAR_FEATURES),
        legend=_legend(),
        half_hexes=True,  # the geomorphic boards' edges run through half hexes
    )


# ------------------------------------------------------------------------- the situation card

def _setup_groups(side):
    """Groups that set up on the map in a fixed area (not `with_unit`: those stack with a unit)."""
    return [g for g in side.groups if not g.entering and "with_unit" not in g.area and len(g.hexes)]


def _entry_label(group) -> str:
    if group.road_march:
        toward = str(group.road_march.get("toward", "?")).upper()
        return f"road march T{group.turn} \u2192 {toward}"
    return f"T{group.turn}"


def _entries(situation) -> list[EntryMark]:
    """One mark per side and entry area, with the turns (and road marches) entering there."""
    out = []
    for side in situation.sides:
        by_area: dict[tuple[int, ...], list] = defaultdict(list)
        for g in side.groups:
            if g.entering and len(g.hexes):
                by_area[tuple(int(h) for h in g.hexes)].append(g)
        for hexes, groups in by_area.items():
            road_march = next((g.road_march for g in groups if g.road_march), None)
            toward = (situation.map.lookup(str(road_march["toward"]))
                      if road_march and "toward" in road_march else None)
            out.append(EntryMark(side.name, hexes, tuple(sorted({_entry_label(g) for g in groups})),
                                 emphasis=road_march is not None,
                                 kind="road-march entry" if road_march else "entry hex", toward=toward))
    return out


def _describe_area(g) -> str:
    a = g.area
    parts = []
    if "hexes" in a:
        parts.append("hex " + ", ".join(str(h).upper() for h in a["hexes"][:6])
                     + (" ..." if len(a["hexes"]) > 6 else ""))
    if "boards" in a:
        parts.append("board " + ", ".join(str(b) for b in a["boards"]))
    if "edge" in a:
        parts.append(f"{a['edge']} edge")
    if "region" in a:
        regions = a["region"] if isinstance(a["region"], list) else [a["region"]]
        parts.append(", ".join(regions))
    if "columns" in a:
        parts.append(f"columns {a['columns']}")
    if "rows" in a:
        parts.append(f"rows {a['rows']}")
    if "terrain" in a:
        parts.append("terrain " + "/".join(a["terrain"]))
    for feat, k in a.get("hexsides", {}).items():
        parts.append(f"at least {k} {feat} hexsides")
    if "anywhere" in a:
        parts.append("anywhere")
    if "exclude_hexes" in a:
        parts.append("except " + ", ".join(a["exclude_hexes"]))
    if "min_distance_from_unit" in a:
        md = a["min_distance_from_unit"]
        parts.append(f"at least {md.get('hexes')} hexes from a {md.get('unit')}")
    if "with_unit" in a:
        parts.append(f"stacked with a {a['with_unit']} (not drawn)")
    text = "; ".join(parts) or "?"
    if "with_unit" not in a and len(g.hexes) > 1:
        text += f" ({len(g.hexes)} hexes)"
    return text


def _notes(situation, objectives: dict) -> list[str]:
    """One line per force group: where it sets up or enters; then the objective hexes."""
    lines = []
    for side in situation.sides:
        for g in side.groups:
            n_units = sum(g.units.values())
            if g.entering:
                how = f"enters turn {g.turn}"
                if g.road_march:
                    rm = g.road_march
                    how += (f" by road march toward {str(rm.get('toward', '?')).upper()}, "
                            f"{rm.get('hexes_per_turn', '?')} hexes/turn until within "
                            f"{rm.get('stop_within', '?')} hexes of the enemy")
            else:
                how = "sets up"
            lines.append(f"{side.name}: {g.name} ({n_units} units) {how} \u2014 {_describe_area(g)}")
    parts = [f"{s} {len(h)} hexes" for s, h in objectives.items() if len(h)]
    lines.append("Objective hexes (ringed): " + (", ".join(parts) if parts else
                                                 "none (victory does not name hexes)"))
    return lines


def situation_marks(situation) -> SituationMarks:
    m = situation.map
    setup = []
    for side in situation.sides:
        groups = _setup_groups(side)
        if groups:
            member = np.zeros(m.n_hexes, dtype=bool)
            for g in groups:
                member[g.hexes] = True
            setup.append(SetupMark(side.name, np.flatnonzero(member),
                                   tuple(int(g.hexes[0]) for g in groups if len(g.hexes) == 1)))
    objectives = situation.objective_hexes()
    layout = " / ".join(" + ".join(row) for row in m.layout)
    subtitle = (f"boards {layout} (\"i\" = inverted)  \u00b7  {situation.turns} turns  \u00b7  "
                f"{situation.sets_up_first} sets up first, {situation.moves_first} moves first")
    return SituationMarks(sides=tuple(s.name for s in situation.sides), setup=tuple(setup),
                          entries=tuple(_entries(situation)), objectives=objectives, subtitle=subtitle,
                          notes=tuple(_notes(situation, objectives)))
