"""First Panzer Army: the rule cases the first rules tests left out, each by its number, in
small positions on the reconstructed map: the CRT's results (13.9), advance after combat
(13.10), probes (13.6), the mechanized segments (5.5), the 18th Artillery Division (13.1),
Soviet artillery (13.2), CAS (13.3), the KG combat bonus (13.4), which units join an attack
(13.0), weather and air (5.1, 5.2, sampled against their tables), reinforcements (10.1),
rifle-corps replacements (11.0), exits and step-loss VP (4.1, 4.2), overstacks (6.0) and the
reading switches (docs/first-panzer-army/rules-digest.md, Open questions)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from simulator.decisions import COUNT, finished, for_record, for_replay
from simulator.rulesets.first_panzer_army import consts as c
from simulator.rulesets.first_panzer_army.combat import (
    E_AD_ATT,
    E_AD_DEF,
    E_ATT,
    E_COL,
    E_DEF,
    E_KG,
    E_N,
    attack,
    cas_usable,
    column,
    eliminate_step,
    evaluate,
    may_attack,
    probe,
    probe_ok,
    stand_fast_blocks,
    support_unit,
)
from simulator.rulesets.first_panzer_army.engine import prepare
from simulator.rulesets.first_panzer_army.game import (
    air_phase,
    combat_segment,
    kg_phase,
    move_with,
    reinforcement_phase,
    replacement_phase,
    resolve_overstacks,
    turn_back,
    victory_points,
    weather_phase,
)
from simulator.rulesets.first_panzer_army.movement import (
    INF,
    exit_map,
    follow_cost,
    move_unit,
    movement_factor,
    reachable,
)
from simulator.rulesets.first_panzer_army.rng import dice_state
from simulator.rulesets.first_panzer_army.state import (
    G_AD_USED,
    G_BLOCK_DIR,
    G_BLOCK_HEX,
    G_ELIM_VP,
    G_EXITS,
    G_N_EV,
    G_SPENT,
    G_TURN,
    G_WEATHER,
    new_state,
)
from simulator.rulesets.first_panzer_army.zoc import place, refresh_lines
from simulator.situation import load_situation
from tests.first_panzer_army.test_fpa_rules import SITUATION, H, U, empty


@pytest.fixture(scope="module")
def prep():
    return prepare(load_situation(SITUATION))


def open_ground(prep) -> int:
    """A clear hex whose six neighbours are clear, on the map, free of rivers and of the no-go
    area (12.5): no terrain, river or restriction in the way of a position built on it."""
    t = prep.t
    for h in range(len(prep.labels)):
        nbs = t.neighbours[h]
        if t.terrain[h] != c.CLEAR or t.restricted[h] or (nbs < 0).any():
            continue
        if all(t.terrain[x] == c.CLEAR and not t.restricted[x] and t.river[h, d] == 0 for d, x in enumerate(nbs)) \
                and all((t.neighbours[x] >= 0).all() and not t.restricted[t.neighbours[x]].any() for x in nbs):
            return h
    raise AssertionError("no open ground on the map")


def at(S, prep, uid: str, h: int) -> int:
    u = U(prep, uid)
    place(S, prep.t, u, int(h))
    return u


def force(S, *rows: tuple[int, int, int]):
    """The state whose next decisions are these rows (kind, options offered, row chosen): a
    record replayed with the players removed (simulator/decisions.py).  `followed` checks that
    the position offered exactly these decisions."""
    return S._replace(decisions=for_replay(np.asarray(rows, dtype=np.int32).reshape(-1, 3), c.DECISION_KINDS))


def recording(S):
    """The state whose next decisions the players make and the record keeps."""
    return S._replace(decisions=for_record(1, c.MAX_DECISIONS))


def followed(S) -> None:
    """The forced decisions were exactly what the position offered, to the last."""
    finished(S.decisions, c.DECISION_KINDS)


def crt_of(prep, result: int):
    """The tables with every CRT cell one result (13.9 cases without hunting for a die)."""
    return prep.t._replace(crt=np.full_like(prep.t.crt, result))


def decisions_of(S, kind: int) -> list[tuple[int, int]]:
    n = int(S.decisions.at[COUNT])
    return [(int(k), int(m)) for k, m, _ in S.decisions.log[:n] if k == kind]


# ----------------------------------------------------------------------------- 13.9 results

def test_fpa_13_9_al1_the_attacker_loses_one_step_of_his_choice(prep):
    t = crt_of(prep, c.AL1)
    S = empty(prep)
    h = open_ground(prep)
    a = at(S, prep, "16-pz", t.neighbours[h, 0])
    b = at(S, prep, "371-inf", t.neighbours[h, 3])
    at(S, prep, "9-mc", h)
    refresh_lines(S, t)
    # join 16 Pz, then 371 Inf, then (last row) the loss: the second offered unit
    S = force(S, (c.JOIN, 2, 0), (c.JOIN, 2, 0), (c.LOSS, 2, 1))
    attack(S, t, c.GERMAN, h, c.SEG_FIGHT)
    followed(S)
    lost = [u for u in (a, b) if S.u_steps[u] < t.u_max[u]]
    assert len(lost) == 1 and S.u_steps[U(prep, "9-mc")] == 2
    assert decisions_of(S, c.LOSS) == [(c.LOSS, 2)]


def test_fpa_13_9_dl1_the_defender_loses_a_step_and_a_garrison_loses_last(prep):
    """Ternopol's garrison stacked with a division: the mobile unit takes the loss even when
    the garrison is the first unit of the stack (13.9 DL1 and EX exceptions)."""
    t = crt_of(prep, c.DL1)
    S = empty(prep)
    tern = H(prep, "0805")
    tg, pz = U(prep, "tg"), U(prep, "1-pz")
    assert tg < pz           # the garrison would be the first row if it were offered
    place(S, t, pz, tern)
    place(S, t, tg, tern)
    sov = at(S, prep, "6-gtc", t.neighbours[tern, 0])
    refresh_lines(S, t)
    S = force(S, (c.JOIN, 1, 0), (c.LOSS, 1, 0))  # join, then the only loss option
    attack(S, t, c.SOVIET, tern, c.SEG_FIGHT)
    assert S.u_steps[pz] == t.u_max[pz] - 1 and S.u_steps[tg] == 1 and S.u_steps[sov] == 2
    assert decisions_of(S, c.LOSS) == [(c.LOSS, 1)]      # the garrison was not offered
    # with the garrison alone, it loses its step
    S = empty(prep)
    place(S, t, tg, tern)
    at(S, prep, "6-gtc", t.neighbours[tern, 0])
    refresh_lines(S, t)
    attack(S, t, c.SOVIET, tern, c.SEG_FIGHT)
    assert S.u_hex[tg] == c.ELIMINATED


def test_fpa_13_9_ex_each_side_loses_a_step_and_the_hex_emptied_is_advanced_into(prep):
    t = crt_of(prep, c.EX)
    S = empty(prep)
    h = open_ground(prep)
    pz = at(S, prep, "16-pz", t.neighbours[h, 0])
    art = at(S, prep, "18a-sup", h)           # a one-step army support unit
    refresh_lines(S, t)
    S = force(S, (c.JOIN, 1, 0), (c.LOSS, 1, 0), (c.LOSS, 1, 0), (c.ADVANCE, 2, 0))   # 16 Pz joins, takes its loss, the Soviet loses his; 16 Pz advances
    attack(S, t, c.GERMAN, h, c.SEG_FIGHT)
    assert S.u_steps[pz] == t.u_max[pz] - 1
    assert S.u_hex[art] == c.ELIMINATED
    assert S.u_hex[pz] == h                  # 13.9 EX, 13.10: the emptied hex may be taken


def test_fpa_13_9_dr_the_german_player_retreats_both_sides_and_13_8_4_towns_ignore_it(prep):
    t = crt_of(prep, c.DL1DR)
    S = empty(prep)
    h = open_ground(prep)
    sov = at(S, prep, "9-mc", h)
    at(S, prep, "16-pz", t.neighbours[h, 0])
    refresh_lines(S, t)
    attack(S, t, c.GERMAN, h, c.SEG_FIGHT)
    assert S.u_steps[sov] == 1 and t.dist[S.u_hex[sov], h] == 1
    assert decisions_of(S, c.RETREAT)            # the German player chose where it went
    # the same against a Soviet-held town: the DL1 stands, the DR is ignored
    town = H(prep, "2112")
    S = empty(prep)
    sov = at(S, prep, "9-mc", town)
    at(S, prep, "16-pz", t.neighbours[town, 0])
    refresh_lines(S, t)
    attack(S, t, c.GERMAN, town, c.SEG_FIGHT)
    assert S.u_steps[sov] == 1 and S.u_hex[sov] == town


def test_fpa_13_9_as_nothing_happens(prep):
    t = crt_of(prep, c.AS)
    S = empty(prep)
    h = open_ground(prep)
    sov = at(S, prep, "9-mc", h)
    pz = at(S, prep, "16-pz", t.neighbours[h, 0])
    refresh_lines(S, t)
    attack(S, t, c.GERMAN, h, c.SEG_FIGHT)
    assert S.u_hex[sov] == h and S.u_steps[sov] == 2 and S.u_steps[pz] == 4 and S.u_hex[pz] == t.neighbours[h, 0]


# ----------------------------------------------------------------------------- 13.10 advance

def test_fpa_13_10_advance_is_the_victors_choice_ignores_ezoc_and_keeps_stacking(prep):
    t = crt_of(prep, c.DR)
    S = empty(prep)
    h = open_ground(prep)
    sov = at(S, prep, "9-mc", h)
    at(S, prep, "10-gtc", t.neighbours[t.neighbours[h, 3], 3])   # keeps a Soviet ZOC near h
    a = at(S, prep, "16-pz", t.neighbours[h, 0])
    refresh_lines(S, t)
    # join 16 Pz; retreat the Soviet unit (first option); decline the advance (-1 is the last row)
    S = force(S, (c.JOIN, 1, 0), (c.RETREAT, 5, 0), (c.ADVANCE, 2, 1))
    attack(S, t, c.GERMAN, h, c.SEG_FIGHT)
    assert S.u_hex[sov] != h and S.u_hex[a] == t.neighbours[h, 0]
    # the same with the advance taken
    S = empty(prep)
    at(S, prep, "9-mc", h)
    at(S, prep, "10-gtc", t.neighbours[t.neighbours[h, 3], 3])
    a = at(S, prep, "16-pz", t.neighbours[h, 0])
    refresh_lines(S, t)
    S = force(S, (c.JOIN, 1, 0), (c.RETREAT, 5, 0), (c.ADVANCE, 2, 0))
    attack(S, t, c.GERMAN, h, c.SEG_FIGHT)
    assert S.u_hex[a] == h


def test_fpa_13_10_no_advance_when_the_defender_stays(prep):
    t = crt_of(prep, c.DL1)
    S = empty(prep)
    h = open_ground(prep)
    at(S, prep, "9-mc", h)
    a = at(S, prep, "16-pz", t.neighbours[h, 0])
    refresh_lines(S, t)
    attack(S, t, c.GERMAN, h, c.SEG_FIGHT)
    assert S.u_hex[a] == t.neighbours[h, 0] and not decisions_of(S, c.ADVANCE)


# ----------------------------------------------------------------------------- 13.0 attackers

def test_fpa_13_0_units_in_a_stack_need_not_all_attack(prep):
    """The attacker picks the units that join; one held back may attack another hex later in
    the segment."""
    t = prep.t
    S = empty(prep)
    h = open_ground(prep)
    stack = t.neighbours[h, 0]
    a = at(S, prep, "16-pz", stack)
    b = at(S, prep, "371-inf", stack)
    at(S, prep, "9-mc", h)
    refresh_lines(S, t)
    S = force(S, (c.JOIN, 2, 0), (c.JOIN, 2, 1))          # join the first offered unit, then end the choice (-1 is the last row)
    attack(S, t, c.GERMAN, h, c.SEG_FIGHT)
    assert S.u_attacked[a] + S.u_attacked[b] == 1
    joins = decisions_of(S, c.JOIN)
    assert joins[0] == (c.JOIN, 2) and joins[1] == (c.JOIN, 2)       # 2 units; then 1 unit + "no more"
    held = b if S.u_attacked[a] else a
    assert may_attack(S, t, held, c.SEG_FIGHT)


# ----------------------------------------------------------------------------- 13.6 probes

def test_fpa_13_6_a_probe_enters_an_empty_hex_in_soviet_zoc_and_is_the_units_attack(prep):
    t = prep.t
    S = empty(prep)
    h = open_ground(prep)
    at(S, prep, "9-mc", h)
    probed = int(t.neighbours[h, 0])
    frm = int(t.neighbours[probed, 0])
    u = at(S, prep, "16-pz", frm)
    refresh_lines(S, t)
    assert probe_ok(S, t, probed)
    assert not probe_ok(S, t, h)                              # a Soviet unit in it: a real attack
    assert not probe_ok(S, t, int(t.neighbours[frm, 0]))      # no Soviet ZOC: nothing to probe
    probe(S, t, u, probed, c.SEG_FIGHT)
    assert S.u_hex[u] == probed and S.u_attacked[u] == 1
    assert not may_attack(S, t, u, c.SEG_FIGHT)
    S.g[G_WEATHER] = c.STORM
    assert not probe_ok(S, t, int(t.neighbours[h, 3]))        # 7.5: no ZOC in storm (OQ-FPA-11)


def test_fpa_13_6_a_stack_probes_together_each_unit_by_the_german_players_choice(prep):
    """13.6 "the probing German unit or stack advance into the hex" (example turn: 16 Pz and
    509 Tiger probe 2018 together); the units that go have made their attack, the one left
    behind has not."""
    t = prep.t
    S = empty(prep)
    h = open_ground(prep)
    at(S, prep, "9-mc", h)
    probed = int(t.neighbours[h, 0])
    frm = int(t.neighbours[probed, 0])
    pz = at(S, prep, "16-pz", frm)
    tiger = at(S, prep, "509-tiger", frm)
    inf = at(S, prep, "371-inf", frm)
    refresh_lines(S, t)
    S = force(S, (c.PROBE_WITH, 3, 0), (c.PROBE_WITH, 2, 1))      # PROBE_WITH rows: [509, 371, end] -> 509 goes; then [371, end] -> end
    probe(S, t, pz, probed, c.SEG_FIGHT)
    assert decisions_of(S, c.PROBE_WITH) == [(c.PROBE_WITH, 3), (c.PROBE_WITH, 2)]
    assert S.u_hex[pz] == probed and S.u_hex[tiger] == probed and S.u_hex[inf] == frm
    assert S.u_attacked[tiger] == 1 and S.u_attacked[inf] == 0
    # In a mechanized segment only mechanized units may go (5.5): the infantry is not offered.
    S = empty(prep)
    at(S, prep, "9-mc", h)
    pz = at(S, prep, "16-pz", frm)
    inf = at(S, prep, "371-inf", frm)
    refresh_lines(S, t)
    S = recording(S)
    probe(S, t, pz, probed, c.SEG_MECH)
    assert decisions_of(S, c.PROBE_WITH) == [] and S.u_hex[inf] == frm


def test_fpa_3_2_6_stand_fast_binds_probes_on_turn_1(prep):
    """3.2(6): a German unit set up in or east of column 23 may not go west of it on turn 1,
    by a probe (13.6) no more than by a move."""
    t = prep.t
    S = empty(prep, turn=1)
    frm = H(prep, "2310")
    probed = next(int(x) for x in t.neighbours[frm] if x >= 0 and t.fpa_col[x] == 22)
    soviet = next(int(x) for x in t.neighbours[probed] if x >= 0 and t.fpa_col[x] == 21)
    at(S, prep, "9-mc", soviet)
    u = at(S, prep, "16-pz", frm)
    S.u_start[u] = frm
    refresh_lines(S, t)
    assert probe_ok(S, t, probed)
    assert stand_fast_blocks(S, t, u, probed)
    S.g[G_TURN] = 2
    assert not stand_fast_blocks(S, t, u, probed)


def test_fpa_13_6_and_13_7_mechanized_units_probe_in_the_second_wave(prep):
    t = prep.t
    S = empty(prep)
    h = open_ground(prep)
    at(S, prep, "9-mc", h)
    probed = int(t.neighbours[h, 0])
    pz = at(S, prep, "16-pz", t.neighbours[probed, 0])
    inf = at(S, prep, "371-inf", t.neighbours[probed, 1])
    refresh_lines(S, t)
    S = force(S, (c.ATTACK, 2, 0))        # the probe (the other row ends the segment)
    combat_segment(S, t, c.GERMAN, c.SEG_MECH)
    followed(S)
    attacks = decisions_of(S, c.ATTACK)
    assert attacks and S.u_hex[pz] == probed and S.u_hex[inf] == t.neighbours[probed, 1]


# ----------------------------------------------------------------------------- 5.5 mech segment

def test_fpa_5_5_every_german_mechanized_unit_attacks_again_in_the_second_wave(prep):
    t = prep.t
    S = empty(prep)
    h = open_ground(prep)
    at(S, prep, "9-mc", h)
    pz = at(S, prep, "16-pz", t.neighbours[h, 0])
    inf = at(S, prep, "371-inf", t.neighbours[h, 0])
    refresh_lines(S, t)
    assert may_attack(S, t, pz, c.SEG_MECH) and not may_attack(S, t, inf, c.SEG_MECH)
    assert not may_attack(S, t, U(prep, "9-mc"), c.SEG_MECH)   # the Soviets have no second wave
    S.u_attacked[pz] = 1                                        # attacked in the combat segment
    S.u_attacked[inf] = 1
    at_start = S.u_hex[inf]
    S = force(S, (c.ATTACK, 4, 0))
    combat_segment(S, t, c.GERMAN, c.SEG_MECH)                  # clears the marks, then attacks
    acts = [r for r in S.ev[: S.g[G_N_EV]] if r[0] in (c.EV_COMBAT, c.EV_PROBE)]
    assert acts and S.u_attacked[pz] == 1                       # 16 Pz attacked (or probed) again
    assert S.u_attacked[inf] == 0 and S.u_hex[inf] == at_start  # 371 Inf had no second wave


# ----------------------------------------------------------------------------- 13.1 18th AD

def test_fpa_13_1_the_18th_artillery_division_supports_at_two_hexes(prep):
    t = prep.t
    S = empty(prep)
    h = open_ground(prep)
    at(S, prep, "9-mc", h)
    pz = at(S, prep, "16-pz", t.neighbours[h, 0])
    two = int(t.neighbours[t.neighbours[h, 0], 0])       # two from the target, next to 16 Pz
    ad = at(S, prep, "18-art", two)
    refresh_lines(S, t)
    ev = np.zeros(E_N, dtype=np.int64)
    assert support_unit(S, t, c.GERMAN, h) == ad
    evaluate(S, t, c.GERMAN, h, c.SEG_FIGHT, 0, 0, ev)
    assert ev[E_AD_ATT] == ad and ev[E_ATT] == t.u_att[pz, 0] + t.u_att[ad, 0]     # its current AF
    # in defence: the Soviet attack on 16 Pz meets the 18th AD's AF added to the defence
    evaluate(S, t, c.SOVIET, int(t.neighbours[h, 0]), c.SEG_FIGHT, 0, 0, ev)
    assert ev[E_AD_DEF] == ad and ev[E_DEF] == t.u_def[pz, 0] + t.u_att[ad, 0]
    # once a segment
    S.g[G_AD_USED] = 1
    assert support_unit(S, t, c.GERMAN, h) == -1
    S.g[G_AD_USED] = 0
    # three hexes away: out of range; adjacent to a Soviet unit (in EZOC): no support role
    place(S, t, ad, int(t.neighbours[two, 0]))
    refresh_lines(S, t)
    assert t.dist[S.u_hex[ad], h] == 3 and support_unit(S, t, c.GERMAN, h) == -1
    place(S, t, ad, int(t.neighbours[h, 2]))
    refresh_lines(S, t)
    assert support_unit(S, t, c.GERMAN, h) == -1
    assert may_attack(S, t, ad, c.SEG_FIGHT)          # it attacks as a mechanized unit instead


def test_fpa_13_1_support_is_the_german_players_choice_and_takes_no_loss(prep):
    t = crt_of(prep, c.AL1)
    S = empty(prep)
    h = open_ground(prep)
    at(S, prep, "9-mc", h)
    pz = at(S, prep, "16-pz", t.neighbours[h, 0])
    ad = at(S, prep, "18-art", t.neighbours[t.neighbours[h, 3], 3])
    refresh_lines(S, t)
    S = force(S, (c.JOIN, 1, 0), (c.SUPPORT, 2, 1), (c.LOSS, 1, 0))        # 16 Pz joins; the 18th AD declines (row 1 = -1); the loss
    attack(S, t, c.GERMAN, h, c.SEG_FIGHT)
    combat = [r for r in S.ev[: S.g[G_N_EV]] if r[0] == c.EV_COMBAT][0]
    assert (combat[7] // 1000) % 1000 == t.u_att[pz, 0]      # its AF was not added
    assert S.g[G_AD_USED] == 0 and S.u_steps[ad] == 2 and S.u_steps[pz] == 3
    assert decisions_of(S, c.SUPPORT) == [(c.SUPPORT, 2)]
    S2 = empty(prep)
    at(S2, prep, "9-mc", h)
    at(S2, prep, "16-pz", t.neighbours[h, 0])
    ad = at(S2, prep, "18-art", t.neighbours[t.neighbours[h, 3], 3])
    refresh_lines(S2, t)
    S2 = force(S2, (c.JOIN, 1, 0), (c.SUPPORT, 2, 0), (c.LOSS, 1, 0))       # the 18th AD supports: the AL1 still falls on 16 Pz
    attack(S2, t, c.GERMAN, h, c.SEG_FIGHT)
    assert S2.g[G_AD_USED] == 1 and S2.u_steps[ad] == 2


# ----------------------------------------------------------------------------- 13.2 Soviet artillery

def test_fpa_13_2_soviet_artillery_rules(prep):
    t = prep.t
    S = empty(prep)
    h = open_ground(prep)
    at(S, prep, "16-pz", h)
    nb = int(t.neighbours[h, 0])
    art = at(S, prep, "17-b-art", nb)
    refresh_lines(S, t)
    assert not may_attack(S, t, art, c.SEG_FIGHT)                  # alone: no attack
    rc = at(S, prep, "15-rc", nb)
    refresh_lines(S, t)
    assert may_attack(S, t, art, c.SEG_FIGHT)
    ev = np.zeros(E_N, dtype=np.int64)
    evaluate(S, t, c.SOVIET, h, c.SEG_FIGHT, 0, 0, ev)
    assert ev[E_ATT] == 2 * t.u_att[rc, 0]                         # 6 capped at the corps' 3
    S.supply[nb] = 0
    assert not may_attack(S, t, art, c.SEG_FIGHT)                  # out of supply: none
    # 3GM doubled against a clear hex
    S = empty(prep)
    at(S, prep, "16-pz", h)
    at(S, prep, "6-gtc", nb)
    gm = at(S, prep, "3-gm", nb)
    refresh_lines(S, t)
    evaluate(S, t, c.SOVIET, h, c.SEG_FIGHT, 0, 0, ev)
    assert ev[E_ATT] == t.u_att[U(prep, "6-gtc"), 0] + 2 * t.u_att[gm, 0]
    # artillery attacked alone is eliminated
    S = empty(prep)
    art = at(S, prep, "13-b-art", h)
    at(S, prep, "16-pz", nb)
    refresh_lines(S, t)
    attack(S, t, c.GERMAN, h, c.SEG_FIGHT)
    assert S.u_hex[art] == c.ELIMINATED


# ----------------------------------------------------------------------------- 13.3 CAS

def test_fpa_13_3_cas_adds_a_factor_a_marker_german_in_defence_none_in_storm(prep):
    t = prep.t
    S = empty(prep)
    h = open_ground(prep)
    at(S, prep, "16-pz", h)
    at(S, prep, "15-rc", t.neighbours[h, 0])
    refresh_lines(S, t)
    ev = np.zeros(E_N, dtype=np.int64)
    evaluate(S, t, c.SOVIET, h, c.SEG_FIGHT, 2, 3, ev)
    assert ev[E_ATT] == 3 + 2 and ev[E_DEF] == 4 + 3
    assert cas_usable(S, t)
    S.g[G_WEATHER] = c.STORM
    assert not cas_usable(S, t)
    # Soviet defence: only the German, attacking, is asked; the Soviet player's markers stay idle
    S = empty(prep)
    at(S, prep, "9-mc", h)
    at(S, prep, "16-pz", t.neighbours[h, 0])
    S.cas[c.SOVIET] = 3
    refresh_lines(S, t)
    attack(S, t, c.GERMAN, h, c.SEG_FIGHT)
    assert not decisions_of(S, c.CAS) and S.cas[c.SOVIET] == 3
    # German defence: the German player commits markers against the Soviet attack
    S = empty(prep)
    at(S, prep, "16-pz", h)
    at(S, prep, "6-gtc", t.neighbours[h, 0])
    S.cas[c.GERMAN] = 2
    refresh_lines(S, t)
    S = force(S, (c.JOIN, 1, 0), (c.CAS, 3, 2))        # 6 GTC joins; the German commits both markers
    attack(S, t, c.SOVIET, h, c.SEG_FIGHT)
    assert S.cas[c.GERMAN] == 0
    combat = [r for r in S.ev[: S.g[G_N_EV]] if r[0] == c.EV_COMBAT][0]
    assert combat[7] % 1000 == t.u_def[U(prep, "16-pz"), 0] + 2


# ----------------------------------------------------------------------------- 13.4 KG combat

def test_fpa_13_4_kg_shifts_defence_left_one_a_segment_storm_and_ezoc_do_not_negate(prep):
    t = prep.t
    S = empty(prep, weather=c.STORM)
    h = open_ground(prep)
    at(S, prep, "16-pz", h)
    at(S, prep, "6-gtc", t.neighbours[h, 0])
    refresh_lines(S, t)
    ev = np.zeros(E_N, dtype=np.int64)
    evaluate(S, t, c.SOVIET, h, c.SEG_FIGHT, 0, 0, ev)
    plain = ev[E_COL]
    S.kg_hex[0] = int(t.neighbours[t.neighbours[h, 3], 3])           # two hexes away
    evaluate(S, t, c.SOVIET, h, c.SEG_FIGHT, 0, 0, ev)
    assert ev[E_KG] == 0 and ev[E_COL] == plain - 1
    S.kg_def[0] = 1                                                  # used in this segment
    evaluate(S, t, c.SOVIET, h, c.SEG_FIGHT, 0, 0, ev)
    assert ev[E_KG] == -1 and ev[E_COL] == plain
    S.kg_def[0] = 0
    S.kg_hex[0] = int(t.neighbours[S.kg_hex[0], 3])                  # three away
    evaluate(S, t, c.SOVIET, h, c.SEG_FIGHT, 0, 0, ev)
    assert ev[E_KG] == -1


def test_fpa_13_4_the_german_player_decides_which_kg_serves_a_combat(prep):
    t = crt_of(prep, c.AS)
    S = empty(prep)
    h = open_ground(prep)
    at(S, prep, "9-mc", h)
    at(S, prep, "16-pz", t.neighbours[h, 0])
    S.kg_hex[0] = int(t.neighbours[h, 3])
    S.kg_hex[1] = int(t.neighbours[h, 4])
    refresh_lines(S, t)
    S = force(S, (c.JOIN, 1, 0), (c.SUPPORT, 3, 2))       # 16 Pz joins; no KG (rows: KG 0, KG 1, none)
    attack(S, t, c.GERMAN, h, c.SEG_FIGHT)
    assert decisions_of(S, c.SUPPORT) == [(c.SUPPORT, 3)]
    assert S.kg_att.sum() == 0
    S2 = empty(prep)
    at(S2, prep, "9-mc", h)
    at(S2, prep, "16-pz", t.neighbours[h, 0])
    S2.kg_hex[:2] = S.kg_hex[:2]
    refresh_lines(S2, t)
    S2 = force(S2, (c.JOIN, 1, 0), (c.SUPPORT, 3, 1))
    attack(S2, t, c.GERMAN, h, c.SEG_FIGHT)
    assert list(S2.kg_att[:2]) == [0, 1]


# ----------------------------------------------------------------------------- 5.1, 5.2 sampled

def _chi2_ok(observed: dict, expected: dict, n: int) -> bool:
    """Pearson's chi-square against the table at the 0.1 % level (a sampling test that fails
    only on a wrong distribution, about once in a thousand runs by chance; seeds are fixed)."""
    from scipy.stats import chi2

    keys = [k for k in expected if expected[k] > 0]
    stat = sum((observed.get(k, 0) - n * expected[k]) ** 2 / (n * expected[k]) for k in keys)
    assert all(observed.get(k, 0) == 0 for k in expected if expected[k] == 0)
    return stat < chi2.ppf(0.999, max(len(keys) - 1, 1))


@pytest.mark.parametrize("turn", [2, 4, 8])
def test_fpa_5_1_weather_rolls_follow_the_table(prep, turn):
    t = prep.t
    S = empty(prep, turn=turn)
    n = 3000
    seen = Counter()
    for _ in range(n):
        weather_phase(S, t)
        seen[int(S.g[G_WEATHER])] += 1
        S.g[G_N_EV] = 0
    expected = Counter(int(w) for w in t.weather[turn])
    assert _chi2_ok(seen, {w: expected[w] / 6 for w in range(3)}, n)
    S.g[G_TURN] = 1
    weather_phase(S, t)
    assert S.g[G_WEATHER] == c.THAW                       # turn 1 is thaw, no roll


def test_fpa_5_2_air_superiority_is_the_difference_of_two_dice_ties_rerolled(prep):
    t = prep.t
    S = empty(prep, turn=2)
    n = 6000
    seen = Counter()
    sides = Counter()
    for _ in range(n):
        air_phase(S, t)
        side = c.SOVIET if S.cas[c.SOVIET] > 0 else c.GERMAN
        assert S.cas[1 - side] == 0
        seen[int(S.cas[side])] += 1
        sides[side] += 1
        S.g[G_N_EV] = 0
    # the exact law of |2d6 - 2d6| given it is not 0
    diffs = Counter(abs(a + b - x - y) for a in range(1, 7) for b in range(1, 7) for x in range(1, 7)
                    for y in range(1, 7))
    total = sum(v for k, v in diffs.items() if k > 0)
    assert _chi2_ok(seen, {k: diffs[k] / total for k in range(1, 11)}, n)
    assert abs(sides[c.SOVIET] / n - 0.5) < 0.03
    # The dice are data (air.later_dice_each, air.turn_1_dice): one die each gives 1-5 markers.
    t1 = t._replace(k=t.k.copy())
    t1.k[c.K_LATER_AIR_DICE] = 1
    for _ in range(300):
        air_phase(S, t1)
        assert 1 <= S.cas.max() <= 5 and S.cas.min() == 0
        S.g[G_N_EV] = 0


def test_fpa_13_9_crt_results_follow_the_table_column_by_column(prep):
    """13.9: every printed column's results, sampled through the engine's own combat (`attack`:
    its die, its table lookup), against the table's probabilities (chi-square, each column).
    One position (16 Pz against 9 Mech in the open) gives one column; the column sampled is
    copied into that column's place, so every printed column goes through the same path."""
    t = prep.t
    h = open_ground(prep)

    def duel(tables):
        S = empty(prep)
        at(S, prep, "9-mc", h)
        at(S, prep, "16-pz", t.neighbours[h, 0])
        refresh_lines(S, tables)
        return S

    ev = np.zeros(E_N, dtype=np.int64)
    evaluate(duel(t), t, c.GERMAN, h, c.SEG_FIGHT, 0, 0, ev)
    here = int(ev[E_COL])
    n = 300
    printed = [j for j, name in enumerate(c.COLUMN_NAMES) if name[0] not in "<>"]
    assert len(printed) == 8 and t.crt.shape[0] == 6
    for j in printed:
        crt = t.crt.copy()
        crt[:, here] = t.crt[:, j]
        tj = t._replace(crt=crt)
        seen = Counter()
        for seed in range(n):
            S = duel(tj)
            S.rng[:] = dice_state(seed + 1000 * j)
            seen[int(attack(S, tj, c.GERMAN, h, c.SEG_FIGHT))] += 1
        table = Counter(int(r) for r in t.crt[:, j])
        assert set(seen) <= set(table), c.COLUMN_NAMES[j]
        assert _chi2_ok(seen, {r: table[r] / 6 for r in table}, n), (c.COLUMN_NAMES[j], seen, table)


# ----------------------------------------------------------------------------- 10.1, 11.0

def test_fpa_10_1_reinforcements_enter_on_the_edge_or_ternopol_else_are_forfeit(prep):
    t = prep.t
    turn = int(min(x for x in t.u_entry if x > 0))
    arriving = [u for u in range(len(prep.unit_ids)) if t.u_entry[u] == turn]
    S = empty(prep, turn=turn)
    refresh_lines(S, t)
    reinforcement_phase(S, t)
    for u in arriving:
        h = S.u_hex[u]
        assert t.entry[h] == 1 or h == H(prep, "0805")
    # Ternopol held by the Germans with C&C is offered; every edge hex under a Soviet unit is not
    S = empty(prep, turn=turn)
    for i, h in enumerate(np.flatnonzero(t.entry == 1)):
        place(S, t, [u for u in range(len(prep.unit_ids)) if t.u_side[u] == c.SOVIET][i], int(h))
    S.control[H(prep, "0805")] = c.GERMAN
    refresh_lines(S, t)
    if S.cc[H(prep, "0805")] == 1:
        reinforcement_phase(S, t)
        assert all(S.u_hex[u] == H(prep, "0805") for u in arriving[:1])
    S = empty(prep, turn=turn)
    for i, h in enumerate(np.flatnonzero(t.entry == 1)):
        place(S, t, [u for u in range(len(prep.unit_ids)) if t.u_side[u] == c.SOVIET][i], int(h))
    S.control[H(prep, "0805")] = c.SOVIET
    refresh_lines(S, t)
    reinforcement_phase(S, t)
    assert all(S.u_hex[u] == c.NOT_ENTERED for u in arriving)         # forfeit
    S.g[G_TURN] = turn + 1
    reinforcement_phase(S, t)
    assert all(S.u_hex[u] == c.NOT_ENTERED for u in arriving)         # never later


def test_fpa_11_1_an_eliminated_rifle_corps_returns_reduced_in_one_to_three_turns(prep):
    t = crt_of(prep, c.DL1)
    delays = Counter()
    for seed in range(60):
        S = empty(prep, turn=2)
        S.rng[:] = np.random.default_rng(seed).integers(1, 2**31, size=S.rng.shape)
        h = open_ground(prep)
        rc = at(S, prep, "15-rc", h)
        S.u_steps[rc] = 1
        at(S, prep, "16-pz", t.neighbours[h, 0])
        refresh_lines(S, t)
        attack(S, t, c.GERMAN, h, c.SEG_FIGHT)
        assert S.u_hex[rc] == c.ELIMINATED
        delays[int(S.u_return[rc]) - 2] += 1
    assert set(delays) == {1, 2, 3}            # ceil(d6 / 2)


def test_fpa_11_2_returned_rifle_corps_go_on_supplied_soviet_towns_free_of_ezoc(prep):
    t = prep.t
    S = empty(prep, turn=4)
    rc, rc2 = U(prep, "15-rc"), U(prep, "23-rc")
    for u in (rc, rc2):
        S.u_hex[u] = c.ELIMINATED
        S.u_steps[u] = 0
        S.u_return[u] = 4
    towns = [h for h in np.flatnonzero(t.vp_hex > 0)]
    ok_town, ezoc_town = int(towns[-1]), int(towns[-2])
    for h in towns:
        S.control[h] = c.GERMAN
    S.control[ok_town] = c.SOVIET
    S.control[ezoc_town] = c.SOVIET
    at(S, prep, "16-pz", t.neighbours[ezoc_town, 0])
    refresh_lines(S, t)
    assert S.supply[ok_town] == 1
    replacement_phase(S, t)
    placed = [u for u in (rc, rc2) if S.u_hex[u] >= 0]
    assert len(placed) == 1 and S.u_hex[placed[0]] == ok_town and S.u_steps[placed[0]] == 1
    waiting = rc2 if placed[0] == rc else rc
    assert S.u_return[waiting] == 4                 # readings.replacement_no_hex = "wait"


# ----------------------------------------------------------------------------- 4.1, 4.2 VP

def test_fpa_4_1_exits_score_one_a_corps_up_to_four(prep):
    t = prep.t
    S = empty(prep)
    base = victory_points(S, t, False)
    corps = [u for u in range(len(prep.unit_ids)) if t.u_flags[u] & c.F_CORPS][:5]
    exit_hex = int(np.flatnonzero(t.exit_hex == 1)[0])
    for i, u in enumerate(corps):
        place(S, t, u, exit_hex)
        exit_map(S, t, u)
        assert S.u_hex[u] == c.EXITED
        assert victory_points(S, t, False) == base + min(i + 1, 4) * t.k[c.K_EXIT_VP]
    assert S.g[G_EXITS] == 5
    # Any Soviet unit may leave (it costs 1 MP, 4.1), but only a corps scores.
    other = next(u for u in range(len(prep.unit_ids)) if t.u_side[u] == c.SOVIET and not t.u_flags[u] & c.F_CORPS)
    place(S, t, other, exit_hex)
    exit_map(S, t, other)
    assert S.u_hex[other] == c.EXITED and S.g[G_EXITS] == 5


def test_fpa_4_2_a_division_eliminated_out_of_cc_scores_its_steps_garrisons_never(prep):
    t = prep.t
    for ooc in (False, True):
        S = empty(prep)
        h = open_ground(prep)
        div = at(S, prep, "6-pz", h)
        tg = at(S, prep, "tg", int(t.neighbours[h, 0]))
        S.u_steps[div] = 1
        refresh_lines(S, t)
        assert S.cc[h] == 1
        if ooc:
            S.cc[:] = 0           # cut off (9.2 traces are tested in test_fpa_rules)
        eliminate_step(S, t, div)
        eliminate_step(S, t, tg)
        assert S.u_hex[div] == c.ELIMINATED and S.u_hex[tg] == c.ELIMINATED
        assert S.g[G_ELIM_VP] == (6 if ooc else 0)          # 6 Pz: six steps at most
        assert victory_points(S, t, False) >= S.g[G_ELIM_VP]
    assert t.u_vp[U(prep, "tg")] == 0 and t.u_vp[U(prep, "503-tiger")] == 0


# ----------------------------------------------------------------------------- 6.0 overstack

def test_fpa_6_0_the_opponent_eliminates_units_of_an_overstacked_hex(prep):
    t = prep.t
    S = empty(prep)
    h = open_ground(prep)
    for uid in ("6-gtc", "7-gtc", "9-mc"):           # 6 Soviet steps, 4 allowed (6.2)
        at(S, prep, uid, h)
    refresh_lines(S, t)
    resolve_overstacks(S, t, c.SOVIET)
    left = [u for u in (U(prep, "6-gtc"), U(prep, "7-gtc"), U(prep, "9-mc")) if S.u_hex[u] == h]
    assert len(left) == 2
    assert decisions_of(S, c.OVERSTACK) == [(c.OVERSTACK, 3)]


# ----------------------------------------------------------------------------- readings

def test_reading_odds_beyond_table_switch(prep):
    """OQ-FPA-2: a shift past the table's ends: final odds (the default), clamp to the printed
    columns unless already automatic, or automatic results only from the raw odds."""
    k = prep.t.k.copy()
    res = {}
    for mode in (c.ODDS_FINAL, c.ODDS_CLAMP, c.ODDS_RAW_AUTO):
        k[c.K_ODDS_MODE] = mode
        t = prep.t._replace(k=k.copy())
        res[mode] = (column(t, 63, 9, 1)[1], column(t, 5, 9, -1)[1], column(t, 80, 9, -1)[1])
    assert res[c.ODDS_FINAL] == (9, 0, 8)
    assert res[c.ODDS_CLAMP] == (8, 1, 8)       # a left shift brings raw odds above 7:1 onto 7:1
    assert res[c.ODDS_RAW_AUTO] == (8, 1, 9)


def test_reading_own_hex_ezoc_switch_for_supply(prep):
    """OQ-FPA-1: a Soviet unit whose own hex is in a German ZOC: supplied through the hex next
    to it ("allowed", default) or not ("blocks")."""
    h = open_ground(prep)
    for allowed in (1, 0):
        k = prep.t.k.copy()
        k[c.K_SUPPLY_OWN_EZOC] = allowed
        t = prep.t._replace(k=k)
        S = empty(prep)
        at(S, prep, "9-mc", h)
        at(S, prep, "16-pz", int(t.neighbours[h, 0]))
        refresh_lines(S, t)
        assert S.supply[h] == allowed


def test_reading_garrison_last_and_blocked_retreat_losses(prep):
    k = prep.t.k.copy()
    k[c.K_GARRISON_LAST] = 0
    t = prep.t._replace(k=k, crt=np.full_like(prep.t.crt, c.DL1))
    S = empty(prep)
    tern = H(prep, "0805")
    place(S, t, U(prep, "1-pz"), tern)
    place(S, t, U(prep, "tg"), tern)
    at(S, prep, "6-gtc", t.neighbours[tern, 0])
    refresh_lines(S, t)
    attack(S, t, c.SOVIET, tern, c.SEG_FIGHT)
    assert decisions_of(S, c.LOSS) == [(c.LOSS, 2)]      # the garrison is offered too


# ----------------------------------------------------------------------------- 5.3 KG deployment

def test_fpa_5_3_kg_markers_go_on_any_hex_soviet_held_included_one_a_hex_from_turn_3(prep):
    t = prep.t
    n = len(prep.labels)
    h = open_ground(prep)
    S = empty(prep, turn=2)
    at(S, prep, "9-mc", h)
    refresh_lines(S, t)
    S = recording(S)
    kg_phase(S, t)
    assert decisions_of(S, c.KG_PLACE) == [] and (S.kg_hex < 0).all()      # ignored on turns 1-2
    S = empty(prep, turn=3)
    soviet = at(S, prep, "9-mc", h)
    refresh_lines(S, t)
    S = force(S, (c.KG_PLACE, n + 1, h), (c.KG_PLACE, n, 0), (c.KG_PLACE, n - 1, 0))    # KG 1 on the Soviet unit's hex, then the first hexes offered
    kg_phase(S, t)
    kinds = decisions_of(S, c.KG_PLACE)
    # Every hex is offered (+ "keep it off"), less one for each marker already down.
    assert kinds == [(c.KG_PLACE, n + 1), (c.KG_PLACE, n), (c.KG_PLACE, n - 1)]
    assert S.kg_hex[0] == S.u_hex[soviet]
    assert len(set(int(x) for x in S.kg_hex)) == 3


# ----------------------------------------------------------------------------- 12.0, 12.3 stacks

def river_pair(prep) -> tuple[int, int]:
    """Two clear hexes across a river hexside that is not the Dnestr, Bug or Prut, neither a
    town, both outside the no-go area."""
    t = prep.t
    for a in range(len(prep.labels)):
        if t.terrain[a] != c.CLEAR or t.restricted[a]:
            continue
        for d in range(6):
            b = int(t.neighbours[a, d])
            if b >= 0 and t.river[a, d] == 1 and t.terrain[b] == c.CLEAR and not t.restricted[b]:
                return a, b
    raise AssertionError("no river hexside between clear hexes")


def test_fpa_12_0_and_12_3_a_stack_moves_together_on_one_river_roll(prep):
    """12.0 "units are moved as stacks or one at a time"; 12.3 "when moving a stack, make just
    one roll for the whole stack": the units that go with the first one follow its path and
    its roll, by the player's choice, each paying its own MP."""
    t = prep.t
    a, b = river_pair(prep)
    S = empty(prep, weather=c.THAW)
    pz = at(S, prep, "16-pz", a)
    tiger = at(S, prep, "509-tiger", a)
    inf = at(S, prep, "371-inf", a)
    refresh_lines(S, t)
    S.u_moved[pz] = 1
    mf = movement_factor(S, t, pz)
    reachable(S, t, pz, mf)
    assert move_unit(S, t, pz, b, mf) == b
    roll = int(S.proll[0])
    assert roll >= 1                                        # the crossing was rolled
    spent = int(t.tmp[c.CLEAR, 1]) + int(t.river_cost[c.THAW, roll - 1])
    assert follow_cost(S, t, tiger, a, b) == spent          # same roll, same class
    assert follow_cost(S, t, inf, a, b) == int(t.tmp[c.CLEAR, 0]) + int(t.river_cost[c.THAW, roll - 1])
    rng = S.rng.copy()
    S = force(S, (c.MOVE_WITH, 3, 0), (c.MOVE_WITH, 2, 1))      # MOVE_WITH rows [509, 371, end] -> 509; then [371, end] -> end
    move_with(S, t, c.GERMAN, a, b)
    assert decisions_of(S, c.MOVE_WITH) == [(c.MOVE_WITH, 3), (c.MOVE_WITH, 2)]
    assert S.u_hex[tiger] == b and S.u_hex[inf] == a
    assert S.u_moved[tiger] == 1 and S.u_moved[inf] == 0
    assert (S.rng == rng).all()                             # no second roll for the stack


def test_fpa_12_3_reading_river_crossing_short_stop_or_may_turn_back(prep):
    """OQ-FPA-12 (readings.river_crossing_short): a unit whose roll costs more MP than it has
    left stops on its bank ("stop", the default: the move ends, the MP are lost), or keeps its
    MP and may go elsewhere, never across that hexside this phase ("may_turn_back")."""
    t = prep.t
    a, b = river_pair(prep)
    for seed in range(1, 400):
        S = new_state(t, seed, (1, 1), None)
        S.g[G_TURN] = 3
        S.g[G_WEATHER] = c.THAW
        u = at(S, prep, "371-inf", a)
        refresh_lines(S, t)
        reachable(S, t, u, 2)
        if move_unit(S, t, u, b, 2) == a:
            break
    assert S.u_hex[u] == a and S.g[G_SPENT] == 0              # a roll of 5 or 6 (+2, +3) stopped it
    assert S.g[G_BLOCK_HEX] == a and t.neighbours[a, S.g[G_BLOCK_DIR]] == b
    reachable(S, t, u, 2)
    assert S.prev[b] != a                                     # that hexside is barred this phase
    t2 = t._replace(k=t.k.copy())
    t2.k[c.K_RIVER_SHORT] = c.RIVER_TURN_BACK
    S = force(S, (c.MOVE_TO, 13, 0))
    turn_back(S, t2, c.GERMAN, u, a, 2)
    moves = decisions_of(S, c.MOVE_TO)
    assert moves and moves[0][1] == int((S.mp < INF).sum())   # it was offered its reach with 2 MP
