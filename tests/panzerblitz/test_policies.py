"""Policies: parameters from the command line, the heuristic player's reading of a situation,
its decisions in small positions, and its strength against random play."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.errors import DataError
from simulator.rulesets.panzerblitz.events import EV_ATTACK, EV_FIRER
from simulator.rulesets.panzerblitz.game import fire_phase
from simulator.rulesets.panzerblitz.players.goals import (
    ADVANCE,
    DEFEND,
    EXIT,
    FAR,
    P_D,
    P_DD,
    P_X,
    build_policy_tables,
    result_probabilities,
    start_hexes,
)
from simulator.rulesets.panzerblitz.players.heuristic import column_for_ratio, hex_score, is_rider
from simulator.rulesets.panzerblitz.players.spec import N_PARAMS, parse_policy, parse_side_policies
from simulator.rulesets.panzerblitz.presence import occupancy
from simulator.rulesets.panzerblitz.replay import play, policy_tables
from simulator.rulesets.panzerblitz.tables import build_tables
from simulator.situation import builtin_situations, load_situation
from tests.panzerblitz.pb_players import pb_players
from tests.panzerblitz.test_rules import GERMAN, hexn, position, unit_of

SITUATIONS = [p.stem for p in builtin_situations()]


# ---------------------------------------------------------------- specs

def test_policy_spec_defaults_and_overrides():
    spec = parse_policy("heuristic:aggression=0.8, min_odds=3")
    assert spec.full_params()["aggression"] == 0.8
    assert spec.full_params()["min_odds"] == 3.0
    assert spec.full_params()["risk"] == 1.0  # default kept
    v = spec.vector()
    assert v.shape == (N_PARAMS,) and v[0] == 0.8 and v[1] == 3.0
    assert spec.label() == "heuristic:aggression=0.8,min_odds=3"
    assert parse_policy("random").label() == "random"


@pytest.mark.parametrize("text, message", [
    ("clever", "unknown policy"),
    ("heuristic:boldness=1", "no parameter 'boldness'"),
    ("heuristic:aggression=high", "not a number"),
    ("heuristic:aggression", "not KEY=VALUE"),
])
def test_policy_spec_errors_name_what_was_expected(text, message):
    with pytest.raises(DataError) as e:
        parse_policy(text)
    assert message in e.value.line()


def test_side_policies():
    out = parse_side_policies(["german=random", "russian=heuristic:risk=2"], ["german", "russian"])
    assert out["german"].name == "random" and out["russian"].full_params()["risk"] == 2.0
    assert parse_side_policies(None, ["german", "russian"])["german"].name == "heuristic"
    with pytest.raises(DataError, match="unknown side"):
        parse_side_policies(["finn=random"], ["german", "russian"])


# ---------------------------------------------------------------- goals

def test_goals_read_from_the_victory_conditions(tables_of):
    # Situation 5: the Germans must leave by the south edge; the Russians deny it (holding their
    # start ground across the German way: test_kill_scoring_denial_holds_its_start_ground).
    pt = build_policy_tables(tables_of("pb-05"))
    t = tables_of("pb-05")
    ger, rus = (t.situation.ruleset.sides.index(s) for s in ("german", "russian"))
    assert pt.goal_kind[ger] == EXIT and pt.goal_kind[rus] == DEFEND
    south = t.situation.map.edge_hexes("south")
    assert (pt.goal_dist[ger, south] == 0).all()
    # ... and come back (PB-SIT-5): once out, a unit heads for the north edge.
    assert (pt.return_dist[ger, t.situation.map.edge_hexes("north")] == 0).all()
    assert (pt.return_dist[rus] == FAR).all()
    # Situation 10: the Russians score units on board 3; the Germans count kills, and so
    # deny board 3 (their goal is the enemy's), which lies between the two sides.
    t = tables_of("pb-10")
    pt = build_policy_tables(t)
    ger, rus = (t.situation.ruleset.sides.index(s) for s in ("german", "russian"))
    assert pt.goal_kind[rus] == ADVANCE and pt.goal_kind[ger] == DEFEND
    assert (pt.goal_dist[rus] == pt.goal_dist[ger]).all()
    # Situation 1: the command post is worth five kills to the Russians (card weights).
    t = tables_of("pb-01")
    pt = build_policy_tables(t)
    rus = t.situation.ruleset.sides.index("russian")
    assert pt.victory_weight[rus, t.units.index("command-post")] == 4.0


@pytest.mark.parametrize("sid, side, start_board", [("pb-06", "german", "2"), ("pb-08", "russian", "1"),
                                                    ("pb-05", "russian", "1")])
def test_kill_scoring_denial_holds_its_start_ground(tables_of, sid, side, start_board):
    # Situation 8: the Russians count German kills; the Germans must leave by the north edge.
    # Their start, board 1, lies across the German way: they hold it instead of falling back
    # to the edge (goals.forward_ground).  Situation 6 likewise for the Germans on board 2, and
    # Situation 5 for the Russians, whose measure only prevents the German exit (issue 15: lined
    # up on the south edge they let the Germans through, worse than a random player).
    t = tables_of(sid)
    pt = build_policy_tables(t)
    si = t.situation.ruleset.sides.index(side)
    assert pt.goal_kind[si] == DEFEND
    held = np.flatnonzero(pt.goal_dist[si] == 0)
    assert set(held) == set(start_hexes(t, si))
    assert {t.situation.map.labels[h][0] for h in held} == {start_board}


def test_denial_on_ground_the_side_starts_on_keeps_the_goal(tables_of):
    # Situation 12: the Germans set up on the area the Russians must take; they hold that area.
    t = tables_of("pb-12")
    pt = build_policy_tables(t)
    ger, rus = (t.situation.ruleset.sides.index(s) for s in ("german", "russian"))
    assert pt.goal_kind[ger] == DEFEND
    assert (pt.goal_dist[ger] == pt.goal_dist[rus]).all()


def test_expected_damage_follows_the_crt(tables_of):
    ct = tables_of("pb-01").combat_t
    p = result_probabilities(ct.crt, ct.lowest_roll)
    assert np.allclose(p.sum(axis=0) <= 1 + 1e-9, True)
    ev = p[P_X] + 0.35 * (p[P_D] + p[P_DD])  # the worth of an attack on an undispersed unit
    zero = ev.shape[1] // 2
    # PB-CRT-1: better odds never do less damage; at 4-1 rows 1..6 are all X.
    assert (np.diff(ev[:, zero]) >= 0).all()
    assert ev[-1, zero] == 1.0
    # PB-CBT-10: a +1 (woods, town) never helps the attacker.
    assert (ev[:, zero + 1] <= ev[:, zero]).all()
    assert column_for_ratio(ct, 2.0) == list(tables_of("pb-01").combat.column_names).index("2-1")
    assert column_for_ratio(ct, 1.5) == list(tables_of("pb-01").combat.column_names).index("2-1")


# ---------------------------------------------------------------- decisions in positions

def heuristic_players():
    spec = parse_policy("heuristic:noise=0")
    return np.array([spec.kernel_id] * 2, dtype=np.int64), np.tile(spec.vector(), (2, 1))


def fields_in_position(tmp_path, units, side):
    """A hand-made position and `side`'s heuristic reading of it: (tables, state, policy tables,
    parameters of both sides, the enemy fields `heuristic.enemy_fields` fills for `side`)."""
    from simulator.rulesets.panzerblitz.players.heuristic import N_FIELDS, enemy_fields

    t, st = position(tmp_path, units)
    pt = policy_tables(t)
    _, params = heuristic_players()
    fields = np.empty((N_FIELDS, t.situation.map.n_hexes), dtype=np.int64)
    enemy_fields(st, t.unit_t, t.map_t, t.combat_t, pt, params[side], side, fields)
    return t, st, pt, params, fields


def fired_at(t, st, side, policy, params):
    """`side`'s fire phase in the position: the hex each of its firers fired at."""
    first = int(st.clock[2])
    fire_phase(st, t.unit_t, t.map_t, t.combat_t, side, pb_players(t, st, policy, params))
    log = st.log[first: st.clock[2]]
    return [int(h) for h in log[log[:, 2] == EV_FIRER][:, 4]]


def test_heuristic_concentrates_fire_on_one_stack(tmp_path):
    # Two Panzer IVs can each reach 1-1 on either of two T-34s in the open; together they
    # reach 2-1 on one: the player puts both on the same stack (a combination attack).
    units = [("german", "pzkw-iv-h", "3K4"), ("german", "pzkw-iv-h", "3K5"),
             ("russian", "t-34-c", "3K8"), ("russian", "t-34-c", "3M6")]
    t, st = position(tmp_path, units)
    policy, params = heuristic_players()
    fire_phase(st, t.unit_t, t.map_t, t.combat_t, GERMAN, pb_players(t, st, policy, params))
    log = st.log[: st.clock[2]]
    attacks = log[log[:, 2] == EV_ATTACK]
    firers = log[log[:, 2] == EV_FIRER]
    assert len(attacks) == 1 and len(firers) == 2
    assert len(set(firers[:, 4].tolist())) == 1  # both at the same hex


def test_heuristic_prefers_cover_out_of_enemy_fire(tmp_path):
    # A rifle platoon facing a T-34: at any distance, the best woods hex (unspotted at range,
    # PB-SPOT-1) scores better than the best open hex in the tank's sight.
    t, st = position(tmp_path, [("german", "rifle-platoon-german-42", "3Y2"), ("russian", "t-34-c", "3Y6")])
    from simulator.rulesets.panzerblitz.players.heuristic import N_FIELDS, enemy_fields

    pt = policy_tables(t)
    _, params = heuristic_players()
    fields = np.empty((N_FIELDS, t.situation.map.n_hexes), dtype=np.int64)
    enemy_fields(st, t.unit_t, t.map_t, t.combat_t, pt, params[GERMAN], GERMAN, fields)
    occ = occupancy(st, t.unit_t, t.situation.map.n_hexes)
    u = unit_of(t, st, "rifle-platoon-german-42")
    m = t.situation.map
    tank = hexn(t, "3Y6")
    mt = t.map_t

    def score(h):
        return hex_score(st, t.unit_t, mt, t.combat_t, pt, params[GERMAN], GERMAN, u, h, occ, fields, np.random.default_rng(0))

    compared = 0
    for d in range(2, 7):  # same distance from the tank, same (ground) level
        ring = [h for h in range(m.n_hexes) if mt.dist[h, tank] == d and mt.level[h] == 0 and not st.mine[h]]
        woods = [h for h in ring if mt.concealing[h] and not mt.town[h]]
        open_seen = [h for h in ring if not mt.concealing[h] and fields[0, h] > 0]
        if woods and open_seen:
            assert max(score(h) for h in woods) > max(score(h) for h in open_seen), d
            compared += 1
    assert compared >= 2


def test_riders_are_foot_units_and_guns(tables_of):
    t = tables_of("pb-08")
    ut = t.unit_t
    assert is_rider(ut, t.units.index("rifle-platoon-german-42"))
    assert not is_rider(ut, t.units.index("truck-german"))
    assert not is_rider(ut, t.units.index("fort-50"))


# ---------------------------------------------------------------- whole games

@pytest.mark.parametrize("sid", SITUATIONS)
def test_heuristic_games_keep_every_invariant(tables_of, sid):
    rec = play(tables_of(sid), 1, ("heuristic", "heuristic"), debug=True)
    assert rec.violation is None, (sid, rec.violation)


def test_heuristic_games_are_reproducible(tables_of):
    from simulator.rulesets.panzerblitz.replay import describe

    t = tables_of("pb-04")
    assert describe(play(t, 5, ("heuristic", "random")), t) == describe(play(t, 5, ("heuristic", "random")), t)


@pytest.mark.parametrize("sid", ["pb-04", "pb-07"])
def test_heuristic_beats_random_from_both_seats(tables_of, sid):
    """Issue 4 strength check (small): the full table is `make strength` (bench/strength.py)."""
    t = tables_of(sid)
    sides = t.situation.ruleset.sides
    for seat in range(2):
        pol = ("heuristic", "random") if seat == 0 else ("random", "heuristic")
        wins = sum(play(t, seed, pol).outcome.winner == sides[seat] for seed in range(8))
        assert wins >= 6, (sid, sides[seat], wins)


@pytest.mark.parametrize("sid,seat", [("pb-01", 1), ("pb-06", 0), ("pb-08", 1)])
def test_heuristic_scores_above_random_in_the_same_seat(tables_of, sid, seat):
    """Issue 4 strength check, seat-fair (bench/strength.py): against the same random opponent on
    the same seeds, the heuristic player's outcome score (its victory level minus the opponent's)
    beats a random player's in that seat.  Random play loses from the first two seats; from the
    last two (sides scored on kills that deny the enemy's goal, goals.forward_ground) it wins
    often, and the heuristic player must still do better."""
    from simulator.rulesets.panzerblitz.victory import LEVEL_RANK

    t = tables_of(sid)
    sides = t.situation.ruleset.sides
    me, them = sides[seat], sides[1 - seat]

    def score(pols):
        total = 0
        for seed in range(6):
            o = play(t, seed, pols).outcome
            total += LEVEL_RANK.get(o.levels[me], 0) - LEVEL_RANK.get(o.levels[them], 0)
        return total

    heuristic = ("heuristic", "random") if seat == 0 else ("random", "heuristic")
    assert score(heuristic) >= score(("random", "random")) + 6, (sid, me)


def test_heuristic_makes_situation_5_round_trips(tables_of):
    """PB-SIT-5's return leg: the German heuristic player goes out by the south edge, stays off,
    comes back on and leaves by the north edge with units a random player never brings home.
    (Against a random opponent it still falls short of the card's 7 for a marginal win: the
    level score of the check above cannot tell the two players apart on this card.)"""
    t = tables_of("pb-05")
    ger = t.situation.ruleset.sides.index("german")

    def home(pols):
        return [play(t, seed, pols).outcome.values["german"] for seed in range(6)]

    pols = ("heuristic", "random") if ger == 0 else ("random", "heuristic")
    heuristic, random = home(pols), home(("random", "random"))
    # (Round 2 of issue 15: in one of the six seeds, 3, the returning half-tracks end the last
    # turn one board short of the north edge; five of six bring units home.)
    assert sum(random) == 0 and sum(heuristic) >= 6 and sum(h >= 1 for h in heuristic) >= 5, heuristic
# ---------------------------------------------------------------- issue 15: blunders a veteran laughs at

def _setup_hexes(rec, t):
    """(unit, hex) of every set-up event of a game."""
    from simulator.rulesets.panzerblitz.events import EV_SETUP

    ev = rec.events
    return [(int(r[3]), int(r[4])) for r in ev[ev[:, 2] == EV_SETUP]]


@pytest.mark.parametrize("sid", ["pb-01", "pb-05", "pb-08", "pb-12"])
def test_no_unit_sets_up_on_its_own_minefield(tables_of, sid):
    # Issue 15: pb-01's 88mm AT was set up on its own minefield at 2W7 and killed by it; pb-05's
    # rifle companies and pb-12's command posts and trucks too.  The side lays its minefields
    # first (game.setup_side) and its units keep off them (PB-MINE-2: they attack both sides).
    t = tables_of(sid)
    ut = t.unit_t
    for seed in range(4):
        rec = play(t, seed, ("heuristic", "heuristic"))
        st = rec.state
        mines = {h: int(st.side[u]) for u, h in _setup_hexes(rec, t) if t.units.names[st.utype[u]] == "minefield"}
        on_own = [(t.units.names[st.utype[u]], t.situation.map.labels[h]) for u, h in _setup_hexes(rec, t)
                  if not ut.positional[st.utype[u]] and mines.get(h) == st.side[u]]
        assert not on_own, (sid, seed, on_own)


def test_minefields_lie_across_the_enemy_way_not_under_own_units(tables_of):
    # Minefields and blocks go where the enemy's cheapest ways to the side's ground pass
    # (goals.barrier_ways), not where the side's own units stand.
    t = tables_of("pb-05")
    pt = policy_tables(t)
    rus = t.situation.ruleset.sides.index("russian")
    rec = play(t, 1, ("heuristic", "heuristic"))
    st = rec.state
    mines = [h for u, h in _setup_hexes(rec, t) if t.units.names[st.utype[u]] == "minefield"]
    assert mines and all(st.side[u] == rus for u, h in _setup_hexes(rec, t) if h in mines and
                         t.units.names[st.utype[u]] == "minefield")
    ways = pt.barrier_way[rus]
    # every minefield on ground the Germans must cross more than the average set-up hex
    area = np.unique([h for u, h in _setup_hexes(rec, t) if st.side[u] == rus])
    assert np.mean(ways[mines]) > np.mean(ways[area])


def test_engineers_clear_enemy_minefields_never_their_own(tmp_path):
    # PB-MINE-9: an engineer beside its own minefield and an enemy one tries the enemy's; beside
    # its own alone, it does not try (issue 15: pb-01's engineers spent the game on their own).
    from simulator.rulesets.panzerblitz.events import EV_MINE_REMOVAL

    policy, params = heuristic_players()
    for units, expect in (
        ([("german", "engineer-platoon-german", "3M5"), ("german", "minefield", "3M4"),
          ("russian", "minefield", "3M6"), ("russian", "rifle-company-43", "3A10")], ["3M6"]),
        ([("german", "engineer-platoon-german", "3M5"), ("german", "minefield", "3M4"),
          ("russian", "rifle-company-43", "3A10")], []),
    ):
        t, st = position(tmp_path, units)
        fire_phase(st, t.unit_t, t.map_t, t.combat_t, GERMAN, pb_players(t, st, policy, params))
        log = st.log[: st.clock[2]]
        tried = [t.situation.map.labels[int(r[4])] for r in log[log[:, 2] == EV_MINE_REMOVAL]]
        assert tried == expect, units


def test_riders_enter_aboard_the_groups_carriers(tables_of):
    # Issue 15: in pb-04 the Russians had 15 trucks and 5 M-2s and walked fourteen infantry
    # units on foot from the east edge.  Entering groups may now enter loaded (transport.board_entering)
    # and the heuristic boards the riders that have far to go.
    from simulator.rulesets.panzerblitz.events import EV_LOAD

    t = tables_of("pb-04")
    rus = t.situation.ruleset.sides.index("russian")
    rec = play(t, 1, ("heuristic", "heuristic"))
    ev = rec.events
    boarded = ev[(ev[:, 2] == EV_LOAD) & (ev[:, 6] == 1) & (ev[:, 0] == 1) & (ev[:, 1] == rus)]
    st = rec.state
    ut = t.unit_t
    riders = [u for u in range(len(st.utype)) if st.side[u] == rus and is_rider(ut, st.utype[u])
              and ut.movement[st.utype[u]] > 0]
    assert len(boarded) >= len(riders) - 1, (len(boarded), len(riders))
    # transport first: no tank takes a rider while a truck or halftrack stands empty
    from simulator.rulesets.panzerblitz.units import CATEGORY_INDEX

    carriers = {int(r[3]) for r in boarded}
    assert all(ut.category[st.utype[c]] == CATEGORY_INDEX["transport"] for c in carriers)
    # pb-10: the Germans' riflemen ride their eleven halftracks, not their Panzer IVs
    t = tables_of("pb-10")
    ev = play(t, 3, ("heuristic", "heuristic")).events
    st = play(t, 3, ("heuristic", "heuristic")).state
    boarded = ev[(ev[:, 2] == EV_LOAD) & (ev[:, 6] == 1)]
    assert len(boarded) and all(t.unit_t.category[st.utype[int(r[3])]] == CATEGORY_INDEX["transport"]
                                for r in boarded)


def test_random_players_may_board_too(tables_of):
    # The boarding is an option the engine offers (players/random_play.py ENTRY_BOARD), so random
    # play takes it sometimes.
    from simulator.rulesets.panzerblitz.events import EV_LOAD

    t = tables_of("pb-04")
    ev = play(t, 2, ("random", "random")).events
    assert ((ev[:, 2] == EV_LOAD) & (ev[:, 6] == 1)).sum() > 0


def test_a_lone_unit_in_reach_of_massed_fire_prefers_company(tmp_path):
    # Issue 15: the Nashorn sat alone under the Russian guns; Russian tanks were fed one at a
    # time into artillery range.  A unit with friends within `support_radius` shares the enemy's
    # fire with them (heuristic.score_hexes divides it); alone it draws all of it and pays
    # `alone_cost`.  Same hex, same threat: with friends near it scores better.
    from simulator.rulesets.panzerblitz.players.heuristic import (
        OWN_NEAR,
        THREAT_ARMORED,
        enemy_fields,
    )

    units = [("german", "pzkw-iv-h", "3K2"), ("russian", "su-152", "3K9"), ("russian", "su-152", "3P10")]
    t, st, pt, params, fields = fields_in_position(tmp_path, units, GERMAN)
    n_hex = t.situation.map.n_hexes
    occ = occupancy(st, t.unit_t, n_hex)
    u = unit_of(t, st, "pzkw-iv-h")
    exposed = [h for h in range(n_hex) if fields[THREAT_ARMORED, h] > 0 and t.map_t.dist[h, st.hex[u]] > 2]
    assert exposed
    h = max(exposed, key=lambda x: fields[THREAT_ARMORED, x])  # where the enemy's massed fire falls

    def score(friends):
        fields[OWN_NEAR, h] = friends
        return hex_score(st, t.unit_t, t.map_t, t.combat_t, pt, params[GERMAN], GERMAN, u, h, occ, fields, np.random.default_rng(0))

    assert score(0) < score(1) <= score(3) and score(1) < score(3) + 1e-12 and score(0) < score(3)
    # and the field counts the side's units within support_radius
    enemy_fields(st, t.unit_t, t.map_t, t.combat_t, pt, params[GERMAN], GERMAN, fields)
    assert fields[OWN_NEAR, st.hex[u]] == 1 and fields[OWN_NEAR, hexn(t, "3K9")] == 0


def test_infantry_closes_on_hidden_enemies_it_can_spot_or_assault(tmp_path):
    # PB-SPOT-2 / PB-CAT: a German unit in woods cannot be fired on from range until a Russian
    # unit stands beside it; the Russian SMG company values the hexes beside it (the CONTACT field).
    from simulator.rulesets.panzerblitz.players.heuristic import CONTACT, N_FIELDS, enemy_fields

    t, st = position(tmp_path, [("russian", "smg-company-43", "3Q2"), ("german", "rifle-platoon-german-42", "3Y2")])
    mt = t.map_t
    woods = [h for h in range(t.situation.map.n_hexes) if mt.concealing[h] and not mt.town[h]]
    assert woods
    pt = policy_tables(t)
    _, params = heuristic_players()
    n_hex = t.situation.map.n_hexes
    ger = unit_of(t, st, "rifle-platoon-german-42")
    st.hex[ger] = woods[0]
    fields = np.empty((N_FIELDS, n_hex), dtype=np.int64)
    enemy_fields(st, t.unit_t, mt, t.combat_t, pt, params[1], 1, fields)
    beside = [h for h in range(n_hex) if mt.dist[h, woods[0]] == 1]
    assert all(fields[CONTACT, h] > 0 for h in beside)
    assert all(fields[CONTACT, h] == 0 for h in range(n_hex) if mt.dist[h, woods[0]] > 1)


def test_an_entering_overrun_does_not_end_under_the_enemy_guns(tables_of):
    # Issue 15: pb-04's Panther carrying the 88mm AT overran in from off the map and stopped in
    # front of the whole Russian vanguard.  An entering overrun is now scored like a move: what it
    # gains plus the exit hex it ends in (heuristic.pick_entry_overrun).  Over a few games, no
    # German entering overrun loses its overrunner in the next Russian player-turn.
    from simulator.rulesets.panzerblitz.events import EV_ENTER, EV_HIT, EV_OVERRUNNER

    t = tables_of("pb-04")
    ger = t.situation.ruleset.sides.index("german")
    for seed in range(4):
        ev = play(t, seed, ("heuristic", "heuristic")).events
        entered = {int(r[3]): int(r[0]) for r in ev if r[2] == EV_OVERRUNNER and r[4] == -1 and r[1] == ger}
        for u, turn in entered.items():
            lost = [r for r in ev if r[2] == EV_HIT and r[3] == u and r[4] == 2 and r[0] in (turn, turn + 1)]
            assert not lost, (seed, u)
        assert EV_ENTER  # (imported for readers: entering overruns log EV_OVERRUNNER from -1)


# ---------------------------------------------------------------- issue 15: parameters as data

def test_every_heuristic_weight_is_a_named_parameter_with_a_range():
    from simulator.rulesets.panzerblitz.players.heuristic import PARAM_NAMES
    from simulator.rulesets.panzerblitz.players.spec import HEURISTIC_PARAMS

    assert tuple(HEURISTIC_PARAMS) == PARAM_NAMES and len(PARAM_NAMES) > 8 == 8
    assert N_PARAMS >= len(PARAM_NAMES)
    for name, p in HEURISTIC_PARAMS.items():
        assert p.lo <= p.default <= p.hi and p.meaning, name
        spec = parse_policy(f"heuristic:{name}={p.hi}")
        assert spec.vector()[PARAM_NAMES.index(name)] == p.hi
        assert spec.label() == (f"heuristic:{name}={p.hi:g}" if p.hi != p.default else "heuristic")


def test_policy_files(tmp_path):
    from simulator.rulesets.panzerblitz.players.spec import load_param_file

    f = tmp_path / "tuned.toml"
    f.write_text('policy = "heuristic"\n[params]\naggression = 0.8\nsupport_split = 0.5\n')
    out = parse_side_policies([f"german=@{f}"], ["german", "russian"])
    assert out["german"].full_params()["aggression"] == 0.8 and out["russian"].params == {}
    assert out["german"].label() == "heuristic:aggression=0.8,support_split=0.5"
    for text, fld in (('policy = "heuristic"\n[params]\nboldness = 1\n', "params.boldness"),
                      ('policy = "heuristic"\n[params]\naggression = "high"\n', "params.aggression"),
                      ('policy = "clever"\n', "policy"),
                      ('policy = "heuristic"\nparams = 3\n', "params"),
                      ('policy = "heuristic"\n[params\n', "(syntax)")):
        f.write_text(text)
        with pytest.raises(DataError) as e:
            parse_policy(f"@{f}")
        assert e.value.file == str(f) and e.value.field == fld, text
    with pytest.raises(DataError) as e:
        parse_policy(f"@{tmp_path / 'missing.toml'}")
    assert "file not found" in e.value.line()
    # the parameters file itself is checked against the kernel's list
    bad = tmp_path / "heuristic.toml"
    bad.write_text('[param.aggression]\ndefault = 2\nmin = 0\nmax = 1\nmeaning = "x"\n')
    with pytest.raises(DataError) as e:
        load_param_file(bad, ("aggression",))
    assert e.value.field == "param.aggression"
    with pytest.raises(DataError, match="missing"):
        load_param_file(bad, ("aggression", "risk"))


# ---------------------------------------------------------------- issue 15: the blunder audit

def test_audit_counts_own_minefield_blunders_of_random_play(tables_of):
    # Random players set up anywhere, own minefields included, and their engineers try any
    # minefield beside them: the audit sees it.  The heuristic players do neither.
    from simulator.rulesets.panzerblitz.audit import audit_games, load_thresholds

    t = tables_of("pb-05")
    th = load_thresholds()
    rnd = audit_games(t, list(range(12)), {"german": parse_policy("random"), "russian": parse_policy("random")}, th)
    assert rnd["own_mine_attacks"].sum() > 0
    heu = audit_games(t, list(range(6)), {"german": parse_policy("heuristic"), "russian": parse_policy("heuristic")}, th)
    assert heu["own_mine_losses"].sum() == 0 and heu["own_mine_clear_attempts"].sum() == 0
    assert set(heu["side"]) == {"german", "russian"} and len(heu) == 12


def test_audit_thresholds_are_data(tmp_path):
    from simulator.rulesets.panzerblitz.audit import load_thresholds

    th = load_thresholds(changes={"walk_hexes": "8"})
    assert th["walk_hexes"] == 8.0 and th["good_odds"] == "2-1"
    with pytest.raises(DataError, match="unknown threshold"):
        load_thresholds(changes={"walk": "6"})
    f = tmp_path / "a.toml"
    f.write_text("[thresholds]\nwalk_hexes = -1\nmassed_firers = 3\nhigh_worth = 1\nalone_radius = 2\n"
                 'low_odds = "1-1"\ngood_odds = "2-1"\n')
    with pytest.raises(DataError) as e:
        load_thresholds(f)
    assert e.value.field == "thresholds.walk_hexes"


def test_docs_list_every_parameter_of_the_data_file():
    # docs/policies.md's parameters table is made from simulator/rulesets/panzerblitz/players/heuristic.toml (spec.params_markdown)
    from pathlib import Path

    from simulator.rulesets.panzerblitz.players.spec import params_markdown

    doc = (Path(__file__).resolve().parents[2] / "docs" / "policies.md").read_text()
    assert params_markdown() in doc


# ---------------------------------------------------------------- issue 15 round 2: target choice

def _clear_pair(t):
    """Two adjacent clear ground-level hexes of the position's board (target, assault hex)."""
    mt, n = t.map_t, t.situation.map.n_hexes
    for h in range(n):
        if mt.terrain_mod[h] or mt.concealing[h] or mt.level[h] or not mt.overrun_ok[h]:
            continue
        for g in range(n):
            if mt.dist[h, g] == 1 and not mt.terrain_mod[g] and not mt.concealing[g] and mt.level[g] == 0:
                return h, g
    raise AssertionError("no clear pair")


def test_close_assault_finishes_a_dispersed_stack_below_one_to_one(tmp_path):
    # Issue 15 (pb-01 "one target forever"): the tanks dispersed the fort on Hill 129 turn after
    # turn and the cavalry beside it never assaulted, because 1-2 is below the minimum odds.  A
    # close assault subtracts 2 from the die (PB-CAT-6) and 1 more on a dispersed stack
    # (PB-DISP-2), and a DD eliminates a dispersed unit (PB-DISP-4): at 1-2 it has an effect more
    # often than a 1-1 attack with no modifier, so the player makes it (heuristic.odds_enough).
    from simulator.rulesets.panzerblitz.players.heuristic import plan_assaults

    units = [("german", "pzkw-iv-h", "3A1"), ("german", "pzkw-iv-h", "3A1"), ("russian", "smg-company-43", "3A2")]
    t, st = position(tmp_path, units)
    target, beside = _clear_pair(t)
    n_units = len(st.utype)
    smg = unit_of(t, st, "smg-company-43")
    for u in range(n_units):
        if t.units.names[st.utype[u]] == "pzkw-iv-h":
            st.hex[u] = target
            st.dispersed[u] = True   # the fire phase dispersed them
    st.hex[smg] = beside
    pt = policy_tables(t)
    _, params = heuristic_players()
    cand = np.full((n_units, 6), -1, dtype=np.int64)
    n_cand = np.zeros(n_units, dtype=np.int64)
    cand[smg, 0], n_cand[smg] = target, 1
    target_of = np.full(n_units, -1, dtype=np.int64)
    plan_assaults(st, t.unit_t, t.map_t, t.combat_t, pt, params[1], 1, cand, n_cand, target_of)
    assert target_of[smg] == target  # 8 against 16: 1-2, die -3
    # the same 1-2 on a stack no fire has dispersed is not worth it: below the minimum odds the
    # player assaults only to finish what its fire dispersed
    st.dispersed[:] = False
    target_of[:] = -1
    cand[smg, 0], n_cand[smg] = target, 1
    plan_assaults(st, t.unit_t, t.map_t, t.combat_t, pt, params[1], 1, cand, n_cand, target_of)
    assert target_of[smg] == -1


def test_close_assault_odds_count_the_die_modifiers(tables_of):
    # odds_enough: at or above the minimum column always; below it only when the die modifiers
    # make the attack at least as likely to hurt as one at the minimum odds.
    from simulator.rulesets.panzerblitz.players.heuristic import min_column, odds_enough

    t = tables_of("pb-01")
    pt, ct = policy_tables(t), t.combat_t
    _, params = heuristic_players()
    low = min_column(ct, pt, params[1], 1)
    col = {c: t.combat.column(c) for c in ("1-4", "1-3", "1-2")}
    assert odds_enough(pt, low, 0, low, 0) and odds_enough(pt, low + 1, 3, low, 0)
    assert odds_enough(pt, col["1-2"], -3, low, 1)      # CAT on a dispersed fort on a hill
    assert not odds_enough(pt, col["1-4"], -2, low, 0)  # CAT at 1-4 on a fresh stack
    assert not odds_enough(pt, col["1-2"], 0, low, 0)   # plain fire at 1-2


def test_overrun_threat_reaches_where_enemy_armour_can_drive(tmp_path):
    # Issue 15 (pb-04 "lone dash"): a hex the enemy's tanks can reach and overrun next turn is
    # dangerous even where their fire is shared (PB-OVR); the field holds their printed AF.
    from simulator.rulesets.panzerblitz.players.heuristic import N_FIELDS, OVERRUN_AF, enemy_fields

    t, st = position(tmp_path, [("german", "pzkw-iv-h", "3A1"), ("russian", "t-34-c", "3P5")])
    pt = policy_tables(t)
    _, params = heuristic_players()
    n_hex = t.situation.map.n_hexes
    fields = np.empty((N_FIELDS, n_hex), dtype=np.int64)
    enemy_fields(st, t.unit_t, t.map_t, t.combat_t, pt, params[GERMAN], GERMAN, fields)
    tank = hexn(t, "3P5")
    mt = t.map_t
    near = [h for h in range(n_hex) if 0 < mt.dist[tank, h] <= 3 and mt.overrun_ok[h]]
    far = [h for h in range(n_hex) if mt.dist[tank, h] > 8]
    assert near and all(fields[OVERRUN_AF, h] == 12 for h in near)
    assert all(fields[OVERRUN_AF, h] == 0 for h in far)
    assert all(fields[OVERRUN_AF, h] == 0 for h in range(n_hex) if not mt.overrun_ok[h])


def test_a_stack_that_shrugs_off_attack_after_attack_is_worth_less(tmp_path):
    # Issue 15 (pb-01): four AFVs fired at the same fort at 2-1 for seven turns.  The player reads
    # its own attacks from the game's record (heuristic.futile_attacks): each one on a hex since
    # the last that eliminated something there lowers that stack's worth as a target
    # (`futility_decay`), so fire and movement turn to other targets.
    from simulator.rulesets.panzerblitz.events import EV_ASSAULT, EV_HIT, log_event
    from simulator.rulesets.panzerblitz.players.heuristic import futile_attacks, target_values
    from simulator.rulesets.panzerblitz.state import PHASING

    units = [("german", "pzkw-iv-h", "3K2"), ("russian", "t-34-c", "3K6"), ("russian", "t-34-c", "3K7")]
    t, st = position(tmp_path, units)
    pt = policy_tables(t)
    _, params = heuristic_players()
    n_hex = t.situation.map.n_hexes
    ger = hexn(t, "3K2")
    fresh = np.zeros(n_hex)
    target_values(st, t.unit_t, t.map_t, t.combat_t, pt, params[1], 1, fresh, np.zeros(n_hex))
    assert fresh[ger] > 0
    st.clock[PHASING] = 1  # the Russian player-turn
    for _ in range(3):  # three Russian attacks on it, no result
        log_event(st, EV_ATTACK, ger, 0, 0, 0, 0, 0, 0)
    log_event(st, EV_ASSAULT, ger, 0, 0, 0, 0, 0, 0)
    fire, cat = np.zeros(n_hex, dtype=np.int64), np.zeros(n_hex, dtype=np.int64)
    futile_attacks(st, 1, fire, cat)
    assert fire[ger] == 3 and cat[ger] == 1
    tired = np.zeros(n_hex)
    target_values(st, t.unit_t, t.map_t, t.combat_t, pt, params[1], 1, tired, np.zeros(n_hex))
    assert 0 < tired[ger] < fresh[ger]
    # an attack that eliminates something there wipes the slate
    log_event(st, EV_ATTACK, ger, 0, 0, 0, 0, 0, 0)
    log_event(st, EV_HIT, 0, 2, 0, 0, 0, 0, 0)
    futile_attacks(st, 1, fire, cat)
    assert fire[ger] == 0 and cat[ger] == 0


def test_tanks_leave_a_stack_that_shrugs_off_their_fire_for_better_targets(tmp_path):
    # Issue 15 (pb-01 "one target forever"): three T-34s and the SU-76 dispersed the fort on
    # Hill 129 at 2-1 for seven turns and never moved on to the guns and infantry behind it.  A
    # unit that fires may not move (PB-SEQ-3.1): after attack upon attack on the same stack came to
    # nothing (futility memory), the tanks hold their fire when a better stack lies within a
    # turn's drive (heuristic.forgo_costs), and still fire when nothing better is in reach.
    from simulator.rulesets.panzerblitz.events import log_event
    from simulator.rulesets.panzerblitz.state import PHASING

    def plan(units, futile):
        t, st = position(tmp_path, units)
        policy, params = heuristic_players()
        st.clock[PHASING] = 1
        target = hexn(t, "3D4")
        for _ in range(futile):
            log_event(st, EV_ATTACK, target, 0, 0, 0, 0, 0, 0)
        return fired_at(t, st, 1, policy, params), target

    fort = [("german", "security-platoon-german", "3D4"), ("russian", "t-34-c", "3G4"), ("russian", "t-34-c", "3H4")]
    # (beyond the 88's reach of the tanks, round 6: a tank in it steps out rather than fire)
    behind = [("german", "88mm-at", "3X4"), ("german", "20mm-aa", "3Y4")]
    fired, target = plan(fort + behind, 0)
    assert fired and set(fired) == {target}     # a fresh target: fire
    fired, _ = plan(fort, 5)
    assert fired and set(fired) == {target}     # nothing better in a turn's drive: fire anyway
    fired, _ = plan(fort + behind, 5)
    assert fired == []                          # five attacks for nothing: drive on to the guns


def test_no_unit_moves_onto_its_own_minefield_for_a_target(tables_of):
    # Issue 15 round 2 (audit of pb-08, 100 games, seed 1, game 47): a Russian guards company and
    # a rifle company moved onto their own minefield at 1K3 on turn 9, pulled by the German
    # trucks beyond it (a target worth more than the setup_mine_cost weight on the unit); the
    # minefield killed one and dispersed the other (PB-MINE-2/5).  Ending a move on the side's
    # own minefield is barred unless nothing else is allowed (heuristic.OWN_MINE_BARRED).
    from simulator.rulesets.panzerblitz.audit import audit_games, load_thresholds
    from simulator.runner import game_seed

    t = tables_of("pb-08")
    heu = audit_games(t, [game_seed(1, 47)], {"german": parse_policy("heuristic"), "russian": parse_policy("heuristic")},
                      load_thresholds())
    assert heu["own_mine_attacks"].sum() == 0 and heu["own_mine_losses"].sum() == 0


# ---------------------------------------------------------------- issue 15 round 3

def _ring(t, around, d, clear=True):
    """Ground-level hexes at distance d from `around` (clear ones unless clear=False)."""
    mt = t.map_t
    return [h for h in range(t.situation.map.n_hexes) if mt.dist[h, around] == d and mt.level[h] == 0
            and (not clear or (not mt.terrain_mod[h] and not mt.concealing[h]))]


def test_a_tank_beside_enemy_infantry_weighs_their_close_assault(tmp_path):
    # Issue 15 round 3 (pb-05, seed 3): a PzIV and an armoured car sat beside three Russian rifle
    # companies for five turns and were close-assaulted every turn until they died.  The enemy's
    # infantry within a hex's move of a hex can close-assault a stack there next turn (PB-CAT-3,
    # heuristic.ASSAULT_AF); it counts in the hex's danger like fire and overrun.
    from simulator.rulesets.panzerblitz.players.heuristic import ASSAULT_AF, N_FIELDS, enemy_fields

    t0, _ = position(tmp_path, [("german", "pzkw-iv-h", "3K5")])
    tank = hexn(t0, "3K5")
    beside = _ring(t0, tank, 1)[:3]
    m = t0.situation.map
    units = [("german", "pzkw-iv-h", "3K5")] + [("russian", "rifle-company-43", m.labels[h]) for h in beside]
    t, st = position(tmp_path, units)
    pt = policy_tables(t)
    _, params = heuristic_players()
    n_hex = m.n_hexes
    fields = np.empty((N_FIELDS, n_hex), dtype=np.int64)
    enemy_fields(st, t.unit_t, t.map_t, t.combat_t, pt, params[GERMAN], GERMAN, fields)
    assert fields[ASSAULT_AF, tank] == 15                      # all three may assault it there
    beyond = [h for h in range(n_hex) if min(t.map_t.dist[h, b] for b in beside) == 3]
    assert beyond and all(fields[ASSAULT_AF, h] == 0 for h in beyond)  # beyond a hex's move and a hex
    occ = occupancy(st, t.unit_t, n_hex)
    u = unit_of(t, st, "pzkw-iv-h")

    def score(h, assault):
        saved = fields[ASSAULT_AF].copy()
        if not assault:
            fields[ASSAULT_AF] = 0
        s = hex_score(st, t.unit_t, t.map_t, t.combat_t, pt, params[GERMAN], GERMAN, u, h, occ, fields, np.random.default_rng(0))
        fields[ASSAULT_AF] = saved
        return s

    assert score(tank, True) < score(tank, False) - 0.3        # staying there costs what the assault would do


def test_a_unit_in_reach_of_a_close_assault_moves_off_rather_than_fire(tmp_path):
    # Issue 15 round 3 (pb-05, seed 3, German turn 4): the PzIV beside three rifle companies
    # fired at a wagon at 4-1 and so could not move (PB-SEQ-3.1); the companies assaulted it
    # again.  A unit that fires gives up the danger it could step out of (heuristic.keep_costs):
    # beside the companies it holds its fire, with them six hexes off it fires.  (The German side
    # here is scored on its own losses, as in pb-01; pb-05's exit side weighs a kill 0.3.)
    from tests.panzerblitz.test_rules import placed_state, position_file
    policy, params = heuristic_players()
    t0, _ = position(tmp_path, [("german", "pzkw-iv-h", "3K5")])
    tank = hexn(t0, "3K5")
    m = t0.situation.map
    wagon = next(h for h in _ring(t0, tank, 3) if t0.map_t.los[tank, h])

    def fired(d):
        rifles = _ring(t0, tank, d)
        rifles = [h for h in rifles if t0.map_t.dist[h, wagon] > 1][:3]
        units = [("german", "pzkw-iv-h", "3K5"), ("russian", "wagon", m.labels[wagon])]
        units += [("russian", "rifle-company-43", m.labels[h]) for h in rifles]
        own_losses = ['measure = "destroyed"', 'whose = "own"', 'compare = "<="', "marginal = 7"]
        t = build_tables(load_situation(position_file(tmp_path, units, victory={"german": own_losses})))
        return fired_at(t, placed_state(t), GERMAN, policy, params)

    assert fired(6) == [wagon]   # nothing can reach it: it fires
    assert fired(1) == []        # it drives off instead


def test_riflemen_beside_a_stack_in_woods_assault_it_rather_than_fire(tmp_path):
    # Issue 15 round 3 (pb-12, seed 3): six German rifle platoons fired at 1-1 into the woods at
    # 2FF4 (+1 on the die) for five turns while three more assaulted at 1-2.  A unit that fires
    # may not close-assault (PB-CAT-1): firing gives up its share of the assault all of them could
    # make (1-1 with -2, heuristic.keep_costs), so they hold their fire for it.
    policy, params = heuristic_players()
    t0, _ = position(tmp_path, [("german", "rifle-platoon-german-42", "3A1")])
    mt = t0.map_t
    def open_beside(h):
        return [g for g in _ring(t0, h, 1, clear=False) if not mt.concealing[g]]

    woods = max((h for h in range(t0.situation.map.n_hexes) if mt.concealing[h] and not mt.town[h]
                 and mt.level[h] == 0), key=lambda h: len(open_beside(h)))
    around = open_beside(woods)
    assert len(around) >= 3
    m = t0.situation.map
    units = [("russian", "guards-company-43", m.labels[woods])]
    units += [("german", "rifle-platoon-german-42", m.labels[around[i % 3]]) for i in range(6)]
    t, st = position(tmp_path, units)
    assert fired_at(t, st, GERMAN, policy, params) == []
    # without the assault to make (the option weighed at nothing) they fire as before
    no_cat = params.copy()
    from simulator.rulesets.panzerblitz.players.heuristic import FIRE_FORGO_ASSAULT
    no_cat[:, FIRE_FORGO_ASSAULT] = 0.0
    t, st = position(tmp_path, units)
    assert set(fired_at(t, st, GERMAN, policy, no_cat)) == {woods}


def test_guns_that_cannot_move_set_up_to_see_the_enemys_ways(tables_of):
    # Issue 15 round 3 (pb-01, seed 3): the German 88s were set up at 2R5 and 2U6, behind the
    # woods on Hill 132, and never fired at the T-34s 4-5 hexes away (no line of sight).  A gun
    # without movement is set up where it sees the enemy's ways to the side's ground within its
    # range (goals.ways_in_view, `way_view_bonus`): it sees far more of them than those hexes.
    t = tables_of("pb-01")
    pt = policy_tables(t)
    m = t.situation.map
    view = pt.way_view[0, -1]  # the 88's range, 20 hexes
    assert view[m.index["2R5"]] < 0.1 and view[m.index["2U6"]] < 0.1
    for seed in (1, 2, 3):
        rec = play(t, seed, ("heuristic", "heuristic"))
        for u, h in _setup_hexes(rec, t):
            if t.units.names[rec.state.utype[u]] == "88mm-at":
                assert view[h] > 0.15, (seed, m.labels[h], view[h])


def test_audit_reads_the_die_modifiers_of_low_odds_attacks(tables_of):
    # Issue 15 round 3: a 1-2 close assault at -3 on a dispersed stack is no blunder, a 1-2 shot
    # is; a 1-1 shot into woods (+1) is the 1-1 attack there, not below it.
    from simulator.rulesets.panzerblitz.audit import count_blunders, load_thresholds
    from simulator.rulesets.panzerblitz.events import EV_ASSAULT, EV_TURN
    from simulator.rulesets.panzerblitz.state import new_state

    t = tables_of("pb-01")
    st = new_state(t, np.random.default_rng(0))
    mt, cols = t.map_t, t.combat.column_names
    clear = next(h for h in range(t.situation.map.n_hexes) if mt.terrain_mod[h] == 0)
    woods = next(h for h in range(t.situation.map.n_hexes) if mt.terrain_mod[h] == 1)
    one_two, one_one = cols.index("1-2"), cols.index("1-1")
    events = np.array([
        [1, 1, EV_TURN, 1, 0, 0, 0, 0, 0, 0],
        [1, 1, EV_ASSAULT, clear, 5, 10, one_two, 4, -3, 0],   # 1-2 assault on a dispersed stack
        [1, 1, EV_ATTACK, woods, 9, 9, one_one, 4, 1, 0],      # 1-1 into woods
        [1, 1, EV_ATTACK, clear, 5, 10, one_two, 4, 0, 0],     # 1-2 shot: counted
    ], dtype=np.int64)
    out = count_blunders(t, st, events, st.carried_by.copy(), load_thresholds())
    assert out[1]["low_odds_attacks"] == 1


def test_audit_counts_one_idle_carrier_a_far_walker_out_of_the_enemys_reach(tables_of):
    # Issue 15 round 3: pb-04's Russian trucks wait empty after setting their riders down short of
    # the enemy, and the audit counted every empty carrier on the map each turn a rider walked
    # far.  A carrier idles only for a walker it could have carried: one carrier a walker, and not
    # a walker that starts with an enemy unit within `ride_safe_hexes` (riding on is riding into
    # the enemy's fire).
    from simulator.rulesets.panzerblitz.audit import count_blunders, load_thresholds
    from simulator.rulesets.panzerblitz.events import EV_MOVE, EV_SETUP, EV_TURN
    from simulator.rulesets.panzerblitz.state import new_state

    t = tables_of("pb-04")
    pt = policy_tables(t)
    st = new_state(t, np.random.default_rng(0))
    ut, names, mt = t.unit_t, t.units.names, t.map_t
    rus = 1
    rider = next(u for u in range(len(st.utype)) if st.side[u] == rus and is_rider(ut, st.utype[u])
                 and not ut.positional[st.utype[u]])
    trucks = [u for u in range(len(st.utype)) if st.side[u] == rus and names[st.utype[u]] == "truck-russian"][:3]
    enemy = next(u for u in range(len(st.utype)) if st.side[u] == 0 and not ut.positional[st.utype[u]])
    far = int(np.argmax(np.where(pt.goal_dist[rus] < 99, pt.goal_dist[rus], -1)))
    step = next(h for h in range(t.situation.map.n_hexes) if mt.dist[far, h] == 1)
    th = load_thresholds()

    def idle(enemy_hex):
        rows = [[0, rus, EV_SETUP, enemy, enemy_hex, 0, 0, 0, 0, 0], [0, rus, EV_SETUP, rider, far, 0, 0, 0, 0, 0]]
        rows += [[0, rus, EV_SETUP, c, far, 0, 0, 0, 0, 0] for c in trucks]
        rows += [[1, rus, EV_TURN, rus, 0, 0, 0, 0, 0, 0], [1, rus, EV_MOVE, rider, far, step, 2, 0, 0, 0]]
        carried = np.full(len(st.utype), -1, dtype=np.int64)
        return count_blunders(t, st, np.array(rows, dtype=np.int64), carried, th)[rus]["empty_carrier_turns"]

    away = next(h for h in range(t.situation.map.n_hexes) if mt.dist[far, h] > 10)
    near = next(h for h in range(t.situation.map.n_hexes) if mt.dist[far, h] == 3)
    assert idle(away) == 1    # three empty trucks, one walker: one idle carrier
    assert idle(near) == 0    # the enemy three hexes off: set down, it walks


def test_defenders_entering_off_their_ground_ride_to_the_fight(tables_of):
    # Issue 15 round 4 (pb-04, seed 3): the German rifle platoons enter at 2B11, a hex from board 3
    # (the ground they defend), with the Russian vanguard a dozen hexes off.  Read as "one hex to
    # go" they walked into the Russians one hex a turn while the trucks drove off empty.  Where a
    # defender will fight is its ground or the enemy, whichever is farther (heuristic.hexes_to_fight):
    # they enter aboard the group's carriers and are set down on board 3.
    from simulator.rulesets.panzerblitz.events import EV_LOAD, EV_UNLOAD
    from simulator.rulesets.panzerblitz.units import CATEGORY_INDEX

    t = tables_of("pb-04")
    ger = t.situation.ruleset.sides.index("german")
    ut = t.unit_t
    for seed in (1, 3):
        rec = play(t, seed, ("heuristic", "heuristic"))
        ev, st = rec.events, rec.state
        platoons = {u for u in range(len(st.utype)) if st.side[u] == ger and is_rider(ut, st.utype[u])
                    and ut.movement[st.utype[u]] > 0}
        assert len(platoons) == 2
        boarded = ev[(ev[:, 2] == EV_LOAD) & (ev[:, 6] == 1) & (ev[:, 1] == ger)]
        assert platoons <= {int(r[4]) for r in boarded}, (seed, boarded)
        assert all(ut.category[st.utype[int(r[3])]] == CATEGORY_INDEX["transport"] for r in boarded)
        # set down on their ground (board 3), not carried on into the Russians
        goal = policy_tables(t).goal_dist[ger]
        down = ev[(ev[:, 2] == EV_UNLOAD) & np.isin(ev[:, 4], list(platoons))]
        assert len(down) and all(goal[int(r[5])] == 0 for r in down), (seed, down)


def test_the_fire_of_a_forts_occupants_reaches_the_units_on_top(tmp_path):
    # Issue 15 round 4 (pb-01, seed 3): two T-34s drove onto the fort on Hill 129 (2I7, on top of
    # it, PB-FORT-12) and the 88 inside dispersed them at 2-1 on turns 4, 6, 8 and 9.  The units
    # inside fire at those on top as if adjacent (PB-FORT-13); the danger field skipped the enemy's
    # own hex, so the fort hex read as out of all fire.
    from simulator.rulesets.panzerblitz.players.heuristic import THREAT_ARMORED

    RUSSIAN = 1 - GERMAN
    units = [("german", "fort-40", "3K5"), ("german", "88mm-at", "3K5"), ("russian", "t-34-c", "3K9")]
    t, st, pt, params, fields = fields_in_position(tmp_path, units, RUSSIAN)
    n_hex = t.situation.map.n_hexes
    fort = hexn(t, "3K5")
    beside = [h for h in range(n_hex) if t.map_t.dist[h, fort] == 1 and t.map_t.level[h] == t.map_t.level[fort]]
    assert fields[THREAT_ARMORED, fort] > 0
    assert fields[THREAT_ARMORED, fort] == max(fields[THREAT_ARMORED, h] for h in beside)  # as if adjacent
    occ = occupancy(st, t.unit_t, n_hex)
    tank = unit_of(t, st, "t-34-c")
    rng = np.random.default_rng(0)
    on_top = hex_score(st, t.unit_t, t.map_t, t.combat_t, pt, params[RUSSIAN], RUSSIAN, tank, fort, occ, fields, rng)
    fields[THREAT_ARMORED, fort] = 0
    unseen = hex_score(st, t.unit_t, t.map_t, t.combat_t, pt, params[RUSSIAN], RUSSIAN, tank, fort, occ, fields, rng)
    assert on_top < unseen - 0.2


# ---------------------------------------------------------------- issue 15 round 5

def _positions_after(ev, turn):
    """Every unit's hex after the last set-up, entry or move of `ev` up to `turn` (the game's log)."""
    from simulator.rulesets.panzerblitz.events import EV_ENTER, EV_MOVE, EV_SETUP
    pos = {}
    for row in ev:
        r = [int(x) for x in row[:6]]
        if r[0] > turn:
            break
        if r[2] in (EV_SETUP, EV_ENTER):
            pos[r[3]] = r[4]
        elif r[2] == EV_MOVE:
            pos[r[3]] = r[5]
    return pos


@pytest.mark.parametrize("seed", [3, 5])
def test_armour_does_not_run_ahead_among_the_enemy_infantry(tables_of, seed):
    # Issue 15 round 5 (pb-01, seed 3): on turn 1 the SU-76 drove to 2X6 beside a German engineer
    # platoon and T-34 #8 ten hexes ahead to 2V6 beside an SMG platoon, alone among the German
    # infantry: close-assaulted and dispersed on turns 1, 3 and 7, it never fired again.  A fast
    # unit now counts its march to the target by whole turns (`approach_pace`): from out of the
    # enemy's reach it can strike as soon, so it stops short while the cavalry comes up; and
    # alone in reach of an assault a dispersal counts nearer a loss (`alone_stuck`).  After the
    # Russian movement of turn 1, no Russian armoured vehicle stands within two hexes (a hex's
    # move and a hex: the close-assault reach, PB-CAT-3) of German infantry.
    # Round 7 (seed 5): T-34 #8 still drove 9 MF to 2W6 beside the SMG platoon at 2V6 and the
    # command post's fort at 2W7, alone, and was dispersed there on turn 2: a tank's contact with
    # hidden enemies (HIDDEN) was their worth (the command post five kills), not what the side's
    # fire could gain on them once spotted (nothing on a fort of defence 40), and the danger read
    # the 50mm's fire and the infantry's assault apart, not the fire that disperses it and the
    # assault that then eliminates it (DD, PB-DISP-4).
    t = tables_of("pb-01")
    rus = t.situation.ruleset.sides.index("russian")
    rec = play(t, seed, ("heuristic", "heuristic"))
    ev = rec.events
    first_german = next(i for i, r in enumerate(ev) if int(r[2]) == 1 and int(r[0]) == 1 and int(r[1]) != rus)
    pos = _positions_after(ev[:first_german], 1)
    st, ut, dist = rec.state, t.unit_t, t.map_t.dist
    armour = [u for u, h in pos.items() if st.side[u] == rus and ut.armored[st.utype[u]] and h >= 0]
    infantry = [h for u, h in pos.items() if st.side[u] != rus and ut.can_assault[st.utype[u]] and h >= 0]
    assert armour and infantry
    close = [(t.units.names[st.utype[u]], t.situation.map.labels[pos[u]]) for u in armour
             if min(dist[pos[u], h] for h in infantry) <= 2]
    assert close == []


def test_trucks_and_wagons_are_no_company_for_a_tank(tmp_path):
    # Issue 15 round 5 (pb-04, seed 3, turn 4): the Panther drove to 3Q6 in the open before the
    # Russian armour, its only company three empty trucks at 3Q5-3R7, and died there.  Only
    # fighting units share the enemy's fire (heuristic.supporter): a truck beside a tank leaves it
    # alone, a second tank does not.
    from simulator.rulesets.panzerblitz.players.heuristic import OWN_NEAR

    def near_tank(second):
        units = [("german", "pzkw-iv-h", "3K2"), ("german", second, "3K3"), ("russian", "su-152", "3K9")]
        t, st, pt, params, fields = fields_in_position(tmp_path, units, GERMAN)
        return int(fields[OWN_NEAR, hexn(t, "3K2")])

    assert near_tank("truck-german") == 1   # the tank itself
    assert near_tank("pzkw-iv-h") == 2


def test_a_carrier_does_not_load_where_it_would_set_the_passenger_down(tmp_path):
    # Issue 15 round 5 (pb-12, seed 3): a Russian truck set a 45mm AT gun down at 2L8 on turn 2
    # (the enemy within unload_distance + 1) and took it aboard again there on turn 3 (no enemy
    # fire reached the hex) to drive on.  Loading out of the enemy's fire now starts beyond the
    # distance where `want_unload` sets a passenger down: the two never agree on one hex.
    from simulator.rulesets.panzerblitz.players.heuristic import (
        enemy_fields,
        want_load,
        want_unload,
    )

    units = [("russian", "truck-russian", "3K9"), ("russian", "rifle-company-43", "3K9"),
             ("german", "command-post", "3K5")]    # unarmed: no enemy fire reaches 3K9
    t, st, pt, params, rus, fields = _advance_position(tmp_path, units, "3A1")
    truck, rifle = unit_of(t, st, "truck-russian"), unit_of(t, st, "rifle-company-43")
    assert want_unload(st, pt, params[rus], rus, truck, fields)          # four hexes from the enemy
    assert not want_load(st, t.unit_t, pt, params[rus], rus, truck, rifle, fields)
    st.hex[truck] = st.hex[rifle] = hexn(t, "3K10")                      # five: still set down
    enemy_fields(st, t.unit_t, t.map_t, t.combat_t, pt, params[rus], rus, fields)
    assert want_unload(st, pt, params[rus], rus, truck, fields)
    assert not want_load(st, t.unit_t, pt, params[rus], rus, truck, rifle, fields)


def test_defenders_hold_their_ground_instead_of_shuffling(tables_of):
    # Issue 15 round 5 (pb-05, seed 3): the Russian rifle companies holding board 1 stepped a hex
    # back and forth turn after turn (1B6 -> 1C6 -> 1B6 -> 1A5 -> 1B6, 1C6 -> 1C5 -> 1C6, ...)
    # as the German stack most worth attacking changed.  A defender on its ground now steps out
    # only to bring a target within range this move (score_hexes: the approach of a DEFEND side is
    # capped at a turn's movement): moves straight back to the hex a unit left are rare.
    # Round 7: counted over seeds 1-12, not seed 3 alone (one game's count moves with every
    # change to either side's play: 2 on main at round 6, 6 after round 7, for 39 and 42 over the
    # twelve; without the cap 62).
    from simulator.rulesets.panzerblitz.events import EV_MOVE

    t = tables_of("pb-05")
    rus = t.situation.ruleset.sides.index("russian")
    rifle = t.units.index("rifle-company-43")
    back = 0
    for seed in range(1, 13):
        rec = play(t, seed, ("heuristic", "heuristic"))
        last: dict[int, tuple[int, int]] = {}
        for row in rec.events:
            turn, side, kind, u, a, b = (int(x) for x in row[:6])
            if kind != EV_MOVE or side != rus or rec.state.utype[u] != rifle:
                continue
            if u in last and last[u] == (b, a):
                back += 1
            last[u] = (a, b)
    assert back <= 4 * 12  # at most four a game on average


# ---------------------------------------------------------------- issue 15 round 6

def test_one_enemy_gun_is_not_shared_among_the_friends_near_a_hex(tmp_path):
    # Issue 15 round 6 (pb-01, seed 5): T-34s drove onto and beside the German fort at 2I7, whose
    # 88 inside killed them at 4-1; the danger of those hexes was the 88's 40 AF shared with the
    # tanks and cavalry behind them (2-1, 1-1).  A unit fires at one target: friends near a hex
    # share the fire of several enemy units, never take a single gun's fire off this one.
    from simulator.rulesets.panzerblitz.players.heuristic import danger_hexes

    RUSSIAN = 1 - GERMAN

    def danger(friends):
        units = [("german", "88mm-at", "3K3"), ("russian", "t-34-c", "3K9")]
        units += [("russian", "t-34-c", h) for h in friends]
        t, st, pt, params, fields = fields_in_position(tmp_path, units, RUSSIAN)
        tank = unit_of(t, st, "t-34-c")
        hexes = np.array([hexn(t, "3K4")], dtype=np.int64)  # beside the gun
        nears, dangers = np.empty(1, dtype=np.int64), np.empty(1)
        danger_hexes(st, t.unit_t, t.map_t, t.combat_t, pt, params[RUSSIAN], RUSSIAN, tank, hexes, 1,
                     fields, nears, dangers)
        return nears[0], dangers[0]

    alone_near, alone = danger([])
    company_near, company = danger(["3K5", "3J5", "3L5"])
    assert company_near > alone_near and alone > 0
    assert company == pytest.approx(alone)  # the lone 88's fire is not shared


def test_tanks_do_not_drive_onto_the_guns_of_a_fort(tables_of):
    # Issue 15 round 6 (pb-01, seed 5): T-34 #6 drove onto the German fort at 2I7 on Hill 129,
    # the best view on the board (its outlook counted whether or not the tank lived), and T-34 #7
    # beside it to 2H8; the 88 inside killed both at 4-1.  No Russian tank is lost in that game now.
    t = tables_of("pb-01")
    rus = t.situation.ruleset.sides.index("russian")
    rec = play(t, 5, ("heuristic", "heuristic"))
    st, ut = rec.state, t.unit_t
    lost = [t.units.names[st.utype[u]] for u in range(len(st.utype))
            if st.side[u] == rus and ut.armored[st.utype[u]] and st.status[u] == 3]  # ELIMINATED
    assert lost == []


# ---------------------------------------------------------------- issue 15 round 7

def _advance_position(tmp_path, units, area="3K1"):
    """A hand-made position where the Russians advance on `area` (in_area, one hex): tables,
    state, policy tables, parameters, the Russian side and its heuristic fields."""
    from simulator.rulesets.panzerblitz.players.heuristic import N_FIELDS, enemy_fields
    from tests.panzerblitz.test_rules import placed_state, position_file

    advance = ['measure = "in_area"', 'whose = "own"', f'area = {{ hexes = ["{area}"] }}', "marginal = 1"]
    t = build_tables(load_situation(position_file(tmp_path, units, victory={"russian": advance})))
    st = placed_state(t)
    rus = t.situation.ruleset.sides.index("russian")
    pt = policy_tables(t)
    _, params = heuristic_players()
    fields = np.empty((N_FIELDS, t.situation.map.n_hexes), dtype=np.int64)
    enemy_fields(st, t.unit_t, t.map_t, t.combat_t, pt, params[rus], rus, fields)
    assert pt.goal_kind[rus] == ADVANCE
    return t, st, pt, params, rus, fields


def test_a_rider_with_three_turns_walk_rides(tmp_path):
    # Issue 15 round 7 (pb-12, seed 3): `ride_far` read the movement, kept in half MF, as whole
    # MF, so a 1-MF rifle company wanted a ride only with more than 2 x 2 + 4 = 8 hexes to go:
    # seven hexes from the goal (seven turns' walk of a ten-turn card) it walked while the
    # wagons stood empty.  `ride_far_moves` (2) turns' walk plus `unload_distance` (4) is 6 hexes.
    from simulator.rulesets.panzerblitz.players.heuristic import needs_ride, ride_far

    units = [("russian", "rifle-company-43", "3K8"), ("german", "command-post", "3GG1")]
    t, st, pt, params, rus, fields = _advance_position(tmp_path, units)
    rifle = unit_of(t, st, "rifle-company-43")
    assert t.unit_t.movement[st.utype[rifle]] == 2  # 1 MF, kept in half MF
    assert ride_far(t.unit_t, params[rus], st.utype[rifle]) == 6
    assert pt.goal_dist[rus, hexn(t, "3K8")] == 7
    assert needs_ride(st, t.unit_t, pt, params[rus], rus, rifle, hexn(t, "3K8"), fields[2])


def test_an_empty_carrier_goes_back_for_riders_still_walking(tmp_path):
    # Issue 15 round 7 (pb-02, seed 2): two Russian trucks that had set their passengers down stood
    # empty on the east edge for six turns while 25 companies walked a hex a turn 24-30 hexes
    # behind; an empty carrier was drawn only to riders within its reach this turn.  It is now
    # drawn back (`fetch_pull`) to the nearest riders that have far to go and would be loaded.
    units = [("russian", "truck-russian", "3K3"), ("russian", "rifle-company-43", "3K10"),
             ("german", "command-post", "3GG1")]
    t, st, pt, params, rus, fields = _advance_position(tmp_path, units)
    truck = unit_of(t, st, "truck-russian")
    occ = occupancy(st, t.unit_t, t.situation.map.n_hexes)
    rng = np.random.default_rng(0)

    def score(label):
        return hex_score(st, t.unit_t, t.map_t, t.combat_t, pt, params[rus], rus, truck, hexn(t, label), occ,
                         fields, rng)

    assert score("3K9") > score("3K3")  # back towards the rifle company, away from the goal


def test_forts_shelter_the_units_that_hold_the_line(tables_of):
    # Issue 15 round 7 (pb-12, seed 3): the German forts were scored as units and set up along
    # the north edge of board 2 (2A1, 2I1, 2K1, 2S1, 2U1, 2Y1 with nobody in them), behind the
    # rifle platoons holding rows 3-4.  A fort is now set up where the most of the side's worth
    # stands (players.heuristic.pick_fort): every one shelters German units.
    from simulator.rulesets.panzerblitz.events import EV_SETUP

    t = tables_of("pb-12")
    rec = play(t, 3, ("heuristic", "heuristic"))
    ut, st = t.unit_t, rec.state
    ger = t.situation.ruleset.sides.index("german")
    placed = {int(r[3]): int(r[4]) for r in rec.events if int(r[2]) == EV_SETUP}
    forts = [h for u, h in placed.items() if st.side[u] == ger and ut.fort[st.utype[u]]]
    held = {h for u, h in placed.items() if st.side[u] == ger and not ut.positional[st.utype[u]]}
    assert len(forts) == 8
    assert [t.situation.map.labels[h] for h in forts if h not in held] == []
