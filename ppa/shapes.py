"""Reconstructed shapes of the paper's topology figures (Figs 2, 6 and 11 are images).

Each builder documents its reading; rates are uniform (1 per task) unless the figure prints them.
"""

from ppa.topology import FULL, MERGE, ONE_TO_ONE, Topology


def fig2(*, join: bool) -> Topology:
    """Fig 2: t11, t12 (O1) and t21, t22 (O2) feed t31 (O3) with λ11 = 1, λ12 = 2, λ21 = 3,
    λ22 = 2 (the rates of the Section III-A1 example, which give IL31 = 2/5 or 1/4 when t22
    fails); O3 a join when ``join``."""
    return Topology.from_substreams(
        operators={"O1": ["t11", "t12"], "O2": ["t21", "t22"], "O3": ["t31"]},
        joins={"O3"} if join else (),
        rates={("t11", "t31"): 1, ("t12", "t31"): 2, ("t21", "t31"): 3, ("t22", "t31"): 2},
    )


def fig6() -> Topology:
    """Fig 6 (Section VI-A): 16 source tasks; O1-O4 of 8, 4, 2, 1 tasks, each task fed by two
    upstream tasks (merges)."""
    return Topology.partitioned(
        parallelism={"S": 16, "O1": 8, "O2": 4, "O3": 2, "O4": 1},
        edges={("S", "O1"): MERGE, ("O1", "O2"): MERGE, ("O2", "O3"): MERGE, ("O3", "O4"): MERGE},
    )


def q1() -> Topology:
    """Fig 11, Q1 (top-k over the World Cup log): O1 (8 tasks, partial aggregates by server id)
    merge into O2 (4, merges), full into O3 (1, global top-100). Task counts are not printed."""
    return Topology.partitioned(
        parallelism={"O1": 8, "O2": 4, "O3": 1},
        edges={("O1", "O2"): MERGE, ("O2", "O3"): FULL},
    )


def q2() -> Topology:
    """Fig 11, Q2 (incident detection): O1 (4, speed per segment) and O2 (4, distinct incidents)
    one-to-one into the join O3 (4) keyed by road segment, full into O4 (1, aggregate)."""
    return Topology.partitioned(
        parallelism={"O1": 4, "O2": 4, "O3": 4, "O4": 1},
        edges={("O1", "O3"): ONE_TO_ONE, ("O2", "O3"): ONE_TO_ONE, ("O3", "O4"): FULL},
        joins={"O3"},
    )
