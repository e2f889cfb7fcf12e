"""Atomic writes: a reader never sees a half-written file (write to a temporary, then rename)."""

import os
from pathlib import Path


def temporary_beside(file: Path) -> Path:
    """A temporary name in the same folder (so the rename is atomic), keeping the suffix."""
    file.parent.mkdir(parents=True, exist_ok=True)
    return file.with_name(f".{file.stem}.{os.getpid()}.tmp{file.suffix}")


def write_text_atomic(file: Path, text: str) -> None:
    tmp = temporary_beside(file)
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, file)
