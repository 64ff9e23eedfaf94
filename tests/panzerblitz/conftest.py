"""Fixtures of the PanzerBlitz tests (the shared boards and helpers are in tests/conftest.py)."""

from __future__ import annotations

import pytest

from simulator.rulesets.panzerblitz.tables import build_tables
from simulator.situation import load_situation
from tests.panzerblitz import pb_players


@pytest.fixture(scope="module")
def tables_of():
    """`tables_of(situation id)`: the situation's tables, built once per test module."""
    cache = {}

    def get(sid):
        if sid not in cache:
            cache[sid] = build_tables(load_situation(sid))
        return cache[sid]
    return get


@pytest.fixture(autouse=True)
def _players_stream_from_seed_0():
    """Each test's `pb_players` start the players' stream from seed 0 until it calls `seed_game`
    (no test inherits the seed of the one before)."""
    pb_players._SEED[0] = 0
