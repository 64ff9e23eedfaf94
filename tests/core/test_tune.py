"""`balance tune` (simulator/tune.py): reproducible with a fixed seed, common random numbers, the
policy file it writes loads with --policy SIDE=@FILE, the gain is measured on fresh games."""

import json

import numpy as np
import pytest

from simulator import registry
from simulator.cli import main
from simulator.situation import load_situation
from simulator.tune import FRESH_OFFSET, HOLDOUT_OFFSET, Opponents, best_response, paired_gain

RS = registry.ruleset("panzerblitz")


def _setup():
    sit = load_situation("pb-01")
    h = RS.players.parse(None, sit.side_names)
    return sit, h["russian"], h["german"]


def test_the_search_space_is_the_players_data():
    space = RS.players.space("heuristic")
    from simulator.rulesets.panzerblitz.players.spec import POLICY_PARAMS

    params = POLICY_PARAMS["heuristic"][1]
    assert [p.name for p in space] == [k for k, p in params.items() if p.hi > p.lo]
    assert all(p.lo <= p.default <= p.hi for p in space)
    assert {p.name for p in space if p.whole} >= {"support_radius", "unload_distance"}
    assert set(RS.players.styles("heuristic")) >= {"cautious", "aggressive"}


def test_tuning_with_a_fixed_seed_is_reproducible():
    sit, start, against = _setup()
    kw = dict(trials=6, games_per_trial=8, seed=5, workers=1)
    a = best_response(sit, "russian", start, Opponents([against], [1.0]), **kw)
    b = best_response(sit, "russian", start, Opponents([against], [1.0]), **kw)
    assert a.history == b.history and a.params == b.params
    assert len(a.history) == 6 and a.games == 48
    # Trial 0 is the starting player: the best is never below it on the tuning games.
    assert a.best_score == max(a.history) >= a.start_score == a.history[0]
    # Another seed, other games and other candidates.
    c = best_response(sit, "russian", start, Opponents([against], [1.0]), trials=6, games_per_trial=8, seed=6,
                      workers=1)
    assert c.history != a.history


def test_opponent_blocks_follow_the_mixture():
    o = Opponents([None, None, None], [0.5, 0.3, 0.2])
    assert o.blocks(10) == [5, 3, 2]
    assert sum(Opponents([None, None], [0.999, 0.001]).blocks(100)) == 101   # a present opponent plays at least once
    assert Opponents([None, None], [1.0, 0.0]).blocks(7) == [7, 0]


def test_paired_gain_weights_blocks():
    a = [np.array([1, 2, 3]), np.array([0, 0])]
    b = [np.array([0, 1, 2]), np.array([1, 1])]
    g, lo, hi = paired_gain(a, b, [0.5, 0.5])
    assert g == pytest.approx(0.0) and lo == pytest.approx(0.0) and hi == pytest.approx(0.0)
    g, lo, hi = paired_gain([np.array([1, 0, 1, 1])], [np.array([0, 0, 0, 0])], [1.0])
    assert g == pytest.approx(0.75) and lo < 0.75 < hi


def test_tune_cli_writes_a_policy_file_that_loads(tmp_path, capsys):
    out = tmp_path / "ru.toml"
    code = main(["tune", "pb-01", "--side", "russian", "--budget", "40", "--games-per-trial", "8", "--fresh-games",
                 "12", "--seed", "3", "--workers", "1", "--out", str(out), "--json"])
    assert code == 0
    r = json.loads(capsys.readouterr().out)
    assert r["trials"] == 5 and r["fresh"]["games"] == 12 and r["fresh"]["seed"] == 3 + FRESH_OFFSET
    lo, hi = r["fresh"]["ci95"]
    assert lo <= r["fresh"]["gain"] <= hi
    assert r["fresh"]["gain"] == pytest.approx(r["fresh"]["tuned_score"] - r["fresh"]["start_score"])
    sit = load_situation("pb-01")
    spec = RS.players.parse([f"russian=@{out}"], sit.side_names)["russian"]
    assert spec.name == "heuristic" and spec.source == str(out)
    assert {k: spec.full_params()[k] for k in r["params"]} == pytest.approx(r["params"])
    text = out.read_text()
    for key in ("situation = \"pb-01\"", "side = \"russian\"", "budget = 40", "fresh_seed", "gain_ci95",
                "against = \"heuristic\""):
        assert key in text
    # A run with the tuned player names it in the verdict.
    code = main(["run", "pb-01", "--games", "4", "--workers", "1", "--policy", f"russian=@{out}", "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert f"the Russian heuristic player of {out}" in summary["verdict"]["text"]


def test_tune_refuses_bad_options_before_playing(capsys, tmp_path):
    out = tmp_path / "never.toml"
    assert main(["tune", "pb-01", "--side", "finnish", "--out", str(out)]) == 1
    assert "--side" in capsys.readouterr().err
    assert main(["tune", "pb-01", "--side", "german", "--budget", "5", "--games-per-trial", "10",
                 "--workers", "1", "--out", str(out)]) == 1
    assert "--budget" in capsys.readouterr().err and not out.exists()


def test_the_hold_out_check_keeps_the_starting_player_when_the_tuned_one_does_not_beat_it(tmp_path, capsys):
    # pb-02: the Russians win every game decisively whatever the German does (bench/tune_seats.csv),
    # so no tuned German beats the default on the hold-out games and the default is kept.
    out = tmp_path / "de.toml"
    code = main(["tune", "pb-02", "--side", "german", "--budget", "16", "--games-per-trial", "8", "--holdout-games",
                 "6", "--fresh-games", "6", "--seed", "2", "--workers", "1", "--out", str(out), "--json"])
    assert code == 0
    r = json.loads(capsys.readouterr().out)
    held = r["holdout"]
    assert held["games"] == 6 and held["seed"] == 2 + HOLDOUT_OFFSET and held["gain"] <= 0
    assert r["kept_start"] and r["fresh"]["gain"] == 0 and r["fresh"]["games"] == 0
    sit = load_situation("pb-02")
    spec = RS.players.parse([f"german=@{out}"], sit.side_names)["german"]
    assert spec.full_params() == RS.players.parse(None, sit.side_names)["german"].full_params()
    text = out.read_text()
    assert "holdout_games = 6" in text and 'kept = "the starting player' in text


def test_the_hold_out_games_are_neither_the_tuning_nor_the_fresh_games():
    from simulator.tune import fresh_gain, holdout_gain

    sit, start, against = _setup()
    opp = Opponents([against], [1.0])
    held = holdout_gain(sit, "russian", start, start, opp, 10, 4, workers=1)
    fresh = fresh_gain(sit, "russian", start, start, opp, 10, 4, workers=1)
    assert held["seed"] == 4 + HOLDOUT_OFFSET and fresh["seed"] == 4 + FRESH_OFFSET and held["games"] == 10
    # The same player on the same games: no gain, and an interval of width 0.
    assert held["gain"] == 0 and held["ci95"] == [0, 0]
