"""Where events happened (PanzerBlitz: where units were lost): a heatmap on the situation's map,
for the designer's report.

Each hex with events gets a disc per side, its area proportional to that side's events in the
hex per game (a disc's area, not its radius, reads as a quantity).  The terrain is drawn faded
underneath so the reader sees which town, wood or road crossing the fighting was for.  Events
off the map (a passenger in a carrier that had not entered) have no hex and are left out; the
title says how many.  Which columns hold the hex and the side, and what the events are called,
are the ruleset's (its results schema's `event_hex` / `event_side`, its report's `event_map`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.collections import PolyCollection
from matplotlib.lines import Line2D
from matplotlib.patches import Circle

from reports import style
from reports.mapview import (
    Canvas,
    _board_clip,
    _board_rectangles,
    _draw_boards,
    _draw_hexside_bars,
    _draw_paths,
    _draw_place_names,
    _draw_terrain,
    _make_figure,
    _save_atomically,
    hex_polygons,
    map_bbox,
)
from simulator import registry
from simulator.hexgrid import centres

FADE = 0.55          # white veil over the terrain, so the discs stand out
MAX_DISC = 0.62      # radius, in hex units, of the disc of the busiest hex
SIDE_OFFSET = 0.28   # two sides' discs in one hex sit left and right of its centre


def _columns(situation) -> tuple[str, str, str]:
    """(table name, hex column, side column) of the situation's ruleset's events."""
    res = registry.ruleset(situation.ruleset.name).results
    return res.events.name, res.event_hex, res.event_side


def loss_counts(losses: pd.DataFrame, situation) -> dict[str, np.ndarray]:
    """Events (units lost) per hex and side over the whole run: side -> counts indexed by hex."""
    m = situation.map
    table, hex_col, side_col = _columns(situation)
    index = {label: i for i, label in enumerate(m.labels)}
    out = {}
    for side in situation.side_names:
        counts = np.zeros(m.n_hexes, dtype=np.int64)
        mine = losses[(losses[side_col] == side) & (losses[hex_col] != "")]
        for label, k in mine[hex_col].value_counts().items():
            if label not in index:
                raise ValueError(f"{table} table: hex {label!r} is not on the map of {situation.id}")
            counts[index[label]] = int(k)
        out[side] = counts
    return out


def draw_loss_maps(situation, losses: pd.DataFrame, n_games: int, out_dir, *, dpi: int = 100) -> list[Path]:
    """The whole map (`loss_map.png`, at twice the resolution, to open and zoom) and one map a
    board (`loss_map_board-<name>.png`, each as wide as a page, so that discs, place names and
    the legend can be read in the report).  Disc sizes share one scale.  [] if nothing was lost."""
    out_dir = Path(out_dir)
    whole = draw_loss_map(situation, losses, n_games, out_dir / "loss_map.png", dpi=2 * dpi)
    if whole is None:
        return []
    boards = situation.map.board_names()
    if len(boards) == 1:
        return [whole]
    return [whole, *(draw_loss_map(situation, losses, n_games, out_dir / f"loss_map_board-{b}.png", dpi=dpi, board=b)
                     for b in boards)]


def draw_loss_map(situation, losses: pd.DataFrame, n_games: int, out_path, *, dpi: int = 100,
                  board: str | None = None):
    """Write the loss heatmap PNG (atomically); returns its path, or None if nothing was lost.
    `board`: only that board of the layout (a name as in the layout, e.g. "2" or "2i")."""
    _, hex_col, _ = _columns(situation)
    if n_games <= 0 or losses[losses[hex_col] != ""].empty:
        return None
    m = situation.map
    hooks = registry.ruleset(situation.ruleset.name).report
    look = hooks.map_style(m)
    words = hooks.event_map
    counts = loss_counts(losses, situation)
    per_game = {s: c / n_games for s, c in counts.items()}
    peak = max(float(v.max()) for v in per_game.values())
    x, y = centres(m.col, m.row)
    bbox = map_bbox(x, y, look)
    if board is not None:
        bbox = dict(_board_rectangles(m, x, y, look))[board]
    sides = list(situation.side_names)
    # One board: a page-wide figure (10 inches), so its text and discs read at their size in
    # the report; the whole map keeps the maps' usual scale.
    fig, ax, scale = _make_figure(bbox, len(sides) + 3, 1, *((10.0,) if board is not None else ()))
    cv = Canvas(ax, x, y, scale, _board_clip(ax, m, x, y, look), bbox)
    _draw_terrain(cv, m, look)
    _draw_paths(cv, m, look)
    _draw_hexside_bars(cv, m, look)
    cv.add(PolyCollection(hex_polygons(x, y), facecolors="white", edgecolors="none", alpha=FADE, zorder=3))
    _draw_boards(cv, m, look)
    _draw_place_names(cv, m)
    if board is not None:  # one board: the other boards' place names stay off the margins
        for text in ax.texts:
            text.set_clip_on(True)
    both = [s for s in sides if counts[s].any()]
    for k, side in enumerate(both):
        shift = 0.0 if len(both) == 1 else (-SIDE_OFFSET if k == 0 else SIDE_OFFSET)
        where = np.flatnonzero(counts[side])
        radius = MAX_DISC * np.sqrt(per_game[side][where] / peak)
        for h, r in zip(where, radius, strict=True):
            ax.add_patch(Circle((x[h] + shift, y[h]), r, facecolor=style.side_colour(side), edgecolor="white",
                                linewidth=0.6, alpha=0.85, zorder=8))
    total_lost = len(losses)
    off_map = int((losses[hex_col] == "").sum())
    note = f", {off_map} {words.off_map} not drawn" if off_map else ""
    fig.text(0.5, 1 - 0.18 / fig.get_size_inches()[1],
             f"{situation.id}{f', board {board}' if board else ''}: {words.heading[0].lower() + words.heading[1:]} "
             f"({total_lost} {words.noun} in {n_games} games{note})",
             ha="center", va="top", fontsize=style.FONT_SIZES["title"], fontweight="bold")
    fig.text(0.5, 1 - 0.62 / fig.get_size_inches()[1],
             f"disc area = {words.per_hex} per game; the largest disc is "
             f"{peak:.2f} per game", ha="center", va="top", fontsize=style.FONT_SIZES["subtitle"])
    handles = [Line2D([], [], marker="o", linestyle="none", markersize=10, color=style.side_colour(s),
                      label=f"{s.capitalize()} {words.noun}") for s in sides]
    for share in (1.0, 0.25, 0.05):
        r_pt = MAX_DISC * np.sqrt(share) * scale * 72
        handles.append(Line2D([], [], marker="o", linestyle="none", markersize=2 * r_pt, markerfacecolor="none",
                              markeredgecolor="#333333", label=f"{share * peak:.2f} per game"))
    below = ax.get_position().y0 - 0.3 / fig.get_size_inches()[1]
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, below), ncol=len(handles),
               fontsize=style.FONT_SIZES["legend"], frameon=False, borderaxespad=0, handletextpad=1.0,
               columnspacing=1.6)
    return _save_atomically(fig, Path(out_path), dpi)
