"""Situation special rules (PB-SIT-7 road march, PB-SIT-10 alternative victory), on the real
situations: whole games of Situation 7 and hand-set end positions of Situation 10."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.errors import DataError, DataErrors
from simulator.rulesets.panzerblitz.events import EV_FIRER
from simulator.rulesets.panzerblitz.replay import play
from simulator.rulesets.panzerblitz.state import ELIMINATED, ON_MAP, WAITING, new_state
from simulator.rulesets.panzerblitz.tables import build_tables
from simulator.rulesets.panzerblitz.victory import evaluate, measure_value
from simulator.situation import load_situation
from tests.panzerblitz.pb_players import pb_players
from tests.panzerblitz.test_rules import GERMAN, RUSSIAN

# Situation 7's columns: the German enters at 1Q10 toward 3Q1, the Russian the other way.
SEEDS = (1, 2)


@pytest.fixture(scope="module")
def pb07():
    return build_tables(load_situation("pb-07"))


@pytest.fixture(scope="module")
def pb07_games(pb07):
    return [play(pb07, s, ("heuristic", "heuristic"), debug=True) for s in SEEDS] + \
           [play(pb07, s, ("random", "random"), debug=True) for s in SEEDS]


@pytest.fixture(scope="module")
def pb07_marches():
    """Games stopped after the two turns of the march: nobody has unloaded yet, so the final
    `carried_by` tells the passengers apart in every snapshot."""
    t = build_tables(load_situation("pb-07", {"situation.turns": 2}))
    return t, [play(t, s, (p, p), debug=True) for s in SEEDS for p in ("heuristic", "random")]


def road(t, side):
    return [g.road_path for s in t.situation.sides for g in s.groups][side]


def column_hexes(t, st, side, turn):
    """Hexes of `side`'s counters on the map after game-turn `turn`, passengers left out (as
    carried at the end of the game)."""
    on = (st.side == side) & (st.snap_status[turn] == ON_MAP) & (st.carried_by < 0)
    return st.snap_hex[turn][on]


def test_pb_sit_7_columns_enter_unstacked_along_the_road_12_hexes_a_turn(pb07_marches):
    pb07, games = pb07_marches
    for rec in games:
        st = rec.state
        assert st.clock[6] == 0  # no invariant broken (debug mode)
        for side in (GERMAN, RUSSIAN):
            path = list(road(pb07, side))
            hexes = column_hexes(pb07, st, side, 1)
            # Turn 1: the lead is on the 12th road hex, one counter a hex behind it back to the
            # entry hex, the rest still off the map in road-march order.
            assert sorted(path.index(h) for h in hexes) == list(range(12)), rec.seed
        # Turn 2, German (moves first): 24 hexes of road, one counter each.
        hexes = column_hexes(pb07, st, GERMAN, 2)
        assert sorted(list(road(pb07, GERMAN)).index(h) for h in hexes) == list(range(24))


def test_pb_sit_7_infantry_and_guns_ride_in_trucks_and_halftracks(pb07):
    st = new_state(pb07, np.random.default_rng(0))
    walkers = ~pb07.unit_t.vehicle[st.utype] & ~pb07.unit_t.positional[st.utype]
    assert walkers.sum() == 7 + 14  # German rifles, mortar, AT guns; Russian SMG, recon, AT guns, MG
    assert (st.carried_by[walkers] >= 0).all()


def test_pb_sit_7_the_meeting_is_on_the_11th_hex_of_the_russian_second_turn(pb07, pb07_marches, pb07_games):
    """The Q&A: "the meeting occurs on the 11th hex of the Russian 2nd Turn ... the Russian
    column stops"; then from turn 3 both sides leave the road at full speed."""
    for rec in pb07_marches[1]:
        st = rec.state
        path = list(road(pb07, RUSSIAN))
        lead = max(path.index(h) for h in column_hexes(pb07, st, RUSSIAN, 2))
        assert lead == 11 + 11, rec.seed
    for rec in pb07_games:
        st = rec.state
        assert st.clock[6] == 0  # no invariant broken (debug mode)
        # Turn 3: the columns are free; some counter of each side leaves the road or a counter
        # still off the map enters behind it.
        for side in (GERMAN, RUSSIAN):
            on_road = set(road(pb07, side))
            moved_off = any(h not in on_road for h in column_hexes(pb07, st, side, 3))
            entered = (st.snap_status[3][st.side == side] == ON_MAP).sum() > \
                (st.snap_status[2][st.side == side] == ON_MAP).sum()
            assert moved_off or entered, (rec.seed, side)


def test_pb_sit_7_a_marching_column_does_not_fire(pb07_games):
    for rec in pb07_games:
        log = rec.state.log[:rec.state.clock[2]]
        assert not ((log[:, 2] == EV_FIRER) & (log[:, 0] <= 2)).any()


def test_pb_sit_7_the_heuristic_leads_with_its_tanks(pb07, pb07_marches):
    st = pb07_marches[1][0].state  # seed 1, heuristic
    for side in (GERMAN, RUSSIAN):
        path = list(road(pb07, side))
        on = (st.side == side) & (st.snap_status[1] == ON_MAP) & (st.carried_by < 0)
        lead = [u for u in np.flatnonzero(on) if path.index(st.snap_hex[1][u]) == 11][0]
        t = st.utype[lead]
        assert pb07.unit_t.armored[t] and pb07.unit_t.attack[t] > 0 and st.carrying[lead] < 0
        assert pb07.units.names[t] in ("panther-g", "t-34_85", "t-34-c", "su-85", "pzkw-iv-h", "stug-iii-g")


def test_pb_sit_7_bad_road_march_names_the_field():
    with pytest.raises((DataError, DataErrors)) as e:
        load_situation("pb-07", {"situation.side.german.group.0.enter.road_march.toward": "2A1"})
    assert "road_march.toward" in str(e.value) and "no road leads" in str(e.value)


def test_pb_sit_7_a_column_needs_a_carrier_for_each_walker():
    t = build_tables(load_situation("pb-07"))
    carriers = sum(c for name, c in t.situation.side("german").groups[0].units.items()
                   if t.unit_t.carrier[t.units.index(name)])
    # Found when the situation is loaded (issue 16: `validate` says so), not when a game is prepared.
    with pytest.raises(DataErrors) as e:
        load_situation("pb-07", {"situation.side.german.group.0.units.rifle-platoon-german-42": 40})
    assert "enter.road_march" in str(e.value) and f"43 infantry and gun units but {carriers} carriers" in str(e.value)
    assert "pb-07.toml with --set" in str(e.value)


# ------------------------------------------------------------------------- Situation 10

@pytest.fixture(scope="module")
def pb10():
    return build_tables(load_situation("pb-10"))


def at_brigade(t, st):
    names = [g.name for s in t.situation.sides for g in s.groups]
    return st.group == names.index("26th AT Bgde.")


def test_pb_sit_10_germans_win_marginally_by_the_at_brigade_without_entering_board_3(pb10):
    st = new_state(pb10, np.random.default_rng(0))
    st.engaged[:] = True  # a battle was fought (PB-VIC-6)
    st.status[at_brigade(pb10, st)] = ELIMINATED
    assert at_brigade(pb10, st).sum() == 12
    german_value = measure_value(pb10.situation.side("german").victory, st, pb10, GERMAN)
    assert german_value == 12 < 15  # below the card's marginal threshold
    st.status[(st.side == RUSSIAN) & ~at_brigade(pb10, st)] = WAITING
    o = evaluate(st, pb10)
    assert o.levels["german"] == "marginal"
    board3 = pb10.situation.map.sole_board_hexes("3")
    st.visited[board3[0]] |= 1 << GERMAN  # one German unit passed through board 3
    assert evaluate(st, pb10).levels["german"] == "none"


def test_pb_sit_10_russians_win_decisively_on_board_3_if_the_germans_never_entered_it(pb10):
    st = new_state(pb10, np.random.default_rng(0))
    st.engaged[:] = True
    board3 = pb10.situation.map.sole_board_hexes("3")
    tank = int(np.flatnonzero((st.side == RUSSIAN) & ~at_brigade(pb10, st))[0])
    st.hex[tank], st.status[tank] = board3[5], ON_MAP
    assert evaluate(st, pb10).levels["russian"] == "decisive"
    assert measure_value({"measure": "entered", "whose": "enemy", "area": {"boards": ["3"]}}, st, pb10, RUSSIAN) == 0
    st.visited[board3[7]] |= 1 << GERMAN
    assert evaluate(st, pb10).levels["russian"] == "none"  # one unit is far below 10


def test_pb_sit_10_also_conditions_are_checked():
    with pytest.raises((DataError, DataErrors)) as e:
        load_situation("pb-10", {"situation.side.german.victory.also.0.all.0.group": "27th AT Bgde."})
    assert "27th AT Bgde." in str(e.value) and "26th AT Bgde." in str(e.value)


# ------------------------------------------------------------------------- Situation 5

# PB-SIT-5's round trip on Situation 5's boards (3 on top, 1 rotated, 2 below: 30 rows from the
# north edge to the south edge): out by the south edge of board 2, three game-turns off, back on
# where it left, out by the north edge of board 3.
ROUND_TRIP = ['measure = "round_trip"', 'whose = "own"', 'edge = "south"', 'final_edge = "north"',
              "stay_off_turns = 3", "marginal = 1"]


def round_trip_position(tmp_path, turns=9, return_leg=True, units=None):
    from tests.panzerblitz.test_rules import placed_state, position_file

    victory = ROUND_TRIP + ([] if return_leg else ["return_leg = false"])
    units = units or [("german", "sdkfz-234_1", "2M10"), ("russian", "command-post", "3A1")]
    t = build_tables(load_situation(position_file(tmp_path, units, layout='[["3"], ["1i"], ["2"]]', turns=turns,
                                                  victory={"german": victory})))
    return t, placed_state(t)


def german_moves(t, st, turn):
    """The German vehicle movement of game-turn `turn` (S4), heuristic player."""
    from simulator.rulesets.panzerblitz.movement_phase import movement_phase
    from tests.panzerblitz.test_policies import heuristic_players

    st.clock[0] = turn  # TURN
    movement_phase(st, t.unit_t, t.map_t, t.move_t, t.combat_t, t.stack_limit, GERMAN, True,
                   pb_players(t, st, *heuristic_players()))
    st.moved[:] = False


def test_pb_sit_5_a_unit_out_three_turns_back_at_its_exit_hex_and_out_the_far_edge_scores(tmp_path):
    from simulator.rulesets.panzerblitz.events import EV_ENTER
    from simulator.rulesets.panzerblitz.state import EXITED, N_EVENTS

    t, st = round_trip_position(tmp_path)
    car = 0
    st.engaged[:] = True
    german_moves(t, st, 1)
    assert st.status[car] == EXITED and t.map_t.edge_mask[st.trip_hex[car]] & 2  # out by the south edge
    out_hex, out_turn = st.trip_hex[car], st.exit_turn[car]
    v = t.situation.side("german").victory
    for turn in (2, 3, 4):  # three whole game-turns off: coming back is not offered
        german_moves(t, st, turn)
        assert st.status[car] == EXITED and not st.returned[car], turn
    german_moves(t, st, 5)  # back on at the hex where it left
    log = st.log[:st.clock[N_EVENTS]]
    back = log[(log[:, 2] == EV_ENTER) & (log[:, 3] == car)]
    assert len(back) == 1 and back[0][4] == out_hex and back[0][6] == 1 and back[0][0] == out_turn + 4
    assert st.returned[car]
    assert measure_value(v, st, t, GERMAN) == 0  # not yet out by the far edge
    for turn in (6, 7, 8, 9):
        if st.status[car] != EXITED:
            german_moves(t, st, turn)
    assert st.status[car] == EXITED and st.exit_edge[car] == 1  # out by the north edge
    assert measure_value(v, st, t, GERMAN) == 1
    assert evaluate(st, t).levels["german"] == "marginal"
    # The result turn by turn: before it left by the north edge it had not scored.
    assert measure_value(v, st, t, GERMAN, now=int(st.exit_turn[car]) - 1) == 0


def test_pb_sit_5_a_unit_that_does_not_come_back_does_not_score(tmp_path):
    from simulator.rulesets.panzerblitz.state import EXITED

    # Out in turn 1 and kept off: with the return leg it counts nothing; the reading before
    # the return leg (`return_leg = false`) counted it once it had stayed off three turns.
    for return_leg, expected in ((True, 0), (False, 1)):
        t, st = round_trip_position(tmp_path, turns=6, return_leg=return_leg)
        st.engaged[:] = True
        german_moves(t, st, 1)
        assert st.status[0] == EXITED
        assert measure_value(t.situation.side("german").victory, st, t, GERMAN) == expected
        assert evaluate(st, t).levels["german"] == ("marginal" if expected else "none")


def test_pb_sit_5_exits_by_the_far_edge_only_after_the_way_out(tmp_path):
    from simulator.rulesets.panzerblitz.presence import exit_edges_of

    t, st = round_trip_position(tmp_path, units=[("german", "sdkfz-234_1", "3M2"),
                                                 ("russian", "command-post", "3A1")])
    car = 0
    assert exit_edges_of(st, car) == 2  # south only: leaving north now could never score
    german_moves(t, st, 1)
    assert st.status[car] == ON_MAP  # it heads south, it does not leave by the near north edge
    st.trip_hex[car] = t.situation.map.lookup("2M10")
    assert exit_edges_of(st, car) == 1  # been out: the north edge only


def test_pb_sit_5_coming_back_is_refused_where_an_enemy_holds_the_exit_hex(tmp_path):
    from simulator.rulesets.panzerblitz.state import EXITED

    # A Russian rifle company stands on the exit hex: the armoured car (which may overrun only
    # soft targets, at odds it may not reach) stays off and tries again later (docs/rulings.md).
    t, st = round_trip_position(tmp_path, units=[("german", "sdkfz-234_1", "2M10"),
                                                 ("russian", "rifle-company-43", "3A1")])
    car, rifle = 0, 1
    st.engaged[:] = True
    german_moves(t, st, 1)
    assert st.status[car] == EXITED
    st.hex[rifle] = st.trip_hex[car]
    for turn in (5, 6):
        german_moves(t, st, turn)
        assert st.status[car] == EXITED and not st.returned[car]
    st.hex[rifle] = t.situation.map.lookup("3A1")  # the way is clear again
    german_moves(t, st, 7)
    assert st.returned[car] and st.status[car] == ON_MAP


def test_pb_sit_5_round_trip_fields_are_checked(tmp_path):
    from tests.panzerblitz.test_rules import position_file

    bad = ROUND_TRIP[:3] + ['final_edge = "south"'] + ROUND_TRIP[4:]
    with pytest.raises((DataError, DataErrors)) as e:
        load_situation(position_file(tmp_path, [("german", "sdkfz-234_1", "3M2")], victory={"german": bad}))
    assert "final_edge" in str(e.value)


# ------------------------------------------------------------------------- Situation 1

def test_pb_sit_1_forts_go_on_full_hilltops_of_each_hill_chosen_by_the_player():
    """PB-SIT-1: a fort on a hilltop hex "with six Orange hex-sides" (Q&A), one on each hill
    (Hill 129, Hill 132), the third at least 3 hexes from the others; each CP in its fort."""
    sit = load_situation("pb-01")
    m = sit.map
    full = {g.name: {m.labels[h] for h in g.hexes} for g in sit.side("german").groups}
    assert full["580th Signal Rgt. CP 1"] == {"2E6", "2F7", "2G7", "2H7", "2H8", "2I7"}
    hill132 = full["580th Signal Rgt. CP 2"]
    assert "2G7" not in hill132 and "2T6" not in hill132  # 2T6: plateau interior, no orange side
    assert len(hill132) == 22 and {"2P7", "2X7", "2S3"} <= hill132
    t = build_tables(sit)
    cp, fort = t.units.index("command-post"), t.units.index("fort-40")
    for seed in (1, 2, 3):
        for pol in ("heuristic", "random"):
            st = play(t, seed, (pol, pol), debug=True).state
            assert st.clock[6] == 0
            at = [int(h) for h in st.snap_hex[0][(st.side == GERMAN) & (st.utype == cp)]]
            forts = {int(h) for h in st.snap_hex[0][(st.side == GERMAN) & (st.utype == fort)]}
            assert forts == set(at) and len(forts) == 3  # each CP in a fort of its own
            assert m.labels[at[0]] in full["580th Signal Rgt. CP 1"]
            assert m.labels[at[1]] in hill132
            assert m.labels[at[2]] in full["580th Signal Rgt. CP 3"]
            assert min(t.map_t.dist[at[2], at[0]], t.map_t.dist[at[2], at[1]]) >= 3


def test_pb_sit_1_the_fixed_hexes_of_openpanzerblitz_are_a_variant():
    # The reading before issue 21 (OpenPanzerBlitz's 2G7 and 2T6, CP 3 on any hilltop) as --set keys.
    sit = load_situation("pb-01", {"situation.side.german.group.0.setup.hexes": ["2G7"],
                                   "situation.side.german.group.2.setup.hexes": ["2T6"],
                                   "situation.side.german.group.2.setup.hexsides.orange": 0,
                                   "situation.side.german.group.4.setup.hexsides.orange": 0})
    g = sit.side("german").groups
    assert [sit.map.labels[h] for h in g[0].hexes] == ["2G7"] and [sit.map.labels[h] for h in g[2].hexes] == ["2T6"]
    assert "2T6" in {sit.map.labels[h] for h in g[4].hexes}


def test_hexsides_area_filter_is_checked():
    with pytest.raises((DataError, DataErrors)) as e:
        load_situation("pb-01", {"situation.side.german.group.0.setup.hexsides.orange": 7})
    assert "hexsides.orange" in str(e.value) and "0 to 6" in str(e.value)
