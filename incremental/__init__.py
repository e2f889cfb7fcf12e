"""Incremental query-centric recovery from correlated failures.

Su & Zhou, *Incremental Recovery in Distributed Stream Processing Systems*, technical report.
"""

__all__: list[str] = []
