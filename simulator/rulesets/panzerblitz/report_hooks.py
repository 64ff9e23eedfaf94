"""What the reports say and draw that only PanzerBlitz knows (simulator.api.ReportHooks): the map's
look and the card's marks (map_style.py), the victory conditions in words (victory_text.py),
the measures chart's thresholds, the draw and no-battle rule, and units lost at set-up."""

from __future__ import annotations

import html

from simulator.api import EventMap, MapStyle, MeasureChart, SituationMarks
from simulator.rulesets.panzerblitz import map_style
from simulator.rulesets.panzerblitz.victory_text import measure_words, thresholds, victory_words

DRAW = ("A game is a <b>draw</b> when neither side reached a higher victory level than the other: both "
        "reached none of their levels, or both the same one (docs/rulings.md). A game in which neither side "
        "fired or moved toward the enemy is no battle (PB-VIC-6) and also counts as a draw.")


class PanzerBlitzReport:
    chart_notes = {
        "attrition": "Left: units still on the map; right: their printed attack factors.",
        "losses_by_type": "Units that do not count for victory (forts, blocks, minefields) are left out.",
    }
    event_map = EventMap(
        heading="Where units were lost",
        how=("Each disc is one side's losses in that hex, per game: its area is proportional to the "
             "number, on one scale for every board. Terrain is drawn faded underneath. One map a board "
             "below; the whole map at full size is charts/loss_map.png beside this report."),
        noun="losses", per_hex="units of that side lost in the hex", off_map="lost off the map",
    )

    def map_style(self, game_map) -> MapStyle:
        return map_style.map_style(game_map)

    def situation_marks(self, situation) -> SituationMarks:
        return map_style.situation_marks(situation)

    def victory_words(self, side: str, summary: dict) -> str | None:
        victory = summary.get("victory") or {}
        if side not in victory:
            return None
        return victory_words(side, victory[side], list(summary["outcomes"]))

    def measure_chart(self, side: str, summary: dict) -> MeasureChart | None:
        v = (summary.get("victory") or {}).get(side)
        if v is None:
            return None
        return MeasureChart(measure_words(v, side, list(summary["outcomes"])), tuple(thresholds(v)))

    def how_to_win(self, summary: dict) -> str:
        return "The side that reaches the higher victory level wins. " + DRAW

    def notes(self, summary: dict) -> list[str]:
        lost = summary.get("lost_at_setup") or {}
        if not lost:
            return []
        e = html.escape
        items = "".join(
            f"<li>{e(side.capitalize())}: in {v['games']} of {summary['games']} games, "
            + e(", ".join(f"{k} ({m:g} a game)" for k, m in v["units"].items())) + "</li>"
            for side, v in lost.items())
        return ["<div class='warn'><b>Units lost at set-up.</b> Some counters found no legal hex in their set-up "
                "area when their turn to set up came (stacking, terrain or the other side's units there): they "
                f"took no part in those games. <ul>{items}</ul>The games table counts them per game "
                "(<code>lost_at_setup_&lt;side&gt;</code>).</div>"]

    def warnings(self, summary: dict) -> list[str]:
        """A line a side whose counters were lost at set-up in some game."""
        lines = []
        for side, v in (summary.get("lost_at_setup") or {}).items():
            units = ", ".join(f"{k} ({m:g} a game)" for k, m in v["units"].items())
            lines.append(f"warning: in {v['games']} of {summary['games']} games {side} counters found no legal "
                         f"set-up hex and were lost at set-up: {units} (games table: lost_at_setup_{side})")
        return lines


REPORT = PanzerBlitzReport()
