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


def test_batches_reuse_their_players_and_give_the_same_games():
    # batch.play_games keeps a batch's players and state buffer for the next batch of the same
    # tables and players (batch._batch_players): the games of one batch of six and of three
    # batches of two are the same games, and other players get players of their own.
    import pandas as pd

    from simulator.rulesets.panzerblitz import batch
    from simulator.rulesets.panzerblitz.players.spec import parse_side_policies
    from simulator.situation import load_situation

    t = batch.prepare(load_situation("pb-04"))
    sides = t.situation.ruleset.sides
    heuristic = parse_side_policies(None, sides)
    specs = tuple(heuristic[s] for s in sides)
    whole = batch.play_games(t, list(range(1, 7)), heuristic)
    kept = batch._batch_players(t, specs)
    parts = [batch.play_games(t, [2 * b + 1, 2 * b + 2], heuristic) for b in range(3)]
    assert batch._batch_players(t, specs)[0] is kept[0] and batch._batch_players(t, specs)[1] is kept[1]
    for i, name in enumerate(("games", "turns", "losses")):
        joined = pd.concat([p[i] for p in parts], ignore_index=True)
        a, b = whole[i].drop(columns="batch_game"), joined.drop(columns="batch_game")
        if name == "games":  # a batch has the loss columns of the unit types it lost
            b = b.reindex(columns=a.columns).fillna(0).astype(a.dtypes.to_dict())
        pd.testing.assert_frame_equal(a, b, check_like=False, obj=name)
    other = parse_side_policies([f"{sides[0]}=random"], sides)
    assert batch._batch_players(t, tuple(other[s] for s in sides))[0] is not kept[0]


def test_a_game_with_the_jit_off_is_the_compiled_game(golden):
    # `balance bench` times the kernels as plain Python (NUMBA_DISABLE_JIT=1): they must run there
    # and play the same game (round 12's search bits called an intrinsic plain Python cannot call,
    # and the bench's pure-Python game crashed).
    import os
    import subprocess
    import sys

    code = ("import json; from tests.panzerblitz.golden_games import fingerprint;"
            "from simulator.rulesets.panzerblitz.batch import prepare;"
            "from simulator.rulesets.panzerblitz.replay import play;"
            "from simulator.situation import load_situation;"
            "print(json.dumps(fingerprint(play(prepare(load_situation('pb-01')), 1, ('heuristic', 'heuristic')))))")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == golden[key("pb-01", ("heuristic", "heuristic"), 1)]
