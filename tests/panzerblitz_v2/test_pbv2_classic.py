"""The classic PanzerBlitz cards under the v2.0 rules (issue 20 item 3): the converted boards and
situation files are current, the classic victory measures and levels (victory.py), and every
converted card plays, in debug mode, with the same seed giving the same game."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from simulator.rulesets.panzerblitz_v2.batch import play_games, play_one, prepare, violation
from simulator.rulesets.panzerblitz_v2.ruleset import RULESET
from simulator.rulesets.panzerblitz_v2.state import GONE
from simulator.rulesets.panzerblitz_v2.victory import FinalState, evaluate
from simulator.situation import load_situation

ROOT = Path(__file__).resolve().parents[2]
CLASSIC = ROOT / "situations" / "panzerblitz-v2" / "classic"
CARDS = sorted(p.stem for p in CLASSIC.glob("pb-*.toml"))


@pytest.mark.parametrize("tool", ["pbv2_classic_boards.py", "pbv2_classic_situations.py"])
def test_generated_classic_files_are_current(tool):
    r = subprocess.run([sys.executable, str(ROOT / "tools" / tool), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_converted_cards_and_the_rest_named():
    assert CARDS == ["pb-01", "pb-02", "pb-03", "pb-04", "pb-05", "pb-06", "pb-07", "pb-08", "pb-09", "pb-10", "pb-11",
                     "pb-12"]


def test_classic_board_conversion_keeps_the_hexes_and_makes_levels():
    sit = load_situation(CLASSIC / "pb-01.toml")
    classic = load_situation("pb-01")
    assert sit.map.labels == classic.map.labels                          # the same hexes, the same names
    assert (sit.map.elevation.astype(int) == classic.map.elevation.astype(int) + 1).all()   # levels 1..3
    assert set(sit.map.named) == set(classic.map.named)
    t = prepare(sit).tables
    # a slope hexside wherever two neighbouring hexes differ in level (PB2 14.9)
    n = t.neighbours
    differ = (n >= 0) & (t.level[np.maximum(n, 0)] != t.level[:, None])
    assert (t.slope_side[differ]).mean() > 0.95


def _fs(sit, hexes, steps, types, groups=None):
    side_of = {g.name: sit.side_names.index(s.name) for s in sit.sides for g in s.groups}
    groups = groups or [next(iter(side_of))] * len(types)
    return FinalState(np.array(hexes), np.array(steps), np.array([side_of[g] for g in groups]), types, groups)


def test_classic_destroyed_measure_weights_and_levels():
    """pb-01: the Russians win by destroying German units (a CP counts 5), the Germans by losing
    few; a v2 counter is destroyed when its last step is lost (a reduced one is not)."""
    sit = load_situation(CLASSIC / "pb-01.toml")
    germans = [g.name for g in sit.side("german").groups]
    types = ["command-post", "security-platoon-german", "security-platoon-german", "smg-platoon-german"]
    groups = [germans[0], germans[3], germans[3], germans[3]]
    # CP destroyed (5 for the Russians, 1 for the Germans' own count) + 1 platoon destroyed + 1 reduced
    o = evaluate(sit, _fs(sit, [GONE, GONE, 10, 11], [0, 0, 1, 2], types, groups))
    assert o.values == {"russian": 6.0, "german": 2.0}
    assert o.levels == {"russian": "none", "german": "decisive"} and o.winner == "german" and o.level == "decisive"
    # all four: Russian 8 (marginal) against German 4 lost (tactical, <= 5): the higher level wins
    o = evaluate(sit, _fs(sit, [GONE, GONE, GONE, GONE], [0, 0, 0, 0], types, groups))
    assert o.values == {"russian": 8.0, "german": 4.0}
    assert o.levels == {"russian": "marginal", "german": "tactical"} and o.winner == "german"


def test_classic_levels_draw_when_equal_and_in_area_ratio():
    """pb-07: both sides measure own units on board 2 against the enemy's; equal levels are a draw."""
    sit = load_situation(CLASSIC / "pb-07.toml")
    g_ger = sit.side("german").groups[0].name
    g_rus = sit.side("russian").groups[0].name
    area = next(iter(sit.areas.values()))
    inside, outside = int(area[0]), int(next(h for h in range(sit.map.n_hexes) if h not in set(area.tolist())))
    # one German and one Russian on board 2: ratio 1 each -> German marginal (>= 1), Russian none (> 1): German
    o = evaluate(sit, _fs(sit, [inside, inside], [2, 2], ["pzkw-iv-h", "t-34-c"], [g_ger, g_rus]))
    assert o.values == {"german": 1.0, "russian": 1.0} and o.winner == "german"
    # nobody there: 0 to 0 is "as many" (1.0) for both; Russians need more: German marginal again
    o = evaluate(sit, _fs(sit, [outside, outside], [2, 2], ["pzkw-iv-h", "t-34-c"], [g_ger, g_rus]))
    assert o.winner == "german" and o.level == "marginal"
    # two Russians, no German: Russian decisive (inf)
    o = evaluate(sit, _fs(sit, [inside, inside], [2, 2], ["t-34-c", "t-34-c"], [g_rus, g_rus]))
    assert o.winner == "russian" and o.level == "decisive"


def test_pb_sit_10_special_alternatives_under_v2():
    """PB-SIT-10 (the card's `also`): the Germans win marginally by destroying the 26th AT Brigade's
    12 units without ever entering board 3; the Russians win decisively when no German ever entered
    board 3 and a Russian unit stands on it at the end.  `entered` reads where units ever stood."""
    sit = load_situation(CLASSIC / "pb-10.toml")
    board3 = sit.areas[repr(sorted({"boards": ["3"]}.items()))]
    elsewhere = next(h for h in range(sit.map.n_hexes) if h not in set(board3.tolist()))
    at = next(g.name for g in sit.side("russian").groups if g.name == "26th AT Bgde.")
    ger = sit.side("german").groups[0].name
    rus = [g.name for g in sit.side("russian").groups if g.name != at][0]
    n = 14
    types = ["76_2mm-at"] * 6 + ["truck-russian"] * 6 + ["t-34-c", "tiger-i"]
    groups = [at] * 12 + [rus, ger]
    hexes = [GONE] * 12 + [int(board3[0]), elsewhere]
    steps = [0] * 12 + [2, 2]

    def fs(visited_german_on_3):
        visited = np.zeros((n, sit.map.n_hexes), dtype=bool)
        visited[13, elsewhere] = True
        if visited_german_on_3:
            visited[13, int(board3[1])] = True
        return FinalState(np.array(hexes), np.array(steps),
                          np.array([sit.side_names.index("russian")] * 13 + [sit.side_names.index("german")]),
                          types, groups, visited)
    # no German ever on board 3, a Russian on it: German marginal (PB-SIT-10) against Russian decisive
    o = evaluate(sit, fs(False))
    assert o.levels["german"] == "marginal" and o.levels["russian"] == "decisive" and o.winner == "russian"
    # a German went onto board 3 at some time: neither alternative holds
    o = evaluate(sit, fs(True))
    assert o.levels["german"] == "none" and o.levels["russian"] == "none" and o.winner == "draw"


def test_classic_open_corridor_and_line_of_fire():
    """pb-11: the Germans win by a corridor north to south, three hexes wide, free of Russian units and
    of the hexes they see (v2 line of sight); the Russians by preventing it.  pb-03: the Russians by
    a line of fire (hexes they hold or see) joining north and south."""
    sit = load_situation(CLASSIC / "pb-11.toml")
    p = prepare(sit)
    g_rus = sit.side("russian").groups[0].name
    gm = sit.map
    fs = FinalState(np.array([GONE]), np.array([0]), np.array([sit.side_names.index("russian")]), ["t-34_85"], [g_rus],
                    None, p.tables.los)
    o = evaluate(sit, fs)
    assert o.values["german"] == 1.0 and o.winner == "german"           # nobody left: the corridor is open
    # a wall of Russian units across the map, one in every column of a row: no corridor
    row = gm.height // 2
    wall = [h for h in range(gm.n_hexes) if gm.row[h] == row]
    n = len(wall)
    fs = FinalState(np.array(wall), np.array([2] * n), np.array([sit.side_names.index("russian")] * n), ["t-34_85"] * n,
                    [g_rus] * n, None, p.tables.los)
    o = evaluate(sit, fs)
    assert o.values["german"] == 0.0 and o.winner == "russian"
    sit3 = load_situation(CLASSIC / "pb-03.toml")
    p3 = prepare(sit3)
    rus = sit3.side_names.index("russian")
    g3 = sit3.side("russian").groups[0].name
    col = [h for h in range(sit3.map.n_hexes) if sit3.map.col[h] == 5]   # a Russian in every hex of a column
    fs = FinalState(np.array(col), np.array([2] * len(col)), np.array([rus] * len(col)), ["rifle-company-43"] * len(col),
                    [g3] * len(col), None, p3.tables.los)
    o = evaluate(sit3, fs)
    assert o.values["russian"] == 1.0 and o.levels["russian"] == "decisive"


def test_classic_exited_units_leave_by_the_counted_edge_only():
    """pb-08: the German units may step off the north edge (the card counts them, `exited`); a
    MOVE_DEST row of column 9 = 1 is the step off the map; the Russians get no exit; pb-09's
    not_exited counts every Russian not gone off the north edge, the destroyed included."""
    from simulator.rulesets.panzerblitz_v2 import game
    from simulator.rulesets.panzerblitz_v2.batch import player_arrays
    from simulator.rulesets.panzerblitz_v2.state import EV_EXIT, EXITED, new_state

    sit = load_situation(CLASSIC / "pb-08.toml")
    p = prepare(sit)
    t = p.tables
    ger, rus = sit.side_names.index("german"), sit.side_names.index("russian")
    north = sit.map.edge_hexes("north")
    assert t.exit_ok[ger, north].all() and not t.exit_ok[rus].any() and t.exit_ok[ger].sum() == len(north)
    kinds, params = player_arrays(RULESET.players.parse(["random"], sit.side_names), sit.side_names)
    st = new_state(t, 1, kinds, params)
    tank = int(np.flatnonzero((t.u_side == ger) & t.t_armored[t.u_type])[0])
    h = int(next(x for x in north if t.move_cost[x, t.t_mode[t.u_type[tank]]] > 0))
    st.hex[tank] = h
    exits = 0
    for seed in range(40):                      # the random player takes the exit row now and then
        st = new_state(t, seed, kinds, params)
        st.hex[tank] = h
        game.move_unit(t, st, tank, h, 0)
        if st.hex[tank] == EXITED:
            exits += 1
            e = st.ev[st.n_ev[0] - 1]
            assert e[2] == EV_EXIT and e[4] == tank and e[5] in north
    assert exits > 0
    g_ger = sit.side("german").groups[0].name
    fs = FinalState(np.array([EXITED, EXITED, h]), np.array([2, 2, 2]), np.array([ger] * 3), ["pzkw-iv-h"] * 3,
                    [g_ger] * 3)
    assert evaluate(sit, fs).values["german"] == 2.0
    sit9 = load_situation(CLASSIC / "pb-09.toml")
    g_rus = sit9.side("russian").groups[0].name
    r9 = sit9.side_names.index("russian")
    fs = FinalState(np.array([EXITED, GONE, 5]), np.array([2, 0, 2]), np.array([r9] * 3), ["t-34-c"] * 3, [g_rus] * 3)
    assert evaluate(sit9, fs).values["german"] == 2.0


def test_pb_sit_5_round_trip_out_off_three_turns_back_where_it_left_out_by_the_final_edge():
    """PB-SIT-5 (pb-05, exits.py): a German unit leaves by the south edge, stays off three whole
    turns, is activated back by an Ops chit whose radius reaches the hex it left from, comes back on
    there (an adjacent hex when an enemy holds it), may then leave only by the north edge, and that
    completes its round trip (the card's `round_trip` measure counts it from that turn on)."""
    from simulator.rulesets.panzerblitz_v2 import game
    from simulator.rulesets.panzerblitz_v2.batch import player_arrays
    from simulator.rulesets.panzerblitz_v2.exits import exit_allowed, may_return, ops_hex
    from simulator.rulesets.panzerblitz_v2.state import EV_EXIT, EV_RETURN, EXITED, new_state

    sit = load_situation(CLASSIC / "pb-05.toml")
    t = prepare(sit).tables
    ger, rus = sit.side_names.index("german"), sit.side_names.index("russian")
    south, north = sit.map.edge_hexes("south"), sit.map.edge_hexes("north")
    assert t.exit_ok[ger, south].all() and t.exit_ok[ger].sum() == len(south) and not t.exit_ok[rus].any()
    assert t.trip_final[ger, north].all() and t.trip_final[ger].sum() == len(north) and not t.trip_final[rus].any()
    assert t.trip_stay[ger] == 3 and t.trip_stay[rus] == -1
    kinds, params = player_arrays(RULESET.players.parse(["random"], sit.side_names), sit.side_names)
    tank = int(np.flatnonzero((t.u_side == ger) & t.t_armored[t.u_type])[0])
    mode = t.t_mode[t.u_type[tank]]
    h = int(next(x for x in south if 0 < t.move_cost[x, mode] <= 4))
    for seed in range(60):                      # the random player takes the exit row now and then
        st = new_state(t, seed, kinds, params)
        st.turn[0] = 2
        st.hex[tank] = h
        game.move_unit(t, st, tank, h, 0)
        if st.hex[tank] == EXITED:
            break
    assert st.hex[tank] == EXITED and st.trip_hex[tank] in south and st.exit_turn[tank] == 2
    h = int(st.trip_hex[tank])                  # the hex it left from (it may have driven along the edge)
    e = st.ev[st.n_ev[0] - 1]
    assert e[2] == EV_EXIT and e[4] == tank and e[5] == h and e[6] == 1      # the outward leg
    for turn in (3, 4, 5):                      # off the whole turns 3, 4 and 5
        st.turn[0] = turn
        assert not may_return(t, st, tank) and ops_hex(t, st, tank) == -1
    st.turn[0] = 6
    assert may_return(t, st, tank) and ops_hex(t, st, tank) == h
    # an Ops chit's radius reaches it at the hex it left from (3.1.2.1): the chit's rows count it
    n = game.chit_options(t, st, ger, 2)
    rows = {int(st.opts[i, 0]): int(st.opts[i, 1]) for i in range(1, n)}
    assert rows and all(t.dist[h, x] <= 2 for x in rows) and all(v == 1 for v in rows.values())
    snap = st.hex.copy(), st.n_ev[0]
    back = None
    for _ in range(60):                         # row 0 stays off; the others come back on
        st.hex[:] = snap[0]
        st.returned[tank] = False
        game.return_unit(t, st, tank)
        if st.returned[tank]:
            back = int(np.flatnonzero(st.ev[:st.n_ev[0], 2] == EV_RETURN)[-1])
            break
    assert back is not None and st.ev[back, 5] == h and st.hex[tank] >= 0
    assert st.spent[tank]
    assert not exit_allowed(t, st, tank, h) or h in north
    assert all(exit_allowed(t, st, tank, x) for x in north) and not any(exit_allowed(t, st, tank, x) for x in south)
    # the hex it left from held by the enemy: it comes back next to it (as 3.1.2.3)
    st = new_state(t, 7, kinds, params)
    st.turn[0] = 6
    st.hex[tank] = EXITED
    st.trip_hex[tank] = h
    st.exit_turn[tank] = 2
    foe = int(np.flatnonzero(t.u_side == rus)[0])
    st.hex[foe] = h
    for _ in range(60):
        game.return_unit(t, st, tank)
        if st.returned[tank]:
            break
    e = st.ev[int(np.flatnonzero(st.ev[:st.n_ev[0], 2] == EV_RETURN)[-1])]
    assert e[5] != h and t.dist[e[5], h] == 1
    # the measure: units whose trip was done by the turn evaluated
    g = sit.side("german").groups[0].name
    fs = FinalState(np.array([EXITED, EXITED, h]), np.array([2, 2, 2]), np.array([ger] * 3), ["pzkw-iv-h"] * 3,
                    [g] * 3, trip_done=np.array([True, False, False]), exit_turn=np.array([9, 3, 0]), turn=10)
    o = evaluate(sit, fs)
    assert o.values["german"] == 1.0 and o.levels["german"] == "none" and o.winner == "russian"


def test_victory_levels_are_one_core_module_for_both_rulesets():
    import simulator.rulesets.panzerblitz.victory as classic
    import simulator.rulesets.panzerblitz_v2.victory as v2
    import simulator.victory_levels as core

    assert classic.level_reached is core.level_reached and classic.result_of is core.result_of
    assert v2.level_reached is core.level_reached and v2.RANK_NAMES is core.RANK_NAMES is classic.RANK_NAMES
    assert core.result_of({"a": 2, "b": 1}) == ("a", 2, 1) and core.result_of({"a": 1, "b": 1}) == (None, 0, 0)
    assert core.level_reached({"marginal": 3, "tactical": {"threshold": 1, "compare": "<="}, "compare": ">="}, 1) == 2


def test_classic_furthest_advance():
    sit = load_situation(CLASSIC / "pb-02.toml")
    g_rus = sit.side("russian").groups[0].name
    gm = sit.map
    far = int(np.argmax(gm.col))
    o = evaluate(sit, _fs(sit, [far], [2], ["rifle-company-43"], [g_rus]))
    assert o.values["russian"] == gm.col[far] + 1 and o.levels["russian"] == "decisive"


@pytest.mark.parametrize("card", CARDS)
def test_classic_card_plays_in_debug_mode_same_seed_same_game(card):
    p = prepare(load_situation(CLASSIC / f"{card}.toml"))
    for pol in (["random"], None):
        players = RULESET.players.parse(pol, p.sides)
        g = play_one(p, 2, players, debug=True)
        assert violation(g) is None, f"{card} {pol}: {violation(g)}"
    a, _, _ = play_games(p, [5], players)
    b, turns, _ = play_games(p, [5], players)
    assert a.equals(b)
    assert a.loc[0, "winner"] in (*p.sides, "draw")
    last = turns[turns.turn == turns.turn.max()]
    for s in p.sides:                                          # the turns table ends on the games' value
        assert float(last[last.side == s].measure.iloc[0]) == float(a.loc[0, f"value_{s}"])


@pytest.mark.slow
@pytest.mark.parametrize("card", CARDS)
def test_classic_card_invariants_1000_random_games(card):
    p = prepare(load_situation(CLASSIC / f"{card}.toml"))
    players = RULESET.players.parse(["random"], p.sides)
    for seed in range(1000):
        g = play_one(p, seed, players, debug=True)
        assert violation(g) is None, f"{card} seed {seed}: {violation(g)}"
