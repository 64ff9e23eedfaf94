"""Situation files: finding, reading and checking them, for any ruleset.

A situation is a TOML file a designer edits by hand.  The core reads what every ruleset's
situations have: `id`, `title`, `ruleset`, `turns`, `source` and `[overrides]` of the ruleset's
tables; everything else (the map, the sides and their forces, victory conditions, special rules)
is the ruleset's own format, which its schema checks (`simulator.api.SituationSchema`; for
PanzerBlitz simulator/rulesets/panzerblitz/situation_schema.py, reference docs/situation-format.md).
Every problem is reported as `FILE: FIELD: problem (expected ...)`, all of them at once.

`Situation` is what the core carries of a loaded situation; a ruleset's situations are a
subclass of it with the ruleset's own fields (the core reads only the ones here).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from simulator import registry
from simulator.areas import resolve_static_area  # noqa: F401  (simulator/rulesets/panzerblitz/players/goals.py reads it here; phase B moves it)
from simulator.errors import DataError, DataErrors
from simulator.mapdata import GameMap
from simulator.overrides import apply_situation_overrides, situation_hint, split_sets
from simulator.problems import Problems, suggest
from simulator.ruleset import RulesetData, load_ruleset, read_toml
from simulator.variants import flatten

SITUATIONS_DIR = Path(__file__).resolve().parents[1] / "situations"

# The keys the core reads, in the order their absence is reported; a ruleset's schema adds its own.
CORE_REQUIRED = ("id", "title", "ruleset", "turns")
CORE_KEYS = frozenset({*CORE_REQUIRED, "source", "overrides"})


@dataclass(kw_only=True)
class Situation:
    """A loaded situation as the core sees it; rulesets subclass it with their own fields."""

    id: str
    title: str
    path: Path
    ruleset: RulesetData          # the ruleset's tables, with the situation's and the run's overrides
    turns: int
    side_names: tuple[str, ...]   # the sides that play, in the order tables and players use
    map: GameMap
    overrides: dict = field(default_factory=dict)   # every override in force, dotted keys
    source: str = ""
    file_sha256: str = ""


@dataclass
class LoadContext:
    """What a ruleset's schema gets besides the document: where it came from, the ruleset data
    (overrides applied), the problems found so far, and the fields the core has read."""

    path: Path
    where: str               # the file name problems carry ("FILE with --set" when changed)
    problems: Problems
    ruleset: RulesetData
    overrides: dict          # every override in force (the file's and the caller's), dotted keys
    file_sha256: str

    def core_fields(self, doc: dict, side_names: tuple[str, ...], game_map: GameMap) -> dict:
        """The base class's fields, to build a ruleset's Situation with."""
        return dict(id=doc["id"], title=doc["title"], path=self.path, ruleset=self.ruleset, turns=doc["turns"],
                    side_names=tuple(side_names), map=game_map, overrides=self.overrides,
                    source=doc.get("source", ""), file_sha256=self.file_sha256)


# ------------------------------------------------------------------------- finding

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
    """The situations `balance list` shows first and the benchmarks play (situations/*.toml)."""
    return sorted(SITUATIONS_DIR.glob("*.toml"))


def ruleset_situations() -> list[Path]:
    """Situations kept in a ruleset's own folder (situations/<ruleset>/*.toml) and its subfolders
    (the classic cards converted to PanzerBlitz v2, situations/panzerblitz-v2/classic/*.toml), for
    `balance list` and the default `balance bench`; not the rulesets' data (situations/rulesets/)."""
    return sorted(p for p in SITUATIONS_DIR.glob("*/**/*.toml") if p.relative_to(SITUATIONS_DIR).parts[0] != "rulesets")


# ------------------------------------------------------------------------- loading

def _schema_of(doc: dict, where: str):
    """The ruleset the document names, if it is one with an engine; a data-only ruleset's
    situation stops here with the one error that matters."""
    name = doc.get("ruleset")
    if not isinstance(name, str):
        return None
    state = registry.status(name)
    if state == "data only":
        raise DataErrors([registry.no_engine_error(name, where)])
    return registry.ruleset(name) if state == "engine" else None


def _unknown_ruleset(name: str) -> str:
    data_only = registry.data_only()
    return f"one of {registry.with_engine()}" + (f" (with data but no engine yet: {', '.join(data_only)})"
                                                 if data_only else "")


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
    rs = _schema_of(doc, where)
    # Overrides of situation fields change the document itself, before any check, so the
    # result is checked like a file; problems then name the file "with --set".
    situation_sets, ruleset_sets = split_sets(overrides)
    if situation_sets:
        try:
            doc = apply_situation_overrides(doc, situation_sets, rules=rs.schema.document if rs else None)
        except DataError as exc:
            raise DataErrors([exc]) from exc
        where = f"{path} with --set"
    probs = Problems(where)
    if rs is not None:
        probs.unknown_keys(doc, set(rs.schema.keys), "")
    for key in (*CORE_REQUIRED, *(rs.schema.required if rs else ())):
        if key not in doc:
            probs.add(key, "missing", "a required situation field (docs/situation-format.md)")
    for key in ("id", "title", "ruleset", "source"):
        if key in doc:
            probs.check_type(doc[key], str, key, "a string")
    if isinstance(doc.get("id"), str) and not re.match(r"^[a-z0-9][a-z0-9_-]*$", doc["id"]):
        probs.add("id", f"got {doc['id']!r}", "lower-case letters, digits, '-' and '_'")
    if "turns" in doc and probs.check_type(doc["turns"], int, "turns", "a whole number of game-turns >= 1") and doc["turns"] < 1:
        probs.add("turns", f"got {doc['turns']}", "a whole number of game-turns >= 1")
    if rs is None:
        if isinstance(doc.get("ruleset"), str):
            probs.add("ruleset", f"unknown ruleset {doc['ruleset']!r}", _unknown_ruleset(doc["ruleset"]))
        raise DataErrors(probs.items)
    ruleset = load_ruleset(rs.name)

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

    overrides_in_force = (flatten(doc["overrides"]) if isinstance(doc.get("overrides"), dict) else {}) \
        | dict(overrides or {})
    ctx = LoadContext(path, where, probs, ruleset, overrides_in_force, hashlib.sha256(raw_bytes).hexdigest())
    sit = rs.schema.read(doc, ctx)
    if probs.items or sit is None:
        raise DataErrors(probs.items or [DataError(where, "", "not a situation", "a situation file")])
    return sit


def check_layout(m, ruleset: RulesetData, probs: Problems, extra_keys: set[str] = frozenset()) -> GameMap | None:
    """A `[map]` table with a `layout` of boards (picture rows, top to bottom; "2i" = board 2
    inverted), assembled; None (with the problems) if it cannot be.  `extra_keys`: other keys a
    ruleset allows in the table (and checks itself)."""
    if m is None:
        return None
    if not probs.check_type(m, dict, "map", "a [map] table with a layout"):
        return None
    probs.unknown_keys(m, {"layout", *extra_keys}, "map")
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


def check_file(path: str | Path) -> list[DataError]:
    """Every problem in one situation file (empty when it is valid)."""
    try:
        load_situation(path)
    except DataErrors as exc:
        return exc.errors
    except DataError as exc:
        return [exc]
    return []
