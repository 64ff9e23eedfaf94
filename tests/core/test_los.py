"""Line of sight (PB-LOS, PB-GULLY), on hand-made positions and on the real boards.

Most positions are a straight line down one column of a small board: firer in row 1, target
in row 1 + range, so the crossed hexside k lies between rows k and k + 1 (k = 1 at the
firer).  A straight column has one chain only, so each test isolates one rule.
"""

from __future__ import annotations

import numpy as np
import pytest

from simulator.errors import DataError
from simulator.los import compile_rules
from simulator.situation import load_situation
from tests.conftest import los_on, make_map

GROUND, SLOPE, HILLTOP = 0, 1, 2


def strip(ruleset, levels=None, features=None, bars=None):
    """Column A: `levels[row]`, `features[row]`, `bars[k]` = bars on crossed hexside k."""
    levels = levels or {}
    features = features or {}
    hexes = {(0, r): (levels.get(r, GROUND), features.get(r, set())) for r in range(10)}
    sides = {(0, k - 1): {"S": set(b)} for k, b in (bars or {}).items()}
    m = make_map(ruleset, hexes=hexes, sides=sides)
    return los_on(ruleset, m), m


def sees(los, m, r_firer, r_target):
    a, b = m.lookup(f"9A{r_firer + 1}"), m.lookup(f"9A{r_target + 1}")
    ab, ba = los.clear(a, b), los.clear(b, a)
    assert ab == ba, "line of sight must be reciprocal"
    return ab


def test_pb_los_1_open_ground_is_clear(pb_ruleset):
    los, m = strip(pb_ruleset)
    assert sees(los, m, 0, 9)


@pytest.mark.parametrize("bar", ["green", "gray", "brown", "orange"])
def test_pb_los_7_note_h_ground_to_ground_every_bar_blocks(pb_ruleset, bar):
    los, m = strip(pb_ruleset, bars={2: {bar}})
    assert not sees(los, m, 0, 4)


@pytest.mark.parametrize("bar", ["green", "gray", "brown", "orange"])
def test_pb_los_5_adjacent_always_clear(pb_ruleset, bar):
    los, m = strip(pb_ruleset, levels={0: GROUND, 1: HILLTOP}, bars={1: {bar}})
    assert sees(los, m, 0, 1)


def test_pb_los_7_note_b_ground_firer_behind_woods_bar(pb_ruleset):
    # Ground -> slope: a green/gray bar blocks only as a side of the firer's hex (k = 1).
    los, m = strip(pb_ruleset, levels={4: SLOPE}, bars={1: {"green"}})
    assert not sees(los, m, 0, 4)
    los, m = strip(pb_ruleset, levels={4: SLOPE}, bars={2: {"gray"}})
    assert sees(los, m, 0, 4)


def test_pb_los_7_note_a_ground_target_behind_town_bar(pb_ruleset):
    # Slope/hilltop -> ground: a green/gray bar blocks only as a side of the target's hex.
    for firer_level in (SLOPE, HILLTOP):
        los, m = strip(pb_ruleset, levels={0: firer_level}, bars={4: {"gray"}})
        assert not sees(los, m, 0, 4)
        los, m = strip(pb_ruleset, levels={0: firer_level}, bars={3: {"green"}})
        assert sees(los, m, 0, 4)


def test_pb_los_6_slope_and_ground_brown_orange_block(pb_ruleset):
    for bar in ("brown", "orange"):
        los, m = strip(pb_ruleset, levels={0: SLOPE}, bars={3: {bar}})
        assert not sees(los, m, 0, 5)


def test_pb_los_7_note_c_hilltop_firer_brown_bar_near_target(pb_ruleset):
    # Hilltop -> ground, range 4: a brown bar blocks when 2k >= range + 1, i.e. k >= 3.
    los, m = strip(pb_ruleset, levels={0: HILLTOP}, bars={3: {"brown"}})
    assert not sees(los, m, 0, 4)
    los, m = strip(pb_ruleset, levels={0: HILLTOP}, bars={2: {"brown"}})
    assert sees(los, m, 0, 4)
    # Exactly midway (range 5, k = 3) blocks.
    los, m = strip(pb_ruleset, levels={0: HILLTOP}, bars={3: {"brown"}})
    assert not sees(los, m, 0, 5)


def test_pb_los_7_note_d_ground_firer_brown_bar_near_firer(pb_ruleset):
    # Ground -> hilltop, range 4: a brown bar blocks when 2k <= range + 1, i.e. k <= 2.
    los, m = strip(pb_ruleset, levels={4: HILLTOP}, bars={2: {"brown"}})
    assert not sees(los, m, 0, 4)
    los, m = strip(pb_ruleset, levels={4: HILLTOP}, bars={3: {"brown"}})
    assert sees(los, m, 0, 4)


def test_pb_los_7_note_e_more_than_one_orange_bar(pb_ruleset):
    # Slope -> hilltop over two orange bars: blocked; hilltop -> hilltop: not (note E).
    los, m = strip(pb_ruleset, levels={0: SLOPE, 5: HILLTOP}, bars={2: {"orange"}, 4: {"orange"}})
    assert not sees(los, m, 0, 5)
    los, m = strip(pb_ruleset, levels={0: SLOPE, 5: HILLTOP}, bars={4: {"orange"}})
    assert sees(los, m, 0, 5)
    los, m = strip(pb_ruleset, levels={0: HILLTOP, 5: HILLTOP}, bars={2: {"orange"}, 4: {"orange"}})
    assert sees(los, m, 0, 5)


def test_pb_los_7_note_g_woods_on_a_hilltop_block_everything(pb_ruleset):
    levels = {0: HILLTOP, 2: HILLTOP, 3: HILLTOP, 5: HILLTOP}
    los, m = strip(pb_ruleset, levels=levels, bars={3: {"green"}})
    assert not sees(los, m, 0, 5)
    # The same bar at ground level does not block hilltop -> hilltop.
    levels = {0: HILLTOP, 5: HILLTOP}
    los, m = strip(pb_ruleset, levels=levels, bars={3: {"green"}})
    assert sees(los, m, 0, 5)


def test_pb_los_8_slope_to_slope_brown_blocks_unless_adjacent(pb_ruleset):
    los, m = strip(pb_ruleset, levels={r: SLOPE for r in range(6)}, bars={2: {"brown"}})
    assert not sees(los, m, 0, 3)
    los, m = strip(pb_ruleset, levels={0: SLOPE, 1: SLOPE}, bars={1: {"brown"}})
    assert sees(los, m, 0, 1)


def test_pb_los_8_hilltop_sees_slope_directly_behind_brown_bar(pb_ruleset):
    los, m = strip(pb_ruleset, levels={0: HILLTOP, 4: SLOPE}, bars={4: {"brown"}})
    assert sees(los, m, 0, 4)


def test_pb_gully_1_gully_and_ground_see_each_other_only_adjacent(pb_ruleset):
    los, m = strip(pb_ruleset, features={3: {"gully"}})
    assert not sees(los, m, 0, 3)
    assert sees(los, m, 2, 3)
    los, m = strip(pb_ruleset, features={0: {"gully"}, 3: {"gully"}})
    assert not sees(los, m, 0, 3)


def test_pb_gully_2_gully_and_hilltop_see_each_other(pb_ruleset):
    los, m = strip(pb_ruleset, levels={0: HILLTOP}, features={4: {"gully"}})
    assert sees(los, m, 0, 4)
    # ... with the gully unit at ground level for the TET: a gray bar on its hex blocks (note A).
    los, m = strip(pb_ruleset, levels={0: HILLTOP}, features={4: {"gully"}}, bars={4: {"gray"}})
    assert not sees(los, m, 0, 4)


@pytest.mark.parametrize("open_feature", ["ford", "road"])
def test_pb_gully_3_ford_and_road_crossing_are_not_depressed(pb_ruleset, open_feature):
    feats = {"ford"} if open_feature == "ford" else {"gully", "road"}
    los, m = strip(pb_ruleset, features={4: feats})
    assert sees(los, m, 0, 4)


def test_pb_los_4_ties_give_the_defender_the_benefit_of_the_doubt(pb_ruleset):
    # From C2 to E2 the segment runs exactly along the hexside between D1.. and D2: the two
    # candidate chains go either side.  A bar on one chain only blocks the line (PB-LOS-4).
    m = make_map(pb_ruleset)
    los = los_on(pb_ruleset, m)
    a, b = m.lookup("9C5"), m.lookup("9E5")
    chains = los.chains(a, b)
    assert chains[0] != chains[1], "a segment along a hexside has two candidate chains"
    middle = {c[1] for c in chains}
    assert {m.labels[i] for i in middle} == {"9D5", "9D6"}
    assert los.clear(a, b)
    # Put a green bar on the far side of one middle hex only.
    mid = m.lookup("9D6")
    d = next(j for j in range(6) if m.neighbours[mid, j] == b)
    m.side_features[mid, d] |= m.side_bit("green")
    m.side_features[b, (d + 3) % 6] |= m.side_bit("green")
    los = los_on(pb_ruleset, m)
    assert not los.clear(a, b)
    assert not los.clear(b, a)


def _band_edge_off_the_nearest_chains(m, los, a, b):
    """A hexside crossed by some shortest chain within one hex of the segment a-b but by
    neither nearest chain (the OQ-17 alternative's extra candidates), or None."""
    from simulator.hexgrid import SQRT3, hex_distance

    def xy(h):
        return 1.5 * m.q[h], SQRT3 * (m.r[h] + 0.5 * m.q[h])

    (ax, ay), (bx, by) = xy(a), xy(b)
    dist = hex_distance(m.q, m.r, a, b)

    def near(h):
        px, py = xy(h)
        return abs((px - ax) * (by - ay) - (py - ay) * (bx - ax)) / np.hypot(bx - ax, by - ay) <= SQRT3 + 1e-9

    def on_path(h, k):
        return hex_distance(m.q, m.r, a, h) == k and hex_distance(m.q, m.r, h, b) == dist - k and near(h)

    nearest = {(c[k - 1], c[k]) for c in los.chains(a, b) for k in range(1, len(c))}
    for k in range(2, dist):  # not the firer's or the target's hexside
        for h0 in range(m.n_hexes):
            if not on_path(h0, k - 1):
                continue
            for d in range(6):
                h1 = int(m.neighbours[h0, d])
                if h1 >= 0 and on_path(h1, k) and (h0, h1) not in nearest:
                    return h0, d
    return None


def test_oq_17_band_chains_block_more_lines(pb_ruleset):
    """OQ-17 (PB-LOS-4): the adopted reading judges the nearest chains only; the alternative
    (readings.los_chains = "band") also every shortest chain within one hex of the segment."""
    from simulator.los import LineOfSight
    m = make_map(pb_ruleset)
    plain = los_on(pb_ruleset, m)
    a = m.lookup("9A2")
    b, found = next((b, f) for b in range(m.n_hexes)
                    if (f := _band_edge_off_the_nearest_chains(m, plain, a, b)) is not None)
    h0, d = found
    m.side_features[h0, d] |= m.side_bit("green")
    m.side_features[m.neighbours[h0, d], (d + 3) % 6] |= m.side_bit("green")
    nearest = los_on(pb_ruleset, m)
    band = LineOfSight(m, compile_rules(pb_ruleset.data["los"], m, "test", band_chains=True))
    assert nearest.clear(a, b) and nearest.clear(b, a)
    assert not band.clear(a, b) and not band.clear(b, a)
    assert band.rules.key() != nearest.rules.key()  # its own cached table
    # Wherever the nearest chains are blocked, so is the band (it only adds candidates).
    for x in range(0, m.n_hexes, 7):
        for y in range(m.n_hexes):
            if not nearest.clear(x, y):
                assert not band.clear(x, y)
    # The table (nearest chains, then the band's pass over the pairs they leave clear) says
    # what clear() says, pair by pair.
    table = band.build()
    assert not table[a, b] and not table[b, a] and nearest.build()[a, b]
    for x in range(0, m.n_hexes, 11):
        for y in range(0, m.n_hexes, 3):
            assert bool(table[x, y]) == band.clear(x, y)


def test_pb_los_1_units_and_hex_interiors_never_block(pb_ruleset):
    # Woods, towns and slopes inside the hexes between do not block without bars.
    feats = {1: {"woods"}, 2: {"town"}, 3: {"swamp"}}
    los, m = strip(pb_ruleset, features=feats, levels={4: SLOPE})
    assert sees(los, m, 0, 6)


def test_tet_must_be_symmetric(pb_ruleset):
    spec = dict(pb_ruleset.data["los"])
    spec["cells"] = dict(spec["cells"])
    spec["cells"]["ground->slope"] = dict(spec["cells"]["ground->slope"], green="always")
    m = make_map(pb_ruleset)
    with pytest.raises(DataError, match="mirror image"):
        compile_rules(spec, m, "ruleset.toml")


def test_tet_unknown_mode_is_a_clear_error(pb_ruleset):
    spec = dict(pb_ruleset.data["los"])
    spec["cells"] = dict(spec["cells"])
    spec["cells"]["ground->ground"] = dict(spec["cells"]["ground->ground"], green="sometimes")
    with pytest.raises(DataError, match=r"los.cells.ground->ground.green: unknown mode 'sometimes' \(expected one of"):
        compile_rules(spec, make_map(pb_ruleset), "ruleset.toml")


# ------------------------------------------------------------------ the real boards

@pytest.fixture(scope="module")
def pb01():
    sit = load_situation("pb-01")
    rules = compile_rules(sit.ruleset.data["los"], sit.map, "ruleset.toml")
    from simulator.los import LineOfSight
    return sit, LineOfSight(sit.map, rules)


def test_table_is_symmetric_and_matches_single_pair_tracing(pb01, tmp_path):
    sit, los = pb01
    table = los.table(tmp_path)
    n = sit.map.n_hexes
    assert table.shape == (n, n)
    assert (table == table.T).all()
    assert table.diagonal().all()
    rng = np.random.default_rng(3)
    for a, b in rng.integers(0, n, size=(300, 2)):
        assert bool(table[a, b]) == los.clear(int(a), int(b)) == los.clear(int(b), int(a))


def test_table_adjacent_hexes_always_see_each_other(pb01, tmp_path):
    sit, los = pb01
    table = los.table(tmp_path)
    nb = sit.map.neighbours
    a, d = np.nonzero(nb >= 0)
    assert table[a, nb[a, d]].all()


def test_table_is_cached_on_disk(pb01, tmp_path, monkeypatch):
    sit, los = pb01
    first = los.table(tmp_path)
    files = list(tmp_path.glob("los-*.npy"))
    assert len(files) == 1
    monkeypatch.setattr(los, "build", lambda: pytest.fail("second call must load the cache"))
    second = los.table(tmp_path)
    assert (first == second).all()


def test_cache_key_changes_with_the_map_and_the_rules(pb01, pb_ruleset):
    sit, los = pb01
    other = load_situation("pb-03")  # boards 3, 2, 1
    rules = compile_rules(other.ruleset.data["los"], other.map, "ruleset.toml")
    from simulator.los import LineOfSight
    assert LineOfSight(other.map, rules).cache_key() != los.cache_key()
    changed = sit.ruleset.with_overrides({"los.cells.slope->slope.brown": "never"}, "test")
    from simulator.situation import load_situation as _  # noqa: F401
    rules2 = compile_rules(changed.data["los"], sit.map, "ruleset.toml")
    assert LineOfSight(sit.map, rules2).cache_key() != los.cache_key()


def test_real_board_hilltops_see_further_than_the_valleys(pb01, tmp_path):
    # A sanity check of the whole pipeline: on average a hilltop hex sees more hexes than a
    # ground-level woods hex (the reason to hold hills in PanzerBlitz).
    sit, los = pb01
    table = los.table(tmp_path)
    seen = table.sum(axis=1)
    hill = sit.map.elevation == 2
    woods = sit.map.has_feature("woods") & (sit.map.elevation == 0)
    assert seen[hill].mean() > 2 * seen[woods].mean()
