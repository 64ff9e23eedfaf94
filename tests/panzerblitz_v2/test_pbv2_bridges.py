"""Bridge demolition (PB2-17.2; engineers.py, game.demolitions, bridges.py) in small positions on a
test variant of hod-01: two German engineer platoons set up on the Tourmauville bridge (1112-1212,
a road across the Odon's deep-stream hexside), the British C Squadron entering later (turn 7), the
British set-up moved south.  Hill 112's own cards have no engineers (situations.md), so the
variant lives only here.  Each case by number: 17.2.1 (two Operations on the bridge), 17.2.1.1-2
(No Move, Clear/Set), 17.2.1.3 (the roll from an adjacent hex, the Destroyed Bridge, then a stream
hex: LoS, movement, TEM), 17.2.2 (failure, back on the bridge, -1 a further attempt), 17.2.3
(disruption halts; only the same engineer), 14.7.5 (TEM), and the readings PB2-OQ-96/97."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simulator.rulesets.panzerblitz_v2 import bridges, engineers, game, movement
from simulator.rulesets.panzerblitz_v2.batch import play_one, prepare, violation
from simulator.rulesets.panzerblitz_v2.combat import tem_for
from simulator.rulesets.panzerblitz_v2.engineers import (
    CLEAR_SET,
    DECLARED,
    DONE,
    FAILED,
    HALTED,
    READY,
    W_DEMOLISH,
)
from simulator.rulesets.panzerblitz_v2.invariants import BRIDGE_STATE
from simulator.rulesets.panzerblitz_v2.invariants import violation as invariant
from simulator.rulesets.panzerblitz_v2.los import blown_depression, los_table_with
from simulator.rulesets.panzerblitz_v2.ruleset import RULESET
from simulator.rulesets.panzerblitz_v2.state import EV_BRIDGE, EV_WORK
from simulator.rulesets.panzerblitz_v2.tables import ALL_MA, LEG, PROHIBITED, TRACKED
from simulator.situation import load_situation
from tests.panzerblitz_v2 import positions
from tests.panzerblitz_v2.positions import events, units_of

HOD01 = Path(__file__).resolve().parents[2] / "situations" / "panzerblitz-v2" / "hod-01.toml"
ENGINEERS = '''[[side.group]]
name = "test: engineers at the Tourmauville bridge"
units = { engineer-platoon-german = 2 }
setup = { columns = "11-12", rows = "12-12" }

'''


def variant(tmp: Path, overrides=None):
    s = HOD01.read_text()
    anchor = '[[side.group]]\nname = "Vanguard of 10. SS-Panzer-Division Frundsberg"'
    assert anchor in s
    s = s.replace(anchor, ENGINEERS + anchor).replace('id = "hod-01"', 'id = "hod-01-bridge-test"')
    s = s.replace('setup = { columns = "08-16", rows = "10-16" }', 'setup = { columns = "08-16", rows = "15-18" }')
    s = s.replace('enter = { turn = 4, hexes = ["0901"] }', 'enter = { turn = 7, hexes = ["0901"] }')
    path = tmp / "hod-01-bridge-test.toml"
    path.write_text(s)
    return prepare(load_situation(path, overrides))


@pytest.fixture(scope="module")
def pb(tmp_path_factory):
    return variant(tmp_path_factory.mktemp("bridge"))


def hexes(p, *labels):
    return [p.situation.map.labels.index(x) for x in labels]


def bridge(p):
    """The Tourmauville bridge: its index, the south end 1212 and the north end 1112."""
    t = p.tables
    south, north = hexes(p, "1212", "1112")
    k = int(t.hex_br[south])
    assert k >= 0 and t.hex_br[north] == k and sorted(t.br_hex[k]) == sorted([south, north])
    return k, south, north


def state(p, seed=1, turn=2):
    return positions.state(p, ("random",), seed, turn)


def ready(p, seed=1):
    """An engineer on 1212 whose demolition is READY (17.2.1.1-17.2.1.2 done), turn 4."""
    t = p.tables
    k, south, north = bridge(p)
    eng = units_of(p, "engineer-platoon-german")[0]
    for s in range(seed, seed + 400):
        st = state(p, s, turn=2)
        st.hex[eng] = south
        st.active[eng] = True
        if engineers.try_work(t, st, eng) and st.work[eng] == W_DEMOLISH:
            break
    else:
        raise AssertionError("the demolition was never chosen")
    for turn in (3, 4):
        st.spent[eng] = False                            # the administration removes Spent markers
        st.turn[0] = turn
        engineers.pre_operations(t, st)
    return st, eng, k, south, north


def blow(p, st, u, want_done, first=0):
    """demolition_step, the random player choosing, until it rolls (True: destroyed)."""
    t = p.tables
    saved = {f: getattr(st, f).copy() for f in ("hex", "work", "work_stage", "work_tries", "work_hex", "spent",
                                                "acted", "mp_op", "br_out", "n_br_out", "br_mark", "depr_now",
                                                "n_ev", "disrupted", "streams", "in_ip", "ip")}
    for attempt in range(first, first + 2000):
        for f, v in saved.items():
            getattr(st, f)[:] = v
        st.streams[:] = saved["streams"] + attempt
        st.active[u] = True
        game.demolition_step(t, st, u)
        rolls = [e for e in events(st, EV_WORK)[-3:] if e[7] in (DONE, FAILED) and e[6] == W_DEMOLISH]
        if rolls and (rolls[-1][7] == DONE) == want_done and st.n_ev[0] > saved["n_ev"][0]:
            return rolls[-1]
    raise AssertionError("no such roll")


def test_pb2_17_2_1_demolition_is_offered_only_in_a_bridge_hex(pb):
    t = pb.tables
    k, south, north = bridge(pb)
    eng = units_of(pb, "engineer-platoon-german")[0]
    st = state(pb)
    for h, offered in ((south, True), (north, True), (hexes(pb, "1313")[0], False)):
        st.hex[eng] = h
        st.active[eng] = True
        n = engineers.work_options(t, st, eng)
        assert any(st.opts[i, 1] == W_DEMOLISH and st.opts[i, 0] == h for i in range(1, n)) == offered


def test_pb2_17_2_1_1_and_17_2_1_2_two_operations_on_the_bridge_then_ready(pb):
    t = pb.tables
    k, south, north = bridge(pb)
    eng = units_of(pb, "engineer-platoon-german")[0]
    st = None
    for s in range(400):
        st = state(pb, s, turn=2)
        st.hex[eng] = south
        st.active[eng] = True
        if engineers.try_work(t, st, eng) and st.work[eng] == W_DEMOLISH:
            break
    # 17.2.1.1: turn 1, the No Move (the engineer neither moves nor fires: Spent)
    assert st.work_stage[eng] == DECLARED and st.spent[eng] and st.hex[eng] == south
    st.spent[eng] = False
    st.turn[0] = 3
    engineers.pre_operations(t, st)                      # 17.2.1.2: Clear/Set; the 2nd Operation on it
    assert st.work_stage[eng] == CLEAR_SET and st.spent[eng]
    st.spent[eng] = False
    st.turn[0] = 4
    engineers.pre_operations(t, st)                      # 17.2.1.3: "on any subsequent turn"
    assert st.work_stage[eng] == READY and not st.spent[eng] and not st.br_out[k]
    assert [int(e[7]) for e in events(st, EV_WORK)] == [DECLARED, CLEAR_SET, READY]
    # a second engineer may not take the same bridge up from its other end (17.2.3)
    other = units_of(pb, "engineer-platoon-german")[1]
    st.hex[other] = north
    st.active[other] = True
    n = engineers.work_options(t, st, other)
    assert not any(st.opts[i, 1] == W_DEMOLISH for i in range(1, n))


def test_pb2_17_2_1_3_the_roll_from_an_adjacent_hex_destroys_the_bridge_on_8_or_less(pb):
    t = pb.tables
    st, eng, k, south, north = ready(pb)
    roll = blow(pb, st, eng, True)
    assert roll[8] <= t.demo_roll_max == 8
    assert t.dist[st.hex[eng], south] == 1               # moved to an adjacent hex to roll
    assert st.br_out[k] and st.n_br_out[0] == 1 and st.br_mark[k] == south   # the Destroyed Bridge marker
    assert st.work[eng] == 0 and len(events(st, EV_BRIDGE)) == 1
    # "a normal Stream or Gully hex": both stream ends are depressions now (5.6), none was before
    assert st.depr_now[south] and st.depr_now[north] and not t.depression[south] and not t.depression[north]
    assert invariant(t, st) == 0


def test_pb2_17_2_2_a_failure_puts_the_engineer_back_on_the_bridge_and_the_next_try_is_minus_1(pb):
    t = pb.tables
    st, eng, k, south, north = ready(pb)
    roll = blow(pb, st, eng, False)
    assert roll[8] > t.demo_roll_max and not st.br_out[k]
    if st.work[eng] == W_DEMOLISH:                       # it could go back: No Move again
        assert st.hex[eng] == south and st.work_stage[eng] == DECLARED and st.work_tries[eng] == 1
        assert st.spent[eng]
    # the further attempt: a natural 9 destroys the bridge (9 - 1 <= 8), a 10 does not
    for first, want in ((0, True), (0, False), (3000, True)):
        st, eng, k, south, north = ready(pb, seed=500)
        st.work_tries[eng] = 1
        e = blow(pb, st, eng, want, first)
        assert (e[8] + t.demo_retry_drm <= t.demo_roll_max) == want
    assert t.demo_retry_drm == -1


def test_pb2_17_2_3_a_disrupted_engineer_halts_and_is_not_asked_to_roll(pb):
    t = pb.tables
    st, eng, k, south, north = ready(pb)
    st.disrupted[eng] = True
    st.active[eng] = True
    n_dec = int(st.n_dec[0])
    assert not game.demolition_step(t, st, eng) and st.n_dec[0] == n_dec      # not asked
    st.turn[0] = 5
    engineers.pre_operations(t, st)
    assert st.work_stage[eng] == DECLARED and int(events(st, EV_WORK)[-1, 7]) == HALTED
    st.disrupted[eng] = False                            # recovered: restarted (turn 2, then ready)
    for turn in (6, 7):
        st.spent[eng] = False
        st.turn[0] = turn
        engineers.pre_operations(t, st)
    assert st.work_stage[eng] == READY and st.work[eng] == W_DEMOLISH


def test_pb2_17_2_1_3_los_overlay_equals_a_full_recompute_with_the_bridge_a_stream_hex(pb):
    """For each bridge alone, and all of them out at once (the live path), every pair of the
    play area touching an end or between two depressions: bridges.los_now == the whole LoS table
    recomputed with the destroyed ends as depressions; the rest are unchanged by construction
    (a recompute shows it: no other pair differs)."""
    t = pb.tables
    play = np.flatnonzero(t.play)
    cases = [[k] for k in range(t.n_bridges)] + [list(range(t.n_bridges))]
    changed = 0
    for blown in cases:
        st = state(pb)
        for k in blown:
            bridges.destroy(t, st, k, int(t.br_hex[k, 0]))
        full = los_table_with(t, blown_depression(t, blown))
        assert (st.depr_now == blown_depression(t, blown)).all()
        ends = {int(h) for k in blown for h in t.br_hex[k]}
        diff = np.argwhere(full != t.los)
        assert all(a in ends or b in ends or (st.depr_now[a] and st.depr_now[b]) for a, b in diff)
        changed += len(diff)
        pairs = [(a, b) for a in ends if t.play[a] for b in play]
        dep = [h for h in play if st.depr_now[h]]
        pairs += [(a, b) for a in dep for b in dep]
        for a, b in pairs:
            assert bridges.los_now(t, st, a, b) == bool(full[a, b]), (blown, a, b)
    assert changed > 0                                   # the overlay is not the static table


def test_pb2_17_2_1_3_movement_across_a_destroyed_bridge_takes_the_deep_stream_cost(pb):
    t = pb.tables
    k, south, north = bridge(pb)
    inf = units_of(pb, "de-ss-panzergrenadier-platoon")[0]
    tank = units_of(pb, "pzkw-iv-h")[0]
    d = int(t.br_dir[k, 0 if t.br_hex[k, 0] == south else 1])
    assert t.neighbours[south, d] == north
    st = state(pb)
    assert movement.enter_cost_now(t, st, inf, south, d, north, True) == 1        # the road rate (14.7.1)
    assert movement.enter_cost_now(t, st, tank, south, d, north, True) == 1
    bridges.destroy(t, st, k, south)
    # 17.2.1.3, 14.7.5 (PB2-OQ-96 "mapped"): the Odon's deep stream: foot units only, all MP
    assert t.br_alt_cost[k, LEG] == ALL_MA and t.br_alt_cost[k, TRACKED] == PROHIBITED
    assert movement.enter_cost_now(t, st, inf, south, d, north, True) == ALL_MA
    assert movement.enter_cost_now(t, st, tank, south, d, north, True) == PROHIBITED
    for u, expect in ((inf, True), (tank, False)):
        st.hex[u] = south
        nl = movement.reachable(t, st, u, south, 0, t.t_ma[t.u_type[u]], True)
        reached = {int(st.order[i]) for i in range(nl)}
        # the foot unit only by its whole MA (4.1.7 minimum move); the tank never, nor round about
        assert (north in reached) == expect
        if expect:
            assert st.reach[north] == t.t_ma[t.u_type[u]]
        st.hex[u] = -1


def test_pb2_14_7_5_a_destroyed_bridge_hex_has_the_stream_tem(pb):
    t = pb.tables
    k, south, north = bridge(pb)
    inf = units_of(pb, "de-ss-panzergrenadier-platoon")[0]
    st = state(pb)
    st.hex[inf] = north
    before = tem_for(t, st, inf)
    bridges.destroy(t, st, k, south)
    assert tem_for(t, st, inf) == before + 1                 # 14.6.5: +1 in a stream hex
    assert bridges.tem_if(t, st, north, True) == t.tem_if_soft[north] + 1


def test_pb2_oq_96_97_readings_a_plain_stream_and_the_marker_as_a_block(tmp_path):
    p = variant(tmp_path, {"readings.blown_bridge_water": "stream", "readings.destroyed_bridge_marker": "block"})
    t = p.tables
    k, south, north = bridge(p)
    assert t.br_alt_cost[k, TRACKED] == ALL_MA           # a stream hexside: all MP, vehicles too
    st = state(p)
    bridges.destroy(t, st, k, south)
    assert st.block[south] and not st.block[north]


def test_pb2_17_2_invariant_names_an_inconsistent_destroyed_bridge(pb):
    t = pb.tables
    k, south, north = bridge(pb)
    st = state(pb)
    bridges.destroy(t, st, k, south)
    assert invariant(t, st) == 0
    st.depr_now[south] = False
    assert invariant(t, st) == BRIDGE_STATE
    st.depr_now[south] = True
    st.n_br_out[0] = 0
    assert invariant(t, st) == BRIDGE_STATE


def test_pb2_17_2_whole_games_with_demolitions_and_no_violations(pb):
    blown = {"random": 0, "heuristic": 0}
    for seed in range(40):
        for pol in (["random"], None):
            g = play_one(pb, seed, RULESET.players.parse(pol, pb.sides), debug=True)
            assert violation(g) is None, (seed, pol, violation(g))
            ev = g.state.ev[:g.state.n_ev[0]]
            blown["random" if pol else "heuristic"] += int((ev[:, 2] == EV_BRIDGE).sum())
    assert blown["random"] > 0 and blown["heuristic"] > 0, blown
