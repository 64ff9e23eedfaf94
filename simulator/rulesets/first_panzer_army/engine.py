"""`prepare` and `play_games` for the runner (simulator/api.py), and one game from Python.

A game is `game.play_game` on a fresh state (state.py) with two random streams from its seed;
its results are the games, turns and losses tables of results.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from simulator.decisions import MODE, REPLAY, finished, for_play, for_replay, restart
from simulator.jit import njit
from simulator.rulesets.first_panzer_army import consts as c
from simulator.rulesets.first_panzer_army.game import play_game
from simulator.rulesets.first_panzer_army.players import PLAYERS
from simulator.rulesets.first_panzer_army.schema import FPASituation
from simulator.rulesets.first_panzer_army.state import (
    G_ELIM_VP,
    G_EXITS,
    G_N_DEC,
    G_N_EV,
    G_VIOLATION,
    N_PARAMS,
    VIOLATIONS,
    new_state,
)
from simulator.rulesets.first_panzer_army.tables import build, unit_ids


@dataclass
class Prepared:
    situation: FPASituation
    t: object                 # tables.T
    unit_ids: list[str]
    labels: list[str]


def prepare(sit: FPASituation) -> Prepared:
    return Prepared(sit, build(sit), unit_ids(sit), list(sit.map.labels))


def player_rows(players: dict, sides) -> tuple[np.ndarray, np.ndarray]:
    """Kernel ids and parameter rows of the two sides' players (PlayerSpec, policies/catalogue.py)."""
    pk = np.zeros(2, dtype=np.int64)
    pp = np.zeros((2, N_PARAMS), dtype=np.float64)
    for si, side in enumerate(sides):
        spec = players[side]
        pk[si] = spec.kernel_id
        pp[si] = spec.vector(N_PARAMS)
    return pk, pp


@njit(cache=True)
def _run(S, T) -> int:
    return play_game(S, T)


def play_one(prep: Prepared, seed: int, players: dict | None = None, record=None, debug: bool = False):
    """One game, its decisions recorded; the state at its end.  Given a `record` (rows kind, n,
    chosen: `decisions`), the game replays it with the players removed (simulator/decisions.py;
    a record that is not this game's raises ReplayMismatch)."""
    sides = prep.situation.side_names
    if players is None:
        players = {s: PLAYERS.spec(PLAYERS.default) for s in sides}
    pk, pp = player_rows(players, sides)
    dec = None if record is None else for_replay(record, c.DECISION_KINDS, seed)
    S = new_state(prep.t, seed, pk, pp, decisions=dec, debug=debug)
    _run(S, prep.t)
    finished(S.decisions, c.DECISION_KINDS)
    return S


def outcome(vp: int, t) -> tuple[str, str]:
    """4.3: 32 or more a Soviet victory, 27 or less a German one, else a draw."""
    if vp >= t.k[c.K_SOV_WIN]:
        return "soviet", "victory"
    if vp <= t.k[c.K_GER_WIN_MAX]:
        return "german", "victory"
    return "draw", "none"


def violation(S) -> str | None:
    v = int(S.g[G_VIOLATION])
    return VIOLATIONS[v] if v else None


def decisions(S) -> np.ndarray:
    """The recorded (kind, options, chosen) of a game (its replayed record, if it was replayed)."""
    return finished(S.decisions, c.DECISION_KINDS) if S.decisions.at[MODE] != REPLAY else S.decisions.log.copy()


def unit_type(prep: Prepared, u: int) -> str:
    return prep.situation.ruleset.data["units"][prep.unit_ids[u]]["type"]


def play_games(prep: Prepared, seeds, players: dict) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The games, turns and losses tables of one batch (results.py)."""
    t = prep.t
    sides = prep.situation.side_names
    pk, pp = player_rows(players, sides)
    games, turns, losses = [], [], []
    turns_n = int(t.k[c.K_TURNS])
    dec = for_play(0)
    for gi, seed in enumerate(seeds):
        S = new_state(t, int(seed), pk, pp, decisions=restart(dec, int(seed)))
        vp = int(_run(S, t))
        winner, level = outcome(vp, t)
        lost = [0, 0]
        ev = S.ev[: int(S.g[G_N_EV])]
        for row in ev[ev[:, 0] == c.EV_ELIMINATED]:
            side = int(row[2])
            lost[side] += 1
            losses.append((gi, int(seed), sides[side], unit_type(prep, int(row[3])),
                           prep.labels[int(row[4])] if row[4] >= 0 else "", int(row[1]) // 100))
        row = {"batch_game": gi, "seed": int(seed), "winner": winner, "level": level, "turns_played": turns_n,
               "vp": vp, "exits": int(S.g[G_EXITS]), "division_vp": int(S.g[G_ELIM_VP]),
               "decisions": int(S.g[G_N_DEC])}
        for si, s in enumerate(sides):
            row[f"level_{s}"] = level if winner == s else "none"
            row[f"steps_{s}"] = int(S.steps_turn[turns_n, si])
            row[f"units_lost_{s}"] = lost[si]
        games.append(row)
        for turn in range(turns_n + 1):
            for si, s in enumerate(sides):
                turns.append((gi, int(seed), turn, s, float(S.vp_turn[turn]), int(S.steps_turn[turn, si])))
    return (pd.DataFrame(games),
            pd.DataFrame(turns, columns=["batch_game", "seed", "turn", "side", "measure", "steps"]),
            pd.DataFrame(losses, columns=["batch_game", "seed", "side", "unit_type", "hex", "turn"]))
