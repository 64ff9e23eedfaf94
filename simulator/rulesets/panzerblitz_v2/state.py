"""The state of one Panzer Blitz v2.0 game: one struct of arrays (engine.md, "State")."""

from __future__ import annotations

import numpy as np

from simulator.decisions import for_play
from simulator.rulesets.panzerblitz_v2.rng import seed_streams
from simulator.soa import struct_of_arrays

OFF_MAP = -1      # hex of a counter not entered yet
OFF_BOARD = -3    # hex of off-board artillery (11.1-11.3.4)
GONE = -2         # hex of an eliminated counter
CARRIED = -4      # hex of a passenger: it is where its carrier is (carried_by, PB2 4.3)
EXITED = -5       # hex of a counter that left the map by an edge a classic card's victory counts
AIRBORNE = -6     # hex of an aircraft in play (PB2 16.1: not a unit on the map; its marker: air_hex)
AIR_WAIT = -7     # hex of an aircraft before the turn its group comes into play
NOBODY = -1

MAX_EVENTS = 40000
MAX_DECISIONS = 60000   # a recorded game's capacity (the longest random game makes ~6000)
OPT_COLS = 10

# Events (one row: turn, op, kind, side, a, b, c, d, e) that the replay and the tables read.
EV_SETUP = 1        # a = unit, b = hex
EV_CHIT = 2         # a = hex (-1: passed), b = radius, c = units activated, d = reinforcement chit
EV_UNPLAYED = 3     # the last chit of a turn: a = radius, d = reinforcement chit
EV_FIRE = 4         # a = target hex, b = column (-1: no column), c = natural, d = drm, e = result*100 + firers
EV_OPP_FIRE = 5     # as EV_FIRE
EV_LOSS = 6         # a = unit, b = hex, c = steps left
EV_DISRUPT = 7      # a = unit, b = hex
EV_MOVE = 8         # a = unit, b = from, c = to, d = half-MP spent
EV_RECOVER = 9      # a = unit, b = natural, c = 1 success / 0 failure / 2 catastrophe
EV_ENTER = 10       # a = unit, b = hex, c = half MP paid to enter (3.1.2.3)
EV_SPOTTED = 11     # a = unit
EV_ADMIN = 12       # end of turn
EV_CARRY = 13       # a reinforcement chit drawn last, carried to the next turn
EV_REACTION = 14    # reaction fire (7.9), as EV_FIRE
EV_CAT = 15         # close assault (9.0), as EV_FIRE
EV_ADVANCE = 16     # a = unit, b = from, c = to (9.1.13)
EV_ASSAULT = 17     # assault fire (7.10), as EV_FIRE
EV_AR = 18          # artillery request: a = hex, b = artillery unit, c = FO (the unit itself: self-observed,
                    # 11.3.8), d = 1 resolved now (a mortar 11.4.2, a pre-registered hex 11.5.1), e = 1 smoke
EV_IF = 19          # indirect fire on a unit, as EV_FIRE (a = hex)
EV_SCATTER = 20     # a = requested hex, b = hex hit, c = roll
EV_AR_CANCEL = 21   # a = hex, b = artillery unit, c = 0 involuntary (11.3.6) / 1 by the owner (11.3.5)
EV_OVERRUN = 22     # overrun (8.0), as EV_FIRE
EV_IP = 25          # a = hex (an improved position placed at set-up, 15.4)
EV_WRECK = 24       # a = hex, b = wreck SP placed, c = the unit it was (15.1)
EV_BUILD_IP = 27    # a = unit, b = hex, c = natural roll (0: builds nothing, 15.4.5), d = 1 IP built
EV_HULL_DOWN = 26   # a = unit, b = hex, c = natural roll (0: stopped by opportunity fire), d = 1 hull-down
EV_OVR_MOVE = 23    # a = unit, b = target hex, c = hex adjacent it attacks from, d = missing MP (8.1.10),
                    # e = 1 a Panzer Blitz assault (10.1) + 2 a lone overrunner's split (8.1.4, round 8 A)
EV_LOAD = 28        # a = carrier, b = passenger, c = hex, d = cost (1 half MA, 2 all MA), 4.3
EV_UNLOAD = 29      # a = carrier, b = passenger, c = hex, d = 1 by choice (4.3) / 0 forced (4.3.6)
EV_MARKER = 30      # a = hex, b = marker kind (tables.MK_*), c = marker index (15.2, 15.3, 15.5 set-up)
EV_MINE = 31        # a minefield attack (15.2.3.1), as EV_FIRE (a = hex, e = result*100 + unit)
EV_FORT_GONE = 32   # a = hex: a fortification destroyed (15.5.5), a wreck in its place
EV_EXIT = 33        # a = unit, b = the edge hex it left the map from, c = 1 the outward leg of a round trip
EV_WORK = 35        # engineers (17): a = unit, b = hex, c = work (engineers.W_*), d = stage (engineers.DECLARED...), e = roll
EV_REMOVE_IP = 36   # a = unit, b = hex, c = natural roll (0: none rolled), d = 1 IP removed (15.4.3.2)
EV_SMOKE = 37       # a = hex, b = side up after the event (1, 2; 0 removed), c = 0 placed / 1 flipped / 2 removed (12.2.1)
EV_RETURN = 34      # a = unit, b = hex it came back on at, c = half MP paid (a round trip's return, PB-SIT-5)
EV_AIR = 38         # an aircraft placed to attack (16.1, 16.3.5): a = aircraft, b = target hex, c = hex it attacks
                    # from, d = target unit (-1: the hex's non-armored units, or all of them for a bomb attack),
                    # e = 0 direct fire / 1 bomb attack (16.3.1)
EV_AA = 39          # AA fire (16.4): a = AA unit, b = aircraft, c = natural, d = range DRM, e = result (tables.AA_*)
EV_AIR_OUT = 40     # an aircraft leaves play: a = aircraft, b = 0 destroyed (AA X) / 1 recalled / 2 removed
                    # after its bomb attack (16.3.1, 16.3.2) / 3 (not yet: a recall pending), c = the hex it was over
EV_AIR_FIRE = 41    # an aircraft's attack roll, as EV_FIRE (a = target hex, e = result*100 + 1)
EV_AIR_OPP = 42     # an aircraft's opportunity fire (16.1.4), as EV_FIRE
EV_CRUSH = 43       # 4.1.8.2: a = the mover, b = hex, c = the empty enemy truck or wagon eliminated there
# round 8 A
EV_OVR_JOIN = 44    # 8.1.3: a = the unit joining an overrun, b = target hex, c = hex it attacks from,
                    # d = the defender type it is given (an armored unit, -1 the non-armored units)
EV_CAT_SPLIT = 45   # 9.1.7: a = the lone attacker splitting its factors, b = target hex
# round 8 B (event codes 50-59)
EV_AR_COMBINE = 50  # 11.3.4: a = hex, b = the request's first artillery unit, c = the unit joining it
EV_OBSERVE = 51     # 16.2: an observation aircraft placed: a = aircraft, b = the hex it is over, c = enemy units it spots
EV_DUMMY = 52       # 15.2.3.1: a dummy minefield revealed and removed: a = hex, b = the unit that entered it
EV_BRIDGE = 60      # round 9, 17.2.1.3: a bridge destroyed: a = bridge, b = the marker's hex, c = the engineer
EV_MINE_TRADE = 53  # 15.2.1: a = give strength (tables.MINE_STRENGTHS), b = how many, c = take strength, d = how many

State = struct_of_arrays("State", module=__name__, fields=[
    "hex", "steps", "spent", "disrupted", "disrupted_op", "unspotted", "opfired", "df_target_op",
    "fired", "active", "acted", "mp_op", "road_op", "cat_target_op", "fo", "ar", "n_ar",
    "control", "he", "smoke", "n_smoke", "ovr_op", "wreck_sp", "ip", "in_ip", "mine_col", "block", "fort", "in_fort", "mine_ok", "mine_busy", "mine_dummy", "revealed", "rev_mp", "carried_by", "carried_op", "work", "work_hex", "work_stage", "work_tries", "trip_hex", "exit_turn", "returned", "trip_done", "hd_hex", "hd_turn", "build_hex", "build_steps", "remove_hex", "turn_hex", "air_hex", "air_tgt", "air_unit", "air_from", "air_pen", "air_recall", "air_aa", "br_out", "n_br_out", "br_mark", "depr_now", "turn", "op", "streams", "carry_reinf",
    "opts", "firers", "targets", "reach", "prev", "order", "scratch", "listed", "closed",
    "stamp", "hex_sp", "hex_enemy",
    "dec", "n_dec",
    "ev", "n_ev", "ts", "snap_hex", "snap_steps", "player", "params", "n_params", "debug", "viol",
])

# Per turn and side statistics (ts[turn, side, k]).
TS_UNITS, TS_STEPS, TS_DISRUPTED, TS_LOST, TS_HELD, TS_CHITS, TS_UNPLAYED, TS_FIRE = range(8)
N_TS = 8


def new_state(t, seed: int, player_kinds, params: np.ndarray, dec=None, debug: bool = False) -> State:
    """The state before set-up.  `player_kinds`: int64[2]; `params`: float64[2, k]; `dec`: the
    game's `simulator.decisions.Decisions` (for_record / for_replay), by default for_play(seed);
    `debug`: check the invariants after every action (invariants.py; `viol` = code, event)."""
    nu = max(t.n_units, 1)
    n = t.n_hexes
    steps = t.t_steps[t.u_type].copy() if t.n_units else np.zeros(1, dtype=np.int64)
    hexes = np.full(nu, OFF_MAP, dtype=np.int64)
    hexes[:t.n_units][t.u_offboard] = OFF_BOARD
    hexes[:t.n_units][t.u_air] = AIR_WAIT
    return State(
        hex=hexes, steps=steps,
        spent=np.zeros(nu, dtype=np.bool_), disrupted=np.zeros(nu, dtype=np.bool_),
        disrupted_op=np.full(nu, -1, dtype=np.int64), unspotted=np.ones(nu, dtype=np.bool_),
        opfired=np.zeros(nu, dtype=np.bool_), df_target_op=np.full(nu, -1, dtype=np.int64),
        fired=np.zeros(nu, dtype=np.bool_), active=np.zeros(nu, dtype=np.bool_), acted=np.zeros(nu, dtype=np.bool_),
        mp_op=np.zeros(nu, dtype=np.int64), road_op=np.zeros(nu, dtype=np.bool_),
        cat_target_op=np.full(nu, -1, dtype=np.int64), fo=np.zeros(nu, dtype=np.bool_),
        # artillery requests (11.1): hex, unit, side, its steps then, smoke; column 5: 0 a request's
        # first unit, k + 1 a unit combining with the request of row k (11.3.4); column 6: 1 observed
        # by an observation aircraft (16.2)
        ar=np.zeros((64, 7), dtype=np.int64), n_ar=np.zeros(1, dtype=np.int64),
        control=np.full(n, NOBODY, dtype=np.int64), he=np.zeros(n, dtype=np.bool_),
        # 12.2: the smoke counter of each hex (0 none, 1 SMOKE 1, 2 SMOKE 2) and how many lie on the map
        smoke=np.zeros(n, dtype=np.int64), n_smoke=np.zeros(1, dtype=np.int64),
        ovr_op=np.full(n, -1, dtype=np.int64), wreck_sp=np.zeros(n, dtype=np.int64),
        ip=np.zeros(n, dtype=np.bool_), in_ip=np.zeros(nu, dtype=np.bool_),
        # 15.2-15.5: a minefield's DFT column (-1 none), a block, the fortification's marker index
        # (-1 none); a unit in (under) the fortification; a unit under a minefield's counter (it
        # survived the attack non-Disrupted and may leave unattacked, 15.2.3.1-15.2.3.2)
        mine_col=np.full(n, -1, dtype=np.int64), block=np.zeros(n, dtype=np.bool_), fort=np.full(n, -1, dtype=np.int64),
        in_fort=np.zeros(nu, dtype=np.bool_), mine_ok=np.zeros(nu, dtype=np.bool_),
        mine_busy=np.zeros(1, dtype=np.bool_),   # a minefield's own attack is being resolved (15.2.3.4)
        # 15.2 (round 8): the hex's minefield is a dummy (it is one until revealed, 15.2.3.1); the unit
        # that revealed one in its move (-1: none) and the MP it had spent then
        mine_dummy=np.zeros(n, dtype=np.bool_), revealed=np.full(1, -1, dtype=np.int64),
        rev_mp=np.zeros(1, dtype=np.int64),
        carried_by=np.full(nu, -1, dtype=np.int64),
        # round 8 A: the Operation in which a unit was last a passenger (9.2.1: no CAT in it)
        carried_op=np.full(nu, -1, dtype=np.int64),
        # an engineer's work (17.1, 17.3; engineers.py): what, where, its stage, failed attempts
        work=np.zeros(nu, dtype=np.int64), work_hex=np.full(nu, -1, dtype=np.int64),
        work_stage=np.zeros(nu, dtype=np.int64), work_tries=np.zeros(nu, dtype=np.int64),
        # a converted card's round trip (PB-SIT-5, the `round_trip` measure): the hex a unit left
        # the map from by its side's outward edge (-1 not out), the turn it left (either edge), back
        # on the map, and the turn it then left by the final edge (0: not)
        trip_hex=np.full(nu, -1, dtype=np.int64), exit_turn=np.zeros(nu, dtype=np.int64),
        returned=np.zeros(nu, dtype=np.bool_), trip_done=np.zeros(nu, dtype=np.int64),
        hd_hex=np.full(nu, -1, dtype=np.int64), hd_turn=np.zeros(nu, dtype=np.int64),
        build_hex=np.full(nu, -1, dtype=np.int64), build_steps=np.zeros(nu, dtype=np.int64),
        # 15.4.3.2: the IP a unit is removing in this Operation, and the hex each began the turn in
        remove_hex=np.full(nu, -1, dtype=np.int64), turn_hex=np.full(nu, -1, dtype=np.int64),
        # air support (16; air.py): the hex an aircraft's marker is over (-1: not placed), the target
        # declared this air operation (hex, armored unit or -1; the hex it attacks from), the AA
        # penalty on its attack (16.4.5 D#, DD), recalled at the next administration (16.1.1), and
        # an AA unit's aircraft engaged this air operation (16.4.2: one)
        air_hex=np.full(nu, -1, dtype=np.int64), air_tgt=np.full(nu, -1, dtype=np.int64),
        air_unit=np.full(nu, -1, dtype=np.int64), air_from=np.full(nu, -1, dtype=np.int64),
        air_pen=np.zeros(nu, dtype=np.int64), air_recall=np.zeros(nu, dtype=np.bool_),
        air_aa=np.full(nu, -1, dtype=np.int64),
        # round 9, 17.2 (bridges.py): each bridge destroyed, how many, the hex of its Destroyed Bridge
        # marker, and the depressions of the moment (5.6: a destroyed bridge's stream ends are ones)
        br_out=np.zeros(max(t.n_bridges, 1), dtype=np.bool_), n_br_out=np.zeros(1, dtype=np.int64),
        br_mark=np.full(max(t.n_bridges, 1), -1, dtype=np.int64), depr_now=t.depression.copy(),
        turn=np.zeros(1, dtype=np.int64), op=np.zeros(1, dtype=np.int64),
        streams=seed_streams(seed), carry_reinf=np.full(2, 0, dtype=np.int64),
        opts=np.zeros((n + 64, OPT_COLS), dtype=np.int32), firers=np.zeros(nu, dtype=np.int64),
        targets=np.zeros(nu, dtype=np.int64), reach=np.zeros(n, dtype=np.int64), prev=np.zeros(n, dtype=np.int64),
        order=np.zeros(n, dtype=np.int64), scratch=np.zeros(n, dtype=np.int64),
        # speed only (the same games): the Dijkstra's labels by call stamp and the friendly SP /
        # enemy presence by hex of the mover's side (movement.reachable)
        listed=np.zeros(n, dtype=np.int64), closed=np.zeros(n, dtype=np.int64), stamp=np.zeros(1, dtype=np.int64),
        hex_sp=np.zeros(n, dtype=np.int64), hex_enemy=np.zeros(n, dtype=np.bool_),
        dec=dec if dec is not None else for_play(seed), n_dec=np.zeros(1, dtype=np.int64),
        ev=np.zeros((MAX_EVENTS, 9), dtype=np.int64), n_ev=np.zeros(1, dtype=np.int64),
        ts=np.zeros((t.turns + 1, 2, N_TS), dtype=np.int64),
        # Each counter's hex and steps at the end of every turn (0 = after set-up): a converted
        # classic card's measures are evaluated on them turn by turn (victory.py).
        snap_hex=np.zeros((t.turns + 1, nu), dtype=np.int64), snap_steps=np.zeros((t.turns + 1, nu), dtype=np.int64),
        player=np.asarray(player_kinds, dtype=np.int64), params=params.astype(np.float64),
        n_params=np.array([params.shape[1]], dtype=np.int64),
        debug=np.array([debug], dtype=np.bool_), viol=np.zeros(2, dtype=np.int64),
    )
