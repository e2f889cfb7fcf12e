"""Hypothesis strategies: small random topologies (DAGs of 2-4 operators of 1-3 tasks) with
random substream rates and random join operators, and a brute-force optimum."""

import itertools

import numpy as np
from hypothesis import strategies as st

from ppa.fidelity import of_batch
from ppa.generate import TopologySpec, random_topology
from ppa.topology import Topology


@st.composite
def topologies(draw, max_operators=4, max_parallelism=3):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    spec = TopologySpec(
        operators=(2, max_operators),
        parallelism=(1, max_parallelism),
        structure=draw(st.sampled_from(["structured", "full"])),
    )
    shape = random_topology(spec, rng)
    # any operator may be a join (a one-input join included); rates anywhere in [0.1, 10]
    joins = [name for name in shape.operators if rng.random() < 0.5]
    rates = {key: float(10 ** rng.uniform(-1, 1)) for key in shape.rates}
    sink_rates = {t: float(10 ** rng.uniform(-1, 1)) for t in shape.sink_rates}
    return Topology.from_substreams(
        operators=shape.operators, joins=joins, rates=rates, sink_rates=sink_rates
    )


def brute_force(topology: Topology, R: int) -> tuple[float, int]:
    """The best OF of a plan of at most R tasks and the fewest tasks reaching it."""
    n = len(topology.tasks)
    plans = [c for k in range(R + 1) for c in itertools.combinations(range(n), k)]
    alive = np.zeros((len(plans), n), dtype=bool)
    for row, plan in enumerate(plans):
        alive[row, list(plan)] = True
    of = of_batch(topology, alive)
    best = of.max()
    return float(best), min(len(p) for p, v in zip(plans, of, strict=True) if v >= best - 1e-9)
