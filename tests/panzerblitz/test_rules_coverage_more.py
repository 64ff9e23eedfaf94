"""Rules that were implemented but had no test of their own (issue 3), one rule ID per test.

Hand-made positions as in tests/panzerblitz/test_rules.py; each test checks the rule's effect (a cost, a
legal or illegal action, a factor, a result), so it fails if the engine breaks the rule.
"""

from __future__ import annotations

import numpy as np
import pytest

from simulator.rulesets.panzerblitz.close_assault import may_assault, resolve_assault
from simulator.rulesets.panzerblitz.combat import DISPERSED, WEAPON_CLASSES
from simulator.rulesets.panzerblitz.combat import ELIMINATED as RES_X
from simulator.rulesets.panzerblitz.events import (
    EV_ASSAULT,
    EV_ASSAULTER,
    EV_ATTACK,
    EV_ENTER,
    EV_EXIT,
    EV_FIRER,
    EV_HIT,
    EV_LOAD,
    EV_MINE,
    EV_MINE_REMOVAL,
    EV_MOVE,
    EV_OVERRUN,
    EV_OVERRUNNER,
    EV_RECOVER,
    EV_TURN,
    EV_UNLOAD,
)
from simulator.rulesets.panzerblitz.fire import (
    defender_stack,
    fire_options,
    firer_af,
    may_fire,
    resolve_fire,
)
from simulator.rulesets.panzerblitz.game import FORT, _setup_ok, fire_phase
from simulator.rulesets.panzerblitz.losses import apply_to_stack
from simulator.rulesets.panzerblitz.mines import mine_removal_targets, minefield_attacks
from simulator.rulesets.panzerblitz.move_view import reach_of
from simulator.rulesets.panzerblitz.movement import path_to, step_cost
from simulator.rulesets.panzerblitz.movement_phase import move_unit
from simulator.rulesets.panzerblitz.overrun import (
    overrun_target_ok,
    resolve_overrun,
    single_overrun,
)
from simulator.rulesets.panzerblitz.players.random_play import HOLD_FIRE, STAY_PUT
from simulator.rulesets.panzerblitz.presence import (
    fits,
    move_flags,
    occupancy,
    side_load,
    stack_loads,
)
from simulator.rulesets.panzerblitz.recovery import recover
from simulator.rulesets.panzerblitz.replay import play
from simulator.rulesets.panzerblitz.spotting import spotted_hexes
from simulator.rulesets.panzerblitz.state import ELIMINATED, N_EVENTS, ON_MAP, WAITING, new_state
from simulator.rulesets.panzerblitz.tables import build_tables
from simulator.rulesets.panzerblitz.transport import passenger_here
from simulator.situation import load_situation
from tests.panzerblitz.pb_players import pb_players, seed_game
from tests.panzerblitz.test_movement import column_road, run, setup
from tests.panzerblitz.test_rules import (
    GERMAN,
    RUSSIAN,
    hexn,
    placed_state,
    random_players,
    unit_of,
)
from tests.panzerblitz.test_rules import position as build_position

# ------------------------------------------------------------------ helpers

_TABLES: dict = {}


def position(tmp_path, units, layout='[["3"]]'):
    """tests/panzerblitz/test_rules.py's position, with the tables of each position built once per module
    (the tests build the same position many times over, with different dice)."""
    key = (tuple(units), layout)
    if key not in _TABLES:
        _TABLES[key] = build_position(tmp_path, units, layout)[0]
    t = _TABLES[key]
    return t, placed_state(t)



def players(hold=0.0, stay=0.0):
    """Two random players that never hold fire (hold=0) and never stay put (stay=0)."""
    policy, params = random_players()
    params = params.copy()
    params[:, HOLD_FIRE] = hold
    params[:, STAY_PUT] = stay
    return policy, params


def units_named(t, st, name):
    return [int(u) for u in np.flatnonzero(st.utype == t.units.index(name))]


def events(st, kind=None):
    rows = st.log[: st.clock[N_EVENTS]]
    return rows if kind is None else rows[rows[:, 2] == kind]


def reach(t, st, u, budget=None):
    """Least cost (half MF, -1 unreachable) of every hex for unit u from where it stands."""
    n_hex = t.situation.map.n_hexes
    occ = occupancy(st, t.unit_t, n_hex)
    cost = np.empty(n_hex, dtype=np.int32)
    prev = np.empty(n_hex, dtype=np.int32)
    mf = int(t.unit_t.movement[st.utype[u]]) if budget is None else budget
    reach_of(st, t.unit_t, t.map_t, t.move_t, int(st.side[u]), u, int(st.hex[u]), mf, occ, cost, prev)
    return cost, prev


class Move:
    """One call of the game's move_unit, with the option buffers kept for inspection (the call
    ends the unit's move: it sets st.moved)."""

    SENTINEL = -999_999

    def __init__(self, t, st, u, seed, hold=0.0, stay=0.0):
        n_hex = t.situation.map.n_hexes
        occ = occupancy(st, t.unit_t, n_hex)
        self.options = np.full(2 * n_hex + 2, self.SENTINEL, dtype=np.int64)
        self.ov_target = np.full(6 * n_hex, self.SENTINEL, dtype=np.int64)
        self.ov_entry = ov_entry = np.full(6 * n_hex, self.SENTINEL, dtype=np.int64)
        self.ov_exit = ov_exit = np.full(6 * n_hex, self.SENTINEL, dtype=np.int64)
        bufs = [np.empty(n_hex, dtype=np.int32) for _ in range(4)]
        policy, params = players(hold, stay)
        seed_game(seed)
        move_unit(st, t.unit_t, t.map_t, t.move_t, t.combat_t, t.stack_limit, int(st.side[u]), u,
                  pb_players(t, st, policy, params), occ, bufs[0], bufs[1], self.options, bufs[2], bufs[3], ov_entry,
                  self.ov_target, ov_exit)

    def destinations(self):
        return {int(h) for h in self.options if h != self.SENTINEL and h >= 0}

    def overrun_offered(self):
        return bool((self.ov_target != self.SENTINEL).any())

    def overrun_paths(self):
        n = int((self.ov_target != self.SENTINEL).sum())
        return [(int(self.ov_entry[k]), int(self.ov_target[k]), int(self.ov_exit[k])) for k in range(n)]


def neighbours(t, label):
    m = t.situation.map
    return [m.labels[x] for x in m.neighbours[m.lookup(label)] if x >= 0]


def can_fire_at(t, st, u, side, target_label):
    n_hex = t.situation.map.n_hexes
    occ = occupancy(st, t.unit_t, n_hex)
    oh, oa = np.empty(n_hex, dtype=np.int64), np.empty(n_hex, dtype=np.int64)
    spotted = spotted_hexes(st, t.unit_t, t.map_t, t.combat_t, side)
    n = fire_options(st, t.unit_t, t.map_t, t.combat_t, side, spotted, occ, u, oh, oa, np.full(n_hex, -1))
    return hexn(t, target_label) in set(oh[:n].tolist())


@pytest.fixture(scope="module")
def pb01():
    return build_tables(load_situation("pb-01"))


# ------------------------------------------------------------------ blocks (PB-BLOCK)


def test_pb_block_1_placed_anywhere_but_a_fort_one_per_hex_never_removed(tmp_path):
    t, st = position(tmp_path, [("german", "block", "1M5"), ("german", "fort-40", "1M7"), ("german", "block", "1M3"),
                                ("russian", "rifle-company-43", "1M5"), ("german", "engineer-platoon-german", "1M4")],
                     layout='[["1"]]')
    new = units_named(t, st, "block")[1]
    st.status[new], st.hex[new] = WAITING, -1
    st.block[hexn(t, "1M3")] = False
    ok = {h: _setup_ok(st, t.unit_t, t.map_t, t.move_t, t.stack_limit, new, hexn(t, h), GERMAN)
          for h in ("1F10", "1M5", "1M7", "1M3")}
    assert ok == {"1F10": True, "1M5": False, "1M7": False, "1M3": True}  # swamp yes; not twice; not in a fort
    # Never removed or destroyed: not by the fire that eliminates the units with it, not by engineers.
    h = hexn(t, "1M5")
    apply_to_stack(st, t.unit_t, h, RUSSIAN, RES_X)
    assert st.status[unit_of(t, st, "rifle-company-43")] == ELIMINATED
    assert st.block[h] and st.status[units_named(t, st, "block")[0]] == ON_MAP
    eng = unit_of(t, st, "engineer-platoon-german")
    assert mine_removal_targets(st, t.unit_t, t.map_t, GERMAN, eng, np.empty(6, dtype=np.int64)) == 0


def test_pb_block_3_blocks_neither_hinder_fire_nor_change_the_battle(tmp_path):
    rows = []
    for blocks in ([], [("german", "block", "3M6"), ("russian", "block", "3M8")]):
        t, st = position(tmp_path, [("german", "panther-g", "3M4"), ("russian", "t-34-c", "3M8")] + blocks)
        panther = unit_of(t, st, "panther-g")
        assert can_fire_at(t, st, panther, GERMAN, "3M8")
        assert defender_stack(st, t.unit_t, t.map_t, hexn(t, "3M8"), RUSSIAN)[:3] == (9, 1, 1)
        spotted = spotted_hexes(st, t.unit_t, t.map_t, t.combat_t, GERMAN)
        seed_game(7)
        resolve_fire(st, t.unit_t, t.map_t, t.combat_t, GERMAN, hexn(t, "3M8"), np.array([panther]), 1, spotted)
        rows.append(events(st, EV_ATTACK)[0, 3:].tolist())  # hex, AF, DF, column, roll, modifier, result
    assert rows[0] == rows[1]


def test_pb_block_4_blocks_count_against_stacking(tmp_path):
    for with_block in (False, True):
        units = [("russian", "rifle-company-43", "3M6"), ("russian", "rifle-company-43", "3M4"),
                 ("german", "rifle-platoon-german-42", "3K6"), ("german", "rifle-platoon-german-42", "3K6"),
                 ("german", "rifle-platoon-german-42", "3K4")]
        if with_block:
            units += [("german", "block", "3M6"), ("russian", "block", "3K6")]
        t, st = position(tmp_path, units)
        r2 = units_named(t, st, "rifle-company-43")[1]
        g3 = units_named(t, st, "rifle-platoon-german-42")[2]
        # A block belongs to nobody: it fills a place in either side's stack.
        assert fits(st, t.unit_t, t.stack_limit, hexn(t, "3M6"), RUSSIAN, r2) == (not with_block)
        assert fits(st, t.unit_t, t.stack_limit, hexn(t, "3K6"), GERMAN, g3) == (not with_block)
        load = stack_loads(st, t.unit_t, t.situation.map.n_hexes)
        assert load[hexn(t, "3M6"), RUSSIAN] == 1 + with_block


def _road_run(t, swamp=False):
    """Road hexes (a, b, c), b joined to a and c by road hexsides; all clear terrain, or b a
    swamp road hex (then c may be None)."""
    m = t.situation.map
    road = m.side_bit("road")
    has = {f: m.has_feature(f) for f in m.hex_vocab if f != "road"}

    def plain(h):
        return not any(v[h] for v in has.values())

    for b in range(m.n_hexes):
        if not (has["swamp"][b] if swamp else plain(b)):
            continue
        ends = [int(m.neighbours[b, d]) for d in range(6)
                if m.neighbours[b, d] >= 0 and m.side_features[b, d] & road and plain(m.neighbours[b, d])]
        if len(ends) >= (1 if swamp else 2):
            return m.labels[ends[0]], m.labels[b], (m.labels[ends[1]] if len(ends) > 1 else None)
    raise AssertionError("no such road on this board")


def test_pb_block_5_a_block_cancels_the_road_and_closes_a_swamp_road(tmp_path):
    t0, _ = position(tmp_path, [("russian", "t-34-c", "3A1")])
    a, b, c = _road_run(t0)
    costs = []
    for blocked in (False, True):
        units = [("russian", "t-34-c", a)] + ([("german", "block", b)] if blocked else [])
        t, st = position(tmp_path, units)
        cost, _ = reach(t, st, unit_of(t, st, "t-34-c"), budget=4)
        costs.append((cost[hexn(t, b)], cost[hexn(t, c)]))
    assert costs[0][0] == 1                         # along the road at 1/2 MF
    assert costs[1][0] == 2 and costs[1][1] not in (1, 2)  # the block's hex at clear cost; it stops there
    # On a swamp road the block closes the hex to vehicles (swamps are open to them only by road).
    t0, _ = position(tmp_path, [("russian", "t-34-c", "1A1"), ("german", "truck-german", "1A10")], layout='[["1"]]')
    a, b, c = _road_run(t0, swamp=True)
    for blocked, enters in ((False, True), (True, False)):
        units = [("russian", "t-34-c", a), ("german", "truck-german", "1A10")] + ([("german", "block", b)] if blocked else [])
        t, st = position(tmp_path, units, layout='[["1"]]')
        cost, _ = reach(t, st, unit_of(t, st, "t-34-c"))
        assert (cost[hexn(t, b)] >= 0) == enters, blocked
    # A vehicle leaving a block/road hex may not cross a green hexside, even along the road.
    feats, sides = column_road()
    sides[(0, 2)] = {"S": {"road", "green"}}
    m, mt = setup(load_situation("pb-01").ruleset, feats, sides)
    assert run(m, mt, "9A3", 1, "vehicle")[0]["9A4"] == 0.5
    assert "9A4" not in run(m, mt, "9A3", 1, "vehicle", negated=["9A3"], block=["9A3"])[0]  # around costs 2


def test_pb_block_6_and_pb_fort_16_a_destroyed_fort_leaves_a_block(tmp_path):
    """PB-BLOCK-6 and PB-FORT-16: the block that replaces the fort acts as any block."""
    t, st = position(tmp_path, [("german", "rifle-platoon-german-42", "3M6"), ("german", "fort-40", "3M6"),
                                ("russian", "t-34-c", "3M3"), ("russian", "rifle-company-43", "3M5"),
                                ("german", "panther-g", "3A10")])
    h = hexn(t, "3M6")
    apply_to_stack(st, t.unit_t, h, GERMAN, RES_X)
    assert st.block[h] and st.status[unit_of(t, st, "fort-40")] == ELIMINATED
    # It counts against stacking (PB-BLOCK-4) ...
    assert side_load(st, t.unit_t, h, RUSSIAN) == 1 and side_load(st, t.unit_t, h, GERMAN) == 1
    assert stack_loads(st, t.unit_t, t.situation.map.n_hexes)[h].tolist() == [1, 1]
    # ... is entered only from an adjacent hex, and stops the unit (PB-BLOCK-2), ...
    tank, rifle = unit_of(t, st, "t-34-c"), unit_of(t, st, "rifle-company-43")
    assert reach(t, st, tank)[0][h] < 0
    assert reach(t, st, rifle, budget=8)[0][h] == 2
    # ... and no overrun of units on it (PB-OVR-2).
    st.hex[rifle] = h
    occ = occupancy(st, t.unit_t, t.situation.map.n_hexes)
    assert not overrun_target_ok(st, t.unit_t, t.map_t, t.combat_t, GERMAN, unit_of(t, st, "panther-g"), h, occ, FORT)


# ------------------------------------------------------------------ fortifications (PB-FORT)


def test_pb_fort_4_units_fire_out_of_a_fort_at_their_normal_af(tmp_path):
    afs = []
    for fort in (False, True):
        units = [("german", "rifle-platoon-german-42", "3M4"), ("russian", "rifle-company-43", "3M6")]
        t, st = position(tmp_path, units + ([("german", "fort-40", "3M4")] if fort else []))
        rifle = unit_of(t, st, "rifle-platoon-german-42")
        assert may_fire(st, t.unit_t, rifle, GERMAN) and can_fire_at(t, st, rifle, GERMAN, "3M6")
        afs.append(firer_af(st, t.unit_t, t.map_t, t.combat_t, rifle, hexn(t, "3M6"), 0))
    assert afs[0] == afs[1] > 0


def test_pb_fort_6_a_fort_has_no_attack_and_does_not_block_fire(tmp_path):
    for fort in (None, "german", "russian"):
        units = [("german", "panther-g", "3M4"), ("russian", "t-34-c", "3M8")]
        t, st = position(tmp_path, units + ([(fort, "fort-40", "3M6")] if fort else []))
        # The panther fires past (across) the fort hex as if it were not there.
        assert can_fire_at(t, st, unit_of(t, st, "panther-g"), GERMAN, "3M8")
        if fort:
            f = unit_of(t, st, "fort-40")
            assert not may_fire(st, t.unit_t, f, st.side[f]) and t.unit_t.attack[st.utype[f]] == 0
    # An empty fort is no target and fires at nothing: fire_phase gives it no attack.
    t, st = position(tmp_path, [("german", "fort-40", "3M5"), ("russian", "t-34-c", "3M6")])
    seed_game(0)
    fire_phase(st, t.unit_t, t.map_t, t.combat_t, GERMAN, pb_players(t, st, *players()))
    assert len(events(st, EV_FIRER)) == 0


def test_pb_fort_7_any_type_of_unit_may_occupy_a_fort_within_the_limit(tmp_path):
    t, st = position(tmp_path, [("german", "panther-g", "3M6"), ("german", "truck-german", "3M6"),
                                ("german", "fort-40", "3M6"), ("german", "rifle-platoon-german-42", "3M4"),
                                ("german", "81mm-mortar", "3M2"), ("russian", "t-34-c", "3A1")])
    h = hexn(t, "3M6")
    rifle, mortar = unit_of(t, st, "rifle-platoon-german-42"), unit_of(t, st, "81mm-mortar")
    assert fits(st, t.unit_t, t.stack_limit, h, GERMAN, rifle)  # the fort itself takes no place
    st.hex[rifle] = h
    assert not fits(st, t.unit_t, t.stack_limit, h, GERMAN, mortar)  # three is the German limit
    # Tank, truck and infantry alike are inside: the hex defends with the fort's DF, as armor.
    assert defender_stack(st, t.unit_t, t.map_t, h, GERMAN)[:2] == (40, 1)


def test_pb_fort_15_no_overrun_of_a_fort(tmp_path):
    for fort, allowed in ((False, True), (True, False)):
        units = [("german", "panther-g", "3M4"), ("russian", "rifle-company-43", "3M6")]
        t, st = position(tmp_path, units + ([("russian", "fort-40", "3M6")] if fort else []))
        occ = occupancy(st, t.unit_t, t.situation.map.n_hexes)
        ok = overrun_target_ok(st, t.unit_t, t.map_t, t.combat_t, GERMAN, 0, hexn(t, "3M6"), occ, FORT)
        assert ok == allowed
        assert (Move(t, st, unit_of(t, st, "panther-g"), 0, stay=1.0).overrun_offered()) == allowed


def test_pb_fort_17_a_fort_on_a_road_does_not_cancel_it(tmp_path):
    t0, _ = position(tmp_path, [("russian", "t-34-c", "3A1")])
    a, b, c = _road_run(t0)
    got = {}
    for counter in (None, "fort-40", "block"):
        units = [("russian", "t-34-c", a)] + ([("russian", counter, b)] if counter else [])
        t, st = position(tmp_path, units)
        cost, _ = reach(t, st, unit_of(t, st, "t-34-c"), budget=4)
        got[counter] = (int(cost[hexn(t, b)]), int(cost[hexn(t, c)]))
    assert got[None] == got["fort-40"] == (1, 2)  # 1/2 MF a hex along the road, fort or not
    assert got["block"][0] == 2                   # whereas a block cancels the road (PB-BLOCK-5)


# ------------------------------------------------------------------ minefields (PB-MINE)


def test_pb_mine_1_placement_swamps_yes_pond_forts_and_doubles_no(tmp_path):
    t, st = position(tmp_path, [("german", "minefield", "1M5"), ("german", "fort-40", "1M7"),
                                ("german", "minefield", "1M3"), ("russian", "rifle-company-43", "1A1")],
                     layout='[["1"]]')
    new = units_named(t, st, "minefield")[1]
    st.status[new], st.hex[new] = WAITING, -1
    st.mine[hexn(t, "1M3")] = False
    ok = {h: _setup_ok(st, t.unit_t, t.map_t, t.move_t, t.stack_limit, new, hexn(t, h), GERMAN)
          for h in ("1F10", "1M5", "1M7", "1M3")}
    assert ok == {"1F10": True, "1M5": False, "1M7": False, "1M3": True}
    t, st = position(tmp_path, [("german", "minefield", "3M3"), ("russian", "rifle-company-43", "3A1")])
    mine = unit_of(t, st, "minefield")
    st.status[mine], st.hex[mine] = WAITING, -1
    st.mine[hexn(t, "3M3")] = False
    assert not _setup_ok(st, t.unit_t, t.map_t, t.move_t, t.stack_limit, mine, hexn(t, "3W4"), GERMAN)  # the pond
    assert _setup_ok(st, t.unit_t, t.map_t, t.move_t, t.stack_limit, mine, hexn(t, "3M4"), GERMAN)


def _mined_rifle(tmp_path, want):
    """A Russian rifle company on a German minefield after the German S1 roll gave `want`
    (0 = came through, 1 = dispersed)."""
    for s in range(60):
        t, st = position(tmp_path, [("russian", "rifle-company-43", "3M6"), ("german", "minefield", "3M6"),
                                    ("german", "panther-g", "3A10")])
        seed_game(s)
        minefield_attacks(st, t.unit_t, t.map_t, t.combat_t, GERMAN)
        if events(st, EV_MINE)[0, 7] == want:
            return t, st, unit_of(t, st, "rifle-company-43")
    raise AssertionError("no such roll")


def test_pb_mine_7_a_unit_dispersed_on_a_minefield_is_pinned_and_attacked_again(tmp_path):
    t, st, rifle = _mined_rifle(tmp_path, want=1)
    assert st.dispersed[rifle]
    start = st.hex[rifle]
    m = Move(t, st, rifle, 3)  # its own turn: it may not move off
    assert st.hex[rifle] == start and not m.destinations()
    recover(st, RUSSIAN)
    assert not st.dispersed[rifle]
    seed_game(1)
    minefield_attacks(st, t.unit_t, t.map_t, t.combat_t, GERMAN)  # the enemy's next S1
    assert [int(r[3]) for r in events(st, EV_MINE)] == [rifle, rifle]
    # One that came through and is later dispersed by fire is not attacked again.
    t, st, rifle = _mined_rifle(tmp_path, want=0)
    apply_to_stack(st, t.unit_t, hexn(t, "3M6"), RUSSIAN, DISPERSED)
    recover(st, RUSSIAN)
    minefield_attacks(st, t.unit_t, t.map_t, t.combat_t, GERMAN)
    assert len(events(st, EV_MINE)) == 1


def test_pb_disp_5_minefield_dispersal_pins_the_unit(tmp_path):
    t, st, rifle = _mined_rifle(tmp_path, want=1)
    start = int(st.hex[rifle])
    for seed in range(5):
        Move(t, st, rifle, seed)
        assert st.hex[rifle] == start and len(events(st, EV_MOVE)) == 0
    # Whereas the one that came through may walk off.
    t, st, rifle = _mined_rifle(tmp_path, want=0)
    assert Move(t, st, rifle, 0).destinations() - {int(st.hex[rifle])}


def test_pb_mine_8_a_minefield_is_never_used_up(tmp_path):
    for s in range(60):
        t, st = position(tmp_path, [("russian", "t-34-c", "3M6"), ("german", "minefield", "3M6"),
                                    ("russian", "rifle-company-43", "3M5")])
        seed_game(s)
        minefield_attacks(st, t.unit_t, t.map_t, t.combat_t, GERMAN)
        if st.status[unit_of(t, st, "t-34-c")] == ELIMINATED:
            break
    else:
        raise AssertionError("the minefield never eliminated the tank")
    h = hexn(t, "3M6")
    assert st.mine[h] and st.status[unit_of(t, st, "minefield")] == ON_MAP
    # Fire on the hex does not clear it either; the next unit in is attacked like the first.
    rifle = unit_of(t, st, "rifle-company-43")
    st.hex[rifle] = h
    apply_to_stack(st, t.unit_t, h, RUSSIAN, DISPERSED)
    assert st.mine[h]
    recover(st, RUSSIAN)
    minefield_attacks(st, t.unit_t, t.map_t, t.combat_t, GERMAN)
    assert int(events(st, EV_MINE)[-1, 3]) == rifle


def test_pb_mine_10_units_on_a_minefield_may_be_assaulted_not_overrun(tmp_path):
    for mined in (False, True):
        units = [("german", "panther-g", "3M3"), ("german", "rifle-platoon-german-42", "3L6"),
                 ("german", "rifle-platoon-german-42", "3L6"), ("german", "rifle-platoon-german-42", "3L6"),
                 ("russian", "truck-russian", "3M6")]
        t, st = position(tmp_path, units + ([("russian", "minefield", "3M6")] if mined else []))
        h = hexn(t, "3M6")
        occ = occupancy(st, t.unit_t, t.situation.map.n_hexes)
        panther = unit_of(t, st, "panther-g")
        assert overrun_target_ok(st, t.unit_t, t.map_t, t.combat_t, GERMAN, panther, h, occ, FORT) == (not mined)
        rifles = np.array(units_named(t, st, "rifle-platoon-german-42"))
        assert all(may_assault(st, t.unit_t, r, GERMAN) for r in rifles)
        seed_game(0)
        assert resolve_assault(st, t.unit_t, t.map_t, t.combat_t, GERMAN, rifles, 3, h) >= 0
        assert len(events(st, EV_ASSAULT)) == 1


# ------------------------------------------------------------------ sequence of play and attacks


RANK = {EV_MINE: 1, EV_MINE_REMOVAL: 2, EV_FIRER: 2, EV_ATTACK: 2, EV_ENTER: 3, EV_MOVE: 3, EV_LOAD: 3,
        EV_UNLOAD: 3, EV_OVERRUNNER: 3, EV_OVERRUN: 3, EV_EXIT: 3, EV_ASSAULTER: 4, EV_ASSAULT: 4,
        EV_RECOVER: 5}  # S1, S2/S3, S4/S5 movement, close assaults, S6 recovery


@pytest.fixture(scope="module")
def played(pb01):
    """Random games of Situation 1, cut into player-turns (lists of event rows): as many games
    as it takes (at most 20) for every step of the turn to have happened somewhere."""
    turns, seen = [], set()
    for seed in range(20):
        ev = play(pb01, seed).events
        start = np.flatnonzero(ev[:, 2] == EV_TURN)
        for a, b in zip(start, list(start[1:]) + [len(ev)], strict=True):
            turns.append(ev[a + 1:b])
        seen |= {RANK[int(k)] for k in ev[:, 2] if int(k) in RANK}
        seen |= {"overrun" for k in ev[:, 2] if k == EV_OVERRUN}
        if seen >= {1, 2, 3, 4, 5, "overrun"}:
            break
    return turns


def test_pb_seq_2_steps_of_a_player_turn_in_order(played):
    """S1 minefields, S2/S3 fire, S4/S5 movement, close assaults, S6 recovery (S1a, voluntary
    destruction, is not offered to the players: docs/rulings.md)."""
    seen = set()
    for rows in played:
        ranks = [RANK[int(r[2])] for r in rows if int(r[2]) in RANK]
        assert ranks == sorted(ranks)
        seen |= set(ranks)
    assert seen == {1, 2, 3, 4, 5}  # every step happened somewhere in these games


def test_pb_cbt_2_each_kind_of_attack_in_its_own_step(played):
    kinds = {EV_MINE: 1, EV_ATTACK: 2, EV_OVERRUN: 3, EV_ASSAULT: 4}
    seen = set()
    for rows in played:
        seq = [kinds[int(r[2])] for r in rows if int(r[2]) in kinds]
        assert seq == sorted(seq)  # minefields (S1), fire (S3), overruns (S4), close assaults (S5)
        seen |= set(seq)
    assert seen == {1, 2, 3, 4}
    # Normal fire happens only in S3: a unit that moved this turn has not fired.
    for rows in played:
        movers = {int(r[3]) for r in rows if int(r[2]) == EV_MOVE}
        firers = {int(r[3]) for r in rows if int(r[2]) == EV_FIRER}
        assert not movers & firers


def test_pb_cat_2_close_assaults_come_after_all_movement(played):
    n = 0
    for rows in played:
        kinds = [int(r[2]) for r in rows]
        if EV_ASSAULT in kinds:
            n += 1
            first = kinds.index(EV_ASSAULTER)
            assert not {EV_MOVE, EV_ENTER, EV_OVERRUN, EV_FIRER} & set(kinds[first:])
    assert n > 0


def test_pb_cbt_12_at_most_one_attack_of_each_kind_per_player_turn(tmp_path):
    t, st = position(tmp_path, [("german", "panther-g", "3M4"), ("german", "pzkw-iv-h", "3K6"),
                                ("russian", "rifle-company-43", "3M6")] + [("german", "rifle-platoon-german-42", "3L7")] * 3)
    h = hexn(t, "3M6")
    ru = unit_of(t, st, "rifle-company-43")

    def survive():  # keep the defender standing: only the per-turn limits are looked at here
        st.status[ru], st.hex[ru], st.dispersed[ru] = ON_MAP, h, False

    # One normal attack on the hex, however many units fire at it (S3).
    seed_game(0)
    fire_phase(st, t.unit_t, t.map_t, t.combat_t, GERMAN, pb_players(t, st, *players()))
    assert len(events(st, EV_FIRER)) == 5 and sum(1 for r in events(st, EV_ATTACK) if r[3] == h) == 1
    survive()
    st.fired[:] = False
    # Plus one overrun (S4): the first one bars a second in the same player-turn.
    occ = occupancy(st, t.unit_t, t.situation.map.n_hexes)
    panther, pz = unit_of(t, st, "panther-g"), unit_of(t, st, "pzkw-iv-h")
    assert overrun_target_ok(st, t.unit_t, t.map_t, t.combat_t, GERMAN, panther, h, occ, FORT)
    assert resolve_overrun(st, t.unit_t, t.map_t, t.combat_t, GERMAN, np.array([panther]), 1, h) >= 0
    survive()
    assert not overrun_target_ok(st, t.unit_t, t.map_t, t.combat_t, GERMAN, pz, h, occ, FORT)
    # Plus one close assault (S5), and only one.
    rifles = np.array(units_named(t, st, "rifle-platoon-german-42"))
    assert resolve_assault(st, t.unit_t, t.map_t, t.combat_t, GERMAN, rifles, 3, h) >= 0
    survive()
    st.assaulted[:] = False
    assert resolve_assault(st, t.unit_t, t.map_t, t.combat_t, GERMAN, rifles, 3, h) == -1
    # At the next player-turn the hex may be overrun and assaulted again.
    recover(st, GERMAN)
    assert overrun_target_ok(st, t.unit_t, t.map_t, t.combat_t, GERMAN, pz, h, occ, FORT)
    assert resolve_assault(st, t.unit_t, t.map_t, t.combat_t, GERMAN, rifles, 3, h) >= 0
    # A unit on a minefield takes the minefield's attack instead of an overrun.
    t, st = position(tmp_path, [("german", "panther-g", "3M4"), ("russian", "rifle-company-43", "3M6"),
                                ("german", "minefield", "3M6")])
    occ = occupancy(st, t.unit_t, t.situation.map.n_hexes)
    assert not overrun_target_ok(st, t.unit_t, t.map_t, t.combat_t, GERMAN, 0, h, occ, FORT)
    minefield_attacks(st, t.unit_t, t.map_t, t.combat_t, GERMAN)
    assert len(events(st, EV_MINE)) == 1


def test_pb_stk_2_one_technique_per_stack_per_turn(tmp_path):
    techniques = set()
    for seed in range(12):
        t, st = position(tmp_path, [("german", "panther-g", "3M3"), ("german", "pzkw-iv-h", "3K5"),
                                    ("russian", "rifle-company-43", "3M6"), ("russian", "smg-company-43", "3M6")])
        seed_game(seed)
        fire_phase(st, t.unit_t, t.map_t, t.combat_t, GERMAN, pb_players(t, st, *players()))
        attacks = events(st, EV_ATTACK)
        assert len(attacks) == 1  # one procedure against the stack, whatever the technique
        df = int(attacks[0, 5])
        rifle, smg = unit_of(t, st, "rifle-company-43"), unit_of(t, st, "smg-company-43")
        hit = {int(r[3]) for r in events(st, EV_HIT)}
        if df == 16 + 12:
            techniques.add("combination")
        else:
            techniques.add("selective")
            assert df in (16, 12)
            spared = smg if df == 16 else rifle
            assert spared not in hit and not st.dispersed[spared] and st.status[spared] == ON_MAP
        assert len(events(st, EV_FIRER)) == 2  # both tanks took part in that one attack
    assert techniques == {"combination", "selective"}


def test_pb_spot_4_firing_from_woods_does_not_reveal_the_firer(tmp_path):
    t0, _ = position(tmp_path, [("russian", "rifle-company-43", "3A1")])
    mt, m = t0.map_t, t0.situation.map
    woods = m.has_feature("woods") & ~m.has_feature("gully")
    open_ground = ~mt.concealing & (mt.level == 0) & ~t0.move_t.depressed
    w, f = next((w, f) for w in np.flatnonzero(woods) for f in np.flatnonzero(open_ground)
                if 2 <= mt.dist[w, f] <= 4 and mt.los[w, f])
    spotter = next(x for x in m.neighbours[w] if x >= 0 and mt.dist[x, f] > 1 and not m.has_feature("swamp")[x])
    t, st = position(tmp_path, [("russian", "rifle-company-43", m.labels[w]),
                                ("german", "rifle-platoon-german-42", m.labels[f]),
                                ("german", "rifle-platoon-german-42", "3A10")])
    ru = unit_of(t, st, "rifle-company-43")
    ge = units_named(t, st, "rifle-platoon-german-42")
    # The Russian fires from the woods at the German in the open ...
    spotted = spotted_hexes(st, t.unit_t, t.map_t, t.combat_t, RUSSIAN)
    seed_game(5)
    assert resolve_fire(st, t.unit_t, t.map_t, t.combat_t, RUSSIAN, f, np.array([ru]), 1, spotted) >= 0
    recover(st, RUSSIAN)
    # Whatever the result, put the German target back: only whether he may fire back matters.
    st.status[ge[0]], st.hex[ge[0]], st.dispersed[ge[0]] = ON_MAP, f, False
    # ... and in the German turn is still hidden: no fire back without a spotter.
    assert not can_fire_at(t, st, ge[0], GERMAN, m.labels[w])
    st.hex[ge[1]] = spotter  # a German unit adjacent to the woods at the start of the turn
    assert can_fire_at(t, st, ge[0], GERMAN, m.labels[w])


def test_pb_cat_5_any_target_in_any_terrain_one_combined_df(tmp_path):
    t0, _ = position(tmp_path, [("russian", "rifle-company-43", "1F10"), ("german", "truck-german", "1A10")],
                     layout='[["1"]]')
    near = [x for x in neighbours(t0, "1F10") if not t0.situation.map.has_feature("swamp")[hexn(t0, x)]][:2]
    units = [("russian", "rifle-company-43", "1F10"), ("russian", "command-post", "1F10")]
    units += [("german", "rifle-platoon-german-42", x) for x in near for _ in range(3)]
    t, st = position(tmp_path, units, layout='[["1"]]')
    h = hexn(t, "1F10")
    rifles = np.array(units_named(t, st, "rifle-platoon-german-42"))
    seed_game(2)
    result = resolve_assault(st, t.unit_t, t.map_t, t.combat_t, GERMAN, rifles, 6, h)
    assert result >= 0  # a swamp hex may be assaulted
    ev = events(st, EV_ASSAULT)[0]
    assert (ev[4], ev[5]) == (6 * 3, 16 + 1)  # every unit in the hex adds its DF
    hit = {int(r[3]) for r in events(st, EV_HIT)}
    if result:
        assert {unit_of(t, st, "rifle-company-43"), unit_of(t, st, "command-post")} <= hit
    assert resolve_assault(st, t.unit_t, t.map_t, t.combat_t, GERMAN, rifles, 6, h) == -1  # one CAT a turn
    # Armor too, and a passenger adds nothing but shares the carrier's fate.
    for seed in range(30):
        t, st = position(tmp_path, [("russian", "t-34-c", "3M6"), ("russian", "rifle-company-43", "3M6")]
                         + [("german", "rifle-platoon-german-42", x) for x in ("3L6", "3L7") for _ in range(3)])
        tank, rider = unit_of(t, st, "t-34-c"), unit_of(t, st, "rifle-company-43")
        st.carrying[tank], st.carried_by[rider] = rider, tank
        seed_game(seed)
        result = resolve_assault(st, t.unit_t, t.map_t, t.combat_t, GERMAN,
                                 np.array(units_named(t, st, "rifle-platoon-german-42")), 6, hexn(t, "3M6"))
        assert events(st, EV_ASSAULT)[0, 5] == 9
        if result == RES_X:
            assert st.status[rider] == ELIMINATED == st.status[tank]
            break
    else:
        raise AssertionError("no elimination in 30 assaults at 2-1")


# ------------------------------------------------------------------ overrun (PB-OVR)


def test_pb_ovr_7_a_unit_that_fired_may_not_overrun_and_overruns_once(tmp_path):
    for fired in (False, True):
        t, st = position(tmp_path, [("german", "panther-g", "3M4"), ("russian", "rifle-company-43", "3M6")])
        panther = unit_of(t, st, "panther-g")
        st.fired[panther] = fired
        assert Move(t, st, panther, 0, stay=1.0).overrun_offered() == (not fired)
    # After its overrun the unit takes part in nothing else this turn: no second move or overrun.
    t, st = position(tmp_path, [("german", "panther-g", "3M4"), ("russian", "rifle-company-43", "3M6")])
    panther = unit_of(t, st, "panther-g")
    entry, target, exit_hex = Move(t, st, panther, 0, stay=1.0).overrun_paths()[0]
    occ = occupancy(st, t.unit_t, t.situation.map.n_hexes)
    seed_game(4)
    single_overrun(st, t.unit_t, t.map_t, t.combat_t, GERMAN, panther, hexn(t, "3M4"), entry, target, exit_hex, occ)
    rifle = unit_of(t, st, "rifle-company-43")
    st.status[rifle], st.hex[rifle] = ON_MAP, target  # whatever the result, a target is still there
    after = Move(t, st, panther, 1)
    assert not after.overrun_offered() and not after.destinations()
    assert st.assaulted[panther] and st.moved[panther]


def test_pb_ovr_8_overrunners_end_in_the_exit_hex_whatever_the_result(tmp_path):
    results = set()
    for seed in range(25):
        t, st = position(tmp_path, [("german", "panther-g", "3M4"), ("russian", "rifle-company-43", "3M6")])
        panther = unit_of(t, st, "panther-g")
        paths = Move(t, st, panther, 0, stay=1.0).overrun_paths()
        entry, target, exit_hex = paths[seed % len(paths)]
        occ = occupancy(st, t.unit_t, t.situation.map.n_hexes)
        seed_game(seed)
        single_overrun(st, t.unit_t, t.map_t, t.combat_t, GERMAN, panther, hexn(t, "3M4"), entry, target, exit_hex, occ)
        results.add(int(events(st, EV_OVERRUN)[0, 9]))
        assert st.hex[panther] == exit_hex
    assert len(results) >= 2  # different results, the same end hex
    # The exit hex must have room at the end of the move: a full German stack there closes that path.
    t, st = position(tmp_path, [("german", "panther-g", "3M4"), ("russian", "rifle-company-43", "3M6")]
                     + [("german", "rifle-platoon-german-42", "3M7")] * 3)
    exits = {x for _, _, x in Move(t, st, unit_of(t, st, "panther-g"), 0, stay=1.0).overrun_paths()}
    assert exits and hexn(t, "3M7") not in exits


# ------------------------------------------------------------------ transport (PB-TRANS) and cavalry (PB-CAV)


def _loads(units, carrier, rider_state=None, carrier_state=None, seeds=8, tmp_path=None):
    """How many of `seeds` moves of `carrier` load something; the riders' and carrier's flags set first."""
    n = 0
    for seed in range(seeds):
        t, st = position(tmp_path, units)
        c = unit_of(t, st, carrier)
        for u in range(len(st.utype)):
            if u != c and rider_state:
                getattr(st, rider_state)[u] = True
        if carrier_state:
            getattr(st, carrier_state)[c] = True
        Move(t, st, c, seed, stay=1.0)
        n += len(events(st, EV_LOAD))
    return n


def test_pb_trans_2_only_non_vehicular_units_are_carried(tmp_path):
    for rider, carried in (("76_2mm-at", True), ("command-post", True), ("rifle-company-43", True),
                           ("t-34-c", False), ("cavalry-russian-43", False), ("m-2", False)):
        t, st = position(tmp_path, [("russian", "truck-russian", "3M6"), ("russian", rider, "3M6")])
        truck = unit_of(t, st, "truck-russian")
        p = passenger_here(st, t.unit_t, truck, hexn(t, "3M6"), RUSSIAN)
        assert (p >= 0) == carried, rider
    assert _loads([("russian", "truck-russian", "3M6"), ("russian", "76_2mm-at", "3M6")], "truck-russian",
                  tmp_path=tmp_path) > 0
    assert _loads([("russian", "truck-russian", "3M6"), ("russian", "t-34-c", "3M6")], "truck-russian",
                  tmp_path=tmp_path) == 0


def test_pb_trans_4_passengers_do_not_fire_and_do_not_move_when_unloaded(tmp_path):
    t, st = position(tmp_path, [("russian", "truck-russian", "3M6"), ("russian", "rifle-company-43", "3M6"),
                                ("german", "rifle-platoon-german-42", "3M8")])
    truck, rifle = unit_of(t, st, "truck-russian"), unit_of(t, st, "rifle-company-43")
    assert may_fire(st, t.unit_t, rifle, RUSSIAN)
    st.carrying[truck], st.carried_by[rifle] = rifle, truck
    assert not may_fire(st, t.unit_t, rifle, RUSSIAN)  # not while aboard
    # A unit that fired this turn is not loaded.
    units = [("russian", "truck-russian", "3M6"), ("russian", "rifle-company-43", "3M6")]
    assert _loads(units, "truck-russian", tmp_path=tmp_path) > 0
    assert _loads(units, "truck-russian", rider_state="fired", tmp_path=tmp_path) == 0
    # Set down this turn, it may not move on its own.
    for seed in range(20):
        t, st = position(tmp_path, units)
        truck, rifle = unit_of(t, st, "truck-russian"), unit_of(t, st, "rifle-company-43")
        st.carrying[truck], st.carried_by[rifle] = rifle, truck
        Move(t, st, truck, seed, stay=1.0)
        if len(events(st, EV_UNLOAD)):
            break
    else:
        raise AssertionError("never unloaded")
    assert st.carried_by[rifle] < 0 and st.hex[rifle] == hexn(t, "3M6")
    m = Move(t, st, rifle, 0)
    assert st.hex[rifle] == hexn(t, "3M6") and not m.destinations()


def test_pb_trans_5_dispersed_units_neither_load_nor_unload(tmp_path):
    units = [("russian", "truck-russian", "3M6"), ("russian", "rifle-company-43", "3M6")]
    assert _loads(units, "truck-russian", tmp_path=tmp_path) > 0
    assert _loads(units, "truck-russian", rider_state="dispersed", tmp_path=tmp_path) == 0
    assert _loads(units, "truck-russian", carrier_state="dispersed", tmp_path=tmp_path) == 0
    unloads = {}
    for dispersed in (False, True):
        unloads[dispersed] = 0
        for seed in range(8):
            t, st = position(tmp_path, units)
            truck, rifle = unit_of(t, st, "truck-russian"), unit_of(t, st, "rifle-company-43")
            st.carrying[truck], st.carried_by[rifle] = rifle, truck
            st.dispersed[truck] = st.dispersed[rifle] = dispersed
            Move(t, st, truck, seed, stay=1.0)
            unloads[dispersed] += len(events(st, EV_UNLOAD))
    assert unloads[False] > 0 and unloads[True] == 0


def test_pb_cav_3_cavalry_never_overruns_assaults_after_one_hex_at_most(tmp_path):
    for unit, offered in (("t-34-c", True), ("cavalry-russian-43", False)):
        t, st = position(tmp_path, [("russian", unit, "3M4"), ("german", "truck-german", "3M6")])
        assert Move(t, st, unit_of(t, st, unit), 0, stay=1.0).overrun_offered() == offered, unit
    # It may close-assault, even units in a swamp.
    t0, _ = position(tmp_path, [("german", "rifle-platoon-german-42", "1F10"), ("russian", "truck-russian", "1A10")],
                     layout='[["1"]]')
    x = next(x for x in neighbours(t0, "1F10") if not t0.situation.map.has_feature("swamp")[hexn(t0, x)])
    t, st = position(tmp_path, [("german", "rifle-platoon-german-42", "1F10"), ("russian", "cavalry-russian-43", x)],
                     layout='[["1"]]')
    cav = unit_of(t, st, "cavalry-russian-43")
    assert may_assault(st, t.unit_t, cav, RUSSIAN)
    seed_game(0)
    assert resolve_assault(st, t.unit_t, t.map_t, t.combat_t, RUSSIAN, np.array([cav]), 1, hexn(t, "1F10")) >= 0
    # After a move of two hexes or more it may not.
    for seed in range(20):
        t, st = position(tmp_path, [("russian", "cavalry-russian-43", "3M4"), ("german", "truck-german", "3A10")])
        cav = unit_of(t, st, "cavalry-russian-43")
        Move(t, st, cav, seed)
        moved = int(t.map_t.dist[hexn(t, "3M4"), st.hex[cav]])
        if moved >= 2:
            assert not may_assault(st, t.unit_t, cav, RUSSIAN)
            break
    else:
        raise AssertionError("the cavalry never moved two hexes")


def test_pb_cav_4_cavalry_neither_carried_nor_carrier(tmp_path):
    assert _loads([("russian", "truck-russian", "3M6"), ("russian", "cavalry-russian-43", "3M6")], "truck-russian",
                  tmp_path=tmp_path) == 0
    assert _loads([("russian", "cavalry-russian-43", "3M6"), ("russian", "rifle-company-43", "3M6")],
                  "cavalry-russian-43", tmp_path=tmp_path) == 0
    assert _loads([("russian", "m-2", "3M6"), ("russian", "rifle-company-43", "3M6")], "m-2", tmp_path=tmp_path) > 0


# ------------------------------------------------------------------ movement and stacking


def _step(t, st, u, a, b, start):
    mv, mt = t.move_t, t.map_t
    occ = occupancy(st, t.unit_t, t.situation.map.n_hexes)
    _, road_usable, road_clear, _ = move_flags(st, t.unit_t, mt, int(st.side[u]), u, occ)
    d = list(mt.neighbours[a]).index(b)
    return step_cost(mv.road_side[a, d], road_usable[a], road_usable[b], road_clear[a] or a == start, road_clear[b],
                     False, mv.road_cost, mv.swamp_stack_cost, mv.side_cost[t.unit_t.mclass[st.utype[u]], a, d])


def test_pb_move_3_each_hex_costs_its_terrain_within_the_mf(tmp_path):
    clear = {"t-34-c": 2, "truck-russian": 4, "rifle-company-43": 2}  # half MF per clear hex (PB-TEC-2)
    for name, per_hex in clear.items():
        t, st = position(tmp_path, [("russian", name, "3M4")])
        u = unit_of(t, st, name)
        mf = int(t.unit_t.movement[st.utype[u]])
        start = hexn(t, "3M4")
        cost, prev = reach(t, st, u)
        assert cost[hexn(t, "3M3")] == min(per_hex, mf)
        reached = np.flatnonzero(cost >= 0)
        assert cost[reached].max() <= mf  # never more than the MF
        for h in reached[:: max(1, len(reached) // 60)]:
            path = path_to(prev, int(h))
            if len(path) == 2 and cost[h] == mf:
                continue  # the one-hex minimum (PB-MOVE-4)
            # The cost of a hex is the sum of what each hex entered on the way costs.
            assert sum(_step(t, st, u, a, b, start) for a, b in zip(path, path[1:], strict=False)) == cost[h], name
    # Each unit pays for its own class: a truck goes half as far as a tank in the open.
    t, st = position(tmp_path, [("russian", "t-34-c", "3D4"), ("russian", "truck-russian", "3D4")])
    tank = reach(t, st, unit_of(t, st, "t-34-c"), budget=8)[0]
    truck = reach(t, st, unit_of(t, st, "truck-russian"), budget=8)[0]
    assert tank[hexn(t, "3H4")] == 8 and truck[hexn(t, "3F4")] == 8 and truck[hexn(t, "3H4")] < 0


def test_pb_move_5_units_move_through_friendly_units(tmp_path):
    costs = {}
    for side, infantry in (("russian", "rifle-company-43"), ("german", "rifle-platoon-german-42")):
        t, st = position(tmp_path, [("russian", "t-34-c", "3M4"), (side, infantry, "3M6"), (side, infantry, "3M6")])
        costs[side] = int(reach(t, st, unit_of(t, st, "t-34-c"), budget=8)[0][hexn(t, "3M8")])
    assert costs["russian"] == 8  # straight through the full friendly hex, 1 MF a hex
    assert costs["german"] == -1  # never through the enemy: around costs more than 4 MF


def test_pb_stack_4_stacking_checked_at_the_end_of_each_move_not_on_the_way(tmp_path):
    t, st = position(tmp_path, [("russian", "t-34-c", "3M4"), ("russian", "rifle-company-43", "3M6"),
                                ("russian", "rifle-company-43", "3M6"), ("russian", "rifle-company-43", "3K4")])
    dest = Move(t, st, unit_of(t, st, "t-34-c"), 0, stay=1.0).destinations()
    assert hexn(t, "3M6") not in dest                            # full at the end of the move
    assert {hexn(t, "3M7"), hexn(t, "3M8"), hexn(t, "3K4")} <= dest  # beyond it, or with one other unit
    # The unload is part of the move: the hex must end within the limit, so in a full hex the
    # carrier unloads only to move on (PB-TRANS-11), and never where it has no MF left.
    unloads = {}
    for crowded in (False, True):
        unloads[crowded] = 0
        for seed in range(8):
            units = [("russian", "truck-russian", "3M6"), ("russian", "76_2mm-at", "3M6"),
                     ("russian", "rifle-company-43", "3A1")]
            t, st = position(tmp_path, units)
            truck, gun = unit_of(t, st, "truck-russian"), unit_of(t, st, "76_2mm-at")
            if crowded:
                st.hex[unit_of(t, st, "rifle-company-43")] = hexn(t, "3M6")
            st.carrying[truck], st.carried_by[gun] = gun, truck
            Move(t, st, truck, seed, stay=1.0)
            unloads[crowded] += len(events(st, EV_UNLOAD))
            if crowded and len(events(st, EV_UNLOAD)):
                assert st.hex[truck] != hexn(t, "3M6") and st.hex[gun] == hexn(t, "3M6")
            assert side_load(st, t.unit_t, hexn(t, "3M6"), RUSSIAN) <= t.stack_limit[RUSSIAN]
    assert unloads[False] > 0 and unloads[True] > 0


def test_pb_road_4_road_benefits_only_at_the_road_rate(pb_ruleset):
    feats, sides = column_road(rows=range(4))
    feats[(0, 2)] = {"road", "slope"}
    m, mt = setup(pb_ruleset, feats, sides, levels={(0, 2): 1})
    assert run(m, mt, "9A1", 4, "vehicle")[0]["9A3"] == 1                        # 1/2 + 1/2 up the slope road
    assert run(m, mt, "9A1", 4, "vehicle", assaulting=True)[0]["9A3"] == 1 + 3   # overrun turn: 3 for the slope
    assert run(m, mt, "9A1", 4, "vehicle", occupied=["9A3"])[0]["9A3"] == 0.5 + 3  # road rate blocked there
    feats, sides = column_road(rows=range(4))
    sides[(0, 1)] = {"S": {"road", "green"}}
    m, mt = setup(pb_ruleset, feats, sides)
    assert run(m, mt, "9A1", 4, "vehicle")[0]["9A3"] == 1  # across the green hexside along the road
    for kw in ({"assaulting": True}, {"occupied": ["9A3"]}):
        assert run(m, mt, "9A1", 4, "vehicle", **kw)[0].get("9A3", 99) > 2, kw  # only around it


# ------------------------------------------------------------------ terrain, map, units, situations


def test_pb_gen_3_printed_factors_are_used_as_printed(tmp_path, pb01):
    rs = pb01.situation.ruleset
    ut = pb01.unit_t
    for name in ("panther-g", "t-34-c", "rifle-company-43", "81mm-mortar", "cavalry-russian-43"):
        i, u = pb01.units.index(name), rs.units[name]
        assert (ut.attack[i], ut.range[i], ut.defense[i], ut.movement[i]) == \
            (u["attack"], u["range"], u["defense"], 2 * u["movement"])
        assert WEAPON_CLASSES[ut.weapon[i]] == u["weapon"]
    # RF is the greatest range at which the unit may fire: 12 for the Panther, not 13.
    t0, _ = position(tmp_path, [("russian", "t-34-c", "3A1")])
    mt = t0.map_t
    open_ground = np.flatnonzero(~mt.concealing & ~t0.move_t.depressed)
    f, near, far = next((f, a, b) for f in open_ground for a in open_ground if mt.dist[f, a] == 12 and mt.los[f, a]
                        for b in open_ground if mt.dist[f, b] == 13 and mt.los[f, b])
    lab = t0.situation.map.labels
    t, st = position(tmp_path, [("german", "panther-g", lab[f]), ("russian", "t-34-c", lab[near]),
                                ("russian", "t-34-c", lab[far])])
    panther = unit_of(t, st, "panther-g")
    assert can_fire_at(t, st, panther, GERMAN, lab[near]) and not can_fire_at(t, st, panther, GERMAN, lab[far])


def test_pb_gen_5_town_beats_woods_bars_do_not_make_terrain_clear_hilltops_are_clear(pb_ruleset, pb01):
    from simulator.rulesets.panzerblitz.movement import compile_movement
    from tests.conftest import make_map
    m = make_map(pb_ruleset, hexes={(0, 1): (0, {"town", "woods"}), (0, 3): (0, {"woods"})})
    mv = compile_movement(pb_ruleset.data, m, "t")
    truck = mv.class_index("truck")
    assert mv.enter_cost[m.lookup("9A2"), truck] == 1 and mv.enter_cost[m.lookup("9A4"), truck] == 4  # 1/2 vs 2 MF
    # On the real map: 3C4 has a gray bar but is no town; a clear hilltop hex is clear ground.
    mt, mv, gm = pb01.map_t, pb01.move_t, pb01.situation.map
    c4 = gm.lookup("3C4")
    assert not mt.town[c4] and not mt.concealing[c4] and mt.terrain_mod[c4] == 0 and mt.overrun_ok[c4]
    assert any(gm.side_features[c4, d] & gm.side_bit("gray") for d in range(6))
    hill = next(h for h in range(gm.n_hexes) if mt.level[h] == 2 and not mt.concealing[h]
                and not gm.has_feature("slope")[h] and not gm.has_feature("gully")[h])
    assert mt.overrun_ok[hill] and mt.terrain_mod[hill] == 0
    assert mv.enter_cost[hill, pb01.movement.class_index("truck")] == 4  # 2 MF, as clear


def test_pb_map_5_1c9_is_a_town_hex(pb01):
    mt, mv, gm = pb01.map_t, pb01.move_t, pb01.situation.map
    h = gm.lookup("1C9")
    assert not gm.has_feature("woods")[h]
    assert mt.town[h] and mt.concealing[h] and not mt.overrun_ok[h]
    assert mt.terrain_mod[h] == pb01.combat.mod_terrain
    assert mv.enter_cost[h, pb01.movement.class_index("truck")] == 1  # 1/2 MF, not the 2 of woods


def test_pb_sit_6_no_german_mines_or_blocks():
    t = build_tables(load_situation("pb-06"))
    st = new_state(t, np.random.default_rng(0))
    cats = {t.situation.ruleset.units[t.units.names[st.utype[u]]]["category"] for u in range(len(st.utype))
            if st.side[u] == GERMAN}
    assert cats and not cats & {"minefield", "roadblock"}
    rec = play(t, 0)
    assert not rec.state.mine.any()


def test_pb_gully_4_gully_ends_are_full_gully_hexes(pb01):
    gm, mt, mv = pb01.situation.map, pb01.map_t, pb01.move_t
    gully = gm.has_feature("gully") & ~gm.has_feature("ford") & ~gm.has_feature("road")
    along = gm.side_bit("stream") | gm.side_bit("ford")
    ends = [h for h in np.flatnonzero(gully)
            if sum(1 for d in range(6) if gm.neighbours[h, d] >= 0 and gm.side_features[h, d] & along) == 1]
    assert ends
    ground = np.flatnonzero((mt.level == 0) & ~gully)
    for e in ends:
        assert mv.depressed[e]  # pays to be left like any gully hex (PB-TEC-9)
        seen = [g for g in ground if 2 <= mt.dist[e, g] <= 8 and mt.los[e, g]]
        assert not seen, (gm.labels[e], [gm.labels[g] for g in seen[:3]])  # hidden like any gully hex (PB-GULLY-1)


def test_pb_gully_5_a_woods_gully_hex_conceals_from_the_hills(tmp_path):
    t0, _ = position(tmp_path, [("russian", "t-34-c", "3A1")])
    mt, gm = t0.map_t, t0.situation.map
    gully = t0.move_t.depressed
    high = np.flatnonzero(mt.level >= 1)
    for woods in (True, False):
        targets = np.flatnonzero(gully & (gm.has_feature("woods") == woods))
        f, g = next((f, g) for g in targets for f in high if 2 <= mt.dist[f, g] <= 12 and mt.los[f, g]
                    and not gm.has_feature("woods")[f])
        t, st = position(tmp_path, [("german", "panther-g", gm.labels[f]), ("russian", "rifle-company-43", gm.labels[g]),
                                    ("german", "truck-german", "3A10")])
        panther = unit_of(t, st, "panther-g")
        assert can_fire_at(t, st, panther, GERMAN, gm.labels[g]) == (not woods), gm.labels[g]
        if woods:
            st.hex[unit_of(t, st, "truck-german")] = next(x for x in gm.neighbours[g] if x >= 0 and x != f)
            assert can_fire_at(t, st, panther, GERMAN, gm.labels[g])  # spotted


def test_pb_los_3_low_medium_high_bars_and_only_bars_obstruct(pb_ruleset):
    from tests.core.test_los import GROUND, SLOPE, sees, strip
    for bar, blocks_slope_to_slope in (("green", False), ("gray", False), ("brown", True), ("orange", True)):
        los, m = strip(pb_ruleset, levels={0: SLOPE, 4: SLOPE}, bars={2: {bar}})
        assert sees(los, m, 0, 4) == (not blocks_slope_to_slope), bar  # 10-20 m bars are below a slope's LOS
        los, m = strip(pb_ruleset, levels={0: GROUND, 4: GROUND}, bars={2: {bar}})
        assert not sees(los, m, 0, 4), bar  # at ground level every bar is in the way
    # Woods, town, slope interiors without bars: nothing obstructs.
    los, m = strip(pb_ruleset, features={1: {"woods"}, 2: {"town"}, 3: {"woods"}})
    assert sees(los, m, 0, 4)


# ------------------------------------------------------------------ wrecks (PB-WRECK)


def test_pb_wreck_3_a_wreck_cancels_the_road_but_not_a_crossing(tmp_path):
    t0, _ = position(tmp_path, [("russian", "t-34-c", "3A1")])
    a, b, c = _road_run(t0)
    got = {}
    for wreck in (False, True):
        t, st = position(tmp_path, [("russian", "t-34-c", a), ("german", "truck-german", "3A10")])
        st.wrecks[hexn(t, b), GERMAN] = int(wreck)
        cost, _ = reach(t, st, unit_of(t, st, "t-34-c"), budget=4)
        got[wreck] = (int(cost[hexn(t, b)]), int(cost[hexn(t, c)]))
    assert got == {False: (1, 2), True: (2, 4)}  # no road rate into, through or out of the wreck's hex
    # A swamp road hex with a wreck is closed to vehicles.
    t0, _ = position(tmp_path, [("russian", "t-34-c", "1A1"), ("german", "truck-german", "1A10")], layout='[["1"]]')
    a, b, _ = _road_run(t0, swamp=True)
    t, st = position(tmp_path, [("russian", "t-34-c", a), ("german", "truck-german", "1A10")], layout='[["1"]]')
    assert reach(t, st, unit_of(t, st, "t-34-c"))[0][hexn(t, b)] >= 0
    st.wrecks[hexn(t, b), RUSSIAN] = 1
    assert reach(t, st, unit_of(t, st, "t-34-c"))[0][hexn(t, b)] < 0
    # A road crossing a gully stays clear terrain with a wreck in it: no gully surcharge to leave it.
    t2, _ = position(tmp_path, [("russian", "t-34-c", "2A1"), ("german", "truck-german", "2A10")], layout='[["2"]]')
    gm, mv = t2.situation.map, t2.move_t
    x = next(h for h in range(gm.n_hexes) if gm.has_feature("gully")[h] and gm.has_feature("road")[h])
    out = next(n for n in gm.neighbours[x] if n >= 0 and not gm.has_feature("gully")[n]
               and mv.enter_cost[n, t2.movement.class_index("vehicle")] == 2)
    t, st = position(tmp_path, [("russian", "t-34-c", gm.labels[x]), ("german", "truck-german", "2A10")],
                     layout='[["2"]]')
    st.wrecks[x, GERMAN] = 1
    assert reach(t, st, unit_of(t, st, "t-34-c"))[0][out] == 2  # 1 MF, not 1 + 3


def test_pb_wreck_4_units_enter_hexes_with_friendly_or_enemy_wrecks_within_the_limit(tmp_path):
    for owner in (GERMAN, RUSSIAN):
        t, st = position(tmp_path, [("russian", "t-34-c", "3M4"), ("german", "truck-german", "3A10")])
        h = hexn(t, "3M5")
        st.wrecks[h, owner] = 1
        assert h in Move(t, st, unit_of(t, st, "t-34-c"), 0, stay=1.0).destinations()  # 1 wreck + 1 unit: fits
        st.wrecks[h, owner] = 2
        st.moved[:] = False  # (the first call ended the tank's move)
        assert h not in Move(t, st, unit_of(t, st, "t-34-c"), 0, stay=1.0).destinations()  # 2 wrecks fill it


def test_pb_wreck_5_enemy_wrecks_do_not_deny_control(tmp_path):
    from simulator.rulesets.panzerblitz.victory import measure_value
    t, st = position(tmp_path, [("russian", "rifle-company-43", "3M6"), ("german", "panther-g", "3A10")])
    h = hexn(t, "3M6")
    st.wrecks[h, GERMAN] = 1
    m = {"measure": "hexes_controlled", "whose": "own", "hexes": ["3M6"]}
    assert measure_value(m, st, t, RUSSIAN) == 1 and measure_value(m, st, t, GERMAN) == 0
