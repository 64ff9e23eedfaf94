"""Boards and the assembled map of a situation, as plain arrays.

A *board* file describes one geomorphic board in its own frame (column letters left to
right, row numbers top to bottom).  A situation's `layout` places boards on a grid, as the
map is drawn: picture rows top to bottom, boards in a picture row left to right, a board
written "2i" being rotated 180 degrees.  Boards in one picture row meet short edge to short
edge (the last column of one is the first column of the next: half hexes merge); picture
rows meet long edge to long edge (the odd columns' half hexes merge).

Nothing here knows the rules of a game: terrain and hexside features are bit masks over the
vocabulary the ruleset declares.

Two numbering schemes are read.  The classic one (PanzerBlitz): a hex is named by its board,
column letters and row (`2G7`), and the odd columns of a board (B, D, ...) are its high ones.
The `xxyy` scheme (First Panzer Army, Panzer Blitz v2): a hex is four digits, column then row,
both from 1, with no board prefix (`2119`), and column 01 is a high one (`odd_columns_up`).
A board file says so under any of its `extensions` (`extensions.fpa.label_scheme = "xxyy"`);
a board without them is classic.  Other keys of a board file (per-hex provenance, places,
rivers, the rules' edge ranges) belong to the ruleset that reads them and are ignored here.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simulator.errors import DataError
from simulator.hexgrid import (
    DIRECTION_INDEX,
    DIRECTIONS,
    N_DIRECTIONS,
    NO_HEX,
    axial,
    axial_index,
    build_neighbours,
    neighbour_offset,
)

EDGES = ("north", "south", "east", "west")
LABEL_SCHEMES = ("classic", "xxyy")


@dataclass(frozen=True)
class BoardHex:
    label: str
    col: int
    row: int  # 0-based
    elevation: int
    features: frozenset[str]
    sides: dict[int, frozenset[str]]  # direction index -> hexside features


@dataclass(frozen=True)
class Board:
    name: str
    path: Path
    columns: tuple[str, ...]
    rows_even: int
    rows_odd: int
    hexes: dict[tuple[int, int], BoardHex]
    named: dict[str, tuple[str, ...]]
    label_scheme: str = "classic"
    # Whether the board's first column (index 0) is a high one.  The core's grid puts odd map
    # columns up (hexgrid.py), so such a board is placed one map column to the right.
    odd_columns_up: bool = False

    def has_cell(self, col: int, row: int) -> bool:
        if not 0 <= col < len(self.columns):
            return False
        return 0 <= row < (self.rows_even if col % 2 == 0 else self.rows_odd)


def _grid_keys(data: dict, where: str) -> tuple[str, bool]:
    """The board's numbering (`label_scheme`, `odd_columns_up`) from its `extensions`; classic
    when none gives them.  Two extensions that disagree are an error, not a guess."""
    found: dict[str, tuple[str, object]] = {}
    extensions = data.get("extensions", {})
    if not isinstance(extensions, dict):
        raise DataError(where, "extensions", f"got {extensions!r}", "a table of ruleset extensions")
    for ext, body in extensions.items():
        for key in ("label_scheme", "odd_columns_up"):
            if isinstance(body, dict) and key in body:
                if key in found and found[key][1] != body[key]:
                    raise DataError(where, f"extensions.{ext}.{key}", f"{body[key]!r} disagrees with "
                                    f"extensions.{found[key][0]}.{key} = {found[key][1]!r}", "one value")
                found[key] = (ext, body[key])
    scheme = found.get("label_scheme", ("", "classic"))
    up = found.get("odd_columns_up", ("", False))
    if scheme[1] not in LABEL_SCHEMES:
        raise DataError(where, f"extensions.{scheme[0]}.label_scheme", f"got {scheme[1]!r}", f"one of {list(LABEL_SCHEMES)}")
    if not isinstance(up[1], bool):
        raise DataError(where, f"extensions.{up[0]}.odd_columns_up", f"got {up[1]!r}", "true or false")
    return scheme[1], up[1]


def _split_label(label: str, name: str, scheme: str) -> tuple[str, str] | None:
    """(column, row digits) of a hex label, or None if it is not one of this board's scheme."""
    if scheme == "xxyy":
        return (label[:2], label[2:]) if len(label) == 4 and label.isdigit() else None
    if not label.startswith(name):
        return None
    body = label[len(name):]
    letters = body.rstrip("0123456789")
    return letters, body[len(letters):]


def load_board(path: Path, hex_vocab: tuple[str, ...], side_vocab: tuple[str, ...]) -> Board:
    """Read a board file, checking every feature name against the ruleset's vocabulary."""
    where = str(path)
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(where, "", f"cannot read board file: {exc}", "a JSON board file") from exc
    for key in ("board", "columns", "rows_even", "rows_odd", "hexes"):
        if key not in data:
            raise DataError(where, key, "missing", "a board file with board, columns, rows_even, rows_odd, hexes")
    scheme, odd_up = _grid_keys(data, where)
    columns = tuple(data["columns"])
    col_of = {c: i for i, c in enumerate(columns)}
    name = str(data["board"])
    expected = ("four digits, column then row (e.g. \"2119\"), the column one of the board's columns"
                if scheme == "xxyy" else f"'{name}' + column letter + row number")
    hexes: dict[tuple[int, int], BoardHex] = {}
    for label, h in data["hexes"].items():
        fld = f"hexes.{label}"
        parts = _split_label(label, name, scheme)
        if parts is None or parts[0] not in col_of or not parts[1]:
            raise DataError(where, fld, "bad hex label", expected)
        col, row = col_of[parts[0]], int(parts[1]) - 1
        feats = frozenset(h.get("features", ()))
        bad = feats - set(hex_vocab)
        if bad:
            raise DataError(where, f"{fld}.features", f"unknown feature(s) {sorted(bad)}", f"one of {list(hex_vocab)}")
        sides: dict[int, frozenset[str]] = {}
        for dname, sfeats in h.get("sides", {}).items():
            if dname not in DIRECTION_INDEX:
                raise DataError(where, f"{fld}.sides", f"unknown direction {dname!r}", f"one of {list(DIRECTIONS)}")
            bad = set(sfeats) - set(side_vocab)
            if bad:
                raise DataError(where, f"{fld}.sides.{dname}", f"unknown hexside feature(s) {sorted(bad)}", f"one of {list(side_vocab)}")
            sides[DIRECTION_INDEX[dname]] = frozenset(sfeats)
        elevation = h.get("elevation", 0)
        if not isinstance(elevation, int):
            raise DataError(where, f"{fld}.elevation", f"got {elevation!r}", "an integer level")
        hexes[(col, row)] = BoardHex(label, col, row, elevation, feats, sides)
    board = Board(name, path, columns, int(data["rows_even"]), int(data["rows_odd"]), hexes,
                  {k: tuple(v) for k, v in data.get("named", {}).items()}, scheme, odd_up)
    missing = [(c, r) for c in range(len(columns))
               for r in range(board.rows_even if c % 2 == 0 else board.rows_odd) if (c, r) not in hexes]
    if missing:
        c, r = missing[0]
        first = f"{columns[c]}{r + 1:02d}" if scheme == "xxyy" else f"{name}{columns[c]}{r + 1}"
        raise DataError(where, "hexes", f"{len(missing)} printed hexes missing, e.g. {first}", "every hex of the board")
    return board


@dataclass(frozen=True)
class Placement:
    board: Board
    inverted: bool
    picture_row: int
    position: int

    def to_map(self, col: int, row: int) -> tuple[int, int, bool]:
        """Board cell -> (map column, map row, direction-rotated?)."""
        b = self.board
        if self.inverted:
            col = len(b.columns) - 1 - col
            row = (b.rows_even if col % 2 == 0 else b.rows_odd) - 1 - row
        return (col + self.position * (len(b.columns) - 1) + int(b.odd_columns_up),
                row + self.picture_row * (b.rows_odd - 1), self.inverted)


@dataclass
class GameMap:
    """The assembled map: one entry per printed hex, merged half hexes counted once."""

    layout: tuple[tuple[str, ...], ...]
    hex_vocab: tuple[str, ...]
    side_vocab: tuple[str, ...]
    col: np.ndarray
    row: np.ndarray
    labels: list[str]
    aliases: list[tuple[str, ...]]
    elevation: np.ndarray
    hex_features: np.ndarray  # uint32 bit mask over hex_vocab
    side_features: np.ndarray  # uint32[n, 6] bit mask over side_vocab
    neighbours: np.ndarray
    boards_of: list[tuple[str, ...]]
    named: dict[str, tuple[int, ...]]
    # Per hex, for each of its names (as `aliases`): its board's column index and row number
    # (from 1), what `columns` / `rows` area filters select on.
    cells: list[tuple[tuple[int, int], ...]] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    width: int = 0
    height: int = 0

    def __post_init__(self) -> None:
        self.q, self.r = axial(self.col, self.row)
        for i, names in enumerate(self.aliases):
            for name in names:
                self.index[name] = i
        self.width = int(self.col.max()) + 1
        self.height = int(self.row.max()) + 1

    @property
    def n_hexes(self) -> int:
        return len(self.labels)

    def hex_bit(self, name: str) -> int:
        return 1 << self.hex_vocab.index(name)

    def side_bit(self, name: str) -> int:
        return 1 << self.side_vocab.index(name)

    def has_feature(self, name: str) -> np.ndarray:
        return (self.hex_features & self.hex_bit(name)) != 0

    def lookup(self, label: str) -> int:
        """Hex index of a label such as '2G10' (either name of a merged half hex)."""
        return self.index[label.strip().upper()]

    def path_along(self, side_feature: str, start: int, goal: int) -> np.ndarray | None:
        """The shortest chain of hexes from `start` to `goal` crossing only hexsides that carry
        `side_feature` (a road, say), both ends included; None if there is none."""
        bit = self.side_bit(side_feature)
        prev = np.full(self.n_hexes, -2, dtype=np.int64)
        prev[start] = -1
        frontier = [start]
        while frontier and prev[goal] == -2:
            nxt = []
            for h in frontier:
                for d in range(N_DIRECTIONS):
                    n = self.neighbours[h, d]
                    if n != NO_HEX and (self.side_features[h, d] & bit) and prev[n] == -2:
                        prev[n] = h
                        nxt.append(n)
            frontier = nxt
        if prev[goal] == -2:
            return None
        path = [goal]
        while path[-1] != start:
            path.append(int(prev[path[-1]]))
        return np.array(path[::-1], dtype=np.int64)

    def board_names(self) -> list[str]:
        return [b for row in self.layout for b in row]

    def sole_board_hexes(self, board: str) -> np.ndarray:
        """Hexes of `board` alone: a half hex shared by two boards belongs to neither (PB-VIC-2)."""
        return np.array([i for i, bs in enumerate(self.boards_of) if bs == (board,)], dtype=np.int64)

    def edge_hexes(self, edge: str) -> np.ndarray:
        """Hexes on one edge of the assembled map ('north' is the top of the drawn map)."""
        nb = self.neighbours
        d = DIRECTION_INDEX
        if edge == "north":
            mask = nb[:, d["N"]] == NO_HEX
        elif edge == "south":
            mask = nb[:, d["S"]] == NO_HEX
        elif edge == "west":
            mask = (nb[:, d["NW"]] == NO_HEX) & (nb[:, d["SW"]] == NO_HEX)
        elif edge == "east":
            mask = (nb[:, d["NE"]] == NO_HEX) & (nb[:, d["SE"]] == NO_HEX)
        elif edge == "any":
            mask = (nb == NO_HEX).any(axis=1)
        else:
            raise ValueError(edge)
        return np.flatnonzero(mask)

    def fingerprint(self) -> str:
        """Hash of everything line of sight depends on (the cache key of the LOS table)."""
        h = hashlib.sha256()
        h.update(repr((self.hex_vocab, self.side_vocab)).encode())
        for arr in (self.col, self.row, self.elevation, self.hex_features, self.side_features):
            h.update(np.ascontiguousarray(arr).tobytes())
        return h.hexdigest()


def assemble(layout: list[list[tuple[Board, bool]]], hex_vocab: tuple[str, ...],
             side_vocab: tuple[str, ...]) -> GameMap:
    """Join boards into one map. `layout[picture_row][position] = (board, inverted)`."""
    _check_alone(layout)
    cells: dict[tuple[int, int], list[tuple[Placement, BoardHex]]] = {}
    for pr, row in enumerate(layout):
        for pos, (board, inverted) in enumerate(row):
            pl = Placement(board, inverted, pr, pos)
            for (c, r), bh in board.hexes.items():
                mc, mr, _ = pl.to_map(c, r)
                cells.setdefault((mc, mr), []).append((pl, bh))
    order = sorted(cells, key=lambda cr: (cr[0], cr[1]))
    n = len(order)
    col = np.array([c for c, _ in order], dtype=np.int64)
    row = np.array([r for _, r in order], dtype=np.int64)
    width, height = int(col.max()) + 1, int(row.max()) + 1
    index_of = np.full((width, height), NO_HEX, dtype=np.int32)
    index_of[col, row] = np.arange(n, dtype=np.int32)
    hbit = {f: 1 << i for i, f in enumerate(hex_vocab)}
    sbit = {f: 1 << i for i, f in enumerate(side_vocab)}
    n_positions = [len(r) for r in layout]
    centre = ((len(layout) - 1) / 2, (max(n_positions) - 1) / 2)

    labels, aliases, boards_of, cells_of = [], [], [], []
    elevation = np.zeros(n, dtype=np.int8)
    hex_features = np.zeros(n, dtype=np.uint32)
    side_features = np.zeros((n, N_DIRECTIONS), dtype=np.uint32)
    named: dict[str, set[int]] = {}
    for i, cr in enumerate(order):
        parts = cells[cr]
        # Naming only: a shared half hex takes the name of the board nearer the middle of the
        # layout (PB-VIC-2), the later board on a tie.
        parts_by_name = sorted(parts, key=lambda p: (
            abs(p[0].picture_row - centre[0]) + abs(p[0].position - centre[1]),
            -p[0].picture_row, -p[0].position))
        labels.append(parts_by_name[0][1].label)
        aliases.append(tuple(p[1].label for p in parts_by_name))
        cells_of.append(tuple((p[1].col, p[1].row + 1) for p in parts_by_name))
        boards_of.append(tuple(sorted({p[0].board.name for p in parts})))
        for pl, bh in parts:
            elevation[i] = max(elevation[i], bh.elevation)
            for f in bh.features:
                hex_features[i] |= hbit[f]
            for d_local in range(N_DIRECTIONS):
                # A side of a half hex belongs to the half whose own board continues beyond it;
                # sides cut in two (N/S of the short-edge halves) are the union of both halves.
                dc, dr = neighbour_offset(bh.col, d_local)
                if len(parts) > 1 and not pl.board.has_cell(bh.col + dc, bh.row + dr):
                    continue
                d_map = (d_local + 3) % 6 if pl.inverted else d_local
                for f in bh.sides.get(d_local, ()):
                    side_features[i, d_map] |= sbit[f]
        for pl, bh in parts:
            for name, hex_labels in pl.board.named.items():
                if bh.label in hex_labels:
                    named.setdefault(name, set()).add(i)
    neighbours = build_neighbours(col, row, index_of)
    layout_names = tuple(tuple(f"{b.name}{'i' if inv else ''}" for b, inv in r) for r in layout)
    return GameMap(layout_names, hex_vocab, side_vocab, col, row, labels, aliases, elevation,
                   hex_features, side_features, neighbours, boards_of,
                   {k: tuple(sorted(v)) for k, v in named.items()}, cells_of)


def _check_alone(layout: list[list[tuple[Board, bool]]]) -> None:
    """A board numbered with its odd columns up is a whole map (FPA, Hill of Death): its columns
    are shifted by one on the grid, which joining it to another board would not survive."""
    n = sum(len(row) for row in layout)
    for row in layout:
        for board, inverted in row:
            if board.odd_columns_up and (n > 1 or inverted):
                raise DataError(str(board.path), "extensions.*.odd_columns_up",
                                "a board numbered with its odd columns up is in a layout of "
                                f"{n} boards{' and inverted' if inverted else ''}",
                                "that board alone, not inverted (layout [[\"" + board.name + "\"]])")


def index_tables(game_map: GameMap) -> tuple[np.ndarray, int, int]:
    return axial_index(game_map.q, game_map.r)
