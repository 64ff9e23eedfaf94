"""PanzerBlitz's kinds of decision (simulator/decisions.py): what its engine asks its players.

A kind's code is its index in `DECISION_KINDS`; the engine's kernels use the constants below.
`columns` say what a row of the options array holds for that kind (the engine writes them into
`dispatch.Players.options`, int32, and asks `dispatch.choose`); `none` what answering -1 means;
`random_none` the random player's chance of answering none (the random player's `hold_fire` and
`stay_put` parameters replace it for FIRE_TARGET / ASSAULT_TARGET and MOVE_DEST).  Overrun rows
(MOVE_DEST, ENTRY_HEX, OVERRUN_JOIN) have -1 in `hex` and their hexes in the next three columns.
"""

from __future__ import annotations

from simulator.decisions import DecisionKind, kind_codes

DECISION_KINDS = (
    DecisionKind("SETUP_HEX", "the hex a counter sets up in, among its group's legal hexes (PB-SEQ-1)", ("hex",)),
    DecisionKind("FIRE_TARGET", "the enemy hex a unit fires at, among those in range and spotted (PB-SEQ-2 S2)",
                 ("hex", "attack_strength"), "hold fire", 0.25),
    DecisionKind("MOVE_DEST", "where a unit ends its move (-2 - hex: off the map through that edge hex), or an "
                 "overrun (PB-OVR), whose rows give entry, target and exit hexes",
                 ("hex", "overrun_entry", "overrun_target", "overrun_exit"), "stay put", 0.1),
    DecisionKind("ENTRY_HEX", "the hex a unit enters the map by (PB-MOVE-10/11), or an overrun from off the map "
                 "(PB-OVR-10: entry -1)", ("hex", "overrun_entry", "overrun_target", "overrun_exit")),
    DecisionKind("LOAD", "a carrier loads the passenger that began the turn with it (PB-TRANS-3)", ("passenger",),
                 "do not load", 0.5),
    DecisionKind("UNLOAD", "a carrier sets its passenger down where it ended (PB-TRANS-3/11)", ("passenger",),
                 "keep it aboard", 0.5),
    DecisionKind("ASSAULT_TARGET", "the adjacent enemy hex a unit close-assaults (PB-CAT)", ("hex",),
                 "no close assault", 0.25),
    DecisionKind("TECHNIQUE", "how the units declared against a hex attack it: combination (0), selective (1), "
                 "multiple on a number of defenders (2), or the passenger alone (3) (PB-STK-2, PB-TRANS-8)",
                 ("technique", "defenders")),
    DecisionKind("MINE_CLEAR", "the minefield an engineer tries to clear instead of firing (PB-MINE-9)", ("hex",),
                 "fire instead", 0.5),
    DecisionKind("MOVE_ON", "where an empty carrier goes on to after unloading; staying is one (PB-TRANS-3)",
                 ("hex",)),
    DecisionKind("OVERRUN_JOIN", "the path by which a unit joins another's overrun (PB-OVR-4)",
                 ("hex", "overrun_entry", "overrun_target", "overrun_exit"), "do not join", 0.5),
    DecisionKind("INTENSIVE", "a unit fires intensively (PB-OPT-AMMO, optional)", ("unit",), "normal fire", 0.75),
    DecisionKind("PBA_DISMOUNT", "a rider dismounts at an overrun's entry hex to close-assault its target "
                 "(PB-OPT-PBA, optional)", ("rider",), "stay aboard", 0.5),
    DecisionKind("FORT_SWITCH", "a unit in its side's fort moves between inside and on top (PB-FORT-2)",
                 ("hex",), "stay where it is", 0.5),
    DecisionKind("MARCH_ORDER", "which of the counters left goes next in a road-march column (PB-SIT-7)",
                 ("unit",)),
    DecisionKind("RETURN", "a unit off the map on a round trip comes back on by the hex where it left "
                 "(PB-SIT-5)", ("hex",), "stay off", 0.5),
    DecisionKind("ENTRY_BOARD", "which rider of its group boards an empty carrier before it enters",
                 ("rider",), "enter empty", 0.5),
)

CODES = kind_codes(DECISION_KINDS)
(SETUP_HEX, FIRE_TARGET, MOVE_DEST, ENTRY_HEX, LOAD, UNLOAD, ASSAULT_TARGET, TECHNIQUE, MINE_CLEAR, MOVE_ON,
 OVERRUN_JOIN, INTENSIVE, PBA_DISMOUNT, FORT_SWITCH, MARCH_ORDER, RETURN, ENTRY_BOARD) = range(len(DECISION_KINDS))

# TECHNIQUE's codes (its "technique" column), PB-STK-2 / PB-TRANS-8.
COMBINE, SELECT, MULTIPLE, PASSENGER = range(4)
