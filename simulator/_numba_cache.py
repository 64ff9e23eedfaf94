"""Point numba's on-disk cache at a folder named after a hash of the engine's source.

numba re-compiles a cached function when its own file changes, but not when a function it
calls from another module does, so a stale cache can silently run old rules.  Keying the
cache folder on every kernel source file (the files with @njit functions, and jit.py) avoids that, and edits
to the command line, runner or reports do not force a recompile.  An explicit NUMBA_CACHE_DIR wins.
Must run before numba is imported (simulator/__init__.py and policies/__init__.py do it).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def source_hash() -> str:
    h = hashlib.sha1()
    for pkg in ("simulator", "policies"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            text = path.read_bytes()
            if b"@njit" not in text and path.name != "jit.py":  # jit.py: how kernels compile
                continue
            h.update(path.relative_to(ROOT).as_posix().encode())
            h.update(text)
    return h.hexdigest()[:12]


def configure() -> None:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    base = os.environ.get("BALANCE_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache"), "wargame-balance")
    os.environ["NUMBA_CACHE_DIR"] = str(Path(base) / "numba" / source_hash())


def kernels_cached(kernel_file: Path, function: str) -> bool:
    """Whether numba's cache holds `function` of `kernel_file` (a ruleset's compiled game) for this
    checkout (the folder numba keys on the kernel file's directory, as numba's own cache locator
    names it): if not, the first game compiles the engine, which takes a minute or two.  A guess
    for telling the user, no more."""
    base = os.environ.get("NUMBA_CACHE_DIR")
    if not base:
        return False
    folder = kernel_file.resolve().parent
    sub = f"{folder.name}_{hashlib.sha1(str(folder).encode()).hexdigest()}"
    return any((Path(base) / sub).glob(f"{kernel_file.stem}.{function}-*.nbi"))
