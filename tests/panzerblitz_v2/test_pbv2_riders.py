"""Riders attacked apart from their AFV by opportunity fire (PB2-4.3.7.1 with 10.1.2; round 8 A),
in small positions on the converted classic card pb-04: a T-34 carrying a Russian rifle company
moves into sight of German units."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simulator.rulesets.panzerblitz_v2 import combat, game, transport
from simulator.rulesets.panzerblitz_v2.batch import play_one, prepare, violation
from simulator.rulesets.panzerblitz_v2.ruleset import RULESET
from simulator.rulesets.panzerblitz_v2.state import CARRIED, EV_OPP_FIRE
from simulator.rulesets.panzerblitz_v2.tables import K_OPP, TR_HALF
from simulator.situation import load_situation
from tests.panzerblitz_v2.positions import events, state, units_of
from tests.panzerblitz_v2.test_pbv2_transport import open_hexes

PB04 = str(Path(__file__).resolve().parents[2] / "situations" / "panzerblitz-v2" / "classic" / "pb-04.toml")


@pytest.fixture(scope="module")
def p4():
    return prepare(load_situation(PB04))


def _riding(p, policy, seed=1):
    t = p.tables
    a, b = open_hexes(t, 2)
    st = state(p, list(policy), seed)
    tank, rifle = units_of(p, "t-34-c")[0], units_of(p, "rifle-company-43")[0]
    ger = units_of(p, "rifle-platoon-german-42")[0]
    st.hex[tank] = st.hex[rifle] = a
    transport.load(t, st, tank, rifle, TR_HALF)
    st.hex[ger] = b
    st.unspotted[:] = False
    return t, st, tank, rifle, ger, a, b


def test_pb2_4_3_7_1_and_10_1_2_riders_opportunity_fired_at_apart_from_their_afv(p4):
    """German infantry may not fire at the T-34 (7.2.3) but may opportunity-fire at its rider, DF 1,
    without the -1 against infantry in the open (an OPP_FIRE row whose column 4 names the rider);
    the rider's losses leave the AFV alone."""
    t, st, tank, rifle, ger, a, b = _riding(p4, ["heuristic:opp_fire_min=0,jitter=0"])
    assert combat.can_fire(t, st, ger, a, True) == 0 and combat.can_fire(t, st, ger, a, False) > 0
    n = game.rider_opp_rows(t, st, tank, a, False, 1)
    assert n == 2 and st.opts[1, 4] == rifle and st.opts[1, 1] == 1
    assert st.opts[1, 2] == combat.ap_column(t, combat.ap2(t, st, ger), t.rider_df)
    drm_rider = st.opts[1, 3]
    riding = combat.defender_drm(t, st, np.array([rifle]), 1, False, K_OPP, False, True)
    st.hex[rifle] = a                                                 # (as if it stood in the open)
    on_foot = combat.defender_drm(t, st, np.array([rifle]), 1, False, K_OPP, False, True)
    st.hex[rifle] = CARRIED
    assert riding == on_foot + 1                                      # no -1 vs infantry in the open
    steps_tank = int(st.steps[tank])
    hit = 0
    for seed in range(40):
        t, st, tank, rifle, ger, a, b = _riding(p4, ["heuristic:opp_fire_min=0,jitter=0"], seed)
        game.ground_opportunity_fire(t, st, tank, a, False)
        shots = events(st, EV_OPP_FIRE)
        assert len(shots) == 1 and shots[0, 4] == a and shots[0, 7] == drm_rider and st.opfired[ger]
        assert st.steps[tank] == steps_tank                           # no adverse effect on the AFV...
        if st.steps[rifle] < t.t_steps[t.u_type[rifle]] or st.disrupted[rifle]:
            hit += 1
            # ...but a Disrupted rider is forced off and the AFV Disrupted (4.3.7.3)
            assert st.carried_by[rifle] == -1 and (st.disrupted[tank] or st.steps[rifle] == 0)
    assert hit > 0


def test_pb2_4_3_7_1_rider_rows_beside_the_afv_row_and_players(p4):
    """A German unit able to hit both: the AFV's row and the rider's; the random player takes either,
    whole games stay legal in debug mode."""
    t, st, tank, rifle, ger, a, b = _riding(p4, ["random"])
    at_gun = next(u for u in range(t.n_units) if t.u_side[u] == t.u_side[ger] and t.t_at[t.u_type[u], 0] > 0
                  and not t.t_infantry[t.u_type[u]] and combat.ap2(t, st, u) > 0 and t.t_range[t.u_type[u]] >= 1
                  and not t.t_armored[t.u_type[u]])
    st.hex[at_gun] = b
    kinds = set()
    for seed in range(30):
        t, st, tank, rifle, ger, a, b = _riding(p4, ["random"], seed)
        st.hex[at_gun] = b
        game.ground_opportunity_fire(t, st, tank, a, False)
        shots = events(st, EV_OPP_FIRE)
        if len(shots):
            kinds.add("rider" if st.opfired[ger] else "afv")
    assert kinds == {"rider", "afv"}
    for seed in range(10):
        g = play_one(p4, seed, RULESET.players.parse(["random"], p4.sides), debug=True)
        assert violation(g) is None
