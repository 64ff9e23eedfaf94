"""First Panzer Army situation files (situations/first-panzer-army/*.toml): the board, the
start markers (FPA 3.1), each side's set-up by unit id and hex with its placement (3.2), the
German reinforcements by turn (10.1) and the special rules in words."""

from __future__ import annotations

from dataclasses import dataclass, field

from simulator.api import DocumentRules
from simulator.problems import known
from simulator.situation import CORE_KEYS, LoadContext, Situation

PLACEMENTS = ("exact", "in_or_adjacent")


@dataclass(frozen=True)
class SetupRow:
    unit: str
    hex: int
    placement: str     # "exact" | "in_or_adjacent" (FPA 3.2(3)-(4))
    src: str


@dataclass(frozen=True)
class Reinforcement:
    unit: str
    turn: int
    entry: str         # a board edge role ("german_entry")
    src: str


@dataclass(kw_only=True)
class FPASituation(Situation):
    first_player: str
    setup: dict[str, list[SetupRow]]                 # side -> rows
    reinforcements: dict[str, list[Reinforcement]]   # side -> rows
    soviet_control: tuple[int, ...]                  # hexes under Soviet control at the start (3.1)
    start_vp: int
    specials: tuple[str, ...] = field(default_factory=tuple)
    calendar: dict = field(default_factory=dict)


class FPASchema:
    keys = frozenset({*CORE_KEYS, "board", "first_player", "calendar", "start", "side", "special", "provenance"})
    required = ("board", "side")
    document = DocumentRules()

    def read(self, doc: dict, ctx: LoadContext) -> FPASituation | None:
        probs, rs = ctx.problems, ctx.ruleset
        if not known(doc.get("board"), rs.board_names()):
            probs.add("board", f"got {doc.get('board')!r}", f"one of {rs.board_names()}")
            return None
        game_map = rs.assemble([[doc["board"]]])
        sides = tuple(rs.sides)
        first = doc.get("first_player", sides[0])
        if not known(first, sides):
            probs.add("first_player", f"got {first!r}", f"one of {list(sides)}")
        units = rs.data["units"]
        edges = _board_extras(rs, doc["board"]).get("edges", {})

        def hex_of(label, fld: str) -> int | None:
            text = str(label).strip()
            if text not in game_map.index:
                probs.add(fld, f"got {label!r}", "a hex of the board, four digits (e.g. \"2119\")")
                return None
            return game_map.lookup(text)

        start = doc.get("start", {})
        if not probs.check_type(start, dict, "start", "a [start] table"):
            start = {}
        soviet_control = []
        for i, lab in enumerate(start.get("soviet_control", rs.data["victory"]["start_control"]["soviet"])):
            h = hex_of(lab, f"start.soviet_control[{i}]")
            if h is not None:
                soviet_control.append(h)
        start_vp = start.get("soviet_vp", rs.data["victory"]["start_vp"])
        if not isinstance(start_vp, int) or isinstance(start_vp, bool):
            probs.add("start.soviet_vp", f"got {start_vp!r}", "a whole number of victory points")
            start_vp = 0

        setup: dict[str, list[SetupRow]] = {s: [] for s in sides}
        reinf: dict[str, list[Reinforcement]] = {s: [] for s in sides}
        seen: set[str] = set()
        side_rows = doc.get("side")
        if not probs.check_type(side_rows, list, "side", "[[side]] tables, one a side"):
            return None
        for si, srow in enumerate(side_rows):
            fld = f"side[{si}]"
            if not probs.check_type(srow, dict, fld, "a table with name, setup and reinforcement"):
                continue
            probs.unknown_keys(srow, {"name", "setup", "reinforcement"}, fld)
            name = srow.get("name")
            if not known(name, sides):
                probs.add(f"{fld}.name", f"got {name!r}", f"one of {list(sides)}")
                continue
            for key in ("setup", "reinforcement"):
                for ri, row in enumerate(srow.get(key, [])):
                    rf = f"{fld}.{key}[{ri}]"
                    if not probs.check_type(row, dict, rf, "a table"):
                        continue
                    uid = row.get("unit")
                    if uid not in units:
                        probs.add(f"{rf}.unit", f"got {uid!r}", "a unit id of units.toml")
                        continue
                    if units[uid]["side"] != name:
                        probs.add(f"{rf}.unit", f"{uid} is a {units[uid]['side']} unit", f"a unit of side {name}")
                        continue
                    if uid in seen:
                        probs.add(f"{rf}.unit", f"{uid} appears twice", "each counter once")
                        continue
                    seen.add(uid)
                    if key == "setup":
                        probs.unknown_keys(row, {"unit", "hex", "placement", "src"}, rf)
                        h = hex_of(row.get("hex"), f"{rf}.hex")
                        placement = row.get("placement", "exact")
                        if placement not in PLACEMENTS:
                            probs.add(f"{rf}.placement", f"got {placement!r}", f"one of {list(PLACEMENTS)}")
                        elif h is not None:
                            setup[name].append(SetupRow(uid, h, placement, str(row.get("src", ""))))
                    else:
                        probs.unknown_keys(row, {"unit", "turn", "entry", "src"}, rf)
                        turn = row.get("turn")
                        if not isinstance(turn, int) or isinstance(turn, bool) or not 1 <= turn <= doc.get("turns", 8):
                            probs.add(f"{rf}.turn", f"got {turn!r}", "a game-turn of the situation")
                            continue
                        entry = row.get("entry", "german_entry")
                        if entry not in edges:
                            probs.add(f"{rf}.entry", f"got {entry!r}", f"one of the board's edges {sorted(edges)}")
                            continue
                        reinf[name].append(Reinforcement(uid, turn, entry, str(row.get("src", ""))))
        specials = tuple(str(s.get("rule", "")) + ": " + str(s.get("text", "")) for s in doc.get("special", [])
                         if isinstance(s, dict))
        if probs.items:
            return None
        return FPASituation(**ctx.core_fields(doc, sides, game_map), first_player=first, setup=setup,
                            reinforcements=reinf, soviet_control=tuple(soviet_control), start_vp=start_vp,
                            specials=specials, calendar=dict(doc.get("calendar", {})))


def _board_extras(rs, board: str) -> dict:
    """The board file's ruleset keys (edges, regions, places), which the core's loader skips."""
    import json

    path = rs.path / rs.data.get("boards_dir", "boards") / f"board-{board}.json"
    return json.loads(path.read_text())


SCHEMA = FPASchema()
