"""The discrete-event clock: a heap of timed callbacks, ties broken by scheduling order."""

import itertools
import math
from heapq import heappop, heappush


class Clock:
    """``heap`` holds ``(time, order, callback, args)``; the engine's hot paths push onto it
    directly (``heappush(clock.heap, (time, next(clock.order), callback, args))``), as ``at``
    does, to save a call per event."""

    def __init__(self):
        self.now = 0.0
        self.heap: list = []
        self.order = itertools.count()  # scheduling order: breaks ties in time

    def at(self, time: float, callback, *args) -> None:
        heappush(self.heap, (time, next(self.order), callback, args))

    def run(self, until: float = math.inf) -> None:
        """Fire events in time order until none is left or the next is later than ``until``."""
        heap, pop = self.heap, heappop
        while heap and heap[0][0] <= until:
            time, _, callback, args = pop(heap)
            self.now = time
            callback(*args)
