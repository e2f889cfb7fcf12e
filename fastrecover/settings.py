"""The thesis's default settings (Yaduvanshi 2016, Table 4.1, transcribed in
data/paper/fastrecover_defaults.csv): the chain experiments vary one parameter at a time around
``CHAIN``, the tree experiments around ``TREE``. Units: tuples per minute, frequencies per minute.

The generators' Ω, the tree frequency grid's F and F_max and the notebooks' defaults read them
from here; tests/fastrecover/test_settings.py checks them against the transcribed table.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    """One default setting of Table 4.1; ``f``, ``f_max`` for trees only."""

    n: int  # operators
    omega: int  # Ω, input tuples per minute
    ch_max: float  # CH_max, bound on the total checkpointing overhead (share of time)
    z: int  # increments CH_max is discretized into
    f: int | None = None  # increments F_max is discretized into
    f_max: float | None = None  # highest checkpoint frequency per minute

    def point(self) -> dict:
        """The setting as a sweep point of fastrecover.experiments: n, omega, ch_max, z."""
        return {"n": self.n, "omega": self.omega, "ch_max": self.ch_max, "z": self.z}


CHAIN = Setting(n=15, omega=3000, ch_max=0.4, z=60)
TREE = Setting(n=15, omega=1000, ch_max=0.5, z=20, f=100, f_max=200.0)
