"""Write a run's report: report.html (charts embedded as data: URIs, inline CSS) and charts/*.png.

Which charts a report has follows the ruleset's results schema (a chart whose column the
ruleset does not have is left out), and what only the ruleset can say (its victory conditions
in words, how a game is won or drawn, its warnings, the words of its map of events) comes from
its report hooks (simulator/api.py).
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from reports import charts
from reports.lossmap import draw_loss_maps
from simulator import registry
from simulator.verdict import MEASURE, from_winners, people, players_phrase, sentence

# (file name, heading, how to read it); a ruleset's report hooks may add a sentence to the last.
CHARTS = (
    ("victory", "Victory probability",
     "Each bar is the share of games a side won, shaded by the level of its victory; the black "
     "whisker is the 95 % Wilson interval of the win probability."),
    ("measures", "Victory measures against their thresholds",
     "What each side's victory conditions count, at the end of every game-turn as if the game ended "
     "there: the line is the median game, the band holds the middle 80 % of games; the dashed lines "
     "are the levels the side reaches at the end of the game ({levels}). Where a "
     "level needs the measure at most a threshold, lower is better for that side."),
    ("attrition", "Attrition",
     "What each side has left at the end of each game-turn: the line is the median game, the band "
     "holds the middle 80 % of games (10th to 90th percentile)."),
    ("decided", "When games are decided",
     "A game is decided in the first game-turn from whose end onward its result stays what it "
     "finally was. The result at the end of a turn is the situation's victory conditions evaluated "
     "on that turn's positions as if the game had ended there (winner and level). Turn 0 means the "
     "set-up already gave the final result and nothing in the game changed it."),
    ("losses_by_type", "Losses by unit type",
     "How many units of each type a side loses in an average game."),
    ("loss_map", "", ""),   # the ruleset's words (its report hooks' event_map)
    ("objectives", "Objective control over time",
     "Objective hexes each side holds at the end of each game-turn, averaged over the games."),
)


def _ruleset(summary: dict):
    return registry.ruleset(summary["ruleset"])


def chart_list(summary: dict) -> list[tuple[str, str, str]]:
    """(file name, heading, how to read it) of the charts this run's ruleset has columns for."""
    rs = _ruleset(summary)
    res, hooks = rs.results, rs.report
    has = {"victory": True, "measures": res.measure is not None, "attrition": bool(res.attrition),
           "decided": res.decided_turn is not None, "losses_by_type": res.losses_by_type is not None,
           "loss_map": res.event_hex is not None and hooks.event_map is not None,
           "objectives": res.objectives is not None}
    out = []
    for name, head, how in CHARTS:
        if not has[name]:
            continue
        if name == "loss_map":
            head, how = hooks.event_map.heading, hooks.event_map.how
        how = how.replace("{levels}", ", ".join(charts.summary_levels(summary)))
        note = hooks.chart_notes.get(name)
        out.append((name, head, f"{how} {note}" if note else how))
    return out


def build_figures(games: pd.DataFrame, turns: pd.DataFrame, summary: dict) -> dict:
    """Each chart's drawing, by file name, as a function to call (so one failing chart can be
    told apart from the others)."""
    sides = list(summary["outcomes"])
    res = _ruleset(summary).results
    figures = {
        "victory": lambda: charts.victory_chart(summary),
        "measures": lambda: charts.measures_chart(turns, summary, res.measure),
        "attrition": lambda: charts.attrition_chart(turns, sides, res.attrition),
        "decided": lambda: charts.decided_chart(games, sides, res.decided_turn, res.winner, res.turns_played),
        "losses_by_type": lambda: charts.losses_by_type_chart(games, sides, res.losses_by_type),
        "objectives": lambda: charts.objectives_chart(turns, sides, res.objectives),
    }
    return {name: figures[name] for name, _, _ in chart_list(summary) if name in figures}


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
        words = _ruleset(summary).report.event_map
        why = (f"No {words.noun} on the map in any game of this run." if situation is not None
               else f"The situation's map was not available to draw the {words.noun} on.")
        return charts.nothing_to_show(words.heading, why)

    listed = chart_list(summary)
    if any(name == "loss_map" for name, _, _ in listed):
        _save("loss_map", loss_map, into, failed)
    images = {name: _b64(into / "charts" / f"{name}.png") for name, _, _ in listed}
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
    if summary.get("verdict"):
        return summary["verdict"]["text"]
    # A run saved before verdicts were recorded: the same words from its games.
    winner = _ruleset(summary).results.winner
    return from_winners(games[winner], sides, players_phrase(summary["policies"])).text()


def _equilibrium_section(summary: dict) -> str:
    """This run's verdict and the equilibrium's side by side, when the run was given one
    (`balance run --equilibrium DIR`, `balance report DIR --equilibrium EQDIR`)."""
    eq = summary.get("equilibrium")
    if not eq or not summary.get("verdict"):
        return ""
    from reports.equilibrium_report import comparison_html

    r = {"verdicts": {"default": summary["verdict"], "equilibrium": eq["verdict"],
                      "depends_on_play": eq["depends_on_play"]}, "balance": {"bootstrap": eq.get("bootstrap")}}
    return (comparison_html(r, "this run") + f"<p class='how'>The equilibrium run: {html.escape(eq['source'])} "
            "(`balance equilibrium`: default, style and tuned players of each side, mixed as the zero-sum game on "
            "the mean score says).</p>")


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
        # the summary names the parameters changed from the policy's defaults (simulator/rulesets/panzerblitz/players/heuristic.toml)
        if p.get("source"):   # a tuned player: its file says where it came from
            params = f"from {p['source']}, {len(p['params'])} parameters changed"
        parts.append(f"the {side.capitalize()} side by the <b>{html.escape(p['name'])} AI player</b>"
                     + (f" ({html.escape(params)})" if params else " (its default parameters)"))
    doc = getattr(_ruleset(summary).players, "doc", "")
    return ("Every figure here comes from games played by computer (AI) players, not people: "
            + "; ".join(parts) + ". Better or different players may find a different balance"
            + (f" ({html.escape(doc)} describes the players)." if doc else "."))


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
        if p.get("source"):
            params = f"policy file {p['source']}: {params}" if params else f"policy file {p['source']}"
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


def _alternative_levels(summary: dict, levels: list[str]) -> str:
    """The levels under the ruleset's other reading of 'both sides reach a level' (issue 21 item 7),
    shown only where that reading moves some games to another level; each share with its interval."""
    alt = summary.get("alternative_levels")
    if not alt or not alt.get("games_differ"):
        return ""
    e = html.escape
    rows = []
    for side, shares in alt["levels"].items():
        ci = alt.get("levels_ci95", {}).get(side, {})
        cells = "".join(
            f"<td>{100 * shares.get(lv, 0):.1f} %"
            + (f" [{100 * ci[lv][0]:.1f}, {100 * ci[lv][1]:.1f}]" if lv in ci else "") + "</td>"
            for lv in levels)
        rows.append(f"<tr><th>{e(side)}</th>{cells}</tr>")
    return (f"<h3 id='alternative'>With the other reading of levels</h3><p class='how'>With "
            f"{e(alt['reading'])} (docs/rulings.md) the winners are the same, but "
            f"{alt['games_differ']:,} of {summary['games']:,} games end at another level "
            f"(share of games, 95 % interval):</p><table><tr><th></th>"
            + "".join(f"<th>{e(lv)}</th>" for lv in levels) + "</tr>" + "".join(rows) + "</table>")


def _page(games: pd.DataFrame, summary: dict, images: dict, boards: list, failed: dict) -> str:
    e = html.escape
    sides = list(summary["outcomes"])
    hooks = _ruleset(summary).report
    levels = charts.summary_levels(summary)
    rows = []
    for side, o in summary["outcomes"].items():
        lv = " ".join(f"<td>{100 * o['levels'].get(level, 0):.1f} %</td>" for level in levels)
        rows.append(f"<tr><th>{e(side)}</th><td>{100 * o['win']:.1f} %</td>"
                    f"<td>[{100 * o['ci95'][0]:.1f}, {100 * o['ci95'][1]:.1f}] %</td>{lv}</tr>")
    d = summary["draw_ci95"]
    rows.append(f"<tr><th>draw</th><td>{100 * summary['draw']:.1f} %</td>"
                f"<td>[{100 * d[0]:.1f}, {100 * d[1]:.1f}] %</td>" + "<td></td>" * len(levels) + "</tr>")
    alternative = _alternative_levels(summary, levels)
    words = [(s, hooks.victory_words(s, summary)) for s in sides]
    conditions = "".join(f"<li>{e(w)}</li>" for _, w in words if w)
    facts = [f"{summary['games']:,} games"]
    if summary.get("turns"):
        facts.append(f"{summary['turns']} game-turns each")
    if summary.get("sets_up_first"):
        # A ruleset with a fixed order of play says who moves first; a chit-pull one does not.
        facts.append(f"the {people(summary['sets_up_first'])} set up first"
                     + (f", the {people(summary['moves_first'])} move first" if summary.get("moves_first") else ""))
    if summary.get("date"):
        facts.append(f"run on {summary['date'][:10]}")
    if summary.get("overrides"):
        facts.append("with changes: " + "; ".join(f"{k} = {v!r}" for k, v in summary["overrides"].items()))
    sections = []
    for name, head, how in chart_list(summary):
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
<p class="how">{hooks.how_to_win(summary)}</p>
{''.join(hooks.notes(summary))}
<p class="verdict">{e(sentence(_verdict(games, summary)))}</p>
<p class="how">{e(MEASURE)}. The interval is Newcombe's paired score interval (both chances come
from the same games). It says how these AI players fare, not how people would.</p>
<table><tr><th></th><th>win</th><th>95 % interval</th>{''.join(f"<th>{e(lv)}</th>" for lv in levels)}</tr>
{''.join(rows)}</table>
{alternative}
{_equilibrium_section(summary)}
{''.join(sections)}
<h2>Run</h2><table>{meta}</table>
</body></html>
"""
