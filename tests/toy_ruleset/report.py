"""What the reports draw and say of a hex race: its map's look, the runners' starts and goals,
how a race is won, and where runners stumbled."""

from __future__ import annotations

import numpy as np

from simulator.api import (
    BarFeature,
    EventMap,
    LegendEntry,
    MapStyle,
    MeasureChart,
    SetupMark,
    SituationMarks,
)

COLOURS = {"clear": "#eef3e2", "mud": "#9c7b4d", "water": "#4f86c6"}
WALL = "#2b2b2b"


class RaceReport:
    chart_notes = {"attrition": "In a race, what is left is the distance still to run."}
    event_map = EventMap(heading="Where runners stumbled",
                         how="Each disc is one side's stumbles in that hex (a roll of 1), per game.",
                         noun="stumbles", per_hex="stumbles of that side in the hex", off_map="stumbles off the board")

    def map_style(self, game_map) -> MapStyle:
        mud, water = game_map.has_feature("mud"), game_map.has_feature("water")
        fills = [COLOURS["water"] if w else COLOURS["mud"] if d else COLOURS["clear"] for d, w in zip(mud, water, strict=True)]
        return MapStyle(fills=fills, inner=[None] * game_map.n_hexes, hatched=np.zeros(game_map.n_hexes, dtype=bool),
                        bars=(BarFeature("wall", WALL),),
                        legend=(LegendEntry("clear", colour=COLOURS["clear"]), LegendEntry("mud", colour=COLOURS["mud"]),
                                LegendEntry("water", colour=COLOURS["water"]), LegendEntry("wall", kind="bar", colour=WALL)))

    def situation_marks(self, situation) -> SituationMarks:
        sides = situation.side_names
        m = situation.map
        return SituationMarks(
            sides=sides,
            setup=tuple(SetupMark(s, np.array([situation.start[s]]), (situation.start[s],)) for s in sides),
            objectives={s: np.array([situation.goal[s]]) for s in sides},
            subtitle=f"board {situation.map.layout[0][0]}  \u00b7  {situation.turns} turns  \u00b7  {situation.first} runs first",
            notes=tuple(f"{s}: runs from {m.labels[situation.start[s]]} to {m.labels[situation.goal[s]]}" for s in sides),
            setup_label="start", fixed_label="start hex", objective_label="goal",
        )

    def victory_words(self, side: str, summary: dict) -> str | None:
        goal = (summary.get("goals") or {}).get(side)
        if goal is None:
            return None
        return (f"{side.capitalize()}: first to reach {goal}; a clear win if the other runner is still "
                f"{summary['clear_margin']} hexes or more from its goal, else a narrow one.")

    def measure_chart(self, side: str, summary: dict) -> MeasureChart | None:
        goal, length = (summary.get("goals") or {}).get(side), (summary.get("lengths") or {}).get(side)
        if goal is None:
            return None
        return MeasureChart(f"hexes run toward {goal}", (("narrow", ">=", float(length)),))

    def how_to_win(self, summary: dict) -> str:
        return "The first runner home wins. A race in which nobody is home after the last turn is a <b>draw</b>."

    def notes(self, summary: dict) -> list[str]:
        return []

    def warnings(self, summary: dict) -> list[str]:
        return []


REPORT = RaceReport()
