"""First Panzer Army as the core sees it (simulator.api.Ruleset).

Importing this module is cheap: the kernels load when the runner imports `engine`.
"""

from __future__ import annotations

from pathlib import Path

from simulator.api import Column, ResultsSchema, TableSchema, VictoryLevels
from simulator.rulesets.first_panzer_army.consts import DECISION_KINDS
from simulator.rulesets.first_panzer_army.players import PLAYERS
from simulator.rulesets.first_panzer_army.report import REPORT
from simulator.rulesets.first_panzer_army.schema import SCHEMA

ROOT = Path(__file__).resolve().parents[3]

RESULTS = ResultsSchema(
    games=TableSchema("games", "one row a game", (
        Column("batch_game", "int", "the game's index in its batch"),
        Column("seed", "int", "the game's seed"),
        Column("winner", "str", "soviet (32+ VP), german (27- VP) or draw (FPA 4.3)"),
        Column("level", "str", "victory, or none for a draw"),
        Column("turns_played", "int", "game-turns played (always 8)"),
        Column("level_{side}", "str", "the level the side reached"),
        Column("vp", "int", "Soviet victory points at the end of turn 8 (FPA 4.1-4.2)"),
        Column("exits", "int", "Soviet corps exited at 0729-1729 (4.1)"),
        Column("division_vp", "int", "VP for German divisions eliminated out of C&C (4.2)"),
        Column("decisions", "int", "decisions the players made"),
        Column("steps_{side}", "int", "the side's steps on the map at the end"),
        Column("units_lost_{side}", "int", "the side's units eliminated"),
    )),
    turns=TableSchema("turns", "one row a game x game-turn x side", (
        Column("batch_game", "int", "the game's index in its batch"),
        Column("seed", "int", "the game's seed"),
        Column("turn", "int", "the game-turn (0 = after set-up)"),
        Column("side", "str", "the side"),
        Column("measure", "float", "Soviet victory points if the game ended now (the same on both sides' rows)"),
        Column("steps", "int", "the side's steps on the map"),
    )),
    events=TableSchema("losses", "one row a unit eliminated", (
        Column("batch_game", "int", "the game's index in its batch"),
        Column("seed", "int", "the game's seed"),
        Column("side", "str", "the side that lost it"),
        Column("unit_type", "str", "its unit type (FPA 2.4)"),
        Column("hex", "str", "where"),
        Column("turn", "int", "the game-turn"),
    )),
    measure="measure", attrition=(("steps", "steps on the map"),), event_hex="hex", event_side="side",
)


class FirstPanzerArmy:
    name = "first-panzer-army"
    title = "First Panzer Army (Decision Games 2019)"
    data_dir = ROOT / "situations" / "rulesets" / "first-panzer-army"
    required_tables = ("units", "crt", "terrain", "movement", "weather", "air", "victory", "readings", "sequence")
    engine = "simulator.rulesets.first_panzer_army.engine"
    audit = None
    decision_kinds = DECISION_KINDS
    schema = SCHEMA
    levels = VictoryLevels(("victory",))
    results = RESULTS
    players = PLAYERS
    report = REPORT

    def engine_ready(self) -> bool:
        from simulator._numba_cache import kernels_cached

        return kernels_cached(Path(__file__).with_name("engine.py"), "_run")

    def replay(self, situation, seed, players, debug=False):
        from simulator.rulesets.first_panzer_army.replay import FPAReplay

        return FPAReplay(situation, seed, players, debug)

    def summary_facts(self, situation, games) -> dict:
        out = {"first": "soviet", "historical_vp": situation.ruleset.data["victory"]["historical_vp"],
               "thresholds": dict(situation.ruleset.data["victory"]["thresholds"])}
        if len(games) and "vp" in games:
            out["mean_vp"] = float(games["vp"].mean())
        return out

    def levers(self, situation, lever, stronger) -> list:
        if lever != "threshold":
            return []
        from simulator.suggest import Candidate

        now = situation.ruleset.data["victory"]["thresholds"]["soviet_win"]
        return [Candidate("threshold", "victory.thresholds.soviet_win", now + d, now, 1, f"Soviet win at {now + d} VP")
                for d in (-2, -1, 1, 2)]

    def unit_count(self, situation) -> int:
        return sum(len(v) for v in situation.setup.values()) + sum(len(v) for v in situation.reinforcements.values())

    def floor_games_per_s(self, tables, n_games, policies):
        return None

    def line_of_sight(self, situation):
        return None


RULESET = FirstPanzerArmy()
