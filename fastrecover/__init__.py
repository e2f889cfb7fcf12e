"""FastRecover: segment-wise checkpointing on operator chains and trees.

Yaduvanshi, *FastRecover: Simple and Effective Fault Recovery in a Distributed Operator-Based
Stream Processing Engine*, MS thesis, University of Illinois at Urbana-Champaign, 2016.
Units: minutes and KB.
"""

from fastrecover.baselines import nsegments, one_segment
from fastrecover.chain import Result, optimize_chain
from fastrecover.generate import Attributes, random_chain, random_tree
from fastrecover.model import (
    Configuration,
    Operator,
    Storage,
    Topology,
    chain,
    checkpoint_overheads,
    expected_recovery_time,
    recovery_times,
    total_overhead,
    tree,
)
from fastrecover.rsrfs import redistribute
from fastrecover.simulate import simulate_failures
from fastrecover.tree import optimize_tree, tree_nsegments, tree_one_segment

Chain = chain  # the names: Chain(operators, omega), Tree(operators, parent, omega)
Tree = tree

__all__ = [
    "Attributes",
    "Chain",
    "Configuration",
    "Operator",
    "Result",
    "Storage",
    "Topology",
    "Tree",
    "chain",
    "checkpoint_overheads",
    "expected_recovery_time",
    "nsegments",
    "one_segment",
    "optimize_chain",
    "optimize_tree",
    "random_chain",
    "random_tree",
    "recovery_times",
    "redistribute",
    "simulate_failures",
    "total_overhead",
    "tree",
    "tree_nsegments",
    "tree_one_segment",
]
