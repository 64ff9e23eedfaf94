"""PanzerBlitz's one dispatcher (simulator/decisions.py): the engine asks, the side's player answers.

The engine (game.py, road_march.py) never asks which player plays a side.  At each decision it
writes the legal options into the options buffer (`Players.options`: one row an option, the
columns its kind declares in decision_kinds.py) and calls

    choose(kind, options, n, u, k, about, st, ut, mt, ct, side, occ, pl) -> row or -1

`u` is what the decision is about (the unit, or the target hex of TECHNIQUE), `k` and `about`
the context a kind needs (MOVE_DEST / ENTRY_HEX: the rows before the overrun rows; TECHNIQUE:
the k attackers; OVERRUN_JOIN: the k units already in the overrun); `occ` the engine's count
of units a hex and side in the phase.  The dispatcher alone knows
the players: replaying a record it asks none (`simulator.decisions.replayed`); otherwise the
random player (players/random_play.py) or the heuristic (players/heuristic.py, through the
adapters below, which hand it the rows in the arrays its scoring functions take) answers, and
the answer is recorded when the game is recorded.

Besides decisions the engine tells the players where a phase begins and what a unit did, so a
player can keep its own reading of the game (`begin_setup`, `placed`, `begin_move`, `moved`) or
plan a whole phase before it is asked unit by unit (`begin_fire`, `begin_assault`: the options
of every unit at once).  Those are not decisions and are not recorded; replaying, nobody hears
them.  The heuristic's note of the best odds it saw (EV_FIRE_CHANCE, for the blunder audit) is
written here, so a replayed game's log lacks it.

The heuristic keeps what it plans and reads in `Workspace`, arrays made once a game.  Players
draw only from the players' stream (`Decisions.rng`, seeded from the game's seed), never from
the dice (numba's global generator, seeded per game, which only the rules roll): so the dice
of a game depend on its seed and the choices made, and its recorded decisions replay it with
the players removed, whatever the players drew.
"""

from __future__ import annotations

import numpy as np
from numba import types

from simulator.decisions import Decisions, decided, replayed, replaying
from simulator.jit import Indirect, call, njit
from simulator.rulesets.panzerblitz.decision_kinds import (
    ASSAULT_TARGET,
    ENTRY_BOARD,
    ENTRY_HEX,
    FIRE_TARGET,
    FORT_SWITCH,
    INTENSIVE,
    LOAD,
    MARCH_ORDER,
    MINE_CLEAR,
    MOVE_DEST,
    MOVE_ON,
    MULTIPLE,
    OVERRUN_JOIN,
    PASSENGER,
    PBA_DISMOUNT,
    RETURN,
    SETUP_HEX,
    TECHNIQUE,
    UNLOAD,
)
from simulator.rulesets.panzerblitz.events import EV_FIRE_CHANCE, log_event
from simulator.rulesets.panzerblitz.players import heuristic as hp
from simulator.rulesets.panzerblitz.players.goals import PolicyT
from simulator.rulesets.panzerblitz.players.random_play import (
    RANDOM,
    random_answer,
    random_plan_assaults,
    random_plan_fire,
)
from simulator.rulesets.panzerblitz.presence import occupancy
from simulator.rulesets.panzerblitz.state import DEBUG
from simulator.rulesets.panzerblitz.units import CATEGORY_INDEX
from simulator.soa import struct_of_arrays

MINE = CATEGORY_INDEX["minefield"]
BLOCK = CATEGORY_INDEX["roadblock"]

# Columns of the option rows (decision_kinds.py names them per kind).
HEX, ENTRY, TARGET, EXIT = 0, 1, 2, 3     # MOVE_DEST, ENTRY_HEX, OVERRUN_JOIN: overrun rows
TECH, DEFENDERS = 0, 1                     # TECHNIQUE
N_COLUMNS = 4
NOT_FIRING = -1  # an attacker left out of a multiple attack (techniques.plan_multiple)


# What the players keep between decisions (made once a game, one side at a time).  Like the
# state, a struct of arrays: the kernels receive it as one pointer (simulator/soa.py).
Workspace = struct_of_arrays("Workspace", module=__name__, fields=[
    "fields",     # int64[N_FIELDS, n_hex]: the heuristic's reading of the enemy (hp.enemy_fields)
    "pairing",    # int64[n_hex]: set-up, riders minus carriers placed in a hex
    "occ",        # int64[n_hex, 2]: set-up, units of each side in a hex
    "plan",       # int64[n_units]: a phase's plan: the target hex (heuristic) or row (random), -1 none
    "intensive",  # bool[n_units]: planned intensive fire (PB-OPT-AMMO)
    "cand",       # int64[n_units, 7]: the heuristic's copy of the close-assault options
    "hexes",      # int64[n_options]: the rows' hex column, for the heuristic's scoring
    "ov_target",  # int64[n_options]: the overrun rows' target
    "ov_exit",    # int64[n_options]: the overrun rows' exit
    "units",      # int64[n_units]: the rows' unit column
    "assign",     # int64[n_units]: the heuristic's multiple-attack plan
    "seen_side",  # int64[1]: the side whose enemy part of `fields` was last read (-1: none yet)
    "seen_units", # int64[n_units, 4]: the enemy units' status, hex, dispersal, carrier at that read
    "seen_mines", # int64[n_hex, 2]: the minefields (mine, mine_side) at that read
    "seen_prm",   # float64[N_PARAMS]: the parameters it was read with
    "scores",     # float64[n_options]: the heuristic's scores of a decision's rows (scratch)
    "nears",      # int64[n_options]: their friends near (scratch, hp.danger_hexes)
    "dangers",    # float64[n_options]: their danger (scratch, hp.danger_hexes)
])

# The two players of a game, as the engine carries them: it writes only `options` and `seen`.
Players = struct_of_arrays("Players", module=__name__, fields=[
    "policy",     # int64[2]: each side's player (players/spec.py kernel ids)
    "params",     # float64[2, N_PARAMS]: each side's parameters
    "pt",         # PolicyT: the heuristic's reading of the situation (players/goals.py)
    "ws",         # Workspace
    "dec",        # simulator.decisions.Decisions: the players' stream, the record
    "options",    # int32[n_options, N_COLUMNS]: the engine writes a decision's rows here
    "seen",       # bool[n_hex]: the hexes the firing side spots (the engine writes it each fire phase)
    "kernels",    # int64[N_KERNELS]: the kernels the game calls through their address (simulator/jit.py)
])

# Slots of `Players.kernels`: the heuristic's entry points and the debug checks are called
# through their address (simulator/jit.py, `Indirect`): compiled once, never linked into the
# dozen engine kernels that ask a decision, and not compiled at all in a game nobody plays with
# the heuristic (or without debug checks).  A slot left 0 raises if called.
K_DECIDE, K_HEAR, K_PLAN_FIRE, K_PLAN_ASSAULT, K_CHECK, K_CHECK_VIEW = range(6)
# ... and the game's large phases (game.py), each compiled on its own instead of again inside
# every kernel above it in the call tree.
K_SETUP_SIDE, K_MOVEMENT_PHASE, K_MOVE_UNIT, K_ATTACK_HEX = range(6, 10)
# ... and what only some games use: road-march columns (PB-SIT-7), the heuristic's intensive-fire
# plan (PB-OPT-AMMO, an optional rule); bound only where the situation or the rules have them.
K_MARCH_COLUMNS, K_PLAN_INTENSIVE = 10, 11
# ... and two kernels that several of those call: a side's answer to a decision (`choose`, from
# the set-up, the movement and fire phases, a move, an attack) and the heuristic's read of its
# fields (`read_enemy`, from its fire plan and what it hears).  Linked into each caller, each
# was optimised and emitted again in every one of them (docs/performance.md, round 7).
K_CHOOSE, K_READ_ENEMY = 12, 13
N_KERNELS = 14


def max_options(n_hex: int, n_units: int) -> int:
    """Rows enough for any decision: moves (hexes and exits, 2 a hex) and overruns (6 a hex)."""
    return 8 * n_hex + n_units + 8


def new_players(policy: np.ndarray, params: np.ndarray, pt: PolicyT, st, ut, mt, ct, dec: Decisions,
                bind: bool = True) -> Players:
    """The players of one game of state `st` and tables `ut`, `mt`, `ct` (their types are the
    types the heuristic's entry points are compiled for, when a side plays it).  `bind=False`:
    the caller binds `heuristic_kernels` (replay.players, with the engine's)."""
    n_units, n_hex = st.utype.shape[0], mt.neighbours.shape[0]
    m = max_options(n_hex, n_units)
    ws = Workspace(np.zeros((hp.N_FIELDS, n_hex), dtype=np.int64), np.zeros(n_hex, dtype=np.int64),
                   np.zeros((n_hex, 2), dtype=np.int64), np.full(n_units, -1, dtype=np.int64),
                   np.zeros(n_units, dtype=np.bool_), np.full((n_units, 7), -1, dtype=np.int64),
                   np.zeros(m, dtype=np.int64), np.zeros(m, dtype=np.int64), np.zeros(m, dtype=np.int64),
                   np.zeros(n_units, dtype=np.int64), np.zeros(n_units, dtype=np.int64),
                   np.full(1, -1, dtype=np.int64), np.zeros((n_units, 4), dtype=np.int64),
                   np.zeros((n_hex, 2), dtype=np.int64), np.zeros(params.shape[1], dtype=np.float64),
                   np.zeros(m), np.zeros(m, dtype=np.int64), np.zeros(m))
    pl = Players(np.ascontiguousarray(policy, dtype=np.int64), np.ascontiguousarray(params, dtype=np.float64),
                 pt, ws, dec, np.zeros((m, N_COLUMNS), dtype=np.int32), np.zeros(n_hex, dtype=np.bool_),
                 np.zeros(N_KERNELS, dtype=np.int64))
    if bind:
        for kernel in heuristic_kernels(pl, ct):
            kernel.bind(pl.kernels, st=st, ut=ut, mt=mt, ct=ct, pl=pl)
    return pl


def heuristic_kernels(pl: Players, ct) -> tuple:
    """The heuristic's entry points these players need bound: none if both sides play random."""
    if not (pl.policy != RANDOM).any():
        return ()
    return (DECIDE, HEAR, PLAN_FIRE, PLAN_ASSAULT, READ_ENEMY) + ((PLAN_INTENSIVE,) if ct.intensive_fire else ())


# ----------------------------------------------------------------------------- decisions

# The notices below are inlined where the engine calls them.  `choose` is not: each of its 17
# inlined copies cost the compiler ~1.5 s (docs/performance.md, cold start); and its body is
# called through its address (CHOOSE), compiled once instead of again in the five engine
# kernels that ask decisions.
@njit(cache=True)
def choose(kind, options, n, u, k, about, st, ut, mt, ct, side, occ, pl):
    """The side's answer to one decision: a row of `options[:n]`, or -1 (none, where the kind
    allows it).  No options: -1, and no player is asked."""
    return call(pl.kernels, CHOOSE, kind, options, n, u, k, about, st, ut, mt, ct, side, occ, pl)


@njit(cache=True)
def _choose(kind, options, n, u, k, about, st, ut, mt, ct, side, occ, pl):
    """`choose`, called through its address (CHOOSE)."""
    if n <= 0:
        return -1
    dec = pl.dec
    if replaying(dec):
        return replayed(dec, kind, n)
    if pl.policy[side] == RANDOM:
        chosen = random_answer(dec.rng, kind, options, n, pl.params[side], pl.ws.plan, pl.ws.intensive, u)
    else:
        chosen = call(pl.kernels, DECIDE, kind, options, n, u, k, about, st, ut, mt, ct, side, occ, pl)
    return decided(dec, kind, n, chosen)


@njit(cache=True)
def _column(options, n, col, start, out):
    """Copy rows start..n-1 of one column into `out` (int64, from 0); returns how many."""
    for i in range(start, n):
        out[i - start] = options[i, col]
    return n - start


@njit(cache=True)
def _row_with(options, n, col, value):
    for i in range(n):
        if options[i, col] == value:
            return i
    return -1


@njit(cache=True)
def _heuristic(kind, options, n, u, k, about, st, ut, mt, ct, side, occ, pl):
    """The heuristic player (players/heuristic.py) answering from the rows it is given."""
    # The planned answers first, before the reads the scoring needs (each takes and drops a
    # reference; fire and assault targets are most of the decisions on some cards, round 10).
    if kind == FIRE_TARGET or kind == ASSAULT_TARGET:
        return _row_with(options, n, HEX, pl.ws.plan[u])
    if kind == INTENSIVE:
        return 0 if pl.ws.intensive[u] else -1
    ws = pl.ws
    pt = pl.pt
    prm = pl.params[side]
    rng = pl.dec.rng  # the players' stream: the heuristic's noise
    if kind == SETUP_HEX:
        _column(options, n, HEX, 0, ws.hexes)
        cat = ut.category[st.utype[u]]
        if cat == MINE or cat == BLOCK:
            return hp.pick_barrier(st, ut, mt, pt, prm, side, u, ws.hexes, n, ws.occ, rng)
        return hp.pick_hex(st, ut, mt, ct, pt, prm, side, u, ws.hexes, n, ws.occ, ws.fields, ws.pairing, rng,
                           ws.scores, ws.nears, ws.dangers)
    if kind == MOVE_DEST:
        n_plain = k
        _column(options, n_plain, HEX, 0, ws.hexes)
        _column(options, n, TARGET, n_plain, ws.ov_target)
        _column(options, n, EXIT, n_plain, ws.ov_exit)
        return hp.pick_move(st, ut, mt, ct, pt, prm, side, u, ws.hexes, n_plain, n - n_plain, ws.ov_target,
                            ws.ov_exit, occ, ws.fields, rng, ws.scores, ws.nears, ws.dangers)
    if kind == MOVE_ON:
        _column(options, n, HEX, 0, ws.hexes)
        return hp.pick_move(st, ut, mt, ct, pt, prm, side, u, ws.hexes, n, 0, ws.hexes, ws.hexes, occ, ws.fields, rng,
                            ws.scores, ws.nears, ws.dangers)
    if kind == ENTRY_HEX:
        n_plain = k
        _column(options, n_plain, HEX, 0, ws.hexes)
        i = hp.pick_hex(st, ut, mt, ct, pt, prm, side, u, ws.hexes, n_plain, occ, ws.fields, ws.fields[hp.PAIRING], rng,
                        ws.scores, ws.nears, ws.dangers)
        if n > n_plain:
            _column(options, n, TARGET, n_plain, ws.ov_target)
            _column(options, n, EXIT, n_plain, ws.ov_exit)
            j = hp.pick_entry_overrun(st, ut, mt, ct, pt, prm, side, u, ws.ov_target, ws.ov_exit, n - n_plain,
                                      ws.hexes, n_plain, occ, ws.fields, rng)
            if j >= 0:
                i = n_plain + j
        return i
    if kind == TECHNIQUE:
        n_multi = 0
        passenger = False
        for i in range(n):
            if options[i, TECH] == MULTIPLE and options[i, DEFENDERS] > n_multi:
                n_multi = options[i, DEFENDERS]
            passenger = passenger or options[i, TECH] == PASSENGER
        tech = hp.pick_technique(st, ut, mt, ct, pt, prm, side, u, about, k, pl.seen, ws.assign, n_multi,
                                  passenger)
        if tech != MULTIPLE:
            return _row_with(options, n, TECH, tech)
        hit = 0  # the defenders its plan hits: the row of that multiple attack
        for i in range(k):
            d = ws.assign[i]
            if d != NOT_FIRING:
                first = True
                for j in range(i):
                    if ws.assign[j] == d:
                        first = False
                if first:
                    hit += 1
        for i in range(n):
            if options[i, TECH] == MULTIPLE and options[i, DEFENDERS] == hit:
                return i
        return -1
    if kind == OVERRUN_JOIN:
        _column(options, n, EXIT, 0, ws.ov_exit)
        for i in range(n):
            ws.units[i] = i
        return hp.want_join(st, ut, mt, ct, pt, prm, side, u, about, k, np.int64(options[0, TARGET]), ws.units, n, ws.ov_exit,
                            occ, ws.fields, rng)
    if kind == LOAD:
        return 0 if hp.want_load(st, ut, pt, prm, side, u, np.int64(options[0, 0]), ws.fields) else -1
    if kind == UNLOAD:
        return 0 if hp.want_unload(st, pt, prm, side, u, ws.fields) else -1
    if kind == RETURN:
        return 0 if hp.want_return(st, ut, pt, side, u) else -1
    if kind == FORT_SWITCH:
        return -1  # the heuristic never switches (docs/rulings.md)
    if kind == PBA_DISMOUNT:
        return 0  # it always dismounts the rider to close-assault the overrun hex
    if kind == MINE_CLEAR:
        _column(options, n, HEX, 0, ws.hexes)
        return hp.pick_mine_clear(st, ut, mt, pt, side, u, ws.hexes, n)
    if kind == ENTRY_BOARD:
        _column(options, n, 0, 0, ws.units)
        return hp.pick_entry_rider(st, ut, mt, pt, prm, side, u, ws.units, n, ws.fields)
    if kind == MARCH_ORDER:
        best, best_key = 0, -1 << 40  # fighting vehicles first (hp.march_key)
        for i in range(n):
            key = hp.march_key(st, ut, np.int64(options[i, 0]))
            if key > best_key:
                best, best_key = i, key
        return best
    return -1


_I64, _OPTIONS, _HEXES, _OCC = types.int64, types.int32[:, ::1], types.int64[::1], types.int64[:, ::1]
DECIDE = Indirect("panzerblitz.heuristic.decide", K_DECIDE, _heuristic, types.int64,
                  (_I64, _OPTIONS, _I64, _I64, _I64, _HEXES, "st", "ut", "mt", "ct", _I64, _OCC, "pl"))
CHOOSE = Indirect("panzerblitz.choose", K_CHOOSE, _choose, types.int64,
                  (_I64, _OPTIONS, _I64, _I64, _I64, _HEXES, "st", "ut", "mt", "ct", _I64, _OCC, "pl"))


# ----------------------------------------------------------------------------- what players hear

@njit(cache=True, inline="always")
def _listening(pl, side):
    return pl.policy[side] != RANDOM and not replaying(pl.dec)


@njit(cache=True)
def read_enemy(st, ut, mt, ct, side, pl, anew):
    """The heuristic's fields for `side` (`hp.enemy_fields`) in `pl.ws.fields`.  Their enemy part
    (`hp.enemy_part`) is read again only where what it reads of the state (the enemy units'
    status, hex, dispersal and carrier; the minefields), the side or its parameters changed
    since its last read (`anew`: always): a side's own moves do not change it, and of a
    player-turn's three reads (fire, S4, S5) the second and third mostly find the enemy as it
    was (nothing hit, no overrun).  The side's own part is read every time.  With debug checks
    on, a kept enemy part is checked against a new read.  (One function, its loops written
    out: each small kernel taking the state costs about a second of compile.)"""
    ws = pl.ws
    prm = pl.params[side]
    unit_side, status, unit_hex, dispersed, carried_by = st.side, st.status, st.hex, st.dispersed, st.carried_by
    mine, mine_side = st.mine, st.mine_side
    seen, seen_mines, seen_prm = ws.seen_units, ws.seen_mines, ws.seen_prm
    same = not anew and ws.seen_side[0] == side
    for u in range(unit_side.shape[0]):
        if unit_side[u] != side:
            if same and (seen[u, 0] != status[u] or seen[u, 1] != unit_hex[u] or seen[u, 2] != dispersed[u]
                         or seen[u, 3] != carried_by[u]):
                same = False
            seen[u, 0] = status[u]
            seen[u, 1] = unit_hex[u]
            seen[u, 2] = dispersed[u]
            seen[u, 3] = carried_by[u]
    for h in range(mine.shape[0]):
        if same and (seen_mines[h, 0] != mine[h] or seen_mines[h, 1] != mine_side[h]):
            same = False
        seen_mines[h, 0] = mine[h]
        seen_mines[h, 1] = mine_side[h]
    for i in range(prm.shape[0]):
        if same and seen_prm[i] != prm[i]:
            same = False
        seen_prm[i] = prm[i]
    ws.seen_side[0] = side
    fields = ws.fields
    if not same:
        hp.enemy_part(st, ut, mt, ct, pl.pt, prm, side, fields)
    elif st.clock[DEBUG]:
        fresh = fields.copy()
        hp.enemy_part(st, ut, mt, ct, pl.pt, prm, side, fresh)
        for k in range(fields.shape[0]):
            for h in range(fields.shape[1]):
                if fresh[k, h] != fields[k, h]:
                    raise AssertionError("the heuristic's kept enemy fields differ from a new read")
    hp.own_part(st, ut, mt, ct, pl.pt, prm, side, fields)


# Called through its address by `_hears` and `_plan_fire` (K_READ_ENEMY above).
READ_ENEMY = Indirect("panzerblitz.heuristic.read_enemy", K_READ_ENEMY, read_enemy, types.none,
                      ("st", "ut", "mt", "ct", _I64, "pl", types.boolean))


# What the heuristic hears (`_hears`): the cases of the notices below.
BEGIN_SETUP, PLACED, BEGIN_MOVE, MOVED = 0, 1, 2, 3


@njit(cache=True)
def _hears(what, st, ut, mt, ct, side, u, h, was_piece, pl):
    """The heuristic keeping its reading of the game (called through its address, HEAR)."""
    ws = pl.ws
    if what == BEGIN_SETUP:
        call(pl.kernels, READ_ENEMY, st, ut, mt, ct, side, pl, True)  # a new game: nothing kept from the last one
        occ = occupancy(st, ut, mt.neighbours.shape[0])
        ws_occ = ws.occ
        for h in range(occ.shape[0]):  # loops, not slice assignments (game.fire_phase says why)
            ws_occ[h, 0] = occ[h, 0]
            ws_occ[h, 1] = occ[h, 1]
        ws.pairing[:] = 0
    elif what == PLACED:
        t = st.utype[u]
        if not ut.positional[t]:
            hp.note_unit(mt, pl.params[side], ws.fields, h, 1)
        ws.occ[h, side] += 1
        if ut.carrier[t]:
            ws.pairing[h] -= 1
        elif hp.is_rider(ut, t):
            ws.pairing[h] += 1
    elif what == BEGIN_MOVE:
        call(pl.kernels, READ_ENEMY, st, ut, mt, ct, side, pl, False)
    else:
        hp.moved(st, ut, mt, pl.pt, pl.params[side], side, ws.fields, u, h, was_piece)


HEAR = Indirect("panzerblitz.heuristic.hears", K_HEAR, _hears, types.none,
                (_I64, "st", "ut", "mt", "ct", _I64, _I64, _I64, types.boolean, "pl"))


@njit(cache=True, inline="always")
def begin_setup(st, ut, mt, ct, side, pl):
    """`side` is about to set up (PB-SEQ-1): the heuristic reads the enemy already placed."""
    if _listening(pl, side):
        call(pl.kernels, HEAR, BEGIN_SETUP, st, ut, mt, ct, side, -1, -1, False, pl)


@njit(cache=True, inline="always")
def placed(st, ut, mt, ct, side, u, h, pl):
    """Unit u of `side` was set up in hex h."""
    if _listening(pl, side):
        call(pl.kernels, HEAR, PLACED, st, ut, mt, ct, side, u, h, False, pl)


@njit(cache=True, inline="always")
def begin_move(st, ut, mt, ct, side, pl):
    """A movement phase of `side` begins (after its road-march columns have moved)."""
    if _listening(pl, side):
        call(pl.kernels, HEAR, BEGIN_MOVE, st, ut, mt, ct, side, -1, -1, False, pl)


@njit(cache=True, inline="always")
def moved(st, ut, mt, ct, side, u, before, was_piece, pl):
    """Unit u's move is over (`before`: its hex before, `was_piece`: on the map on its own then)."""
    if _listening(pl, side):
        call(pl.kernels, HEAR, MOVED, st, ut, mt, ct, side, u, before, was_piece, pl)


@njit(cache=True)
def _plan_fire(st, ut, mt, ct, side, spotted, occ, stack_kind, rows_hex, rows_af, start, pl):
    """The heuristic's fire plan (called through its address, PLAN_FIRE), from the engine's option
    rows (`rows_hex[start[u]:start[u + 1]]`, `rows_af`: target hex, AF)."""
    ws = pl.ws
    # the enemy as it stands now (its last turn moved it): the danger each firer could step out of
    call(pl.kernels, READ_ENEMY, st, ut, mt, ct, side, pl, False)
    reach = hp.plan_fire(st, ut, mt, ct, pl.pt, pl.params[side], side, occ, rows_hex, rows_af, start, ws.plan,
                         ws.fields)
    # For the blunder audit: the best odds the player saw in reach (its annotation of the turn).
    log_event(st, EV_FIRE_CHANCE, reach, 0, 0, 0, 0, 0, 0)
    if ct.intensive_fire:
        call(pl.kernels, PLAN_INTENSIVE, st, ut, mt, ct, side, spotted, stack_kind, pl)


@njit(cache=True)
def _plan_intensive(st, ut, mt, ct, side, spotted, stack_kind, pl):
    """PB-OPT-AMMO: the heuristic's choice of intensive fire (called through its address,
    PLAN_INTENSIVE, bound only when the optional rule is on)."""
    ws = pl.ws
    # hp.plan_intensive marks its choice in the state; the engine sets it when it asks INTENSIVE.
    before = st.intensive.copy()
    hp.plan_intensive(st, ut, mt, ct, pl.pt, pl.params[side], side, spotted, stack_kind, ws.plan)
    for v in range(st.intensive.shape[0]):
        if st.intensive[v] and not before[v]:
            ws.intensive[v] = True
            st.intensive[v] = False


_SEEN = types.boolean[::1]
PLAN_INTENSIVE = Indirect("panzerblitz.heuristic.plan_intensive", K_PLAN_INTENSIVE, _plan_intensive, types.none,
                          ("st", "ut", "mt", "ct", _I64, _SEEN, _HEXES, "pl"))
PLAN_FIRE = Indirect("panzerblitz.heuristic.plan_fire", K_PLAN_FIRE, _plan_fire, types.none,
                     ("st", "ut", "mt", "ct", _I64, _SEEN, _OCC, _HEXES, _HEXES, _HEXES, _HEXES, "pl"))


@njit(cache=True)
def _plan_assaults(st, ut, mt, ct, side, cand, n_cand, pl):
    """The heuristic's close-assault plan (called through its address, PLAN_ASSAULT)."""
    ws = pl.ws
    ws_cand = ws.cand
    for v in range(cand.shape[0]):  # loops, not a slice assignment (game.fire_phase says why)
        for q in range(cand.shape[1]):
            ws_cand[v, q] = cand[v, q]
    hp.plan_assaults(st, ut, mt, ct, pl.pt, pl.params[side], side, ws.cand, n_cand, ws.plan)


PLAN_ASSAULT = Indirect("panzerblitz.heuristic.plan_assaults", K_PLAN_ASSAULT, _plan_assaults, types.none,
                        ("st", "ut", "mt", "ct", _I64, _OCC, _HEXES, "pl"))


@njit(cache=True)
def begin_fire(st, ut, mt, ct, side, spotted, occ, stack_kind, rows_hex, rows_af, start, may_intensive, pl):
    """The fire options of every unit of `side` (`rows_hex[start[u]:start[u + 1]]`: target hex, AF;
    `may_intensive[u]`), before each unit is asked: each player makes its plan."""
    if replaying(pl.dec):
        return
    ws = pl.ws
    ws.plan[:] = -1
    ws.intensive[:] = False
    if pl.policy[side] == RANDOM:
        random_plan_fire(pl.dec.rng, pl.params[side], start, may_intensive, ws.plan, ws.intensive)
        return
    call(pl.kernels, PLAN_FIRE, st, ut, mt, ct, side, spotted, occ, stack_kind, rows_hex, rows_af, start, pl)


@njit(cache=True)
def begin_assault(st, ut, mt, ct, side, cand, n_cand, pl):
    """The close-assault options of every unit of `side` (`cand[u, :n_cand[u]]`), before each
    unit is asked: each player makes its plan."""
    if replaying(pl.dec):
        return
    ws = pl.ws
    ws.plan[:] = -1
    if pl.policy[side] == RANDOM:
        random_plan_assaults(pl.dec.rng, pl.params[side], n_cand, ws.plan)
        return
    call(pl.kernels, PLAN_ASSAULT, st, ut, mt, ct, side, cand, n_cand, pl)


# Options written as rows of the options buffer, for the engine's decision points.

@njit(cache=True)
def offer_hexes(rows, hexes, n):
    """Write n options, one hex each, as rows of the options buffer; returns the buffer."""
    for i in range(n):
        rows[i, HEX] = hexes[i]
    return rows


@njit(cache=True)
def offer_overruns(rows, at, entries, targets, exits, n):
    """Write n overrun options (entry, target, exit hexes) as rows at..at+n-1; returns the buffer."""
    for j in range(n):
        rows[at + j, HEX] = -1
        rows[at + j, ENTRY] = entries[j]
        rows[at + j, TARGET] = targets[j]
        rows[at + j, EXIT] = exits[j]
    return rows
