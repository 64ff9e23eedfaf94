"""The engine's players (simulator/rulesets/panzerblitz/dispatch.py) for tests that call a phase of the
game kernel directly: the policy ids and parameters of both sides, as `replay.play` makes them.

A game has two random streams from its seed: the dice and the players' (simulator/decisions.py).
A test that seeds a game with `seed_game(seed)` seeds both, as `run_game` does: the dice at once,
and the players' stream of the next `pb_players` made without `dec`."""

from __future__ import annotations

import numpy as np

from simulator import decisions
from simulator.rulesets.panzerblitz.combat import seed_dice
from simulator.rulesets.panzerblitz.dispatch import Players, new_players
from simulator.rulesets.panzerblitz.replay import bind_engine, policy_tables

_SEED = [0]  # the seed of the last seed_game: the players' stream of the next pb_players


def seed_game(seed: int) -> None:
    """Seed the dice and the players' stream from `seed`, as a game does."""
    seed_dice(seed)
    _SEED[0] = seed


def pb_players(t, st, policy, params, dec: decisions.Decisions | None = None) -> Players:
    """`policy`: int64[2] kernel ids (players/spec.py), `params`: float64[2, N_PARAMS]; `dec`: the
    game's decisions (default: played, the players' stream from the last `seed_game`)."""
    pl = new_players(np.asarray(policy, dtype=np.int64), np.asarray(params, dtype=np.float64), policy_tables(t),
                     st, t.unit_t, t.map_t, t.combat_t, dec or decisions.for_play(_SEED[0]))
    bind_engine(pl, st, t)
    return pl
