"""PanzerBlitz's decisions through its one dispatcher (simulator/rulesets/panzerblitz/dispatch.py):
recorded, and replayed with the players removed to the same game (simulator/decisions.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from simulator.decisions import CHOSEN, KIND, N_OPTIONS, ReplayMismatch
from simulator.rulesets.panzerblitz.batch import prepare
from simulator.rulesets.panzerblitz.decision_kinds import DECISION_KINDS
from simulator.rulesets.panzerblitz.events import EV_FIRE_CHANCE
from simulator.rulesets.panzerblitz.replay import play
from simulator.situation import load_situation

ROOT = Path(__file__).resolve().parents[2]
QUIET = ("heuristic:noise=0", "heuristic:noise=0")  # players that draw nothing (fixed choices)


def _without_notes(events: np.ndarray) -> np.ndarray:
    """The event log without the heuristic's notes (EV_FIRE_CHANCE): a replay has no player to write them."""
    return events[events[:, 2] != EV_FIRE_CHANCE]


@pytest.mark.parametrize(("sid", "asked"), [("pb-01", {"SETUP_HEX", "FIRE_TARGET", "MOVE_DEST"}),
                                           ("pb-07", {"MARCH_ORDER", "ENTRY_HEX", "MOVE_DEST", "LOAD", "UNLOAD"})])
def test_a_recorded_game_replays_to_the_same_game_without_its_players(sid, asked):
    t = prepare(load_situation(sid))
    rec = play(t, 3, QUIET, record=True)
    log = rec.decisions
    assert log is not None and len(log) > 50
    assert asked <= {DECISION_KINDS[k].name for k in log[:, KIND].tolist()}
    assert ((log[:, CHOSEN] >= -1) & (log[:, CHOSEN] < log[:, N_OPTIONS])).all()
    again = play(t, 3, QUIET, replay=log)
    assert again.decisions is None
    assert np.array_equal(_without_notes(again.events), _without_notes(rec.events))
    assert again.outcome == rec.outcome


@pytest.mark.parametrize("sid", ["pb-02", "pb-04", "pb-07", "pb-09", "pb-12"])
@pytest.mark.parametrize("players", [("heuristic", "heuristic"), ("random", "random")], ids=["heuristic", "random"])
def test_a_game_replays_from_its_decisions_alone_whatever_its_players_drew(sid, players):
    """Two random streams a game (simulator/decisions.py): the players draw only from theirs (the
    heuristic's noise, the random player's every choice), so the dice depend on the seed and the
    choices alone, and the list of decisions (kind, n, chosen) plays the same game again with
    no player asked.  Default players: the heuristic with its noise, the random player."""
    t = prepare(load_situation(sid))
    for seed in (1, 2):
        rec = play(t, seed, players, record=True)
        log = rec.decisions
        assert len(log) > 20
        again = play(t, seed, ("random", "random"), replay=log)  # the players named are never asked
        assert np.array_equal(_without_notes(again.events), _without_notes(rec.events)), (sid, players, seed)
        assert again.outcome == rec.outcome


def test_recording_does_not_change_the_game():
    t = prepare(load_situation("pb-01"))
    for players in (("random", "random"), ("heuristic", "heuristic")):
        plain = play(t, 1, players)
        kept = play(t, 1, players, record=True)
        assert np.array_equal(plain.events, kept.events) and plain.decisions is None and len(kept.decisions) > 0


def test_a_record_that_is_not_the_games_is_refused_by_its_first_difference():
    t = prepare(load_situation("pb-01"))
    log = play(t, 3, QUIET, record=True).decisions
    wrong = log.copy()
    i = int(np.flatnonzero(wrong[:, N_OPTIONS] > 1)[5])
    wrong[i, N_OPTIONS] += 1
    with pytest.raises(ReplayMismatch, match=f"replayed decision {i + 1} of {len(log)} does not match the game"):
        play(t, 3, QUIET, replay=wrong)
    with pytest.raises(ReplayMismatch, match="the record ends after"):
        play(t, 3, QUIET, replay=log[:-1])
    with pytest.raises(ReplayMismatch, match="the game ended after"):
        play(t, 3, QUIET, replay=np.vstack([log, log[-1:]]))


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("module", ["game.py", "movement_phase.py", "transport.py", "overrun.py",
                                    "road_march.py"])
def test_the_engine_asks_the_dispatcher_and_never_a_player(module):
    path = ROOT / "simulator" / "rulesets" / "panzerblitz" / module
    assert not {m for m in _imports(path) if m.startswith("simulator.rulesets.panzerblitz.players")}
    assert "HEURISTIC" not in path.read_text() and "RANDOM" not in path.read_text()


def test_the_techniques_the_heuristic_answers_are_the_rulesets_codes():
    from simulator.rulesets.panzerblitz import decision_kinds as dk
    from simulator.rulesets.panzerblitz.players import heuristic as hp

    assert (hp.COMBINE, hp.SELECT, hp.MULTIPLE, hp.PASSENGER) == (dk.COMBINE, dk.SELECT, dk.MULTIPLE, dk.PASSENGER)


RULES = {"events", "presence", "forts", "spotting", "losses", "fire", "techniques", "overrun", "close_assault",
         "mines", "recovery", "game", "road_march", "movement", "move_view", "movement_phase", "transport",
         "invariants", "combat", "victory"}


def test_rules_and_players_never_import_each_other():
    """Players read the rules through for_players.py only; no rules module imports a player
    (only the dispatcher, dispatch.py, knows them)."""
    for path in (ROOT / "simulator" / "rulesets" / "panzerblitz" / "players").glob("*.py"):
        for m in _imports(path):
            if m.startswith("simulator.rulesets.panzerblitz."):
                assert m.split(".")[3] not in RULES - {"combat"}, (path.name, m)
    for name in RULES:
        path = ROOT / "simulator" / "rulesets" / "panzerblitz" / f"{name}.py"
        assert not {m for m in _imports(path) if m.startswith("simulator.rulesets.panzerblitz.players")}, name


def test_engine_ready_asks_for_every_kernel_a_heuristic_game_binds():
    """ruleset.ENGINE_KERNELS (what `engine_ready` looks for in numba's cache) names run_game and
    every indirect kernel bound for each heuristic game (simulator/jit.py `Indirect`)."""
    from simulator.rulesets.panzerblitz import dispatch, game
    from simulator.rulesets.panzerblitz.ruleset import ENGINE_KERNELS

    bound = {(k.kernel.py_func.__module__.rsplit(".", 1)[1] + ".py", k.kernel.py_func.__name__)
             for k in game.ENGINE + (dispatch.DECIDE, dispatch.HEAR, dispatch.PLAN_FIRE, dispatch.PLAN_ASSAULT,
                                                                 dispatch.READ_ENEMY)}
    assert set(ENGINE_KERNELS) == bound | {("game.py", "run_game")}
