"""A running notebook's sweep progress: one line redrawn on a terminal, a plain line in a log.

A sweep draws its tqdm bar on the kernel's stderr, which papermill hands to the runner chunk by
chunk as the notebook runs (its ``stderr_file``). ``ProgressLine`` is that file: it reads the
latest bar out of the chunks and shows the bar's name, runs done/total, elapsed time and ETA. It
needs nothing from the sweep but tqdm's standard text, so any tqdm bar in a notebook shows up.
On a terminal (``live``) it redraws one line in place; otherwise (a log, a pipe) it prints a
plain line when a bar first shows, then at most every ``every`` seconds, and its last state.
"""

import re
import shutil
import time
from dataclasses import dataclass
from typing import TextIO

# tqdm's default format: "desc: 45%|████▌     | 45/100 [00:10<00:12,  4.50run/s]". The ETA
# must be followed by "," or "]", so a bar cut between two chunks is not read half-way.
_BAR = re.compile(
    r"(?:(?P<desc>[^\r\n]*?): )?\s*\d+%\|[^|\r\n]*\| (?P<done>\d+)/(?P<total>\d+) "
    r"\[(?P<elapsed>[\d:]+)<(?P<eta>[\d:?]+)[,\]]"
)
_KEEP = 4096  # characters of stderr kept: enough for a few redraws of one bar


@dataclass(frozen=True)
class BarState:
    desc: str
    done: int
    total: int
    elapsed: str
    eta: str

    def text(self) -> str:
        name = f"{self.desc}: " if self.desc else ""
        return f"{name}{self.done}/{self.total} done, {self.elapsed} elapsed, ETA {self.eta}"


def last_bar(text: str) -> BarState | None:
    """The last complete tqdm bar drawn in ``text``, or None."""
    matches = list(_BAR.finditer(text))
    if not matches:
        return None
    found = matches[-1]
    return BarState(
        (found["desc"] or "").strip(),
        int(found["done"]),
        int(found["total"]),
        found["elapsed"],
        found["eta"],
    )


class ProgressLine:
    """A write-only file for a kernel's stderr that shows its progress bar on ``out``."""

    def __init__(self, label: str, out: TextIO, *, live: bool = True, every: float = 30.0):
        self.label, self.out, self.live, self.every = label, out, live, every
        self._seen = ""
        self._shown: BarState | None = None  # the last state read
        self._printed: BarState | None = None  # the last state printed as a plain line
        self._printed_at = -float("inf")

    def write(self, chunk: str) -> int:
        self._seen = (self._seen + chunk)[-_KEEP:]
        state = last_bar(self._seen)
        if state is None or state == self._shown:
            return len(chunk)
        self._shown = state
        line = f"  {self.label} · {state.text()}"
        if self.live:
            width = shutil.get_terminal_size().columns - 1
            # \r and "erase line": redraw in place rather than scroll.
            self.out.write("\r\x1b[K" + line[:width])
            self.out.flush()
        elif time.monotonic() - self._printed_at >= self.every:
            self._print(state)
        return len(chunk)

    def _print(self, state: BarState) -> None:
        self.out.write(f"  {self.label} · {state.text()}\n")
        self.out.flush()
        self._printed, self._printed_at = state, time.monotonic()

    def flush(self) -> None:
        pass

    def close(self) -> None:
        """Erase the live line, so the runner's next message starts on a clean one; in a log,
        print the last state if it was not printed."""
        if self._shown is None:
            return
        if self.live:
            self.out.write("\r\x1b[K")
            self.out.flush()
        elif self._printed != self._shown:
            self._print(self._shown)
