"""Situation special rules (PB-SIT-7 road march, PB-SIT-10 alternative victory), on the real
situations: whole games of Situation 7 and hand-set end positions of Situation 10."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.errors import DataError, DataErrors
from simulator.panzerblitz.replay import play
from simulator.panzerblitz.rules import EV_FIRER
from simulator.panzerblitz.state import ELIMINATED, ON_MAP, WAITING, new_state
from simulator.panzerblitz.tables import build_tables
from simulator.panzerblitz.victory import evaluate, measure_value
from simulator.situation import load_situation
from tests.test_rules import GERMAN, RUSSIAN

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
    sit = load_situation("pb-07", {"situation.side.german.group.0.units.rifle-platoon-german-42": 40})
    carriers = sum(c for name, c in sit.side("german").groups[0].units.items()
                   if build_tables(load_situation("pb-07")).unit_t.carrier[build_tables(load_situation("pb-07")).units.index(name)])
    with pytest.raises(DataError) as e:
        build_tables(sit)
    assert "enter.road_march" in str(e.value) and f"43 infantry and gun units but {carriers} carriers" in str(e.value)


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
