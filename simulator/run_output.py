"""Write a run's tables and summary into a directory, all at once or not at all (simulator/outdir.py)."""

from __future__ import annotations

from pathlib import Path

from simulator.outdir import write_directory
from simulator.runner import RunResult
from simulator.summary import summary_json

FILES = ("games.parquet", "games.csv", "turns.parquet", "turns.csv", "summary.json")


def write_run(result: RunResult, out: Path) -> Path:
    def fill(tmp: Path) -> None:
        result.games.to_parquet(tmp / "games.parquet", index=False)
        result.games.to_csv(tmp / "games.csv", index=False)
        result.turns.to_parquet(tmp / "turns.parquet", index=False)
        result.turns.to_csv(tmp / "turns.csv", index=False)
        (tmp / "summary.json").write_text(summary_json(result.summary) + "\n")

    return write_directory(out, FILES, "balance run", fill)
