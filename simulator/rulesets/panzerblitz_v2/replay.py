"""`balance replay` for Panzer Blitz v2.0: a game in words, from its event log, and a map a turn."""

from __future__ import annotations

import numpy as np

from simulator.api import Counter, MapFrame
from simulator.rulesets.panzerblitz_v2.state import (
    EV_AA,
    EV_ADMIN,
    EV_ADVANCE,
    EV_AIR,
    EV_AIR_FIRE,
    EV_AIR_OPP,
    EV_AIR_OUT,
    EV_AR,
    EV_AR_CANCEL,
    EV_AR_COMBINE,
    EV_ASSAULT,
    EV_BRIDGE,
    EV_BUILD_IP,
    EV_CARRY,
    EV_CAT,
    EV_CAT_SPLIT,
    EV_CHIT,
    EV_CRUSH,
    EV_DISRUPT,
    EV_DUMMY,
    EV_ENTER,
    EV_EXIT,
    EV_FIRE,
    EV_FORT_GONE,
    EV_HULL_DOWN,
    EV_IF,
    EV_IP,
    EV_LOAD,
    EV_LOSS,
    EV_MARKER,
    EV_MINE,
    EV_MINE_TRADE,
    EV_MOVE,
    EV_OBSERVE,
    EV_OPP_FIRE,
    EV_OVERRUN,
    EV_OVR_JOIN,
    EV_OVR_MOVE,
    EV_REACTION,
    EV_RECOVER,
    EV_REMOVE_IP,
    EV_RETURN,
    EV_SCATTER,
    EV_SETUP,
    EV_SMOKE,
    EV_SPOTTED,
    EV_UNLOAD,
    EV_UNPLAYED,
    EV_WORK,
    EV_WRECK,
    OFF_MAP,
)

RESULTS = ("3X", "2X", "1X", "DD", "D", "-")
MARKER_NAMES = ("minefield", "block", "fortification")     # tables.MK_*


class PBV2Replay:
    def __init__(self, prepared, game) -> None:
        self.p, self.game, self.seed = prepared, game, game.seed

    @property
    def violation(self) -> str | None:
        """The first broken invariant of a game replayed with --debug (batch.violation), or None."""
        from simulator.rulesets.panzerblitz_v2.batch import violation

        return violation(self.game)

    def _unit(self, u: int) -> str:
        t = self.p.tables
        return f"{self.p.type_ids[int(t.u_type[u])]}#{u}"

    def lines(self) -> list[str]:
        p, st = self.p, self.game.state
        t, labels, sides = p.tables, p.situation.map.labels, p.sides
        out = [f"{p.situation.id}: {p.situation.title} (seed {self.seed})"]
        turn = -1

        def hx(h):
            return labels[int(h)] if h >= 0 else "off"

        for e in st.ev[:st.n_ev[0]]:
            tn, op, kind, side = (int(x) for x in e[:4])
            a, b, c, d, x = (int(v) for v in e[4:])
            s = sides[side] if side >= 0 else ""
            if tn != turn and kind not in (EV_SETUP, EV_IP, EV_MARKER):
                turn = tn
                out.append(f"== turn {tn} ==")
            if kind == EV_SETUP:
                if turn != 0:
                    turn = 0
                    out.append("== set-up ==")
                out.append(f"  {s} sets up {self._unit(a)} in {hx(b)}")
            elif kind == EV_CHIT:
                if d == 1:
                    out.append(f"  [op {op}] {s} reinforcement chit")
                elif d == 2:
                    out.append(f"  [op {op}] {s} Air Support chit: {c} aircraft ready (PB2 3.1.2.2)")
                elif a < 0:
                    out.append(f"  [op {op}] {s} Op{b} chit: passed")
                else:
                    out.append(f"  [op {op}] {s} Op{b} chit on {hx(a)}: {c} units active")
            elif kind == EV_UNPLAYED:
                what = ("Op" + str(a), "reinforcement", "Air Support")[d]
                out.append(f"  {s} {what} chit drawn last: not executed (PB2 3.1.2)")
            elif kind == EV_CARRY:
                out.append(f"  {s} reinforcement chit carried to the next turn (PB2 3.1.2.3)")
            elif kind in (EV_FIRE, EV_OPP_FIRE, EV_REACTION, EV_CAT, EV_ASSAULT, EV_OVERRUN):
                col = p.columns[b] if b >= 0 else "-"
                what = {EV_OPP_FIRE: "opportunity fire", EV_REACTION: "reaction fire", EV_CAT: "close assault",
                        EV_ASSAULT: "assault fire (2 columns left)", EV_OVERRUN: "overrun"}.get(kind, "fires")
                out.append(f"    {s} {what} ({x % 100} units) at {hx(a)}: column {col} "
                           f"(AT {int(t.dft_at_diff[b]):+d}), roll {c} {d:+d} -> {RESULTS[x // 100]}")
            elif kind == EV_AIR:
                what = ("every unit" if x else "the non-armored units") if d < 0 else self._unit(d)
                out.append(f"    {self._unit(a)} strikes {what} in {hx(b)} from over {hx(c)} "
                           f"({'bomb attack, 16.3.1' if x else 'direct fire, 16.1.3'})")
            elif kind == EV_AA:
                res = ("X: destroyed", "DD: +3, recalled after its attack", "D2: +2", "D1: +1", "no effect")[x]
                out.append(f"    {self._unit(a)} ({s}) AA fire at {self._unit(b)}: roll {c} {d:+d} -> {res} (PB2 16.4)")
            elif kind in (EV_AIR_FIRE, EV_AIR_OPP):
                col = p.columns[b] if b >= 0 else "-"
                what = "air opportunity fire (16.1.4)" if kind == EV_AIR_OPP else "air attack"
                out.append(f"    {s} {what} at {hx(a)}: column {col}, roll {c} {d:+d} -> {RESULTS[x // 100]}")
            elif kind == EV_AIR_OUT:
                why = ("destroyed by AA (16.4.5)", "recalled (16.1.1)", "removed after its bomb attack (16.3.1)")[b]
                out.append(f"    {self._unit(a)} ({s}) {why}")
            elif kind == EV_CRUSH:
                out.append(f"    {self._unit(a)} ({s}) enters {hx(b)}: the empty {self._unit(c)} there is eliminated "
                           "(PB2 4.1.8.2)")
            elif kind == EV_LOSS:
                out.append(f"      {self._unit(a)} ({s}) in {hx(b)} loses a step" + (": eliminated" if c == 0 else ""))
            elif kind == EV_DISRUPT:
                out.append(f"      {self._unit(a)} ({s}) in {hx(b)} disrupted")
            elif kind == EV_BUILD_IP:
                how = ("builds nothing (disrupted, reduced or moved, 15.4.5)" if c == 0 else
                       f"efficiency roll {c}: " + ("the IP is built" if d else "failed"))
                out.append(f"    {self._unit(a)} builds an improved position in {hx(b)} (PB2 15.4.3.1): {how}")
            elif kind == EV_HULL_DOWN:
                how = ("stopped by opportunity fire" if c == 0 else
                       f"efficiency roll {c}: " + ("hull-down" if d else "failed"))
                out.append(f"    {self._unit(a)} tries hull-down in {hx(b)} (PB2 15.6.1): {how}")
            elif kind == EV_MOVE:
                out.append(f"    {self._unit(a)} {hx(b)} -> {hx(c)} ({d / 2:g} MP)")
            elif kind == EV_AR and b == c:
                out.append(f"    {s} self-observed fire on {hx(a)}: {self._unit(b)} (11.3.8, as direct fire)")
            elif kind == EV_AR:
                out.append(f"    {s} {'smoke' if x else 'artillery'} request on {hx(a)}: {self._unit(b)}, observed by "
                           f"{self._unit(c)}"
                           + (" (fires now: a mortar 11.4.2 or a pre-registered hex 11.5.1)" if d
                              else " (resolved in the administration)"))
            elif kind == EV_OBSERVE:
                out.append(f"    {s} observation aircraft {self._unit(a)} over {hx(b)}, spotting {c} enemy units (16.2)")
            elif kind == EV_DUMMY:
                out.append(f"    {self._unit(b)} enters the minefield at {hx(a)}: a dummy, removed (15.2.3.1)")
            elif kind == EV_MINE_TRADE:
                names = ("1-1", "2-1", "3-1")
                out.append(f"    {s} trades {b} minefield(s) {names[a]} for {d} of {names[c]} (15.2.1)")
            elif kind == EV_AR_COMBINE:
                out.append(f"    {s} {self._unit(c)} combines with {self._unit(b)}'s request on {hx(a)} (11.3.4)")
            elif kind == EV_SMOKE:
                what = ("placed", "flipped", "removed")[c]
                side_up = f", SMOKE {b} side up" if b else ""
                out.append(f"      smoke in {hx(a)} {what}{side_up} (PB2 12.2.1)")
            elif kind == EV_AR_CANCEL:
                out.append(f"    {s} request on {hx(a)} by {self._unit(b)} cancelled: "
                           + ("by its owner (11.3.5)" if c == 1 else "the artillery disrupted or hit (11.3.6)"))
            elif kind == EV_SCATTER:
                out.append(f"    {s} fire on {hx(a)} scatters to {hx(b)} (roll {c})")
            elif kind == EV_IF:
                out.append(f"    {s} indirect fire at a unit in {hx(a)}: column {p.columns[b] if b >= 0 else '-'}, "
                           f"roll {c} {d:+d} -> {RESULTS[x // 100]}")
            elif kind == EV_ADVANCE:
                out.append(f"    {self._unit(a)} advances {hx(b)} -> {hx(c)} (PB2 9.1.13, 8.1.9)")
            elif kind == EV_OVR_MOVE:
                out.append(f"    {self._unit(a)} goes to overrun {hx(b)} from {hx(c)}"
                           + (f" ({d} MP short: +{d}, PB2 8.1.10)" if d else " (PB2 8.1.1)")
                           + (": a Panzer Blitz assault, its infantry to unload and close-assault (PB2 10.1)" if x & 1 else "")
                           + (", its factors split over both defender types (PB2 8.1.4)" if x & 2 else ""))
            elif kind == EV_CAT_SPLIT:
                out.append(f"    {self._unit(a)} close-assaults {hx(b)} alone, half its factors on each defender type "
                           "(PB2 9.1.7)")
            elif kind == EV_OVR_JOIN:
                on = f"on {self._unit(d)}" if d >= 0 else "on the non-armored units"
                out.append(f"    {self._unit(a)} joins the overrun of {hx(b)} from {hx(c)}, {on} (PB2 8.1.3)")
            elif kind == EV_ENTER:
                out.append(f"    {self._unit(a)} enters at {hx(b)} ({c / 2:g} MP)")
            elif kind == EV_LOAD:
                where = f"in {hx(c)}" if c >= 0 else "before entering (PB2-OQ-70)"
                out.append(f"    {self._unit(b)} boards {self._unit(a)} {where} ({'half' if d == 1 else 'all'} "
                           "its MA, PB2 4.3.5)")
            elif kind == EV_UNLOAD:
                how = "sets down" if d else "is forced out of (PB2 4.3.6)"
                out.append(f"    {self._unit(b)} {'is set down by' if d else how} {self._unit(a)} in {hx(c)}"
                           + (" (Spent, PB2 4.3.4)" if d else ", Disrupted"))
            elif kind == EV_RECOVER:
                how = ("recovers", "fails to recover", "catastrophe (natural 12): loses a step")[(1, 0, 2).index(c)]
                out.append(f"    {self._unit(a)} recovery roll {b} (needs {d} or less): {how}")
            elif kind in (EV_IP, EV_MARKER):
                if turn != 0:
                    turn = 0
                    out.append("== set-up ==")
                if kind == EV_IP:
                    out.append(f"  {s} places an improved position in {hx(a)} (PB2 15.4)")
                    continue
                what = MARKER_NAMES[b]
                if b == 0:
                    what += f" ({p.columns[int(t.mk_col[c])]})"
                elif b == 2:
                    what += f" (DF {int(t.mk_df[c])}, capacity {int(t.mk_cap[c])} SP)"
                out.append(f"  {s} places a {what} in {hx(a)} (PB2 15.2-15.5)")
            elif kind == EV_MINE:
                out.append(f"    the minefield in {hx(a)} attacks ({s} unit): column {p.columns[b]}, roll {c} "
                           f"-> {RESULTS[x // 100]} (PB2 15.2.3.1)")
            elif kind == EV_EXIT:
                trip = " (the outward leg of its round trip, PB-SIT-5)" if c == 1 else ""
                out.append(f"    {self._unit(a)} ({s}) leaves the map from {hx(b)}{trip}")
            elif kind == EV_REMOVE_IP:
                roll = f", roll {c}" if c else ""
                out.append(f"    {self._unit(a)} ({s}) removes the IP in {hx(b)}: {'done' if d else 'not removed'}{roll} "
                           "(PB2 15.4.3.2)")
            elif kind == EV_WORK:
                what = ("", "clearing the minefield", "building a block", "removing the block", "demolishing the bridge")[c]
                stage = ("", "starts", "Clear/Set", "done", "halted (disrupted)", "failed", "ready to roll")[d]
                roll = f", roll {x}" if x else ""
                out.append(f"    {self._unit(a)} ({s}) {what} in {hx(b)}: {stage}{roll} (PB2 17)")
            elif kind == EV_BRIDGE:
                ends = " - ".join(hx(int(x)) for x in self.p.tables.br_hex[a])
                out.append(f"      the bridge {ends} is destroyed: a Destroyed Bridge marker in {hx(b)}, a stream hex "
                           "from now on (PB2 17.2.1.3)")
            elif kind == EV_RETURN:
                out.append(f"    {self._unit(a)} ({s}) comes back on at {hx(b)} (PB-SIT-5), paying {c / 2:g} MP")
            elif kind == EV_FORT_GONE:
                out.append(f"      the fortification in {hx(a)} is destroyed (PB2 15.5.5)")
            elif kind == EV_WRECK:
                whose = "a fortification" if c < 0 else self._unit(c)
                out.append(f"      a wreck ({b} SP) of {whose} stays in {hx(a)} (PB2 15.1)")
            elif kind == EV_SPOTTED:
                out.append(f"      {self._unit(a)} ({s}) spotted")
            elif kind == EV_ADMIN:
                ts = st.ts[tn]
                held = " ".join(f"{sd} {int(ts[i, 4])}" for i, sd in enumerate(sides))
                out.append(f"  administration: objective hexes held: {held}")
        from simulator.rulesets.panzerblitz_v2.batch import outcome

        o = outcome(self.p, self.game)
        values = ", ".join(f"{sd} {o.values[sd]:g} ({o.levels[sd]})" for sd in sides)
        out.append(f"  result: {'a draw' if o.winner == 'draw' else o.winner + ' wins, ' + o.level}; measures: {values}")
        return out

    def frames(self) -> list[MapFrame]:
        """One map at the end of set-up and of every turn."""
        p, st = self.p, self.game.state
        t, sides = p.tables, p.sides
        pos = np.full(t.n_units, OFF_MAP, dtype=np.int64)
        steps = t.t_steps[t.u_type].copy()
        frames = []
        sit = p.situation

        carrier = np.full(t.n_units, -1, dtype=np.int64)   # a passenger is drawn in its carrier's hex, "+name"
        markers: dict[int, tuple[str, str]] = {}           # hex -> (owner, label): minefields, blocks, forts

        def frame(turn):
            cs = []
            for u in range(t.n_units):
                h = pos[carrier[u]] if carrier[u] >= 0 else pos[u]
                if h >= 0 and steps[u] > 0:
                    label = p.type_ids[int(t.u_type[u])].replace("gb-", "").replace("de-", "")[:10]
                    label = ("+" if carrier[u] >= 0 else "") + label + ("'" if steps[u] == 1 else "")
                    cs.append(Counter(int(h), sides[int(t.u_side[u])], label))
            for key, (owner, label) in markers.items():
                cs.append(Counter(key // 4, owner, label))
            name = f"{sit.id}-seed{self.seed}-turn{turn:02d}"
            title = f"{sit.id}: " + ("after set-up" if turn == 0 else f"end of turn {turn}")
            frames.append(MapFrame(name, title, tuple(cs)))

        started = False
        for e in st.ev[:st.n_ev[0]]:
            kind = int(e[2])
            if kind not in (EV_SETUP, EV_IP, EV_MARKER) and not started:
                frame(0)
                started = True
            if kind in (EV_SETUP, EV_ENTER, EV_RETURN):
                pos[int(e[4])] = int(e[5])
            elif kind in (EV_MOVE, EV_ADVANCE):
                pos[int(e[4])] = int(e[6])
            elif kind == EV_LOAD:
                carrier[int(e[5])] = int(e[4])
                pos[int(e[5])] = OFF_MAP
            elif kind == EV_UNLOAD:
                carrier[int(e[5])] = -1
                pos[int(e[5])] = int(e[6])
            elif kind == EV_LOSS:
                steps[int(e[4])] = int(e[6])
                if e[6] == 0:
                    pos[int(e[4])] = OFF_MAP
            elif kind == EV_EXIT:
                pos[int(e[4])] = OFF_MAP
                carrier[int(e[4])] = -1
            elif kind == EV_MARKER:
                markers[int(e[4]) * 4 + int(e[5])] = (sides[int(e[3])], ("MINES", "BLOCK", "FORT")[int(e[5])])
            elif kind == EV_FORT_GONE:
                markers.pop(int(e[4]) * 4 + 2, None)
            elif kind == EV_SMOKE:
                if e[5] > 0:
                    markers[int(e[4]) * 4 + 3] = ("", f"SMOKE {int(e[5])}")
                else:
                    markers.pop(int(e[4]) * 4 + 3, None)
            elif kind == EV_WORK:
                u, h, w, stage = int(e[4]), int(e[5]), int(e[6]), int(e[7])
                if w == 1 and stage == 1:
                    pos[u] = h                                       # 17.1.1.1: onto the minefield
                elif stage == 3 and w == 2:
                    markers[h * 4 + 1] = (sides[int(e[3])], "BLOCK")
                elif stage == 3 and w == 4:
                    pass                                             # the marker: EV_BRIDGE
                elif stage == 3:
                    markers.pop(h * 4 + (0 if w == 1 else 1), None)
            elif kind == EV_BRIDGE:
                markers[int(e[5]) * 4 + 1] = ("", "BRIDGE OUT")              # 17.2.1.3: a Block counter
            elif kind == EV_ADMIN:
                frame(int(e[0]))
        return frames
