"""Smoke (PB2-12; smoke.py, artillery.py) in small positions on the converted classic card pb-04
(mortars and self-propelled guns with the 'S' capability): LoS against the smoke of the moment
(12.2.2), the two sides of the counter and the administration (12.2.1), where it may lie (12.2.3),
spotting in it (12.2.4), the extra MP (12.2.5), the fire modifiers (12.2.6) and the smoke request
(11.1.1, 11.3.7); round 9: the heuristic's smoke on Hill 112 (hod-02)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simulator.rulesets.panzerblitz_v2 import artillery, combat, movement
from simulator.rulesets.panzerblitz_v2.batch import play_one, prepare, violation
from simulator.rulesets.panzerblitz_v2.players import ARTILLERY, P_SMOKE_W, heuristic, smoke_screen
from simulator.rulesets.panzerblitz_v2.ruleset import RULESET
from simulator.rulesets.panzerblitz_v2.smoke import place_smoke, sees
from simulator.rulesets.panzerblitz_v2.state import EV_AR, EV_IF, EV_SMOKE
from simulator.rulesets.panzerblitz_v2.tables import CLEAR, K_DF, K_IF
from simulator.situation import load_situation
from tests.panzerblitz_v2 import positions
from tests.panzerblitz_v2.positions import events, units_of

PB04 = str(Path(__file__).resolve().parents[2] / "situations" / "panzerblitz-v2" / "classic" / "pb-04.toml")


@pytest.fixture(scope="module")
def p4():
    return prepare(load_situation(PB04))


def state(p, seed=1):
    return positions.state(p, ("random",), seed)


def clear_line(t, k):
    """k clear hexes in a straight line (each one hex further from the first), the ends in sight."""
    for h in range(t.n_hexes):
        if not (t.play[h] and t.cover[h] == CLEAR):
            continue
        for d in range(6):
            row = [h]
            while len(row) < k:
                n = t.neighbours[row[-1], d]
                if n < 0 or not t.play[n] or t.cover[n] != CLEAR or t.depression[n]:
                    break
                row.append(int(n))
            if len(row) == k and t.los[row[0], row[-1]] and t.level[row].min() == t.level[row].max():
                return row
    raise AssertionError("no clear line")


def test_pb2_12_2_2_smoke_blocks_the_line_at_all_elevations_not_into_or_out_of_its_hex(p4):
    t = p4.tables
    st = state(p4)
    a, b, c = clear_line(t, 3)
    assert sees(t, st, a, c)
    assert place_smoke(t, st, b, False) == 1 and st.n_smoke[0] == 1
    assert not sees(t, st, a, c) and not sees(t, st, c, a)       # through it: never
    assert sees(t, st, a, b) and sees(t, st, b, c)              # into and out of it (12.2.4, 12.2.6)
    row = clear_line(t, 6)
    st2 = state(p4)
    place_smoke(t, st2, row[1], False)
    assert not sees(t, st2, row[0], row[5]) and sees(t, st2, row[2], row[5])   # only smoke between counts


def test_pb2_12_2_1_smoke_1_flips_then_goes_scattered_smoke_2_goes_at_once(p4):
    t = p4.tables
    st = state(p4)
    h, g = clear_line(t, 2)
    assert place_smoke(t, st, h, False) == 1 and place_smoke(t, st, g, True) == 2
    artillery.smoke_administration(t, st)
    assert st.smoke[h] == 2 and st.smoke[g] == 0 and st.n_smoke[0] == 1
    artillery.smoke_administration(t, st)
    assert st.smoke[h] == 0 and st.n_smoke[0] == 0
    assert sorted(int(e[6]) for e in events(st, EV_SMOKE)) == [1, 2, 2]   # one flipped, two removed


def test_pb2_12_2_3_no_smoke_in_water_swamp_or_river(p4):
    t = p4.tables
    from simulator.rulesets.panzerblitz_v2.tables import RIVER, SWAMP, WATER
    assert (t.smoke_ok == ~np.isin(t.cover, [SWAMP, WATER, RIVER])).all()
    bad = np.flatnonzero(~t.smoke_ok & t.play)
    assert bad.size
    st = state(p4)
    assert place_smoke(t, st, int(bad[0]), False) == 0 and st.n_smoke[0] == 0


def test_pb2_12_2_4_a_unit_in_smoke_is_spotted_as_in_a_non_clear_hex(p4):
    t = p4.tables
    row = clear_line(t, 6)
    assert t.spot_range[row[5]] > 5 > t.smoke_spot
    st = state(p4)
    target = units_of(p4, "rifle-company-43")[0]
    spotter = units_of(p4, "panther-g")[0]
    st.hex[target] = row[5]
    st.hex[spotter] = row[0]
    assert combat.spotted_now(t, st, target)
    place_smoke(t, st, row[5], False)
    assert not combat.spotted_now(t, st, target)                  # 5 hexes: beyond the non-clear range
    st.hex[spotter] = row[5 - t.smoke_spot]
    assert combat.spotted_now(t, st, target)


def test_pb2_12_2_5_entering_smoke_costs_one_more_mp(p4):
    t = p4.tables
    a, b = clear_line(t, 2)
    tank = units_of(p4, "t-34-c")[0]
    st = state(p4)
    st.hex[tank] = a
    movement.reachable(t, st, tank, a, 0, t.t_ma[t.u_type[tank]], True)
    before = int(st.reach[b])
    place_smoke(t, st, b, False)
    movement.reachable(t, st, tank, a, 0, t.t_ma[t.u_type[tank]], True)
    assert st.reach[b] == before + t.smoke_extra2 and t.smoke_extra2 == 2      # +1 MP (in half MP)


def test_pb2_12_2_6_fire_into_smoke_plus_one_from_smoke_plus_two(p4):
    t = p4.tables
    a, b, c = clear_line(t, 3)
    st = state(p4)
    target = units_of(p4, "rifle-company-43")[0]
    firer = units_of(p4, "panther-g")[0]
    st.hex[target] = c
    st.hex[firer] = a
    tg = np.array([target])
    fi = np.array([firer])
    d0, a0 = combat.defender_drm(t, st, tg, 1, False, K_DF, False, False), combat.attacker_drm(t, st, fi, 1, c, K_DF, -1)
    i0 = combat.defender_drm(t, st, tg, 1, False, K_IF, False, False)
    place_smoke(t, st, c, False)
    assert combat.defender_drm(t, st, tg, 1, False, K_DF, False, False) == d0 + 1
    assert combat.defender_drm(t, st, tg, 1, False, K_IF, False, False) == i0     # DF only
    place_smoke(t, st, a, False)
    assert combat.attacker_drm(t, st, fi, 1, c, K_DF, -1) == a0 + 2


def test_pb2_11_1_1_a_smoke_request_lays_smoke_and_attacks_nobody(p4):
    t = p4.tables
    row = clear_line(t, 4)
    st = state(p4)
    mortar = units_of(p4, "82mm-mortar")[0]
    fo = units_of(p4, "rifle-company-43")[0]
    target = units_of(p4, "rifle-platoon-german-42")[0]
    st.hex[mortar] = row[0]
    st.hex[fo] = row[1]
    st.hex[target] = row[3]
    st.active[mortar] = st.active[fo] = True
    rus = int(t.u_side[mortar])
    n = artillery.ar_options(t, st, rus)
    rows = [tuple(int(x) for x in st.opts[i, :7]) for i in range(1, n)]
    he = [r for r in rows if r[0] == row[3] and r[1] == mortar and r[6] == 0]
    sm = [r for r in rows if r[0] == row[3] and r[1] == mortar and r[6] == 1]
    assert he and sm and he[0][:6] == sm[0][:6]
    artillery.indirect_fire(t, st, mortar, row[3], rus, True)
    assert st.n_smoke[0] == 1 and len(events(st, EV_IF)) == 0
    e = events(st, EV_SMOKE)[0]
    assert st.smoke[int(e[4])] == (1 if e[4] == row[3] else 2)   # SMOKE 2 when it scattered
    assert st.steps[target] == t.t_steps[t.u_type[target]]


def test_pb2_12_smoke_in_whole_random_games_without_violations():
    p9 = prepare(load_situation(PB04.replace("pb-04", "pb-09")))        # mortars with FOs: requests
    smoke = 0
    for seed in range(30):
        g = play_one(p9, seed, RULESET.players.parse(["random"], p9.sides), debug=True)
        assert violation(g) is None, (seed, violation(g))
        ev = g.state.ev[:g.state.n_ev[0]]
        smoke += int(((ev[:, 2] == EV_AR) & (ev[:, 8] == 1)).sum())
    assert smoke > 0


HOD02 = PB04.replace("classic/pb-04", "hod-02")


@pytest.fixture(scope="module")
def p2():
    return prepare(load_situation(HOD02))


def _smoke_position(p, germans=1):
    """Hill 112 (hod-02): six British rifle platoons (12 steps) in the open in the first two hexes of a
    clear line of five, the first their FO; `germans` SS panzergrenadier platoons in the middle hex
    and one more at the far end, both in range of the British (6) and seeing them; a 25-pdr battery
    (off-board, 'S') ready.  The British to choose among HE and smoke on either German hex."""
    t = p.tables
    row = clear_line(t, 5)
    st = positions.state(p, ("heuristic:jitter=0",))
    gb = units_of(p, "gb-rifle-platoon")[:6]
    for i, u in enumerate(gb):
        st.hex[u] = row[0] if i < 3 else row[1]
        st.active[u] = True
    ss = units_of(p, "de-ss-panzergrenadier-platoon")[:germans + 1]
    for u in ss[:germans]:
        st.hex[u] = row[2]
    st.hex[ss[germans]] = row[4]
    st.unspotted[:] = False
    return t, st, gb, ss, row


def _chosen(t, st, side):
    n = artillery.ar_options(t, st, side)
    params = st.params[side]
    i = heuristic(ARTILLERY, st.opts, n, t, st, side, params, np.random.default_rng(1))
    return tuple(int(x) for x in st.opts[i, :7]), n


def test_pb2_12_heuristic_smokes_the_watchers_of_its_units_in_the_open_and_fires_he_where_he_is_better(p2):
    """players.md "Smoke" (round 9): a smoke request scores `smoke_w` a step of the side's units in
    the open that it screens from the enemy units watching them, by their strength (smoke_screen:
    those in the smoked hex are blinded, 12.2.6; those whose line runs through it lose it, 12.2.2,
    as smoke.sees reads it), against HE's enemy steps in the hex."""
    t, st, gb, ss, row = _smoke_position(p2, germans=1)
    side = int(t.u_side[gb[0]])
    gb_steps = sum(int(st.steps[u]) for u in gb)
    # smoke on the middle hex blinds the platoon there and cuts the far one's line: all 12 steps
    assert smoke_screen(t, st, row[2], side) == pytest.approx(gb_steps)
    # smoke on the far hex blinds that platoon only, the middle one still watches: half of them
    assert smoke_screen(t, st, row[4], side) == pytest.approx(gb_steps / 2)
    (h, a, f, k, steps, now, smoke), n = _chosen(t, st, side)
    assert smoke == 1 and h == row[2] and t.t_smoke[t.u_type[a]]           # 0.25 x 12 = 3 > HE's 2 steps
    # units in an improved position are not in the open: the platoons of the second hex dug in
    for u in gb[3:]:
        st.in_ip[u] = True
    assert smoke_screen(t, st, row[2], side) == pytest.approx(gb_steps / 2)
    for u in gb[3:]:
        st.in_ip[u] = False
    # each watcher by its strength: the far platoon reduced (AP halved or so) weighs less
    far = ss[-1]
    st.steps[far] = 1
    w_near = combat.ap2(t, st, ss[0])
    w_far = combat.ap2(t, st, far)
    assert w_far < w_near
    assert smoke_screen(t, st, row[4], side) == pytest.approx(gb_steps * w_far / (w_near + w_far))
    st.steps[far] = 2
    # the British out of the Germans' range (their FO still in sight of them): nothing to screen, HE
    far = next(int(x) for x in range(t.n_hexes) if t.play[x] and min(t.dist[x, row[2]], t.dist[x, row[4]]) > 6
               and sees(t, st, x, row[2]))
    for u in gb:
        st.hex[u] = far
    assert smoke_screen(t, st, row[2], side) == 0.0
    assert _chosen(t, st, side)[0][6] == 0             # (HE's 2 steps tie ar_min: no request at all)
    # three German platoons (6 steps) in the middle hex: HE's 6 beats smoke's 0.25 x 12 = 3
    t, st, gb, ss, row = _smoke_position(p2, germans=3)
    assert smoke_screen(t, st, row[2], side) == pytest.approx(gb_steps)
    (h, a, f, k, steps, now, smoke), n = _chosen(t, st, side)
    assert smoke == 0 and h == row[2] and steps == 6
    # never twice: smoke on the hex already, or a smoke request of the side pending on it
    t, st, gb, ss, row = _smoke_position(p2, germans=1)
    place_smoke(t, st, row[2], False)
    assert smoke_screen(t, st, row[2], side) == 0.0
    st.smoke[row[2]] = 0
    st.n_smoke[0] = 0
    st.ar[0, 0], st.ar[0, 2], st.ar[0, 4] = row[2], side, 1
    st.n_ar[0] = 1
    assert smoke_screen(t, st, row[2], side) == 0.0
    # smoke_w = 0: never smoke
    st.n_ar[0] = 0
    st.params[side][P_SMOKE_W] = 0.0
    assert _chosen(t, st, side)[0][6] == 0
