"""What a long command shows on stderr while it works: the start-up, then a progress bar.

Start-up (preparing the situation, and on a first run compiling the rules engine) can take a
minute or two with nothing else to show: `Progress.starting` says what is happening, with a
spinner and the seconds elapsed when stderr is a terminal, or one plain line otherwise.  Then a
one-line bar counts the games; it is drawn only on a terminal, since carriage-return redraws
would litter a log file or a pipe (CI, `2>log`).

Written here rather than taken from a library: it is a few dozen lines.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from typing import TextIO

WIDTH = 30
SPINNER = "|/-\\"

COMPILING = ("compiling the rules engine: the first run after installing or changing it takes half a "
             "minute to a minute; the compiled engine is cached, so later runs start in seconds")


class Progress:
    def __init__(self, enabled: bool = True, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.shown = enabled
        self.enabled = enabled and self.stream.isatty()
        self.start = time.perf_counter()
        self.drawn = False
        self.base: tuple[int, float] | None = None  # (games, time) when the first games came back
        self._phase: threading.Thread | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()

    def starting(self, what: str, compiling: bool) -> None:
        """Say what the start-up is doing until the first games are played (`update`/`close`)."""
        if not self.shown:
            return
        text = f"{what}; {COMPILING}" if compiling else what
        if not self.enabled:
            if compiling:  # a log gets the one line that explains a long silence
                print(f"{text} ...", file=self.stream, flush=True)
            return
        t0 = time.perf_counter()
        if compiling:  # the explanation once, in full; the spinner's line stays within the width
            print(f"{text}.", file=self.stream, flush=True)
            what = f"{what}: compiling"
        width = shutil.get_terminal_size().columns - 12
        line = what if len(what) <= width else what[:width - 3] + "..."

        def spin() -> None:
            k = 0
            while not self._stop.wait(0.25):
                with self._lock:
                    self.stream.write(f"\r{SPINNER[k % 4]} {line} ... {time.perf_counter() - t0:.0f} s ")
                    self.stream.flush()
                    self.drawn = True
                k += 1

        self._stop.clear()
        self._phase = threading.Thread(target=spin, daemon=True)
        self._phase.start()

    def _end_phase(self) -> None:
        if self._phase is not None:
            self._stop.set()
            self._phase.join()
            self._phase = None
            with self._lock:
                if self.drawn:
                    self.stream.write("\n")
                    self.stream.flush()
                    self.drawn = False

    def update(self, done: int, total: int, note: str = "") -> None:
        """Games done of total; `note` follows the bar (`balance tune`: the trial and the best score)."""
        self._end_phase()
        if not self.enabled:
            return
        frac = done / total if total else 1.0
        fill = int(round(WIDTH * frac))
        now = time.perf_counter()
        if self.base is None:
            self.base = (done, now)
        # The rate counts playing only: from the first games back, not from the start-up.
        rate = f"{(done - self.base[0]) / (now - self.base[1]):.1f} games/s" if done > self.base[0] else ""
        self.stream.write(f"\r[{'#' * fill}{'.' * (WIDTH - fill)}] {done}/{total} games  {rate} "
                          + (f" {note}" if note else "") + "\x1b[K")   # clear what a longer line left
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        self._end_phase()
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False
