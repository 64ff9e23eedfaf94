"""Issue 20, item 5: the core's tools work for a Panzer Blitz v2.0 card unchanged: `run` on worker
processes and on a Dask LocalCluster plays the same games as in-process, `compare` pairs variants
on the same seeds, `sweep` finds a balance point, `suggest` tries the ruleset's levers, `replay
--debug` checks the invariants, and `bench` times a v2 card."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from pandas.testing import assert_frame_equal

from simulator import registry
from simulator.cli import main
from simulator.runner import run
from simulator.situation import load_situation

HOD3 = str(Path(__file__).resolve().parents[2] / "situations" / "panzerblitz-v2" / "hod-03.toml")


@pytest.fixture(scope="module")
def hod3():
    return load_situation(HOD3)


def test_workers_and_dask_play_the_same_v2_games(hod3):
    players = registry.ruleset("panzerblitz-v2").players.parse(None, hod3.side_names)
    one = run(hod3, 12, 5, players, workers=1, progress=False)
    dask = run(hod3, 12, 5, players, progress=False, cluster="local:2")
    for name in ("games", "turns", "events"):
        assert_frame_equal(getattr(one, name), getattr(dask, name))
    assert set(one.games.winner) <= {"british", "german"}


def test_compare_sweep_suggest_and_debug_replay_through_the_cli(tmp_path, capsys):
    assert main(["compare", HOD3, "--games", "40", "--workers", "1", "--json",
                 "--variant", "green:situation.side.british.efficiency=5"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result["variants"]) == {"green"} and result["sides"] == ["british", "german"]
    assert main(["sweep", HOD3, "--games", "30", "--workers", "1", "--param", "situation.side.british.victory.victory",
                 "--values", "2,4", "--out", str(tmp_path / "sweep")]) == 0
    out = capsys.readouterr().out
    assert (tmp_path / "sweep" / "report.html").exists() and "balance point" in out
    assert main(["suggest", HOD3, "--games", "30", "--workers", "1", "--confirm", "1", "--json",
                 "--levers", "threshold"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert "situation.side.british.victory.victory" in {c["key"] for c in r["screening"]}   # RULESET.levers
    assert main(["replay", HOD3, "--seed", "2", "--policy", "random", "--debug"]) == 0   # no invariant broken
    assert "== turn 1 ==" in capsys.readouterr().out


def test_bench_times_a_v2_card(tmp_path):
    out = tmp_path / "bench.csv"
    assert main(["bench", "--situations", HOD3, "--games", "6", "--workers", "1", "--python-games", "0",
                 "--no-first-result", "--out", str(out)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert rows and {r["situation"] for r in rows} == {HOD3} and float(rows[0]["games_per_s_1w"]) > 0
