"""First Panzer Army: each reading switch of readings.toml changes a small position the way its
documented reading says (docs/first-panzer-army/rules-digest.md, Open questions OQ-FPA-n), each
switched through the data (`--set readings.KEY=VALUE`), not by poking the kernels' constants;
and the example turn's second attack on 9 Mech (rules-digest.md section 16, steps 5-6 and the end
state) on the reconstructed map."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from simulator.rulesets.first_panzer_army import consts as c
from simulator.rulesets.first_panzer_army.combat import (
    E_ATT,
    E_COL,
    E_DEF,
    E_N,
    E_SHIFT,
    attack,
    attack_factor,
    eliminate_step,
    evaluate,
    probe_ok,
    retreat_ok,
)
from simulator.rulesets.first_panzer_army.engine import prepare
from simulator.rulesets.first_panzer_army.movement import can_exit, reachable
from simulator.rulesets.first_panzer_army.rng import dice_state, die
from simulator.rulesets.first_panzer_army.state import G_ELIM_VP, G_TURN, G_WEATHER
from simulator.rulesets.first_panzer_army.zoc import place, refresh_lines
from simulator.situation import load_situation
from tests.first_panzer_army.test_fpa_cases import followed, force, open_ground
from tests.first_panzer_army.test_fpa_rules import SITUATION, H, U, empty, put


@cache
def reading(key: str = "", value=None):
    """The ruleset prepared with one reading switched through the data (None: the defaults)."""
    overrides = {f"readings.{key}": value} if key else None
    return prepare(load_situation(SITUATION, overrides=overrides))


@pytest.fixture(scope="module")
def prep():
    return reading()


def shift_and_factors(S, t, side: int, target: int) -> tuple[int, int, int, int]:
    ev = np.zeros(E_N, dtype=np.int64)
    evaluate(S, t, side, target, c.SEG_FIGHT, 0, 0, ev)
    return int(ev[E_SHIFT]), int(ev[E_ATT]), int(ev[E_DEF]), int(ev[E_COL])


# ----------------------------------------------------------------------------- OQ-FPA-11

@pytest.mark.parametrize("switch", [False, True])
def test_reading_probe_in_storm_oq_fpa_11_13_6_7_5(switch):
    """13.6 probes need a Soviet ZOC and 7.5 has none in storm: no probe in storm ("false",
    default); "true" lets a probe enter a hex next to a Soviet unit in storm all the same."""
    p = reading("probe_in_storm", switch)
    t = p.t
    h = open_ground(p)
    probed = int(t.neighbours[h, 0])
    S = empty(p, weather=c.STORM)
    at = {"9-mc": h, "16-pz": int(t.neighbours[probed, 0])}
    for uid, x in at.items():
        place(S, t, U(p, uid), x)
    refresh_lines(S, t)
    assert probe_ok(S, t, probed) == switch
    S.g[G_WEATHER] = c.THAW                    # in thaw both readings probe
    assert probe_ok(S, t, probed)


# ----------------------------------------------------------------------------- OQ-FPA-27

@pytest.mark.parametrize("switch", [True, False])
def test_reading_bonuses_cumulative_oq_fpa_27_13_5_13_8_2(switch):
    """16 Pz with 509 Tiger (13.5: Tiger 1R with a division in its hex) in one hex and 371 Inf
    opposite (13.8.2: concentric, German 2R) attack 9 Mech: the shifts add up (default) or only
    the strongest counts ("false")."""
    p = reading("bonuses_cumulative", switch)
    t = p.t
    h = open_ground(p)
    S = empty(p)
    for uid, x in (("9-mc", h), ("16-pz", t.neighbours[h, 0]), ("509-tiger", t.neighbours[h, 0]),
                   ("371-inf", t.neighbours[h, 3])):
        place(S, t, U(p, uid), int(x))
    refresh_lines(S, t)
    shift = shift_and_factors(S, t, c.GERMAN, h)[0]
    conc, tiger = int(t.k[c.K_CONC_GER]), int(t.k[c.K_TIGER_ATT])
    assert conc > 0 and tiger > 0
    assert shift == (conc + tiger if switch else max(conc, tiger))


# ----------------------------------------------------------------------------- OQ-FPA-17

@pytest.mark.parametrize("switch", [False, True])
def test_reading_stand_fast_binds_retreat_oq_fpa_17_3_2_6(switch):
    """3.2(6): on turn 1 a German unit set up in or east of the stand-fast column may not go
    west of it.  Retreats are the German player's (13.9) and not bound (default); "true" binds
    them too, on turn 1 only."""
    p = reading("stand_fast_binds_retreat", switch)
    t = p.t
    col = int(t.k[c.K_STAND_FAST_COL])
    here = next(h for h in range(len(p.labels)) if t.fpa_col[h] == col and not t.restricted[h]
                and (t.neighbours[h] >= 0).all() and any(t.fpa_col[x] == col - 1 for x in t.neighbours[h]))
    west = next(int(x) for x in t.neighbours[here] if t.fpa_col[x] == col - 1)
    S = empty(p, turn=int(t.k[c.K_STAND_FAST_TURN]))
    u = U(p, "16-pz")
    place(S, t, u, here)
    S.u_start[u] = here
    refresh_lines(S, t)
    assert retreat_ok(S, t, u, west) == (not switch)
    S.g[G_TURN] += 1                               # the order binds turn 1 only
    assert retreat_ok(S, t, u, west)


# ----------------------------------------------------------------------------- OQ-FPA-18

@pytest.mark.parametrize("switch", [True, False])
def test_reading_artillery_cap_after_oos_oq_fpa_18_13_2_8_3(switch):
    """13.2: Soviet artillery adds no more AF than the non-artillery units attacking with it.
    A tank corps out of supply attacks at half AF, rounded up (8.3), from one hex; the artillery
    and a rifle corps, in supply, from another.  The cap counts the tank corps' halved AF
    (default) or its printed AF ("false")."""
    p = reading("artillery_cap_after_oos", switch)
    t = p.t
    h = open_ground(p)
    S = empty(p)
    tank, rifle = U(p, "6-gtc"), U(p, "15-rc")
    arts = [U(p, a) for a in ("17-b-art", "13-b-art", "1-gart")]
    place(S, t, U(p, "16-pz"), h)
    cut, fed = int(t.neighbours[h, 0]), int(t.neighbours[h, 3])
    place(S, t, tank, cut)
    for u in [rifle, *arts]:
        place(S, t, u, fed)
    refresh_lines(S, t)
    S.supply[cut], S.supply[fed] = 0, 1            # as a trace would find them (8.3)
    full = attack_factor(S, t, tank)
    half = (full * int(t.k[c.K_OOS_AF_PM]) + 999) // 1000
    other = attack_factor(S, t, rifle)
    art = sum(attack_factor(S, t, a) for a in arts)
    assert half < full and art > full + other      # the cap bites, and the reading matters
    att = shift_and_factors(S, t, c.SOVIET, h)[1]
    assert att == half + other + (half if switch else full) + other


# ----------------------------------------------------------------------------- OQ-FPA-19

@pytest.mark.parametrize("switch", [False, True])
def test_reading_soviet_retreat_into_restricted_oq_fpa_19_12_5_13_9(switch):
    """12.5: no Soviet unit may enter the no-go area; the German player, retreating a Soviet
    unit (13.9), may not send it there (default) or may ("true")."""
    p = reading("soviet_retreat_into_restricted", switch)
    t = p.t
    edge = next(h for h in range(len(p.labels)) if not t.restricted[h]
                and any(x >= 0 and t.restricted[x] for x in t.neighbours[h]))
    into = next(int(x) for x in t.neighbours[edge] if x >= 0 and t.restricted[x])
    S = empty(p)
    u = U(p, "9-mc")
    place(S, t, u, edge)
    refresh_lines(S, t)
    assert retreat_ok(S, t, u, into) == switch


# ----------------------------------------------------------------------------- OQ-FPA-22

@pytest.mark.parametrize("switch", ["in_hex", "in_combat"])
def test_reading_tiger_division_oq_fpa_22_13_5(switch):
    """13.5: the Tiger shifts a German attack 1R when a German division is in its hex.  The
    division may have attacked already ("in_hex", default) or must take part ("in_combat")."""
    p = reading("tiger_division", switch)
    t = p.t
    h = open_ground(p)
    S = empty(p)
    frm = int(t.neighbours[h, 0])
    for uid, x in (("9-mc", h), ("16-pz", frm), ("509-tiger", frm)):
        place(S, t, U(p, uid), x)
    refresh_lines(S, t)
    with_division = shift_and_factors(S, t, c.GERMAN, h)[0]
    S.u_attacked[U(p, "16-pz")] = 1                # 16 Pz has made its attack this segment
    without = shift_and_factors(S, t, c.GERMAN, h)[0]
    assert with_division == int(t.k[c.K_TIGER_ATT])
    assert without == (with_division if switch == "in_hex" else 0)


# ----------------------------------------------------------------------------- OQ-FPA-26

@pytest.mark.parametrize("switch", [True, False])
def test_reading_artillery_division_scores_oq_fpa_26_4_2(switch):
    """4.2: a German division eliminated out of C&C gives the Soviets its steps.  The 18th
    Artillery Division counts as one (default) or not ("false"); an infantry division always."""
    p = reading("artillery_division_scores", switch)
    t = p.t
    h = open_ground(p)
    for uid, scores in (("18-art", switch), ("371-inf", True)):
        S = empty(p)
        u = U(p, uid)
        place(S, t, u, h)
        refresh_lines(S, t)
        S.cc[h] = 0                                # cut off, as a trace would find it
        while S.u_hex[u] >= 0:
            eliminate_step(S, t, u)
        assert S.g[G_ELIM_VP] == (int(t.u_max[u]) if scores else 0), uid


# ----------------------------------------------------------------------------- OQ-FPA-1 (C&C)

@pytest.mark.parametrize("switch", ["allowed", "blocks"])
def test_reading_cc_own_hex_ezoc_oq_fpa_1_9_2_7_4(switch):
    """9.2 / 7.4: a German unit next to a Soviet unit (its hex in the Soviet ZOC) traces C&C
    into its own hex ("allowed", default) or is out of C&C ("blocks", 9.2's "none of these
    hexes" read literally); a hex two away is in C&C either way."""
    p = reading("cc_own_hex_ezoc", switch)
    t = p.t
    h = open_ground(p)
    S = empty(p)
    next_to = int(t.neighbours[h, 0])
    place(S, t, U(p, "9-mc"), h)
    place(S, t, U(p, "16-pz"), next_to)
    refresh_lines(S, t)
    assert S.cc[next_to] == (1 if switch == "allowed" else 0)
    assert S.cc[int(t.neighbours[next_to, 0])] == 1


# ----------------------------------------------------------------------------- OQ-FPA-7

@pytest.mark.parametrize("switch", ["south_edge_columns_07_17", "odd_columns_only"])
def test_reading_exit_hexes_oq_fpa_7_4_1(switch):
    """4.1: Soviet units exit "between 0729 and 1729, inclusive": every south-edge hex of
    columns 07-17 (default, 11 hexes) or only the row-29 hexes of the odd columns (6).  A corps
    on 0828 with just the exit's MP leaves from its own hex only in the default reading."""
    p = reading("exit_hexes", switch)
    t = p.t
    labels = sorted(p.labels[h] for h in np.flatnonzero(t.exit_hex))
    if switch == "odd_columns_only":
        assert labels == ["0729", "0929", "1129", "1329", "1529", "1729"]
    else:
        assert len(labels) == 11 and "0828" in labels and "1628" in labels
    S = empty(p)
    u = U(p, "6-gtc")
    place(S, t, u, H(p, "0828"))
    refresh_lines(S, t)
    mf = int(t.k[c.K_EXIT_COST])
    reachable(S, t, u, mf)
    assert can_exit(S, t, u, mf) == (H(p, "0828") if switch == "south_edge_columns_07_17" else -1)


# ----------------------------------------------------------------------------- the example turn

def die_first(roll: int) -> np.ndarray:
    """A dice state whose first die is `roll`."""
    for seed in range(1, 1000):
        st = dice_state(seed)
        if die(st.copy()) == roll:
            return st
    raise AssertionError(f"no seed under 1000 rolls {roll} first")


def test_example_turn_second_attack_on_9_mech_3_to_1_dl1_dr_and_the_end_state(prep):
    """Rules section 16, steps 5-6 and the end: frost, the German holds 2 of his 3 CAS markers,
    the KG in 2219.  16 Pz (1919), 509 Tiger (2018), 371 Inf (2119), 208 Inf (2120) and 11 Pz
    (2020) attack 9 Mech in 2019: 13 v 9 = 1:1 (OQ-FPA-5: DF 9), KG 1R, concentric 2R, 2019
    rough 1L (OQ-FPA-13) = 3:1; die 1: DL1+DR.  9 Mech is reduced and retreats to 1920, its one
    free neighbour; 371 advances into 2019.  At the end (19 Pz probed 2017, 16 Pz 1819, 168 Inf in
    2122) 9 Mech (1920) and 7G (2121) are out of supply (8.0); 6G (2117) is too in the text,
    thanks to German units the example does not place."""
    t = prep.t
    S = empty(prep, weather=c.FROST)
    put(S, prep, **{"16_pz": "1919", "509_tiger": "2018", "371_inf": "2119", "208_inf": "2120",
                    "11_pz": "2020", "9_mc": "2019", "7_gtc": "2121", "6_gtc": "2117", "168_inf": "2122",
                    "19_pz": "2118"})
    S.kg_hex[0] = H(prep, "2219")
    S.cas[c.GERMAN] = 2
    target = H(prep, "2019")
    assert t.terrain[target] == c.ROUGH
    shift, att, dfn, col = shift_and_factors(S, t, c.GERMAN, target)
    assert (att, dfn) == (13, 9) and c.COLUMN_NAMES[col] == "3:1"
    assert shift == int(t.k[c.K_KG_ATT_SHIFT]) + int(t.k[c.K_CONC_GER]) + int(t.tshift[c.ROUGH])
    assert t.crt[0, col] == c.DL1DR
    # the five join (row 0 each time), the KG serves it, no CAS marker, 9 Mech's step and
    # retreat (one option each), 371 advances, then no one else
    attackers = sorted(U(prep, x) for x in ("16-pz", "509-tiger", "371-inf", "208-inf", "11-pz"))
    row_371 = attackers.index(U(prep, "371-inf"))
    S.rng[:] = die_first(1)
    S = force(S, (c.JOIN, 5, 0), (c.JOIN, 5, 0), (c.JOIN, 4, 0), (c.JOIN, 3, 0), (c.JOIN, 2, 0),
              (c.SUPPORT, 2, 0), (c.CAS, 3, 0), (c.LOSS, 1, 0), (c.RETREAT, 1, 0),
              (c.ADVANCE, 6, row_371), (c.ADVANCE, 4, 3))
    result = attack(S, t, c.GERMAN, target, c.SEG_FIGHT)
    followed(S)
    mech = U(prep, "9-mc")
    assert result == c.DL1DR
    assert S.u_steps[mech] == 1 and S.u_hex[mech] == H(prep, "1920")
    assert S.u_hex[U(prep, "371-inf")] == target and S.cas[c.GERMAN] == 2     # 2 CAS unused
    # step 7 and the end: 19 Pz probes 2017, 16 Pz 1819
    place(S, t, U(prep, "19-pz"), H(prep, "2017"))
    place(S, t, U(prep, "16-pz"), H(prep, "1819"))
    refresh_lines(S, t)
    for label in ("1920", "2121"):
        assert S.supply[H(prep, label)] == 0, label
    # 6G's line runs out through 2116, 2216 and 2217, which no unit the example names reaches:
    # the text's "6G out of supply" needs German units of the pocket it does not place.
    open_side = sorted(prep.labels[x] for x in t.neighbours[H(prep, "2117")] if S.zoc[c.GERMAN, x] == 0)
    assert open_side == ["2116", "2216", "2217"]
