"""One First Panzer Army game to read: its log in words, turn by turn, and a map of the counters
at the end of every turn (`balance replay --maps`)."""

from __future__ import annotations

from simulator.api import Counter, MapFrame
from simulator.rulesets.first_panzer_army import consts as c
from simulator.rulesets.first_panzer_army.engine import outcome, play_one, prepare, violation
from simulator.rulesets.first_panzer_army.state import G_N_EV


class FPAReplay:
    def __init__(self, situation, seed: int, players: dict, debug: bool = False) -> None:
        self.prep = prepare(situation)
        self.seed = seed
        self.players = players
        self.S = play_one(self.prep, seed, players, debug=debug)

    @property
    def violation(self) -> str | None:
        return violation(self.S)

    def _unit(self, u: int) -> str:
        uid = self.prep.unit_ids[u]
        return f"{self.prep.situation.ruleset.data['units'][uid].get('label', uid)} ({uid})"

    def _hex(self, h: int) -> str:
        return self.prep.labels[h] if h >= 0 else "-"

    def lines(self) -> list[str]:
        S, prep = self.S, self.prep
        sides = c.SIDES
        out = [f"{prep.situation.id}, seed {self.seed}: " + ", ".join(f"{s} {p.label()}" for s, p in self.players.items())]
        for row in S.ev[: int(S.g[G_N_EV])]:
            code, tp, side, u, h, a, b, x = (int(v) for v in row)
            who = sides[side] if 0 <= side < 2 else ""
            if code == c.EV_TURN:
                out.append(f"== turn {a} (VP so far {int(S.vp_turn[a - 1])}) ==")
            elif code == c.EV_WEATHER:
                out.append(f"  weather: {c.WEATHER[a]}" + (f" (die {b})" if b else ""))
            elif code == c.EV_AIR:
                out.append(f"  air: {who} has superiority, {a} CAS markers" + (f" ({b} v {x})" if b else ""))
            elif code == c.EV_ORDER:
                out.append(f"  {who} chooses {'move/fight' if a == c.MOVE_FIGHT else 'fight/move'}")
            elif code == c.EV_KG:
                out.append(f"  KG {u + 1} deployed in {self._hex(h)}" if h >= 0 else f"  KG {u + 1} kept off the map")
            elif code == c.EV_SETUP:
                out.append(f"  set-up: {self._unit(u)} in {self._hex(h)} (printed {self._hex(a)})")
            elif code == c.EV_MOVE:
                out.append(f"  {who} {self._unit(u)} moves {self._hex(a)} -> {self._hex(h)} ({b} MP)")
            elif code == c.EV_RIVER_STOP:
                if b:
                    out.append(f"  {who} {self._unit(u)} stops at the river in {self._hex(h)} (die {b})")
                else:
                    out.append(f"  {who} {self._unit(u)} runs out of MP in {self._hex(h)} (a river crossing cost more than planned)")
            elif code == c.EV_COMBAT:
                roll, att, dfn = x // 1000000, (x // 1000) % 1000, x % 1000
                res = c.RESULTS[b] if b >= 0 else "no defender left"
                out.append(f"  {who} attacks {self._hex(h)} with {u} units: {att} v {dfn}, column "
                           f"{c.COLUMN_NAMES[a]}, die {roll}: {res}")
            elif code == c.EV_STEP_LOST:
                out.append(f"    {self._unit(u)} loses a step ({a} left)")
            elif code == c.EV_ELIMINATED:
                out.append(f"    {self._unit(u)} eliminated in {self._hex(h)}" + (f" out of C&C: +{a} VP" if a else ""))
            elif code == c.EV_RETURN_ROLL:
                out.append(f"    {self._unit(u)} returns reduced on turn {a}")
            elif code == c.EV_RETREAT:
                out.append(f"    {self._unit(u)} retreats {self._hex(a)} -> {self._hex(h)}")
            elif code == c.EV_ADVANCE:
                out.append(f"    {self._unit(u)} advances into {self._hex(h)}")
            elif code == c.EV_PROBE:
                out.append(f"  german {self._unit(u)} probes {self._hex(a)} -> {self._hex(h)}")
            elif code == c.EV_EXIT:
                out.append(f"  soviet {self._unit(u)} exits the map from {self._hex(h)} "
                           + (f"(exit {a})" if b else "(not a corps: no VP)"))
            elif code == c.EV_REINFORCE:
                out.append(f"  german reinforcement {self._unit(u)} " + (f"enters at {self._hex(h)}" if a else "is forfeit"))
            elif code == c.EV_REPLACE:
                out.append(f"  soviet replacement {self._unit(u)} returns at {self._hex(h)}")
            elif code == c.EV_OVERSTACK:
                out.append(f"  {who} {self._unit(u)} eliminated: overstacked in {self._hex(h)}")
        turns = int(prep.t.k[c.K_TURNS])
        vp = int(S.vp_turn[turns])
        winner, level = outcome(vp, prep.t)
        out.append(f"result: {vp} Soviet VP: " + ("draw" if winner == "draw" else f"{winner} {level}"))
        return out

    def frames(self) -> list[MapFrame]:
        S, prep = self.S, self.prep
        frames = []
        for turn in range(int(prep.t.k[c.K_TURNS]) + 1):
            counters = []
            for u in range(len(prep.unit_ids)):
                h = int(S.pos_turn[turn, u])
                if h >= 0:
                    label = prep.situation.ruleset.data["units"][prep.unit_ids[u]].get("label", prep.unit_ids[u])
                    counters.append(Counter(h, c.SIDES[int(prep.t.u_side[u])], f"{label}:{int(S.step_hist[turn, u])}"))
            what = "after set-up" if turn == 0 else f"end of turn {turn}"
            frames.append(MapFrame(f"{prep.situation.id}-seed{self.seed}-turn{turn:02d}",
                                   f"{prep.situation.id}: {what}, {int(S.vp_turn[turn])} Soviet VP", tuple(counters)))
        return frames
