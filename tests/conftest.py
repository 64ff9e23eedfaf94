"""Shared test helpers: small hand-made boards and the built-in situations."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")

from simulator.hexgrid import DIRECTION_INDEX  # noqa: E402
from simulator.los import LineOfSight, compile_rules  # noqa: E402
from simulator.mapdata import Board, BoardHex, assemble  # noqa: E402
from simulator.ruleset import load_ruleset  # noqa: E402

LETTERS = tuple("ABCDEFG")


@pytest.fixture(scope="session")
def pb_ruleset():
    return load_ruleset("panzerblitz")


def make_board(ruleset, name="9", columns=7, rows_even=10, hexes=None, sides=None):
    """A small board: `hexes[(col, row)] = (elevation, {features})`, `sides[(col, row)] = {dir: {bars}}`.

    Rows are 0-based here.  Every hexside given is mirrored onto the neighbouring hex, as in
    the real board files.
    """
    from simulator.hexgrid import neighbour_offset

    hexes = hexes or {}
    sides = sides or {}
    cols = LETTERS[:columns]
    cells = {}
    for c in range(columns):
        for r in range(rows_even if c % 2 == 0 else rows_even + 1):
            elev, feats = hexes.get((c, r), (0, set()))
            cells[(c, r)] = [elev, set(feats), {}]
    for (c, r), by_dir in sides.items():
        for dname, feats in by_dir.items():
            d = DIRECTION_INDEX[dname]
            cells[(c, r)][2].setdefault(d, set()).update(feats)
            dc, dr = neighbour_offset(c, d)
            if (c + dc, r + dr) in cells:
                cells[(c + dc, r + dr)][2].setdefault((d + 3) % 6, set()).update(feats)
    board_hexes = {
        (c, r): BoardHex(f"{name}{cols[c]}{r + 1}", c, r, e, frozenset(f),
                         {d: frozenset(s) for d, s in sd.items()})
        for (c, r), (e, f, sd) in cells.items()
    }
    return Board(name, Path(f"<test board {name}>"), cols, rows_even, rows_even + 1, board_hexes, {})


def make_map(ruleset, **kw):
    board = make_board(ruleset, **kw)
    return assemble([[(board, False)]], ruleset.hex_vocab, ruleset.side_vocab)


def los_on(ruleset, game_map):
    rules = compile_rules(ruleset.data["los"], game_map, "test")
    return LineOfSight(game_map, rules)
