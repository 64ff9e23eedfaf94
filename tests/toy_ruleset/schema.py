"""Hex race situation files: a board, who runs first, and one runner a side (start and goal hex)."""

from __future__ import annotations

from dataclasses import dataclass

from simulator.api import DocumentRules
from simulator.problems import known
from simulator.situation import CORE_KEYS, LoadContext, Situation


@dataclass(kw_only=True)
class RaceSituation(Situation):
    first: str                 # the side that runs first each turn
    start: dict[str, int]      # side -> start hex (index)
    goal: dict[str, int]       # side -> goal hex


class RaceSchema:
    keys = frozenset({*CORE_KEYS, "board", "first", "runner"})
    required = ("board", "first", "runner")
    document = DocumentRules()

    def read(self, doc: dict, ctx: LoadContext) -> RaceSituation | None:
        probs, rs = ctx.problems, ctx.ruleset
        if not known(doc.get("board"), rs.board_names()):
            probs.add("board", f"got {doc.get('board')!r}", f"one of {rs.board_names()}")
            return None
        game_map = rs.assemble([[doc["board"]]])
        if not known(doc.get("first"), rs.sides):
            probs.add("first", f"got {doc.get('first')!r}", f"one of {rs.sides}")
        start, goal = {}, {}
        runners = doc.get("runner")
        if not probs.check_type(runners, list, "runner", "[[runner]] tables, one a side"):
            return None
        closed = [f for f in rs.data["map"].get("closed_hex_features", [])]
        for i, r in enumerate(runners):
            fld = f"runner[{i}]"
            if not probs.check_type(r, dict, fld, "a table with side, start and goal"):
                continue
            probs.unknown_keys(r, {"side", "start", "goal"}, fld)
            side = r.get("side")
            if not known(side, rs.sides) or side in start:
                probs.add(f"{fld}.side", f"got {side!r}", f"one runner for each of {rs.sides}")
                continue
            for key, into in (("start", start), ("goal", goal)):
                label = str(r.get(key, "")).upper()
                if label not in game_map.index:
                    probs.add(f"{fld}.{key}", f"got {r.get(key)!r}", "a hex of the board, e.g. \"0101\"")
                elif any(game_map.has_feature(f)[game_map.lookup(label)] for f in closed):
                    probs.add(f"{fld}.{key}", f"{label} is {'/'.join(closed)}", "a hex a runner may enter")
                else:
                    into[side] = game_map.lookup(label)
            if side in start and side in goal and start[side] == goal[side]:
                probs.add(f"{fld}.goal", "the start hex", "a goal away from the start")
        if sorted(start) != sorted(rs.sides) and not probs.items:
            probs.add("runner", f"runners for {sorted(start)}", f"one for each of {rs.sides}")
        if probs.items:
            return None
        return RaceSituation(**ctx.core_fields(doc, tuple(rs.sides), game_map), first=doc["first"],
                             start=start, goal=goal)


SCHEMA = RaceSchema()
