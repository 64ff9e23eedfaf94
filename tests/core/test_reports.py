"""The designer's report (issue 5): charts that say when they have nothing to show, the loss
map's counts, and `balance report` on a directory that is not a run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reports import charts
from reports.lossmap import draw_loss_map, loss_counts
from simulator.cli import main
from simulator.situation import load_situation

SIDES = ["german", "russian"]


def _texts(fig) -> str:
    return " ".join(t.get_text() for ax in fig.axes for t in ax.texts)


def test_decided_chart_stacks_results_and_marks_the_median():
    games = pd.DataFrame({"winner": ["german", "german", "russian", "draw"], "decided_turn": [0, 3, 3, 5],
                          "turns_played": [6, 6, 6, 6]})
    fig = charts.decided_chart(games, SIDES, "decided_turn")
    ax = fig.axes[0]
    heights = {}
    for bar in ax.patches:
        x = round(bar.get_x() + bar.get_width() / 2)
        heights[x] = heights.get(x, 0) + bar.get_height()
    assert heights[0] == pytest.approx(25) and heights[3] == pytest.approx(50) and heights[5] == pytest.approx(25)
    assert "median 3" in _texts(fig)
    assert "%" in ax.get_ylabel() and "turn" in ax.get_xlabel()


def test_charts_with_nothing_to_show_say_so():
    empty = pd.DataFrame({"winner": [], "decided_turn": []})
    assert "no decided_turn" in _texts(charts.decided_chart(empty.drop(columns="decided_turn"), SIDES, "decided_turn"))
    games = pd.DataFrame({"winner": ["draw"], "lost:german:t-34": [0]})
    assert "No unit was lost" in _texts(charts.losses_by_type_chart(games, SIDES, "lost:{side}:*"))


def test_loss_map_counts_per_hex_and_refuses_unknown_hexes(tmp_path):
    sit = load_situation("pb-01")
    first, second = sit.map.labels[10], sit.map.labels[20]
    losses = pd.DataFrame({"side": ["german", "german", "russian", "russian"],
                           "hex": [first, first, second, ""]})
    counts = loss_counts(losses, sit)
    assert counts["german"][10] == 2 and counts["german"].sum() == 2
    assert counts["russian"][20] == 1 and counts["russian"].sum() == 1  # lost off the map: not drawn
    assert draw_loss_map(sit, losses, 4, tmp_path / "m.png").exists()
    assert draw_loss_map(sit, losses[losses["hex"] == ""], 4, tmp_path / "n.png") is None
    with pytest.raises(ValueError, match="not on the map"):
        loss_counts(pd.DataFrame({"side": ["german"], "hex": ["9Z99"]}), sit)
    assert np.issubdtype(counts["german"].dtype, np.integer)


def test_report_on_a_directory_that_is_not_a_run(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nothing")]) == 1
    assert "not a directory" in capsys.readouterr().err
    assert main(["report", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "summary.json" in err and "cannot read" in err
