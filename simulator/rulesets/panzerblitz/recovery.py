"""Recovery (PB-SEQ-2 S6, PB-DISP): dispersed units of the phasing side recover.
"""

from __future__ import annotations

from simulator.jit import njit
from simulator.rulesets.panzerblitz.events import EV_RECOVER, log_event
from simulator.rulesets.panzerblitz.state import NOT_OWN_FIRE, ON_MAP, OWN_FIRE_STAYS


@njit(cache=True)
def recover(st, side):
    """PB-SEQ-2 S6 / PB-DISP-3: the phasing player's units turn face-up."""
    for u in range(st.utype.shape[0]):
        if st.side[u] != side:
            continue
        if st.dispersed[u] and st.status[u] == ON_MAP:
            if st.own_fire_hit[u] == OWN_FIRE_STAYS:
                # OQ-22 alternative: dispersed by its own side's fire this player-turn, it stays
                # dispersed through its next player-turn (PB-FORT-13).
                st.own_fire_hit[u] = NOT_OWN_FIRE
            else:
                st.own_fire_hit[u] = NOT_OWN_FIRE
                st.dispersed[u] = False
                log_event(st, EV_RECOVER, u, st.hex[u], 0, 0, 0, 0, 0)
        st.fired[u] = False
        st.moved[u] = False
        st.steps[u] = 0
        st.assaulted[u] = False
    for u in range(st.utype.shape[0]):
        st.dispersed_this_turn[u] = False
        if st.side[u] != side:
            st.revealed[u] = False  # seen through this player-turn only (Panzer Leader variant)
    st.overrun_hex[:] = False  # whole-array stores: no struct field read per hex (docs/performance.md, round 9)
    st.assaulted_hex[:] = False
