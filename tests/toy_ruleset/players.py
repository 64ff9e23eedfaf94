"""Hex race players: the engine lists the hexes a runner can end its move in, a player picks one."""

from __future__ import annotations

import numpy as np

from simulator.players import Catalogue, Param, PlayerType

RANDOM, RUNNER = 0, 1

PLAYERS = Catalogue([
    PlayerType("random", RANDOM, {}, "any hex it can reach, uniformly"),
    PlayerType("runner", RUNNER, {"dawdle": Param(0.1, "chance it ends its move on a random hex instead")},
               "the hex nearest its goal (in movement points)"),
], default="runner", replay_default="random")


def choose(player, options: list[int], to_goal: np.ndarray, rng: np.random.Generator) -> int:
    """The chosen end hex among `options` (never empty: staying put is always one)."""
    if player.kernel_id == RANDOM or rng.random() < player.full_params().get("dawdle", 0.0):
        return options[int(rng.integers(len(options)))]
    return min(options, key=lambda h: (to_goal[h], h))
