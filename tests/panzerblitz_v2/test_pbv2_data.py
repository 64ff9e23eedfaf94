"""Panzer Blitz v2.0 (issue 20): the data the engine will build on, checked against the rules text.

No engine exists yet: these tests pin the tables, the unit conversion, the Hill 112 board and
situations to every cell, example and unit fact the text gives (docs/panzerblitz-v2/), through
the reference reader tools/pbv2_data.py.  Pure Python, a few seconds.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import sys
import tomllib
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import pbv2_convert_units as conv  # noqa: E402
import pbv2_data as data  # noqa: E402
import pbv2_make_map as mapgen  # noqa: E402

V2 = ROOT / "situations" / "rulesets" / "panzerblitz-v2"
DOCS = ROOT / "docs" / "panzerblitz-v2"
HOD = sorted((ROOT / "situations" / "panzerblitz-v2").glob("hod-*.toml"))


@pytest.fixture(scope="module")
def tables():
    return data.load_tables()


@pytest.fixture(scope="module")
def dft(tables):
    return data.DFT(tables)


@pytest.fixture(scope="module")
def board():
    return json.loads((V2 / "boards" / "board-HOD.json").read_text())


def toml(path: Path) -> dict:
    with open(path, "rb") as fh:
        return tomllib.load(fh)


# ----------------------------------------------------------------------------- provenance

def test_every_table_value_is_tagged_text_or_reconstructed(tables):
    untagged = data.untagged_leaves({k: v for k, v in tables.items() if k != "units"})
    assert untagged == []


def test_text_tags_cite_a_rule_case(tables):
    def walk(node, path):
        if isinstance(node, dict):
            if node.get("source") == "text":
                assert "PB2" in node.get("ref", ""), f"{path}: a text tag must cite the case (PB2 x.y)"
            for k, v in node.items():
                walk(v, f"{path}.{k}")
    walk({k: v for k, v in tables.items() if k != "units"}, "")


def test_unit_files_merge_without_clashes(tables):
    classic = toml(V2 / "units-classic.toml")["units"]
    hod = toml(V2 / "units-hod.toml")["units"]
    aircraft = toml(V2 / "units-air.toml")["units"]
    assert not set(classic) & set(hod) and not (set(classic) | set(hod)) & set(aircraft)
    assert len(tables["units"]) == len(classic) + len(hod) + len(aircraft)
    assert {u["kind"] for u in aircraft.values()} == {"aircraft"}     # PB2 16: only aircraft there
    assert len(classic) == len(toml(ROOT / "situations" / "rulesets" / "panzerblitz" / "units.toml")["units"])


# ----------------------------------------------------------------------------- Direct Fire Table

def test_pb2_7_7_given_cell_3_2_modified_3_is_x(dft):
    assert dft.result(dft.column("3:2"), 3, 0) == "1X"
    assert data.check(data.load_tables()) == []


def test_pb2_7_4_odds_rounding_in_defenders_favour(dft):
    assert dft.columns[dft.ap_column(11, 4)] == "2:1"
    assert dft.columns[dft.ap_column(7, 4)] == "3:2"
    assert dft.columns[dft.ap_column(21, 14)] == "3:2"   # PB2 7.7 example
    assert dft.columns[dft.ap_column(2, 1)] == "2:1"
    assert dft.columns[dft.ap_column(10.5, 4)] == "2:1"  # PB2 1.2.1: AP keeps fractions
    assert dft.ap_column(1, 5) == -1                       # below the table (PB2-OQ-11)
    assert dft.columns[dft.ap_column(100, 1)] == dft.columns[-1]
    # the text's facts on the AP line: 3:2 exists, nothing between 3:2 and 2:1 or 2:1 and 3:1
    ratios = sorted(Fraction(*map(int, c.split(":"))) for c in dft.columns)
    i = ratios.index(Fraction(3, 2))
    assert ratios[i + 1] == 2 and ratios[i + 2] == 3


def test_pb2_7_5_differential_example(dft):
    strength = data.at_attack_strength([2, 2, 3])
    assert strength == 5
    assert strength - 2 == 3
    assert dft.at_diff[dft.at_column(3)] == 3
    assert dft.at_column(int(dft.at_diff[0]) - 1) == -1
    assert data.at_attack_strength([2.5, 1.5]) == 3        # PB2 1.2.1: AT drops fractions


def test_pb2_7_1_8_and_7_1_9_natural_rolls(dft):
    for col in range(len(dft.columns)):
        best = dft.result(col, 2, 0)
        for drm in (-6, 0, 4, 8):
            assert dft.result(col, 2, drm) == best
            assert dft.result(col, 12, drm) == "-"
        assert best != "-"


def test_dft_is_monotone_and_shaped(dft):
    n = len(dft.columns)
    assert dft.threshold.shape == (n, len(dft.results) - 1)
    assert list(dft.ratio) == sorted(dft.ratio)
    assert np.all(np.diff(dft.at_diff) > 0)
    order = {r: i for i, r in enumerate(dft.results)}
    for col in range(n):  # a lower roll never gives a worse result; a better column never worse
        seq = [order[dft.result(col, r, 0)] for r in range(3, 12)]
        assert seq == sorted(seq)
    for roll in range(3, 12):
        seq = [order[dft.result(c, roll, 0)] for c in range(n)]
        assert seq == sorted(seq, reverse=True)


def test_pb2_15_2_minefield_strengths_name_dft_columns(tables, dft):
    for strength, column in tables["minefield"]["column"].items():
        assert column in dft.columns, strength


def apply_77(result: str) -> list[int]:
    """PB2 7.7 results on the two (already disrupted, two-step) platoons of the 7.7 example."""
    steps = [2, 2]
    disrupted = [True, True]
    if result.endswith("X"):
        n = int(result[:-1])
        for k in range(n):          # spread equally
            steps[k % 2] -= 1
        hit = set(range(min(n, 2)))
        for i in range(2):          # the remaining targets suffer DD
            if i not in hit and disrupted[i]:
                steps[i] -= 1
    elif result == "DD":
        steps = [s - 1 if d else s for s, d in zip(steps, disrupted, strict=True)]
    return steps


@pytest.mark.parametrize("reading", ["omit", "apply"])
def test_pb2_7_7_example_two_disrupted_platoons(tables, dft, reading):
    """PB2 7.7: AP 21 vs DF 14 = 3:2, roll 5 - 1 (disrupted) - 1 (height) = 3 -> X; one platoon is
    reduced for the X, the other takes DD and, already disrupted, is reduced too.  PB2-OQ-10:
    with the woods +1 of 14.4.5 the roll is 4 -> DD, and the final state is the same."""
    units = tables["units"]
    attack = 3 * units["pzkw-iv-h"]["full"]["ap"]
    defense = 2 * units["gb-motor-platoon"]["full"]["df"]
    assert (attack, defense) == (21, 14)
    col = dft.ap_column(attack, defense)
    assert dft.columns[col] == "3:2"
    drm = tables["modifiers"]["drm"]["defender_disrupted"]["value"] + tables["modifiers"]["drm"]["height_advantage"]["value"]
    assert drm == -2
    if reading == "apply":
        drm += tables["terrain"]["hex"]["woods"]["tem_df"]
    result = dft.result(col, 5, drm)
    assert result == ("1X" if reading == "omit" else "DD")
    assert apply_77(result) == [1, 1]      # "two reduced platoons", both Spent/Disrupted


# ----------------------------------------------------------------------------- modifiers and range

def test_range_modifiers_given_by_the_text(tables):
    mods = tables["range"]["modifier"]
    for r, m in {0: -2, 1: -1, 4: 1, 7: 2, 10: 3}.items():
        assert mods[str(r)]["value"] == m and mods[str(r)]["source"] == "text", r
    table = data.range_modifiers(tables)
    assert list(table[:13]) == [-2, -1, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert data.range_modifier(table, len(table) + 2) >= table[-1]


def test_pb2_7_6_1_majority_rule_range_example(tables):
    table = data.range_modifiers(tables)
    mods = [int(table[r]) for r in (4, 7, 10)]
    assert mods == [1, 2, 3]
    assert data.group_drm(mods, "stepwise") == 2
    assert data.group_drm(mods, "median") == 2
    # 7.6.3: positive and negative steps both apply and cancel (two firers at ranges 1 and 5)
    assert data.group_drm([int(table[1]), int(table[5])], "stepwise") == 0


TEXT_DRMS = {
    # (file, dotted path) -> value; PB2 case in the data's ref (research notes 2B.3 item 1)
    ("modifiers", "drm.unspotted"): 4,
    ("modifiers", "drm.defender_disrupted"): -1,
    ("modifiers", "drm.height_advantage"): -1,
    ("modifiers", "drm.height_disadvantage"): 1,
    ("modifiers", "drm.opportunity_vs_road_mover"): -1,
    ("modifiers", "drm.opportunity_vs_moving_vehicle"): 1,
    ("modifiers", "drm.opportunity_vs_infantry_in_open"): -1,
    ("modifiers", "drm.overrun"): -1,
    ("modifiers", "drm.overrun_vs_infantry_in_open"): -1,
    ("modifiers", "drm.overrun_per_missing_mp"): 1,
    ("modifiers", "drm.cat"): -1,
    ("modifiers", "drm.cat_with_engineer"): -1,
    ("modifiers", "drm.cat_vs_armor_in_town_or_city"): -1,
    ("modifiers", "drm.cat_from_city_vs_vehicle_in_city"): -1,
    ("modifiers", "drm.fire_into_smoke"): 1,
    ("modifiers", "drm.fire_from_smoke"): 2,
    ("modifiers", "drm.fire_from_he_hex"): 1,
    ("modifiers", "drm.improved_position"): 1,
    ("modifiers", "drm.fortification"): 2,
    ("modifiers", "drm.wreck_hex"): 1,
    ("modifiers", "drm.hull_down"): 1,
    ("modifiers", "column_shift.assault_fire"): -2,
    ("modifiers", "column_shift.reaction_half_steps_disrupted"): -1,
    ("terrain", "hex.town.tem_df"): 2,
    ("terrain", "hex.city.tem_df"): 3,
    ("terrain", "hex.woods.tem_df"): 1,
    ("terrain", "hex.woods.tem_if_soft"): -1,
    ("terrain", "hex.woods.tem_if_hard"): 1,
    ("terrain", "hex.swamp.tem_df"): 1,
    ("terrain", "hex.gully.tem_df"): 1,
    ("terrain", "hex.stream.tem_df"): 1,
    ("terrain", "hex.deep_stream.tem_df"): 1,
    ("terrain", "hex.beach.tem_df"): -1,
    ("terrain", "hex.orchard.tem_df"): 1,
    ("terrain", "hex.orchard.tem_if_hard"): 0,
}


@pytest.mark.parametrize(("where", "value"), TEXT_DRMS.items(), ids=[p for _, p in TEXT_DRMS])
def test_every_drm_the_text_gives(tables, where, value):
    top, path = where
    node = tables[top]
    parents = [node]
    for k in path.split("."):
        node = node[k]
        parents.append(node)
    got = node["value"] if isinstance(node, dict) else node
    assert got == value
    tagged = next(p for p in reversed(parents) if isinstance(p, dict) and "source" in p)
    assert tagged["source"] == "text" and "PB2" in tagged["ref"]


def test_net_overrun_and_cat_modifiers(tables):
    """PB2 8.1.7: overrun net -2 (infantry in the open -3); 9.1.9: CAT -3 (-4 with an engineer)."""
    d = tables["modifiers"]["drm"]
    rng = data.range_modifiers(tables)
    assert d["overrun"]["value"] + rng[1] == -2
    assert d["overrun"]["value"] + rng[1] + d["overrun_vs_infantry_in_open"]["value"] == -3
    assert d["cat"]["value"] + rng[0] == -3
    assert d["cat"]["value"] + rng[0] + d["cat_with_engineer"]["value"] == -4


# ----------------------------------------------------------------------------- dice and probabilities

def test_two_dice_frequencies():
    expected = {2: 1, 3: 3, 4: 6, 5: 10, 6: 15, 7: 21, 8: 26, 9: 30, 10: 33, 11: 35, 12: 36}
    assert data.two_dice_table() == {n: Fraction(k, 36) for n, k in expected.items()}


def test_dft_frequencies_by_sampling(dft):
    """The exact P(result) the docs print, against 200,000 sampled 2d6 rolls per column."""
    rng = np.random.default_rng(20)
    rolls = rng.integers(1, 7, size=(200_000, 2)).sum(axis=1)
    for col in (dft.column("1:1"), dft.column("3:2"), dft.column("3:1")):
        for drm in (0, 2):
            exact = dft.probabilities(col, drm)
            lookup = {n: dft.result(col, n, drm) for n in range(2, 13)}
            counts = {r: 0 for r in dft.results}
            values, freq = np.unique(rolls, return_counts=True)
            for v, f in zip(values, freq, strict=True):
                counts[lookup[int(v)]] += int(f)
            for r, p in exact.items():
                sd = math.sqrt(float(p) * (1 - float(p)) / len(rolls))
                assert abs(counts[r] / len(rolls) - float(p)) <= 5 * sd + 1e-9, (dft.columns[col], drm, r)


def test_docs_probability_tables_match_the_data(tables):
    doc = (DOCS / "tables.md").read_text()
    assert data.probability_markdown(tables) in doc


def test_recovery_probabilities_in_docs():
    """The recovery chances of tables.md: P(2d6 <= E), S/D +3, positive-TEM terrain -1."""
    doc = (DOCS / "tables.md").read_text()
    p = data.two_dice_table()
    for e in range(5, 10):
        row = f"| {e} | {float(p[e]):.3f} | {float(p.get(e - 3, Fraction(0))):.3f} | {float(p[min(e + 1, 12)]):.3f} |"
        assert row in doc, row


# ----------------------------------------------------------------------------- LoS chart, movement

def test_pb2_5_4_5_partial_height_chart(tables):
    chart = data.partial_height(tables)
    for d in range(1, 6):
        for h in range(1, 5):
            expected = Fraction(d - h, d) if h < d else Fraction(0)
            assert chart[(d, h)] == expected, (d, h)
    assert chart[(4, 1)] == Fraction(3, 4)          # the OCR's "34D"
    # difference 2, obstacle +1, range 7: clear up to floor(7/2) = 3 hexes from the higher unit
    assert data.partial_height_clear(chart, 2, 1, 3, 7)
    assert not data.partial_height_clear(chart, 2, 1, 4, 7)
    assert not data.partial_height_clear(chart, 2, 2, 1, 7)   # 5.4.2: equal to the higher unit
    assert data.partial_height_clear(chart, 3, 0, 2, 7)       # 5.4.3: lower than both


def test_pb2_4_4_3_amphibious_example(tables):
    assert data.amphibious_used(3, 10, 3) == 1 and 3 - 1 == 2
    assert data.amphibious_used(2, 3, 10) == 7 and 10 - 7 == 3
    clear = tables["terrain"]["hex"]["clear"]["move"]
    factor = tables["terrain"]["rules"]["amphibious"]["exit_factor"]
    assert factor * clear["tracked"] == 2 and factor * clear["wheeled"] == 4


def test_pb2_3_1_2_3_reinforcement_entry_surcharge(tables):
    assert [data.entry_extra_mp(sp, tables) for sp in (0, 5, 6, 11, 12, 17, 18)] == [0, 0, 1, 1, 2, 2, 3]


# ----------------------------------------------------------------------------- --set reaches every cell

def test_set_reaches_every_table_cell(tables):
    """Every numeric cell is a dotted key the core's override mechanism accepts, and the
    reference reader sees the change (DFT thresholds, AT line, range table)."""
    from simulator.ruleset import apply_overrides, leaf_paths

    leaves = leaf_paths({k: v for k, v in tables.items() if k != "units"})
    dft = data.DFT(tables)
    for c in tables["direct_fire"]["column"]:
        for r in dft.results[:-1]:
            assert f"direct_fire.column.{c}.{r}.value" in leaves
    changed = apply_overrides(tables, {"direct_fire.column.3:2.1X.value": 4,
                                       "direct_fire.column.6:1.at_differential.value": 9,
                                       "range.modifier.5.value": 2}, "test")
    d2 = data.DFT(changed)
    assert d2.result(d2.column("3:2"), 4, 0) == "1X"
    assert d2.at_diff[-1] == 9
    assert data.range_modifiers(changed)[5] == 2
    assert dft.result(dft.column("3:2"), 4, 0) == "DD"        # the original is untouched
    for key in ("terrain.hex.woods.tem_df", "modifiers.drm.unspotted.value", "readings.majority_rule",
                "terrain.los.partial_height.4.1.num", "aa.column.2.X.value", "units.tiger-i.full.at"):
        assert key in leaf_paths(tables), key


def test_a_broken_table_names_the_field(tables):
    bad = copy.deepcopy(tables)
    bad["direct_fire"]["column"]["3:2"]["DD"]["value"] = 0     # DD now below 1X
    with pytest.raises(data.TableError, match=r"direct_fire\.column\.3:2"):
        data.DFT(bad)
    bad = copy.deepcopy(tables)
    del bad["range"]["modifier"]["5"]
    with pytest.raises(data.TableError, match=r"range\.modifier"):
        data.range_modifiers(bad)


# ----------------------------------------------------------------------------- conversion

def test_conversion_reproduces_text_unit_facts(tables):
    u = tables["units"]
    assert u["pzkw-iv-h"]["full"]["ap"] == 7                       # PB2 7.7: three PzKw IV = AP 21
    for uid in ("gb-rifle-platoon", "gb-motor-platoon", "gb-engineer-platoon"):
        assert u[uid]["full"]["df"] == 7 and not u[uid]["armored"]  # PB2 7.7: British platoon DF 7
    assert u["gb-truck"]["full"]["sp"] == 2 and u["gb-truck"]["carrier"]   # PB2 4.3 example
    assert u["rifle-platoon-german-42"]["full"]["sp"] == 2          # PB2 15.3.2.2
    assert u["gb-churchill-vii"]["slope_exempt"]                    # PB2 14.9.1
    assert u["gb-universal-carrier"]["carrier_type"] == "british_carrier"  # PB2 4.3.5
    assert u["tiger-i"]["rider"] and u["t-34-c"]["rider"] and not u["gb-sherman-v"]["rider"]  # 4.3.7
    assert not u["sdkfz-234_4"]["rider"] and not u["wespe"]["rider"]  # not armored cars / SP artillery


def test_conversion_rule_holds_for_every_classic_unit():
    rule = conv.Rule(toml(V2 / "conversion.toml"))
    classic = toml(ROOT / "situations" / "rulesets" / "panzerblitz" / "units.toml")["units"]
    v2 = toml(V2 / "units-classic.toml")["units"]
    for uid, c in classic.items():
        u = v2[uid]
        if u["kind"] == "marker":
            continue
        mult = {"A": 0.5, "H": 1.0, "M": 1.0, "I": 1.0}[c["weapon"] or "I"]
        assert u["full"]["ap"] == math.floor(c["attack"] * mult), uid
        if c["armored"]:
            assert u["full"]["df"] == max(rule.scale(c["defense"]), 1), uid
        else:
            assert u["full"]["df"] == c["defense"], uid
        assert u["ma"] == c["movement"] and u["range"] == c["range"], uid
        assert u["full"]["sp"] == {"german": 2, "russian": 3, "any": 3}[c["side"]] or u["kind"] == "command_post"
        if u["steps"] == 2:
            r = u["reduced"]
            assert r["ap"] <= u["full"]["ap"] and r["at"] <= u["full"]["at"] and r["sp"] < u["full"]["sp"], uid


def test_armor_scale_matches_classic_odds_within_rounding():
    """conversion.md#at: one differential point per odds column; the fitted base keeps the mean
    column error over all classic gun/armour pairs near the rounding floor (1/3)."""
    rule = conv.Rule(toml(V2 / "conversion.toml"))
    classic = toml(ROOT / "situations" / "rulesets" / "panzerblitz" / "units.toml")["units"]
    guns = [c["attack"] * (1.0 if c["weapon"] == "A" else 0.5) for c in classic.values()
            if c["weapon"] in ("A", "H", "M") and c["attack"] > 0 and c["category"] != "minefield"]
    armour = [c["defense"] for c in classic.values() if c["armored"] and c["category"] != "fortification"]
    err = [abs((rule.scale(a) - max(rule.scale(d), 1)) - math.log(a / d) / math.log(rule.step))
           for a, d in itertools.product(guns, armour)]
    assert np.mean(err) < 0.40


def test_generated_files_are_current():
    for name, text in conv.build().items():
        assert (V2 / name).read_text() == text, f"{name}: re-run tools/pbv2_convert_units.py --write"


def test_classic_cards_cover_the_twelve_situations():
    cards = toml(V2 / "classic-cards.toml")["cards"]
    assert sorted(cards) == [f"pb-{i:02d}" for i in range(1, 13)]
    for cid, card in cards.items():
        for side, s in card["side"].items():
            assert 5 <= s["efficiency"] <= 9, (cid, side)
            assert s["chits"]["op2"] + sum(a["op2"] for a in s["chits_added"].values()) >= 2


# ----------------------------------------------------------------------------- the Hill 112 board

def test_board_is_reproducible(board):
    built, _ = mapgen.build(toml(V2 / "boards" / "hill112-features.toml"))
    assert json.loads(json.dumps(built)) == board


def test_board_numbering_parity():
    """PB2 8.2.1.7 example: 4104 touches 4203; 4315 touches 4316; 4114 does not touch 4315."""
    grid = mapgen.Grid({**toml(V2 / "boards" / "hill112-features.toml")["grid"]})

    def adjacent(a, b):
        ca, ra, cb, rb = int(a[:2]), int(a[2:]), int(b[:2]), int(b[2:])
        return any(grid.neighbour(ca, ra, d) == (cb, rb) for d in range(6))
    assert adjacent("4104", "4203") and adjacent("4104", "4105") and adjacent("4315", "4316")
    assert not adjacent("4114", "4315")


def test_board_format(board):
    assert board["schema"] == "wargame-board/1"
    ext = board["extensions"]["pbv2"]
    assert ext["label_scheme"] == "xxyy" and ext["odd_columns_up"] is True
    assert len(board["hexes"]) == len(board["columns"]) * board["rows_even"]
    vocab = toml(V2 / "ruleset.toml")["map"]
    for lab, h in board["hexes"].items():
        assert len(lab) == 4 and lab.isdigit()
        assert 1 <= h["elevation"] <= 6
        assert set(h.get("features", ())) <= set(vocab["hex_features"]), lab
        for fs in h.get("sides", {}).values():
            assert set(fs) <= set(vocab["hexside_features"]), lab
    assert {h["elevation"] for h in board["hexes"].values()} == {1, 2, 3, 4, 5, 6}   # PB2 5.2


def test_board_slopes_are_where_levels_meet(board):
    grid = mapgen.Grid(toml(V2 / "boards" / "hill112-features.toml")["grid"])
    H = board["hexes"]
    for lab, h in H.items():
        c, r = int(lab[:2]), int(lab[2:])
        for d, name in enumerate(mapgen.DIRECTIONS):
            n = grid.neighbour(c, r, d)
            if not grid.on_board(*n):
                continue
            other = H[mapgen.label(*n)]
            has = "slope" in h.get("sides", {}).get(name, [])
            assert has == (other["elevation"] != h["elevation"]), (lab, name)


NAMED = {  # place -> (levels allowed, a feature every hex has)
    "Hill 112": ({6}, None),
    "Summit orchard": ({6}, "orchard"),
    "Maltot": ({1, 2, 3}, "town"),
    "Eterville": ({3, 4}, "town"),
    "Esquay-Notre-Dame": ({3, 4, 5}, "town"),
    "Baron-sur-Odon": ({4, 5}, "town"),
    "St-Martin": ({5, 6}, "town"),
    "Gavrus": ({3, 4, 5}, "town"),
    "Fontaine-Etoupefour": ({1, 2}, "town"),
    "Vieux": ({1, 2, 3}, "town"),
    "Evrecy": ({4, 5, 6}, "town"),
}


@pytest.mark.parametrize("place", NAMED)
def test_named_places_exist_with_their_elevation(board, place):
    levels, feature = NAMED[place]
    hexes = board["named"][place]
    assert hexes
    for lab in hexes:
        h = board["hexes"][lab]
        assert h["elevation"] in levels, (place, lab, h["elevation"])
        if feature:
            assert feature in h.get("features", ()), (place, lab)


def test_hill_112_is_the_high_ground_of_its_neighbourhood(board):
    H = board["hexes"]
    summit = max(board["named"]["Hill 112"], key=lambda lab: H[lab]["height_m"])
    assert H[summit]["height_m"] >= 110
    assert board["named"]["Summit orchard"][0] in board["named"]["Hill 112"]
    assert board["named"]["Calvary crossing"][0] in board["named"]["Hill 112"]
    # every village of the battle lies below the summit
    for v in ("Maltot", "Eterville", "Esquay-Notre-Dame", "Baron-sur-Odon", "St-Martin"):
        assert max(H[lab]["height_m"] for lab in board["named"][v]) < H[summit]["height_m"]


def test_roads_and_watercourses(board):
    H = board["hexes"]
    sides = [f for h in H.values() for fs in h.get("sides", {}).values() for f in fs]
    for f in ("deep_stream", "stream", "river", "road", "bridge", "hedge"):
        assert f in sides, f
    bridges = [k for k in board["named"] if k.startswith("Bridge")]
    assert any("D89" in b for b in bridges)          # Tourmauville (Epsom's crossing)
    assert any("Gavrus" in b for b in bridges)
    assert "road" in H[board["named"]["Calvary crossing"][0]]["features"]   # D8 x Roman road
    for v in ("Maltot", "Eterville", "Esquay-Notre-Dame", "Baron-sur-Odon"):
        assert any("road" in H[lab].get("features", ()) for lab in board["named"][v]), v


# ----------------------------------------------------------------------------- the Hill 112 situations

def region_hexes(board, spec: dict, play: dict | None = None) -> set[str]:
    """Hexes of a situation area; `edge` is the edge of the play area (situations.md#format)."""
    out = set(board["hexes"])
    if "hexes" in spec:
        out &= set(spec["hexes"])
    for key, pos in (("columns", slice(0, 2)), ("rows", slice(2, 4))):
        if key in spec:
            lo, hi = (int(x) for x in str(spec[key]).split("-"))
            out = {h for h in out if lo <= int(h[pos]) <= hi}
    if "edge" in spec:
        rows = [int(x) for x in str((play or {}).get("rows", f"1-{board['rows_even']}")).split("-")]
        row = {"north": rows[0], "south": rows[-1]}[spec["edge"]]
        out = {h for h in out if int(h[2:]) == row}
    return out


@pytest.mark.parametrize("path", HOD, ids=[p.stem for p in HOD])
def test_hod_situation_refers_to_known_things(board, tables, path):
    doc = toml(path)
    assert doc["ruleset"] == "panzerblitz-v2" and doc["map"]["layout"] == [["HOD"]]
    play = region_hexes(board, doc["map"]["play_area"])
    sides = toml(V2 / "ruleset.toml")["sides"]
    rule = conv.Rule(toml(V2 / "conversion.toml"))
    assert {s["name"] for s in doc["side"]} <= set(sides)
    for side in doc["side"]:
        assert 5 <= side["efficiency"] <= 9
        start, added = 0, {}
        for g in side["group"]:
            for uid in g["units"]:
                assert uid in tables["units"], (path.stem, uid)
                assert tables["units"][uid]["side"] in (side["name"], "any"), uid
            sp = sum(n * tables["units"][uid]["full"]["sp"] for uid, n in g["units"].items())
            if g.get("off_board") or g.get("air"):
                continue                 # off-board artillery, aircraft (16.0): no hex, no SP
            area = g.get("setup") or g.get("enter")
            hexes = region_hexes(board, area, doc["map"]["play_area"])
            assert hexes and hexes <= play, (path.stem, g["name"])
            if "enter" in g:
                added[g["enter"]["turn"]] = added.get(g["enter"]["turn"], 0) + sp
            else:
                start += sp
        # situations.md#chits: the same rule as the converted classic cards
        want_start, want_added = conv.chit_counts({"start_sp": start, "entering_sp": added}, rule)
        assert side["chits"] == {"op2": want_start}, (path.stem, side["name"])
        assert {int(t): v["op2"] for t, v in side.get("chits_added", {}).items()} == want_added
        region = side["victory"].get("region")
        if region:
            assert region in board["named"] and set(board["named"][region]) <= play


def test_hod_situations_stay_out_of_the_classic_builtin_list():
    from simulator.situation import builtin_situations

    names = [p.stem for p in builtin_situations()]
    assert names == [f"pb-{i:02d}" for i in range(1, 13)]
    assert len(HOD) >= 3


def test_every_switch_of_the_digest_is_in_readings_with_its_default():
    """rules-digest.md section 20: each open question's switch and default = readings.toml."""
    import re

    digest = (DOCS / "rules-digest.md").read_text().split("## 20. Open questions", 1)[1].split("## 21.", 1)[0]
    readings = toml(V2 / "readings.toml")["readings"]
    named = re.findall(r"`([a-z_0-9]+) = ([^`]+)`", digest)
    assert len(named) >= 40
    for key, default in named:
        assert key in readings, key
        assert readings[key] == tomllib.loads(f"x = {default}")["x"], key
    assert set(readings) - {"source", "see"} == {k for k, _ in named}
