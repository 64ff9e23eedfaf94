"""The heuristic's odds-column table (goals.odds_columns, round 10) gives the column the rules'
search gives (combat.odds_column) for every defence it covers and every AF, beyond its width too."""

from __future__ import annotations

import numpy as np

from simulator.rulesets.panzerblitz.batch import prepare
from simulator.rulesets.panzerblitz.combat import odds_column
from simulator.rulesets.panzerblitz.players.goals import odds_columns
from simulator.rulesets.panzerblitz.replay import policy_tables
from simulator.situation import load_situation


def _looked_up(table, af, df):
    return int(table[df, min(af, table.shape[1] - 1)])


def test_odds_table_matches_the_rules_search_for_every_defence_and_af():
    t = prepare(load_situation("pb-04"))
    ct = t.combat_t
    table = policy_tables(t).odds_col
    assert table.shape[0] == int(t.unit_t.defense.max()) + 1
    for df in range(1, table.shape[0]):
        for af in range(0, 3 * table.shape[1]):
            assert _looked_up(table, af, df) == odds_column.py_func(af, df, ct.col_attack, ct.col_defense), (af, df)


def test_odds_table_of_other_columns():
    # a CRT with other odds columns (a designer's table): still the rules' column everywhere
    col_attack = np.array([1, 1, 2, 3, 5], dtype=np.int64)
    col_defense = np.array([3, 1, 1, 1, 2], dtype=np.int64)
    table = odds_columns(col_attack, col_defense, 9)
    for df in range(0, 10):
        for af in range(0, 3 * table.shape[1]):
            assert _looked_up(table, af, df) == odds_column.py_func(af, df, col_attack, col_defense), (af, df)
