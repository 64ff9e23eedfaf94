"""The game's entry kernel is compiled with its indirect kernels (replay.players ->
simulator/jit.py bind_all) for exactly the types the game then calls it with: playing compiles
nothing more (a second signature of run_game would be a second compile on every cold start)."""

from simulator.rulesets.panzerblitz.game import run_game
from simulator.rulesets.panzerblitz.players.spec import parse_policy
from simulator.rulesets.panzerblitz.replay import game_arguments, play


def test_run_game_is_compiled_for_the_types_it_is_called_with(tables_of):
    t = tables_of("pb-01")
    game_arguments(t, [parse_policy("heuristic")] * 2)
    before = list(run_game.signatures)
    assert len(before) == 1
    play(t, 3, ("heuristic", "random"))
    assert list(run_game.signatures) == before
