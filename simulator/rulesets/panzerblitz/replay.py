"""Play one game from Python and read its log: the `balance replay` command's engine.

`play` runs the compiled game for one seed; `describe` turns the event log into the lines a
player reads (moves, attacks with attack and defence factors, odds, die roll, result).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulator import decisions
from simulator.jit import bind_all
from simulator.rulesets.panzerblitz.combat import NOW_DISPERSED, NOW_ELIMINATED, RESULT_NAMES
from simulator.rulesets.panzerblitz.decision_kinds import DECISION_KINDS
from simulator.rulesets.panzerblitz.dispatch import Players, heuristic_kernels, new_players
from simulator.rulesets.panzerblitz.events import (
    EV_ASSAULT,
    EV_ASSAULTER,
    EV_ATTACK,
    EV_ELIMINATED_PASSENGER,
    EV_ENTER,
    EV_EXCESS,
    EV_EXIT,
    EV_FIRER,
    EV_FORT_SWITCH,
    EV_HIT,
    EV_INTENSIVE,
    EV_LOAD,
    EV_MINE,
    EV_MINE_REMOVAL,
    EV_MOVE,
    EV_OVERRUN,
    EV_OVERRUNNER,
    EV_OWN_FORT_ATTACK,
    EV_RECOVER,
    EV_SELF_DESTROYED,
    EV_SETUP,
    EV_SETUP_FAILED,
    EV_TURN,
    EV_UNLOAD,
)
from simulator.rulesets.panzerblitz.game import ENGINE, run_game
from simulator.rulesets.panzerblitz.invariants import CHECK, CHECK_VIEW
from simulator.rulesets.panzerblitz.invariants import NAMES as VIOLATION_NAMES
from simulator.rulesets.panzerblitz.players.goals import PolicyT, build_policy_tables
from simulator.rulesets.panzerblitz.players.spec import N_PARAMS, PolicySpec, parse_policy
from simulator.rulesets.panzerblitz.road_march import MARCH_COLUMNS
from simulator.rulesets.panzerblitz.state import (
    DEBUG,
    MARCHING,
    N_EVENTS,
    VIOLATION,
    VIOLATION_EVENT,
    State,
    new_state,
)
from simulator.rulesets.panzerblitz.tables import EDGE_BITS, Tables
from simulator.rulesets.panzerblitz.victory import Outcome, evaluate


@dataclass
class GameRecord:
    seed: int
    state: State
    outcome: Outcome
    policies: tuple[str, str]
    decisions: np.ndarray | None = None  # rows (kind, n, chosen), when the game was recorded

    @property
    def events(self) -> np.ndarray:
        return self.state.log[: self.state.clock[N_EVENTS]]

    @property
    def violation(self) -> str | None:
        code = int(self.state.clock[VIOLATION])
        return None if code == 0 else f"{VIOLATION_NAMES[code]} at event {int(self.state.clock[VIOLATION_EVENT])}"


_POLICY_TABLES: dict[int, tuple[Tables, PolicyT]] = {}


def policy_tables(t: Tables) -> PolicyT:
    """The heuristic player's reading of the situation (built once per Tables)."""
    hit = _POLICY_TABLES.get(id(t))
    if hit is None or hit[0] is not t:
        hit = (t, build_policy_tables(t))
        _POLICY_TABLES[id(t)] = hit
    return hit[1]


def players(t: Tables, st: State, specs, dec: decisions.Decisions, order: np.ndarray | None = None) -> Players:
    """The engine's players (dispatch.Players) for these specs (one a side index) in game `st`.
    `order` (the side order of `game_arguments`): `run_game` is compiled together with the
    kernels bound here (on a cold start, on two cores: simulator/jit.py `compile_together`)."""
    policy_ids = np.array([p.kernel_id for p in specs], dtype=np.int64)
    params = np.zeros((2, N_PARAMS), dtype=np.float64)
    for i, p in enumerate(specs):
        params[i] = p.vector()
    pl = new_players(policy_ids, params, policy_tables(t), st, t.unit_t, t.map_t, t.combat_t, dec, bind=False)
    also = () if order is None else (
        (run_game, (st, t.unit_t, t.map_t, t.move_t, t.combat_t, t.stack_limit, order, pl, 0)),)
    bind_engine(pl, st, t, heuristic_kernels(pl, t.combat_t), also)
    return pl


def bind_engine(pl: Players, st: State, t: Tables, more: tuple = (), also: tuple = ()) -> None:
    """Compiles (or loads from the cache) the game's phases that the kernels call through their
    address (game.ENGINE), and `more` indirect kernels, for this game's types, into the players'
    call table; `also`: plain kernels compiled with them (jit.bind_all)."""
    kernels = ENGINE + ((MARCH_COLUMNS,) if (st.march_state == MARCHING).any() else ()) + tuple(more)
    bind_all(kernels, pl.kernels, also, st=st, ut=t.unit_t, mt=t.map_t, mv=t.move_t, ct=t.combat_t,
             limits=t.stack_limit, pl=pl)


def play(t: Tables, seed: int, policies: tuple[str | PolicySpec, str | PolicySpec] = ("random", "random"),
         debug: bool = False, state: State | None = None, record: bool = False,
         replay: np.ndarray | None = None) -> GameRecord:
    """One complete game; `policies` per side index (names or specs with parameters).  `state`:
    a fresh state to play it in (`StateBuffer.fresh()`), else a new one.

    `record`: keep the game's decisions (`GameRecord.decisions`, rows kind, n, chosen);
    `replay`: play a record's decisions instead of asking the players (simulator/decisions.py;
    `decisions.ReplayMismatch` if the record is not this game's)."""
    specs = [p if isinstance(p, PolicySpec) else parse_policy(p) for p in policies]
    st = new_state(t) if state is None else state
    dec = None
    if replay is not None:
        dec = decisions.for_replay(replay, DECISION_KINDS, seed)
    elif record:
        dec = decisions.for_record(seed)
    arguments = game_arguments(t, specs, dec, st)
    play_into(st, t, seed, arguments, debug)
    kept = decisions.finished(arguments[1].dec, DECISION_KINDS)
    return GameRecord(seed, st, evaluate(st, t), tuple(p.label() for p in specs), kept if record else None)


def game_arguments(t: Tables, specs, dec: decisions.Decisions | None = None, st: State | None = None) -> tuple:
    """What every game of a batch passes to the kernel besides the state and the seed: the side
    order and the players (dispatch.Players: kernel ids, parameter vectors, policy tables, their
    workspace, the decisions; made once a batch).  `st`: a state of the situation, for its size."""
    sit = t.situation
    first = sit.ruleset.sides.index(sit.sets_up_first)
    order = np.array([first, 1 - first], dtype=np.int64)
    return order, players(t, new_state(t) if st is None else st, specs,
                          dec if dec is not None else decisions.for_play(0), order)


def play_into(st: State, t: Tables, seed: int, arguments: tuple, debug: bool = False) -> None:
    """Plays one game in the fresh state `st` (the kernel call of `play`, without its outcome)."""
    order, pl = arguments
    if pl.dec.at[decisions.MODE] == decisions.PLAY:
        decisions.restart(pl.dec, seed)  # a batch's players, made once (game_arguments)
    st.clock[DEBUG] = int(debug)
    if debug:
        for kernel in (CHECK, CHECK_VIEW):  # compiled (or loaded) only for games with debug checks
            kernel.bind(pl.kernels, st=st, ut=t.unit_t, mt=t.map_t, mv=t.move_t, limits=t.stack_limit)
    run_game(st, t.unit_t, t.map_t, t.move_t, t.combat_t, t.stack_limit, order, pl, seed)


def _odds(t: Tables, column: int, roll: int, modifier: int, result: int) -> str:
    return (f"odds {t.combat.column_names[column]}, die {roll}{modifier:+d} = {roll + modifier}: "
            f"{RESULT_NAMES[result]}")


def describe(rec: GameRecord, t: Tables) -> list[str]:
    """The game, turn by turn, in words."""
    m = t.situation.map
    sides = t.situation.ruleset.sides
    names = t.units.names
    st = rec.state

    # The side a counter began with (new_state numbers the groups side by side, in file
    # order): a fort taken over later (PB-FORT-8) is set up by its first owner.
    group_side = [sides.index(s.name) for s in t.situation.sides for _ in s.groups]

    def unit(u: int, first_owner: bool = False) -> str:
        side = group_side[st.group[u]] if first_owner else st.side[u]
        return f"{sides[side][:3].capitalize()} {names[st.utype[u]]}#{u}"

    def hexname(h: int) -> str:
        return m.labels[h] if h >= 0 else "off map"

    lines = [f"{t.situation.id}: {t.situation.title} - seed {rec.seed}, "
             f"policies {sides[0]}={rec.policies[0]}, {sides[1]}={rec.policies[1]}"]
    pending_firers: list[str] = []
    for row in rec.events:
        turn, side, kind, a, b, c, d, e, f, g = (int(x) for x in row)
        if kind == EV_TURN:
            lines.append(f"== turn {turn}, {sides[side]} player-turn ==")
        elif kind == EV_SETUP:
            lines.append(f"  set-up: {unit(a, True)} in {hexname(b)}")
        elif kind == EV_ENTER and d:
            lines.append(f"  {unit(a)} comes back on at {hexname(b)}, where it left ({c / 2:g} MF; PB-SIT-5)")
        elif kind == EV_SETUP_FAILED:
            lines.append(f"  set-up: {unit(a, True)} LOST AT SET-UP: no legal hex left in its area of {b} hexes "
                         f"(stacking, terrain or enemy units); it takes no part in the game")
        elif kind == EV_ENTER:
            lines.append(f"  {unit(a)} enters at {hexname(b)} ({c / 2:g} MF)")
        elif kind == EV_MOVE:
            lines.append(f"  {unit(a)} moves {hexname(b)} -> {hexname(c)} ({d / 2:g} MF)")
        elif kind == EV_FIRER:
            pending_firers.append(f"{unit(a)} ({c}{', indirect' if d else ''})")
        elif kind == EV_ATTACK and not pending_firers:
            # the next battle of a multiple attack (PB-STK-4): its firers were listed with the first
            lines.append(f"  next battle on {hexname(a)}: AF {b} vs DF {c}, {_odds(t, d, e, f, g)}")
        elif kind in (EV_ATTACK, EV_ASSAULT):
            what = "attack on" if kind == EV_ATTACK else "close assault on"
            lines.append(f"  {what} {hexname(a)}: {' + '.join(pending_firers)} = {b} vs DF {c}, "
                         f"{_odds(t, d, e, f, g)}")
            pending_firers = []
        elif kind == EV_OVERRUNNER:
            lines.append(f"  {unit(a)} overruns {hexname(d)}: {hexname(b)} -> {hexname(c)} (entry) -> {hexname(e)} (exit)")
        elif kind == EV_OVERRUN:
            lines.append(f"  overrun of {hexname(a)}: AF {b} vs DF {c} (one column up), {_odds(t, d, e, f, g)}")
        elif kind == EV_ASSAULTER:
            pending_firers.append(f"{unit(a)} ({c})")
        elif kind == EV_HIT:
            what = {NOW_DISPERSED: "dispersed", NOW_ELIMINATED: "eliminated"}.get(b, "unharmed")
            lines.append(f"    {unit(a)} {what}")
        elif kind == EV_ELIMINATED_PASSENGER:
            lines.append(f"    passenger {unit(a)} eliminated with its carrier")
        elif kind == EV_MINE:
            what = {1: "dispersed", 2: "eliminated"}.get(e, "comes through")
            lines.append(f"  minefield at {hexname(b)} attacks {unit(a)} at 2-1: die {c}: {RESULT_NAMES[d]}, {what}")
        elif kind == EV_EXIT:
            edge = next(k for k, v in EDGE_BITS.items() if v & c)
            lines.append(f"  {unit(a)} leaves the map by the {edge} edge from {hexname(b)}")
        elif kind == EV_RECOVER:
            lines.append(f"  {unit(a)} recovers in {hexname(b)}")
        elif kind == EV_MINE_REMOVAL:
            lines.append(f"  {unit(a)} tries to clear the minefield in {hexname(b)}: die {c}: "
                         f"{'removed' if d else 'not removed'}")
        elif kind == EV_SELF_DESTROYED:
            lines.append(f"  {unit(a)} destroyed by its own side in {hexname(b)}")
        elif kind == EV_LOAD:
            lines.append(f"  {unit(a)} takes {unit(b)} aboard before entering" if d
                         else f"  {unit(a)} loads {unit(b)} in {hexname(c)}")
        elif kind == EV_UNLOAD:
            lines.append(f"  {unit(a)} unloads {unit(b)} in {hexname(c)}"
                         + (" to close-assault the units it overruns (PanzerBlitz Assault)" if d else ""))
        elif kind == EV_FORT_SWITCH:
            lines.append(f"  {unit(a)} moves {'on top of' if c else 'inside'} its fort in {hexname(b)}")
        elif kind == EV_OWN_FORT_ATTACK:
            lines.append(f"  second roll, on the firer's own fort in {hexname(a)}: AF {b} vs DF {c}, "
                         f"{_odds(t, d, e, f, g)}")
        elif kind == EV_EXCESS:
            lines.append(f"    {unit(a)} eliminated: over the stacking limit with the block in {hexname(b)}")
        elif kind == EV_INTENSIVE:
            lines.append(f"    {unit(a)} fired intensively: removed from play, counted as lost")
    o = rec.outcome
    lines.append("== end of game ==")
    for s in sides:
        lines.append(f"  {s}: measure {o.values[s]:g}, level reached: {o.levels[s]}")
    lines.append(f"  result: {o.winner + ' ' + o.level + ' victory' if o.winner else 'draw'}")
    if rec.violation:
        lines.append(f"  INVARIANT BROKEN: {rec.violation}")
    return lines
