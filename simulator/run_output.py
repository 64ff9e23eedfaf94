"""Write a run's tables and summary into a directory, all at once or not at all.

Everything is written into a temporary directory beside the target and renamed into place at
the end, so an interrupted run never leaves a directory with some files from this run and
some from the last (or half a Parquet file).  A directory that holds anything besides these
files is left alone: `--out .` must not replace someone's working directory.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from simulator.errors import DataError
from simulator.runner import RunResult
from simulator.summary import summary_json

FILES = ("games.parquet", "games.csv", "turns.parquet", "turns.csv", "summary.json")


def write_run(result: RunResult, out: Path) -> Path:
    out = Path(out)
    if out.exists():
        if not out.is_dir():
            raise DataError(str(out), "--out", "exists and is not a directory", "a directory to write the run into")
        others = sorted(p.name for p in out.iterdir() if p.name not in FILES)
        if others:
            raise DataError(str(out), "--out", f"holds other files ({', '.join(others[:3])}); not replacing it",
                            "a new directory, or one written by an earlier `balance run`")
    parent = out.absolute().parent
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=parent))
    old: Path | None = None
    try:
        result.games.to_parquet(tmp / "games.parquet", index=False)
        result.games.to_csv(tmp / "games.csv", index=False)
        result.turns.to_parquet(tmp / "turns.parquet", index=False)
        result.turns.to_csv(tmp / "turns.csv", index=False)
        (tmp / "summary.json").write_text(summary_json(result.summary) + "\n")
        if out.exists():  # an earlier run's files: moved aside, replaced, then deleted
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=parent))
            os.replace(out, old / out.name)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if old is not None and not out.exists() and (old / out.name).exists():
            os.replace(old / out.name, out)  # put the earlier run back
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    return out
