"""Policies: parameters from the command line, the heuristic player's reading of a situation,
its decisions in small positions, and its strength against random play."""

from __future__ import annotations

import numpy as np
import pytest

from policies.goals import (
    ADVANCE,
    DEFEND,
    EXIT,
    FAR,
    build_policy_tables,
    expected_damage,
    start_hexes,
)
from policies.heuristic import column_for_ratio, hex_score, is_rider
from policies.spec import N_PARAMS, parse_policy, parse_side_policies
from simulator.errors import DataError
from simulator.panzerblitz.game import fire_phase
from simulator.panzerblitz.replay import play, policy_tables
from simulator.panzerblitz.rules import EV_ATTACK, EV_FIRER, occupancy
from simulator.panzerblitz.tables import build_tables
from simulator.situation import builtin_situations, load_situation
from tests.test_rules import GERMAN, hexn, position, unit_of

SITUATIONS = [p.stem for p in builtin_situations()]


@pytest.fixture(scope="module")
def tables_of():
    cache = {}

    def get(sid):
        if sid not in cache:
            cache[sid] = build_tables(load_situation(sid))
        return cache[sid]
    return get


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
    # Situation 5: the Germans must leave by the south edge; the Russians deny it there.
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


@pytest.mark.parametrize("sid, side, start_board", [("pb-06", "german", "2"), ("pb-08", "russian", "1")])
def test_kill_scoring_denial_holds_its_start_ground(tables_of, sid, side, start_board):
    # Situation 8: the Russians count German kills; the Germans must leave by the north edge.
    # Their start, board 1, lies across the German way: they hold it instead of falling back
    # to the edge (goals.forward_ground).  Situation 6 likewise for the Germans on board 2.
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
    ev = expected_damage(ct.crt, ct.lowest_roll)
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


def test_heuristic_concentrates_fire_on_one_stack(tmp_path):
    # Two Panzer IVs can each reach 1-1 on either of two T-34s in the open; together they
    # reach 2-1 on one: the player puts both on the same stack (a combination attack).
    units = [("german", "pzkw-iv-h", "3K4"), ("german", "pzkw-iv-h", "3K5"),
             ("russian", "t-34-c", "3K8"), ("russian", "t-34-c", "3M6")]
    t, st = position(tmp_path, units)
    policy, params = heuristic_players()
    fire_phase(st, t.unit_t, t.map_t, t.combat_t, policy_tables(t), GERMAN, policy, params)
    log = st.log[: st.clock[2]]
    attacks = log[log[:, 2] == EV_ATTACK]
    firers = log[log[:, 2] == EV_FIRER]
    assert len(attacks) == 1 and len(firers) == 2
    assert len(set(firers[:, 4].tolist())) == 1  # both at the same hex


def test_heuristic_prefers_cover_out_of_enemy_fire(tmp_path):
    # A rifle platoon facing a T-34: at any distance, the best woods hex (unspotted at range,
    # PB-SPOT-1) scores better than the best open hex in the tank's sight.
    t, st = position(tmp_path, [("german", "rifle-platoon-german-42", "3Y2"), ("russian", "t-34-c", "3Y6")])
    from policies.heuristic import N_FIELDS, enemy_fields

    pt = policy_tables(t)
    _, params = heuristic_players()
    fields = np.empty((N_FIELDS, t.situation.map.n_hexes), dtype=np.int64)
    enemy_fields(st, t.unit_t, t.map_t, t.combat_t, GERMAN, fields)
    occ = occupancy(st, t.unit_t, t.situation.map.n_hexes)
    u = unit_of(t, st, "rifle-platoon-german-42")
    m = t.situation.map
    tank = hexn(t, "3Y6")
    mt = t.map_t

    def score(h):
        return hex_score(st, t.unit_t, mt, t.combat_t, pt, params[GERMAN], GERMAN, u, h, occ, fields)

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
    from simulator.panzerblitz.replay import describe

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
    from simulator.panzerblitz.victory import LEVEL_RANK

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
    assert sum(random) == 0 and sum(heuristic) >= 6 and min(heuristic) >= 1, heuristic
