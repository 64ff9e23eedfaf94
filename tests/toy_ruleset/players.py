"""Hex race players: the engine lists the hexes a runner can end its move in, a player picks one.

`choose` is the ruleset's one dispatcher (simulator/decisions.py): the engine calls it at every
decision with the options it wrote, and never asks which player plays.  The random player is
the core's `random_option`, unchanged; the runner scores the options it is given.
"""

from __future__ import annotations

import numpy as np

from policies.catalogue import Catalogue, Param, PlayerType
from simulator.decisions import DecisionKind, decided, random_option, replayed, replaying

RANDOM, RUNNER = 0, 1

PLAYERS = Catalogue([
    PlayerType("random", RANDOM, {}, "any hex it can reach, uniformly"),
    PlayerType("runner", RUNNER, {"dawdle": Param(0.1, "chance it ends its move on a random hex instead")},
               "the hex nearest its goal (in movement points)"),
], default="runner", replay_default="random")

# The race's only kind of decision (its code is its index).
DECISION_KINDS = (
    DecisionKind("END_HEX", "where the runner ends its move; staying put is always one of them", ("hex",)),
)
END_HEX = 0
DAWDLE = 0  # the runner's parameter row


def choose(kind: int, options: np.ndarray, n: int, to_goal: np.ndarray, player: int, params: np.ndarray,
           decisions) -> int:
    """The chosen row of `options` (never empty: staying put is always one)."""
    if replaying(decisions):
        return int(replayed(decisions, kind, n))
    if player == RANDOM or decisions.rng.random() < params[DAWDLE]:
        chosen = int(random_option(decisions.rng, n))
    else:
        chosen = min(range(n), key=lambda i: (to_goal[options[i, 0]], options[i, 0]))
    return int(decided(decisions, kind, n, chosen))
