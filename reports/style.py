"""One palette and one set of font sizes for every picture the reports draw.

Maps, charts and replays import their colours from here so that a side, a terrain type or
a hexside symbol always looks the same.  German field grey (blue-grey) and Russian red are
what wargamers expect; sides of other games get a stable colour from FALLBACK_SIDE_COLOURS.
"""

from __future__ import annotations

import zlib

# ------------------------------------------------------------------------- sides

SIDE_COLOURS: dict[str, str] = {
    "german": "#4a6a86",   # field grey / blue-grey
    "russian": "#c0281e",  # soviet red
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


# ------------------------------------------------------------------------- terrain

# Hex fills, as on the printed PanzerBlitz boards.
TERRAIN_COLOURS: dict[str, str] = {
    "clear": "#f4ecd2",    # pale cream
    "woods": "#4f9a47",    # green
    "town": "#8e8e8e",     # grey
    "swamp": "#7db8a8",    # blue-green (drawn with a hatch)
    "slope": "#cfa46c",    # tan
    "hilltop": "#c0702f",  # orange-brown, darker than slope
    "gully": "#b7d5ef",    # light blue
    "ford": "#e3eef9",     # very light blue
    "pond": "#3f7fd0",     # blue
}
SWAMP_HATCH_COLOUR = "#2f6f60"
HEX_GRID_COLOUR = "#7d7464"

# Hexside symbols (thick bars on hex edges).
HEXSIDE_COLOURS: dict[str, str] = {
    "green": "#14501a",   # woods hexside
    "gray": "#333333",    # town hexside
    "brown": "#6b3a17",   # slope hexside
    "orange": "#ff8a1c",  # hilltop hexside
    "pond": "#1b4fa8",    # pond edge
}
HEXSIDE_LABELS: dict[str, str] = {
    "green": "woods hexside",
    "gray": "town hexside",
    "brown": "slope hexside",
    "orange": "hilltop hexside",
    "pond": "pond edge",
}

ROAD_COLOUR = "#6e1010"    # dark red
STREAM_COLOUR = "#1f66d1"  # blue

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
