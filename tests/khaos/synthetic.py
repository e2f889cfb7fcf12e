"""Synthetic runs with a known outage and catch-up drain, for the detector's tests."""

import numpy as np
import pandas as pd

RATE = 1000.0  # events/s
LAG = 100.0  # normal consumer lag, events


def noise_run(seconds: int, rng: np.random.Generator, start: int = 1) -> pd.DataFrame:
    """Throughput and lag as independent Gaussian noise around constant levels."""
    return pd.DataFrame(
        {
            "thr": RATE + rng.normal(0, 20, seconds),
            "con": LAG + rng.normal(0, 10, seconds),
            "lat": 500 + rng.normal(0, 20, seconds),
        },
        index=pd.RangeIndex(start, start + seconds, name="second"),
    )


def outage_run(
    rng: np.random.Generator, failure: int = 2000, drain: int = 150, k: float = 8.0
) -> pd.DataFrame:
    """A noise run whose job stops at ``failure`` (offset) for 5 s: the lag jumps by k * RATE and
    drains linearly back to normal over ``drain`` s, throughput running above the rate meanwhile.
    The true recovery is ``drain`` s."""
    run = noise_run(4000, rng)
    thr, con = run["thr"].to_numpy(), run["con"].to_numpy()
    thr[failure : failure + 5] = 0.0
    jump = k * RATE
    ramp = jump * (1 - np.arange(drain) / drain)
    con[failure : failure + drain] += ramp
    thr[failure + 5 : failure + drain] += jump / (drain - 5)
    return run
