"""Which module describes each ruleset: name -> import path, imported by name only when used.

A ruleset module holds `RULESET`, an object with the interface of `simulator.api.Ruleset`.  The
core finds a ruleset only here, by the name a situation file (or a saved run's summary) gives,
so loading one ruleset never imports, let alone compiles, another's modules.

Rulesets whose data is built in (a folder of situations/rulesets/ with a ruleset.toml) but that
have no module yet are *data only*: their boards load and their tables can be read, but their
situations cannot be checked or played, and saying so is the answer (`balance list`,
`balance validate`).  `register` adds a ruleset from elsewhere (the tests' toy ruleset, a
designer's own game) for the process that calls it; worker processes need no registry, they
import the engine module by its path.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from simulator.errors import DataError
from simulator.ruleset import CORE_TABLES, RULESETS_DIR, known_rulesets

BUILT_IN: dict[str, str] = {
    "panzerblitz": "simulator.rulesets.panzerblitz.ruleset",
    "first-panzer-army": "simulator.rulesets.first_panzer_army.ruleset",
    "panzerblitz-v2": "simulator.rulesets.panzerblitz_v2.ruleset",
}

_modules: dict[str, str] = dict(BUILT_IN)
_loaded: dict[str, object] = {}


def register(name: str, module: str) -> None:
    """Make ruleset `name` (its module's `RULESET`) known to this process."""
    if _modules.get(name, module) != module:
        raise ValueError(f"ruleset {name!r} is already registered as {_modules[name]}")
    _modules[name] = module


def unregister(name: str) -> None:
    """Forget a ruleset `register` added (the built-in ones stay)."""
    if name not in BUILT_IN:
        _modules.pop(name, None)
        _loaded.pop(name, None)


def with_engine() -> list[str]:
    """The rulesets that can be played, by name."""
    return sorted(_modules)


def data_only() -> list[str]:
    """Built-in ruleset data with no ruleset module yet."""
    return [n for n in known_rulesets() if n not in _modules]


def status(name: str) -> str:
    """'engine', 'data only' or 'unknown'."""
    if name in _modules:
        return "engine"
    return "data only" if name in known_rulesets() else "unknown"


def no_engine_error(name: str, where: str) -> DataError:
    """The error for a situation of a ruleset that has data but no engine yet."""
    data = (RULESETS_DIR / name).relative_to(RULESETS_DIR.parents[1])
    return DataError(where, "ruleset", f"{name!r} has its data ({data}) but no rules engine yet: "
                     "its situation format, checks and engine come with that engine",
                     "a situation of a ruleset with an engine: " + ", ".join(with_engine()))


def ruleset(name: str, where: str = ""):
    """The ruleset called `name` (a `simulator.api.Ruleset`); a DataError naming the field
    `ruleset` of `where` when there is none, or when it has data but no engine yet."""
    if name in _loaded:
        return _loaded[name]
    if name not in _modules:
        if name in known_rulesets():
            raise no_engine_error(name, where or name)
        raise DataError(where or name, "ruleset", f"unknown ruleset {name!r}",
                        "one of " + ", ".join(sorted({*_modules, *known_rulesets()})))
    module = importlib.import_module(_modules[name])
    rs = module.RULESET
    if rs.name != name:
        raise ValueError(f"{_modules[name]}.RULESET is named {rs.name!r}, registered as {name!r}")
    _loaded[name] = rs
    return rs


def data_spec(name: str) -> tuple[Path, tuple[str, ...]]:
    """Where a ruleset's data is and which tables it must hold (a data-only ruleset: the core's)."""
    if name in _modules:
        rs = ruleset(name)
        return Path(rs.data_dir), (*CORE_TABLES, *rs.required_tables)
    return RULESETS_DIR / name, CORE_TABLES
