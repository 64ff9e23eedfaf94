"""Panzer Blitz v2.0 situation files (docs/panzerblitz-v2/situations.md#format), read and checked.

The classic shape (sides with force groups that set up in an area or enter on a turn, a victory
condition a side) plus the series rules' own fields: the play area (PB2-2.0, 3.1.2), each side's
efficiency rating (13.0), Ops chits per turn and chits entering later (2.4, 3.1.1), off-board
artillery groups (11.1-11.3.4) and artificial-terrain markers (15.x).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from simulator.api import DocumentRules
from simulator.areas import check_area, resolve_static_area
from simulator.problems import known
from simulator.situation import CORE_KEYS, LoadContext, Situation, check_layout

CHIT_RE = re.compile(r"^op([0-9])$")
MEASURES = ("hexes_controlled", "prevent_enemy")
# The classic cards' measures (a converted classic situation keeps its card's victory conditions,
# docs/panzerblitz-v2/conversion.md#victory), evaluated on the final state by victory.py.
CLASSIC_MEASURES = ("destroyed", "in_area", "ratio", "furthest_advance", "entered", "open_corridor", "line_of_fire",
                    "exited", "not_exited", "round_trip")
LEVEL_KEYS = ("marginal", "tactical", "decisive", "victory")   # "victory": a card with one level (pb-03, pb-11)
COMPARES = (">=", ">")
LEVEL_COMPARES = (">=", ">", "<=", "<", "==")
MEASURE_KEYS = {"measure", "whose", "weights", "units", "group", "area", "toward", "numerator", "denominator",
                "compare", "also", "threshold", "width", "between", "edge", "final_edge", "stay_off_turns", "return_leg",
                *LEVEL_KEYS}
ALSO_KEYS = {"rule", "level", "all"}
GOAL_KEYS = {"side", "area", "why"}
SIDE_KEYS = {"name", "efficiency", "chits", "chits_added", "markers", "group", "victory", "pre_registered"}
GROUP_KEYS = {"name", "units", "setup", "enter", "off_board", "air"}
AIR_KEYS = {"turn", "chits"}
ENTER_KEYS = {"turn", "hexes", "edge", "columns", "rows", "boards", "region"}
# Markers a side may be given by number (15.4); minefields, blocks and fortifications are counters
# with values (a minefield's strength, a fortification's DF and capacity) and go in a set-up group's
# `units`, placed by their owner in the group's set-up area (15.2.2, 15.3.1, 15.5.1).
MARKERS = ("improved_position",)


@dataclass
class Group:
    name: str
    units: dict[str, int]
    setup: np.ndarray | None = None      # hexes it sets up in
    enter_turn: int = 0                  # 0 = sets up; else the turn its reinforcement chit comes
    entry: np.ndarray | None = None      # hexes it may enter by (3.1.2.3)
    off_board: bool = False              # off-board artillery (11.1-11.3.4)
    air_turn: int = 0                    # aircraft (16.0): in play from this turn (0 = not an air group)
    air_chits: int = 0                   # Air Support chits it puts in the pool a turn (3.1.1, 3.1.2.2)
    markers: dict[str, int] = field(default_factory=dict)   # minefields, blocks, forts it places (15.2-15.5)


@dataclass
class Side:
    name: str
    efficiency: int
    chits: dict[int, int]                          # radius -> Ops chits every turn
    chits_added: dict[int, dict[int, int]]         # turn -> radius -> chits entering the pool then
    markers: dict[str, int]
    groups: list[Group]
    victory: dict
    objective: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # region hexes
    # 11.5: the hexes the side's artillery is registered on (its IF there is resolved at once, 11.5.1)
    pre_registered: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def chits_in_turn(self, turn: int) -> dict[int, int]:
        """Ops chits in the pool in `turn` (3.1.1: those entering earlier stay)."""
        out = dict(self.chits)
        for t, add in sorted(self.chits_added.items()):
            if t <= turn:
                for r, k in add.items():
                    out[r] = out.get(r, 0) + k
        return out


@dataclass(kw_only=True)
class PBV2Situation(Situation):
    sets_up_first: str
    play_area: np.ndarray       # bool[n_hexes]
    sides: list[Side]
    special: list = field(default_factory=list)
    date: str = ""
    # The ground the players steer by when no side states a hexes_controlled condition (a converted
    # classic card): the side going for it and its hexes (conversion.md#victory).
    goal_side: str = ""
    goal: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    # Areas of the classic measures (in_area), resolved at load: repr(area table) -> hexes.
    areas: dict = field(default_factory=dict)

    def classic_victory(self) -> bool:
        """The card's victory is one of the classic measures (victory.py), not PB2 3.2's."""
        return any(s.victory.get("measure") in CLASSIC_MEASURES for s in self.sides)

    def side(self, name: str) -> Side:
        return next(s for s in self.sides if s.name == name)


def _chits(value, probs, fld: str) -> dict[int, int]:
    out: dict[int, int] = {}
    if not probs.check_type(value, dict, fld, "a table like { op2 = 3 }"):
        return out
    for k, n in value.items():
        m = CHIT_RE.match(str(k))
        if not m:
            probs.add(f"{fld}.{k}", "unknown chit", "op0 ... op9 (Op chits by radius, PB2 2.4)")
        elif not isinstance(n, int) or isinstance(n, bool) or n < 0:
            probs.add(f"{fld}.{k}", f"got {n!r}", "a whole number of chits >= 0")
        else:
            out[int(m.group(1))] = n
    return out


class PBV2Schema:
    keys = frozenset({*CORE_KEYS, "date", "sets_up_first", "map", "side", "special", "provenance", "goal", "classic"})
    required = ("sets_up_first", "map", "side")
    document = DocumentRules(count_tables=frozenset({"units", "chits", "markers"}),
                             number_keys=frozenset({"victory", "efficiency"}))

    def read(self, doc: dict, ctx: LoadContext) -> PBV2Situation | None:
        probs, rs = ctx.problems, ctx.ruleset
        m = doc.get("map")
        game_map = check_layout(m, rs, probs, extra_keys={"play_area"})
        if game_map is None:
            return None
        play = np.ones(game_map.n_hexes, dtype=bool)
        if "play_area" in m and check_area(m["play_area"], game_map, rs, probs, "map.play_area"):
            play[:] = False
            play[resolve_static_area(m["play_area"], game_map, rs, ctx.where, "map.play_area")] = True
        units = rs.units
        sides: list[Side] = []
        raw_sides = doc.get("side")
        if not probs.check_type(raw_sides, list, "side", "[[side]] tables, one a side"):
            return None
        names = []
        areas: dict = {}
        for i, sd in enumerate(raw_sides):
            fld = f"side[{i}]"
            if not probs.check_type(sd, dict, fld, "a [[side]] table"):
                continue
            probs.unknown_keys(sd, SIDE_KEYS, fld)
            name = sd.get("name")
            if not known(name, rs.sides) or name in names:
                probs.add(f"{fld}.name", f"got {name!r}", f"one of {rs.sides}, each side once")
                continue
            names.append(name)
            eff = sd.get("efficiency")
            lo, hi = int(rs.data["efficiency"]["min_rating"]), int(rs.data["efficiency"]["max_rating"])
            if not isinstance(eff, int) or isinstance(eff, bool) or not lo <= eff <= hi:
                probs.add(f"{fld}.efficiency", f"got {eff!r}", f"an Efficiency Rating {lo}..{hi} (PB2 13.0)")
                eff = lo
            chits = _chits(sd.get("chits", {}), probs, f"{fld}.chits")
            added: dict[int, dict[int, int]] = {}
            for t, c in (sd.get("chits_added") or {}).items():
                if not str(t).isdigit() or not 1 <= int(t) <= int(doc.get("turns", 1) or 1):
                    probs.add(f"{fld}.chits_added.{t}", "not a turn of the situation", "a turn number in quotes, e.g. \"4\"")
                    continue
                added[int(t)] = _chits(c, probs, f"{fld}.chits_added.{t}")
            markers = sd.get("markers", {}) or {}
            if probs.check_type(markers, dict, f"{fld}.markers", "a table like { improved_position = 4 }"):
                for k, n in markers.items():
                    if k not in MARKERS:
                        probs.add(f"{fld}.markers.{k}", "unknown marker", f"one of {list(MARKERS)}")
                    elif not isinstance(n, int) or isinstance(n, bool) or n < 0:
                        probs.add(f"{fld}.markers.{k}", f"got {n!r}", "a whole number >= 0")
            groups = []
            for j, g in enumerate(sd.get("group") or []):
                gf = f"{fld}.group[{j}]"
                if not probs.check_type(g, dict, gf, "a [[side.group]] table"):
                    continue
                probs.unknown_keys(g, GROUP_KEYS, gf)
                gu = g.get("units")
                if not probs.check_type(gu, dict, f"{gf}.units", "a table unit id -> count"):
                    continue
                for uid, n in gu.items():
                    if uid not in units:
                        probs.add(f"{gf}.units.{uid}", "unknown unit", _a_unit_of(rs))
                    elif units[uid].get("kind") == "marker":
                        if "setup" not in g:
                            probs.add(f"{gf}.units.{uid}", "a marker in a group that does not set up",
                                      "minefields, blocks and fortifications in a group with a setup area (15.2.2, 15.3.1, 15.5.1)")
                    elif (units[uid].get("kind") == "aircraft") != ("air" in g):
                        probs.add(f"{gf}.units.{uid}", "an aircraft outside an air group, or a ground unit in one",
                                  "aircraft (units-air.toml) only in a group with `air = { turn, chits }` (PB2 16.0)")
                    elif units[uid].get("side") not in (name, "any"):
                        probs.add(f"{gf}.units.{uid}", f"a {units[uid].get('side')} unit", f"a {name} unit")
                    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                        probs.add(f"{gf}.units.{uid}", f"got {n!r}", "a whole number >= 0")
                counts = {k: v for k, v in gu.items() if isinstance(v, int) and v > 0}
                grp = Group(str(g.get("name", f"group {j + 1}")),
                            {k: v for k, v in counts.items() if units.get(k, {}).get("kind") != "marker"},
                            markers={k: v for k, v in counts.items() if units.get(k, {}).get("kind") == "marker"})
                if "air" in g:
                    _air_group(g["air"], grp, doc, probs, f"{gf}.air")
                elif g.get("off_board") is True:
                    grp.off_board = True
                elif "setup" in g:
                    if check_area(g["setup"], game_map, rs, probs, f"{gf}.setup"):
                        grp.setup = np.intersect1d(resolve_static_area(g["setup"], game_map, rs, ctx.where, gf),
                                                   np.flatnonzero(play))
                        if grp.setup.size == 0:
                            probs.add(f"{gf}.setup", "no hex of the play area", "a set-up area inside map.play_area")
                elif "enter" in g:
                    e = g["enter"]
                    if probs.check_type(e, dict, f"{gf}.enter", "a table { turn, hexes | edge (+ columns, rows) }"):
                        probs.unknown_keys(e, ENTER_KEYS, f"{gf}.enter")
                        t = e.get("turn")
                        if not isinstance(t, int) or isinstance(t, bool) or not 1 <= t <= int(doc.get("turns", 1) or 1):
                            probs.add(f"{gf}.enter.turn", f"got {t!r}", "a turn of the situation")
                        else:
                            grp.enter_turn = t
                        area = {k: v for k, v in e.items() if k != "turn"}
                        if check_area(area, game_map, rs, probs, f"{gf}.enter"):
                            if "edge" in area:
                                # The edge of the play area (situations.md#format), within the
                                # other filters (columns, rows).
                                hexes = _play_edge(game_map, play, area["edge"])
                                rest = {k: v for k, v in area.items() if k != "edge"}
                                if rest:
                                    hexes = np.intersect1d(hexes, resolve_static_area(rest, game_map, rs, ctx.where, gf))
                            else:
                                hexes = resolve_static_area(area, game_map, rs, ctx.where, gf)
                            grp.entry = np.intersect1d(hexes, np.flatnonzero(play))
                            if grp.entry.size == 0:
                                probs.add(f"{gf}.enter", "no hex of the play area", "entry hexes inside map.play_area")
                else:
                    probs.add(gf, "no setup, enter or off_board", "one of them")
                groups.append(grp)
            vic = sd.get("victory")
            side = Side(name, eff, chits, added, dict(markers) if isinstance(markers, dict) else {}, groups,
                        vic if isinstance(vic, dict) else {},
                        pre_registered=_pre_registered(sd.get("pre_registered", []), game_map, play, probs,
                                                       f"{fld}.pre_registered"))
            if not probs.check_type(vic, dict, f"{fld}.victory", "a [side.victory] table"):
                sides.append(side)
                continue
            if vic.get("measure") in CLASSIC_MEASURES:
                _classic_measure(vic, game_map, rs, ctx, f"{fld}.victory", areas, top=True)
            elif vic.get("measure") not in MEASURES:
                probs.add(f"{fld}.victory.measure", f"got {vic.get('measure')!r}",
                          f"one of {list(MEASURES + CLASSIC_MEASURES)}")
            elif vic["measure"] == "hexes_controlled":
                region = vic.get("region")
                if not known(region, game_map.named):
                    probs.add(f"{fld}.victory.region", f"got {region!r}", f"a named region of the board: {sorted(game_map.named)}")
                else:
                    side.objective = np.array(sorted(game_map.named[region]), dtype=np.int64)
                if vic.get("compare", ">=") not in COMPARES:
                    probs.add(f"{fld}.victory.compare", f"got {vic.get('compare')!r}", f"one of {list(COMPARES)}")
                v = vic.get("victory")
                if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                    probs.add(f"{fld}.victory.victory", f"got {v!r}", "a whole number of hexes")
            sides.append(side)
        if len(sides) != 2:
            probs.add("side", f"{len(sides)} sides", "two [[side]] tables")
            return None
        stated = [s for s in sides if s.victory.get("measure") == "hexes_controlled"]
        classic = any(s.victory.get("measure") in CLASSIC_MEASURES for s in sides)
        goal_side, goal = "", np.zeros(0, dtype=np.int64)
        if classic:
            if stated:
                probs.add("side.victory", "hexes_controlled with a classic measure",
                          "either PB2 3.2 (hexes_controlled against prevent_enemy) or the classic measures")
            g = doc.get("goal")
            if probs.check_type(g, dict, "goal", "a [goal] table { side, area } (the ground the players steer by)"):
                probs.unknown_keys(g, GOAL_KEYS, "goal")
                if not known(g.get("side"), names):
                    probs.add("goal.side", f"got {g.get('side')!r}", f"one of {names}")
                else:
                    goal_side = g["side"]
                if check_area(g.get("area"), game_map, rs, probs, "goal.area"):
                    goal = np.intersect1d(resolve_static_area(g["area"], game_map, rs, ctx.where, "goal.area"),
                                          np.flatnonzero(play))
                    if goal.size == 0:
                        probs.add("goal.area", "no hex of the play area", "goal hexes inside map.play_area")
        elif len(stated) != 1:
            probs.add("side.victory", f"{len(stated)} sides state a condition",
                      "one side with hexes_controlled, the other prevent_enemy (PB2 3.2)")
        if not known(doc.get("sets_up_first"), names):
            probs.add("sets_up_first", f"got {doc.get('sets_up_first')!r}", f"one of {names}")
        if probs.items:
            return None
        # Sides in the ruleset's order (tables and players use it).
        sides.sort(key=lambda s: rs.sides.index(s.name))
        return PBV2Situation(**ctx.core_fields(doc, tuple(s.name for s in sides), game_map),
                             sets_up_first=doc["sets_up_first"], play_area=play, sides=sides,
                             special=list(doc.get("special", [])), date=str(doc.get("date", "")),
                             goal_side=goal_side, goal=goal, areas=areas)


def _pre_registered(value, game_map, play, probs, fld: str) -> np.ndarray:
    """PB2-11.5: the side's pre-registered hexes, a list of hex labels of the play area (11.5.2: by
    the situation's notes; the card names them, rules-digest PB2-OQ-92)."""
    out: list[int] = []
    if not probs.check_type(value, list, fld, 'a list of hex labels, e.g. ["1212", "1813"] (PB2 11.5)'):
        return np.zeros(0, dtype=np.int64)
    for k, label in enumerate(value):
        h = game_map.index.get(str(label).strip().upper()) if isinstance(label, str) else None
        if h is None or not play[h]:
            probs.add(f"{fld}[{k}]", f"got {label!r}", "a hex label of the play area (map.play_area)")
        elif h not in out:
            out.append(int(h))
    return np.array(sorted(out), dtype=np.int64)


def _air_group(a, grp: Group, doc: dict, probs, fld: str) -> None:
    """An air group (PB2 16.0, 3.1.1): its aircraft are in play from `turn`; each turn from then,
    while one of them is, it puts `chits` Air Support chits in the pool (0: none of its own)."""
    if not probs.check_type(a, dict, fld, "a table { turn = 1, chits = 1 }"):
        return
    probs.unknown_keys(a, AIR_KEYS, fld)
    t, c = a.get("turn", 1), a.get("chits", 1)
    if not isinstance(t, int) or isinstance(t, bool) or not 1 <= t <= int(doc.get("turns", 1) or 1):
        probs.add(f"{fld}.turn", f"got {t!r}", "a turn of the situation (the aircraft are in play from it)")
    elif not isinstance(c, int) or isinstance(c, bool) or c < 0:
        # 0 (round 8): a group that brings no chit of its own, its aircraft flying in the air
        # operations of the side's other groups' chits (an observation aircraft, 16.2)
        probs.add(f"{fld}.chits", f"got {c!r}", "a whole number of Air Support chits a turn >= 0 (PB2 3.1.1)")
    else:
        grp.air_turn, grp.air_chits = t, c


def _a_unit_of(rs) -> str:
    """What an unknown unit id was expected to be: one of the ruleset's unit files (ruleset.toml
    `unit_files`, so a file added there, as units-air.toml was, is named too)."""
    files = list(rs.data.get("unit_files", [])) or ["the ruleset's units"]
    if len(files) == 1:
        return f"a unit of {files[0]}"
    return f"a unit of {', '.join(files[:-1])} or {files[-1]}"


def _classic_measure(v, game_map, rs, ctx, fld: str, areas: dict, top: bool) -> None:
    """Check one classic measure (victory.py) and resolve its area; `top`: it carries the levels."""
    probs = ctx.problems
    if not probs.check_type(v, dict, fld, "a measure table { measure, whose, ... }"):
        return
    probs.unknown_keys(v, MEASURE_KEYS, fld)
    kind = v.get("measure")
    if kind not in CLASSIC_MEASURES:
        probs.add(f"{fld}.measure", f"got {kind!r}", f"one of {list(CLASSIC_MEASURES)}")
        return
    if v.get("whose", "own") not in ("own", "enemy"):
        probs.add(f"{fld}.whose", f"got {v.get('whose')!r}", "own or enemy")
    for uid in list(v.get("weights", {})) + list(v.get("units", [])):
        if uid not in rs.units:
            probs.add(f"{fld}.weights", f"unknown unit {uid!r}", _a_unit_of(rs))
    if kind in ("in_area", "entered") and check_area(v.get("area"), game_map, rs, probs, f"{fld}.area"):
        areas[repr(sorted(v["area"].items()))] = resolve_static_area(v["area"], game_map, rs, ctx.where, f"{fld}.area")
    if kind in ("exited", "not_exited", "round_trip") and v.get("edge") not in ("north", "south", "east", "west"):
        probs.add(f"{fld}.edge", f"got {v.get('edge')!r}", "north, south, east or west (the edge units leave by)")
    if kind == "round_trip":
        # PB-SIT-5 (exits.py): out by `edge`, off `stay_off_turns` turns, back, out by `final_edge`
        if v.get("return_leg", True) is not True and v.get("return_leg") is not False:
            probs.add(f"{fld}.return_leg", f"got {v.get('return_leg')!r}", "true or false")
        if v.get("return_leg", True) and (v.get("final_edge") not in ("north", "south", "east", "west")
                                          or v.get("final_edge") == v.get("edge")):
            probs.add(f"{fld}.final_edge", f"got {v.get('final_edge')!r}",
                      "north, south, east or west, not the outward `edge` (the edge a returned unit leaves by)")
        if not isinstance(v.get("stay_off_turns", 0), int) or v.get("stay_off_turns", 0) < 0:
            probs.add(f"{fld}.stay_off_turns", f"got {v.get('stay_off_turns')!r}", "whole turns off the map, >= 0")
    if kind in ("open_corridor", "line_of_fire"):
        b = v.get("between")
        if not (isinstance(b, list) and len(b) == 2 and all(x in ("north", "south", "east", "west") for x in b)):
            probs.add(f"{fld}.between", f"got {b!r}", "two edges, e.g. [\"west\", \"east\"]")
        if kind == "open_corridor" and (not isinstance(v.get("width"), int) or v["width"] < 1):
            probs.add(f"{fld}.width", f"got {v.get('width')!r}", "a corridor width in hexes >= 1")
    if kind == "furthest_advance" and v.get("toward") not in ("north", "south", "east", "west"):
        probs.add(f"{fld}.toward", f"got {v.get('toward')!r}", "north, south, east or west")
    if kind == "ratio":
        for part in ("numerator", "denominator"):
            _classic_measure(v.get(part), game_map, rs, ctx, f"{fld}.{part}", areas, top=False)
    if not top:
        return
    for i, alt in enumerate(v.get("also", []) or []):
        # a card's special victory alternative: a level reached when every condition holds
        af = f"{fld}.also[{i}]"
        if not probs.check_type(alt, dict, af, "a table { rule, level, all = [conditions] }"):
            continue
        probs.unknown_keys(alt, ALSO_KEYS, af)
        if alt.get("level") not in LEVEL_KEYS:
            probs.add(f"{af}.level", f"got {alt.get('level')!r}", f"one of {list(LEVEL_KEYS)}")
        conds = alt.get("all")
        if not isinstance(conds, list) or not conds:
            probs.add(f"{af}.all", f"got {conds!r}", "a list of measures with compare and threshold")
            continue
        for j, c in enumerate(conds):
            _classic_measure(c, game_map, rs, ctx, f"{af}.all[{j}]", areas, top=False)
            if isinstance(c, dict) and (c.get("compare", ">=") not in LEVEL_COMPARES
                                        or not isinstance(c.get("threshold"), (int, float))):
                probs.add(f"{af}.all[{j}]", "no compare/threshold", f"compare one of {list(LEVEL_COMPARES)} and a threshold")
    if v.get("compare", ">=") not in LEVEL_COMPARES:
        probs.add(f"{fld}.compare", f"got {v.get('compare')!r}", f"one of {list(LEVEL_COMPARES)}")
    if not any(k in v for k in LEVEL_KEYS):
        probs.add(fld, "no level", f"at least one of {list(LEVEL_KEYS)}")
    for k in LEVEL_KEYS:
        lv = v.get(k)
        if lv is None:
            continue
        th = lv.get("threshold") if isinstance(lv, dict) else lv
        if not isinstance(th, (int, float)) or isinstance(th, bool):
            probs.add(f"{fld}.{k}", f"got {lv!r}", "a number or { threshold, compare }")


def _play_edge(game_map, play: np.ndarray, edge: str) -> np.ndarray:
    """Hexes of the play area on its `edge` side: a neighbour on that side is off the play area."""
    from simulator.hexgrid import DIRECTION_INDEX, NO_HEX

    if edge == "any":      # a classic card's "any edge" (conversion.md#classic-cards)
        return np.unique(np.concatenate([_play_edge(game_map, play, e) for e in ("north", "south", "east", "west")]))
    dirs = {"north": ("N",), "south": ("S",), "west": ("NW", "SW"), "east": ("NE", "SE")}[edge]
    nb = game_map.neighbours
    out = [h for h in np.flatnonzero(play)
           if all(nb[h, DIRECTION_INDEX[x]] == NO_HEX or not play[nb[h, DIRECTION_INDEX[x]]] for x in dirs)]
    return np.array(out, dtype=np.int64)


SCHEMA = PBV2Schema()
