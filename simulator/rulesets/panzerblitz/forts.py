"""Forts (PB-FORT): which fort stands in a hex, who is inside and who defends it, taking one over,
units on top of an enemy fort, and enemy units on top of one's own.
"""

from __future__ import annotations

from simulator.jit import njit
from simulator.rulesets.panzerblitz.presence import is_piece
from simulator.rulesets.panzerblitz.state import ON_MAP


@njit(cache=True)
def fort_in(st, ut, h, side):
    """The fort of `side` in hex h, or -1."""
    hexes = st.hex  # taken once: a state field read in the loop takes and drops a reference each time
    for v in range(hexes.shape[0]):
        if hexes[v] == h and st.side[v] == side and st.status[v] == ON_MAP and ut.fort[st.utype[v]]:
            return v
    return -1


@njit(cache=True)
def inside_fort(st, ut, u):
    """PB-FORT-10: unit u is inside a fort: a fort of its side in its hex, and not on top."""
    return is_piece(st, ut, u) and not st.on_top[u] and fort_in(st, ut, st.hex[u], st.side[u]) >= 0


@njit(cache=True)
def enemy_in_hex(st, ut, h, side):
    """A fighting unit of the side opposed to `side` in hex h (on top of `side`'s fort)."""
    hexes = st.hex  # taken once (see fort_in)
    for v in range(hexes.shape[0]):
        if hexes[v] == h and st.side[v] != side and is_piece(st, ut, v):
            return True
    return False


@njit(cache=True)
def defends(st, ut, d, h, side, f):
    """PB-STK-2..4 / PB-STK-7 / PB-FORT-11: d is one of the defenders of hex h that a selective
    or multiple attack may pick: a unit of `side` there outside any fort (on top of one
    included), or `side`'s fort there (`f`, fort_in's answer), which stands for itself and the
    units inside it (never attacked separately)."""
    if st.hex[d] != h or st.status[d] != ON_MAP or st.side[d] != side:  # the hex first: most fail there
        return False
    if f >= 0:
        return d == f or (st.on_top[d] and is_piece(st, ut, d))
    return is_piece(st, ut, d)


@njit(cache=True)
def capture_fort(st, ut, h, side):
    """PB-FORT-8: a unit moving into an empty enemy fort takes it over."""
    f = fort_in(st, ut, h, 1 - side)
    if f >= 0:
        hexes = st.hex  # taken once (see fort_in)
        for v in range(hexes.shape[0]):
            if hexes[v] == h and st.side[v] != side and is_piece(st, ut, v):
                return
        st.side[f] = side
        st.dispersed[f] = False


@njit(cache=True)
def settle_on_top(st, ut, u):
    """PB-FORT-12: a unit that ends its move in a hex with an enemy fort (holding enemy units:
    it could not have entered otherwise) is on top of it."""
    if fort_in(st, ut, st.hex[u], 1 - st.side[u]) >= 0:
        st.on_top[u] = True


@njit(cache=True)
def enemy_on_own_fort(st, ut, h, side):
    """PB-FORT-13: hex h holds a fort of `side` with enemy units on top of it."""
    if fort_in(st, ut, h, side) < 0:
        return False
    for v in range(st.utype.shape[0]):
        if st.side[v] != side and st.on_top[v] and is_piece(st, ut, v) and st.hex[v] == h:
            return True
    return False
