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


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def make_public(path: Path, directory: bool = True) -> None:
    """Give a folder or file made private by mkdtemp/mkstemp the permissions of one made by
    mkdir or open (0777 or 0666 less the umask): a report is for reading, not `drwx------`."""
    os.chmod(path, (0o777 if directory else 0o666) & ~_umask())


def _probe(folder: Path, option: str, target: Path) -> None:
    """Create and remove a scratch folder in `folder` (or its nearest existing parent): proof
    that the command will be able to write there, before it spends minutes playing games."""
    existing = folder.absolute()
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise DataError(str(target), option, f"{existing} is a file, not a folder", "a path in a writable folder")
    try:
        Path(tempfile.mkdtemp(prefix=".balance-probe.", dir=existing)).rmdir()
    except OSError as exc:
        raise DataError(str(target), option, f"cannot write in {existing}: {exc.strerror or exc}",
                        "a path in a folder you can write to") from None


def check_output_dir(out: Path, files: tuple[str, ...], made_by: str, option: str = "--out") -> Path:
    """Refuse, before any work, an output folder that `write_directory` could not fill: a file,
    a folder holding other files, or a place this user cannot write to."""
    out = Path(out)
    if out.exists():
        if not out.is_dir():
            raise DataError(str(out), option, "exists and is not a directory", "a directory to write into")
        others = sorted(p.name for p in out.iterdir() if p.name not in files)
        if others:
            raise DataError(str(out), option, f"holds other files ({', '.join(others[:3])}); not replacing it",
                            f"a new directory, or one written by an earlier `{made_by}`")
    _probe(out.absolute().parent, option, out)
    return out


def check_output_file(path: Path, option: str = "--out") -> Path:
    """Refuse, before any work, an output file that cannot be written (a folder, no write access)."""
    path = Path(path)
    if path.is_dir():
        raise DataError(str(path), option, "is a directory", "a file name, e.g. map.png")
    _probe(path.absolute().parent, option, path)
    return path


def check_writable_dir(folder: Path, option: str) -> Path:
    """Refuse, before any work, a folder to write files into that cannot be made or written."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise DataError(str(folder), option, "exists and is not a directory", "a directory to write into")
    _probe(folder, option, folder)
    return folder


def write_directory(out: Path, files: tuple[str, ...], made_by: str, fill: Callable[[Path], None]) -> Path:
    """Call `fill(tmp)` to write `files` into a fresh directory, then put it in place of `out`.

    `made_by` names the command (for the refusal message when `out` holds other files).
    Commands check `out` with `check_output_dir` before their games; it is checked again here,
    as the folder may have changed while they played.
    """
    out = check_output_dir(out, files, made_by)
    parent = out.absolute().parent
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=parent))
    make_public(tmp)
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
