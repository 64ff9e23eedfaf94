"""The state of one PanzerBlitz game as plain arrays (struct of arrays), and its creation.

One entry per counter of the situation (units, forts, blocks, minefields).  A passenger keeps
its own entry; `carried_by` ties it to its carrier, whose hex it shares.  Per-hex markers
(wrecks by side, minefields, blocks) are kept beside the units because movement and stacking
read them at every step.
"""

from __future__ import annotations

import numpy as np

from simulator.rulesets.panzerblitz.movement import reached_words, search_scratch
from simulator.rulesets.panzerblitz.tables import EDGE_BITS, Tables
from simulator.soa import struct_of_arrays

# Unit status.
# NOT_PLACED: a unit that sets up on the map but found no legal set-up hex when its turn to
# set up came (the other side's units, or earlier placements, filled its area): it takes no
# part in the game and is reported as lost at set-up, never left waiting to "enter" later.
WAITING, ON_MAP, EXITED, ELIMINATED, NOT_PLACED = 0, 1, 2, 3, 4
STATUS_NAMES = {WAITING: "waiting", ON_MAP: "on map", EXITED: "exited", ELIMINATED: "eliminated",
                NOT_PLACED: "lost at set-up"}

# Per group, `march_state` (PB-SIT-7, road_march.py): not a road-march group or its march is
# over / marching / marching, and the march ends at the end of this player-turn.
MARCH_OVER, MARCHING, MARCH_ENDING = 0, 1, 2

# Per unit, `own_fire_hit` (PB-FORT-13, OQ-22): not dispersed by its own side's fire this
# player-turn / so dispersed, it turns face-up in this player-turn's S6 (adopted) / so dispersed,
# it stays dispersed through its side's next player-turn (the alternative reading).
NOT_OWN_FIRE, OWN_FIRE_RECOVERS, OWN_FIRE_STAYS = 0, 1, 2

# Per unit, `steps`: the hexes it moved this turn (a close assault needs at most one, PB-CAT-3);
# NO_ASSAULT_STEPS for a unit that may not close-assault this turn whatever it moved: set down
# from a carrier (PB-CAT-9), or it overran (PB-OVR-7: its one attack).
NO_ASSAULT_STEPS = 99

# Clock slots.  VIEW_SIDE: 1 + the side whose movement phase the movement view follows, 0 none
# (move_view.py).
TURN, PHASING, N_EVENTS, N_TURNS, FIRST_SIDE, DEBUG, VIOLATION, VIOLATION_EVENT, VIEW_SIDE = range(9)
N_CLOCK = 9

# Per-turn statistics, one row per game-turn (0 = after set-up) and side: `turn_stats[turn, side, k]`.
TS_ON_MAP, TS_DISPERSED, TS_LOST, TS_ATTACK, TS_DEFENSE, TS_OBJECTIVES, TS_EXITED, TS_NOT_PLACED = range(8)
TURN_STAT_NAMES = ("units_on_map", "units_dispersed", "units_lost", "attack_strength", "defense_strength",
                   "objectives_held", "units_exited", "units_lost_at_setup")

LOG_WIDTH = 10
MAX_EVENTS = 60_000
# Sizes of the movement view's tables (move_view.py defines their rows and columns).
N_VIEW_FLAGS, N_VIEW_COUNTS, N_VIEW_SEEN = 7, 5, 5

State = struct_of_arrays("State", module=__name__, fields=[
    "utype", "side", "hex", "status", "dispersed", "fired", "moved", "entry_turn", "group",
    "carried_by", "carrying", "exit_turn", "exit_edge", "mine_safe", "dispersed_this_turn",
    "wrecks", "mine", "block", "clock", "log",
    "group_hex_start", "group_hexes", "group_entering", "exit_edges",
    "group_with_type", "group_far_type", "group_far_min",
    "steps", "overrun_hex", "assaulted_hex", "assaulted", "revealed", "limits",
    "objective", "turn_stats",
    "lost_hex", "lost_turn", "snap_hex", "snap_status",
    "control", "snap_control", "visited", "snap_visited", "engaged",
    "intensive", "observed", "pba_target",
    "march_state", "march_side", "march_turn", "march_speed", "march_stop", "march_lead",
    "march_path_start", "march_path", "march_rank",
    "on_top", "own_fire_hit",
    "trip_out", "trip_final", "trip_stay_off", "trip_hex", "returned", "mine_side",
    "view_flags", "view_count", "view_load", "view_seen", "view_dirty", "view_changed", "view_bits",
    "search_scratch", "search_reached",
])


def new_state(t: Tables, rng: np.random.Generator | None = None) -> State:
    """Every counter of the situation, waiting off the map or not yet placed (hex -1).

    Set-up placement is a player decision and is done by the game (policies); entering groups
    start with their immobile units (guns, MF 0) aboard the group's carriers where there are
    carriers free (the cards: "infantry and guns in trucks and HT"; docs/rulings.md).
    """
    sit = t.situation
    sides = sit.ruleset.sides
    utype, side, entry_turn, group = [], [], [], []
    group_hexes: list[np.ndarray] = []
    group_entering = []
    with_type, far_type, far_min = [], [], []
    march_state, march_side, march_turn, march_speed, march_stop, march_paths = [], [], [], [], [], []
    for s in sit.sides:
        si = sides.index(s.name)
        for g in s.groups:
            gi = len(group_hexes)
            group_hexes.append(np.asarray(g.hexes, dtype=np.int64))
            group_entering.append(g.entering)
            # Set-up constraints that depend on other units (docs/situation-format.md).
            with_type.append(t.units.index(g.area["with_unit"]) if "with_unit" in g.area else -1)
            md = g.area.get("min_distance_from_unit")
            far_type.append(t.units.index(md["unit"]) if md else -1)
            far_min.append(md["hexes"] if md else 0)
            # PB-SIT-7: a road-march column (road_march.py).
            rm = g.road_march if g.road_path is not None else None
            march_state.append(MARCHING if rm else MARCH_OVER)
            march_side.append(si)
            march_turn.append(g.turn)
            march_speed.append(rm["hexes_per_turn"] if rm else 0)
            march_stop.append(rm["stop_within"] if rm else 0)
            march_paths.append(g.road_path if rm else np.zeros(0, dtype=np.int64))
            for name, count in g.units.items():
                for _ in range(count):
                    utype.append(t.units.index(name))
                    side.append(si)
                    entry_turn.append(g.turn if g.entering else 0)
                    group.append(gi)
    n = len(utype)
    n_hex = sit.map.n_hexes
    group_hex_start, group_hexes_flat = _ragged(group_hexes)
    march_path_start, march_path = _ragged(march_paths)
    exit_edges = np.zeros(len(sides), dtype=np.int64)
    trip = np.zeros((3, len(sides)), dtype=np.int64)  # outward edge bit, final edge bit, turns off
    for s in sit.sides:
        me = sides.index(s.name)
        for counted, bits in _exit_edges(s.victory):
            exit_edges[me if counted == "own" else 1 - me] |= bits
        for counted, out, final, stay in _round_trips(s.victory):
            trip[:, me if counted == "own" else 1 - me] = (out, final, stay)
    st = State(
        utype=np.array(utype, dtype=np.int64), side=np.array(side, dtype=np.int64),
        hex=np.full(n, -1, dtype=np.int64), status=np.full(n, WAITING, dtype=np.int64),
        dispersed=np.zeros(n, dtype=np.bool_), fired=np.zeros(n, dtype=np.bool_),
        moved=np.zeros(n, dtype=np.bool_), entry_turn=np.array(entry_turn, dtype=np.int64),
        group=np.array(group, dtype=np.int64), carried_by=np.full(n, -1, dtype=np.int64),
        carrying=np.full(n, -1, dtype=np.int64), exit_turn=np.full(n, -1, dtype=np.int64),
        exit_edge=np.zeros(n, dtype=np.int64), mine_safe=np.zeros(n, dtype=np.bool_),
        dispersed_this_turn=np.zeros(n, dtype=np.bool_),
        wrecks=np.zeros((n_hex, len(sides)), dtype=np.int64), mine=np.zeros(n_hex, dtype=np.bool_),
        block=np.zeros(n_hex, dtype=np.bool_), clock=np.zeros(N_CLOCK, dtype=np.int64),
        log=np.zeros((MAX_EVENTS, LOG_WIDTH), dtype=np.int64),
        group_hex_start=group_hex_start, group_hexes=group_hexes_flat,
        group_entering=np.array(group_entering, dtype=np.bool_), exit_edges=exit_edges,
        group_with_type=np.array(with_type, dtype=np.int64), group_far_type=np.array(far_type, dtype=np.int64),
        group_far_min=np.array(far_min, dtype=np.int64),
        steps=np.zeros(n, dtype=np.int64), overrun_hex=np.zeros(n_hex, dtype=np.bool_),
        assaulted_hex=np.zeros(n_hex, dtype=np.bool_), assaulted=np.zeros(n, dtype=np.bool_),
        revealed=np.zeros(n, dtype=np.bool_), limits=t.stack_limit.copy(),
        objective=t.objective.copy(),
        turn_stats=np.zeros((sit.turns + 1, len(sides), len(TURN_STAT_NAMES)), dtype=np.int64),
        # Where and when each unit was lost (-1: not lost), for the reports' loss map.
        lost_hex=np.full(n, -1, dtype=np.int64), lost_turn=np.full(n, -1, dtype=np.int64),
        # Each unit's hex and status at the end of every game-turn (0 = after set-up): the
        # victory conditions are evaluated on them to find the turn a game's result was decided.
        snap_hex=np.full((sit.turns + 1, n), -1, dtype=np.int64),
        snap_status=np.zeros((sit.turns + 1, n), dtype=np.int64),
        # PB-VIC-5: per hex, the side whose unit last occupied or passed through it (-1: none),
        # and the same at the end of every game-turn.
        control=np.full(n_hex, -1, dtype=np.int64),
        snap_control=np.full((sit.turns + 1, n_hex), -1, dtype=np.int64),
        # Per hex, a bit per side whose unit ever occupied or passed through it (the victory
        # measure `entered`, PB-SIT-10), and the same at the end of every game-turn.
        visited=np.zeros(n_hex, dtype=np.int64), snap_visited=np.zeros((sit.turns + 1, n_hex), dtype=np.int64),
        # PB-VIC-6: per side, whether it has fired or moved a unit toward the enemy.
        engaged=np.zeros(len(sides), dtype=np.bool_),
        # Optional rules (PB-OPT): units declared to fire intensively in this fire phase
        # (PB-OPT-AMMO-1); hexes the phasing side's command posts observe for indirect fire
        # (PB-OPT-IF-2/3); the overrun hex a dismounted rider may close-assault (PB-OPT-PBA-1).
        intensive=np.zeros(n, dtype=np.bool_), observed=np.zeros(n_hex, dtype=np.int64),
        pba_target=np.full(n, -1, dtype=np.int64),
        # PB-SIT-7 road march, per group: state, side, entry turn, hexes per turn, how near the
        # enemy the lead stops, the lead's index on the road path (-1: not entered yet); the
        # road paths one after another; per unit its place in the column (-1: none).
        march_state=np.array(march_state, dtype=np.int64), march_side=np.array(march_side, dtype=np.int64),
        march_turn=np.array(march_turn, dtype=np.int64), march_speed=np.array(march_speed, dtype=np.int64),
        march_stop=np.array(march_stop, dtype=np.int64), march_lead=np.full(len(march_state), -1, dtype=np.int64),
        march_path_start=march_path_start, march_path=march_path,
        march_rank=np.full(n, -1, dtype=np.int64),
        # PB-FORT-10: a unit on top of the fort in its hex (outside it).  Units of the fort's
        # side in its hex are inside unless this is set (the default placement); an enemy
        # unit in a fort hex is always on top (PB-FORT-12).
        on_top=np.zeros(n, dtype=np.bool_),
        # PB-FORT-13 / OQ-22: dispersed by its own side's fire at enemy units on top of its
        # fort (0 no; 1 recovers in that player-turn's S6, the adopted reading; 2 stays
        # dispersed through its side's next player-turn, the alternative).
        own_fire_hit=np.zeros(n, dtype=np.int64),
        # PB-SIT-5 return leg (the `round_trip` measure): per side, the edge bit a unit leaves by
        # on its way out, the edge bit it finally leaves by after coming back (0: the side makes
        # no round trip) and the game-turns it must stay off; per unit, the hex it left by the
        # outward edge (-1: it has not), and whether it has come back on at that hex.
        trip_out=trip[0].copy(), trip_final=trip[1].copy(), trip_stay_off=trip[2].copy(),
        trip_hex=np.full(n, -1, dtype=np.int64), returned=np.zeros(n, dtype=np.bool_),
        # Per hex, the side that laid its minefield (-1: none, or laid by no side's set-up).
        # Minefields attack both sides' units (PB-MINE-2); their owner knows them.
        mine_side=np.full(n_hex, -1, dtype=np.int64),
        # Derived, not game state: what the movement rules read of the board, kept up to date
        # through a movement phase (move_view.py: flags, counts, loads per hex; what it last saw
        # of each unit; scratch marks).
        view_flags=np.zeros((N_VIEW_FLAGS, n_hex), dtype=np.bool_),
        view_count=np.zeros((N_VIEW_COUNTS, n_hex), dtype=np.int64),
        view_load=np.zeros((n_hex, 2), dtype=np.int64),
        view_seen=np.zeros((n, N_VIEW_SEEN), dtype=np.int64),
        view_dirty=np.zeros(n_hex, dtype=np.bool_),
        view_changed=np.zeros(2 * n, dtype=np.int64),  # sync_view's list of the hexes it marks
        # The view's flags of each hex packed in a byte, as the search reads them (movement.HEX_*),
        # and the search's work space (movement.reachable_bits), made once with the state.
        view_bits=np.zeros(n_hex, dtype=np.uint8),
        search_scratch=search_scratch(n_hex, int(t.unit_t.movement.max()) if n else 0),
        search_reached=reached_words(n_hex),
    )
    st.clock[N_TURNS] = sit.turns
    st.clock[FIRST_SIDE] = sides.index(sit.moves_first)
    _board_entering_guns(st, t)
    return st


class StateBuffer:
    """One game's state arrays, reused game after game of a batch (`batch.play_games`).

    Building a state from the situation is a few hundred Python operations, and a new event log
    is 4.8 MB that the allocator hands back dirty and calloc zeroes again (glibc raises its mmap
    threshold after the first free): together about a twentieth of a pb-04 game.  `fresh()`
    copies the situation's initial state, built once, into the same arrays instead, so the
    compiled games also see the same struct (numba's handle to it is built once).

    The arrays are views into one block of memory (each field at a 64-byte boundary, with the
    dtype and shape `new_state` gave it: the kernels see the same types), so that `fresh()` is
    one copy of the block rather than one a field (those ~70 calls were a tenth of a
    millisecond a game, more with the caches cold after a game), and the fields named
    `record` come first, so that `recorded()` is a game's copy of them in one slice.  The event
    log and the work spaces of the search and of `move_view.sync_view` are not in the block and
    not cleared: only the first `clock[N_EVENTS]` rows of the log are ever read, every event
    writes its whole row (events.log_event), and the search and sync_view write their scratch
    before reading it.  A state handed
    out is overwritten by the next `fresh()`: read what a game left before starting the next
    one."""

    _OWN = ("log", "search_scratch", "search_reached", "view_changed")  # kept out of the block, never copied

    def __init__(self, t: Tables, record: tuple[str, ...] = ()):
        initial = new_state(t, None)
        if not set(record) <= set(State._fields) or set(record) & set(self._OWN):
            raise ValueError(f"StateBuffer: record {record} names a field not in the block of {State._fields}")
        order = list(record) + [f for f in State._fields if f not in record and f not in self._OWN]
        self._layout: dict[str, tuple[int, np.dtype, tuple[int, ...]]] = {}
        at = self._head = 0
        for i, name in enumerate(order):
            a = getattr(initial, name)
            self._layout[name] = (at, a.dtype, a.shape)
            at += -(-a.nbytes // 64) * 64
            if i < len(record):
                self._head = at  # the recorded fields end here
        self._initial = np.zeros(at, dtype=np.uint8)
        self._block = np.zeros(at, dtype=np.uint8)
        self._state = State(**{name: (self._view(self._block, name) if name in self._layout else getattr(initial, name))
                               for name in State._fields})
        for name in self._layout:
            self._view(self._initial, name)[...] = getattr(initial, name)

    def _view(self, block: np.ndarray, name: str) -> np.ndarray:
        at, dtype, shape = self._layout[name]
        size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        return block[..., at:at + size].view(dtype).reshape(block.shape[:-1] + shape)

    def fresh(self) -> State:
        np.copyto(self._block, self._initial)
        return self._state

    @property
    def record_bytes(self) -> int:
        """The size of `recorded()`."""
        return self._head

    def recorded(self) -> np.ndarray:
        """The `record` fields of the state as it stands, as bytes (a view: copy it)."""
        return self._block[:self._head]

    def unpack(self, records: np.ndarray) -> dict[str, np.ndarray]:
        """The `record` fields of games stacked as `recorded()` rows (uint8[games, record_bytes]):
        name -> array[games, *the field's shape] (views of `records`)."""
        return {name: self._view(records, name) for name, (at, _, _) in self._layout.items() if at < self._head}


def _ragged(rows: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Per-group lists of hexes as one flat int64 array and the start of each row in it (row
    i is flat[starts[i]:starts[i + 1]]), the way kernels read them."""
    starts = np.zeros(len(rows) + 1, dtype=np.int64)
    starts[1:] = np.cumsum([len(r) for r in rows])
    flat = np.concatenate(rows).astype(np.int64) if rows else np.zeros(0, dtype=np.int64)
    return starts, flat


def _exit_edges(measure: dict) -> list[tuple[str, int]]:
    """PB-MOVE-10: a side may leave the map by an edge that some victory condition counts its
    exits on, whichever side's card names it: ("own" or "enemy", edge bits) per measure.
    Situation 9's German condition counts the Russian units that have *not* left by the north
    edge, so the Russians may leave by it."""
    out = []
    if measure.get("measure") in ("exited", "not_exited", "round_trip") and measure.get("edge") in EDGE_BITS:
        out.append((measure.get("whose", "own"), EDGE_BITS[measure["edge"]]))
    if measure.get("measure") == "round_trip" and measure.get("return_leg", True) \
            and measure.get("final_edge") in EDGE_BITS:
        out.append((measure.get("whose", "own"), EDGE_BITS[measure["final_edge"]]))
    for key in ("numerator", "denominator"):
        if isinstance(measure.get(key), dict):
            out += _exit_edges(measure[key])
    return out


def _round_trips(measure: dict) -> list[tuple[str, int, int, int]]:
    """PB-SIT-5: ("own" or "enemy", outward edge bit, final edge bit, turns off) of a
    `round_trip` measure with its return leg: the side's units that leave by the outward edge
    may come back on where they left after staying off, and then leave by the final edge."""
    if measure.get("measure") == "round_trip" and measure.get("return_leg", True):
        return [(measure.get("whose", "own"), EDGE_BITS[measure["edge"]], EDGE_BITS[measure["final_edge"]],
                 int(measure.get("stay_off_turns", 0)))]
    out = []
    for key in ("numerator", "denominator"):
        if isinstance(measure.get(key), dict):
            out += _round_trips(measure[key])
    return out


def _board_entering_guns(st: State, t: Tables) -> None:
    u = t.unit_t
    for g in np.unique(st.group):
        if not st.group_entering[g]:
            continue
        members = np.flatnonzero(st.group == g)
        carriers = [i for i in members if u.carrier[st.utype[i]]]
        # PB-SIT-7: a road-march column carries its infantry too ("infantry and guns in trucks
        # and HT"; road_march.check_columns makes sure there are carriers enough).
        walk = st.march_state[g] == MARCHING
        passengers = [i for i in members if (u.movement[st.utype[i]] == 0 or walk) and not u.positional[st.utype[i]]
                      and not u.vehicle[st.utype[i]]]
        for p, c in zip(passengers, carriers, strict=False):
            st.carried_by[p] = c
            st.carrying[c] = p


def units_frame(st: State, t: Tables):
    """The units as a pandas table (for reports, tests and replays)."""
    import pandas as pd

    m = t.situation.map
    sides = t.situation.ruleset.sides
    return pd.DataFrame({
        "unit": np.arange(len(st.utype)),
        "type": [t.units.names[i] for i in st.utype],
        "side": [sides[i] for i in st.side],
        "hex": [m.labels[h] if h >= 0 else "" for h in st.hex],
        "status": [STATUS_NAMES[s] for s in st.status],
        "dispersed": st.dispersed,
        "carried_by": st.carried_by,
    })
