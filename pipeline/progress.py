"""A running notebook's sweep progress, redrawn on one terminal line.

A sweep draws its tqdm bar on the kernel's stderr, which papermill hands to the runner chunk by
chunk as the notebook runs (its ``stderr_file``). ``ProgressLine`` is that file: it reads the
latest bar out of the chunks and redraws one line with the bar's name, runs done/total, elapsed
time and ETA. It needs nothing from the sweep but tqdm's standard text, so any tqdm bar in a
notebook shows up. The CLI uses it only when stdout is a terminal.
"""

import re
import shutil
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

    def __init__(self, label: str, out: TextIO):
        self.label, self.out = label, out
        self._seen = ""
        self._shown: BarState | None = None

    def write(self, chunk: str) -> int:
        self._seen = (self._seen + chunk)[-_KEEP:]
        state = last_bar(self._seen)
        if state is not None and state != self._shown:
            self._shown = state
            line = f"  {self.label} · {state.text()}"
            width = shutil.get_terminal_size().columns - 1
            # \r and "erase line": redraw in place rather than scroll.
            self.out.write("\r\x1b[K" + line[:width])
            self.out.flush()
        return len(chunk)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        """Erase the line, so the runner's next message starts on a clean one."""
        if self._shown is not None:
            self.out.write("\r\x1b[K")
            self.out.flush()
