"""Write an output directory all at once or not at all (`--out DIR` of run, compare, sweep, suggest).

Everything is written into a temporary directory beside the target and renamed into place at
the end, so an interrupted command never leaves a directory with some files from this run and
some from the last (or half a file).  A directory that holds anything besides the files the
command writes is left alone: `--out .` must not replace someone's working directory.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from simulator.errors import DataError


def write_directory(out: Path, files: tuple[str, ...], made_by: str, fill: Callable[[Path], None]) -> Path:
    """Call `fill(tmp)` to write `files` into a fresh directory, then put it in place of `out`.

    `made_by` names the command (for the refusal message when `out` holds other files).
    """
    out = Path(out)
    if out.exists():
        if not out.is_dir():
            raise DataError(str(out), "--out", "exists and is not a directory", "a directory to write into")
        others = sorted(p.name for p in out.iterdir() if p.name not in files)
        if others:
            raise DataError(str(out), "--out", f"holds other files ({', '.join(others[:3])}); not replacing it",
                            f"a new directory, or one written by an earlier `{made_by}`")
    parent = out.absolute().parent
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=parent))
    old: Path | None = None
    try:
        fill(tmp)
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
