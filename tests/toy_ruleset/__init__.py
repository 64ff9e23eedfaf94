"""Hex race: a toy ruleset that proves the ruleset boundary (issue 17).

Two runners race across a nine-by-five hex board, one die roll a turn each; the first to reach
its goal wins, clearly if the other is still far from its own.  It has its own situation format
(schema.py), ruleset data (data/), engine (engine.py: plain Python), players (players.py: a
random one and a runner), victory levels and results schema (ruleset.py) and report hooks
(report.py).  Nothing in the core knows it: the tests register it by name
(`simulator.registry.register(NAME, MODULE)`) and play it through `balance run`, the summary,
report.html, compare, sweep and Dask, checking that no PanzerBlitz module is ever imported.
"""

from __future__ import annotations

from pathlib import Path

NAME = "hex-race"
MODULE = "tests.toy_ruleset.ruleset"
SITUATION = Path(__file__).resolve().parent / "race-01.toml"


def register() -> None:
    from simulator import registry

    registry.register(NAME, MODULE)
