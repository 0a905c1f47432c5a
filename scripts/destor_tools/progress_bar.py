# SPDX-License-Identifier: GPL-3.0-or-later
"""progress_bar: the progress bar with ETA that replay and experiment draw on
stderr while destor replays a trace.

Why it exists: a paper-scale sweep replays for minutes to hours, and both
tools show how far it got the same way; this is that bar, apart from the
code that does the work.
"""

import math
import shutil
import sys
import threading
import time
from typing import TextIO


def format_duration(s: float | None) -> str:
    if s is None or not math.isfinite(s):
        return "--:--"
    s = int(round(s))
    if s >= 3600:
        return "%dh%02dm" % (s // 3600, (s % 3600) // 60)
    return "%d:%02d" % (s // 60, s % 60)


class Progress:
    """A one-line progress bar with ETA on stderr, drawn only when stderr is
    a terminal (or when forced).  Work is counted in arbitrary units (trace
    requests); set_total() may grow the total as runs are added."""

    def __init__(self, total: int, label: str = "", enabled: bool | None = None,
                 stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        if enabled is None:
            enabled = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.enabled = enabled
        self.total = max(total, 1)
        self.done = 0
        self.label = label
        self.start = time.monotonic()
        self.last_draw = 0.0
        self.width = 30
        self.lock = threading.Lock()
        self.drawn = False

    def set_label(self, label: str) -> None:
        self.label = label
        self._draw(force=True)

    def set_total(self, total: int) -> None:
        self.total = max(total, 1)

    def update(self, done: int) -> None:
        with self.lock:
            self.done = min(done, self.total)
        self._draw()

    def advance(self, n: int) -> None:
        self.update(self.done + n)

    def eta(self) -> float | None:
        elapsed = time.monotonic() - self.start
        if self.done <= 0:
            return None
        return elapsed * (self.total - self.done) / self.done

    def _draw(self, force=False):
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self.last_draw < 0.2 and self.done < self.total:
            return
        self.last_draw = now
        frac = self.done / self.total
        filled = int(frac * self.width)
        bar = "#" * filled + "." * (self.width - filled)
        line = "\r[%s] %5.1f%% ETA %s  %s" % (bar, 100 * frac, format_duration(self.eta()), self.label)
        cols = shutil.get_terminal_size((100, 20)).columns
        self.stream.write(line[: cols - 1].ljust(cols - 1))
        self.stream.flush()
        self.drawn = True

    def message(self, text: str) -> None:
        """Print a line above the bar (the bar is redrawn after it)."""
        if self.enabled and self.drawn:
            cols = shutil.get_terminal_size((100, 20)).columns
            self.stream.write("\r" + " " * (cols - 1) + "\r")
        print(text, file=self.stream)
        self._draw(force=True)

    def close(self) -> None:
        if self.enabled and self.drawn:
            self.update(self.total)
            self._draw(force=True)
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False
