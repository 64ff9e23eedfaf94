"""Draw a situation's assembled map as a player of its game expects to see it, as a PNG.

    from simulator.situation import load_situation
    from reports.mapview import draw_situation_map
    draw_situation_map(load_situation("pb-01"), "out/pb-01-map.png")

The picture shows what the situation card and the boards show: terrain fills, hexside
symbols, roads and streams, hex labels, town and hill names, board numbers, each side's
set-up area, entry hexes and objective hexes, a legend and notes on every force group.
An optional list of counters (for replays) is drawn on top.  What the terrain looks like and
what the situation marks on the map are the ruleset's (its report hooks' `map_style` and
`situation_marks`, simulator/api.py); the drawing is the same for every ruleset.

Orientation: north = top.  Hexes are flat-topped; the drawing works in hex units
(circumradius 1) with y growing downwards, as `simulator.hexgrid.centres` returns them, and
the axes are inverted so row 1 is at the top.  All colours come from `reports.style`.

Reading guide: `draw_situation_map` builds the figure and calls one `_draw_*` function per
layer (terrain, streams and roads, hexside bars, boards, labels, set-up areas, entries,
objectives, counters), then `_legend_handles` and the ruleset's notes for the text under the map.
"""

from __future__ import annotations

import os
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib.collections import Collection, LineCollection, PatchCollection, PolyCollection
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.patches import Circle, Patch, PathPatch, Rectangle
from matplotlib.path import Path as MplPath
from matplotlib.textpath import TextPath
from matplotlib.transforms import Affine2D

from reports import style
from simulator import registry
from simulator.api import MapStyle, SituationMarks
from simulator.hexgrid import SQRT3, centres
from simulator.outdir import make_public

# ------------------------------------------------------------------------- sizes

HEX_INCHES = 0.36        # circumradius of a hex on paper; hexes keep this size ...
MAX_FIGURE_INCHES = 40.0  # ... unless the figure's long side would exceed this
MARGIN_INCHES = 0.45      # left / right margin around the map
TITLE_INCHES = 1.05       # title, subtitle and compass note above the map
MAP_PAD_UNITS = 0.35      # white space around the board edges, in hex units

# Widths in hex units (converted to points with the figure's scale).
HEXSIDE_BAR_WIDTH = 0.12
AREA_OUTLINE_WIDTH = 0.09
OBJECTIVE_RING_WIDTH = 0.08
LARGE_OBJECTIVE = 60      # objective areas above this many hexes get thinner rings
INNER_HEX_RADIUS = 0.58   # woods / town drawn inside a hilltop, gully, ... hex
SETUP_HATCH = "//"        # set-up areas: side-coloured diagonal hatch, terrain stays readable
SETUP_HATCH_WIDTH = 1.6   # points
SETUP_ALPHA = 0.55

# ------------------------------------------------------------------------- hex geometry (y down)

_VERTEX_ANGLES = np.radians(60.0 * np.arange(6))
VERTICES = np.stack([np.cos(_VERTEX_ANGLES), np.sin(_VERTEX_ANGLES)], axis=1)  # [6, 2]
# Direction d = N, NE, SE, S, SW, NW: unit vector from the centre to the middle of side d ...
_SIDE_ANGLES = np.radians(270.0 + 60.0 * np.arange(6))
SIDE_NORMALS = np.stack([np.cos(_SIDE_ANGLES), np.sin(_SIDE_ANGLES)], axis=1)  # [6, 2]
# ... and the two vertices that bound side d (N runs from the 240 to the 300 degree vertex).
SIDE_VERTICES = np.array([((4 + d) % 6, (5 + d) % 6) for d in range(6)])
APOTHEM = SQRT3 / 2


def hex_polygons(cx: np.ndarray, cy: np.ndarray, radius: float = 1.0) -> np.ndarray:
    """[n, 6, 2] vertices of flat-topped hexes around the given centres."""
    return np.stack([cx, cy], axis=1)[:, None, :] + radius * VERTICES[None, :, :]


def side_segments(cx, cy, hexes, dirs, shrink=1.0, offset=0.0) -> np.ndarray:
    """[k, 2, 2] segments along side `dirs[j]` of hex `hexes[j]`.

    `shrink` < 1 shortens the segment about its middle; `offset` moves it along the side's
    outward normal (negative = into the hex).
    """
    c = np.stack([cx[hexes], cy[hexes]], axis=1)
    mid = c + APOTHEM * SIDE_NORMALS[dirs]
    a = c + VERTICES[SIDE_VERTICES[dirs, 0]]
    b = c + VERTICES[SIDE_VERTICES[dirs, 1]]
    shift = np.asarray(offset, dtype=float).reshape(-1, 1) * SIDE_NORMALS[dirs]
    a = mid + shrink * (a - mid) + shift
    b = mid + shrink * (b - mid) + shift
    return np.stack([a, b], axis=1)


@dataclass
class Canvas:
    """What every drawing layer needs: the axes, hex centres, the scale and the clip path."""

    ax: object
    x: np.ndarray
    y: np.ndarray
    scale: float          # inches per hex unit
    clip: PathPatch       # the printed boards: half hexes on the map edge are cut
    bbox: tuple[float, float, float, float]  # xmin, xmax, ymin, ymax of the boards

    def pt(self, units: float) -> float:
        """A length in hex units as points (for line widths and font sizes)."""
        return units * self.scale * 72.0

    def add(self, artist, clip: bool = True):
        if isinstance(artist, Collection):
            self.ax.add_collection(artist)
        else:
            self.ax.add_patch(artist)
        if clip:
            artist.set_clip_path(self.clip)
        return artist


# ------------------------------------------------------------------------- public API

def draw_situation_map(situation, out_path, *, dpi: int = 110, title: str | None = None,
                       counters: list[dict] | None = None) -> Path:
    """Render the situation's map with set-up areas, entries and objectives to a PNG.

    `counters`: optional list of {"hex": int, "side": str, "text": str}, drawn as small
    side-coloured squares (several in one hex are laid out side by side).
    The PNG is written atomically (temp file + os.replace); returns its path.
    """
    m = situation.map
    counters = list(counters or [])
    for c in counters:
        if not 0 <= int(c["hex"]) < m.n_hexes:
            raise ValueError(f"counter {c!r}: hex index outside 0..{m.n_hexes - 1}")
    hooks = registry.ruleset(situation.ruleset.name).report
    look = hooks.map_style(m)
    marks = hooks.situation_marks(situation)

    x, y = centres(m.col, m.row)
    bbox = map_bbox(x, y, look)
    handles = _legend_handles(look, marks, bool(counters))
    notes = list(marks.notes)
    fig, ax, scale = _make_figure(bbox, len(handles), len(notes))
    cv = Canvas(ax, x, y, scale, _board_clip(ax, m, x, y, look), bbox)

    _draw_terrain(cv, m, look)
    _draw_paths(cv, m, look)
    _draw_hexside_bars(cv, m, look)
    _draw_boards(cv, m, look)
    _draw_hex_labels(cv, m)
    _draw_setup_areas(cv, m, marks)
    _draw_objectives(cv, marks)
    _draw_entries(cv, m, marks)
    _draw_place_names(cv, m)
    _draw_counters(cv, counters)
    _draw_titles(fig, ax, situation, title, marks.subtitle)
    _draw_legend_and_notes(fig, ax, handles, notes)
    return _save_atomically(fig, Path(out_path), dpi)


# ------------------------------------------------------------------------- figure and layout

def _legend_columns(fig_width: float, n_items: int) -> int:
    return max(2, min(n_items, int(fig_width / 2.7)))


def _bottom_inches(fig_width: float, n_legend: int, n_notes: int) -> float:
    rows = -(-n_legend // _legend_columns(fig_width, n_legend))
    return 0.35 + rows * 0.25 + 0.25 + n_notes * 0.19 + 0.3


def _make_figure(bbox, n_legend: int, n_notes: int, max_inches: float = MAX_FIGURE_INCHES):
    """A figure whose hexes are HEX_INCHES wide unless the long side passes the cap
    (`max_inches`: a page-wide figure, whose text reads at its printed size on a page)."""
    xmin, xmax, ymin, ymax = bbox
    w_units = xmax - xmin + 2 * MAP_PAD_UNITS
    h_units = ymax - ymin + 2 * MAP_PAD_UNITS
    scale = min(HEX_INCHES, (max_inches - 2 * MARGIN_INCHES) / w_units)
    for _ in range(2):  # the legend height depends on the width; two passes settle it
        fig_w = max(10.0, w_units * scale + 2 * MARGIN_INCHES)
        bottom = _bottom_inches(fig_w, n_legend, n_notes)
        scale = min(scale, (max_inches - TITLE_INCHES - bottom) / h_units)
    map_w, map_h = w_units * scale, h_units * scale
    fig_w = max(10.0, map_w + 2 * MARGIN_INCHES)
    bottom = _bottom_inches(fig_w, n_legend, n_notes)
    fig_h = TITLE_INCHES + map_h + bottom
    fig = Figure(figsize=(fig_w, fig_h))
    ax = fig.add_axes(((fig_w - map_w) / 2 / fig_w, bottom / fig_h, map_w / fig_w, map_h / fig_h))
    ax.set_xlim(xmin - MAP_PAD_UNITS, xmax + MAP_PAD_UNITS)
    ax.set_ylim(ymax + MAP_PAD_UNITS, ymin - MAP_PAD_UNITS)  # inverted: row 1 at the top
    ax.set_aspect("equal")
    ax.axis("off")
    return fig, ax, scale


def _pad(look: MapStyle) -> tuple[float, float]:
    """How far a board's edge lies beyond its outermost hex centres: nothing where the edge runs
    through half hexes, a whole hex otherwise."""
    return (0.0, 0.0) if look.half_hexes else (1.0, APOTHEM)


def map_bbox(x, y, look: MapStyle) -> tuple[float, float, float, float]:
    """xmin, xmax, ymin, ymax of the printed map."""
    px, py = _pad(look)
    return float(x.min()) - px, float(x.max()) + px, float(y.min()) - py, float(y.max()) + py


def _board_rectangles(m, x, y, look: MapStyle) -> list[tuple[str, tuple[float, float, float, float]]]:
    """(layout name, (xmin, xmax, ymin, ymax)) of each board: the hull of its hex centres, which
    is the printed board where its edges run through the centres of half hexes, and that hull
    grown by a hex where the board's edge hexes are whole."""
    px, py = _pad(look)
    out = []
    for name in m.board_names():
        mine = np.array([name.removesuffix("i") in bs for bs in m.boards_of])
        out.append((name, (x[mine].min() - px, x[mine].max() + px, y[mine].min() - py, y[mine].max() + py)))
    return out


def _board_clip(ax, m, x, y, look: MapStyle) -> PathPatch:
    verts, codes = [], []
    for _, (x0, x1, y0, y1) in _board_rectangles(m, x, y, look):
        verts += [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]
        codes += [MplPath.MOVETO, MplPath.LINETO, MplPath.LINETO, MplPath.LINETO, MplPath.CLOSEPOLY]
    patch = PathPatch(MplPath(verts, codes), transform=ax.transData)
    return patch


# ------------------------------------------------------------------------- terrain

def _draw_terrain(cv: Canvas, m, look: MapStyle) -> None:
    """Each hex in its fill, with the inner hex of cover on other ground and the hatch."""
    cv.add(PolyCollection(hex_polygons(cv.x, cv.y), facecolors=look.fills, edgecolors=style.HEX_GRID_COLOUR,
                          linewidths=0.35, zorder=1))
    has_inner = np.array([c is not None for c in look.inner])
    if has_inner.any():
        cv.add(PolyCollection(hex_polygons(cv.x[has_inner], cv.y[has_inner], INNER_HEX_RADIUS),
                              facecolors=[c for c in look.inner if c is not None], edgecolors="none", zorder=2))
    hatched = np.asarray(look.hatched, dtype=bool)
    if hatched.any():
        hatch = PolyCollection(hex_polygons(cv.x[hatched], cv.y[hatched]), facecolors="none",
                               edgecolors=look.hatch_colour, linewidths=0, hatch=look.hatch, zorder=2.5)
        cv.add(hatch)


# ------------------------------------------------------------------------- roads, streams, hexsides

def _path_segments(cv: Canvas, m, features: tuple[str, ...]) -> np.ndarray:
    """Centre-to-side-middle segments for every side a road (or stream) crosses.

    Each hex draws its own half, so a road through two hexes becomes one line and a road
    that crosses only one side of a hex (a dead end) stops at the centre.
    """
    bits = 0
    for f in features:
        if f in m.side_vocab:
            bits |= m.side_bit(f)
    hexes, dirs = np.nonzero(m.side_features & bits)
    c = np.stack([cv.x[hexes], cv.y[hexes]], axis=1)
    return np.stack([c, c + APOTHEM * SIDE_NORMALS[dirs]], axis=1)


def _draw_paths(cv: Canvas, m, look: MapStyle) -> None:
    """The ruleset's line features (streams, then roads above them), in order."""
    for k, line in enumerate(look.lines):
        cv.add(LineCollection(_path_segments(cv, m, line.features), colors=line.colour,
                              linewidths=cv.pt(line.width), capstyle="round", zorder=3 + 0.2 * k))


def unique_hexsides(m) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every hexside once: (hex, direction, feature mask of both halves combined)."""
    nb = m.neighbours
    own = np.arange(m.n_hexes)[:, None]
    hexes, dirs = np.nonzero((nb < 0) | (nb > own))
    other = nb[hexes, dirs]
    mask = m.side_features[hexes, dirs].copy()
    has_other = other >= 0
    mask[has_other] |= m.side_features[other[has_other], (dirs[has_other] + 3) % 6]
    return hexes, dirs, mask


def _draw_hexside_bars(cv: Canvas, m, look: MapStyle) -> None:
    """Thick coloured bars on hex edges; several symbols on one side sit side by side."""
    colour = {b.feature: b.colour for b in look.bars}
    features = [b.feature for b in look.bars if b.feature in m.side_vocab]
    if not features:
        return
    hexes, dirs, mask = unique_hexsides(m)
    on = np.stack([(mask & m.side_bit(f)) != 0 for f in features], axis=1)  # [sides, features]
    count = on.sum(axis=1)
    segments, colours = [], []
    for k, f in enumerate(features):
        sel = on[:, k]
        if not sel.any():
            continue
        rank = on[sel, :k].sum(axis=1)
        offset = (rank - (count[sel] - 1) / 2.0) * HEXSIDE_BAR_WIDTH
        segments.append(side_segments(cv.x, cv.y, hexes[sel], dirs[sel], shrink=0.92, offset=offset))
        colours += [colour[f]] * int(sel.sum())
    if segments:
        cv.add(LineCollection(np.concatenate(segments), colors=colours,
                              linewidths=cv.pt(HEXSIDE_BAR_WIDTH), capstyle="butt", zorder=4))


# ------------------------------------------------------------------------- boards, labels, names

def _outlined_text(cv: Canvas, text: str, cx: float, cy: float, height: float, zorder: float) -> None:
    """`text` as a faint outline (no fill) centred on (cx, cy), `height` hex units tall."""
    path = TextPath((0, 0), text, size=1.0, prop=FontProperties(weight="bold"))
    ext = path.get_extents()
    k = height / max(ext.height, 1e-9)
    flip = (Affine2D().translate(-(ext.x0 + ext.x1) / 2, -(ext.y0 + ext.y1) / 2)
            .scale(k, -k).translate(cx, cy))  # the y axis grows downwards
    cv.add(PathPatch(flip.transform_path(path), facecolor="none", edgecolor=style.BOARD_OUTLINE_COLOUR,
                     linewidth=1.6, alpha=style.BOARD_NUMBER_ALPHA, zorder=zorder))


def _draw_boards(cv: Canvas, m, look: MapStyle) -> None:
    """A dashed outline and a large outlined board number on each board ("inverted" when rotated);
    a map of one board without half hexes (a whole game map, not a geomorphic board) gets neither."""
    boards = _board_rectangles(m, cv.x, cv.y, look)
    if len(boards) == 1 and not look.half_hexes:
        boards = []
    for name, (x0, x1, y0, y1) in boards:
        cv.add(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, edgecolor=style.BOARD_OUTLINE_COLOUR,
                         linewidth=1.3, linestyle=(0, (7, 4)), alpha=0.7, zorder=9), clip=False)
        cx, cy, h = (x0 + x1) / 2, (y0 + y1) / 2, y1 - y0
        _outlined_text(cv, name.removesuffix("i"), cx, cy, h * 0.5, zorder=4.5)
        if name.endswith("i"):
            _outlined_text(cv, "inverted", cx, cy + h * 0.34, h * 0.065, zorder=4.5)
    x0, x1, y0, y1 = cv.bbox
    cv.add(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, edgecolor=style.BOARD_OUTLINE_COLOUR,
                     linewidth=1.6, zorder=9.1), clip=False)


def _label_positions(cv: Canvas) -> tuple[np.ndarray, np.ndarray]:
    """Labels sit in the top of each hex; in a half hex cut by the map edge, in its visible half."""
    x0, x1, y0, y1 = cv.bbox
    lx, ly = cv.x.copy(), cv.y - 0.66
    eps = 1e-6
    ly[cv.y < y0 + eps] = cv.y[cv.y < y0 + eps] + 0.62  # top edge: the lower half shows
    lx[cv.x < x0 + eps] += 0.42
    lx[cv.x > x1 - eps] -= 0.42
    return lx, ly


def _draw_hex_labels(cv: Canvas, m) -> None:
    size = float(np.clip(cv.pt(0.23), style.FONT_SIZES["hex_label_min"], style.FONT_SIZES["hex_label_max"]))
    lx, ly = _label_positions(cv)
    for i, label in enumerate(m.labels):
        cv.ax.text(lx[i], ly[i], label, fontsize=size, ha="center", va="center", color="#1c1c1c",
                   alpha=0.85, zorder=8)


def _draw_place_names(cv: Canvas, m) -> None:
    """Each town and hill name once, near the middle of its hexes, nudged off the hex labels."""
    lx, ly = _label_positions(cv)
    for name, hexes in m.named.items():
        idx = np.asarray(hexes)
        mx, my = cv.x[idx].mean(), cv.y[idx].mean()
        candidates = [(mx, my + dy) for dy in (0.1, 0.4, -0.25, 0.7)]
        px, py = max(candidates, key=lambda p: np.min(((lx - p[0]) / 1.6) ** 2 + (ly - p[1]) ** 2))
        cv.ax.text(px, py, name, fontsize=style.FONT_SIZES["place_name"], fontweight="bold", ha="center",
                   va="center", color="#111111", zorder=11,
                   bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none", alpha=0.7))


# ------------------------------------------------------------------------- situation overlays

def _area_outline(cv: Canvas, m, member: np.ndarray, inset: float) -> np.ndarray:
    """Segments of the area's boundary, drawn just inside its hexes."""
    nb = m.neighbours
    inside_nb = np.where(nb >= 0, member[np.maximum(nb, 0)], False)
    hexes, dirs = np.nonzero(member[:, None] & ~inside_nb)
    return side_segments(cv.x, cv.y, hexes, dirs, shrink=1.0 - inset, offset=-inset * APOTHEM)


def _draw_setup_areas(cv: Canvas, m, marks: SituationMarks) -> None:
    """A side-coloured hatch on every set-up hex, a side-coloured outline round each area,
    and a diamond on a hex where a group sets up alone (e.g. a command post)."""
    for mark in marks.setup:
        colour = style.side_colour(mark.side)
        member = np.zeros(m.n_hexes, dtype=bool)
        member[np.asarray(mark.hexes, dtype=np.int64)] = True
        idx = np.flatnonzero(member)
        hatch = PolyCollection(hex_polygons(cv.x[idx], cv.y[idx]), facecolors="none", edgecolors=colour,
                               linewidths=0, hatch=SETUP_HATCH, alpha=SETUP_ALPHA, zorder=5)
        hatch.set_hatch_linewidth(SETUP_HATCH_WIDTH)
        cv.add(hatch)
        cv.add(LineCollection(_area_outline(cv, m, member, 0.08), colors=colour,
                              linewidths=cv.pt(AREA_OUTLINE_WIDTH), capstyle="round", zorder=5.5))
        fixed = list(mark.fixed)
        if fixed:
            cv.ax.scatter(cv.x[fixed], cv.y[fixed], marker="D", s=cv.pt(0.42) ** 2, color=colour,
                          edgecolors="white", linewidths=1.0, zorder=6.5)


def _objective_radius(k: int) -> float:
    return max(0.2, 0.5 - 0.13 * k)


def _draw_objectives(cv: Canvas, marks: SituationMarks) -> None:
    """A bold ring in each objective hex, one ring size per side so both can show (a little
    thinner when a whole board is the objective, so the terrain under it stays readable)."""
    for k, (side, hexes) in enumerate(marks.objectives.items()):
        if len(hexes) == 0:
            continue
        rings = [Circle((cv.x[h], cv.y[h]), _objective_radius(k)) for h in hexes]
        width = OBJECTIVE_RING_WIDTH if len(hexes) <= LARGE_OBJECTIVE else OBJECTIVE_RING_WIDTH * 0.65
        cv.add(PatchCollection(rings, facecolors="none", edgecolors=style.side_colour(side),
                               linewidths=cv.pt(width), zorder=6))


def _inward(cv: Canvas, m, h: int, toward: int | None = None) -> np.ndarray:
    """Unit vector into the map from hex h: away from its missing neighbours, else toward
    `toward` (a road march's destination) or the middle of the map."""
    missing = m.neighbours[h] < 0
    v = -SIDE_NORMALS[missing].sum(axis=0) if missing.any() else np.zeros(2)
    if np.hypot(*v) < 1e-6:
        if toward is not None and toward != h:
            v = np.array([cv.x[toward] - cv.x[h], cv.y[toward] - cv.y[h]])
        else:
            v = np.array([cv.x.mean() - cv.x[h], cv.y.mean() - cv.y[h]])
    n = np.hypot(*v)
    return v / n if n > 0 else np.array([0.0, 1.0])


def _entry_triangle(cv: Canvas, h: int, v: np.ndarray, shift: float = 0.0) -> np.ndarray:
    """An arrowhead in hex h pointing along v, kept in the half of the hex toward the map;
    `shift` moves it sideways (two sides entering in one corner hex)."""
    perp = np.array([-v[1], v[0]])
    c = np.array([cv.x[h], cv.y[h]]) + shift * perp
    return np.array([c + 0.66 * v, c + 0.06 * v + 0.24 * perp, c + 0.06 * v - 0.24 * perp])


def _draw_entries(cv: Canvas, m, marks: SituationMarks) -> None:
    """Side-coloured triangles pointing inward on entry hexes (black-edged for an emphasised
    entry: PanzerBlitz's road march) and one note per entry area, e.g. "russian enters T1"."""
    sides_at: dict[int, list[str]] = defaultdict(list)  # hex -> sides entering there
    for side in marks.sides:
        for h in sorted({h for e in marks.entries if e.side == side for h in e.hexes}):
            sides_at[h].append(side)

    def shift(h: int, side: str) -> float:
        names = sides_at[h]
        return (names.index(side) - (len(names) - 1) / 2) * 0.45

    for e in marks.entries:
        colour = style.side_colour(e.side)
        tris = [_entry_triangle(cv, h, _inward(cv, m, h, e.toward), shift(h, e.side)) for h in e.hexes]
        cv.add(PolyCollection(tris, facecolors=colour, edgecolors="black" if e.emphasis else "white",
                              linewidths=1.6 if e.emphasis else 0.6, zorder=7), clip=False)
        _entry_note(cv, m, np.array(e.hexes), f"{e.side} enters " + ", ".join(e.labels), colour, e.toward)


def _entry_note(cv: Canvas, m, hexes: np.ndarray, text: str, colour: str, toward) -> None:
    """Write `text` once, next to an entry hex near the middle of the entry area, keeping
    clear of town and hill names."""
    names = np.array([(cv.x[list(h)].mean(), cv.y[list(h)].mean()) for h in m.named.values()] or [(1e9, 1e9)])
    mx, my = cv.x[hexes].mean(), cv.y[hexes].mean()
    order = hexes[np.argsort((cv.x[hexes] - mx) ** 2 + (cv.y[hexes] - my) ** 2)]
    for h in list(order[:40]) + [order[0]]:
        v = _inward(cv, m, int(h), toward)
        px, py = cv.x[h] + 1.25 * v[0], cv.y[h] + 1.25 * v[1]
        if np.min((names[:, 0] - px) ** 2 + (names[:, 1] - py) ** 2) > 3.0 ** 2:
            break
    if abs(v[0]) > abs(v[1]):
        ha, va = ("left" if v[0] > 0 else "right"), "center"
    else:
        ha, va = "center", ("top" if v[1] > 0 else "bottom")  # y grows downwards
    cv.ax.text(px, py, text, fontsize=style.FONT_SIZES["entry_note"], fontweight="bold", color=colour,
               ha=ha, va=va, zorder=12,
               bbox=dict(boxstyle="round,pad=0.2", facecolor="white", edgecolor=colour, alpha=0.85))


# ------------------------------------------------------------------------- counters

def _counter_grid(n: int) -> tuple[int, float]:
    """(cells per row, square side in hex units) for n counters in one hex."""
    if n == 1:
        return 1, 0.95
    if n == 2:
        return 2, 0.7
    if n <= 4:
        return 2, 0.66
    if n <= 9:
        return 3, 0.46
    return 4, 0.36


def _draw_counters(cv: Canvas, counters: list[dict]) -> None:
    """Square side-coloured counters with their text; a stack is laid out as a small grid."""
    by_hex: dict[int, list[dict]] = defaultdict(list)
    for c in counters:
        by_hex[int(c["hex"])].append(c)
    squares, faces = [], []
    for h, stack in by_hex.items():
        per_row, side = _counter_grid(len(stack))
        rows = -(-len(stack) // per_row)
        step = side * 1.06
        for k, c in enumerate(stack):
            r, q = divmod(k, per_row)
            in_row = min(per_row, len(stack) - r * per_row)
            cx = cv.x[h] + (q - (in_row - 1) / 2) * step
            cy = cv.y[h] + (r - (rows - 1) / 2) * step + (0.08 if len(stack) == 1 else 0.1)
            half = side / 2
            squares.append([(cx - half, cy - half), (cx + half, cy - half), (cx + half, cy + half),
                            (cx - half, cy + half)])
            colour = style.side_colour(str(c.get("side", "")))
            faces.append(colour)
            text = str(c.get("text", ""))
            longest = max((len(t) for t in text.split("\n")), default=1) or 1
            lines = text.count("\n") + 1
            size = min(cv.pt(side) * 0.32, cv.pt(side) * 1.45 / longest, cv.pt(side) * 0.6 / lines)
            cv.ax.text(cx, cy, text, fontsize=max(size, 2.5), ha="center", va="center",
                       color=style.text_colour_on(colour), fontweight="bold", zorder=14, clip_on=True)
    if squares:
        cv.add(PolyCollection(squares, facecolors=faces, edgecolors="black", linewidths=0.7, zorder=13),
               clip=False)


# ------------------------------------------------------------------------- titles, legend, notes

def _draw_titles(fig, ax, situation, title: str | None, sub: str) -> None:
    fig_w, fig_h = fig.get_size_inches()
    top = 1 - 0.18 / fig_h
    main = title if title is not None else f"{situation.id} \u2014 {situation.title}"
    fig.text(0.5, top, main, ha="center", va="top", fontsize=style.FONT_SIZES["title"], fontweight="bold")
    fig.text(0.5, top - 0.42 / fig_h, sub, ha="center", va="top", fontsize=style.FONT_SIZES["subtitle"])
    left = ax.get_position().x0
    fig.text(left, ax.get_position().y1 + 0.08 / fig_h, "\u2191 N   north = top", ha="left", va="bottom",
             fontsize=style.FONT_SIZES["subtitle"], fontweight="bold")


def _terrain_handles(look: MapStyle) -> list:
    """The ruleset's terrain legend: filled hexes, hexside bars, lines."""
    handles = []
    for e in look.legend:
        if e.kind == "fill":
            handles.append(Patch(facecolor=e.colour, hatch=e.hatch, label=e.label,
                                 edgecolor=e.edge or style.HEX_GRID_COLOUR,
                                 linewidth=e.edge_width if e.edge_width is not None else 0.5))
        elif e.kind == "bar":
            handles.append(Line2D([], [], color=e.colour, linewidth=4, solid_capstyle="butt", label=e.label))
        else:
            handles.append(Line2D([], [], color=e.colour, linewidth=2.5, label=e.label))
    return handles


def _legend_handles(look: MapStyle, marks: SituationMarks, has_counters: bool) -> list:
    handles = _terrain_handles(look)
    for k, side in enumerate(marks.sides):
        colour = style.side_colour(side)
        setup = [mk for mk in marks.setup if mk.side == side]
        if setup:
            handles.append(Patch(facecolor="none", edgecolor=colour, hatch=SETUP_HATCH, linewidth=2,
                                 label=f"{side} {marks.setup_label}"))
        if any(mk.fixed for mk in setup):
            handles.append(Line2D([], [], linestyle="none", marker="D", markersize=8, color=colour,
                                  markeredgecolor="white", label=f"{side} {marks.fixed_label}"))
        entries = [e for e in marks.entries if e.side == side]
        for kind, emphasis in dict.fromkeys((e.kind, e.emphasis) for e in sorted(entries, key=lambda e: e.emphasis)):
            handles.append(Line2D([], [], linestyle="none", marker=">", markersize=10, color=colour,
                                  markeredgecolor="black" if emphasis else "white",
                                  **({"markeredgewidth": 1.6} if emphasis else {}), label=f"{side} {kind}"))
        if len(marks.objectives.get(side, ())):
            handles.append(Line2D([], [], linestyle="none", marker="o", markersize=10 - 2 * k,
                                  markerfacecolor="none", markeredgecolor=colour, markeredgewidth=2.2,
                                  label=f"{side} {marks.objective_label}"))
        if has_counters:
            handles.append(Line2D([], [], linestyle="none", marker="s", markersize=9, color=colour,
                                  markeredgecolor="black", label=f"{side} unit"))
    return handles


def _draw_legend_and_notes(fig, ax, handles: list, notes: list[str]) -> None:
    fig_w, fig_h = fig.get_size_inches()
    below = ax.get_position().y0 - 0.3 / fig_h
    ncol = _legend_columns(fig_w, len(handles))
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, below), ncol=ncol,
               fontsize=style.FONT_SIZES["legend"], frameon=False, handlelength=2.2,
               columnspacing=1.4, borderaxespad=0)
    rows = -(-len(handles) // ncol)
    top = below - (rows * 0.25 + 0.25) / fig_h
    fig.text(MARGIN_INCHES / fig_w, top, "\n".join(notes), ha="left", va="top",
             fontsize=style.FONT_SIZES["note"], linespacing=1.45)


# ------------------------------------------------------------------------- output

def _save_atomically(fig, out_path: Path, dpi: int) -> Path:
    out_path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out_path.parent, prefix=f".{out_path.name}.", suffix=".tmp.png")
    try:
        with os.fdopen(fd, "wb") as fh:
            fig.savefig(fh, format="png", dpi=dpi, facecolor="white")
        make_public(Path(tmp), directory=False)  # mkstemp makes the file private; a map is for reading
        os.replace(tmp, out_path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return out_path
