"""PB2-4.3.5 footnote 6 (round 8 A): unarmed jeeps and motorcycles may not move without a
passenger.  No counter of the converted cards or of Hill 112 is a jeep or a motorcycle, so the
position makes one: pb-04's German truck with `--set units.truck-german.carrier_type=jeep`."""

from __future__ import annotations

from pathlib import Path

from simulator.rulesets.panzerblitz_v2 import game, transport
from simulator.rulesets.panzerblitz_v2.batch import prepare
from simulator.rulesets.panzerblitz_v2.state import EV_MOVE
from simulator.rulesets.panzerblitz_v2.tables import TR_HALF
from simulator.situation import load_situation
from tests.panzerblitz_v2.positions import events, state, units_of
from tests.panzerblitz_v2.test_pbv2_transport import open_hexes

PB04 = str(Path(__file__).resolve().parents[2] / "situations" / "panzerblitz-v2" / "classic" / "pb-04.toml")


def test_pb2_4_3_5_footnote_6_an_unarmed_jeep_may_not_move_empty():
    for kind, grounded in (("jeep", True), ("motorcycle", True), ("truck", False)):
        p = prepare(load_situation(PB04, {"units.truck-german.carrier_type": kind}))
        t = p.tables
        a = open_hexes(t, 3)[0]
        car = units_of(p, "truck-german")[0]
        assert t.t_no_empty_move[t.u_type[car]] == grounded
        moves = 0
        for seed in range(10):
            st = state(p, ["random"], seed)
            st.hex[car] = a
            st.active[car] = True
            assert transport.grounded(t, st, car) == grounded
            game.carrier_move(t, st, car)
            moves += len(events(st, EV_MOVE))
        assert (moves == 0) == grounded                 # an empty truck moves; a jeep or motorcycle not
        if kind == "jeep":
            # with a passenger (a light gun: 4.3.5, half MA) it moves
            gun = units_of(p, "75mm-at")[0]
            moved = False
            for seed in range(20):
                st = state(p, ["random"], seed)
                st.hex[car] = st.hex[gun] = a
                st.active[car] = True
                assert transport.may_load(t, st, car, gun, a) == TR_HALF
                transport.load(t, st, car, gun, TR_HALF)
                assert not transport.grounded(t, st, car)
                game.carrier_move(t, st, car)
                moved = moved or len(events(st, EV_MOVE)) > 0
            assert moved
