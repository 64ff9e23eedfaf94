"""The report's charts, drawn from a run's tables (matplotlib, Agg), one function a chart.

Every function returns a Figure; a chart with nothing to show draws a sentence saying so
instead of an empty frame.  Side colours and font sizes come from reports.style.  The columns a
chart reads are the ones the ruleset's results schema gives each part (simulator/api.py), and the
victory levels are the summary's, lowest first.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from reports.style import FONT_SIZES, side_colour  # noqa: E402


def summary_levels(summary: dict) -> list[str]:
    """The victory levels of a run's summary, lowest first."""
    return list(dict.fromkeys(lv for o in summary["outcomes"].values() for lv in o["levels"]))


def level_alphas(levels: list[str]) -> dict[str, float]:
    """Shading of each level: the lowest faint (0.35), the highest solid, evenly between in steps
    of 0.05 (three levels: 0.35, 0.65, 1)."""
    n = len(levels)
    return {lv: 1.0 if n == 1 else math.floor((0.35 + 0.65 * i / (n - 1)) * 20 + 1e-9) / 20
            for i, lv in enumerate(levels)}


def _figure(title: str, size=(7.5, 4.2)):
    fig, ax = plt.subplots(figsize=size, dpi=100)
    ax.set_title(title, fontsize=FONT_SIZES["title"] * 0.8, loc="left")
    ax.spines[["top", "right"]].set_visible(False)
    return fig, ax


def nothing_to_show(title: str, why: str):
    fig, ax = _figure(title, size=(7.5, 1.6))
    ax.axis("off")
    ax.text(0.5, 0.45, why, ha="center", va="center", fontsize=FONT_SIZES["legend"] + 2, color="#555555",
            transform=ax.transAxes)
    return fig


def victory_chart(summary: dict):
    """Win probability per side (bar, 95 % Wilson interval), split by victory level, and draws."""
    sides = list(summary["outcomes"])
    levels = summary_levels(summary)
    alphas = level_alphas(levels)
    fig, ax = _figure("Victory probability per side (95 % intervals)")
    rows = sides + ["draw"]
    y = np.arange(len(rows))[::-1]
    for yi, side in zip(y[:len(sides)], sides, strict=True):
        left = 0.0
        for level in levels:
            share = 100 * summary["outcomes"][side]["levels"].get(level, 0.0)
            ax.barh(yi, share, left=left, color=side_colour(side), alpha=alphas[level],
                    edgecolor="white", label=level if side == sides[0] else None)
            if share >= 6:   # in the bar's upper half: the interval's whisker runs along its middle
                ax.text(left + share / 2, yi + 0.2, level, ha="center", va="center", fontsize=FONT_SIZES["note"],
                        color="white" if level != levels[0] else "black")
            left += share
        lo, hi = (100 * v for v in summary["outcomes"][side]["ci95"])
        # The level shares are rounded apart from the interval: a side winning every game can
        # sum to a hair above its upper bound, and a negative whisker is an error (issue 16).
        ax.errorbar(left, yi, xerr=[[max(left - lo, 0.0)], [max(hi - left, 0.0)]], fmt="none", ecolor="black",
                    capsize=4)
        ax.text(min(hi + 1.5, 101), yi + 0.28, f"{left:.1f} % [{lo:.1f}, {hi:.1f}]", fontsize=FONT_SIZES["note"])
    draw = 100 * summary["draw"]
    lo, hi = (100 * v for v in summary["draw_ci95"])
    ax.barh(y[-1], draw, color="#999999")
    ax.errorbar(draw, y[-1], xerr=[[max(draw - lo, 0.0)], [max(hi - draw, 0.0)]], fmt="none", ecolor="black",
                capsize=4)
    ax.text(min(hi + 1.5, 101), y[-1] + 0.28, f"{draw:.1f} % [{lo:.1f}, {hi:.1f}]", fontsize=FONT_SIZES["note"])
    ax.set_yticks(y, [r.capitalize() for r in rows])
    ax.set_xlim(0, 115)
    ax.set_xticks(range(0, 101, 20))
    ax.set_xlabel("share of games (%)")
    fig.tight_layout()
    return fig


def attrition_chart(turns: pd.DataFrame, sides: list[str], columns: tuple[tuple[str, str], ...]):
    """What each side has left per game-turn (PanzerBlitz: units on the map and attack strength),
    one panel a (column, label) of `columns`: median and 10–90 % band."""
    if turns.empty:
        return nothing_to_show("Attrition", "No turns were recorded in this run.")
    fig, axes = plt.subplots(1, len(columns), figsize=(max(7.5, 4.75 * len(columns)), 4.0), dpi=100, squeeze=False)
    axes = axes[0]
    fig.suptitle("Attrition: what each side has left, turn by turn (median, 10–90 % of games)",
                 fontsize=FONT_SIZES["title"] * 0.8, x=0.01, ha="left")
    for ax, (column, label) in zip(axes, columns, strict=True):
        for side in sides:
            t = turns[turns["side"] == side].groupby("turn")[column]
            q = t.quantile([0.1, 0.5, 0.9]).unstack()
            ax.fill_between(q.index, q[0.1], q[0.9], color=side_colour(side), alpha=0.2, linewidth=0)
            ax.plot(q.index, q[0.5], color=side_colour(side), label=side.capitalize(), linewidth=2)
        ax.set_xlabel("game-turn (0 = after set-up)")
        ax.set_ylabel(label)
        ax.spines[["top", "right"]].set_visible(False)
        ax.set_ylim(bottom=0)
    axes[0].legend(fontsize=FONT_SIZES["legend"], frameon=False)
    fig.tight_layout()
    return fig


def losses_by_type_chart(games: pd.DataFrame, sides: list[str], family: str):
    """Units lost per game, by unit type and side (mean over the games); `family` names the
    games table's count columns, `lost:{side}:*`."""
    prefixes = tuple(family.removesuffix("*").replace("{side}", s) for s in sides)
    cols = [c for c in games.columns if c.startswith(prefixes)]
    rates = {c: games[c].mean() for c in cols if games[c].sum() > 0}
    if not rates:
        return nothing_to_show("Losses by unit type", "No unit was lost in any game of this run.")
    order = sorted(rates, key=lambda c: (sides.index(c.split(":")[1]) if c.split(":")[1] in sides else 99, rates[c]))
    fig, ax = _figure("Losses by unit type: units lost per game", size=(7.5, 1.2 + 0.28 * len(order)))
    y = np.arange(len(order))
    ax.barh(y, [rates[c] for c in order], color=[side_colour(c.split(":")[1]) for c in order])
    ax.set_yticks(y, [f"{c.split(':')[2]} ({c.split(':')[1][:3].capitalize()})" for c in order],
                  fontsize=FONT_SIZES["note"])
    ax.set_xlabel("units lost per game (mean)")
    fig.tight_layout()
    return fig


def objectives_chart(turns: pd.DataFrame, sides: list[str], column: str):
    """Objective hexes held per side by game-turn (mean over games), if the situation has any."""
    if turns.empty or column not in turns or turns[column].max() <= 0:
        return nothing_to_show("Objective control over time",
                               "No objective hexes were held in any game (the victory conditions name none).")
    fig, ax = _figure("Objective control over time: objective hexes held (mean over games)")
    for side in sides:
        m = turns[turns["side"] == side].groupby("turn")[column].mean()
        ax.plot(m.index, m.values, color=side_colour(side), label=side.capitalize(), linewidth=2)
    ax.set_xlabel("game-turn (0 = after set-up)")
    ax.set_ylabel("objective hexes held (mean)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=FONT_SIZES["legend"], frameon=False)
    fig.tight_layout()
    return fig


def decided_chart(games: pd.DataFrame, sides: list[str], column: str, winner: str = "winner",
                  turns_played: str = "turns_played"):
    """When the result became fixed: games per decided turn (`column`), stacked by final result."""
    if games.empty or column not in games:
        return nothing_to_show("When games are decided", f"This run's tables have no {column} column.")
    last = int(games[turns_played].max())
    turns = np.arange(0, last + 1)
    fig, ax = _figure("When games are decided: the turn after which the result stopped changing")
    bottom = np.zeros(len(turns))
    n = len(games)
    for outcome in [*sides, "draw"]:
        mine = games[games[winner] == outcome]
        if mine.empty:
            continue
        share = 100 * mine[column].value_counts().reindex(turns, fill_value=0).to_numpy() / n
        colour = side_colour(outcome) if outcome in sides else "#999999"
        label = f"{outcome.capitalize()} win" if outcome in sides else "draw"
        ax.bar(turns, share, bottom=bottom, color=colour, label=label, width=0.8)
        bottom += share
    median = float(games[column].median())
    ax.axvline(median, color="black", linestyle=(0, (4, 3)), linewidth=1)
    ax.text(median + 0.1, bottom.max() * 0.95, f" median {median:g}", fontsize=FONT_SIZES["note"], va="top")
    ax.set_xticks(turns)
    ax.set_xlabel("decided turn (0 = the set-up's result was never changed)")
    ax.set_ylabel("share of games (%)")
    ax.legend(fontsize=FONT_SIZES["legend"], frameon=False)
    fig.tight_layout()
    return fig


def measures_chart(turns: pd.DataFrame, summary: dict, column: str = "measure"):
    """Each side's victory measure at the end of every game-turn (`column`; median game, 10–90 %
    band), against the thresholds of its victory levels: the situation's own victory conditions,
    as the ruleset's report hooks put them (`measure_chart`)."""
    from simulator import registry

    sides = list(summary["outcomes"])
    hooks = registry.ruleset(summary["ruleset"]).report
    per_side = {side: hooks.measure_chart(side, summary) for side in sides}
    alphas = level_alphas(summary_levels(summary))
    if turns.empty or column not in turns or not any(per_side.values()):
        return nothing_to_show("Victory measures over time",
                               "This run's tables have no per-turn victory measure (made by an older version).")
    fig, axes = plt.subplots(1, len(sides), figsize=(4.8 * len(sides), 4.2), dpi=100, squeeze=False)
    fig.suptitle("Victory measures turn by turn, against each side's victory levels (median game, 10–90 % band)",
                 fontsize=FONT_SIZES["title"] * 0.8, x=0.01, ha="left")
    for ax, side in zip(axes[0], sides, strict=True):
        chart = per_side[side]
        levels = chart.thresholds if chart else ()
        values = turns.loc[turns["side"] == side, ["turn", column]].rename(columns={column: "measure"})
        finite = values["measure"].replace([np.inf, -np.inf], np.nan)
        cap = max([float(finite.max()) if finite.notna().any() else 1.0, *(t for _, _, t in levels)]) * 1.15 or 1.0
        # A ratio with nothing to divide by is infinite: drawn at the top of the frame.
        clipped = values["measure"].clip(upper=cap)
        q = clipped.groupby(values["turn"]).quantile([0.1, 0.5, 0.9]).unstack()
        colour = side_colour(side)
        ax.fill_between(q.index, q[0.1], q[0.9], color=colour, alpha=0.2, linewidth=0)
        ax.plot(q.index, q[0.5], color=colour, linewidth=2, label="median game")
        for level, cmp, threshold in levels:
            ax.axhline(threshold, color=colour, alpha=alphas.get(level, 1.0), linestyle=(0, (5, 3)),
                       linewidth=1.3)
            # inside the frame, on the line's left end: never cut off or over the next panel
            ax.text(0.01, threshold, f"{level} {cmp} {threshold:g}", va="bottom", ha="left",
                    fontsize=FONT_SIZES["note"], color="#333333", transform=ax.get_yaxis_transform())
        ax.set_title(_wrap(chart.title if chart else "", 52, lines=2), fontsize=FONT_SIZES["note"] + 1, loc="left",
                     color=colour)
        ax.set_xlabel("game-turn (0 = after set-up)")
        ax.set_ylabel(f"{side.capitalize()} victory measure")
        ax.set_ylim(bottom=min(0.0, float(clipped.min())), top=cap)
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        if finite.dropna().apply(float.is_integer).all():  # counts of units: whole-number ticks
            ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    return fig


def _wrap(text: str, width: int, lines: int = 2) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width, max_lines=lines, placeholder=" ..."))
