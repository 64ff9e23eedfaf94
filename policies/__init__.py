"""AI players (policies): they choose among the legal actions the rules engine offers.

This package holds what every ruleset's players share (catalogue.py); a ruleset's own players
live in its package (PanzerBlitz's: simulator/rulesets/panzerblitz/players/)."""

import simulator  # noqa: F401  (sets up numba's cache before any kernel is compiled)
