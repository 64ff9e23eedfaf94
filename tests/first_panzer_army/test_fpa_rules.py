"""First Panzer Army rules engine: each case by its number (FPA x.y), in small positions on the
reconstructed map, and whole games (determinism, replay of recorded decisions, invariants)."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.decisions import COUNT, KIND, ReplayMismatch
from simulator.rulesets.first_panzer_army import consts as c
from simulator.rulesets.first_panzer_army.combat import (
    E_COL,
    E_N,
    column,
    concentric,
    evaluate,
    retreat,
)
from simulator.rulesets.first_panzer_army.engine import decisions, play_games, play_one, prepare
from simulator.rulesets.first_panzer_army.game import victory_points
from simulator.rulesets.first_panzer_army.movement import (
    INF,
    enter_cost,
    move_unit,
    movement_factor,
    reachable,
    river_cost,
    stack_ok,
)
from simulator.rulesets.first_panzer_army.players import PLAYERS
from simulator.rulesets.first_panzer_army.state import (
    G_DEBUG,
    G_TURN,
    G_VIOLATION,
    G_WEATHER,
    new_state,
)
from simulator.rulesets.first_panzer_army.zoc import ezoc, place, refresh_lines
from simulator.situation import load_situation

SITUATION = "situations/first-panzer-army/kamenets-podolsky.toml"


@pytest.fixture(scope="module")
def prep():
    return prepare(load_situation(SITUATION))


def H(prep, label: str) -> int:
    return prep.situation.map.lookup(label)


def U(prep, uid: str) -> int:
    return prep.unit_ids.index(uid)


def empty(prep, weather=c.THAW, turn=3):
    """A state with no unit on the map (a small position is built on it)."""
    S = new_state(prep.t, 1, (1, 1), None)
    S.g[G_TURN] = turn
    S.g[G_WEATHER] = weather
    return S


def put(S, prep, **where):
    for uid, label in where.items():
        place(S, prep.t, U(prep, uid.replace("_", "-")), H(prep, label))
    refresh_lines(S, prep.t)


# ----------------------------------------------------------------------------- 7.0 ZOC

def test_fpa_7_0_every_unit_zocs_its_hex_and_the_six_around_and_7_5_none_in_storm(prep):
    S = empty(prep)
    put(S, prep, **{"9_mc": "2119"})
    t = prep.t
    h = H(prep, "2119")
    assert ezoc(S, t, c.GERMAN, h)
    for d in range(6):
        assert ezoc(S, t, c.GERMAN, int(t.neighbours[h, d]))
    assert not ezoc(S, t, c.GERMAN, H(prep, "2117"))        # two hexes away
    assert not ezoc(S, t, c.SOVIET, h)                      # a side's own ZOC is no EZOC to it
    S.g[G_WEATHER] = c.STORM
    assert not ezoc(S, t, c.GERMAN, h)


def test_fpa_7_2_a_unit_stops_on_entering_an_ezoc_and_never_goes_ezoc_to_ezoc(prep):
    S = empty(prep, weather=c.FROST)
    put(S, prep, **{"16_pz": "2218", "9_mc": "2019"})
    t = prep.t
    u = U(prep, "16-pz")
    reachable(S, t, u, 13)
    # 2119 is next to 9 Mech: enterable, but nothing is reached through it alone.
    assert S.mp[H(prep, "2119")] < INF
    assert S.prev[H(prep, "2119")] != -1
    for h in range(len(prep.labels)):
        p = S.prev[h]
        if p >= 0 and p != S.u_hex[u]:
            assert not ezoc(S, t, c.GERMAN, int(p)), f"{prep.labels[h]} reached through EZOC {prep.labels[p]}"
    # Starting in an EZOC: only hexes free of EZOC are first steps (an EZOC neighbour may
    # still be entered by going round through a free hex).
    place(S, t, u, H(prep, "2119"))
    reachable(S, t, u, 13)
    seen = 0
    for d in range(6):
        nb = int(t.neighbours[H(prep, "2119"), d])
        if ezoc(S, t, c.GERMAN, nb) and S.occ[c.SOVIET, nb] == 0:
            seen += 1
            assert S.prev[nb] != H(prep, "2119")
    assert seen >= 2


# ----------------------------------------------------------------------------- 6.0 stacking

def test_fpa_6_1_nine_german_steps_and_6_2_four_soviet_steps_plus_one_artillery(prep):
    S = empty(prep)
    t = prep.t
    put(S, prep, **{"16_pz": "3010", "371_inf": "3010"})   # 4 + 4 steps
    assert stack_ok(S, t, U(prep, "509-tiger"), H(prep, "3010"))      # 9th step
    put(S, prep, **{"509_tiger": "3010"})
    assert not stack_ok(S, t, U(prep, "503-tiger"), H(prep, "3010"))  # a 10th
    assert stack_ok(S, t, U(prep, "tg"), H(prep, "3010"))             # garrisons count nothing (2.7)
    put(S, prep, **{"6_gtc": "3005", "7_gtc": "3005"})                 # 2 + 2 steps
    assert not stack_ok(S, t, U(prep, "9-mc"), H(prep, "3005"))
    assert stack_ok(S, t, U(prep, "3-gm"), H(prep, "3005"))           # + one artillery step
    put(S, prep, **{"3_gm": "3005"})
    assert not stack_ok(S, t, U(prep, "17-b-art"), H(prep, "3005"))


# ----------------------------------------------------------------------------- 12.0 movement

def test_fpa_12_1_movement_factors_by_weather_and_8_3_soviet_out_of_supply_half_rounded_up(prep):
    t = prep.t
    for weather, (non_mech, mech) in ((c.THAW, (7, 10)), (c.FROST, (9, 13)), (c.STORM, (5, 7))):
        S = empty(prep, weather=weather)
        put(S, prep, **{"16_pz": "3010", "371_inf": "3110", "tg": "0805"})
        assert movement_factor(S, t, U(prep, "16-pz")) == mech
        assert movement_factor(S, t, U(prep, "371-inf")) == non_mech
        assert movement_factor(S, t, U(prep, "tg")) == 0          # 2.7: garrisons never move
    S2 = empty(prep, weather=c.THAW)
    put(S2, prep, **{"9_mc": "4005"})
    assert S2.supply[H(prep, "4005")] == 1
    assert movement_factor(S2, t, U(prep, "9-mc")) == 10
    S2.supply[H(prep, "4005")] = 0
    assert movement_factor(S2, t, U(prep, "9-mc")) == 5


def test_fpa_14_0_terrain_costs_by_class(prep):
    t = prep.t
    S = empty(prep)
    a, back = next((int(x), d) for f in np.flatnonzero(t.terrain == c.FOREST) for x in t.neighbours[f] if x >= 0
                   for d in range(6) if t.neighbours[x, d] == f and t.river[x, d] == 0)
    place(S, t, U(prep, "16-pz"), a)
    place(S, t, U(prep, "371-inf"), a)
    assert enter_cost(S, t, U(prep, "16-pz"), a, back, 0) == 2
    assert enter_cost(S, t, U(prep, "371-inf"), a, back, 0) == 1


def test_fpa_12_3_river_crossings_cost_by_the_table_free_in_frost_and_at_towns(prep):
    t = prep.t
    # 2218|2119 is a river hexside (the example turn); neither is a town.
    a, b = H(prep, "2218"), H(prep, "2119")
    d = [k for k in range(6) if t.neighbours[a, k] == b][0]
    assert t.river[a, d] >= 1
    S = empty(prep, weather=c.THAW)
    assert [int(river_cost(S, t, a, d, r)) for r in range(1, 7)] == [0, 1, 1, 1, 2, 3]
    S.g[G_WEATHER] = c.STORM
    assert [int(river_cost(S, t, a, d, r)) for r in range(1, 7)] == [0, 1, 1, 2, 2, 3]
    S.g[G_WEATHER] = c.FROST
    assert all(river_cost(S, t, a, d, r) == 0 for r in range(1, 7))
    # Dnestr, Bug, Prut: +1 on the roll
    major = np.argwhere(t.river == 2)
    ma, md = (int(x) for x in major[0])
    mb = int(t.neighbours[ma, md])
    if t.terrain[ma] not in (c.TOWN, c.FL) and t.terrain[mb] not in (c.TOWN, c.FL):
        S.g[G_WEATHER] = c.THAW
        assert [int(river_cost(S, t, ma, md, r)) for r in range(1, 7)] == [1, 1, 1, 2, 3, 3]
    # into or out of a town: free
    rows = np.argwhere((t.river > 0) & (t.terrain[:, None] == c.TOWN))
    ta, td = (int(x) for x in rows[0])
    S.g[G_WEATHER] = c.THAW
    assert river_cost(S, t, ta, td, 6) == 0


def test_fpa_12_4_korpsgruppe_range_costs_nothing_unless_a_soviet_zoc_touches_it(prep):
    t = prep.t
    S = empty(prep, weather=c.THAW)
    put(S, prep, **{"371_inf": "3010"})
    a = H(prep, "3010")
    S.kg_hex[0] = H(prep, "3011")
    assert enter_cost(S, t, U(prep, "371-inf"), a, 3, 0) == 0      # south, in the KG's range
    put(S, prep, **{"15_rc": "3113"})                             # ZOC into 3112, in range of 3011
    assert enter_cost(S, t, U(prep, "371-inf"), a, 3, 0) >= 1
    S.g[G_WEATHER] = c.STORM
    S2 = empty(prep, weather=c.STORM)
    put(S2, prep, **{"371_inf": "3010"})
    S2.kg_hex[0] = H(prep, "3011")
    assert enter_cost(S2, t, U(prep, "371-inf"), a, 3, 0) >= 1    # not in storm


def test_fpa_12_5_soviet_units_never_enter_the_no_go_area(prep):
    t = prep.t
    S = empty(prep, weather=c.FROST)
    inside = np.flatnonzero(t.restricted == 1)
    edge = [h for h in range(len(prep.labels)) if t.restricted[h] == 0
            and any(t.neighbours[h, d] >= 0 and t.restricted[t.neighbours[h, d]] == 1 for d in range(6))]
    place(S, t, U(prep, "10-gtc"), edge[0])
    refresh_lines(S, t)
    reachable(S, t, U(prep, "10-gtc"), 13)
    assert all(S.mp[h] >= INF for h in inside)


def test_fpa_3_2_6_stand_fast_keeps_germans_east_of_column_23_on_turn_1(prep):
    t = prep.t
    S = empty(prep, weather=c.FROST, turn=1)
    u = U(prep, "6-pz")
    put(S, prep, **{"6_pz": "2310"})
    S.u_start[u] = H(prep, "2310")
    reachable(S, t, u, 13)
    assert all(S.mp[h] >= INF for h in range(len(prep.labels)) if t.fpa_col[h] < 23)
    S.g[G_TURN] = 2
    reachable(S, t, u, 13)
    assert S.mp[H(prep, "2210")] < INF


# ----------------------------------------------------------------------------- 8.0, 9.2 lines

def test_fpa_8_2_8_4_soviet_supply_hand_drawn(prep):
    """A Soviet corps at 2119 with its way north blocked by German ZOC is out of supply; with the
    Germans gone it traces to the north edge; a unit in an EZOC hex is supplied if the hex next
    to it has a line (OQ-FPA-1 "allowed")."""
    t = prep.t
    S = empty(prep, weather=c.THAW)
    put(S, prep, **{"9_mc": "2119"})
    assert S.supply[H(prep, "2119")] == 1
    # a German screen two hexes north and around: every neighbour of 2119 in German ZOC
    ring = ["2117", "1918", "2218", "1920", "2220", "2121"]
    ids = ["16-pz", "371-inf", "509-tiger", "11-pz", "19-pz", "168-inf"]
    for uid, lab in zip(ids, ring, strict=True):
        place(S, t, U(prep, uid), H(prep, lab))
    refresh_lines(S, t)
    assert S.supply[H(prep, "2119")] == 0
    # a unit on a source hex in an EZOC is supplied (8.4)
    place(S, t, U(prep, "6-gtc"), H(prep, "2001"))
    place(S, t, U(prep, "208-inf"), H(prep, "2002"))
    refresh_lines(S, t)
    assert ezoc(S, t, c.SOVIET, H(prep, "2001")) and S.supply[H(prep, "2001")] == 1


def test_fpa_9_2_german_cc_hand_drawn(prep):
    t = prep.t
    S = empty(prep, weather=c.THAW)
    put(S, prep, **{"371_inf": "2025"})
    assert S.cc[H(prep, "2025")] == 1
    # Soviet units all around two hexes out: every line crosses their ZOC
    around = [h for h in range(len(prep.labels)) if t.dist[H(prep, "2025"), h] == 3]
    sov = [i for i, uid in enumerate(prep.unit_ids) if prep.t.u_side[i] == c.SOVIET]
    for u, h in zip(sov, around, strict=False):
        place(S, t, u, int(h))
    refresh_lines(S, t)
    assert len(around) <= len(sov)
    assert S.cc[H(prep, "2025")] == 0


# ----------------------------------------------------------------------------- 13.0 combat

def test_fpa_13_8_odds_columns_and_13_8_1_automatic_results(prep):
    t = prep.t
    assert column(t, 26, 7, 0) == (4, 4)          # 13.8's example: 3:1
    assert column(t, 8, 9, 0) == (1, 1)           # below 1:1 but at least 1:2
    assert column(t, 9, 9, 0) == (2, 2)
    assert column(t, 4, 9, 0) == (0, 0)           # below 1:2: automatic AL1
    assert column(t, 72, 9, 0) == (9, 9)          # above 7:1: automatic DL1+DR
    assert column(t, 63, 9, 1) == (8, 9)          # OQ-FPA-2 "final_odds": a shift reaches it
    assert column(t, 26, 7, -1) == (4, 3)          # 13.8.3's example: rough makes 3:1 a 2:1
    assert t.crt[0, 0] == c.AL1 and t.crt[5, 9] == c.DL1DR


def test_fpa_13_8_2_concentric_patterns():
    assert concentric(0b001001, 4)        # two opposite hexsides
    assert concentric(0b010101, 4)        # three with a gap between each
    assert not concentric(0b000111, 4)    # three side by side
    assert concentric(0b001111, 4)        # more than three
    assert not concentric(0b000011, 4)


def test_example_turn_first_attack_on_9_mech_is_2_to_1(prep):
    """Example turn: 16 Pz, 371 Inf and 509 Tiger in 2218 (AF 8) with one CAS marker against
    9 Mech (DF 9) in 2119: 1:1, river 1L, KG (2219) 1R, Tiger 1R: 2:1."""
    t = prep.t
    S = empty(prep, weather=c.FROST)
    put(S, prep, **{"16_pz": "2218", "371_inf": "2218", "509_tiger": "2218", "9_mc": "2119"})
    S.kg_hex[0] = H(prep, "2219")
    ev = np.zeros(E_N, dtype=np.int64)
    evaluate(S, t, c.GERMAN, H(prep, "2119"), c.SEG_FIGHT, 1, 0, ev)
    assert ev[E_COL] == 3, c.COLUMN_NAMES[ev[E_COL]]


def test_fpa_13_9_the_german_player_retreats_a_soviet_unit_and_a_blocked_one_loses_a_step(prep):
    t = prep.t
    S = empty(prep, weather=c.THAW)
    put(S, prep, **{"9_mc": "2119", "16_pz": "2218"})
    u = U(prep, "9-mc")
    retreat(S, t, u)
    assert t.dist[S.u_hex[u], H(prep, "2119")] == 1
    assert S.decisions.log[S.decisions.at[COUNT] - 1, KIND] == c.RETREAT
    # nowhere to go: every neighbour holds a German unit
    S = empty(prep, weather=c.THAW)
    put(S, prep, **{"9_mc": "2119"})
    ger = [i for i in range(len(prep.unit_ids)) if t.u_side[i] == c.GERMAN and t.u_class[i] != c.STATIC]
    for k, d in enumerate(range(6)):
        place(S, t, ger[k], int(t.neighbours[H(prep, "2119"), d]))
    retreat(S, t, u)
    assert S.u_hex[u] == H(prep, "2119") and S.u_steps[u] == 1


# ----------------------------------------------------------------------------- 4.0 victory

def test_fpa_3_1_start_vp_is_two_and_4_1_an_fl_is_worth_four(prep):
    t = prep.t
    S = empty(prep)
    assert victory_points(S, t, False) == 2
    fl = int(np.flatnonzero(t.is_fl == 1)[0])
    place(S, t, U(prep, "15-rc"), fl)
    # the FL's 4 replace the 1 it gave as a German hex out of C&C, if it was
    assert victory_points(S, t, False) >= 6 - 1


# ----------------------------------------------------------------------------- whole games

@pytest.mark.parametrize("player", ["random", "heuristic"])
def test_games_are_reproducible_and_replay_from_their_decisions(prep, player):
    players = {s: PLAYERS.spec(player) for s in prep.situation.side_names}
    a = play_one(prep, 7, players)
    b = play_one(prep, 7, players)
    assert (a.vp_turn == b.vp_turn).all() and (a.pos_turn == b.pos_turn).all()
    record = decisions(a)
    other = {s: PLAYERS.spec("random" if player == "heuristic" else "heuristic") for s in prep.situation.side_names}
    r = play_one(prep, 7, other, record=record)
    assert (r.vp_turn == a.vp_turn).all() and (r.pos_turn == a.pos_turn).all()
    # a record that is not this game's is refused, saying which decision differed
    with pytest.raises(ReplayMismatch, match="does not match|ends after|ended after"):
        play_one(prep, 8, other, record=record)


def test_random_games_keep_the_invariants(prep):
    """Stacking (6.0), no two sides in one hex, no Soviet unit in the no-go area (12.5), checked
    after every segment in debug mode."""
    players = {s: PLAYERS.spec("random") for s in prep.situation.side_names}
    for seed in range(30):
        S = play_one(prep, seed, players, debug=True)
        assert S.g[G_VIOLATION] == 0, seed


def test_play_games_tables(prep):
    players = {s: PLAYERS.spec("heuristic") for s in prep.situation.side_names}
    g, t, e = play_games(prep, [1, 2], players)
    assert list(g.seed) == [1, 2] and set(g.winner) <= {"soviet", "german", "draw"}
    assert len(t) == 2 * 9 * 2
    assert (t[t.turn == 0].measure == 2).all()


def test_debug_mode_flags_a_move_that_goes_on_after_entering_an_ezoc(prep):
    """7.2 as a debug invariant: a path forced through an EZOC hex (not one the engine offers)
    is caught on the step out of it."""
    t = prep.t
    S = empty(prep, weather=c.FROST)
    a = H(prep, "1114")
    path = [a]
    for _ in range(3):
        path.append(int(t.neighbours[path[-1], 3]))
    u = U(prep, "16-pz")
    place(S, t, u, a)
    place(S, t, U(prep, "9-mc"), int(t.neighbours[path[1], 2]))   # ZOC on path[1], not on a
    refresh_lines(S, t)
    assert not ezoc(S, t, c.GERMAN, a) and ezoc(S, t, c.GERMAN, path[1])
    for x, y in zip(path[1:], path[:-1], strict=True):
        S.prev[x] = y
    S.g[G_DEBUG] = 1
    move_unit(S, t, u, path[1], 13)
    assert S.g[G_VIOLATION] == 0                       # entering the EZOC and stopping: legal
    place(S, t, u, a)
    move_unit(S, t, u, path[3], 13)
    assert S.g[G_VIOLATION] == 4
