"""Panzer Blitz series rules v2.0 as the core sees it (simulator/api.py).

Only declarations and light modules are imported here; the kernels load when the runner imports
`engine` (batch.py), or on the first replay.
"""

from __future__ import annotations

from pathlib import Path

from simulator.ruleset import RULESETS_DIR
from simulator.rulesets.panzerblitz_v2.players import DECISION_KINDS, PLAYERS_CATALOGUE
from simulator.rulesets.panzerblitz_v2.report import REPORT
from simulator.rulesets.panzerblitz_v2.results import LEVELS, RESULTS
from simulator.rulesets.panzerblitz_v2.schema import SCHEMA, PBV2Situation

HERE = Path(__file__).resolve().parent


class PanzerBlitzV2:
    name = "panzerblitz-v2"
    title = "Panzer Blitz series rules v2.0 (MMP, Hill of Death edition)"
    data_dir = RULESETS_DIR / "panzerblitz-v2"
    required_tables = ("direct_fire", "modifiers", "range", "terrain", "stacking", "efficiency", "minefield", "fortification", "readings", "units")
    engine = "simulator.rulesets.panzerblitz_v2.batch"
    audit = None
    schema = SCHEMA
    levels = LEVELS
    results = RESULTS
    players = PLAYERS_CATALOGUE
    report = REPORT
    decision_kinds = DECISION_KINDS

    def engine_ready(self) -> bool:
        from simulator._numba_cache import kernels_cached

        return kernels_cached(HERE / "game.py", "play_game")

    def replay(self, situation: PBV2Situation, seed: int, players: dict, debug: bool = False):
        from simulator.rulesets.panzerblitz_v2.batch import play_one, prepare
        from simulator.rulesets.panzerblitz_v2.replay import PBV2Replay

        p = prepare(situation)
        return PBV2Replay(p, play_one(p, seed, players, debug=debug))

    def summary_facts(self, situation: PBV2Situation, games) -> dict:
        return {
            "sets_up_first": situation.sets_up_first,
            "victory": {s.name: s.victory for s in situation.sides},
            "efficiency": {s.name: s.efficiency for s in situation.sides},
            "chits": {s.name: {f"op{r}": k for r, k in s.chits.items()} for s in situation.sides},
        }

    def levers(self, situation: PBV2Situation, lever: str, stronger: str) -> list:
        if lever != "threshold":
            return []
        from simulator.suggest import Candidate

        out = []
        for s in situation.sides:
            if s.victory.get("measure") != "hexes_controlled":
                continue
            now = int(s.victory["victory"])
            for d in (-1, 1):
                if 0 < now + d <= len(s.objective):
                    out.append(Candidate("threshold", f"situation.side.{s.name}.victory.victory", now + d, now, 1,
                                         f"{s.name} needs {now + d} hexes instead of {now}"))
        return out

    def unit_count(self, situation: PBV2Situation) -> int:
        return sum(sum(g.units.values()) for s in situation.sides for g in s.groups if not g.off_board and not g.air_turn)

    def floor_games_per_s(self, tables, n_games: int, policies: dict) -> float | None:
        return None

    def line_of_sight(self, situation: PBV2Situation):
        return None


RULESET = PanzerBlitzV2()
