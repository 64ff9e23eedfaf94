"""Draw the reconstructed First Panzer Army map to a PNG, to look at it.

    python tools/fpa_mapdraw.py [--out docs/first-panzer-army/img/map.png] [--dpi 110]
                                [--window 1515-2523] [--situation FILE]

Shows terrain, rivers on hexsides (Dnestr, Bug, Prut heavier: +1 on the crossing roll), towns and
fortified localities with their names, the text's anchor hexes, the example turn's hexes, the
edge ranges of the rules (Soviet supply, German C&C, German entry, Soviet exit), the Soviet
no-go area of FPA 12.5 and the Turn 1 stand-fast line (column 23).  `--window` draws only the
hexes between two corners (e.g. the example turn's neighbourhood) with every hex numbered;
`--situation` adds the set-up of a situation file (unit labels, German grey, Soviet red).

The project's own map drawing (reports/mapview.py) will draw this board once the core's map
loader reads it (docs/first-panzer-army/map.md); this script is a tool for checking the data.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.collections import LineCollection, PolyCollection  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fpa_grid as grid  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BOARD = ROOT / "situations" / "rulesets" / "first-panzer-army" / "boards" / "board-fpa.json"
OUT = ROOT / "docs" / "first-panzer-army" / "img" / "map.png"

FILL = {"clear": "#f1ecd2", "forest": "#7fae6a", "rough": "#b89f7a", "marsh": "#9ec9c0",
        "town": "#e0a0a0", "fortified_locality": "#c46060"}
EXAMPLE_HEXES = ["1319", "1819", "1918", "1919", "1920", "2017", "2018", "2019", "2020",
                 "2117", "2118", "2119", "2120", "2121", "2122", "2218", "2219"]
TEXT_HEXES = ["0805", "2607", "2603", "4004", "4513", "4612", "4613", "2807", "2908"]


def hex_poly(h: str, shrink: float = 1.0):
    cx, cy = grid.centre(h)
    return [(cx + (x - cx) * shrink, cy + (y - cy) * shrink)
            for x, y in (grid.corner_xy(grid.corner_key(h, k)) for k in range(6))]


def side_segment(h: str, d: str):
    k1, k2 = grid.SIDE_CORNERS[d]
    return [grid.corner_xy(grid.corner_key(h, k1)), grid.corner_xy(grid.corner_key(h, k2))]


def in_window(h: str, window) -> bool:
    if window is None:
        return True
    (c1, r1), (c2, r2) = window
    c, r = grid.parse(h)
    return c1 <= c <= c2 and r1 <= r <= r2


def draw_setup(ax, situation: dict, units: dict, hexes: dict) -> None:
    """Each set-up hex's units as a small label stack (German grey, Soviet red)."""
    colour = {"german": ("#4a4a4a", "white"), "soviet": ("#b22222", "white")}
    for side in situation["side"]:
        by_hex: dict[str, list[str]] = {}
        for s in side.get("setup", []):
            by_hex.setdefault(s["hex"], []).append(units[s["unit"]]["label"])
        for h, labels in by_hex.items():
            if h not in hexes:
                continue
            cx, cy = grid.centre(h)
            bg, fg = colour[side["name"]]
            ax.text(cx, cy, "\n".join(labels), ha="center", va="center", fontsize=3.6, color=fg,
                    zorder=10, linespacing=0.95,
                    bbox={"boxstyle": "square,pad=0.12", "fc": bg, "ec": "none", "alpha": 0.9})


def draw(board: dict, out: Path, dpi: int, window=None, situation=None, units=None) -> None:
    hexes = {h: rec for h, rec in board["hexes"].items() if in_window(h, window)}
    xs = [grid.centre(h)[0] for h in hexes]
    ys = [grid.centre(h)[1] for h in hexes]
    w, h_ = max(xs) - min(xs) + 1.5, max(ys) - min(ys) + 1.5
    scale = 0.36 if window is None else 0.75
    fig, ax = plt.subplots(figsize=(w * scale + 1, h_ * scale + 1.4))
    ax.set_aspect("equal")
    ax.invert_yaxis()
    ax.axis("off")

    # Terrain.
    polys, colors = [], []
    for h, rec in hexes.items():
        t = rec["features"][0] if rec["features"] else "clear"
        polys.append(hex_poly(h))
        colors.append(FILL[t])
    ax.add_collection(PolyCollection(polys, facecolors=colors, edgecolors="#a09a88", linewidths=0.25, zorder=1))

    # Soviet no-go area (12.5), hatched.
    nogo = [hex_poly(h) for h in board["regions"]["soviet_restricted"]["hexes"] if h in hexes]
    ax.add_collection(PolyCollection(nogo, facecolors="none", edgecolors="#8a2020", hatch="////",
                                     linewidths=0.0, alpha=0.35, zorder=2))

    # Rivers.
    minor, major = [], []
    for h, rec in hexes.items():
        for d, feats in rec.get("sides", {}).items():
            n = grid.neighbour(h, d)
            if n is None or (n in hexes and n < h):
                continue  # draw each hexside once
            (major if "major_river" in feats else minor).append(side_segment(h, d))
    ax.add_collection(LineCollection(minor, colors="#2f6fbf", linewidths=1.6 if window is None else 3, zorder=4,
                                     capstyle="round"))
    ax.add_collection(LineCollection(major, colors="#0b3d91", linewidths=3.0 if window is None else 5, zorder=4,
                                     capstyle="round"))

    # Edge roles: a coloured rim inside each edge hex.
    edge_style = {"soviet_supply": ("#c0392b", 0.80), "german_cc": ("#555555", 0.80),
                  "german_entry": ("#1a1a1a", 0.62), "soviet_exit": ("#e67e22", 0.62)}
    for role, (col, shrink) in edge_style.items():
        rims = [hex_poly(h, shrink) for h in board["edges"][role]["hexes"] if h in hexes]
        ax.add_collection(PolyCollection(rims, facecolors="none", edgecolors=col, linewidths=1.3, zorder=5))

    # Stand-fast line: the west side of column 23.
    seg = [side_segment(grid.label(23, r), d) for r in range(1, 30) for d in ("NW", "SW")
           if grid.on_grid(23, r) and grid.label(23, r) in hexes]
    ax.add_collection(LineCollection(seg, colors="#6c3483", linewidths=1.0, linestyles="dashed", zorder=3))

    # Text anchors and the example turn's hexes.
    for hh, col in [(TEXT_HEXES, "#000000"), (EXAMPLE_HEXES, "#1f8f3a")]:
        rings = [hex_poly(x, 0.45) for x in hh if x in hexes]
        ax.add_collection(PolyCollection(rings, facecolors="none", edgecolors=col, linewidths=1.2, zorder=6))

    # Hex numbers.
    for h in hexes:
        c, r = grid.parse(h)
        if window is not None or (c % 2 == 1 and r % 2 == 1) or h in TEXT_HEXES:
            cx, cy = grid.centre(h)
            ax.text(cx, cy - 0.33, h, ha="center", va="center", fontsize=3.2 if window is None else 6,
                    color="#555555", zorder=7)

    # Places.
    for name, p in board["places"].items():
        shown = [x for x in p["hexes"] if x in hexes]
        if not shown:
            continue
        cx = sum(grid.centre(x)[0] for x in shown) / len(shown)
        cy = sum(grid.centre(x)[1] for x in shown) / len(shown)
        if p["kind"] == "fortified_locality":
            ax.plot(cx, cy, marker="*", ms=9, color="#7b0000", mec="white", mew=0.6, zorder=8)
        elif p["kind"] == "town":
            ax.plot(cx, cy, marker="s", ms=4.2, color="#7b0000", mec="white", mew=0.5, zorder=8)
        else:
            ax.plot(cx, cy, marker="o", ms=2.2, color="#444444", zorder=8)
        ax.text(cx, cy + 0.32, name, ha="center", va="top", fontsize=5.2 if p["kind"] != "place" else 4.2,
                fontweight="bold" if p["kind"] != "place" else "normal",
                color="#3a0000" if p["kind"] != "place" else "#333333", zorder=9)

    if situation is not None:
        draw_setup(ax, situation, units, hexes)

    legend = [Patch(facecolor=FILL[t], edgecolor="#a09a88", label=t.replace("_", " "))
              for t in ("clear", "forest", "rough", "marsh")]
    legend += [Line2D([], [], marker="s", ls="", color="#7b0000", label="town (1 VP)"),
               Line2D([], [], marker="*", ls="", ms=9, color="#7b0000", label="fortified locality (4 VP)"),
               Line2D([], [], color="#0b3d91", lw=3, label="Dnestr, Bug, Prut (+1 crossing)"),
               Line2D([], [], color="#2f6fbf", lw=1.6, label="other river"),
               Patch(facecolor="none", edgecolor="#8a2020", hatch="////", label="Soviet no-go (12.5)"),
               Patch(facecolor="none", edgecolor="#c0392b", label="Soviet supply edge (8.2)"),
               Patch(facecolor="none", edgecolor="#555555", label="German C&C edge (9.2)"),
               Patch(facecolor="none", edgecolor="#1a1a1a", label="German entry 0101-0113 (10.1)"),
               Patch(facecolor="none", edgecolor="#e67e22", label="Soviet exit 0729-1729 (4.1)"),
               Line2D([], [], color="#6c3483", ls="--", label="stand-fast line, col 23 (3.2)"),
               Patch(facecolor="none", edgecolor="#000000", label="hex named in the rules"),
               Patch(facecolor="none", edgecolor="#1f8f3a", label="example-turn hex")]
    ax.legend(handles=legend, loc="upper center", bbox_to_anchor=(0.5, -0.005), ncol=6 if window is None else 3,
              fontsize=6, frameon=False)
    title = "First Panzer Army (DG 2019): reconstructed map"
    if window is not None:
        title += f", hexes {window[0][0]:02d}{window[0][1]:02d}-{window[1][0]:02d}{window[1][1]:02d}"
    ax.set_title(title + "  [terrain: fit/estimate, see docs/first-panzer-army/map.md]", fontsize=9)
    ax.autoscale_view()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.stem + ".tmp.png")
    fig.savefig(tmp, dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    tmp.replace(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--board", type=Path, default=BOARD)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--dpi", type=int, default=110)
    ap.add_argument("--window", help="two corner hexes, e.g. 1515-2523")
    ap.add_argument("--situation", type=Path, help="also draw this situation's set-up")
    args = ap.parse_args(argv)
    board = json.loads(args.board.read_text())
    window = None
    if args.window:
        a, b = args.window.split("-")
        window = (grid.parse(a), grid.parse(b))
    situation = units = None
    if args.situation:
        import tomllib
        situation = tomllib.loads(args.situation.read_text())
        units = tomllib.loads((args.board.parent.parent / "units.toml").read_text())["units"]
    draw(board, args.out, args.dpi, window, situation, units)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
