"""The heuristic PanzerBlitz player: every decision scored, compiled with the game kernel.

It plays towards its side's goal (policies/goals.py): advance on, hold, or leave by the
hexes the victory conditions name, and kill where the odds are good.  It sees what a player
sees: the whole board (PanzerBlitz has no hidden units), the line-of-sight table and the
rules of fire; it never looks at die rolls to come.

Scores are in one currency, "units": destroying an average enemy unit is worth about 1, losing
one of its own costs about 1, and one hex of progress towards the goal is worth 0.25 times
the objective weight.  The parameters (policies/spec.py, in this order) scale the terms.

Where each decision lives:
- set-up, entry and movement: `hex_score` (goal, danger, cover, view, fire position),
  `pick_hex`, `pick_move` (with overruns, `overrun_gain`);
- fire: `plan_fire` (concentrate on the best odds and most valuable stacks);
- close assault: `pick_assault`; transport: `want_load`, `want_unload`.
"""

from __future__ import annotations

import numpy as np

from policies.goals import ADVANCE, DEFEND, EXIT, FAR, MOD_OFFSET, NO_GOAL
from simulator.jit import njit
from simulator.panzerblitz.combat import WEAPON_INDEX, hill_halves, modified_attack, odds_column
from simulator.panzerblitz.rules import (
    attack_af,
    defender_stack,
    dispersed_modifier,
    exposed_passenger,
    fire_mode,
    fire_options,
    fire_reaches,
    firer_af_mode,
    is_piece,
    may_assault,
    may_fire,
    may_fire_intensively,
    odds_of,
    plan_multiple,
    stack_kind_of,
    unit_defense,
)
from simulator.panzerblitz.state import N_TURNS, TURN

HEURISTIC = 1  # kernel id (policies/spec.py)

AGGRESSION, MIN_ODDS, OBJECTIVE_W, RISK, COVER_W, FIRE_W, NOISE, UNLOAD_DISTANCE = range(8)

# Rows of the per-phase `fields` array (int64[N_FIELDS, n_hex]) that `enemy_fields` fills;
# PAIRING is the side's own: riders without a carrier minus empty carriers, per hex.
THREAT_SOFT, THREAT_ARMORED, ENEMY_DIST, TARGET_NEAR, PAIRING = range(5)
N_FIELDS = 5

HEX_PROGRESS = 0.25     # worth of one hex nearer the goal, in units
MAX_SCAN = 24           # farthest range any weapon reaches on these boards (hexes)


# ---------------------------------------------------------------- what the enemy can do

@njit(cache=True)
def enemy_fields(st, ut, mt, ct, side, fields):
    """Per hex, from the enemy's current positions (they fire before they move, PB-SEQ-2):
    the AF their undispersed units could bring on a non-armored / armored unit there next
    turn (LOS, range, WEC, hill halving, and spotting: woods and towns hide a unit unless an
    enemy stands adjacent, PB-SPOT-1/2); the distance to the nearest enemy; and the distance
    to the nearest enemy stack a unit there could see to fire at."""
    n_hex = mt.neighbours.shape[0]
    enemy = 1 - side
    threat_soft = fields[THREAT_SOFT]
    threat_armored = fields[THREAT_ARMORED]
    enemy_dist = fields[ENEMY_DIST]
    target_near = fields[TARGET_NEAR]
    threat_soft[:] = 0
    threat_armored[:] = 0
    enemy_dist[:] = FAR
    target_near[:] = FAR
    spotter = np.zeros(n_hex, dtype=np.bool_)
    for e in range(st.utype.shape[0]):
        if not is_piece(st, ut, e) or st.side[e] != enemy:
            continue
        he = st.hex[e]
        for h in range(n_hex):
            d = mt.dist[he, h]
            if d < enemy_dist[h]:
                enemy_dist[h] = d
            if d <= MAX_SCAN and d < target_near[h] and (d <= 1 or (mt.los[h, he] and not mt.concealing[he])):
                target_near[h] = d
        if not st.dispersed[e]:
            spotter[he] = True
            for k in range(6):
                nb = mt.neighbours[he, k]
                if nb >= 0:
                    spotter[nb] = True
    for e in range(st.utype.shape[0]):
        if not is_piece(st, ut, e) or st.side[e] != enemy or st.dispersed[e]:
            continue
        t = st.utype[e]
        if ut.attack[t] <= 0 or ut.weapon[t] < 0:
            continue
        he = st.hex[e]
        r = ut.range[t]
        for h in range(n_hex):
            d = mt.dist[he, h]
            if d > r or d == 0:
                continue
            if d > 1 and (not mt.los[he, h] or (mt.concealing[h] and not spotter[h])):
                continue
            halved = hill_halves(mt.level[he], mt.level[h], d == 1, False)
            threat_soft[h] += modified_attack(ut.attack[t], ut.weapon[t], False, d, r, halved, ct.wec, ct.halving)
            threat_armored[h] += modified_attack(ut.attack[t], ut.weapon[t], True, d, r, halved, ct.wec, ct.halving)
    pairing_field(st, ut, side, fields[PAIRING])


@njit(cache=True)
def pairing_field(st, ut, side, pairing):
    """Per hex: own riders not aboard anything minus own empty carriers (where a carrier and
    a rider can meet to load next turn, PB-TRANS-3)."""
    pairing[:] = 0
    for u in range(st.utype.shape[0]):
        if not is_piece(st, ut, u) or st.side[u] != side or st.hex[u] < 0:
            continue
        t = st.utype[u]
        if ut.carrier[t] and st.carrying[u] < 0 and not (ut.attack[t] > 0 and ut.weapon[t] >= 0):
            pairing[st.hex[u]] -= 1
        elif is_rider(ut, t) and st.carried_by[u] < 0:
            pairing[st.hex[u]] += 1


@njit(cache=True)
def goal_row(st, pt, side, u):
    """Hexes to unit u's goal from every hex: its side's goal, or on a round trip (PB-SIT-5)
    the final edge once the unit has been out."""
    if st.trip_hex[u] >= 0 and st.trip_final[side] != 0:
        return pt.return_dist[side]
    return pt.goal_dist[side]


@njit(cache=True)
def want_return(st, ut, pt, side, u):
    """PB-SIT-5: a unit off the map on a round trip comes back on as soon as it may, if the final
    edge is still within reach before the end (a hex per MF, the unit's MF a turn); otherwise it
    stays off, out of harm: coming back could not score."""
    left = st.clock[N_TURNS] - st.clock[TURN] + 1
    return pt.return_dist[side, st.trip_hex[u]] <= left * max(ut.movement[st.utype[u]], 1)


@njit(cache=True)
def needs_ride(st, ut, pt, prm, side, u, h):
    """A rider that has far to go on foot to its side's goal (advance or exit) from h."""
    kind = pt.goal_kind[side]
    if kind != EXIT and kind != ADVANCE:
        return False
    return goal_row(st, pt, side, u)[h] > 2 * max(ut.movement[st.utype[u]], 1) + prm[UNLOAD_DISTANCE]


@njit(cache=True)
def column_for_ratio(ct, ratio):
    """The lowest odds column whose odds are at least `ratio` (attack / defence)."""
    for j in range(ct.col_attack.shape[0]):
        if ct.col_attack[j] >= ratio * ct.col_defense[j] - 1e-9:
            return j
    return ct.col_attack.shape[0] - 1


@njit(cache=True)
def min_column(ct, pt, prm, side):
    """The worst odds the player attacks at: `min_odds` eased by aggression, never below
    the tables' 1-1 floor; a side whose goal is to leave the map fires only at good odds."""
    ratio = prm[MIN_ODDS] / (0.4 + prm[AGGRESSION])
    if pt.goal_kind[side] == EXIT:
        ratio *= 2.0
    return max(column_for_ratio(ct, ratio), pt.min_column)


@njit(cache=True)
def expected(pt, col, modifier):
    m = min(max(modifier + MOD_OFFSET, 0), pt.ev.shape[1] - 1)
    return pt.ev[col, m]


@njit(cache=True)
def own_value(st, ut, pt, side, u):
    """What losing unit u (and its passenger, who shares its fate, PB-TRANS-10) costs."""
    t = st.utype[u]
    v = pt.unit_value[t] + pt.victory_weight[1 - side, t]
    p = st.carrying[u]
    if p >= 0:
        v += pt.unit_value[st.utype[p]] + pt.victory_weight[1 - side, st.utype[p]]
    return v


WEAPON_A, WEAPON_I = WEAPON_INDEX["A"], WEAPON_INDEX["I"]


@njit(cache=True)
def march_key(st, ut, u):
    """PB-SIT-7 road-march order, higher first: the tanks and assault guns (armored, A or I
    class) lead, the toughest first, so the column meets the enemy with its armor; the
    carriers with their passengers follow; the artillery (H, M) and the rest close it."""
    t = st.utype[u]
    key = 100 * ut.defense[t] + ut.attack[t]
    w = ut.weapon[t]
    if ut.armored[t] and (w == WEAPON_A or w == WEAPON_I) and st.carrying[u] < 0:
        key += 1_000_000
    elif st.carrying[u] >= 0:
        key += 500_000
    return key


@njit(cache=True)
def stack_value(st, ut, mt, pt, side, h):
    """Worth to `side` of the enemy stack in h: its units (passengers included), more when it
    stands on or beside the side's goal."""
    v = 0.0
    for e in range(st.utype.shape[0]):
        if st.status[e] == 1 and st.hex[e] == h and st.side[e] != side and not ut.positional[st.utype[e]]:
            v += pt.unit_value[st.utype[e]] + pt.victory_weight[side, st.utype[e]]
    if pt.goal_kind[side] != NO_GOAL and pt.goal_dist[side, h] <= 2:
        v *= 1.5
    return v


@njit(cache=True)
def danger(st, ut, mt, ct, pt, u, h, fields):
    """Expected damage to unit u in hex h if the enemy turned all its fire on it (0..1)."""
    t = st.utype[u]
    return danger_at(ut.armored[t], st.carrying[u] >= 0, ut.defense[t], fields[THREAT_ARMORED], fields[THREAT_SOFT],
                     mt.town, mt.terrain_mod, ct.col_attack, ct.col_defense, pt.ev, h)


@njit(cache=True)
def danger_at(armored_type, carrying, defense, threat_armored, threat_soft, town, terrain_mod, col_attack,
              col_defense, ev, h):
    """`danger` from the few arrays it reads.  Scoring calls it for every hex a unit can reach;
    handing it the whole state, unit, map and policy tuples instead cost most of a move's time
    (docs/performance.md)."""
    armored = armored_type or town[h]  # PB-WEC-2: in a town every unit is an armored target
    a = threat_armored[h] if armored else threat_soft[h]
    if a <= 0:
        return 0.0
    df = defense
    if carrying and not armored_type:
        df = 1  # PB-TRANS-6
    col = odds_column(a, max(df, 1), col_attack, col_defense)
    if col < 0:
        return 0.0
    m = min(max(terrain_mod[h] + MOD_OFFSET, 0), ev.shape[1] - 1)  # as `expected`
    return ev[col, m]


# ---------------------------------------------------------------- where to stand

@njit(cache=True)
def hex_score(st, ut, mt, ct, pt, prm, side, u, h, occ, fields):
    """Worth of unit u ending its move (or set-up, or entry) in hex h (`score_hexes` of one)."""
    one = np.full(1, h, dtype=np.int64)
    out = np.empty(1)
    score_hexes(st, ut, mt, ct, pt, prm, side, u, one, 1, occ, fields, out)
    return out[0]


@njit(cache=True)
def score_hexes(st, ut, mt, ct, pt, prm, side, u, hexes, n, occ, fields, out):
    """out[i] = worth of unit u ending its move (or set-up, or entry) in hexes[i], for i < n;
    hexes below 0 (leaving the map) are skipped.

    What depends only on the unit is worked out once, and the per-hex loop reads plain local
    arrays: scoring every hex a vehicle can reach is most of a game, and a call per hex that
    handed over the whole state, unit, map and policy tuples cost several times the arithmetic
    (docs/performance.md)."""
    t = st.utype[u]
    aggr = prm[AGGRESSION]
    kind = pt.goal_kind[side]
    armed = ut.attack[t] > 0 and ut.weapon[t] >= 0
    carrying = st.carrying[u] >= 0
    empty_carrier = ut.carrier[t] and not armed and not carrying
    value = own_value(st, ut, pt, side, u)
    home = st.hex[u]
    goal_dist = goal_row(st, pt, side, u)
    pull = HEX_PROGRESS * prm[OBJECTIVE_W] * (0.5 + aggr)
    if empty_carrier:
        # An empty truck has no business at the front, except that one which leaves the map
        # counts as a unit exited: in the last turns it runs for the edge.
        if not (kind == EXIT and home >= 0 and
                st.clock[N_TURNS] - st.clock[TURN] <= goal_dist[home] // max(ut.movement[t] // 2, 1) + 1):
            pull *= 0.3
    on_goal_bonus = 0.5 * prm[OBJECTIVE_W]
    approach = armed and (kind == NO_GOAL or kind == DEFEND)
    pref = max(ut.range[t] * 2 // 3, 1)
    approach_w = HEX_PROGRESS * aggr * pt.kill_weight[side]
    approach_f = 1.0 if kind == NO_GOAL else 0.3
    risk = prm[RISK] * pt.risk_weight[side] * (1.3 - aggr) * value
    armored_type = ut.armored[t]
    defense = ut.defense[t]
    conceal_bonus = 0.25 * prm[COVER_W]
    hill_bonus = 0.10 * prm[COVER_W]
    observer = armed and ut.range[t] > 1
    outlook_w = 0.5 * prm[COVER_W]
    outlook_f = 1.0 if kind != ADVANCE else 0.5
    fire_bonus = 0.2 * prm[FIRE_W] * pt.kill_weight[side]
    rng = ut.range[t]
    ud = prm[UNLOAD_DISTANCE]
    truck_w = 0.1 if kind == EXIT else 0.2
    meeting = home >= 0 and (kind == EXIT or kind == ADVANCE)
    # needs_ride(), hex by hex: a rider with far to go on foot from h
    walker = is_rider(ut, t) and not carrying and st.carried_by[u] < 0
    ride_far = 2 * max(ut.movement[t], 1) + prm[UNLOAD_DISTANCE]
    mine_cost = 0.8 * value
    noise = prm[NOISE]
    # PB-SIT-8: a command post spots for its side's card-rule mortars only within `cp_within`
    # hexes of them: it stands where it covers the most of those that can fire.
    n_sp = 0
    spot_hex = np.empty(8, dtype=np.int64)
    spot_reach = np.empty(8, dtype=np.int64)
    if ut.observer[t]:
        for v in range(st.utype.shape[0]):
            tv = st.utype[v]
            if ut.card_indirect[tv] and st.side[v] == side and st.status[v] == 1 and st.carried_by[v] < 0 \
                    and n_sp < 8:
                spot_hex[n_sp] = st.hex[v]
                spot_reach[n_sp] = ut.cp_within[tv]
                n_sp += 1
    spot_w = 0.3 * prm[FIRE_W]
    dist = mt.dist
    enemy_dist = fields[ENEMY_DIST]
    target_near = fields[TARGET_NEAR]
    pairing = fields[PAIRING]
    threat_armored = fields[THREAT_ARMORED]
    threat_soft = fields[THREAT_SOFT]
    town = mt.town
    terrain_mod = mt.terrain_mod
    concealing = mt.concealing
    level = mt.level
    outlook = pt.outlook
    mine = st.mine
    col_attack = ct.col_attack
    col_defense = ct.col_defense
    ev = pt.ev
    for i in range(n):
        h = hexes[i]
        if h < 0:
            continue
        s = 0.0
        gd = goal_dist[h]
        if kind == ADVANCE or kind == EXIT:
            s -= pull * gd
            if kind == ADVANCE and gd == 0:
                s += on_goal_bonus  # counted in the area
        elif kind == DEFEND:
            s -= pull * gd
        if approach and (kind == NO_GOAL or gd <= 1):
            # close to shooting range of the nearest enemy, more so the more aggressive
            ed = min(enemy_dist[h], 30)
            s -= approach_w * max(ed - pref, 0) * approach_f
        # Exposure to next turn's enemy fire.
        s -= risk * danger_at(armored_type, carrying, defense, threat_armored, threat_soft, town, terrain_mod,
                              col_attack, col_defense, ev, h)
        # Cover and observation.
        if concealing[h]:
            s += conceal_bonus  # unseen at range (PB-SPOT-1) and +1 on the die (PB-CBT-10)
        if level[h] == 2:
            s += hill_bonus
        if observer:
            s += outlook_w * outlook[h] * outlook_f
            if target_near[h] <= rng:
                s += fire_bonus
        if carrying:
            # Set the passenger down before contact, not in it.
            if enemy_dist[h] < ud:
                s -= 0.3 * (ud - enemy_dist[h])
        if empty_carrier and enemy_dist[h] < 6:
            s -= truck_w * (6 - enemy_dist[h])
        # Meet to load next turn (PB-TRANS-3): empty carriers go to riders with far to walk,
        # riders wait where an empty carrier is.  The unit's own count in its present hex is
        # left out.
        if meeting:
            here = pairing[h]
            if empty_carrier:
                if h == home:
                    here += 1
                if here > 0:
                    s += 0.6
            elif walker and gd > ride_far:
                if h == home:
                    here -= 1
                if here < 0:
                    s += 0.6
        for k in range(n_sp):
            if dist[h, spot_hex[k]] <= spot_reach[k]:
                s += spot_w
        # PB-MINE-5: a minefield attacks every unit in it at 2-1 each turn it stays.
        if mine[h]:
            s -= mine_cost
        # Do not pile up (one result hits the whole stack); do not shuffle about for nothing.
        s -= 0.05 * occ[h, side]
        if h == home:
            s += 0.08
        if noise > 0:
            s += noise * np.random.random()
        out[i] = s


@njit(cache=True)
def pick_hex(st, ut, mt, ct, pt, prm, side, u, options, n, occ, fields, pairing):
    """The best of n candidate hexes (set-up or entry); -1 if none.  `pairing[h]`: riders
    minus carriers already set up in h (set-up puts trucks with the infantry they will carry)."""
    best = -1
    best_s = -1e18
    t = st.utype[u]
    rider = is_rider(ut, t)
    carrier = ut.carrier[t]
    scores = np.empty(n)
    score_hexes(st, ut, mt, ct, pt, prm, side, u, options, n, occ, fields, scores)
    for i in range(n):
        h = options[i]
        s = scores[i]
        if (carrier and pairing[h] > 0) or (rider and pairing[h] < 0):
            s += 1.0 if pt.goal_kind[side] == EXIT else 0.6
        elif rider and occ[h, side] == 0 and pt.goal_kind[side] != DEFEND:
            s += 0.3  # alone, so a carrier can still join it
        if s > best_s:
            best_s = s
            best = i
    return best


@njit(cache=True)
def is_rider(ut, t):
    """A unit a carrier can take aboard (PB-TRANS-2): not a vehicle, not a counter like a fort."""
    return not ut.vehicle[t] and not ut.positional[t] and ut.mclass[t] >= 0


@njit(cache=True)
def overrun_gain(st, ut, mt, ct, pt, side, u, target):
    """PB-OVR-5: expected worth of unit u overrunning the stack in target (printed factors,
    one column up, -2 on the die); -1 if the odds are below the table."""
    df, _, n_def, n_disp = defender_stack(st, ut, mt, target, 1 - side)
    af = ut.attack[st.utype[u]]
    if df <= 0 or af <= 0:
        return -1.0, -1
    col = odds_of(ct, af, df)
    if col < 0:
        return -1.0, -1
    col = min(col + 1, ct.crt.shape[1] - 1)
    mod = ct.mod_overrun + dispersed_modifier(ct, n_def, n_disp)
    return pt.kill_weight[side] * stack_value(st, ut, mt, pt, side, target) * expected(pt, col, mod), col


@njit(cache=True)
def pick_move(st, ut, mt, ct, pt, prm, side, u, options, n, n_over, ov_target, ov_exit, occ,
              fields):
    """Index into the movement options: 0..n-1 hexes (or -2-h: leave the map from h), then
    n..n+n_over-1 overruns; -1 stays put."""
    best = -1
    best_s = -1e18
    exit_worth = 4.0 * prm[OBJECTIVE_W] if pt.goal_kind[side] == EXIT else -1e9
    if st.trip_final[side] != 0 and st.trip_hex[u] < 0 and \
            st.clock[TURN] + st.trip_stay_off[side] >= st.clock[N_TURNS]:
        exit_worth = -1e9  # PB-SIT-5: out now, it could not come back before the end
    scores = np.empty(n)
    score_hexes(st, ut, mt, ct, pt, prm, side, u, options, n, occ, fields, scores)
    for i in range(n):
        s = exit_worth if options[i] <= -2 else scores[i]
        if s > best_s:
            best_s = s
            best = i
    min_col = min_column(ct, pt, prm, side)
    for k in range(n_over):
        gain, col = overrun_gain(st, ut, mt, ct, pt, side, u, ov_target[k])
        if col < min_col:
            continue
        # the overrunner ends in the exit hex: score it there, plus what the attack is worth
        # (off the map, PB-OVR-10: as a unit leaving the map)
        x = ov_exit[k]
        s = gain + (hex_score(st, ut, mt, ct, pt, prm, side, u, x, occ, fields) if x >= 0 else exit_worth)
        if s > best_s:
            best_s = s
            best = n + k
    return best


# ---------------------------------------------------------------- fire

@njit(cache=True)
def adjacent_enemy(st, ut, mt, side, h):
    for k in range(6):
        nb = mt.neighbours[h, k]
        if nb < 0:
            continue
        for e in range(st.utype.shape[0]):
            if st.hex[e] == nb and st.side[e] != side and is_piece(st, ut, e):
                return True
    return False


@njit(cache=True)
def plan_fire(st, ut, mt, ct, pt, prm, side, spotted, occ, stack_kind, target_of):
    """PB-SEQ-2 S2: declare every attack of the turn at once (PB-SEQ-3.3).

    Greedy concentration: take the enemy stack where all the fire that can reach it buys the
    most expected damage (its worth times the CRT's expectation at those odds and die
    modifiers), give it just enough firers to reach those odds, and repeat with the firers
    left.  Stacks that cannot be brought to the minimum odds are left alone."""
    n_hex = mt.neighbours.shape[0]
    n_units = st.utype.shape[0]
    enemy = 1 - side
    firers = np.empty(n_units, dtype=np.int64)
    n_f = 0
    leaving = pt.goal_kind[side] == EXIT
    for u in range(n_units):
        if may_fire(st, ut, u, side):
            # A unit that fires may not move (PB-SEQ-3.1): a side racing for the map edge
            # fires only with what cannot move anyway, or at what stands in the way.
            if leaving and ut.movement[st.utype[u]] > 0 and st.carrying[u] < 0 and \
                    not adjacent_enemy(st, ut, mt, side, st.hex[u]):
                continue
            firers[n_f] = u
            n_f += 1
    if n_f == 0:
        return
    af = np.zeros((n_f, n_hex), dtype=np.int64)  # modified AF of firer i against hex h
    opt_hex = np.empty(n_hex, dtype=np.int64)
    opt_af = np.empty(n_hex, dtype=np.int64)
    is_target = np.zeros(n_hex, dtype=np.bool_)
    for i in range(n_f):
        k = fire_options(st, ut, mt, ct, side, spotted, occ, firers[i], opt_hex, opt_af, stack_kind)
        for j in range(k):
            af[i, opt_hex[j]] = opt_af[j]
            is_target[opt_hex[j]] = True
    targets = np.flatnonzero(is_target)
    n_t = targets.shape[0]
    df = np.zeros(n_t, dtype=np.int64)
    mod = np.zeros(n_t, dtype=np.int64)
    worth = np.zeros(n_t)
    for j in range(n_t):
        h = targets[j]
        d, _, n_def, n_disp = defender_stack(st, ut, mt, h, enemy)
        df[j] = d
        mod[j] = mt.terrain_mod[h] + dispersed_modifier(ct, n_def, n_disp)
        worth[j] = pt.kill_weight[side] * stack_value(st, ut, mt, pt, side, h)
    free = np.ones(n_f, dtype=np.bool_)
    done = np.zeros(n_t, dtype=np.bool_)
    min_col = min_column(ct, pt, prm, side)
    order = np.empty(n_f, dtype=np.int64)
    while True:
        best = -1
        best_gain = 0.02
        best_col = -1
        for j in range(n_t):
            if done[j] or df[j] <= 0:
                continue
            h = targets[j]
            total = 0
            for i in range(n_f):
                if free[i]:
                    total += af[i, h]
            col = odds_of(ct, total, df[j])
            if col < min_col:
                continue
            g = worth[j] * expected(pt, col, mod[j])
            if g > best_gain:
                best_gain = g
                best = j
                best_col = col
        if best < 0:
            return
        done[best] = True
        h = targets[best]
        # Strongest firers first until the odds are reached; then drop any not needed.
        n_c = 0
        for i in range(n_f):
            if free[i] and af[i, h] > 0:
                order[n_c] = i
                n_c += 1
        keys = np.empty(n_c, dtype=np.int64)
        for c in range(n_c):
            keys[c] = -af[order[c], h]
        sorted_idx = order[:n_c][np.argsort(keys, kind="mergesort")]
        total = 0
        used = 0
        for c in range(n_c):
            total += af[sorted_idx[c], h]
            used += 1
            if odds_of(ct, total, df[best]) >= best_col:
                break
        for c in range(used - 1, -1, -1):
            i = sorted_idx[c]
            if odds_of(ct, total - af[i, h], df[best]) >= best_col:
                total -= af[i, h]
                af[i, h] = 0  # not needed here
            else:
                free[i] = False
                target_of[firers[i]] = h


@njit(cache=True)
def _declared_af(st, ut, mt, ct, side, spotted, h, kind, target_of):
    """The modified AF of every unit declared against h (direct or indirect fire)."""
    total = 0
    for u in range(target_of.shape[0]):
        if target_of[u] == h and may_fire(st, ut, u, side):
            mode = fire_mode(st, ut, mt, ct, spotted, u, st.hex[u], h)
            if mode != 0:
                total += firer_af_mode(st, ut, mt, ct, u, h, kind, mode == 2)
    return total


@njit(cache=True)
def _fire_worth(ct, pt, col, mod, worth):
    return worth * expected(pt, col, mod) if col >= 0 else 0.0


@njit(cache=True)
def plan_intensive(st, ut, mt, ct, pt, side, spotted, stack_kind, target_of):
    """PB-OPT-AMMO: after the attacks are planned, fire an H or M unit intensively only where it
    turns the battle: the tripled AF raises the odds column, and the expected damage gained on
    that target is worth more than the unit, which leaves the game after firing (PB-OPT-AMMO-2).
    At most one unit per attack, the one that gains most."""
    n_units = st.utype.shape[0]
    enemy = 1 - side
    for h in np.unique(target_of[target_of >= 0]):
        df, kind, n_def, n_disp = defender_stack(st, ut, mt, h, enemy)
        if df <= 0:
            continue
        if stack_kind[h] >= 0:
            kind = stack_kind[h]
        mod = mt.terrain_mod[h] + dispersed_modifier(ct, n_def, n_disp)
        worth = pt.kill_weight[side] * stack_value(st, ut, mt, pt, side, h)
        total = _declared_af(st, ut, mt, ct, side, spotted, h, kind, target_of)
        col = odds_of(ct, total, df)
        base = _fire_worth(ct, pt, col, mod, worth)
        best = -1
        best_gain = 0.0
        for u in range(n_units):
            if target_of[u] != h or not may_fire_intensively(st, ut, ct, u, side):
                continue
            st.intensive[u] = True
            tripled = _declared_af(st, ut, mt, ct, side, spotted, h, kind, target_of)
            st.intensive[u] = False
            new_col = odds_of(ct, tripled, df)
            if new_col <= col:
                continue  # the battle is not turned
            gain = _fire_worth(ct, pt, new_col, mod, worth) - base - own_value(st, ut, pt, side, u)
            if gain > best_gain:
                best_gain = gain
                best = u
        if best >= 0:
            st.intensive[best] = True


# ---------------------------------------------------------------- close assault and transport

@njit(cache=True)
def pick_assault(st, ut, mt, ct, pt, prm, side, options, n, occ):
    """PB-CAT: the adjacent enemy hex worth assaulting with every unit that may (they all
    reckon the same, so they join in one assault); -1 if none reaches the minimum odds."""
    min_col = min_column(ct, pt, prm, side)
    best = -1
    best_gain = 0.02
    for i in range(n):
        h = options[i]
        df, _, n_def, n_disp = defender_stack(st, ut, mt, h, 1 - side)
        if df <= 0:
            continue
        af = 0
        for u in range(st.utype.shape[0]):
            # adjacent, or on top of the enemy fort in h (PB-CAT-8 / PB-FORT-13)
            if may_assault(st, ut, u, side) and (mt.dist[st.hex[u], h] == 1 or (st.on_top[u] and st.hex[u] == h)):
                x = ut.attack[st.utype[u]]
                if hill_halves(mt.level[st.hex[u]], mt.level[h], True, False):
                    x = int(np.floor(x * ct.halving))
                af += x
        col = odds_of(ct, af, df)
        if col < min_col:
            continue
        g = pt.kill_weight[side] * stack_value(st, ut, mt, pt, side, h) * \
            expected(pt, col, mt.terrain_mod[h] + ct.mod_close_assault + dispersed_modifier(ct, n_def, n_disp))
        if g > best_gain:
            best_gain = g
            best = i
    return best


@njit(cache=True)
def want_load(st, ut, pt, prm, side, carrier, passenger, fields):
    """PB-TRANS-3: load when the passenger has far to go and the enemy is not near
    (loading costs both their turn under the default OQ-21 reading)."""
    h = st.hex[carrier]
    enemy_dist = fields[ENEMY_DIST]
    if pt.goal_kind[side] == EXIT:
        # leaving the map: every rider aboard leaves with its carrier, unless the enemy is at hand
        return needs_ride(st, ut, pt, prm, side, passenger, h) and enemy_dist[h] > 2
    if pt.goal_kind[side] == ADVANCE:
        far = pt.goal_dist[side, h] > 2 * max(ut.movement[st.utype[passenger]], 1) + prm[UNLOAD_DISTANCE]
    else:
        far = enemy_dist[h] > 2 * prm[UNLOAD_DISTANCE]
    return far and enemy_dist[h] > prm[UNLOAD_DISTANCE] + 2


@njit(cache=True)
def want_unload(st, pt, prm, side, carrier, fields):
    """PB-TRANS-3: set the passenger down near the enemy or on the goal; a side leaving the map
    keeps its passengers aboard (they leave with the carrier)."""
    h = st.hex[carrier]
    if pt.goal_kind[side] == EXIT:
        return False
    return fields[ENEMY_DIST, h] <= prm[UNLOAD_DISTANCE] + 1 or pt.goal_dist[side, h] == 0


# ---------------------------------------------------------------- attack technique (PB-STK-2)

COMBINE, SELECT, MULTIPLE, PASSENGER = 0, 1, 2, 3


@njit(cache=True)
def unit_worth(st, ut, pt, side, d):
    """Worth to `side` of destroying enemy unit d (with the passenger that shares its fate)."""
    t = st.utype[d]
    v = pt.unit_value[t] + pt.victory_weight[side, t]
    p = st.carrying[d]
    if p >= 0:
        v += pt.unit_value[st.utype[p]] + pt.victory_weight[side, st.utype[p]]
    return v


@njit(cache=True)
def pick_technique(st, ut, mt, ct, pt, side, h, attackers, n_att, spotted, assign, n_multi, passenger):
    """PB-STK-2: combination, multiple (PB-STK-4) or passenger-alone (PB-TRANS-8) attack by the
    firers declared against h, whichever buys the most expected damage (the worth of each unit
    hit times the CRT's expectation at its odds and die modifier).  `n_multi`: the most
    defenders a multiple attack can take on (0: none); `passenger`: whether one may be attacked
    alone.  Fills `assign` when the answer is MULTIPLE.  Never selective: the declared firers
    were counted for a combination, and the weakest unit alone is what a multiple attack hits
    first anyway."""
    enemy = 1 - side
    df, kind, n_def, n_disp = defender_stack(st, ut, mt, h, enemy)
    kind = stack_kind_of(st, ut, mt, ct, h, enemy, kind)
    total = 0
    for i in range(n_att):
        if fire_reaches(st, ut, mt, ct, spotted, side, attackers[i], h):
            total += attack_af(st, ut, mt, ct, spotted, attackers[i], h, kind)
    best = COMBINE
    best_gain = 0.0
    col = odds_of(ct, total, df) if total > 0 and df > 0 else -1
    if col >= 0:
        w = 0.0
        for e in range(st.utype.shape[0]):
            if is_piece(st, ut, e) and st.hex[e] == h and st.side[e] == enemy:
                w += unit_worth(st, ut, pt, side, e)
        best_gain = w * expected(pt, col, mt.terrain_mod[h] + dispersed_modifier(ct, n_def, n_disp))
    if passenger:
        p = exposed_passenger(st, ut, mt, h, enemy)
        pk = 1 if ut.armored[st.utype[p]] else 0
        total = 0
        for i in range(n_att):
            if fire_reaches(st, ut, mt, ct, spotted, side, attackers[i], h):
                total += attack_af(st, ut, mt, ct, spotted, attackers[i], h, pk)
        col = odds_of(ct, total, 1) if total > 0 else -1
        if col >= 0:
            g = (pt.unit_value[st.utype[p]] + pt.victory_weight[side, st.utype[p]]) * \
                expected(pt, col, mt.terrain_mod[h] + dispersed_modifier(ct, 1, 1 if st.dispersed[p] else 0))
            if g > best_gain + 1e-9:
                best_gain = g
                best = PASSENGER
    trial = np.empty(n_att, dtype=np.int64)
    for n_hit in range(n_multi, 1, -1):
        if not plan_multiple(st, ut, mt, ct, side, h, attackers, n_att, spotted, n_hit, trial):
            continue
        g = 0.0
        for d in range(st.utype.shape[0]):
            hit = False
            af = 0
            for i in range(n_att):
                if trial[i] == d:
                    hit = True
                    af += attack_af(st, ut, mt, ct, spotted, attackers[i], h, 1 if ut.armored[st.utype[d]] else 0)
            if hit:
                c = odds_of(ct, af, unit_defense(st, ut, d))
                g += unit_worth(st, ut, pt, side, d) * \
                    expected(pt, c, mt.terrain_mod[h] + dispersed_modifier(ct, 1, 1 if st.dispersed[d] else 0))
        if g > best_gain + 1e-9:
            best_gain = g
            best = MULTIPLE
            assign[:n_att] = trial
    return best


@njit(cache=True)
def want_join(st, ut, mt, ct, pt, prm, side, v, movers, n_movers, target, paths, m, ov_exit, occ, fields):
    """PB-OVR-4: which of its m paths onto `target` unit v joins the overrun by (the best exit
    hex), or -1: it joins only if its printed AF raises the overrun's odds column."""
    df, _, _, _ = defender_stack(st, ut, mt, target, 1 - side)
    af = 0
    for q in range(n_movers):
        af += ut.attack[st.utype[movers[q]]]
    if df <= 0 or odds_of(ct, af + ut.attack[st.utype[v]], df) <= odds_of(ct, af, df):
        return -1
    best = -1
    best_s = -1e18
    for i in range(m):
        s = hex_score(st, ut, mt, ct, pt, prm, side, v, ov_exit[paths[i]], occ, fields)
        if s > best_s:
            best_s = s
            best = i
    return best


@njit(cache=True)
def pick_entry_overrun(st, ut, mt, ct, pt, prm, side, u, ov_target, ov_exit, n, occ, fields):
    """PB-OVR-10: the entering overrun (onto an enemy in an entry hex) worth making, or -1: the
    best whose odds reach the minimum, if what it gains beats staying off a turn."""
    min_col = min_column(ct, pt, prm, side)
    best = -1
    best_s = 0.0
    for k in range(n):
        gain, col = overrun_gain(st, ut, mt, ct, pt, side, u, ov_target[k])
        if col < min_col:
            continue
        if gain > best_s:
            best_s = gain
            best = k
    return best
