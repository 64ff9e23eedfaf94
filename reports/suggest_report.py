"""The report of `balance suggest`: the confirmed changes' win-difference intervals against the ±5 band."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from reports import html_page  # noqa: E402
from reports.html_page import whiskers  # noqa: E402
from reports.style import FONT_SIZES, side_colour  # noqa: E402
from simulator.verdict import sentence  # noqa: E402


def suggest_chart(r: dict):
    """D (first side's minus second side's win chance) with its 95 % interval, for the baseline and
    each confirmed change, over the shaded ±5-point band; a dot has the colour of the side D favours."""
    first, second = r["sides"]
    if r["suggestions"] or r["not_confirmed"] or r["baseline"]["confirmation"]:
        base = r["baseline"]["confirmation"] or r["baseline"]["screening"]
        rows = [("baseline", base)] + [(s["description"], s) for s in r["suggestions"]]
        title = f"confirmation games ({r['confirm_games']} a change)"
    else:  # nothing reached the band: show what the screening found, so the reader sees how far off
        rows = [("baseline", r["baseline"]["screening"])] + [(s["description"], s) for s in r["screening"]]
        title = f"screening games ({r['games']} a change): no change reaches the ±{r['band_points']:g} band"
    fig, ax = plt.subplots(figsize=(11, 2.0 + 0.3 * len(rows)), dpi=100)
    fig.suptitle(f"{r['situation']}: {first} minus {second} win chance\n{title}",
                 fontsize=FONT_SIZES["title"] * 0.75, x=0.01, ha="left")
    b = r["band_points"]
    ax.axvspan(-b, b, color="#e3efe3", zorder=0)
    ax.axvline(0, color="#888888", linewidth=1)
    y = np.arange(len(rows))[::-1]
    for yi, (_, f) in zip(y, rows, strict=True):
        d, lo, hi = (100 * f["difference"], 100 * f["ci95"][0], 100 * f["ci95"][1])
        colour = side_colour(first if d >= 0 else second)
        ax.errorbar([d], [yi], xerr=whiskers(np.array([d]), np.array([lo]), np.array([hi])), fmt="o",
                    color=colour, capsize=3)
    ax.set_yticks(y, [label[:72] for label, _ in rows], fontsize=FONT_SIZES["note"])
    ax.set_xlabel(f"P({first} wins) - P({second} wins), points, with 95 % intervals\n"
                  f"(shaded: within ±{b:g} points, balanced)")
    ax.set_ylim(y[-1] - 0.6, y[0] + 0.6)
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    return fig


def report_html(r: dict, png: bytes) -> str:
    e = html_page.html.escape
    first, second = r["sides"]
    rows = [[s["description"], f"{s['key']} = {s['value']!r}",
             f"{100 * s['difference']:+.1f} [{100 * s['ci95'][0]:+.1f}, {100 * s['ci95'][1]:+.1f}]", s["band"],
             f"{100 * s['sides'][first]['win']:.1f} %", f"{100 * s['sides'][second]['win']:.1f} %",
             sentence(s["verdict"]["text"]) if s.get("verdict") else ""]
            for s in r["suggestions"]]
    base = r["baseline"]["confirmation"] or r["baseline"]["screening"]
    skipped = [[s["description"], s["reason"]] for s in r["skipped"]]
    missed = [[s["description"], f"{100 * s['difference']:+.1f} [{100 * s['ci95'][0]:+.1f}, {100 * s['ci95'][1]:+.1f}]"]
              for s in r["not_confirmed"]]
    body = (
        f"<p class='how'>Each change was tried alone. {len(r['screening'])} changes were screened on "
        f"{r['games']} games (seed {r['seed']}); the {sum(s['promoted'] for s in r['screening'])} whose interval "
        f"reached the band were played again on {r['confirm_games']} new games (seed {r['confirm_seed']}), and only "
        "those figures are shown. D is the first side's minus the second side's chance of winning with its 95 % "
        f"interval (Newcombe's paired score interval); <b>inside</b> means the whole interval lies within "
        f"±{r['band_points']:g} points, <b>overlaps</b> that it reaches into the band without being shown to lie "
        "in it.</p>"
        + (f"<p class='lead'>Baseline: {e(sentence(base['verdict']['text']))}</p>" if base.get("verdict") else "")
        + html_page.image(png, "confirmed changes")
        + (html_page.table(["change", "override", "D, points [95 % CI]", "band", f"{first} win", f"{second} win",
                            "verdict"], rows, numeric={2, 4, 5}) if rows else
           f"<p class='lead'>No single change tried brings the situation within ±{r['band_points']:g} points.</p>")
        + ("<h2>Not confirmed on the new games</h2>" + html_page.table(["change", "D, points [95 % CI]"], missed)
           if missed else "")
        + ("<h2>Skipped changes</h2>" + html_page.table(["change", "why"], skipped) if skipped else "")
        + "<h2>Runs</h2>" + html_page.meta_table({k: r[k] for k in ("situation", "games", "seed", "confirm_games",
                                                                    "confirm_seed", "policies", "overrides")})
    )
    return html_page.page(f"{e(r['situation'])}: changes that balance it", body)


def write_suggest(result: dict, out: Path) -> Path:
    return html_page.write_experiment(result, out, "suggest", suggest_chart, report_html)
