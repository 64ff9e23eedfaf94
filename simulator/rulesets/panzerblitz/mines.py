"""Minefields (PB-MINE): their attack on the units in them at the start of the owner's turn,
engineers clearing them (PB-MINE-9), and units destroying themselves (PB-SIT).
"""

from __future__ import annotations

from simulator.jit import njit
from simulator.rulesets.panzerblitz.combat import crt_result, roll_die
from simulator.rulesets.panzerblitz.events import (
    EV_MINE,
    EV_MINE_REMOVAL,
    EV_SELF_DESTROYED,
    log_event,
)
from simulator.rulesets.panzerblitz.losses import UNHARMED, apply_one, eliminate, mark_lost
from simulator.rulesets.panzerblitz.presence import is_piece
from simulator.rulesets.panzerblitz.state import ON_MAP


@njit(cache=True)
def minefield_attacks(st, ut, mt, ct, side):
    """PB-SEQ-2 S1 / PB-MINE-5..7: every enemy unit on a minefield is attacked alone at 2-1,
    with no terrain modifier.  One that comes through undispersed may stay without being
    attacked again (`mine_safe`); one dispersed is attacked again at the next S1 (pinned: it
    is dispersed through its own turn, so it cannot move off)."""
    enemy = 1 - side
    for u in range(st.utype.shape[0]):
        if not is_piece(st, ut, u) or st.side[u] != enemy:
            continue
        h = st.hex[u]
        if not st.mine[h] or st.mine_safe[u]:
            continue
        roll = roll_die()
        result = crt_result(ct.crt, ct.lowest_roll, ct.minefield_column, roll)
        outcome = apply_one(st, ut, u, result)
        if outcome == UNHARMED:
            st.mine_safe[u] = True  # PB-MINE-6
        log_event(st, EV_MINE, u, h, roll, result, outcome, 0, 0)


@njit(cache=True)
def may_self_destroy(st, ut, u, side):
    """PB-SELF-1/2: a player may destroy his own units (not mines, blocks or forts)."""
    return st.side[u] == side and st.status[u] == ON_MAP and not ut.positional[st.utype[u]] \
        and st.carried_by[u] < 0


@njit(cache=True)
def self_destroy(st, ut, u):
    """PB-SELF-1: remove the unit (an armored vehicle leaves a wreck, PB-WRECK-1); it counts for
    the enemy's victory conditions like any loss (PB-SELF-2)."""
    h = st.hex[u]
    eliminate(st, ut, u)
    log_event(st, EV_SELF_DESTROYED, u, h, 0, 0, 0, 0, 0)


@njit(cache=True)
def mine_removal_targets(st, ut, mt, side, u, out):
    """PB-MINE-9: the minefields adjacent to an undispersed engineer that has not fired."""
    # the commonest refusals first (close_assault.may_assault says why)
    if st.side[u] != side or not ut.engineer[st.utype[u]] or not is_piece(st, ut, u):
        return 0
    if st.dispersed[u] or st.fired[u]:
        return 0
    n = 0
    for d in range(6):
        h = mt.neighbours[st.hex[u], d]
        if h >= 0 and st.mine[h]:
            out[n] = h
            n += 1
    return n


@njit(cache=True)
def attempt_mine_removal(st, ut, u, h, mine_category):
    """PB-MINE-9: roll one die; a 1 removes the minefield.  The attempt is the engineer's
    attack for the turn and, like firing, keeps it from moving (OQ-13; with the alternative
    reading the fire phase lets it move afterwards, game.fire_phase)."""
    st.fired[u] = True
    roll = roll_die()
    removed = roll == 1
    if removed:
        st.mine[h] = False
        st.mine_side[h] = -1
        for v in range(st.utype.shape[0]):
            if st.status[v] == ON_MAP and st.hex[v] == h and ut.category[st.utype[v]] == mine_category:
                mark_lost(st, v, h)
    log_event(st, EV_MINE_REMOVAL, u, h, roll, 1 if removed else 0, 0, 0, 0)
    return removed
