"""What the reports draw and say of a Panzer Blitz v2.0 situation: the Hill 112 map's look (six
levels in shades of green, darkest = level 1, PB2 5.2), the set-up areas and entries, the
objective, how a game is won, and where steps were lost."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from simulator.api import (
    BarFeature,
    EntryMark,
    EventMap,
    LegendEntry,
    LineFeature,
    MapStyle,
    MeasureChart,
    SetupMark,
    SituationMarks,
)
from simulator.rulesets.panzerblitz_v2.schema import CLASSIC_MEASURES, LEVEL_KEYS

# The same palette as tools/pbv2_make_map.py (docs/panzerblitz-v2/img/hill112-board.png).
LEVEL_COLOURS = ["#2f5d2a", "#4a7a3a", "#6a9650", "#8db36b", "#b3cf8e", "#dbe8b5"]
TOWN, WOODS, ORCHARD = "#a0643c", "#133d12", "#1f5a1c"
ROAD, STREAM, DEEP, RIVER, SLOPE = "#8b3a1a", "#2c7fd6", "#1f5fb8", "#1a4fa0", "#3b2a14"
OUTSIDE = "#d8d8d8"


def _measure_words(v: dict) -> str:
    kind = v.get("measure")
    whose = "own" if v.get("whose", "own") == "own" else "enemy"
    if kind == "destroyed":
        w = v.get("weights") or {}
        extra = ", " + ", ".join(f"{u} counts {x}" for u, x in w.items()) if w else ""
        return f"{whose} units destroyed{extra}"
    if kind == "in_area":
        return f"{whose} units in the card's area"
    if kind == "furthest_advance":
        return f"furthest advance toward the {v.get('toward')} (columns)"
    if kind == "ratio":
        return f"{_measure_words(v['numerator'])} / {_measure_words(v['denominator'])}"
    return str(kind)


class PBV2Report:
    chart_notes = {"attrition": "Steps on the map: a full-strength counter is 2 steps, a reduced one 1 (PB2 2.3.1)."}
    event_map = EventMap(heading="Where steps were lost",
                         how="Each disc is one side's step losses in that hex (a counter reduced or eliminated), per game.",
                         noun="step losses", per_hex="steps of that side lost in the hex", off_map="losses off the map")

    def map_style(self, game_map) -> MapStyle:
        m = game_map
        def has(f):
            return m.has_feature(f) if f in m.hex_vocab else np.zeros(m.n_hexes, dtype=bool)
        town = has("town") | has("city")
        fills, inner = [], []
        for i in range(m.n_hexes):
            lv = int(np.clip(m.elevation[i], 1, 6))
            fills.append(TOWN if town[i] else LEVEL_COLOURS[lv - 1])
            inner.append(WOODS if has("woods")[i] else ORCHARD if has("orchard")[i] else None)
        legend = tuple(LegendEntry(f"level {k + 1}", colour=c) for k, c in enumerate(LEVEL_COLOURS)) + (
            LegendEntry("town", colour=TOWN), LegendEntry("woods (inner hex)", colour=WOODS),
            LegendEntry("orchard (inner hex)", colour=ORCHARD), LegendEntry("road", kind="line", colour=ROAD),
            LegendEntry("stream", kind="line", colour=STREAM), LegendEntry("deep stream", kind="line", colour=DEEP),
            LegendEntry("river", kind="line", colour=RIVER))
        lines = tuple(LineFeature((f,), c, w) for f, c, w in (("road", ROAD, 0.10),) if f in m.side_vocab)
        bars = tuple(BarFeature(f, c) for f, c in (("stream", STREAM), ("deep_stream", DEEP), ("river", RIVER))
                     if f in m.side_vocab)
        return MapStyle(fills=fills, inner=inner, hatched=np.zeros(m.n_hexes, dtype=bool), lines=lines, bars=bars,
                        legend=legend)

    def situation_marks(self, situation) -> SituationMarks:
        sides = situation.side_names
        setup, entries, notes = [], [], []
        for s in situation.sides:
            hexes = [g.setup for g in s.groups if g.setup is not None]
            if hexes:
                setup.append(SetupMark(s.name, np.unique(np.concatenate(hexes))))
            by_turn = defaultdict(set)
            for g in s.groups:
                if g.entry is not None:
                    by_turn[g.enter_turn].update(int(h) for h in g.entry)
            for turn, hx in sorted(by_turn.items()):
                hx = sorted(hx)
                entries.append(EntryMark(s.name, tuple(hx), tuple([f"T{turn}"] + [""] * (len(hx) - 1))))
            for g in s.groups:
                n = sum(g.units.values())
                where = "off-board artillery (PB2 11)" if g.off_board else \
                    (f"aircraft from turn {g.air_turn}, {g.air_chits} Air Support chit a turn (PB2 16)" if g.air_turn else
                     f"enters turn {g.enter_turn}" if g.enter_turn else "sets up")
                notes.append(f"{s.name}: {g.name} — {n} counters, {where}")
        chits = ", ".join(f"{s.name} " + " ".join(f"{k}×Op{r}" for r, k in sorted(s.chits.items()))
                          for s in situation.sides)
        efficiency = ", ".join(f"{s.name} {s.efficiency}" for s in situation.sides)
        if situation.classic_victory():
            # a converted classic card: the ground its players steer by (conversion.md#victory)
            boards = " ".join("".join(r) for r in situation.map.layout) if hasattr(situation.map, "layout") else ""
            return SituationMarks(
                sides=sides, setup=tuple(setup), entries=tuple(entries),
                objectives={situation.goal_side: situation.goal},
                subtitle=f"classic boards {boards} · {situation.turns} turns · chits: {chits} · efficiency {efficiency}",
                notes=tuple(notes), objective_label=f"the {situation.goal_side} players' goal (conversion.md#victory)")
        stated = next(s for s in situation.sides if s.victory.get("measure") == "hexes_controlled")
        return SituationMarks(
            sides=sides, setup=tuple(setup), entries=tuple(entries),
            objectives={stated.name: stated.objective},
            subtitle=f"Hill 112 board · {situation.turns} turns · chits: {chits} · efficiency {efficiency}",
            notes=tuple(notes), objective_label=f"objective: {stated.victory.get('region')}")

    def victory_words(self, side: str, summary: dict) -> str | None:
        v = (summary.get("victory") or {}).get(side)
        if not v:
            return None
        if v.get("measure") in CLASSIC_MEASURES:
            levels = ", ".join(f"{k} {v.get('compare', '>=')} {v[k]['threshold'] if isinstance(v[k], dict) else v[k]}"
                               for k in LEVEL_KEYS if k in v)
            return f"{side.capitalize()}: the classic card's measure ({_measure_words(v)}): {levels}."
        if v.get("measure") == "hexes_controlled":
            cmp = "more than" if v.get("compare") == ">" else "at least"
            return (f"{side.capitalize()}: control {cmp} {v.get('victory')} hexes of {v.get('region')} at the end "
                    "(a hex is controlled by the last side with a non-Disrupted unit in it, PB2 3.2).")
        return f"{side.capitalize()}: wins if the other side fails its condition (PB2 3.2)."

    def measure_chart(self, side: str, summary: dict) -> MeasureChart | None:
        v = (summary.get("victory") or {}).get(side)
        if v and v.get("measure") in CLASSIC_MEASURES:
            return MeasureChart(_measure_words(v), tuple(
                (k, (v[k].get("compare") if isinstance(v[k], dict) else None) or v.get("compare", ">="),
                 float(v[k]["threshold"] if isinstance(v[k], dict) else v[k])) for k in LEVEL_KEYS if k in v))
        if not v or v.get("measure") != "hexes_controlled":
            return None
        return MeasureChart(f"hexes of {v.get('region')} controlled", (("victory", v.get("compare", ">="), float(v["victory"])),))

    def how_to_win(self, summary: dict) -> str:
        if any((v or {}).get("measure") in CLASSIC_MEASURES for v in (summary.get("victory") or {}).values()):
            return ("A classic card under the v2.0 rules keeps its card's victory conditions: each side's measure "
                    "reaches a level (marginal, tactical, decisive); the higher level wins, equal levels are a draw. "
                    "A counter counts as destroyed when its last step is lost (PB2 2.3.1).")
        return ("One side states a condition; if it does not meet it by the last turn, the other side has won "
                "(PB2 3.2). There are no draws.")

    def notes(self, summary: dict) -> list[str]:
        return ["Panzer Blitz v2.0 engine: every rule case of the text is played (docs/panzerblitz-v2/README.md, "
                "'Implemented and not yet'); bridge demolition (17.2) and amphibious movement (4.4) are played but "
                "no card here has an engineer on a bridge or an amphibious unit. The player-aid tables the text "
                "does not give are reconstructed, each value marked (docs/panzerblitz-v2/tables.md)."]

    def warnings(self, summary: dict) -> list[str]:
        return []


REPORT = PBV2Report()
