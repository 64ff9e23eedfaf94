"""Every optimisation keeps every game identical: replay the golden games and compare
their fingerprints (event-log hash and outcome) with the recorded ones."""

from __future__ import annotations

import json

import pytest

from simulator.situation import builtin_situations
from tests.panzerblitz.golden_games import GOLDEN, PAIRINGS, SEEDS, key, situation_fingerprints

SITUATIONS = [p.stem for p in builtin_situations()]


@pytest.fixture(scope="module")
def golden():
    return json.loads(GOLDEN.read_text())


def test_golden_file_covers_every_situation_pairing_and_seed(golden):
    expected = {key(s, p, seed) for s in SITUATIONS for p in PAIRINGS for seed in SEEDS}
    assert set(golden) == expected


@pytest.mark.parametrize("sid", SITUATIONS)
def test_games_match_their_golden_fingerprints(golden, sid):
    got = situation_fingerprints(sid)
    different = [k for k in got if got[k] != golden[k]]
    assert not different, f"{len(different)} games changed, first {different[0]}: {got[different[0]]} != {golden[different[0]]}"


def test_fingerprint_sees_a_changed_die_roll(golden):
    # The hash covers the event log: a game with one event changed must not match.
    import numpy as np

    from simulator.rulesets.panzerblitz.batch import prepare
    from simulator.rulesets.panzerblitz.replay import play
    from simulator.rulesets.panzerblitz.state import N_EVENTS
    from simulator.situation import load_situation
    from tests.panzerblitz.golden_games import fingerprint

    rec = play(prepare(load_situation("pb-01")), 0, ("random", "random"))
    k = int(rec.state.clock[N_EVENTS]) - 1
    rec.state.log[k, -1] = np.int64(rec.state.log[k, -1] + 1)
    assert fingerprint(rec) != golden[key("pb-01", ("random", "random"), 0)]


@pytest.mark.parametrize("sid", ["pb-04", "pb-12"])
def test_games_in_a_reused_state_match_their_golden_fingerprints(golden, sid):
    # batch.play_games plays every game of a batch in one StateBuffer: a game must not see
    # anything the previous one (another pairing too) left in the arrays or the event log.
    from simulator.rulesets.panzerblitz.batch import prepare
    from simulator.rulesets.panzerblitz.replay import play
    from simulator.rulesets.panzerblitz.state import StateBuffer
    from simulator.situation import load_situation
    from tests.panzerblitz.golden_games import fingerprint

    t = prepare(load_situation(sid))
    buffer = StateBuffer(t)
    for seed in SEEDS:
        for p in PAIRINGS:
            got = fingerprint(play(t, seed, p, state=buffer.fresh()))
            assert got == golden[key(sid, p, seed)], (sid, p, seed)
