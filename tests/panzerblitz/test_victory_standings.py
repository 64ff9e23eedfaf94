"""The victory conditions scored for every game-turn at once (victory.standings, batch_standings)
against one `evaluate` a game-turn (PB-VIC-3..6), and the state buffer the batch reads them from.

A batch's tables are built from its games' recorded fields after the last game
(batch._BatchColumns); these tests hold that reading to the per-turn one it replaced, on real
games of every card and on snapshots scrambled to reach the branches real games rarely do."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.rulesets.panzerblitz.batch import _BatchColumns
from simulator.rulesets.panzerblitz.replay import play
from simulator.rulesets.panzerblitz.situation_schema import victory_measures
from simulator.rulesets.panzerblitz.state import (
    ELIMINATED,
    EXITED,
    NOT_PLACED,
    ON_MAP,
    WAITING,
    State,
    StateBuffer,
    new_state,
)
from simulator.rulesets.panzerblitz.victory import (
    RECORDED,
    batch_standings,
    decided_turn,
    evaluate,
    provisional_by_turn,
    recorded,
    standings,
)
from simulator.situation import load_situation

CARDS = [f"pb-{i:02d}" for i in range(1, 13)]


def _named_hexes(t, m) -> list[int]:
    """The hexes a victory condition names (hexes_controlled), in all its parts."""
    return [t.situation.map.lookup(h) for part in victory_measures(m) for h in part.get("hexes", [])]


def _scramble(st: State, t, rng: np.random.Generator, extra: list[int] = ()) -> None:
    """Every game-turn's snapshot made up: units on the map (half of them in the hexes a
    condition names, if any), eliminated, exited or waiting, control and visits at random, exits
    at random turns and edges."""
    n_turns, n = st.snap_hex.shape
    n_hex = st.snap_control.shape[1]
    st.snap_status[:] = rng.choice([ON_MAP, ELIMINATED, EXITED, WAITING, NOT_PLACED], size=(n_turns, n))
    named = [h for s in t.situation.sides for h in _named_hexes(t, s.victory)] + list(extra) or [0]
    anywhere = rng.integers(0, n_hex, size=(n_turns, n))
    hexes = np.where(rng.random((n_turns, n)) < 0.5, anywhere, rng.choice(named, size=(n_turns, n)))
    st.snap_hex[:] = np.where(st.snap_status == ON_MAP, hexes, -1)
    st.snap_control[:] = rng.integers(-1, 2, size=(n_turns, n_hex))
    st.snap_visited[:] = rng.integers(0, 4, size=(n_turns, n_hex))
    st.exit_turn[:] = rng.integers(0, n_turns, size=n)
    st.exit_edge[:] = rng.integers(0, 16, size=n)
    st.returned[:] = rng.random(n) < 0.5


@pytest.mark.parametrize("sid", CARDS)
def test_pb_vic_3_standings_agree_with_one_evaluation_a_game_turn(tables_of, sid):
    t = tables_of(sid)
    rng = np.random.default_rng(7)
    for seed, policies in ((1, ("heuristic", "heuristic")), (2, ("random", "random"))):
        st = play(t, seed, policies).state
        sd = standings(st, t)
        by_turn = provisional_by_turn(st, t)
        assert sd.outcomes(t) == by_turn
        assert int(sd.decided_turn()) == decided_turn(by_turn)
        if st.engaged.any():   # (else no battle, PB-VIC-6: judged on the final state, not the turns)
            assert sd.outcome(t, -1) == evaluate(st, t)   # the final result is the last game-turn's
        # Scrambled snapshots: exits, returns, controls and visits real games rarely reach.
        _scramble(st, t, rng)
        assert standings(st, t).outcomes(t) == provisional_by_turn(st, t)


@pytest.mark.parametrize("sid", ["pb-01", "pb-05", "pb-09", "pb-10"])
def test_a_batch_is_scored_as_its_games_one_by_one(tables_of, sid):
    """batch_standings over the recorded fields of several games = each game's standings; a
    game where neither side engaged is no battle (PB-VIC-6): a draw, every level none, every
    measure 0, as `evaluate` says of it."""
    t = tables_of(sid)
    buffer = StateBuffer(t, recorded(t))
    records, singles, outcomes = [], [], []
    for seed in range(4):
        st = play(t, seed, ("heuristic", "random"), state=buffer.fresh()).state
        if seed == 3:
            st.engaged[:] = False
        records.append(buffer.recorded().copy())
        singles.append(standings(st, t))
        outcomes.append(evaluate(st, t))
    games = buffer.unpack(np.stack(records))
    together = batch_standings(games, t)
    for g, one in enumerate(singles):
        for field in ("values", "ranks", "winner", "level", "other_level"):
            assert (getattr(together, field)[g] == getattr(one, field)).all()
    assert (together.decided_turn() == [int(s.decided_turn()) for s in singles]).all()
    cols = _BatchColumns(t, np.arange(4, dtype=np.int64), games)
    sides = t.situation.ruleset.sides
    for g, o in enumerate(outcomes):
        assert cols.winner[g] == (o.winner or "draw") and cols.level[g] == o.level and cols.level_alt[g] == o.other_level
        assert [cols.side_level[g, i] for i in range(len(sides))] == [o.levels[s] for s in sides]
        assert [cols.side_value[g, i] for i in range(len(sides))] == [o.values[s] for s in sides]
    assert outcomes[3].no_battle and cols.winner[3] == "draw" and (cols.side_value[3] == 0).all()


def test_the_state_buffer_is_one_block_restored_whole_by_fresh(tables_of):
    """StateBuffer: the same dtypes and shapes as new_state (the kernels' types), every field
    back to the initial state after a game, the recorded fields first and read back as they were."""
    t = tables_of("pb-04")
    initial = new_state(t, None)
    buffer = StateBuffer(t, RECORDED)
    st = buffer.fresh()
    for name in State._fields:
        a, b = getattr(st, name), getattr(initial, name)
        assert a.dtype == b.dtype and a.shape == b.shape and a.flags.c_contiguous, name
    play(t, 5, ("heuristic", "heuristic"), state=st)
    kept = buffer.recorded().copy()
    played = {name: getattr(st, name).copy() for name in RECORDED}
    assert not (played["snap_hex"] == initial.snap_hex).all()   # the game changed what is recorded
    st = buffer.fresh()
    for name in State._fields:
        if name not in StateBuffer._OWN:
            assert (getattr(st, name) == getattr(initial, name)).all(), name
    back = buffer.unpack(np.stack([kept, kept]))
    assert set(back) == set(RECORDED)
    for name in RECORDED:
        assert back[name].shape == (2,) + played[name].shape and (back[name][1] == played[name]).all(), name
    with pytest.raises(ValueError, match="names a field not in the block"):
        StateBuffer(t, ("log",))


def _every_measure(t) -> list[dict]:
    """A condition of every kind the classic victory table knows, with each of its options, on
    the card's own map, units and groups (the cards themselves use only some of them)."""
    m = t.situation.map
    labels = [m.labels[h] for h in range(0, m.n_hexes, max(1, m.n_hexes // 6))]
    unit = t.units.names[0]
    group = t.situation.sides[0].groups[0].name
    out = [{"measure": "hexes_controlled", "whose": w, "hexes": labels} for w in ("own", "enemy")]
    out += [{"measure": "furthest_advance", "toward": d} for d in ("east", "west", "north", "south")]
    for edge in ("north", "south", "east", "west"):
        out += [{"measure": "exited", "edge": edge}, {"measure": "not_exited", "edge": edge, "whose": "enemy"},
                {"measure": "exited", "edge": edge, "stay_off_turns": 2},
                {"measure": "round_trip", "edge": edge, "final_edge": "north", "stay_off_turns": 1},
                {"measure": "round_trip", "edge": edge, "return_leg": False, "stay_off_turns": 2}]
    out += [{"measure": "destroyed", "whose": "enemy", "weights": {unit: 3}},
            {"measure": "destroyed", "units": [unit]}, {"measure": "destroyed", "group": group},
            {"measure": "in_area", "area": {"hexes": labels}},
            {"measure": "entered", "whose": "enemy", "area": {"hexes": labels}},
            {"measure": "ratio", "numerator": {"measure": "destroyed", "whose": "enemy"},
             "denominator": {"measure": "destroyed", "whose": "own"}},
            {"measure": "line_of_fire", "between": ["north", "south"]},
            {"measure": "open_corridor", "width": 3, "between": ["east", "west"]}]
    return out


@pytest.mark.parametrize("sid", ["pb-01", "pb-05", "pb-10"])
def test_every_measure_kind_over_game_turns_is_measure_value_a_turn(tables_of, sid):
    """measure_values (all game-turns) = measure_value of each turn's snapshot, for every kind
    of measure and option, on a real game and on scrambled snapshots with units on the named hexes."""
    from simulator.rulesets.panzerblitz.victory import (
        _AtTurn,
        _Turns,
        measure_value,
        measure_values,
    )

    t = tables_of(sid)
    rng = np.random.default_rng(11)
    st = play(t, 4, ("heuristic", "heuristic")).state
    for round_ in range(3):
        at = _Turns(st, st.snap_hex, st.snap_status, st.snap_control, st.snap_visited,
                    np.arange(st.snap_hex.shape[0], dtype=np.int64))
        for m in _every_measure(t):
            for me in (0, 1):
                want = [measure_value(m, _AtTurn(st, k), t, me, k) for k in range(len(at.now))]
                assert measure_values(m, at, t, me).tolist() == want, (round_, m, me)
        _scramble(st, t, rng, extra=[h for m in _every_measure(t) for h in _named_hexes(t, m)])


def test_a_batch_records_control_and_visits_only_for_a_card_that_measures_them(tmp_path, tables_of):
    """victory.recorded: the hexes' control and visits (most of a game's record) are kept only
    for a card with a hexes_controlled (PB-VIC-5) or entered (PB-SIT-10) condition, and a batch
    of such a card is scored as its games one by one."""
    from simulator.rulesets.panzerblitz.batch import play_games
    from simulator.rulesets.panzerblitz.players.spec import parse_policy
    from simulator.rulesets.panzerblitz.tables import build_tables
    from tests.panzerblitz.test_rules import position_file

    assert "snap_control" not in recorded(tables_of("pb-04")) and "snap_visited" not in recorded(tables_of("pb-04"))
    assert "snap_visited" in recorded(tables_of("pb-10"))   # its `also` alternatives: PB-SIT-10
    units = [("german", "panther-g", "3M4"), ("german", "rifle-platoon-german-42", "3M5"),
             ("russian", "t-34-c", "3M8"), ("russian", "rifle-company-43", "3N6")]
    path = position_file(tmp_path, units, turns=4, victory={
        "german": ['measure = "hexes_controlled"', 'whose = "own"', 'hexes = ["3M6", "3M7", "3N6"]', "marginal = 1", "tactical = 2"],
        "russian": ['measure = "entered"', 'whose = "own"', 'area = { hexes = ["3M4", "3M5"] }', "marginal = 1"]})
    t = build_tables(load_situation(path))
    assert {"snap_control", "snap_visited"} <= set(recorded(t))
    seeds = list(range(6))
    games, turns, _ = play_games(t, seeds, {"german": parse_policy("random"), "russian": parse_policy("random")})
    for gi, seed in enumerate(seeds):
        st = play(t, seed, ("random", "random")).state
        by_turn = provisional_by_turn(st, t)
        assert list(turns[turns.batch_game == gi].leader[::2]) == [o.winner or "draw" for o in by_turn]
        assert list(turns[(turns.batch_game == gi) & (turns.side == "german")].measure) == \
            [o.values["german"] for o in by_turn]
        assert games.winner[gi] == (evaluate(st, t).winner or "draw")
