"""Fuzzing situation files through `validate` and set-up (issue 16).

Thousands of mutated copies of built-in situations (unit counts, set-up and entry areas,
unit types, turns, keys removed, values of the wrong type) go through `check_file` (what
`balance validate` runs) and, when accepted, the game tables and the set-up of both sides.
Each one is either refused with messages that all name the file and a field, or sets up with
every counter accounted for: on the map, waiting to enter with its group (or aboard a carrier),
or lost at set-up (NOT_PLACED, which the games table counts); never a set-up counter left
waiting, to "enter" later.

`make test` runs a few hundred examples (derandomized, so CI sees the same ones); the `slow`
marker runs 3,000.
"""

from __future__ import annotations

import copy
import tomllib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulator.errors import DataError
from simulator.rulesets.panzerblitz.game import setup_side
from simulator.rulesets.panzerblitz.replay import policy_tables
from simulator.rulesets.panzerblitz.state import NOT_PLACED, ON_MAP, WAITING, new_state
from simulator.rulesets.panzerblitz.tables import build_tables
from simulator.situation import SITUATIONS_DIR, check_file, load_situation
from tests.core.test_situation import _dump  # the document as TOML, inline tables only
from tests.panzerblitz.pb_players import pb_players, seed_game

BASES = ("pb-01", "pb-07", "pb-12")
DOCS = {sid: tomllib.loads((SITUATIONS_DIR / f"{sid}.toml").read_text()) for sid in BASES}
UNIT_TYPES = ("command-post", "fort-40", "minefield", "block", "88mm-at", "pzkw-iv-h", "t-34-c", "truck-german",
              "rifle-company-43", "smg-platoon-german", "tiger", "wagon")
HEXES = ("2U5", "2U6", "2V6", "2G7", "1A1", "3Q5", "2ZZ9", "4A1", "2A1", "1B11", "2B1")
AREAS = (
    {"hexes": ["2U5"]}, {"hexes": ["2U5", "2U6", "2V6"]}, {"region": "Bednost"}, {"region": "Nowhere"},
    {"boards": ["2"]}, {"boards": ["9"]}, {"terrain": ["swamp"]}, {"terrain": ["town"]}, {"edge": "west"},
    {"columns": "A-C", "rows": "1-2"}, {"with_unit": "command-post"}, {"with_unit": "tiger-i"},
    {"boards": ["2"], "min_distance_from_unit": {"unit": "command-post", "hexes": 20}},
    {"anywhere": True}, {"hexes": "2U5"}, {},
)
ODD_VALUES = ("x", [], {}, 3.5, -1, True, ["2U5"])

# Tables of each base situation, made once: their heuristic tables are what set-up reads.
_PREPARED: dict = {}


@st.composite
def mutated(draw):
    sid = draw(st.sampled_from(BASES))
    doc = copy.deepcopy(DOCS[sid])
    for _ in range(draw(st.integers(1, 4))):
        sides = [x for x in doc.get("side", []) if isinstance(x, dict)] if isinstance(doc.get("side"), list) else []
        side = draw(st.sampled_from(sides)) if sides else {}
        groups = [g for g in side.get("group", []) if isinstance(g, dict)] if isinstance(side.get("group"), list) else []
        group = draw(st.sampled_from(groups)) if groups else {}
        kind = draw(st.sampled_from(("count", "unit", "area", "entry", "turns", "drop", "odd", "copy_group")))
        if kind == "count" and isinstance(group.get("units"), dict) and group["units"]:
            unit = draw(st.sampled_from(sorted(group["units"])))
            group["units"][unit] = draw(st.integers(-1, 40))
        elif kind == "unit" and isinstance(group.get("units"), dict):
            group["units"][draw(st.sampled_from(UNIT_TYPES))] = draw(st.integers(1, 12))
        elif kind == "area":
            key = "setup" if "setup" in group else "enter"
            area = copy.deepcopy(draw(st.sampled_from(AREAS)))
            if key == "enter":
                area["turn"] = draw(st.integers(-1, 14))
            if draw(st.booleans()):
                area["hexes"] = draw(st.lists(st.sampled_from(HEXES), min_size=1, max_size=4))
            group[key] = area
        elif kind == "entry":
            area = group.pop("setup", None) or group.pop("enter", None) or {}
            if draw(st.booleans()):
                group["enter"] = {**area, "turn": draw(st.integers(-1, 14))}
            else:
                group["setup"] = {k: v for k, v in area.items() if k not in ("turn", "road_march", "column")}
        elif kind == "turns":
            doc["turns"] = copy.deepcopy(draw(st.one_of(st.integers(-3, 15), st.sampled_from(ODD_VALUES))))
        elif kind == "drop":
            table = draw(st.sampled_from((doc, side, group)))
            if table:
                table.pop(draw(st.sampled_from(sorted(table))))
        elif kind == "odd":
            table = draw(st.sampled_from((doc, side, group)))
            if table:
                # a copy: a later mutation must never change the constants (hypothesis replays)
                table[draw(st.sampled_from(sorted(table)))] = copy.deepcopy(draw(st.sampled_from(ODD_VALUES)))
        elif kind == "copy_group" and isinstance(side.get("group"), list):
            side["group"].append(copy.deepcopy(group))
    return sid, doc


def set_up(t, pt, seed: int):
    """Both sides' set-up, as a game begins (replay.play), with random players."""
    sit = t.situation
    st_ = new_state(t, np.random.default_rng(seed))
    seed_game(seed)
    first = sit.ruleset.sides.index(sit.sets_up_first)
    policy = np.zeros(2, dtype=np.int64)  # random players (simulator/rulesets/panzerblitz/players/random_play.py)
    from simulator.rulesets.panzerblitz.players.spec import N_PARAMS, parse_policy

    params = np.tile(parse_policy("random").vector(), (2, 1)).reshape(2, N_PARAMS)
    for side in (first, 1 - first):
        setup_side(st_, t.unit_t, t.map_t, t.move_t, t.combat_t, t.stack_limit, side, pb_players(t, st_, policy, params))
    return st_


def check_one(sid: str, doc: dict, folder) -> str:
    text = _dump(doc)
    path = folder / f"{sid}-mutant.toml"
    path.write_text(text)
    problems = check_file(path)
    if problems:
        for p in problems:
            assert p.file.startswith(str(path)), p.line()
            assert p.field, p.line()
            assert str(path) in p.line()
        return "refused"
    sit = load_situation(path)
    try:
        t = build_tables(sit)
    except DataError as exc:  # a problem only the game tables see must still name file and field
        assert str(path) in exc.line() and exc.field, exc.line()
        return "refused"
    if sid not in _PREPARED:
        _PREPARED[sid] = policy_tables(build_tables(load_situation(sid)))
    verdict = "played"
    for seed in (1, 2):
        s = set_up(t, _PREPARED[sid], seed)
        entering = s.group_entering[s.group]
        aboard = s.carried_by >= 0
        placed = s.status == ON_MAP
        waiting = (s.status == WAITING) & (entering | aboard)
        lost = s.status == NOT_PLACED
        assert (placed | waiting | lost).all(), [
            (t.units.names[s.utype[u]], int(s.status[u]), int(s.group[u])) for u in
            np.flatnonzero(~(placed | waiting | lost))]
        assert not (lost & entering).any()  # only set-up counters can be lost at set-up
        if lost.any():
            verdict = "played, counters lost at set-up"
    return verdict


def _run(examples: int, tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    seen: dict[str, int] = {}

    @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(mutated())
    def fuzz(case):
        sid, doc = case
        verdict = check_one(sid, doc, folder)
        seen[verdict] = seen.get(verdict, 0) + 1

    fuzz()
    # the mutations must exercise both ends: refusals, and files that set up
    played = seen.get("played", 0) + seen.get("played, counters lost at set-up", 0)
    assert seen.get("refused", 0) > examples // 10 and played > examples // 10, seen
    return seen


def test_fuzzed_situations_are_refused_by_name_or_set_up_with_every_unit_accounted_for(tmp_path_factory):
    print(_run(300, tmp_path_factory))


@pytest.mark.slow
def test_fuzzed_situations_thousands(tmp_path_factory):
    print(_run(3000, tmp_path_factory))
