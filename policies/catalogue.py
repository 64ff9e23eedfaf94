"""Players by name and parameters, as `--policy SIDE=NAME[:KEY=VALUE,...]` gives them, for any ruleset.

A ruleset declares its players as `PlayerType`s (a name, the small integer its kernels know it
by, its parameters with their defaults and meanings, in kernel order); `Catalogue` reads the
command line's `--policy` options into one `PlayerSpec` a side, which the runner carries to the
engine (and pickles to worker processes).  Besides `NAME[:KEY=VALUE,...]`, `--policy @FILE`
reads a policy file (`policy = "NAME"`, a `[params]` table, an optional `[provenance]`: what
`balance tune` writes); a catalogue may name a folder of such files as its players' style
variants (`balance equilibrium`), and a player's parameters may come from a data file of
`[param.NAME]` tables (`param_table`).  PanzerBlitz's catalogue is
simulator/rulesets/panzerblitz/players/spec.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simulator.errors import DataError


@dataclass(frozen=True)
class Param:
    default: float
    meaning: str
    lo: float | None = None   # bounds a tuner may search (`balance tune`); None: not tuned
    hi: float | None = None
    whole: bool = False       # a count (hexes, turns): a tuner searches whole numbers


@dataclass(frozen=True)
class PlayerType:
    name: str
    kernel_id: int
    params: dict[str, Param] = field(default_factory=dict)   # in the order the kernel reads them
    meaning: str = ""


@dataclass(frozen=True)
class PlayerSpec:
    """A side's player: its name, the parameters given, and its type's defaults."""

    name: str
    kernel_id: int
    defaults: dict[str, float]
    params: dict[str, float] = field(default_factory=dict)
    source: str = ""   # the policy file it was read from, if any
    width: int = 0     # the length of the kernels' parameter row (the catalogue's longest player)

    def full_params(self) -> dict[str, float]:
        """Every parameter, defaults filled in."""
        return {**self.defaults, **self.params}

    def non_default(self) -> dict[str, float]:
        return {k: v for k, v in self.params.items() if v != self.defaults[k]}

    def vector(self, width: int | None = None) -> np.ndarray:
        """The parameters as the kernel's float64 row (padded with zeros to `width`, by default
        the catalogue's row width)."""
        values = list(self.full_params().values())
        out = np.zeros(width or self.width or len(values), dtype=np.float64)
        out[:len(values)] = values
        return out

    def label(self) -> str:
        changed = self.non_default()
        if not changed:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v:g}" for k, v in sorted(changed.items()))


def _read_toml(path: Path) -> dict:
    from simulator.ruleset import read_toml

    return read_toml(path)


def _finite(where: str, fld: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise DataError(where, fld, f"got {value!r}", "a finite number")
    return float(value)


def param_table(path: Path, names: tuple[str, ...]) -> dict[str, Param]:
    """A player's parameters from the `[param.NAME]` tables of its data file (`default`, `min`,
    `max`, `meaning`), checked against the kernel's parameter names `names`, in that order.  A
    parameter whose three numbers are all written as integers is `whole`."""
    where = str(path)
    data = _read_toml(path).get("param")
    if not isinstance(data, dict):
        raise DataError(where, "param", "missing", "[param.NAME] tables")
    if list(data) != list(names):
        missing = [n for n in names if n not in data]
        extra = [n for n in data if n not in names]
        problem = (f"missing {missing}" if missing else "") + (f" unknown {extra}" if extra else "")
        raise DataError(where, "param", (problem or "out of order").strip(),
                        "the kernel's parameters in its order: " + ", ".join(names))
    out = {}
    for name, p in data.items():
        fld = f"param.{name}"
        if not isinstance(p, dict):
            raise DataError(where, fld, "not a table", "default, min, max, meaning")
        default, lo, hi = (_finite(where, f"{fld}.{key}", p.get(key)) for key in ("default", "min", "max"))
        if not lo <= default <= hi:
            raise DataError(where, fld, f"default {default} outside [{lo}, {hi}]", "min <= default <= max")
        if not isinstance(p.get("meaning"), str) or not p["meaning"]:
            raise DataError(where, f"{fld}.meaning", "missing", "a one-line meaning")
        whole = all(isinstance(p[k], int) for k in ("default", "min", "max"))
        out[name] = Param(default, p["meaning"], lo, hi, whole)
    return out


class Catalogue:
    """A ruleset's players (simulator.api.Players)."""

    def __init__(self, types: list[PlayerType], default: str, replay_default: str | None = None,
                 doc: str = "", styles_dir: Path | None = None) -> None:
        self.types = {t.name: t for t in types}
        self.default = default
        self.replay_default = replay_default or default
        self.doc = doc   # the page that describes the players, named by reports
        self.styles_dir = styles_dir   # policy files: the players' style variants
        # the kernels' parameter row: as long as the longest player's (no fixed cap)
        self.width = max((len(t.params) for t in types), default=0)

    def names(self) -> tuple[str, ...]:
        return tuple(self.types)

    def space(self, name: str) -> tuple:
        """The parameters with bounds (lo < hi), as `simulator.api.ParamRange`s."""
        from simulator.api import ParamRange

        return tuple(ParamRange(k, p.default, p.lo, p.hi, p.whole) for k, p in self.types[name].params.items()
                     if p.lo is not None and p.hi is not None and p.hi > p.lo)

    def styles(self, name: str) -> dict[str, dict[str, float]]:
        """The style variants of player `name`: the policy files of `styles_dir` for that player."""
        out = {}
        if self.styles_dir is not None:
            for path in sorted(Path(self.styles_dir).glob("*.toml")):
                spec = self.load_file(path)
                if spec.name == name:
                    out[path.stem] = spec.params
        return out

    def make(self, name: str, params: dict[str, float], source: str = "") -> PlayerSpec:
        ptype = self.types[name]
        return PlayerSpec(name, ptype.kernel_id, self.defaults(name), dict(params), source, self.width)

    def defaults(self, name: str) -> dict[str, float]:
        return {k: p.default for k, p in self.types[name].params.items()}

    def spec(self, text: str, where: str = "--policy") -> PlayerSpec:
        """`NAME`, `NAME:KEY=VALUE[,KEY=VALUE...]` or `@FILE` (a policy file, `load_file`)."""
        text = text.strip()
        if text.startswith("@"):
            return self.load_file(Path(text[1:]))
        name, _, rest = text.partition(":")
        name = name.strip()
        if name not in self.types:
            raise DataError(where, text, f"unknown policy {name!r}", "one of " + ", ".join(self.types) + ", or @FILE")
        ptype = self.types[name]
        params: dict[str, float] = {}
        for item in filter(None, (s.strip() for s in rest.split(","))):
            key, eq, raw = item.partition("=")
            key = key.strip()
            if not eq:
                raise DataError(where, item, "not KEY=VALUE", f"a parameter of {name}: " + ", ".join(ptype.params))
            if key not in ptype.params:
                raise DataError(where, item, f"{name} has no parameter {key!r}", ", ".join(ptype.params) or "none")
            try:
                value = float(raw)
            except ValueError:
                raise DataError(where, item, f"{raw.strip()!r} is not a number", f"a number for {key}") from None
            if not math.isfinite(value):
                raise DataError(where, item, f"{raw.strip()!r} is not finite", f"a finite number for {key}")
            params[key] = value
        return self.make(name, params)

    def load_file(self, path: Path) -> PlayerSpec:
        """A policy file: `policy = "NAME"` and a `[params]` table of KEY = number (any subset);
        `[provenance]` (where a tuned player came from, `balance tune`) is for people."""
        data = _read_toml(path)
        where = str(path)
        name = data.get("policy")
        if name not in self.types:
            raise DataError(where, "policy", f"got {name!r}", "one of " + ", ".join(self.types))
        extra = sorted(set(data) - {"policy", "params", "provenance"})
        if extra:
            raise DataError(where, extra[0], "unknown key", "policy, [params] and [provenance]")
        raw = data.get("params", {})
        if not isinstance(raw, dict):
            raise DataError(where, "params", f"got {raw!r}", "a [params] table")
        known = self.types[name].params
        params = {}
        for key, v in raw.items():
            if key not in known:
                raise DataError(where, f"params.{key}", f"{name} has no parameter {key!r}", ", ".join(known) or "none")
            params[key] = _finite(where, f"params.{key}", v)
        return self.make(name, params, source=where)

    def parse(self, items: list[str] | None, sides, default: str | None = None) -> dict[str, PlayerSpec]:
        """`--policy SIDE=SPEC` (or a bare SPEC for every side) into one spec per side."""
        sides = list(sides)
        out = {s: self.spec(default or self.default) for s in sides}
        for item in items or []:
            side, eq, spec = item.partition("=")
            if eq and side.strip() in sides:
                out[side.strip()] = self.spec(spec, f"--policy {side.strip()}")
            elif eq and ":" not in side and not side.strip().startswith("@"):
                raise DataError("--policy", item, f"unknown side {side.strip()!r}", "one of " + ", ".join(sides))
            else:
                for s in sides:
                    out[s] = self.spec(item)
        return out

    def markdown(self, name: str) -> str:
        """A player's parameters as a Markdown table (name, default, bounds, meaning)."""
        lines = ["| name | default | min | max | meaning |", "|---|---:|---:|---:|---|"]
        for key, p in self.types[name].params.items():
            lo = "" if p.lo is None else f"{p.lo:g}"
            hi = "" if p.hi is None else f"{p.hi:g}"
            lines.append(f"| `{key}` | {p.default:g} | {lo} | {hi} | {p.meaning} |")
        return "\n".join(lines)
