"""PanzerBlitz games in batches, as tidy tables: the rules engine's side of `balance run`.

`prepare` builds everything a worker needs once (tables, line of sight, the heuristic
player's reading of the situation); `play_games` plays one game per seed and returns three
pandas tables: one row a game, one row a game x turn x side, and one row a unit lost (the
runner concatenates batches and writes them).  Losses by unit type are also columns
`lost:<side>:<unit type>` of the games table.  `level_alt` is the winner's level under the other
reading of readings.both_sides_reach_level (PB-VIC-3: when both sides reach a level).
"""

from __future__ import annotations

import gc

import numpy as np
import pandas as pd

from policies.spec import PolicySpec
from simulator.panzerblitz.replay import play, policy_tables
from simulator.panzerblitz.situation_schema import PanzerBlitzSituation as Situation
from simulator.panzerblitz.state import (
    ELIMINATED,
    NOT_PLACED,
    TS_EXITED,
    TS_LOST,
    TS_OBJECTIVES,
    TURN_STAT_NAMES,
    StateBuffer,
)
from simulator.panzerblitz.tables import Tables, build_tables
from simulator.panzerblitz.victory import decided_turn, provisional


def prepare(sit: Situation) -> Tables:
    t = build_tables(sit)
    policy_tables(t)
    return t


def play_games(t: Tables, seeds: list[int], policies: dict[str, PolicySpec]
               ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Games, turns and losses tables; every row carries `batch_game`, the game's index in `seeds`."""
    specs = tuple(policies[s] for s in t.situation.ruleset.sides)
    games, turns, losses = [], [], []
    buffer = StateBuffer(t)
    # Python's cyclic garbage collector is off while the games run: the rows below are
    # thousands of small objects, and each collection they set off walks every object numba
    # and pandas keep alive (~5% of a pb-04 game).  Any cyclic garbage waits for the end of the batch.
    collecting = gc.isenabled()
    gc.disable()
    try:
        _play_rows(t, seeds, specs, buffer, games, turns, losses)
    finally:
        if collecting:
            gc.enable()
    g = pd.DataFrame(games)
    loss_cols = [c for c in g.columns if c.startswith(("lost:", "lost_at_setup:"))]
    g[loss_cols] = g[loss_cols].fillna(0).astype(np.int64)
    tt = pd.DataFrame(turns, columns=["batch_game", "seed", "turn", "side", *TURN_STAT_NAMES, "leader", "leader_level",
                                      "measure", "measure_level"])
    lo = pd.DataFrame(losses, columns=["batch_game", "seed", "side", "unit_type", "hex", "turn"])
    return g, tt, lo


def _play_rows(t: Tables, seeds: list[int], specs: tuple, buffer: StateBuffer, games: list, turns: list,
               losses: list) -> None:
    """Plays the games and appends their rows to `games`, `turns` and `losses`."""
    sides = t.situation.ruleset.sides
    labels = t.situation.map.labels
    names = t.units.names
    counted = t.unit_t.victory_count
    for gi, seed in enumerate(seeds):
        rec = play(t, int(seed), specs, state=buffer.fresh())
        st, o = rec.state, rec.outcome
        last = st.turn_stats.shape[0] - 1
        standing = provisional(st, t)
        row: dict = {"batch_game": gi, "seed": int(seed), "winner": o.winner or "draw", "level": o.level,
                     "level_alt": o.other_level, "turns_played": last, "decided_turn": decided_turn(standing)}
        for si, s in enumerate(sides):
            row[f"level_{s}"] = o.levels[s]
            row[f"value_{s}"] = o.values[s]
            row[f"lost_{s}"] = int(st.turn_stats[last, si, TS_LOST])
            row[f"exited_{s}"] = int(st.turn_stats[last, si, TS_EXITED])
            row[f"objectives_{s}"] = int(st.turn_stats[last, si, TS_OBJECTIVES])
            lost = (st.side == si) & (st.status == ELIMINATED) & counted[st.utype]
            for ti, k in zip(*np.unique(st.utype[lost], return_counts=True), strict=True):
                row[f"lost:{s}:{names[ti]}"] = int(k)
            # Every counter that found no legal set-up hex (forts, blocks and minefields too).
            unplaced = (st.side == si) & (st.status == NOT_PLACED)
            row[f"lost_at_setup_{s}"] = int(unplaced.sum())
            for ti, k in zip(*np.unique(st.utype[unplaced], return_counts=True), strict=True):
                row[f"lost_at_setup:{s}:{names[ti]}"] = int(k)
        games.append(row)
        ts = st.turn_stats
        for turn in range(ts.shape[0]):
            leader = standing[turn].winner or "draw"
            for si, s in enumerate(sides):
                turns.append((gi, int(seed), turn, s, *(int(x) for x in ts[turn, si]), leader, standing[turn].level,
                              float(standing[turn].values[s]), standing[turn].levels[s]))
        for u in np.flatnonzero((st.status == ELIMINATED) & counted[st.utype]):
            h = st.lost_hex[u]
            losses.append((gi, int(seed), sides[st.side[u]], names[st.utype[u]], labels[h] if h >= 0 else "",
                           int(st.lost_turn[u])))
