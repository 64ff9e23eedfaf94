"""`balance audit`: play games and count the blunders a veteran would laugh at, per side.

The counting belongs to the ruleset (its interface's `audit` module; PanzerBlitz's is
simulator/rulesets/panzerblitz/audit.py: it reads each game's event log); this module plays the games,
in worker processes like `balance run` (game i is played with `runner.game_seed(seed, i)`, so
the counts depend only on the situation, players, seed and number of games), and puts the
table together.
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pandas as pd

from simulator import registry
from simulator.api import PlayerSpec
from simulator.errors import DataError
from simulator.runner import default_batch_size, default_workers, game_seed
from simulator.situation import Situation

_WORKER: dict = {}


def audit_module(situation: Situation):
    """The situation's ruleset's audit module; a DataError if the ruleset has none."""
    rs = registry.ruleset(situation.ruleset.name, str(situation.path))
    if not getattr(rs, "audit", None):
        raise DataError(str(situation.path), "ruleset", f"{situation.ruleset.name!r} has no blunder audit",
                        "a situation of a ruleset with one, e.g. panzerblitz")
    return importlib.import_module(rs.audit)


def _init(engine: str, audit: str, situation: Situation) -> None:
    # Worker processes know no registry: the modules come by name.
    _WORKER["module"] = importlib.import_module(audit)
    _WORKER["tables"] = importlib.import_module(engine).prepare(situation)


def _batch(first: int, seeds: list[int], policies: dict[str, PlayerSpec], thresholds: dict) -> pd.DataFrame:
    rows = _WORKER["module"].audit_games(_WORKER["tables"], seeds, policies, thresholds)
    rows.insert(0, "game", rows.pop("batch_game") + first)
    return rows


def run_audit(situation: Situation, n_games: int, seed: int, policies: dict[str, PlayerSpec],
              workers: int | None = None, thresholds: dict | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row a game and side, one row a side: totals, means per game, games with any)."""
    if isinstance(n_games, bool) or not isinstance(n_games, int) or n_games < 1:
        raise DataError("balance audit", "--games", f"got {n_games!r}", "a whole number >= 1")
    module = audit_module(situation)
    modules = (registry.ruleset(situation.ruleset.name).engine, module.__name__)
    th = thresholds if thresholds is not None else module.load_thresholds()
    workers = workers or default_workers()
    size = default_batch_size(n_games, workers)
    batches = [(a, [game_seed(seed, i) for i in range(a, min(a + size, n_games))]) for a in range(0, n_games, size)]
    if workers == 1:
        _init(*modules, situation)
        parts = [_batch(first, seeds, policies, th) for first, seeds in batches]
    else:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"), initializer=_init,
                                 initargs=(*modules, situation)) as pool:
            parts = list(pool.map(_batch, *zip(*[(f, s, policies, th) for f, s in batches], strict=True)))
    rows = pd.concat(parts, ignore_index=True)
    return rows, module.summarize_audit(rows)


def format_audit(situation_id: str, summary: pd.DataFrame, counts: tuple[str, ...]) -> str:
    """The per-side table for the terminal: per count, mean per game and games with any."""
    lines = [f"{situation_id}: blunders per game (games with any), {int(summary['games'].iloc[0])} games"]
    head = f"{'count':<26}" + "".join(f"{s + ' (' + p + ')':>30}" for s, p in zip(summary["side"], summary["policy"],
                                                                                     strict=True))
    lines.append(head)
    for c in counts:
        cells = [f"{r[f'{c}_per_game']:.3f} ({r[f'{c}_games']})" for _, r in summary.iterrows()]
        lines.append(f"{c:<26}" + "".join(f"{x:>30}" for x in cells))
    return "\n".join(lines)


def write_csv(table: pd.DataFrame, path: Path) -> Path:
    """Write `table` to `path` through a temporary file in the same folder: never half-written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as fh:
            table.to_csv(fh, index=False)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
