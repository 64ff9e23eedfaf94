"""What a combat result does to units (PB-CRT): dispersed, eliminated (wrecks, passengers
sharing their carrier's fate), a fort hit, the excess over a block's stacking limit; rolling
the die for a battle and applying its result to a stack; the DF a unit defends with.
"""

from __future__ import annotations

from simulator.jit import njit
from simulator.rulesets.panzerblitz.combat import (
    DISPERSED,
    DOUBLE_DISPERSED,
    NO_EFFECT,
    NOW_DISPERSED,
    NOW_ELIMINATED,
    UNHARMED,
    crt_result,
    roll_die,
)
from simulator.rulesets.panzerblitz.combat import (
    ELIMINATED as ELIMINATED_RESULT,  # state.ELIMINATED: a unit's status
)
from simulator.rulesets.panzerblitz.events import (
    EV_ELIMINATED_PASSENGER,
    EV_EXCESS,
    EV_HIT,
    log_event,
)
from simulator.rulesets.panzerblitz.forts import fort_in
from simulator.rulesets.panzerblitz.presence import is_piece, side_load
from simulator.rulesets.panzerblitz.state import ELIMINATED, TURN


@njit(cache=True)
def mark_lost(st, u, h):
    """Take a counter out of the game, noting where and in which game-turn (for the loss map)."""
    st.status[u] = ELIMINATED
    st.lost_hex[u] = h
    st.lost_turn[u] = st.clock[TURN]
    st.hex[u] = -1


@njit(cache=True)
def eliminate(st, ut, u):
    """PB-CRT-2 X: remove the unit; an armored vehicle leaves a wreck (PB-WRECK-1); a passenger
    shares its carrier's fate (PB-TRANS-10)."""
    h = st.hex[u]
    t = st.utype[u]
    st.dispersed[u] = False
    if ut.leaves_wreck[t] and h >= 0:
        st.wrecks[h, st.side[u]] += 1
    p = st.carrying[u]
    if p >= 0:
        mark_lost(st, p, h)
        st.carried_by[p] = -1
        st.carrying[u] = -1
        log_event(st, EV_ELIMINATED_PASSENGER, p, h, u, 0, 0, 0, 0)
    mark_lost(st, u, h)


@njit(cache=True)
def disperse(st, ut, u):
    st.dispersed[u] = True
    st.dispersed_this_turn[u] = True
    p = st.carrying[u]
    if p >= 0:
        st.dispersed[p] = True  # PB-DISP-6: carrier and passenger share the result
        if ut.armored[st.utype[u]]:
            # PB-TRANS-9: an armored carrier dispersed sets its passenger down at once,
            # dispersed; if that breaks the stacking limit the passenger is eliminated.
            st.carrying[u] = -1
            st.carried_by[p] = -1
            st.on_top[p] = st.on_top[u]  # PB-FORT-12: set down on top of the enemy fort its carrier is on
            h = st.hex[u]
            if side_load(st, ut, h, st.side[p]) > st.limits[st.side[p]]:
                mark_lost(st, p, h)
                st.dispersed[p] = False
                log_event(st, EV_ELIMINATED_PASSENGER, p, h, u, 0, 0, 0, 0)


@njit(cache=True)
def roll_and_apply(st, ut, ct, event, h, af, df, col, modifier, defender_side):
    """PB-CBT-11 / PB-CRT-5: roll one die, read the CRT, log the battle, apply the result to the
    whole defending stack; returns the result."""
    roll = roll_die()
    result = crt_result(ct.crt, ct.lowest_roll, col, roll + modifier)
    log_event(st, event, h, af, df, col, roll, modifier, result)
    apply_to_stack(st, ut, h, defender_side, result, ct.fort_excess_eliminated)
    return result


@njit(cache=True)
def apply_to_stack(st, ut, h, defender_side, result, excess_eliminated=False):
    """PB-CRT-5: the result applies to every defending unit, DD judged unit by unit.
    `excess_eliminated`: the OQ-26 switch (see `hit_fort`)."""
    if result == NO_EFFECT:
        return
    f = fort_in(st, ut, h, defender_side)
    if f >= 0:
        # PB-STK-7 / PB-FORT-10/11: the units on top of the fort are outside it: each takes
        # the result for itself; then the fort, for itself and the units inside.
        for u in range(st.utype.shape[0]):
            if st.on_top[u] and is_piece(st, ut, u) and st.hex[u] == h and st.side[u] == defender_side:
                outcome = apply_one(st, ut, u, result)
                log_event(st, EV_HIT, u, outcome, result, 0, 0, 0, 0)
        hit_fort(st, ut, f, result, excess_eliminated)
        return
    for u in range(st.utype.shape[0]):
        if not is_piece(st, ut, u) or st.hex[u] != h or st.side[u] != defender_side:
            continue
        outcome = apply_one(st, ut, u, result)
        log_event(st, EV_HIT, u, outcome, result, 0, 0, 0, 0)


@njit(cache=True)
def hit_fort(st, ut, f, result, excess_eliminated):
    """PB-FORT-5/14/16: fort f takes the result; destroyed, it takes every unit inside with it
    (not those on top, PB-FORT-5) and becomes a block; dispersed, it disperses the units inside.
    OQ-26: the block counts against stacking at once; by the adopted reading units on top over
    the limit stay until they move, by the alternative (`excess_eliminated`) the weakest of
    them are eliminated until the hex is within the limit.  Returns the fort's outcome."""
    h = st.hex[f]
    side = st.side[f]
    outcome = apply_one(st, ut, f, result)
    log_event(st, EV_HIT, f, outcome, result, 0, 0, 0, 0)
    if outcome == UNHARMED:
        return outcome
    for u in range(st.utype.shape[0]):
        if is_piece(st, ut, u) and st.hex[u] == h and st.side[u] == side and not st.on_top[u]:
            if outcome == NOW_ELIMINATED:
                eliminate(st, ut, u)
            else:
                disperse(st, ut, u)
            log_event(st, EV_HIT, u, outcome, result, 0, 0, 0, 0)
    if outcome == NOW_ELIMINATED:
        st.block[h] = True
        for u in range(st.utype.shape[0]):
            if st.hex[u] == h:
                st.on_top[u] = False  # no fort to be on top of any more
        if excess_eliminated:
            for s in range(2):
                # the excess, weakest (lowest DF) first; the wrecks these losses may leave
                # are not excess of their own
                excess = side_load(st, ut, h, s) - st.limits[s]
                while excess > 0:
                    weakest = -1
                    for u in range(st.utype.shape[0]):
                        if is_piece(st, ut, u) and st.hex[u] == h and st.side[u] == s and \
                                (weakest < 0 or unit_defense(st, ut, u) < unit_defense(st, ut, weakest)):
                            weakest = u
                    if weakest < 0:
                        break
                    excess -= max(ut.stack_count[st.utype[weakest]], 1)
                    eliminate(st, ut, weakest)
                    log_event(st, EV_EXCESS, weakest, h, 0, 0, 0, 0, 0)
    return outcome


@njit(cache=True)
def apply_one(st, ut, u, result):
    if result == ELIMINATED_RESULT or (result == DOUBLE_DISPERSED and st.dispersed[u]):
        eliminate(st, ut, u)
        return NOW_ELIMINATED
    if result >= DISPERSED:
        disperse(st, ut, u)
        return NOW_DISPERSED
    return UNHARMED


@njit(cache=True)
def unit_defense(st, ut, u):
    """One unit's DF as a defender (PB-TRANS-6: a truck or wagon carrying a passenger has 1)."""
    t = st.utype[u]
    if st.carrying[u] >= 0 and not ut.armored[t]:
        return 1
    return ut.defense[t]
