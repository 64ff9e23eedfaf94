"""Which module plays the games of each ruleset.

The runner is the same for every ruleset; the rules engine behind it is not.  An engine module
provides:

- `prepare(situation) -> tables`: everything a process needs to play that situation (built
  once per worker process, may take seconds);
- `play_games(tables, seeds, policies) -> (games, turns, losses)`: one game per seed, as three
  pandas tables (one row a game; one row a game x turn x side; one row a unit lost, with its
  hex and game-turn), every row with `batch_game`, the index of its game in `seeds`.  The
  games table may hold `level_alt` beside `level` (see `Engine.alt_levels`).

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

    def load(self) -> ModuleType:
        return importlib.import_module(self.module)


ENGINES: dict[str, Engine] = {
    "panzerblitz": Engine("panzerblitz", "simulator.panzerblitz.batch", ("marginal", "tactical", "decisive"),
                          ("readings.both_sides_reach_level", ("higher", "difference"), "higher")),
}


def engine_for(ruleset: str, where: str = "") -> Engine:
    """The engine of a ruleset; a DataError naming the rulesets that have one otherwise."""
    try:
        return ENGINES[ruleset]
    except KeyError:
        raise DataError(where or ruleset, "ruleset", f"{ruleset!r} has no rules engine yet",
                        "one of " + ", ".join(ENGINES)) from None
