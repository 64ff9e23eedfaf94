"""Policy names and parameters as the command line and the runner see them.

A policy is a name and a vector of plain numbers (`--policy german=heuristic:aggression=0.8`, or
`--policy german=@tuned.toml` for a policy file).  The kernels receive the name as a small
integer and the parameters as a float64 row, in the order of the policy's kernel; everything
else about a policy lives in its own module.  The heuristic player's parameters, with their
defaults, ranges and meanings, are data: policies/heuristic.toml.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simulator.errors import DataError
from simulator.rulesets.panzerblitz.players.heuristic import HEURISTIC, PARAM_NAMES
from simulator.rulesets.panzerblitz.players.random_play import RANDOM

HEURISTIC_FILE = Path(__file__).resolve().with_name("heuristic.toml")
# Style variants of a player (`balance equilibrium` puts them in its population): policy files.
STYLES_DIR = Path(__file__).resolve().with_name("styles")


@dataclass(frozen=True)
class Param:
    default: float
    lo: float
    hi: float
    meaning: str
    whole: bool = False   # written as whole numbers in the file (a count of hexes): a tuner rounds it


def _read_toml(path: Path) -> dict:
    from simulator.ruleset import read_toml

    return read_toml(path)


def load_param_file(path: Path, names: tuple[str, ...]) -> dict[str, Param]:
    """The `[param.NAME]` tables of a policy's data file, in the kernel's order `names`."""
    data = _read_toml(path).get("param")
    if not isinstance(data, dict):
        raise DataError(str(path), "param", "missing", "[param.NAME] tables")
    if list(data) != list(names):
        missing = [n for n in names if n not in data]
        extra = [n for n in data if n not in names]
        problem = (f"missing {missing}" if missing else "") + (f" unknown {extra}" if extra else "")
        raise DataError(str(path), "param", (problem or "out of order").strip(),
                        "the kernel's parameters in its order: " + ", ".join(names))
    out = {}
    for name, p in data.items():
        where = f"param.{name}"
        if not isinstance(p, dict):
            raise DataError(str(path), where, "not a table", "default, min, max, meaning")
        vals = []
        for key in ("default", "min", "max"):
            v = p.get(key)
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
                raise DataError(str(path), f"{where}.{key}", f"got {v!r}", "a finite number")
            vals.append(float(v))
        if not vals[1] <= vals[0] <= vals[2]:
            raise DataError(str(path), where, f"default {vals[0]} outside [{vals[1]}, {vals[2]}]", "min <= default <= max")
        if not isinstance(p.get("meaning"), str) or not p["meaning"]:
            raise DataError(str(path), f"{where}.meaning", "missing", "a one-line meaning")
        whole = all(isinstance(p[k], int) for k in ("default", "min", "max"))
        out[name] = Param(vals[0], vals[1], vals[2], p["meaning"], whole)
    return out


HEURISTIC_PARAMS = load_param_file(HEURISTIC_FILE, PARAM_NAMES)

RANDOM_PARAMS = {
    "hold_fire": Param(0.25, 0.0, 1.0, "chance a unit holds its fire when it has a target"),
    "stay_put": Param(0.10, 0.0, 1.0, "chance a unit does not move when it could"),
}

# name -> (kernel id, {parameter: Param}), parameters in kernel order.
POLICY_PARAMS: dict[str, tuple[int, dict[str, Param]]] = {
    "random": (RANDOM, RANDOM_PARAMS),
    "heuristic": (HEURISTIC, HEURISTIC_PARAMS),
}
# name -> (kernel id, {parameter: default}): what reports and older callers read.
POLICIES: dict[str, tuple[int, dict[str, float]]] = {
    name: (kid, {k: p.default for k, p in params.items()}) for name, (kid, params) in POLICY_PARAMS.items()
}
# Width of the kernels' parameter rows: the longest policy's (no fixed cap).
N_PARAMS = max(len(p) for _, p in POLICIES.values())


@dataclass(frozen=True)
class PolicySpec:
    name: str
    params: dict[str, float] = field(default_factory=dict)
    source: str = ""  # the policy file it was loaded from, if any

    @property
    def kernel_id(self) -> int:
        return POLICIES[self.name][0]

    def full_params(self) -> dict[str, float]:
        """Every parameter, defaults filled in."""
        return {**POLICIES[self.name][1], **self.params}

    def vector(self) -> np.ndarray:
        out = np.zeros(N_PARAMS, dtype=np.float64)
        for i, v in enumerate(self.full_params().values()):
            out[i] = v
        return out

    def non_default(self) -> dict[str, float]:
        defaults = POLICIES[self.name][1]
        return {k: v for k, v in self.params.items() if v != defaults[k]}

    def label(self) -> str:
        """The name and every parameter that differs from its default (reports name the players)."""
        changed = self.non_default()
        if not changed:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v:g}" for k, v in sorted(changed.items()))


def _number(where: str, item: str, key: str, raw) -> float:
    if isinstance(raw, bool):
        raw = "true" if raw else "false"
    try:
        v = float(raw)
    except (TypeError, ValueError):
        raise DataError(where, item, f"{raw!r} is not a number", f"a number for {key}") from None
    if not math.isfinite(v):
        raise DataError(where, item, f"{raw!r} is not finite", f"a finite number for {key}")
    return v


def parse_policy(text: str, where: str = "--policy") -> PolicySpec:
    """`NAME`, `NAME:KEY=VALUE[,KEY=VALUE…]` or `@FILE` (a policy file, `load_policy_file`)."""
    text = text.strip()
    if text.startswith("@"):
        return load_policy_file(Path(text[1:]))
    name, _, rest = text.partition(":")
    name = name.strip()
    if name not in POLICIES:
        raise DataError(where, text, f"unknown policy {name!r}", "one of " + ", ".join(POLICIES) + ", or @FILE")
    known = POLICIES[name][1]
    params: dict[str, float] = {}
    for item in filter(None, (s.strip() for s in rest.split(","))):
        key, eq, raw = item.partition("=")
        key = key.strip()
        if not eq:
            raise DataError(where, item, "not KEY=VALUE", f"a parameter of {name}: " + ", ".join(known))
        if key not in known:
            raise DataError(where, item, f"{name} has no parameter {key!r}", ", ".join(known))
        params[key] = _number(where, item, key, raw.strip())
    return PolicySpec(name, params)


def load_policy_file(path: Path) -> PolicySpec:
    """A policy file: `policy = "NAME"` and a `[params]` table of KEY = number (any subset)."""
    data = _read_toml(path)
    where = str(path)
    name = data.get("policy")
    if name not in POLICIES:
        raise DataError(where, "policy", f"got {name!r}", "one of " + ", ".join(POLICIES))
    # [provenance]: where a tuned player came from (`balance tune`); read by people, not the kernel.
    extra = sorted(set(data) - {"policy", "params", "provenance"})
    if extra:
        raise DataError(where, extra[0], "unknown key", "policy, [params] and [provenance]")
    raw = data.get("params", {})
    if not isinstance(raw, dict):
        raise DataError(where, "params", f"got {raw!r}", "a [params] table")
    known = POLICIES[name][1]
    params = {}
    for key, v in raw.items():
        if key not in known:
            raise DataError(where, f"params.{key}", f"{name} has no parameter {key!r}", ", ".join(known))
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise DataError(where, f"params.{key}", f"got {v!r}", "a finite number")
        params[key] = float(v)
    return PolicySpec(name, params, source=where)


def parse_side_policies(items: list[str] | None, sides: list[str], default: str = "heuristic") -> dict[str, PolicySpec]:
    """`--policy SIDE=SPEC` (or a bare SPEC for every side) into one spec per side."""
    out = {s: parse_policy(default) for s in sides}
    for item in items or []:
        side, eq, spec = item.partition("=")
        if eq and side.strip() in sides:
            out[side.strip()] = parse_policy(spec, f"--policy {side.strip()}")
        elif eq and ":" not in side and not side.strip().startswith("@"):
            raise DataError("--policy", item, f"unknown side {side.strip()!r}", "one of " + ", ".join(sides))
        else:
            for s in sides:
                out[s] = parse_policy(item)
    return out


def param_space(name: str):
    """A policy's parameters with the range a tuner searches (policies/heuristic.toml's min, max)."""
    from simulator.api import ParamRange

    return tuple(ParamRange(k, p.default, p.lo, p.hi, p.whole) for k, p in POLICY_PARAMS[name][1].items()
                 if p.hi > p.lo)


def styles(name: str) -> dict[str, dict[str, float]]:
    """The style variants of policy `name`: policies/styles/STYLE.toml files of that policy."""
    out = {}
    for path in sorted(STYLES_DIR.glob("*.toml")):
        spec = load_policy_file(path)
        if spec.name == name:
            out[path.stem] = spec.params
    return out


def params_markdown(name: str = "heuristic") -> str:
    """The parameters table of docs/policies.md, made from the policy's data file."""
    lines = ["| name | default | min | max | meaning |", "|---|---:|---:|---:|---|"]
    for key, p in POLICY_PARAMS[name][1].items():
        lines.append(f"| `{key}` | {p.default:g} | {p.lo:g} | {p.hi:g} | {p.meaning} |")
    return "\n".join(lines)
