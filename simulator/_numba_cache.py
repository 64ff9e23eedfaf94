"""Point numba's on-disk cache at a folder named after a hash of the engine's source.

numba re-compiles a cached function when its own file changes, but not when a function it
calls from another module does, so a stale cache can silently run old rules.  Keying the
cache folder on every kernel source file (the files with @njit functions, and jit.py) avoids that, and edits
to the command line, runner or reports do not force a recompile.  An explicit NUMBA_CACHE_DIR wins.
Must run before numba is imported (simulator/__init__.py and policies/__init__.py do it).

Inside that folder numba's own locator (`UserProvidedCacheLocator`) files a kernel under
`<source folder name>_<sha1 of the source folder's absolute path>`, and its index checks a stamp
of the source file (numba 0.68: a hash of its bytes; older releases: its mtime and size).  The
absolute path makes a clone at another path, a CI checkout or a moved worktree miss every entry
although the sources, and so the folder above, are the same.  `CheckoutCacheLocator` names the
subfolder after the source folder's path *inside the checkout* (`simulator_rulesets_panzerblitz`) and
stamps with the file's bytes, so any checkout of the same kernel sources on the machine (or a
cache directory copied to another machine with the same CPU and numba) loads the compiled
kernels instead of compiling them.  It is switched on through numba's NUMBA_CACHE_LOCATOR_CLASSES
(read when numba is imported), with numba's own locators after it for files outside the
checkout; a NUMBA_CACHE_LOCATOR_CLASSES set by the user wins.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCATORS = ("simulator._numba_cache.CheckoutCacheLocator,"
            "UserProvidedCacheLocator,InTreeCacheLocator,UserWideCacheLocator")


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
    os.environ.setdefault("NUMBA_CACHE_LOCATOR_CLASSES", LOCATORS)
    config = sys.modules.get("numba.core.config")
    if config is not None and not getattr(config, "CACHE_LOCATOR_CLASSES", None):
        # numba was imported first (it reads its settings once): tell it directly.
        config.CACHE_LOCATOR_CLASSES = os.environ["NUMBA_CACHE_LOCATOR_CLASSES"]
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    base = os.environ.get("BALANCE_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache"), "wargame-balance")
    os.environ["NUMBA_CACHE_DIR"] = str(Path(base) / "numba" / source_hash())


def checkout_subfolder(py_file: str | Path) -> str | None:
    """The cache subfolder of a kernel file inside this checkout (its folder's path relative to
    the checkout, parts joined by '_', e.g. 'simulator_rulesets_panzerblitz'); None outside it."""
    try:
        rel = Path(py_file).resolve().parent.relative_to(ROOT)
    except ValueError:
        return None
    return "_".join(("checkout",) + rel.parts)


def kernels_cached(kernel_file: Path, function: str) -> bool:
    """Whether numba's cache holds `function` of `kernel_file` (a ruleset's compiled game) for this
    checkout's sources (the subfolder `CheckoutCacheLocator` gives the kernel file): if not, the
    first game compiles the engine, which takes half a minute to a minute.  A guess for telling the user,
    no more."""
    base = os.environ.get("NUMBA_CACHE_DIR")
    sub = checkout_subfolder(kernel_file)
    if not base or sub is None:
        return False
    return any((Path(base) / sub).glob(f"{kernel_file.stem}.{function}-*.nbi"))


@functools.cache
def _file_hash(path: str, mtime_ns: int, size: int) -> str:
    # mtime and size in the key only so that a file edited while the process runs is hashed again.
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def _locator_class():
    # Built on first use: importing numba here would slow `import simulator` for pure-Python users.
    from numba.core import caching, config

    class CheckoutCacheLocator(caching.UserProvidedCacheLocator):
        """numba's NUMBA_CACHE_DIR locator, with the subfolder named by the path inside the
        checkout and the stamp a hash of the source's bytes (not its path or mtime)."""

        def __init__(self, py_func, py_file):
            super().__init__(py_func, py_file)
            self._cache_path = os.path.join(config.CACHE_DIR, checkout_subfolder(py_file))

        def get_source_stamp(self):
            st = os.stat(self._py_file)
            return _file_hash(self._py_file, st.st_mtime_ns, st.st_size)

        @classmethod
        def from_function(cls, py_func, py_file):
            if not config.CACHE_DIR or checkout_subfolder(py_file) is None:
                return None  # numba's next locator
            return super().from_function(py_func, py_file)

    return CheckoutCacheLocator


def __getattr__(name):
    # numba imports the class named in NUMBA_CACHE_LOCATOR_CLASSES by attribute.
    if name == "CheckoutCacheLocator":
        cls = _locator_class()
        globals()[name] = cls
        return cls
    raise AttributeError(name)
