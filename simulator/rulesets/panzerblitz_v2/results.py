"""The tables a batch of Panzer Blitz v2.0 games gives (batch.py), column by column."""

from __future__ import annotations

from simulator.api import Column, ResultsSchema, TableSchema, VictoryLevels

# PB2 3.2: one side states a condition; if it is not met in the allotted turns the other side
# has won.  There is one level of victory.
# A converted classic card keeps its card's marginal / tactical / decisive levels and may end in a
# draw (victory.py); "victory" (PB2 3.2's one level) ranks with decisive.
LEVELS = VictoryLevels(names=("marginal", "tactical", "decisive", "victory"))

GAMES = TableSchema("games", "one row a game", (
    Column("batch_game", "int", "the game's index in its batch (the runner makes it `game`)"),
    Column("seed", "int", "the game's seed"),
    Column("winner", "str", "the side that won, or draw (a classic card's equal levels)"),
    Column("level", "str", "the winner's victory level"),
    Column("turns_played", "int", "game-turns played"),
    Column("decided_turn", "int", "the turn from whose end on the side ahead stayed the final winner"),
    Column("level_{side}", "str", "the victory level the side reached"),
    Column("value_{side}", "float", "the side's victory measure at the end: objective hexes it controls (PB2 3.2), or a classic card's measure"),
    Column("steps_lost_{side}", "int", "steps the side lost (a reduced counter 1, an eliminated one 2)"),
    Column("units_lost_{side}", "int", "counters the side lost"),
    Column("chits_played_{side}", "int", "Ops chits the side placed on the map"),
    Column("chits_unplayed_{side}", "int", "the side's chits that were the last of a turn (not executed, PB2 3.1.2)"),
    Column("fire_{side}", "int", "direct-fire attacks the side made (opportunity fire included)"),
    Column("decisions", "int", "decisions the players took"),
    Column("lost:{side}:*", "int", "the side's counters of that type lost", optional=True),
))

TURNS = TableSchema("turns", "one row a game x game-turn x side", (
    Column("batch_game", "int", "the game's index in its batch"),
    Column("seed", "int", "the game's seed"),
    Column("turn", "int", "the game-turn (0 = after set-up)"),
    Column("side", "str", "the side"),
    Column("units_on_map", "int", "counters on the map"),
    Column("steps_on_map", "int", "steps of the counters on the map"),
    Column("units_disrupted", "int", "counters Disrupted at the end of the turn"),
    Column("steps_lost", "int", "steps lost so far"),
    Column("objectives_held", "int", "objective hexes the side controls"),
    Column("measure", "float", "the side's victory measure: objective hexes it controls, or a classic card's measure"),
))

LOSSES = TableSchema("losses", "one row a step lost", (
    Column("batch_game", "int", "the game's index in its batch"),
    Column("seed", "int", "the game's seed"),
    Column("side", "str", "the side that lost it"),
    Column("unit_type", "str", "the counter's type"),
    Column("hex", "str", "where"),
    Column("turn", "int", "the game-turn"),
    Column("eliminated", "bool", "the step was the counter's last"),
))

RESULTS = ResultsSchema(
    games=GAMES, turns=TURNS, events=LOSSES, decided_turn="decided_turn", measure="measure",
    attrition=(("steps_on_map", "steps on the map"), ("units_disrupted", "counters disrupted")),
    objectives="objectives_held", losses_by_type="lost:{side}:*", event_hex="hex", event_side="side",
)
