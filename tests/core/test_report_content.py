"""What the designer's report says (issue 16): the situation and the run in words, the players
named as AI players, draws defined, victory conditions in words and each side's victory
measures against their thresholds for every situation, intervals as their two ends where they
are lopsided, compare lines explained, whole-number sweep axes."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from reports.charts import measures_chart
from reports.html_report import situation_heading, write_report
from simulator import registry
from simulator.rulesets.panzerblitz.batch import play_games, prepare
from simulator.rulesets.panzerblitz.players.spec import parse_side_policies
from simulator.rulesets.panzerblitz.victory_text import thresholds, victory_words
from simulator.situation import builtin_situations, load_situation
from simulator.summary import summarize


def run_tables(sid: str, n: int = 2, policy: str = "random"):
    sit = load_situation(sid)
    policies = parse_side_policies([policy], sit.ruleset.sides)
    g, t, lo = play_games(prepare(sit), list(range(1, n + 1)), policies)
    g.insert(0, "game", range(n))
    t.insert(0, "game", t.pop("batch_game"))
    lo.insert(0, "game", lo.pop("batch_game"))
    g = g.drop(columns="batch_game")
    summary = summarize(g, situation=sit, seed=1, policies=policies, ruleset=registry.ruleset("panzerblitz"),
                        elapsed_s=1.0, startup_s=0.2)
    return sit, g, t, lo, summary


def test_victory_conditions_in_words():
    sit = load_situation("pb-04")
    sides = sit.ruleset.sides
    german = victory_words("german", sit.side("german").victory, sides)
    assert german == ("German: Russian units on board 3 at the end of the game; marginal with at most 30, "
                      "tactical with at most 20, decisive with at most 10.")
    russian = victory_words("russian", sit.side("russian").victory, sides)
    assert russian.startswith("Russian: German units destroyed at the end of the game; marginal with at least 5")
    pb07 = load_situation("pb-07").side("russian").victory
    assert ("marginal", ">", 1.0) in thresholds(pb07)  # the card's "MORE than the Germans"
    assert "more than 1" in victory_words("russian", pb07, sides)


@pytest.mark.parametrize("path", builtin_situations(), ids=lambda p: p.stem)
def test_measures_chart_for_every_situation_from_its_own_conditions(path):
    sit, games, turns, _, summary = run_tables(path.stem)
    assert {"measure", "measure_level"} <= set(turns.columns)
    last = turns[turns["turn"] == turns["turn"].max()]
    for side in sit.ruleset.sides:
        # the chart's last point is the measure the game was judged on
        final = last[last["side"] == side].set_index("game")["measure"]
        judged = games.set_index("game")[f"value_{side}"]
        engaged = games.set_index("game")["winner"].notna()
        assert ((final == judged) | ~engaged | (judged == 0)).all()
    fig = measures_chart(turns, summary)
    axes = fig.get_axes()
    assert len(axes) == 2
    for ax, side in zip(axes, sit.ruleset.sides, strict=True):
        levels = thresholds(sit.side(side).victory)
        # one dashed line a level, at its threshold
        ys = sorted(round(line.get_ydata()[0], 6) for line in ax.get_lines() if line.get_linestyle() != "-")
        assert ys == sorted(round(t, 6) for _, _, t in levels)
    fig.savefig(io.BytesIO())


def test_report_says_what_was_played_by_whom_in_words(tmp_path):
    sit, games, turns, losses, summary = run_tables("pb-01", 3)
    assert situation_heading(summary) == "Situation 1 (pb-01): Russian Rear Area Raid: White Russia"
    assert write_report(games, turns, losses, summary, tmp_path, sit) == {}
    page = (tmp_path / "report.html").read_text()
    assert "<h1>Situation 1 (pb-01): Russian Rear Area Raid: White Russia</h1>" in page
    assert "10 game-turns each" in page and f"run on {summary['date'][:10]}" in page
    assert "computer (AI) players, not people" in page and "<b>random AI player</b> (its default parameters)" in page
    assert "A game is a <b>draw</b> when neither side reached a higher victory level" in page
    assert "How each side wins" in page and "German: German units destroyed at the end of the game" in page
    assert "Victory measures against their thresholds" in page
    run = page[page.index("<h2>Run</h2>"):]
    assert "&quot;" not in run and "{" not in run  # no raw JSON
    assert "<th>german player</th><td>random (default parameters)</td>" in run
    for board in ("1", "2", "3"):
        assert f"<h3>Board {board}</h3>" in page
    assert "charts/loss_map.png" in page


def test_integer_sweep_axis_has_integer_ticks():
    from reports.sweep_report import sweep_chart

    points = [{"value": v, "sides": {"german": {"win": p, "ci95": [p - 0.05, p + 0.05]},
                                     "russian": {"win": 1 - p, "ci95": [0.95 - p, 1.05 - p]}}}
              for v, p in ((6, 0.2), (7, 0.4), (8, 0.6))]
    result = {"situation": "pb-04", "param": "situation.turns", "games": 10, "values": [6, 7, 8],
              "sides": ["german", "russian"], "points": points,
              "balance_point": {"value": 7.5, "ci95": [7.0, 8.0], "b0": -7.5, "b1": 1.0, "side": "german"}}
    fig = sweep_chart(result)
    fig.canvas.draw()
    ticks = [t for t in fig.axes[0].get_xticks() if 6 <= t <= 8]
    assert ticks and all(float(t).is_integer() for t in ticks)


def test_compare_line_explains_an_interval_that_excludes_zero_beside_a_non_significant_holm_p():
    from simulator.experiments import format_compare

    line = {"ci95": [0.01, 0.2], "change": 0.1, "win": {"win": 0.6}, "p_value": 0.03, "p_holm": 0.0625,
            "significant": False}
    other = {"ci95": [-0.1, 0.05], "change": -0.02, "win": {"win": 0.3}, "p_value": 0.5, "p_holm": 0.5,
             "significant": False}
    result = {"situation": "pb-04", "games": 100, "seed": 1, "overrides": {}, "sides": ["german", "russian"], "policies": {},
              "baseline": {"german": {"win": 0.5}, "russian": {"win": 0.32}},
              "variants": {"short": {"overrides": {"situation.turns": 8},
                                     "sides": {"german": line, "russian": other}}}}
    text = format_compare(result)
    assert "no*" in text and "* the 95 % interval excludes 0 but the change is not significant" in text
    assert "corrected for every line" in text
    from reports.compare_report import report_html

    assert "no* : the 95 % interval excludes 0" in report_html(result, b"")


def test_a_run_saved_by_an_older_version_still_gets_its_report(tmp_path):
    sit, games, turns, losses, summary = run_tables("pb-01", 2)
    for key in ("victory", "title", "turns", "date", "startup_s", "play_s", "sets_up_first", "moves_first",
                "lost_at_setup"):
        summary.pop(key)
    turns = turns.drop(columns=["measure", "measure_level", "units_lost_at_setup"])
    assert write_report(games, turns, losses, summary, tmp_path, sit) == {}
    page = (tmp_path / "report.html").read_text()
    assert "<h1>Situation 1 (pb-01)</h1>" in page and "victory conditions were not recorded" in page


def test_report_shows_the_other_reading_of_levels_where_it_moves_games_pb_vic_issue_21_item_7():
    """Issue 21 item 7: where both sides reach a level, the report gives the levels under the other
    reading too (with intervals), and says nothing when the reading changes no game."""
    from reports.html_report import _alternative_levels
    summary = {"games": 4, "alternative_levels": {
        "reading": 'readings.both_sides_reach_level = "difference"', "games_differ": 1,
        "levels": {"german": {"marginal": 0.5, "tactical": 0.0, "decisive": 0.0},
                   "russian": {"marginal": 0.0, "tactical": 0.0, "decisive": 0.25}},
        "levels_ci95": {"german": {"marginal": [0.15, 0.85], "tactical": [0.0, 0.49], "decisive": [0.0, 0.49]},
                        "russian": {"marginal": [0.0, 0.49], "tactical": [0.0, 0.49], "decisive": [0.046, 0.7]}}}}
    html_part = _alternative_levels(summary, ["marginal", "tactical", "decisive"])
    assert "readings.both_sides_reach_level = &quot;difference&quot;" in html_part
    assert "1 of 4 games end at another level" in html_part
    assert "<th>german</th><td>50.0 % [15.0, 85.0]</td>" in html_part
    summary["alternative_levels"]["games_differ"] = 0
    assert _alternative_levels(summary, ["marginal", "tactical", "decisive"]) == ""


@pytest.mark.parametrize(("ruleset", "doc"), [("panzerblitz", "docs/policies.md"),
                                              ("first-panzer-army", "docs/first-panzer-army/engine.md")])
def test_the_players_sentence_names_the_rulesets_own_players_page(ruleset, doc):
    # The sentence sent every ruleset's reader to PanzerBlitz's docs/policies.md.
    from reports.html_report import players_words
    words = players_words({"ruleset": ruleset, "policies": {"a": {"name": "heuristic", "params": {}},
                                                            "b": {"name": "random", "params": {}}}})
    assert f"({doc} describes the players)." in words and (ruleset == "panzerblitz") == ("policies.md" in words)
    assert (Path(__file__).resolve().parents[2] / doc).is_file()
