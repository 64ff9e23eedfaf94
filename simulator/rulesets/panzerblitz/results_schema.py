"""The tables a batch of PanzerBlitz games gives (batch.py), column by column.

The runner checks every batch against this declaration (simulator/results.py) and the reports
and README read it for what each column means.  `level_alt` is the winner's level under the
other reading of readings.both_sides_reach_level (PB-VIC-3).
"""

from __future__ import annotations

from simulator.api import Alternative, Column, ResultsSchema, TableSchema, VictoryLevels

LEVELS = VictoryLevels(
    names=("marginal", "tactical", "decisive"),
    alternative=Alternative("readings.both_sides_reach_level", ("higher", "difference"), "higher"),
)

GAMES = TableSchema("games", "one row a game", (
    Column("batch_game", "int", "the game's index in its batch (the runner makes it `game`)"),
    Column("seed", "int", "the game's seed"),
    Column("winner", "str", "the side that won, or draw"),
    Column("level", "str", "the winner's victory level (none for a draw)"),
    Column("level_alt", "str", "the winner's level under the other reading of readings.both_sides_reach_level"),
    Column("turns_played", "int", "game-turns played"),
    Column("decided_turn", "int", "the game-turn from whose end on the result stayed what it finally was"),
    Column("level_{side}", "str", "the victory level the side reached"),
    Column("value_{side}", "float", "the side's victory measure at the end"),
    Column("lost_{side}", "int", "the side's units lost (those that count for victory)"),
    Column("exited_{side}", "int", "the side's units that left the map"),
    Column("objectives_{side}", "int", "objective hexes the side held at the end"),
    Column("lost_at_setup_{side}", "int", "the side's counters that found no legal set-up hex"),
    Column("lost:{side}:*", "int", "the side's units of that type lost", optional=True),
    Column("lost_at_setup:{side}:*", "int", "the side's counters of that type lost at set-up", optional=True),
))

# One row a game x turn x side, at the end of each game-turn (turn 0: after set-up).
TURNS = TableSchema("turns", "one row a game x game-turn x side", (
    Column("batch_game", "int", "the game's index in its batch"),
    Column("seed", "int", "the game's seed"),
    Column("turn", "int", "the game-turn (0 = after set-up)"),
    Column("side", "str", "the side"),
    Column("units_on_map", "int", "units on the map"),
    Column("units_dispersed", "int", "units dispersed"),
    Column("units_lost", "int", "units lost so far"),
    Column("attack_strength", "int", "printed attack factors of the units still in the game"),
    Column("defense_strength", "int", "printed defense factors of the units still in the game"),
    Column("objectives_held", "int", "objective hexes the side holds"),
    Column("units_exited", "int", "units that have left the map"),
    Column("units_lost_at_setup", "int", "counters lost at set-up"),
    Column("leader", "str", "the provisional result: the side ahead if the game ended now, or draw"),
    Column("leader_level", "str", "the level of that provisional result"),
    Column("measure", "float", "the side's victory measure if the game ended now"),
    Column("measure_level", "str", "the level that measure reaches"),
))

LOSSES = TableSchema("losses", "one row a unit lost", (
    Column("batch_game", "int", "the game's index in its batch"),
    Column("seed", "int", "the game's seed"),
    Column("side", "str", "the side that lost it"),
    Column("unit_type", "str", "its unit type"),
    Column("hex", "str", "where it was lost (empty: off the map, a passenger of a carrier not yet entered)"),
    Column("turn", "int", "the game-turn it was lost in"),
))

RESULTS = ResultsSchema(
    games=GAMES, turns=TURNS, events=LOSSES,
    decided_turn="decided_turn", measure="measure",
    attrition=(("units_on_map", "units on the map"), ("attack_strength", "attack strength (printed factors)")),
    objectives="objectives_held", losses_by_type="lost:{side}:*", event_hex="hex", event_side="side",
)
