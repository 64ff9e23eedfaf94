"""Tests of the PanzerBlitz ruleset (simulator/rulesets/panzerblitz/): its rules by rule ID, its
engine and decisions, its players, and the golden games."""
