"""Whole games: determinism, invariants on every situation, and rules seen in play."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.rulesets.panzerblitz.replay import describe, play
from simulator.rulesets.panzerblitz.state import ELIMINATED, EXITED, ON_MAP, WAITING
from simulator.rulesets.panzerblitz.tables import build_tables
from simulator.situation import builtin_situations, load_situation

SITUATIONS = [p.stem for p in builtin_situations()]


def test_same_seed_same_game_line_for_line(tables_of):
    t = tables_of("pb-01")
    a = describe(play(t, 11), t)
    b = describe(play(t, 11), t)
    assert a == b
    assert describe(play(t, 12), t) != a


@pytest.mark.parametrize("sid", SITUATIONS)
def test_random_games_keep_every_invariant(tables_of, sid):
    t = tables_of(sid)
    for seed in range(3):
        rec = play(t, seed, debug=True)
        assert rec.violation is None, (sid, seed, rec.violation)
        st = rec.state
        # Every counter ends somewhere legal: on the map, exited, eliminated or still waiting.
        assert set(np.unique(st.status)) <= {WAITING, ON_MAP, EXITED, ELIMINATED}
        assert ((st.hex >= 0) == (st.status == ON_MAP)).all()


@pytest.mark.slow
@pytest.mark.parametrize("sid", SITUATIONS)
def test_random_games_keep_every_invariant_1000_seeds(tables_of, sid):
    t = tables_of(sid)
    for seed in range(1000):
        rec = play(t, seed, debug=True)
        assert rec.violation is None, (sid, seed, rec.violation)


def test_replay_reads_like_a_game(tables_of):
    t = tables_of("pb-01")
    lines = describe(play(t, 7), t)
    assert lines[0].startswith("pb-01: Russian Rear Area Raid")
    assert any(line.startswith("== turn 10, german player-turn") for line in lines)
    attacks = [line for line in lines if line.startswith("  attack on ")]
    assert attacks, "random play fires at least once in ten turns"
    assert all(" vs DF " in a and "odds " in a and "die " in a for a in attacks)
    assert lines[-1].startswith("  result: ") or lines[-1].startswith("  INVARIANT")


def test_pb_seq_3_units_that_fire_do_not_move(tables_of):
    # From the log: no unit both fires and moves in one player-turn.
    t = tables_of("pb-10")
    rec = play(t, 3)
    fired, moved = set(), set()
    for _turn, _side, kind, a, *_ in rec.events.tolist():
        if kind == 1:
            fired, moved = set(), set()
        elif kind == 6:
            fired.add(a)
        elif kind == 4:
            moved.add(a)
        assert not (fired & moved)


def test_pb_disp_3_dispersed_units_recover_at_the_end_of_their_turn(tables_of):
    t = tables_of("pb-06")
    rec = play(t, 5)
    st = rec.state
    # After the last player-turn, the side that just moved has no dispersed unit left.
    last_side = int(rec.events[-1][1])
    on = (st.status == ON_MAP) & (st.side == last_side)
    assert not st.dispersed[on].any()


def test_pb_ovr_9_cancelled_overrun_ends_within_stacking_limits(tables_of):
    # Regression: pb-03 seed 486 put a halftrack back into a full entry hex after its overrun
    # was cancelled (odds below 1-4).
    rec = play(tables_of("pb-03"), 486, debug=True)
    assert rec.violation is None


def test_losses_are_recorded_with_hex_and_turn(tables_of):
    """Every eliminated counter (PB-CRT-2 X, PB-TRANS-10 passengers) keeps where and when it was lost."""
    t = tables_of("pb-04")
    rec = play(t, 3, ("random", "random"))
    st = rec.state
    lost = st.status == ELIMINATED
    assert lost.any()
    assert (st.lost_turn[lost] >= 1).all() and (st.lost_turn[lost] <= t.situation.turns).all()
    assert (st.lost_hex[~lost] == -1).all() and (st.lost_turn[~lost] == -1).all()
    # The snapshot of the turn a unit was lost already shows it eliminated, the one before does not.
    for u in np.flatnonzero(lost & (st.lost_hex >= 0)):
        turn = st.lost_turn[u]
        assert st.snap_status[turn, u] == ELIMINATED
        assert st.snap_status[turn - 1, u] != ELIMINATED
    assert (st.snap_status[-1] == st.status).all() and (st.snap_hex[-1] == st.hex).all()


def test_decided_turn_is_where_the_provisional_result_stops_changing(tables_of):
    from simulator.rulesets.panzerblitz.victory import Outcome, decided_turn, provisional

    def o(winner, level):
        return Outcome({}, {}, winner, level)

    g, r = o("german", "marginal"), o("russian", "tactical")
    assert decided_turn([g, g, g]) == 0
    assert decided_turn([g, r, g, g]) == 2
    assert decided_turn([g, g, r]) == 2
    assert decided_turn([g, o("german", "decisive"), g]) == 2  # the level counts too
    t = tables_of("pb-04")
    rec = play(t, 3, ("random", "random"))
    standing = provisional(rec.state, t)
    assert len(standing) == t.situation.turns + 1
    assert standing[-1] == rec.outcome  # the last turn's provisional result is the final one


def test_pb_vic_3_both_sides_at_a_level_higher_or_difference(tmp_path):
    """PB-VIC-3 (readings.both_sides_reach_level): German tactical against Russian marginal is
    a German tactical victory read "higher" (adopted), a German marginal one read "difference"
    (published game reports); the winner is the same, and each outcome carries the other."""
    from simulator.rulesets.panzerblitz.state import new_state
    from simulator.rulesets.panzerblitz.victory import evaluate, result_of
    from simulator.situation import load_situation
    from tests.panzerblitz.test_rules import position_file

    assert result_of({"german": 2, "russian": 1}) == ("german", 2, 1)
    assert result_of({"german": 1, "russian": 3}) == ("russian", 3, 2)
    assert result_of({"german": 2, "russian": 0}) == ("german", 2, 2)
    assert result_of({"german": 2, "russian": 2}) == (None, 0, 0)
    units = [("german", "pzkw-iv-h", "3M5"), ("german", "pzkw-iv-h", "3M6"),
             ("russian", "t-34-c", "3Q5"), ("russian", "t-34-c", "3Q6")]
    kills = ['measure = "destroyed"', 'whose = "enemy"', "marginal = 1", "tactical = 2"]
    path = position_file(tmp_path, units, victory={"german": kills, "russian": kills})
    for reading, level, other in (("higher", "tactical", "marginal"), ("difference", "marginal", "tactical")):
        t = build_tables(load_situation(path, {"readings.both_sides_reach_level": reading}))
        st = new_state(t, np.random.default_rng(0))
        st.engaged[:] = True
        st.status[:] = ON_MAP
        st.status[[2, 3, 0]] = ELIMINATED  # both Russian tanks, one German
        o = evaluate(st, t)
        assert (o.winner, o.level, o.other_level) == ("german", level, other), reading
        assert o.levels == {"german": "tactical", "russian": "marginal"}


def test_summary_reports_the_other_reading_of_levels_where_it_differs():
    import pandas as pd

    from simulator import registry
    from simulator.rulesets.panzerblitz.players.spec import parse_policy
    from simulator.summary import format_summary, summarize

    games = pd.DataFrame({"winner": ["german", "german", "russian", "draw"],
                          "level": ["tactical", "marginal", "decisive", "none"],
                          "level_alt": ["marginal", "marginal", "decisive", "none"],
                          "turns_played": [10] * 4})
    rs = registry.ruleset("panzerblitz")
    s = summarize(games, situation=load_situation("pb-04"), seed=1,
                  policies={x: parse_policy("random") for x in ("german", "russian")}, ruleset=rs,
                  elapsed_s=1.0)
    alt = s["alternative_levels"]
    assert alt["games_differ"] == 1 and alt["reading"] == 'readings.both_sides_reach_level = "difference"'
    assert alt["levels"]["german"] == {"marginal": 0.5, "tactical": 0.0, "decisive": 0.0}
    assert s["outcomes"]["german"]["levels"]["tactical"] == 0.25 and s["outcomes"]["german"]["win"] == 0.5
    assert "the same winners, 1 game at another level" in format_summary(s)
    same = summarize(games.assign(level_alt=games["level"]), situation=load_situation("pb-04"), seed=1,
                     policies={x: parse_policy("random") for x in ("german", "russian")}, ruleset=rs,
                     elapsed_s=1.0)
    assert same["alternative_levels"]["games_differ"] == 0
    assert "another level" not in format_summary(same)
    other = summarize(games, situation=load_situation("pb-04", {"readings.both_sides_reach_level": "difference"}),
                      seed=1, policies={x: parse_policy("random") for x in ("german", "russian")}, ruleset=rs,
                      elapsed_s=1.0)
    assert other["alternative_levels"]["reading"] == 'readings.both_sides_reach_level = "higher"'
