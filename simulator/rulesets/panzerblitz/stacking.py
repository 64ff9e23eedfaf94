"""The stacking limit as the ruleset data gives it (PB-STACK-1, PB-STACK-3): read by the
situation checks, the set-up capacity check and the game tables."""

from __future__ import annotations

from simulator.ruleset import RulesetData


def stack_count(rs: RulesetData, unit_type: str) -> int:
    """What one counter of this type counts against the stacking limit (PB-STACK-3)."""
    cat = rs.units[unit_type]["category"]
    return int(rs.data["stacking"]["category_counts"].get(cat, 1))


def stacking_limit(rs: RulesetData, side: str) -> int:
    """Units of a side one hex may hold (PB-STACK-1)."""
    return int(rs.data["stacking"]["limit"][side])
