"""Policy names and parameters as the command line and the runner see them.

A policy is a name and a vector of plain numbers (`--policy german=heuristic:aggression=0.8`).
The kernels receive the name as a small integer and the parameters as a float64 row, in the
order listed here; everything else about a policy lives in its own module.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from policies.heuristic import HEURISTIC
from policies.random_play import RANDOM
from simulator.errors import DataError

N_PARAMS = 8

# name -> (kernel id, {parameter: default}), parameters in kernel order.
POLICIES: dict[str, tuple[int, dict[str, float]]] = {
    "random": (RANDOM, {
        "hold_fire": 0.25,   # chance a unit holds its fire when it has a target
        "stay_put": 0.10,    # chance a unit does not move when it could
    }),
    "heuristic": (HEURISTIC, {
        "aggression": 0.6,        # 0 cautious .. 1 reckless: lowers the odds it accepts, raises advance
        "min_odds": 1.0,          # lowest odds (attack / defence) it attacks at, before aggression
        "objective_weight": 1.0,  # pull of the victory conditions' hexes and edges
        "risk": 1.0,              # weight of the enemy fire a hex is exposed to
        "cover_weight": 1.0,      # value of woods, towns, forts and hilltops
        "fire_weight": 1.0,       # value of a position with enemy stacks in range and sight
        "noise": 0.05,            # random jitter on every score: breaks ties, varies games
        "unload_distance": 4.0,   # carried units are set down this many hexes from the enemy or goal
    }),
}
for _name, (_id, _params) in POLICIES.items():
    assert len(_params) <= N_PARAMS, _name


@dataclass(frozen=True)
class PolicySpec:
    name: str
    params: dict[str, float] = field(default_factory=dict)

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

    def label(self) -> str:
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v:g}" for k, v in sorted(self.params.items()))


def parse_policy(text: str, where: str = "--policy") -> PolicySpec:
    """`NAME` or `NAME:KEY=VALUE[,KEY=VALUE…]`."""
    name, _, rest = text.partition(":")
    name = name.strip()
    if name not in POLICIES:
        raise DataError(where, text, f"unknown policy {name!r}", "one of " + ", ".join(POLICIES))
    known = POLICIES[name][1]
    params: dict[str, float] = {}
    for item in filter(None, (s.strip() for s in rest.split(","))):
        key, eq, raw = item.partition("=")
        key = key.strip()
        if not eq:
            raise DataError(where, item, "not KEY=VALUE", f"a parameter of {name}: " + ", ".join(known))
        if key not in known:
            raise DataError(where, item, f"{name} has no parameter {key!r}", ", ".join(known))
        try:
            params[key] = float(raw)
        except ValueError:
            raise DataError(where, item, f"{raw!r} is not a number", f"a number for {key}") from None
    return PolicySpec(name, params)


def parse_side_policies(items: list[str] | None, sides: list[str], default: str = "heuristic") -> dict[str, PolicySpec]:
    """`--policy SIDE=SPEC` (or a bare SPEC for every side) into one spec per side."""
    out = {s: parse_policy(default) for s in sides}
    for item in items or []:
        side, eq, spec = item.partition("=")
        if eq and side.strip() in sides:
            out[side.strip()] = parse_policy(spec, f"--policy {side.strip()}")
        elif eq and ":" not in side:
            raise DataError("--policy", item, f"unknown side {side.strip()!r}", "one of " + ", ".join(sides))
        else:
            for s in sides:
                out[s] = parse_policy(item)
    return out
