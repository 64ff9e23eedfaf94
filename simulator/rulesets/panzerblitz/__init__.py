"""The classic PanzerBlitz rules (ruleset `panzerblitz`): kernels over the game-state arrays."""
