"""The naive configurations for any topology: NSegments (every operator an anchor) and 1Segment
(only the source an anchor), each optimized under the same budget grid as FastRecover: chains by
the continuous-frequency DP of Algorithm 1's grid, trees on the (Z, F) grid of Algorithm 2."""

from fastrecover import chain as chains
from fastrecover import tree as trees
from fastrecover.chain import Result
from fastrecover.model import Storage, Topology


def _is_chain(topology: Topology) -> bool:
    return topology.upstream == tuple(range(-1, topology.n - 1))


def nsegments(
    topology: Topology,
    ch_max: float,
    z: int,
    f: int = trees.DEFAULT_F,
    f_max: float = trees.DEFAULT_F_MAX,
    storage: Storage | None = None,
) -> Result:
    """NSegments on a chain (f, f_max unused) or a tree."""
    if _is_chain(topology):
        return chains.nsegments(topology, ch_max, z, storage)
    return trees.tree_nsegments(topology, ch_max, z, f, f_max, storage)


def one_segment(
    topology: Topology,
    ch_max: float,
    z: int,
    f: int = trees.DEFAULT_F,
    f_max: float = trees.DEFAULT_F_MAX,
    storage: Storage | None = None,
) -> Result:
    """1Segment on a chain (f, f_max unused) or a tree."""
    if _is_chain(topology):
        return chains.one_segment(topology, ch_max, z, storage)
    return trees.tree_one_segment(topology, ch_max, z, f, f_max, storage)
