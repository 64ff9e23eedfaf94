"""The decision interface between rules and players (simulator/decisions.py, issue 17 phase B):
declared kinds, the core's random player, two random streams a game, and a game's decisions
recorded and replayed to the same game, with a clear error for a record that is not the game's."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from simulator import decisions as dm
from simulator import registry
from simulator.decisions import DecisionKind, ReplayMismatch
from simulator.situation import load_situation
from tests.toy_ruleset import NAME, SITUATION, register

KINDS = (DecisionKind("PICK", "one of n", ("value",)),
         DecisionKind("MAYBE", "one of n or none", ("value",), "pass", 0.5))


@pytest.fixture(scope="module")
def race():
    from tests.toy_ruleset.engine import prepare

    register()
    yield prepare(load_situation(SITUATION))
    registry.unregister(NAME)


def players(name: str):
    return tuple(registry.ruleset(NAME).players.spec(name) for _ in range(2))


# ----------------------------------------------------------------------------- declarations

def test_a_ruleset_declares_its_kinds_and_their_codes():
    assert dm.kind_codes(KINDS) == {"PICK": 0, "MAYBE": 1}
    assert dm.option_buffer(KINDS, 7).shape == (7, 1) and dm.option_buffer(KINDS, 7).dtype == np.int32
    assert dm.none_chances(KINDS).tolist() == [0.0, 0.5]
    with pytest.raises(ValueError, match="declared twice"):
        dm.kind_codes(KINDS + KINDS[:1])
    with pytest.raises(ValueError, match="needs a none answer"):
        DecisionKind("PICK", "x", random_none=0.3)
    with pytest.raises(ValueError, match="in capitals"):
        DecisionKind("pick", "x")
    register()
    try:
        assert [k.name for k in registry.ruleset(NAME).decision_kinds] == ["END_HEX"]
    finally:
        registry.unregister(NAME)


def test_panzerblitz_kinds_are_declared_by_the_ruleset_in_the_engines_order():
    from simulator.rulesets.panzerblitz import decision_kinds as pk
    from simulator.rulesets.panzerblitz import game

    kinds = registry.ruleset("panzerblitz").decision_kinds
    assert kinds is pk.DECISION_KINDS and len(kinds) == 17
    for name, code in pk.CODES.items():
        assert getattr(pk, name) == code, name
        if hasattr(game, name):  # the engine asks with the ruleset's codes
            assert getattr(game, name) == code, name
    assert {k.name for k in kinds if k.none} >= {"FIRE_TARGET", "MOVE_DEST", "ASSAULT_TARGET", "LOAD", "RETURN"}


# ----------------------------------------------------------------------------- the random player

def test_the_core_random_player_is_uniform_and_draws_only_from_the_players_stream():
    rng = dm.player_stream(11)
    picks = np.array([dm.random_option(rng, 4) for _ in range(4000)])
    assert set(picks.tolist()) == {0, 1, 2, 3} and abs(np.bincount(picks).min() - 1000) < 120
    assert dm.random_option(rng, 0) == dm.NONE
    nones = [dm.random_choice(rng, 3, 0.25) for _ in range(4000)]
    assert abs(nones.count(dm.NONE) / 4000 - 0.25) < 0.03 and dm.random_choice(rng, 0, 0.9) == dm.NONE
    # compiled, it draws exactly what NumPy draws from the same stream
    a, b = dm.player_stream(5), dm.player_stream(5)
    assert [dm.random_option(a, 9) for _ in range(20)] == [int(b.integers(0, 9)) for _ in range(20)]
    # the players' stream is the seed's, and not the dice's
    assert dm.player_stream(5).random() == dm.player_stream(5).random() != dm.dice_stream(5).random()


def test_the_random_player_plays_the_toy_ruleset_unchanged(race):
    """The toy's random player is the core's random_option: the toy adds nothing to it, and every
    move it makes is one the rules offered; over many games it ends on every offered hex."""
    from tests.toy_ruleset.engine import legal_moves, play_one

    sit = race.situation
    ends = set()
    for seed in range(30):
        g = play_one(race, seed, players("random"))
        pos = [sit.start[s] for s in race.sides]
        for _, si, roll, frm, to in g.moves:
            assert frm == pos[si] and to in legal_moves(race, frm, roll, pos[1 - si])
            pos[si] = to
            ends.add(to)
    assert len(ends) > 20


def test_the_dice_depend_only_on_the_seed_not_on_who_plays(race):
    from tests.toy_ruleset.engine import play_one

    for seed in range(10):
        a = play_one(race, seed, players("random"))
        b = play_one(race, seed, players("runner"))
        common = min(len(a.moves), len(b.moves))
        assert [m[2] for m in a.moves[:common]] == [m[2] for m in b.moves[:common]]


# ----------------------------------------------------------------------------- record and replay

@pytest.mark.parametrize("who", ["random", "runner"])
def test_a_recorded_game_replays_to_the_same_game_without_players(race, who):
    from tests.toy_ruleset.engine import play_one, record_one, replay_one

    for seed in range(15):
        game, record = record_one(race, seed, players(who))
        assert record.dtype == np.int32 and record.shape == (len(game.moves), 3)
        assert (record[:, dm.KIND] == 0).all() and (record[:, dm.CHOSEN] < record[:, dm.N_OPTIONS]).all()
        assert play_one(race, seed, players(who)) == game  # recording changes nothing
        assert replay_one(race, seed, record) == game


def test_a_tampered_record_fails_with_a_clear_message(race):
    from tests.toy_ruleset.engine import record_one, replay_one

    game, record = record_one(race, 4, players("runner"))
    assert len(record) >= 3
    wrong_n = record.copy()
    wrong_n[1, dm.N_OPTIONS] += 1
    wrong_n[1, dm.CHOSEN] = 0
    with pytest.raises(ReplayMismatch, match=r"replayed decision 2 of \d+ does not match the game: the record has "
                                             r"END_HEX with \d+ options \(chose 0\), the game offers END_HEX with \d+ options"):
        replay_one(race, 4, wrong_n)
    with pytest.raises(ReplayMismatch, match=r"record ends after 2 decisions, but the game asks more \(the next: END_HEX"):
        replay_one(race, 4, record[:2])
    with pytest.raises(ReplayMismatch, match=rf"game ended after {len(record)} of the record's {len(record) + 1}"):
        replay_one(race, 4, np.vstack([record, record[-1:]]))
    out_of_range = record.copy()
    out_of_range[0, dm.CHOSEN] = out_of_range[0, dm.N_OPTIONS]
    with pytest.raises(ReplayMismatch, match=r"row 1 \(END_HEX\): chose \d+ of \d+ options \(expected 0\.\.\d+\)"):
        replay_one(race, 4, out_of_range)
    unknown = record.copy()
    unknown[2, dm.KIND] = 5
    with pytest.raises(ReplayMismatch, match="row 3: kind 5 is not one of the ruleset's 1 kinds"):
        replay_one(race, 4, unknown)
    with pytest.raises(ReplayMismatch, match=r"row 1 \(END_HEX\): chose -1 .*\(expected 0\.\.\d+\)$"):
        replay_one(race, 4, np.vstack([[0, 3, -1], record]).astype(np.int32))


def test_another_seeds_record_does_not_replay_silently(race):
    """A record replayed on another seed's dice fails as soon as the options differ."""
    from tests.toy_ruleset.engine import record_one, replay_one

    failed = 0
    for seed in range(1, 8):
        _, record = record_one(race, seed, players("runner"))
        try:
            replay_one(race, seed + 100, record)
        except ReplayMismatch:
            failed += 1
    assert failed >= 6


# ----------------------------------------------------------------------------- in a numba kernel

@numba.njit
def _dispatch(kind, options, n, player, none_chance, dec):
    """A compiled ruleset's dispatcher, as simulator/decisions.py describes it."""
    if dm.replaying(dec):
        return dm.replayed(dec, kind, n)
    if player == 0:
        chosen = dm.random_choice(dec.rng, n, none_chance[kind])
    else:
        chosen = n - 1  # "the last option", a stand-in for a ruleset's own scoring
    return dm.decided(dec, kind, n, chosen)


@numba.njit
def _game(dice_seed, player, none_chance, dec):
    """A compiled toy game: the dice set how many options each decision has."""
    np.random.seed(dice_seed)
    options = np.zeros((8, 1), dtype=np.int32)
    total = 0
    for step in range(40):
        n = np.random.randint(0, 8)
        kind = step % 2
        i = _dispatch(kind, options, n, player, none_chance, dec)
        total = total * 3 + i + 1
    return total


def test_record_and_replay_inside_compiled_kernels():
    chances = dm.none_chances(KINDS)
    for seed in (1, 2, 3):
        plain = _game(seed, 0, chances, dm.for_play(seed))
        dec = dm.for_record(seed)
        assert _game(seed, 0, chances, dec) == plain
        record = dm.finished(dec, KINDS)
        assert len(record) == 40 and (record[:, dm.CHOSEN] == dm.NONE).any()  # MAYBE passed now and then
        replay = dm.for_replay(record, KINDS)
        assert _game(seed, 1, chances, replay) == plain  # the player is not asked
        dm.finished(replay, KINDS)
    small = dm.for_record(1, capacity=10)
    _game(1, 0, chances, small)
    with pytest.raises(ValueError, match="made 40 decisions, more than the record holds \\(10\\)"):
        dm.finished(small, KINDS)
    wrong = dm.for_replay(record, KINDS)
    _game(99, 0, chances, wrong)
    with pytest.raises(ReplayMismatch, match="does not match the game"):
        dm.finished(wrong, KINDS)


def test_a_batch_restarts_one_decisions_for_each_seed_as_if_made_for_it():
    dec = dm.for_play(3)
    dec.rng.random()
    dec.at[dm.COUNT] = 7
    dm.restart(dec, 11)
    assert dec.at[dm.COUNT] == 0 and dec.at[dm.MODE] == dm.PLAY
    assert dec.rng.random() == dm.player_stream(11).random() == dm.for_play(11).rng.random()
    with pytest.raises(ValueError, match="only a Decisions made for_play"):
        dm.restart(dm.for_record(3), 4)
