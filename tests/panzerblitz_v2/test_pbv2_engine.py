"""Panzer Blitz v2.0 engine (issue 20): each rule case by its number, in small positions on the
Hill 112 board, through the compiled kernels; then whole games (same seed same game, recorded
decisions replay the game, invariants after random games)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simulator.decisions import ReplayMismatch
from simulator.rulesets.panzerblitz_v2 import combat, game, movement
from simulator.rulesets.panzerblitz_v2.batch import (
    play_games,
    play_one,
    prepare,
    record_one,
    replay_one,
)
from simulator.rulesets.panzerblitz_v2.los import los_pair
from simulator.rulesets.panzerblitz_v2.rng import seed_streams, two_dice
from simulator.rulesets.panzerblitz_v2.ruleset import RULESET
from simulator.rulesets.panzerblitz_v2.state import (
    EV_CHIT,
    EV_FIRE,
    EV_UNPLAYED,
    GONE,
    OFF_MAP,
    new_state,
)
from simulator.rulesets.panzerblitz_v2.tables import (
    ALL_MA,
    K_DF,
    K_IF,
    K_OPP,
    K_REACTION,
    PROHIBITED,
    R_1X,
    R_2X,
    R_D,
    R_DD,
    R_NONE,
    WOODS,
)
from simulator.situation import load_situation

HOD = str(Path(__file__).resolve().parents[2] / "situations" / "panzerblitz-v2" / "hod-0{}.toml")


def prepared(n=1, sets=None):
    return prepare(load_situation(HOD.format(n), sets or {}))


@pytest.fixture(scope="module")
def p1():
    return prepared(1)


def fresh_state(p, seed=1, players=None):
    players = players or RULESET.players.parse(None, p.sides)
    from simulator.rulesets.panzerblitz_v2.batch import player_arrays

    kinds, params = player_arrays(players, p.sides)
    return new_state(p.tables, seed, kinds, params)


def units_of(p, type_id):
    ti = p.type_ids.index(type_id)
    return [int(u) for u in np.flatnonzero(p.tables.u_type == ti)]


def hx(p, label):
    return p.situation.map.lookup(label)


def col(p, label):
    return p.columns.index(label)


# ----------------------------------------------------------------------------- the DFT (7.4, 7.5, 7.1.8-9, 7.7)

def test_pb2_7_4_odds_rounding_in_defenders_favour(p1):
    t = p1.tables
    assert combat.ap_column(t, 2 * 11, 4) == col(p1, "2:1")   # 11:4 -> 2:1
    assert combat.ap_column(t, 2 * 7, 4) == col(p1, "3:2")    # 7:4 -> 3:2
    assert combat.ap_column(t, 2 * 21, 14) == col(p1, "3:2")  # the 7.7 example's 21:14
    assert combat.ap_column(t, 2 * 12, 4) == col(p1, "3:1")
    assert combat.ap_column(t, 2 * 1, 5) == -1                # below 1:4: not allowed (PB2-OQ-11)
    assert combat.ap_column(t, 2 * 99, 1) == len(p1.columns) - 1


def test_pb2_7_5_differential_example():
    # Three firers of AT 2, 2 and 3 at an armored target of defence 2: 3 + 1 + 1 - 2 = +3.
    p = prepared(1, {"units.gb-sherman-v.full.at": 2, "units.gb-sherman-firefly.full.at": 3,
                     "units.pzkw-iv-h.full.df": 2})
    t = p.tables
    st = fresh_state(p)
    firers = np.array(units_of(p, "gb-sherman-v")[:2] + units_of(p, "gb-sherman-firefly")[:1], dtype=np.int64)
    target = np.array(units_of(p, "pzkw-iv-h")[:1], dtype=np.int64)
    c = combat.fire_column(t, st, firers, 3, np.ones(3, dtype=np.int64), target, 1, True)
    assert t.dft_at_diff[c] == 3
    assert combat.at_column(t, 3) == c
    assert combat.at_column(t, -5) == -1                      # below the table: no effect (PB2-OQ-14)


def test_pb2_7_1_8_and_7_1_9_natural_two_and_twelve(p1):
    t = p1.tables
    c = col(p1, "3:2")
    assert combat.dft_result(t, c, 12, -20) == R_NONE         # a natural 12 always misses
    assert combat.dft_result(t, c, 2, +20) == R_2X            # a natural 2: the column's best result
    assert combat.dft_result(t, col(p1, "1:4"), 2, +20) == R_D


def test_pb2_7_7_given_cell_and_example(p1):
    """21:14 = 3:2, roll 5 - 1 (defender disrupted) - 1 (height advantage) = 3 -> X; one platoon
    reduced for the X, the other takes the DD and, already disrupted, is reduced too; both S/D."""
    t = p1.tables
    assert combat.dft_result(t, col(p1, "3:2"), 5, -2) == R_1X
    assert combat.dft_result(t, col(p1, "3:2"), 5, -1) == R_DD   # with the woods +1 (PB2-OQ-10)
    for result in (R_1X, R_DD):
        st = fresh_state(p1)
        plts = np.array(units_of(p1, "gb-motor-platoon")[:2], dtype=np.int64)
        for u in plts:
            st.hex[u] = hx(p1, "1515")
            st.disrupted[u] = True
        combat.apply_result(t, st, plts, 2, result, np.ones(2, dtype=np.bool_))
        assert list(st.steps[plts]) == [1, 1]
        assert st.spent[plts].all() and st.disrupted[plts].all()


def test_pb2_7_7_step_losses_spread_equally(p1):
    t = p1.tables
    st = fresh_state(p1)
    a, b = units_of(p1, "gb-motor-platoon")[:2]
    for u in (a, b):
        st.hex[u] = hx(p1, "1515")
    targets = np.array([a, b], dtype=np.int64)
    combat.apply_result(t, st, targets, 2, R_2X, np.zeros(2, dtype=np.bool_))
    assert list(st.steps[targets]) == [1, 1]                 # 2X on two: one step each
    combat.apply_result(t, st, targets[:1], 1, R_2X, np.ones(1, dtype=np.bool_))
    assert st.steps[a] == 0 and st.hex[a] == GONE            # the reduced counter removed
    st.disrupted[b] = False
    combat.apply_result(t, st, targets[1:], 1, R_D, np.zeros(1, dtype=np.bool_))
    assert st.disrupted[b] and st.spent[b] and st.steps[b] == 1


def test_two_dice_frequencies_by_sampling():
    streams = seed_streams(7)
    n = 72000
    rolls = np.array([two_dice(streams) for _ in range(n)])
    for s in range(2, 13):
        p = (6 - abs(s - 7)) / 36
        assert abs((rolls == s).mean() - p) < 4 * np.sqrt(p * (1 - p) / n)


# ----------------------------------------------------------------------------- modifiers (6.2.3, 7.6)

def test_pb2_7_6_1_majority_rule_range_example(p1):
    t = p1.tables
    assert [combat.range_drm(t, r) for r in (0, 1, 4, 7, 10)] == [-2, -1, 1, 2, 3]
    vals = np.array([combat.range_drm(t, r) for r in (4, 7, 10)], dtype=np.int64)
    assert combat.graded_majority(vals, 3, False) == 2       # stepwise (the default reading)
    assert combat.graded_majority(vals, 3, True) == 2        # median reading
    assert combat.graded_majority(np.array([1, 1, 3, 3]), 4, False) == 3
    assert combat.majority(1, 2) and not combat.majority(1, 3)


def test_pb2_6_2_3_unspotted_and_7_6_2_defender_majority(p1):
    t = p1.tables
    st = fresh_state(p1)
    plts = np.array(units_of(p1, "gb-motor-platoon")[:3], dtype=np.int64)
    h = hx(p1, "1515")
    for u in plts:
        st.hex[u] = h
    base = combat.defender_drm(t, st, plts, 3, False, K_DF, False, False)
    assert combat.defender_drm(t, st, plts, 3, True, K_DF, False, False) - base == 4
    st.disrupted[plts[0]] = True                              # 1 of 3 disrupted: no -1
    assert combat.defender_drm(t, st, plts, 3, False, K_DF, False, False) == base
    st.disrupted[plts[1]] = True                              # 2 of 3: -1 for the group
    assert combat.defender_drm(t, st, plts, 3, False, K_DF, False, False) == base - 1


def test_pb2_7_8_2_opportunity_fire_modifiers(p1):
    t = p1.tables
    st = fresh_state(p1)
    tank = np.array(units_of(p1, "gb-sherman-v")[:1], dtype=np.int64)
    inf = np.array(units_of(p1, "gb-motor-platoon")[:1], dtype=np.int64)
    clear = next(h for h in range(t.n_hexes) if t.cover[h] == 0 and t.tem_df[h] == 0 and t.play[h])
    st.hex[tank[0]] = clear
    st.hex[inf[0]] = clear
    assert combat.defender_drm(t, st, tank, 1, False, K_OPP, False, True) == 1      # moving vehicle +1
    assert combat.defender_drm(t, st, tank, 1, False, K_OPP, True, True) == 0       # and road mover -1
    assert combat.defender_drm(t, st, inf, 1, False, K_OPP, False, True) == -1      # infantry in the open
    assert combat.defender_drm(t, st, inf, 1, False, K_DF, False, False) == 0


# ----------------------------------------------------------------------------- spotting (6.1.3)

def _los_pair_at(p, t, target_pred, distance):
    for a in np.flatnonzero(t.play):
        if not target_pred(a):
            continue
        for b in np.flatnonzero((t.dist[a] == distance) & t.play):
            if t.los[a, b] and t.cover[b] == 0 and not t.depression[b] and not t.depression[a]:
                return int(a), int(b)
    raise AssertionError("no such pair on the board")


def test_pb2_6_1_3_spotting_ranges(p1):
    t = p1.tables
    woods = lambda h: t.cover[h] == WOODS   # noqa: E731
    inf = units_of(p1, "de-ss-panzergrenadier-platoon")[0]
    spotter = units_of(p1, "gb-motor-platoon")[0]
    for d, expected in ((3, True), (4, False)):
        st = fresh_state(p1)
        a, b = _los_pair_at(p1, t, woods, d)
        st.hex[inf], st.hex[spotter] = a, b
        assert combat.spotted_now(t, st, inf) is expected, d   # woods: within 3 (6.1.3 a)
        st.disrupted[inf] = True
        assert combat.spotted_now(t, st, inf)                   # a Disrupted target: any range (6.1.3 c)
        st.disrupted[inf] = False
        st.disrupted[spotter] = True
        assert not combat.spotted_now(t, st, inf)               # a Disrupted spotter spots nothing
    clear = lambda h: t.cover[h] == 0   # noqa: E731
    st = fresh_state(p1)
    a, b = _los_pair_at(p1, t, clear, 12)
    st.hex[inf], st.hex[spotter] = a, b
    assert combat.spotted_now(t, st, inf)                       # clear: within 20 (6.1.3 d)
    st.hex[inf] = next(h for h in range(t.n_hexes) if t.cover[h] == WOODS and t.play[h])
    st.hex[spotter] = int(t.neighbours[st.hex[inf], 0])
    st.unspotted[inf] = True
    assert combat.spotted_now(t, st, inf)                       # adjacent: always


# ----------------------------------------------------------------------------- line of sight (5.4)

def _line_map(levels, obstacle=None):
    """A straight column of hexes (axial q = 0, r = 0..n-1) with these levels."""
    from simulator.hexgrid import axial_index, distance_matrix

    n = len(levels)
    q = np.zeros(n, dtype=np.int64)
    r = np.arange(n, dtype=np.int64)
    iax, q0, r0 = axial_index(q, r)
    lv = np.array(levels, dtype=np.int64)
    ob = np.array(obstacle if obstacle is not None else levels, dtype=np.int64)
    nb = np.full((n, 6), -1, dtype=np.int64)
    for i in range(n):
        if i > 0:
            nb[i, 0] = i - 1
        if i < n - 1:
            nb[i, 3] = i + 1
    return q, r, iax.astype(np.int64), q0, r0, lv, ob, np.zeros(n, dtype=np.bool_), np.zeros(n, dtype=np.bool_), \
        nb, distance_matrix(q, r).astype(np.int64)


def _clear(p, levels, obstacle=None, a=0, b=None):
    q, r, iax, q0, r0, lv, ob, inh, dep, nb, dist = _line_map(levels, obstacle)
    b = len(levels) - 1 if b is None else b
    t = p.tables
    return los_pair(a, b, q, r, iax, q0, r0, lv, ob, inh, dep, nb, dist, t.partial_num, t.partial_den,
                    np.zeros(16, dtype=np.int64), np.zeros(16, dtype=np.int64), np.zeros(2, dtype=np.bool_))


def test_pb2_5_4_1_to_5_4_3_obstacles(p1):
    assert not _clear(p1, [2, 2, 4, 2, 2])          # 5.4.1 higher than both
    assert not _clear(p1, [3, 3, 3, 1])             # 5.4.2 equal to the higher, above the lower (a crest)
    assert _clear(p1, [3, 1, 1, 2])                 # 5.4.3 lower than both
    assert _clear(p1, [1, 4])                       # 5.4.6 adjacent
    assert not _clear(p1, [1, 1, 1], obstacle=[1, 2, 1])   # woods (+1) on the same level


def test_pb2_5_4_5_partial_height_chart(p1):
    # Higher unit at level 3, lower at 1 (difference 2), an obstacle one level above the lower
    # unit: clear while it is at most 1/2 D from the higher unit (D = 6: 3 hexes).
    lv = [3, 1, 1, 1, 1, 1, 1]
    for k, clear in ((2, True), (3, True), (4, False), (5, False)):
        ob = list(lv)
        ob[k] = 2
        assert _clear(p1, lv, ob) is clear, k
    # Difference 5, obstacle 4 above the lower: 1/5 D (D = 5: 1 hex).
    lv = [6, 1, 1, 1, 1, 1]
    for k, clear in ((1, True), (2, False)):
        ob = list(lv)
        ob[k] = 5
        assert _clear(p1, lv, ob) is clear, k


def test_hill_112_crest_blocks_the_summit(p1):
    """On the board: the summit orchard (level 6) does not see down past the flat top (5.4.2)."""
    t = p1.tables
    assert t.level[hx(p1, "2521")] == 6 and t.level[hx(p1, "2522")] == 5
    assert not t.los[hx(p1, "2520"), hx(p1, "2522")]
    assert t.los[hx(p1, "2521"), hx(p1, "2522")]               # adjacent


# ----------------------------------------------------------------------------- movement (4.x, 14.x)

def _find_step(t, pred):
    for h in np.flatnonzero(t.play):
        for d in range(6):
            n = t.neighbours[h, d]
            if n >= 0 and t.play[n] and pred(h, d, n):
                return int(h), d, int(n)
    raise AssertionError("no such step")


def test_pb2_14_movement_costs(p1):
    t = p1.tables
    sherman = units_of(p1, "gb-sherman-v")[0]
    churchill = None
    inf = units_of(p1, "gb-motor-platoon")[0]
    flat = lambda h, d, n: (t.cover[n] == 0 and not t.road_side[h, d] and t.level[n] == t.level[h]  # noqa: E731
                            and t.side_cost[h, d, 1] == 0)
    h, d, n = _find_step(t, flat)
    assert movement.enter_cost(t, sherman, h, d, n, True) == 2         # clear: tracked 1 MP (14.1.1)
    assert movement.enter_cost(t, inf, h, d, n, True) == 2             # leg 1 MP
    h, d, n = _find_step(t, lambda h, d, n: t.road_side[h, d])
    assert movement.enter_cost(t, sherman, h, d, n, True) == 1         # road 1/2 MP (14.3.1.1)
    up = lambda h, d, n: (t.cover[n] == 0 and not t.road_side[h, d] and t.level[n] > t.level[h]  # noqa: E731
                          and t.side_cost[h, d, 1] == 0 and t.cover[h] == 0)
    h, d, n = _find_step(t, up)
    assert movement.enter_cost(t, sherman, h, d, n, True) == 4         # uphill slope +1 tracked (14.9.1)
    assert movement.enter_cost(t, inf, h, d, n, True) == 2             # infantry +0
    del churchill
    woods = lambda h, d, n: (t.cover[n] == WOODS and t.cover[h] != WOODS and not t.road_side[h, d]  # noqa: E731
                             and t.level[n] <= t.level[h] and t.side_cost[h, d, 1] == 0)
    h, d, n = _find_step(t, woods)
    assert movement.enter_cost(t, sherman, h, d, n, True) == 4         # woods: tracked 2 (14.4.1)
    stream = lambda h, d, n: t.side_cost[h, d, 2] == ALL_MA            # noqa: E731
    h, d, n = _find_step(t, stream)
    assert movement.enter_cost(t, inf, h, d, n, True) == ALL_MA        # deep stream / stream: all MP
    assert movement.enter_cost(t, sherman, h, d, n, True) in (ALL_MA, PROHIBITED)


def test_pb2_14_9_1_churchill_pays_no_slope():
    p = prepared(2)
    t = p.tables
    ch = units_of(p, "gb-churchill-vii")[0]
    up = lambda h, d, n: (t.cover[n] == 0 and not t.road_side[h, d] and t.level[n] > t.level[h]  # noqa: E731
                          and t.side_cost[h, d, 1] == 0 and t.cover[h] == 0)
    h, d, n = _find_step(t, up)
    assert movement.enter_cost(t, ch, h, d, n, True) == 2


def test_pb2_2_3_5_stacking_and_4_1_8_no_enemy_hex(p1):
    t = p1.tables
    st = fresh_state(p1)
    plts = units_of(p1, "gb-motor-platoon")
    start = hx(p1, "1515")
    mover = plts[3]
    st.hex[mover] = start
    full = int(t.neighbours[start, 3])
    for u in plts[:3]:                                   # 3 x 2 SP = 6 SP: full
        st.hex[u] = full
    enemy = units_of(p1, "de-ss-panzergrenadier-platoon")[0]
    other = int(t.neighbours[start, 0])
    st.hex[enemy] = other
    n = movement.reachable(t, st, mover, start, 0, t.t_ma[t.u_type[mover]], True)
    reached = set(int(h) for h in st.order[:n])
    assert full not in reached and other not in reached
    assert len(reached) > 1
    assert combat.stack_sp(t, st, full, 0, -1) == 6


# ----------------------------------------------------------------------------- CAT and reaction fire (9, 7.9)

def _adjacent_pair(t):
    for a in np.flatnonzero(t.play):
        if t.cover[a] != 0 or t.tem_df[a] != 0:
            continue
        for d in range(6):
            b = int(t.neighbours[a, d])
            if b >= 0 and t.play[b] and t.cover[b] == 0 and t.tem_df[b] == 0:
                return int(a), b
    raise AssertionError


def test_pb2_9_1_9_and_9_1_10_cat_modifiers():
    from simulator.rulesets.panzerblitz_v2.assault import cat_attacker_drm

    p = prepared(1, {"situation.side.british.group.0.units.gb-engineer-platoon": 2})
    t = p.tables
    st = fresh_state(p)
    a, b = _adjacent_pair(t)
    inf = units_of(p, "gb-motor-platoon")[:2]
    eng = units_of(p, "gb-engineer-platoon")
    tgt = np.array(units_of(p, "de-ss-panzergrenadier-platoon")[:1], dtype=np.int64)
    for u in inf + eng:
        st.hex[u] = a
    st.hex[tgt[0]] = b
    assert cat_attacker_drm(t, st, np.array(inf, dtype=np.int64), 2, b, tgt, 1, False) == -3   # -1 CAT, -2 range 0
    assert cat_attacker_drm(t, st, np.array(inf + eng[:1], dtype=np.int64), 3, b, tgt, 1, False) == -4
    assert cat_attacker_drm(t, st, np.array(inf + eng, dtype=np.int64), 4, b, tgt, 1, False) == -4   # 17.4.2


def test_pb2_9_1_3_and_9_2_2_who_may_close_assault(p1):
    from simulator.rulesets.panzerblitz_v2.assault import cat_eligible

    t = p1.tables
    st = fresh_state(p1)
    inf = units_of(p1, "gb-motor-platoon")[0]
    tank = units_of(p1, "gb-sherman-v")[0]
    for u in (inf, tank):
        st.hex[u] = hx(p1, "1515")
        st.active[u] = True
    assert cat_eligible(t, st, inf, 0) and not cat_eligible(t, st, tank, 0)   # infantry only
    st.mp_op[inf] = 2
    st.spent[inf] = True                                  # moved one MP (and so Spent, 4.1.10)
    assert cat_eligible(t, st, inf, 0)
    st.mp_op[inf] = 3                                     # more than one MP (9.1.3)
    assert not cat_eligible(t, st, inf, 0)
    st.mp_op[inf] = 1
    st.road_op[inf] = True                                # road movement (9.2.2)
    assert not cat_eligible(t, st, inf, 0)


def test_pb2_9_1_3_1_leaving_an_improved_position_for_a_cat_costs_1_mp(p1):
    from simulator.rulesets.panzerblitz_v2.assault import cat_eligible

    t = p1.tables
    st = fresh_state(p1)
    inf = units_of(p1, "gb-motor-platoon")[0]
    h = hx(p1, "1515")
    st.hex[inf] = h
    st.active[inf] = True
    st.ip[h] = True
    st.in_ip[inf] = True
    assert t.ip_extra2 == 2 and cat_eligible(t, st, inf, 0)          # 0 MP + 1 MP out of the IP
    st.mp_op[inf] = 1
    st.spent[inf] = True                                             # moved half an MP, then in the IP
    assert not cat_eligible(t, st, inf, 0)                           # 1/2 + 1 MP > 1 MP (9.1.3)
    st.in_ip[inf] = False
    assert cat_eligible(t, st, inf, 0)


def test_pb2_7_9_reaction_fire_halving_and_column_shift(p1):
    from simulator.rulesets.panzerblitz_v2.assault import reaction_fire
    from simulator.rulesets.panzerblitz_v2.state import EV_REACTION

    t = p1.tables
    a, b = _adjacent_pair(t)
    att = np.array(units_of(p1, "gb-motor-platoon")[:1], dtype=np.int64)
    defender = units_of(p1, "de-ss-panzergrenadier-platoon")[0]

    def react(spent, disrupted):
        st = fresh_state(p1)
        st.hex[att[0]] = a
        st.hex[defender] = b
        st.spent[defender] = spent
        st.disrupted[defender] = disrupted
        reaction_fire(t, st, b, a, att, 1, 1)
        ev = st.ev[:st.n_ev[0]]
        ev = ev[ev[:, 2] == EV_REACTION]
        return int(ev[0, 5]) if len(ev) else None, st

    col, st = react(False, False)                         # AP 4 : DF 7 -> 1:2
    assert col == col_of(p1, "1:2") and st.spent[defender]     # 7.9.2: a fresh firer is Spent after
    assert react(True, False)[0] == col_of(p1, "1:4")     # 7.9b: a Spent firer halved, 2 : 7
    assert react(True, True)[0] is None                   # halved and one column left: off the table


def test_pb2_7_10_assault_fire_two_columns_left(p1):
    from simulator.decisions import for_replay
    from simulator.rulesets.panzerblitz_v2.batch import player_arrays
    from simulator.rulesets.panzerblitz_v2.players import ASSAULT_FIRE, DECISION_KINDS
    from simulator.rulesets.panzerblitz_v2.state import EV_ASSAULT

    t = p1.tables
    a, b = _los_pair_at(p1, t, lambda h: t.cover[h] == 0, 3)
    tank = units_of(p1, "gb-sherman-v")[0]
    target = np.array(units_of(p1, "pzkw-iv-h")[:1], dtype=np.int64)
    kinds, params = player_arrays(RULESET.players.parse(None, p1.sides), p1.sides)
    # the recorded decision "fire at the first target" stands in for the player
    st = new_state(t, 1, kinds, params, for_replay(np.array([[ASSAULT_FIRE, 2, 1]]), DECISION_KINDS, 1))
    st.hex[tank], st.hex[target[0]] = a, b
    st.unspotted[:] = False
    st.mp_op[tank] = 4                                    # moved 2 of its 5 MP
    plain = combat.fire_column(t, st, np.array([tank]), 1, np.ones(1, dtype=np.int64), target, 1, True)
    game.assault_fire(t, st, tank)
    ev = st.ev[:st.n_ev[0]]
    ev = ev[ev[:, 2] == EV_ASSAULT]
    assert len(ev) == 1 and ev[0, 5] == plain - 2
    assert st.spent[tank] and st.fired[tank]


# ----------------------------------------------------------------------------- indirect fire (11)

def test_pb2_11_3_2_each_unit_in_the_hex_attacked_separately():
    from simulator.rulesets.panzerblitz_v2.artillery import indirect_fire
    from simulator.rulesets.panzerblitz_v2.state import EV_IF, EV_SCATTER

    # every roll on target (the scatter chart is data: 11.3.1)
    p = prepared(1, {"scatter.band.drift.max_roll.value": 0, "scatter.band.scatter.max_roll.value": 1,
                     "scatter.band.on_target.max_roll.value": 13})
    t = p.tables
    st = fresh_state(p)
    h = next(h for h in range(t.n_hexes) if t.play[h] and t.cover[h] == 0)
    victims = units_of(p, "de-ss-panzergrenadier-platoon")[:2] + units_of(p, "pzkw-iv-h")[:1]
    for u in victims:
        st.hex[u] = h
    battery = units_of(p, "gb-25pdr-battery")[0]
    indirect_fire(t, st, battery, h, 0, False)
    ev = st.ev[:st.n_ev[0]]
    assert (ev[:, 2] == EV_SCATTER).sum() == 0
    fire = ev[ev[:, 2] == EV_IF]
    assert len(fire) == 3                                    # two AP attacks, one AT (the 11.3.2 example)
    order = sorted(victims)                                  # attacked in counter order
    tank = order.index(units_of(p, "pzkw-iv-h")[0])
    soft = combat.ap_column(t, 2 * 30, 8)                    # 25-pdr AP 30 against DF 8
    assert [int(fire[i, 5]) for i in range(3) if i != tank] == [soft, soft]
    assert t.dft_at_diff[fire[tank, 5]] == 6 - 4             # AT 6 against the PzKw IV's 4
    assert st.he[h]                                          # 11.3.3: the HE marker on the hex hit


def test_pb2_11_3_3_fire_from_an_he_hex_and_its_removal(p1):
    t = p1.tables
    st = fresh_state(p1)
    a, b = _los_pair_at(p1, t, lambda h: t.cover[h] == 0, 3)
    tanks = units_of(p1, "gb-sherman-v")[:2]
    for u in tanks:
        st.hex[u] = a
    firers = np.array(tanks, dtype=np.int64)
    plain = combat.attacker_drm(t, st, firers, 2, b, K_DF, -1)
    st.he[a] = True
    assert combat.attacker_drm(t, st, firers, 2, b, K_DF, -1) == plain + 1
    game.administration(t, st, 0)                            # 3.1.3 step 2: the marker goes
    assert not st.he[a]
    assert combat.attacker_drm(t, st, firers, 2, b, K_DF, -1) == plain


def test_pb2_3_1_2_3_reinforcements_entering_one_hex_pay_the_stacking_surcharge():
    """PB2-EX-3.1.2.3: the first 6 SP through a hex pay its cost, SP 7-12 the cost + 1 MP, SP
    13-18 + 2 MP; only the reinforcing units act.  Each enters alone here (PB2-OQ-70 off: no
    passenger boards a carrier before entering, test_pbv2_transport.py has that case)."""
    from simulator.rulesets.panzerblitz_v2.state import EV_ENTER

    p = prepared(1, {"readings.reinforcements_enter_loaded": False})
    t = p.tables
    late = [u for u in range(t.n_units) if t.u_side[u] == 0 and t.u_enter_turn[u] > 0]
    g = int(t.u_group[late[0]])
    late = [u for u in late if t.u_group[u] == g]
    t.g_entry_n[g] = 1                                   # one entry hex for the whole group
    h = int(t.g_entry[g, 0])
    st = fresh_state(p)                                  # nobody else on the map: they move on freely
    st.turn[0] = int(t.u_enter_turn[late[0]])
    game.reinforcement(t, st, 0)
    ev = st.ev[:st.n_ev[0]]
    ev = ev[ev[:, 2] == EV_ENTER]
    assert [int(u) for u in ev[:, 4]] == late            # all of them: a blocked entry hex -> an adjacent one
    before = {}
    for u, at, paid in zip(ev[:, 4], ev[:, 5], ev[:, 6], strict=True):
        assert at == h or t.dist[at, h] == 1
        assert paid == t.move_cost[at, t.t_mode[t.u_type[u]]] + 2 * (before.get(at, 0) // 6)
        before[at] = before.get(at, 0) + combat.sp_value(t, st, u)
    before = before[h]
    assert before > 6 and max(ev[:, 6]) > min(ev[:, 6])  # the surcharge came into play
    assert all(st.spent[u] for u in late)                 # they acted, and only they (3.1.2.3)
    assert not any(st.spent[u] for u in range(t.n_units) if u not in late)


# ----------------------------------------------------------------------------- wrecks (15.1)

def test_pb2_15_1_wrecks_where_how_big_and_what_they_do():
    p = prepared(1)
    t = p.tables
    st = fresh_state(p)
    town = next(int(h) for h in np.flatnonzero(t.play) if t.wreck_ok[h] and t.cover[h] == 1)
    field = next(int(h) for h in np.flatnonzero(t.play) if not t.wreck_ok[h] and t.cover[h] == 0)
    tanks = units_of(p, "pzkw-iv-h")
    inf = units_of(p, "de-ss-panzergrenadier-platoon")[0]
    st.hex[tanks[0]], st.hex[tanks[1]], st.hex[tanks[2]] = town, field, town
    combat.apply_result(t, st, np.array(tanks[1:2]), 1, R_2X, np.zeros(1, dtype=np.bool_))
    assert st.hex[tanks[1]] == GONE and st.wreck_sp[field] == 0        # no wreck in a plain field
    st.hex[inf] = town
    drm0 = combat.defender_drm(t, st, np.array([inf]), 1, False, K_DF, False, False)
    sp0 = combat.stack_sp(t, st, town, 1, -1)
    combat.apply_result(t, st, np.array(tanks[:1]), 1, R_2X, np.zeros(1, dtype=np.bool_))
    assert st.hex[tanks[0]] == GONE and st.wreck_sp[town] == t.wreck_full == 2      # outright: full (OQ-45)
    assert combat.defender_drm(t, st, np.array([inf]), 1, False, K_DF, False, False) == drm0 + 1   # 15.1.2
    f = t.vehicle_town_factor               # the tank's 2 SP left the hex, the wreck counts as a vehicle (15.1.4)
    assert combat.stack_sp(t, st, town, 1, -1) == sp0 - 2 * f + t.wreck_full * f
    assert combat.stack_sp(t, st, town, 0, -1) == t.wreck_full * f     # against both sides' capacity
    st.steps[tanks[2]] = 1
    combat.apply_result(t, st, np.array(tanks[2:3]), 1, R_1X, np.zeros(1, dtype=np.bool_))
    assert st.hex[tanks[2]] == GONE and st.wreck_sp[town] == 2         # 15.1.6: 2 SP a hex at most
    # 15.1.3, 15.1.5: +1 MP to enter, no road rate into it (a reduced wreck on a road in the open)
    mover = units_of(p, "gb-sherman-v")[0]
    frm, back, road = next((int(h), k, int(t.neighbours[h, k])) for h in np.flatnonzero(t.play) for k in range(6)
                           if t.road_side[h, k] and t.cover[h] == 0 and t.neighbours[h, k] >= 0
                           and t.cover[t.neighbours[h, k]] == 0 and t.play[t.neighbours[h, k]])
    st.hex[mover] = frm
    movement.reachable(t, st, mover, frm, 0, t.t_ma[t.u_type[mover]], True)
    assert st.reach[road] == 1                                           # the road rate, 1/2 MP
    st.wreck_sp[road] = t.wreck_reduced
    movement.reachable(t, st, mover, frm, 0, t.t_ma[t.u_type[mover]], True)
    assert st.reach[road] == movement.enter_cost(t, mover, frm, back, road, False) + t.wreck_extra2


# ----------------------------------------------------------------------------- improved positions (15.4)

def test_pb2_15_4_improved_positions_placed_at_set_up_capacity_and_modifier():
    from simulator.rulesets.panzerblitz_v2.state import EV_IP

    p = prepared(1)
    t = p.tables
    german = p.sides.index("german")
    assert t.s_ip[german] == 4                            # hod-01's card: four IPs
    st = fresh_state(p)
    game.setup(t, st)
    ips = np.flatnonzero(st.ip)
    assert len(ips) == 4 and all(t.ip_ok[ips])            # one a hex (15.4.2), where allowed (15.4.1)
    assert (st.ev[:st.n_ev[0], 2] == EV_IP).sum() == 4
    for h in ips:                                         # 15.4.2: 4 SP, non-vehicular units only
        inside = [u for u in range(t.n_units) if st.hex[u] == h and st.in_ip[u]]
        assert sum(combat.sp_value(t, st, u) for u in inside) <= t.ip_capacity
        assert not any(t.t_vehicle[t.u_type[u]] for u in inside)
    assert st.in_ip.any()
    u = int(np.flatnonzero(st.in_ip)[0])
    tg = np.array([u], dtype=np.int64)
    with_ip = combat.defender_drm(t, st, tg, 1, False, K_DF, False, False)
    with_ip_reaction = combat.defender_drm(t, st, tg, 1, False, K_REACTION, False, False)
    st.in_ip[u] = False
    assert with_ip == combat.defender_drm(t, st, tg, 1, False, K_DF, False, False) + 1   # 15.4.4
    assert with_ip_reaction == combat.defender_drm(t, st, tg, 1, False, K_REACTION, False, False)  # not vs reaction fire (7.9e)
    assert not combat.ip_room(t, st, int(st.hex[u]), units_of(p, "pzkw-iv-h")[0])


def test_pb2_15_4_8_one_mp_to_leave_an_improved_position():
    p = prepared(1)
    t = p.tables
    st = fresh_state(p, players=RULESET.players.parse(["random"], p.sides))
    a, b = _adjacent_pair(t)
    inf = units_of(p, "de-ss-panzergrenadier-platoon")[0]   # MA 1: an IP costs it its whole move out
    st.hex[inf] = a
    st.ip[a] = True
    st.in_ip[inf] = True
    ma = t.t_ma[t.u_type[inf]]
    assert ma <= t.ip_extra2 + t.move_cost[b, t.t_mode[t.u_type[inf]]] - 1
    assert not game.move_unit(t, st, inf, a, 0)           # no hex within reach: it stays in its IP
    assert st.in_ip[inf] and st.hex[inf] == a
    st.in_ip[inf] = False
    n = movement.reachable(t, st, inf, a, 0, ma, True)
    assert n > 1                                          # out of the IP, the minimum move (4.1.7) lets it go


# ----------------------------------------------------------------------------- overrun (8)

def _overrun_position(p, distance=2):
    """A British Sherman `distance` hexes from a clear hex holding an SS panzergrenadier platoon,
    both spotted."""
    t = p.tables
    a, b = _los_pair_at(p, t, lambda h: t.cover[h] == 0 and t.overrun_ok[h], distance)
    st = fresh_state(p)
    tank = units_of(p, "gb-sherman-v")[0]
    inf = units_of(p, "de-ss-panzergrenadier-platoon")[0]
    st.hex[tank], st.hex[inf] = a, b
    st.unspotted[:] = False
    st.op[0] = 5
    return t, st, tank, inf, a, b


def _ovr_options(t, st, tank, spent0=0):
    from simulator.rulesets.panzerblitz_v2.overrun import overrun_options

    nl = movement.reachable(t, st, tank, st.hex[tank], spent0, t.t_ma[t.u_type[tank]], False)
    n = overrun_options(t, st, tank, st.hex[tank], nl)
    return [tuple(int(x) for x in st.opts[i, :8]) for i in range(1, n)]     # the 8 OVERRUN columns


def test_pb2_8_1_7_overrun_option_column_and_net_modifiers():
    p = prepared(1)
    t, st, tank, inf, a, b = _overrun_position(p)
    opts = _ovr_options(t, st, tank)
    assert len(opts) == 1
    h, target, frm, column, drm, nt, dis, missing = opts[0]
    assert (h, target, nt, missing) == (b, -1, 1, 0) and t.dist[frm, b] == 1
    assert column == combat.fire_column(t, st, np.array([tank]), 1, np.ones(1, dtype=np.int64),
                                        np.array([inf]), 1, False)       # by the DF methods (8.1.6)
    assert drm == -3                     # 8.1.7: -1 overrun, -1 range 1, -1 infantry in the open


def test_pb2_8_2_legality_los_spotting_terrain_and_once_per_operation():
    p = prepared(1)
    t, st, tank, inf, a, b = _overrun_position(p)
    st.ovr_op[b] = st.op[0]
    assert _ovr_options(t, st, tank) == []               # 8.2.5: overrun once an Operation
    st.ovr_op[b] = -1
    t.overrun_ok[b] = False
    assert _ovr_options(t, st, tank) == []               # 8.2.3-8.2.4: the terrain forbids it
    t.overrun_ok[b] = True
    los = t.los[a, b]
    t.los[a, b] = 0
    assert _ovr_options(t, st, tank) == []               # 8.2.1.2: LoS before moving
    t.los[a, b] = los
    st.unspotted[inf] = True
    spot = t.spot_range[b]
    t.spot_range[b] = 0
    assert _ovr_options(t, st, tank) == []               # 8.2.1.2: a defender must be spotted
    t.spot_range[b] = spot
    assert len(_ovr_options(t, st, tank)) == 1


def test_pb2_8_1_1_and_8_1_10_movement_points_for_an_overrun():
    p = prepared(1)
    t, st, tank, inf, a, b = _overrun_position(p)
    ma = t.t_ma[t.u_type[tank]]                          # half MP
    # 8.1.1: 2 MP + the target hex's cost (clear: 1) on top of reaching the adjacent hex (1)
    assert len(_ovr_options(t, st, tank, spent0=ma - 8)) == 1
    assert _ovr_options(t, st, tank, spent0=ma - 7) == []
    # 8.1.10: starting adjacent and 2 MP short: it may, at +1 a missing MP
    t2, st2, tank2, inf2, a2, b2 = _overrun_position(p, distance=1)
    full = _ovr_options(t2, st2, tank2)[0]
    short = _ovr_options(t2, st2, tank2, spent0=ma - 2)[0]
    assert short[7] == 2 and short[4] == full[4] + 2 and full[7] == 0


def test_pb2_8_1_2_to_8_1_9_reaction_fire_then_the_overrun_then_the_free_entry():
    from simulator.rulesets.panzerblitz_v2.overrun import resolve_overrun
    from simulator.rulesets.panzerblitz_v2.state import EV_OVERRUN, EV_REACTION

    p = prepared(1)
    seen = set()
    for seed in range(1, 120):
        t, st, tank, inf, a, b = _overrun_position(p, distance=1)
        st.streams[:] = fresh_state(p, seed).streams
        st.steps[inf] = 1                                # reduced: an X eliminates it
        resolve_overrun(t, st, tank, b, -1, 0)
        ev = st.ev[:st.n_ev[0]]
        kinds = [int(k) for k in ev[:, 2] if k in (EV_REACTION, EV_OVERRUN)]
        assert kinds[0] == EV_REACTION                   # 7.9, 8.1.5: reaction fire first
        attacked = EV_OVERRUN in kinds
        assert attacked == (st.hex[tank] >= 0 and not st.disrupted[tank])    # 7.9.1
        assert st.ovr_op[b] == st.op[0] and (st.hex[tank] < 0 or st.spent[tank])
        if attacked:
            o = ev[ev[:, 2] == EV_OVERRUN][0]
            assert o[7] >= -3                            # the roll's modifiers include the net -3
            if st.hex[inf] < 0:
                assert st.hex[tank] == b                 # 8.1.9: into the emptied hex, free
                seen.add("entered")
            else:
                assert st.hex[tank] == a
                seen.add("held")
        else:
            seen.add("stopped")
    assert seen == {"entered", "held", "stopped"}


def test_pb2_8_1_9_the_overrunner_moves_on_from_the_emptied_hex_with_its_mp_left_no_road_rate():
    from simulator.rulesets.panzerblitz_v2.state import EV_ADVANCE, EV_MOVE

    p = prepared(1)
    players = RULESET.players.parse(["heuristic:ovr_min=0,jitter=0"], p.sides)
    for seed in range(1, 200):
        t, st, tank, inf, a, b = _overrun_position(p, distance=2)
        st2 = fresh_state(p, seed, players)
        st.streams[:] = st2.streams
        st.player[:] = st2.player
        st.params[:] = st2.params
        st.steps[inf] = 1                                # reduced: an X eliminates it
        st.active[tank] = True
        assert game.try_overrun(t, st, tank)
        ev = st.ev[:st.n_ev[0]]
        adv = np.flatnonzero(ev[:, 2] == EV_ADVANCE)
        if not len(adv):
            continue
        after = ev[adv[0] + 1:]
        moves = after[after[:, 2] == EV_MOVE]
        assert len(moves) and moves[0, 5] == b                          # on from the emptied hex
        used = 2 + 4 + t.move_cost[b, t.t_mode[t.u_type[tank]]]        # 1 clear hex, 2 MP, the target hex
        assert (moves[:, 7] > used).all() and moves[-1, 7] <= t.t_ma[t.u_type[tank]]
        steps = np.diff(np.concatenate([[used], moves[:, 7]]))
        for m, c in zip(moves, steps, strict=True):                    # no road rate (8.2.1.3)
            d = next(k for k in range(6) if t.neighbours[m[5], k] == m[6])
            assert c == movement.enter_cost(t, tank, m[5], d, m[6], False)
        assert st.spent[tank]
        return
    raise AssertionError("no overrun emptied the hex in 199 seeds")


def test_pb2_11_1_2_and_11_2_forward_observers(p1):
    from simulator.rulesets.panzerblitz_v2.artillery import artillery_ready, observer_for

    t = p1.tables
    st = fresh_state(p1)
    a, b = _los_pair_at(p1, t, lambda h: t.cover[h] == 0, 5)
    fo = units_of(p1, "gb-motor-platoon")[0]
    tank = units_of(p1, "gb-sherman-v")[0]
    battery = units_of(p1, "gb-25pdr-battery")[0]
    st.hex[fo], st.hex[tank] = a, a
    st.active[fo] = st.active[tank] = True
    assert artillery_ready(t, st, battery, 0)                # off-board: no chit needed, once a turn
    assert observer_for(t, st, 0, b, battery) == fo          # infantry only (11.2.1)
    st.fo[fo] = True
    assert observer_for(t, st, 0, b, battery) == -1          # one AR per FO (11.2.5)
    st.fo[fo] = False
    st.spent[fo] = True
    assert observer_for(t, st, 0, b, battery) == -1          # a Spent unit is no FO (11.2.3)
    st.spent[fo] = False
    st.spent[battery] = True
    assert not artillery_ready(t, st, battery, 0)            # Spent artillery (11.1.2 c)


def test_pb2_11_3_5_the_owner_may_cancel_a_request_before_it_is_resolved(p1):
    from simulator.decisions import for_replay
    from simulator.rulesets.panzerblitz_v2.artillery import resolve_requests
    from simulator.rulesets.panzerblitz_v2.batch import player_arrays
    from simulator.rulesets.panzerblitz_v2.players import AR_CANCEL, DECISION_KINDS, choose
    from simulator.rulesets.panzerblitz_v2.state import EV_AR_CANCEL, EV_IF

    t = p1.tables
    a, b = _los_pair_at(p1, t, lambda h: t.cover[h] == 0, 5)
    battery = units_of(p1, "gb-25pdr-battery")[0]
    target = units_of(p1, "pzkw-iv-h")[0]
    side = int(t.u_side[battery])
    kinds, params = player_arrays(RULESET.players.parse(None, p1.sides), p1.sides)

    def resolve(answer):
        st = new_state(t, 3, kinds, params, for_replay(np.array([[AR_CANCEL, 2, answer]]), DECISION_KINDS, 3))
        st.hex[target] = b
        st.ar[0, :4] = (b, battery, side, st.steps[battery])
        st.n_ar[0] = 1
        resolve_requests(t, st, side)
        ev = st.ev[:st.n_ev[0]]
        return ev, st

    ev, st = resolve(1)
    assert (ev[:, 2] == EV_AR_CANCEL).sum() == 1 and ev[ev[:, 2] == EV_AR_CANCEL][0, 6] == 1
    assert (ev[:, 2] == EV_IF).sum() == 0 and st.n_ar[0] == 0
    ev, st = resolve(0)
    assert (ev[:, 2] == EV_AR_CANCEL).sum() == 0
    # The heuristic cancels a request whose target hex is empty now, and keeps one on an enemy unit.
    st = fresh_state(p1)
    opts = np.array([[0, 0, 0], [1, 0, 0]] + [[0] * 3] * 6, dtype=np.int32)
    assert choose(AR_CANCEL, opts, 2, t, st, side, 1, st.params[side], st.dec) == 1
    opts[:2, 1] = 2
    assert choose(AR_CANCEL, opts, 2, t, st, side, 1, st.params[side], st.dec) == 0


def col_of(p, label):
    return p.columns.index(label)


# ----------------------------------------------------------------------------- recovery (13.1)

def test_pb2_13_1_recovery_numbers(p1):
    t = p1.tables
    st = fresh_state(p1)
    u = units_of(p1, "gb-motor-platoon")[0]
    clear = next(h for h in range(t.n_hexes) if t.tem_df[h] == 0 and t.play[h])
    woods = next(h for h in range(t.n_hexes) if t.cover[h] == WOODS and t.play[h])
    st.hex[u] = clear
    st.disrupted[u] = True
    eff = int(t.s_efficiency[t.u_side[u]])
    assert game.recovery_target(t, st, u) == eff                 # 2d6 <= rating
    st.spent[u] = True
    assert game.recovery_target(t, st, u) == eff - 3             # S/D: +3 on the roll (13.1.2)
    st.hex[u] = woods
    assert game.recovery_target(t, st, u) == eff - 3 + 1         # cover: -1 on the roll (13.1.3)


# ----------------------------------------------------------------------------- efficiency rolls (13.2), hull-down (15.6)

def test_pb2_13_2_efficiency_roll_is_2d6_at_or_under_the_rating(p1):
    from simulator.rulesets.panzerblitz_v2.efficiency import efficiency_chance, efficiency_roll

    t = p1.tables
    st = fresh_state(p1)
    for side in range(2):
        eff = int(t.s_efficiency[side])
        want = sum(1 for a in range(1, 7) for b in range(1, 7) if a + b <= eff)   # reading PB2-OQ-44
        assert efficiency_chance(t, side) == want
        rolls = [efficiency_roll(t, st, side) for _ in range(3600)]
        assert all(passed == (natural <= eff) for passed, natural in rolls)
        rate = np.mean([passed for passed, _ in rolls])
        assert abs(rate - want / 36) < 4 * np.sqrt(want / 36 * (1 - want / 36) / 3600)


def _hull_down_try(p, seed, tank, h, try_it=True):
    from simulator.decisions import for_replay
    from simulator.rulesets.panzerblitz_v2.batch import player_arrays
    from simulator.rulesets.panzerblitz_v2.players import DECISION_KINDS, HULL_DOWN

    kinds, params = player_arrays(RULESET.players.parse(None, p.sides), p.sides)
    rec = np.array([[HULL_DOWN, 2, 1 if try_it else 0]])
    st = new_state(p.tables, seed, kinds, params, for_replay(rec, DECISION_KINDS, seed))
    st.hex[tank] = h
    st.turn[0] = 1
    game.try_hull_down(p.tables, st, tank)
    return st


def test_pb2_15_6_1_hull_down_costs_half_ma_and_an_efficiency_roll(p1):
    from simulator.rulesets.panzerblitz_v2.efficiency import hull_down, may_try_hull_down
    from simulator.rulesets.panzerblitz_v2.state import EV_HULL_DOWN

    t = p1.tables
    tank = units_of(p1, "gb-sherman-v")[0]
    h = next(h for h in range(t.n_hexes) if t.play[h] and t.cover[h] == 0 and not t.depression[h])
    eff = int(t.s_efficiency[t.u_side[tank]])
    outcomes = set()
    for seed in range(40):
        st = _hull_down_try(p1, seed, tank, h)
        ev = st.ev[:st.n_ev[0]]
        ev = ev[ev[:, 2] == EV_HULL_DOWN]
        assert len(ev) == 1                                    # no enemy on the map: no opportunity fire
        natural = int(ev[0, 6])
        assert hull_down(st, tank) == (natural <= eff) == bool(ev[0, 7])
        assert st.spent[tank] and st.mp_op[tank] == (t.t_ma[t.u_type[tank]] + 1) // 2   # 1/2 MA, Spent
        assert not may_try_hull_down(t, st, tank)             # one try a turn (and Spent)
        outcomes.add(hull_down(st, tank))
    assert outcomes == {True, False}
    st = _hull_down_try(p1, 1, tank, h, try_it=False)          # declined: nothing spent
    assert not st.spent[tank] and st.mp_op[tank] == 0 and not hull_down(st, tank)


def test_pb2_15_6_2_hull_down_plus_one_except_indirect_fire(p1):
    t = p1.tables
    st = fresh_state(p1)
    tank = units_of(p1, "gb-sherman-v")[0]
    h = next(h for h in range(t.n_hexes) if t.play[h] and t.cover[h] == 0 and not t.depression[h])
    st.hex[tank] = h
    one = np.array([tank])
    before = [combat.defender_drm(t, st, one, 1, False, k, False, False) for k in (K_DF, K_IF)]
    st.hd_hex[tank] = h
    after = [combat.defender_drm(t, st, one, 1, False, k, False, False) for k in (K_DF, K_IF)]
    assert after[0] - before[0] == 1 and after[1] == before[1]


def test_pb2_15_6_3_hull_down_lost_on_moving_and_15_6_4_terrain(p1):
    from simulator.rulesets.panzerblitz_v2.efficiency import hull_down, may_try_hull_down

    t = p1.tables
    st = fresh_state(p1)
    tank = units_of(p1, "gb-sherman-v")[0]
    a, b = _los_pair_at(p1, t, lambda h: t.cover[h] == 0, 1)
    st.hex[tank] = a
    st.hd_hex[tank] = a
    st.turn[0] = 1
    assert hull_down(st, tank)
    movement.reachable(t, st, tank, a, 0, t.t_ma[t.u_type[tank]], True)
    game.walk(t, st, tank, b, 0)
    assert st.hex[tank] == b and not hull_down(st, tank)
    st.hex[tank] = a                                           # back where it was: still lost
    assert not hull_down(st, tank)
    # 15.6.4: clear, woods, orchard, town, city only (terrain.rules.hull_down.terrain)
    assert t.hull_ok[a] and not t.hull_ok[np.flatnonzero(t.depression)].any()
    st.hex[tank] = a
    assert not may_try_hull_down(t, st, tank)                  # it spent MP this Operation
    st.mp_op[tank] = 0                                         # (a later Operation)
    assert may_try_hull_down(t, st, tank)
    st.hex[tank] = int(np.flatnonzero(t.depression & t.play)[0])
    assert not may_try_hull_down(t, st, tank)


def _build_ip_try(p, seed, builder, friends, h, build=True, disrupt=False):
    from simulator.decisions import for_replay
    from simulator.rulesets.panzerblitz_v2.batch import player_arrays
    from simulator.rulesets.panzerblitz_v2.players import BUILD_IP, DECISION_KINDS

    kinds, params = player_arrays(RULESET.players.parse(None, p.sides), p.sides)
    rec = np.array([[BUILD_IP, 2, 1 if build else 0]])
    st = new_state(p.tables, seed, kinds, params, for_replay(rec, DECISION_KINDS, seed))
    st.turn[0] = 1
    st.op[0] = 1
    for u in [builder] + friends:
        st.hex[u] = h
    st.active[builder] = True
    side = int(p.tables.u_side[builder])
    game.declare_ips(p.tables, st, side)
    if disrupt:
        st.disrupted[builder] = True
    game.finish_ips(p.tables, st, side)
    return st


def test_pb2_15_4_3_1_building_an_ip_costs_the_whole_ma_and_an_efficiency_roll(p1):
    from simulator.rulesets.panzerblitz_v2.state import EV_BUILD_IP

    t = p1.tables
    builder, friend, tired = units_of(p1, "gb-motor-platoon")[:3]
    h = next(h for h in range(t.n_hexes) if t.play[h] and t.ip_ok[h] and t.cover[h] == 0)
    eff = int(t.s_efficiency[t.u_side[builder]])
    built = set()
    for seed in range(40):
        st = _build_ip_try(p1, seed, builder, [friend], h)
        ev = st.ev[:st.n_ev[0]]
        ev = ev[ev[:, 2] == EV_BUILD_IP]
        assert len(ev) == 1
        natural = int(ev[0, 6])
        assert bool(st.ip[h]) == (natural <= eff) == bool(ev[0, 7])
        assert st.spent[builder] and st.mp_op[builder] == t.t_ma[t.u_type[builder]]   # the whole MA
        assert st.in_ip[builder] == st.ip[h] and st.in_ip[friend] == st.ip[h]          # builder and friends inside
        built.add(bool(st.ip[h]))
    assert built == {True, False}
    st = _build_ip_try(p1, 1, builder, [], h, build=False)                             # declined
    assert not st.spent[builder] and not st.ip[h]


def test_pb2_15_4_3_who_and_where_an_ip_may_be_built(p1):
    t = p1.tables
    st = fresh_state(p1)
    inf, tank = units_of(p1, "gb-motor-platoon")[0], units_of(p1, "gb-sherman-v")[0]
    h = next(h for h in range(t.n_hexes) if t.play[h] and t.ip_ok[h] and t.cover[h] == 0)
    for u in (inf, tank):
        st.hex[u] = h
        st.active[u] = True
    assert game.may_build_ip(t, st, inf)
    assert not game.may_build_ip(t, st, tank)                   # 15.4.3: non-vehicular units only
    st.ip[h] = True
    assert not game.may_build_ip(t, st, inf)                    # 15.4.2: one IP a hex
    st.ip[h] = False
    st.hex[inf] = int(np.flatnonzero(t.depression & t.play)[0])
    assert not game.may_build_ip(t, st, inf)                    # 15.4.1: not in a gully or stream hex
    st.hex[inf] = h
    st.spent[inf] = True
    assert not game.may_build_ip(t, st, inf)                    # 15.4.3.1: not Spent


def test_pb2_15_4_5_a_disrupted_builder_builds_nothing(p1):
    from simulator.rulesets.panzerblitz_v2.state import EV_BUILD_IP

    t = p1.tables
    builder = units_of(p1, "gb-motor-platoon")[0]
    h = next(h for h in range(t.n_hexes) if t.play[h] and t.ip_ok[h] and t.cover[h] == 0)
    for seed in range(10):
        st = _build_ip_try(p1, seed, builder, [], h, disrupt=True)
        ev = st.ev[:st.n_ev[0]]
        assert not st.ip[h] and ev[ev[:, 2] == EV_BUILD_IP][0, 6] == 0


# ----------------------------------------------------------------------------- the turn (3.1)

def test_pb2_3_1_2_last_chit_not_executed(p1):
    # Ops and reinforcement chits only: hod-01 without its air group (round 8 gave it one; the Air
    # Support chit's own last-chit case is test_pbv2_air.py's OQ-5 test)
    p1 = prepared(1, {"air.enabled.value": False})
    g = play_one(p1, 5, RULESET.players.parse(None, p1.sides))
    st, t = g.state, p1.tables
    ev = st.ev[:st.n_ev[0]]
    for turn in range(1, t.turns + 1):
        e = ev[ev[:, 0] == turn]
        kinds = e[:, 2]
        pool = int(t.s_chits[:, turn, :].sum() + t.s_reinf[:, turn].sum())
        played = int((kinds == EV_CHIT).sum())
        carried = int(((kinds == EV_CHIT) & (e[:, 7] == 1)).sum())   # reinforcement chits, carried ones too
        assert (kinds == EV_UNPLAYED).sum() == 1                      # exactly one unplayed chit a turn
        assert played + 1 >= pool - 0 and played + 1 <= pool + carried
        chit_rows = np.flatnonzero((kinds == EV_CHIT) | (kinds == EV_UNPLAYED))
        assert kinds[chit_rows[-1]] == EV_UNPLAYED                   # and it is the last drawn


def test_same_seed_same_game_and_recorded_decisions_replay(p1):
    players = RULESET.players.parse(None, p1.sides)
    a = play_one(p1, 11, players)
    b = play_one(p1, 11, players)
    assert np.array_equal(a.state.ev[:a.state.n_ev[0]], b.state.ev[:b.state.n_ev[0]])
    # The players removed: the random player's choices differ, the recorded ones reproduce the game.
    r, rec = record_one(p1, 11, players)
    assert np.array_equal(a.state.ev[:a.state.n_ev[0]], r.state.ev[:r.state.n_ev[0]])
    assert len(rec) == a.state.n_dec[0]
    other = RULESET.players.parse(["random"], p1.sides)
    c = replay_one(p1, 11, rec, other)
    assert np.array_equal(a.state.ev[:a.state.n_ev[0]], c.state.ev[:c.state.n_ev[0]])
    assert c.winner == a.winner
    # A record that is not this game's is an error that names the decision, not another game.
    with pytest.raises(ReplayMismatch):
        replay_one(p1, 11, rec[:len(rec) // 2], other)


def test_debug_mode_finds_broken_invariants(p1):
    """The checks of the debug mode fail where they should: both sides in a hex, an overstack, an
    eliminated counter left on the map, a counter in an IP that is not there."""
    from simulator.rulesets.panzerblitz_v2 import invariants as inv

    t = p1.tables
    kinds, params = player_arrays_default(p1)
    brit, germ = units_of(p1, "gb-sherman-v")[:3], units_of(p1, "pzkw-iv-h")[:1]
    h = next(h for h in range(t.n_hexes) if t.play[h] and t.cover[h] == 0)

    def found(setup):
        st = new_state(t, 1, kinds, params, debug=True)
        setup(st)
        game.check(t, st)
        return int(st.viol[0])

    def place(st, units, hx):
        for u in units:
            st.hex[u] = hx

    assert found(lambda st: place(st, brit[:1], h)) == inv.OK
    assert found(lambda st: place(st, brit[:1] + germ, h)) == inv.BOTH_SIDES_IN_HEX
    over = [u for u in range(t.n_units) if t.u_side[u] == t.u_side[brit[0]] and not t.u_offboard[u]
            and not t.u_air[u]]                              # (aircraft are never on the map, round 8: hod-01's)
    assert found(lambda st: place(st, over, h)) == inv.OVERSTACKED
    assert found(lambda st: (place(st, brit[:1], h), st.steps.__setitem__(brit[0], 0))) == inv.ELIMINATED_ON_MAP
    assert found(lambda st: (place(st, brit[:1], h), st.in_ip.__setitem__(brit[0], True))) == inv.IP_MISMATCH
    # Out of debug mode nothing is checked.
    st = new_state(t, 1, kinds, params)
    place(st, brit[:1] + germ, h)
    game.check(t, st)
    assert st.viol[0] == inv.OK


def player_arrays_default(p):
    from simulator.rulesets.panzerblitz_v2.batch import player_arrays

    return player_arrays(RULESET.players.parse(None, p.sides), p.sides)


def _random_games_in_debug_mode(n, seeds):
    from simulator.rulesets.panzerblitz_v2.batch import violation

    p = prepared(n)
    players = RULESET.players.parse(["random"], p.sides)
    for seed in seeds:
        g = play_one(p, seed, players, debug=True)
        assert violation(g) is None, f"hod-0{n} seed {seed}: {violation(g)}"
        yield p, g


@pytest.mark.slow
@pytest.mark.parametrize("n", [1, 2, 3])
def test_invariants_after_every_action_1000_random_games(n):
    """Issue 20, tests: invariants after every action in debug mode over 1,000 random games a
    situation, zero violations."""
    assert sum(1 for _ in _random_games_in_debug_mode(n, range(1000))) == 1000


@pytest.mark.parametrize("n", [1, 2, 3])
def test_invariants_after_random_games(n):
    """Random players on both sides, in debug mode (every action checked): and at the end no hex
    over the stacking limit, no hex with both sides, steps within a counter's, eliminated counters
    off the map, fire happened."""
    fired = 0
    for p, g in _random_games_in_debug_mode(n, range(30)):
        t = p.tables
        st = g.state
        nu = t.n_units
        assert ((st.steps[:nu] >= 0) & (st.steps[:nu] <= t.t_steps[t.u_type])).all()
        assert (st.hex[:nu][st.steps[:nu] == 0] == GONE).all()
        for h in np.unique(st.hex[:nu][st.hex[:nu] >= 0]):
            sides = set(t.u_side[st.hex[:nu] == h])
            assert len(sides) == 1
            assert combat.stack_sp(t, st, int(h), sides.pop(), -1) <= t.stack_limit
        fired += int((st.ev[:st.n_ev[0], 2] == EV_FIRE).sum())
        assert not (st.hex[:nu] == OFF_MAP).all()
    assert fired > 0


def test_play_games_tables_match_the_schema(p1):
    from simulator.results import check_batch

    games, turns, losses = play_games(p1, [1, 2, 3], RULESET.players.parse(None, p1.sides))
    check_batch(RULESET.name, RULESET.results, (games, turns, losses), p1.sides)
    assert set(games.winner) <= set(p1.sides)
    assert (turns.turn.max() == p1.tables.turns)
