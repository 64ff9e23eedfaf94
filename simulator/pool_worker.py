"""What a worker process of `balance run`'s pool runs (simulator/runner.py starts the pool).

Kept apart from the runner, and without pandas: a worker prepares the situation once and then
plays batches, and where the engine offers `play_batch_columns` (simulator/api.py) it returns
each batch's tables as columns of numpy arrays, which the parent makes into pandas tables.  So
a worker never imports pandas (with pyarrow, ~95 MB of a worker's ~375 MB:
docs/performance.md, "Worker memory").  An engine with only `play_games` works as before.
"""

from __future__ import annotations

import importlib
import time

# State of a worker process: the engine module and its prepared tables, or the error preparing them.
_WORKER: dict = {}


def prepare(module, situation, policies):
    """The situation's tables, and one warm-up game (thrown away) so that loading or compiling
    the engine's kernels is start-up, not the first batch's playing time.  Every game is played
    from its own seed, so the warm-up changes no game of the run."""
    tables = module.prepare(situation)
    play(module, tables, [0], policies)
    return tables


def play(module, tables, seeds: list[int], policies):
    """One batch's (games, turns, events) tables: as columns (dicts of arrays) where the engine
    offers `play_batch_columns`, else as the engine's `play_games` returns them."""
    columns = getattr(module, "play_batch_columns", None)
    return columns(tables, seeds, policies) if columns is not None else module.play_games(tables, seeds, policies)


def _init_worker(module_name: str, situation, policies) -> None:
    try:
        module = importlib.import_module(module_name)
        _WORKER.update(module=module, tables=prepare(module, situation, policies))
    except Exception as exc:  # an initializer that raises only yields "BrokenProcessPool": keep it for the first batch
        _WORKER["error"] = exc


def _play_batch(first: int, seeds: list[int], policies):
    if "error" in _WORKER:
        raise _WORKER["error"]
    t0 = time.perf_counter()
    tables = play(_WORKER["module"], _WORKER["tables"], seeds, policies)
    return first, seeds, tables, time.perf_counter() - t0
