"""PanzerBlitz movement (PB-MOVE, PB-TEC, PB-ROAD) on hand-made boards and on the real ones.

The hand-made positions run down column A of a small board (rows 1..10): hex (0, r) is
"9A{r+1}", and the hexside between rows r and r+1 is the S side of row r.
"""

from __future__ import annotations

import numpy as np
import pytest

from simulator.rulesets.panzerblitz.movement import (
    compile_movement,
    next_reached,
    path_to,
    reachable,
    reached_words,
)
from simulator.situation import load_situation
from tests.conftest import make_map


def setup(ruleset, features=None, sides=None, levels=None):
    features = features or {}
    levels = levels or {}
    hexes = {k: (levels.get(k, 0), v) for k, v in features.items()}
    for k in levels:
        hexes.setdefault(k, (levels[k], set()))
    m = make_map(ruleset, hexes=hexes, sides=sides or {})
    return m, compile_movement(ruleset.data, m, "terrain.toml")


def run(m, mt, start, mf, mclass, *, assaulting=False, enemy=(), stop=(), block=(), occupied=(), negated=()):
    n = m.n_hexes
    flags = {}
    for name, labels in (("enemy", enemy), ("stop", stop), ("block", block), ("occupied", occupied), ("negated", negated)):
        arr = np.zeros(n, dtype=np.bool_)
        arr[[m.lookup(x) for x in labels]] = True
        flags[name] = arr
    cost = np.empty(n, dtype=np.int32)
    prev = np.empty(n, dtype=np.int32)
    side_cost = (mt.assault_cost if assaulting else mt.side_cost)[mt.class_index(mclass)]
    reachable(m.lookup(start), int(mf * 2), side_cost, mt.road_side, not assaulting, mt.road_cost,
              mt.swamp_stack_cost, m.neighbours.astype(np.int64), ~flags["negated"], ~flags["occupied"],
              np.zeros(n, dtype=np.bool_), flags["enemy"], flags["stop"] | flags["block"], flags["block"], cost, prev)
    return {m.labels[i]: cost[i] / 2 for i in range(n) if cost[i] >= 0}, prev


def column_road(rows=range(10)):
    """A road straight down column A."""
    feats = {(0, r): {"road"} for r in rows}
    sides = {(0, r): {"S": {"road"}} for r in list(rows)[:-1]}
    return feats, sides


def test_pb_tec_2_clear_costs_one_and_trucks_two(pb_ruleset):
    m, mt = setup(pb_ruleset)
    tank, _ = run(m, mt, "9A1", 4, "vehicle")
    truck, _ = run(m, mt, "9A1", 4, "truck")
    assert tank["9A5"] == 4 and "9A6" not in tank
    assert truck["9A3"] == 4 and "9A4" not in truck


def test_pb_road_1_half_cost_along_the_road(pb_ruleset):
    feats, sides = column_road()
    m, mt = setup(pb_ruleset, feats, sides)
    reach, prev = run(m, mt, "9A1", 4, "truck")
    assert reach["9A9"] == 4
    assert [m.labels[h] for h in path_to(prev, m.lookup("9A9"))] == [f"9A{r}" for r in range(1, 10)]


def test_pb_road_2_entering_a_road_hex_off_the_road_costs_the_other_terrain(pb_ruleset):
    feats, sides = column_road()
    m, mt = setup(pb_ruleset, feats, sides)
    reach, _ = run(m, mt, "9B2", 2, "vehicle")  # B2 is beside the road
    assert reach["9A2"] == 1


def test_pb_road_5_6_no_road_rate_through_an_occupied_road_hex(pb_ruleset):
    feats, sides = column_road()
    m, mt = setup(pb_ruleset, feats, sides)
    reach, _ = run(m, mt, "9A1", 2, "vehicle", occupied=["9A3"])
    # A1 -> A2 road (1/2), A2 -> A3 occupied: clear cost 1, A3 -> A4: passing, clear cost 1.
    assert reach["9A3"] == 1.5
    assert "9A4" not in reach or reach["9A4"] == 2.5 - 0.5  # never at the road rate


def test_pb_road_7_start_of_turn_exemption(pb_ruleset):
    feats, sides = column_road()
    m, mt = setup(pb_ruleset, feats, sides)
    # The unit's own starting hex holds other units: it still leaves along the road at 1/2.
    reach, _ = run(m, mt, "9A1", 1, "vehicle", occupied=["9A1"])
    assert reach["9A3"] == 1


def test_pb_road_11_wreck_or_block_negates_the_road(pb_ruleset):
    feats, sides = column_road()
    m, mt = setup(pb_ruleset, feats, sides)
    reach, _ = run(m, mt, "9A1", 2, "vehicle", negated=["9A2"])
    assert reach["9A2"] == 1


def test_pb_tec_5_green_hexsides_close_to_vehicles_not_to_infantry_or_cavalry(pb_ruleset):
    sides = {(0, 1): {"S": {"green"}}}
    feats = {(0, 2): {"woods"}, (0, 1): {"woods"}}
    m, mt = setup(pb_ruleset, feats, sides)
    for mclass, crosses in (("vehicle", False), ("truck", False), ("wagon", False), ("leg", True), ("cavalry", True)):
        reach, _ = run(m, mt, "9A2", 1, mclass)
        assert ("9A3" in reach) == crosses, mclass


def test_pb_tec_5_green_hexside_open_along_a_road(pb_ruleset):
    feats, sides = column_road()
    sides[(0, 1)] = {"S": {"road", "green"}}
    m, mt = setup(pb_ruleset, feats, sides)
    reach, _ = run(m, mt, "9A2", 1, "vehicle")
    assert reach["9A3"] == 0.5


def test_pb_tec_6_swamp_closed_to_vehicles_except_along_a_road(pb_ruleset):
    m, mt = setup(pb_ruleset, {(0, 2): {"swamp"}})
    assert "9A3" not in run(m, mt, "9A2", 6, "vehicle")[0]
    assert "9A3" not in run(m, mt, "9A2", 6, "cavalry")[0]
    assert run(m, mt, "9A2", 1, "leg")[0]["9A3"] == 1
    feats, sides = column_road()
    feats[(0, 2)] = {"road", "swamp"}
    m, mt = setup(pb_ruleset, feats, sides)
    assert run(m, mt, "9A2", 1, "vehicle")[0]["9A3"] == 0.5


def test_pb_tec_7_slopes(pb_ruleset):
    m, mt = setup(pb_ruleset, {(0, 1): {"slope"}}, levels={(0, 1): 1})
    assert run(m, mt, "9A1", 4, "truck")[0]["9A2"] == 4
    assert run(m, mt, "9A1", 3, "vehicle")[0]["9A2"] == 3
    assert run(m, mt, "9A1", 3, "wagon")[0]["9A2"] == 3       # OQ-6: wagons pay vehicle costs
    assert run(m, mt, "9A1", 1, "leg")[0]["9A2"] == 1          # OQ-19


def test_pb_tec_12_several_features_cost_the_highest(pb_ruleset):
    m, mt = setup(pb_ruleset, {(0, 1): {"slope", "woods"}}, levels={(0, 1): 1})
    assert run(m, mt, "9A1", 4, "truck")[0]["9A2"] == 4
    assert run(m, mt, "9A1", 4, "vehicle")[0]["9A2"] == 3


def test_pb_tec_4_town_half_cost_and_one_when_assaulting(pb_ruleset):
    m, mt = setup(pb_ruleset, {(0, 1): {"town"}, (0, 2): {"town", "woods"}})
    assert run(m, mt, "9A1", 1, "truck")[0]["9A3"] == 1
    assert run(m, mt, "9A1", 2, "vehicle", assaulting=True)[0]["9A3"] == 2


def test_pb_tec_9_leaving_a_gully_costs_extra(pb_ruleset):
    feats = {(0, 1): {"gully"}, (0, 2): {"gully"}, (0, 3): {"ford"}}
    sides = {(0, 1): {"S": {"stream"}}, (0, 2): {"S": {"ford"}}}
    m, mt = setup(pb_ruleset, feats, sides)
    # Out of the side of the gully (B2 is beside A2): 1 + 3 for a tank, 2 + 5 for a truck, 1 on foot.
    assert run(m, mt, "9A2", 4, "vehicle")[0]["9B2"] == 4
    assert run(m, mt, "9A2", 7, "truck")[0]["9B2"] == 7
    assert run(m, mt, "9A2", 1, "leg")[0]["9B2"] == 1
    # Along the gully and into the ford of the same gully: no surcharge (QA/Movement).
    assert run(m, mt, "9A2", 2, "vehicle")[0]["9A4"] == 2
    # Leaving the ford never costs extra (PB-TEC-10).
    assert run(m, mt, "9A4", 1, "vehicle")[0]["9A5"] == 1


def test_pb_map_6_gully_hexes_not_connected_pay_the_surcharge(pb_ruleset):
    feats = {(0, 1): {"gully"}, (0, 2): {"gully"}}
    m, mt = setup(pb_ruleset, feats)  # no stream hexside between them
    assert run(m, mt, "9A2", 4, "vehicle")[0]["9A3"] == 4


def test_pb_tec_11_pond_hexsides_are_closed(pb_ruleset):
    m, mt = setup(pb_ruleset, sides={(0, 1): {"S": {"pond"}}})
    assert run(m, mt, "9A2", 1, "leg")[0].get("9A3") is None
    assert run(m, mt, "9A2", 3, "leg")[0]["9A3"] == 2  # around it, by B3


def test_pb_move_4_one_hex_minimum(pb_ruleset):
    m, mt = setup(pb_ruleset, {(0, 1): {"slope"}}, levels={(0, 1): 1})
    reach, _ = run(m, mt, "9A1", 2, "truck")  # a slope costs a truck 4
    assert reach["9A2"] == 2
    m, mt = setup(pb_ruleset, {(0, 1): {"swamp"}})
    assert "9A2" not in run(m, mt, "9A1", 2, "truck")[0]  # never into forbidden terrain


def test_pb_move_6_no_entering_enemy_hexes(pb_ruleset):
    m, mt = setup(pb_ruleset)
    reach, _ = run(m, mt, "9A1", 3, "leg", enemy=["9A2"])
    assert "9A2" not in reach
    assert reach["9A3"] == 3  # around it: no zones of control (PB-MOVE-7)


def test_pb_mine_3_a_unit_entering_a_minefield_stops(pb_ruleset):
    m, mt = setup(pb_ruleset)
    reach, _ = run(m, mt, "9A1", 6, "vehicle", stop=["9A2"])
    assert reach["9A2"] == 1
    assert reach["9A3"] == 3  # only around the minefield


def test_pb_block_2_enter_only_from_adjacent_at_the_start(pb_ruleset):
    m, mt = setup(pb_ruleset)
    assert run(m, mt, "9A2", 3, "leg", block=["9A3"])[0]["9A3"] == 1
    far, _ = run(m, mt, "9A1", 3, "leg", block=["9A3"])
    assert "9A3" not in far


def test_pb_map_1_vehicles_leave_the_1bb10_swamp_by_the_road():
    sit = load_situation("pb-01")
    m = sit.map
    mt = compile_movement(sit.ruleset.data, m, "terrain.toml")
    reach, prev = run(m, mt, "1BB10", 1, "vehicle")
    assert "1BB11" not in reach
    assert [m.labels[h] for h in path_to(prev, m.lookup("1AA10"))] == ["1BB10", "1AA9", "1AA10"]
    assert reach["1AA9"] == 0.5
    reach, _ = run(m, mt, "1BB10", 1, "leg")
    assert "1AA10" in reach


def test_pb_map_3_partial_road_2g10():
    sit = load_situation("pb-01")
    m = sit.map
    mt = compile_movement(sit.ruleset.data, m, "terrain.toml")
    reach, _ = run(m, mt, "2G9", 1, "vehicle")
    assert reach["2G10"] == 0.5          # along the road from 2G9
    reach, _ = run(m, mt, "2F10", 2, "leg")
    assert reach["2G10"] == 1            # from elsewhere (here the gully 2F10): its clear cost


@pytest.mark.parametrize("sid", ["pb-01", "pb-04", "pb-10"])
def test_costs_are_never_below_the_road_rate_and_paths_are_legal(sid):
    sit = load_situation(sid)
    m = sit.map
    mt = compile_movement(sit.ruleset.data, m, "terrain.toml")
    rng = np.random.default_rng(5)
    for start in rng.integers(0, m.n_hexes, 25):
        for mclass in mt.classes:
            reach, prev = run(m, mt, m.labels[start], 6, mclass)
            for label, c in reach.items():
                h = m.lookup(label)
                path = path_to(prev, h)
                assert path[0] == start
                assert c <= 6 and (c >= 0.5 * (len(path) - 1) or len(path) == 2)


@pytest.mark.parametrize("sid", ["pb-01", "pb-04", "pb-10"])
def test_pb_ovr_3_least_assault_step_bounds_every_overrun_step(sid):
    """The bound that lets a mover skip the overrun search (movement_phase._enemy_in_overrun_reach)
    is no more than any step an overrun's approach may take, and is reached by one."""
    sit = load_situation(sid)
    mt = compile_movement(sit.ruleset.data, sit.map, "terrain.toml")
    for c in range(len(mt.classes)):
        steps = mt.assault_cost[c][mt.assault_cost[c] >= 0]
        if steps.size:
            assert mt.least_assault_step[c] <= steps.min()
        allowed = mt.enter_cost[:, c][mt.enter_cost[:, c] >= 0]
        assert mt.least_assault_step[c] in set(allowed.tolist()) | {mt.town_cost_assaulting}


@pytest.mark.parametrize("sid", ["pb-04", "pb-06", "pb-12"])
def test_pb_ovr_3_the_overrun_gate_never_hides_an_overrun(sid):
    """movement_phase._enemy_in_overrun_reach says no only where the overrun search would find
    no overrun, on or off the map (PB-OVR-3, PB-OVR-10): the positions of real games, every
    vehicle of the side, every budget up to its MF.  And it says no more often than the bound it
    replaced (an enemy within budget // least + 1 hexes)."""
    from simulator.rulesets.panzerblitz.batch import prepare
    from simulator.rulesets.panzerblitz.game import FORT
    from simulator.rulesets.panzerblitz.move_view import view_loads
    from simulator.rulesets.panzerblitz.movement_phase import _enemy_in_overrun_reach
    from simulator.rulesets.panzerblitz.overrun import edge_overrun_options, overrun_options
    from simulator.rulesets.panzerblitz.presence import occupancy
    from simulator.rulesets.panzerblitz.replay import play
    from simulator.rulesets.panzerblitz.state import ON_MAP, VIEW_SIDE

    t = prepare(load_situation(sid))
    ut, mt, mv = t.unit_t, t.map_t, t.move_t
    n_hex = t.situation.map.n_hexes
    cost, prev = np.empty(n_hex, dtype=np.int32), np.empty(n_hex, dtype=np.int32)
    entry, target, exit_ = (np.empty(6 * n_hex, dtype=np.int64) for _ in range(3))
    said_no = found = tighter = 0
    for seed in range(2):
        st = play(t, seed, ("heuristic", "heuristic")).state
        snap_hex, snap_status = st.snap_hex.copy(), st.snap_status.copy()
        for turn in range(1, snap_hex.shape[0], 2):
            st.hex[:], st.status[:] = snap_hex[turn], snap_status[turn]
            st.carried_by[:], st.carrying[:], st.overrun_hex[:] = -1, -1, False
            occ = occupancy(st, ut, n_hex)
            for side in (0, 1):
                st.clock[VIEW_SIDE] = 0  # no view open: built afresh for this position
                load = view_loads(st, ut, mt, side, occ)
                enemy_hexes = st.hex[(st.side != side) & (st.status == ON_MAP)]
                enemy_hexes = enemy_hexes[occ[enemy_hexes, 1 - side] > 0]
                for u in np.flatnonzero((st.side == side) & (st.status == ON_MAP) & ut.can_overrun[st.utype]):
                    mclass, start = ut.mclass[st.utype[u]], int(st.hex[u])
                    for budget in range(0, int(ut.movement[st.utype[u]]) + 1):
                        gate = _enemy_in_overrun_reach(st, mt, mv, occ, side, mclass, start, budget)
                        n = overrun_options(st, ut, mt, mv, t.combat_t, t.stack_limit, side, u, start, budget, occ,
                                            cost, prev, FORT, entry, target, exit_, load)
                        n = edge_overrun_options(st, ut, mt, mv, t.combat_t, t.stack_limit, side, u, start, budget,
                                                 occ, cost, FORT, entry, target, exit_, n, load)
                        assert gate or n == 0, (seed, turn, side, u, budget)
                        said_no += not gate
                        found += n > 0
                        least = mv.least_assault_step[mclass]
                        old = bool((mt.dist[start, enemy_hexes] <= budget // least + 1).any())
                        assert old or not gate
                        tighter += old and not gate
    assert said_no > 0 and found > 0 and tighter > 0


def test_pb_map_2_vehicles_leave_the_1dd9_swamp_at_1ff8():
    sit = load_situation("pb-01")
    m = sit.map
    mt = compile_movement(sit.ruleset.data, m, "terrain.toml")
    reach, _ = run(m, mt, "1DD9", 6, "vehicle")
    assert "1DD8" not in {k for k, v in reach.items() if v <= 3}  # not directly
    reach, _ = run(m, mt, "1EE8", 3, "vehicle")
    assert "1DD8" not in reach and "1EE7" not in reach
    assert reach["1FF8"] == 0.5


def _plain_search(start, mf_half, side_cost, road_side, road_rate, road_cost, swamp_stack_cost, neighbours,
                  road_usable, road_clear, swamp_stack, enemy, stop_here, block):
    """The least costs by a textbook Dijkstra (heapq), the same rules as `reachable`'s docstring."""
    import heapq

    best = {start: 0}
    todo = [(0, start)]
    while todo:
        c, h = heapq.heappop(todo)
        if best[h] != c or (h != start and (stop_here[h] or swamp_stack[h])):
            continue
        for d in range(6):
            nb = int(neighbours[h, d])
            if nb < 0 or enemy[nb] or (block[nb] and h != start):
                continue
            step = int(side_cost[h, d])
            if road_rate and road_side[h, d] and road_usable[h] and road_usable[nb] and (road_clear[h] or h == start):
                step = road_cost if road_clear[nb] else (swamp_stack_cost if swamp_stack[nb] else step)
            if step < 0:
                continue
            nc = c + step
            if nc > mf_half:
                if h == start and mf_half >= 2 and nb not in best:
                    best[nb] = mf_half  # PB-MOVE-4
                    heapq.heappush(todo, (mf_half, nb))
                continue
            if nc < best.get(nb, 1 << 30):
                best[nb] = nc
                heapq.heappush(todo, (nc, nb))
    return best


@pytest.mark.parametrize("sid", ["pb-04", "pb-10"])
def test_reachable_gives_the_least_costs_of_a_plain_search(sid):
    """PB-MOVE-4/6, PB-ROAD-5/11, PB-BLOCK-2, PB-MINE-3: `reachable` (Dial's buckets, the start
    hex looked out from on its own) against a plain Dijkstra, on the real boards with random
    enemy, block, minefield, occupied and negated-road hexes."""
    sit = load_situation(sid)
    m = sit.map
    mt = compile_movement(sit.ruleset.data, m, "terrain.toml")
    n = m.n_hexes
    nbh = m.neighbours.astype(np.int64)
    rng = np.random.default_rng(11)
    for trial in range(40):
        mclass = mt.classes[trial % len(mt.classes)]
        side_cost = mt.side_cost[mt.class_index(mclass)] if trial % 3 else mt.assault_cost[mt.class_index(mclass)]
        road_rate = trial % 3 != 0
        enemy, block, mine, occupied, negated, swamp = (rng.random(n) < p for p in (0.03, 0.01, 0.01, 0.05, 0.02, 0.01))
        start = int(rng.integers(0, n))
        enemy[start] = False
        mf_half = int(rng.choice([2, 6, 12, 24, 60, 100]))
        args = (start, mf_half, side_cost, mt.road_side, road_rate, mt.road_cost, mt.swamp_stack_cost, nbh,
                ~negated, ~occupied, swamp, enemy, mine | block, block)
        cost = np.empty(n, dtype=np.int32)
        prev = np.empty(n, dtype=np.int32)
        words = reached_words(n)
        words[:] = np.uint64(0xA5A5A5A5A5A5A5A5)  # the search clears what the last one left
        reached = reachable(*args, cost, prev, words)
        want = _plain_search(*args)
        got = {h: int(cost[h]) for h in range(n) if cost[h] >= 0}
        assert got == want and reached == len(want)
        # The hexes reached as bits, walked in hex order (movement_phase.move_unit's options).
        walked, h = [], next_reached(words, -1)
        while h >= 0:
            walked.append(int(h))
            h = next_reached(words, h)
        assert walked == sorted(got)
        for h in got:
            if h != start:
                assert got[int(prev[h])] < got[h] or got[h] == mf_half  # a least-cost tree


def test_reachable_widens_a_full_bucket():
    """`reachable`'s buckets take as many hexes as a cost has: on a made-up graph where every
    hex leads to five new ones at 1/2 MF a step (a tree: 6, 30 then 150 hexes at 1/2, 1, 3/2 MF),
    the last bucket takes 150 hexes (more than the 64 of a bucket before it widened, round 8;
    lists since round 9), and the costs and paths are still whole."""
    kids = [[]]
    level = [0]
    for width in (6, 5, 5):
        nxt = []
        for h in level:
            for _ in range(width):
                kids.append([])
                kids[h].append(len(kids) - 1)
                nxt.append(len(kids) - 1)
        level = nxt
    n = len(kids)
    nbh = np.full((n, 6), -1, dtype=np.int64)
    for h, ks in enumerate(kids):
        nbh[h, :len(ks)] = ks
    side_cost = np.where(nbh >= 0, 1, -1).astype(np.int16)
    none = np.zeros(n, dtype=np.bool_)
    args = (0, 4, side_cost, np.zeros((n, 6), dtype=np.bool_), True, 1, 2, nbh, ~none, ~none, none, none, none, none)
    cost = np.empty(n, dtype=np.int32)
    prev = np.empty(n, dtype=np.int32)
    assert reachable(*args, cost, prev) == n == 187
    assert int(np.bincount(cost).max()) == 150
    assert {h: int(cost[h]) for h in range(n)} == _plain_search(*args)
    for h in range(1, n):
        assert h in kids[prev[h]]


def test_next_reached_walks_the_bits_across_words():
    words = reached_words(128)
    assert next_reached(words, -1) == -1  # nothing reached
    for h in (0, 63, 64, 127):
        words[h >> 6] |= np.uint64(1) << np.uint64(h & 63)
    walked, h = [], next_reached(words, -1)
    while h >= 0:
        walked.append(int(h))
        h = next_reached(words, h)
    assert walked == [0, 63, 64, 127]
    assert next_reached(words, 0) == 63 and next_reached(words, 127) == -1
