"""The plain-words verdict on a situation's balance, from the win-probability difference."""

from __future__ import annotations

from simulator.stats import win_difference

BALANCED_POINTS = 5.0   # "balanced" means the whole interval lies within ± this many points


def verdict(first: str, second: str, wins_first: int, wins_second: int, n: int) -> str:
    """'balanced within ±5 points', 'favours X by D ± H points' or 'no clear favourite ...'.

    D is the first side's minus the second side's chance of winning, in percentage points, with
    its 95 % interval (`simulator.stats.win_difference`); H is half the interval's width.
    """
    d, lo, hi = (100.0 * x for x in win_difference(wins_first, wins_second, n))
    if -BALANCED_POINTS < lo and hi < BALANCED_POINTS:
        return f"balanced within ±{BALANCED_POINTS:g} points"
    if lo > 0 or hi < 0:
        side = first if d > 0 else second
        return f"favours the {side.capitalize()}s by {abs(d):.0f} ± {(hi - lo) / 2:.0f} points"
    return (f"no clear favourite, but not shown to be within ±{BALANCED_POINTS:g} points "
            "(need more games)")
