"""The external store output partitions write to, idempotent by deterministic tuple id.

A replayed result carries the same lineage uid, so rewriting it is harmless; a rewrite with a
different value is an exactly-once violation and is recorded. The first write of each result
records its output latency (write time minus event time) per output partition: the per-query
latency timeline of Section 7.
"""

from collections import defaultdict


class SinkStore:
    def __init__(self):
        self.results: dict[str, dict] = defaultdict(dict)  # operator -> uid -> (key, ts, value)
        self.latency: dict = defaultdict(list)  # output partition -> [(time, latency)]
        self.conflicts: list = []
        self.rewrites = 0

    def write(self, pid, data: tuple, time: float) -> None:
        uid, key, ts, value = data
        results = self.results[pid[0]]
        row = (key, ts, value)
        known = results.get(uid)
        if known is None:
            results[uid] = row
            self.latency[pid].append((time, time - ts))
        elif known == row:
            self.rewrites += 1
        else:
            self.conflicts.append((time, pid, uid, known, row))
