"""Ruleset data: the tables of one game system (units, terrain, combat, whatever its rules read).

A ruleset's data is a folder (`situations/rulesets/NAME/` for the built-in ones) holding
`ruleset.toml`, the table files it names and a boards folder.  Its tables form one nested
dictionary; any entry can be overridden by a dotted key (`units.t-34-c.attack = 5`,
`stacking.limit.russian = 3`), which is how designers explore rule changes without touching
code.  The core needs only `sides` and `map` (the board vocabulary); which other tables must be
there is the ruleset's to say (`required_tables` of its interface, simulator/api.py): line of
sight and stacking are PanzerBlitz's, not every game's.
"""

from __future__ import annotations

import copy
import difflib
import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from simulator.errors import DataError
from simulator.mapdata import Board, GameMap, assemble, load_board

RULESETS_DIR = Path(__file__).resolve().parents[1] / "situations" / "rulesets"
CORE_TABLES = ("sides", "map")  # what the core itself reads of every ruleset


def read_toml(path: Path) -> dict:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError as exc:
        raise DataError(str(path), "", "file not found", "an existing TOML file") from exc
    except tomllib.TOMLDecodeError as exc:
        raise DataError(str(path), "(syntax)", str(exc), "valid TOML") from exc
    except UnicodeDecodeError as exc:
        raise DataError(str(path), "(encoding)", f"byte {exc.start} is not UTF-8", "a UTF-8 text file") from exc
    except OSError as exc:
        raise DataError(str(path), "", f"cannot read: {exc.strerror}", "a readable TOML file") from exc


def known_rulesets() -> list[str]:
    """The rulesets whose data is built in (a folder of situations/rulesets with a ruleset.toml)."""
    return sorted(p.name for p in RULESETS_DIR.iterdir() if (p / "ruleset.toml").exists())


def leaf_paths(data, prefix: str = "") -> dict[str, object]:
    """Every overridable entry as `dotted.key -> value` (lists are leaves)."""
    out: dict[str, object] = {}
    if isinstance(data, dict):
        for k, v in data.items():
            out.update(leaf_paths(v, f"{prefix}{k}."))
            if not isinstance(v, dict):
                out[f"{prefix}{k}"] = v
    return out


def _type_name(v) -> str:
    return {bool: "true/false", int: "an integer", float: "a number", str: "a string",
            list: "a list", dict: "a table"}.get(type(v), type(v).__name__)


def apply_overrides(data: dict, overrides: dict[str, object], where: str, field_prefix: str = "overrides") -> dict:
    """A copy of `data` with dotted-key overrides applied; unknown keys and wrong types fail."""
    out = copy.deepcopy(data)
    leaves = leaf_paths(data)
    for key, new in overrides.items():
        fld = f"{field_prefix}.{key}"
        if key not in leaves:
            close = difflib.get_close_matches(key, list(leaves), n=3, cutoff=0.6)
            hint = f"one of {close}" if close else "a dotted key of a ruleset table, e.g. units.<type>.attack"
            raise DataError(where, fld, "no such ruleset entry", hint)
        old = leaves[key]
        ok = (type(new) is type(old)) or (isinstance(old, float) and type(new) is int)
        if isinstance(old, int | float) and not isinstance(old, bool) and isinstance(new, int | float) and not isinstance(new, bool):
            ok = ok or isinstance(old, float)
        if not ok:
            raise DataError(where, fld, f"got {new!r}", f"{_type_name(old)} like the current value {old!r}")
        node = out
        parts = key.split(".")
        for p in parts[:-1]:
            node = node[p]
        node[parts[-1]] = new
    return out


@dataclass
class RulesetData:
    name: str
    path: Path
    data: dict
    _boards: dict[str, Board] = field(default_factory=dict)

    @property
    def sides(self) -> list[str]:
        return list(self.data["sides"])

    @property
    def units(self) -> dict[str, dict]:
        return self.data["units"]

    @cached_property
    def hex_vocab(self) -> tuple[str, ...]:
        return tuple(self.data["map"]["hex_features"])

    @cached_property
    def side_vocab(self) -> tuple[str, ...]:
        return tuple(self.data["map"]["hexside_features"])

    def board_names(self) -> list[str]:
        d = self.path / self.data.get("boards_dir", "boards")
        return sorted(p.stem.removeprefix("board-") for p in d.glob("board-*.json"))

    def board(self, name: str) -> Board:
        if name not in self._boards:
            path = self.path / self.data.get("boards_dir", "boards") / f"board-{name}.json"
            self._boards[name] = load_board(path, self.hex_vocab, self.side_vocab)
        return self._boards[name]

    def assemble(self, layout: list[list[str]]) -> GameMap:
        """Map for a layout such as [["1"], ["2i"], ["3"]] (picture rows, top to bottom)."""
        placed = [[(self.board(b.removesuffix("i")), b.endswith("i")) for b in row] for row in layout]
        return assemble(placed, self.hex_vocab, self.side_vocab)

    def with_overrides(self, overrides: dict[str, object], where: str, field_prefix: str = "overrides") -> RulesetData:
        if not overrides:
            return self
        return RulesetData(self.name, self.path, apply_overrides(self.data, overrides, where, field_prefix), self._boards)


def load_ruleset(name: str, path: Path | None = None, required: tuple[str, ...] | None = None) -> RulesetData:
    """A ruleset's data, from `path` (default: its built-in folder) with the tables its rules
    require (default: what the ruleset's interface declares, simulator/registry.py)."""
    if path is None or required is None:
        from simulator.registry import data_spec

        path, required = data_spec(name) if path is None else (path, data_spec(name)[1])
    main = path / "ruleset.toml"
    if not main.exists():
        raise DataError(str(main), "", f"no ruleset named {name!r}", f"one of {known_rulesets()}")
    data = read_toml(main)
    for fname in data.get("table_files", []):
        extra = read_toml(path / fname)
        for key, table in extra.items():
            if key in data:
                raise DataError(str(path / fname), key, "table defined twice", "a table not already in ruleset.toml or another table file")
            data[key] = table
    # Unit catalogues in files of their own (`unit_files`), merged into one `units` table, so
    # that `--set units.ID.KEY=...` reaches them like any other table.
    for fname in data.get("unit_files", []):
        units = data.setdefault("units", {})
        for uid, unit in read_toml(path / fname).get("units", {}).items():
            if uid in units:
                raise DataError(str(path / fname), f"units.{uid}", "unit defined twice", "a unit id not already in another unit file")
            units[uid] = unit
    for key in dict.fromkeys((*CORE_TABLES, *required)):
        if key not in data:
            raise DataError(str(main), key, "missing", f"a table the {name} rules read")
    return RulesetData(name, path, data)
