"""The Monte Carlo runner and `balance run`: reproducible, worker-count independent, honest output."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from simulator import registry
from simulator.cli import main
from simulator.errors import DataError
from simulator.progress import Progress
from simulator.rulesets.panzerblitz.players.spec import parse_side_policies
from simulator.runner import _number, game_seed, run
from simulator.situation import load_situation
from simulator.stats import wilson_half_width

REQUIRED = {"situation", "ruleset", "games", "seed", "policies", "outcomes", "draw", "mean_turns", "elapsed_s",
            "games_per_s"}
EXTRA = {"levels_ci95", "draw_ci95", "until_ci", "tool_version", "situation_sha256", "situation_file", "overrides",
         "alternative_levels",
         # issue 16: what the report says in words, start-up apart from playing, units lost at set-up
         "title", "turns", "date", "sets_up_first", "moves_first", "victory", "startup_s", "play_s", "lost_at_setup",
         # issue 18: the verdict in words, naming its players
         "verdict"}
TIMING = ("elapsed_s", "games_per_s", "startup_s", "play_s", "date")  # when and how fast, not what


@pytest.fixture(scope="module")
def sit():
    return load_situation("pb-01")


@pytest.fixture(scope="module")
def rnd(sit):
    return parse_side_policies(["random"], sit.ruleset.sides)


def untimed(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in TIMING}


def assert_same_games(a, b):
    assert_frame_equal(a.games, b.games)
    assert_frame_equal(a.turns, b.turns)
    assert_frame_equal(a.events, b.events)
    assert untimed(a.summary) == untimed(b.summary)


def test_game_seed_is_the_spawned_child_and_fits_numba():
    children = np.random.SeedSequence(7).spawn(5)
    for i, child in enumerate(children):
        assert game_seed(7, i) == int(child.generate_state(1)[0])
    seeds = [game_seed(1, i) for i in range(1000)]
    assert all(0 <= s < 2**32 for s in seeds)
    assert len(set(seeds)) == len(seeds)


def test_same_arguments_same_games(sit, rnd):
    a = run(sit, 8, 3, rnd, workers=1, progress=False)
    b = run(sit, 8, 3, rnd, workers=1, progress=False)
    assert_same_games(a, b)
    assert list(a.games["game"]) == list(range(8))
    assert a.turns["game"].is_monotonic_increasing and set(a.turns["game"]) == set(range(8))
    assert list(a.games["seed"]) == [game_seed(3, i) for i in range(8)]
    # Each game's turn rows carry that game's seed.
    by_game = a.turns.groupby("game")["seed"].first()
    assert list(by_game) == list(a.games["seed"])
    assert a.summary["games"] == 8 and a.games_per_s > 0
    c = run(sit, 8, 4, rnd, workers=1, progress=False)
    assert list(c.games["seed"]) != list(a.games["seed"])


def test_workers_and_batches_do_not_change_the_games(sit):
    policies = parse_side_policies(["german=heuristic:aggression=0.8", "russian=random"], sit.ruleset.sides)
    one = run(sit, 12, 5, policies, workers=1, progress=False, batch_size=3)
    two = run(sit, 12, 5, policies, workers=2, progress=False)
    assert_same_games(one, two)
    assert one.summary["policies"]["german"]["params"]["aggression"] == 0.8


def test_until_ci_plays_on_until_precise(sit, rnd):
    h = 0.15
    # Five games can never be that precise (half-width >= 0.21 whatever the results).
    res = run(sit, 5, 2, rnd, workers=1, progress=False, until_ci=h)
    n = res.summary["games"]
    assert n > 5 and res.summary["until_ci"] == {"half_width": h, "max_games": 20000, "reached": True}
    for side in sit.ruleset.sides:
        assert wilson_half_width(int((res.games["winner"] == side).sum()), n) <= h
    # The rounds continue the game sequence: the same as one plain run of that many games.
    plain = run(sit, n, 2, rnd, workers=1, progress=False)
    assert_frame_equal(res.games, plain.games)
    assert_frame_equal(res.turns, plain.turns)


def test_until_ci_stops_at_max_games(sit, rnd):
    res = run(sit, 4, 2, rnd, workers=1, progress=False, until_ci=0.01, max_games=9)
    assert res.summary["games"] == 9 and len(res.games) == 9
    assert res.summary["until_ci"] == {"half_width": 0.01, "max_games": 9, "reached": False}
    small = run(sit, 50, 2, rnd, workers=1, progress=False, until_ci=0.01, max_games=3)
    assert small.summary["games"] == 3


@pytest.mark.parametrize(("kwargs", "option"), [
    ({"n_games": 0}, "--games"),
    ({"n_games": None}, "--games"),
    ({"seed": -1}, "--seed"),
    ({"workers": 0}, "--workers"),
    ({"until_ci": 0.0}, "--until-ci"),
    ({"until_ci": 0.7}, "--until-ci"),
    ({"max_games": 10}, "--max-games"),
    ({"until_ci": 0.1, "max_games": 0}, "--max-games"),
])
def test_bad_arguments_name_the_option(sit, rnd, kwargs, option):
    args = {"n_games": 5, "seed": 1, "workers": 1, "progress": False} | kwargs
    with pytest.raises(DataError) as err:
        run(sit, policies=rnd, **args)
    assert err.value.file == "balance run" and err.value.field == option


def test_missing_side_policy_and_unknown_engine(sit, rnd, monkeypatch):
    with pytest.raises(DataError, match="one for each side: german, russian"):
        run(sit, 5, 1, {"german": rnd["german"]}, workers=1, progress=False)
    with pytest.raises(DataError, match="unknown ruleset 'chess'"):
        registry.ruleset("chess", "x.toml")
    # every built-in ruleset has its engine now: one with data and no engine, as a new one starts
    monkeypatch.setattr(registry, "_modules", {k: v for k, v in registry._modules.items() if k != "panzerblitz-v2"})
    monkeypatch.setattr(registry, "_loaded", {k: v for k, v in registry._loaded.items() if k != "panzerblitz-v2"})
    with pytest.raises(DataError, match="'panzerblitz-v2' has its data .* but no rules engine yet"):
        registry.ruleset("panzerblitz-v2", "x.toml")


def test_rows_are_numbered_by_batch_game_even_when_seeds_repeat():
    games = pd.DataFrame({"batch_game": [0, 1, 2], "seed": [9, 9, 4]})
    turns = pd.DataFrame({"batch_game": [0, 0, 1, 1, 2, 2], "seed": [9, 9, 9, 9, 4, 4], "turn": [0, 1, 0, 1, 0, 1]})
    losses = pd.DataFrame({"batch_game": [1, 2], "hex": ["A1", "B2"]})
    g, t, lo = _number((games, turns, losses), 10, [9, 9, 4])
    assert list(g["game"]) == [10, 11, 12] and "batch_game" not in g
    assert list(t["game"]) == [10, 10, 11, 11, 12, 12]
    assert list(lo["game"]) == [11, 12]
    with pytest.raises(RuntimeError, match="asked for"):
        _number((games.iloc[:2], turns, losses), 0, [9, 9, 4])


def test_progress_bar_only_on_a_terminal():
    plain = io.StringIO()
    bar = Progress(True, plain)
    bar.update(3, 10)
    bar.close()
    assert plain.getvalue() == ""

    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty = Tty()
    bar = Progress(True, tty)
    bar.update(5, 10)
    bar.close()
    assert "5/10 games" in tty.getvalue() and tty.getvalue().endswith("\n")
    quiet = Tty()
    Progress(False, quiet).update(1, 2)
    assert quiet.getvalue() == ""


@pytest.mark.parametrize(("policy", "message"), [
    ("german=bogus", "unknown policy 'bogus'"),
    ("prussian=random", "unknown side 'prussian'"),
    ("german=random:speed=3", "random has no parameter 'speed'"),
    ("german=heuristic:aggression=high", "'high' is not a number"),
])
def test_bad_policy_is_one_clear_line_and_exit_1(policy, message, capsys):
    assert main(["run", "pb-01", "--games", "3", "--workers", "1", "--policy", policy]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert message in err and err.startswith("--policy") and err.count("\n") == 1


def test_json_and_out_directory(tmp_path, capsys):
    out = tmp_path / "runs" / "r1"
    argv = ["run", "pb-01", "--games", "6", "--seed", "2", "--policy", "random", "--workers", "1",
            "--out", str(out), "--json"]
    assert main(argv) == 0
    stdout = capsys.readouterr().out
    summary = json.loads(stdout)  # nothing but the JSON on stdout
    assert set(summary) == REQUIRED | EXTRA
    assert summary["situation"] == "pb-01" and summary["ruleset"] == "panzerblitz"
    assert summary["games"] == 6 and summary["seed"] == 2
    sides = ["german", "russian"]
    assert list(summary["outcomes"]) == sides and list(summary["policies"]) == sides
    for side in sides:
        o = summary["outcomes"][side]
        assert set(o) == {"win", "ci95", "levels"}
        assert list(o["levels"]) == ["marginal", "tactical", "decisive"]
        assert o["ci95"][0] <= o["win"] <= o["ci95"][1]
        assert o["win"] == pytest.approx(sum(o["levels"].values()))
        assert list(summary["levels_ci95"][side]) == ["marginal", "tactical", "decisive"]
        assert set(summary["policies"][side]) == {"name", "params"}
        assert summary["policies"][side]["name"] == "random"
    assert summary["verdict"]["text"].startswith("between the default random players: ")
    assert summary["verdict"]["band"] in ("balanced", "slight", "clear", "one-sided", "unclear")
    assert sum(summary["outcomes"][s]["win"] for s in sides) + summary["draw"] == pytest.approx(1.0)

    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["games.parquet", "games.csv", "turns.parquet", "turns.csv", "losses.parquet", "losses.csv",
         "summary.json", "report.html", "charts"])
    assert [p.name for p in out.parent.iterdir()] == ["r1"]  # no temporary directory left behind
    assert json.loads((out / "summary.json").read_text()) == summary
    games = pd.read_parquet(out / "games.parquet")
    assert list(games["game"]) == list(range(6))
    assert len(pd.read_csv(out / "games.csv")) == 6
    turns = pd.read_parquet(out / "turns.parquet")
    assert len(turns) == len(pd.read_csv(out / "turns.csv")) and set(turns["game"]) == set(range(6))

    # The losses table agrees with the games table's losses by unit type.
    losses = pd.read_parquet(out / "losses.parquet")
    per_game = losses.groupby(["game", "side"]).size()
    for side in sides:
        counted = games.set_index("game")[f"lost_{side}"]
        assert all(per_game.get((g, side), 0) == k for g, k in counted.items())
    assert set(losses.columns) == {"game", "seed", "side", "unit_type", "hex", "turn"}
    html = (out / "report.html").read_text()
    # Self-contained: no link out (the embedded PNGs' base64 may spell "http" by chance).
    text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", html)
    assert "data:image/png;base64," in html and "http" not in text.replace("http-equiv", "")
    charts = sorted(p.name for p in (out / "charts").iterdir())
    assert charts == sorted(f"{n}.png" for n in ("victory", "measures", "attrition", "decided", "losses_by_type",
                                                "loss_map", "loss_map_board-1", "loss_map_board-2",
                                                "loss_map_board-3", "objectives"))
    # issue 16: folders made with the umask's permissions (022 here: rwxr-xr-x), never drwx------
    import os
    import stat

    mask = os.umask(0)
    os.umask(mask)
    for folder in (out, out / "charts"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o777 & ~mask

    # `balance report` redraws the report from the saved tables alone.
    (out / "report.html").unlink()
    assert main(["report", str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {out / 'report.html'}"
    assert (out / "report.html").read_text() == html
    assert not [p for p in out.iterdir() if p.name.startswith(".")]

    # A second run replaces the first one's files; a directory with other files is left alone.
    assert main(argv[:5] + ["3"] + argv[6:]) == 0
    assert json.loads(capsys.readouterr().out)["seed"] == 3
    assert json.loads((out / "summary.json").read_text())["seed"] == 3
    assert [p.name for p in out.parent.iterdir()] == ["r1"]
    (out / "notes.txt").write_text("mine")
    assert main(argv) == 1
    assert "not replacing it" in capsys.readouterr().err
    assert (out / "notes.txt").exists() and [p.name for p in out.parent.iterdir()] == ["r1"]


def test_readable_table(capsys):
    assert main(["run", "pb-01", "--games", "5", "--policy", "random", "--policy", "russian=random:stay_put=0.5",
                 "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "pb-01 (panzerblitz): 5 games, seed 1" in out
    assert "policies: german=random russian=random:stay_put=0.5" in out  # the parameters changed from the defaults
    assert "95% interval" in out and "decisive" in out and "draw" in out and "mean turns" in out


@pytest.mark.slow
def test_many_heuristic_games_are_the_same_on_one_or_two_workers(sit):
    policies = parse_side_policies([], sit.ruleset.sides)
    one = run(sit, 200, 11, policies, workers=1, progress=False)
    two = run(sit, 200, 11, policies, workers=2, progress=False)
    assert_same_games(one, two)


def test_a_worker_that_cannot_prepare_reports_why_on_its_first_batch(sit, rnd, monkeypatch):
    from simulator import pool_worker

    monkeypatch.setattr(pool_worker, "_WORKER", {})
    pool_worker._init_worker("simulator.no_such_engine", sit, rnd)  # must not raise: that would only break the pool
    with pytest.raises(ModuleNotFoundError, match="no_such_engine"):
        pool_worker._play_batch(0, [1], rnd)


def test_summary_json_puts_intervals_on_one_line_and_keeps_the_content():
    from simulator.summary import summary_json

    summary = {"outcomes": {"german": {"win": 0.5, "ci95": [0.25, 0.75]}}, "draw_ci95": [0.0, 1e-07],
               "overrides": {"units.t-34-c.name": "T-34 [1,2]", "list": ["a", "b"]}, "until_ci": None}
    text = summary_json(summary)
    assert json.loads(text) == summary
    assert '"ci95": [0.25, 0.75]' in text and '"draw_ci95": [0.0, 1e-07]' in text
    assert '"T-34 [1,2]"' in text


def test_pool_workers_return_columns_without_importing_pandas_and_play_the_same_games(sit, rnd):
    from simulator.runner import player_pool
    from tests.core.pool_probe import imported

    one = run(sit, 12, 5, rnd, workers=1, progress=False)
    with player_pool(sit, rnd, workers=2) as pool:
        two = run(sit, 12, 5, rnd, progress=False, pool=pool)
        # the engine's play_batch_columns: the parent makes the tables (simulator/pool_worker.py)
        assert not any(pool.pool.submit(imported, "pandas").result() for _ in range(4))
    assert_same_games(one, two)
