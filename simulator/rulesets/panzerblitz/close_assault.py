"""Close assault (PB-CAT): who may assault, and the assault on a hex.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.panzerblitz.combat import CLASS_I, NON_ARMORED, hill_halves
from simulator.rulesets.panzerblitz.events import EV_ASSAULT, EV_ASSAULTER, log_event
from simulator.rulesets.panzerblitz.fire import (
    defender_stack,
    dispersed_modifier,
    odds_of,
    stack_kind_of,
)
from simulator.rulesets.panzerblitz.losses import roll_and_apply
from simulator.rulesets.panzerblitz.presence import is_piece
from simulator.rulesets.panzerblitz.spotting import brown_between
from simulator.rulesets.panzerblitz.state import MARCH_OVER


@njit(cache=True)
def may_assault(st, ut, u, side):
    """PB-CAT-1/3/9: infantry or cavalry, face-up, not fired, moved at most one hex, not just unloaded."""
    # The commonest refusals first (the other side, a unit that never assaults): players ask
    # this of every unit for every target hex, and each state field read takes and drops a
    # reference (docs/performance.md).
    if st.side[u] != side:
        return False
    t = st.utype[u]
    if not ut.can_assault[t] or not is_piece(st, ut, u):
        return False
    return (not st.dispersed[u] and not st.fired[u] and not st.assaulted[u]
            and st.steps[u] <= 1 and ut.attack[t] > 0 and st.march_state[st.group[u]] == MARCH_OVER)  # PB-SIT-7


@njit(cache=True)
def resolve_assault(st, ut, mt, ct, side, assaulters, n_ass, target):
    """PB-CAT-4..7: adjacent assaulters' AF (no WEC, PB-WEC-8; halved per PB-HILL) against the
    target hex's combined DF; terrain modifiers apply; -2 on the die; one column up when an
    engineer assaults from a hex together with an infantry or cavalry unit."""
    enemy = 1 - side
    df, kind, n_def, n_disp = defender_stack(st, ut, mt, target, enemy)
    if df <= 0 or st.assaulted_hex[target]:
        return -1
    if ct.cat_rf1_armor_barred and stack_kind_of(st, ut, mt, ct, target, enemy, kind) != NON_ARMORED:
        # OQ-18 alternative: the WEC's "within half range" literally: an I-class unit of
        # range 1 (half of it 0) may not close-assault an armored target (a tie: armored for it).
        n_ok = 0
        for i in range(n_ass):
            t = st.utype[assaulters[i]]
            if not (ut.weapon[t] == CLASS_I and ut.range[t] <= 1):
                assaulters[n_ok] = assaulters[i]
                n_ok += 1
        n_ass = n_ok
    af = 0
    for i in range(n_ass):
        u = assaulters[i]
        a = st.hex[u]
        halved = hill_halves(mt.level[a], mt.level[target], True, brown_between(mt, a, target))
        x = ut.attack[st.utype[u]]
        if halved:
            x = int(np.floor(x * ct.halving))
        af += x
    if af <= 0:
        return -1
    col = odds_of(ct, af, df)
    if col < 0:
        return -1  # PB-CAT-7
    engineer_bonus = False
    for i in range(n_ass):
        for j in range(n_ass):
            ui = assaulters[i]
            uj = assaulters[j]
            if st.hex[ui] == st.hex[uj] and ut.engineer[st.utype[ui]] and not ut.engineer[st.utype[uj]]:
                engineer_bonus = True
    if engineer_bonus:
        col = min(col + 1, ct.crt.shape[1] - 1)  # PB-CAT-6, one column however many engineers
    modifier = mt.terrain_mod[target] + ct.mod_close_assault + dispersed_modifier(ct, n_def, n_disp)
    for i in range(n_ass):
        st.assaulted[assaulters[i]] = True  # its one attack this turn (PB-CBT-3)
        log_event(st, EV_ASSAULTER, assaulters[i], target, ut.attack[st.utype[assaulters[i]]], 0, 0, 0, 0)
    st.assaulted_hex[target] = True
    return roll_and_apply(st, ut, ct, EV_ASSAULT, target, af, df, col, modifier, enemy)
