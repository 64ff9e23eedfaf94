"""Engineers (PB2-17; engineers.py) in small positions on the converted classic card pb-09 (German
and Russian engineers, minefields and blocks): clearing a minefield over three turns (17.1.1),
halted by disruption and taken up at turn 2 (17.1.2), building a block (17.3.1) where the terrain
allows it, removing one on the demolition roll (17.3.2, 17.2.1.3, 17.2.2), and a block hex's
stacking exemption for one engineer (17.3.3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulator.rulesets.panzerblitz_v2 import engineers
from simulator.rulesets.panzerblitz_v2.batch import play_one, prepare, violation
from simulator.rulesets.panzerblitz_v2.combat import sp_value, stack_sp
from simulator.rulesets.panzerblitz_v2.engineers import (
    CLEAR_SET,
    DECLARED,
    DONE,
    FAILED,
    HALTED,
    W_BUILD_BLOCK,
    W_CLEAR_MINES,
    W_REMOVE_BLOCK,
)
from simulator.rulesets.panzerblitz_v2.ruleset import RULESET
from simulator.rulesets.panzerblitz_v2.state import EV_MINE, EV_WORK
from simulator.rulesets.panzerblitz_v2.tables import CLEAR, TOWN, WOODS
from simulator.situation import load_situation
from tests.panzerblitz_v2 import positions
from tests.panzerblitz_v2.positions import events, units_of

PB09 = str(Path(__file__).resolve().parents[2] / "situations" / "panzerblitz-v2" / "classic" / "pb-09.toml")


@pytest.fixture(scope="module")
def p9():
    return prepare(load_situation(PB09))


def state(p, seed=1, turn=2):
    return positions.state(p, ("random",), seed, turn)


def start(p, place, want, first=0, seeds=200):
    """A fresh position from `place(st)` -> engineer; the random player's ENGINEER decision taken
    until it picks the work `want`; returns the state and the engineer."""
    t = p.tables
    for seed in range(first, first + seeds):
        st = state(p, seed)
        u = place(st)
        st.active[u] = True
        if engineers.try_work(t, st, u) and st.work[u] == want:
            return st, u
    raise AssertionError(f"work {want} never chosen")


def clear_pair(t):
    """Two neighbouring clear hexes without roads in the play area."""
    for h in range(t.n_hexes):
        if t.play[h] and t.cover[h] == CLEAR and not t.road_side[h].any() and not t.depression[h]:
            for m in t.neighbours[h]:
                if m >= 0 and t.play[m] and t.cover[m] == CLEAR and not t.road_side[m].any() and not t.depression[m]:
                    return h, int(m)
    raise AssertionError


def clearing_started(p):
    """An engineer in clear ground next to a minefield, the random player having chosen to clear it
    (17.1.1.1): the state, the engineer and the minefield's hex."""
    h, m = clear_pair(p.tables)
    eng = units_of(p, "engineer-company")[0]

    def place(st):
        st.hex[eng] = h
        st.mine_col[m] = 1
        return eng
    st, u = start(p, place, W_CLEAR_MINES)
    return st, u, m


def test_pb2_17_1_1_clearing_a_minefield_takes_three_turns(p9):
    t = p9.tables
    st, u, m = clearing_started(p9)
    # 17.1.1.1: placed on top of the minefield, no minefield attack, marked No Move (Spent here)
    assert st.hex[u] == m and len(events(st, EV_MINE)) == 0 and st.spent[u] and st.work_stage[u] == DECLARED
    st.spent[u] = False                                  # the administration removes Spent markers
    st.turn[0] = 3
    engineers.pre_operations(t, st)                      # 17.1.1.2: Clear/Set, under the counter
    assert st.work_stage[u] == CLEAR_SET and st.mine_ok[u] and st.mine_col[m] >= 0 and st.spent[u]
    st.turn[0] = 4
    engineers.pre_operations(t, st)                      # 17.1.1.3: the minefield goes
    assert st.mine_col[m] == -1 and st.work[u] == 0 and not st.mine_ok[u]
    assert [int(e[7]) for e in events(st, EV_WORK)] == [DECLARED, CLEAR_SET, DONE]


def test_pb2_17_1_2_a_disrupted_engineer_halts_and_restarts_at_turn_2(p9):
    t = p9.tables
    st, u, m = clearing_started(p9)
    st.turn[0] = 3
    engineers.pre_operations(t, st)
    assert st.work_stage[u] == CLEAR_SET
    st.disrupted[u] = True
    st.spent[u] = False
    st.turn[0] = 4
    engineers.pre_operations(t, st)                      # halted: the minefield stays
    assert st.mine_col[m] >= 0 and st.work_stage[u] == DECLARED and not st.spent[u]
    assert int(events(st, EV_WORK)[-1, 7]) == HALTED
    st.disrupted[u] = False                              # recovered (13.1)
    for turn in (5, 6):
        st.turn[0] = turn
        engineers.pre_operations(t, st)
    assert st.mine_col[m] == -1                          # turn 2 again, then turn 3


def test_pb2_17_3_1_building_a_block_where_the_terrain_allows(p9):
    t = p9.tables
    eng = units_of(p9, "engineer-platoon-german")[0]
    good = int(next(h for h in range(t.n_hexes) if t.play[h] and t.cover[h] in (WOODS, TOWN)))
    bad = clear_pair(t)[0]
    assert t.block_build_ok[good] and not t.block_build_ok[bad]
    assert t.block_build_ok[t.road_side.any(axis=1) & t.play].all()          # road hexes too
    st = state(p9)
    st.hex[eng] = bad
    st.active[eng] = True
    n = engineers.work_options(t, st, eng)
    assert all(st.opts[i, 1] != W_BUILD_BLOCK for i in range(1, n))

    def place(st):
        st.hex[eng] = good
        return eng
    st, u = start(p9, place, W_BUILD_BLOCK)
    assert st.hex[u] == good and not st.block[good]
    for turn in (3, 4):
        st.turn[0] = turn
        engineers.pre_operations(t, st)
    assert st.block[good] and st.work[u] == 0        # 17.3.1.3: the block with the engineer
    # 17.3.3: one engineer in a block hex never overstacks it
    assert stack_sp(t, st, good, t.u_side[u], -1) == t.block_sp


def test_pb2_17_3_2_removing_a_block_on_the_demolition_roll(p9):
    t = p9.tables
    eng = units_of(p9, "engineer-company")[0]
    h = clear_pair(t)[0]
    outcomes = set()
    def place(st):
        st.hex[eng] = h
        st.block[h] = True
        return eng
    for seed in range(60):
        st, u = start(p9, place, W_REMOVE_BLOCK, first=1000 * seed)
        for turn in range(3, 12):
            st.turn[0] = turn
            engineers.pre_operations(t, st)
            if not st.block[h]:
                break
        ev = events(st, EV_WORK)
        rolls = [(int(e[7]), int(e[8])) for e in ev if e[7] in (DONE, FAILED)]
        for k, (stage, natural) in enumerate(rolls):
            # 17.2.1.3: 8 or less removes it; 17.2.2: -1 a further attempt
            assert (stage == DONE) == (natural - k <= t.block_removal_max)
            outcomes.add(stage)
        if rolls and rolls[-1][0] == DONE:
            assert not st.block[h] and st.work[u] == 0
    assert outcomes == {DONE, FAILED}


def test_pb2_17_3_3_one_engineer_in_a_block_hex_never_overstacks(p9):
    t = p9.tables
    st = state(p9)
    h = clear_pair(t)[0]
    st.block[h] = True
    eng = units_of(p9, "engineer-company")[0]
    inf = units_of(p9, "guards-company-43")[0]
    side = t.u_side[eng]
    st.hex[eng] = h
    assert stack_sp(t, st, h, side, -1) == t.block_sp                   # the engineer is not counted
    st.hex[inf] = h
    assert stack_sp(t, st, h, side, -1) == t.block_sp + sp_value(t, st, inf)   # other units are
    eng2 = units_of(p9, "engineer-company")[1]
    assert stack_sp(t, st, h, side, eng2) == t.block_sp + sp_value(t, st, inf) + sp_value(t, st, eng2)   # one only


def test_pb2_17_engineers_work_in_whole_games_without_violations(p9):
    works = 0
    for seed in range(30):
        for pol in (["random"], None):
            g = play_one(p9, seed, RULESET.players.parse(pol, p9.sides), debug=True)
            assert violation(g) is None, (seed, pol, violation(g))
            works += int((g.state.ev[:g.state.n_ev[0], 2] == EV_WORK).sum())
    assert works > 0


def test_pb2_15_4_3_2_removing_an_improved_position(p9):
    """15.4.3.2: a unit that began the turn in an empty IP's hex removes it, declared at the start
    of the Operation with its whole MA, the IP gone at the Operation's end; not while a unit is
    in it, nor by a unit that came this turn (readings.ip_removal_efficiency_roll = false,
    PB2-OQ-74: no roll)."""
    from simulator.rulesets.panzerblitz_v2 import game
    from simulator.rulesets.panzerblitz_v2.state import EV_REMOVE_IP

    t = p9.tables
    assert not t.ip_removal_roll
    h = clear_pair(t)[0]
    inf = units_of(p9, "guards-company-43")[0]
    side = int(t.u_side[inf])

    def setup(seed):
        st = state(p9, seed)
        st.ip[h] = True
        st.hex[inf] = st.turn_hex[inf] = h
        st.active[inf] = True
        return st
    st = setup(0)
    assert game.may_remove_ip(t, st, inf)
    st.in_ip[inf] = True
    assert not game.may_remove_ip(t, st, inf)         # someone occupies it
    st = setup(0)
    st.turn_hex[inf] = -1
    assert not game.may_remove_ip(t, st, inf)         # did not begin the turn there
    for seed in range(100):
        st = setup(seed)
        game.declare_ips(t, st, side)
        if st.remove_hex[inf] == h:
            break
    assert st.remove_hex[inf] == h and st.spent[inf] and st.mp_op[inf] == t.t_ma[t.u_type[inf]]
    assert st.ip[h]                                    # still there during the Operation
    game.finish_ips(t, st, side)
    assert not st.ip[h] and int(events(st, EV_REMOVE_IP)[-1, 7]) == 1
