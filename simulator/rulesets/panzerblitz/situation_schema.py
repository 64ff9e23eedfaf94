"""PanzerBlitz situation files: their keys, their checks and what a loaded one holds.

The reference is docs/situation-format.md.  The core reads a situation's id, title, ruleset,
turns, source and overrides (simulator/situation.py); everything else is checked here: the map
layout, the sides with their groups (set-up and entry areas, road marches), the victory
conditions in PanzerBlitz's vocabulary of measures and levels, the stacking limit of fixed
set-ups and special rules.  Last, the rules themselves say whether every group can set up
(setup_capacity.py) and whether a road-march column fits its road.  Nothing here imports the
rules kernels, so `balance validate` stays quick.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simulator.api import DocumentRules
from simulator.areas import AREA_KEYS as STATIC_AREA_KEYS
from simulator.areas import check_area as check_static_area
from simulator.areas import resolve_static_area
from simulator.mapdata import EDGES, GameMap
from simulator.problems import Problems, known, suggest
from simulator.ruleset import RulesetData
from simulator.rulesets.panzerblitz.stacking import stack_count, stacking_limit
from simulator.situation import CORE_KEYS, LoadContext, Situation, check_layout

TOP_KEYS = {*CORE_KEYS, "sets_up_first", "moves_first", "map", "side", "special", "notes"}
REQUIRED = ("sets_up_first", "moves_first", "map", "side")
GROUP_KEYS = {"name", "units", "setup", "enter"}
# Set-up next to other units: constraints on where units are, resolved at set-up (game.py).
UNIT_AREA_KEYS = {"with_unit", "min_distance_from_unit"}
AREA_KEYS = STATIC_AREA_KEYS | UNIT_AREA_KEYS
ENTRY_KEYS = {"turn", "road_march", "column"}
LEVELS = ("marginal", "tactical", "decisive", "victory")
COMPARES = (">=", "<=", ">", "<", "==")
# The victory vocabulary: measure -> (required keys, optional keys).
MEASURES = {
    "destroyed": ({"whose"}, {"units", "weights", "group"}),
    "in_area": ({"whose", "area"}, {"units", "weights", "group"}),
    "exited": ({"whose", "edge"}, {"units", "weights", "stay_off_turns", "group"}),
    "not_exited": ({"whose", "edge"}, {"units", "weights", "group"}),
    "round_trip": ({"whose", "edge", "final_edge"}, {"units", "weights", "stay_off_turns", "group", "return_leg"}),
    "entered": ({"whose", "area"}, set()),
    "hexes_controlled": ({"whose", "hexes"}, set()),
    "furthest_advance": ({"whose", "toward"}, {"units"}),
    "line_of_fire": ({"whose", "between"}, set()),
    "open_corridor": ({"whose", "between", "width"}, set()),
    "prevent_enemy": (set(), set()),
    "ratio": ({"numerator", "denominator"}, set()),
}
WHOSE = ("own", "enemy")

# `--set situation.*`: unit counts may be added (0 removes a type), areas may gain a filter,
# victory thresholds take fractional numbers.
DOCUMENT_RULES = DocumentRules(
    count_tables=frozenset({"units"}),
    open_tables={k: tuple(sorted(AREA_KEYS | ENTRY_KEYS)) for k in ("setup", "enter", "area")},
    number_keys=frozenset({*LEVELS, "threshold"}),
)


@dataclass
class Group:
    name: str
    units: dict[str, int]
    entering: bool
    area: dict
    hexes: np.ndarray  # static resolution of the area (dynamic constraints apply at set-up)
    turn: int = 0
    road_march: dict | None = None
    column: bool = False
    # PB-SIT-7: the road a road-march group follows, entry hex first, toward-hex last.
    road_path: np.ndarray | None = None


@dataclass
class Side:
    name: str
    groups: list[Group]
    victory: dict

    def unit_totals(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for g in self.groups:
            for u, c in g.units.items():
                out[u] = out.get(u, 0) + c
        return out


@dataclass(kw_only=True)
class PanzerBlitzSituation(Situation):
    """A PanzerBlitz situation: the core's fields and the card's."""

    sets_up_first: str
    moves_first: str
    layout: list[list[str]]
    sides: list[Side]           # in the file's order (`side_names` is the ruleset's)
    special: list[dict] = field(default_factory=list)

    def side(self, name: str) -> Side:
        return next(s for s in self.sides if s.name == name)

    def objective_hexes(self) -> dict[str, np.ndarray]:
        """Hexes each side's victory conditions name (for drawing), by side."""
        out = {}
        for s in self.sides:
            found: set[int] = set()
            _collect_victory_hexes(s.victory, self.map, self.ruleset, found)
            out[s.name] = np.array(sorted(found), dtype=np.int64)
        return out



def _collect_victory_hexes(measure: dict, game_map: GameMap, ruleset: RulesetData, found: set[int]) -> None:
    if "area" in measure and isinstance(measure["area"], dict):
        found.update(int(i) for i in resolve_static_area(measure["area"], game_map, ruleset, "", ""))
    if "hexes" in measure and isinstance(measure["hexes"], list):
        found.update(game_map.lookup(h) for h in measure["hexes"])
    for key in ("numerator", "denominator"):
        if isinstance(measure.get(key), dict):
            _collect_victory_hexes(measure[key], game_map, ruleset, found)



# ------------------------------------------------------------------------- areas

def check_area(area, game_map: GameMap, ruleset: RulesetData, probs: Problems, fld: str,
               allowed: set[str] = AREA_KEYS) -> bool:
    """The core's area checks (simulator/areas.py), and the set-up constraints that name a unit
    type: `with_unit` (stacked with one) and `min_distance_from_unit`."""
    if not isinstance(area, dict):
        return check_static_area(area, game_map, ruleset, probs, fld, allowed, ("with_unit",))
    n0 = len(probs.items)
    check_static_area(area, game_map, ruleset, probs, fld, allowed, ("with_unit",))
    if "with_unit" in area and not known(area["with_unit"], ruleset.units):
        probs.add(f"{fld}.with_unit", f"unknown unit type {area['with_unit']!r}", suggest(str(area["with_unit"]), ruleset.units, "unit type"))
    if "min_distance_from_unit" in area:
        md = area["min_distance_from_unit"]
        if not isinstance(md, dict) or set(md) != {"unit", "hexes"}:
            probs.add(f"{fld}.min_distance_from_unit", f"got {md!r}", "a table { unit = \"command-post\", hexes = 3 }")
        else:
            if not known(md["unit"], ruleset.units):
                probs.add(f"{fld}.min_distance_from_unit.unit", f"unknown unit type {md['unit']!r}", suggest(str(md["unit"]), ruleset.units, "unit type"))
            if not isinstance(md["hexes"], int) or isinstance(md["hexes"], bool) or md["hexes"] < 0:
                probs.add(f"{fld}.min_distance_from_unit.hexes", f"got {md['hexes']!r}", "a whole number of hexes >= 0")
    return len(probs.items) == n0


# ------------------------------------------------------------------------- victory

def check_measure(m, game_map: GameMap, ruleset: RulesetData, probs: Problems, fld: str, top: bool) -> None:
    if not probs.check_type(m, dict, fld, "a table with a `measure`"):
        return
    kind = m.get("measure")
    if not known(kind, MEASURES):
        probs.add(f"{fld}.measure", f"got {kind!r}", f"one of {sorted(MEASURES)}")
        return
    required, optional = MEASURES[kind]
    allowed = {"measure"} | required | optional
    if top:
        allowed |= {"compare", "also", *LEVELS}
    probs.unknown_keys(m, allowed, fld)
    for k in sorted(required - set(m)):
        probs.add(f"{fld}.{k}", "missing", f"required for measure {kind!r}")
    if "whose" in m and m["whose"] not in WHOSE:
        probs.add(f"{fld}.whose", f"got {m['whose']!r}", f"one of {list(WHOSE)}")
    if "area" in m:
        check_area(m["area"], game_map, ruleset, probs, f"{fld}.area",
                   AREA_KEYS - {"with_unit", "min_distance_from_unit"})
    if "hexes" in m:
        check_area({"hexes": m["hexes"]}, game_map, ruleset, probs, fld)
    for key in ("edge", "toward", "final_edge"):
        if key in m and m[key] not in EDGES:
            probs.add(f"{fld}.{key}", f"got {m[key]!r}", f"one of {list(EDGES)}")
    if kind == "round_trip":
        if m.get("final_edge") is not None and m.get("final_edge") == m.get("edge"):
            probs.add(f"{fld}.final_edge", f"got {m['final_edge']!r}, the same as `edge`",
                      "the edge the units finally leave by, another than the one they go out by")
        if "return_leg" in m and not isinstance(m["return_leg"], bool):
            probs.add(f"{fld}.return_leg", f"got {m['return_leg']!r}", "true or false")
        if m.get("whose") == "enemy":
            probs.add(f"{fld}.whose", "got 'enemy'", "'own': a side's round trips are scored for it")
    if "between" in m and (not isinstance(m["between"], list) or len(m["between"]) != 2
                           or any(e not in EDGES for e in m["between"])):
        probs.add(f"{fld}.between", f"got {m['between']!r}", f"two map edges from {list(EDGES)}")
    for key in ("width", "stay_off_turns"):
        if key in m and (not isinstance(m[key], int) or isinstance(m[key], bool) or m[key] < 0):
            probs.add(f"{fld}.{key}", f"got {m[key]!r}", "a whole number >= 0")
    if "units" in m:
        if probs.check_type(m["units"], list, f"{fld}.units", "a list of unit types"):
            for u in m["units"]:
                if not known(u, ruleset.units):
                    probs.add(f"{fld}.units", f"unknown unit type {u!r}", suggest(str(u), ruleset.units, "unit type"))
    if "weights" in m and probs.check_type(m["weights"], dict, f"{fld}.weights", "a table unit type -> points"):
        for u, w in m["weights"].items():
            if not known(u, ruleset.units):
                probs.add(f"{fld}.weights.{u}", "unknown unit type", suggest(u, ruleset.units, "unit type"))
            if not isinstance(w, int | float) or isinstance(w, bool):
                probs.add(f"{fld}.weights.{u}", f"got {w!r}", "a number of points")
    for key in ("numerator", "denominator"):
        if key in m:
            check_measure(m[key], game_map, ruleset, probs, f"{fld}.{key}", top=False)


def check_victory(v, game_map: GameMap, ruleset: RulesetData, probs: Problems, fld: str) -> None:
    check_measure(v, game_map, ruleset, probs, fld, top=True)
    if not isinstance(v, dict):
        return
    _check_also(v.get("also", []), game_map, ruleset, probs, f"{fld}.also")
    compare = v.get("compare", ">=")
    if compare not in COMPARES:
        probs.add(f"{fld}.compare", f"got {compare!r}", f"one of {list(COMPARES)}")
    levels = [lv for lv in LEVELS if lv in v]
    if not levels:
        probs.add(fld, "no victory level given", f"at least one of {list(LEVELS)} with its threshold")
    values = []
    for lv in levels:
        t = v[lv]
        if isinstance(t, dict):
            probs.unknown_keys(t, {"threshold", "compare"}, f"{fld}.{lv}")
            if t.get("compare", compare) not in COMPARES:
                probs.add(f"{fld}.{lv}.compare", f"got {t.get('compare')!r}", f"one of {list(COMPARES)}")
            t = t.get("threshold")
        if not isinstance(t, int | float) or isinstance(t, bool):
            probs.add(f"{fld}.{lv}", f"got {t!r}", "a number (the threshold) or { threshold = N, compare = \">\" }")
        else:
            values.append(t)
    if len(values) == len(levels) and len(values) > 1 and compare in COMPARES:
        ordered = sorted(values) if compare in (">=", ">") else sorted(values, reverse=True)
        if values != ordered:
            probs.add(fld, f"levels {dict(zip(levels, values, strict=True))} are out of order",
                      "each higher level to be harder to reach than the one below it")


def _check_also(also, game_map: GameMap, ruleset: RulesetData, probs: Problems, fld: str) -> None:
    """`[[side.victory.also]]`: another way to reach a level, when every condition of `all`
    holds (a card's special rule, such as PB-SIT-10's)."""
    if not probs.check_type(also, list, fld, "a list of [[side.victory.also]] tables"):
        return
    for i, alt in enumerate(also):
        f = f"{fld}[{i}]"
        if not probs.check_type(alt, dict, f, "a table with level and all"):
            continue
        probs.unknown_keys(alt, {"level", "all", "rule", "text"}, f)
        if alt.get("level") not in LEVELS:
            probs.add(f"{f}.level", f"got {alt.get('level')!r}", f"one of {list(LEVELS)}")
        conds = alt.get("all")
        if not isinstance(conds, list) or not conds:
            probs.add(f"{f}.all", f"got {conds!r}", "a list of conditions { measure = ..., compare = ..., threshold = N }")
            continue
        for k, c in enumerate(conds):
            cf = f"{f}.all[{k}]"
            if not probs.check_type(c, dict, cf, "a measure with compare and threshold"):
                continue
            check_measure({x: y for x, y in c.items() if x not in ("compare", "threshold")}, game_map, ruleset,
                          probs, cf, top=False)
            if c.get("compare", ">=") not in COMPARES:
                probs.add(f"{cf}.compare", f"got {c.get('compare')!r}", f"one of {list(COMPARES)}")
            if not isinstance(c.get("threshold"), int | float) or isinstance(c.get("threshold"), bool):
                probs.add(f"{cf}.threshold", f"got {c.get('threshold')!r}", "a number")


def victory_measures(v) -> list[dict]:
    """Every measure table inside a victory condition (ratios' parts, `also` conditions)."""
    if not isinstance(v, dict):
        return []
    out = [v]
    for key in ("numerator", "denominator"):
        out += victory_measures(v.get(key))
    for alt in v.get("also", []) if isinstance(v.get("also"), list) else []:
        for c in alt.get("all", []) if isinstance(alt, dict) and isinstance(alt.get("all"), list) else []:
            out += victory_measures(c)
    return out


def _check_group_names(sides: list[Side], probs: Problems) -> None:
    """A measure's `group` names a group of the side whose units it counts."""
    for si, s in enumerate(sides):
        for m in victory_measures(s.victory):
            if "group" not in m:
                continue
            whose = s if m.get("whose", "own") == "own" or len(sides) != 2 else sides[1 - si]
            names = [g.name for g in whose.groups]
            if m["group"] not in names:
                probs.add(f"side[{s.name}].victory", f"group {m['group']!r} is not a group of the {whose.name} side",
                          f"one of {names}")



# ------------------------------------------------------------------------- loading

class PanzerBlitzSchema:
    """The situation format of docs/situation-format.md (simulator.api.SituationSchema)."""

    keys = frozenset(TOP_KEYS)
    required = REQUIRED
    document = DOCUMENT_RULES

    def read(self, doc: dict, ctx: LoadContext) -> PanzerBlitzSituation | None:
        probs, ruleset = ctx.problems, ctx.ruleset
        for key in ("sets_up_first", "moves_first"):
            if key in doc and doc[key] not in ruleset.sides:
                probs.add(key, f"got {doc[key]!r}", f"one of {ruleset.sides}")
        game_map = check_layout(doc.get("map"), ruleset, probs)
        if game_map is None:
            return None
        sides = _check_sides(doc.get("side"), doc, game_map, ruleset, probs)
        special = doc.get("special", [])
        if probs.check_type(special, list, "special", "a list of [[special]] tables"):
            for i, sr in enumerate(special):
                if probs.check_type(sr, dict, f"special[{i}]", "a table with rule and text"):
                    probs.unknown_keys(sr, {"rule", "text", "params"}, f"special[{i}]")
                    for k in ("rule", "text"):
                        if not isinstance(sr.get(k), str):
                            probs.add(f"special[{i}].{k}", "missing or not a string", "a string")
        if probs.items:
            return None
        sit = PanzerBlitzSituation(
            **ctx.core_fields(doc, tuple(ruleset.sides), game_map),
            sets_up_first=doc["sets_up_first"], moves_first=doc["moves_first"],
            layout=doc["map"]["layout"], sides=sides, special=special,
        )
        # What only the rules can tell: set-up areas too small for their units, say.
        from simulator.rulesets.panzerblitz.setup_capacity import check_situation

        for e in check_situation(sit):
            probs.add(e.field, e.problem, e.expected)
        return sit


SCHEMA = PanzerBlitzSchema()


def _check_sides(sides_doc, doc, game_map: GameMap, ruleset: RulesetData, probs: Problems) -> list[Side]:
    if not probs.check_type(sides_doc, list, "side", "[[side]] tables, one per side"):
        return []
    names = [s.get("name") for s in sides_doc if isinstance(s, dict)]
    if sorted(map(str, names)) != sorted(ruleset.sides):
        probs.add("side", f"sides {names}", f"exactly one [[side]] for each of {ruleset.sides}")
    # Entry turns are checked against a valid turn count only: with `turns` itself wrong, its
    # own error is the one to read (not "expected the game-turn of entry, 1..-3").
    turns = doc["turns"] if isinstance(doc.get("turns"), int) and not isinstance(doc["turns"], bool) \
        and doc["turns"] >= 1 else None
    out = []
    fixed_hex_load: dict[tuple[str, int], list[tuple[str, int]]] = {}
    for si, sdoc in enumerate(sides_doc):
        fld = f"side[{si}]"
        if not probs.check_type(sdoc, dict, fld, "a [[side]] table"):
            continue
        probs.unknown_keys(sdoc, {"name", "group", "victory"}, fld)
        side_name = sdoc.get("name", f"#{si}")
        # A name that is not one of the ruleset's sides has had its error above; naming fields by
        # it would only echo it ("side[:]", "a : unit type").
        fld = f"side[{side_name}]" if side_name in ruleset.sides else fld
        groups = []
        gdocs = sdoc.get("group", [])
        if not gdocs:
            probs.add(f"{fld}.group", "no forces", "at least one [[side.group]] with units")
        for gi, g in enumerate(gdocs if isinstance(gdocs, list) else []):
            grp = _check_group(g, f"{fld}.group[{gi}]", side_name, turns, game_map, ruleset, probs, fixed_hex_load)
            if grp:
                groups.append(grp)
        if "victory" not in sdoc:
            probs.add(f"{fld}.victory", "missing", "a [side.victory] table (docs/situation-format.md)")
        else:
            check_victory(sdoc["victory"], game_map, ruleset, probs, f"{fld}.victory")
        out.append(Side(side_name, groups, sdoc.get("victory", {})))
    _check_group_names(out, probs)
    # Fixed set-ups: everything placed on one named hex must fit the stacking limit (PB-STACK-1).
    for (side_name, h), loads in fixed_hex_load.items():
        total = sum(c for _, c in loads)
        if side_name in ruleset.sides and total > stacking_limit(ruleset, side_name):
            who = ", ".join(g for g, _ in loads)
            probs.add(f"side[{side_name}].group", f"fixed set-up puts {total} units on {game_map.labels[h]} ({who})",
                      f"at most {stacking_limit(ruleset, side_name)} {side_name} units per hex (PB-STACK-1)")
    return out


def _check_group(g, fld, side_name, turns, game_map, ruleset, probs, fixed_hex_load) -> Group | None:
    if not probs.check_type(g, dict, fld, "a [[side.group]] table"):
        return None
    probs.unknown_keys(g, GROUP_KEYS, fld)
    name = g.get("name")
    if not isinstance(name, str):
        probs.add(f"{fld}.name", "missing or not a string", "the group's name as on the card")
        name = fld
    units = g.get("units")
    good_units: dict[str, int] = {}
    if not isinstance(units, dict) or not units:
        probs.add(f"{fld}.units", f"got {units!r}"[:80], "a table unit type -> count, e.g. { \"t-34-c\" = 3 }")
    else:
        for u, c in units.items():
            if u not in ruleset.units:
                probs.add(f"{fld}.units.{u}", "unknown unit type", suggest(u, ruleset.units, "unit type"))
                continue
            if not isinstance(c, int) or isinstance(c, bool) or c < 1:
                probs.add(f"{fld}.units.{u}", f"got {c!r}", "a count >= 1")
                continue
            uside = ruleset.units[u].get("side", "any")
            if uside not in ("any", side_name) and side_name in ruleset.sides:
                probs.add(f"{fld}.units.{u}", f"a {uside} unit in the {side_name} forces", f"a {side_name} unit type")
                continue
            good_units[u] = c
    has_setup, has_enter = "setup" in g, "enter" in g
    if has_setup == has_enter:
        probs.add(fld, "needs exactly one of setup / enter", "setup = { area } or enter = { turn, area }")
        return None
    area = g["setup"] if has_setup else g["enter"]
    akey = "setup" if has_setup else "enter"
    allowed = AREA_KEYS | (ENTRY_KEYS if has_enter else set())
    if not check_area(area, game_map, ruleset, probs, f"{fld}.{akey}", allowed):
        return None
    turn = 0
    road_march = None
    if has_enter:
        turn = area.get("turn")
        if not isinstance(turn, int) or isinstance(turn, bool) or turn < 1 or (turns is not None and turn > turns):
            probs.add(f"{fld}.enter.turn", f"got {turn!r}",
                      f"the game-turn of entry, 1..{turns}" if turns else "the game-turn of entry, a whole number >= 1")
        road_march = area.get("road_march")
        if road_march is not None:
            rm_fld = f"{fld}.enter.road_march"
            if probs.check_type(road_march, dict, rm_fld, "{ toward = HEX, hexes_per_turn = N, stop_within = N }"):
                probs.unknown_keys(road_march, {"toward", "hexes_per_turn", "stop_within"}, rm_fld)
                if str(road_march.get("toward", "")).upper() not in game_map.index:
                    probs.add(f"{rm_fld}.toward", f"got {road_march.get('toward')!r}", "a hex label on this map")
                for k in ("hexes_per_turn", "stop_within"):
                    v = road_march.get(k)
                    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                        probs.add(f"{rm_fld}.{k}", f"got {v!r}", "a whole number >= 0")
    hexes = resolve_static_area(area, game_map, ruleset, probs.file, f"{fld}.{akey}")
    road_path = _road_march_path(road_march, hexes, game_map, probs, f"{fld}.enter.road_march")
    if "with_unit" not in area and len(hexes) == 0:
        probs.add(f"{fld}.{akey}", f"the area {_short(area)} contains no usable hex", "an area with at least one hex on this map")
    elif len(hexes) and good_units and side_name in ruleset.sides:
        load = sum(stack_count(ruleset, u) * c for u, c in good_units.items())
        cap = len(hexes) * stacking_limit(ruleset, side_name)
        if has_setup and len(hexes) == 1:
            fixed_hex_load.setdefault((side_name, int(hexes[0])), []).append((name, load))
        elif has_setup and load > cap:
            probs.add(f"{fld}.setup", f"{load} units cannot set up in {len(hexes)} hexes",
                      f"at most {stacking_limit(ruleset, side_name)} {side_name} units per hex (PB-STACK-1)")
    return Group(name, good_units, has_enter, area, hexes, turn, road_march, bool(area.get("column", False)),
                 road_path)


def _road_march_path(road_march, hexes: np.ndarray, game_map: GameMap, probs: Problems, fld: str):
    """PB-SIT-7: a column enters at one hex and follows the road from there to `toward`."""
    if not isinstance(road_march, dict) or str(road_march.get("toward", "")).upper() not in game_map.index:
        return None
    if len(hexes) != 1:
        probs.add(fld, f"the group enters through {len(hexes)} hexes", "exactly one entry hex, where the road enters")
        return None
    if "road" not in game_map.side_vocab:
        probs.add(fld, "the map has no roads", "a map whose hexsides carry roads")
        return None
    start, goal = int(hexes[0]), game_map.lookup(str(road_march["toward"]))
    path = game_map.path_along("road", start, goal)
    if path is None or len(path) < 2:
        probs.add(f"{fld}.toward", f"no road leads from {game_map.labels[start]} to {road_march['toward']}",
                  "a hex the entry hex is joined to by road")
        return None
    return path


def _short(area: dict) -> str:
    s = ", ".join(f"{k}={v!r}" for k, v in area.items() if k not in ("turn",))
    return "{" + (s if len(s) < 100 else s[:97] + "...") + "}"
