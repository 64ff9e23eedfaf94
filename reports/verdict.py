"""The plain-words verdict on a situation's balance, from the win-probability difference."""

from __future__ import annotations

from simulator.stats import win_difference

BALANCED_POINTS = 5.0   # "balanced" means the whole interval lies within ± this many points


def verdict(first: str, second: str, wins_first: int, wins_second: int, n: int) -> str:
    """'balanced within ±5 points', 'favours X by D ± H points' (or, for a lopsided interval,
    'by D points (95 % interval L to H)') or 'no clear favourite ...'.

    D is the first side's minus the second side's chance of winning, in percentage points, with
    its 95 % interval (`simulator.stats.win_difference`); H is half the interval's width.
    """
    d, lo, hi = (100.0 * x for x in win_difference(wins_first, wins_second, n))
    if -BALANCED_POINTS < lo and hi < BALANCED_POINTS:
        return f"balanced within ±{BALANCED_POINTS:g} points"
    if lo > 0 or hi < 0:
        side = first if d > 0 else second
        return f"favours the {side.capitalize()}s by {_points(d, lo, hi)}"
    return (f"no clear favourite, but not shown to be within ±{BALANCED_POINTS:g} points "
            "(need more games)")


def _points(d: float, lo: float, hi: float) -> str:
    """'35 ± 8 points' when the interval is symmetric at the precision shown, else its two ends,
    '100 points (95 % interval 98 to 100)': an interval near 0 % or 100 % is lopsided, and
    '100 ± 1' would claim up to 101."""
    d, lo, hi = abs(d), *sorted((abs(lo), abs(hi)))
    below, above = round(d) - round(lo), round(hi) - round(d)
    if below == above:
        return f"{d:.0f} ± {below:.0f} points"
    return f"{d:.0f} points (95 % interval {lo:.0f} to {hi:.0f})"
