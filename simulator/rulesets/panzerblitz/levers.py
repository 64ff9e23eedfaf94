"""`balance suggest`'s PanzerBlitz levers: each victory threshold one step either way, and one unit
more or fewer of each unit type of the stronger side (docs/experiments.md)."""

from __future__ import annotations

from simulator.rulesets.panzerblitz.situation_schema import LEVELS, PanzerBlitzSituation
from simulator.suggest import Candidate


def levers(sit: PanzerBlitzSituation, lever: str, stronger: str) -> list[Candidate]:
    if lever == "threshold":
        return threshold_candidates(sit)
    if lever == "units":
        return unit_candidates(sit, stronger)
    return []


def threshold_candidates(sit: PanzerBlitzSituation) -> list[Candidate]:
    out = []
    for side in sit.sides:
        v = side.victory
        for level in LEVELS:
            if level not in v:
                continue
            key = f"situation.side.{side.name}.victory.{level}"
            value, compare = v[level], v.get("compare", ">=")
            if isinstance(value, dict):
                key += ".threshold"
                value, compare = value.get("threshold"), value.get("compare", compare)
            if isinstance(value, bool) or not isinstance(value, int | float):
                continue
            step = 1 if isinstance(value, int) else round(max(abs(value) * 0.1, 0.1), 6)
            lower_is_easier = compare in (">=", ">")
            for sign, word in ((-1, "easier" if lower_is_easier else "harder"),
                               (1, "harder" if lower_is_easier else "easier")):
                new = value + sign * step
                if isinstance(new, float):
                    new = round(new, 6)
                out.append(Candidate("threshold", key, new, value, 1,
                                     f"{side.name} {level} threshold {value:g} -> {new:g} ({word} for the {side.name}s)"))
    return out


def unit_candidates(sit: PanzerBlitzSituation, side_name: str) -> list[Candidate]:
    out = []
    side = sit.side(side_name)
    seen: set[str] = set()
    for gi, group in enumerate(side.groups):
        for unit, count in group.units.items():
            if unit in seen:
                continue
            seen.add(unit)
            total = side.unit_totals()[unit]
            key = f"situation.side.{side_name}.group.{gi}.units.{unit}"
            for d, word in ((-1, "fewer"), (1, "more")):
                out.append(Candidate("units", key, count + d, count, 1,
                                     f"one {unit} {word} for the {side_name}s ({total} -> {total + d}, "
                                     f"in group {gi} {group.name!r})"))
    return out
