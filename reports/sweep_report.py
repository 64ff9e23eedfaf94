"""The report of `balance sweep`: the balance curve (win probability of each side against the value)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from reports import html_page  # noqa: E402
from reports.html_page import whiskers as _whiskers  # noqa: E402
from reports.style import FONT_SIZES, side_colour  # noqa: E402
from simulator.verdict import MEASURE, sentence  # noqa: E402


def sweep_chart(result: dict):
    """Each side's win probability at each value with 95 % Wilson whiskers; the 50 % line; the
    first side's logistic fit, and the balance point with its interval when the fit crosses 50 %
    inside the swept range."""
    values = result["values"]
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
    x = np.array(values, dtype=float) if numeric else np.arange(len(values), dtype=float)
    fig, ax = plt.subplots(figsize=(7.5, 4.4), dpi=100)
    ax.set_title(f"{result['situation']}: balance curve over {result['param']} ({result['games']} games a value)",
                 fontsize=FONT_SIZES["title"] * 0.75, loc="left")
    ax.axhline(50, color="#888888", linewidth=1, linestyle="--")
    bp = result["balance_point"]
    if bp["value"] is not None:
        ax.axvspan(bp["ci95"][0], bp["ci95"][1], color="#dddddd", zorder=0,
                   label=f"balance point {bp['value']:.3g} (95 % interval)")
        ax.axvline(bp["value"], color="#444444", linewidth=1)
    for s in result["sides"]:
        win = np.array([100 * p["sides"][s]["win"] for p in result["points"]])
        lo = np.array([100 * p["sides"][s]["ci95"][0] for p in result["points"]])
        hi = np.array([100 * p["sides"][s]["ci95"][1] for p in result["points"]])
        ax.errorbar(x, win, yerr=_whiskers(win, lo, hi), color=side_colour(s), marker="o", capsize=3,
                    linewidth=2, label=s.capitalize())
    if bp["b1"] is not None:  # the fitted logistic curve of the first side's win probability
        grid = np.linspace(x.min(), x.max(), 200)
        ax.plot(grid, 100 / (1 + np.exp(-(bp["b0"] + bp["b1"] * grid))), color=side_colour(bp["side"]),
                linestyle=":", linewidth=1.5, label=f"{bp['side'].capitalize()}: logistic fit")
    if not numeric:
        ax.set_xticks(x, [str(v) for v in values], fontsize=FONT_SIZES["note"])
    elif all(float(v).is_integer() for v in values):
        # A whole-number parameter (turns, a unit count): whole-number ticks only, never 6.5.
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(result["param"])
    ax.set_ylabel("win probability (%)")
    ax.set_ylim(0, 100)
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(fontsize=FONT_SIZES["legend"], frameon=False)
    fig.tight_layout()
    return fig


def report_html(result: dict, png: bytes) -> str:
    sides = result["sides"]
    rows = [[repr(p["value"])] + [f"{100 * p['sides'][s]['win']:.1f} % [{100 * p['sides'][s]['ci95'][0]:.1f}, "
                                  f"{100 * p['sides'][s]['ci95'][1]:.1f}]" for s in sides]
            + [f"{100 * p['draw']['share']:.1f} %", f"{p['mean_turns']:.2f}"]
            + ([sentence(p["verdict"]["text"])] if "verdict" in p else []) for p in result["points"]]
    verdicts = all("verdict" in p for p in result["points"])
    body = (
        f"<p class='lead'>Balance point: {html_page.html.escape(result['balance_point']['note'])}.</p>"
        "<p class='how'>Every value is played on the same game seeds. Whiskers are 95 % Wilson intervals. "
        f"The balance point is where a logistic fit of 'the {result['sides'][0]} side won' on the value "
        "crosses 50 %; its interval is the delta-method 95 % interval of that crossing.</p>"
        + html_page.image(png, "balance curve")
        + html_page.table([result["param"], *(f"{s} win [95 % CI]" for s in sides), "draw", "mean turns",
                           *(["verdict"] if verdicts else [])], rows, numeric=set(range(len(sides) + 3)))
        + (f"<p class='how'>{html_page.html.escape(MEASURE)}.</p>" if verdicts else "")
        + "<h2>Runs</h2>" + html_page.meta_table({k: result[k] for k in ("situation", "param", "values", "games",
                                                                         "seed", "policies", "overrides")})
    )
    return html_page.page(f"{result['situation']}: sweep of {result['param']}", body)


def write_sweep(result: dict, out: Path) -> Path:
    return html_page.write_experiment(result, out, "sweep", sweep_chart, report_html)
