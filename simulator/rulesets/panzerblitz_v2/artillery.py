"""Indirect fire (PB2-11): artillery requests by forward observers, mortars, scatter, resolution.

Step i of an Operation (3.1): the phasing player places artillery requests (ARTILLERY decisions).
An option names the target hex, the artillery unit and a forward observer: an active infantry
unit (11.2.1), neither Spent nor Disrupted nor already an FO this turn (11.1.2c, 11.2.3, 11.2.5),
with a clear LoS to the hex (11.1.2a); the hex within the artillery's range (11.1.2b; off-board
batteries reach any hex of the play area, the situations' special rule).  The FO may not move
this turn (11.2.2, the No Move marker); the artillery is Spent (11.1.3, 11.3.9).  A mortar with an
FO fires at once (11.4.2); every other request is resolved in the administration (3.1.3 step 4),
the side of the last chit drawn first, and is cancelled if its on-board artillery was disrupted,
reduced or eliminated meanwhile (11.3.6).  Resolution: the scatter roll (11.3.1, scatter.toml),
then every unit in the hex hit is attacked separately with its own roll, AP against non-armored,
AT against armored (11.3.2), with the IF terrain modifiers (14.x tem_if_*), the unspotted and
defender-disrupted modifiers and no range modifier (readings.if_range_modifiers, PB2-OQ-33).
After an attack the hex hit gets an HE marker until the start of the next administration: units
firing from it take +1 (11.3.3, `fire_from_he_hex`).
Before a request is resolved its owner may cancel it (11.3.5, AR_CANCEL).
Smoke (11.1.1, 11.3.7, 12; smoke.py): a unit with the 'S' capability may be asked for smoke instead
of HE (an ARTILLERY row with column 6 = 1, on the same hexes as HE: the enemy's, to blind them); it
scatters as HE and lays a smoke counter where it lands, SMOKE 1 side up, SMOKE 2 if it scattered
(12.2.1), attacking nobody; `smoke_administration` flips and removes them (3.1.3 step 2).
Round 8 (helper B):
- 11.3.4 combining: after an HE request by an on-board unit, AR_COMBINE decisions add further
  ready on-board IF units in the same or an adjacent hex (each within a hex of every unit already in
  it, readings.ar_combine_adjacent = every_pair, PB2-OQ-91) through the same FO, the hex within each
  one's range; the strength combined as in DF (7.4 AP summed, 7.5 AT highest + 1 a further unit,
  PB2-OQ-34), each unit of the hex still attacked apart (11.3.2); off-board artillery never combines;
  a mortar (resolved at once, 11.4.2) combines only with mortars, other artillery only with other
  artillery, except on a pre-registered hex where all of it fires at once (a reading, PB2-OQ-91).
  The combined request is cancelled if any of its units is disrupted, reduced or eliminated (11.3.6).
- 11.3.8 self-observed fire: a red-range (IF, not mortar) unit on the map with a LoS to a spotted enemy
  unit within 6 hexes (indirect.self_observed_range) may fire at it itself, resolved at once as direct
  fire (7.0: one attack on an armored unit or on the hex's spotted non-armored units; modifier scope
  self_if, range modifiers included, PB2-OQ-33): an ARTILLERY row with column 7 = 1.  With
  readings.artillery_direct_fire = self_observed (PB2-OQ-90, the default) that is the only direct fire
  such a unit has (combat.can_fire refuses it plain direct and opportunity fire).
- 11.5 pre-registered hexes (the side's `pre_registered` hexes of the situation): IF on them is
  resolved at once as requested (11.5.1), the request's requirements unchanged; the scatter roll takes
  scatter.modifier.pre_registered (the "benefits" of 11.5, reconstructed).
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.panzerblitz_v2.bridges import tem_if as bridge_tem_if
from simulator.rulesets.panzerblitz_v2.combat import (
    ap2,
    ap_column,
    apply_result,
    armored_target,
    at_column,
    at_value,
    attacker_drm,
    defender_drm,
    df_value,
    dft_result,
    expected_steps,
    fire_column,
    log_event,
    resolve_attack,
    spotted_now,
    target_df,
    update_spotting,
)
from simulator.rulesets.panzerblitz_v2.decide import decide
from simulator.rulesets.panzerblitz_v2.players import AR_CANCEL, AR_COMBINE, ARTILLERY
from simulator.rulesets.panzerblitz_v2.rng import DICE, below, two_dice
from simulator.rulesets.panzerblitz_v2.smoke import obs_sees, place_smoke, sees
from simulator.rulesets.panzerblitz_v2.state import (
    EV_AR,
    EV_AR_CANCEL,
    EV_AR_COMBINE,
    EV_IF,
    EV_SCATTER,
    EV_SMOKE,
    OFF_BOARD,
    TS_FIRE,
)
from simulator.rulesets.panzerblitz_v2.tables import (
    AIR_O,
    K_IF,
    K_SELF_IF,
    M_DEF_DISRUPTED,
    M_FORT,
    M_IP,
    M_SMOKE_FROM,
    M_UNSPOTTED,
    M_WRECK,
)

IF_KIND = K_IF


@njit(cache=True)
def artillery_ready(t, st, a, side):
    """May artillery unit a fire for `side` in this Operation (11.1.2c)?"""
    if t.u_side[a] != side or not t.t_indirect[t.u_type[a]] or st.steps[a] <= 0 or st.spent[a] or st.disrupted[a]:
        return False
    if st.hex[a] == OFF_BOARD:
        return True
    return st.hex[a] >= 0 and st.active[a]


@njit(cache=True)
def observer_for(t, st, side, h, a):
    """An FO of `side` for a request on hex h, or -1 (11.1.2a, 11.2.1, 11.2.3, 11.2.5)."""
    for f in range(t.n_units):
        if f == a or t.u_side[f] != side or not st.active[f] or st.hex[f] < 0:
            continue
        if not t.t_infantry[t.u_type[f]] or st.spent[f] or st.disrupted[f] or st.fo[f]:
            continue
        if sees(t, st, st.hex[f], h):
            return f
    if t.n_obs > 0:
        for o in range(t.n_units):                 # 16.2 (round 8): an observation aircraft over the map
            if t.u_side[o] == side and t.t_air[t.u_type[o]] == AIR_O and not st.fo[o] and obs_sees(t, st, o, h):
                return o
    return -1


@njit(cache=True)
def ar_options(t, st, side):
    st.opts[0, 0] = -1
    for k in range(1, 8):
        st.opts[0, k] = 0
    n = 1
    enemy = 1 - side
    # the enemy units and steps of each hex, once (speed only)
    count = np.zeros(t.n_hexes, dtype=np.int64)
    steps_in = np.zeros(t.n_hexes, dtype=np.int64)
    for u in range(t.n_units):
        if st.hex[u] >= 0 and t.u_side[u] == enemy:
            count[st.hex[u]] += 1
            steps_in[st.hex[u]] += st.steps[u]
    for a in range(t.n_units):
        if not artillery_ready(t, st, a, side):
            continue
        for h in range(t.n_hexes):
            if not t.play[h] or n >= st.opts.shape[0]:
                continue
            k = count[h]
            steps = steps_in[h]
            if k == 0:
                continue
            if st.hex[a] >= 0 and t.dist[st.hex[a], h] > t.t_range[t.u_type[a]]:
                continue
            f = observer_for(t, st, side, h, a)
            if f < 0:
                continue
            st.opts[n, 0] = h
            st.opts[n, 1] = a
            st.opts[n, 2] = f
            st.opts[n, 3] = k
            st.opts[n, 4] = steps
            st.opts[n, 5] = 1 if fires_now(t, st, a, h, side) else 0
            st.opts[n, 6] = 0
            st.opts[n, 7] = 0
            st.opts[n, 8] = -1
            st.opts[n, 9] = 0
            n += 1
            if t.t_smoke[t.u_type[a]] and t.smoke_ok[h] and n < st.opts.shape[0]:
                for c in range(10):                    # 11.1.1: the same request, smoke (12.1)
                    st.opts[n, c] = st.opts[n - 1, c]
                st.opts[n, 6] = 1
                n += 1
        if self_observer(t, st, a):
            n = self_observed_options(t, st, a, side, count, n)
    return n


@njit(cache=True)
def fires_now(t, st, a, h, side):
    """Is a request of unit a on hex h resolved at once: a mortar through an FO (11.4.2), or any IF
    on a hex the side has pre-registered (11.5.1)?"""
    return (t.t_mortar[t.u_type[a]] and st.hex[a] >= 0) or t.prereg[side, h]


@njit(cache=True)
def self_observer(t, st, a):
    """PB2-11.3.8: a red-range (not mortar) unit on the map, which may direct its own fire."""
    ty = t.u_type[a]
    return t.art_self_observed and st.hex[a] >= 0 and t.t_indirect[ty] and not t.t_mortar[ty]


@njit(cache=True)
def self_targets(t, st, h, target_unit, enemy):
    """PB2-11.3.8: the targets of a self-observed fire on hex h, in st.targets: the armored unit
    `target_unit`, or (-1) the hex's spotted non-armored units not yet the target of direct fire this
    Operation (7.1.5); units in a fortification or riding are not its targets (a reading)."""
    nt = 0
    for u in range(t.n_units):
        if st.hex[u] != h or t.u_side[u] != enemy or st.in_fort[u] or st.df_target_op[u] == st.op[0]:
            continue
        if target_unit >= 0 and u != target_unit:
            continue
        if target_unit < 0 and t.t_armored[t.u_type[u]]:
            continue
        if st.unspotted[u] and not spotted_now(t, st, u):
            continue                         # "a SPOTTED unit" (11.3.8)
        st.targets[nt] = u
        nt += 1
    return nt


@njit(cache=True)
def self_observed_options(t, st, a, side, count, n):
    """PB2-11.3.8: the rows of unit a's self-observed fire: each hex within indirect.self_observed_range
    (and its range) that it sees holding a spotted enemy unit; one row an armored unit, one for the
    non-armored units (7.3)."""
    enemy = 1 - side
    ha = st.hex[a]
    one = np.empty(1, dtype=np.int64)
    half = np.ones(1, dtype=np.int64)
    one[0] = a
    limit = min(t.self_obs_range, t.t_range[t.u_type[a]])
    for h in range(t.n_hexes):
        if count[h] == 0 or t.dist[ha, h] > limit or not sees(t, st, ha, h):
            continue
        for k in range(count[h] + 1):
            if n >= st.opts.shape[0]:
                return n
            # the armored units of the hex one by one, then (k == count) its non-armored ones
            unit = -1
            if k < count[h]:
                j = 0
                for u in range(t.n_units):
                    if st.hex[u] == h and t.u_side[u] == enemy:
                        if j == k:
                            unit = u
                            break
                        j += 1
                if not t.t_armored[t.u_type[unit]]:
                    continue
            nt = self_targets(t, st, h, unit, enemy)
            if nt == 0:
                continue
            armored = unit >= 0
            col = fire_column(t, st, one, 1, half, st.targets, nt, armored)
            if col < 0:
                continue
            dis = 0
            steps = 0
            for i in range(nt):
                steps += st.steps[st.targets[i]]
                if st.disrupted[st.targets[i]]:
                    dis += 1
            drm = attacker_drm(t, st, one, 1, h, K_SELF_IF, -1) + \
                defender_drm(t, st, st.targets, nt, False, K_SELF_IF, False, False)
            st.opts[n, 0] = h
            st.opts[n, 1] = a
            st.opts[n, 2] = a
            st.opts[n, 3] = nt
            st.opts[n, 4] = steps
            st.opts[n, 5] = 1
            st.opts[n, 6] = 0
            st.opts[n, 7] = 1
            st.opts[n, 8] = unit
            st.opts[n, 9] = int(100.0 * expected_steps(t, col, drm, nt, dis / nt))
            n += 1
    return n


@njit(cache=True)
def self_observed_fire(t, st, a, h, unit, side):
    """PB2-11.3.8: unit a's own fire at hex h, resolved at once as direct fire (7.0)."""
    nt = self_targets(t, st, h, unit, 1 - side)
    if nt == 0:
        return
    firers = np.empty(1, dtype=np.int64)
    firers[0] = a
    halves = np.ones(1, dtype=np.int64)
    resolve_attack(t, st, firers, 1, halves, h, st.targets[:nt].copy(), nt, unit >= 0, K_SELF_IF, False, False,
                   side, -99, 0)
    st.ts[st.turn[0], side, TS_FIRE] += 1


@njit(cache=True)
def if_expected(t, st, group, ng, h, side):
    """For players: the expected step losses of an HE attack by `group` on hex h (each enemy unit
    apart, 11.3.2; no scatter)."""
    e = 0.0
    for u in range(t.n_units):
        if st.hex[u] != h or t.u_side[u] == side:
            continue
        col = if_group_column(t, st, group, ng, u)
        e += expected_steps(t, col, if_drm(t, st, u, h, IF_KIND), 1, 1.0 if st.disrupted[u] else 0.0)
    return e


@njit(cache=True)
def may_combine(t, st, b, group, ng, h, f, side):
    """PB2-11.3.4: may unit b join the HE request of `group` on hex h through FO f?  On the map
    (off-board artillery may not combine), ready, the hex in its range, in the same or an adjacent hex
    of every unit of the group (PB2-OQ-91), resolved when they are (a mortar with mortars, PB2-OQ-91)."""
    if not artillery_ready(t, st, b, side) or st.hex[b] < 0 or b == f:
        return False
    if t.dist[st.hex[b], h] > t.t_range[t.u_type[b]]:
        return False
    for i in range(ng):
        if group[i] == b:
            return False
    if fires_now(t, st, b, h, side) != fires_now(t, st, group[0], h, side):
        return False
    for i in range(ng if t.ar_combine_pairs else 1):
        if t.dist[st.hex[b], st.hex[group[i]]] > 1:
            return False
    return True


@njit(cache=True)
def combine_step(t, st, group, h, f, side, room):
    """PB2-11.3.4: AR_COMBINE decisions until the player stops; returns the group's size."""
    ng = 1
    for _ in range(t.n_units):
        if ng > room:
            break
        base = if_expected(t, st, group, ng, h, side)
        n = 1
        for b in range(t.n_units):
            if n >= st.opts.shape[0] or not may_combine(t, st, b, group, ng, h, f, side):
                continue
            group[ng] = b
            st.opts[n, 0] = b
            st.opts[n, 1] = int(100.0 * if_expected(t, st, group, ng + 1, h, side))
            st.opts[n, 2] = int(100.0 * (base + if_expected(t, st, group[ng:], 1, h, side)))
            st.opts[n, 3] = ap2(t, st, b)
            st.opts[n, 4] = at_value(t, st, b)
            n += 1
        if n == 1:
            break
        st.opts[0, 0] = -1
        st.opts[0, 1] = int(100.0 * base)
        st.opts[0, 2] = int(100.0 * base)
        st.opts[0, 3] = 0
        st.opts[0, 4] = 0
        i = decide(AR_COMBINE, n, t, st, side)
        if i == 0:
            break
        b = st.opts[i, 0]
        group[ng] = b
        ng += 1
        st.spent[b] = True                     # 11.1.3, 11.3.9
        st.acted[b] = True
        log_event(st, EV_AR_COMBINE, side, h, group[0], b, 0, 0)
    return ng


@njit(cache=True)
def ar_step(t, st, side):
    """Step i of an Operation: artillery requests until the player stops."""
    for _ in range(t.n_units + 1):
        n = ar_options(t, st, side)
        if n <= 1:
            return
        i = decide(ARTILLERY, n, t, st, side)
        if i == 0:
            return
        h = st.opts[i, 0]
        a = st.opts[i, 1]
        f = st.opts[i, 2]
        now = st.opts[i, 5] == 1
        smoke = st.opts[i, 6] == 1
        if st.opts[i, 7] == 1:                 # 11.3.8: self-observed, resolved at once as DF
            log_event(st, EV_AR, side, h, a, a, 1, 0)
            self_observed_fire(t, st, a, h, st.opts[i, 8], side)
            continue
        st.fo[f] = True                        # No Move (11.2.2); not Spent (11.2.4)
        st.spent[a] = True                     # 11.1.3
        st.acted[a] = True
        log_event(st, EV_AR, side, h, a, f, 1 if now else 0, 1 if smoke else 0)
        group = np.empty(t.n_units, dtype=np.int64)
        group[0] = a
        ng = 1
        room = t.n_units - 1 if now else st.ar.shape[0] - st.n_ar[0] - 1
        if not smoke and st.hex[a] >= 0 and room > 0:
            ng = combine_step(t, st, group, h, f, side, room)      # 11.3.4
        obs = t.u_air[f]                       # 16.2: observed from the air, the scatter roll +1
        if now:
            fire_group(t, st, group, ng, h, side, smoke, obs)   # 11.4.2, 11.5.1
        elif st.n_ar[0] < st.ar.shape[0]:
            k = st.n_ar[0]
            for j in range(ng):
                st.ar[k + j, 0] = h
                st.ar[k + j, 1] = group[j]
                st.ar[k + j, 2] = side
                st.ar[k + j, 3] = st.steps[group[j]]
                st.ar[k + j, 4] = 1 if smoke else 0
                st.ar[k + j, 5] = 0 if j == 0 else k + 1    # 11.3.4: combined with the request of row k
                st.ar[k + j, 6] = 1 if obs else 0
            st.n_ar[0] = k + ng


@njit(cache=True)
def scatter(t, st, a, h, obs):
    """11.3.1: the hex the fire lands on (scatter.toml bands, direction 1d6, PB2-OQ-57); `obs`: an
    observation aircraft was the FO (16.2, scatter.modifier.observation_aircraft)."""
    roll = two_dice(st.streams)
    if st.hex[a] == OFF_BOARD:
        roll += t.scat_offboard
    if t.prereg[t.u_side[a], h]:
        roll += t.scat_prereg                  # 11.5: the "benefits" of a registered hex (reconstructed)
    if obs:
        roll += t.scat_obs_air
    k = 0
    for b in range(t.scat_max.shape[0]):
        if roll <= t.scat_max[b]:
            k = t.scat_hexes[b]
            break
    if k == 0:
        return h
    d = below(st.streams, DICE, 6)
    out = h
    for _ in range(k):
        nxt = t.neighbours[out, d]
        if nxt < 0 or not t.play[nxt]:
            break
        out = nxt
    log_event(st, EV_SCATTER, t.u_side[a], h, out, roll, 0, 0)
    return out


@njit(cache=True)
def if_column(t, st, a, u):
    """11.3.2: the column of attacker a's IF (or bomb attack, 16.3.1) on unit u alone: AT against
    an armored unit, AP against a non-armored one."""
    if armored_target(t, st, u):           # 15.5.3: in a fortification, its DF, armored
        return at_column(t, at_value(t, st, a) - target_df(t, st, u))
    return ap_column(t, ap2(t, st, a), df_value(t, st, u))


@njit(cache=True)
def if_group_column(t, st, group, ng, u):
    """11.3.4: the column of the combined IF of `group` on unit u, combined as in DF (7.4: AP summed;
    7.5: the highest AT + 1 a further unit, PB2-OQ-34); one unit: if_column."""
    if ng == 1:
        return if_column(t, st, group[0], u)
    if armored_target(t, st, u):
        best = 0
        count = 0
        for i in range(ng):
            a = at_value(t, st, group[i])
            if a > 0 or t.at_zero_counts:
                count += 1
                best = max(best, a)
        return at_column(t, best + t.at_additional * (max(count, 1) - 1) - target_df(t, st, u))
    attack2 = 0
    for i in range(ng):
        attack2 += ap2(t, st, group[i])
    return ap_column(t, attack2, df_value(t, st, u))


@njit(cache=True)
def if_drm(t, st, u, hit, kind):
    """The modifiers of unit u in hex `hit` against an attack resolved as IF (11.3.2; a bomb attack
    16.3.1 with kind = air): the IF terrain modifiers and those of modifiers.toml whose scope has
    the kind; unspotted as its marker is now."""
    drm = bridge_tem_if(t, st, hit, t.t_soft_if[t.u_type[u]])      # (14.7.5: a destroyed bridge)
    if st.unspotted[u] and t.drm_applies[M_UNSPOTTED, kind]:
        drm += t.drm_value[M_UNSPOTTED]
    if st.disrupted[u] and t.drm_applies[M_DEF_DISRUPTED, kind]:
        drm += t.drm_value[M_DEF_DISRUPTED]
    if st.wreck_sp[hit] > 0 and t.drm_applies[M_WRECK, kind]:
        drm += t.drm_value[M_WRECK]                # 15.1.2
    if st.in_ip[u] and t.drm_applies[M_IP, kind]:
        drm += t.drm_value[M_IP]                   # 15.4.4: +1 to all attacks
    if st.in_fort[u] and t.drm_applies[M_FORT, kind]:
        drm += t.drm_value[M_FORT]                 # 15.5.3: +2 to all attacks
    return drm


@njit(cache=True)
def if_attack_unit(t, st, a, u, hit, extra, kind, ev, side, rolled):
    """11.3.2: attacker a's attack resolved as IF on unit u in hex `hit` alone, with its own roll and
    the attacker's modifiers `extra` (a bomb attack, 16.3.1: kind air, event EV_AIR_FIRE); the result
    applied; rolled = (natural, DRM)."""
    if_attack_col(t, st, if_column(t, st, a, u), u, hit, extra, kind, ev, side, rolled)


@njit(cache=True)
def if_attack_col(t, st, col, u, hit, extra, kind, ev, side, rolled):
    """if_attack_unit on the column `col` (a combined attack's, 11.3.4)."""
    drm = extra + if_drm(t, st, u, hit, kind)
    natural = two_dice(st.streams)
    res = dft_result(t, col, natural, drm)
    log_event(st, ev, side, hit, col, natural, drm, res * 100 + 1)
    one = np.empty(1, dtype=np.int64)
    was = np.empty(1, dtype=np.bool_)
    one[0] = u
    was[0] = st.disrupted[u]
    apply_result(t, st, one, 1, res, was)
    rolled[0] = natural
    rolled[1] = drm


@njit(cache=True)
def indirect_fire(t, st, a, h, side, smoke):
    """The fire of artillery unit a alone (fire_group)."""
    group = np.empty(1, dtype=np.int64)
    group[0] = a
    fire_group(t, st, group, 1, h, side, smoke, False)


@njit(cache=True)
def fire_group(t, st, group, ng, h, side, smoke, obs):
    """11.3.2: every unit in the hex hit attacked separately, in turn, with its own roll, by the
    combined strength of `group` (11.3.4; one scatter roll, its first unit's); or, `smoke`, a smoke
    counter where it lands (12.1, 12.2.1)."""
    a = group[0]
    hit = scatter(t, st, a, h, obs)
    if smoke:
        up = place_smoke(t, st, hit, hit != h)
        if up > 0:
            log_event(st, EV_SMOKE, side, hit, up, 0, 0, 0)
        st.ts[st.turn[0], side, TS_FIRE] += 1
        return
    victims = np.empty(t.n_units, dtype=np.int64)
    nv = 0
    for u in range(t.n_units):
        if st.hex[u] == hit:
            victims[nv] = u
            nv += 1
    rolled = np.empty(2, dtype=np.int64)
    for i in range(nv):
        u = victims[i]
        if st.hex[u] != hit:
            continue
        update_spotting(t, st, u)              # judged when the fire is resolved (6.1.2)
        extra = 0
        smoked = 0
        for j in range(ng):
            if st.hex[group[j]] >= 0 and st.smoke[st.hex[group[j]]] > 0:
                smoked += 1
        if 2 * smoked >= ng and smoked > 0 and t.drm_applies[M_SMOKE_FROM, IF_KIND]:
            extra = t.drm_value[M_SMOKE_FROM]          # 12.2.6: all fire from a smoke hex (7.6.1 majority)
        if_attack_col(t, st, if_group_column(t, st, group, ng, u), u, hit, extra, IF_KIND, EV_IF, side, rolled)
    st.he[hit] = True                          # 11.3.3: the HE marker, until the next administration
    st.ts[st.turn[0], side, TS_FIRE] += 1


@njit(cache=True)
def cancelled(t, st, h, side):
    """PB2-11.3.5: AR_CANCEL, the owner's choice to cancel a request on hex h before it is resolved."""
    enemy = 0
    friends = 0
    for u in range(t.n_units):
        x = st.hex[u]
        if x < 0:
            continue
        if x == h and t.u_side[u] != side:
            enemy += 1
        elif x == h:
            friends += 1
    for k in range(2):
        st.opts[k, 0] = k
        st.opts[k, 1] = enemy
        st.opts[k, 2] = friends
    return decide(AR_CANCEL, 2, t, st, side) == 1


@njit(cache=True)
def resolve_requests(t, st, first_side):
    """3.1.3 step 4: the requests of the turn, `first_side`'s first; 11.3.6 cancellations."""
    for k in range(2):
        side = first_side if k == 0 else 1 - first_side
        group = np.empty(max(st.n_ar[0], 1), dtype=np.int64)
        for i in range(st.n_ar[0]):
            if st.ar[i, 2] != side or st.ar[i, 5] > 0:
                continue                       # a unit combining with an earlier row's request (11.3.4)
            h = st.ar[i, 0]
            a = st.ar[i, 1]
            ng = 0
            lost = False
            for j in range(i, st.n_ar[0]):
                if j == i or st.ar[j, 5] == i + 1:
                    b = st.ar[j, 1]
                    group[ng] = b
                    ng += 1
                    if st.hex[b] != OFF_BOARD and (st.hex[b] < 0 or st.disrupted[b] or st.steps[b] < st.ar[j, 3]):
                        lost = True            # 11.3.6: any participating unit
            if lost:
                log_event(st, EV_AR_CANCEL, side, h, a, 0, 0, 0)
                continue
            if cancelled(t, st, h, side):
                log_event(st, EV_AR_CANCEL, side, h, a, 1, 0, 0)
                continue
            fire_group(t, st, group, ng, h, side, st.ar[i, 4] == 1, st.ar[i, 6] == 1)
    st.n_ar[0] = 0


@njit(cache=True)
def smoke_administration(t, st):
    """3.1.3 step 2, 12.2.1: SMOKE 2 counters are removed, SMOKE 1 counters flipped."""
    if st.n_smoke[0] == 0:
        return
    for h in range(t.n_hexes):
        if st.smoke[h] == 2:
            st.smoke[h] = 0
            st.n_smoke[0] -= 1
            log_event(st, EV_SMOKE, -1, h, 0, 2, 0, 0)
        elif st.smoke[h] == 1:
            st.smoke[h] = 2
            log_event(st, EV_SMOKE, -1, h, 2, 1, 0, 0)
