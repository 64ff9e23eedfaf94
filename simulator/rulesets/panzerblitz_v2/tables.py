"""The ruleset data of a situation as the read-only arrays the kernels take (`Tables`).

Every number a rule uses comes from here, and here from the data files under
situations/rulesets/panzerblitz-v2/ (with the situation's and the run's `--set` overrides): the
Direct Fire Table, the range and DF modifiers, the terrain chart, stacking, efficiency, the
readings, the units.  The kernels know only the *names* of things (which modifier is the
unspotted one); their values are data.
"""

from __future__ import annotations

import numpy as np

from simulator.errors import DataError
from simulator.rulesets.panzerblitz_v2.schema import PBV2Situation
from simulator.soa import struct_of_arrays

# Movement modes (PB2 2.3.2), in terrain.toml's order; towed guns move only as passengers (4.3).
WHEELED, TRACKED, LEG, TOWED = 0, 1, 2, 3
MODES = ("wheeled", "tracked", "leg", "towed")
# Terrain classes of a hex: the one that decides movement, TEM, spotting and obstacle height.
CLEAR, TOWN, CITY, WOODS, SWAMP, ORCHARD, BEACH, RIVER, WATER = range(9)
COVERS = ("clear", "town", "city", "woods", "swamp", "orchard", "beach", "river", "water")
COVER_PRIORITY = ("city", "town", "woods", "swamp", "orchard", "beach", "river", "water")
# Movement costs are in half movement points (road 1/2 MP, 14.3.1.1); two sentinels:
ALL_MA = 9999      # "all of its movement points" (14.4.1.2, 14.5.1, 14.6.1.2)
PROHIBITED = -1
# Transport (PB2 4.3.5): carrier kinds in stacking.toml's order, cargo classes, and the cost the
# carrier pays to load or unload (tr_cost[carrier, cargo]: 0 may not carry, 1 half MA, 2 all MA).
CARGO = ("infantry", "recon_infantry", "light_gun", "heavy_gun")
C_INFANTRY, C_RECON, C_LIGHT_GUN, C_HEAVY_GUN = range(4)
TR_NONE, TR_HALF, TR_ALL = 0, 1, 2
# Kinds of attack, as modifiers.toml's `applies` names them.
ATTACK_KINDS = ("df", "opportunity", "reaction", "assault", "overrun", "cat", "if", "self_if", "air", "minefield", "aa")
K_DF, K_OPP, K_REACTION, K_ASSAULT, K_OVERRUN, K_CAT, K_IF = 0, 1, 2, 3, 4, 5, 6
K_SELF_IF, K_AIR, K_AA = 7, 8, 10
# DF modifiers the kernels apply, by name (modifiers.toml); their values and scopes are data.
DRM_NAMES = ("unspotted", "defender_disrupted", "height_advantage", "height_disadvantage",
             "opportunity_vs_road_mover", "opportunity_vs_moving_vehicle", "opportunity_vs_infantry_in_open",
             "cat", "cat_with_engineer", "cat_vs_armor_in_town_or_city", "cat_from_city_vs_vehicle_in_city",
             "overrun", "overrun_vs_infantry_in_open", "overrun_per_missing_mp", "fire_from_he_hex", "wreck_hex",
             "improved_position", "hull_down", "fortification", "fire_into_smoke", "fire_from_smoke")
M_UNSPOTTED, M_DEF_DISRUPTED, M_HEIGHT_ADV, M_HEIGHT_DIS, M_OPP_ROAD, M_OPP_VEHICLE, M_OPP_INF_OPEN = range(7)
M_CAT, M_CAT_ENGINEER, M_CAT_ARMOR_TOWN, M_CAT_CITY_VEHICLE = range(7, 11)
M_OVR, M_OVR_INF_OPEN, M_OVR_MISSING_MP, M_FROM_HE, M_WRECK, M_IP, M_HULL, M_FORT = range(11, 19)
M_SMOKE_IN, M_SMOKE_FROM = 19, 20
# Artificial terrain counters a situation's groups place at set-up (PB2 15.2, 15.3, 15.5).
MK_MINE, MK_BLOCK, MK_FORT = 0, 1, 2
MARKER_CATEGORIES = {"minefield": MK_MINE, "roadblock": MK_BLOCK, "fortification": MK_FORT}
# 15.2 (round 8): the minefield strengths the exchange chart trades (15.2.1), and a dummy's index
MINE_STRENGTHS = ("1-1", "2-1", "3-1")
MINE_DUMMY = 3
# DFT results, best first (direct_fire.results without "-").
R_3X, R_2X, R_1X, R_DD, R_D, R_NONE = range(6)
MAX_RANGE_TABULATED = 200
# Aircraft types (PB2 16.3; units-air.toml `air`): 0 = not an aircraft.
AIR_TYPES = ("F", "B", "BD", "FB", "O")
AIR_NONE, AIR_F, AIR_B, AIR_BD, AIR_FB, AIR_O = range(6)     # O: observation aircraft (16.2, round 8)
# AA results (aa.toml, PB2 16.4.5), best first; AA_NONE = no effect.
AA_X, AA_DD, AA_D2, AA_D1, AA_NONE = range(5)

Tables = struct_of_arrays("Tables", module=__name__, fields=[
    # map
    "n_hexes", "neighbours", "q", "r", "level", "cover", "depression", "inherent", "orchard", "obstacle",
    "move_cost", "woods_to_woods", "town_to_town", "road_side", "slope_side", "side_cost", "play",
    "tem_df", "tem_nonveh_only", "overrun_ok", "wreck_ok", "ip_ok", "hull_ok", "spot_range", "open_ground", "remark_unspotted", "dist", "obj_dist", "field_of_fire",
    "los", "partial_num", "partial_den", "slope_extra",
    # round 8 A: a bridge hexside (8.2.1.7, 14.7.4: no overrun right after crossing one), and one
    # whose bridged obstacle is impassable on foot without it (9.2.5, 14.7.6: no CAT across it)
    "bridge_side", "bridge_no_cat",
    # units (by type)
    "t_ap", "t_at", "t_df", "t_sp", "t_range", "t_ma", "t_mode", "t_armored", "t_infantry", "t_afv",
    "t_vehicle", "t_steps", "t_slope_exempt", "t_long_range", "t_combat", "t_engineer", "t_overrun",
    "t_carrier", "t_cargo", "tr_cost", "enter_loaded",
    # 4.1.8.2: truck and wagon units (an empty one is eliminated by an enemy unit entering its hex)
    "t_truck_wagon", "rider_df",
    # 10.2.1: a carrier's passengers may Panzer Blitz assault from it (by the carrier's kind), and
    # a passenger's nation may do so from an AFV
    "t_pb_carrier", "t_pb_afv_rider",
    # round 8 A: an unarmed carrier whose kind may not move without a passenger (4.3.5 footnote 6:
    # jeeps and motorcycles; transport.carrier.*.moves_empty)
    "t_no_empty_move",
    # smoke (12): who may fire it, where it may lie, the extra cost to enter it, the spotting range of
    # a unit in it (12.2.4: a non-clear hex), and the axial index the LoS check through it needs
    "t_smoke", "smoke_ok", "smoke_extra2", "smoke_spot", "ax_index", "ax_q0", "ax_r0",
    # counters of the situation
    "n_units", "u_type", "u_side", "u_group", "u_enter_turn", "u_value", "u_offboard",
    "t_indirect", "t_mortar", "t_soft_if", "tem_if_soft", "tem_if_hard", "scat_max", "scat_hexes", "scat_offboard",
    "g_setup", "g_setup_n", "g_entry", "g_entry_n",
    # sides
    "s_efficiency", "s_objective", "s_target", "s_target_gt", "stated_side", "s_chits", "s_reinf",
    "first_setup", "turns",
    # direct fire table and modifiers
    "dft_threshold", "dft_num", "dft_den", "dft_at_diff", "dft_lowest", "dft_best", "dft_miss",
    "range_mod", "drm_value", "drm_applies", "shift_assault", "long_range_factor2", "long_range_extra",
    "at_additional", "majority_median", "at_zero_counts", "ap_keeps_fraction",
    "shift_reaction", "reaction_inf_at2", "reaction_sd2", "cat_mp_limit2", "cat_city_add", "cat_def_highest",
    # stacking, efficiency, readings
    "stack_limit", "vehicle_town_factor", "rec_sd", "rec_cover", "rec_catastrophe", "eff_roll_mod", "hull_cost_num",
    "hull_cost_den",
    "spent_units_spot", "idle_stay_fresh", "reinf_carry", "reinf_sp_step", "reinf_mp_step2",
    "wreck_full", "wreck_reduced", "wreck_max", "wreck_extra2", "wreck_on_step_loss",
    "s_ip", "ip_capacity", "ip_extra2", "ip_removal_roll",
    # artificial terrain (15.2, 15.3, 15.5): the counters to place, and where each kind may go
    "n_markers", "mk_kind", "mk_side", "mk_group", "mk_col", "mk_df", "mk_cap", "mine_ok", "block_ok", "fort_ok",
    "block_sp", "fort_extra2",
    # engineers (17.3.1, 17.3.2, 17.3.3): where they may build a block, the removal roll, the exemption
    "block_build_ok", "block_removal_max", "block_engineer_exempt", "fort_spot", "fort_destroy_max", "fort_destroy_any_at",
    # leaving the map (a converted classic card's exited / not_exited measures): from which hexes
    # each side's units may leave, and the cost of the step off the map by movement mode
    "exit_ok", "exit_cost2",
    # a round trip (PB-SIT-5): the edge hexes a side's returned units leave by, hexes from each hex
    # to the nearest of them, and the whole turns a unit stays off before it may come back (-1: no return)
    "trip_final", "final_dist", "trip_stay",
    "fort_vehicles", "forced_unload_mine_always",
    # air support (16): aircraft type (AIR_*), rockets (16.3.4 SN), AA equivalency (16.4.5, 0 = no
    # AA), which counters are aircraft, each group's first turn and Air chits a turn; the air level
    # (16.1.8), the recall roll (16.3.3), AA range (16.4.3.1), terrain hiding from aircraft (16.1.9);
    # the AA table (aa.toml: aa_thr[column, result], the D# penalties) and the readings
    "t_air", "t_rockets", "t_aa", "u_air", "n_air", "g_air_turn", "g_air_chits", "air_enabled", "air_level",
    "air_recall_roll", "air_recall_modified", "aa_range_num", "aa_range_den", "air_hidden", "aa_thr", "aa_pen",
    "aa_best", "aa_miss", "aa_results_add", "air_spot_marks", "aa_vs_opportunity", "last_air_executed",
    # the objective hexes by distance from each hex, nearest first (players' goal distance, speed)
    "obj_order",
    # round 8 B, artillery: red-range units fire direct only self-observed (11.3.8, PB2-OQ-90) and
    # within how many hexes; combining units each within a hex of every other (11.3.4, PB2-OQ-91);
    # each side's pre-registered hexes (11.5) and the scatter modifier there
    "art_self_observed", "self_obs_range", "ar_combine_pairs", "prereg", "scat_prereg",
    # round 8 B, observation aircraft (16.2): how many counters, their spotting ranges (all terrain,
    # and the terrains in which only the shorter one), the scatter modifier of an AR they observe
    "n_obs", "obs_range", "obs_range_hidden", "obs_hidden", "scat_obs_air",
    # round 8 B, minefields (15.2, 15.2.1): each counter's strength (MINE_STRENGTHS index, MINE_DUMMY),
    # the DFT column of each strength, the exchange chart's trades both ways (give n of strength s,
    # take m of strength r)
    "mk_str", "ms_col", "ex_give_s", "ex_give_n", "ex_take_s", "ex_take_n",
    # round 9, bridge demolition (17.2; bridges.py): each bridge k of the play area (a road across a
    # water hexside, its two end hexes `bridge` hexes), its ends and the direction from each to the
    # other, the bridge of each hex and hexside (-1 none); what each end is once the bridge is
    # destroyed (17.2.1.3, 14.7.5: a depression, its TEM against DF / soft IF / hard IF, overrun
    # allowed); the water hexside's crossing cost by mode once destroyed; the LoS rows of the two ends
    # with the bridge destroyed (los.py, filled by batch.prepare); the demolition roll (17.2.1.3,
    # 17.2.2) and the Destroyed Bridge marker's reading (PB2-OQ-97)
    "n_bridges", "br_hex", "br_dir", "hex_br", "side_br", "br_depr", "br_tem", "br_tem_if", "br_ovr_ok",
    "br_alt_cost", "los_blown", "demo_roll_max", "demo_retry_drm", "demo_marker_block",
    # round 9, amphibious movement (4.4): a unit type's aquatic MA in half MP (0: not amphibious),
    # the half aquatic MP to enter each hex (-1: not a water obstacle: lakes, oceans, rivers, 4.4.1),
    # the exit factor (4.4.2) and whether the slope surcharge comes on top (PB2-OQ-64)
    "t_aquatic", "aquatic_cost2", "amph_exit_factor", "amph_exit_slope",
])


def _v(x):
    return x["value"] if isinstance(x, dict) and "value" in x else x


def _odds(label: str) -> tuple[int, int]:
    a, b = str(label).split(":")
    return int(a), int(b)


def _two_way(read: dict, where: str, key: str, default: str, other: str, oq: str) -> str:
    """A two-way reading of `[readings]` (a named switch, docs/panzerblitz-v2/engine.md): `key`'s
    value, `default` when absent; anything but `default` or `other` is an error naming the field."""
    v = read.get(key, default)
    if v not in (default, other):
        raise DataError(where, f"readings.{key}", f"got {v!r}", f'"{default}" or "{other}" ({oq})')
    return v


def _exchange_chart(art: dict, where: str, both: bool) -> dict:
    """PB2-15.2.1: the Mine Exchange Chart (artificial.toml minefield.exchange: key "<strength>x<n>"
    gives n counters of that strength for `count` of `gives`), each trade also the other way when
    `both` (readings.mine_exchange_both_ways, PB2-OQ-93); dummies are never traded."""
    gs, gn, ts, tn = [], [], [], []
    for key, row in art["minefield"].get("exchange", {}).items():
        if key in ("source", "ref", "see"):
            continue
        strength, _, n = str(key).rpartition("x")
        take = str(row.get("gives", ""))
        if strength not in MINE_STRENGTHS or take not in MINE_STRENGTHS or not n.isdigit():
            raise DataError(where, f"artificial.minefield.exchange.{key}", f"got {key!r} = {row!r}",
                            f'"<strength>x<n>" = {{ gives = <strength>, count = <n> }} with strengths of {list(MINE_STRENGTHS)}')
        a, k, b, m = MINE_STRENGTHS.index(strength), int(n), MINE_STRENGTHS.index(take), int(row.get("count", 1))
        gs += [a, b] if both else [a]
        gn += [k, m] if both else [k]
        ts += [b, a] if both else [b]
        tn += [m, k] if both else [m]
    return {"ex_give_s": np.array(gs, dtype=np.int64), "ex_give_n": np.array(gn, dtype=np.int64),
            "ex_take_s": np.array(ts, dtype=np.int64), "ex_take_n": np.array(tn, dtype=np.int64)}


def _prereg(sit, n: int) -> np.ndarray:
    """PB2-11.5: bool[side, hex], the hexes each side's artillery is registered on."""
    out = np.zeros((2, n), dtype=np.bool_)
    for si, s in enumerate(sit.sides):
        out[si, s.pre_registered] = True
    return out


def _bridges(m, ter, hexes, read, where, play, side_has, tem, tem_if, overrun_ok):
    """PB2-17.2, 14.7.5: the bridges of the play area and what they become once destroyed.

    A bridge is a `bridge` hexside (a road across a water hexside, map.md); both its end hexes are
    `bridge` hexes, the "Bridge hex" an engineer works in (17.2.1).  Destroyed, it is "a normal
    Stream or Gully hex" (17.2.1.3), "the defined Stream type or River" (14.7.5): under
    readings.blown_bridge_water = "mapped" (PB2-OQ-96) the hexside takes its own water's crossing
    (the Odon's deep stream: foot units only, all MP; the Orne: none) and each end hex its own
    water features (a stream bank: a depression with the stream TEM; a river bank: as it was, a
    river being clear for LoS, 14.6.3.2); under "stream" both take a plain stream's."""
    n = m.n_hexes
    water = [w for w in ("stream", "deep_stream", "river") if w in ter["side"]]
    as_stream = _two_way(read, where, "blown_bridge_water", "mapped", "stream", "PB2-OQ-96") == "stream"
    ends, dirs = [], []
    bridge_side = side_has("bridge")
    for h, d in zip(*np.nonzero(bridge_side), strict=True):
        h, d = int(h), int(d)
        o = int(m.neighbours[h, d])
        if o > h and (play[h] or play[o]):
            ends.append((h, o))
            dirs.append((d, next(e for e in range(6) if m.neighbours[o, e] == h)))
    k_n = len(ends)
    hex_br = np.full(n, -1, dtype=np.int64)
    side_br = np.full((n, 6), -1, dtype=np.int64)
    br_depr = np.zeros((max(k_n, 1), 2), dtype=np.bool_)
    br_tem = np.zeros((max(k_n, 1), 2), dtype=np.int64)
    br_tem_if = np.zeros((max(k_n, 1), 2, 2), dtype=np.int64)
    br_ovr = np.ones((max(k_n, 1), 2), dtype=np.bool_)
    alt = np.zeros((max(k_n, 1), 4), dtype=np.int64)
    for k, ((a, b), (da, db)) in enumerate(zip(ends, dirs, strict=True)):
        for j, (h, d) in enumerate(((a, da), (b, db))):
            if hex_br[h] >= 0:
                raise DataError(where, "map.bridges", f"hex index {h} ends two bridges",
                                "one bridge hexside per bridge hex (PB2 17.2)")
            hex_br[h] = k
            side_br[h, d] = k
            feats = ["stream"] if as_stream else [f for f in ("gully", "stream", "deep_stream")
                                                   if f in m.hex_vocab and m.has_feature(f)[h]]
            br_tem[k, j] = tem[h]
            br_tem_if[k, j] = tem_if[h]
            br_ovr[k, j] = overrun_ok[h]
            for f in feats:
                fh = hexes.get(f, {})
                br_depr[k, j] |= bool(fh.get("depression", False))
                br_tem[k, j] += int(fh.get("tem_df", 0))
                br_tem_if[k, j, 0] += int(fh.get("tem_if_soft", 0))
                br_tem_if[k, j, 1] += int(fh.get("tem_if_hard", 0))
                br_ovr[k, j] &= bool(fh.get("overrun_allowed", True))
        names = ["stream"] if as_stream else [w for w in water if (m.side_features[a, da] & m.side_bit(w)) != 0]
        for mi, mode in enumerate(MODES[:3]):
            for w in names:
                c = _half(ter["side"][w]["cross"][mode])
                if c == PROHIBITED or alt[k, mi] == PROHIBITED:
                    alt[k, mi] = PROHIBITED
                else:
                    alt[k, mi] = max(alt[k, mi], c)
        alt[k, TOWED] = PROHIBITED
    return {"n_bridges": k_n, "br_hex": np.array(ends, dtype=np.int64).reshape(-1, 2),
            "br_dir": np.array(dirs, dtype=np.int64).reshape(-1, 2), "hex_br": hex_br, "side_br": side_br,
            "br_depr": br_depr, "br_tem": br_tem, "br_tem_if": br_tem_if, "br_ovr_ok": br_ovr, "br_alt_cost": alt,
            "los_blown": np.zeros((max(k_n, 1), 2, 1), dtype=np.int8)}


def _aquatic_costs(cover, hexes) -> np.ndarray:
    """PB2-4.4.1: half aquatic MP to enter each hex: the water obstacles (lakes and oceans 14.8,
    rivers 14.6) cost terrain.hex.*.aquatic_move, else one aquatic MP (-1: not water; 4.4.4: a
    hex type may say `navigable = false`)."""
    out = np.full(cover.shape[0], -1, dtype=np.int64)
    for ci in (WATER, RIVER):
        h = hexes.get(COVERS[ci], {})
        if h.get("navigable", True):
            out[cover == ci] = _half(h.get("aquatic_move", 1.0))
    return out


def direct_fire_arrays(data: dict, where: str):
    """The DFT as arrays: threshold int16[n_col, 5] (highest modified roll giving 3X, 2X, 1X, DD,
    D; -99 = not on the column), the AP odds num/den and AT differential of each column."""
    d = data["direct_fire"]
    cols = d["column"]
    labels = sorted(cols, key=lambda c: (lambda a, b: a / b)(*_odds(_v(cols[c].get("ap_odds", c)))))
    res = [r for r in d["results"] if r != "-"]
    if res != ["3X", "2X", "1X", "DD", "D"]:
        raise DataError(where, "direct_fire.results", f"got {d['results']}", '["3X", "2X", "1X", "DD", "D", "-"]')
    thr = np.array([[int(_v(cols[c][r])) for r in res] for c in labels], dtype=np.int16)
    num = np.array([_odds(_v(cols[c].get("ap_odds", c)))[0] for c in labels], dtype=np.int64)
    den = np.array([_odds(_v(cols[c].get("ap_odds", c)))[1] for c in labels], dtype=np.int64)
    at = np.array([int(_v(cols[c]["at_differential"])) for c in labels], dtype=np.int64)
    if np.any(np.diff(at) <= 0):
        raise DataError(where, "direct_fire.column.*.at_differential", "not increasing left to right",
                        "AT differentials increasing with the columns (PB2 7.5)")
    return labels, thr, num, den, at


def range_array(data: dict) -> np.ndarray:
    """int64[MAX_RANGE_TABULATED + 1]: the range DRM by hexes (range.toml; beyond the table
    +1 per further 3 hexes, as the text's 4 / 7 / 10 steps go)."""
    r = data["range"]
    n = int(_v(r["max_tabulated"]))
    out = np.zeros(MAX_RANGE_TABULATED + 1, dtype=np.int64)
    for i in range(MAX_RANGE_TABULATED + 1):
        if i <= n:
            out[i] = int(_v(r["modifier"][str(i)]))
        else:
            out[i] = out[n] + (i - n + 2) // 3
    return out


def _half(mp) -> int:
    """MP as half movement points; the sentinels kept."""
    mp = float(mp)
    if mp == 99:
        return ALL_MA
    if mp < 0:
        return PROHIBITED
    return int(round(mp * 2))


def build_tables(sit: PBV2Situation) -> Tables:  # noqa: C901 - one pass over the data, table by table
    data = sit.ruleset.data
    where = str(sit.ruleset.path / "ruleset.toml")
    m = sit.map
    n = m.n_hexes
    ter = data["terrain"]
    hexes = ter["hex"]
    read = data["readings"]

    # --- hexes (PB2 14.x): the cover class, levels and obstacles (5.2-5.5), costs, TEM, spotting.
    cover = np.zeros(n, dtype=np.int64)
    for name in reversed(COVER_PRIORITY):
        if name in m.hex_vocab:
            cover[m.has_feature(name)] = COVERS.index(name)
    bridge = m.has_feature("bridge") if "bridge" in m.hex_vocab else np.zeros(n, dtype=bool)
    depression = np.zeros(n, dtype=np.bool_)
    for name in ("gully", "stream", "deep_stream"):
        if name in m.hex_vocab and hexes.get(name, {}).get("depression"):
            depression |= m.has_feature(name)
    depression &= ~bridge  # "and not on a Bridge" (5.6, 14.6.5)
    level = m.elevation.astype(np.int64)
    obstacle = level.copy()
    inherent = np.zeros(n, dtype=np.bool_)
    spot = np.zeros(n, dtype=np.int64)
    tem = np.zeros(n, dtype=np.int64)
    tem_if = np.zeros((n, 2), dtype=np.int64)      # against IF: [soft (leg, truck, wagon), others]
    nonveh = np.zeros(n, dtype=np.bool_)
    overrun_ok = np.ones(n, dtype=np.bool_)        # 8.2.3, 8.2.4 (terrain.hex.*.overrun_allowed)
    move = np.zeros((n, 4), dtype=np.int64)
    for ci, name in enumerate(COVERS):
        sel = cover == ci
        h = hexes.get(name, hexes["clear"])
        obstacle[sel] += int(h.get("obstacle_height", 0))
        inherent[sel] = bool(h.get("inherent", False)) and name != "orchard"
        spot[sel] = int(h.get("spotting_range", hexes["clear"]["spotting_range"]))
        tem[sel] = int(h.get("tem_df", 0))
        tem_if[sel, 0] = int(h.get("tem_if_soft", h.get("tem_df", 0)))
        tem_if[sel, 1] = int(h.get("tem_if_hard", h.get("tem_df", 0)))
        nonveh[sel] = h.get("tem_for", "all") == "non_vehicular"
        overrun_ok[sel] = bool(h.get("overrun_allowed", True))
        mv = h.get("move", hexes["clear"]["move"])
        for mi, mode in enumerate(MODES[:3]):
            move[sel, mi] = _half(mv[mode])
        move[sel, TOWED] = PROHIBITED
    for name in ("gully", "stream", "deep_stream"):
        if name in m.hex_vocab and name in hexes:
            tem[m.has_feature(name) & ~bridge] += int(hexes[name].get("tem_df", 0))
            tem_if[m.has_feature(name) & ~bridge, 0] += int(hexes[name].get("tem_if_soft", 0))
            tem_if[m.has_feature(name) & ~bridge, 1] += int(hexes[name].get("tem_if_hard", 0))
            if not hexes[name].get("overrun_allowed", True):
                overrun_ok[m.has_feature(name) & ~bridge] = False     # 8.2.4: a gully
    orchard = cover == ORCHARD
    ww = hexes["woods"].get("move_woods_to_woods", hexes["woods"]["move"])
    woods_to_woods = np.array([_half(ww[x]) for x in MODES[:3]] + [PROHIBITED], dtype=np.int64)
    town_to_town = _half(hexes["town"].get("move_from_town_or_road", 1.0))
    open_names = list(read.get("open_terrain", ["clear"]))
    open_ground = np.array([c in open_names for c in COVERS], dtype=np.bool_)
    remark = np.array([c in list(read.get("unspotted_remark_terrain", [])) for c in COVERS], dtype=np.bool_)

    # --- hexsides: roads (14.3), slopes (14.9), water (14.6), bridges and fords (14.7).
    sides = m.side_features
    def side_has(name):
        return (sides & m.side_bit(name)) != 0 if name in m.side_vocab else np.zeros((n, 6), dtype=bool)
    road_side = side_has("road")
    slope_side = side_has("slope")
    side_cost = np.zeros((n, 6, 4), dtype=np.int64)
    crossing = side_has("bridge") | side_has("ford")
    bridge_no_cat = np.zeros((n, 6), dtype=np.bool_)     # 9.2.5, 14.7.6 (round 8 A)
    for name in ("stream", "deep_stream", "river"):
        if name not in ter["side"]:
            continue
        sel = side_has(name) & ~crossing
        if _half(ter["side"][name]["cross"]["leg"]) == PROHIBITED:
            bridge_no_cat |= side_has(name) & side_has("bridge")
        for mi, mode in enumerate(MODES[:3]):
            c = _half(ter["side"][name]["cross"][mode])
            cur = side_cost[:, :, mi]
            if c == PROHIBITED:
                cur[sel] = PROHIBITED
            else:
                upd = sel & (cur != PROHIBITED)
                cur[upd] = np.maximum(cur[upd], c)
        side_cost[sel, TOWED] = PROHIBITED
    # 17.2 (round 9): the bridges, and what a destroyed one becomes
    bridges = _bridges(m, ter, hexes, read, where, sit.play_area.astype(np.bool_), side_has, tem, tem_if, overrun_ok)
    up = ter["side"]["slope"]["uphill_extra"]
    slope_extra = np.array([_half(up[x]) for x in MODES[:3]] + [0], dtype=np.int64)

    # --- line of sight chart (5.4.5): num/den by height difference 1..5 and obstacle 1..4.
    ph = ter["los"]["partial_height"]
    pn = np.zeros((6, 5), dtype=np.int64)
    pd = np.ones((6, 5), dtype=np.int64)
    for dkey, row in ph.items():
        for hkey, cell in row.items():
            pn[int(dkey), int(hkey)], pd[int(dkey), int(hkey)] = int(cell["num"]), int(cell["den"])

    from simulator.hexgrid import axial_index, distance_matrix
    dist = distance_matrix(m.q, m.r).astype(np.int64)
    ax_index, ax_q0, ax_r0 = axial_index(m.q.astype(np.int64), m.r.astype(np.int64))

    # --- unit types used by the situation.
    units = data["units"]
    type_ids = sorted({uid for s in sit.sides for g in s.groups for uid in g.units})   # counters, not markers
    nt = max(len(type_ids), 1)
    t = {k: np.zeros((nt, 2), dtype=np.int64) for k in ("ap2", "at", "df", "sp")}
    t_range = np.zeros(nt, dtype=np.int64)
    t_ma = np.zeros(nt, dtype=np.int64)
    t_aquatic = np.zeros(nt, dtype=np.int64)
    t_mode = np.zeros(nt, dtype=np.int64)
    flags = {k: np.zeros(nt, dtype=np.bool_) for k in ("armored", "infantry", "afv", "vehicle", "slope", "long", "combat",
                                                        "engineer", "indirect", "mortar", "soft_if", "overrun",
                                                        "smoke", "rockets")}
    t_air = np.zeros(nt, dtype=np.int64)
    t_aa = np.zeros(nt, dtype=np.int64)
    aa = data["aa"]
    t_steps = np.zeros(nt, dtype=np.int64)
    # 4.3.5: carriers by kind (an AFV carries riders only where 4.3.7 lets it: units.*.rider).
    tr = data["transport"]["carrier"]
    carriers = list(tr)
    tr_cost = np.zeros((max(len(carriers), 1), len(CARGO)), dtype=np.int64)
    for ci, name in enumerate(carriers):
        for cargo, cost in tr[name]["cargo"].items():
            if cargo not in CARGO or cost not in ("half", "all"):
                raise DataError(where, f"transport.carrier.{name}.cargo.{cargo}", f"got {cost!r}",
                                f"a cargo class of {list(CARGO)} = \"half\" or \"all\" (PB2 4.3.5)")
            tr_cost[ci, CARGO.index(cargo)] = TR_HALF if cost == "half" else TR_ALL
    t_carrier = np.full(nt, -1, dtype=np.int64)
    t_cargo = np.full(nt, -1, dtype=np.int64)
    pba = data["transport"].get("panzer_blitz_assault", {})
    for name in pba.get("from_carriers", []):
        if name not in carriers:
            raise DataError(where, "transport.panzer_blitz_assault.from_carriers", f"got {name!r}",
                            f"a carrier kind of transport.carrier {carriers} (PB2 10.2.1)")
    t_pb_carrier = np.zeros(nt, dtype=np.bool_)
    t_pb_afv_rider = np.zeros(nt, dtype=np.bool_)
    t_no_empty = np.zeros(nt, dtype=np.bool_)
    for ti, uid in enumerate(type_ids):
        u = units[uid]
        full, red = u["full"], u.get("reduced", u["full"])
        for si, side in enumerate((full, red)):
            t["ap2"][ti, si] = int(round(2 * float(_v(side.get("ap", 0)))))   # AP in halves (1.2.1)
            t["at"][ti, si] = int(_v(side.get("at", 0)))
            t["df"][ti, si] = int(_v(side.get("df", 0)))
            t["sp"][ti, si] = int(_v(side.get("sp", 0)))
        t_range[ti] = int(_v(u.get("range", 0)))
        t_ma[ti] = 2 * int(_v(u.get("ma", 0)))
        t_aquatic[ti] = 2 * int(_v(u.get("aquatic_ma", 0)))         # 4.4: the blue superscript
        t_mode[ti] = MODES.index(u.get("mode", "leg"))
        t_steps[ti] = int(u.get("steps", 2))
        flags["armored"][ti] = bool(u.get("armored", False))
        flags["infantry"][ti] = u.get("kind") == "infantry"
        flags["afv"][ti] = u.get("kind") == "afv"
        flags["vehicle"][ti] = t_mode[ti] in (WHEELED, TRACKED)
        flags["slope"][ti] = bool(u.get("slope_exempt", False))
        # PB2-OQ-48: "infantry type" = red DF and leg movement (7.2.4 long-range fire).
        flags["long"][ti] = (not flags["armored"][ti]) and t_mode[ti] == LEG and u.get("kind") == "infantry"
        flags["combat"][ti] = t["ap2"][ti, 0] > 0 or t["at"][ti, 0] > 0   # 2.3.3
        flags["engineer"][ti] = bool(u.get("engineer", False))
        # 8.0: armored units with the overrun capability (red underlined MA) only
        flags["overrun"][ti] = bool(u.get("overrun", False)) and flags["armored"][ti]
        flags["indirect"][ti] = bool(u.get("indirect_fire", False)) or bool(u.get("mortar", False))
        flags["mortar"][ti] = bool(u.get("mortar", False))
        flags["smoke"][ti] = flags["indirect"][ti] and bool(u.get("smoke", False))     # 12.0: 'S' or SN
        if u.get("kind") == "aircraft":                  # 16.3: F, B, BD, FB (rockets: 16.3.4 SN)
            if u.get("air") not in AIR_TYPES:
                raise DataError(where, f"units.{uid}.air", f"got {u.get('air')!r}",
                                f"an aircraft type of {list(AIR_TYPES)} (PB2 16.3)")
            t_air[ti] = AIR_TYPES.index(u["air"]) + 1
            flags["rockets"][ti] = bool(u.get("rockets", False)) and u["air"] == "FB"
        if u.get("anti_aircraft"):                       # 16.4.1: the blue stripe; 16.4.5 its equivalency
            cls = u.get("aa_class", "")
            if cls not in aa["equivalency"]:
                raise DataError(where, f"units.{uid}.aa_class", f"got {cls!r}",
                                f"an AA class of aa.equivalency {sorted(aa['equivalency'])} (PB2 16.4.5)")
            t_aa[ti] = int(_v(aa["equivalency"][cls]))
        # 14.4.5: "Infantry (Leg), Truck, and Wagon units" take -1 in woods against IF
        flags["soft_if"][ti] = t_mode[ti] == LEG or u.get("carrier_type") in ("truck", "wagon")
        ctype = "afv" if u.get("rider") else u.get("carrier_type", "")
        if (u.get("carrier") or u.get("rider")) and ctype in carriers:
            t_carrier[ti] = carriers.index(ctype)
            t_pb_carrier[ti] = ctype in pba.get("from_carriers", [])
            # 4.3.5 footnote 6: "unarmed" jeeps and motorcycles may not move empty
            t_no_empty[ti] = not bool(tr[ctype].get("moves_empty", True)) and not (t["ap2"][ti, 0] > 0 or t["at"][ti, 0] > 0)
        t_pb_afv_rider[ti] = u.get("side") in pba.get("afv_nations", [])
        if not flags["vehicle"][ti] and u.get("kind") not in ("marker", "aircraft"):
            # 4.3: what it rides as: a towed gun by its size (T/. light, T/.. heavy), else infantry
            gun = u.get("gun", "")
            t_cargo[ti] = C_LIGHT_GUN if gun == "light" else C_HEAVY_GUN if gun == "heavy" else \
                C_RECON if u.get("recon") else C_INFANTRY

    # --- the situation's counters (on-map groups; off-board artillery waits for 11.x).
    u_type, u_side, u_group, u_enter = [], [], [], []
    groups = []
    for si, s in enumerate(sit.sides):
        for g in s.groups:
            gi = len(groups)
            groups.append(g)
            for uid, k in g.units.items():
                for _ in range(k):
                    u_type.append(type_ids.index(uid))
                    u_side.append(si)
                    u_group.append(gi)
                    # -1: off-board artillery; aircraft: the turn they come into play (16.0)
                    u_enter.append(-1 if g.off_board else g.air_turn if g.air_turn else g.enter_turn)
    ng = max(len(groups), 1)
    width = max([1] + [len(g.setup) for g in groups if g.setup is not None] + [len(g.entry) for g in groups if g.entry is not None])
    g_setup = np.full((ng, width), -1, dtype=np.int64)
    g_entry = np.full((ng, width), -1, dtype=np.int64)
    g_setup_n = np.zeros(ng, dtype=np.int64)
    g_entry_n = np.zeros(ng, dtype=np.int64)
    for gi, g in enumerate(groups):
        if g.setup is not None:
            g_setup[gi, :len(g.setup)] = g.setup
            g_setup_n[gi] = len(g.setup)
        if g.entry is not None:
            g_entry[gi, :len(g.entry)] = g.entry
            g_entry_n[gi] = len(g.entry)
    u_type_a = np.array(u_type, dtype=np.int64)
    g_air_turn = np.array([g.air_turn for g in groups] + [0] * (ng - len(groups)), dtype=np.int64)
    g_air_chits = np.array([g.air_chits for g in groups] + [0] * (ng - len(groups)), dtype=np.int64)
    # the AA table (aa.toml): per column (the AA equivalency, 1..n) the highest modified roll of
    # each result X, DD, D2, D1; above D1 no effect (16.4.5)
    aa_cols = sorted(int(c) for c in aa["column"])
    if aa_cols != list(range(1, len(aa_cols) + 1)):
        raise DataError(where, "aa.column", f"got columns {aa_cols}", "columns 1, 2, ... n (the AA equivalencies)")
    aa_res = [r for r in aa["results"] if r != "-"]
    if aa_res != ["X", "DD", "D2", "D1"]:
        raise DataError(where, "aa.results", f"got {aa['results']}", '["X", "DD", "D2", "D1", "-"] (PB2 16.4.5)')
    aa_thr = np.full((len(aa_cols) + 1, 4), -99, dtype=np.int64)
    for c in aa_cols:
        for k, r in enumerate(aa_res):
            aa_thr[c, k] = int(_v(aa["column"][str(c)][r]))
    aa_pen = np.array([0] + [int(_v(aa["effect"][r])) for r in aa_res[1:]] + [0], dtype=np.int64)
    if t_aa.max(initial=0) > len(aa_cols):
        raise DataError(where, "aa.equivalency", f"an equivalency above column {len(aa_cols)}",
                        "equivalencies that name a column of aa.column")
    air = data["air"]
    air_rules = air["rules"]
    hidden = list(air_rules["hidden_in"])
    bad = [c for c in hidden if c not in COVERS]
    if bad:
        raise DataError(where, "air.rules.hidden_in", f"got {bad}", f"terrain classes of {list(COVERS)} (PB2 16.1.9)")
    obs = air.get("observation", {})
    obs_hidden = list(obs.get("hidden_in", []))
    bad = [c for c in obs_hidden if c not in COVERS]
    if bad:
        raise DataError(where, "air.observation.hidden_in", f"got {bad}", f"terrain classes of {list(COVERS)} (PB2 16.2)")
    recall = read.get("fighter_recall_roll", "natural")
    if recall not in ("natural", "modified"):
        raise DataError(where, "readings.fighter_recall_roll", f"got {recall!r}", '"natural" or "modified" (PB2-OQ-66)')
    # What a counter is worth to the players and the statistics: its printed factors.
    u_value = (t["ap2"][u_type_a, 0] // 2 + t["at"][u_type_a, 0] + t["df"][u_type_a, 0]).astype(np.int64) \
        if len(u_type) else np.zeros(0, dtype=np.int64)

    # --- sides: efficiency (13.0), objectives and chits (2.4, 3.1.1, 3.1.2.3).
    s_obj = np.zeros((2, n), dtype=np.bool_)
    s_target = np.zeros(2, dtype=np.int64)
    s_gt = np.zeros(2, dtype=np.bool_)
    stated = 0
    for si, s in enumerate(sit.sides):
        if s.victory.get("measure") == "hexes_controlled":
            stated = si
            s_obj[si, s.objective] = True
            s_target[si] = int(s.victory["victory"])
            s_gt[si] = s.victory.get("compare", ">=") == ">"
    if sit.goal_side:
        # A converted classic card: the players steer by its goal (conversion.md#victory); the
        # winner is decided on the final state by victory.py.
        stated = sit.side_names.index(sit.goal_side)
        s_obj[stated, sit.goal] = True
    other = 1 - stated
    s_obj[other] = s_obj[stated]   # the defender's goal is to keep the same ground
    s_chits = np.zeros((2, sit.turns + 2, 10), dtype=np.int64)
    s_reinf = np.zeros((2, sit.turns + 2), dtype=np.int64)
    for si, s in enumerate(sit.sides):
        for turn in range(1, sit.turns + 1):
            for radius, k in s.chits_in_turn(turn).items():
                s_chits[si, turn, radius] = k
        for g in s.groups:
            if g.enter_turn and not g.off_board:
                s_reinf[si, g.enter_turn] = 1

    # Hexes from every hex to the nearest objective hex (what the players steer by).
    obj = np.flatnonzero(s_obj[stated])
    obj_dist = dist[:, obj].min(axis=1) if obj.size else np.zeros(n, dtype=np.int64)
    bands = sorted(data["scatter"]["band"].values(), key=lambda b: int(_v(b["max_roll"])))
    scat_max = np.array([int(_v(b["max_roll"])) for b in bands], dtype=np.int64)
    scat_hexes = np.array([int(_v(b["hexes"])) for b in bands], dtype=np.int64)
    labels, thr, num, den, at = direct_fire_arrays(data, where)
    mods = data["modifiers"]
    drm_value = np.array([int(_v(mods["drm"][k]["value"])) for k in DRM_NAMES], dtype=np.int64)
    drm_applies = np.array([[kind in mods["drm"][k].get("applies", []) for kind in ATTACK_KINDS] for k in DRM_NAMES],
                           dtype=np.bool_)
    lrf = mods["factor"]["long_range_fire"]
    eff = data["efficiency"]["recovery"]
    hull = ter["rules"]["hull_down"]
    unknown = [c for c in hull["terrain"] if c not in COVERS]
    if unknown:
        raise ValueError(f"{sit.ruleset.path / 'terrain.toml'}: terrain.rules.hull_down.terrain: {unknown} are not "
                         f"terrain classes (expected some of {list(COVERS)})")
    stack = data["stacking"]

    # --- artificial terrain counters (15.2, 15.3, 15.5), in group order, and where they may go.
    art = data                      # artificial.toml's tables: minefield, fortification, ...
    mk_kind, mk_side, mk_group, mk_col, mk_df, mk_cap = [], [], [], [], [], []
    mk_str = []                     # a minefield's strength: index of MINE_STRENGTHS, or MINE_DUMMY
    mcols = art["minefield"]["column"]
    dummy_name = str(art["minefield"].get("dummy", "dummy"))
    gi = 0
    for si, s in enumerate(sit.sides):
        for g in s.groups:
            for uid, k in g.markers.items():
                u = units[uid]
                cat = u.get("category")
                if cat not in MARKER_CATEGORIES:
                    raise DataError(where, f"units.{uid}.category", f"got {cat!r}",
                                    f"a marker category of {sorted(MARKER_CATEGORIES)} (PB2 15.2-15.5)")
                col = -1
                st_i = -1
                if MARKER_CATEGORIES[cat] == MK_MINE and str(u.get("strength", "")) == dummy_name:
                    # 15.2 (round 8): a dummy is a minefield until revealed (15.2.3.1): the weakest
                    # column, never rolled on
                    st_i = MINE_DUMMY
                    col = labels.index(mcols[MINE_STRENGTHS[0]])
                elif MARKER_CATEGORIES[cat] == MK_MINE:
                    strength = str(u.get("strength", ""))
                    label = art["minefield"]["column"].get(strength)
                    st_i = MINE_STRENGTHS.index(strength) if strength in MINE_STRENGTHS else -1
                    if label is None or label not in labels:
                        raise DataError(where, f"units.{uid}.strength", f"got {strength!r}",
                                        f"a minefield strength of artificial.minefield.column {sorted(art['minefield']['column'])} "
                                        "naming a DFT column (PB2 15.2.3.1)")
                    col = labels.index(label)
                for _ in range(k):
                    mk_kind.append(MARKER_CATEGORIES[cat])
                    mk_side.append(si)
                    mk_group.append(gi)
                    mk_col.append(col)
                    mk_df.append(int(_v(u["full"].get("df", 0))) if "full" in u else 0)
                    mk_cap.append(int(u.get("capacity", 0)))
                    mk_str.append(st_i)
            gi += 1
    stream = np.zeros(n, dtype=np.bool_)
    for name in ("stream", "deep_stream"):
        if name in m.hex_vocab:
            stream |= m.has_feature(name)
    gully = m.has_feature("gully") if "gully" in m.hex_vocab else np.zeros(n, dtype=np.bool_)
    # Exits: a card whose victory counts units leaving by an edge (exited / not_exited: pb-08, pb-09)
    # lets that side's units step off that edge of the play area.
    exit_ok = np.zeros((2, n), dtype=np.bool_)
    # A round trip (PB-SIT-5, pb-05): out by `edge`, off `stay_off_turns` whole turns, back on
    # where it left, out again by `final_edge` (return_leg = false: out and off only).
    trip_final = np.zeros((2, n), dtype=np.bool_)
    trip_stay = np.full(2, -1, dtype=np.int64)

    def exits(v, me):
        if not isinstance(v, dict):
            return
        if v.get("measure") in ("exited", "not_exited", "round_trip"):
            who = me if v.get("whose", "own") == "own" else 1 - me
            exit_ok[who, m.edge_hexes(v["edge"])] = True
            if v["measure"] == "round_trip" and v.get("return_leg", True):
                trip_final[who, m.edge_hexes(v["final_edge"])] = True
                trip_stay[who] = int(v.get("stay_off_turns", 0))
        for part in ("numerator", "denominator"):
            exits(v.get(part), me)
    for si, s in enumerate(sit.sides):
        exits(s.victory, si)
    exit_ok &= sit.play_area.astype(np.bool_)[None, :]
    trip_final &= sit.play_area.astype(np.bool_)[None, :]
    final_dist = np.zeros((2, n), dtype=np.int64)
    for si in range(2):
        if trip_final[si].any():
            final_dist[si] = dist[:, trip_final[si]].min(axis=1)
    clear_move = hexes["clear"]["move"]
    fortd = read.get("fort_destroy", "positive_differential_natural_le_3")
    if fortd not in ("positive_differential_natural_le_3", "any_at_natural_le_3"):
        raise DataError(where, "readings.fort_destroy", f"got {fortd!r}",
                        '"positive_differential_natural_le_3" or "any_at_natural_le_3" (PB2-OQ-41)')

    return Tables(
        n_hexes=n, neighbours=m.neighbours.astype(np.int64), q=m.q.astype(np.int64), r=m.r.astype(np.int64),
        level=level, cover=cover, depression=depression, inherent=inherent, orchard=orchard, obstacle=obstacle,
        move_cost=move, woods_to_woods=woods_to_woods, town_to_town=town_to_town, road_side=road_side,
        slope_side=slope_side, side_cost=side_cost, play=sit.play_area.astype(np.bool_),
        bridge_side=side_has("bridge"), bridge_no_cat=bridge_no_cat,
        tem_df=tem, tem_nonveh_only=nonveh, overrun_ok=overrun_ok,
        wreck_ok=(cover == TOWN) | (cover == CITY) | road_side.any(axis=1) | bridge,   # 15.1
        # 15.4.1: no IP in swamp, all-water, beach, gully or stream hexes
        ip_ok=~np.isin(cover, [SWAMP, WATER, BEACH, RIVER]) & ~depression,
        # 15.6.4: hull-down only in the listed terrain (a gully or stream hex is none of them)
        hull_ok=np.isin(cover, [COVERS.index(c) for c in hull["terrain"]]) & ~depression,
        spot_range=spot, open_ground=open_ground, remark_unspotted=remark,
        dist=dist, obj_dist=obj_dist.astype(np.int64), field_of_fire=np.zeros(n, dtype=np.int64), los=np.zeros((1, 1), dtype=np.int8), partial_num=pn, partial_den=pd, slope_extra=slope_extra,
        t_ap=t["ap2"], t_at=t["at"], t_df=t["df"], t_sp=t["sp"], t_range=t_range, t_ma=t_ma, t_mode=t_mode,
        t_armored=flags["armored"], t_infantry=flags["infantry"], t_afv=flags["afv"], t_vehicle=flags["vehicle"],
        t_steps=t_steps, t_slope_exempt=flags["slope"], t_long_range=flags["long"], t_combat=flags["combat"],
        t_engineer=flags["engineer"], t_overrun=flags["overrun"], t_carrier=t_carrier, t_cargo=t_cargo,
        t_pb_carrier=t_pb_carrier, t_pb_afv_rider=t_pb_afv_rider, tr_cost=tr_cost, t_no_empty_move=t_no_empty,
        rider_df=int(_v(data["transport"].get("rider", {}).get("df", 1))),
        t_truck_wagon=np.array([c >= 0 and carriers[c] in ("truck", "wagon") for c in t_carrier], dtype=np.bool_),
        enter_loaded=bool(read.get("reinforcements_enter_loaded", True)),
        n_units=len(u_type), u_type=u_type_a, u_side=np.array(u_side, dtype=np.int64),
        u_group=np.array(u_group, dtype=np.int64), u_enter_turn=np.array(u_enter, dtype=np.int64), u_value=u_value,
        u_offboard=np.array(u_enter, dtype=np.int64) < 0,
        t_indirect=flags["indirect"], t_mortar=flags["mortar"], t_soft_if=flags["soft_if"],
        tem_if_soft=tem_if[:, 0].copy(), tem_if_hard=tem_if[:, 1].copy(), scat_max=scat_max, scat_hexes=scat_hexes,
        scat_offboard=int(_v(data["scatter"]["modifier"]["off_board"])),
        g_setup=g_setup, g_setup_n=g_setup_n, g_entry=g_entry, g_entry_n=g_entry_n,
        s_efficiency=np.array([s.efficiency for s in sit.sides], dtype=np.int64), s_objective=s_obj,
        s_target=s_target, s_target_gt=s_gt, stated_side=stated, s_chits=s_chits, s_reinf=s_reinf,
        first_setup=sit.side_names.index(sit.sets_up_first), turns=sit.turns,
        dft_threshold=thr.astype(np.int64), dft_num=num, dft_den=den, dft_at_diff=at,
        dft_lowest=int(_v(data["direct_fire"]["rows"]["lowest"])), dft_best=int(_v(data["direct_fire"]["natural"]["best"])),
        dft_miss=int(_v(data["direct_fire"]["natural"]["miss"])),
        range_mod=range_array(data), drm_value=drm_value, drm_applies=drm_applies,
        shift_assault=int(_v(mods["column_shift"]["assault_fire"]["value"])),
        long_range_factor2=int(round(2 * float(_v(lrf["value"])))), long_range_extra=int(lrf.get("extra_range", 1)),
        at_additional=int(mods["at"]["additional_firer"]),
        majority_median=read.get("majority_rule", "stepwise") == "median",
        at_zero_counts=bool(read.get("at_zero_counts", False)),
        ap_keeps_fraction=bool(read.get("ap_halving_keeps_fraction", True)),
        shift_reaction=int(_v(mods["column_shift"]["reaction_half_steps_disrupted"]["value"])),
        reaction_inf_at2=int(round(2 * float(_v(mods["factor"]["reaction_infantry_at"]["value"])))),
        reaction_sd2=int(round(2 * float(_v(mods["factor"]["reaction_spent_or_disrupted"]["value"])))),
        cat_mp_limit2=2 * int(read.get("cat_mp_limit", 1)),
        cat_city_add=bool(read.get("cat_city_modifiers_add", True)),
        cat_def_highest=read.get("cat_armored_defense", "highest_plus_one") == "highest_plus_one",
        stack_limit=int(stack["limit"]), vehicle_town_factor=int(data["stacking"]["town_city"]["vehicle_factor"]),
        rec_sd=int(eff["spent_disrupted"]), rec_cover=int(eff["positive_tem_terrain"]),
        rec_catastrophe=int(eff["catastrophe_natural"]),
        eff_roll_mod=int(data["efficiency"]["roll"]["modifier"]), hull_cost_num=int(hull["ma_numerator"]),
        hull_cost_den=int(hull["ma_denominator"]),
        spent_units_spot=bool(read.get("spent_units_spot", True)),
        idle_stay_fresh=bool(read.get("idle_units_stay_fresh", True)),
        reinf_carry=read.get("last_reinforcement_chit", "first_next_turn") == "first_next_turn",
        reinf_sp_step=int(ter["rules"]["reinforcement_sp_per_step"]),
        reinf_mp_step2=_half(ter["rules"]["reinforcement_mp_per_step"]),
        wreck_full=int(_v(stack["points"]["wreck_full"])), wreck_reduced=int(_v(stack["points"]["wreck_reduced"])),
        wreck_max=int(_v(stack["points"]["wreck_max_per_hex"])), wreck_extra2=_half(ter["rules"]["wreck_extra"]),
        wreck_on_step_loss=bool(read.get("wreck_on_step_loss", False)),
        s_ip=np.array([int(s.markers.get("improved_position", 0)) for s in sit.sides], dtype=np.int64),
        ip_capacity=int(_v(stack["points"]["improved_position_capacity"])),
        ip_extra2=_half(ter["rules"]["ip_enter_or_exit"]),
        ip_removal_roll=bool(read.get("ip_removal_efficiency_roll", False)),
        n_markers=len(mk_kind), mk_kind=np.array(mk_kind, dtype=np.int64), mk_side=np.array(mk_side, dtype=np.int64),
        mk_group=np.array(mk_group, dtype=np.int64), mk_col=np.array(mk_col, dtype=np.int64),
        mk_df=np.array(mk_df, dtype=np.int64), mk_cap=np.array(mk_cap, dtype=np.int64),
        # 15.2.2.1: no minefield in all-water, swamp or stream hexes
        mine_ok=~np.isin(cover, [SWAMP, WATER, RIVER]) & ~stream,
        block_ok=cover != WATER,                                          # 15.3.1.1
        # 15.5.1: no fortification in swamp, all-water, beach, town, city, gully or stream hexes
        fort_ok=~np.isin(cover, [SWAMP, WATER, BEACH, TOWN, CITY, RIVER]) & ~stream & ~gully,
        block_sp=int(_v(stack["points"]["block"])),
        # 12.2.3: no smoke in all-water, swamp or river hexes (SN rivers: the river cover)
        t_smoke=flags["smoke"], smoke_ok=~np.isin(cover, [SWAMP, WATER, RIVER]),
        smoke_extra2=_half(ter["rules"]["smoke_extra"]),
        smoke_spot=int(hexes["woods"]["spotting_range"]),                # 12.2.4: a non-clear hex (reading)
        ax_index=ax_index.astype(np.int64), ax_q0=int(ax_q0), ax_r0=int(ax_r0),
        block_build_ok=(road_side.any(axis=1) | np.isin(cover, [COVERS.index(c) for c in art["block"]["build_terrain"]
                                                                 if c != "road"])),
        block_removal_max=int(_v(art["block"]["removal_roll_max"])),
        block_engineer_exempt=bool(_v(stack["points"].get("engineer_with_block_exempt", False))),
        fort_extra2=_half(ter["rules"]["fortification_enter_or_exit"]),
        fort_spot=int(hexes["town"]["spotting_range"]),                   # 15.5.4: as in a town
        fort_destroy_max=int(_v(art["fortification"]["destroyed_natural_max"])),
        fort_destroy_any_at=fortd == "any_at_natural_le_3",
        # reading (README, "Implemented and not yet"): stepping off the map costs a clear hex
        obj_order=(obj[np.argsort(dist[:, obj], axis=1, kind="stable")].astype(np.int64) if obj.size
                   else np.zeros((n, 0), dtype=np.int64)),
        fort_vehicles=bool(read.get("fortification_vehicles", False)),
        forced_unload_mine_always=read.get("forced_unload_minefield", "fire_only") == "always",
        trip_final=trip_final, final_dist=final_dist, trip_stay=trip_stay,
        t_air=t_air, t_rockets=flags["rockets"], t_aa=t_aa,
        u_air=(t_air[u_type_a] > 0) if len(u_type) else np.zeros(0, dtype=np.bool_),
        n_air=int((t_air[u_type_a] > 0).sum()) if len(u_type) else 0, g_air_turn=g_air_turn, g_air_chits=g_air_chits, air_enabled=bool(_v(air["enabled"])),
        air_level=int(level[sit.play_area.astype(bool)].max(initial=0) + int(air_rules["levels_above_highest"])),
        air_recall_roll=int(air_rules["recall_roll"]), air_recall_modified=recall == "modified",
        aa_range_num=int(air_rules["aa_range_num"]), aa_range_den=int(air_rules["aa_range_den"]),
        air_hidden=np.array([c in hidden for c in COVERS], dtype=np.bool_), aa_thr=aa_thr, aa_pen=aa_pen,
        aa_best=int(_v(aa["natural"]["best"])), aa_miss=int(_v(aa["natural"]["miss"])),
        aa_results_add=bool(read.get("aa_results_add", True)),
        air_spot_marks=bool(read.get("aircraft_spotting_marks", True)),
        aa_vs_opportunity=bool(read.get("aa_vs_opportunity_fire", False)),
        last_air_executed=bool(read.get("last_air_chit_executed", False)),
        art_self_observed=_two_way(read, where, "artillery_direct_fire", "self_observed", "direct",
                                    "PB2-OQ-90") == "self_observed",
        self_obs_range=int(_v(data["indirect"]["self_observed_range"])),
        ar_combine_pairs=_two_way(read, where, "ar_combine_adjacent", "every_pair", "first_unit",
                                   "PB2-OQ-91") == "every_pair",
        prereg=_prereg(sit, n), scat_prereg=int(_v(data["scatter"]["modifier"]["pre_registered"])),
        mk_str=np.array(mk_str, dtype=np.int64),
        ms_col=np.array([labels.index(mcols[x]) if mcols.get(x) in labels else -1 for x in MINE_STRENGTHS], dtype=np.int64),
        **_exchange_chart(art, where, bool(read.get("mine_exchange_both_ways", True))),
        n_obs=int((t_air[u_type_a] == AIR_O).sum()) if len(u_type) else 0,
        obs_range=int(obs.get("range", 30)), obs_range_hidden=int(obs.get("hidden_range", 5)),
        obs_hidden=np.array([c in obs_hidden for c in COVERS], dtype=np.bool_),
        scat_obs_air=int(_v(data["scatter"]["modifier"]["observation_aircraft"])),
        **bridges,
        t_aquatic=t_aquatic, aquatic_cost2=_aquatic_costs(cover, hexes),
        amph_exit_factor=int(_v(ter["rules"]["amphibious"]["exit_factor"])),
        amph_exit_slope=bool(read.get("amphibious_exit_slope", False)),
        demo_roll_max=int(_v(art["bridge"]["demolition_roll_max"])),
        demo_retry_drm=int(_v(art["bridge"]["further_attempt_drm"])),
        demo_marker_block=_two_way(read, where, "destroyed_bridge_marker", "marker", "block",
                                    "PB2-OQ-97") == "block",
        exit_ok=exit_ok, exit_cost2=np.array([_half(clear_move[x]) for x in MODES[:3]] + [PROHIBITED], dtype=np.int64),
    ), labels, type_ids
