"""PPA: passive plus partially active replication for correlated failures.

Su & Zhou, *Tolerating Correlated Failures in Massively Parallel Stream Processing Engines*,
ICDE 2016.
"""

__all__: list[str] = []
