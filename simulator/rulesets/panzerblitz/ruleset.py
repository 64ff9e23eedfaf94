"""PanzerBlitz as the core sees it: the ruleset interface (simulator/api.py) of the classic rules.

Only declarations and light modules are imported here (the situation schema, the results
schema, the report hooks); the engine's kernels load when the runner imports `engine`
(batch.py), and the players, the replay and the floor on first use.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from simulator.ruleset import RULESETS_DIR
from simulator.rulesets.panzerblitz.decision_kinds import DECISION_KINDS
from simulator.rulesets.panzerblitz.report_hooks import REPORT
from simulator.rulesets.panzerblitz.results_schema import LEVELS, RESULTS
from simulator.rulesets.panzerblitz.situation_schema import SCHEMA, PanzerBlitzSituation

HERE = Path(__file__).resolve().parent


# (file, function) of the kernels a heuristic game compiles: run_game and the indirect kernels
# bound for every such game (game.ENGINE, dispatch's heuristic entry points), by the file each is in.
ENGINE_KERNELS = (("game.py", "run_game"), ("game.py", "setup_side"), ("movement_phase.py", "movement_phase"),
                  ("movement_phase.py", "move_unit"), ("game.py", "attack_hex"), ("dispatch.py", "_heuristic"),
                  ("dispatch.py", "_hears"), ("dispatch.py", "_plan_fire"), ("dispatch.py", "_plan_assaults"),
                  ("dispatch.py", "_choose"), ("dispatch.py", "read_enemy"))


class PanzerBlitzPlayers:
    """Its random and heuristic players: the catalogue of players/spec.py (on the core's
    policies/catalogue.py), imported when first asked (it reads the heuristic's parameters)."""

    default = "heuristic"
    replay_default = "random"
    doc = "docs/policies.md"

    @staticmethod
    def _catalogue():
        from simulator.rulesets.panzerblitz.players.spec import PLAYERS

        return PLAYERS

    def names(self) -> tuple[str, ...]:
        return self._catalogue().names()

    def defaults(self, name: str) -> dict[str, float]:
        return self._catalogue().defaults(name)

    def parse(self, items, sides, default=None):
        return self._catalogue().parse(items, list(sides), default or self.default)

    def space(self, name):
        return self._catalogue().space(name)

    def styles(self, name):
        return self._catalogue().styles(name)

    def make(self, name, params, source=""):
        return self._catalogue().make(name, params, source)


class PanzerBlitzReplay:
    """One game played from Python (`balance replay`): its log in words and a map a player-turn."""

    def __init__(self, record, tables) -> None:
        self.record, self.tables = record, tables
        self.seed = record.seed

    @property
    def violation(self) -> str | None:
        return self.record.violation

    def lines(self) -> list[str]:
        from simulator.rulesets.panzerblitz.replay import describe

        return describe(self.record, self.tables)

    def frames(self):
        from simulator.rulesets.panzerblitz.replay_frames import replay_frames

        return replay_frames(self.record, self.tables)


def lost_at_setup(games: pd.DataFrame, sides) -> dict:
    """Per side: in how many games some counter found no legal set-up hex, and which (mean a
    game).  Empty when every counter was placed in every game."""
    out = {}
    for s in sides:
        col = f"lost_at_setup_{s}"
        if col not in games or not games[col].any():
            continue
        types = {c.split(":", 2)[2]: round(float(games[c].mean()), 6) for c in games.columns
                 if c.startswith(f"lost_at_setup:{s}:") and games[c].any()}
        out[s] = {"games": int((games[col] > 0).sum()), "mean": round(float(games[col].mean()), 6), "units": types}
    return out


class PanzerBlitz:
    name = "panzerblitz"
    title = "PanzerBlitz (Avalon Hill, 1970), classic rules"
    data_dir = RULESETS_DIR / "panzerblitz"
    required_tables = ("stacking", "los", "units")
    engine = "simulator.rulesets.panzerblitz.batch"
    audit = "simulator.rulesets.panzerblitz.audit"
    schema = SCHEMA
    levels = LEVELS
    results = RESULTS
    players = PanzerBlitzPlayers()
    decision_kinds = DECISION_KINDS
    report = REPORT

    def engine_ready(self) -> bool:
        from simulator._numba_cache import kernels_cached

        # run_game and the kernels it calls through their address (simulator/jit.py `Indirect`),
        # each cached on its own: a run after a random-only one finds run_game but must still
        # compile the heuristic (once, before the pool starts, not in every worker).
        return all(kernels_cached(HERE / file, function) for file, function in ENGINE_KERNELS)

    def replay(self, situation: PanzerBlitzSituation, seed: int, players: dict, debug: bool = False):
        from simulator.rulesets.panzerblitz.replay import play
        from simulator.rulesets.panzerblitz.tables import build_tables

        tables = build_tables(situation)
        sides = situation.side_names
        return PanzerBlitzReplay(play(tables, seed, tuple(players[s] for s in sides), debug=debug), tables)

    def summary_facts(self, situation: PanzerBlitzSituation, games: pd.DataFrame) -> dict:
        return {
            "sets_up_first": situation.sets_up_first,
            "moves_first": situation.moves_first,
            "victory": {sd.name: sd.victory for sd in situation.sides},
            "lost_at_setup": lost_at_setup(games, situation.side_names),
        }

    def levers(self, situation: PanzerBlitzSituation, lever: str, stronger: str) -> list:
        from simulator.rulesets.panzerblitz.levers import levers

        return levers(situation, lever, stronger)

    def unit_count(self, situation: PanzerBlitzSituation) -> int:
        return sum(sum(g.units.values()) for s in situation.sides for g in s.groups)

    def floor_games_per_s(self, tables, n_games: int, policies: dict) -> float | None:
        from simulator.rulesets.panzerblitz.floor import floor_games_per_s

        return floor_games_per_s(tables, n_games, policies)

    def line_of_sight(self, situation: PanzerBlitzSituation):
        from simulator.los import LineOfSight, compile_rules

        rs = situation.ruleset
        # PB-OPT-RSLOS-1: `--set readings.real_space_los=true` builds the real-space table.
        real_space = rs.data.get("readings", {}).get("real_space_los", False) is True
        return LineOfSight(situation.map, compile_rules(rs.data["los"], situation.map, str(rs.path / "ruleset.toml"),
                                                        real_space))


RULESET = PanzerBlitz()
