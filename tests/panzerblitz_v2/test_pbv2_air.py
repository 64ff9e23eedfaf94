"""Air support and anti-aircraft fire (PB2-16, 3.1.1, 3.1.2.2; air.py) in small positions on hod-02
(two rocket Typhoons from turn 2 against a German 20 mm quad flak) and on the card played whole."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simulator.rulesets.panzerblitz_v2 import air, combat, game, transport
from simulator.rulesets.panzerblitz_v2.batch import play_one, prepare, violation
from simulator.rulesets.panzerblitz_v2.players import (
    AA_FIRE,
    AIR_STRIKE,
    HEURISTIC_PARAMS,
    heuristic,
)
from simulator.rulesets.panzerblitz_v2.ruleset import RULESET
from simulator.rulesets.panzerblitz_v2.smoke import place_smoke
from simulator.rulesets.panzerblitz_v2.state import (
    AIR_WAIT,
    AIRBORNE,
    CARRIED,
    EV_AA,
    EV_AIR,
    EV_AIR_FIRE,
    EV_AIR_OPP,
    EV_AIR_OUT,
    EV_CHIT,
    EV_UNPLAYED,
    GONE,
)
from simulator.rulesets.panzerblitz_v2.tables import AA_DD, AA_NONE, AA_X, CLEAR, TR_HALF, WOODS
from simulator.situation import load_situation
from tests.panzerblitz_v2 import positions
from tests.panzerblitz_v2.positions import events, units_of

HOD02 = str(Path(__file__).resolve().parents[2] / "situations" / "panzerblitz-v2" / "hod-02.toml")
RP, BOMB, FLAK = "gb-typhoon-ib-rp", "gb-typhoon-ib-bomb", "20mm_4-aa"


def prep(overrides=None):
    return prepare(load_situation(HOD02, overrides or {}))


@pytest.fixture(scope="module")
def p2():
    return prep()


def state(p, policy=("random",), seed=1, turn=2):
    return positions.state(p, policy, seed, turn)


def open_ground(t, k=4):
    """A clear hex with k clear neighbours (a small field to put units on)."""
    for h in range(t.n_hexes):
        if not (t.play[h] and t.cover[h] == CLEAR and not t.depression[h]):
            continue
        nb = [int(x) for x in t.neighbours[h] if x >= 0 and t.play[x] and t.cover[x] == CLEAR]
        if len(nb) >= k:
            return int(h), nb
    raise AssertionError("no open ground")


def airborne(st, a, over=-1):
    st.hex[a] = AIRBORNE
    st.air_hex[a] = over


def test_pb2_3_1_1_air_chits_in_the_pool_while_an_aircraft_is_in_play(p2):
    t = p2.tables
    st = state(p2, turn=1)
    typhoons = units_of(p2, RP)
    assert len(typhoons) == 2 and all(st.hex[a] == AIR_WAIT for a in typhoons)
    air.pre_operations(t, st)
    assert all(st.hex[a] == AIR_WAIT for a in typhoons) and air.air_chits(t, st, 0) == 0   # turn 1: not yet
    st.turn[0] = 2
    air.pre_operations(t, st)
    assert all(st.hex[a] == AIRBORNE for a in typhoons)
    assert air.air_chits(t, st, 0) == 1 and air.air_chits(t, st, 1) == 0
    air.leave(t, st, typhoons[0], air.OUT_DESTROYED)
    assert air.air_chits(t, st, 0) == 1                   # one still in play
    air.leave(t, st, typhoons[1], air.OUT_RECALLED)
    assert air.air_chits(t, st, 0) == 0
    off = prep({"air.enabled.value": False})              # the card without its air support
    st2 = state(off, turn=2)
    air.pre_operations(off.tables, st2)
    assert all(st2.hex[a] == AIR_WAIT for a in units_of(off, RP)) and air.air_chits(off.tables, st2, 0) == 0


def test_pb2_16_1_8_aircraft_two_levels_above_the_highest_level_see_over_what_blocks_the_ground(p2):
    t = p2.tables
    st = state(p2)
    assert t.air_level == t.level[t.play].max() + 2
    over = blocked = 0
    for a in np.flatnonzero(t.play)[::7]:
        for b in np.flatnonzero((t.dist[a] >= 3) & (t.dist[a] <= 6) & t.play)[::3]:
            s = air.air_sees(t, st, int(a), int(b))
            over += s and not t.los[a, b]
            blocked += not s
    assert over > 0 and blocked > 0        # above woods and slopes, not over every town or wood next to the target
    h, nb = open_ground(t, 6)
    far = [x for x in np.flatnonzero((t.dist[h] == 2) & t.play) if t.cover[x] == CLEAR and air.air_sees(t, st, h, int(x))]
    b = int(far[0])
    mid = next(int(x) for x in nb if t.dist[x, b] == 1)
    assert place_smoke(t, st, mid, False) and not air.air_sees(t, st, h, b)   # 12.2.2: smoke at all elevations


def test_pb2_16_1_9_aircraft_spot_units_in_the_open_not_in_woods_towns_or_forts(p2):
    t = p2.tables
    st = state(p2)
    u = units_of(p2, "de-ss-panzergrenadier-platoon")[0]
    st.hex[u] = open_ground(t, 1)[0]
    assert air.air_spots(t, st, u)
    st.hex[u] = int(np.flatnonzero(t.play & (t.cover == WOODS))[0])
    assert not air.air_spots(t, st, u)
    assert set(np.flatnonzero(t.air_hidden)) == {1, 2, 3, 4, 5}          # town, city, woods, swamp, orchard


def test_pb2_16_1_7_and_16_3_2_range_modifiers_for_bombers_not_fighters_range_0_for_dive_bombers_only():
    p = prep({"units.gb-typhoon-ib-rp.air": "BD", "units.gb-typhoon-ib-rp.rockets": False})
    t = p.tables
    st = state(p)
    a = units_of(p, RP)[0]
    airborne(st, a)
    h, nb = open_ground(t)
    u = units_of(p, "de-ss-panzergrenadier-platoon")[0]
    st.hex[u] = h
    assert air.strike_drm(t, st, a, 1) == t.range_mod[1] == -1 and air.strike_drm(t, st, a, 0) == t.range_mod[0] == -2
    n = air.strike_options(t, st, a)
    rows = st.opts[1:n]
    assert (rows[:, 0] == h).all() and h in rows[:, 2] and set(rows[:, 2]) - {h} <= set(nb)   # over it too (BD)
    st.steps[a] = 1                                             # (as if an FB on its F side)
    p_fb = prep()
    fb = units_of(p_fb, RP)[0]
    st_fb = state(p_fb)
    airborne(st_fb, fb)
    st_fb.hex[units_of(p_fb, "de-ss-panzergrenadier-platoon")[0]] = h
    n = air.strike_options(p_fb.tables, st_fb, fb)
    assert h not in st_fb.opts[1:n, 2]                          # only dive bombers at range 0
    assert air.strike_drm(p_fb.tables, st_fb, fb, 1) == -1      # rockets: the DF of 7.0, range modifiers
    st_fb.steps[fb] = 1
    assert air.fighter_mode(p_fb.tables, st_fb, fb) and air.strike_drm(p_fb.tables, st_fb, fb, 1) == 0


def strike_position(p, policy=("random",), seed=1):
    """A Typhoon in play, a German platoon in the open and the flak two hexes off it."""
    t = p.tables
    st = state(p, policy, seed)
    a = units_of(p, RP)[0]
    airborne(st, a)
    h, nb = open_ground(t)
    u = units_of(p, "de-ss-panzergrenadier-platoon")[0]
    st.hex[u] = h
    st.unspotted[u] = True
    f = units_of(p, FLAK)[0]
    st.hex[f] = int(next(x for x in np.flatnonzero((t.dist[h] == 2) & t.play) if t.move_cost[x, 2] >= 0))
    return t, st, a, u, f, h, nb


def test_pb2_16_3_4_a_rocket_fighter_bomber_attacks_as_direct_fire_then_flips_to_its_f_side(p2):
    t, st, a, u, f, h, nb = strike_position(p2)
    assert st.steps[a] == 2 and not air.bomb_attack(t, st, a)
    air.resolve_strike(t, st, a, h, -1, nb[0], False)
    fire = events(st, EV_AIR_FIRE)
    assert len(fire) == 1 and fire[0, 4] == h
    assert st.steps[a] == 1 and st.spent[a] and st.hex[a] == AIRBORNE           # F side, Spent (16.1.3)
    assert st.air_recall[a] == (fire[0, 6] >= t.air_recall_roll)                 # 16.3.4: 10+ on the first roll
    assert not st.unspotted[u]                                                   # 16.1.9, PB2-OQ-76


def test_pb2_16_3_1_a_bomb_attack_hits_every_unit_of_the_hex_separately_as_if_and_a_bomber_is_removed():
    p = prep({"units.gb-typhoon-ib-rp.air": "B"})
    t, st, a, u, f, h, nb = strike_position(p)
    v = units_of(p, "de-ss-panzergrenadier-platoon")[1]
    st.hex[v] = h
    assert air.bomb_attack(t, st, a)
    air.resolve_strike(t, st, a, h, -1, nb[0], False)
    assert len(events(st, EV_AIR_FIRE)) == 2                                     # one roll a unit (11.3.2)
    assert st.hex[a] == GONE and st.steps[a] == 0 and events(st, EV_AIR_OUT)[0, 5] == air.OUT_BOMBED


def test_pb2_16_3_3_a_fighter_rolling_10_or_more_is_recalled_in_the_administration(p2):
    t = p2.tables
    for seed in range(1, 60):
        t, st, a, u, f, h, nb = strike_position(p2, seed=seed)
        st.steps[a] = 1                                   # on its F side
        air.resolve_strike(t, st, a, h, -1, nb[0], False)
        roll = int(events(st, EV_AIR_FIRE)[0, 6])
        assert st.air_recall[a] == (roll >= 10)
        if roll >= 10:
            air.administration(t, st)                     # 16.1.1
            assert st.hex[a] == GONE and events(st, EV_AIR_OUT)[0, 5] == air.OUT_RECALLED
            return
    raise AssertionError("no roll of 10+ in 59 seeds")


def test_pb2_16_4_3_1_aa_range_is_half_the_printed_range_rounded_down_and_needs_sight(p2):
    t, st, a, u, f, h, nb = strike_position(p2)
    assert t.t_range[t.u_type[f]] == 10 and air.aa_range(t, f) == 5
    st.air_hex[a] = h
    st.air_tgt[a] = h
    assert air.flak_at(t, st, 0, h) == 1
    far = next(int(x) for x in np.flatnonzero((t.dist[h] == 6) & t.play) if t.move_cost[x, 2] >= 0)
    st.hex[f] = far
    assert air.flak_at(t, st, 0, h) == 0


def aa_position(p, seed=1):
    t, st, a, u, f, h, nb = strike_position(p, ("heuristic",), seed)
    st.air_hex[a] = nb[0]
    st.air_tgt[a] = h
    st.air_unit[a] = -1
    return t, st, a, u, f, h, nb


def test_pb2_16_4_5_aa_x_destroys_the_aircraft_before_its_attack_and_the_aa_unit_is_spent():
    p = prep({f"aa.column.2.{r}.value": 12 for r in ("X", "DD", "D2", "D1")})   # every roll an X
    for seed in range(1, 20):
        t, st, a, u, f, h, nb = aa_position(p, seed)
        air.aa_step(t, st, 1, -1)
        aa = events(st, EV_AA)
        assert len(aa) == 1 and st.spent[f]                                      # 16.4.4
        if aa[0, 6] < t.aa_miss:
            assert aa[0, 8] == AA_X and st.hex[a] == GONE and st.steps[a] == 0   # no attack left
            return
    raise AssertionError


def test_pb2_16_4_5_dd_puts_3_on_the_attack_and_recalls_it_d_hash_adds_and_several_add_oq_75():
    t = prep().tables
    assert tuple(t.aa_pen) == (0, 3, 2, 1, 0)
    p = prep({"aa.column.2.X.value": 1, "aa.column.2.DD.value": 12, "aa.column.2.D2.value": 12,
              "aa.column.2.D1.value": 12})
    for seed in range(1, 20):
        t, st, a, u, f, h, nb = aa_position(p, seed)
        air.engage(t, st, f, a)
        res = int(events(st, EV_AA)[0, 8])
        if res == AA_DD:
            assert st.air_pen[a] == 3 and st.air_recall[a] and st.hex[a] == AIRBORNE
            air.engage(t, st, f, a)
            if int(events(st, EV_AA)[1, 8]) == AA_DD:
                assert st.air_pen[a] == 6                                        # PB2-OQ-75: they add
            break
    p1 = prep({"aa.column.2.X.value": 1, "aa.column.2.DD.value": 1, "aa.column.2.D2.value": 1,
               "aa.column.2.D1.value": 12, "readings.aa_results_add": False})
    t, st, a, u, f, h, nb = aa_position(p1, 3)
    for _ in range(3):
        air.engage(t, st, f, a)
    got = events(st, EV_AA)[:, 8]
    assert st.air_pen[a] == (1 if (got != AA_NONE).any() else 0)                 # the worst only


def test_pb2_16_4_2_each_aa_unit_engages_one_attacking_aircraft_heuristic_fires_when_it_may_hit(p2):
    t, st, a, u, f, h, nb = aa_position(p2)
    b = units_of(p2, RP)[1]
    airborne(st, b, nb[1])
    st.air_tgt[b] = h
    air.aa_step(t, st, 1, -1)
    aa = events(st, EV_AA)
    assert len(aa) == 1 and aa[0, 4] == f and aa[0, 5] in (a, b)                 # one shot, one aircraft
    n_opts = 3
    opts = np.zeros((n_opts, 10), dtype=np.int32)
    opts[0, 0] = -1
    opts[1] = (a, 2, -1, 3, 15, 2, 0, 0, 0, 0)
    opts[2] = (b, 2, 1, 1, 3, 0, 0, 0, 0, 0)
    params = np.array([v.default for v in HEURISTIC_PARAMS.values()])
    rng = np.random.default_rng(1)
    assert heuristic(AA_FIRE, opts, n_opts, t, st, 1, params, rng) == 1
    opts[1, 4] = 1
    assert heuristic(AA_FIRE, opts, n_opts, t, st, 1, params, rng) == 0        # under aa_min: hold


def test_pb2_16_3_5_3_1_2_2_the_air_operation_declares_then_aa_then_attacks(p2):
    t, st, a, u, f, h, nb = strike_position(p2, ("heuristic",))
    b = units_of(p2, RP)[1]
    airborne(st, b)
    air.air_operation(t, st, 0)
    ev = st.ev[:st.n_ev[0]]
    kinds = [int(k) for k in ev[:, 2]]
    assert kinds[0] == EV_CHIT and ev[0, 7] == 2 and ev[0, 6] == 2                # an Air Support chit, 2 ready
    declared = [i for i, k in enumerate(kinds) if k == EV_AIR]
    fired = [i for i, k in enumerate(kinds) if k == EV_AIR_FIRE]
    shots = [i for i, k in enumerate(kinds) if k == EV_AA]
    assert declared and fired and max(declared) < min(fired)                     # 16.3.5: declared first
    assert all(max(declared) < s < min(fired) for s in shots)                    # 16.4.2: AA before the attacks
    assert all(st.air_tgt[x] == -1 for x in (a, b))


def test_air_strike_heuristic_takes_the_most_expected_losses_less_flak_or_holds(p2):
    t = p2.tables
    st = state(p2)
    opts = np.zeros((3, 10), dtype=np.int32)
    opts[0, 0] = -1
    opts[1] = (10, -1, 11, 5, 0, 1, 0, 2, 0, 60)
    opts[2] = (12, -1, 13, 5, 0, 1, 0, 0, 0, 50)
    params = np.array([v.default for v in HEURISTIC_PARAMS.values()])
    params[list(HEURISTIC_PARAMS).index("jitter")] = 0.0
    rng = np.random.default_rng(1)
    assert heuristic(AIR_STRIKE, opts, 3, t, st, 0, params, rng) == 2           # 0.6 - 2 x 0.15 < 0.5
    opts[1, 9] = opts[2, 9] = 20
    assert heuristic(AIR_STRIKE, opts, 3, t, st, 0, params, rng) == 0           # below air_min: no attack


def test_pb2_16_1_4_an_aircraft_in_play_opportunity_fires_at_a_mover_in_range_then_is_spent(p2):
    t, st, a, u, f, h, nb = strike_position(p2, ("heuristic:opp_fire_min=0",))
    st.air_hex[a] = nb[0]
    assert air.opportunity(t, st, u, h) in (True, False)
    assert len(events(st, EV_AIR_OPP)) == 1 and st.spent[a]
    n = st.n_ev[0]
    air.opportunity(t, st, u, h)
    assert st.n_ev[0] == n                                                       # Spent: no more this turn
    st2 = state(p2, ("heuristic:opp_fire_min=0",))
    airborne(st2, a)                                                             # not placed yet: nowhere to fire from
    st2.hex[u] = h
    air.opportunity(t, st2, u, h)
    assert len(events(st2, EV_AIR_OPP)) == 0


def test_pb2_3_1_2_oq_5_a_last_drawn_air_chit_is_not_executed_unless_the_reading_says_so(p2):
    players = RULESET.players.parse(["random"], p2.sides)
    p_on = prep({"readings.last_air_chit_executed": True})
    for seed in range(1, 40):
        g = play_one(p2, seed, players)
        ev = g.state.ev[:g.state.n_ev[0]]
        last = ev[(ev[:, 2] == EV_UNPLAYED) & (ev[:, 7] == 2)]
        if not len(last):
            continue
        turn = int(last[0, 0])
        g2 = play_one(p_on, seed, players)
        ev2 = g2.state.ev[:g2.state.n_ev[0]]
        assert not ((ev2[:, 2] == EV_UNPLAYED) & (ev2[:, 0] == turn)).any()
        chits = ev2[(ev2[:, 2] == EV_CHIT) & (ev2[:, 0] == turn)]
        assert chits[-1, 7] == 2                                                 # the turn's last Operation: air
        return
    raise AssertionError("no air chit drawn last in 39 games")


def test_hod02_air_support_and_aa_are_played_by_both_players_in_debug_mode(p2):
    counts = {EV_AIR: 0, EV_AIR_FIRE: 0, EV_AA: 0}
    for pol in (["heuristic"], ["random"]):
        players = RULESET.players.parse(pol, p2.sides)
        for seed in range(1, 9):
            g = play_one(p2, seed, players, debug=True)
            assert violation(g) is None, (pol, seed, violation(g))
            ev = g.state.ev[:g.state.n_ev[0]]
            for k in counts:
                counts[k] += int((ev[:, 2] == k).sum())
            nu = p2.tables.n_units
            assert not (g.state.hex[:nu][p2.tables.u_air] >= 0).any()             # never on the map
    assert all(v > 0 for v in counts.values()), counts
    assert game.AIR_CHIT == 98


def test_replay_tells_and_maps_a_game_with_air_strikes_and_aa_fire(p2):
    from simulator.rulesets.panzerblitz_v2.replay import PBV2Replay

    players = RULESET.players.parse(["random"], p2.sides)
    for seed in range(1, 30):
        g = play_one(p2, seed, players)
        ev = g.state.ev[:g.state.n_ev[0]]
        if (ev[:, 2] == EV_AA).any() and (ev[:, 2] == EV_AIR_OUT).any():
            r = PBV2Replay(p2, g)
            text = "\n".join(r.lines())
            assert "Air Support chit" in text and "AA fire at" in text and "strikes" in text
            assert len(r.frames()) == p2.tables.turns + 1 or len(r.frames()) > 1
            return
    raise AssertionError("no game with AA fire and an aircraft out in 29 seeds")


def test_an_unknown_aircraft_names_the_unit_files_it_was_looked_for_in(tmp_path):
    # Bad input (PB2 16.0 air groups): a misspelt aircraft id is reported with its field and every
    # unit file of the ruleset, units-air.toml among them (the message once named only two).
    from simulator.errors import DataErrors

    bad = tmp_path / "hod-02-bad.toml"
    bad.write_text(Path(HOD02).read_text().replace("gb-typhoon-ib-rp = 2", "gb-typhon-ib-rp = 2"))
    with pytest.raises(DataErrors) as err:
        load_situation(str(bad))
    text = str(err.value)
    assert "group[4].units.gb-typhon-ib-rp: unknown unit" in text
    assert "units-classic.toml, units-hod.toml or units-air.toml" in text


def rider_position(p, policy=("random",), seed=1):
    """strike_position with a PzKpfw IV in the Germans' hex carrying their platoon (4.3.7), the
    Typhoon over the next hex, everything spotted."""
    t, st, a, u, f, h, nb = strike_position(p, policy, seed)
    tank = units_of(p, "pzkw-iv-h")[0]
    st.hex[tank] = h
    transport.load(t, st, tank, u, TR_HALF)
    st.air_hex[a] = nb[0]
    st.unspotted[:] = False
    return t, st, a, u, tank, h


def test_pb2_16_1_4_with_4_3_7_1_an_aircraft_opportunity_fires_at_a_rider_apart_from_its_afv(p2):
    """An AFV entering a hex in a Typhoon's range offers the aircraft an OPP_FIRE row per rider beside
    the AFV's own (column 4 = the rider): AP against DF 1 (4.3.7.1), the modifiers of the aircraft's
    DF; the rider's result leaves the AFV's steps alone, a Disrupted rider is forced off and the AFV
    Disrupted (4.3.7.3).  The heuristic takes the row of the most expected losses, the random player
    either."""
    t, st, a, u, tank, h = rider_position(p2)
    assert combat.rider(t, st, u) and st.hex[u] == CARRIED
    targets = np.empty(t.n_units, dtype=np.int64)
    val = np.zeros(4, dtype=np.int64)
    assert air.rider_rows(t, st, a, tank, h, 2, targets, val) == 3 and st.opts[2, 4] == u
    rider_col = combat.ap_column(t, combat.ap2(t, st, a), t.rider_df)
    assert st.opts[2, 2] == rider_col
    afv = np.zeros(4, dtype=np.int64)
    air.row_value(t, st, a, h, tank, t.dist[st.air_hex[a], h], targets, afv)
    assert afv[0] != rider_col
    # the heuristic: the rider row when it promises more step losses than the AFV's
    rider_e = combat.expected_steps(t, int(st.opts[2, 2]), int(st.opts[2, 3]), 1, 0.0)
    afv_e = combat.expected_steps(t, int(afv[0]), int(afv[1]), 1, 0.0)
    kinds = set()
    hit = 0
    for seed in range(40):
        for policy in (("random",), ("heuristic:opp_fire_min=0,jitter=0",)):
            t, st, a, u, tank, h = rider_position(p2, policy, seed)
            steps_tank = int(st.steps[tank])
            air.opportunity(t, st, tank, h)
            shots = events(st, EV_AIR_OPP)
            if policy[0] == "random" and len(shots) == 0:
                continue                                            # (it held)
            assert len(shots) == 1 and st.spent[a]
            at_rider = int(shots[0, 5]) == rider_col
            if policy[0] == "random":
                kinds.add(at_rider)
            else:
                assert at_rider == (rider_e > afv_e)
            if at_rider:
                assert st.steps[tank] == steps_tank                 # no adverse effect on the AFV...
                if st.steps[u] < t.t_steps[t.u_type[u]] or st.disrupted[u]:
                    hit += 1                                        # ...but 4.3.7.3 when the rider is Disrupted
                    assert st.carried_by[u] == -1 and (st.disrupted[tank] or st.steps[u] == 0)
    assert kinds == {True, False} and hit > 0


def test_pb2_16_1_3_with_4_3_7_1_an_air_strike_may_take_a_rider_apart_from_its_afv(p2):
    """An air operation's DF strike (16.1.3) offers the rider of an AFV as a target of its own (an
    AIR_STRIKE row whose target unit is the rider: AP against DF 1); resolved, the AFV keeps its
    steps, a Disrupted rider is forced off with its AFV Disrupted (4.3.7.3)."""
    t, st, a, u, tank, h = rider_position(p2)
    n = air.strike_options(t, st, a)
    rows = [tuple(int(x) for x in st.opts[i, :10]) for i in range(1, n)]
    at_rider = [r for r in rows if r[0] == h and r[1] == u]
    at_tank = [r for r in rows if r[0] == h and r[1] == tank]
    assert at_rider and at_tank
    assert at_rider[0][3] == combat.ap_column(t, combat.ap2(t, st, a), t.rider_df) != at_tank[0][3]
    hit = 0
    for seed in range(40):
        t, st, a, u, tank, h = rider_position(p2, seed=seed)
        steps_tank = int(st.steps[tank])
        air.resolve_strike(t, st, a, h, u, at_rider[0][2], False)
        assert len(events(st, EV_AIR_FIRE)) == 1 and st.steps[tank] == steps_tank
        if st.steps[u] < t.t_steps[t.u_type[u]] or st.disrupted[u]:
            hit += 1
            assert st.carried_by[u] == -1 and (st.disrupted[tank] or st.steps[u] == 0)
    assert hit > 0
