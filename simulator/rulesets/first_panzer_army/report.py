"""What the reports draw and say of a First Panzer Army run: the map's look (terrain, rivers on
hexsides), the situation's marks (set-up, the relief's entry edge, the VP hexes), how the game
is won (4.3) and where units were lost."""

from __future__ import annotations

import numpy as np

from simulator.api import (
    EntryMark,
    EventMap,
    LegendEntry,
    LineFeature,
    MapStyle,
    MeasureChart,
    SetupMark,
    SituationMarks,
)

COLOURS = {"clear": "#eef0dc", "forest": "#7fae6a", "rough": "#c8ad7f", "marsh": "#9cc7c0",
           "town": "#d9d9d9", "fortified_locality": "#b0a0a0"}
RIVER, MAJOR = "#5b9bd5", "#1f5fa8"


class FPAReport:
    chart_notes = {"attrition": "Steps are the counters' strength: a German division has 4, 6 or 8 (FPA 2.6)."}
    event_map = EventMap(heading="Where units were eliminated",
                         how="Each disc is one side's units eliminated in that hex, per game.",
                         noun="eliminations", per_hex="units of that side eliminated in the hex",
                         off_map="eliminated off the map")

    def map_style(self, game_map) -> MapStyle:
        fills = []
        for i in range(game_map.n_hexes):
            fill = COLOURS["clear"]
            for name in ("forest", "rough", "marsh", "town", "fortified_locality"):
                if game_map.has_feature(name)[i]:
                    fill = COLOURS[name]
            fills.append(fill)
        return MapStyle(
            fills=fills, inner=[None] * game_map.n_hexes, hatched=np.zeros(game_map.n_hexes, dtype=bool),
            lines=(LineFeature(("river",), RIVER, 0.10), LineFeature(("major_river",), MAJOR, 0.18)),
            legend=tuple(LegendEntry(k.replace("_", " "), colour=v) for k, v in COLOURS.items())
            + (LegendEntry("river", kind="line", colour=RIVER), LegendEntry("Dnestr, Bug, Prut", kind="line", colour=MAJOR)),
        )

    def situation_marks(self, situation) -> SituationMarks:
        m = situation.map
        from simulator.rulesets.first_panzer_army.schema import _board_extras

        extras = _board_extras(situation.ruleset, m.layout[0][0])
        setup = tuple(SetupMark(s, np.array(sorted({r.hex for r in situation.setup[s]}), dtype=np.int64))
                      for s in situation.side_names)
        entry = tuple(m.lookup(h) for h in extras["edges"]["german_entry"]["hexes"])
        turns = sorted({r.turn for r in situation.reinforcements.get("german", [])})
        exits = tuple(m.lookup(h) for h in extras["edges"]["soviet_exit"]["hexes"])
        vp = np.flatnonzero(m.has_feature("town") | m.has_feature("fortified_locality"))
        return SituationMarks(
            sides=situation.side_names, setup=setup,
            entries=(EntryMark("german", entry, tuple("T" + ",".join(map(str, turns)) if i == 0 else "" for i in range(len(entry))),
                               kind="relief entry (10.1)"),
                     EntryMark("soviet", exits, tuple("exit" if i == 0 else "" for i in range(len(exits))), emphasis=True,
                               kind="Soviet exit hexes (4.1)")),
            objectives={"soviet": vp}, subtitle=f"{situation.turns} turns of 3 days  \u00b7  Soviet moves first",
            notes=tuple(situation.specials), objective_label="town / fortified locality (VP)",
        )

    def victory_words(self, side: str, summary: dict) -> str | None:
        if side == "soviet":
            return "Soviet: 32 or more victory points at the end of turn 8 (FPA 4.3)."
        if side == "german":
            return "German: hold the Soviets to 27 victory points or fewer (FPA 4.3); 28-31 is a draw."
        return None

    def measure_chart(self, side: str, summary: dict) -> MeasureChart | None:
        if side == "soviet":
            return MeasureChart("Soviet victory points (FPA 4.1-4.2)", (("victory", ">=", 32.0),))
        if side == "german":
            return MeasureChart("Soviet victory points: the Germans win at 27 or fewer", (("victory", "<=", 27.0),))
        return None

    def how_to_win(self, summary: dict) -> str:
        return ("Only the Soviet player scores (FPA 4.0): towns 1, fortified localities 4, German-held towns out "
                "of C&amp;C 1, corps exited at 0729-1729 1 (at most 4), German divisions eliminated out of C&amp;C "
                "their steps. At the end of turn 8: <b>32 or more</b> a Soviet victory, <b>27 or less</b> a German "
                "one, 28-31 a <b>draw</b> (the historical 31).")

    def notes(self, summary: dict) -> list[str]:
        return ["The map and counters of First Panzer Army are not in the rules text: they are a documented "
                "reconstruction (docs/first-panzer-army/), and the balance depends on it."]

    def warnings(self, summary: dict) -> list[str]:
        return []


REPORT = FPAReport()
