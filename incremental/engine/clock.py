"""The discrete-event clock: a heap of timed callbacks, ties broken by scheduling order."""

import math
from heapq import heappop, heappush


class Clock:
    def __init__(self):
        self.now = 0.0
        self._heap: list = []
        self._count = 0

    def at(self, time: float, callback, *args) -> None:
        self._count += 1
        heappush(self._heap, (time, self._count, callback, args))

    def run(self, until: float = math.inf) -> None:
        """Fire events in time order until none is left or the next is later than ``until``."""
        heap = self._heap
        while heap and heap[0][0] <= until:
            time, _, callback, args = heappop(heap)
            self.now = time
            callback(*args)
