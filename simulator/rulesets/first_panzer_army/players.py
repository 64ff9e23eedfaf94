"""First Panzer Army players and the one dispatcher between the rules and them.

The engine writes the legal options of a decision into S.opts (rows, columns by kind:
consts.DECISION_KINDS, docs/first-panzer-army/engine.md) and calls `decide`, which asks the
dispatcher `choose` (simulator/decisions.py): replaying a record it asks no player; otherwise the
core's random player (`random_option` on the players' stream) or the heuristic (heuristic.py)
answers, and the answer is recorded when the game is recorded.  The engine never asks who is
playing.
"""

from __future__ import annotations

from policies.catalogue import Catalogue, Param, PlayerType
from simulator.decisions import decided, random_option, replayed, replaying
from simulator.jit import njit
from simulator.rulesets.first_panzer_army.heuristic import best_option
from simulator.rulesets.first_panzer_army.state import G_N_DEC

RANDOM, HEURISTIC = 0, 1

HEURISTIC_PARAMS = {
    "soviet_min_column": Param(3.0, "Soviet: lowest odds column worth attacking (3 = 2:1)"),
    "german_min_column": Param(3.0, "German: lowest odds column worth attacking (3 = 2:1; below it the CRT costs more than it takes)"),
    "west_weight": Param(1.0, "German: weight of getting closer to the relief in the west"),
    "town_weight": Param(4.0, "weight of taking or holding a town or FL hex"),
    "exit_turn": Param(7.0, "Soviet: from this turn on, corps head for the exit hexes 0729-1729 and leave the map (4.1)"),
    "cas_per_attack": Param(2.0, "markers committed at most to one combat"),
    "screen_weight": Param(0.5, "Soviet: weight of closing on German units (cutting their C&C)"),
    "hold_radius": Param(15.0, "German: town and FL hexes within this many hexes of the relief's entry edge are held"),
    "hold_steps": Param(4.0, "German: steps wanted in a held town (twice that in an FL)"),
    "goal_weight": Param(2.0, "German: weight of closing on the town or FL the unit is sent to hold"),
    "cc_weight": Param(3.0, "German: weight of ending a move in C&C (a division lost out of C&C scores its steps, 4.2)"),
    "danger_weight": Param(0.4, "German: weight of Soviet units around a hex the unit would stop in outside a town"),
    "attack_edge": Param(0.05, "German: expected steps inflicted minus steps lost (CRT) an attack must beat"),
    "soviet_danger": Param(0.6, "Soviet: weight of German units around a hex, shared by the Soviet units stacked there"),
    "stack_weight": Param(1.0, "Soviet: weight of stacking with another Soviet unit in contact (dev notes: support units absorb exchanges)"),
    "soviet_mass": Param(0.0, "Soviet: steps wanted around a German-held town per German step in it, plus one; beyond that its pull falls off (0 = no limit: massing measured better, docs/first-panzer-army/engine.md)"),
    "reserve_threat": Param(4.0, "German: Soviet steps within 2 hexes of a held town that call the units with no town to man to it as a reserve (0 = they stay in the western line)"),
}

PLAYERS = Catalogue([
    PlayerType("random", RANDOM, {}, "uniformly among the legal options of every decision"),
    PlayerType("heuristic", HEURISTIC, HEURISTIC_PARAMS,
               "Germans break out west toward the relief and hold towns; Soviets close the pocket, "
               "cut supply, take towns and exit corps"),
], default="heuristic", replay_default="heuristic", doc="docs/first-panzer-army/engine.md")


@njit(cache=True)
def choose(kind: int, options, n: int, S, T, side: int, player: int, params, decisions) -> int:
    """The dispatcher: a row index among the `n` options (a single option is taken unasked)."""
    if replaying(decisions):
        return replayed(decisions, kind, n)
    if n <= 1:
        chosen = 0
    elif player == RANDOM:
        chosen = random_option(decisions.rng, n)
    else:
        chosen = best_option(kind, options, n, S, T, side, params)
    return decided(decisions, kind, n, chosen)


@njit(cache=True, inline="always")
def put_option(opts, k: int, a: int, b: int, c: int, d: int) -> int:
    """Write option row `k` (its four columns, as its kind declares them); returns k + 1."""
    opts[k, 0] = a
    opts[k, 1] = b
    opts[k, 2] = c
    opts[k, 3] = d
    return k + 1


@njit(cache=True)
def decide(S, T, kind: int, n: int, side: int) -> int:
    """Ask `side`'s player to choose among the first `n` rows of S.opts."""
    S.g[G_N_DEC] += 1
    return choose(kind, S.opts, n, S, T, side, S.pk[side], S.pp[side], S.decisions)
