"""Write a run's tables, summary and report into a directory, all at once or not at all.

Everything is written into a temporary directory beside the target and renamed into place at
the end (simulator/outdir.py), so an interrupted run never leaves a directory with some files
from this run and some from the last (or half a Parquet file).  A directory that holds anything
besides these files is left alone: `--out .` must not replace someone's working directory.

`rebuild_report` redraws report.html and charts/ from the saved tables (`balance report DIR`),
without simulating; it too swaps the new report in only once it is complete.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pandas as pd

from simulator import registry
from simulator.errors import DataError
from simulator.outdir import write_directory
from simulator.runner import RunResult
from simulator.summary import summary_json

REPORT = ("report.html", "charts")


def table_names(ruleset: str) -> tuple[str, str, str]:
    """The run's tables (games, turns and the ruleset's events: PanzerBlitz's `losses`)."""
    return tuple(t.name for t in registry.ruleset(ruleset).results.tables())


def run_files(ruleset: str) -> tuple[str, ...]:
    """Every file and folder `balance run --out` writes for a ruleset's situation."""
    return (*(f"{t}.{ext}" for t in table_names(ruleset) for ext in ("parquet", "csv")), "summary.json", *REPORT)


def write_run(result: RunResult, out: Path, situation=None) -> tuple[Path, dict[str, str]]:
    """The run's tables (.parquet and .csv), summary.json, report.html and charts/ in `out`.

    Returns the folder and the report's parts that could not be drawn (name -> why): a chart
    that fails, or the whole report, never loses the tables and summary.json."""
    from reports.html_report import write_report

    failed: dict[str, str] = {}
    names = table_names(result.summary["ruleset"])

    def fill(tmp: Path) -> None:
        for name, table in zip(names, (result.games, result.turns, result.events), strict=True):
            table.to_parquet(tmp / f"{name}.parquet", index=False)
            table.to_csv(tmp / f"{name}.csv", index=False)
        (tmp / "summary.json").write_text(summary_json(result.summary) + "\n")
        try:
            failed.update(write_report(result.games, result.turns, result.events, result.summary, tmp, situation))
        except Exception as exc:  # the report is redrawn with `balance report DIR` once fixed
            failed["report"] = f"{type(exc).__name__}: {exc}"

    return write_directory(out, run_files(result.summary["ruleset"]), "balance run", fill), failed


def read_run(run_dir: Path) -> tuple[dict[str, pd.DataFrame], dict]:
    """The tables (by role: games, turns, events) and summary a run wrote, with errors naming
    the missing or unreadable file."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise DataError(str(run_dir), "DIR", "not a directory", "a directory written by `balance run --out`")
    path = run_dir / "summary.json"
    try:
        summary = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise DataError(str(path), "", f"cannot read: {exc}", "the summary.json `balance run --out` writes") from exc
    for key in ("situation", "ruleset", "outcomes", "draw", "draw_ci95"):
        if key not in summary:
            raise DataError(str(path), key, "missing", "a summary written by `balance run --out`")
    tables = {}
    for role, name in zip(("games", "turns", "events"), table_names(summary["ruleset"]), strict=True):
        path = run_dir / f"{name}.parquet"
        try:
            tables[role] = pd.read_parquet(path)
        except (OSError, ValueError) as exc:
            raise DataError(str(path), "", f"cannot read: {exc}", "the Parquet table `balance run --out` writes") from exc
    return tables, summary


def rebuild_report(run_dir: Path, situation=None, extra: dict | None = None) -> tuple[Path, dict[str, str]]:
    """Redraw report.html and charts/ in `run_dir` from its saved tables; returns the HTML's path
    and the charts that could not be drawn (name -> why).  `extra`: entries the report reads beside
    the saved summary's (an equilibrium run to compare with)."""
    from reports.html_report import write_report

    run_dir = Path(run_dir)
    tables, summary = read_run(run_dir)
    summary = {**summary, **(extra or {})}
    tmp = Path(tempfile.mkdtemp(prefix=".report.", suffix=".tmp", dir=run_dir))
    try:
        failed = write_report(tables["games"], tables["turns"], tables["events"], summary, tmp, situation)
        for name in REPORT:
            target = run_dir / name
            if target.is_dir():
                shutil.rmtree(target)
            os.replace(tmp / name, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return run_dir / "report.html", failed
