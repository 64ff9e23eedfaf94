"""Situation files: reading, checking and resolving them against a ruleset.

A situation is a TOML file a designer edits by hand (reference: docs/situation-format.md).
Loading checks the schema and the meaning (unit types, hexes, boards, areas, stacking,
victory conditions) and reports every problem as `FILE: FIELD: problem (expected ...)`.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simulator.errors import DataError, DataErrors
from simulator.mapdata import EDGES, GameMap
from simulator.overrides import apply_situation_overrides, situation_hint, split_sets
from simulator.ruleset import Ruleset, known_rulesets, load_ruleset, read_toml
from simulator.variants import flatten

SITUATIONS_DIR = Path(__file__).resolve().parents[1] / "situations"

TOP_KEYS = {"id", "title", "ruleset", "turns", "sets_up_first", "moves_first", "source", "map",
            "side", "special", "overrides", "notes"}
GROUP_KEYS = {"name", "units", "setup", "enter"}
AREA_KEYS = {"hexes", "boards", "edge", "region", "columns", "rows", "terrain", "hexsides", "anywhere",
             "exclude_hexes", "with_unit", "min_distance_from_unit"}
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
RANGE_RE = re.compile(r"^\s*([A-Za-z0-9]+)\s*(?:-\s*([A-Za-z0-9]+))?\s*$")


class Problems:
    """Collects every problem in one file instead of stopping at the first."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.items: list[DataError] = []

    def add(self, fld: str, problem: str, expected: str = "") -> None:
        self.items.append(DataError(self.file, fld, problem, expected))

    def check_type(self, value, types, fld: str, expected: str) -> bool:
        if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
            self.add(fld, f"got {value!r}", expected)
            return False
        if not isinstance(value, types):
            self.add(fld, f"got {type(value).__name__} {value!r}"[:120], expected)
            return False
        return True

    def unknown_keys(self, table: dict, allowed: set[str], fld: str) -> None:
        for k in table:
            if k not in allowed:
                close = difflib.get_close_matches(k, sorted(allowed), n=1)
                hint = f"did you mean {close[0]!r}? allowed: {sorted(allowed)}" if close else f"one of {sorted(allowed)}"
                self.add(f"{fld}.{k}" if fld else k, "unknown key", hint)


def known(value, choices) -> bool:
    """`value in choices` for a value read from a file, which may be of any type."""
    return isinstance(value, str) and value in choices


def suggest(name: str, choices, what: str) -> str:
    close = difflib.get_close_matches(name, list(choices), n=3, cutoff=0.5)
    return f"a known {what}; did you mean {', '.join(repr(c) for c in close)}?" if close else f"a known {what}"


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


@dataclass
class Situation:
    id: str
    title: str
    path: Path
    ruleset: Ruleset
    turns: int
    sets_up_first: str
    moves_first: str
    layout: list[list[str]]
    map: GameMap
    sides: list[Side]
    special: list[dict] = field(default_factory=list)
    overrides: dict = field(default_factory=dict)
    source: str = ""
    file_sha256: str = ""

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


def _collect_victory_hexes(measure: dict, game_map: GameMap, ruleset: Ruleset, found: set[int]) -> None:
    if "area" in measure and isinstance(measure["area"], dict):
        found.update(int(i) for i in resolve_static_area(measure["area"], game_map, ruleset, "", ""))
    if "hexes" in measure and isinstance(measure["hexes"], list):
        found.update(game_map.lookup(h) for h in measure["hexes"])
    for key in ("numerator", "denominator"):
        if isinstance(measure.get(key), dict):
            _collect_victory_hexes(measure[key], game_map, ruleset, found)


# ------------------------------------------------------------------------- areas

def _column_range(spec: str, columns: tuple[str, ...]) -> set[int] | None:
    m = RANGE_RE.match(spec.upper())
    if not m or m.group(1) not in columns or (m.group(2) and m.group(2) not in columns):
        return None
    a = columns.index(m.group(1))
    b = columns.index(m.group(2)) if m.group(2) else a
    return set(range(min(a, b), max(a, b) + 1))


def _row_range(spec) -> set[int] | None:
    if isinstance(spec, int) and not isinstance(spec, bool):
        return {spec}
    if not isinstance(spec, str):
        return None
    m = RANGE_RE.match(spec)
    if not m or not m.group(1).isdigit() or (m.group(2) and not m.group(2).isdigit()):
        return None
    a, b = int(m.group(1)), int(m.group(2) or m.group(1))
    return set(range(min(a, b), max(a, b) + 1))


def check_area(area, game_map: GameMap, ruleset: Ruleset, probs: Problems, fld: str, allowed: set[str] = AREA_KEYS) -> bool:
    """Schema and meaning checks of one area table; True when it can be resolved."""
    if not probs.check_type(area, dict, fld, "a table of area filters, e.g. { boards = [\"2\"] }"):
        return False
    ok = True
    n0 = len(probs.items)
    probs.unknown_keys(area, allowed, fld)
    filters = [k for k in area if k in AREA_KEYS and k not in ("exclude_hexes", "with_unit", "min_distance_from_unit")]
    if not filters and "with_unit" not in area:
        probs.add(fld, "no area filter given",
                  "at least one of hexes, boards, edge, region, columns, rows, terrain, hexsides, anywhere")
    for key in ("hexes", "exclude_hexes"):
        if key in area and probs.check_type(area[key], list, f"{fld}.{key}", "a list of hex labels like \"2G7\""):
            for i, label in enumerate(area[key]):
                if not isinstance(label, str):
                    probs.add(f"{fld}.{key}[{i}]", f"got {label!r}", "a hex label string like \"2G7\"")
                elif label.strip().upper() not in game_map.index:
                    probs.add(f"{fld}.{key}[{i}]", f"hex {label!r} is not on this map (boards {game_map.board_names()})",
                              "a hex label on one of the situation's boards, board number + column letters + row, e.g. \"2G7\"")
    on_map = {b.removesuffix("i") for b in game_map.board_names()}
    if "boards" in area and probs.check_type(area["boards"], list, f"{fld}.boards", "a list of board names like [\"2\"]"):
        for i, b in enumerate(area["boards"]):
            if str(b) not in on_map:
                probs.add(f"{fld}.boards[{i}]", f"board {b!r} is not in this situation's layout", f"one of {sorted(on_map)}")
    if "edge" in area and area["edge"] not in (*EDGES, "any"):
        probs.add(f"{fld}.edge", f"got {area['edge']!r}", f"one of {[*EDGES, 'any']} (north = top of the drawn map)")
    if "region" in area:
        regions = area["region"] if isinstance(area["region"], list) else [area["region"]]
        for r in regions:
            if not known(r, game_map.named):
                probs.add(f"{fld}.region", f"unknown region {r!r}", suggest(str(r), game_map.named, "town or hill name"))
    if "terrain" in area and probs.check_type(area["terrain"], list, f"{fld}.terrain", "a list of hex features"):
        for t in area["terrain"]:
            if not known(t, game_map.hex_vocab):
                probs.add(f"{fld}.terrain", f"unknown terrain {t!r}", f"one of {list(game_map.hex_vocab)}")
    if "hexsides" in area and probs.check_type(area["hexsides"], dict, f"{fld}.hexsides",
                                               "a table hexside feature -> how many, e.g. { orange = 6 }"):
        for feat, k in area["hexsides"].items():
            if not known(feat, game_map.side_vocab):
                probs.add(f"{fld}.hexsides.{feat}", "unknown hexside feature", f"one of {list(game_map.side_vocab)}")
            if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= 6:
                probs.add(f"{fld}.hexsides.{feat}", f"got {k!r}", "a number of hexsides, 0 to 6")
    if "columns" in area:
        cols = ruleset.board(game_map.board_names()[0].removesuffix("i")).columns
        if not isinstance(area["columns"], str) or _column_range(area["columns"], cols) is None:
            probs.add(f"{fld}.columns", f"got {area['columns']!r}", "a column letter or range like \"A-J\"")
    if "rows" in area and _row_range(area["rows"]) is None:
        probs.add(f"{fld}.rows", f"got {area['rows']!r}", "a row number or range like \"1-3\"")
    if "anywhere" in area and area["anywhere"] is not True:
        probs.add(f"{fld}.anywhere", f"got {area['anywhere']!r}", "true")
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
    return ok and len(probs.items) == n0


def resolve_static_area(area: dict, game_map: GameMap, ruleset: Ruleset, where: str, fld: str) -> np.ndarray:
    """The hexes an area names, before constraints that depend on where units are.

    Filters intersect.  `boards` keeps only hexes that belong to those boards alone: a half
    hex shared by two boards belongs to neither for set-up and victory (PB-VIC-2).
    """
    n = game_map.n_hexes
    keep = np.ones(n, dtype=bool)
    if "hexes" in area:
        sel = np.zeros(n, dtype=bool)
        sel[[game_map.lookup(h) for h in area["hexes"]]] = True
        keep &= sel
    if "boards" in area:
        sel = np.zeros(n, dtype=bool)
        for b in area["boards"]:
            sel[game_map.sole_board_hexes(str(b))] = True
        keep &= sel
    if "edge" in area:
        sel = np.zeros(n, dtype=bool)
        sel[game_map.edge_hexes(area["edge"])] = True
        keep &= sel
    if "region" in area:
        regions = area["region"] if isinstance(area["region"], list) else [area["region"]]
        sel = np.zeros(n, dtype=bool)
        for r in regions:
            sel[list(game_map.named[r])] = True
        keep &= sel
    if "terrain" in area:
        sel = np.zeros(n, dtype=bool)
        for t in area["terrain"]:
            sel |= game_map.has_feature(t)
        keep &= sel
    for feat, k in area.get("hexsides", {}).items():
        # at least k of the hex's six sides carry the feature (PB-SIT-1: a hilltop hex "with six
        # Orange hex-sides")
        keep &= ((game_map.side_features & game_map.side_bit(feat)) != 0).sum(axis=1) >= k
    if "columns" in area or "rows" in area:
        cols = ruleset.board(game_map.board_names()[0].removesuffix("i")).columns
        col_set = _column_range(area["columns"], cols) if "columns" in area else None
        row_set = _row_range(area["rows"]) if "rows" in area else None
        sel = np.zeros(n, dtype=bool)
        for i, cells in enumerate(game_map.cells):
            for col, row in cells:  # every name of a merged half hex, on its own board
                if (col_set is None or col in col_set) and (row_set is None or row in row_set):
                    sel[i] = True
        keep &= sel
    if "exclude_hexes" in area:
        keep[[game_map.lookup(h) for h in area["exclude_hexes"]]] = False
    # PB-GEN-4: closed hexes (the pond) can never be set up in or entered.
    for f in ruleset.data["map"].get("closed_hex_features", []):
        keep &= ~game_map.has_feature(f)
    return np.flatnonzero(keep)


# ------------------------------------------------------------------------- victory

def check_measure(m, game_map: GameMap, ruleset: Ruleset, probs: Problems, fld: str, top: bool) -> None:
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


def check_victory(v, game_map: GameMap, ruleset: Ruleset, probs: Problems, fld: str) -> None:
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


def _check_also(also, game_map: GameMap, ruleset: Ruleset, probs: Problems, fld: str) -> None:
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


def _measures(v) -> list[dict]:
    """Every measure table inside a victory condition (ratios' parts, `also` conditions)."""
    if not isinstance(v, dict):
        return []
    out = [v]
    for key in ("numerator", "denominator"):
        out += _measures(v.get(key))
    for alt in v.get("also", []) if isinstance(v.get("also"), list) else []:
        for c in alt.get("all", []) if isinstance(alt, dict) and isinstance(alt.get("all"), list) else []:
            out += _measures(c)
    return out


def _check_group_names(sides: list[Side], probs: Problems) -> None:
    """A measure's `group` names a group of the side whose units it counts."""
    for si, s in enumerate(sides):
        for m in _measures(s.victory):
            if "group" not in m:
                continue
            whose = s if m.get("whose", "own") == "own" or len(sides) != 2 else sides[1 - si]
            names = [g.name for g in whose.groups]
            if m["group"] not in names:
                probs.add(f"side[{s.name}].victory", f"group {m['group']!r} is not a group of the {whose.name} side",
                          f"one of {names}")


# ------------------------------------------------------------------------- loading

def find_situation(name: str | Path) -> Path:
    """A built-in situation id (`pb-01`) or a path to a situation file."""
    p = Path(name)
    cand = SITUATIONS_DIR / f"{name}.toml"
    if p.is_file() or p.suffix == ".toml":
        return p
    # A built-in id wins over a directory of the same name in the working directory (say the
    # `pb-01` folder a run wrote): a directory is never a situation file.
    if cand.exists():
        return cand
    if p.exists():
        return p
    ids = [q.stem for q in SITUATIONS_DIR.glob("*.toml")]
    raise DataError(str(name), "", "no such situation file or built-in situation", suggest(str(name), ids, "situation id or a .toml path"))


def builtin_situations() -> list[Path]:
    return sorted(SITUATIONS_DIR.glob("*.toml"))


def load_situation(name: str | Path, overrides: dict | None = None) -> Situation:
    """Read and check a situation; raises DataErrors listing every problem found."""
    path = find_situation(name)
    where = str(path)
    raw_bytes = b""
    try:
        raw_bytes = path.read_bytes()
    except OSError as exc:
        raise DataErrors([DataError(where, "", f"cannot read: {exc.strerror}", "a readable situation file")]) from exc
    try:
        doc = read_toml(path)
    except DataError as exc:
        raise DataErrors([exc]) from exc
    # Overrides of situation fields change the document itself, before any check, so the
    # result is checked like a file; problems then name the file "with --set".
    situation_sets, ruleset_sets = split_sets(overrides)
    if situation_sets:
        try:
            doc = apply_situation_overrides(doc, situation_sets)
        except DataError as exc:
            raise DataErrors([exc]) from exc
        where = f"{path} with --set"
    probs = Problems(where)
    probs.unknown_keys(doc, TOP_KEYS, "")
    for key in ("id", "title", "ruleset", "turns", "sets_up_first", "moves_first", "map", "side"):
        if key not in doc:
            probs.add(key, "missing", "a required situation field (docs/situation-format.md)")
    for key in ("id", "title", "ruleset", "source"):
        if key in doc:
            probs.check_type(doc[key], str, key, "a string")
    if isinstance(doc.get("id"), str) and not re.match(r"^[a-z0-9][a-z0-9_-]*$", doc["id"]):
        probs.add("id", f"got {doc['id']!r}", "lower-case letters, digits, '-' and '_'")
    if "turns" in doc and probs.check_type(doc["turns"], int, "turns", "a whole number of game-turns >= 1") and doc["turns"] < 1:
        probs.add("turns", f"got {doc['turns']}", "a whole number of game-turns >= 1")
    ruleset = None
    if isinstance(doc.get("ruleset"), str):
        if doc["ruleset"] in known_rulesets():
            ruleset = load_ruleset(doc["ruleset"])
        else:
            probs.add("ruleset", f"unknown ruleset {doc['ruleset']!r}", f"one of {known_rulesets()}")
    if ruleset is None:
        raise DataErrors(probs.items)

    # Overrides of ruleset tables: from the file, then from the caller (command line).
    try:
        if "overrides" in doc:
            if probs.check_type(doc["overrides"], dict, "overrides", "a table of dotted ruleset keys"):
                ruleset = ruleset.with_overrides(flatten(doc["overrides"]), where)
        if ruleset_sets:
            ruleset = ruleset.with_overrides(ruleset_sets, "--set", "set")
    except DataError as exc:
        key = exc.field.removeprefix("set.")
        hint = situation_hint(doc, key) if exc.field.startswith("set.") else None
        if hint:  # `--set turns=8`: a situation entry given without its `situation.` prefix
            exc = DataError(exc.file, exc.field, exc.problem, f"{hint!r} (situation entries start with 'situation.')")
        probs.items.append(exc)

    for key in ("sets_up_first", "moves_first"):
        if key in doc and doc[key] not in ruleset.sides:
            probs.add(key, f"got {doc[key]!r}", f"one of {ruleset.sides}")

    game_map = _check_layout(doc.get("map"), ruleset, probs)
    if game_map is None:
        raise DataErrors(probs.items)

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
        raise DataErrors(probs.items)
    sit = Situation(
        id=doc["id"], title=doc["title"], path=path, ruleset=ruleset, turns=doc["turns"],
        sets_up_first=doc["sets_up_first"], moves_first=doc["moves_first"],
        layout=doc["map"]["layout"], map=game_map, sides=sides, special=special,
        overrides=flatten(doc.get("overrides", {})) | dict(overrides or {}),
        source=doc.get("source", ""), file_sha256=hashlib.sha256(raw_bytes).hexdigest(),
    )
    # What only the ruleset's rules can tell: set-up areas too small for their units, say.
    from simulator.engines import ENGINES

    engine = ENGINES.get(ruleset.name)
    problems = engine.check(sit) if engine else []
    if problems:
        raise DataErrors([DataError(where, e.field, e.problem, e.expected) for e in problems])
    return sit


def _check_layout(m, ruleset: Ruleset, probs: Problems) -> GameMap | None:
    if m is None:
        return None
    if not probs.check_type(m, dict, "map", "a [map] table with a layout"):
        return None
    probs.unknown_keys(m, {"layout"}, "map")
    layout = m.get("layout")
    expected = "a list of picture rows of board names, e.g. [[\"1\"], [\"2i\"]] (\"i\" = inverted)"
    if not isinstance(layout, list) or not layout or not all(isinstance(r, list) and r for r in layout):
        probs.add("map.layout", f"got {layout!r}", expected)
        return None
    boards = ruleset.board_names()
    ok = True
    for i, row in enumerate(layout):
        for j, b in enumerate(row):
            if not isinstance(b, str) or b.removesuffix("i") not in boards:
                probs.add(f"map.layout[{i}][{j}]", f"got {b!r}", f"a board of ruleset {ruleset.name!r}: {boards}, optionally with 'i'")
                ok = False
    if not ok:
        return None
    try:
        return ruleset.assemble(layout)
    except DataError as exc:
        probs.items.append(exc)
        return None


def _check_sides(sides_doc, doc, game_map: GameMap, ruleset: Ruleset, probs: Problems) -> list[Side]:
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
        fld = f"side[{side_name}]" if isinstance(side_name, str) else fld
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
        if side_name in ruleset.sides and total > ruleset.stacking_limit(side_name):
            who = ", ".join(g for g, _ in loads)
            probs.add(f"side[{side_name}].group", f"fixed set-up puts {total} units on {game_map.labels[h]} ({who})",
                      f"at most {ruleset.stacking_limit(side_name)} {side_name} units per hex (PB-STACK-1)")
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
            if uside not in ("any", side_name):
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
        load = sum(ruleset.stack_count(u) * c for u, c in good_units.items())
        cap = len(hexes) * ruleset.stacking_limit(side_name)
        if has_setup and len(hexes) == 1:
            fixed_hex_load.setdefault((side_name, int(hexes[0])), []).append((name, load))
        elif has_setup and load > cap:
            probs.add(f"{fld}.setup", f"{load} units cannot set up in {len(hexes)} hexes",
                      f"at most {ruleset.stacking_limit(side_name)} {side_name} units per hex (PB-STACK-1)")
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


def check_file(path: str | Path) -> list[DataError]:
    """Every problem in one situation file (empty when it is valid)."""
    try:
        load_situation(path)
    except DataErrors as exc:
        return exc.errors
    except DataError as exc:
        return [exc]
    return []
