"""Every decision of a game goes through `decide` (engine.md, "Decisions"): it counts the
decision and asks the ruleset's one dispatcher (`players.choose`), which records it, or takes the
recorded answer when the game replays a record (simulator/decisions.py)."""

from __future__ import annotations

from simulator.jit import njit
from simulator.rulesets.panzerblitz_v2.players import choose


@njit(cache=True)
def decide(kind, n, t, st, side):
    """The chosen row of the `n` options in `st.opts` (no options: 0, and nobody is asked)."""
    if n <= 0:
        return 0
    st.n_dec[0] += 1
    return choose(kind, st.opts, n, t, st, side, st.player[side], st.params[side], st.dec)
