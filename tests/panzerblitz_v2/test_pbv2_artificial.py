"""Artificial terrain of Panzer Blitz v2.0 (PB2 15.2 minefields, 15.3 blocks, 15.5 fortifications):
each rule case in a small position on the converted classic card pb-12 (the German 111th Infantry
Division's 8 blocks, 11 minefields and 8 fortifications), and the card's games in debug mode."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simulator.rulesets.panzerblitz_v2 import assault, combat, game, movement, overrun
from simulator.rulesets.panzerblitz_v2.batch import play_one, prepare, violation
from simulator.rulesets.panzerblitz_v2.ruleset import RULESET
from simulator.rulesets.panzerblitz_v2.state import (
    EV_ENTER,
    EV_FIRE,
    EV_MARKER,
    EV_MINE,
    EV_MOVE,
    GONE,
    new_state,
)
from simulator.rulesets.panzerblitz_v2.tables import (
    CLEAR,
    K_CAT,
    K_DF,
    K_IF,
    K_REACTION,
    MK_BLOCK,
    MK_FORT,
    MK_MINE,
    TOWN,
    WOODS,
)
from simulator.situation import load_situation

ROOT = Path(__file__).resolve().parents[2]
CARD = str(ROOT / "situations" / "panzerblitz-v2" / "classic" / "pb-{}.toml")


@pytest.fixture(scope="module")
def p12():
    return prepare(load_situation(str(CARD.format("12")), {}))


def fresh(p, seed=1, kind="random"):
    from simulator.rulesets.panzerblitz_v2.batch import player_arrays

    kinds, params = player_arrays(RULESET.players.parse([kind], p.sides), p.sides)
    return new_state(p.tables, seed, kinds, params)


def units_of(p, type_id):
    ti = p.type_ids.index(type_id)
    return [int(u) for u in np.flatnonzero(p.tables.u_type == ti)]


def open_line(t, k=3, cover=CLEAR):
    """k hexes in a straight line, clear (or `cover` at the second), level, no road, no hexside cost."""
    for a in np.flatnonzero(t.play):
        for d in range(6):
            line = [int(a)]
            while len(line) < k:
                nxt = int(t.neighbours[line[-1], d])
                if nxt < 0 or not t.play[nxt]:
                    break
                line.append(nxt)
            if len(line) < k:
                continue
            want = [CLEAR] * k
            want[1] = cover
            if all(t.cover[h] == w for h, w in zip(line, want, strict=True)) and len({int(t.level[h]) for h in line}) == 1 \
                    and not t.road_side[line].any() and not t.depression[line].any() \
                    and all(t.side_cost[line[i], d, :3].max() == 0 for i in range(k - 1)):
                return line, d
    raise AssertionError("no such line on the board")


def fort_index(t):
    return int(np.flatnonzero(t.mk_kind == MK_FORT)[0])


def mine_col(p, label="2:1"):
    return p.columns.index(label)


# ----------------------------------------------------------------------------- set-up (15.2.2, 15.3.1, 15.5.1)

def test_pb2_15_2_2_15_3_1_15_5_1_markers_placed_in_the_set_up_area_where_allowed(p12):
    t = p12.tables
    assert (t.mk_kind == MK_MINE).sum() == 11 and (t.mk_kind == MK_BLOCK).sum() == 8 and (t.mk_kind == MK_FORT).sum() == 8
    assert (t.mk_col[t.mk_kind == MK_MINE] == mine_col(p12, "2:1")).all()     # classic mines: 2-1 (conversion.md)
    st = fresh(p12)
    game.setup(t, st)
    ev = st.ev[:st.n_ev[0]]
    assert (ev[:, 2] == EV_MARKER).sum() == 27
    mines, blocks, forts = np.flatnonzero(st.mine_col >= 0), np.flatnonzero(st.block), np.flatnonzero(st.fort >= 0)
    assert len(mines) == 11 and len(blocks) == 8 and len(forts) == 8        # one of a kind a hex
    assert t.mine_ok[mines].all() and t.block_ok[blocks].all() and t.fort_ok[forts].all()
    assert not (st.fort >= 0)[mines].any() and not (st.fort >= 0)[blocks].any()     # 15.2.2.1, 15.3.1.1
    assert not st.ip[mines].any() and not st.ip[blocks].any() and not st.ip[forts].any()
    g = int(t.mk_group[0])
    area = set(t.g_setup[g, :t.g_setup_n[g]].tolist())
    assert set(mines) | set(blocks) | set(forts) <= area
    assert not t.fort_ok[t.cover == TOWN].any() and not t.mine_ok[t.cover == 8].any()  # 15.5.1 towns, 15.2.2.1 water


# ----------------------------------------------------------------------------- minefields (15.2)

def test_pb2_15_2_3_a_minefield_hex_ends_the_move_and_is_entered_on_a_road_too(p12):
    t = p12.tables
    st = fresh(p12)
    (a, b, c), d = open_line(t)
    tank = units_of(p12, "t-34-c")[0]
    st.hex[tank] = a
    ma = t.t_ma[t.u_type[tank]]
    movement.reachable(t, st, tank, a, 0, ma, True)
    assert st.reach[c] < movement.UNREACHED and st.prev[c] == b
    st.mine_col[b] = mine_col(p12)
    n = movement.reachable(t, st, tank, a, 0, ma, True)
    reached = set(st.order[:n].tolist())
    assert b in reached                                          # it may enter the minefield ...
    assert all(st.prev[h] != b for h in reached)                 # ... and goes no further (15.2.3)


def test_pb2_15_2_3_1_minefield_attack_on_its_column_without_modifiers(p12):
    t = p12.tables
    (a, b, c), d = open_line(t, cover=WOODS)
    for seed in range(1, 30):
        st = fresh(p12, seed)
        inf = units_of(p12, "rifle-company-43")[0]
        st.hex[inf] = b
        st.unspotted[inf] = True                                  # unspotted, in woods: still no DRM
        st.mine_col[b] = mine_col(p12, "3:1")
        streams = st.streams.copy()
        hit = game.mine_attack(t, st, inf, b)
        e = st.ev[st.n_ev[0] - 1] if st.ev[st.n_ev[0] - 1, 2] == EV_MINE else \
            st.ev[np.flatnonzero(st.ev[:st.n_ev[0], 2] == EV_MINE)[-1]]
        assert e[2] == EV_MINE and e[5] == mine_col(p12, "3:1") and e[7] == 0     # column, DRM 0
        from simulator.rulesets.panzerblitz_v2.rng import two_dice

        natural = two_dice(streams)
        assert e[6] == natural and e[8] // 100 == combat.dft_result(t, mine_col(p12, "3:1"), natural, 0)
        assert hit == (st.hex[inf] == GONE or st.disrupted[inf])
        assert st.mine_ok[inf] == (not hit)                       # a survivor is under the counter


def test_pb2_15_2_3_1_and_15_2_3_2_leaving_a_minefield(p12):
    t = p12.tables
    (a, b, c), d = open_line(t)
    tank = units_of(p12, "t-34-c")[0]
    # under the counter (survived non-Disrupted): it leaves without another attack
    st = fresh(p12)
    st.hex[tank] = b
    st.mine_col[b] = mine_col(p12)
    st.mine_ok[tank] = True
    game.move_unit(t, st, tank, b, 0)
    assert (st.ev[:st.n_ev[0], 2] == EV_MINE).sum() == 0
    # a unit that was disrupted there (and has recovered) is attacked as it tries to leave
    st = fresh(p12)
    st.hex[tank] = b
    st.mine_col[b] = mine_col(p12)
    st.mine_ok[tank] = False
    moved = game.move_unit(t, st, tank, b, 0)
    ev = st.ev[:st.n_ev[0], 2]
    if moved:
        assert ev[0] == EV_MINE                                   # before any step out of the hex
        first_move = np.flatnonzero(ev == EV_MOVE)
        assert first_move.size == 0 or first_move[0] > 0


def test_pb2_15_2_3_3_the_minefield_attacks_before_opportunity_fire_in_played_games(p12):
    pl = RULESET.players.parse(["heuristic"], p12.sides)
    mines = 0
    for seed in range(1, 13):
        g = play_one(p12, seed, pl)
        ev = g.state.ev[:g.state.n_ev[0]]
        for i in np.flatnonzero(ev[:, 2] == EV_MINE):
            mines += 1
            prev = ev[i - 1]
            # entering: right after the move (or entry) into the hex; leaving: before the move out
            assert (prev[2] in (EV_MOVE, EV_ENTER) and (prev[6] == ev[i, 4] or prev[5] == ev[i, 4])) or \
                ev[i + 1, 2] in (EV_MOVE, 6, 7)
    assert mines > 0


def test_pb2_15_2_2_3_and_8_2_4_and_9_2_3_9_2_4_minefields_affect_both_sides_no_overrun_no_cat(p12):
    t = p12.tables
    st = fresh(p12)
    (a, b, c), d = open_line(t)
    tank = units_of(p12, "t-34-c")[0]
    ger = units_of(p12, "rifle-platoon-german-42")[0]
    st.hex[tank], st.hex[ger] = a, c
    st.mine_col[c] = mine_col(p12)
    st.active[tank] = True
    assert not overrun.overrun_options(t, st, tank, a, movement.reachable(t, st, tank, a, 0, t.t_ma[t.u_type[tank]], False)) > 1 \
        or all(st.opts[i, 0] != c for i in range(1, 10))
    inf = units_of(p12, "rifle-company-43")[0]
    st.hex[tank] = -1
    st.hex[inf] = b
    st.active[inf] = True
    n = assault.cat_options(t, st, 0 if p12.sides[0] == "russian" else 1)
    assert all(st.opts[i, 0] != c for i in range(1, n))           # 9.2.4: no CAT at a minefield hex
    st.mine_col[c] = -1
    st.mine_col[b] = mine_col(p12)
    assert not assault.cat_eligible(t, st, inf, t.u_side[inf])    # 9.2.3: nor from one


# ----------------------------------------------------------------------------- blocks (15.3)

def test_pb2_15_3_2_only_infantry_from_next_to_it_and_it_stops_there(p12):
    t = p12.tables
    (a, b, c), _ = open_line(t)
    st = fresh(p12)
    st.block[b] = True
    tank = units_of(p12, "t-34-c")[0]
    inf = units_of(p12, "rifle-platoon-german-42")[0]      # 2 SP: with the block's 4, the limit of 6
    st.hex[tank] = a
    n = movement.reachable(t, st, tank, a, 0, t.t_ma[t.u_type[tank]], True)
    assert b not in set(st.order[:n].tolist())                    # no vehicle
    st.hex[tank] = -1
    st.hex[inf] = a
    n = movement.reachable(t, st, inf, a, 0, 8, True)             # (MA raised: it still stops there)
    reached = set(st.order[:n].tolist())
    assert b in reached and all(st.prev[h] != b for h in reached)
    # not from two hexes away
    far = c
    st.hex[inf] = far
    st.block[b] = False
    st.block[a] = True
    n = movement.reachable(t, st, inf, far, 0, 8, True)
    assert a not in set(st.order[:n].tolist())


def test_pb2_15_3_2_2_a_block_counts_four_stacking_points_and_negates_the_road(p12):
    t = p12.tables
    st = fresh(p12)
    h = next(int(x) for x in np.flatnonzero(t.play) if t.cover[x] == CLEAR)
    base = combat.stack_sp(t, st, h, 0, -1)
    st.block[h] = True
    assert combat.stack_sp(t, st, h, 0, -1) == base + t.block_sp == base + 4
    frm, k, road = next((int(x), k, int(t.neighbours[x, k])) for x in np.flatnonzero(t.play) for k in range(6)
                        if t.road_side[x, k] and t.neighbours[x, k] >= 0 and t.play[t.neighbours[x, k]]
                        and t.cover[t.neighbours[x, k]] == CLEAR and t.cover[x] == CLEAR)
    inf = units_of(p12, "rifle-platoon-german-42")[0]
    st.hex[inf] = frm
    st.block[:] = False
    movement.reachable(t, st, inf, frm, 0, 8, True)
    assert st.reach[road] == 1                                    # the road rate
    st.block[road] = True
    n = movement.reachable(t, st, inf, frm, 0, 8, True)
    assert road in set(st.order[:n].tolist())
    assert st.reach[road] == movement.enter_cost(t, inf, frm, k, road, False) > 1
    # a classic Russian company (3 SP, conversion.md#stacking-points) does not fit beside a block
    rus = units_of(p12, "rifle-company-43")[0]
    st.hex[inf] = -1
    st.hex[rus] = frm
    n = movement.reachable(t, st, rus, frm, 0, 8, True)
    assert road not in set(st.order[:n].tolist())


# ----------------------------------------------------------------------------- fortifications (15.5)

def _fort_position(p, seed=1):
    t = p.tables
    (a, b, c), d = open_line(t)
    st = fresh(p, seed)
    k = fort_index(t)
    st.fort[b] = k
    ger = units_of(p, "rifle-platoon-german-42")[:2]
    for u in ger:
        st.hex[u] = b
        st.in_fort[u] = True
    return t, st, a, b, c, k, ger


def test_pb2_15_5_3_units_in_a_fortification_one_armored_target_with_its_df_and_plus_two(p12):
    t, st, a, b, c, k, ger = _fort_position(p12)
    tank = units_of(p12, "t-34-c")[0]
    inf = units_of(p12, "rifle-company-43")[0]
    rus = int(t.u_side[tank])
    st.hex[tank], st.hex[inf] = a, a
    st.active[tank] = st.active[inf] = True
    n = game.fire_options(t, st, rus, K_DF)
    rows = [st.opts[i].copy() for i in range(1, n) if st.opts[i, 0] == b]
    assert len(rows) == 1 and rows[0][1] in ger                  # one target: the fortification (not singly)
    assert rows[0][2] == 1                                        # infantry fire no AT at armored targets (7.2.3)
    assert rows[0][5] == 2                                        # both occupants, together
    assert rows[0][3] == combat.at_column(t, combat.at_value(t, st, tank) - t.mk_df[k])
    tg = np.array(ger, dtype=np.int64)
    with_fort = combat.defender_drm(t, st, tg, 2, False, K_DF, False, False)
    st.in_fort[ger[0]] = st.in_fort[ger[1]] = False
    assert with_fort == combat.defender_drm(t, st, tg, 2, False, K_DF, False, False) + 2
    assert t.drm_applies[combat.M_FORT, K_REACTION] and t.drm_applies[combat.M_FORT, K_CAT]
    # out of it they are two non-armored targets again, for AP fire
    n = game.fire_options(t, st, rus, K_DF)
    assert any(st.opts[i, 0] == b and st.opts[i, 1] == -1 for i in range(1, n))


def test_pb2_15_5_4_spotted_as_in_a_town(p12):
    t, st, a, b, c, k, ger = _fort_position(p12)
    assert t.fort_spot == int(t.spot_range[np.flatnonzero(t.cover == TOWN)[0]])
    far = next(int(h) for h in np.flatnonzero(t.play) if t.los[h, b] and t.fort_spot < t.dist[h, b] <= t.spot_range[b])
    tank = units_of(p12, "t-34-c")[0]
    st.hex[tank] = far
    assert not combat.spotted_now(t, st, ger[0])
    st.in_fort[ger[0]] = False
    assert combat.spotted_now(t, st, ger[0])


def test_pb2_15_5_5_a_low_natural_on_a_positive_at_attack_destroys_it():
    # a weaker fortification (DF 3) so that an SU-152 (AT 6) attacks it at a positive differential
    p12 = prepare(load_situation(CARD.format("12"), {"units.fort-40.full.df": 3}))
    t = p12.tables
    tank = units_of(p12, "su-152")[0]
    gone = 0
    for seed in range(1, 60):
        t_, st, a, b, c, k, ger = _fort_position(p12, seed)
        st.hex[tank] = a
        f = np.array([tank], dtype=np.int64)
        col = combat.fire_column(t, st, f, 1, np.ones(1, dtype=np.int64), np.array(ger), 2, True)
        assert t.dft_at_diff[col] > 0                                 # a positive differential
        combat.resolve_attack(t, st, f, 1, np.ones(1, dtype=np.int64), b, np.array(ger, dtype=np.int64), 2, True,
                              K_DF, False, False, int(t.u_side[tank]), -99, 0)
        e = st.ev[np.flatnonzero(st.ev[:st.n_ev[0], 2] == EV_FIRE)[-1]]
        if e[6] <= t.fort_destroy_max:
            assert st.fort[b] < 0 and not st.in_fort[ger].any()
            gone += 1
        else:
            assert st.fort[b] == k
    assert gone > 0


def test_pb2_15_5_7_8_2_4_no_overrun_and_15_5_8_no_cat_from_a_fortification(p12):
    t, st, a, b, c, k, ger = _fort_position(p12)
    assert not assault.cat_eligible(t, st, ger[0], int(t.u_side[ger[0]]))
    tank = units_of(p12, "t-34-c")[0]
    st.hex[tank] = a
    st.active[tank] = True
    nl = movement.reachable(t, st, tank, a, 0, t.t_ma[t.u_type[tank]], False)
    n = overrun.overrun_options(t, st, tank, a, nl)
    assert all(st.opts[i, 0] != b for i in range(1, n))
    # CAT at the fortification's occupants: one armored target with its DF (15.5.3)
    inf = units_of(p12, "rifle-company-43")[:2]
    st.hex[tank] = -1
    for u in inf:
        st.hex[u] = a
        st.active[u] = True
    n = assault.cat_options(t, st, int(t.u_side[inf[0]]))
    rows = [st.opts[i].copy() for i in range(1, n) if st.opts[i, 0] == b]
    assert len(rows) == 1 and rows[0][1] == 2 and rows[0][5] == 2


def test_pb2_15_5_9_one_mp_to_leave_a_fortification_and_15_5_2_capacity(p12):
    t, st, a, b, c, k, ger = _fort_position(p12)
    assert combat.fort_room(t, st, b, units_of(p12, "rifle-platoon-german-42")[2]) == \
        (3 * 2 <= t.mk_cap[k])                                     # three 2-SP platoons in a 6-SP fort
    assert not combat.fort_room(t, st, b, units_of(p12, "stug-iii-g")[0])   # vehicles stay out (reading)
    u = ger[0]
    ma = t.t_ma[t.u_type[u]]
    n = movement.reachable(t, st, u, b, t.fort_extra2, ma, True)
    out_of_fort = {int(h): int(st.reach[h]) for h in st.order[:n]}
    n = movement.reachable(t, st, u, b, 0, ma, True)
    plain = {int(h): int(st.reach[h]) for h in st.order[:n]}
    assert all(out_of_fort[h] == plain[h] + t.fort_extra2 for h in out_of_fort if h != b and plain[h] + t.fort_extra2 <= ma)


def test_pb2_15_5_3_indirect_fire_at_a_fortification_uses_its_df_and_plus_two(p12):
    t, st, a, b, c, k, ger = _fort_position(p12)
    assert t.drm_applies[combat.M_FORT, K_IF]
    assert combat.armored_target(t, st, ger[0]) and combat.target_df(t, st, ger[0]) == t.mk_df[k]
    st.in_fort[ger[0]] = False
    assert not combat.armored_target(t, st, ger[0]) and combat.target_df(t, st, ger[0]) == combat.df_value(t, st, ger[0])


# ----------------------------------------------------------------------------- games

@pytest.mark.parametrize("card", ["01", "12"])
def test_cards_with_artificial_terrain_play_in_debug_mode(card):
    p = prepare(load_situation(str(CARD.format(card)), {}))
    for kind in ("random", "heuristic"):
        pl = RULESET.players.parse([kind], p.sides)
        for seed in range(1, 21):
            g = play_one(p, seed, pl, debug=True)
            assert violation(g) is None, f"pb-{card} {kind} seed {seed}: {violation(g)}"


def test_pb2_15_2_3_4_passengers_forced_out_onto_a_minefield_are_attacked(p12):
    t = p12.tables
    (a, b, c), d = open_line(t)
    truck = units_of(p12, "truck-russian")[0]
    inf = units_of(p12, "rifle-company-43")[0]
    attacked = 0
    for seed in range(1, 40):
        st = fresh(p12, seed)
        st.hex[truck] = b
        st.hex[inf] = -4                                           # CARRIED
        st.carried_by[inf] = truck
        st.mine_col[b] = mine_col(p12)
        st.mine_ok[truck] = True                                    # it was attacked on entering
        # opportunity fire disrupts the truck: its passenger is forced out onto the minefield
        combat.apply_result(t, st, np.array([truck]), 1, 4, np.zeros(1, dtype=np.bool_))   # R_D
        ev = st.ev[:st.n_ev[0]]
        mines = ev[ev[:, 2] == EV_MINE]
        assert len(mines) == 1 and mines[0][4] == b and mines[0][7] == 0
        assert st.carried_by[inf] == -1 and (st.hex[inf] == b or st.hex[inf] == GONE)
        attacked += 1
        # the minefield's own attack forcing them out does not attack them again
        st = fresh(p12, seed)
        st.hex[truck] = a
        st.hex[inf] = -4
        st.carried_by[inf] = truck
        st.mine_col[b] = mine_col(p12)
        st.hex[truck] = b
        game.mine_attack(t, st, truck, b)
        assert (st.ev[:st.n_ev[0], 2] == EV_MINE).sum() == 1
    assert attacked


def test_pb2_oq_72_fortification_vehicles_switch():
    p = prepare(load_situation(CARD.format("12"), {"readings.fortification_vehicles": True}))
    t, st, a, b, c, k, ger = _fort_position(p)
    st.in_fort[ger[1]] = False
    st.hex[ger[1]] = -1
    assert combat.fort_room(t, st, b, units_of(p, "stug-iii-g")[0])   # 2 + 2 SP <= 6
