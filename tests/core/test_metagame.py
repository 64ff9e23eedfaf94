"""The meta-game solver (simulator/metagame.py) on matrix games whose equilibria are known."""

import numpy as np
import pytest

from simulator.metagame import solve


def test_matching_pennies_is_half_and_half_with_value_zero():
    eq = solve([[1, -1], [-1, 1]])
    assert eq.row == pytest.approx([0.5, 0.5], abs=1e-9)
    assert eq.col == pytest.approx([0.5, 0.5], abs=1e-9)
    assert eq.value == pytest.approx(0.0, abs=1e-9)


def test_dominated_row_gets_no_weight():
    # Row 2 is worse than row 0 against every column: it is never played.  The rest is a 2x2
    # game solved by hand: x = (2/5, 3/5), y = (2/5, 3/5), v = 1/5.
    table = [[2, -1], [-1, 1], [1, -2]]
    eq = solve(table)
    assert eq.row[2] == pytest.approx(0.0, abs=1e-9)
    assert eq.row == pytest.approx([0.4, 0.6, 0.0], abs=1e-9)
    assert eq.col == pytest.approx([0.4, 0.6], abs=1e-9)
    assert eq.value == pytest.approx(0.2, abs=1e-9)
    # Neither side gains by deviating to a pure policy.
    assert eq.row_gain(table).max() == pytest.approx(0.0, abs=1e-9)
    assert eq.col_gain(table).max() == pytest.approx(0.0, abs=1e-9)


def test_pure_saddle_point():
    # Entry (1, 0) = 2 is the smallest of its row and the largest of its column.
    table = [[1, 3, 4], [2, 5, 3], [0, 6, 1]]
    eq = solve(table)
    assert eq.row == pytest.approx([0, 1, 0], abs=1e-9)
    assert eq.col == pytest.approx([1, 0, 0], abs=1e-9)
    assert eq.value == pytest.approx(2.0, abs=1e-9)


def test_rock_paper_scissors_and_a_single_policy():
    eq = solve([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
    assert eq.row == pytest.approx(np.full(3, 1 / 3), abs=1e-9)
    assert eq.value == pytest.approx(0.0, abs=1e-9)
    one = solve([[-0.7]])
    assert one.row == pytest.approx([1.0]) and one.col == pytest.approx([1.0])
    assert one.value == pytest.approx(-0.7)


def test_bad_tables_are_refused():
    with pytest.raises(ValueError):
        solve([[1.0, np.nan]])
    with pytest.raises(ValueError):
        solve(np.zeros((0, 2)))
