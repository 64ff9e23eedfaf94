"""Two map edges joined through a set of hexes: the open-corridor and line-of-fire victory measures
of the PanzerBlitz cards (pb-03, pb-11), played by the classic rules and by PanzerBlitz v2 on their
own line of sight.  Which hexes a side's units block or cover is the ruleset's business; this
module only widens a corridor and searches the map.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import njit


def widened(free: np.ndarray, neighbours: np.ndarray, width: int) -> np.ndarray:
    """The hexes of a corridor `width` hexes wide: free hexes whose every hex within
    (width - 1) // 2 steps is free too (a side off the map's edge does not close it)."""
    wide = free.copy()
    for _ in range((width - 1) // 2):
        wide &= np.where(neighbours >= 0, wide[np.maximum(neighbours, 0)], True).all(axis=1)
    return wide


def edges_joined(game_map, neighbours: np.ndarray, ok: np.ndarray, between) -> bool:
    """Whether a path of `ok` hexes joins the map edge `between[0]` to `between[1]`.
    `neighbours`: the map's, read as int64 (a ruleset's int64 copy is used as is; one compiled
    signature for every ruleset)."""
    start = np.zeros(game_map.n_hexes, dtype=np.bool_)
    goal = np.zeros(game_map.n_hexes, dtype=np.bool_)
    start[game_map.edge_hexes(between[0])] = True
    goal[game_map.edge_hexes(between[1])] = True
    return _connected(np.asarray(neighbours, dtype=np.int64), ok.astype(np.bool_), start, goal)


@njit(cache=True)
def _connected(neighbours, ok, start, goal):
    """Whether a path of `ok` hexes joins a `start` hex to a `goal` hex (breadth-first search).
    Compiled: the decided-turn evaluation asks this at the end of every game-turn."""
    n = ok.shape[0]
    seen = np.zeros(n, dtype=np.bool_)
    queue = np.empty(n, dtype=np.int64)
    tail = 0
    for h in range(n):
        if start[h] and ok[h]:
            seen[h] = True
            queue[tail] = h
            tail += 1
    head = 0
    while head < tail:
        h = queue[head]
        head += 1
        if goal[h]:
            return True
        for x in neighbours[h]:
            if x >= 0 and ok[x] and not seen[x]:
                seen[x] = True
                queue[tail] = x
                tail += 1
    return False
