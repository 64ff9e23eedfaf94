"""PanzerBlitz games in batches, as tidy tables: the rules engine's side of `balance run`.

`prepare` builds everything a worker needs once (tables, line of sight, the heuristic
player's reading of the situation); `play_games` plays one game per seed and returns two
pandas tables, one row a game and one row a game x turn x side (the runner concatenates
batches and writes them).  Losses by unit type are columns `lost:<side>:<unit type>`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from policies.spec import PolicySpec
from simulator.panzerblitz.replay import play, policy_tables
from simulator.panzerblitz.state import (
    ELIMINATED,
    TS_EXITED,
    TS_LOST,
    TS_OBJECTIVES,
    TURN_STAT_NAMES,
)
from simulator.panzerblitz.tables import Tables, build_tables
from simulator.situation import Situation


def prepare(sit: Situation) -> Tables:
    t = build_tables(sit)
    policy_tables(t)
    return t


def play_games(t: Tables, seeds: list[int], policies: dict[str, PolicySpec]) -> tuple[pd.DataFrame, pd.DataFrame]:
    sides = t.situation.ruleset.sides
    specs = tuple(policies[s] for s in sides)
    names = t.units.names
    counted = t.unit_t.victory_count
    games, turns = [], []
    for seed in seeds:
        rec = play(t, int(seed), specs)
        st, o = rec.state, rec.outcome
        last = st.turn_stats.shape[0] - 1
        row: dict = {"seed": int(seed), "winner": o.winner or "draw", "level": o.level, "turns_played": last}
        for si, s in enumerate(sides):
            row[f"level_{s}"] = o.levels[s]
            row[f"value_{s}"] = o.values[s]
            row[f"lost_{s}"] = int(st.turn_stats[last, si, TS_LOST])
            row[f"exited_{s}"] = int(st.turn_stats[last, si, TS_EXITED])
            row[f"objectives_{s}"] = int(st.turn_stats[last, si, TS_OBJECTIVES])
            lost = (st.side == si) & (st.status == ELIMINATED) & counted[st.utype]
            for ti, k in zip(*np.unique(st.utype[lost], return_counts=True), strict=True):
                row[f"lost:{s}:{names[ti]}"] = int(k)
        games.append(row)
        ts = st.turn_stats
        for turn in range(ts.shape[0]):
            for si, s in enumerate(sides):
                turns.append((int(seed), turn, s, *(int(x) for x in ts[turn, si])))
    g = pd.DataFrame(games)
    loss_cols = [c for c in g.columns if c.startswith("lost:")]
    g[loss_cols] = g[loss_cols].fillna(0).astype(np.int64)
    tt = pd.DataFrame(turns, columns=["seed", "turn", "side", *TURN_STAT_NAMES])
    return g, tt
