"""Write a run's report: report.html (charts embedded as data: URIs, inline CSS) and charts/*.png."""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from reports import charts
from reports.lossmap import draw_loss_maps
from reports.verdict import verdict
from reports.victory_text import victory_words

DRAW = ("A game is a <b>draw</b> when neither side reached a higher victory level than the other: both "
        "reached none of their levels, or both the same one (docs/rulings.md). A game in which neither side "
        "fired or moved toward the enemy is no battle (PB-VIC-6) and also counts as a draw.")

# (file name, heading, how to read it)
CHARTS = (
    ("victory", "Victory probability",
     "Each bar is the share of games a side won, shaded by the level of its victory; the black "
     "whisker is the 95 % Wilson interval of the win probability."),
    ("measures", "Victory measures against their thresholds",
     "What each side's victory conditions count, at the end of every game-turn as if the game ended "
     "there: the line is the median game, the band holds the middle 80 % of games; the dashed lines "
     "are the levels the side reaches at the end of the game (marginal, tactical, decisive). Where a "
     "level needs the measure at most a threshold, lower is better for that side."),
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
     "number, on one scale for every board. Terrain is drawn faded underneath. One map a board "
     "below; the whole map at full size is charts/loss_map.png beside this report."),
    ("objectives", "Objective control over time",
     "Objective hexes each side holds at the end of each game-turn, averaged over the games."),
)


def build_figures(games: pd.DataFrame, turns: pd.DataFrame, summary: dict) -> dict:
    """Each chart's drawing, by file name, as a function to call (so one failing chart can be
    told apart from the others)."""
    sides = list(summary["outcomes"])
    return {
        "victory": lambda: charts.victory_chart(summary),
        "measures": lambda: charts.measures_chart(turns, summary),
        "attrition": lambda: charts.attrition_chart(turns, sides),
        "decided": lambda: charts.decided_chart(games, sides),
        "losses_by_type": lambda: charts.losses_by_type_chart(games, sides),
        "objectives": lambda: charts.objectives_chart(turns, sides),
    }


def write_report(games: pd.DataFrame, turns: pd.DataFrame, losses: pd.DataFrame, summary: dict, into: Path,
                 situation=None) -> dict[str, str]:
    """Draw the charts into `into`/charts/ and write `into`/report.html.

    Returns the charts that could not be drawn, name -> why: each is replaced by a sentence
    saying so, in the picture and the page, and the rest of the report is written all the same.
    The loss map needs the situation (its map); without it, or with no unit lost on the map, the
    report says so in place of the map."""
    into = Path(into)
    (into / "charts").mkdir(parents=True, exist_ok=True)
    failed: dict[str, str] = {}
    for name, draw in build_figures(games, turns, summary).items():
        _save(name, draw, into, failed)
    board_maps: list[str] = []

    def loss_map():
        nonlocal board_maps
        paths = draw_loss_maps(situation, losses, len(games), into / "charts") if situation is not None else []
        if paths:
            board_maps = [p.name for p in paths[1:]]
            return None
        why = ("No unit was lost on the map in any game of this run." if situation is not None
               else "The situation's map was not available to draw the losses on.")
        return charts.nothing_to_show("Where units were lost", why)

    _save("loss_map", loss_map, into, failed)
    images = {name: _b64(into / "charts" / f"{name}.png") for name, _, _ in CHARTS}
    boards = [(n.removeprefix("loss_map_board-").removesuffix(".png"), _b64(into / "charts" / n)) for n in board_maps]
    page = into / "report.html"
    page.write_text(_page(games, summary, images, boards, failed))
    return failed


def _save(name: str, draw, into: Path, failed: dict[str, str]) -> None:
    """Draw one chart to charts/<name>.png (`draw` returns a figure, or None when it wrote the
    file itself); if drawing fails, a picture saying so, and the failure in `failed`."""
    path = into / "charts" / f"{name}.png"
    try:
        fig = draw()
        if fig is not None:
            fig.savefig(path)
            plt.close(fig)
    except Exception as exc:  # one chart's failure must not lose the run (issue 16)
        plt.close("all")
        failed[name] = f"{type(exc).__name__}: {exc}"
        fig = charts.nothing_to_show(name, f"This chart could not be drawn: {failed[name]}"[:160])
        fig.savefig(path)
        plt.close(fig)


def _b64(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode("ascii")


def _verdict(games: pd.DataFrame, summary: dict) -> str:
    sides = list(summary["outcomes"])
    if len(sides) != 2 or games.empty:
        return "no verdict (needs two sides and at least one game)"
    wins = [int((games["winner"] == s).sum()) for s in sides]
    return verdict(sides[0], sides[1], wins[0], wins[1], len(games))


def situation_heading(summary: dict) -> str:
    """'Situation 4 (pb-04): Battle of Minsk', or the id and title of a situation not numbered."""
    sid, title = summary["situation"], summary.get("title")
    number = re.fullmatch(r"[a-z]+-0*(\d+)", sid)
    head = f"Situation {number.group(1)} ({sid})" if number else sid
    return f"{head}: {title}" if title else head


def players_words(summary: dict) -> str:
    """'computer (AI) players, not people: the German side by the heuristic AI player (aggression 0.5, ...)'."""
    parts = []
    for side, p in summary["policies"].items():
        params = ", ".join(f"{k.replace('_', ' ')} {v:g}" if isinstance(v, int | float) else f"{k} {v}"
                           for k, v in p["params"].items())
        # the summary names the parameters changed from the policy's defaults (policies/heuristic.toml)
        parts.append(f"the {side.capitalize()} side by the <b>{html.escape(p['name'])} AI player</b>"
                     + (f" ({html.escape(params)})" if params else " (its default parameters)"))
    return ("Every figure here comes from games played by computer (AI) players, not people: "
            + "; ".join(parts) + ". Better or different players may find a different balance "
            "(docs/policies.md describes the players).")


def _run_rows(summary: dict) -> list[tuple[str, str]]:
    """The Run table, in words: what was played, by whom, how long it took."""
    rows = [("situation", situation_heading(summary)), ("ruleset", summary["ruleset"])]
    if summary.get("situation_file"):
        rows.append(("situation file", f"{summary['situation_file']} (SHA-256 {summary.get('situation_sha256', '')[:16]}…)"))
    if summary.get("turns"):
        rows.append(("game-turns", str(summary["turns"])))
    rows += [("games", f"{summary['games']:,}"), ("seed", str(summary["seed"]))]
    for side, p in summary["policies"].items():
        params = ", ".join(f"{k} = {v:g}" if isinstance(v, int | float) else f"{k} = {v}" for k, v in p["params"].items())
        rows.append((f"{side} player", f"{p['name']}" + (f" ({params})" if params else " (default parameters)")))
    overrides = summary.get("overrides") or {}
    rows.append(("changes to the rules or situation",
                 "; ".join(f"{k} = {v!r}" for k, v in overrides.items()) if overrides else "none"))
    if summary.get("date"):
        rows.append(("run on", summary["date"].replace("T", " ")))
    speed = f"{summary['games_per_s']} games a second, {summary.get('play_s', summary['elapsed_s']):.1f} s of play"
    if summary.get("startup_s"):
        speed += f"; start-up {summary['startup_s']:.1f} s (preparing the situation, loading or compiling the engine)"
    rows += [("speed", speed), ("tool version", str(summary.get("tool_version", "")))]
    return rows


def _setup_losses(summary: dict) -> str:
    lost = summary.get("lost_at_setup") or {}
    if not lost:
        return ""
    e = html.escape
    items = "".join(
        f"<li>{e(side.capitalize())}: in {v['games']} of {summary['games']} games, "
        + e(", ".join(f"{k} ({m:g} a game)" for k, m in v["units"].items())) + "</li>"
        for side, v in lost.items())
    return ("<div class='warn'><b>Units lost at set-up.</b> Some counters found no legal hex in their set-up "
            "area when their turn to set up came (stacking, terrain or the other side's units there): they "
            f"took no part in those games. <ul>{items}</ul>The games table counts them per game "
            "(<code>lost_at_setup_&lt;side&gt;</code>).</div>")


def _page(games: pd.DataFrame, summary: dict, images: dict, boards: list, failed: dict) -> str:
    e = html.escape
    sides = list(summary["outcomes"])
    rows = []
    for side, o in summary["outcomes"].items():
        lv = " ".join(f"<td>{100 * o['levels'].get(level, 0):.1f} %</td>" for level in charts.LEVELS)
        rows.append(f"<tr><th>{e(side)}</th><td>{100 * o['win']:.1f} %</td>"
                    f"<td>[{100 * o['ci95'][0]:.1f}, {100 * o['ci95'][1]:.1f}] %</td>{lv}</tr>")
    d = summary["draw_ci95"]
    rows.append(f"<tr><th>draw</th><td>{100 * summary['draw']:.1f} %</td>"
                f"<td>[{100 * d[0]:.1f}, {100 * d[1]:.1f}] %</td><td></td><td></td><td></td></tr>")
    victory = summary.get("victory") or {}
    conditions = "".join(f"<li>{e(victory_words(s, victory[s], sides))}</li>" for s in sides if s in victory)
    facts = [f"{summary['games']:,} games"]
    if summary.get("turns"):
        facts.append(f"{summary['turns']} game-turns each")
    if summary.get("sets_up_first"):
        facts.append(f"the {summary['sets_up_first'].capitalize()}s set up first, the "
                     f"{summary['moves_first'].capitalize()}s move first")
    if summary.get("date"):
        facts.append(f"run on {summary['date'][:10]}")
    if summary.get("overrides"):
        facts.append("with changes: " + "; ".join(f"{k} = {v!r}" for k, v in summary["overrides"].items()))
    sections = []
    for name, head, how in CHARTS:
        note = (f"<p class='warn'>This chart could not be drawn: {e(failed[name])}</p>" if name in failed else "")
        pictures = f"<img alt='{e(head)}' src='data:image/png;base64,{images[name]}'>"
        if name == "loss_map" and boards:
            pictures = "".join(f"<h3>Board {e(b)}</h3><img alt='{e(head)}, board {e(b)}' "
                               f"src='data:image/png;base64,{png}'>" for b, png in boards)
            pictures += "<p class='how'>The whole map: <a href='charts/loss_map.png'>charts/loss_map.png</a>.</p>"
        how_html = e(how) + (" Draws are defined under <a href='#conditions'>How each side wins</a>."
                             if name == "victory" else "")
        sections.append(f"<section id='{name}'><h2>{e(head)}</h2><p class='how'>{how_html}</p>{note}{pictures}</section>")
    meta = "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in _run_rows(summary))
    title = situation_heading(summary)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{e(title)}: balance report</title>
<style>
body {{ font-family: sans-serif; max-width: 1000px; margin: 2em auto; padding: 0 1em; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; }} th, td {{ padding: 0.2em 0.8em; text-align: left; vertical-align: top; }}
tr:nth-child(even) {{ background: #f3f3f3; }} .verdict {{ font-size: 1.4em; font-weight: bold; }}
.how {{ color: #555; }} img {{ max-width: 100%; display: block; margin: 0.5em 0; }}
.sub {{ color: #444; font-size: 1.1em; }} .warn {{ background: #fff3cd; border: 1px solid #e0c060; padding: 0.5em 1em; }}
</style></head><body>
<h1>{e(title)}</h1>
<p class="sub">Balance report, {e(summary['ruleset'])} rules: {e('; '.join(facts))}.</p>
<p>{players_words(summary)}</p>
<h2 id="conditions">How each side wins</h2>
<ul>{conditions or '<li>The victory conditions were not recorded with this run.</li>'}</ul>
<p class="how">The side that reaches the higher victory level wins. {DRAW}</p>
{_setup_losses(summary)}
<p class="verdict">Verdict: {e(_verdict(games, summary))}</p>
<p class="how">The verdict is the first side's win probability minus the second side's, with its 95 %
interval (Newcombe's paired score interval: both come from the same games), given as its two ends.
"Balanced" means the whole interval lies within ±5 points. It says how these AI players fare, not
how people would.</p>
<table><tr><th></th><th>win</th><th>95 % interval</th><th>marginal</th><th>tactical</th><th>decisive</th></tr>
{''.join(rows)}</table>
{''.join(sections)}
<h2>Run</h2><table>{meta}</table>
</body></html>
"""
