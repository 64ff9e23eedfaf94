"""A one-line progress bar on stderr, drawn only when stderr is a terminal.

Written here rather than taken from a library: it is a dozen lines, and when stderr goes to a
log file or a pipe (CI, `2>log`) carriage-return redraws would only litter it, so it stays
silent there.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 30


class Progress:
    def __init__(self, enabled: bool = True, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled and self.stream.isatty()
        self.start = time.perf_counter()
        self.drawn = False

    def update(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        frac = done / total if total else 1.0
        fill = int(round(WIDTH * frac))
        rate = done / max(time.perf_counter() - self.start, 1e-9)
        self.stream.write(f"\r[{'#' * fill}{'.' * (WIDTH - fill)}] {done}/{total} games  {rate:.1f} games/s ")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False
