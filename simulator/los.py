"""Line of sight: a table of clear/blocked for every pair of hexes, built once per map.

The engine is generic: it traces the chain of hexes between two centres (both candidate
chains where the segment runs along a hexside or through a vertex, PB-LOS-4) and judges each
crossed hexside by a rule table the ruleset supplies as data (`[los]` in ruleset.toml):
for each (firer level, target level) cell, how each obstacle bar obstructs.  PanzerBlitz's
Target Elevation Table (PB-LOS-6, notes A-I of PB-LOS-7) and gully rules (PB-GULLY-1/2) are
expressed in that vocabulary; other rulesets bring their own tables.

The table is cached on disk, keyed by a hash of the map arrays and the rule table, so a
lookup during a game is one array access.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simulator.errors import DataError
from simulator.hexgrid import SQRT3, hex_at, hex_distance, line_chain
from simulator.jit import njit
from simulator.mapdata import GameMap, index_tables

# Bump when the tracing or the judging changes, so stale cached tables are not reused.
LOS_ALGORITHM_VERSION = 1

# How a bar crossed at hexside k (1 = the firer's side, range = the target's side) obstructs.
MODES = {
    "never": 0,
    "always": 1,
    "firer_side": 2,      # only if it is a side of the firer's hex (k = 1)
    "target_side": 3,     # only if it is a side of the target's hex (k = range)
    "nearer_target": 4,   # only if nearer the target, or midway (2k >= range + 1)
    "nearer_firer": 5,    # only if nearer the firer, or midway (2k <= range + 1)
}
MIRROR = {0: 0, 1: 1, 2: 3, 3: 2, 4: 5, 5: 4}


@dataclass(frozen=True)
class LosRules:
    """The compiled rule table: small arrays the kernel reads."""

    levels: tuple[str, ...]
    bars: tuple[str, ...]
    bar_bits: np.ndarray       # uint32[n_bars]: side-feature bit of each bar
    mode: np.ndarray           # int8[level, level, bar]
    max_cross: np.ndarray      # int16[level, level, bar]; -1 = no limit
    high_mask: int             # bars that block whenever they stand on a hex of high_level
    high_level: int
    depressed: np.ndarray      # bool[n_hexes]
    blind_level: int           # depressed hexes and hexes at or below this level cannot see each other
    depressed_level: int       # the level a depressed hex counts as otherwise
    adjacent_clear: bool
    # PB-OPT-RSLOS-1: trace the real centre-to-centre line instead of the hex chains (PB-LOS-4);
    # a bar run along counts unless it is an `along_exempt_bit` bar joined to a `joined_bit` bar.
    real_space: bool = False
    along_exempt_bit: int = 0
    joined_bit: int = 0
    # OQ-17 alternative: besides the nearest chains, every shortest chain whose hexes all lie
    # within one hex of the segment is a candidate (blocked if any is).
    band_chains: bool = False

    def key(self) -> bytes:
        parts = [repr((self.levels, self.bars, self.high_mask, self.high_level, self.blind_level,
                       self.depressed_level, self.adjacent_clear)).encode()]
        if self.real_space:  # PB-OPT-RSLOS-1: another table (absent from the key when off)
            parts.append(repr(("real_space", self.along_exempt_bit, self.joined_bit)).encode())
        if self.band_chains:  # OQ-17 alternative: likewise
            parts.append(b"band_chains")
        for a in (self.bar_bits, self.mode, self.max_cross, self.depressed):
            parts.append(np.ascontiguousarray(a).tobytes())
        return b"|".join(parts)


def compile_rules(spec: dict, game_map: GameMap, where: str, real_space: bool = False,
                  band_chains: bool = False) -> LosRules:
    """Turn the ruleset's `[los]` table into arrays, checking every name in it.  `real_space`
    chooses the optional real-space line (PB-OPT-RSLOS-1, readings.real_space_los);
    `band_chains` the OQ-17 alternative chains (readings.los_chains)."""
    def need(d: dict, key: str, fld: str, expected: str):
        if key not in d:
            raise DataError(where, f"{fld}.{key}", "missing", expected)
        return d[key]

    levels = tuple(need(spec, "levels", "los", "a list of elevation level names"))
    bars = tuple(need(spec, "bars", "los", "a list of hexside features that obstruct"))
    for b in bars:
        if b not in game_map.side_vocab:
            raise DataError(where, "los.bars", f"unknown hexside feature {b!r}", f"one of {list(game_map.side_vocab)}")
    lvl = {name: i for i, name in enumerate(levels)}
    nl, nb = len(levels), len(bars)
    mode = np.zeros((nl, nl, nb), dtype=np.int8)
    max_cross = np.full((nl, nl, nb), -1, dtype=np.int16)
    cells = need(spec, "cells", "los", "a table of 'firer->target' cells")

    def parse_cell(name: str, fld: str) -> tuple[int, int]:
        parts = name.split("->")
        if len(parts) != 2 or parts[0] not in lvl or parts[1] not in lvl:
            raise DataError(where, fld, f"bad cell name {name!r}", f"'firer->target' with levels from {list(levels)}")
        return lvl[parts[0]], lvl[parts[1]]

    seen = set()
    for name, cell in cells.items():
        fi, ti = parse_cell(name, f"los.cells.{name}")
        seen.add((fi, ti))
        for bar, m in cell.items():
            if bar not in bars:
                raise DataError(where, f"los.cells.{name}.{bar}", "not a bar", f"one of {list(bars)}")
            if m not in MODES:
                raise DataError(where, f"los.cells.{name}.{bar}", f"unknown mode {m!r}", f"one of {list(MODES)}")
            mode[fi, ti, bars.index(bar)] = MODES[m]
    if len(seen) != nl * nl:
        raise DataError(where, "los.cells", f"{nl * nl - len(seen)} firer->target cells missing", f"all {nl * nl} combinations of {list(levels)}")
    # The table is computed for one direction of each pair and mirrored, so the rule table
    # itself must be symmetric (firer_side mirrors target_side, nearer_firer nearer_target).
    for fi in range(nl):
        for ti in range(nl):
            for bi in range(nb):
                if MIRROR[int(mode[fi, ti, bi])] != int(mode[ti, fi, bi]):
                    raise DataError(where, f"los.cells.{levels[fi]}->{levels[ti]}.{bars[bi]}",
                                    "not the mirror image of the reverse cell",
                                    "a symmetric table (line of sight is reciprocal)")
    limit = spec.get("crossing_limit")
    if limit:
        bar = need(limit, "bar", "los.crossing_limit", "a bar name")
        if bar not in bars:
            raise DataError(where, "los.crossing_limit.bar", f"unknown bar {bar!r}", f"one of {list(bars)}")
        exempt = {parse_cell(c, "los.crossing_limit.except_cells") for c in limit.get("except_cells", [])}
        for fi in range(nl):
            for ti in range(nl):
                if (fi, ti) not in exempt:
                    max_cross[fi, ti, bars.index(bar)] = int(need(limit, "max", "los.crossing_limit", "an integer"))
    high = spec.get("high_ground", {})
    high_mask = 0
    for b in high.get("bars", []):
        if b not in bars:
            raise DataError(where, "los.high_ground.bars", f"unknown bar {b!r}", f"one of {list(bars)}")
        high_mask |= game_map.side_bit(b)
    high_level = lvl.get(high.get("level", levels[-1]), nl)
    depressed = np.zeros(game_map.n_hexes, dtype=np.bool_)
    blind_level, depressed_level = -1, 0
    dep = spec.get("depression")
    if dep:
        feat = need(dep, "feature", "los.depression", "a hex feature")
        for f in [feat, *dep.get("unless", [])]:
            if f not in game_map.hex_vocab:
                raise DataError(where, "los.depression", f"unknown hex feature {f!r}", f"one of {list(game_map.hex_vocab)}")
        depressed = game_map.has_feature(feat).copy()
        for f in dep.get("unless", []):
            depressed &= ~game_map.has_feature(f)
        blind = [lvl[x] for x in dep.get("blind_to", [])]
        blind_level = max(blind) if blind else -1
        depressed_level = lvl[dep.get("counts_as", levels[0])]
    bar_bits = np.array([game_map.side_bit(b) for b in bars], dtype=np.uint32)
    along_exempt_bit, joined_bit = 0, 0
    exempt = spec.get("real_space", {}).get("along_exempt")
    if exempt:
        for k in ("bar", "joined_to"):
            if exempt.get(k) not in bars:
                raise DataError(where, f"los.real_space.along_exempt.{k}", f"got {exempt.get(k)!r}", f"one of {list(bars)}")
        along_exempt_bit = game_map.side_bit(exempt["bar"])
        joined_bit = game_map.side_bit(exempt["joined_to"])
    return LosRules(levels, bars, bar_bits, mode, max_cross, high_mask, high_level, depressed,
                    blind_level, depressed_level, bool(spec.get("adjacent_always_clear", True)),
                    bool(real_space), along_exempt_bit, joined_bit, bool(band_chains))


@njit(cache=True)
def _chain_blocked(chain, n, dist, la, lb, level, side_features, neighbours, bar_bits, mode,
                   max_cross, high_mask, high_level):
    counts = np.zeros(bar_bits.shape[0], dtype=np.int32)
    for k in range(1, n):
        h0 = chain[k - 1]
        h1 = chain[k]
        if h0 < 0 or h1 < 0:
            return True  # the chain leaves the printed map
        d = -1
        for j in range(6):
            if neighbours[h0, j] == h1:
                d = j
                break
        if d < 0:
            return True  # not a chain of adjacent hexes: never on a regular grid
        sf = side_features[h0, d]
        if sf == 0:
            continue
        if _crossing_blocks(sf, h0, h1, k, dist, la, lb, level, bar_bits, mode, high_mask, high_level):
            return True
        if _count_bars(sf, counts, la, lb, bar_bits, max_cross):
            return True
    return False


@njit(cache=True)
def _count_bars(sf, counts, la, lb, bar_bits, max_cross):
    """Count the bars on a crossed hexside into `counts`; True once a bar has been crossed more
    often than the rule table allows (PB-LOS-7 note E: too many hilltop bars)."""
    for bi in range(bar_bits.shape[0]):
        if sf & bar_bits[bi] != 0:
            counts[bi] += 1
            lim = max_cross[la, lb, bi]
            if lim >= 0 and counts[bi] > lim:
                return True
    return False


@njit(cache=True)
def _crossing_blocks(sf, h0, h1, k, dist, la, lb, level, bar_bits, mode, high_mask, high_level):
    """Whether the bars on the hexside h0|h1, crossed k-th of `dist`, block by themselves."""
    return _bars_block(sf, h0, h1, k == 1, k == dist, 2 * k >= dist + 1, 2 * k <= dist + 1, la, lb, level,
                       bar_bits, mode, high_mask, high_level)


@njit(cache=True)
def _bars_block(sf, h0, h1, first, last, near_target, near_firer, la, lb, level, bar_bits, mode, high_mask,
                high_level):
    """The rule table's verdict on the bars of one crossed hexside, by where the crossing lies:
    a side of the firer's hex, of the target's, nearer the target, nearer the firer (midway is
    both).  Counting bars against note E is left to the caller."""
    for bi in range(bar_bits.shape[0]):
        if sf & bar_bits[bi] == 0:
            continue
        # PB-LOS-7 note G: woods/town bars on hilltop hexes block at any elevation.
        if (high_mask & bar_bits[bi]) != 0 and (level[h0] >= high_level or level[h1] >= high_level):
            return True
        m = mode[la, lb, bi]
        if m == 1:
            return True
        if m == 2 and first:
            return True
        if m == 3 and last:
            return True
        if m == 4 and near_target:
            return True
        if m == 5 and near_firer:
            return True
    return False


BAND_WIDTH = 8  # candidate hexes kept per step of a band (a band one hex wide holds at most 3)


@njit(cache=True)
def _band_blocked(a, b, dist, la, lb, q, r, level, side_features, neighbours, bar_bits, mode, max_cross,
                  high_mask, high_level):
    """OQ-17 alternative: is any shortest chain from a to b whose hexes all lie within one hex
    (one centre spacing) of the centre-to-centre segment blocked?  The chains are the paths of
    a layered graph (step k holds the candidate hexes k steps from a and dist - k from b), so
    instead of listing them: a crossing that blocks by itself on some a-to-b path, or a path
    crossing a bar more often than note E allows (the longest-path count per bar)."""
    ax = 1.5 * q[a]
    ay = SQRT3 * (r[a] + 0.5 * q[a])
    dx = 1.5 * q[b] - ax
    dy = SQRT3 * (r[b] + 0.5 * q[b]) - ay
    length = np.sqrt(dx * dx + dy * dy)
    n_bars = bar_bits.shape[0]
    layer = np.full((dist + 1, BAND_WIDTH), -1, dtype=np.int64)
    size = np.zeros(dist + 1, dtype=np.int64)
    layer[0, 0] = a
    size[0] = 1
    for k in range(1, dist + 1):
        for i in range(size[k - 1]):
            h = layer[k - 1, i]
            for d in range(6):
                x = neighbours[h, d]
                if x < 0 or hex_distance(q, r, x, b) != dist - k:
                    continue
                px = 1.5 * q[x] - ax
                py = SQRT3 * (r[x] + 0.5 * q[x]) - ay
                if abs(px * dy - py * dx) / length > SQRT3 + 1e-9:
                    continue  # more than one hex from the segment
                seen = False
                for j in range(size[k]):
                    if layer[k, j] == x:
                        seen = True
                if not seen and size[k] < BAND_WIDTH:
                    layer[k, size[k]] = x
                    size[k] += 1
    # Which candidates lead on to b.
    good = np.zeros((dist + 1, BAND_WIDTH), dtype=np.bool_)
    for j in range(size[dist]):
        good[dist, j] = layer[dist, j] == b
    for k in range(dist - 1, -1, -1):
        for i in range(size[k]):
            for j in range(size[k + 1]):
                if good[k + 1, j] and _direction(neighbours, layer[k, i], layer[k + 1, j]) >= 0:
                    good[k, i] = True
    # Forward over the good candidates: the most crossings of each bar on a path so far.
    most = np.full((dist + 1, BAND_WIDTH, n_bars), -1, dtype=np.int64)
    most[0, 0, :] = 0
    for k in range(1, dist + 1):
        for j in range(size[k]):
            if not good[k, j]:
                continue
            h1 = layer[k, j]
            for i in range(size[k - 1]):
                h0 = layer[k - 1, i]
                if not good[k - 1, i] or most[k - 1, i, 0] < 0:
                    continue
                d = _direction(neighbours, h0, h1)
                if d < 0:
                    continue
                sf = side_features[h0, d]
                if sf != 0 and _crossing_blocks(sf, h0, h1, k, dist, la, lb, level, bar_bits, mode, high_mask,
                                                high_level):
                    return True
                for bi in range(n_bars):
                    c = most[k - 1, i, bi] + (1 if sf & bar_bits[bi] != 0 else 0)
                    if c > most[k, j, bi]:
                        most[k, j, bi] = c
    for j in range(size[dist]):
        if layer[dist, j] == b:
            for bi in range(n_bars):
                lim = max_cross[la, lb, bi]
                if lim >= 0 and most[dist, j, bi] > lim:
                    return True  # PB-LOS-7 note E on some chain of the band
    return False


@njit(cache=True)
def end_levels(a, b, level, depressed, blind_level, depressed_level):
    """(never see each other, level of a, level of b) for the line between hexes a and b.
    PB-GULLY-1: a depressed hex and a ground-level or depressed hex never see each other;
    PB-GULLY-2: otherwise a depressed unit counts as being at ground level."""
    la = level[a]
    lb = level[b]
    if depressed[a] and (depressed[b] or lb <= blind_level):
        return True, la, lb
    if depressed[b] and (depressed[a] or la <= blind_level):
        return True, la, lb
    if depressed[a]:
        la = depressed_level
    if depressed[b]:
        lb = depressed_level
    return False, la, lb


@njit(cache=True)
def los_pair(a, b, q, r, index_of_axial, q0, r0, level, side_features, neighbours, bar_bits,
             mode, max_cross, high_mask, high_level, depressed, blind_level, depressed_level,
             adjacent_clear, chain):
    """True when the line of sight between hexes a and b is clear (either way round) by the
    nearest chains; the OQ-17 band alternative adds `band_blocks` where its rule is on."""
    if a == b:
        return True
    dist = hex_distance(q, r, a, b)
    if dist == 1 and adjacent_clear:
        return True  # PB-LOS-5: adjacent units always see each other
    blind, la, lb = end_levels(a, b, level, depressed, blind_level, depressed_level)
    if blind:
        return False
    for side in (1.0, -1.0):
        n = line_chain(q, r, index_of_axial, q0, r0, a, b, side, chain)
        if _chain_blocked(chain, n, dist, la, lb, level, side_features, neighbours, bar_bits,
                          mode, max_cross, high_mask, high_level):
            return False  # PB-LOS-4: blocked if any candidate chain is blocked
    return True


@njit(cache=True)
def band_blocks(a, b, q, r, level, side_features, neighbours, bar_bits, mode, max_cross, high_mask,
                high_level, depressed, blind_level, depressed_level, adjacent_clear):
    """OQ-17 alternative, for a pair the nearest chains leave clear (`los_pair` True): does a
    chain of the band within one hex of the segment block it?  Kept out of `los_pair` so that
    the band search is compiled only when the rule is switched on (a cold start compiled it,
    8-14 s, for a rule that is off by default)."""
    if a == b:
        return False
    dist = hex_distance(q, r, a, b)
    if dist == 1 and adjacent_clear:
        return False  # PB-LOS-5, as in los_pair
    blind, la, lb = end_levels(a, b, level, depressed, blind_level, depressed_level)
    return blind or _band_blocked(a, b, dist, la, lb, q, r, level, side_features, neighbours, bar_bits, mode,
                                  max_cross, high_mask, high_level)


# A serial loop, not numba's parallel one: the table is built once per map and cached on disk
# (0.3 CPU-s for a three-board map), while compiling the parallel loop (parfor lowering, its
# thread pool) cost ~1.4 CPU-s more on every cold start, on the path to the first result
# (docs/performance.md, round 5).
@njit(cache=True)
def _build_table(q, r, index_of_axial, q0, r0, level, side_features, neighbours, bar_bits, mode,
                 max_cross, high_mask, high_level, depressed, blind_level, depressed_level,
                 adjacent_clear, max_len):
    n = q.shape[0]
    table = np.zeros((n, n), dtype=np.uint8)
    chain = np.empty(max_len, dtype=np.int64)
    for a in range(n):
        table[a, a] = 1
        for b in range(a + 1, n):
            if los_pair(a, b, q, r, index_of_axial, q0, r0, level, side_features, neighbours,
                        bar_bits, mode, max_cross, high_mask, high_level, depressed,
                        blind_level, depressed_level, adjacent_clear, chain):
                table[a, b] = 1
    # Mirror: the rule table is symmetric (checked in compile_rules), so LOS is reciprocal.
    for a in range(n):
        for b in range(a + 1, n):
            table[b, a] = table[a, b]
    return table


@njit(cache=True)
def _band_pass(table, q, r, level, side_features, neighbours, bar_bits, mode, max_cross, high_mask, high_level,
               depressed, blind_level, depressed_level, adjacent_clear):
    """OQ-17 alternative over a nearest-chain table: the pairs it leaves clear that the band blocks."""
    n = q.shape[0]
    for a in range(n):
        for b in range(a + 1, n):
            if table[a, b] and band_blocks(a, b, q, r, level, side_features, neighbours, bar_bits, mode, max_cross,
                                           high_mask, high_level, depressed, blind_level, depressed_level,
                                           adjacent_clear):
                table[a, b] = 0
    for a in range(n):
        for b in range(a + 1, n):
            table[b, a] = table[a, b]


# ---------------------------------------------------------------- real-space LOS (PB-OPT-RSLOS-1)

@njit(cache=True)
def _direction(neighbours, h0, h1):
    for j in range(6):
        if neighbours[h0, j] == h1:
            return j
    return -1


@njit(cache=True)
def _side_blocks(sf, h0, h1, t, first, last, la, lb, level, bar_bits, mode, max_cross, high_mask,
                 high_level, counts):
    """The bars on one hexside the real-space line crosses at fraction t of its length, judged
    by the same rule table as the chains: k = 1 becomes "a side of the firer's hex", k = range
    "a side of the target's hex", nearer the target/firer compares t with one half."""
    if sf == 0:
        return False
    if _bars_block(sf, h0, h1, first, last, t >= 0.5 - 1e-9, t <= 0.5 + 1e-9, la, lb, level, bar_bits, mode,
                   high_mask, high_level):
        return True
    return _count_bars(sf, counts, la, lb, bar_bits, max_cross)  # PB-LOS-7 note E


@njit(cache=True)
def _along_sides(a, b, q, r, index_of_axial, q0, r0, neighbours, out_hex, out_dir, out_t):
    """The hexsides the centre-to-centre line runs along (a hex on either side of it over a
    stretch of the line, not at a single crossing point): (hex, direction, t) each."""
    ax = 1.5 * q[a]
    ay = SQRT3 * (r[a] + 0.5 * q[a])
    dx = 1.5 * q[b] - ax
    dy = SQRT3 * (r[b] + 0.5 * q[b]) - ay
    length = np.sqrt(dx * dx + dy * dy)
    nx = -dy / length * 1e-7
    ny = dx / length * 1e-7
    # Flat-topped hexes: hexsides run at 0, 60 and 120 degrees; a line along one must too.
    parallel = False
    for k in range(3):
        ang = k * np.pi / 3.0
        if abs(dx * np.sin(ang) - dy * np.cos(ang)) < 1e-9 * length:
            parallel = True
    if not parallel:
        return 0
    steps = 32 * hex_distance(q, r, a, b)
    n = 0
    last0, last1, run = -1, -1, 0
    for i in range(1, steps):
        t = i / steps
        px = ax + dx * t
        py = ay + dy * t
        h0 = hex_at(px + nx, py + ny, index_of_axial, q0, r0)
        h1 = hex_at(px - nx, py - ny, index_of_axial, q0, r0)
        if h0 < 0 or h1 < 0 or h0 == h1 or _direction(neighbours, h0, h1) < 0:
            run = 0
            last0, last1 = -1, -1
            continue
        if h0 == last0 and h1 == last1:
            run += 1
            if run == 1:  # the second sample on this hexside: the line runs along it
                out_hex[n] = h0
                out_dir[n] = _direction(neighbours, h0, h1)
                out_t[n] = t
                n += 1
        else:
            run = 0
            last0, last1 = h0, h1
    return n


@njit(cache=True)
def rs_trace_blocked(a, b, side, dist, la, lb, q, r, index_of_axial, q0, r0, level, side_features,
                     neighbours, bar_bits, mode, max_cross, high_mask, high_level,
                     along_hex, along_dir, along_t, n_along, along_exempt_bit, joined_bit):
    """PB-OPT-RSLOS-1: is the straight line from a's centre to b's centre, moved sideways by
    `side` * 1e-6 hex, blocked?  Every hexside it crosses counts, however briefly it clips a
    hex (each exit point is found by bisection: a hex is convex, so the line is in it over one
    interval), and so do the hexsides it runs along."""
    ax = 1.5 * q[a]
    ay = SQRT3 * (r[a] + 0.5 * q[a])
    dx = 1.5 * q[b] - ax
    dy = SQRT3 * (r[b] + 0.5 * q[b]) - ay
    length = np.sqrt(dx * dx + dy * dy)
    nx = -dy / length * 1e-6 * side
    ny = dx / length * 1e-6 * side
    counts = np.zeros(bar_bits.shape[0], dtype=np.int32)
    span = 2.1 / length  # longer than any chord of a hex (circumradius 1), as a fraction of the line
    cur = a
    lo = 0.0
    guard = 0
    while cur != b and guard < 8 * dist + 8:
        guard += 1
        lft = lo
        rgt = min(1.0, lo + span)
        for _ in range(40):
            mid = 0.5 * (lft + rgt)
            if hex_at(ax + dx * mid + nx, ay + dy * mid + ny, index_of_axial, q0, r0) == cur:
                lft = mid
            else:
                rgt = mid
        nxt = hex_at(ax + dx * rgt + nx, ay + dy * rgt + ny, index_of_axial, q0, r0)
        if nxt < 0:
            return True  # the line leaves the printed map
        if nxt == cur:
            nxt = b  # at the far end
        d = _direction(neighbours, cur, nxt)
        if d < 0:
            return True
        if _side_blocks(side_features[cur, d], cur, nxt, rgt, cur == a or nxt == a, cur == b or nxt == b,
                        la, lb, level, bar_bits, mode, max_cross, high_mask, high_level, counts):
            return True
        cur = nxt
        lo = rgt
    if cur != b:
        return True
    for k in range(n_along):
        h0 = along_hex[k]
        d = along_dir[k]
        sf = side_features[h0, d]
        if sf & along_exempt_bit:
            # a brown bar joined to an orange bar does not count when run along
            h1 = neighbours[h0, d]
            joined = (side_features[h0, (d + 1) % 6] | side_features[h0, (d + 5) % 6]) & joined_bit
            if h1 >= 0:
                joined |= (side_features[h1, (d + 2) % 6] | side_features[h1, (d + 4) % 6]) & joined_bit
            if joined:
                sf = sf & ~along_exempt_bit
        h1 = neighbours[h0, d]
        if _side_blocks(sf, h0, h1, along_t[k], h0 == a or h1 == a, h0 == b or h1 == b, la, lb, level,
                        bar_bits, mode, max_cross, high_mask, high_level, counts):
            return True
    return False


@njit(cache=True)
def rs_los_pair(a, b, q, r, index_of_axial, q0, r0, level, side_features, neighbours, bar_bits,
                mode, max_cross, high_mask, high_level, depressed, blind_level, depressed_level,
                adjacent_clear, along_exempt_bit, joined_bit, max_len):
    """PB-OPT-RSLOS-1: los_pair with the real centre-to-centre line.  Elevations, gullies and
    the rule table are as in `los_pair`; where the line runs exactly through a hex corner, both
    sides are traced and either blocking blocks (the defender's benefit of the doubt)."""
    if a == b:
        return True
    dist = hex_distance(q, r, a, b)
    if dist == 1 and adjacent_clear:
        return True
    blind, la, lb = end_levels(a, b, level, depressed, blind_level, depressed_level)
    if blind:
        return False
    along_hex = np.empty(max_len, dtype=np.int64)
    along_dir = np.empty(max_len, dtype=np.int64)
    along_t = np.empty(max_len, dtype=np.float64)
    n_along = _along_sides(a, b, q, r, index_of_axial, q0, r0, neighbours, along_hex, along_dir, along_t)
    for side in (1.0, -1.0):
        if rs_trace_blocked(a, b, side, dist, la, lb, q, r, index_of_axial, q0, r0, level, side_features,
                            neighbours, bar_bits, mode, max_cross, high_mask, high_level,
                            along_hex, along_dir, along_t, n_along, along_exempt_bit, joined_bit):
            return False
    return True


@njit(cache=True)
def _build_table_rs(q, r, index_of_axial, q0, r0, level, side_features, neighbours, bar_bits, mode,
                    max_cross, high_mask, high_level, depressed, blind_level, depressed_level,
                    adjacent_clear, along_exempt_bit, joined_bit, max_len):
    # Serial: numba's parfor lowering mistypes the hex indices of this loop nest (about 15 s
    # for a three-board map, once; the table is cached).
    n = q.shape[0]
    table = np.zeros((n, n), dtype=np.uint8)
    for a in range(n):
        table[a, a] = 1
        for b in range(a + 1, n):
            if rs_los_pair(a, b, q, r, index_of_axial, q0, r0, level, side_features, neighbours,
                           bar_bits, mode, max_cross, high_mask, high_level, depressed, blind_level,
                           depressed_level, adjacent_clear, along_exempt_bit, joined_bit, max_len):
                table[a, b] = 1
    for a in range(n):
        for b in range(a + 1, n):
            table[b, a] = table[a, b]
    return table


class LineOfSight:
    """Callable view of the rules on one map: `clear(a, b)` for single pairs, `table()`."""

    def __init__(self, game_map: GameMap, rules: LosRules) -> None:
        self.map = game_map
        self.rules = rules
        self.index_of_axial, self.q0, self.r0 = index_tables(game_map)
        self.level = game_map.elevation.astype(np.int64)
        self._max_len = int(game_map.width + game_map.height + 4)

    def _args(self):
        m, ru = self.map, self.rules
        return (m.q, m.r, self.index_of_axial, self.q0, self.r0, self.level, m.side_features,
                m.neighbours, ru.bar_bits, ru.mode, ru.max_cross, ru.high_mask, ru.high_level,
                ru.depressed, ru.blind_level, ru.depressed_level, ru.adjacent_clear)

    def clear(self, a: int, b: int) -> bool:
        """Trace one pair directly (tests, debugging); the game uses the table."""
        if self.rules.real_space:
            return bool(rs_los_pair(a, b, *self._args(), *self._rs_args()))
        chain = np.empty(self._max_len, dtype=np.int64)
        clear = bool(los_pair(a, b, *self._args(), chain))
        if clear and self.rules.band_chains:
            clear = not band_blocks(a, b, *self._band_args())
        return clear

    def _band_args(self):
        m, ru = self.map, self.rules
        return (m.q, m.r, self.level, m.side_features, m.neighbours, ru.bar_bits, ru.mode, ru.max_cross,
                ru.high_mask, ru.high_level, ru.depressed, ru.blind_level, ru.depressed_level, ru.adjacent_clear)

    def _rs_args(self):
        return (self.rules.along_exempt_bit, self.rules.joined_bit, 4 * self._max_len)

    def chains(self, a: int, b: int) -> list[list[int]]:
        """The two candidate chains from a to b (for tests and for drawing)."""
        out = []
        for side in (1.0, -1.0):
            chain = np.empty(self._max_len, dtype=np.int64)
            n = line_chain(self.map.q, self.map.r, self.index_of_axial, self.q0, self.r0,
                           a, b, side, chain)
            out.append([int(x) for x in chain[:n]])
        return out

    def cache_key(self) -> str:
        h = hashlib.sha256()
        h.update(f"los-v{LOS_ALGORITHM_VERSION}".encode())
        h.update(self.map.fingerprint().encode())
        h.update(self.rules.key())
        return h.hexdigest()[:32]

    def build(self) -> np.ndarray:
        if self.rules.real_space:
            return _build_table_rs(*self._args(), *self._rs_args())
        table = _build_table(*self._args(), self._max_len)
        if self.rules.band_chains:
            _band_pass(table, *self._band_args())
        return table

    def table(self, cache_dir: Path | None = None) -> np.ndarray:
        """The LOS table, loaded from the disk cache when this map was built before."""
        cache_dir = cache_dir or default_cache_dir() / "los"
        path = cache_dir / f"los-{self.cache_key()}.npy"
        if path.exists():
            try:
                table = np.load(path)
                if table.shape == (self.map.n_hexes, self.map.n_hexes):
                    return table
            except (OSError, ValueError):
                pass  # a damaged cache file is rebuilt below
        table = self.build()
        cache_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache_dir, suffix=".npy.tmp")
        with os.fdopen(fd, "wb") as fh:
            np.save(fh, table)
        os.replace(tmp, path)  # atomic: a reader never sees half a table
        return table


def default_cache_dir() -> Path:
    env = os.environ.get("BALANCE_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "wargame-balance"
