"""The report of `balance compare`: win probabilities of the baseline and each variant, side by side."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from reports import html_page  # noqa: E402
from reports.html_page import whiskers as _whiskers  # noqa: E402
from reports.style import FONT_SIZES, side_colour  # noqa: E402
from simulator.experiments import INTERVAL_ONLY_NOTE, format_p, interval_only, significance  # noqa: E402
from simulator.verdict import MEASURE, sentence  # noqa: E402


def compare_chart(result: dict):
    """Left: each run's win probability per side (95 % Wilson whiskers).  Right: each variant's
    change against the baseline per side (Newcombe paired 95 % interval)."""
    sides = result["sides"]
    runs = ["baseline", *result["variants"]]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 1.8 + 0.7 * len(runs)), dpi=100,
                                      gridspec_kw={"width_ratios": [3, 2]})
    fig.suptitle(f"{result['situation']}: baseline and variants, {result['games']} paired games each",
                 fontsize=FONT_SIZES["title"] * 0.8, x=0.01, ha="left")
    height = 0.8 / len(sides)
    y = np.arange(len(runs))[::-1]
    for k, side in enumerate(sides):
        figs = [result["baseline"][side]] + [v["sides"][side]["win"] for v in result["variants"].values()]
        win = np.array([100 * f["win"] for f in figs])
        lo = np.array([100 * f["ci95"][0] for f in figs])
        hi = np.array([100 * f["ci95"][1] for f in figs])
        yy = y + (len(sides) / 2 - k - 0.5) * height
        left.barh(yy, win, height=height * 0.9, color=side_colour(side), label=side.capitalize())
        left.errorbar(win, yy, xerr=_whiskers(win, lo, hi), fmt="none", ecolor="black", capsize=3)
        for yi, w in zip(yy, win, strict=True):
            left.text(102, yi, f"{w:.1f} %", va="center", fontsize=FONT_SIZES["note"])
        if result["variants"]:
            ch = [v["sides"][side] for v in result["variants"].values()]
            d = np.array([100 * c["change"] for c in ch])
            clo = np.array([100 * c["ci95"][0] for c in ch])
            chi = np.array([100 * c["ci95"][1] for c in ch])
            right.errorbar(d, yy[1:], xerr=_whiskers(d, clo, chi), fmt="o", color=side_colour(side), capsize=3)
    left.set_yticks(y, runs, fontsize=FONT_SIZES["legend"])
    left.set_xlim(0, 112)
    left.set_xticks(range(0, 101, 20))
    left.set_xlabel("win probability (%)")
    left.legend(fontsize=FONT_SIZES["legend"], frameon=False, loc="lower left", bbox_to_anchor=(0, 1),
                ncol=len(sides))
    right.axvline(0, color="#888888", linewidth=1)
    right.set_yticks(y, ["" for _ in runs])
    right.set_ylim(left.get_ylim())
    right.set_xlabel("change against the baseline (points)")
    for ax in (left, right):
        ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    return fig


def report_html(result: dict, png: bytes) -> str:
    sides = result["sides"]
    rows = []
    for name, v in result["variants"].items():
        for s in sides:
            e = v["sides"][s]
            lo, hi = e["ci95"]
            rows.append([name, s, f"{100 * result['baseline'][s]['win']:.1f} %", f"{100 * e['win']['win']:.1f} %",
                         f"{100 * e['change']:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]", format_p(e["p_value"]),
                         format_p(e["p_holm"]), significance(e)])
    variants = [[name, ", ".join(f"{k} = {val!r}" for k, val in v["overrides"].items())]
                for name, v in result["variants"].items()]
    body = (
        "<p class='how'>Every run plays the same games: game i uses the same seed in the baseline and in "
        "each variant (common random numbers), so the runs are compared game by game. The change is the "
        "variant's minus the baseline's win probability, in points, with Newcombe's paired 95 % interval; "
        "p is the exact McNemar test on the games one run won and the other did not; Holm p is adjusted "
        "over every line of the table; significant means Holm p &lt; 0.05.</p>"
        + (f"<p class='how'>no* : {html_page.html.escape(INTERVAL_ONLY_NOTE)}.</p>"
           if any(interval_only(v["sides"][s]) for v in result["variants"].values() for s in sides) else "")
        + html_page.image(png, "win probability of the baseline and each variant")
        + html_page.table(["variant", "side", "baseline", "variant", "change, points [95 % CI]", "p", "Holm p",
                           "significant"], rows, numeric={2, 3, 5, 6})
        + (("<h2>Verdicts</h2>" + html_page.table(["run", "verdict"], [["baseline", sentence(result["verdict"]["text"])]]
           + [[name, sentence(v["verdict"]["text"])] for name, v in result["variants"].items()])
            + f"<p class='how'>{html_page.html.escape(MEASURE)}.</p>") if result.get("verdict") else "")
        + "<h2>Variants</h2>" + html_page.table(["variant", "overrides"], variants)
        + "<h2>Runs</h2>" + html_page.meta_table({k: result[k] for k in ("situation", "games", "seed", "policies",
                                                                         "overrides")})
    )
    return html_page.page(f"{result['situation']}: variants compared", body)


def write_compare(result: dict, out: Path) -> Path:
    return html_page.write_experiment(result, out, "compare", compare_chart, report_html)
