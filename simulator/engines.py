"""Which module plays the games of each ruleset.

The runner is the same for every ruleset; the rules engine behind it is not.  An engine module
provides:

- `prepare(situation) -> tables`: everything a process needs to play that situation (built
  once per worker process, may take seconds);
- `play_games(tables, seeds, policies) -> (games, turns, losses)`: one game per seed, as three
  pandas tables (one row a game; one row a game x turn x side; one row a unit lost, with its
  hex and game-turn), every row with `batch_game`, the index of its game in `seeds`.  The
  games table may hold `level_alt` beside `level` (see `Engine.alt_levels`).

and may name a `checks` function, `check(situation) -> list[DataError]`, that loading a
situation calls for the problems only its rules can see (set-up areas too small for their
units, say); it must not import the kernels, so `balance validate` stays quick.

Modules are imported by name only when a ruleset is run, so loading one ruleset never pays
for compiling another's kernels.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from simulator.errors import DataError


@dataclass(frozen=True)
class Engine:
    ruleset: str
    module: str               # import path of the module with prepare / play_games
    levels: tuple[str, ...]   # the victory levels a winner can reach, lowest first
    # The reading behind the games table's optional `level_alt` column: (its dotted key in the
    # ruleset data, its two values, the default); `level_alt` is the winner's level under the
    # value not in force (the summary reports it where it differs from `level`).
    alt_levels: tuple[str, tuple[str, str], str] | None = None
    checks: str = ""          # "module:function" of the ruleset's own checks of a situation

    def load(self) -> ModuleType:
        return importlib.import_module(self.module)

    def check(self, situation) -> list[DataError]:
        if not self.checks:
            return []
        module, name = self.checks.split(":")
        return getattr(importlib.import_module(module), name)(situation)


ENGINES: dict[str, Engine] = {
    "panzerblitz": Engine("panzerblitz", "simulator.panzerblitz.batch", ("marginal", "tactical", "decisive"),
                          ("readings.both_sides_reach_level", ("higher", "difference"), "higher"),
                          checks="simulator.panzerblitz.setup_capacity:check_situation"),
}


def engine_for(ruleset: str, where: str = "") -> Engine:
    """The engine of a ruleset; a DataError naming the rulesets that have one otherwise."""
    try:
        return ENGINES[ruleset]
    except KeyError:
        raise DataError(where or ruleset, "ruleset", f"{ruleset!r} has no rules engine yet",
                        "one of " + ", ".join(ENGINES)) from None
