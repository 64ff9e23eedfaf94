"""Every decision of a game goes through `decide` (engine.md, "Decisions"): it records (kind, n,
chosen) and, when a game is replayed from its record, takes the recorded choice instead of asking
the side's player (`players.choose`, the one dispatcher)."""

from __future__ import annotations

from simulator.jit import njit
from simulator.rulesets.panzerblitz_v2.players import choose


@njit(cache=True)
def decide(kind, n, t, st, side):
    """Record (kind, n, chosen); when replaying, the recorded choice (the players are not asked)."""
    k = st.n_dec[0]
    if st.n_forced[0] >= 0:
        idx = st.forced[k, 2] if k < st.n_forced[0] else 0
    else:
        idx = choose(kind, st.opts, n, t, st, side)
    if k < st.dec.shape[0]:
        st.dec[k, 0] = kind
        st.dec[k, 1] = n
        st.dec[k, 2] = idx
    st.n_dec[0] = k + 1
    return idx
