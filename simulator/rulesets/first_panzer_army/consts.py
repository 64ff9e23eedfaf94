"""Codes shared by the First Panzer Army kernels: sides, classes, flags, results, decision
kinds, event codes, and the names of the entries of the constants vector `T.k` (tables.py fills
it from the ruleset data: no game value is written here)."""

from __future__ import annotations

from simulator.decisions import DecisionKind

SOVIET, GERMAN = 0, 1
SIDES = ("soviet", "german")

# Unit mobility/combat classes (FPA 2.3, 2.7; units.toml `class`).
NON_MECH, MECH, ARTILLERY, STATIC = 0, 1, 2, 3
CLASSES = ("non_mech", "mech", "artillery", "static")

# Unit flags (units.toml flags and size).
F_TIGER = 1          # 13.5
F_SUPPORT = 2        # 13.1: the 18th Artillery Division's range-2 support
F_ROCKET = 4         # 13.2: 3GM doubling against clear hexes
F_RIFLE = 8          # 11.0: rifle corps come back
F_ARMY_SUPPORT = 16  # 8.3: army support units may not attack out of supply
F_GARRISON = 32      # 2.7
F_CORPS = 64         # 4.1: exits score (victory.exit_units, OQ-FPA-8)
F_DIVISION = 128     # 4.2: a German division eliminated out of C&C scores its steps
F_BATTALION = 256

# u_hex values of units off the map.
NOT_ENTERED, ELIMINATED, EXITED = -1, -2, -3

# Terrain types in terrain.toml order (one a hex, FPA 14.0).
CLEAR, FOREST, ROUGH, MARSH, TOWN, FL = 0, 1, 2, 3, 4, 5
TERRAIN = ("clear", "forest", "rough", "marsh", "town", "fortified_locality")

# Weather (weather.toml conditions order).
THAW, FROST, STORM = 0, 1, 2
WEATHER = ("thaw", "frost", "storm")

# CRT results (13.9) and columns: 0 = below 1:2 (automatic), 1..8 = 1:2..7:1, 9 = above 7:1.
AL1, AS, DR, DL1, DL1DR, EX = 0, 1, 2, 3, 4, 5
RESULTS = ("AL1", "AS", "DR", "DL1", "DL1+DR", "EX")
N_COLUMNS = 10
COLUMN_NAMES = ("<1:2", "1:2", "1:1", "2:1", "3:1", "4:1", "5:1", "6:1", "7:1", ">7:1")

# Move/fight order (5.4).
MOVE_FIGHT, FIGHT_MOVE = 0, 1

# Decision kinds, in order: the code is the index (RULESET.decision_kinds).
ORDER, KG_PLACE, SETUP, MOVE_UNIT, MOVE_TO, ATTACK, CAS, LOSS, RETREAT, ADVANCE, OVERSTACK, REINFORCE, REPLACE, \
    JOIN, SUPPORT, PROBE_WITH, MOVE_WITH = range(17)
# "None" is an option row of its own where a kind allows it (a row whose first column is -1),
# so every answer is a row index and the random player draws among all rows alike.
DECISION_KINDS = (
    DecisionKind("ORDER", "move/fight (0) or fight/move (1) for the player turn (5.4)", ("order",)),
    DecisionKind("KG_PLACE", "the hex a Korpsgruppe marker goes on, any hex without one (5.3), or -1: keep it off",
                 ("hex", "german_units_within_1", "german_units_in_contact_within_2", "free_of_soviet_zoc")),
    DecisionKind("SETUP", "the hex a German unit sets up in, its printed hex or one adjacent (3.2(4))",
                 ("hex", "printed", "unit")),
    DecisionKind("MOVE_UNIT", "the next unit to move (12.0), or -1: end the movement segment",
                 ("unit", "hex", "class")),
    DecisionKind("MOVE_TO", "where the unit ends its move (its own hex: stay), or an exit (4.1: hex -3)",
                 ("hex", "mp", "unit", "exit_hex")),
    DecisionKind("ATTACK", "the next attack (target hex, 0) or German probe (hex, 1, probing unit), or -1: end the "
                 "combat segment (13.0, 13.6)", ("hex", "probe", "column_or_unit", "defenders")),
    DecisionKind("CAS", "CAS markers committed to the combat, 0..held (13.3)", ("markers", "column", "held", "attacking")),
    DecisionKind("LOSS", "the unit of the stack that loses a step (13.9 EX/DL1/AL1)", ("unit", "steps", "factors", "flags")),
    DecisionKind("RETREAT", "the hex a unit retreats into, always the German player's choice (13.9)",
                 ("hex", "unit", "into_ezoc", "side")),
    DecisionKind("ADVANCE", "a unit advancing into the emptied hex (13.10), or -1: no more",
                 ("unit", "hex", "from_hex", "factors")),
    DecisionKind("OVERSTACK", "the unit of an overstacked hex the opponent eliminates (6.0)",
                 ("unit", "steps", "factors", "side")),
    DecisionKind("REINFORCE", "the hex a German reinforcement enters by (10.1)", ("hex", "unit")),
    DecisionKind("REPLACE", "the hex a returning rifle corps is placed in (11.2)", ("hex", "unit")),
    DecisionKind("JOIN", "a unit joining the combat (13.0), or -1: no more",
                 ("unit", "column", "columns_added", "other_targets")),
    DecisionKind("SUPPORT", "the KG (13.4) or the 18th AD (13.1) serving this combat, or -1: none",
                 ("kg_or_unit", "column", "support_kind", "attacking")),
    DecisionKind("PROBE_WITH", "a further unit of the probing stack going with it (13.6), or -1: no more",
                 ("unit", "hex", "from_hex", "factors")),
    DecisionKind("MOVE_WITH", "a unit that began in the moved unit's hex following its path and river rolls "
                 "(12.0, 12.3), or -1: no more", ("unit", "hex_reached", "hex_left", "mp")),
)

# SUPPORT rows' kind column: a Korpsgruppe's combat bonus (13.4) or the 18th AD's factors (13.1).
SUPPORT_KG, SUPPORT_AD = 0, 1
# S.g[G_KG_SEL] / S.g[G_AD_SEL] outside a combat: any available supporter counts (the previews).
ANY_SUPPORT = -2

# Segments of a player phase.
SEG_MOVE, SEG_FIGHT, SEG_MECH = 0, 1, 2

# Event codes of the game log (state.ev rows: code, turn, side, unit, hex, a, b, c).
EV_TURN, EV_WEATHER, EV_AIR, EV_ORDER, EV_KG, EV_MOVE, EV_COMBAT, EV_STEP_LOST, EV_ELIMINATED, EV_RETREAT, \
    EV_ADVANCE, EV_PROBE, EV_EXIT, EV_REINFORCE, EV_REPLACE, EV_CONTROL, EV_RIVER_STOP, EV_SETUP, EV_OVERSTACK, \
    EV_RETURN_ROLL, EV_VP = range(21)
EV_WIDTH = 8

# Entries of the constants vector T.k.
(K_GER_STACK, K_SOV_STACK, K_SOV_ART_STACK, K_CONC_GER, K_CONC_SOV, K_CONC_MIN_HEXES, K_KG_RANGE, K_KG_ATT_SHIFT,
 K_KG_DEF_SHIFT, K_KG_MOVE_RADIUS, K_TIGER_ATT, K_TIGER_DEF, K_AD_RANGE, K_ROCKET_FACTOR, K_RIVER_SHIFT,
 K_FL_GER_SHIFT, K_FL_SOV_SHIFT, K_MAJOR_BONUS, K_ROLL_CAP, K_RIVER_FLAT, K_RIVER_FLAT_COST, K_EXIT_COST,
 K_OOS_MF_PM, K_OOS_AF_PM, K_START_VP, K_VP_OOC_END, K_EXIT_VP, K_EXIT_MAX, K_SOV_WIN, K_GER_WIN_MAX, K_TURNS,
 K_KG_AVAIL_TURN, K_KG_FIRST_TURN, K_STAND_FAST_TURN, K_STAND_FAST_COL, K_SUPPLY_OWN_EZOC, K_CC_OWN_EZOC,
 K_ODDS_MODE, K_HALF_FROM_PM, K_PROBE_IN_STORM, K_RIVER_SHORT, K_BONUS_CUMULATIVE, K_REPL_NO_HEX,
 K_STAND_FAST_RETREAT, K_ART_CAP_AFTER_OOS, K_SOV_RETREAT_RESTRICTED, K_TIGER_IN_COMBAT, K_AD_SCORES,
 K_CAS_MAX, K_T1_AIR_DIE, K_LATER_AIR_DICE, K_STORM_ZOC, K_STORM_CAS, K_STORM_KG, K_TERNOPOL, K_SOV_T1_ORDER,
 K_KG_COUNT, K_BLOCKED_EXTRA, K_RETREAT_HEXES, K_SOV_OOS_ART_ATTACK, K_GARRISON_LAST, K_CAS_PER_MARKER,
 K_CTRL_ENTER, K_N) = range(64)

# Reading codes.
ODDS_FINAL, ODDS_CLAMP, ODDS_RAW_AUTO = 0, 1, 2
ODDS_MODES = ("final_odds", "clamp", "raw_automatic")
RIVER_SHORT_MODES = ("stop", "may_turn_back")
RIVER_STOP, RIVER_TURN_BACK = 0, 1

MAX_OPTIONS = 2048
MAX_EVENTS = 12000
MAX_DECISIONS = 24000
