"""The heuristic PanzerBlitz player: every decision scored, compiled with the game kernel.

It plays towards its side's goal (players/goals.py): advance on, hold, or leave by the
hexes the victory conditions name, and kill where the odds are good.  It sees what a player
sees: the whole board (PanzerBlitz has no hidden units; a side knows which minefields are its
own), the line-of-sight table and the rules of fire; it never looks at die rolls to come.

Scores are in one currency, "units": destroying an average enemy unit is worth about 1, losing
one of its own costs about 1, and one hex of progress towards the goal is worth `hex_progress`
times the objective weight.  Every weight is a named parameter (players/heuristic.toml, read
by position in the order of PARAM_NAMES).

Where each decision lives:
- set-up, entry and movement: `score_hexes` (goal, danger shared with nearby friends, cover,
  view, fire position, contact with hidden or fortified enemies, minefields, transport),
  `pick_hex`, `pick_move` (with overruns, `overrun_gain`), `pick_barrier` (minefields and
  blocks where the enemy must pass);
- fire: `plan_fire` (concentrate on the best expected gain); technique: `pick_technique`;
- close assault: `plan_assaults`; transport: `want_load`, `want_unload`, `pick_entry_rider`;
- engineers: `pick_mine_clear` (enemy minefields only, own ones only where they bar the way).
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit
from simulator.rulesets.panzerblitz.combat import (
    HILLTOP,
    NON_ARMORED,
    NOW_ELIMINATED,
    WEAPON_INDEX,
    hill_halves,
    modified_attack,
)
from simulator.rulesets.panzerblitz.for_players import (
    EV_ASSAULT,
    EV_ASSAULTER,
    EV_ATTACK,
    EV_FIRER,
    EV_HIT,
    EV_OVERRUN,
    EV_OVERRUNNER,
    INDIRECT,
    NO_FIRE,
    attack_af,
    defender_stack,
    defender_stack_listed,
    dispersed_modifier,
    exposed_passenger,
    fire_mode,
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
    units_by_hex,
)
from simulator.rulesets.panzerblitz.players.goals import (
    ADVANCE,
    DEFEND,
    EXIT,
    FAR,
    MOD_OFFSET,
    NO_GOAL,
    P_D,
    P_DD,
    P_X,
)
from simulator.rulesets.panzerblitz.state import N_EVENTS, N_TURNS, ON_MAP, TURN, WAITING
from simulator.rulesets.panzerblitz.units import CATEGORY_INDEX

HEURISTIC = 1  # kernel id (players/spec.py)
TRANSPORT = CATEGORY_INDEX["transport"]  # trucks, wagons, halftracks: carriers first of all

# The parameters, in the kernel's order; players/heuristic.toml gives each its default, range
# and meaning (players/spec.py checks that both name the same ones in the same order).
PARAM_NAMES = (
    "aggression", "min_odds", "odds_ease", "exit_odds_factor", "risk", "risk_ease", "noise",
    "objective_weight", "hex_progress", "pull_base", "on_goal_bonus", "exit_worth", "approach_range",
    "defend_approach",
    "cover_weight", "conceal_bonus", "hill_bonus", "outlook_bonus", "advance_outlook", "fire_weight",
    "target_in_range_bonus", "cp_spot_bonus", "contact_bonus", "support_radius", "support_split", "alone_cost",
    "stacking_cost", "stack_danger", "stay_bonus", "mine_cost", "setup_mine_cost",
    "barrier_path", "barrier_road", "barrier_forward", "barrier_spread", "engineer_mine_bonus",
    "unload_distance", "ride_far_moves", "load_margin", "passenger_contact_cost", "unload_cover_bonus",
    "empty_carrier_pull", "empty_carrier_front", "empty_carrier_standoff", "empty_carrier_risk",
    "meet_bonus", "pair_exit_bonus", "alone_rider_bonus",
    "fire_min_gain", "disperse_value", "disperse_value_unarmed", "goal_target_factor",
    "target_choice_hexes", "futility_decay",
    "kill_weight_advance", "kill_weight_defend", "kill_weight_exit", "kill_weight_kills", "kill_weight_few_losses",
    "kill_weight_prevent", "risk_weight_few_losses", "risk_weight_kill_ratio", "risk_weight_line",
    "corridor_watcher_bonus", "fire_forgo_move", "fire_escape", "fire_forgo_assault", "way_view_bonus",
    "approach_pace", "alone_stuck", "fetch_pull",
)
(AGGRESSION, MIN_ODDS, ODDS_EASE, EXIT_ODDS_FACTOR, RISK, RISK_EASE, NOISE,
 OBJECTIVE_W, HEX_PROGRESS, PULL_BASE, ON_GOAL_BONUS, EXIT_WORTH, APPROACH_RANGE,
 DEFEND_APPROACH,
 COVER_W, CONCEAL_BONUS, HILL_BONUS, OUTLOOK_BONUS, ADVANCE_OUTLOOK, FIRE_W,
 TARGET_IN_RANGE_BONUS, CP_SPOT_BONUS, CONTACT_BONUS, SUPPORT_RADIUS, SUPPORT_SPLIT, ALONE_COST,
 STACKING_COST, STACK_DANGER, STAY_BONUS, MINE_COST, SETUP_MINE_COST,
 BARRIER_PATH, BARRIER_ROAD, BARRIER_FORWARD, BARRIER_SPREAD, ENGINEER_MINE_BONUS,
 UNLOAD_DISTANCE, RIDE_FAR_MOVES, LOAD_MARGIN, PASSENGER_CONTACT_COST, UNLOAD_COVER_BONUS,
 EMPTY_CARRIER_PULL, EMPTY_CARRIER_FRONT, EMPTY_CARRIER_STANDOFF, EMPTY_CARRIER_RISK,
 MEET_BONUS, PAIR_EXIT_BONUS, ALONE_RIDER_BONUS,
 FIRE_MIN_GAIN, DISPERSE_VALUE, DISPERSE_VALUE_UNARMED, GOAL_TARGET_FACTOR,
 TARGET_CHOICE_HEXES, FUTILITY_DECAY,
 KILL_WEIGHT_ADVANCE, KILL_WEIGHT_DEFEND, KILL_WEIGHT_EXIT, KILL_WEIGHT_KILLS, KILL_WEIGHT_FEW_LOSSES,
 KILL_WEIGHT_PREVENT, RISK_WEIGHT_FEW_LOSSES, RISK_WEIGHT_KILL_RATIO, RISK_WEIGHT_LINE,
 CORRIDOR_WATCHER_BONUS, FIRE_FORGO_MOVE, FIRE_ESCAPE, FIRE_FORGO_ASSAULT, WAY_VIEW_BONUS,
 APPROACH_PACE, ALONE_STUCK, FETCH_PULL) = range(len(PARAM_NAMES))

# Rows of the per-phase `fields` array (int64[N_FIELDS, n_hex]) that `enemy_fields` fills.
# PAIRING is the side's own: riders without a carrier minus empty carriers, per hex.  CONTACT:
# 100 x the worth of the enemy units beside the hex that fire cannot reach unspotted (woods,
# towns) or that sit in forts.  OWN_NEAR: the side's fighting units within `support_radius`
# (`supporter`: armed, on the map, not aboard).
# ENEMY_MINES: the enemy minefields beside the hex.  TARGET_DIST: hexes to the enemy stack most
# worth going for (`target_values`), each stack's distance lengthened by how much less it is worth
# than the best (`target_choice_hexes`); TARGET_VALUE: 100 x that stack's worth as a target.
# OVERRUN_AF: the printed AF of the enemy's armored vehicles that could overrun a stack there in
# their next movement phase (PB-OVR).  ASSAULT_AF: the printed AF of the enemy's infantry and
# cavalry that could close-assault a stack there in their next turn (PB-CAT).  TOP_SOFT,
# TOP_ARMORED: the largest of those AFs that one enemy unit alone brings on the hex (round 6: a
# unit fires at one target, so its fire is not shared among the side's units near the hex).
# HIDDEN: the contact worth having for a unit that cannot close-assault: beside enemy stacks in woods
# or towns (it spots them; a fort in the open is seen from anywhere), 100 x what the side's fire
# could gain on them once spotted (`target_values_full`' spot_out; round 7: their worth before, so a
# T-34 drove alone beside a command post in its fort, worth five kills and proof against its fire).
# RIDER_DIST: hexes to the nearest hex where riders with far to go (`wants_ride`) outnumber the
# empty carriers (PAIRING > 0): where an empty carrier is wanted (round 7).
THREAT_SOFT, THREAT_ARMORED, ENEMY_DIST, TARGET_NEAR, PAIRING, CONTACT, OWN_NEAR, ENEMY_MINES, TARGET_DIST, \
    TARGET_VALUE, OVERRUN_AF, ASSAULT_AF, TOP_SOFT, TOP_ARMORED, HIDDEN, RIDER_DIST = range(16)
N_FIELDS = 16

OWN_MINE_BARRED = 1e6  # score of ending on the side's own minefield: only if nothing else is allowed
MAX_SCAN = 24           # farthest range any weapon reaches on these boards (hexes)
MAX_SUPPORT = 3         # supporters counted (the enemy's fire cannot be shared much further)


# ---------------------------------------------------------------- what the enemy can do

@njit(cache=True)
def enemy_fields(st, ut, mt, ct, pt, prm, side, fields):
    """Per hex, from the enemy's current positions (they fire before they move, PB-SEQ-2):
    the AF their undispersed units could bring on a non-armored / armored unit there next
    turn (LOS, range, WEC, hill halving, and spotting: woods and towns hide a unit unless an
    enemy stands adjacent, PB-SPOT-1/2); the distance to the nearest enemy; the distance to the
    nearest enemy stack a unit there could see to fire at; the worth of the hidden or
    fortified enemies beside it; the side's own units near it; enemy minefields beside it."""
    enemy_part(st, ut, mt, ct, pt, prm, side, fields)
    own_part(st, ut, mt, ct, pt, prm, side, fields)


@njit(cache=True)
def enemy_part(st, ut, mt, ct, pt, prm, side, fields):
    """The rows of `enemy_fields` read from the enemy alone (THREAT_SOFT, THREAT_ARMORED,
    ENEMY_DIST, TARGET_NEAR, CONTACT, OVERRUN_AF, ASSAULT_AF, ENEMY_MINES).  Of the state they
    read only the enemy units' status, hex, dispersal and carrier and the minefields (mine,
    mine_side): the dispatcher keeps them while those are unchanged (dispatch.read_enemy; a
    new read here must be added there)."""
    n_hex = mt.neighbours.shape[0]
    enemy = 1 - side
    threat_soft = fields[THREAT_SOFT]
    threat_armored = fields[THREAT_ARMORED]
    top_soft = fields[TOP_SOFT]
    top_armored = fields[TOP_ARMORED]
    enemy_dist = fields[ENEMY_DIST]
    target_near = fields[TARGET_NEAR]
    contact = fields[CONTACT]
    threat_soft[:] = 0
    threat_armored[:] = 0
    top_soft[:] = 0
    top_armored[:] = 0
    enemy_dist[:] = FAR
    target_near[:] = FAR
    contact[:] = 0
    spotter = np.zeros(n_hex, dtype=np.bool_)
    fort_hex = np.zeros(n_hex, dtype=np.bool_)
    # The map's and the state's arrays the loops read, taken from their structs once: a struct
    # field read in a loop takes and drops a reference every time (docs/performance.md).
    dist = mt.dist
    los = mt.los
    concealing = mt.concealing
    level = mt.level
    by_dist = mt.by_dist
    within = mt.within
    sight = mt.sight
    sight_start = mt.sight_start
    neighbours = mt.neighbours
    top = within.shape[1] - 1
    status = st.status
    sides = st.side
    utype = st.utype
    hexes = st.hex
    carried_by = st.carried_by
    dispersed = st.dispersed
    positional = ut.positional
    unit_value = pt.unit_value
    victory_weight = pt.victory_weight
    n_units = utype.shape[0]
    for e in range(n_units):
        if status[e] == ON_MAP and sides[e] == enemy and ut.fort[utype[e]]:
            fort_hex[hexes[e]] = True
    # The enemy's pieces (`is_piece`) and the hexes they stand in, each hex once: ENEMY_DIST and
    # TARGET_NEAR are minima over those hexes, the same whichever of a stack's units is read.
    piece = np.zeros(n_units, dtype=np.bool_)
    stack_hex = np.empty(n_units, dtype=np.int64)
    stack_of = np.full(n_hex, -1, dtype=np.int64)  # index in stack_hex
    n_stacks = 0
    for e in range(n_units):
        if status[e] != ON_MAP or positional[utype[e]] or carried_by[e] >= 0 or sides[e] != enemy:
            continue
        piece[e] = True
        he = hexes[e]
        if stack_of[he] < 0:
            stack_of[he] = n_stacks
            stack_hex[n_stacks] = he
            n_stacks += 1
        if concealing[he] or fort_hex[he]:
            w = int(100 * (unit_value[utype[e]] + victory_weight[side, utype[e]]))
            for k in range(6):
                nb = neighbours[he, k]
                if nb >= 0:
                    contact[nb] += w
        if not dispersed[e]:
            spotter[he] = True
            for k in range(6):
                nb = neighbours[he, k]
                if nb >= 0:
                    spotter[nb] = True
    for j in range(n_stacks):
        he = stack_hex[j]
        dist_e = dist[he]
        los_e = los[he]  # line of sight is reciprocal (tables.build_tables checks)
        seen = not concealing[he]
        # Two passes over the map rather than one: the minimum, written back unconditionally,
        # is a loop LLVM vectorises.  (Walking the disc within MAX_SCAN by `by_dist` for
        # TARGET_NEAR was slower than the whole map in order: its reads jump about memory.)
        for h in range(n_hex):
            d = np.int64(dist_e[h])
            e_d = enemy_dist[h]
            enemy_dist[h] = d if d < e_d else e_d
        if seen:
            for i in range(sight_start[he], sight_start[he + 1]):  # the hexes in its sight
                h = sight[i]
                d = dist_e[h]
                if d <= MAX_SCAN and d < target_near[h]:
                    target_near[h] = d
        else:  # in woods or a town it is seen only from beside it (PB-SPOT-1)
            ring = by_dist[he]
            for i in range(within[he, min(1, top)]):
                h = ring[i]
                d = dist_e[h]
                if d < target_near[h]:
                    target_near[h] = d
    # The enemy's armed, undispersed pieces, listed by the stack they stand in (`head`, `nxt`),
    # each with the six AFs it can bring: `modified_attack` reads the distance only as within
    # half range or not (PB-WEC-3) and the terrain only as halved or not.
    wec, halving = ct.wec, ct.halving
    head = np.full(n_stacks, -1, dtype=np.int64)
    nxt = np.empty(n_units, dtype=np.int64)
    afs = np.empty((n_units, 6), dtype=np.int64)  # soft, soft halved, near, near halved, far, far halved
    for e in range(n_units):
        if not piece[e] or dispersed[e]:
            continue
        t = utype[e]
        if ut.attack[t] <= 0 or ut.weapon[t] < 0:
            continue
        r = ut.range[t]
        af, wc = ut.attack[t], ut.weapon[t]
        afs[e, 0] = modified_attack(af, wc, False, 0, r, False, wec, halving)
        afs[e, 1] = modified_attack(af, wc, False, 0, r, True, wec, halving)
        afs[e, 2] = modified_attack(af, wc, True, 0, r, False, wec, halving)
        afs[e, 3] = modified_attack(af, wc, True, 0, r, True, wec, halving)
        afs[e, 4] = modified_attack(af, wc, True, r // 2 + 1, r, False, wec, halving)
        afs[e, 5] = modified_attack(af, wc, True, r // 2 + 1, r, True, wec, halving)
        j = stack_of[hexes[e]]
        nxt[e] = head[j]
        head[j] = e
    unit_range = ut.range
    # A hex hidden from fire beyond the adjacent hexes: woods or a town no undispersed enemy
    # stands in or beside (PB-SPOT-1/2), one test per hex instead of two per (stack, hex).
    hidden = np.empty(n_hex, dtype=np.bool_)
    for h in range(n_hex):
        hidden[h] = concealing[h] and not spotter[h]
    # What a stack brings on a hex depends on the hex only through its distance d and whether
    # the fire is halved there (k): its units' AFs are summed (and their largest kept) once per
    # stack into tables indexed 2 * d + k, instead of walking the stack's units at every hex
    # (round 9).  Integer sums and maxima of the same terms: the fields are the same.
    max_reach = 0
    for j in range(n_stacks):
        e = head[j]
        while e >= 0:
            max_reach = max(max_reach, unit_range[utype[e]])
            e = nxt[e]
    t_soft = np.empty(2 * max_reach + 2, dtype=np.int64)
    t_armored = np.empty(2 * max_reach + 2, dtype=np.int64)
    m_soft = np.empty(2 * max_reach + 2, dtype=np.int64)
    m_armored = np.empty(2 * max_reach + 2, dtype=np.int64)
    for j in range(n_stacks):
        if head[j] < 0:
            continue
        he = stack_hex[j]
        reach = 0
        e = head[j]
        while e >= 0:
            reach = max(reach, unit_range[utype[e]])
            e = nxt[e]
        for i in range(2 * reach + 2):
            t_soft[i] = 0
            t_armored[i] = 0
            m_soft[i] = 0
            m_armored[i] = 0
        e = head[j]
        while e >= 0:
            r = unit_range[utype[e]]
            for d in range(r + 1):  # a unit reaches the hexes within its range
                for k in range(2):
                    a_soft = afs[e, k]
                    a_armored = afs[e, 2 + k] if d <= r // 2 else afs[e, 4 + k]
                    i = 2 * d + k
                    t_soft[i] += a_soft
                    t_armored[i] += a_armored
                    if a_soft > m_soft[i]:
                        m_soft[i] = a_soft
                    if a_armored > m_armored[i]:
                        m_armored[i] = a_armored
            e = nxt[e]
        dist_e = dist[he]
        los_e = los[he]
        level_e = level[he]
        # by_dist[he, 0] is its own hex: PB-FORT-13, the units inside a fort fire at the units on
        # top of it as if adjacent (pb-01: T-34s drove onto the fort on Hill 129 and its 88
        # dispersed them turn after turn; the hex read as out of all fire)
        first = 0 if fort_hex[he] else 1
        # The hexes within the stack's longest range that it sees: its disc nearest first
        # (`by_dist`) where that is the shorter list, else the hexes in its sight (`sight`, in
        # hex order: about an eighth of the map; the whole map's LOS row tested hex by hex was
        # 17 % of a pb-12 game).  Integer sums and maxima: the order does not change them.
        n_disc = within[he, min(reach, top)]
        if n_disc <= sight_start[he + 1] - sight_start[he]:
            ring = by_dist[he]
            # (the disc's hexes are within its reach, and from `first` on not its own hex)
            for i in range(first, n_disc):
                h = ring[i]
                d = np.int64(dist_e[h])
                if d > 1 and (not los_e[h] or hidden[h]):
                    continue
                x = 2 * d + (1 if hill_halves(level_e, level[h], d <= 1, False) else 0)
                threat_soft[h] += t_soft[x]
                threat_armored[h] += t_armored[x]
                top_soft[h] = max(top_soft[h], m_soft[x])
                top_armored[h] = max(top_armored[h], m_armored[x])
        else:
            for i in range(sight_start[he], sight_start[he + 1]):
                h = sight[i]
                d = np.int64(dist_e[h])
                if d > reach or d < first or (d > 1 and hidden[h]):
                    continue
                x = 2 * d + (1 if hill_halves(level_e, level[h], d <= 1, False) else 0)
                threat_soft[h] += t_soft[x]
                threat_armored[h] += t_armored[x]
                top_soft[h] = max(top_soft[h], m_soft[x])
                top_armored[h] = max(top_armored[h], m_armored[x])
    overrun_field(st, ut, mt, side, fields[OVERRUN_AF])
    assault_field(st, ut, mt, side, fields[ASSAULT_AF])
    mines = fields[ENEMY_MINES]
    mines[:] = 0
    mine = st.mine
    mine_side = st.mine_side
    for h in range(n_hex):
        if mine[h] and mine_side[h] != side:
            for k in range(6):
                nb = neighbours[h, k]
                if nb >= 0:
                    mines[nb] += 1


@njit(cache=True)
def own_part(st, ut, mt, ct, pt, prm, side, fields):
    """The rows of `enemy_fields` that read the side's own units too (PAIRING, RIDER_DIST,
    TARGET_DIST, TARGET_VALUE, OWN_NEAR), from `enemy_part`'s ENEMY_DIST."""
    pairing_field(st, ut, pt, prm, side, fields, fields[PAIRING])
    rider_field(mt, fields[PAIRING], fields[RIDER_DIST])
    target_field(st, ut, mt, ct, pt, prm, side, fields[ENEMY_DIST], fields[TARGET_DIST], fields[TARGET_VALUE],
                 fields[HIDDEN])
    own_near = fields[OWN_NEAR]
    own_near[:] = 0
    # `supporter` written out over arrays read once (a struct-taking call per unit costs more in
    # reference counting than its test); `note_unit` likewise
    r = int(prm[SUPPORT_RADIUS])
    if r < 0:
        return
    status, utype, carried_by, sides, hexes = st.status, st.utype, st.carried_by, st.side, st.hex
    positional, attack, weapon = ut.positional, ut.attack, ut.weapon
    within = mt.within
    by_dist = mt.by_dist
    rr = min(r, within.shape[1] - 1)
    for u in range(utype.shape[0]):
        t = utype[u]
        if status[u] != ON_MAP or positional[t] or carried_by[u] >= 0 or attack[t] <= 0 or weapon[t] < 0 \
                or sides[u] != side:
            continue
        h = hexes[u]
        if h < 0:
            continue
        ring = by_dist[h]
        for i in range(within[h, rr]):
            own_near[ring[i]] += 1


@njit(cache=True)
def overrun_field(st, ut, mt, side, out):
    """out[h]: the printed AF of the enemy's undispersed armored vehicles near enough to overrun
    a stack in h next turn (PB-OVR-3/5: entry hex, target and exit hex within its MF; about two
    thirds of its MF in hexes, as terrain slows it; only where an overrun may be made,
    PB-OVR-2).  Halftracks (I class) are left out: they may not overrun armored targets."""
    out[:] = 0
    enemy = 1 - side
    overrun_ok = mt.overrun_ok
    by_dist = mt.by_dist
    within = mt.within
    top = within.shape[1] - 1
    # (`is_piece` written out over arrays read once: a struct field read in the unit loop takes
    # and drops a reference each time, round 9)
    status, utype, carried_by, sides, dispersed, hexes = st.status, st.utype, st.carried_by, st.side, \
        st.dispersed, st.hex
    positional, can_overrun, weapon, attack, movement = ut.positional, ut.can_overrun, ut.weapon, ut.attack, \
        ut.movement
    for e in range(utype.shape[0]):
        t = utype[e]
        if status[e] != ON_MAP or positional[t] or carried_by[e] >= 0 or sides[e] != enemy or dispersed[e]:
            continue
        if not can_overrun[t] or weapon[t] == WEAPON_I or attack[t] <= 0:
            continue
        he = hexes[e]
        reach = movement[t] // 3  # two thirds of its MF (movement is kept in half MF)
        if reach <= 0:
            continue
        a = attack[t]
        ring = by_dist[he]
        for i in range(1, within[he, min(reach, top)]):  # 0 < distance <= reach
            h = ring[i]
            if overrun_ok[h]:
                out[h] += a


@njit(cache=True)
def assault_field(st, ut, mt, side, out):
    """out[h]: the printed AF of the enemy's undispersed infantry and cavalry that could close-assault
    a stack in h in their next turn: those beside h now, or a hex from a hex beside it (PB-CAT-3: an
    assaulting unit moves at most one hex first).  A tank that stops beside three rifle companies
    is assaulted at 1-1 with -2 on the die (PB-CAT-6) turn after turn (pb-05)."""
    out[:] = 0
    enemy = 1 - side
    by_dist = mt.by_dist
    within = mt.within
    top = within.shape[1] - 1
    # (`is_piece` written out over arrays read once, as in `overrun_field`)
    status, utype, carried_by, sides, dispersed, hexes = st.status, st.utype, st.carried_by, st.side, \
        st.dispersed, st.hex
    positional, can_assault, attack, movement = ut.positional, ut.can_assault, ut.attack, ut.movement
    for e in range(utype.shape[0]):
        t = utype[e]
        if status[e] != ON_MAP or positional[t] or carried_by[e] >= 0 or sides[e] != enemy or dispersed[e]:
            continue
        if not can_assault[t] or attack[t] <= 0:
            continue
        he = hexes[e]
        a = attack[t]
        reach = 2 if movement[t] > 0 else 1  # the hexes at distance 1 (and 2 after a move)
        ring = by_dist[he]
        for i in range(within[he, 0], within[he, min(reach, top)]):
            out[ring[i]] += a


@njit(cache=True)
def futile_attacks(st, side, fire, cat):
    """fire[h], cat[h]: the side's attacks on hex h by fire (or overrun) and by close assault since
    the last one there that eliminated something, read from the game's record (a player remembers
    which target has shrugged off its fire turn after turn)."""
    fire[:] = 0
    cat[:] = 0
    last = -1
    for k in range(min(st.clock[N_EVENTS], st.log.shape[0])):
        kind = st.log[k, 2]
        if kind == EV_ATTACK or kind == EV_ASSAULT or kind == EV_OVERRUN:
            last = -1
            if st.log[k, 1] == side:
                last = st.log[k, 3]
                if kind == EV_ASSAULT:
                    cat[last] += 1
                else:
                    fire[last] += 1
        elif kind == EV_HIT:
            if last >= 0 and st.log[k, 4] == NOW_ELIMINATED:
                fire[last] = 0  # it eliminated a unit: not futile
                cat[last] = 0
                last = -1
        elif kind != EV_FIRER and kind != EV_ASSAULTER and kind != EV_OVERRUNNER:
            last = -1


@njit(cache=True)
def corridor_watchers(st, ut, mt, pt, side, out):
    """PB-SIT-3/11: a side that must open a corridor `corridor_width` lines wide, free of enemy
    units and of their sight, chooses the band of lines the fewest enemy units watch (stand in or
    see into); out[e] is True for the enemy units watching it: killing them opens the way.
    Returns False for a side with no such need."""
    w = pt.corridor_width[side]
    out[:] = False
    if w <= 0:
        return False
    n_lines = pt.n_lines
    enemy = 1 - side
    n_units = st.utype.shape[0]
    sees = np.zeros((n_units, n_lines), dtype=np.bool_)
    los = mt.los
    hex_line = pt.hex_line
    for e in range(n_units):
        if not is_piece(st, ut, e) or st.side[e] != enemy or st.hex[e] < 0:
            continue
        he = st.hex[e]
        los_e = los[he]
        for h in range(los.shape[0]):
            if h == he or los_e[h]:
                sees[e, hex_line[h]] = True
    best = -1
    best_n = n_units + 1
    for b in range(n_lines - w + 1):
        k = 0
        for e in range(n_units):
            for line in range(b, b + w):
                if sees[e, line]:
                    k += 1
                    break
        # ties: the band nearest the middle (farthest from both edges' fire)
        if k < best_n or (k == best_n and abs(2 * b + w - n_lines) < abs(2 * best + w - n_lines)):
            best_n = k
            best = b
    for e in range(n_units):
        for line in range(best, best + w):
            if sees[e, line]:
                out[e] = True
                break
    return True


@njit(cache=True)
def watcher_factor(st, ut, prm, side, h, watching):
    """How much more the enemy stack in h is worth because units of it watch the corridor."""
    f = 1.0
    for e in range(st.utype.shape[0]):
        if watching[e] and st.hex[e] == h and is_piece(st, ut, e) and st.side[e] != side:
            f = 1.0 + prm[CORRIDOR_WATCHER_BONUS]
    return f


@njit(cache=True)
def target_values(st, ut, mt, ct, pt, prm, side, out, fire_out):
    """`target_values_full` without its spot_out."""
    target_values_full(st, ut, mt, ct, pt, prm, side, out, fire_out, np.zeros(out.shape[0]))


@njit(cache=True)
def target_values_full(st, ut, mt, ct, pt, prm, side, out, fire_out, spot_out):
    """out[h]: what the enemy stack in hex h is worth going for (0 where there is none): the
    expected worth (`gain_at`) of the side's best attack on it over the next turns, with the
    units that could fire at it or close-assault it after a turn's move or two (those a turn
    away count fully, two turns half), at the odds their factors reach against its defence
    (weapon class, terrain), as fire, close assault (PB-CAT), or fire that disperses it for the
    close assault to finish (a dispersed unit dies on DD, PB-DISP-4).  A stack the side has
    attacked again and again to no effect is worth `futility_decay` less for each such attack.
    fire_out[h]: the modified AF that could fire at it so (a turn away fully, two turns half);
    spot_out[h]: the part of out[h] fire alone could buy (what spotting the stack is worth)."""
    n_hex = mt.neighbours.shape[0]
    n_units = st.utype.shape[0]
    enemy = 1 - side
    out[:] = 0.0
    fire_out[:] = 0.0
    spot_out[:] = 0.0
    # Everything the loops below need is read out of the structs once, and each of the side's
    # units' part worked out once, not once per enemy stack: a struct-taking helper called per
    # (stack, unit) pair cost more in numba's reference counting than in its arithmetic
    # (docs/performance.md).  The sums run over the same units in the same order as before.
    status = st.status
    hexes = st.hex
    sides = st.side
    utype = st.utype
    carried_by = st.carried_by
    dispersed = st.dispersed
    positional = ut.positional
    attack = ut.attack
    dist = mt.dist
    unit_value = pt.unit_value
    victory_weight = pt.victory_weight
    share_armed = prm[DISPERSE_VALUE]
    share_unarmed = prm[DISPERSE_VALUE_UNARMED]
    stack = np.zeros(n_hex, dtype=np.bool_)
    # (wk, wd, wdd) of every enemy stack (`stack_worths`, before the goal's factor), rows of one
    # array: each array made costs an allocation, a zeroing and a free, and this runs a few
    # times a player-turn (round 15: 16 arrays a call were a sixth of a game's allocations)
    worth = np.zeros((3, n_hex))
    worth_k, worth_d, worth_dd = worth[0], worth[1], worth[2]
    for e in range(n_units):
        t = utype[e]
        if status[e] != ON_MAP or sides[e] == side or positional[t] or hexes[e] < 0:
            continue
        he = hexes[e]
        if carried_by[e] < 0 and sides[e] == enemy:
            stack[he] = True
        w = unit_value[t] + victory_weight[side, t]
        worth_k[he] += w
        if dispersed[e]:
            worth_dd[he] += w
        else:
            worth_d[he] += w * (share_armed if attack[t] > 0 else share_unarmed)
    # the side's units that could attack: where they stand, their range and hexes a turn, the
    # modified AF of their fire on an armored and on a soft target, their close-assault AF
    own = np.zeros((7, n_units), dtype=np.int64)  # (rows of one array, as `worth`)
    own_hex, own_mv, own_r, own_fires = own[0], own[1], own[2], own[3]
    own_af_armored, own_af_soft = own[4], own[5]
    own_cat = own[6]  # its AF if it can close-assault, else 0
    n_own = 0
    wec = ct.wec
    halving = ct.halving
    for u in range(n_units):
        t = utype[u]
        if status[u] != ON_MAP or positional[t] or carried_by[u] >= 0 or sides[u] != side or hexes[u] < 0:
            continue
        a = attack[t]
        if a <= 0:
            continue
        r = ut.range[t]
        wc = ut.weapon[t]
        own_hex[n_own] = hexes[u]
        own_mv[n_own] = max(ut.movement[t] // 2, 1)  # hexes a turn (movement is kept in half MF)
        own_r[n_own] = r
        if wc >= 0 and r > 0:
            own_fires[n_own] = 1
            own_af_armored[n_own] = modified_attack(a, wc, True, max(r // 2, 1), r, False, wec, halving)
            own_af_soft[n_own] = modified_attack(a, wc, False, max(r // 2, 1), r, False, wec, halving)
        if ut.can_assault[t]:
            own_cat[n_own] = a
        n_own += 1
    futiles = np.empty((2, n_hex), dtype=np.int64)  # (futile_attacks fills both rows)
    futile, futile_cat = futiles[0], futiles[1]
    futile_attacks(st, side, futile, futile_cat)
    min_col = min_column(ct, pt, prm, side)
    kw = kill_w(pt, prm, side)
    decay = prm[FUTILITY_DECAY]
    watching = np.zeros(n_units, dtype=np.bool_)
    corridor = corridor_watchers(st, ut, mt, pt, side, watching)
    near_goal = pt.goal_kind[side] != NO_GOAL
    goal_dist = pt.goal_dist[side]
    goal_factor = prm[GOAL_TARGET_FACTOR]
    terrain_mod = mt.terrain_mod
    # Each stack's units found through lists by hex made once here, not by a scan of every unit
    # per stack (round 15: on pb-12 this loop made 70 % of the game's `defender_stack` calls).
    first = np.empty(n_hex, dtype=np.int64)
    nxt = np.empty(n_units, dtype=np.int64)
    units_by_hex(st, first, nxt)
    for h in range(n_hex):
        if not stack[h]:
            continue
        df, kind, n_def, _ = defender_stack_listed(st, ut, mt, h, enemy, first, nxt)
        if df <= 0:
            continue
        armored = kind != NON_ARMORED  # armored or a tie (PB-WEC-6)
        fire = 0.0
        cat = 0.0
        for i in range(n_own):
            d = dist[own_hex[i], h]
            mv = own_mv[i]
            r = own_r[i]
            if own_fires[i] != 0 and d <= r + 2 * mv:
                af = own_af_armored[i] if armored else own_af_soft[i]
                fire += af if d <= r + mv else 0.5 * af
            a = own_cat[i]
            if a > 0 and d <= 2 * mv + 1:
                cat += a if d <= mv + 1 else 0.5 * a
        wk = worth_k[h]
        wd = worth_d[h]
        wdd = worth_dd[h]
        if near_goal and goal_dist[h] <= 2:
            wk *= goal_factor
            wd *= goal_factor
            wdd *= goal_factor
        if corridor:
            f = watcher_factor(st, ut, prm, side, h, watching)
            wk *= f
            wd *= f
            wdd *= f
        mod = terrain_mod[h]
        col_f = odds_of(ct, int(fire), df) if fire > 0 else -1
        col_c = odds_of(ct, int(cat), df) if cat > 0 else -1
        # Each way of attacking it loses worth with each such attack that came to nothing: fire
        # alone with the fire attacks, the close assault alone with the assaults, fire followed
        # by the assault with both.
        best = 0.0
        if col_f >= min_col:
            best = gain_at(pt, wk, wd, wdd, col_f, mod) * decay ** futile[h]
            spot_out[h] = kw * best
        f_cat = decay ** futile_cat[h]
        cat_mod = mod + ct.mod_close_assault
        if col_c >= min_col:
            best = max(best, gain_at(pt, wk, wd, wdd, col_c, cat_mod) * f_cat)
        cat_mod_disp = cat_mod + dispersed_modifier(ct, n_def, n_def)
        if col_f >= min_col and odds_enough(pt, col_c, cat_mod_disp, min_col, mod):
            # fire disperses the stack, the close assault finishes it (DD eliminates the dispersed)
            p_disp = result_p(pt, P_D, col_f, mod) + result_p(pt, P_DD, col_f, mod)
            finish = gain_at(pt, wk, 0.0, wk, col_c, cat_mod_disp)
            # (both halves must work: attacks of either kind that came to nothing count)
            best = max(best, (gain_at(pt, wk, 0.0, 0.0, col_f, mod) + p_disp * finish) * f_cat * decay ** futile[h])
        out[h] = kw * best
        fire_out[h] = fire


@njit(cache=True)
def target_field(st, ut, mt, ct, pt, prm, side, enemy_dist, target_dist, target_value, hidden):
    """TARGET_DIST: per hex, the distance to the enemy stack most worth going for
    (`target_values`), each stack's distance lengthened by `target_choice_hexes` times the share
    of the best stack's worth it lacks: a side hunting for kills goes for the best target within
    reach, not the nearest.  TARGET_VALUE: 100 x the worth of that stack.  With nothing worth
    attacking anywhere, the nearest enemy (worth 0).  HIDDEN: beside each enemy stack in woods or a
    town, 100 x what the side's fire could gain on it once spotted (PB-SPOT-2)."""
    n_hex = mt.neighbours.shape[0]
    scratch = np.empty((3, n_hex))  # values, AF (unread), spotting worth: one array (see target_values_full)
    vals, spot = scratch[0], scratch[2]
    target_values_full(st, ut, mt, ct, pt, prm, side, vals, scratch[1], spot)
    concealing = mt.concealing
    for h in range(n_hex):
        hidden[h] = 0
    for e in range(n_hex):
        if spot[e] > 0.0 and concealing[e]:
            w = int(100 * spot[e])
            for k in range(6):
                nb = mt.neighbours[e, k]
                if nb >= 0:
                    hidden[nb] += w
    best = vals.max()
    target_value[:] = 0
    if best <= 1e-9:
        for h in range(n_hex):  # a loop, not a slice assignment: see docs/performance.md (cold start)
            target_dist[h] = enemy_dist[h]
        return
    extra = prm[TARGET_CHOICE_HEXES]
    dist = mt.dist
    # The nearest stack (by distance lengthened), the first in hex order among equals, is the
    # least of the keys (distance << shift) + stack hex, hex < 2**shift: one minimum a hex, kept
    # in TARGET_DIST's row and read back below, instead of two selects over two rows (round 10;
    # a shift, not a product by n_hex: round 12).  A key at or above FAR << shift is no nearer
    # than FAR: the hex keeps FAR and no value, as before.
    key = target_dist
    shift = 1
    while (1 << shift) < n_hex:
        shift += 1
    low = (np.int64(1) << shift) - 1
    none = np.int64(FAR) << shift
    for h in range(n_hex):
        key[h] = none
    for e in range(n_hex):
        if vals[e] <= 0.0:
            continue
        pen = int(extra * (1.0 - vals[e] / best) + 0.5)
        dist_e = dist[e]
        for h in range(n_hex):  # the minimum written back unconditionally: LLVM vectorises it
            k = ((np.int64(dist_e[h]) + pen) << shift) + e
            kh = key[h]
            key[h] = k if k < kh else kh
    for h in range(n_hex):
        k = key[h]
        if k < none:
            e = k & low
            target_dist[h] = k >> shift
            target_value[h] = int(100 * vals[e])
        else:
            target_dist[h] = FAR


@njit(cache=True)
def supporter(st, ut, u):
    """A unit that supports its neighbours (OWN_NEAR): a fighting unit on the map, not aboard,
    that can fire.  Trucks, wagons and command posts draw no fire from a tank beside them: in
    pb-04 (seed 3) the Panther counted three empty trucks at 3Q5-3R7 as company and stood alone
    in the open at 3Q6 before the Russian armour until two tanks killed it."""
    t = st.utype[u]
    return is_piece(st, ut, u) and ut.attack[t] > 0 and ut.weapon[t] >= 0


@njit(cache=True)
def note_unit(mt, prm, fields, h, delta):
    """A unit of the side arrives in (delta 1) or leaves (-1) hex h: the OWN_NEAR field of every
    hex within `support_radius` changes by delta."""
    r = int(prm[SUPPORT_RADIUS])
    if h < 0 or r < 0:
        return
    own_near = fields[OWN_NEAR]
    within = mt.within
    ring = mt.by_dist[h]  # the hexes within r of h are its first within[h, r]
    for i in range(within[h, min(r, within.shape[1] - 1)]):
        own_near[ring[i]] += delta


@njit(cache=True)
def moved(st, ut, mt, pt, prm, side, fields, u, before, was_piece):
    """Keep OWN_NEAR, PAIRING and RIDER_DIST up to date after unit u's move (`before`: its hex,
    `was_piece`: whether it stood on the map on its own then), so later units of the phase see
    where it went: a rider an empty carrier has gone to fetch draws no second one (round 7)."""
    t = st.utype[u]
    armed = ut.attack[t] > 0 and ut.weapon[t] >= 0
    now = is_piece(st, ut, u)
    if (ut.carrier[t] and not armed or is_rider(ut, t)) and (now != was_piece or (now and st.hex[u] != before)):
        pairing = fields[PAIRING]
        rider_dist = fields[RIDER_DIST]
        pairing_field(st, ut, pt, prm, side, fields, pairing)
        # RIDER_DIST depends only on where PAIRING > 0, and those are the hexes where it is 0 (a
        # hex's distance to itself; every other is at least 1): where they are the same hexes
        # as before, it stands (round 10: most moves change no hex's sign).
        for h in range(pairing.shape[0]):
            if (pairing[h] > 0) != (rider_dist[h] == 0):
                rider_field(mt, pairing, rider_dist)
                break
    if not armed:
        return  # it supports nobody (`supporter`)
    if was_piece and (not now or st.hex[u] != before):
        note_unit(mt, prm, fields, before, -1)
    if now and (not was_piece or st.hex[u] != before):
        note_unit(mt, prm, fields, st.hex[u], 1)


@njit(cache=True)
def pairing_field(st, ut, pt, prm, side, fields, pairing):
    """Per hex: own riders not aboard anything that have far to go and would be loaded there
    (`wants_ride`) minus own empty carriers (where a carrier and a rider can meet to load next
    turn, PB-TRANS-3).  A rider that walks no farther than a ride would save draws no truck to it
    (round 4: only these load), nor one the enemy is too near to load (round 7)."""
    pairing[:] = 0
    # (`is_piece`, `is_rider`, `wants_ride` written out over arrays read once: this runs at every
    # read and after every carrier's or rider's move, and a struct-taking call per unit cost more
    # in reference counting than its arithmetic)
    status, utype, carried_by, carrying, sides, hexes, trip_hex = \
        st.status, st.utype, st.carried_by, st.carrying, st.side, st.hex, st.trip_hex
    positional, carrier, attack, weapon, vehicle, mclass, movement = \
        ut.positional, ut.carrier, ut.attack, ut.weapon, ut.vehicle, ut.mclass, ut.movement
    kind = pt.goal_kind[side]
    returns = st.trip_final[side] != 0
    enemy_dist, threat_soft, threat_armored = fields[ENEMY_DIST], fields[THREAT_SOFT], fields[THREAT_ARMORED]
    for u in range(utype.shape[0]):
        t = utype[u]
        if status[u] != ON_MAP or positional[t] or carried_by[u] >= 0 or sides[u] != side or hexes[u] < 0:
            continue
        h = hexes[u]
        armed = attack[t] > 0 and weapon[t] >= 0
        if carrier[t] and carrying[u] < 0 and not armed:
            pairing[h] -= 1
        elif not vehicle[t] and mclass[t] >= 0:  # a rider (`is_rider`), not aboard (is_piece)
            gd = pt.return_dist[side, h] if trip_hex[u] >= 0 and returns else pt.goal_dist[side, h]
            if _wants_ride_at(kind, gd, enemy_dist[h], threat_soft[h] == 0 and threat_armored[h] == 0, armed,
                              _ride_far(prm, movement[t]), prm[UNLOAD_DISTANCE], prm[LOAD_MARGIN]):
                pairing[h] += 1


@njit(cache=True)
def rider_field(mt, pairing, rider_dist):
    """RIDER_DIST: per hex, the hexes to the nearest hex with more riders that have far to go than
    empty carriers (PAIRING > 0); FAR where there is none.  An empty carrier that has set its
    passenger down is drawn back to the riders still walking (round 7, pb-02 seed 2: two trucks
    stood empty on the east edge for six turns while 25 rifle, SMG and recon companies walked
    towards it a hex a turn, 24-30 hexes behind)."""
    n_hex = rider_dist.shape[0]
    for h in range(n_hex):
        rider_dist[h] = FAR
    dist = mt.dist
    for e in range(n_hex):
        if pairing[e] <= 0:
            continue
        dist_e = dist[e]
        for h in range(n_hex):  # the minimum written back unconditionally: LLVM vectorises it
            d = np.int64(dist_e[h])
            r = rider_dist[h]
            rider_dist[h] = d if d < r else r


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
    return pt.return_dist[side, st.trip_hex[u]] <= left * max(ut.movement[st.utype[u]] // 2, 1)  # half MF


@njit(cache=True)
def ride_far(ut, prm, t):
    """Hexes to go beyond which a rider of type t rides rather than walks: `ride_far_moves` turns'
    walk (hexes a turn: movement is kept in half MF) plus the hexes it walks anyway from where it
    is set down.  Round 7: read in half MF it took twice the walk, so a 1-MF rifle company rode
    only with more than eight hexes to go, walked from seven (eight turns of a ten-turn card,
    pb-12) and left the wagons idle."""
    return _ride_far(prm, ut.movement[t])


@njit(cache=True, inline="always")
def _ride_far(prm, movement):
    """`ride_far` of a rider with `movement` (half MF)."""
    return prm[RIDE_FAR_MOVES] * max(movement // 2, 1) + prm[UNLOAD_DISTANCE]


@njit(cache=True)
def hexes_to_fight(st, ut, pt, side, u, t, h, enemy_dist):
    """Hexes a rider of type t (unit u) has to go from h to where it will fight or hold: the goal
    for a side that advances or exits; the enemy for a side with no place to go; for a defender
    standing off its ground, its ground or, for a unit that fights (it closes on the enemy from
    its ground, `score_hexes`), the enemy when that is farther.  pb-04: the German rifle platoons
    enter at 2B11, a hex from board 3 (their ground), with the Russian vanguard 13 hexes off;
    read as "one hex to go" they walked into it one hex a turn while their trucks drove off
    empty.  A defender on its ground holds it: it does not load up to drive at the enemy."""
    kind = pt.goal_kind[side]
    if kind == NO_GOAL:
        return enemy_dist[h]
    return _fight_hexes(kind, goal_row(st, pt, side, u)[h], enemy_dist[h], ut.attack[t] > 0 and ut.weapon[t] >= 0)


@njit(cache=True, inline="always")
def _fight_hexes(kind, gd, ed, fights):
    """`hexes_to_fight` from the hex's goal distance gd and enemy distance ed; `fights`: the rider
    is armed (AF and a weapon class)."""
    if kind == NO_GOAL:
        return ed
    if kind == DEFEND and gd > 0 and fights:
        return max(gd, ed)
    return gd


@njit(cache=True)
def needs_ride(st, ut, pt, prm, side, u, h, enemy_dist):
    """A rider that has far to go on foot from h to where it will fight (`hexes_to_fight`)."""
    t = st.utype[u]
    return hexes_to_fight(st, ut, pt, side, u, t, h, enemy_dist) > ride_far(ut, prm, t)


@njit(cache=True)
def kill_w(pt, prm, side):
    """The side's kill weight: what destroying an enemy unit is worth against reaching its goal
    (the parameter its victory measure names, goals.own_goal)."""
    return prm[pt.kill_param[side]]


@njit(cache=True)
def risk_w(pt, prm, side):
    """The side's risk weight: how much its own losses weigh (1 unless its measure counts them)."""
    i = pt.risk_param[side]
    return prm[i] if i >= 0 else 1.0


@njit(cache=True)
def column_for_ratio(ct, ratio):
    """The lowest odds column whose odds are at least `ratio` (attack / defence)."""
    col_attack, col_defense = ct.col_attack, ct.col_defense  # read once, not per column (round 9)
    for j in range(col_attack.shape[0]):
        if col_attack[j] >= ratio * col_defense[j] - 1e-9:
            return j
    return col_attack.shape[0] - 1


@njit(cache=True)
def min_column(ct, pt, prm, side):
    """The worst odds the player attacks at: `min_odds` eased by aggression, never below
    the tables' 1-1 floor; a side whose goal is to leave the map fires only at good odds."""
    ratio = prm[MIN_ODDS] / max(prm[ODDS_EASE] + prm[AGGRESSION], 0.05)
    if pt.goal_kind[side] == EXIT:
        ratio *= prm[EXIT_ODDS_FACTOR]
    return max(column_for_ratio(ct, ratio), pt.min_column)


@njit(cache=True)
def effect_p(pt, col, modifier):
    """Probability that an attack at odds column `col` with net die modifier `modifier` has any
    effect (D, DD or X)."""
    if col < 0:
        return 0.0
    return result_p(pt, P_D, col, modifier) + result_p(pt, P_DD, col, modifier) + result_p(pt, P_X, col, modifier)


@njit(cache=True)
def odds_enough(pt, col, modifier, min_col, terrain):
    """Whether an attack at `col` with net die modifier `modifier` is worth making: at the
    minimum odds or better, or, below them, at least as likely to have an effect as an attack at
    the minimum odds with the terrain's modifier alone.  On this CRT a point off the die is worth
    about a column: a close assault's -2 (PB-CAT-6), and -1 more on a stack that fire has just
    dispersed (PB-DISP-2), make a 1-2 assault on a dispersed fort kill more often than a 2-1
    shot at it (a dispersed unit dies on DD, PB-DISP-4)."""
    if col < 0:
        return False
    if col >= min_col:
        return True
    return effect_p(pt, col, modifier) >= effect_p(pt, min_col, terrain) - 1e-9


@njit(cache=True)
def result_p(pt, k, col, modifier):
    """Probability of CRT result k (P_D, P_DD, P_X) at odds column `col` and a net die modifier."""
    m = min(max(modifier + MOD_OFFSET, 0), pt.p_result.shape[2] - 1)
    return pt.p_result[k, col, m]


@njit(cache=True)
def gain_at(pt, wk, wd, wdd, col, modifier):
    """Expected worth of one attack at `col`: `wk` the worth of the units an X destroys, `wdd`
    that of the dispersed ones a DD destroys, `wd` the worth of dispersing the others (D or DD)
    (`stack_worths`)."""
    if col < 0:
        return 0.0
    px = result_p(pt, P_X, col, modifier)
    pdd = result_p(pt, P_DD, col, modifier)
    pd = result_p(pt, P_D, col, modifier)
    return wk * px + wdd * pdd + wd * (pd + pdd)


@njit(cache=True)
def kill_worth(pt, side, t):
    """Worth to `side` of destroying an enemy unit of type t."""
    return pt.unit_value[t] + pt.victory_weight[side, t]


@njit(cache=True)
def disperse_share(ut, prm, t):
    """Worth of dispersing a unit of type t, as a share of destroying it: it neither fires nor
    moves in its next turn (PB-DISP); little for a unit with no attack factor."""
    return prm[DISPERSE_VALUE] if ut.attack[t] > 0 else prm[DISPERSE_VALUE_UNARMED]


@njit(cache=True)
def stack_worths(st, ut, mt, pt, prm, side, h):
    """(wk, wd, wdd) of the enemy stack in h for `gain_at` (passengers included; more when it
    stands on or beside the side's goal)."""
    wk = 0.0
    wd = 0.0
    wdd = 0.0
    for e in range(st.utype.shape[0]):
        if st.status[e] == ON_MAP and st.hex[e] == h and st.side[e] != side and not ut.positional[st.utype[e]]:
            t = st.utype[e]
            w = kill_worth(pt, side, t)
            wk += w
            if st.dispersed[e]:
                wdd += w
            else:
                wd += w * disperse_share(ut, prm, t)
    if pt.goal_kind[side] != NO_GOAL and pt.goal_dist[side, h] <= 2:
        f = prm[GOAL_TARGET_FACTOR]
        wk *= f
        wd *= f
        wdd *= f
    return wk, wd, wdd


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


# ---------------------------------------------------------------- where to stand

@njit(cache=True)
def hex_score(st, ut, mt, ct, pt, prm, side, u, h, occ, fields, player_rng):
    """Worth of unit u ending its move (or set-up, or entry) in hex h (`score_hexes` of one)."""
    one = np.full(1, h, dtype=np.int64)
    out = np.empty(1)
    score_hexes(st, ut, mt, ct, pt, prm, side, u, one, 1, occ, fields, out, player_rng, np.empty(1, dtype=np.int64),
                np.empty(1))
    return out[0]


@njit(cache=True)
def danger_hexes(st, ut, mt, ct, pt, prm, side, u, hexes, n, fields, nears, dangers):
    """For i < n, of unit u ending in hexes[i] (skipped below 0): nears[i], the side's other units
    within `support_radius`, and dangers[i], the expected damage (P(X) + `disperse_value` x P(D or
    DD)) if the enemy turned all its fire on it there next turn (PB-WEC-2: in a town every unit is
    an armored target), its fire shared among the unit and up to MAX_SUPPORT friends near h, or the
    worse of that and an overrun (PB-OVR) or a close assault (PB-CAT) by what can reach it.  One call
    for all the hexes: a call per hex that hands over eight arrays costs more than its arithmetic
    (each array's reference count is taken and dropped, docs/performance.md)."""
    t = st.utype[u]
    carrying = st.carrying[u] >= 0
    armored_type = ut.armored[t]
    home = st.hex[u]
    self_counted = home >= 0 and supporter(st, ut, u)
    radius = int(prm[SUPPORT_RADIUS])
    split = prm[SUPPORT_SPLIT]
    # The fields are read by (row, hex) from the 2-D array, not through row views: a view takes
    # and drops a reference to the array, and this runs for every decision (round 10).
    top_row = TOP_ARMORED if armored_type else TOP_SOFT
    mod_overrun = ct.mod_overrun
    mod_assault = ct.mod_close_assault
    mod_dispersed = ct.mod_dispersed  # PB-DISP-2: the next attack on a unit dispersed this turn
    town = mt.town
    terrain_mod = mt.terrain_mod
    p_result = pt.p_result
    n_columns = p_result.shape[1]
    n_mods = p_result.shape[2]
    danger_df = max(1 if carrying and not armored_type else ut.defense[t], 1)  # PB-TRANS-6: a passenger defends at 1
    # The odds column of each AF on this defence, looked up (goals.odds_columns) rather than
    # searched over the columns three times a hex (round 10; the same integer test).
    odds_col = pt.odds_col
    cols = odds_col[danger_df] if danger_df < odds_col.shape[0] else _odds_row(ct.col_attack, ct.col_defense,
                                                                              danger_df)
    last_x = cols.shape[0] - 1
    stuck = prm[ALONE_STUCK]
    dist = mt.dist
    for i in range(n):
        h = hexes[i]
        if h < 0:
            continue
        # Exposure to next turn's enemy fire, shared with the side's units near h.
        near = fields[OWN_NEAR, h]
        if self_counted and dist[home, h] <= radius:
            near -= 1  # itself, counted where it stands
        disperse = prm[DISPERSE_VALUE]
        if near <= 0 and (fields[OVERRUN_AF, h] > 0 or fields[ASSAULT_AF, h] > 0):
            # Alone where the enemy's armour or infantry can reach it: dispersed, it cannot move
            # off (PB-DISP-1) and nobody draws the next attack from it, which comes at -1 on the
            # die with DD eliminating it (PB-DISP-2/4).  A D there counts this much nearer a
            # loss (pb-01 seed 3: a lone T-34 among the German infantry at 2V6, dispersed on
            # turns 1, 3 and 7, never fired again).
            disperse += stuck * (1.0 - disperse)
        # The expected damage if the enemy turned all its fire on the hex, shared among the unit
        # and its friends near h.
        dgr = 0.0
        fire_disp = 0.0  # P(D or DD) of that fire, for the assault that may follow it
        fire_x = 0.0     # P(X) of that fire
        threat = fields[THREAT_ARMORED, h] if armored_type or town[h] else fields[THREAT_SOFT, h]
        if threat > 0:
            if near > 0:
                # Shared among the unit and its friends near h, but only as far as the fire comes
                # from several units: one unit fires at one target, so the strongest enemy unit
                # that reaches h can still turn all its fire on this one (round 6, pb-01 seed 5:
                # an 88 inside the fort at 2I7 killed T-34s at 4-1 on and beside the fort, read
                # as 2-1 and 1-1 shared with the tanks and cavalry behind them).
                shared = int(threat / (1.0 + split * min(near, MAX_SUPPORT)))
                threat = max(shared, fields[TOP_ARMORED, h] if town[h] else fields[top_row, h])
            col = np.int64(cols[threat if threat < last_x else last_x])  # odds_column(threat, danger_df)
            if col >= 0:
                m = min(max(terrain_mod[h] + MOD_OFFSET, 0), n_mods - 1)
                fire_disp = p_result[P_D, col, m] + p_result[P_DD, col, m]
                fire_x = p_result[P_X, col, m]
                dgr = fire_x + disperse * fire_disp
        if fields[OVERRUN_AF, h] > 0:
            # The enemy's armour may drive up and overrun it instead (not shared with friends
            # beside it: the overrun hits the hex): the expected damage of an overrun by that
            # printed AF (PB-OVR-5: one column up, the overrun's die modifier).
            x = fields[OVERRUN_AF, h]
            col = np.int64(cols[x if x < last_x else last_x])
            if col >= 0:
                col = min(col + 1, n_columns - 1)  # PB-OVR-5: one column up
                m = min(max(mod_overrun + MOD_OFFSET, 0), n_mods - 1)
                o = p_result[P_X, col, m] + disperse * (p_result[P_D, col, m] + p_result[P_DD, col, m])
                if o > dgr:
                    dgr = o
        if fields[ASSAULT_AF, h] > 0:
            # Or its infantry close-assaults it (PB-CAT: printed AF, the terrain's modifier and the
            # assault's on the die, PB-CAT-6), the same way.
            x = fields[ASSAULT_AF, h]
            col = np.int64(cols[x if x < last_x else last_x])
            if col >= 0:
                m = min(max(terrain_mod[h] + mod_assault + MOD_OFFSET, 0), n_mods - 1)
                o = p_result[P_X, col, m] + disperse * (p_result[P_D, col, m] + p_result[P_DD, col, m])
                if fire_disp > 0:
                    # The enemy's fire disperses it and its infantry closes in: the assault on a
                    # unit dispersed this turn comes at -1 more, and DD eliminates it (PB-SEQ-2:
                    # fire, then movement and close assault; PB-DISP-2/4): infantry that would
                    # assault a fresh tank at 1-2 finishes a dispersed one.  Round 7, pb-01 seed 5:
                    # T-34 #8 beside the SMG platoon at 2V6 was dispersed by the 50mm AT in the fort
                    # at 2W7 on turn 7 and assaulted to death at 1-2 the same turn, each read apart.
                    md = min(max(terrain_mod[h] + mod_assault + mod_dispersed + MOD_OFFSET, 0), n_mods - 1)
                    kill = p_result[P_X, col, md] + p_result[P_DD, col, md]
                    o = fire_x + fire_disp * (kill + (1.0 - kill) * disperse) + (1.0 - fire_x - fire_disp) * o
                if o > dgr:
                    dgr = o
        nears[i] = near
        dangers[i] = dgr


@njit(cache=True)
def _odds_row(col_attack, col_defense, df):
    """`goals.odds_columns`' row for a defence beyond its table (none on the built-in tables)."""
    width = 1
    for j in range(col_attack.shape[0]):
        width = max(width, -(-(col_attack[j] * df) // col_defense[j]) + 1)
    row = np.empty(width, dtype=np.int8)
    for x in range(width):
        col = -1
        for j in range(col_attack.shape[0]):
            if col_attack[j] * df <= x * col_defense[j]:
                col = j
        row[x] = col
    return row


@njit(cache=True)
def score_hexes(st, ut, mt, ct, pt, prm, side, u, hexes, n, occ, fields, out, player_rng, nears, dangers):
    """out[i] = worth of unit u ending its move (or set-up, or entry) in hexes[i], for i < n;
    hexes below 0 (leaving the map) are skipped.  `nears`, `dangers`: scratch of n or more
    (`danger_hexes`), the players' workspace's for a decision (dispatch.Workspace, made once a
    batch: round 9, not two arrays a call).

    What depends only on the unit is worked out once, and the per-hex loop reads plain local
    arrays: scoring every hex a vehicle can reach is most of a game, and a call per hex that
    handed over the whole state, unit, map and policy tuples cost several times the arithmetic
    (docs/performance.md)."""
    t = st.utype[u]
    # The unit's type's numbers read once each (a struct field read takes and drops a reference;
    # several were read three or four times, round 10).
    movement = ut.movement[t]
    unit_range = ut.range[t]
    can_assault = ut.can_assault[t]
    kw = kill_w(pt, prm, side)
    aggr = prm[AGGRESSION]
    kind = pt.goal_kind[side]
    armed = ut.attack[t] > 0 and ut.weapon[t] >= 0
    carrying = st.carrying[u] >= 0
    empty_carrier = ut.carrier[t] and not armed and not carrying
    value = own_value(st, ut, pt, side, u)
    home = st.hex[u]
    goal_dist = goal_row(st, pt, side, u)
    pull = prm[HEX_PROGRESS] * prm[OBJECTIVE_W] * (prm[PULL_BASE] + aggr)
    if empty_carrier:
        # An empty truck has no business at the front, except that one which leaves the map
        # counts as a unit exited: in the last turns it runs for the edge.
        if not (kind == EXIT and home >= 0 and
                st.clock[N_TURNS] - st.clock[TURN] <= goal_dist[home] // max(movement // 2, 1) + 1):
            pull *= prm[EMPTY_CARRIER_PULL]
    on_goal_bonus = prm[ON_GOAL_BONUS] * prm[OBJECTIVE_W]
    approach = armed and (kind == NO_GOAL or kind == DEFEND)
    pref = max(int(unit_range * prm[APPROACH_RANGE]), 1)
    if can_assault and kind == NO_GOAL:
        pref = 1  # a side hunting for kills brings its infantry and cavalry up to close-assault
    target_pull = aggr / (100.0 * max(movement // 2, 1))
    approach_w = prm[HEX_PROGRESS] * aggr * kw
    approach_f = 1.0 if kind == NO_GOAL else prm[DEFEND_APPROACH]
    pace = prm[APPROACH_PACE]
    holds = kind == DEFEND and pt.kill_param[side] != KILL_WEIGHT_KILLS
    stride = max(int(movement) // 2, 1)  # hexes a turn in clear terrain (MF are kept doubled)
    # A loaded carrier of a side with no place to go takes its passenger towards the enemy, to
    # where it is set down (`unload_distance`).
    carry_w = prm[HEX_PROGRESS] * (prm[PULL_BASE] + aggr) * kw if carrying and kind == NO_GOAL else 0.0
    risk = prm[RISK] * risk_w(pt, prm, side) * (prm[RISK_EASE] - aggr) * value
    # An empty carrier weighs the enemy's fire `empty_carrier_risk` times, as it gains nothing at
    # the front, except where it meets a rider to take aboard (`fetch_risk`, below).
    fetch_risk = risk
    if empty_carrier:
        risk *= prm[EMPTY_CARRIER_RISK]
    armored_type = ut.armored[t]
    conceal_bonus = prm[CONCEAL_BONUS] * prm[COVER_W]
    hill_bonus = prm[HILL_BONUS] * prm[COVER_W]
    observer = armed and unit_range > 1
    outlook_w = prm[OUTLOOK_BONUS] * prm[COVER_W]
    outlook_f = 1.0 if kind != ADVANCE else prm[ADVANCE_OUTLOOK]
    fire_bonus = prm[TARGET_IN_RANGE_BONUS] * prm[FIRE_W] * kw
    rng = unit_range
    ud = prm[UNLOAD_DISTANCE]
    truck_w = prm[EMPTY_CARRIER_FRONT] * (0.5 if kind == EXIT else 1.0)
    standoff = prm[EMPTY_CARRIER_STANDOFF]
    # (a defender's riders off its ground too, since round 4: pb-09's German infantry walked to the
    # north edge while empty trucks waited)
    meeting = home >= 0 and kind != NO_GOAL
    meet_bonus = prm[MEET_BONUS]
    # An empty carrier goes back for the riders still walking far (round 7): `fetch_pull` per hex
    # nearer the nearest of them, where there are any.
    fetch_w = prm[FETCH_PULL] if empty_carrier and meeting and fields[RIDER_DIST, home] < FAR else 0.0
    walker = is_rider(ut, t) and not carrying and st.carried_by[u] < 0
    ride_limit = ride_far(ut, prm, t)  # `wants_ride`'s terms for this unit
    load_margin = prm[LOAD_MARGIN]
    placing = home < 0  # set-up or entry: nothing forces it onto a minefield
    # A gun that cannot move itself fires from where it is set up for the whole game (unless a
    # carrier comes for it): it is set up where it sees the enemy's ways to the side's ground
    # within its range (goals.ways_in_view; VIEW_RANGE_HEXES are 4, 8, ... 20).
    way_view_w = 0.0
    if placing and observer and movement == 0 and st.carried_by[u] < 0:
        way_view_w = prm[WAY_VIEW_BONUS]
    way_view = pt.way_view[side, max(min(unit_range // 4, pt.way_view.shape[1]) - 1, 0)]
    mine_cost = (prm[SETUP_MINE_COST] if placing else prm[MINE_COST]) * value
    # The side's own minefields lie where the enemy must pass: its units have no business on them.
    # Not a weight but a rule the player keeps: a unit ends its set-up, entry or move on one only
    # when every hex it may choose is one (a large weight was outbid by the pull of a target worth
    # more than the unit: pb-08, a guards company onto its own minefield at 1K3).
    own_mine_cost = OWN_MINE_BARRED + prm[SETUP_MINE_COST] * value
    mine_side = st.mine_side
    survived_mine = st.mine_safe[u]  # PB-MINE-6: it may stay on its minefield unharmed
    # Contact: spotting hidden enemies for next turn's fire (PB-SPOT-2) and close-assaulting
    # them or their forts (PB-CAT); units that can fire or assault.
    contact_w = 0.0
    if can_assault:
        contact_w = prm[CONTACT_BONUS] * kw * (prm[PULL_BASE] + aggr) / 100.0
    elif armed:
        # HIDDEN is the gain the side's fire could make on what it spots (the kill weight in it)
        contact_w = prm[CONTACT_BONUS] * (prm[PULL_BASE] + aggr) / 100.0
    supported = armed or armored_type  # combat units seek each other's company
    alone_cost = prm[ALONE_COST] * value if supported else 0.0
    engineer_bonus = prm[ENGINEER_MINE_BONUS] if ut.engineer[t] else 0.0
    stacking_cost = prm[STACKING_COST]
    stack_danger = prm[STACK_DANGER]
    stay_bonus = prm[STAY_BONUS]
    contact_cost = prm[PASSENGER_CONTACT_COST]
    cover_unload = prm[UNLOAD_COVER_BONUS]
    noise = prm[NOISE]
    # PB-SIT-8: a command post spots for its side's card-rule mortars only within `cp_within`
    # hexes of them: it stands where it covers the most of those that can fire.
    # (rows hex and reach of each mortar; made for a command post only: a unit that observes
    # nothing reads an empty view, not an array made for it at each decision, round 15)
    n_sp = 0
    spots = nears[:0].reshape((2, 0))
    if ut.observer[t]:
        spots = np.empty((2, 8), dtype=np.int64)
        for v in range(st.utype.shape[0]):
            tv = st.utype[v]
            if ut.card_indirect[tv] and st.side[v] == side and st.status[v] == ON_MAP and st.carried_by[v] < 0 \
                    and n_sp < 8:
                spots[0, n_sp] = st.hex[v]
                spots[1, n_sp] = ut.cp_within[tv]
                n_sp += 1
    spot_w = prm[CP_SPOT_BONUS] * prm[FIRE_W]
    dist = mt.dist
    # A unit that cannot close-assault gains by contact only the enemies it spots (round 6, pb-01
    # seed 5: T-34 #8 drove to 2W6 beside the fort of a command post, worth five kills to the
    # Russians, a fort it could neither spot nor assault, and was dispersed there for the game).
    contact_row = CONTACT if can_assault else HIDDEN
    concealing = mt.concealing
    level = mt.level
    outlook = pt.outlook
    mine = st.mine
    # Progress is counted from where the unit stands (set-up and entry: linear, no reference).
    gd_ref = goal_dist[home] if home >= 0 else FAR
    returning = st.trip_hex[u] >= 0 and st.trip_final[side] != 0
    self_counted = home >= 0 and is_piece(st, ut, u)
    danger_hexes(st, ut, mt, ct, pt, prm, side, u, hexes, n, fields, nears, dangers)
    for i in range(n):
        h = hexes[i]
        if h < 0:
            continue
        s = 0.0
        gd = goal_dist[h]
        near = nears[i]
        dgr = dangers[i]
        alive = 1.0 - min(dgr, 1.0)
        if kind == ADVANCE or kind == EXIT:
            if home < 0:
                s -= pull * gd
            elif gd < gd_ref:
                # ground gained counts only as far as the unit lives to hold it: a tank that runs
                # ahead into fire it cannot answer gains nothing (on the way back of a round trip,
                # PB-SIT-5, time runs out: it takes the risk)
                s += pull * (gd_ref - gd) * (1.0 if returning else alive)
            else:
                s -= pull * (gd - gd_ref)
            if kind == ADVANCE and gd == 0:
                s += on_goal_bonus * alive  # counted in the area
        elif kind == DEFEND:
            s -= pull * gd
        if approach and (kind == NO_GOAL or gd <= 1):
            # Close to shooting range of the enemy most worth attacking, more so the more
            # aggressive; each turn's march still to go is a turn's attack on it lost.  Counted
            # by whole turns of march still to go beyond this one (`approach_pace` of it by hexes,
            # to break ties): a unit that can be in range after next turn's move from where it
            # stands gains little by ending nearer now, so a fast unit stops short, out of the
            # enemy's reach, while slower friends come up, and goes in when the fire it would
            # draw is shared or worth it (pb-01 seed 3: a T-34 ran ten hexes ahead to 2V6).
            excess = max(min(fields[TARGET_DIST, h], 30) - pref, 0)
            if holds:
                # A defender on its ground holds it and lets the enemy come: it steps out only
                # to get within range of a target this move (pb-05 seed 3: the Russian rifle
                # companies shuffled a hex back and forth, 1B6/1C6/1A5, as the target most worth
                # attacking changed from turn to turn).  One scored on kills still goes for them
                # (pb-08's Russians: a quick audit saw German wins rise from 18 % to 41 %).
                march = min(excess, stride)
            else:
                march = pace * excess + (1.0 - pace) * stride * (excess // stride)
            s -= (approach_w + target_pull * fields[TARGET_VALUE, h]) * march * approach_f
        # Where it meets a rider with far to go (PB-TRANS-3: they load next turn), an empty carrier
        # has business: it weighs the fire there as a loaded one would (round 7, pb-12 seed 3: four
        # wagons stood at the back of board 3 on turns 1-3 while the rifle companies walked three
        # hexes off, a 2 AF howitzer's fire on those hexes weighed three times).
        fetching = empty_carrier and meeting and fields[PAIRING, h] + (1 if h == home else 0) > 0
        s -= (fetch_risk if fetching else risk) * dgr
        if near <= 0 and dgr > 0:
            s -= alone_cost  # alone where the enemy's fire reaches it
        # Cover and observation.
        if concealing[h]:
            s += conceal_bonus  # unseen at range (PB-SPOT-1) and +1 on the die (PB-CBT-10)
        # A hilltop and the view from it are worth only as far as the unit lives to use them
        # (round 6, pb-01 seed 5: T-34 #6 drove onto the German fort on Hill 129, the best view
        # on the board, under the 88 inside it at 4-1, and died there).
        if level[h] == HILLTOP:
            s += hill_bonus * alive
        if observer:
            # (half in the open: what sees the ways from there is seen from them; a gun in woods
            # or a town is hidden until the enemy stands beside it, PB-SPOT-1)
            s += (outlook_w * outlook[h] * outlook_f +
                  way_view_w * way_view[h] * (1.0 if concealing[h] else 0.5)) * alive
            if fields[TARGET_NEAR, h] <= rng:
                s += fire_bonus * alive
        if contact_w > 0 and fields[contact_row, h] > 0:
            s += contact_w * min(fields[contact_row, h], 300) * alive  # it spots and assaults only if it lives
        if engineer_bonus > 0 and fields[ENEMY_MINES, h] > 0:
            s += engineer_bonus  # beside an enemy minefield it may clear (PB-MINE-9)
        if carrying:
            # Set the passenger down before contact, not in it, and in cover.
            ed = fields[ENEMY_DIST, h]
            if carry_w > 0:
                s -= carry_w * max(min(ed, 30) - ud, 0)
            if ed < ud:
                s -= contact_cost * (ud - ed)
            if concealing[h] and (ed <= ud + 2 or (kind == DEFEND and gd == 0)):
                s += cover_unload  # where it is set down: short of the enemy, or on its ground
        if empty_carrier and fields[ENEMY_DIST, h] < standoff and not fetching:
            s -= truck_w * (standoff - fields[ENEMY_DIST, h])
        if fetch_w > 0:
            s -= fetch_w * min(fields[RIDER_DIST, h], 30)
        # Meet to load next turn (PB-TRANS-3): empty carriers go to riders with far to walk,
        # riders wait where an empty carrier is.  The unit's own count in its present hex is
        # left out.
        if meeting:
            here = fields[PAIRING, h]
            if fetching:
                s += meet_bonus
            elif walker and _wants_ride_at(kind, gd, fields[ENEMY_DIST, h], fields[THREAT_SOFT, h] == 0 and fields[THREAT_ARMORED, h] == 0,
                                           armed, ride_limit, ud, load_margin):
                if h == home:
                    here -= 1
                if here < 0:
                    s += meet_bonus
        for k in range(n_sp):
            if dist[h, spots[0, k]] <= spots[1, k]:
                s += spot_w
        # PB-MINE-5: a minefield attacks every unit in it at 2-1 each turn it stays (whoever
        # laid it, PB-MINE-2), unless it came through unharmed (PB-MINE-6).
        if mine[h] and not (h == home and survived_mine):
            s -= own_mine_cost if mine_side[h] == side else mine_cost
        # Do not pile up (one result hits the whole stack, PB-STK-5: each unit already there adds
        # `stack_danger` of the unit's own danger); do not shuffle about for nothing.
        others = occ[h, side] - (1 if h == home and self_counted else 0)
        s -= stacking_cost * occ[h, side] + stack_danger * risk * dgr * max(others, 0)
        if h == home:
            s += stay_bonus
        if noise > 0:
            s += noise * player_rng.random()  # the players' stream (decisions.Decisions.rng)
        out[i] = s


@njit(cache=True)
def pick_hex(st, ut, mt, ct, pt, prm, side, u, options, n, occ, fields, pairing, player_rng, scores, nears, dangers):
    """The best of n candidate hexes (set-up or entry); -1 if none.  `pairing[h]`: riders
    minus carriers already set up in h (set-up puts trucks with the infantry they will carry)."""
    best = -1
    best_s = -1e18
    t = st.utype[u]
    if ut.fort[t]:
        return pick_fort(st, ut, pt, prm, side, options, n, player_rng)
    rider = is_rider(ut, t)
    carrier = ut.carrier[t]
    score_hexes(st, ut, mt, ct, pt, prm, side, u, options, n, occ, fields, scores, player_rng, nears, dangers)
    for i in range(n):
        h = options[i]
        s = scores[i]
        if (carrier and pairing[h] > 0) or (rider and pairing[h] < 0):
            s += prm[PAIR_EXIT_BONUS] if pt.goal_kind[side] == EXIT else prm[MEET_BONUS]
        elif rider and occ[h, side] == 0 and pt.goal_kind[side] != DEFEND:
            s += prm[ALONE_RIDER_BONUS]  # alone, so a carrier can still join it
        if s > best_s:
            best_s = s
            best = i
    return best


@njit(cache=True)
def pick_fort(st, ut, pt, prm, side, options, n, player_rng):
    """Set-up of a fort (PB-FORT): it shelters the side's units in its hex, so it goes where the
    most of their worth stands (`own_value`), on the enemy's ways to the side's ground
    (`barrier_path`, as a minefield) and in front rather than behind (`barrier_forward`).  A side
    places its forts of a group after that group's other units (game.setup_side) or with the
    unit the card names.  Round 7: scored as a unit, pb-12's eight German forts stood on the
    north edge of board 2 (2A1-2Y1), behind the rifle platoons holding rows 3-4."""
    worth = np.zeros(pt.barrier_way.shape[1])
    for v in range(st.utype.shape[0]):
        if st.side[v] == side and st.status[v] == ON_MAP and st.hex[v] >= 0 and not ut.positional[st.utype[v]]:
            worth[st.hex[v]] += own_value(st, ut, pt, side, v)
    scores = np.empty(n)
    for i in range(n):
        h = options[i]
        scores[i] = way_score(pt, prm, side, h) + worth[h]
    return noisy_best(prm, scores, n, player_rng)


@njit(cache=True)
def way_score(pt, prm, side, h):
    """A barrier's or fort's hex: on the enemy's ways to the side's ground (`barrier_path`), in
    front of the side's units rather than behind them (`barrier_forward`)."""
    return prm[BARRIER_PATH] * pt.barrier_way[side, h] - prm[BARRIER_FORWARD] * min(pt.enemy_start_dist[side, h], 30)


@njit(cache=True)
def noisy_best(prm, scores, n, player_rng):
    """The index of the best of n scores, each with the players' noise added in turn."""
    best = -1
    best_s = -1e18
    for i in range(n):
        s = scores[i]
        if prm[NOISE] > 0:
            s += prm[NOISE] * player_rng.random()
        if s > best_s:
            best_s = s
            best = i
    return best


@njit(cache=True)
def pick_barrier(st, ut, mt, pt, prm, side, u, options, n, occ, player_rng):
    """Set-up of a minefield or block (PB-MINE-1, PB-BLOCK-1): where the enemy must pass on its
    cheapest ways to the side's ground (`goals.barrier_ways`), on roads, in front of the side's
    units rather than behind them, not beside another of its barriers, and never under its own
    units (the side places its barriers before its units, game.setup_side)."""
    scores = np.empty(n)
    for i in range(n):
        h = options[i]
        s = way_score(pt, prm, side, h)
        if pt.road_hex[h]:
            s += prm[BARRIER_ROAD]
        for k in range(6):
            nb = mt.neighbours[h, k]
            if nb >= 0 and ((st.mine[nb] and st.mine_side[nb] == side) or own_block(st, ut, nb, side)):
                s -= prm[BARRIER_SPREAD]
        s -= occ[h, side]
        scores[i] = s
    return noisy_best(prm, scores, n, player_rng)


@njit(cache=True)
def own_block(st, ut, h, side):
    if not st.block[h]:
        return False
    for v in range(st.utype.shape[0]):
        if st.status[v] == ON_MAP and st.hex[v] == h and st.side[v] == side and ut.positional[st.utype[v]] \
                and not ut.fort[st.utype[v]]:
            return True
    return False


@njit(cache=True)
def pick_mine_clear(st, ut, mt, pt, side, u, mines, n):
    """PB-MINE-9: which of the n minefields beside engineer u it tries to clear, or -1.

    Enemy minefields only (the side knows its own), the one nearest its goal first.  Its own
    minefield only where it bars the side's way: the side advances or exits, and every hex
    beside the engineer that is nearer the goal is mined or closed."""
    kind = pt.goal_kind[side]
    best = -1
    best_d = FAR + 1
    for i in range(n):
        h = mines[i]
        if st.mine_side[h] != side and pt.goal_dist[side, h] < best_d:
            best = i
            best_d = pt.goal_dist[side, h]
    if best >= 0 or not (kind == ADVANCE or kind == EXIT):
        return best
    here = st.hex[u]
    gd = pt.goal_dist[side, here]
    barred = True
    for k in range(6):
        nb = mt.neighbours[here, k]
        if nb >= 0 and pt.goal_dist[side, nb] < gd and not mt.closed[nb] and not st.mine[nb]:
            barred = False
    if not barred:
        return -1
    for i in range(n):
        if pt.goal_dist[side, mines[i]] < gd:
            return i
    return -1


@njit(cache=True)
def is_rider(ut, t):
    """A unit a carrier can take aboard (PB-TRANS-2): not a vehicle, not a counter like a fort."""
    return not ut.vehicle[t] and not ut.positional[t] and ut.mclass[t] >= 0


@njit(cache=True)
def pick_entry_rider(st, ut, mt, pt, prm, side, c, riders, n, fields):
    """A group entering by the map edge: which of the n riders of carrier c's group boards it
    before it enters (transport.board_entering), or -1.  Riders board when they have far to go from
    the entry hexes (to the goal, or to the enemy for a side without one); the slowest first;
    a fighting vehicle (a tank, an assault gun) takes one only when the trucks, wagons and
    halftracks of the group cannot carry them all (a passenger shares its carrier's fate,
    PB-TRANS-8/10, and a tank has better things to do)."""
    if n <= 0:
        return -1
    g = st.group[c]
    h0 = st.group_hexes[st.group_hex_start[g]]
    kind = pt.goal_kind[side]
    best = -1
    best_key = -1e18
    for i in range(n):
        t = st.utype[riders[i]]
        if kind == NO_GOAL:
            far = fields[ENEMY_DIST, h0] > 2 * prm[UNLOAD_DISTANCE]
        else:
            far = kind == EXIT or hexes_to_fight(st, ut, pt, side, riders[i], t, h0, fields[ENEMY_DIST]) > \
                ride_far(ut, prm, t)
        if not far:
            continue
        key = -100.0 * ut.movement[t] + own_value(st, ut, pt, side, riders[i])
        if key > best_key:
            best_key = key
            best = i
    if best < 0 or ut.category[st.utype[c]] == TRANSPORT:
        return best
    spare = 0
    for v in range(st.utype.shape[0]):
        if v != c and st.group[v] == g and st.status[v] == WAITING and st.carrying[v] < 0 and \
                ut.carrier[st.utype[v]] and ut.category[st.utype[v]] == TRANSPORT:
            spare += 1
    return best if n > spare else -1


@njit(cache=True)
def overrun_gain(st, ut, mt, ct, pt, prm, side, u, target):
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
    wk, wd, wdd = stack_worths(st, ut, mt, pt, prm, side, target)
    return kill_w(pt, prm, side) * gain_at(pt, wk, wd, wdd, col, mod), col


@njit(cache=True)
def pick_move(st, ut, mt, ct, pt, prm, side, u, options, n, n_over, ov_target, ov_exit, occ,
              fields, player_rng, scores, nears, dangers):
    """Index into the movement options: 0..n-1 hexes (or -2-h: leave the map from h), then
    n..n+n_over-1 overruns; -1 stays put.  `scores`, `nears`, `dangers`: scratch of n or more
    (the players' workspace's)."""
    best = -1
    best_s = -1e18
    exit_worth = prm[EXIT_WORTH] * prm[OBJECTIVE_W] if pt.goal_kind[side] == EXIT else -1e9
    if st.trip_final[side] != 0 and st.trip_hex[u] < 0 and \
            st.clock[TURN] + st.trip_stay_off[side] >= st.clock[N_TURNS]:
        exit_worth = -1e9  # PB-SIT-5: out now, it could not come back before the end
    score_hexes(st, ut, mt, ct, pt, prm, side, u, options, n, occ, fields, scores, player_rng, nears, dangers)
    for i in range(n):
        s = exit_worth if options[i] <= -2 else scores[i]
        if s > best_s:
            best_s = s
            best = i
    if n_over <= 0:
        return best
    min_col = min_column(ct, pt, prm, side)
    for k in range(n_over):
        gain, col = overrun_gain(st, ut, mt, ct, pt, prm, side, u, ov_target[k])
        if col < min_col:
            continue
        # the overrunner ends in the exit hex: score it there, plus what the attack is worth
        # (off the map, PB-OVR-10: as a unit leaving the map)
        x = ov_exit[k]
        s = gain + (hex_score(st, ut, mt, ct, pt, prm, side, u, x, occ, fields, player_rng) if x >= 0 else exit_worth)
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
def forgo_costs(st, ut, mt, ct, pt, prm, side, firers, n_f, af, opp):
    """opp[i]: what firer i gives up by firing, since a unit that fires may not move (PB-SEQ-3.1):
    `fire_forgo_move` x its share of the best enemy stack it cannot fire at now but could after
    this turn's move (`target_values`, its modified AF over all the fire that could reach that
    stack).  `plan_fire` counts it against an attack on a stack as far as earlier attacks there
    came to nothing (1 - futility_decay ** attacks): four tanks that disperse the same fort turn
    after turn (pb-01) are worth more driving on to the guns and infantry behind it.  Only for a
    side without a place goal (NO_GOAL: it moves to hunt): a side holding ground stays on it, one
    advancing or leaving moves for its goal, not for other targets (`plan_fire` already keeps a
    side racing off the map from firing with units that could move)."""
    opp[:] = 0.0
    w = prm[FIRE_FORGO_MOVE]
    if w <= 0.0 or pt.goal_kind[side] != NO_GOAL:
        return
    n_hex = mt.neighbours.shape[0]
    vals = np.zeros(n_hex)
    fire = np.zeros(n_hex)
    target_values(st, ut, mt, ct, pt, prm, side, vals, fire)
    dist = mt.dist
    for i in range(n_f):
        u = firers[i]
        t = st.utype[u]
        if ut.movement[t] <= 0 or ut.weapon[t] < 0:
            continue
        mv = max(ut.movement[t] // 2, 1)  # hexes a turn (movement is kept in half MF)
        r = ut.range[t]
        hu = st.hex[u]
        best = 0.0
        for h in range(n_hex):
            if vals[h] <= 0.0 or fire[h] <= 0.0 or af[i, h] > 0 or dist[hu, h] > r + mv:
                continue
            _, kind, _, _ = defender_stack(st, ut, mt, h, 1 - side)
            a = modified_attack(ut.attack[t], ut.weapon[t], kind != NON_ARMORED, max(r // 2, 1), r, False, ct.wec, ct.halving)
            v = vals[h] * min(a / fire[h], 1.0)
            if v > best:
                best = v
        opp[i] = w * best


@njit(cache=True)
def keep_costs(st, ut, mt, ct, pt, prm, side, firers, n_f, occ, fields, escape, assault):
    """What firer i gives up by firing whatever its earlier attacks came to, since a unit that
    fires may neither move (PB-SEQ-3.1) nor close-assault (PB-CAT-1):
    - escape[i], `fire_escape` x the danger it could step out of: its danger where it stands (`danger_hexes`:
      the enemy's fire, overrun or close assault next turn) less the least within half its MF in
      hexes, times the side's risk weight and its worth.  A PzIV beside three rifle companies
      that fires at a wagon instead of driving off is assaulted to death (pb-05); a Panther
      spotted in the woods in front of a tank column that fires at 1-1 instead of falling back
      is shot next turn (pb-04).  (`escape_given_up` weighs it against each attack.)
    - assault[i], `fire_forgo_assault` x its share (by AF) of the best close assault it could make on a stack
      beside it, with all the side's units that may assault that stack, at odds good enough
      (`plan_assaults`' rule): six rifle platoons that fire at 1-1 into the woods (+1 on the die)
      give up a 1-1 assault at -2 (pb-12).
    `fields` must be read from the enemy's present positions (`enemy_fields`)."""
    escape[:] = 0.0
    assault[:] = 0.0
    n_hex = mt.neighbours.shape[0]
    n_units = st.utype.shape[0]
    enemy = 1 - side
    w_escape = prm[FIRE_ESCAPE]
    w_cat = prm[FIRE_FORGO_ASSAULT]
    risk = prm[RISK] * risk_w(pt, prm, side) * (prm[RISK_EASE] - prm[AGGRESSION])
    kw = kill_w(pt, prm, side)
    min_col = min_column(ct, pt, prm, side)
    cand = np.empty(n_hex, dtype=np.int64)
    nears = np.empty(n_hex, dtype=np.int64)
    dangers = np.empty(n_hex)
    mine = st.mine
    closed = mt.closed
    within = mt.within
    by_dist = mt.by_dist
    dist = mt.dist
    # who may close-assault (`may_assault`), asked once per unit, not per unit and target hex
    assaults = np.zeros(n_units, dtype=np.bool_)
    if w_cat > 0.0:
        for v in range(n_units):
            assaults[v] = may_assault(st, ut, v, side)
    for i in range(n_f):
        u = firers[i]
        t = st.utype[u]
        hu = st.hex[u]
        if w_escape > 0.0 and ut.movement[t] > 0:
            reach = max(ut.movement[t] // 4, 1)  # half its MF in hexes (movement is kept in half MF)
            cand[0] = hu
            k = 1
            # the hexes within reach, nearest first (`by_dist`): only the least danger among them
            # is read, which does not depend on their order
            ring = by_dist[hu]
            for j in range(within[hu, 0], within[hu, min(reach, within.shape[1] - 1)]):
                x = ring[j]
                if occ[x, enemy] == 0 and not mine[x] and not closed[x]:
                    cand[k] = x
                    k += 1
            danger_hexes(st, ut, mt, ct, pt, prm, side, u, cand, k, fields, nears, dangers)
            low = dangers[:k].min()
            if dangers[0] > low:
                escape[i] = w_escape * risk * own_value(st, ut, pt, side, u) * (dangers[0] - low)
        if w_cat > 0.0 and assaults[u]:
            best = 0.0
            for k6 in range(6):
                h = mt.neighbours[hu, k6]
                if h < 0 or occ[h, enemy] == 0:
                    continue
                df, _, n_def, n_disp = defender_stack(st, ut, mt, h, enemy)
                if df <= 0:
                    continue
                total = 0
                for v in range(n_units):
                    if assaults[v] and dist[st.hex[v], h] == 1:
                        total += _assault_af(st, ut, mt, ct, v, h)
                col = odds_of(ct, total, df)
                cat_mod = mt.terrain_mod[h] + ct.mod_close_assault + dispersed_modifier(ct, n_def, n_disp)
                if col < min_col and not (n_disp > 0 and odds_enough(pt, col, cat_mod, min_col, mt.terrain_mod[h])):
                    continue
                wk, wd, wdd = stack_worths(st, ut, mt, pt, prm, side, h)
                g = kw * gain_at(pt, wk, wd, wdd, col, cat_mod) * _assault_af(st, ut, mt, ct, u, h) / max(total, 1)
                if g > best:
                    best = g
            assault[i] = w_cat * best


@njit(cache=True)
def threat_share(st, ut, mt, ct, side, u, h, fields):
    """The share of the danger to unit u where it stands that the enemy stack in h makes: its units'
    fire at u's hex over all the enemy fire that reaches it (THREAT fields), or its close assault
    over all the assaults that could reach it (ASSAULT_AF), whichever is larger."""
    hu = st.hex[u]
    armored = ut.armored[st.utype[u]] or mt.town[hu]
    d = mt.dist[h, hu]
    fire = 0
    cat = 0
    for e in range(st.utype.shape[0]):
        if st.hex[e] != h or st.side[e] == side or not is_piece(st, ut, e) or st.dispersed[e]:
            continue
        t = st.utype[e]
        if ut.attack[t] <= 0:
            continue
        if ut.weapon[t] >= 0 and 0 < d <= ut.range[t] and (d == 1 or mt.los[h, hu]):
            fire += modified_attack(ut.attack[t], ut.weapon[t], armored, d, ut.range[t], False, ct.wec, ct.halving)
        if ut.can_assault[t] and d <= 2:
            cat += ut.attack[t]
    threat = fields[THREAT_ARMORED, hu] if armored else fields[THREAT_SOFT, hu]
    share = min(fire / threat, 1.0) if threat > 0 else 0.0
    if fields[ASSAULT_AF, hu] > 0:
        share = max(share, min(cat / fields[ASSAULT_AF, hu], 1.0))
    return share


@njit(cache=True)
def by_key(items, keys, n):
    """items[:n] ordered by keys[:n], smallest first, equal keys in their order (a stable sort,
    as argsort's mergesort, which costs about 2 s of compile at a cold start)."""
    out = np.empty(n, dtype=items.dtype)
    k = np.empty(n, dtype=keys.dtype)
    for i in range(n):
        x = items[i]
        kx = keys[i]
        j = i
        while j > 0 and k[j - 1] > kx:
            out[j] = out[j - 1]
            k[j] = k[j - 1]
            j -= 1
        out[j] = x
        k[j] = kx
    return out


@njit(cache=True)
def plan_fire(st, ut, mt, ct, pt, prm, side, occ, rows_hex, rows_af, start, target_of, fields):
    """PB-SEQ-2 S2: declare every attack of the turn at once (PB-SEQ-3.3).

    Greedy concentration: take the enemy stack where all the fire that can reach it buys the
    most expected worth (`gain_at`: its units destroyed, or dispersed where that stops them
    firing, at those odds and die modifiers), give it just enough firers to reach those odds,
    and repeat with the firers left.  Stacks that cannot be brought to the minimum odds, or
    where the attack would buy less than `fire_min_gain`, are left alone.

    Returns the best odds column any enemy stack could be attacked at with all the firers it
    considered that give up nothing else by firing at it (-1: none in reach), which the game logs
    for the blunder audit."""
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
        return -1
    af = np.zeros((n_f, n_hex), dtype=np.int64)  # modified AF of firer i against hex h
    is_target = np.zeros(n_hex, dtype=np.bool_)
    for i in range(n_f):
        u = firers[i]
        for j in range(start[u], start[u + 1]):  # the engine's options: target hex, AF
            af[i, rows_hex[j]] = rows_af[j]
            is_target[rows_hex[j]] = True
    targets = np.flatnonzero(is_target)
    n_t = targets.shape[0]
    df = np.zeros(n_t, dtype=np.int64)
    mod = np.zeros(n_t, dtype=np.int64)
    wk = np.zeros(n_t)
    wd = np.zeros(n_t)
    wdd = np.zeros(n_t)
    kw = kill_w(pt, prm, side)
    reach = -1
    futile = np.zeros(n_hex, dtype=np.int64)
    futile_cat = np.zeros(n_hex, dtype=np.int64)
    futile_attacks(st, side, futile, futile_cat)
    watching = np.zeros(n_units, dtype=np.bool_)
    corridor = corridor_watchers(st, ut, mt, pt, side, watching)
    # Close assault after the fire (PB-SEQ-2: fire, move, then assault): the side's units that may
    # assault a stack this turn without moving, and what their assault would buy on it dispersed.
    cat_af = np.zeros(n_t, dtype=np.int64)
    finish = np.zeros(n_t)
    min_col = min_column(ct, pt, prm, side)
    assaults = np.empty(n_units, dtype=np.bool_)  # `may_assault`, asked once per unit
    for v in range(n_units):
        assaults[v] = may_assault(st, ut, v, side)
    dist = mt.dist
    for j in range(n_t):
        h = targets[j]
        d, _, n_def, n_disp = defender_stack(st, ut, mt, h, enemy)
        df[j] = d
        mod[j] = mt.terrain_mod[h] + dispersed_modifier(ct, n_def, n_disp)
        wk[j], wd[j], wdd[j] = stack_worths(st, ut, mt, pt, prm, side, h)
        if corridor:
            f = watcher_factor(st, ut, prm, side, h, watching)
            wk[j] *= f
            wd[j] *= f
            wdd[j] *= f
        # dispersing a stack that has shrugged off attack after attack buys less each time ...
        wd[j] *= prm[FUTILITY_DECAY] ** futile[h]
        # ... unless the assault stands ready to finish it
        for v in range(n_units):
            if assaults[v] and dist[st.hex[v], h] == 1:
                cat_af[j] += _assault_af(st, ut, mt, ct, v, h)
        if cat_af[j] > 0 and d > 0:
            c = odds_of(ct, cat_af[j], d)
            if odds_enough(pt, c, mt.terrain_mod[h] + ct.mod_close_assault + dispersed_modifier(ct, n_def, n_def),
                           min_col, mt.terrain_mod[h]):
                finish[j] = gain_at(pt, wk[j], 0.0, wk[j], c, mt.terrain_mod[h] + ct.mod_close_assault
                                    + dispersed_modifier(ct, n_def, n_def)) * prm[FUTILITY_DECAY] ** futile_cat[h]
    free = np.ones(n_f, dtype=np.bool_)
    done = np.zeros(n_t, dtype=np.bool_)
    order = np.empty(n_f, dtype=np.int64)
    opp = np.zeros(n_f)
    forgo_costs(st, ut, mt, ct, pt, prm, side, firers, n_f, af, opp)
    escape = np.zeros(n_f)
    cat_given = np.zeros(n_f)
    keep_costs(st, ut, mt, ct, pt, prm, side, firers, n_f, occ, fields, escape, cat_given)
    keep = escape + cat_given
    # The note for the audit: the best odds reached with the firers that give up nothing by firing
    # at the stack (no danger to step out of, no close assault to make, no better target a move
    # away once attacks there came to nothing): passing up such an attack is idleness, holding fire
    # to drive off or to assault is not.
    for j in range(n_t):
        h = targets[j]
        if df[j] > 0:
            total = 0
            for i in range(n_f):
                if keep[i] <= 0.0 and (opp[i] <= 0.0 or futile[h] == 0):
                    total += af[i, h]
            if total > 0:
                reach = max(reach, odds_of(ct, total, df[j]))
    while True:
        best = -1
        best_gain = prm[FIRE_MIN_GAIN]
        best_col = -1
        best_cheap = False
        for j in range(n_t):
            if done[j] or df[j] <= 0:
                continue
            h = targets[j]
            # Twice: with every free firer that reaches it, and with only those that give up
            # nothing else by firing (no danger to step out of, no close assault to make).
            kept = 0.0
            for cheap in (False, True):
                if cheap and kept <= 0.0:
                    break  # nobody gives up anything else: the same attack
                total = 0
                forgo = 0.0  # the moves its firers give up (counted for all that reach it)
                kept = 0.0   # the assaults they give up, and the worst danger one stays in
                worst = 0.0
                for i in range(n_f):
                    if free[i] and af[i, h] > 0 and not (cheap and keep[i] > 0.0):
                        total += af[i, h]
                        forgo += opp[i]
                        kept += keep[i]
                col = odds_of(ct, total, df[j])
                if col < min_col:
                    continue
                if kept > 0.0:
                    # The enemy's fire next turn is spent once: the danger the firers stay in
                    # counts for the worst of them, not for each; less as far as this attack
                    # may silence what makes it (an answer to the fire, not a wasted shot).
                    p_hit = effect_p(pt, col, mod[j])
                    kept = 0.0
                    for i in range(n_f):
                        if free[i] and af[i, h] > 0 and not (cheap and keep[i] > 0.0):
                            kept += cat_given[i]
                            if escape[i] > 0.0:
                                e = escape[i] * (1.0 - p_hit * threat_share(st, ut, mt, ct, side, firers[i], h, fields))
                                if e > worst:
                                    worst = e
                    kept += worst
                g = kw * gain_at(pt, wk[j], wd[j], wdd[j], col, mod[j])
                if finish[j] > 0:
                    p_disp = result_p(pt, P_D, col, mod[j]) + result_p(pt, P_DD, col, mod[j])
                    g += kw * p_disp * finish[j]
                # The moves given up count as far as the player has seen its fire come to nothing
                # there (futility memory): a fresh target is fired at as before.
                g -= forgo * (1.0 - prm[FUTILITY_DECAY] ** futile[h]) + kept
                if g > best_gain:
                    best_gain = g
                    best = j
                    best_col = col
                    best_cheap = cheap
        if best < 0:
            return reach
        done[best] = True
        h = targets[best]
        # Strongest firers first until the odds are reached; then drop any not needed.
        n_c = 0
        for i in range(n_f):
            if free[i] and af[i, h] > 0 and not (best_cheap and keep[i] > 0.0):
                order[n_c] = i
                n_c += 1
        keys = np.empty(n_c, dtype=np.int64)
        for c in range(n_c):
            keys[c] = -af[order[c], h]
        sorted_idx = by_key(order, keys, n_c)
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
            if mode != NO_FIRE:
                total += firer_af_mode(st, ut, mt, ct, u, h, kind, mode == INDIRECT)
    return total


@njit(cache=True)
def plan_intensive(st, ut, mt, ct, pt, prm, side, spotted, stack_kind, target_of):
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
        wk, wd, wdd = stack_worths(st, ut, mt, pt, prm, side, h)
        kw = kill_w(pt, prm, side)
        total = _declared_af(st, ut, mt, ct, side, spotted, h, kind, target_of)
        col = odds_of(ct, total, df)
        base = kw * gain_at(pt, wk, wd, wdd, col, mod)
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
            gain = kw * gain_at(pt, wk, wd, wdd, new_col, mod) - base - own_value(st, ut, pt, side, u)
            if gain > best_gain:
                best_gain = gain
                best = u
        if best >= 0:
            st.intensive[best] = True


# ---------------------------------------------------------------- close assault and transport

@njit(cache=True)
def _assault_af(st, ut, mt, ct, u, h):
    """Unit u's close-assault AF against hex h (printed, halved uphill: PB-HILL, PB-CAT)."""
    x = ut.attack[st.utype[u]]
    if hill_halves(mt.level[st.hex[u]], mt.level[h], True, False):
        x = int(np.floor(x * ct.halving))
    return x


@njit(cache=True)
def plan_assaults(st, ut, mt, ct, pt, prm, side, cand, n_cand, target_of):
    """PB-CAT: every close assault of the phase at once, like the fire plan.  `cand[u, :n_cand[u]]`
    are the hexes unit u may assault (the engine's options).  Greedy: the hex where all the free
    units that may assault it buy the most expected worth, at odds good enough counting the
    assault's die modifiers (`odds_enough`), gets just enough of them to reach those odds (the
    strongest first); repeat with the units left.  (Each
    unit choosing alone counted on friends who then went elsewhere, and assaults went in at 1-2.)"""
    n_units = st.utype.shape[0]
    free = np.ones(n_units, dtype=np.bool_)
    tried = np.zeros(mt.neighbours.shape[0], dtype=np.bool_)
    min_col = min_column(ct, pt, prm, side)
    order = np.empty(n_units, dtype=np.int64)
    keys = np.empty(n_units, dtype=np.int64)
    while True:
        best_h = -1
        best_gain = prm[FIRE_MIN_GAIN]
        best_col = -1
        for u in range(n_units):
            if not free[u]:
                continue
            for k in range(n_cand[u]):
                h = cand[u, k]
                if tried[h]:
                    continue
                tried[h] = True
                df, _, n_def, n_disp = defender_stack(st, ut, mt, h, 1 - side)
                if df <= 0:
                    continue
                af = 0
                for v in range(n_units):
                    if free[v]:
                        for q in range(n_cand[v]):
                            if cand[v, q] == h:
                                af += _assault_af(st, ut, mt, ct, v, h)
                col = odds_of(ct, af, df)
                cat_mod = mt.terrain_mod[h] + ct.mod_close_assault + dispersed_modifier(ct, n_def, n_disp)
                # below the minimum odds only to finish a stack the fire has dispersed
                if col < min_col and not (n_disp > 0 and odds_enough(pt, col, cat_mod, min_col, mt.terrain_mod[h])):
                    continue
                wk, wd, wdd = stack_worths(st, ut, mt, pt, prm, side, h)
                g = kill_w(pt, prm, side) * gain_at(pt, wk, wd, wdd, col, cat_mod)
                if g > best_gain:
                    best_gain = g
                    best_h = h
                    best_col = col
        if best_h < 0:
            return
        tried[:] = False
        h = best_h
        df, _, _, _ = defender_stack(st, ut, mt, h, 1 - side)
        n_c = 0
        for v in range(n_units):
            if free[v]:
                for q in range(n_cand[v]):
                    if cand[v, q] == h:
                        order[n_c] = v
                        keys[n_c] = -_assault_af(st, ut, mt, ct, v, h)
                        n_c += 1
        picked = by_key(order, keys, n_c)
        total = 0
        for c in range(n_c):
            v = picked[c]
            total += _assault_af(st, ut, mt, ct, v, h)
            free[v] = False
            target_of[v] = h
            if odds_of(ct, total, df) >= best_col:
                break
        # the hex is taken: no other assault on it this phase
        for v in range(n_units):
            for q in range(n_cand[v]):
                if cand[v, q] == h:
                    cand[v, q] = -1


@njit(cache=True)
def want_load(st, ut, pt, prm, side, carrier, passenger, fields):
    """PB-TRANS-3: load when the passenger has far to go and the enemy is not near, or none of
    its fire reaches the hex (loading costs both their turn under the default OQ-21 reading)."""
    return wants_ride(st, ut, pt, prm, side, passenger, st.hex[carrier], fields)


@njit(cache=True)
def wants_ride(st, ut, pt, prm, side, passenger, h, fields):
    """Whether rider `passenger` would be taken aboard in hex h (`want_load`): the riders an empty
    carrier goes to fetch (PAIRING) are those it would load there, not those it would drive to
    and leave (round 7)."""
    t = st.utype[passenger]
    return _wants_ride_at(pt.goal_kind[side], goal_row(st, pt, side, passenger)[h], fields[ENEMY_DIST, h],
                          fields[THREAT_SOFT, h] == 0 and fields[THREAT_ARMORED, h] == 0,
                          ut.attack[t] > 0 and ut.weapon[t] >= 0, ride_far(ut, prm, t), prm[UNLOAD_DISTANCE],
                          prm[LOAD_MARGIN])


@njit(cache=True, inline="always")
def _wants_ride_at(kind, gd, ed, unseen, fights, far_limit, unload, margin):
    """`wants_ride` in a hex with goal distance gd (the rider's `goal_row`), enemy distance ed,
    `unseen` by the enemy's fire; `fights`, `far_limit` (`ride_far`) the rider's: the scalar
    arithmetic alone, for loops over units or hexes (`pairing_field`, `score_hexes`)."""
    far = _fight_hexes(kind, gd, ed, fights) > far_limit  # `needs_ride`
    if kind == EXIT:
        # leaving the map: every rider aboard leaves with its carrier, unless the enemy is at hand
        return far and ed > 2
    if kind != ADVANCE:
        # a defender rides only to reach its ground, and not with the enemy near (a gun set down
        # where it defends is not loaded again)
        far = (far or kind == NO_GOAL) and ed > 2 * unload
    # Out of the enemy's fire it may load nearer, but never where `want_unload` would set the
    # passenger down again (pb-12 seed 3: a truck set a 45mm AT gun down at 2L8 on turn 2, took
    # it aboard again there on turn 3 and drove on: two turns for one move).
    return far and (ed > unload + margin or (unseen and ed > unload + 1))


@njit(cache=True)
def want_unload(st, pt, prm, side, carrier, fields):
    """PB-TRANS-3: set the passenger down near the enemy or on the goal; a side leaving the map
    keeps its passengers aboard (they leave with the carrier)."""
    h = st.hex[carrier]
    if pt.goal_kind[side] == EXIT:
        return False
    return fields[ENEMY_DIST, h] <= prm[UNLOAD_DISTANCE] + 1 or goal_row(st, pt, side, carrier)[h] == 0


# ---------------------------------------------------------------- attack technique (PB-STK-2)

COMBINE, SELECT, MULTIPLE, PASSENGER = 0, 1, 2, 3


@njit(cache=True)
def unit_gain(st, ut, pt, prm, side, d, col, modifier):
    """Expected worth to `side` of one attack at `col` on enemy unit d alone (with the passenger
    that shares its fate)."""
    t = st.utype[d]
    wk = kill_worth(pt, side, t)
    wd = wk * disperse_share(ut, prm, t)
    p = st.carrying[d]
    if p >= 0:
        wp = kill_worth(pt, side, st.utype[p])
        wk += wp
        wd += wp * disperse_share(ut, prm, st.utype[p])
    if st.dispersed[d]:
        return gain_at(pt, wk, 0.0, wk, col, modifier)
    return gain_at(pt, wk, wd, 0.0, col, modifier)


@njit(cache=True)
def pick_technique(st, ut, mt, ct, pt, prm, side, h, attackers, n_att, spotted, assign, n_multi, passenger):
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
        mod = mt.terrain_mod[h] + dispersed_modifier(ct, n_def, n_disp)
        for e in range(st.utype.shape[0]):
            if is_piece(st, ut, e) and st.hex[e] == h and st.side[e] == enemy:
                best_gain += unit_gain(st, ut, pt, prm, side, e, col, mod)
    if passenger:
        p = exposed_passenger(st, ut, mt, h, enemy)
        pk = 1 if ut.armored[st.utype[p]] else 0
        total = 0
        for i in range(n_att):
            if fire_reaches(st, ut, mt, ct, spotted, side, attackers[i], h):
                total += attack_af(st, ut, mt, ct, spotted, attackers[i], h, pk)
        col = odds_of(ct, total, 1) if total > 0 else -1
        if col >= 0:
            g = unit_gain(st, ut, pt, prm, side, p, col,
                          mt.terrain_mod[h] + dispersed_modifier(ct, 1, 1 if st.dispersed[p] else 0))
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
                g += unit_gain(st, ut, pt, prm, side, d, c,
                               mt.terrain_mod[h] + dispersed_modifier(ct, 1, 1 if st.dispersed[d] else 0))
        if g > best_gain + 1e-9:
            best_gain = g
            best = MULTIPLE
            for i in range(n_att):
                assign[i] = trial[i]
    return best


@njit(cache=True)
def want_join(st, ut, mt, ct, pt, prm, side, v, movers, n_movers, target, paths, m, ov_exit, occ, fields, player_rng):
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
        s = hex_score(st, ut, mt, ct, pt, prm, side, v, ov_exit[paths[i]], occ, fields, player_rng)
        if s > best_s:
            best_s = s
            best = i
    return best


@njit(cache=True)
def pick_entry_overrun(st, ut, mt, ct, pt, prm, side, u, ov_target, ov_exit, n, options, n_plain, occ, fields,
                       player_rng):
    """PB-OVR-10: the entering overrun (onto an enemy in an entry hex) worth making, or -1: the
    best whose odds reach the minimum, scored like a move (what the attack is worth plus the
    exit hex it ends in, where the enemy's fire finds it) against the best plain entry hex (or
    staying off a turn, 0, when there is none)."""
    min_col = min_column(ct, pt, prm, side)
    best = -1
    best_s = 0.0
    if n_plain > 0:
        scores = np.empty(n_plain)
        score_hexes(st, ut, mt, ct, pt, prm, side, u, options, n_plain, occ, fields, scores, player_rng,
                    np.empty(n_plain, dtype=np.int64), np.empty(n_plain))
        best_s = scores.max()
    for k in range(n):
        gain, col = overrun_gain(st, ut, mt, ct, pt, prm, side, u, ov_target[k])
        if col < min_col:
            continue
        s = gain
        if n_plain > 0:
            s += hex_score(st, ut, mt, ct, pt, prm, side, u, ov_exit[k], occ, fields, player_rng)
        if s > best_s:
            best_s = s
            best = k
    return best
