"""The hex race rules engine (plain Python): `prepare` and `play_games` for the runner.

Each game-turn each runner, the `first` side's first, rolls one die: that many movement points,
a clear hex costing `race.clear_cost` and a mud hex `race.mud_cost` to enter; walls and water
cannot be crossed, nor the other runner's hex entered.  The engine lists every hex the runner
can end in (staying put included) and its player picks one.  A roll of `race.stumble_roll` is a
stumble, recorded where it happened.  The dice and the players' choices are two random streams
of the game's seed (simulator/decisions.py), so a recorded game replays from its decisions alone.  The first runner in its goal hex wins, clearly if the
other is still `race.clear_margin` hexes or more from its own goal; nobody home after the last
turn is a draw.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np
import pandas as pd

from simulator.decisions import (
    Decisions,
    dice_stream,
    finished,
    for_play,
    for_record,
    for_replay,
    option_buffer,
)
from simulator.hexgrid import distance_matrix
from tests.toy_ruleset.players import DECISION_KINDS, END_HEX, choose
from tests.toy_ruleset.schema import RaceSituation

LEVELS = ("narrow", "clear")


@dataclass(frozen=True)
class Tables:
    situation: RaceSituation
    sides: tuple[str, ...]
    neighbours: np.ndarray    # int[n, 6], -1 off the map
    cost: np.ndarray          # int[n]: movement points to enter; -1 never
    wall: np.ndarray          # bool[n, 6]
    to_goal: np.ndarray       # int[2, n]: movement points to each side's goal
    hexes_to_goal: np.ndarray  # int[2, n]: hexes to each side's goal
    die_sides: int
    stumble_roll: int
    clear_margin: int
    options: np.ndarray       # int32[n, 1]: the options of a decision (one hex a row)


def prepare(sit: RaceSituation) -> Tables:
    m, race = sit.map, sit.ruleset.data["race"]
    cost = np.full(m.n_hexes, int(race["clear_cost"]), dtype=np.int64)
    cost[m.has_feature("mud")] = int(race["mud_cost"])
    for f in sit.ruleset.data["map"].get("closed_hex_features", []):
        cost[m.has_feature(f)] = -1
    wall = (m.side_features & m.side_bit("wall")) != 0
    dist = distance_matrix(m.q, m.r)
    sides = sit.side_names
    t = Tables(sit, sides, m.neighbours.astype(np.int64), cost, wall, np.zeros((2, m.n_hexes), dtype=np.int64),
               np.array([dist[sit.goal[s]] for s in sides], dtype=np.int64), int(race["die_sides"]),
               int(race["stumble_roll"]), int(race["clear_margin"]), option_buffer(DECISION_KINDS, m.n_hexes))
    for si, s in enumerate(sides):
        t.to_goal[si] = _costs_from(t, sit.goal[s], budget=10**9, blocked=-1, backwards=True)
    return t


def _costs_from(t: Tables, start: int, budget: int, blocked: int, backwards: bool = False) -> np.ndarray:
    """Movement points from `start` to every hex (backwards: from every hex to `start`), within
    `budget`; a large number where out of reach."""
    far = 10**9
    best = np.full(len(t.cost), far, dtype=np.int64)
    best[start] = 0
    heap = [(0, start)]
    while heap:
        spent, h = heapq.heappop(heap)
        if spent > best[h]:
            continue
        for d in range(6):
            n = t.neighbours[h, d]
            if n < 0 or t.wall[h, d] or t.cost[n] < 0 or n == blocked:
                continue
            step = t.cost[h] if backwards else t.cost[n]
            if spent + step <= budget and spent + step < best[n]:
                best[n] = spent + step
                heapq.heappush(heap, (spent + step, n))
    return best


def legal_moves(t: Tables, here: int, points: int, other: int) -> list[int]:
    """Every hex a runner in `here` can end in with `points` movement points, staying put too."""
    return [int(h) for h in np.flatnonzero(_costs_from(t, here, points, other) <= points)]


@dataclass
class Game:
    seed: int
    moves: list[tuple[int, int, int, int, int]]   # (turn, side, roll, from, to)
    distances: list[list[int]]                    # per turn (0 = start, to the last), hexes to goal per side
    winner: int | None
    level: str
    turns_played: int


def play_one(t: Tables, seed: int, players, decisions: Decisions | None = None) -> Game:
    """One game; `players` per side index (None when `decisions` replays a record)."""
    sit = t.situation
    dec = decisions if decisions is not None else for_play(seed)
    kernel = [p.kernel_id if p is not None else 0 for p in players]
    params = [p.vector(1) if p is not None else np.zeros(1) for p in players]
    rng = dice_stream(seed)
    pos = [sit.start[s] for s in t.sides]
    first = t.sides.index(sit.first)
    order = (first, 1 - first)
    moves, winner, turn = [], None, 0
    distances = [[int(t.hexes_to_goal[si, pos[si]]) for si in range(2)]]
    for turn in range(1, sit.turns + 1):
        for si in order:
            roll = int(rng.integers(1, t.die_sides + 1))
            options = legal_moves(t, pos[si], roll, pos[1 - si])
            t.options[:len(options), 0] = options
            to = int(t.options[choose(END_HEX, t.options, len(options), t.to_goal[si], kernel[si], params[si], dec), 0])
            moves.append((turn, si, roll, pos[si], to))
            pos[si] = to
            if to == sit.goal[t.sides[si]]:
                winner = si
                break
        distances.append([int(t.hexes_to_goal[si, pos[si]]) for si in range(2)])
        if winner is not None:
            break
    level = "none"
    if winner is not None:
        level = "clear" if distances[-1][1 - winner] >= t.clear_margin else "narrow"
    # The race is over: every later turn stands where it ended (the turns table has every turn).
    distances += [distances[-1]] * (sit.turns + 1 - len(distances))
    return Game(seed, moves, distances, winner, level, turn)


def record_one(t: Tables, seed: int, players) -> tuple[Game, np.ndarray]:
    """One game and its decisions, rows (kind, n, chosen) (simulator/decisions.py)."""
    dec = for_record(seed)
    game = play_one(t, seed, players, dec)
    return game, finished(dec, DECISION_KINDS)


def replay_one(t: Tables, seed: int, record: np.ndarray) -> Game:
    """The game with this seed played again from its recorded decisions, with no players;
    `ReplayMismatch` if the record is not that game's."""
    dec = for_replay(record, DECISION_KINDS, seed)
    game = play_one(t, seed, (None, None), dec)
    finished(dec, DECISION_KINDS)
    return game


def play_games(t: Tables, seeds: list[int], players: dict) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The games, turns and stumbles tables of one batch (results schema: ruleset.py)."""
    labels = t.situation.map.labels
    specs = [players[s] for s in t.sides]
    games, turns, stumbles = [], [], []
    for gi, seed in enumerate(seeds):
        g = play_one(t, int(seed), specs)
        row = {"batch_game": gi, "seed": int(seed), "winner": t.sides[g.winner] if g.winner is not None else "draw",
               "level": g.level, "turns_played": g.turns_played}
        for si, s in enumerate(t.sides):
            row[f"level_{s}"] = g.level if g.winner == si else "none"
            row[f"distance_{s}"] = g.distances[-1][si]
            row[f"stumbles_{s}"] = sum(1 for m in g.moves if m[1] == si and m[2] == t.stumble_roll)
        games.append(row)
        for turn, dist in enumerate(g.distances):
            for si, s in enumerate(t.sides):
                start = g.distances[0][si]
                turns.append((gi, int(seed), turn, s, dist[si], start - dist[si], float(start - dist[si])))
        stumbles += [(gi, int(seed), t.sides[si], labels[frm], turn)
                     for turn, si, roll, frm, _ in g.moves if roll == t.stumble_roll]
    return (pd.DataFrame(games),
            pd.DataFrame(turns, columns=["batch_game", "seed", "turn", "side", "distance_left", "progress", "measure"]),
            pd.DataFrame(stumbles, columns=["batch_game", "seed", "side", "hex", "turn"]))
