"""The First Panzer Army heuristic player in small positions: what it scores, by the rule or the
developer notes each choice rests on (docs/first-panzer-army/engine.md, "The heuristic")."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.rulesets.first_panzer_army import consts as c
from simulator.rulesets.first_panzer_army import heuristic as hz
from simulator.rulesets.first_panzer_army.engine import prepare
from simulator.rulesets.first_panzer_army.movement import movement_factor, reachable
from simulator.rulesets.first_panzer_army.players import PLAYERS
from simulator.rulesets.first_panzer_army.state import G_TURN, G_WEATHER, N_PARAMS, new_state
from simulator.rulesets.first_panzer_army.zoc import place, refresh_lines
from simulator.situation import load_situation

SITUATION = "situations/first-panzer-army/kamenets-podolsky.toml"


@pytest.fixture(scope="module")
def prep():
    return prepare(load_situation(SITUATION))


@pytest.fixture(scope="module")
def params():
    return PLAYERS.spec("heuristic").vector(N_PARAMS)


def H(prep, label):
    return prep.situation.map.lookup(label)


def U(prep, uid):
    return prep.unit_ids.index(uid)


def position(prep, turn=3, **where):
    S = new_state(prep.t, 1, (1, 1), None)
    S.g[G_TURN] = turn
    S.g[G_WEATHER] = c.THAW
    for uid, label in where.items():
        place(S, prep.t, U(prep, uid.replace("_", "-")), H(prep, label))
    refresh_lines(S, prep.t)
    return S


def test_fpa_4_1_german_goal_is_the_nearest_unmanned_held_town_then_the_next(prep, params):
    """4.1: towns and FLs held at the end deny the Soviet VP; the heuristic sends each German
    unit to the nearest town or FL near the relief (hold_radius) short of hold_steps."""
    t = prep.t
    S = position(prep, **{"19_pz": "1114"})
    goal = hz.german_goal(S, t, U(prep, "19-pz"), params)
    assert goal == H(prep, "1014")                 # Chortkov, next door
    place(S, t, U(prep, "16-pz"), H(prep, "1014"))  # 4 steps: Chortkov is manned
    refresh_lines(S, t)
    goal = hz.german_goal(S, t, U(prep, "19-pz"), params)
    assert goal not in (-1, H(prep, "1014"))
    assert hz.hold_hex(t, goal, params)
    # Eastern towns (far from the relief) and the no-go area's Buchach are never goals.
    assert not hz.hold_hex(t, H(prep, "2607"), params)
    assert not hz.hold_hex(t, H(prep, "0413"), params)


def test_fpa_4_2_german_unit_prefers_c_and_c_and_a_town_over_an_exposed_open_hex(prep, params):
    """4.2 / 9.2: a division lost out of C&C scores its steps, so a German unit scores a hex
    in C&C above one cut off; an empty German town (retaken or kept, 3.3) above open ground."""
    t = prep.t
    S = position(prep, **{"19_pz": "1114", "9_mc": "1215"})
    u = U(prep, "19-pz")
    base = hz.german_hex_value(S, t, H(prep, "1114"), u, -1, params)
    town = hz.german_hex_value(S, t, H(prep, "1014"), u, -1, params)
    assert town > base
    S.cc[H(prep, "1114")] = 0
    assert hz.german_hex_value(S, t, H(prep, "1114"), u, -1, params) < base


def test_fpa_13_9_crt_edge_reads_the_table(prep):
    """13.8-13.9: the German attack threshold is the CRT's expected steps inflicted minus lost
    (+ a third of a retreat): 1:1 loses, 2:1 about even, 3:1 and up pay."""
    t = prep.t
    one, two, three = (hz.crt_edge(t, col) for col in (2, 3, 4))
    assert one < 0 < three
    assert one < two < three
    # 2:1: DL1, DR, DR, AS, AL1, EX -> (1 + 0.3 + 0.3 + 0 - 1 + 0) / 6
    assert two == pytest.approx((1 + 0.3 + 0.3 - 1 + 0) / 6)


def test_fpa_soviet_targets_weakly_held_towns_draw_more_than_strong_ones(prep, params):
    """4.1 / dev notes: the Soviet heuristic weighs a German-held town by its VP over the German
    steps holding it; Soviet-held towns and the no-go area (12.5) are no targets."""
    t = prep.t
    S = position(prep, **{"17_pz": "1014", "19_pz": "0910"})   # 6 steps v 4 steps
    tw = np.zeros(64)
    tv = np.zeros(64, dtype=np.int64)
    n = hz.soviet_targets(S, t, params, tw, tv, -1)
    w = {int(tv[i]): tw[i] for i in range(n)}
    assert w[H(prep, "0910")] > w[H(prep, "1014")]
    assert w[H(prep, "0921")] > w[H(prep, "0910")]            # empty
    assert H(prep, "0413") not in w                          # Buchach: no-go area
    assert H(prep, "2603") not in w                          # Krasilov: Soviet from the start


def test_fpa_soviet_targets_a_town_ringed_by_enough_soviet_steps_pulls_less(prep, params):
    """Replays: the Soviets piled onto one town (18 of 23 units around a 2-step town) while
    others went untouched.  Beyond `soviet_mass` x (1 + German steps) Soviet steps within 2
    hexes, a town's pull falls in proportion; the moving unit does not count itself."""
    t = prep.t
    assert params[hz.P_SOV_MASS] == 0.0        # off by default: massing measured better (engine.md)
    params = params.copy()
    params[hz.P_SOV_MASS] = 1.5
    S = position(prep, **{"19_pz": "0910"})
    town = H(prep, "0910")
    tw = np.zeros(64)
    tv = np.zeros(64, dtype=np.int64)

    def pull(mover=-1):
        n = hz.soviet_targets(S, t, params, tw, tv, mover)
        return {int(tv[i]): tw[i] for i in range(n)}[town]

    alone = pull()
    ring = ["6-gtc", "7-gtc", "10-gtc", "11-gtc", "4-gtc", "9-mc"]
    for uid, d in zip(ring, range(6), strict=True):
        place(S, t, U(prep, uid), int(t.neighbours[town, d]))
    refresh_lines(S, t)
    held = hz.german_steps_in(S, t, town, -1)
    ringed = sum(int(S.u_steps[U(prep, x)]) for x in ring)
    need = params[hz.P_SOV_MASS] * (1 + held)
    assert ringed > need
    assert pull() == pytest.approx(alone * need / ringed)
    # a unit of the ring weighing whether to stay counts only the others
    others = ringed - int(S.u_steps[U(prep, "6-gtc")])
    assert pull(U(prep, "6-gtc")) == pytest.approx(alone * min(1.0, need / others))
    no_limit = params.copy()
    no_limit[hz.P_SOV_MASS] = 0.0
    n = hz.soviet_targets(S, t, no_limit, tw, tv, -1)
    assert {int(tv[i]): tw[i] for i in range(n)}[town] == pytest.approx(alone)


def test_fpa_soviet_unit_alone_next_to_germans_is_scored_below_a_stacked_one(prep, params):
    """Dev notes: Soviet units are brittle and should stack (support units absorb exchanges)."""
    t = prep.t
    S = position(prep, **{"16_pz": "1216", "9_mc": "1114"})
    tw = np.zeros(64)
    tv = np.zeros(64, dtype=np.int64)
    n = hz.soviet_targets(S, t, params, tw, tv, -1)
    germans = np.zeros(len(prep.labels), dtype=np.int32)
    ng = hz.hexes_of(S, t, c.GERMAN, germans)
    u = U(prep, "7-gtc")
    alone = hz.soviet_hex_value(S, t, H(prep, "1215"), u, tw, tv, n, params, germans, ng)
    place(S, t, U(prep, "6-gtc"), H(prep, "1215"))
    refresh_lines(S, t)
    stacked = hz.soviet_hex_value(S, t, H(prep, "1215"), u, tw, tv, n, params, germans, ng)
    assert stacked > alone


def test_fpa_german_units_with_no_town_to_man_go_to_the_most_threatened_held_town(prep, params):
    """Replays: the spare German line stood idle in the west while the Soviets massed on a town.
    A unit `german_goal` finds no town for is sent, as a reserve, to the held (German-controlled)
    town with the most Soviet steps within 2 hexes, at least `reserve_threat` of them."""
    t = prep.t
    S = position(prep, **{"19_pz": "0910", "17_pz": "1014"})
    assert params[hz.P_RESERVE] == 4.0
    assert hz.threatened_hold(S, t, params) == -1                  # no Soviet near any town
    place(S, t, U(prep, "6-gtc"), int(t.neighbours[H(prep, "0910"), 0]))     # 2 steps: too few
    refresh_lines(S, t)
    assert hz.threatened_hold(S, t, params) == -1
    place(S, t, U(prep, "7-gtc"), int(t.neighbours[H(prep, "0910"), 1]))     # 4 steps: a threat
    place(S, t, U(prep, "15-rc"), int(t.neighbours[H(prep, "1014"), 3]))     # 2 steps at Kopychintsy
    refresh_lines(S, t)
    assert hz.threatened_hold(S, t, params) == H(prep, "0910")
    off = params.copy()
    off[hz.P_RESERVE] = 0.0
    # every held town manned: the goal is the reserve's town, or none when it is switched off
    many = params.copy()
    many[hz.P_HOLD_STEPS] = 0.0
    u = U(prep, "1-pz")
    place(S, t, u, H(prep, "0805"))
    refresh_lines(S, t)
    assert hz.german_goal(S, t, u, many) == H(prep, "0910")
    off[hz.P_HOLD_STEPS] = 0.0
    assert hz.german_goal(S, t, u, off) == -1


def test_fpa_4_1_soviet_corps_leaves_the_map_only_from_exit_turn(prep, params):
    """4.1: an exited corps scores 1 VP (four at most) but is out of the fight for good; the
    heuristic takes the exit row only from `exit_turn` (replays: three guards tank/mech corps
    left on turn 1) and, from then on, before any hex of the map."""
    t = prep.t
    u = U(prep, "4-gtc")
    exit_turn = int(params[hz.P_EXIT_TURN])
    for turn, wanted in ((1, False), (exit_turn - 1, False), (exit_turn, True), (8, True)):
        S = position(prep, turn=turn, **{"4_gtc": "1228"})
        reachable(S, t, u, movement_factor(S, t, u))      # the paths the rows are scored on
        n = 0
        for label in ("1228", "1227", "1127"):       # stay, or move along the south edge
            S.opts[n, :] = (H(prep, label), 1, u, 0)
            n += 1
        S.opts[n, :] = (c.EXITED, 1, u, H(prep, "1228"))
        n += 1
        chosen = hz.best_option(c.MOVE_TO, S.opts, n, S, t, c.SOVIET, params)
        assert (S.opts[chosen, 0] == c.EXITED) == wanted, turn


def test_fpa_sensitivity_place_variants_re_mark_the_tables(prep):
    """Issue 19 item 4: the town/FL-set rows of tools/fpa_sensitivity.py re-mark hexes as the
    map generator would: a dropped town is clear with no VP, a demoted FL a 1-VP town, a
    promoted place a German-held town; vp_list follows."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "tools" / "fpa_sensitivity.py"
    spec = importlib.util.spec_from_file_location("fpa_sensitivity", path)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    new = tool.replace_places(prep, {"Proskurov": "town", "Gorodenka": "clear", "Borshchev": "town"}).t
    prosk, goro, borsh = H(prep, "2607"), H(prep, "0620"), H(prep, "1418")
    assert (prep.t.vp_hex[prosk], prep.t.is_fl[prosk]) == (4, 1)
    assert (new.vp_hex[prosk], new.is_fl[prosk], new.terrain[prosk]) == (1, 0, c.TOWN)
    assert (new.vp_hex[goro], new.terrain[goro], new.start_control[goro]) == (0, c.CLEAR, -1)
    assert (new.vp_hex[borsh], new.terrain[borsh], new.start_control[borsh]) == (1, c.TOWN, c.GERMAN)
    assert list(new.vp_list) == list(np.flatnonzero(new.vp_hex > 0))
    assert prep.t.vp_hex[goro] == 1                    # the prepared tables are left alone
