"""Write a run's report: report.html (charts embedded as data: URIs, inline CSS) and charts/*.png."""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from reports import charts
from reports.lossmap import draw_loss_map
from reports.verdict import verdict

# (file name, heading, how to read it)
CHARTS = (
    ("victory", "Victory probability",
     "Each bar is the share of games a side won, shaded by the level of its victory; the black "
     "whisker is the 95 % Wilson interval of the win probability."),
    ("attrition", "Attrition",
     "Units still on the map and their printed attack factors at the end of each game-turn: the "
     "line is the median game, the band holds the middle 80 % of games (10th to 90th percentile)."),
    ("decided", "When games are decided",
     "A game is decided in the first game-turn from whose end onward its result stays what it "
     "finally was. The result at the end of a turn is the situation's victory conditions evaluated "
     "on that turn's positions as if the game had ended there (winner and level). Turn 0 means the "
     "set-up already gave the final result and nothing in the game changed it."),
    ("losses_by_type", "Losses by unit type",
     "How many units of each type a side loses in an average game. Units that do not count for "
     "victory (forts, blocks, minefields) are left out."),
    ("loss_map", "Where units were lost",
     "Each disc is one side's losses in that hex, per game: its area is proportional to the "
     "number. Terrain is drawn faded underneath."),
    ("objectives", "Objective control over time",
     "Objective hexes each side holds at the end of each game-turn, averaged over the games."),
)


def build_figures(games: pd.DataFrame, turns: pd.DataFrame, summary: dict) -> dict:
    sides = list(summary["outcomes"])
    return {
        "victory": charts.victory_chart(summary),
        "attrition": charts.attrition_chart(turns, sides),
        "decided": charts.decided_chart(games, sides),
        "losses_by_type": charts.losses_by_type_chart(games, sides),
        "objectives": charts.objectives_chart(turns, sides),
    }


def write_report(games: pd.DataFrame, turns: pd.DataFrame, losses: pd.DataFrame, summary: dict, into: Path,
                 situation=None) -> Path:
    """Draw the charts into `into`/charts/ and write `into`/report.html; returns the HTML's path.

    The loss map needs the situation (its map); without it, or with no unit lost on the map, the
    report says so in place of the map."""
    into = Path(into)
    (into / "charts").mkdir(parents=True, exist_ok=True)
    figures = build_figures(games, turns, summary)
    loss_map = into / "charts" / "loss_map.png"
    drawn = situation is not None and draw_loss_map(situation, losses, len(games), loss_map) is not None
    if not drawn:
        why = ("No unit was lost on the map in any game of this run." if situation is not None
               else "The situation's map was not available to draw the losses on.")
        figures["loss_map"] = charts.nothing_to_show("Where units were lost", why)
    images = {}
    for name, fig in figures.items():
        path = into / "charts" / f"{name}.png"
        fig.savefig(path)
        plt.close(fig)
    for name, _, _ in CHARTS:
        images[name] = base64.b64encode((into / "charts" / f"{name}.png").read_bytes()).decode("ascii")
    page = into / "report.html"
    page.write_text(_page(games, summary, images))
    return page


def _verdict(games: pd.DataFrame, summary: dict) -> str:
    sides = list(summary["outcomes"])
    if len(sides) != 2 or games.empty:
        return "no verdict (needs two sides and at least one game)"
    wins = [int((games["winner"] == s).sum()) for s in sides]
    return verdict(sides[0], sides[1], wins[0], wins[1], len(games))


def _page(games: pd.DataFrame, summary: dict, images: dict) -> str:
    e = html.escape
    rows = []
    for side, o in summary["outcomes"].items():
        lv = " ".join(f"<td>{100 * o['levels'].get(level, 0):.1f} %</td>" for level in charts.LEVELS)
        rows.append(f"<tr><th>{e(side)}</th><td>{100 * o['win']:.1f} %</td>"
                    f"<td>[{100 * o['ci95'][0]:.1f}, {100 * o['ci95'][1]:.1f}] %</td>{lv}</tr>")
    d = summary["draw_ci95"]
    rows.append(f"<tr><th>draw</th><td>{100 * summary['draw']:.1f} %</td>"
                f"<td>[{100 * d[0]:.1f}, {100 * d[1]:.1f}] %</td><td></td><td></td><td></td></tr>")
    meta_keys = ("situation", "ruleset", "tool_version", "situation_sha256", "seed", "games", "policies",
                 "overrides", "elapsed_s", "games_per_s")
    meta = "".join(f"<tr><th>{e(k)}</th><td><code>{e(json.dumps(summary.get(k)))}</code></td></tr>"
                   for k in meta_keys)
    sections = "".join(
        f"<section><h2>{e(head)}</h2><p class='how'>{e(how)}</p>"
        f"<img alt='{e(head)}' src='data:image/png;base64,{images[name]}'></section>"
        for name, head, how in CHARTS)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{e(summary['situation'])}: balance report</title>
<style>
body {{ font-family: sans-serif; max-width: 980px; margin: 2em auto; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; }} th, td {{ padding: 0.2em 0.8em; text-align: left; }}
tr:nth-child(even) {{ background: #f3f3f3; }} .verdict {{ font-size: 1.4em; font-weight: bold; }}
.how {{ color: #555; }} img {{ max-width: 100%; }} code {{ font-size: 0.85em; word-break: break-all; }}
</style></head><body>
<h1>{e(summary['situation'])} ({e(summary['ruleset'])}): balance report</h1>
<p class="verdict">Verdict: {e(_verdict(games, summary))}</p>
<p class="how">The verdict is the first side's win probability minus the second side's, with its 95 %
interval (Newcombe's paired score interval: both come from the same games). "Balanced" means the
whole interval lies within ±5 points.</p>
<table><tr><th></th><th>win</th><th>95 % interval</th><th>marginal</th><th>tactical</th><th>decisive</th></tr>
{''.join(rows)}</table>
{sections}
<h2>Run</h2><table>{meta}</table>
</body></html>
"""
