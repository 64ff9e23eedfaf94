"""The ruleset boundary holds (issue 17): a ruleset the core has never heard of, the toy hex race
of tests/toy_ruleset, plays through `balance run` (workers and --until-ci), the summary,
report.html with its own map, `compare`, `sweep`, `replay`, `show` and a Dask LocalCluster, with
its own situation format, victory levels, results schema and players; and a whole session of it
imports no PanzerBlitz module."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from simulator import registry
from simulator.cli import main
from simulator.errors import DataError, DataErrors
from simulator.runner import run
from simulator.situation import check_file, load_situation
from tests.toy_ruleset import NAME, SITUATION, register

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def toy():
    register()
    yield load_situation(SITUATION)
    registry.unregister(NAME)


@pytest.fixture(scope="module")
def runners(toy):
    return registry.ruleset(NAME).players.parse(None, toy.side_names)


def test_the_toy_is_read_by_its_own_schema(toy, tmp_path):
    assert type(toy).__name__ == "RaceSituation" and toy.side_names == ("red", "blue")
    assert registry.ruleset(NAME).players.names() == ("random", "runner")
    assert registry.ruleset(NAME).players.defaults("runner") == {"dawdle": 0.1}
    pb = registry.ruleset("panzerblitz").players
    assert pb.names() == ("random", "heuristic") and pb.defaults("random") == {"hold_fire": 0.25, "stay_put": 0.1}
    assert toy.map.labels[toy.goal["red"]] == "0905" and toy.map.n_hexes == 45
    bad = tmp_path / "bad.toml"
    bad.write_text(SITUATION.read_text().replace('first = "red"', 'first = "green"').replace('goal = "0901"', 'goal = "0503"')
                   + "\nweather = \"rain\"\n")
    lines = [e.line() for e in check_file(bad)]
    assert any("weather: unknown key" in x for x in lines)
    assert any("first: got 'green' (expected one of ['red', 'blue'])" in x for x in lines)
    assert any("runner[1].goal: 0503 is water" in x for x in lines)


def test_run_until_ci_summary_and_report_with_its_own_map(toy, runners, tmp_path):
    res = run(toy, None, 1, runners, workers=1, progress=False, until_ci=0.06, max_games=2000)
    s = res.summary
    assert s["ruleset"] == NAME and s["until_ci"]["reached"] and s["games"] >= 200
    assert list(s["outcomes"]["red"]["levels"]) == ["narrow", "clear"]
    assert s["outcomes"]["red"]["win"] > s["outcomes"]["blue"]["win"]  # running first pays
    assert s["goals"] == {"red": "0905", "blue": "0901"} and "victory" not in s and "sets_up_first" not in s
    assert set(res.events.columns) == {"game", "seed", "side", "hex", "turn"}
    from simulator.run_output import write_run

    out, failed = write_run(res, tmp_path / "race", toy)
    assert failed == {}
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["games.parquet", "games.csv", "turns.parquet", "turns.csv", "stumbles.parquet", "stumbles.csv",
         "summary.json", "report.html", "charts"])
    charts = sorted(p.name for p in (out / "charts").iterdir())
    # what the schema has columns for, and no more: no decided turn, losses by type or objectives
    assert charts == ["attrition.png", "loss_map.png", "measures.png", "victory.png"]
    html = (out / "report.html").read_text()
    assert "Where runners stumbled" in html and "Red: first to reach 0905" in html and "<th>clear</th>" in html
    assert "The first runner home wins" in html and "forts" not in html and "PB-VIC" not in html
    assert main(["report", str(out)]) == 0  # redrawn from the saved tables, table names from the ruleset


def test_workers_and_dask_play_the_same_races(toy, runners):
    one = run(toy, 40, 5, runners, workers=1, progress=False)
    two = run(toy, 40, 5, runners, workers=2, progress=False, batch_size=7)  # spawned processes
    dask = run(toy, 40, 5, runners, progress=False, cluster="local:2")
    for other in (two, dask):
        assert_frame_equal(one.games, other.games)
        assert_frame_equal(one.turns, other.turns)
        assert_frame_equal(one.events, other.events)


def test_compare_sweep_suggest_replay_show_through_the_cli(toy, tmp_path, capsys):
    path = str(SITUATION)
    assert main(["compare", path, "--games", "300", "--workers", "1", "--json",
                 "--variant", "muddy:race.mud_cost=3", "--variant", "short:situation.turns=3"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result["variants"]) == {"muddy", "short"} and result["sides"] == ["red", "blue"]
    assert result["variants"]["short"]["sides"]["red"]["change"] < 0  # fewer turns: more draws
    assert main(["sweep", path, "--games", "150", "--workers", "1", "--param", "situation.turns",
                 "--values", "2,4,6", "--out", str(tmp_path / "sweep")]) == 0
    assert (tmp_path / "sweep" / "report.html").exists() and "balance point" in capsys.readouterr().out
    assert main(["suggest", path, "--games", "100", "--workers", "1", "--confirm", "1", "--json",
                 "--levers", "turns,threshold"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert {c["key"] for c in r["screening"]} >= {"situation.turns", "race.clear_margin"}
    assert main(["replay", path, "--seed", "3", "--maps", str(tmp_path / "maps")]) == 0
    out = capsys.readouterr().out
    assert "== turn 1 ==" in out and "rolls" in out and "wrote" in out
    assert sorted(p.name for p in (tmp_path / "maps").iterdir())[0] == "race-01-seed3-turn01.png"
    assert main(["show", path, "--out", str(tmp_path / "race.png")]) == 0
    assert main(["los", path]) == 1
    assert "'hex-race' has no line of sight" in capsys.readouterr().err


def test_a_batch_that_breaks_the_results_schema_is_named(toy, runners, monkeypatch):
    from tests.toy_ruleset import engine

    real = engine.play_games
    run(toy, 3, 1, runners, workers=1, progress=False)   # a good batch's columns are known first

    def renamed(t, seeds, players):
        g, tt, ev = real(t, seeds, players)
        return g.rename(columns={"level_red": "level_rouge"}), tt, ev

    monkeypatch.setattr(engine, "play_games", renamed)
    with pytest.raises(DataError) as err:
        run(toy, 3, 1, runners, workers=1, progress=False)
    assert err.value.file == "ruleset hex-race (its results schema)" and err.value.field == "games.level_rouge"
    with pytest.raises(DataError):   # the check of a column set is kept only when it passed (results._check_columns)
        run(toy, 3, 1, runners, workers=1, progress=False)

    def retyped(t, seeds, players):
        g, tt, ev = real(t, seeds, players)
        return g, tt.assign(progress=tt["progress"].astype(str)), ev

    monkeypatch.setattr(engine, "play_games", retyped)
    with pytest.raises(DataError, match="has dtype") as err:
        run(toy, 3, 1, runners, workers=1, progress=False)
    assert err.value.field == "turns.progress" and "int: hexes run toward the goal" in err.value.line()


def test_an_unregistered_ruleset_is_named(tmp_path):
    doc = tmp_path / "chess.toml"
    doc.write_text('id = "c"\ntitle = "c"\nruleset = "chess"\nturns = 3\n')
    with pytest.raises(DataErrors) as err:
        load_situation(doc)
    assert "unknown ruleset 'chess'" in err.value.errors[-1].line()
    assert "panzerblitz-v2" in err.value.errors[-1].line()          # every ruleset has its engine now
    assert "no engine yet" not in err.value.errors[-1].line()


SESSION = """
import sys, json
from tests.toy_ruleset import register, SITUATION
register()
from simulator.cli import main
out = sys.argv[1]
path = str(SITUATION)
steps = [
    ["validate", path],
    ["run", path, "--games", "60", "--workers", "1", "--out", out + "/run"],
    ["run", path, "--until-ci", "0.1", "--workers", "1", "--json"],
    ["report", out + "/run"],
    ["compare", path, "--games", "40", "--workers", "1", "--variant", "v:race.mud_cost=3", "--out", out + "/cmp"],
    ["sweep", path, "--games", "30", "--workers", "1", "--param", "situation.turns", "--values", "3,5", "--out", out + "/sw"],
    ["replay", path, "--seed", "1", "--maps", out + "/maps"],
    ["show", path, "--out", out + "/map.png"],
]
codes = [main(step) for step in steps]
import simulator.bench, simulator.experiments, simulator.suggest, simulator.sweep, reports.html_report  # the rest of the core
loaded = sorted(m for m in sys.modules if m.startswith("simulator.rulesets."))  # no built-in ruleset
print(json.dumps({"codes": codes, "loaded": loaded}))
"""


def test_a_whole_toy_session_loads_no_panzerblitz_module(tmp_path):
    """Every command on the toy, in a fresh interpreter: no module of PanzerBlitz's rules or
    players (nor of any built-in ruleset) is ever imported (the core reaches a ruleset only through
    the registry)."""
    done = subprocess.run([sys.executable, "-c", SESSION, str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env={"MPLBACKEND": "Agg", **_env()})
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["codes"] == [0] * 8
    assert result["loaded"] == []
    assert (tmp_path / "run" / "report.html").exists() and (tmp_path / "cmp" / "report.html").exists()
    games = pd.read_parquet(tmp_path / "run" / "games.parquet")
    assert len(games) == 60 and set(games["winner"]) <= {"red", "blue", "draw"}


def _env() -> dict:
    import os

    return {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}


def test_the_blunder_audit_is_the_rulesets(toy, capsys):
    assert main(["audit", "pb-01", "--games", "2", "--workers", "1", "--policy", "random"]) == 0
    assert "blunders per game" in capsys.readouterr().out
    assert main(["audit", str(SITUATION), "--games", "2", "--workers", "1"]) == 1
    assert "'hex-race' has no blunder audit" in capsys.readouterr().err
