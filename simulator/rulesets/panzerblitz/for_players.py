"""What PanzerBlitz's rules expose to its players (players/heuristic.py): read-only helpers.

A player scores the options the engine offers (dispatch.py); to weigh
them it may read the game through these functions, which read the state and the tables and
write nothing but the scratch arrays they are handed (`fire_options`' outputs, `plan_multiple`'s
`assign`), and the kinds of event it may look for in the log.  Players import the rules from
here only (tests/panzerblitz/test_pb_decisions.py), so that rules and players never import each other.
"""

from simulator.rulesets.panzerblitz.close_assault import may_assault
from simulator.rulesets.panzerblitz.events import (
    EV_ASSAULT,
    EV_ASSAULTER,
    EV_ATTACK,
    EV_FIRER,
    EV_HIT,
    EV_OVERRUN,
    EV_OVERRUNNER,
)
from simulator.rulesets.panzerblitz.fire import (
    INDIRECT,
    NO_FIRE,
    attack_af,
    defender_stack,
    defender_stack_listed,
    dispersed_modifier,
    fire_mode,
    fire_options,
    firer_af_mode,
    may_fire,
    may_fire_intensively,
    odds_of,
    stack_kind_of,
    units_by_hex,
)
from simulator.rulesets.panzerblitz.losses import unit_defense
from simulator.rulesets.panzerblitz.presence import is_piece
from simulator.rulesets.panzerblitz.techniques import exposed_passenger, fire_reaches, plan_multiple

__all__ = [
    "EV_ASSAULT", "EV_ASSAULTER", "EV_ATTACK", "EV_FIRER", "EV_HIT", "EV_OVERRUN", "EV_OVERRUNNER", "INDIRECT", "NO_FIRE",
    "attack_af", "defender_stack", "defender_stack_listed", "dispersed_modifier", "exposed_passenger", "fire_mode", "fire_options",
    "fire_reaches", "firer_af_mode", "is_piece", "may_assault", "may_fire", "may_fire_intensively", "odds_of",
    "plan_multiple", "stack_kind_of", "unit_defense", "units_by_hex",
]
