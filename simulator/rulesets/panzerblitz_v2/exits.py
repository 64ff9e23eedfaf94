"""Leaving the map and coming back: a converted classic card's exits (pb-08, pb-09) and pb-05's
round trip (PB-SIT-5), as the v2.0 engine plays them (docs/panzerblitz-v2/conversion.md#exits).

The v2.0 text has no exit rule; the classic cards' are read into it so:
- a side whose units the card's `exited` / `not_exited` / `round_trip` measure counts may step off
  that edge of the play area (a MOVE_DEST row with column 9 = 1; game.move_unit);
- PB-SIT-5's round trip: a unit out by the outward edge stays off `stay_off_turns` whole game-turns
  (left in turn T, off through T + stay, back from T + stay + 1, as the classic engine), then comes
  back on at the hex it left from (an adjacent one when that is blocked, as a reinforcement's
  3.1.2.3) when an Ops chit of its side is placed within its radius of that hex (3.1.2.1: the unit
  waits just off the map there, so the chit's radius reaches it; ENTRY_HEX with a stay-off row); it
  pays the hex's entry cost (3.1.2.3) and moves on; back on the map it may leave only by the final
  edge, and that completes its trip (`trip_done`).  A passenger goes and comes back on its own.
"""

from __future__ import annotations

from simulator.jit import njit
from simulator.rulesets.panzerblitz_v2.state import EXITED


@njit(cache=True)
def may_return(t, st, u):
    """PB-SIT-5: u, off the map after the outward leg, has stayed off the whole turns the card asks."""
    side = t.u_side[u]
    return (st.hex[u] == EXITED and st.trip_hex[u] >= 0 and not st.returned[u] and t.trip_stay[side] >= 0
            and st.turn[0] - st.exit_turn[u] > t.trip_stay[side])


@njit(cache=True)
def ops_hex(t, st, u):
    """The hex an Ops chit's radius is measured to for u (3.1.2.1): its own; for a unit waiting to
    come back on, the hex it left from; -1 for any other counter off the map."""
    h = st.hex[u]
    if h >= 0:
        return h
    if h == EXITED and may_return(t, st, u):
        return st.trip_hex[u]
    return -1


@njit(cache=True)
def exit_allowed(t, st, u, h):
    """May u step off the map from edge hex h?  By the card's edge; in a round trip, a unit back on
    the map only by the final edge, and none that went out and came back twice."""
    side = t.u_side[u]
    if st.returned[u]:
        return t.trip_final[side, h]
    return t.exit_ok[side, h]


@njit(cache=True)
def note_exit(t, st, u, h):
    """The round trip's bookkeeping as u leaves from h: the final leg done, or the outward leg
    (the hex to come back at); returns 1 for an outward leg of a round trip (the event's c)."""
    side = t.u_side[u]
    st.exit_turn[u] = st.turn[0]
    if st.returned[u]:
        st.trip_done[u] = st.turn[0]
        return 0
    if t.trip_stay[side] >= 0 and t.exit_ok[side, h]:
        st.trip_hex[u] = h
        return 1
    return 0
