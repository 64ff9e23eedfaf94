"""Engineers (PB2-17): clearing minefields (17.1), building and removing blocks (17.3), and the
block's stacking exemption for one engineer (17.3.3, in combat.stack_sp and movement.reachable).

An engineer's work is a three-turn process, declared during an Operation and advanced in the
Pre-Operations Segment of the next turns (3.1.1):
- **declared** (the ENGINEER decision of an active, fresh engineer before it moves; row 0 = no
  work): clear a minefield in an adjacent hex without enemy units (17.1.1.1: it is placed on top
  of it, no minefield attack and no opportunity fire), build a block in its own road, woods, town
  or city hex (17.3.1; one with no block, fortification, minefield or IP, where the block leaves
  room for the others, 2.3.5), or remove the block of its hex (17.3.2).  It is marked No Move.
- **turn 2, Pre-Operations**: the No Move flips to Clear/Set (17.1.1.2, 17.3.1.2); a clearing
  engineer goes under the minefield's counter.
- **turn 3, Pre-Operations**: the minefield is removed (17.1.1.3) or the block placed (17.3.1.3);
  removing a block is "the same as bridge demolition, including the die roll" (17.3.2, 17.2.1.3):
  2d6 <= 8 removes it, a failure starts again with -1 a further attempt (17.2.2).
Readings (docs/panzerblitz-v2/engine.md, "Engineers"): a working engineer is kept Spent (it may
neither fire nor move in any manner, 17.1.4: the No Move); a Disrupted one halts (17.1.2, 17.2.3)
and, recovered, takes the process up again at turn 2 (17.1.2), not Spent meanwhile so that an Ops
chit may activate it to recover; the block remover stays in the hex (the text moves it next door
to roll, 17.2.1.3; with the block gone it has nothing to fear there); the clearer is declared from
where it stands (17.1.1.1 lets it move adjacent first in the same Operation).
"""

from __future__ import annotations

from simulator.jit import njit
from simulator.rulesets.panzerblitz_v2.combat import log_event, sp_value, stack_sp
from simulator.rulesets.panzerblitz_v2.decide import decide
from simulator.rulesets.panzerblitz_v2.movement import enemy_in
from simulator.rulesets.panzerblitz_v2.players import ENGINEER
from simulator.rulesets.panzerblitz_v2.rng import two_dice
from simulator.rulesets.panzerblitz_v2.smoke import sees
from simulator.rulesets.panzerblitz_v2.state import EV_WORK, OFF_MAP
from simulator.rulesets.panzerblitz_v2.tables import PROHIBITED

W_NONE, W_CLEAR_MINES, W_BUILD_BLOCK, W_REMOVE_BLOCK = range(4)
W_DEMOLISH = 4                                                  # round 9: a bridge (17.2)
DECLARED, CLEAR_SET, DONE, HALTED, FAILED = 1, 2, 3, 4, 5       # EV_WORK's d
READY = 6               # 17.2.1.3: the two Operations done, the charges set; rolled when it chooses
NEAR = 20               # hexes around a bridge within which the players count units across it


@njit(cache=True)
def may_work(t, st, u):
    """An active engineer that has done nothing yet this Operation and is not already at work."""
    ty = t.u_type[u]
    return (t.t_engineer[ty] and st.hex[u] >= 0 and st.active[u] and not st.spent[u] and not st.disrupted[u]
            and not st.fired[u] and not st.fo[u] and st.mp_op[u] == 0 and st.work[u] == W_NONE)


@njit(cache=True)
def seen_by(t, st, h, side):
    """Enemy units of `side` in range that see hex h."""
    seen = 0
    for e in range(t.n_units):
        eh = st.hex[e]
        if t.u_side[e] != side and eh >= 0 and t.dist[eh, h] <= t.t_range[t.u_type[e]] and sees(t, st, eh, h):
            seen += 1
    return seen


@njit(cache=True)
def across(t, st, k, near, side, radius, skip, coming):
    """(enemy units, units of `side` other than `skip`) within `radius` hexes of bridge k that are
    nearer its other end than `near` (across the water from it): what the players weigh (17.2).
    `coming`: also the enemy reinforcements not yet entered whose entry hex is so."""
    far = t.br_hex[k, 1] if t.br_hex[k, 0] == near else t.br_hex[k, 0]
    en = 0
    own = 0
    for v in range(t.n_units):
        x = st.hex[v]
        if x == OFF_MAP and coming and t.u_side[v] != side and t.u_enter_turn[v] > st.turn[0]:
            g = t.u_group[v]
            for j in range(t.g_entry_n[g]):
                e = t.g_entry[g, j]
                if t.dist[e, near] <= radius and t.dist[e, far] < t.dist[e, near]:
                    en += 1
                    break
            continue
        if x < 0 or v == skip or t.dist[x, near] > radius or t.dist[x, far] >= t.dist[x, near]:
            continue
        if t.u_side[v] == side:
            own += 1
        else:
            en += 1
    return en, own


@njit(cache=True)
def _row(t, st, n, h, kind, side):
    st.opts[n, 0] = h
    st.opts[n, 1] = kind
    st.opts[n, 2] = t.obj_dist[h]
    st.opts[n, 3] = seen_by(t, st, h, side)
    st.opts[n, 4] = t.turns - st.turn[0]
    st.opts[n, 5] = 0
    st.opts[n, 6] = 0
    return n + 1


@njit(cache=True)
def work_options(t, st, u):
    """ENGINEER options of engineer u: row 0 = no work; then (hex, work, hexes to the objective,
    enemy units that see the hex, turns left; a bridge: enemy units and the side's other units
    across it, within NEAR hexes)."""
    side = t.u_side[u]
    h = st.hex[u]
    for k in range(7):
        st.opts[0, k] = 0
    st.opts[0, 0] = -1
    n = 1
    for d in range(6):                                   # 17.1.1.1: a minefield next to it
        m = t.neighbours[h, d]
        if m < 0 or not t.play[m] or st.mine_col[m] < 0 or enemy_in(t, st, m, side) or busy(t, st, m):
            continue
        if t.move_cost[m, t.t_mode[t.u_type[u]]] == PROHIBITED or stack_sp(t, st, m, side, u) > t.stack_limit:
            continue
        n = _row(t, st, n, m, W_CLEAR_MINES, side)
    if st.block[h]:
        if not busy(t, st, h):
            n = _row(t, st, n, h, W_REMOVE_BLOCK, side)  # 17.3.2
    elif t.block_build_ok[h] and st.fort[h] < 0 and st.mine_col[h] < 0 and not st.ip[h] and not busy(t, st, h) \
            and stack_sp(t, st, h, side, -1) + t.block_sp - (sp_value(t, st, u) if t.block_engineer_exempt else 0) \
            <= t.stack_limit:
        n = _row(t, st, n, h, W_BUILD_BLOCK, side)       # 17.3.1
    k = t.hex_br[h]
    if k >= 0 and not st.br_out[k] and not busy_bridge(t, st, k):
        n = _row(t, st, n, h, W_DEMOLISH, side)          # 17.2.1: in the Bridge hex
        en, own = across(t, st, k, h, side, NEAR, u, True)
        st.opts[n - 1, 5] = en
        st.opts[n - 1, 6] = own
    return n


@njit(cache=True)
def busy(t, st, h):
    """Another engineer already works on hex h."""
    for v in range(t.n_units):
        if st.work[v] != W_NONE and st.work_hex[v] == h:
            return True
    return False


@njit(cache=True)
def busy_bridge(t, st, k):
    """An engineer already works on bridge k (from either end, 17.2.3: the one that began finishes)."""
    for v in range(t.n_units):
        if st.work[v] == W_DEMOLISH and st.work_hex[v] >= 0 and t.hex_br[st.work_hex[v]] == k:
            return True
    return False


@njit(cache=True)
def try_work(t, st, u):
    """The ENGINEER decision of an engineer about to move; True if it started a work (it then
    neither moves nor fires: Spent, 17.1.4)."""
    if not may_work(t, st, u):
        return False
    n = work_options(t, st, u)
    if n <= 1:
        return False
    i = decide(ENGINEER, n, t, st, t.u_side[u])
    if i == 0:
        return False
    h = st.opts[i, 0]
    kind = st.opts[i, 1]
    if kind == W_CLEAR_MINES:
        st.hex[u] = h                                    # 17.1.1.1: on top of it, unattacked
        st.in_ip[u] = False
        st.in_fort[u] = False
        st.hd_hex[u] = -1
        st.mine_ok[u] = False
    st.work[u] = kind
    st.work_hex[u] = h
    st.work_stage[u] = DECLARED
    st.work_tries[u] = 0
    st.spent[u] = True
    st.acted[u] = True
    log_event(st, EV_WORK, t.u_side[u], u, h, kind, DECLARED, 0)
    return True


@njit(cache=True)
def pre_operations(t, st):
    """3.1.1: every engineer's work advances one turn (17.1.1.2-3, 17.3.1.2-3, 17.3.2)."""
    for u in range(t.n_units):
        kind = st.work[u]
        if kind == W_NONE:
            continue
        h = st.work_hex[u]
        side = t.u_side[u]
        gone = (kind == W_CLEAR_MINES and st.mine_col[h] < 0) or (kind == W_REMOVE_BLOCK and not st.block[h]) \
            or (kind == W_BUILD_BLOCK and (st.block[h] or st.fort[h] >= 0 or st.mine_col[h] >= 0 or st.ip[h])) \
            or (kind == W_DEMOLISH and st.br_out[t.hex_br[h]])
        if st.hex[u] != h or gone:
            st.work[u] = W_NONE                          # eliminated, or the object went otherwise
            st.work_hex[u] = -1
            continue
        if st.disrupted[u]:
            if st.work_stage[u] != DECLARED:
                log_event(st, EV_WORK, side, u, h, kind, HALTED, 0)
            st.work_stage[u] = DECLARED                  # 17.1.2: taken up again at turn 2 once recovered
            st.mine_ok[u] = False
            continue
        if kind == W_DEMOLISH and st.work_stage[u] != DECLARED:
            if st.work_stage[u] == CLEAR_SET:            # 17.2.1: two Operations on the bridge done
                st.work_stage[u] = READY
                log_event(st, EV_WORK, side, u, h, kind, READY, 0)
            continue                                     # 17.2.1.3: it rolls when it chooses (game.demolition_step)
        st.spent[u] = True                               # the No Move / Clear/Set marker (17.1.4)
        if st.work_stage[u] == DECLARED:
            st.work_stage[u] = CLEAR_SET
            if kind == W_CLEAR_MINES:
                st.mine_ok[u] = True                     # 17.1.1.2: under the minefield's counter
            log_event(st, EV_WORK, side, u, h, kind, CLEAR_SET, 0)
            continue
        natural = 0
        done = True
        if kind == W_CLEAR_MINES:
            st.mine_col[h] = -1                          # 17.1.1.3
            for v in range(t.n_units):
                if st.hex[v] == h:
                    st.mine_ok[v] = False
        elif kind == W_BUILD_BLOCK:
            done = stack_sp(t, st, h, side, -1) + t.block_sp - (sp_value(t, st, u) if t.block_engineer_exempt else 0) \
                <= t.stack_limit
            if done:
                st.block[h] = True                       # 17.3.1.3
        else:
            natural = two_dice(st.streams)
            done = natural - st.work_tries[u] <= t.block_removal_max   # 17.3.2, 17.2.1.3, 17.2.2
            if done:
                st.block[h] = False
            else:
                st.work_tries[u] += 1
                st.work_stage[u] = DECLARED              # 17.2.2: the sequence starts again
        if done:
            log_event(st, EV_WORK, side, u, h, kind, DONE, natural)
            st.work[u] = W_NONE
            st.work_hex[u] = -1
            st.work_stage[u] = 0
        elif kind == W_REMOVE_BLOCK:
            log_event(st, EV_WORK, side, u, h, kind, FAILED, natural)
