"""One palette and one set of font sizes for every picture the reports draw.

Maps, charts and replays import their colours from here so that a side always looks the same.
German field grey (blue-grey) and Russian red are what wargamers expect; sides not named here get
a stable colour from FALLBACK_SIDE_COLOURS.  Terrain colours are a ruleset's (its map style,
simulator.api.MapStyle: PanzerBlitz's are simulator/rulesets/panzerblitz/map_style.py).
"""

from __future__ import annotations

import zlib

# ------------------------------------------------------------------------- sides

SIDE_COLOURS: dict[str, str] = {
    "german": "#4a6a86",   # field grey / blue-grey
    "russian": "#c0281e",  # soviet red
    "soviet": "#c0281e",   # First Panzer Army's name for the same side
    "british": "#8a7a3a",  # khaki
    "american": "#5b6e2f",  # olive drab
    "red": "#c8332b",
    "blue": "#2f5fa8",
}

# Other side names (other games) get one of these, chosen by a stable hash of the name.
FALLBACK_SIDE_COLOURS: tuple[str, ...] = ("#2e7d32", "#6a3d9a", "#e08214", "#00838f", "#8d6e63")


def side_colour(side: str) -> str:
    """The colour of a side; a stable fallback colour for sides not in SIDE_COLOURS."""
    if side in SIDE_COLOURS:
        return SIDE_COLOURS[side]
    return FALLBACK_SIDE_COLOURS[zlib.crc32(side.encode()) % len(FALLBACK_SIDE_COLOURS)]


def text_colour_on(colour: str) -> str:
    """Black or white, whichever reads better on a background `colour` ("#rrggbb")."""
    r, g, b = (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 0.6 else "#ffffff"


# ------------------------------------------------------------------------- maps

HEX_GRID_COLOUR = "#7d7464"
BOARD_OUTLINE_COLOUR = "#202020"
BOARD_NUMBER_ALPHA = 0.4

# ------------------------------------------------------------------------- text

FONT_SIZES: dict[str, float] = {
    "title": 16,
    "subtitle": 10,
    "legend": 9,
    "note": 8.5,
    "place_name": 7.5,   # town / hill names on the map
    "entry_note": 7.5,   # "russian enters T1" on the map
    "hex_label_max": 7,
    "hex_label_min": 4.5,
}
