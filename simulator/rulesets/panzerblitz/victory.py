"""Victory conditions at the end of a game (PB-VIC-3..5), in the situation files' vocabulary.

Each side's `[side.victory]` measure is computed on the final state and compared with its
level thresholds.  The winner is the side with the higher level reached, at that level or at
the difference of the two levels (readings.both_sides_reach_level); equal levels (none
included) are a draw (docs/rulings.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulator.areas import resolve_static_area
from simulator.corridors import edges_joined, widened
from simulator.rulesets.panzerblitz.situation_schema import victory_measures
from simulator.rulesets.panzerblitz.state import ELIMINATED, EXITED, ON_MAP, State
from simulator.rulesets.panzerblitz.tables import EDGE_BITS, Tables
from simulator.victory_levels import (  # noqa: F401 - the level words live in the core (shared with panzerblitz-v2)
    COMPARE,
    LEVEL_RANK,
    RANK_NAMES,
    alternatives_reached,
    alternatives_reached_all,
    level_reached,
    levels_reached,
    result_of,
    results_of,
)


@dataclass(frozen=True)
class Outcome:
    levels: dict[str, str]     # side -> level reached ("none", "marginal", ...)
    values: dict[str, float]   # side -> its measure's value
    winner: str | None         # None = draw
    level: str                 # the winner's level, or "none"
    no_battle: bool = False    # PB-VIC-6: neither side fired or moved toward the enemy
    # The winner's level under the other reading of readings.both_sides_reach_level (the
    # winner is the same under both): it differs only when the loser reached a level too.
    other_level: str = "none"


def evaluate(st: State, t: Tables, now: int | None = None) -> Outcome:
    """The result if the game ended after game-turn `now` (default: its last turn)."""
    sit = t.situation
    final = now is None
    now = sit.turns if now is None else now
    sides = sit.ruleset.sides
    if final and not st.engaged.any():
        # PB-VIC-6: nobody ever fired or moved a unit toward the enemy (or entered the map):
        # no battle, no victory for anyone.  Reading: the rule speaks of "the attacking
        # player"; the cards do not name one, so the game is no battle only if neither side
        # engaged.  Judged on the final state only (the turn-by-turn results do not track it).
        return Outcome({s.name: RANK_NAMES[0] for s in sit.sides}, {s.name: 0.0 for s in sit.sides}, None, "none",
                       True)
    ranks: dict[str, int] = {}
    values: dict[str, float] = {}
    for s in _evaluation_order(t):
        si = sides.index(s.name)
        v = s.victory
        if v.get("measure") == "prevent_enemy":
            other = [x for x in ranks if x != s.name]
            value = float(all(ranks[x] == 0 for x in other))
        else:
            value = measure_value(v, st, t, si, now)
        values[s.name] = value
        ranks[s.name] = max(level_reached(v, value), _also_reached(v, st, t, si, now))
    winner, higher, difference = result_of(ranks)
    level, other = (difference, higher) if t.combat.levels_by_difference else (higher, difference)
    return Outcome({s: RANK_NAMES[r] for s, r in ranks.items()}, values, winner, RANK_NAMES[level],
                   other_level=RANK_NAMES[other])


def _evaluation_order(t: Tables) -> list:
    """The card's sides in the order their results are worked out: prevent_enemy depends on the
    other side's result, so the others first."""
    return sorted(t.situation.sides, key=lambda s: s.victory.get("measure") == "prevent_enemy")


def _also_reached(v: dict, st: State, t: Tables, me: int, now: int) -> int:
    """The highest level of the `also` alternatives whose conditions all hold (a card's special
    victory rule, e.g. PB-SIT-10), or 0 (PB-VIC-3, readings.both_sides_reach_level: result_of)."""
    return alternatives_reached(v, lambda c: measure_value(c, st, t, me, now))


def _counted(st: State, t: Tables, side: int, m: dict) -> np.ndarray:
    """Units of `side` that count for victory: not forts, blocks, minefields (PB-VIC-4)."""
    mask = (st.side == side) & t.unit_t.victory_count[st.utype]
    if m.get("units"):
        wanted = [t.units.index(u) for u in m["units"]]
        mask &= np.isin(st.utype, wanted)
    if m.get("group"):
        # Groups are numbered side by side, in file order (state.new_state).
        names = [g.name for s in t.situation.sides for g in s.groups]
        mask &= np.isin(st.group, [i for i, n in enumerate(names) if n == m["group"]])
    return mask


def _unit_weights(utype: np.ndarray, t: Tables, m: dict) -> np.ndarray:
    """What each unit counts for in measure `m`: 1, or its type's `weights` entry."""
    weights = np.ones(utype.shape)
    for name, w in m.get("weights", {}).items():
        weights[utype == t.units.index(name)] = w
    return weights


def _weighted(st: State, t: Tables, mask: np.ndarray, m: dict) -> float:
    return float(_unit_weights(st.utype, t, m)[mask].sum())


def measure_value(m: dict, st: State, t: Tables, me: int, now: int | None = None) -> float:
    kind = m["measure"]
    now = t.situation.turns if now is None else now
    if kind == "ratio":
        num = measure_value(m["numerator"], st, t, me, now)
        den = measure_value(m["denominator"], st, t, me, now)
        if den == 0:
            return float("inf") if num > 0 else 1.0  # 0 to 0 is "as many" (docs/rulings.md)
        return num / den
    whose = me if m.get("whose", "own") == "own" else 1 - me
    mask = _counted(st, t, whose, m)
    game_map = t.situation.map
    if kind == "destroyed":
        return _weighted(st, t, mask & (st.status == ELIMINATED), m)
    if kind == "in_area":
        inside = _area_mask(m["area"], t)[st.hex] & (st.status == ON_MAP)  # hex -1: the mask's last entry, False
        return _weighted(st, t, mask & inside, m)
    if kind in ("exited", "not_exited"):
        bit = EDGE_BITS[m["edge"]]
        out = (st.status == EXITED) & ((st.exit_edge & bit) != 0)
        stay = m.get("stay_off_turns", 0)
        if stay:
            out &= (now - st.exit_turn) >= stay
        return _weighted(st, t, mask & (out if kind == "exited" else ~out), m)
    if kind == "round_trip":
        if not m.get("return_leg", True):
            # The reading before the return leg: out by the edge and off long enough.
            out = (st.status == EXITED) & ((st.exit_edge & EDGE_BITS[m["edge"]]) != 0)
            return _weighted(st, t, mask & out & ((now - st.exit_turn) >= m.get("stay_off_turns", 0)), m)
        # PB-SIT-5: out by `edge`, off `stay_off_turns` game-turns, back on where it left (the
        # engine allows nothing else, state.returned), then out by `final_edge` by game-turn now.
        home = (st.status == EXITED) & ((st.exit_edge & EDGE_BITS[m["final_edge"]]) != 0) & st.returned
        return _weighted(st, t, mask & home & (st.exit_turn <= now), m)
    if kind == "entered":
        # 1 if a unit of that side ever stood in or passed through a hex of the area (PB-SIT-10).
        return float(((st.visited[_static_area(m["area"], t)] >> whose) & 1).any())
    if kind == "hexes_controlled":
        return float(sum(_controls(st, t, whose, game_map.lookup(h)) for h in m["hexes"]))
    if kind == "furthest_advance":
        on = mask & (st.status == ON_MAP)
        if not on.any():
            return 0.0
        hexes = st.hex[on]
        col, row = game_map.col[hexes], game_map.row[hexes]
        toward = m["toward"]
        far = {"east": col + 1, "west": game_map.width - col, "south": row + 1, "north": game_map.height - row}[toward]
        return float(far.max())
    if kind == "line_of_fire":
        covered = _seen(st, t, whose) | _occupied(st, t, whose)
        return float(edges_joined(game_map, t.map_t.neighbours, covered, m["between"]))
    if kind == "open_corridor":
        # A corridor `width` hexes wide: every hex of it and its neighbours within
        # (width - 1) // 2 steps are free of enemy units and enemy sight.
        free = ~(_seen(st, t, whose) | _occupied(st, t, whose))
        wide = widened(free, t.map_t.neighbours, m["width"])
        return float(edges_joined(game_map, t.map_t.neighbours, wide, m["between"]))
    raise ValueError(f"unknown measure {kind!r}")


_AREAS: dict[tuple[int, str], tuple[Tables, np.ndarray]] = {}


def _static_area(area: dict, t: Tables) -> np.ndarray:
    """The hexes of a victory area, resolved once per Tables (it is asked every game-turn)."""
    key = (id(t), repr(sorted(area.items())))
    hit = _AREAS.get(key)
    if hit is None or hit[0] is not t:  # the same id may belong to a newer Tables
        hit = _AREAS[key] = (t, resolve_static_area(area, t.situation.map, t.situation.ruleset, "", ""))
    return hit[1]


_AREA_MASKS: dict[tuple[int, str], tuple[Tables, np.ndarray]] = {}


def _area_mask(area: dict, t: Tables) -> np.ndarray:
    """bool[n_hexes + 1]: the hexes of a victory area, and False last (for a unit off the map,
    hex -1), made once per Tables (np.isin of the units' hexes each game-turn was half of
    `provisional` on pb-04)."""
    key = (id(t), repr(sorted(area.items())))
    hit = _AREA_MASKS.get(key)
    if hit is None or hit[0] is not t:
        mask = np.zeros(t.situation.map.n_hexes + 1, dtype=bool)
        mask[_static_area(area, t)] = True
        hit = _AREA_MASKS[key] = (t, mask)
    return hit[1]


def _occupied(st: State, t: Tables, side: int) -> np.ndarray:
    out = np.zeros(t.situation.map.n_hexes, dtype=bool)
    on = (st.side == side) & (st.status == ON_MAP) & ~t.unit_t.positional[st.utype]
    out[st.hex[on]] = True
    return out


def _seen(st: State, t: Tables, side: int) -> np.ndarray:
    on = (st.side == side) & (st.status == ON_MAP) & ~t.unit_t.positional[st.utype]
    hexes = np.unique(st.hex[on])
    if len(hexes) == 0:
        return np.zeros(t.situation.map.n_hexes, dtype=bool)
    return t.map_t.los[hexes].any(axis=0).astype(bool)


def _controls(st: State, t: Tables, side: int, h: int) -> bool:
    """PB-VIC-5: the hex is occupied by a unit of `side`, or one of its units was the last to
    occupy or pass through it (`st.control`; an overrun that destroyed the occupants counts,
    a close assault does not; wrecks do not count)."""
    occupied = (st.hex == h) & (st.status == ON_MAP) & ~t.unit_t.positional[st.utype]
    if (occupied & (st.side == side)).any():
        return True
    if (occupied & (st.side != side)).any():
        return False
    return bool(st.control[h] == side)


def provisional(st: State, t: Tables) -> list[Outcome]:
    """The result as it stood at the end of each game-turn (0 = after set-up): the victory
    conditions evaluated on that turn's positions as if the game had ended then."""
    return standings(st, t).outcomes(t)


def provisional_by_turn(st: State, t: Tables) -> list[Outcome]:
    """`provisional`, one `evaluate` a game-turn: the reading `standings` must agree with
    (tests/panzerblitz/test_victory_standings.py)."""
    return [evaluate(_AtTurn(st, turn), t, now=turn) for turn in range(st.snap_hex.shape[0])]


@dataclass(frozen=True)
class Standings:
    """The provisional result at the end of every game-turn (turn 0: after set-up), as arrays
    whose last axes are [turn] or [turn, side] (sides in the ruleset's order), after a leading
    [game] axis for a batch (`batch_standings`).  Scored for all game-turns at once: one pass of
    the measures over the snapshots instead of an `evaluate` a turn (the Python of those
    evaluations was half of what a pb-04 game spent outside the kernels)."""

    values: np.ndarray       # float64[..., turns + 1, sides]: each side's measure
    ranks: np.ndarray        # int64[..., turns + 1, sides]: the level each side reached
    winner: np.ndarray       # int64[..., turns + 1]: the side ahead, -1 a draw
    level: np.ndarray        # int64[..., turns + 1]: the rank of the winner's level (0 for a draw)
    other_level: np.ndarray  # int64[..., turns + 1]: the same under the other reading (Outcome.other_level)

    def outcome(self, t: Tables, turn: int) -> Outcome:
        """One game's game-turn as an Outcome."""
        sides = t.situation.ruleset.sides
        w = int(self.winner[turn])
        order = [sides.index(s.name) for s in _evaluation_order(t)]
        return Outcome({sides[i]: RANK_NAMES[int(self.ranks[turn, i])] for i in order},
                       {sides[i]: float(self.values[turn, i]) for i in order},
                       None if w < 0 else sides[w], RANK_NAMES[int(self.level[turn])],
                       other_level=RANK_NAMES[int(self.other_level[turn])])

    def outcomes(self, t: Tables) -> list[Outcome]:
        return [self.outcome(t, turn) for turn in range(len(self.winner))]

    def decided_turn(self) -> np.ndarray:
        """`decided_turn` of each game (int64[...]; a 0-d array for one game)."""
        changed = (self.winner != self.winner[..., -1:]) | (self.level != self.level[..., -1:])
        n = changed.shape[-1]
        return np.where(changed.any(axis=-1), n - np.argmax(changed[..., ::-1], axis=-1), 0)


def standings(st: State, t: Tables) -> Standings:
    """`evaluate` of every game-turn's snapshot at once: the same values, levels and results
    as one `evaluate(_AtTurn(st, turn), t, now=turn)` a turn (`provisional_by_turn`).  (A
    measure's weighted counts are summed in another order; with whole-number weights, as every
    card has, the sums are exact.)"""
    at = _Turns(st, st.snap_hex, st.snap_status, st.snap_control, st.snap_visited,
                np.arange(st.snap_hex.shape[0], dtype=np.int64))
    return Standings(*_score(at, t))


# The fields of a game's final state that `batch_standings` and a batch's tables read (`recorded`).
RECORDED = ("utype", "side", "group", "status", "exit_edge", "exit_turn", "returned", "engaged",
            "lost_hex", "lost_turn", "turn_stats", "snap_hex", "snap_status")


def recorded(t: Tables) -> tuple[str, ...]:
    """RECORDED, and each game-turn's control and visits of the hexes if a condition of the card
    measures them (hexes_controlled, entered): those two are most of a game's record (~180 KB
    of ~200 KB on pb-04), which a batch keeps for all its games."""
    kinds = {m.get("measure") for s in t.situation.sides for m in victory_measures(s.victory)}
    return RECORDED + (("snap_control",) if "hexes_controlled" in kinds else ()) \
        + (("snap_visited",) if "entered" in kinds else ())


def batch_standings(games: dict[str, np.ndarray], t: Tables) -> Standings:
    """`standings` of a batch of games at once, from their `recorded` fields (name -> array with
    a leading [game] axis, state.StateBuffer.unpack): every array gets a leading [game] axis."""
    g, n_turns = games["snap_hex"].shape[:2]
    rows = g * n_turns

    def by_row(name: str) -> np.ndarray:   # a unit's field, once for every game-turn of its game
        return np.repeat(games[name], n_turns, axis=0)

    units = _Units(utype=by_row("utype"), side=by_row("side"), group=by_row("group"),
                   exit_edge=by_row("exit_edge"), exit_turn=by_row("exit_turn"), returned=by_row("returned"))
    control, visited = (games[k].reshape(rows, -1) if k in games else None for k in ("snap_control", "snap_visited"))
    at = _Turns(units, games["snap_hex"].reshape(rows, -1), games["snap_status"].reshape(rows, -1), control, visited,
                np.tile(np.arange(n_turns, dtype=np.int64), g))
    values, ranks, winner, level, other = _score(at, t)
    return Standings(values.reshape(g, n_turns, -1), ranks.reshape(g, n_turns, -1), winner.reshape(g, n_turns),
                     level.reshape(g, n_turns), other.reshape(g, n_turns))


def _score(at: _Turns, t: Tables) -> tuple[np.ndarray, ...]:
    """`evaluate` of every row of `at`: values and ranks [row, side], winner, level, other [row]."""
    sides = t.situation.ruleset.sides
    n = len(at.now)
    values = np.zeros((n, len(sides)), dtype=np.float64)
    ranks = np.zeros((n, len(sides)), dtype=np.int64)
    done: list[int] = []
    for s in _evaluation_order(t):
        si = sides.index(s.name)
        v = s.victory
        if v.get("measure") == "prevent_enemy":
            others = [x for x in done if x != si]
            value = (ranks[:, others] == 0).all(axis=1).astype(np.float64)
        else:
            value = measure_values(v, at, t, si)
        values[:, si] = value
        ranks[:, si] = np.maximum(levels_reached(v, value),
                                  alternatives_reached_all(v, lambda c, si=si: measure_values(c, at, t, si), (n,)))
        done.append(si)
    # (a side the card does not name keeps rank 0, which changes no result)
    winner, higher, difference = results_of(ranks)
    level, other = (difference, higher) if t.combat.levels_by_difference else (higher, difference)
    return values, ranks, winner, level, other


class _Units:
    """A batch's unit fields, one row a game-turn (`batch_standings`)."""

    def __init__(self, **fields: np.ndarray):
        self.__dict__.update(fields)


class _Turns:
    """Rows of snapshots: the units' hexes and status, the hexes' control and visits at the end
    of game-turn `now[row]`; `units` the units' other fields (the final state's own, as
    `_AtTurn` reads them), one for every row or one row a row."""

    __slots__ = ("units", "hex", "status", "control", "visited", "now")

    def __init__(self, units, hex_, status, control, visited, now):
        self.units, self.hex, self.status, self.control, self.visited, self.now = \
            units, hex_, status, control, visited, now


class _AtRow:
    """One row of `_Turns` as a state for `measure_value` to read."""

    def __init__(self, at: _Turns, row: int):
        self._at, self._row = at, row
        self.hex, self.status = at.hex[row], at.status[row]
        # (None where the card measures neither: `recorded`)
        self.control = None if at.control is None else at.control[row]
        self.visited = None if at.visited is None else at.visited[row]

    def __getattr__(self, name: str):
        field = getattr(self._at.units, name)
        return field[self._row] if isinstance(self._at.units, _Units) else field


def _weighted_rows(units, t: Tables, mask: np.ndarray, m: dict) -> np.ndarray:
    """`_weighted` of every row of `mask` (bool[rows, units])."""
    return np.where(mask, _unit_weights(units.utype, t, m), 0.0).sum(axis=-1)


def measure_values(m: dict, at: _Turns, t: Tables, me: int) -> np.ndarray:
    """`measure_value` of every row of `at`: float64[rows]."""
    st = at.units
    kind = m["measure"]
    if kind == "ratio":
        num = measure_values(m["numerator"], at, t, me)
        den = measure_values(m["denominator"], at, t, me)
        with np.errstate(divide="ignore", invalid="ignore"):
            # 0 to 0 is "as many" (docs/rulings.md), as measure_value
            return np.where(den == 0, np.where(num > 0, np.inf, 1.0), num / np.where(den == 0, 1.0, den))
    whose = me if m.get("whose", "own") == "own" else 1 - me
    mask = _counted(st, t, whose, m)
    if kind == "destroyed":
        return _weighted_rows(st, t, mask & (at.status == ELIMINATED), m)
    if kind == "in_area":
        inside = _area_mask(m["area"], t)[at.hex] & (at.status == ON_MAP)
        return _weighted_rows(st, t, mask & inside, m)
    if kind in ("exited", "not_exited"):
        out = (at.status == EXITED) & ((st.exit_edge & EDGE_BITS[m["edge"]]) != 0)
        stay = m.get("stay_off_turns", 0)
        if stay:
            out &= (at.now[:, None] - st.exit_turn) >= stay
        return _weighted_rows(st, t, mask & (out if kind == "exited" else ~out), m)
    if kind == "round_trip":
        if not m.get("return_leg", True):
            out = (at.status == EXITED) & ((st.exit_edge & EDGE_BITS[m["edge"]]) != 0)
            return _weighted_rows(st, t, mask & out & ((at.now[:, None] - st.exit_turn) >= m.get("stay_off_turns", 0)), m)
        home = (at.status == EXITED) & ((st.exit_edge & EDGE_BITS[m["final_edge"]]) != 0) & st.returned
        return _weighted_rows(st, t, mask & home & (st.exit_turn <= at.now[:, None]), m)
    if kind == "entered":
        return ((at.visited[:, _static_area(m["area"], t)] >> whose) & 1).any(axis=1).astype(np.float64)
    if kind == "hexes_controlled":
        game_map = t.situation.map
        standing = ~t.unit_t.positional[st.utype] & (at.status == ON_MAP)
        held = np.zeros(len(at.now), dtype=np.float64)
        for name in m["hexes"]:
            h = game_map.lookup(name)
            occupied = standing & (at.hex == h)
            mine = (occupied & (st.side == whose)).any(axis=1)
            theirs = (occupied & (st.side != whose)).any(axis=1)
            held += mine | (~theirs & (at.control[:, h] == whose))   # _controls
        return held
    if kind == "furthest_advance":
        game_map = t.situation.map
        on = mask & (at.status == ON_MAP)
        hexes = np.where(on, at.hex, 0)
        col, row = game_map.col[hexes], game_map.row[hexes]
        far = {"east": col + 1, "west": game_map.width - col, "south": row + 1, "north": game_map.height - row}[m["toward"]]
        return np.where(on, far, 0).max(axis=1).astype(np.float64)   # 0 with no unit on the map
    # line_of_fire, open_corridor: a search over the map, one game-turn at a time
    return np.array([measure_value(m, _AtRow(at, r), t, me, int(at.now[r])) for r in range(len(at.now))],
                    dtype=np.float64)


class _AtTurn:
    """The state as it stood at the end of game-turn `turn`, for `evaluate` to read: its
    snapshots of the units' hexes and status and of the hexes' control, the rest the state's
    own.  (A `State._replace` copying every field per turn was a third of `provisional`.)"""

    __slots__ = ("_state", "hex", "status", "control", "visited")

    def __init__(self, st: State, turn: int):
        self._state = st
        self.hex, self.status = st.snap_hex[turn], st.snap_status[turn]
        self.control, self.visited = st.snap_control[turn], st.snap_visited[turn]

    def __getattr__(self, name: str):
        return getattr(self._state, name)


def decided_turn(results: list[Outcome]) -> int:
    """The first game-turn from whose end the provisional result (winner and level) stayed what it
    finally was: when the game was decided.  0 means it never changed after set-up."""
    final = (results[-1].winner, results[-1].level)
    turn = len(results) - 1
    while turn > 0 and (results[turn - 1].winner, results[turn - 1].level) == final:
        turn -= 1
    return turn
