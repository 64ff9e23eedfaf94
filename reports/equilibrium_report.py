"""The files of `balance equilibrium --out DIR`: equilibrium.json, cross_table.csv, the heatmap
cross_table.png, the population's policy files (players/) and report.html."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from reports import html_page  # noqa: E402
from reports.style import FONT_SIZES  # noqa: E402
from simulator.verdict import MEASURE, play_words, sentence  # noqa: E402

FILES = ("equilibrium.json", "cross_table.csv", "cross_table.png", "report.html", "players")


def heatmap(r: dict):
    """Rows: the first side's players, columns: the second side's; colour and number: the first
    side's mean score; the labels carry each player's equilibrium weight."""
    a, b = r["sides"]
    m = np.asarray(r["table"], dtype=float)
    top = max(1.0, float(np.abs(m).max()))
    rows = [f"{p['name']}  ({w:.2f})" for p, w in zip(r["population"][a], r["mixtures"][a], strict=True)]
    cols = [f"{p['name']}\n({w:.2f})" for p, w in zip(r["population"][b], r["mixtures"][b], strict=True)]
    fig, ax = plt.subplots(figsize=(1.2 * len(cols) + 3.2, 0.7 * len(rows) + 2.4))
    im = ax.imshow(m, cmap="RdBu_r", vmin=-top, vmax=top, aspect="auto")
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            weight = r["mixtures"][a][i] * r["mixtures"][b][j] > 0
            ax.text(j, i, f"{m[i, j]:+.2f}", ha="center", va="center", fontsize=FONT_SIZES.get("legend", 9),
                    fontweight="bold" if weight else "normal",
                    color="white" if abs(m[i, j]) > 0.6 * top else "black")
    ax.set_xticks(range(len(cols)), cols)
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xlabel(f"{b.capitalize()} player (equilibrium weight)")
    ax.set_ylabel(f"{a.capitalize()} player (equilibrium weight)")
    ax.set_title(f"{r['situation']}: mean {a.capitalize()} score, {r['cell_games']} games a pair on the same seeds"
                 "\n(bold: both players in the equilibrium mixtures)", fontsize=FONT_SIZES.get("title", 11))
    bar = fig.colorbar(im, ax=ax)
    bar.set_label(f"{a.capitalize()} level minus {b.capitalize()} level")
    fig.tight_layout()
    return fig


def comparison_html(r: dict, first: str = "default pair") -> str:
    """The default pair's verdict and the equilibrium's side by side, and the "depends on play" flag
    (also a run's report.html, when it is given an equilibrium run: `first` names the run's players)."""
    e = html_page.html.escape
    v = r["verdicts"]
    flag = v["depends_on_play"]
    style = " style='color:#a00'" if flag else ""
    flag = f"<p class='lead'{style}>{e(play_words(flag))}</p>"
    rows = "".join(f"<tr><th>{e(name)}</th><td>{e(sentence(v[key]['text']))}</td><td>{e(v[key]['band'])}</td>"
                   f"<td>{e(v[key]['favours'] or 'none')}</td><td>{100 * v[key]['draw']:.0f} %</td></tr>"
                   for name, key in ((first, "default"), ("equilibrium", "equilibrium")))
    return (f"<h2>{e(first[:1].upper() + first[1:])} and equilibrium</h2>{flag}<table><tr><th></th><th>verdict</th><th>band</th>"
            f"<th>favours</th><th>drawn</th></tr>{rows}</table>"
            f"<p class='how'>{e(MEASURE)}. At equilibrium the interval is a {r['balance']['bootstrap']}-fold "
            "bootstrap over each pair's games, the mixtures held fixed.</p>")


def report_html(r: dict, png: bytes) -> str:
    e = html_page.html.escape
    a, b = r["sides"]
    bal = r["balance"]

    def pct(x, ci):
        return f"{100 * x:.1f} % [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"

    outcome_rows = [[f"{s} wins", pct(bal["win"][s]["p"], bal["win"][s]["ci95"])] for s in (a, b)]
    outcome_rows.append(["draw", pct(bal["draw"]["p"], bal["draw"]["ci95"])])
    for s in (a, b):
        for lv, x in bal["levels"][s].items():
            outcome_rows.append([f"{s} {lv} victory", pct(x["p"], x["ci95"])])
    pop_rows = []
    for s in (a, b):
        for p, w in zip(r["population"][s], r["mixtures"][s], strict=True):
            changed = ", ".join(f"{k} {v:g}" for k, v in p["params"].items())
            pop_rows.append([s, p["name"], f"{w:.2f}", p["origin"],
                             (changed[:300] + " ...") if len(changed) > 300 else (changed or "defaults")])
    ex_rows = [[s, x["member"], f"{x['gain']:+.3f} [{x['ci95'][0]:+.3f}, {x['ci95'][1]:+.3f}]"] if x["member"] else
               [s, "none does better than the default", "0"]
               for s, x in r["default_pair"]["exploitability"].items()]
    hist_rows = [[str(h["round"]), h["side"], h["member"] or "none (nothing beat its start)", h["from"], f"{h['tuning_start_score']:+.3f}",
                  f"{h['tuning_best_score']:+.3f}", f"{h['gain_on_table']:+.3f}"] for h in r["history"]]
    body = (
        f"<p class='how'>A population of players per side (the default heuristic player, style variants, and best "
        f"responses found by tuning, double-oracle style) played every pair on the same {r['cell_games']} game "
        f"seeds; the zero-sum game on the mean score (the {e(r['score'])}) was solved for its mixed equilibrium. "
        f"{r['games_played']:,} of a budget of {r['budget']:,} games; stopped on {e(r['stop'])}.</p>"
        + comparison_html(r)
        + "<h2>Cross-table</h2>" + html_page.image(png, "cross-table heatmap")
        + f"<p class='how'>Value of the game: {r['value']:+.3f} mean {e(a)} score (95 % bootstrap interval "
          f"{bal['score']['ci95'][0]:+.3f} to {bal['score']['ci95'][1]:+.3f}). The table is in cross_table.csv.</p>"
        + "<h2>Balance at equilibrium</h2>"
        + html_page.table(["outcome", "chance [95 % bootstrap interval]"], outcome_rows, numeric={1})
        + "<h2>Population and equilibrium mixtures</h2>"
        + html_page.table(["side", "player", "weight", "what it is", "parameters changed from the default"], pop_rows,
                          numeric={2})
        + "<h2>Leaving the default pair</h2><p class='how'>Each side's best player of the population against the "
          "other side's default player, minus the default pair's score, on the same games (paired 95 % interval): "
          "how far the default pair can be exploited.</p>"
        + html_page.table(["side", "best player", "gain in mean score [95 %]"], ex_rows, numeric={2})
        + ("<h2>Best responses</h2>" + html_page.table(
            ["round", "side", "player", "tuned from", "tuning: start", "tuning: best", "gain on the table's games"],
            hist_rows, numeric={4, 5, 6}) if hist_rows else "")
        + "<h2>Run</h2>" + html_page.meta_table({k: r[k] for k in ("situation", "seed", "budget", "games_played",
                                                                   "cell_games", "trials", "games_per_trial", "rounds",
                                                                   "threshold", "elapsed_s", "tool_version")})
    )
    return html_page.page(f"{r['situation']}: balance at equilibrium", body)


def write_equilibrium(result: dict, out: Path) -> Path:
    from simulator.equilibrium import cross_table_frame
    from simulator.outdir import write_directory
    from simulator.summary import summary_json
    from simulator.tune import write_policy_file

    table = result["_table"]
    data = {k: v for k, v in result.items() if not k.startswith("_")}

    def fill(tmp: Path) -> None:
        png = html_page.png_bytes(heatmap(data))
        (tmp / "equilibrium.json").write_text(summary_json(data) + "\n")
        cross_table_frame(result).to_csv(tmp / "cross_table.csv", index=False)
        (tmp / "cross_table.png").write_bytes(png)
        (tmp / "report.html").write_text(report_html(data, png))
        for side, members in ((table.a, table.rows), (table.b, table.cols)):
            for k, m in enumerate(members):
                write_policy_file(tmp / "players" / f"{side}-{m.name}.toml", m.player,
                                  {"tool": "balance equilibrium", "situation": data["situation"], "side": side,
                                   "member": m.name, "origin": m.origin, "weight": data["mixtures"][side][k],
                                   "seed": data["seed"]})

    return write_directory(out, FILES, "balance equilibrium", fill)
