"""Panzer Blitz v2.0 players: the decision kinds, the dispatcher, the random player, the heuristic.

The engine (game.py) lists the legal options of a decision as rows of the int32 options buffer
(columns per kind: `DECISION_KINDS`) and calls `choose` once, the core's dispatcher shape
(simulator/decisions.py); it never branches on the player.  Replaying a record, no player is
asked.  The random player is the core's `random_option` on the players' stream (`Decisions.rng`);
the heuristic only scores the rows it is given, reading the state and tables, and the DFT through
the read-only helper of combat.py (`expected_steps`), and draws its tie-breaking jitter from the
players' stream too, never from the dice.
"""

from __future__ import annotations

import numpy as np

from policies.catalogue import Catalogue, Param, PlayerType
from simulator.decisions import DecisionKind, decided, random_option, replayed, replaying
from simulator.jit import njit
from simulator.rulesets.panzerblitz_v2.combat import ap2, at_value, expected_steps
from simulator.rulesets.panzerblitz_v2.smoke import sees

_FIRE_COLUMNS = ("target hex (-1 = stop)", "armored target unit (-1: the non-armored units)", "firers",
                 "DFT column", "DRM", "steps in the target", "disrupted targets")

# Decision kinds: the code is the index (RULESET.decision_kinds).  "Stop", "pass" and "hold" are
# rows of their own (a -1 hex or a 0 flag), so no kind answers none.
DECISION_KINDS = (
    DecisionKind("SETUP_HEX", "where a counter sets up (PB2-2.5)",
                 ("hex", "TEM there", "hexes to the side's objective", "hexes seen", "room in an IP there (0/1)")),
    DecisionKind("CHIT_HEX", "where an Ops chit is placed; its radius activates the side's units (PB2-3.1.2.1)",
                 ("activation hex (-1 = pass)", "fresh units activated", "disrupted units activated",
                  "of them with an enemy in range and LoS", "SP activated",
                  "engineers with a bridge demolition ready, enemy units across it within 20 hexes (or to enter there) and none of the side's (17.2.1.3)")),
    DecisionKind("FIRE", "an active unit's direct fire, or stop (PB2-7)", _FIRE_COLUMNS),
    DecisionKind("MOVE_DEST", "where an active unit ends its move; the first row stays (PB2-4)",
                 ("hex (the first row: stay)", "half-MP spent", "hexes to an objective hex the side does not hold",
                  "TEM there", "enemy units that see it", "hexes seen", "hexes to the objective",
                  "goes into an IP (0/1)", "the mover is an empty carrier that cannot fight (0/1)")),
    DecisionKind("OPP_FIRE", "opportunity fire at a moving unit (PB2-7.8)",
                 ("0 = hold / 1 = fire", "firers", "DFT column", "DRM")),
    DecisionKind("RECOVER", "a disrupted unit's recovery attempt (PB2-13.1)",
                 ("0 = no / 1 = try", "chance of success in 36ths")),
    DecisionKind("ENTRY_HEX", "where a reinforcement enters (PB2-3.1.2.3), or a unit back from the outward leg of a "
                              "round trip (PB-SIT-5, exits.py: hex -1 stays off)",
                 ("hex (-1: stay off the map)", "hexes to the objective (a round trip's return: to its final edge; "
                                               "99 for staying off)")),
    DecisionKind("CAT", "a close assault, or stop (PB2-9)",
                 ("target hex (-1 = stop)", "0 non-armored / 1 armored defenders / 2 a fortification / 3 a lone "
                                            "attacker's split over both types (9.1.7; columns 3-6 the non-armored half)",
                  "attackers", "DFT column", "DRM", "defenders", "disrupted defenders", "0",
                  "expected step losses x 100 (a split row)")),
    DecisionKind("ASSAULT_FIRE", "a moved AFV's assault fire, or none (PB2-7.10)", _FIRE_COLUMNS),
    DecisionKind("ARTILLERY", "an artillery request through an FO, or a red-range unit's self-observed fire, or none "
                              "(PB2-11, 11.3.8)",
                 ("target hex (-1 = none)", "artillery unit", "FO (the unit itself: self-observed, 11.3.8)",
                  "enemy units", "enemy steps", "fires now (a mortar 11.4.2, a pre-registered hex 11.5.1, 11.3.8)",
                  "0 HE / 1 smoke (PB2-11.1.1, 12)", "1 self-observed fire (11.3.8, resolved as DF)",
                  "self-observed: the armored target unit (-1: the hex's non-armored units)",
                  "self-observed: expected step losses x 100")),
    DecisionKind("OVERRUN", "an overrun before moving, or a plain move (PB2-8; again from an emptied hex, 8.1.9)",
                 ("target hex (-1 = no overrun: move)", "armored target unit or -1", "hex attacked from",
                  "DFT column", "DRM", "defenders", "disrupted defenders", "MP missing (8.1.10)",
                  "split over the non-armored units and the armored unit (0/1, 8.1.4; columns 3-6: the "
                  "non-armored part)", "expected step losses x 100")),
    DecisionKind("IP_HEX", "where an improved position of the card is placed at set-up (PB2-15.4)",
                 ("hex", "TEM", "hexes to the objective", "hexes seen", "0")),
    DecisionKind("HULL_DOWN", "a vehicle that stayed put tries to go hull-down (PB2-15.6.1, an Efficiency Roll 13.2)",
                 ("0 = no / 1 = try", "chance of passing the Efficiency Roll in 36ths", "enemy units that see it")),
    DecisionKind("BUILD_IP", "an active non-vehicular unit builds an improved position at the start of the Operation "
                             "(PB2-15.4.3.1, an Efficiency Roll 13.2)",
                 ("0 = no / 1 = build", "chance of passing the Efficiency Roll in 36ths", "enemy units that see it",
                  "hexes to the objective")),
    DecisionKind("AR_CANCEL", "the owner may cancel an artillery request in the administration, before it is "
                              "resolved (PB2-11.3.5)",
                 ("0 = fire / 1 = cancel", "enemy units in the hex now", "friendly units in the hex now")),
    DecisionKind("LOAD", "a passenger boards the moving carrier, or no more (PB2-4.3, 4.3.1; a reinforcement may "
                         "board before entering, readings.reinforcements_enter_loaded)",
                 ("passenger unit (-1 = no more)", "cost to the carrier so far (1 half MA, 2 all MA, 4.3.5)",
                  "hexes to the objective from the carrier's hex", "the passenger's own MA in half MP",
                  "enemy units that see the hex")),
    DecisionKind("UNLOAD", "a carrier sets its passengers down after its move (PB2-4.3, 4.3.9)",
                 ("0 = keep them / 1 = unload", "hexes to the objective", "enemy units that see the hex",
                  "passengers' SP")),
    DecisionKind("MARKER_HEX", "where a minefield, block or fortification of the card is placed at set-up "
                               "(PB2-15.2.2, 15.3.1, 15.5.1)",
                 ("hex", "kind (0 minefield, 1 block, 2 fortification)", "TEM", "hexes to the objective",
                  "hexes seen", "a road runs through it (0/1)")),
    DecisionKind("PB_ASSAULT", "a carrier about to overrun declares a Panzer Blitz assault: its infantry unload next "
                               "to the hex, it overruns, they close-assault (PB2-10, 10.1.1)",
                 ("0 = the overrun alone / 1 = Panzer Blitz assault", "passengers that would assault",
                  "their AP in half factors", "the overrun's DFT column", "its DRM", "defenders")),
    DecisionKind("ENGINEER", "an active engineer starts a three-turn work instead of moving: clear a minefield next to "
                             "it, build a block in its hex, remove the block of its hex (PB2-17.1, 17.3), demolish "
                             "the bridge of its hex (PB2-17.2, round 9)",
                 ("hex (-1 = no work)", "work: 1 clear the minefield / 2 build a block / 3 remove the block / "
                                        "4 demolish the bridge",
                  "hexes to the objective", "enemy units that see the hex", "turns left",
                  "a bridge: enemy units across it within 20 hexes (with the reinforcements to enter there)", "a bridge: the side's other units across it "
                                                                     "within 20 hexes")),
    DecisionKind("REMOVE_IP", "an active non-vehicular unit that began the turn in an empty IP's hex removes it, "
                              "spending its whole MA (PB2-15.4.3.2)",
                 ("0 = no / 1 = remove", "chance of passing the Efficiency Roll in 36ths (36: none needed)",
                  "enemy units that see it", "hexes to the objective")),
    DecisionKind("AIR_STRIKE", "an Air Support chit: where an aircraft strikes, placed next to its target (a dive "
                               "bomber also over it), or no attack (it stays where it is, PB2 3.1.2.2, 16.1, 16.3.5)",
                 ("target hex (-1 = no attack)", "armored target unit (-1: the non-armored units; a bomb attack: "
                                                 "every unit of the hex)", "hex it attacks from", "DFT column",
                  "DRM", "targets", "disrupted targets", "enemy AA units that can engage it there",
                  "0 direct fire / 1 bomb attack (16.3.1)", "expected step losses x 100")),
    DecisionKind("AA_FIRE", "an AA unit engages one aircraft about to attack, or holds (PB2 16.4.2)",
                 ("aircraft (-1 = hold)", "AA column (the unit's AA equivalency)", "range DRM",
                  "chance of X in 36ths", "chance of X or DD in 36ths", "own steps in the aircraft's target hex")),
    # round 8 A
    DecisionKind("OVR_JOIN", "another overrun-capable unit joins an overrun already moving, given a defender type "
                             "(PB2-8.1.3, 8.2.1.1), or stays out",
                 ("target hex (-1 = stay out)", "defender type: armored unit or -1 the non-armored units",
                  "hex it attacks from", "that type's DFT column with it", "DRM", "defenders",
                  "disrupted defenders", "overrunners already on that type",
                  "expected step losses x 100 with it", "without it")),
    # round 8 B
    DecisionKind("AR_COMBINE", "another IF unit in the same or an adjacent hex joins the request just placed, "
                               "through the same FO (PB2-11.3.4), or no more",
                 ("joining unit (-1 = no more)", "expected step losses of the combined attack x 100",
                  "expected step losses of the request and the joining unit firing apart x 100",
                  "the joining unit's AP in half factors", "its AT")),
    DecisionKind("AIR_OBSERVE", "an Air Support chit: where an observation aircraft goes, over an enemy-held hex, or "
                                "it stays where it is (PB2-16.2, 16.1)",
                 ("hex (-1 = stays where it is; not placed yet: off the map)", "enemy units it would spot there",
                  "their steps", "enemy AA units that could engage it there")),
    DecisionKind("MINE_EXCHANGE", "at set-up, a trade of a group's minefields on the Mine Exchange Chart before they "
                                  "are placed, or keep them (PB2-15.2.1; dummies are never traded)",
                 ("trade (-1 = keep)", "strength given (0 1-1, 1 2-1, 2 3-1)", "counters given", "strength taken",
                  "counters taken", "the group's minefields after it")),
    # round 9
    DecisionKind("BRIDGE_BLOW", "an engineer whose bridge demolition is ready (two Operations on the bridge done) "
                                "moves to an adjacent hex and rolls to destroy it, or waits on the bridge, or gives "
                                "the work up and moves as any unit (PB2-17.2.1.3, 17.2.2)",
                 ("hex it rolls from (-1 = wait on the bridge, -2 = give the work up)", "half-MP to enter it",
                  "enemy units that see it", "chance of destroying the bridge in 36ths",
                  "enemy units across the bridge within 20 hexes (with the reinforcements to enter there)", "the side's other units across it within 20 hexes",
                  "the hex is across the water (over the bridge or another water hexside: 0/1)")),
)
(SETUP_HEX, CHIT_HEX, FIRE, MOVE_DEST, OPP_FIRE, RECOVER, ENTRY_HEX, CAT, ASSAULT_FIRE, ARTILLERY, OVERRUN,
 IP_HEX, HULL_DOWN, BUILD_IP, AR_CANCEL, LOAD, UNLOAD, MARKER_HEX, PB_ASSAULT, ENGINEER, REMOVE_IP,
 AIR_STRIKE, AA_FIRE) = range(23)
# round 8 A
OVR_JOIN = 23
# round 8 B: kinds found by name (the lead renumbers the appended blocks at merge)
AR_COMBINE = [k.name for k in DECISION_KINDS].index("AR_COMBINE")
AIR_OBSERVE = [k.name for k in DECISION_KINDS].index("AIR_OBSERVE")
MINE_EXCHANGE = [k.name for k in DECISION_KINDS].index("MINE_EXCHANGE")
# round 9
BRIDGE_BLOW = [k.name for k in DECISION_KINDS].index("BRIDGE_BLOW")
W_DEMOLISH_ROW = 4          # the ENGINEER row's work code of a bridge demolition (engineers.W_DEMOLISH)

RANDOM, HEURISTIC = 0, 1

HEURISTIC_PARAMS = {
    "fire_min": Param(0.12, "fire only when the attack's expected step losses reach this"),
    "opp_fire_min": Param(0.30, "opportunity-fire only when the expected step losses reach this"),
    "recover_risk": Param(1.0, "try recovery when success (in 36ths) is at least this many times the catastrophe's"),
    "w_goal": Param(1.0, "move: value of a hex nearer the objective"),
    "w_cover": Param(0.6, "move and set-up: value of a point of terrain modifier"),
    "w_seen": Param(0.15, "move: cost of each enemy unit that would see the hex"),
    "chit_fire": Param(1.0, "chit placement: extra value of an activated unit with a target"),
    "chit_disrupted": Param(0.4, "chit placement: value of an activated disrupted unit (recovery)"),
    "hold_bonus": Param(0.8, "move: value of staying put for the side defending the objective"),
    "jitter": Param(0.3, "spread of the random tie-breaking added to every score"),
    "w_view": Param(0.01, "set-up and move: value of each hex seen within 8 hexes (field of fire)"),
    "cat_min": Param(0.25, "close-assault only when the expected step losses reach this"),
    "ar_min": Param(2.0, "request artillery only on a hex holding at least this many enemy steps"),
    "w_objective": Param(1.5, "set-up and move: value of standing on an objective hex, for the side defending it"),
    "ovr_min": Param(0.45, "overrun only when the attack's expected step losses reach this (reaction fire comes first)"),
    "hull_min": Param(12.0, "a vehicle staying put tries hull-down when its chance (in 36ths) is at least this and an "
                            "enemy unit sees it"),
    "ip_min": Param(15.0, "a unit on an objective hex builds an improved position when its chance (in 36ths) is at "
                          "least this"),
    "ride_min": Param(4.0, "a unit boards a carrier when it is at least this many hexes from the objective"),
    "unload_at": Param(3.0, "a carrier sets its passengers down this many hexes or fewer from the objective, or "
                            "where an enemy unit sees it"),
    "air_min": Param(0.3, "an aircraft strikes only when the attack's expected step losses reach this"),
    "w_flak": Param(0.15, "air strike: cost of each enemy AA unit that can engage the aircraft where it attacks from"),
    "aa_min": Param(4.0, "an AA unit fires when its chance of X or DD (in 36ths) reaches this"),
    # round 8 A
    "ovr_join_min": Param(0.15, "a unit joins an overrun when it adds at least this many expected step losses "
                                "to the attack on its defender type (8.1.3)"),
    # round 8 B
    "mine_split": Param(1.0, "set-up (15.2.1): 1 = trade each 2-1 minefield for two 1-1s (two hexes that stop a move), "
                             "0 = keep the card's minefields"),
    # round 9 (v2-corner)
    "smoke_w": Param(0.25, "smoke (12): a smoke request scores this much a step of the side's units in the open that "
                           "it screens from the enemy units watching them (smoke_screen; HE scores the enemy steps "
                           "in the hex); 0 = never smoke"),
    # round 9
    "chit_demolish": Param(3.0, "chit placement: value of activating an engineer whose bridge demolition is ready "
                                "with enemy units across the bridge (17.2.1.3)"),
}

PLAYERS_CATALOGUE = Catalogue([
    PlayerType("random", RANDOM, {}, "every decision uniformly among its legal options"),
    PlayerType("heuristic", HEURISTIC, HEURISTIC_PARAMS,
               "places chits where they activate the most units with targets, fires on expected step "
               "losses, moves toward (or holds) the objective under cover"),
], default="heuristic", replay_default="heuristic")

(P_FIRE_MIN, P_OPP_MIN, P_RECOVER, P_GOAL, P_COVER, P_SEEN, P_CHIT_FIRE, P_CHIT_DIS, P_HOLD, P_JITTER, P_VIEW,
 P_CAT_MIN, P_AR_MIN, P_OBJECTIVE, P_OVR_MIN, P_HULL_MIN, P_IP_MIN, P_RIDE_MIN, P_UNLOAD_AT, P_AIR_MIN, P_FLAK,
 P_AA_MIN) = range(22)
# round 8 A
P_OVR_JOIN_MIN = 22
P_MINE_SPLIT = list(HEURISTIC_PARAMS).index("mine_split")     # round 8 B (by name: blocks merge apart)
P_SMOKE_W = list(HEURISTIC_PARAMS).index("smoke_w")           # round 9 (v2-corner)
P_CHIT_DEMOLISH = list(HEURISTIC_PARAMS).index("chit_demolish")   # round 9


@njit(cache=True)
def choose(kind, opts, n, t, st, side, player, params, dec):
    """The one dispatcher (simulator/decisions.py): the row of `opts[:n]` this side's player
    takes.  A single option is taken without asking (but recorded, so a record lists every
    decision point); replaying a record, no player is asked."""
    if replaying(dec):
        return replayed(dec, kind, n)
    if n <= 1:
        chosen = 0
    elif player == RANDOM:
        chosen = random_option(dec.rng, n)
    else:
        chosen = heuristic(kind, opts, n, t, st, side, params, dec.rng)
    return decided(dec, kind, n, chosen)


@njit(cache=True)
def heuristic(kind, opts, n, t, st, side, p, rng):
    jit_ = p[P_JITTER]
    defender = side != t.stated_side
    screen = np.empty(0, dtype=np.float64)
    if kind == ARTILLERY:
        screen = np.full(t.n_hexes, -1.0)        # smoke_screen of each target hex, once a decision
    best = 0
    best_s = -1e18
    for i in range(n):
        s = 0.0
        if kind == SETUP_HEX or kind == IP_HEX:      # hex, TEM, hexes to the objective, hexes seen, IP room
            s = p[P_COVER] * (opts[i, 1] + opts[i, 4]) - 0.5 * opts[i, 2] + p[P_VIEW] * opts[i, 3]
            if defender and opts[i, 2] == 0:
                s += p[P_OBJECTIVE]
        elif kind == CHIT_HEX:     # hex, fresh, disrupted, with a target, SP
            if opts[i, 0] < 0:
                s = 0.05
            else:
                s = opts[i, 1] + p[P_CHIT_FIRE] * opts[i, 3] + p[P_CHIT_DIS] * opts[i, 2]
                s += chit_demolition(opts, i, p)  # round 9, 17.2.1.3
        elif kind == FIRE or kind == CAT or kind == ASSAULT_FIRE or kind == OVERRUN:   # target hex, target
            # unit / type, firers (OVERRUN: the hex attacked from), column, drm, targets, disrupted targets
            if opts[i, 0] < 0:
                s = p[P_FIRE_MIN] if kind == FIRE else (p[P_OVR_MIN] if kind == OVERRUN else p[P_CAT_MIN])
            elif kind == OVERRUN and opts[i, 8] == 1:
                s = opts[i, 9] / 100.0      # 8.1.4 (round 8 A): both parts of a split overrun
            elif kind == CAT and opts[i, 1] == 3:
                s = opts[i, 8] / 100.0      # 9.1.7 (round 8 A): both halves of a lone attacker's split
            else:
                nt = max(opts[i, 5], 1)
                s = expected_steps(t, opts[i, 3], opts[i, 4], nt, opts[i, 6] / nt)
        elif kind == MOVE_DEST:    # hex, half MP, hexes to an objective hex not held, TEM, seen by, hexes seen,
            # hexes to the objective
            if opts[i, 8] == 1:
                # an empty truck or wagon keeps out of the enemy's sight, near where it is
                s = -2.0 * opts[i, 4] + p[P_COVER] * opts[i, 3] - 0.05 * opts[i, 1]
            else:
                s = -p[P_GOAL] * opts[i, 2] + p[P_COVER] * (opts[i, 3] + opts[i, 7]) - p[P_SEEN] * opts[i, 4] \
                    + p[P_VIEW] * opts[i, 5]
                if defender and opts[i, 6] == 0:
                    s += p[P_OBJECTIVE] + (p[P_HOLD] if i == 0 else 0.0)
        elif kind == OPP_FIRE:     # fire?, firers, column, drm
            if opts[i, 0] == 0:
                s = p[P_OPP_MIN]
            else:
                s = expected_steps(t, opts[i, 2], opts[i, 3], 1, 0.0)
            jit_ = 0.0
        elif kind == RECOVER:      # try?, chance in 36ths
            s = 1.0 if (opts[i, 0] == 1 and opts[i, 1] >= p[P_RECOVER]) else 0.5
            jit_ = 0.0
        elif kind == HULL_DOWN:    # try?, chance in 36ths, enemy units that see it
            s = 1.0 if (opts[i, 0] == 1 and opts[i, 1] >= p[P_HULL_MIN] and opts[i, 2] > 0) else 0.5
            jit_ = 0.0
        elif kind == AR_CANCEL:    # cancel?, enemy units in the hex, friendly units in it
            # cancel a request whose target hex was emptied or taken by the side's own units
            s = 1.0 if (opts[i, 0] == 1) == (opts[i, 1] == 0 or opts[i, 2] > 0) else 0.5
            jit_ = 0.0
        elif kind == BUILD_IP:     # build?, chance in 36ths, enemy units that see it, hexes to the objective
            s = 1.0 if (opts[i, 0] == 1 and opts[i, 1] >= p[P_IP_MIN] and opts[i, 3] == 0) else 0.5
            jit_ = 0.0
        elif kind == LOAD:         # passenger, cost so far, hexes to the objective, its own MA, seen by
            # ride when the way is long for the passenger's own legs; an all-MA load keeps the carrier put
            if opts[i, 0] < 0:
                s = 0.0
            else:
                s = opts[i, 2] - p[P_RIDE_MIN] - (2.0 if opts[i, 1] == 2 else 0.0) - 0.5 * opts[i, 4]
            jit_ = 0.0
        elif kind == UNLOAD:       # unload?, hexes to the objective, seen by, passengers' SP
            near = opts[i, 1] <= p[P_UNLOAD_AT] or opts[i, 2] > 0
            s = 1.0 if (opts[i, 0] == 1) == near else 0.5
            jit_ = 0.0
        elif kind == MARKER_HEX:   # hex, kind, TEM, hexes to the objective, hexes seen, road
            if opts[i, 1] == 2:
                # a fortification where the objective is held, with a field of fire
                s = -opts[i, 3] + p[P_VIEW] * opts[i, 4] + 0.3 * opts[i, 2]
            else:
                # minefields and blocks on the approaches: a ring 1-3 hexes out, on the roads
                d = opts[i, 3]
                s = -abs(d - 2.0) + 1.0 * opts[i, 5] + p[P_VIEW] * opts[i, 4]
        elif kind == ENTRY_HEX:    # hex, hexes to the objective
            s = -0.5 * opts[i, 1]
        elif kind == PB_ASSAULT:   # assault?, passengers, their AP, overrun column, DRM, defenders
            # the infantry add a close assault to the overrun: declare it (i20f; i20g may weigh it)
            s = 1.0 if opts[i, 0] == 1 else 0.5
            jit_ = 0.0
        elif kind == ENGINEER and opts[i, 0] >= 0 and opts[i, 1] == W_DEMOLISH_ROW:
            s = demolition_score(opts, i, defender)      # round 9, 17.2
            jit_ = 0.0
        elif kind == ENGINEER:     # hex, work, hexes to the objective, seen by, turns left
            # (i20f) the attacker clears minefields and removes blocks, the defender builds blocks
            # near the objective, while the work can finish (3 turns)
            if opts[i, 0] < 0:
                s = 0.5
            elif opts[i, 4] < 2:
                s = 0.0
            elif opts[i, 1] == 2:
                s = 1.0 if (defender and 1 <= opts[i, 2] <= 4 and opts[i, 3] == 0) else 0.0
            else:
                s = 1.0 if not defender else 0.0
            jit_ = 0.0
        elif kind == REMOVE_IP:    # remove?, chance in 36ths, seen by, hexes to the objective
            # (i20f) the attacker levels an IP on an objective hex it stands on, out of the enemy's sight
            s = 1.0 if (opts[i, 0] == 1) == (not defender and opts[i, 3] == 0 and opts[i, 2] == 0) else 0.5
            jit_ = 0.0
        elif kind == AIR_STRIKE:   # hex, unit, from, column, DRM, targets, disrupted, AA there, bomb, E[steps] x 100
            # (i20h) the strike of the most expected step losses, less the flak that can reach it
            if opts[i, 0] < 0:
                s = p[P_AIR_MIN]
            else:
                s = opts[i, 9] / 100.0 - p[P_FLAK] * opts[i, 7]
                for a in range(t.n_units):
                    if st.air_tgt[a] == opts[i, 0] and t.u_side[a] == side:
                        s *= 0.3           # another of its aircraft strikes there already
                        break
        elif kind == AA_FIRE:      # aircraft, column, range DRM, P(X), P(X or DD), own steps under attack
            # (i20h) engage the aircraft most likely to be downed or recalled, first those attacking
            # the most of the side's steps
            s = p[P_AA_MIN] if opts[i, 0] < 0 else opts[i, 4] + 0.5 * opts[i, 5]
            jit_ = 0.0
        elif kind == OVR_JOIN:     # round 8 A: hex, type, from, column, DRM, defenders, disrupted, others,
            # E[steps] x 100 with it, without it: join where it adds the most to its type's attack
            s = p[P_OVR_JOIN_MIN] if opts[i, 0] < 0 else (opts[i, 8] - opts[i, 9]) / 100.0
        elif kind == ARTILLERY:    # hex, artillery, FO, enemy units, enemy steps, fires now, smoke, self, unit, E
            s = p[P_AR_MIN] if opts[i, 0] < 0 else opts[i, 4] + 0.5 * opts[i, 5]
            if opts[i, 6] == 1:
                # round 9, 12: smoke where it screens the side's units in the open from the enemy
                # watching them (smoke_screen), against HE's enemy steps; never twice on a hex
                h = opts[i, 0]
                if screen[h] < 0.0:
                    screen[h] = smoke_screen(t, st, h, side)
                s = p[P_SMOKE_W] * screen[h] + 0.5 * opts[i, 5]
            elif opts[i, 7] == 1:
                # round 8 B, 11.3.8: one direct-fire attack on the hex, below an FO's request that
                # attacks each unit apart at once; only when it is worth a direct-fire attack
                s = opts[i, 4] + 0.25 if opts[i, 9] >= 100.0 * p[P_FIRE_MIN] else -1.0
        elif kind == AIR_OBSERVE:  # round 8 B, 16.2: hex, enemy units spotted, their steps, enemy AA there
            # over the hex from which it spots the most enemy steps, each AA unit that can reach it
            # counting as 3 steps (flak downs or sends home the side's FO)
            s = opts[i, 2] - 3.0 * opts[i, 3]
            if i == 0 and opts[0, 1] == 0 and opts[0, 2] == 0:
                s = -1.0           # not over the map yet, or spotting nothing: move
        elif kind == MINE_EXCHANGE:    # round 8 B, 15.2.1: trade, give s, give n, take s, take n, after
            # split 2-1s into 1-1s (more counters, more moves stopped) when mine_split says so; no other trade
            if opts[i, 0] < 0:
                s = 0.5
            else:
                s = 1.0 if (p[P_MINE_SPLIT] > 0.5 and opts[i, 1] == 1 and opts[i, 3] == 0) else 0.0
            jit_ = 0.0
        elif kind == AR_COMBINE:   # round 8 B, 11.3.4: joining unit, E combined x 100, E apart x 100, AP, AT
            # join when one combined attack strips more than the two apart on this hex
            s = 0.0 if opts[i, 0] < 0 else (opts[i, 1] - opts[i, 2]) / 100.0
            jit_ = 0.0
        elif kind == BRIDGE_BLOW:  # round 9, 17.2.1.3
            s = blow_score(opts, i)
            jit_ = 0.0
        s += jit_ * rng.random()
        if s > best_s:
            best_s = s
            best = i
    return best


@njit(cache=True)
def watch_strength(t, st, e, o):
    """For smoke_screen: the factor with which enemy unit e could fire at unit o next Operation (in
    range; AT against an armored target, AP otherwise, 7.2.3; not Disrupted; LoS aside), 0 if none."""
    if st.hex[e] < 0 or st.disrupted[e] or not t.t_combat[t.u_type[e]]:
        return 0
    ty = t.u_type[e]
    if t.art_self_observed and t.t_indirect[ty] and not t.t_mortar[ty]:
        return 0                                      # 11.3.8 (PB2-OQ-90): no direct fire
    if t.dist[st.hex[e], st.hex[o]] > t.t_range[ty]:
        return 0
    if t.t_armored[t.u_type[o]]:
        return 0 if t.t_infantry[ty] else at_value(t, st, e)
    return ap2(t, st, e)


@njit(cache=True)
def smoke_screen(t, st, h, side):
    """Round 9, the heuristic's smoke (12; players.md "Smoke"): the steps of `side`'s units in the
    open (open ground, not in an improved position or a fortification) that smoke on hex h would
    screen from the enemy units that watch them now (see them and could fire at them,
    `watch_strength`), each unit counted by the share of its watchers' strength the smoke takes
    away: those in h (all their fire from a smoke hex at +2, 12.2.6) and those whose line of sight
    runs through h (12.2.2, as the engine reads it: smoke.sees with a counter put on h for the look,
    then taken off).  0 when h already has smoke or a smoke request of the side is pending on it,
    or smoke may not lie there (12.2.3)."""
    if st.smoke[h] > 0 or not t.smoke_ok[h]:
        return 0.0
    for k in range(st.n_ar[0]):
        if st.ar[k, 0] == h and st.ar[k, 2] == side and st.ar[k, 4] == 1:
            return 0.0
    total = 0.0
    for o in range(t.n_units):
        ho = st.hex[o]
        if t.u_side[o] != side or ho < 0 or not t.open_ground[t.cover[ho]] or st.in_ip[o] or st.in_fort[o]:
            continue
        watched = 0
        taken = 0
        for e in range(t.n_units):
            if t.u_side[e] == side:
                continue
            w = watch_strength(t, st, e, o)
            if w <= 0 or not sees(t, st, st.hex[e], ho):
                continue
            watched += w
            he = st.hex[e]
            if he == h:
                taken += w                            # blinded: its fire from the smoke at +2
            elif t.dist[he, h] + t.dist[h, ho] == t.dist[he, ho] and ho != h:
                st.smoke[h] = 1                       # (the look: the counter on h, then off again)
                st.n_smoke[0] += 1
                if not sees(t, st, he, ho):
                    taken += w                        # its line runs through the smoke
                st.smoke[h] = 0
                st.n_smoke[0] -= 1
        if watched > 0:
            total += st.steps[o] * taken / watched
    return total


# round 9, bridge demolition (PB2-17.2; engineers.py, game.demolition_step).  The rule the heuristic
# follows (players.md): only the side defending the objective demolishes, a bridge on the enemy's
# way to it (enemy units across the water, or its reinforcements' entry hexes) once its own units are behind it (none of its other
# units across); it prepares the demolition while enough turns are left (two, 17.2.1.1-17.2.1.2),
# and rolls as soon as that still holds, from an adjacent hex on its own side of the water (not over
# the bridge or another water hexside, where it would be stranded), the one fewest enemy units see; it never gives
# the work up; chits go to a ready demolition (chit_demolish).
@njit(cache=True)
def chit_demolition(opts, i, p):
    """CHIT_HEX: the value of the ready demolitions a hex activates (column 5)."""
    return p[P_CHIT_DEMOLISH] * opts[i, 5]


@njit(cache=True)
def demolition_score(opts, i, defender):
    """ENGINEER, a bridge's row (hex, 4, hexes to the objective, seen by, turns left, enemy units
    across, own units across); row 0 (no work) scores 0.5."""
    if defender and opts[i, 4] >= 2 and opts[i, 5] > 0 and opts[i, 6] == 0:
        return 1.0
    return 0.0


@njit(cache=True)
def blow_score(opts, i):
    """BRIDGE_BLOW: (hex (-1 wait, -2 give up), half-MP, seen by, chance in 36ths, enemy across,
    own across)."""
    if opts[i, 0] == -1:
        return 0.5
    if opts[i, 0] == -2:
        return 0.0
    if opts[i, 4] > 0 and opts[i, 5] == 0:
        return 1.0 - 0.05 * opts[i, 2] - 0.001 * opts[i, 1] - 0.6 * opts[i, 6]   # not stranded across
    return 0.0
