"""The maps of a replayed PanzerBlitz game: one per player-turn, with the units as counters.

Positions are rebuilt from the game's event log (set-up, entries, moves, exits, losses,
loading), so the pictures show exactly what the log says happened; the core draws them
(reports/replay_maps.py).
"""

from __future__ import annotations

from simulator.api import Counter, MapFrame
from simulator.rulesets.panzerblitz.combat import NOW_DISPERSED, NOW_ELIMINATED
from simulator.rulesets.panzerblitz.events import (
    EV_ELIMINATED_PASSENGER,
    EV_ENTER,
    EV_EXIT,
    EV_HIT,
    EV_LOAD,
    EV_MOVE,
    EV_SETUP,
    EV_TURN,
    EV_UNLOAD,
)


def positions_by_player_turn(rec, tables) -> list[tuple[int, str, dict[int, int], set[int]]]:
    """[(turn, phasing side, unit -> hex at the end of that player-turn, dispersed units)]."""
    sides = tables.situation.ruleset.sides
    where: dict[int, int] = {}
    aboard: dict[int, int] = {}  # passenger -> carrier
    dispersed: set[int] = set()
    out = []
    current = None
    for row in rec.events.tolist():
        turn, side, kind, a, b, c = row[:6]
        if kind == EV_TURN:
            if current is not None:
                out.append((current[0], current[1], dict(where), set(dispersed)))
            current = (turn, sides[a])
            # the previous phasing player's units recovered at the end of his turn
            dispersed = {u for u in dispersed if int(rec.state.side[u]) == a}
        elif kind in (EV_SETUP, EV_ENTER):
            where[a] = b
        elif kind == EV_MOVE:
            where[a] = c
        elif kind == EV_EXIT or kind == EV_ELIMINATED_PASSENGER:
            where.pop(a, None)
        elif kind == EV_HIT:
            if b == NOW_ELIMINATED:
                where.pop(a, None)
                dispersed.discard(a)
            elif b == NOW_DISPERSED:
                dispersed.add(a)
        elif kind == EV_LOAD:
            aboard[b] = a
            where.pop(b, None)
        elif kind == EV_UNLOAD:
            aboard.pop(b, None)
            where[b] = c
    if current is not None:
        out.append((current[0], current[1], dict(where), set(dispersed)))
    return out


def replay_frames(rec, tables) -> list[MapFrame]:
    """A map per player-turn: each unit on the map as a counter (a `*` marks it dispersed)."""
    sit = tables.situation
    sides = sit.ruleset.sides
    names = tables.units.names
    st = rec.state
    frames = []
    for turn, side, where, dispersed in positions_by_player_turn(rec, tables):
        counters = []
        for u, h in sorted(where.items()):
            if tables.unit_t.positional[st.utype[u]]:
                text = names[st.utype[u]].split("-")[0][:5]
            else:
                text = names[st.utype[u]][:9] + ("*" if u in dispersed else "")
            counters.append(Counter(int(h), sides[st.side[u]], text))
        frames.append(MapFrame(f"{sit.id}-seed{rec.seed}-turn{turn:02d}-{side}",
                               f"{sit.id} seed {rec.seed}: end of turn {turn}, {side} player-turn (* = dispersed)",
                               tuple(counters)))
    return frames
