"""Players by name and parameters, as `--policy SIDE=NAME[:KEY=VALUE,...]` gives them, for any ruleset.

A ruleset declares its players as `PlayerType`s (a name, the small integer its kernels know it
by, its parameters with their defaults and meanings, in kernel order); `Catalogue` reads the
command line's `--policy` options into one `PlayerSpec` a side, which the runner carries to the
engine (and pickles to worker processes).  PanzerBlitz's players still have their own reader
(simulator/rulesets/panzerblitz/players/spec.py), which the decision interface of phase B folds into this one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from simulator.errors import DataError


@dataclass(frozen=True)
class Param:
    default: float
    meaning: str
    lo: float | None = None   # bounds a tuner may search (`balance tune`); None: not tuned
    hi: float | None = None


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

    def full_params(self) -> dict[str, float]:
        """Every parameter, defaults filled in."""
        return {**self.defaults, **self.params}

    def non_default(self) -> dict[str, float]:
        return {k: v for k, v in self.params.items() if v != self.defaults[k]}

    def vector(self, width: int | None = None) -> np.ndarray:
        """The parameters as the kernel's float64 row (padded with zeros to `width`)."""
        values = list(self.full_params().values())
        out = np.zeros(width or len(values), dtype=np.float64)
        out[:len(values)] = values
        return out

    def label(self) -> str:
        changed = self.non_default()
        if not changed:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v:g}" for k, v in sorted(changed.items()))


class Catalogue:
    """A ruleset's players (simulator.api.Players)."""

    def __init__(self, types: list[PlayerType], default: str, replay_default: str | None = None,
                 doc: str = "") -> None:
        self.types = {t.name: t for t in types}
        self.default = default
        self.replay_default = replay_default or default
        self.doc = doc   # the page that describes the players, named by reports

    def names(self) -> tuple[str, ...]:
        return tuple(self.types)

    def space(self, name: str) -> tuple:
        """The parameters with bounds, as `simulator.api.ParamRange`s."""
        from simulator.api import ParamRange

        return tuple(ParamRange(k, p.default, p.lo, p.hi) for k, p in self.types[name].params.items()
                     if p.lo is not None and p.hi is not None)

    def styles(self, name: str) -> dict[str, dict[str, float]]:
        return {}

    def make(self, name: str, params: dict[str, float], source: str = "") -> PlayerSpec:
        ptype = self.types[name]
        return PlayerSpec(name, ptype.kernel_id, {k: p.default for k, p in ptype.params.items()}, dict(params))

    def defaults(self, name: str) -> dict[str, float]:
        return {k: p.default for k, p in self.types[name].params.items()}

    def spec(self, text: str, where: str = "--policy") -> PlayerSpec:
        """`NAME` or `NAME:KEY=VALUE[,KEY=VALUE...]`."""
        name, _, rest = text.strip().partition(":")
        name = name.strip()
        if name not in self.types:
            raise DataError(where, text, f"unknown player {name!r}", "one of " + ", ".join(self.types))
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
                raise DataError(where, item, f"{raw!r} is not a number", f"a number for {key}") from None
            if not math.isfinite(value):
                raise DataError(where, item, f"{raw!r} is not finite", f"a finite number for {key}")
            params[key] = value
        return PlayerSpec(name, ptype.kernel_id, {k: p.default for k, p in ptype.params.items()}, params)

    def parse(self, items: list[str] | None, sides, default: str | None = None) -> dict[str, PlayerSpec]:
        """`--policy SIDE=SPEC` (or a bare SPEC for every side) into one spec per side."""
        sides = list(sides)
        out = {s: self.spec(default or self.default) for s in sides}
        for item in items or []:
            side, eq, spec = item.partition("=")
            if eq and side.strip() in sides:
                out[side.strip()] = self.spec(spec, f"--policy {side.strip()}")
            elif eq and ":" not in side:
                raise DataError("--policy", item, f"unknown side {side.strip()!r}", "one of " + ", ".join(sides))
            else:
                for s in sides:
                    out[s] = self.spec(item)
        return out
