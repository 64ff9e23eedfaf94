"""The ruleset data and the board as the kernels' read-only struct `T`.

Every table of situations/rulesets/first-panzer-army/*.toml the rules read becomes an array
here, and every scalar an entry of the constants vector `T.k` (named in consts.py), so a
`--set` of any entry reaches the kernels and nothing of the game is a constant in them.
"""

from __future__ import annotations

import numpy as np

from simulator.errors import DataError
from simulator.hexgrid import N_DIRECTIONS, distance_matrix
from simulator.rulesets.first_panzer_army import consts as c
from simulator.rulesets.first_panzer_army.schema import FPASituation, _board_extras
from simulator.soa import struct_of_arrays

T = struct_of_arrays("T", module=__name__, fields=[
    # map
    "neighbours", "dist", "terrain", "river", "src_supply", "src_cc", "entry", "exit_hex", "restricted",
    "fpa_col", "vp_hex", "is_fl", "start_control",
    # the town and FL hexes (vp_hex > 0) in hex order: loops over them, not the whole map
    "vp_list",
    # read-only helpers for players: hexes to the nearest German entry hex and Soviet exit hex
    "west_dist", "exit_dist",
    # units (every counter of the situation, set-up first, then reinforcements)
    "u_side", "u_class", "u_flags", "u_max", "u_att", "u_def", "u_setup", "u_exact", "u_entry", "u_vp",
    # tables
    "weather", "mf", "river_cost", "tmp", "tshift", "no_conc", "ign_ret", "crt", "res_att", "res_def", "res_ret",
    "k",
])

WHERE = "situations/rulesets/first-panzer-army"


def _pm(x: float) -> int:
    """A fraction as per mille (the kernels stay in integers)."""
    return int(round(float(x) * 1000))


def _choice(value: str, options: tuple[str, ...], fld: str) -> int:
    if value not in options:
        raise DataError(WHERE, fld, f"got {value!r}", f"one of {list(options)}")
    return options.index(value)


def unit_ids(sit: FPASituation) -> list[str]:
    """The counters of the situation in kernel order: set-up rows, then reinforcements."""
    out = [r.unit for s in sit.side_names for r in sit.setup[s]]
    out += [r.unit for s in sit.side_names for r in sit.reinforcements[s]]
    return out


def build(sit: FPASituation) -> T:
    d = sit.ruleset.data
    m = sit.map
    n = m.n_hexes
    extras = _board_extras(sit.ruleset, sit.map.layout[0][0])

    def hexes_of(labels) -> np.ndarray:
        mask = np.zeros(n, dtype=np.uint8)
        for lab in labels:
            mask[m.lookup(lab)] = 1
        return mask

    terrain = np.zeros(n, dtype=np.int8)
    for ti, name in enumerate(c.TERRAIN):
        if name != "clear":
            terrain[m.has_feature(name)] = ti
    river = np.zeros((n, N_DIRECTIONS), dtype=np.int8)
    river[(m.side_features & m.side_bit("river")) != 0] = 1
    river[(m.side_features & m.side_bit("major_river")) != 0] = 2
    edges, regions = extras["edges"], extras["regions"]
    exit_labels = list(edges["soviet_exit"]["hexes"])
    readings = d["readings"]
    if readings["exit_hexes"] == "odd_columns_only":
        exit_labels = [lab for lab in exit_labels if int(lab[:2]) % 2 == 1]
    elif readings["exit_hexes"] != "south_edge_columns_07_17":
        raise DataError(WHERE, "readings.exit_hexes", f"got {readings['exit_hexes']!r}",
                        "south_edge_columns_07_17 or odd_columns_only")
    vic = d["victory"]
    is_fl = m.has_feature("fortified_locality").astype(np.uint8)
    vp_hex = np.where(is_fl == 1, int(vic["fortified_locality_hex"]),
                      np.where(m.has_feature("town"), int(vic["town_hex"]), 0)).astype(np.int8)
    start_control = np.full(n, -1, dtype=np.int8)
    start_control[vp_hex > 0] = c.GERMAN   # OQ-FPA-9: every other town and FL starts German
    for h in sit.soviet_control:
        start_control[h] = c.SOVIET
    dist = distance_matrix(m.q, m.r)
    entry_mask = hexes_of(edges["german_entry"]["hexes"]) == 1
    exit_mask = hexes_of(exit_labels) == 1
    west_dist = dist[:, entry_mask].min(axis=1).astype(np.int32)
    exit_dist = dist[:, exit_mask].min(axis=1).astype(np.int32)
    fpa_col = np.array([int(lab[:2]) for lab in m.labels], dtype=np.int16)

    # units
    ids = unit_ids(sit)
    nu = len(ids)
    units = d["units"]
    u_side = np.zeros(nu, dtype=np.int8)
    u_class = np.zeros(nu, dtype=np.int8)
    u_flags = np.zeros(nu, dtype=np.int32)
    u_max = np.zeros(nu, dtype=np.int8)
    u_att = np.zeros((nu, 8), dtype=np.int8)
    u_def = np.zeros((nu, 8), dtype=np.int8)
    u_setup = np.full(nu, -1, dtype=np.int32)
    u_exact = np.ones(nu, dtype=np.uint8)
    u_entry = np.zeros(nu, dtype=np.int16)
    u_vp = np.zeros(nu, dtype=np.int8)
    rows = {r.unit: r for s in sit.side_names for r in sit.setup[s]}
    reinf = {r.unit: r for s in sit.side_names for r in sit.reinforcements[s]}
    for i, uid in enumerate(ids):
        u = units[uid]
        fld = f"units.{uid}"
        u_side[i] = c.SIDES.index(u["side"])
        u_class[i] = _choice(u["class"], c.CLASSES, f"{fld}.class")
        steps = int(u["steps"])
        if not 1 <= steps <= 8 or len(u["attack"]) != steps or len(u["defense"]) != steps:
            raise DataError(WHERE, fld, f"steps {steps}, attack {u['attack']}, defense {u['defense']}",
                            "1-8 steps and one attack and defense factor a step")
        u_max[i] = steps
        u_att[i, :steps] = u["attack"]
        u_def[i, :steps] = u["defense"]
        flags = 0
        flags |= c.F_TIGER if u.get("tiger") else 0
        flags |= c.F_SUPPORT if u.get("support_range") else 0
        flags |= c.F_ROCKET if u.get("rocket") else 0
        flags |= c.F_RIFLE if u.get("rifle_corps") else 0
        flags |= c.F_ARMY_SUPPORT if u.get("army_support") else 0
        flags |= c.F_GARRISON if u.get("garrison") else 0
        size = u.get("size", "")
        flags |= c.F_CORPS if (vic["exit_units"] == "corps" and size == "XXX") else 0
        flags |= c.F_BATTALION if size == "II" else 0
        is_division = size == "XX" and u["side"] == "german"
        if u["type"] == "field_artillery" and not readings["artillery_division_scores"]:
            is_division = False
        flags |= c.F_DIVISION if is_division else 0
        u_flags[i] = flags
        # 4.2: a German division eliminated out of C&C scores its maximum steps
        u_vp[i] = steps if is_division else 0
        if uid in rows:
            u_setup[i] = rows[uid].hex
            u_exact[i] = 1 if rows[uid].placement == "exact" else 0
        else:
            u_entry[i] = reinf[uid].turn

    # tables
    wt = d["weather"]
    conds = tuple(wt["conditions"])
    if conds != c.WEATHER:
        raise DataError(WHERE, "weather.conditions", f"got {list(conds)}", f"{list(c.WEATHER)} (the kernels' order)")
    weather = np.zeros((sit.turns + 2, 6), dtype=np.int8)
    weather[1, :] = conds.index(wt["turn_1"])
    for turn, row in wt["table"].items():
        if int(turn) <= sit.turns:
            weather[int(turn)] = [conds.index(x) for x in row]
    mv = d["movement"]
    mf = np.array([[mv["factors"][w]["non_mech"], mv["factors"][w]["mech"]] for w in c.WEATHER], dtype=np.int8)
    rc = d["river_crossing"]
    river_cost = np.array([rc[w] for w in c.WEATHER], dtype=np.int8)
    ter = d["terrain"]
    tmp = np.array([[ter["move_cost"][t]["non_mech"], ter["move_cost"][t]["mech"]] for t in c.TERRAIN], dtype=np.int8)
    tc = ter["combat"]
    tshift = np.array([tc[t].get("shift", 0) for t in c.TERRAIN], dtype=np.int8)
    no_conc = np.array([tc[t]["no_concentric"] for t in c.TERRAIN], dtype=np.uint8)
    ign_ret = np.array([tc[t]["ignore_retreat"] for t in c.TERRAIN], dtype=np.uint8)
    crt_d = d["crt"]
    res_names = c.RESULTS
    crt = np.zeros((6, c.N_COLUMNS), dtype=np.int8)
    for die in range(6):
        row = crt_d["rows"][str(die + 1)]
        if len(row) != 8:
            raise DataError(WHERE, f"crt.rows.{die + 1}", f"{len(row)} columns", "8 (1:2 .. 7:1)")
        for col in range(8):
            crt[die, col + 1] = _choice(row[col], res_names, f"crt.rows.{die + 1}[{col}]")
        crt[die, 0] = _choice(crt_d["below_table"], res_names, "crt.below_table")
        crt[die, 9] = _choice(crt_d["above_table"], res_names, "crt.above_table")
    res = crt_d["results"]
    res_att = np.array([res[r]["attacker_steps"] for r in res_names], dtype=np.int8)
    res_def = np.array([res[r]["defender_steps"] for r in res_names], dtype=np.int8)
    res_ret = np.array([res[r]["defender_retreat"] for r in res_names], dtype=np.int8)

    k = np.zeros(c.K_N, dtype=np.int64)
    st, conc, kg, tg = d["stacking"], d["concentric"], d["korpsgruppe"], d["tiger"]
    seq, air, sup = d["sequence"], d["air"], d["soviet_supply"]
    k[c.K_GER_STACK] = st["german_steps"]
    k[c.K_SOV_STACK] = st["soviet_non_artillery_steps"]
    k[c.K_SOV_ART_STACK] = st["soviet_artillery_steps"]
    k[c.K_CONC_GER] = conc["german_shift"]
    k[c.K_CONC_SOV] = conc["soviet_shift"]
    k[c.K_CONC_MIN_HEXES] = conc["min_hexes_any_pattern"]
    k[c.K_KG_RANGE] = kg["range"]
    k[c.K_KG_ATT_SHIFT] = kg["attack_shift"]
    k[c.K_KG_DEF_SHIFT] = kg["defence_shift"]
    k[c.K_KG_MOVE_RADIUS] = d["korpsgruppe_movement"]["radius"]
    k[c.K_TIGER_ATT] = tg["attack_shift"]
    k[c.K_TIGER_DEF] = tg["defence_shift"]
    k[c.K_AD_RANGE] = d["artillery_division_18"]["range"]
    k[c.K_ROCKET_FACTOR] = d["soviet_artillery"]["rocket_factor"]
    k[c.K_RIVER_SHIFT] = ter["river"]["shift_if_all_attackers_across"]
    k[c.K_FL_GER_SHIFT] = tc["fortified_locality"]["shift_german_defender"]
    k[c.K_FL_SOV_SHIFT] = tc["fortified_locality"]["shift_soviet_defender"]
    k[c.K_MAJOR_BONUS] = rc["major_river_roll_bonus"]
    k[c.K_ROLL_CAP] = rc["roll_cap"]
    k[c.K_RIVER_FLAT] = int(bool(rc["optional_flat"]))
    k[c.K_RIVER_FLAT_COST] = rc["optional_flat_cost"]
    k[c.K_EXIT_COST] = mv["exit_cost"]
    k[c.K_OOS_MF_PM] = _pm(sup["oos_movement_factor"])
    k[c.K_OOS_AF_PM] = _pm(sup["oos_attack_factor"])
    k[c.K_START_VP] = sit.start_vp
    k[c.K_VP_OOC_END] = vic["german_hex_out_of_cc_at_end"]
    k[c.K_EXIT_VP] = vic["exit_per_corps"]
    k[c.K_EXIT_MAX] = vic["exit_max"]
    k[c.K_SOV_WIN] = vic["thresholds"]["soviet_win"]
    k[c.K_GER_WIN_MAX] = vic["thresholds"]["german_win_max"]
    k[c.K_TURNS] = sit.turns
    k[c.K_KG_AVAIL_TURN] = seq["kg_available_turn"]
    k[c.K_KG_FIRST_TURN] = seq["kg_first_deployment_turn"]
    k[c.K_STAND_FAST_TURN] = seq["stand_fast_turn"]
    k[c.K_STAND_FAST_COL] = seq["stand_fast_column"]
    k[c.K_SUPPLY_OWN_EZOC] = _choice(readings["supply_own_hex_ezoc"], ("blocks", "allowed"), "readings.supply_own_hex_ezoc")
    k[c.K_CC_OWN_EZOC] = _choice(readings["cc_own_hex_ezoc"], ("blocks", "allowed"), "readings.cc_own_hex_ezoc")
    k[c.K_ODDS_MODE] = _choice(readings["odds_beyond_table"], c.ODDS_MODES, "readings.odds_beyond_table")
    k[c.K_HALF_FROM_PM] = _pm(d["odds"]["half_column_from"])
    k[c.K_PROBE_IN_STORM] = int(bool(readings["probe_in_storm"]))
    k[c.K_RIVER_SHORT] = _choice(readings["river_crossing_short"], c.RIVER_SHORT_MODES, "readings.river_crossing_short")
    k[c.K_BONUS_CUMULATIVE] = int(bool(readings["bonuses_cumulative"]))
    k[c.K_REPL_NO_HEX] = _choice(readings["replacement_no_hex"], ("wait", "lost"), "readings.replacement_no_hex")
    k[c.K_STAND_FAST_RETREAT] = int(bool(readings["stand_fast_binds_retreat"]))
    k[c.K_ART_CAP_AFTER_OOS] = int(bool(readings["artillery_cap_after_oos"]))
    k[c.K_SOV_RETREAT_RESTRICTED] = int(bool(readings["soviet_retreat_into_restricted"]))
    k[c.K_TIGER_IN_COMBAT] = _choice(readings["tiger_division"], ("in_hex", "in_combat"), "readings.tiger_division")
    k[c.K_AD_SCORES] = int(bool(readings["artillery_division_scores"]))
    k[c.K_CAS_MAX] = air["max_markers"]
    k[c.K_T1_AIR_DIE] = air["turn_1_dice"]
    k[c.K_LATER_AIR_DICE] = air["later_dice_each"]
    k[c.K_STORM_ZOC] = int(bool(wt["storm"]["zoc"]))
    k[c.K_STORM_CAS] = int(bool(wt["storm"]["cas"]))
    k[c.K_STORM_KG] = int(bool(wt["storm"]["kg_movement"]))
    k[c.K_TERNOPOL] = m.lookup(d["reinforcements"]["entry_town"])
    k[c.K_SOV_T1_ORDER] = _choice(seq["soviet_turn_1_order"], ("move_fight", "fight_move"), "sequence.soviet_turn_1_order")
    k[c.K_KG_COUNT] = len(seq["kg_markers"])
    k[c.K_BLOCKED_EXTRA] = d["combat"]["retreat"]["blocked_extra_steps"]
    k[c.K_RETREAT_HEXES] = d["combat"]["retreat"]["hexes"]
    k[c.K_SOV_OOS_ART_ATTACK] = int(bool(d["soviet_artillery"]["oos_may_attack"]))
    k[c.K_GARRISON_LAST] = int(bool(d["combat"]["losses"]["garrison_loses_last"]))
    k[c.K_CAS_PER_MARKER] = d["cas"]["factor_per_marker"]
    k[c.K_CTRL_ENTER] = int(readings["control_by"] == "enter")
    if readings["control_by"] != "enter":
        raise DataError(WHERE, "readings.control_by", f"got {readings['control_by']!r}", "enter")
    if readings["fog_of_war"]:
        raise DataError(WHERE, "readings.fog_of_war", "true", "false (the analyzer's players see everything)")

    return T(
        neighbours=m.neighbours.astype(np.int32), dist=dist, terrain=terrain, river=river,
        src_supply=hexes_of(edges["soviet_supply"]["hexes"]), src_cc=hexes_of(edges["german_cc"]["hexes"]),
        entry=hexes_of(edges["german_entry"]["hexes"]), exit_hex=hexes_of(exit_labels),
        restricted=hexes_of(regions["soviet_restricted"]["hexes"]), fpa_col=fpa_col, vp_hex=vp_hex, is_fl=is_fl,
        vp_list=np.flatnonzero(vp_hex > 0).astype(np.int64),
        start_control=start_control, west_dist=west_dist, exit_dist=exit_dist,
        u_side=u_side, u_class=u_class, u_flags=u_flags, u_max=u_max, u_att=u_att, u_def=u_def, u_setup=u_setup,
        u_exact=u_exact, u_entry=u_entry, u_vp=u_vp,
        weather=weather, mf=mf, river_cost=river_cost, tmp=tmp, tshift=tshift, no_conc=no_conc, ign_ret=ign_ret,
        crt=crt, res_att=res_att, res_def=res_def, res_ret=res_ret, k=k,
    )
