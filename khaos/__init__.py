"""Khaos: runtime checkpoint-interval tuning by chaos experiments.

Geldenhuys et al., *Khaos: Dynamically Optimizing Checkpointing for Dependable Distributed Stream
Processing*.
"""

__all__: list[str] = []
