"""FastRecover: segment-wise checkpointing on operator chains and trees.

Yaduvanshi, *FastRecover: Simple and Effective Fault Recovery in a Distributed Operator-Based
Stream Processing Engine*, MS thesis, University of Illinois at Urbana-Champaign, 2016.
Units: minutes and KB.
"""

from fastrecover.baselines import nsegments, one_segment
from fastrecover.chain import optimize_chain
from fastrecover.generate import random_chain, random_tree
from fastrecover.model import (
    Operator,
    Storage,
    Topology,
    chain,
    checkpoint_overheads,
    expected_recovery_time,
    recovery_times,
    tree,
)
from fastrecover.rsrfs import redistribute
from fastrecover.simulate import simulate_failures
from fastrecover.tree import optimize_tree, tree_nsegments, tree_one_segment

__all__ = [
    # the model (Chapter 3): operators, topologies, the storage overhead Δ, overhead and RT
    "Operator",
    "Storage",
    "Topology",
    "chain",
    "tree",
    "checkpoint_overheads",
    "recovery_times",
    "expected_recovery_time",
    # the algorithms: Algorithms 1-2, Section 3.3's RSRFS step, the baselines
    "optimize_chain",
    "optimize_tree",
    "redistribute",
    "nsegments",
    "one_segment",
    "tree_nsegments",
    "tree_one_segment",
    # the experiments (Chapter 4): random topologies, simulated failures; sweep points in
    # fastrecover.experiments, defaults in fastrecover.settings
    "random_chain",
    "random_tree",
    "simulate_failures",
]
