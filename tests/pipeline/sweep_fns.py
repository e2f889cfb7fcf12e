"""Sweep functions for the pipeline tests, shipped to Spark workers by value."""

import os
import sys
from pathlib import Path

from pyspark import cloudpickle


def draws(params, rng):
    """A few random numbers that depend on the seed and the parameters."""
    return {"u": float(rng.random()), "z": float(rng.normal(params["mu"], 1.0))}


def several_rows(params, rng):
    return [{"k": k, "x": float(rng.random())} for k in range(params["rows"])]


def logged(params, rng):
    """Appends the point it computed to a log; fails while the point's 'fail_flag' file exists."""
    with open(params["log"], "a") as log:
        log.write(f"{params['mu']}\n")
    if params.get("fail_flag") and Path(params["fail_flag"]).exists():
        raise RuntimeError(f"deliberate failure at mu={params['mu']}")
    return draws(params, rng)


def failing(params, rng):
    raise ValueError("lam must be > 0")


def clashing(params, rng):
    return {"mu": 1.0}


def busy(params, rng):
    """CPU-bound work for the speed-up benchmark (about 0.1 s per call)."""
    total = 0.0
    for _ in range(params["repeats"]):
        total += float(rng.standard_normal(200_000).sum())
    return {"total": total, "pid": os.getpid()}


def trivial(params, rng):
    return {"x": params["i"]}


cloudpickle.register_pickle_by_value(sys.modules[__name__])


class _Cycle:
    """A reference cycle a sweep function leaves behind: garbage only a collection frees."""

    def __init__(self):
        self.me = self


def leaves_a_cycle(params, rng):
    import weakref

    LEFT.append(weakref.ref(_Cycle()))
    return {"x": 1.0}


LEFT: list = []  # weak references to the cycles leaves_a_cycle dropped
