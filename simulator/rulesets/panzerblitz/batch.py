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
import threading
from typing import TYPE_CHECKING

import numpy as np

from simulator.rulesets.panzerblitz.players.spec import PolicySpec
from simulator.rulesets.panzerblitz.replay import game_arguments, play_into, policy_tables
from simulator.rulesets.panzerblitz.situation_schema import PanzerBlitzSituation as Situation
from simulator.rulesets.panzerblitz.state import (
    ELIMINATED,
    NOT_PLACED,
    TS_EXITED,
    TS_LOST,
    TS_OBJECTIVES,
    TURN_STAT_NAMES,
    StateBuffer,
)
from simulator.rulesets.panzerblitz.tables import Tables, build_tables
from simulator.rulesets.panzerblitz.victory import decided_turn, evaluate, provisional

if TYPE_CHECKING:
    import pandas as pd

Columns = dict[str, np.ndarray]


def prepare(sit: Situation) -> Tables:
    t = build_tables(sit)
    policy_tables(t)
    return t


def play_games(t: Tables, seeds: list[int], policies: dict[str, PolicySpec]
               ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Games, turns and losses tables; every row carries `batch_game`, the game's index in `seeds`."""
    import pandas as pd

    return tuple(pd.DataFrame(c) for c in play_batch_columns(t, seeds, policies))


def play_batch_columns(t: Tables, seeds: list[int], policies: dict[str, PolicySpec]
                       ) -> tuple[Columns, Columns, Columns]:
    """`play_games`' three tables as columns (name -> array, in column order), which a pool
    worker returns without importing pandas (simulator/pool_worker.py)."""
    specs = tuple(policies[s] for s in t.situation.ruleset.sides)
    arguments, buffer = _batch_players(t, specs)
    cols = _BatchColumns(t, len(seeds))
    # Python's cyclic garbage collector is off while the games run: each collection walks every
    # object numba and pandas keep alive (~5% of a pb-04 game when the rows were dicts).  Any
    # cyclic garbage waits for the end of the batch.
    collecting = gc.isenabled()
    gc.disable()
    try:
        for gi, seed in enumerate(seeds):
            st = buffer.fresh()
            play_into(st, t, int(seed), arguments)
            cols.add(gi, int(seed), st, evaluate(st, t), provisional(st, t))
    finally:
        if collecting:
            gc.enable()
    return cols.games(), cols.turns(), cols.losses()


# The players and the state buffer of this thread's last batch, and what they were made for.
_KEPT = threading.local()


def _batch_players(t: Tables, specs: tuple) -> tuple[tuple, StateBuffer]:
    """The game arguments (`game_arguments`: the players, bound to their kernels) and the state
    buffer for a batch, kept for the next batch of the same tables and players: a pool worker
    plays batch after batch of one situation, and making them (binding the kernels, two states
    with their event logs) was ~9 ms a batch, a third of a millisecond a game at the batch
    size a 200-game run on one worker plays (25).  Every game starts from them afresh
    (`StateBuffer.fresh`, `decisions.restart`), so the games do not depend on the batches
    they fall in (tests/panzerblitz/test_golden_games.py).  One per thread: a batch uses them
    throughout."""
    kept = getattr(_KEPT, "last", None)
    if kept is not None and kept[0] is t and kept[1] == specs:
        return kept[2], kept[3]
    arguments, buffer = game_arguments(t, specs), StateBuffer(t)
    _KEPT.last = (t, specs, arguments, buffer)
    return arguments, buffer


class _BatchColumns:
    """A batch's results as arrays, one slot a game, filled game by game and made into the three
    tables once at the end (no dict or tuple a row: that Python was most of a small game's
    time outside the kernels)."""

    def __init__(self, t: Tables, n_games: int):
        sit = t.situation
        self.sides = sit.ruleset.sides
        self.labels = np.array(list(sit.map.labels) + [""], dtype=object)  # [-1]: off the map
        self.names = np.asarray(t.units.names, dtype=object)
        self.counted = t.unit_t.victory_count
        n_sides, n_types = len(self.sides), len(self.names)
        self.n_turns = sit.turns + 1  # rows of turn_stats: game-turn 0 (after set-up) to the last
        g, nt = n_games, self.n_turns
        self.seed = np.zeros(g, dtype=np.int64)
        self.winner = np.empty(g, dtype=object)
        self.level = np.empty(g, dtype=object)
        self.level_alt = np.empty(g, dtype=object)
        self.decided = np.zeros(g, dtype=np.int64)
        self.side_level = np.empty((g, n_sides), dtype=object)
        self.side_value = np.zeros((g, n_sides), dtype=np.float64)
        self.lost_by_type = np.zeros((g, n_sides, n_types), dtype=np.int64)
        self.unplaced_by_type = np.zeros((g, n_sides, n_types), dtype=np.int64)
        self.stats = np.zeros((g, nt, n_sides, len(TURN_STAT_NAMES)), dtype=np.int64)
        self.leader = np.empty((g, nt), dtype=object)
        self.leader_level = np.empty((g, nt), dtype=object)
        self.measure = np.zeros((g, nt, n_sides), dtype=np.float64)
        self.measure_level = np.empty((g, nt, n_sides), dtype=object)
        self.lost_units: list[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []

    def add(self, gi: int, seed: int, st, o, standing: list) -> None:
        self.seed[gi] = seed
        self.winner[gi] = o.winner or "draw"
        self.level[gi] = o.level
        self.level_alt[gi] = o.other_level
        self.decided[gi] = decided_turn(standing)
        n_types = len(self.names)
        counted = self.counted[st.utype]
        for si, s in enumerate(self.sides):
            self.side_level[gi, si] = o.levels[s]
            self.side_value[gi, si] = o.values[s]
            mine = st.side == si
            self.lost_by_type[gi, si] = np.bincount(st.utype[mine & (st.status == ELIMINATED) & counted],
                                                    minlength=n_types)
            # Every counter that found no legal set-up hex (forts, blocks and minefields too).
            self.unplaced_by_type[gi, si] = np.bincount(st.utype[mine & (st.status == NOT_PLACED)], minlength=n_types)
        self.stats[gi] = st.turn_stats
        for turn, r in enumerate(standing):
            self.leader[gi, turn] = r.winner or "draw"
            self.leader_level[gi, turn] = r.level
            for si, s in enumerate(self.sides):
                self.measure[gi, turn, si] = r.values[s]
                self.measure_level[gi, turn, si] = r.levels[s]
        lost = np.flatnonzero((st.status == ELIMINATED) & counted)
        if lost.size:
            self.lost_units.append((gi, st.side[lost].copy(), st.utype[lost].copy(), st.lost_hex[lost].copy(),
                                    st.lost_turn[lost].copy()))

    def games(self) -> Columns:
        g = len(self.seed)
        last = self.n_turns - 1
        cols: dict[str, np.ndarray] = {
            "batch_game": np.arange(g, dtype=np.int64), "seed": self.seed, "winner": self.winner,
            "level": self.level, "level_alt": self.level_alt, "turns_played": np.full(g, last, dtype=np.int64),
            "decided_turn": self.decided}
        families: dict[str, np.ndarray] = {}
        for si, s in enumerate(self.sides):
            cols[f"level_{s}"] = self.side_level[:, si]
            cols[f"value_{s}"] = self.side_value[:, si]
            cols[f"lost_{s}"] = self.stats[:, last, si, TS_LOST]
            cols[f"exited_{s}"] = self.stats[:, last, si, TS_EXITED]
            cols[f"objectives_{s}"] = self.stats[:, last, si, TS_OBJECTIVES]
            cols[f"lost_at_setup_{s}"] = self.unplaced_by_type[:, si].sum(axis=1)
            # The count families hold the types some game of the batch lost (the runner fills
            # the others with 0 and sorts them by name: simulator/results.fill_families).
            for prefix, counts in (("lost", self.lost_by_type), ("lost_at_setup", self.unplaced_by_type)):
                for ti in np.flatnonzero(counts[:, si].any(axis=0)):
                    families[f"{prefix}:{s}:{self.names[ti]}"] = counts[:, si, ti]
        cols.update(sorted(families.items()))
        return cols

    def turns(self) -> Columns:
        g, nt, ns = self.stats.shape[:3]
        rows = g * nt * ns
        stats = self.stats.reshape(rows, -1)
        cols: dict[str, np.ndarray] = {
            "batch_game": np.repeat(np.arange(g, dtype=np.int64), nt * ns),
            "seed": np.repeat(self.seed, nt * ns),
            "turn": np.tile(np.repeat(np.arange(nt, dtype=np.int64), ns), g),
            "side": np.tile(np.array(self.sides, dtype=object), g * nt)}
        for k, name in enumerate(TURN_STAT_NAMES):
            cols[name] = stats[:, k]
        cols["leader"] = np.repeat(self.leader.ravel(), ns)
        cols["leader_level"] = np.repeat(self.leader_level.ravel(), ns)
        cols["measure"] = self.measure.ravel()
        cols["measure_level"] = self.measure_level.ravel()
        return cols

    def losses(self) -> Columns:
        names = ["batch_game", "seed", "side", "unit_type", "hex", "turn"]
        if not self.lost_units:
            return {n: np.empty(0, dtype=object if n in ("side", "unit_type", "hex") else np.int64) for n in names}
        game = np.concatenate([np.full(len(x[1]), x[0], dtype=np.int64) for x in self.lost_units])
        side, utype, hexes, turn = (np.concatenate([x[k] for x in self.lost_units]) for k in range(1, 5))
        return {"batch_game": game, "seed": self.seed[game],
                "side": np.array(self.sides, dtype=object)[side], "unit_type": self.names[utype],
                "hex": self.labels[np.where(hexes >= 0, hexes, -1)], "turn": turn.astype(np.int64)}
