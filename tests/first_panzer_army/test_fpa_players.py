"""The First Panzer Army heuristic player in small positions: what it scores, by the rule or the
developer notes each choice rests on (docs/first-panzer-army/engine.md, "The heuristic")."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.rulesets.first_panzer_army import consts as c
from simulator.rulesets.first_panzer_army import heuristic as hz
from simulator.rulesets.first_panzer_army.engine import prepare
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
    n = hz.soviet_targets(S, t, params, tw, tv)
    w = {int(tv[i]): tw[i] for i in range(n)}
    assert w[H(prep, "0910")] > w[H(prep, "1014")]
    assert w[H(prep, "0921")] > w[H(prep, "0910")]            # empty
    assert H(prep, "0413") not in w                          # Buchach: no-go area
    assert H(prep, "2603") not in w                          # Krasilov: Soviet from the start


def test_fpa_soviet_unit_alone_next_to_germans_is_scored_below_a_stacked_one(prep, params):
    """Dev notes: Soviet units are brittle and should stack (support units absorb exchanges)."""
    t = prep.t
    S = position(prep, **{"16_pz": "1216", "9_mc": "1114"})
    tw = np.zeros(64)
    tv = np.zeros(64, dtype=np.int64)
    n = hz.soviet_targets(S, t, params, tw, tv)
    germans = np.zeros(len(prep.labels), dtype=np.int32)
    ng = hz.hexes_of(S, t, c.GERMAN, germans)
    u = U(prep, "7-gtc")
    alone = hz.soviet_hex_value(S, t, H(prep, "1215"), u, tw, tv, n, params, germans, ng)
    place(S, t, U(prep, "6-gtc"), H(prep, "1215"))
    refresh_lines(S, t)
    stacked = hz.soviet_hex_value(S, t, H(prep, "1215"), u, tw, tv, n, params, germans, ng)
    assert stacked > alone
