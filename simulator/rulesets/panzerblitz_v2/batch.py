"""The engine module the runner imports (`RULESET.engine`): `prepare` and `play_games`.

`prepare` turns a situation into `Prepared` (the kernel tables with the line-of-sight table, and
the names the tables need); `play_games` plays one game a seed and returns the games, turns and
losses tables of results.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from simulator.decisions import finished, for_record, for_replay
from simulator.rulesets.panzerblitz_v2.game import play_game
from simulator.rulesets.panzerblitz_v2.invariants import NAMES
from simulator.rulesets.panzerblitz_v2.los import blown_rows, los_table
from simulator.rulesets.panzerblitz_v2.players import DECISION_KINDS
from simulator.rulesets.panzerblitz_v2.schema import PBV2Situation
from simulator.rulesets.panzerblitz_v2.state import (
    EV_ADVANCE,
    EV_ENTER,
    EV_LOAD,
    EV_LOSS,
    EV_MOVE,
    EV_SETUP,
    EV_UNLOAD,
    MAX_DECISIONS,
    TS_CHITS,
    TS_DISRUPTED,
    TS_FIRE,
    TS_HELD,
    TS_LOST,
    TS_STEPS,
    TS_UNITS,
    TS_UNPLAYED,
    new_state,
)
from simulator.rulesets.panzerblitz_v2.tables import Tables, build_tables
from simulator.rulesets.panzerblitz_v2.victory import FinalState, Outcome, evaluate

VIEW_RANGE = 8


@dataclass
class Prepared:
    situation: PBV2Situation
    tables: Tables
    columns: list[str]           # DFT column labels
    type_ids: list[str]          # unit types, by the tables' index
    sides: tuple[str, ...]


@dataclass
class Game:
    seed: int
    winner: int
    state: object


def prepare(sit: PBV2Situation) -> Prepared:
    t, columns, type_ids = build_tables(sit)
    los = los_table(t)
    # A hex's field of fire: play-area hexes it sees within VIEW_RANGE (what players value).
    near = (t.dist <= VIEW_RANGE) & t.play[None, :]
    t = t._replace(los=los, field_of_fire=((los != 0) & near).sum(axis=1).astype(np.int64))
    if t.n_bridges:
        t = t._replace(los_blown=blown_rows(t))       # 17.2.1.3: the ends' rows with their bridge out
    return Prepared(sit, t, columns, type_ids, sit.side_names)


def player_arrays(players: dict, sides) -> tuple[np.ndarray, np.ndarray]:
    specs = [players[s] for s in sides]
    width = max([1] + [len(p.full_params()) for p in specs])
    kinds = np.array([p.kernel_id for p in specs], dtype=np.int64)
    params = np.zeros((2, width), dtype=np.float64)
    for i, p in enumerate(specs):
        v = list(p.full_params().values())
        params[i, :len(v)] = v
    return kinds, params


def play_one(p: Prepared, seed: int, players: dict, dec=None, debug: bool = False) -> Game:
    """One game; `dec` records it (`decisions.for_record`) or replays a record with the players
    removed (`decisions.for_replay`); by default it is played without a record.  `debug`: the
    invariants are checked after every action (`violation(game)` names the first broken one)."""
    kinds, params = player_arrays(players, p.sides)
    st = new_state(p.tables, int(seed), kinds, params, dec, debug)
    winner = play_game(p.tables, st)
    return Game(int(seed), int(winner), st)


def violation(g: Game) -> str | None:
    """The first invariant a debug-mode game broke, and the event after which it was found; None."""
    code, event = (int(x) for x in g.state.viol)
    return f"{NAMES[code]} (found at event {event})" if code else None


def record_one(p: Prepared, seed: int, players: dict) -> tuple[Game, np.ndarray]:
    """One game and its decisions, rows (kind, n, chosen)."""
    dec = for_record(int(seed), MAX_DECISIONS)
    g = play_one(p, seed, players, dec)
    return g, finished(dec, DECISION_KINDS)


def replay_one(p: Prepared, seed: int, record: np.ndarray, players: dict) -> Game:
    """The game with this seed played again from its record, no player asked (`players` only
    fills the parameter arrays); `ReplayMismatch` if the record is not this game's."""
    dec = for_replay(record, DECISION_KINDS, int(seed))
    g = play_one(p, seed, players, dec)
    finished(dec, DECISION_KINDS)
    return g


def decided_turn(ts: np.ndarray, t: Tables, final: int) -> int:
    """The turn from whose end on the side ahead (who would win if the game ended then) stayed
    the final winner."""
    turn = ts.shape[0] - 1
    while turn > 0:
        held = ts[turn - 1, t.stated_side, TS_HELD]
        need = t.s_target[t.stated_side]
        ok = held > need if t.s_target_gt[t.stated_side] else held >= need
        ahead = t.stated_side if ok else 1 - t.stated_side
        if ahead != final:
            break
        turn -= 1
    return turn


def _needs_visits(sit) -> bool:
    def uses(v):
        return isinstance(v, dict) and (v.get("measure") == "entered" or any(uses(v.get(k)) for k in ("numerator", "denominator"))
                                        or any(uses(c) for a in v.get("also", []) for c in a["all"]))
    return any(uses(s.victory) for s in sit.sides)


def first_turn_in(p: Prepared, st) -> np.ndarray | None:
    """int64[n_units, n_hexes]: the first turn each counter stood in each hex (0 = set-up; a large
    number for never), from the event log; a passenger goes where its carrier goes.  None when the
    card has no `entered` measure (victory.py)."""
    if not _needs_visits(p.situation):
        return None
    t = p.tables
    never = 1 << 30
    first = np.full((t.n_units, t.n_hexes), never, dtype=np.int64)
    aboard = np.full(t.n_units, -1, dtype=np.int64)
    for e in st.ev[:st.n_ev[0]]:
        turn, kind, a, b, c = int(e[0]), int(e[2]), int(e[4]), int(e[5]), int(e[6])
        if kind in (EV_SETUP, EV_ENTER):
            u, h = a, b
        elif kind in (EV_MOVE, EV_ADVANCE):
            u, h = a, c
        elif kind == EV_LOAD:
            aboard[b] = a
            continue
        elif kind == EV_UNLOAD:
            aboard[b] = -1
            u, h = b, c
        else:
            continue
        if h < 0:
            continue
        first[u, h] = min(first[u, h], turn)
        for q in np.flatnonzero(aboard == u):
            first[q, h] = min(first[q, h], turn)
    return first


def final_state(p: Prepared, st, turn: int, first_in: np.ndarray | None = None) -> FinalState:
    """The counters at the end of `turn` as victory.py reads them (`first_in`: first_turn_in)."""
    t = p.tables
    groups = [g.name for s in p.situation.sides for g in s.groups]
    nu = t.n_units
    return FinalState(st.snap_hex[turn, :nu], st.snap_steps[turn, :nu], t.u_side,
                      [p.type_ids[i] for i in t.u_type], [groups[i] for i in t.u_group],
                      None if first_in is None else first_in <= turn, t.los,
                      (st.trip_done[:nu] > 0) & (st.trip_done[:nu] <= turn), st.exit_turn[:nu].copy(), turn)


def outcome(p: Prepared, g: Game) -> Outcome:
    """The game's result: PB2 3.2 as the kernel decided it, or a classic card's measures
    (victory.py) on the final state."""
    sit = p.situation
    if sit.classic_victory():
        return evaluate(sit, final_state(p, g.state, sit.turns, first_turn_in(p, g.state)))
    win = p.sides[g.winner]
    last = g.state.ts.shape[0] - 1
    return Outcome({s: "victory" if s == win else "none" for s in p.sides},
                   {s: float(g.state.ts[last, si, TS_HELD]) for si, s in enumerate(p.sides)}, win, "victory")


def classic_turns(p: Prepared, g: Game, final: Outcome) -> tuple[list[Outcome], int]:
    """A classic card's result at the end of every turn, and the turn from whose end on the
    result stayed the final one."""
    first = first_turn_in(p, g.state)
    per = [evaluate(p.situation, final_state(p, g.state, turn, first)) for turn in range(p.situation.turns + 1)]
    turn = len(per) - 1
    while turn > 0 and per[turn - 1].winner == final.winner:
        turn -= 1
    return per, turn


def play_games(p: Prepared, seeds, players: dict) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    t = p.tables
    sides = p.sides
    labels = p.situation.map.labels
    classic = p.situation.classic_victory()
    games, turns, losses = [], [], []
    for gi, seed in enumerate(seeds):
        g = play_one(p, int(seed), players)
        st = g.state
        ts = st.ts
        last = ts.shape[0] - 1
        o = outcome(p, g)
        if classic:
            per, decided = classic_turns(p, g, o)
        else:
            per, decided = None, decided_turn(ts, t, g.winner)
        row: dict = {"batch_game": gi, "seed": int(seed), "winner": o.winner, "level": o.level,
                     "turns_played": int(last), "decided_turn": decided,
                     "decisions": int(st.n_dec[0])}
        ev = st.ev[:st.n_ev[0]]
        for si, s in enumerate(sides):
            row[f"level_{s}"] = o.levels[s]
            row[f"value_{s}"] = float(o.values[s])
            row[f"steps_lost_{s}"] = int(ts[last, si, TS_LOST])
            mine = t.u_side == si
            gone = mine & (st.steps[:t.n_units] == 0)
            row[f"units_lost_{s}"] = int(gone.sum())
            row[f"chits_played_{s}"] = int(ts[:, si, TS_CHITS].sum())
            row[f"chits_unplayed_{s}"] = int(ts[:, si, TS_UNPLAYED].sum())
            row[f"fire_{s}"] = int(ts[:, si, TS_FIRE].sum())
            for ti, k in zip(*np.unique(t.u_type[gone], return_counts=True), strict=True):
                row[f"lost:{s}:{p.type_ids[ti]}"] = int(k)
            for turn in range(last + 1):
                turns.append((gi, int(seed), turn, s, int(ts[turn, si, TS_UNITS]), int(ts[turn, si, TS_STEPS]),
                              int(ts[turn, si, TS_DISRUPTED]), int(ts[turn, si, TS_LOST]), int(ts[turn, si, TS_HELD]),
                              float(per[turn].values[s]) if per else float(ts[turn, si, TS_HELD])))
        games.append(row)
        for e in ev[ev[:, 2] == EV_LOSS]:
            u = int(e[4])
            losses.append((gi, int(seed), sides[int(t.u_side[u])], p.type_ids[int(t.u_type[u])],
                           labels[int(e[5])] if e[5] >= 0 else "", int(e[0]), bool(e[6] == 0)))
    g = pd.DataFrame(games)
    loss_cols = [c for c in g.columns if c.startswith("lost:")]
    g[loss_cols] = g[loss_cols].fillna(0).astype(np.int64)   # counts a game reports only when non-zero
    return (g,
            pd.DataFrame(turns, columns=["batch_game", "seed", "turn", "side", "units_on_map", "steps_on_map",
                                         "units_disrupted", "steps_lost", "objectives_held", "measure"]),
            pd.DataFrame(losses, columns=["batch_game", "seed", "side", "unit_type", "hex", "turn", "eliminated"]))
