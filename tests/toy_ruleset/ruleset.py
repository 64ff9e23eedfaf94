"""Hex race as the core sees it (simulator.api.Ruleset)."""

from __future__ import annotations

from pathlib import Path

from simulator.api import Column, ResultsSchema, TableSchema, VictoryLevels
from tests.toy_ruleset.players import DECISION_KINDS, PLAYERS
from tests.toy_ruleset.report import REPORT
from tests.toy_ruleset.schema import SCHEMA

HERE = Path(__file__).resolve().parent

RESULTS = ResultsSchema(
    games=TableSchema("games", "one row a race", (
        Column("batch_game", "int", "the race's index in its batch"),
        Column("seed", "int", "the race's seed"),
        Column("winner", "str", "the side home first, or draw"),
        Column("level", "str", "narrow or clear (none for a draw)"),
        Column("turns_played", "int", "turns run"),
        Column("level_{side}", "str", "the level the side reached"),
        Column("distance_{side}", "int", "hexes the side still had to run at the end"),
        Column("stumbles_{side}", "int", "rolls of 1"),
    )),
    turns=TableSchema("turns", "one row a race x turn x side", (
        Column("batch_game", "int", "the race's index in its batch"),
        Column("seed", "int", "the race's seed"),
        Column("turn", "int", "the turn (0 = the start)"),
        Column("side", "str", "the side"),
        Column("distance_left", "int", "hexes still to run"),
        Column("progress", "int", "hexes run toward the goal"),
        Column("measure", "float", "the victory measure: hexes run toward the goal"),
    )),
    events=TableSchema("stumbles", "one row a stumble", (
        Column("batch_game", "int", "the race's index in its batch"),
        Column("seed", "int", "the race's seed"),
        Column("side", "str", "who stumbled"),
        Column("hex", "str", "where"),
        Column("turn", "int", "when"),
    )),
    measure="measure", attrition=(("distance_left", "hexes still to run"),), event_hex="hex", event_side="side",
)


class RaceReplay:
    def __init__(self, tables, game) -> None:
        self.tables, self.game, self.seed = tables, game, game.seed

    violation = None

    def lines(self) -> list[str]:
        labels, sides = self.tables.situation.map.labels, self.tables.sides
        out, turn = [], 0
        for t, si, roll, frm, to in self.game.moves:
            if t != turn:
                turn = t
                out.append(f"== turn {t} ==")
            out.append(f"  {sides[si]} rolls {roll}: {labels[frm]} -> {labels[to]}")
        g = self.game
        out.append("  result: " + (f"{sides[g.winner]} {g.level} win" if g.winner is not None else "draw"))
        return out

    def frames(self):
        from simulator.api import Counter, MapFrame

        sit, sides = self.tables.situation, self.tables.sides
        pos = [sit.start[s] for s in sides]
        frames = []
        for turn in range(1, self.game.turns_played + 1):
            for t, si, _, _, to in self.game.moves:
                if t == turn:
                    pos[si] = to
            frames.append(MapFrame(f"{sit.id}-seed{self.seed}-turn{turn:02d}", f"{sit.id}: end of turn {turn}",
                                   tuple(Counter(pos[i], s, s) for i, s in enumerate(sides))))
        return frames


class HexRace:
    name = "hex-race"
    title = "Hex race (the test suite's toy ruleset)"
    data_dir = HERE / "data"
    required_tables = ("race",)
    engine = "tests.toy_ruleset.engine"
    audit = None  # no blunder audit
    schema = SCHEMA
    levels = VictoryLevels(("narrow", "clear"))
    results = RESULTS
    players = PLAYERS
    decision_kinds = DECISION_KINDS
    report = REPORT

    def engine_ready(self) -> bool:
        return True  # plain Python: nothing to compile

    def replay(self, situation, seed, players, debug=False):
        from tests.toy_ruleset.engine import play_one, prepare

        t = prepare(situation)
        return RaceReplay(t, play_one(t, seed, [players[s] for s in t.sides]))

    def summary_facts(self, situation, games) -> dict:
        m = situation.map
        from simulator.hexgrid import hex_distance

        return {"first": situation.first,
                "goals": {s: m.labels[situation.goal[s]] for s in situation.side_names},
                "lengths": {s: int(hex_distance(m.q, m.r, situation.start[s], situation.goal[s]))
                            for s in situation.side_names},
                "clear_margin": situation.ruleset.data["race"]["clear_margin"]}

    def levers(self, situation, lever, stronger) -> list:
        if lever != "threshold":
            return []
        from simulator.suggest import Candidate

        now = situation.ruleset.data["race"]["clear_margin"]
        return [Candidate("threshold", "race.clear_margin", now + d, now, 1, f"clear margin {now} -> {now + d}")
                for d in (-1, 1) if now + d >= 1]

    def unit_count(self, situation) -> int:
        return len(situation.side_names)

    def floor_games_per_s(self, tables, n_games, policies):
        return None

    def line_of_sight(self, situation):
        return None


RULESET = HexRace()
