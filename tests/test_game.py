"""Whole games: determinism, invariants on every situation, and rules seen in play."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.panzerblitz.replay import describe, play
from simulator.panzerblitz.state import ELIMINATED, EXITED, ON_MAP, WAITING
from simulator.panzerblitz.tables import build_tables
from simulator.situation import builtin_situations, load_situation

SITUATIONS = [p.stem for p in builtin_situations()]


@pytest.fixture(scope="module")
def tables_of():
    cache = {}

    def get(sid):
        if sid not in cache:
            cache[sid] = build_tables(load_situation(sid))
        return cache[sid]
    return get


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
    from simulator.panzerblitz.victory import Outcome, decided_turn, provisional

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
