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
from simulator.rulesets.panzerblitz.victory import RANK_NAMES, batch_standings, recorded

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
    # A game leaves its recorded fields (victory.recorded) here, one row of bytes a game; the batch's results are
    # worked out from them at the end, all games at once (a game's own Python is two copies).
    records = np.empty((len(seeds), buffer.record_bytes), dtype=np.uint8)
    # Python's cyclic garbage collector is off while the games run: each collection walks every
    # object numba and pandas keep alive (~5% of a pb-04 game when the rows were dicts).  Any
    # cyclic garbage waits for the end of the batch.
    collecting = gc.isenabled()
    gc.disable()
    try:
        for gi, seed in enumerate(seeds):
            st = buffer.fresh()
            play_into(st, t, int(seed), arguments)
            records[gi] = buffer.recorded()
    finally:
        if collecting:
            gc.enable()
    cols = _BatchColumns(t, np.asarray(seeds, dtype=np.int64), buffer.unpack(records))
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
    arguments, buffer = game_arguments(t, specs), StateBuffer(t, recorded(t))
    _KEPT.last = (t, specs, arguments, buffer)
    return arguments, buffer


class _BatchColumns:
    """A batch's three tables, worked out for all its games at once from what each game left
    (victory.recorded, a leading [game] axis): no Python a game or a row."""

    def __init__(self, t: Tables, seeds: np.ndarray, games: dict[str, np.ndarray]):
        sit = t.situation
        self.sides = sit.ruleset.sides
        self.labels = np.array(list(sit.map.labels) + [""], dtype=object)  # [-1]: off the map
        self.names = np.asarray(t.units.names, dtype=object)
        self.seed = seeds
        self.games_ = games
        self.n_turns = sit.turns + 1  # rows of turn_stats: game-turn 0 (after set-up) to the last
        g, n_sides, n_types = len(seeds), len(self.sides), len(self.names)
        rank_names = np.array([RANK_NAMES[r] for r in range(len(RANK_NAMES))], dtype=object)
        leader_names = np.array(list(self.sides) + ["draw"], dtype=object)  # [-1]: a draw
        standing = batch_standings(games, t)
        self.decided = standing.decided_turn().astype(np.int64)
        # The provisional result of each game-turn, and the final one: the last game-turn's,
        # unless neither side engaged (PB-VIC-6: no battle, judged on the final state only).
        self.leader = leader_names[standing.winner]
        self.leader_level = rank_names[standing.level]
        self.measure = standing.values
        self.measure_level = rank_names[standing.ranks]
        battle = games["engaged"].any(axis=1)
        self.winner = np.where(battle, self.leader[:, -1], "draw").astype(object)
        self.level = np.where(battle, self.leader_level[:, -1], RANK_NAMES[0]).astype(object)
        self.level_alt = np.where(battle, rank_names[standing.other_level[:, -1]], RANK_NAMES[0]).astype(object)
        self.side_level = np.where(battle[:, None], self.measure_level[:, -1], RANK_NAMES[0]).astype(object)
        self.side_value = np.where(battle[:, None], self.measure[:, -1], 0.0)
        # Counts by game, side and unit type: of the units lost (that count for victory), and of
        # every counter that found no legal set-up hex (forts, blocks and minefields too).
        utype, side, status = games["utype"], games["side"], games["status"]
        self.lost = (status == ELIMINATED) & t.unit_t.victory_count[utype]
        key = (np.arange(g)[:, None] * n_sides + side) * n_types + utype
        self.lost_by_type = np.bincount(key[self.lost], minlength=g * n_sides * n_types).reshape(g, n_sides, n_types)
        self.unplaced_by_type = np.bincount(key[status == NOT_PLACED],
                                            minlength=g * n_sides * n_types).reshape(g, n_sides, n_types)
        self.stats = games["turn_stats"]

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
        # In game order, and by unit within a game.
        game, unit = np.nonzero(self.lost)
        gs = self.games_
        side, utype = gs["side"][game, unit], gs["utype"][game, unit]
        hexes, turn = gs["lost_hex"][game, unit], gs["lost_turn"][game, unit]
        return {"batch_game": game.astype(np.int64), "seed": self.seed[game],
                "side": np.array(self.sides, dtype=object)[side], "unit_type": self.names[utype],
                "hex": self.labels[np.where(hexes >= 0, hexes, -1)], "turn": turn.astype(np.int64)}
