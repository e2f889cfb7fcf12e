"""Optimal multi-level interval-based checkpointing.

Jayasekara, Harwood & Karunasekera, *Optimal Multi-Level Interval-based Checkpointing for
Exascale Stream Processing Systems*.
"""

__all__: list[str] = []
