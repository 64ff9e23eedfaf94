"""The blunder audit: what a veteran would laugh at, counted from each game's event log.

`audit_games` plays one game per seed and reads its log (simulator/panzerblitz/replay.py gives
the fields of each event), so the counts keep the rules and the players apart: nothing here
plays or judges a move while the game runs.  Per game and side:

- `own_mine_attacks`, `own_mine_losses`: attacks by, and units lost to, the side's own
  minefields (the owner of a minefield is the side that set it up);
- `own_mine_clear_attempts`, `own_mines_cleared`: its engineers' attempts on, and removals of,
  its own minefields (PB-MINE-9);
- `empty_carrier_turns`: per player-turn, the side's transport carriers (trucks, wagons,
  halftracks) on the map that are empty and neither load nor unload that turn (idle or driving
  empty), up to the number of its riders that walk that turn while they still have more than
  `walk_hexes` hexes to go (to the side's goal as the heuristic player reads the card, or to the
  nearest enemy unit for a side without one) with no enemy unit within `ride_safe_hexes` of where
  they started (nearer the enemy a veteran sets his infantry down: riding on would be riding into
  its fire); one carrier a walker;
- `low_odds_attacks`: attacks (fire, each battle of a multiple attack, close assaults) whose chance
  of any effect (D, DD or X), with their die modifiers (terrain, close assault, dispersed
  defenders), is below that of an attack at `low_odds` with the target hex's terrain modifier
  alone: a 1-2 close assault at -3 on a dispersed stack is not counted, a 1-1 shot into woods
  (+1) is not, a 1-2 shot is;
- `lost_alone`: units of high worth (>= `high_worth`) eliminated by a massed attack (>=
  `massed_firers` units) with no other unit of their side within `alone_radius` hexes;
- `idle_turns`: player-turns with no attack while an enemy stack could be attacked at
  `good_odds` or better (from the heuristic player's note of its fire options, EV_FIRE_CHANCE;
  not counted for random players, who leave no such note).

Thresholds are data: players/audit.toml.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pandas as pd

from simulator.errors import DataError
from simulator.rulesets.panzerblitz.combat import NOW_ELIMINATED
from simulator.rulesets.panzerblitz.events import (
    EV_ASSAULT,
    EV_ASSAULTER,
    EV_ATTACK,
    EV_ELIMINATED_PASSENGER,
    EV_ENTER,
    EV_EXCESS,
    EV_EXIT,
    EV_FIRE_CHANCE,
    EV_FIRER,
    EV_HIT,
    EV_INTENSIVE,
    EV_LOAD,
    EV_MINE,
    EV_MINE_REMOVAL,
    EV_MOVE,
    EV_OVERRUN,
    EV_OVERRUNNER,
    EV_SELF_DESTROYED,
    EV_SETUP,
    EV_TURN,
    EV_UNLOAD,
)
from simulator.rulesets.panzerblitz.players.goals import MOD_OFFSET, NO_GOAL, P_D, P_DD, P_X
from simulator.rulesets.panzerblitz.players.spec import PolicySpec
from simulator.rulesets.panzerblitz.replay import play, policy_tables
from simulator.rulesets.panzerblitz.state import new_state
from simulator.rulesets.panzerblitz.tables import Tables
from simulator.rulesets.panzerblitz.units import CATEGORY_INDEX

THRESHOLDS_FILE = Path(__file__).resolve().parent / "players" / "audit.toml"
COUNTS = ("own_mine_attacks", "own_mine_losses", "own_mine_clear_attempts", "own_mines_cleared",
          "empty_carrier_turns", "low_odds_attacks", "lost_alone", "idle_turns")
NUMERIC = ("walk_hexes", "ride_safe_hexes", "massed_firers", "high_worth", "alone_radius")
ODDS = ("low_odds", "good_odds")

MINE = CATEGORY_INDEX["minefield"]
TRANSPORT = CATEGORY_INDEX["transport"]


def load_thresholds(path: Path = THRESHOLDS_FILE, changes: dict[str, str] | None = None) -> dict:
    """The audit's thresholds from `path` ([thresholds] table), with `changes` (NAME -> text)."""
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise DataError(str(path), "(file)", str(exc), "a readable TOML file") from exc
    th = data.get("thresholds")
    if not isinstance(th, dict):
        raise DataError(str(path), "thresholds", "missing", "a [thresholds] table")
    th = dict(th)
    for name, raw in (changes or {}).items():
        if name not in th:
            raise DataError("--threshold", name, "unknown threshold", ", ".join(th))
        th[name] = raw if name in ODDS else _number("--threshold", name, raw)
    for name in NUMERIC:
        v = th.get(name)
        if isinstance(v, bool) or not isinstance(v, int | float) or v < 0:
            raise DataError(str(path), f"thresholds.{name}", f"got {v!r}", "a number >= 0")
    for name in ODDS:
        if not isinstance(th.get(name), str):
            raise DataError(str(path), f"thresholds.{name}", f"got {th.get(name)!r}", "odds such as \"2-1\"")
    return th


def _number(where: str, name: str, raw: str) -> float:
    try:
        return float(raw)
    except ValueError:
        raise DataError(where, name, f"{raw!r} is not a number", "a number") from None


def _column(t: Tables, odds: str, where: str) -> int:
    if odds not in t.combat.column_names:
        raise DataError(where, odds, "not a column of the CRT", ", ".join(t.combat.column_names))
    return int(t.combat.column(odds))


def audit_games(t: Tables, seeds: list[int], policies: dict[str, PolicySpec], thresholds: dict) -> pd.DataFrame:
    """One row a game and side: `batch_game`, `seed`, `side`, the policy, the winner and COUNTS."""
    sides = t.situation.ruleset.sides
    specs = tuple(policies[s] for s in sides)
    first = new_state(t, np.random.default_rng(0))  # who starts aboard what (the same every game)
    rows = []
    for gi, seed in enumerate(seeds):
        rec = play(t, int(seed), specs)
        counts = count_blunders(t, rec.state, rec.events, first.carried_by, thresholds)
        for si, s in enumerate(sides):
            rows.append({"batch_game": gi, "seed": int(seed), "side": s, "policy": specs[si].label(),
                         "winner": rec.outcome.winner or "draw", **counts[si]})
    return pd.DataFrame(rows)


def count_blunders(t: Tables, st, events: np.ndarray, carried_at_start: np.ndarray, th: dict) -> list[dict]:
    """COUNTS per side index, from one game's log (`st` gives each counter's side and type)."""
    ut = t.unit_t
    dist = t.map_t.dist
    pt = policy_tables(t)
    low_col = _column(t, th["low_odds"], "thresholds.low_odds")
    good_col = _column(t, th["good_odds"], "thresholds.good_odds")
    radius, massed = int(th["alone_radius"]), int(th["massed_firers"])
    n = st.utype.shape[0]
    utype, side = st.utype, st.side
    piece = ~ut.positional[utype]
    rider = ~ut.vehicle[utype] & piece & (ut.mclass[utype] >= 0)
    transport = ut.category[utype] == TRANSPORT
    # worth of each unit to the enemy (players/goals.py): its value plus the enemy card's weight
    worth = pt.unit_value[utype] + pt.victory_weight[1 - side, utype]
    hexes = np.full(n, -1, dtype=np.int64)
    on_map = np.zeros(n, dtype=bool)
    carried_by = carried_at_start.copy()
    carrying = np.full(n, -1, dtype=np.int64)
    for p in np.flatnonzero(carried_by >= 0):
        carrying[carried_by[p]] = p
    goal_kind, goal_dist = pt.goal_kind, pt.goal_dist
    terrain_mod = t.map_t.terrain_mod
    effect = pt.p_result[P_D] + pt.p_result[P_DD] + pt.p_result[P_X]  # [column, modifier + MOD_OFFSET]

    def effect_p(col, modifier):
        return effect[col, min(max(modifier + MOD_OFFSET, 0), effect.shape[1] - 1)]

    mine_owner: dict[int, int] = {}
    out = [dict.fromkeys(COUNTS, 0) for _ in range(2)]
    attackers = 0
    last_attackers = 0
    # per player-turn
    turn_side = -1
    attacked = False
    chance = -1
    busy = np.zeros(n, dtype=bool)      # a carrier that loaded or unloaded this player-turn
    far_walkers = set()

    def close_turn():
        if turn_side < 0:
            return
        if chance >= good_col and not attacked:
            out[turn_side]["idle_turns"] += 1
        if far_walkers:
            idle = transport & on_map & (side == turn_side) & (carrying < 0) & ~busy & (carried_by < 0)
            out[turn_side]["empty_carrier_turns"] += min(int(idle.sum()), len(far_walkers))

    def put(u, h):
        hexes[u] = h
        on_map[u] = h >= 0
        p = carrying[u]
        if p >= 0:
            hexes[p] = h
            on_map[p] = h >= 0

    def gone(u):
        on_map[u] = False
        p = carrying[u]
        if p >= 0:
            on_map[p] = False

    for row in events:
        _, ph, kind, a, b, c, d, e, f, g = (int(x) for x in row)
        if kind == EV_TURN:
            close_turn()
            turn_side, attacked, chance, far_walkers = a, False, -1, set()
            busy[:] = False
        elif kind == EV_SETUP:
            put(a, b)
            if ut.category[utype[a]] == MINE:
                mine_owner[b] = int(side[a])
        elif kind == EV_ENTER:
            put(a, b)
        elif kind == EV_MOVE:
            if rider[a] and carried_by[a] < 0 and b >= 0 and a not in far_walkers:
                s = int(side[a])
                enemy = on_map & piece & (side != s) & (carried_by < 0) & (hexes >= 0)
                enemy_near = dist[b, hexes[enemy]].min() if enemy.any() else 1 << 20
                to_go = goal_dist[s, b] if goal_kind[s] != NO_GOAL else (enemy_near if enemy.any() else 0)
                if to_go > th["walk_hexes"] and enemy_near > th["ride_safe_hexes"]:
                    far_walkers.add(a)
            put(a, c)
        elif kind == EV_LOAD:
            carrying[a], carried_by[b] = b, a
            hexes[b] = hexes[a]
            on_map[b] = on_map[a]
            busy[a] = True
        elif kind == EV_UNLOAD:
            carrying[a], carried_by[b] = -1, -1
            hexes[b] = c
            on_map[b] = True
            busy[a] = True
        elif kind == EV_EXIT:
            gone(a)
        elif kind in (EV_FIRER, EV_ASSAULTER, EV_OVERRUNNER):
            attackers += 1
        elif kind in (EV_ATTACK, EV_ASSAULT, EV_OVERRUN):
            attacked = True
            if kind != EV_OVERRUN and (d < 0 or effect_p(d, f) < effect_p(low_col, int(terrain_mod[a])) - 1e-9):
                out[ph]["low_odds_attacks"] += 1
            if attackers:
                last_attackers = attackers
            attackers = 0
        elif kind == EV_HIT and b == NOW_ELIMINATED:
            s = int(side[a])
            if worth[a] >= th["high_worth"] and last_attackers >= massed and on_map[a] and hexes[a] >= 0:
                near = on_map & piece & (side == s) & (carried_by < 0) & (hexes >= 0) & (dist[hexes[a], np.maximum(hexes, 0)] <= radius)
                near[a] = False
                if not near.any():
                    out[s]["lost_alone"] += 1
            gone(a)
        elif kind in (EV_ELIMINATED_PASSENGER, EV_SELF_DESTROYED, EV_INTENSIVE, EV_EXCESS):
            gone(a)
        elif kind == EV_MINE:
            if mine_owner.get(b) == side[a]:
                out[side[a]]["own_mine_attacks"] += 1
                if e == NOW_ELIMINATED:
                    out[side[a]]["own_mine_losses"] += 1 + (1 if carrying[a] >= 0 else 0)
            if e == NOW_ELIMINATED:
                gone(a)
        elif kind == EV_MINE_REMOVAL:
            if mine_owner.get(b) == side[a]:
                out[side[a]]["own_mine_clear_attempts"] += 1
                out[side[a]]["own_mines_cleared"] += d
            if d:
                mine_owner.pop(b, None)
        elif kind == EV_FIRE_CHANCE:
            chance = a
    close_turn()
    return out


def summarize_audit(rows: pd.DataFrame) -> pd.DataFrame:
    """Per side: games, and for each count its total, mean per game and the games with any."""
    out = []
    for s, g in rows.groupby("side", sort=False):
        r = {"side": s, "policy": g["policy"].iloc[0], "games": len(g)}
        for c in COUNTS:
            r[f"{c}_total"] = int(g[c].sum())
            r[f"{c}_per_game"] = round(float(g[c].mean()), 3)
            r[f"{c}_games"] = int((g[c] > 0).sum())
        out.append(r)
    return pd.DataFrame(out)
