"""The durable source log of one source partition (the Kafka stand-in of Section 4.4).

Records ``(ts, key, value)`` are ingested at their event time ``ts`` and keep their offset for ever;
``trim`` drops those below a global checkpoint's offset (Section 4.2.4), and reading a trimmed
offset raises, so a replay that would need them is caught rather than silently short.
"""


class SourceLog:
    def __init__(self, records):
        self._records = list(records)
        self._base = 0  # offset of self._records[0]

    def __len__(self) -> int:
        return self._base + len(self._records)

    def __getitem__(self, offset: int) -> tuple:
        if offset < self._base:
            raise LookupError(f"offset {offset} was trimmed (log starts at {self._base})")
        return self._records[offset - self._base]

    @property
    def start(self) -> int:
        return self._base

    def trim(self, offset: int) -> None:
        if offset > self._base:
            del self._records[: offset - self._base]
            self._base = offset
