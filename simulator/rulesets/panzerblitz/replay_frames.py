"""The maps of a replayed PanzerBlitz game: one per player-turn, with the units as counters.

Positions are rebuilt from the game's event log (set-up, entries, moves, exits, losses,
loading), so the pictures show exactly what the log says happened; the core draws them
(reports/replay_maps.py).
"""

from __future__ import annotations

from typing import NamedTuple

from simulator.api import Counter, MapFrame
from simulator.rulesets.panzerblitz.combat import NOW_DISPERSED, NOW_ELIMINATED
from simulator.rulesets.panzerblitz.events import (
    EV_ELIMINATED_PASSENGER,
    EV_ENTER,
    EV_EXIT,
    EV_FIRER,
    EV_HIT,
    EV_LOAD,
    EV_MOVE,
    EV_SETUP,
    EV_TURN,
    EV_UNLOAD,
)


class PlayerTurn(NamedTuple):
    """One player-turn of a game, as its event log tells it."""
    turn: int
    side: int                  # the phasing side's index
    start: dict[int, int]      # unit -> hex at the start of the player-turn (passengers aboard: absent)
    start_dispersed: set[int]  # dispersed at its start (the phasing side's own may not move or fire in it, PB-MOVE-2, PB-CBT-4)
    entered: dict[int, int]    # unit -> entry hex, for the units that entered the map in it
    fired: set[int]            # the units that fired in it (a normal or indirect attack)
    end: dict[int, int]        # unit -> hex at its end
    end_dispersed: set[int]    # dispersed at its end


def player_turns(rec) -> list[PlayerTurn]:
    """Every player-turn of the game `rec` (replay.GameRecord), rebuilt from its event log (set-up,
    entries, moves, fire, exits, losses, loading)."""
    side_of = rec.state.side
    where: dict[int, int] = {}
    dispersed: set[int] = set()
    out = []
    opened = None  # (turn, side, start, start_dispersed) of the player-turn under way
    entered: dict[int, int] = {}
    fired: set[int] = set()
    for row in rec.events.tolist():
        turn, side, kind, a, b, c = row[:6]
        if kind == EV_TURN:
            if opened is not None:
                out.append(PlayerTurn(*opened, entered, fired, dict(where), set(dispersed)))
            # the previous phasing player's units recovered at the end of his turn
            dispersed = {u for u in dispersed if int(side_of[u]) == a}
            opened, entered, fired = (turn, a, dict(where), set(dispersed)), {}, set()
        elif kind in (EV_SETUP, EV_ENTER):
            where[a] = b
            if kind == EV_ENTER:
                entered[a] = b
        elif kind == EV_FIRER:
            fired.add(a)
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
            where.pop(b, None)
        elif kind == EV_UNLOAD:
            where[b] = c
    if opened is not None:
        out.append(PlayerTurn(*opened, entered, fired, dict(where), set(dispersed)))
    return out


def replay_frames(rec, tables) -> list[MapFrame]:
    """A map per player-turn: each unit on the map as a counter (a `*` marks it dispersed)."""
    sit = tables.situation
    sides = sit.ruleset.sides
    names = tables.units.names
    st = rec.state
    frames = []
    for pt in player_turns(rec):
        turn, side, where, dispersed = pt.turn, sides[pt.side], pt.end, pt.end_dispersed
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
