"""The paper's parameter sets by figure and table (Jayasekara, Harwood & Karunasekera): rates
per day unless stated, checkpoint and restart costs in s. Each function builds the ``System`` of
one row or curve from the values its caption or section gives (cited per function); ``tables``,
the notebooks and the tests read them from here.
"""

from multilevel.utilization import System

# Table 1: λ2 of its rows; Table 2: λ3 and n of its rows; Section 4.3: (n, δ in s) of its cases.
TABLE1_LAMBDA2 = (0.5, 0.75, 1.0, 5.0, 10.0)
TABLE2_LAMBDA3 = (1.0, 0.1, 0.01)
TABLE2_N = (5, 20, 50)
SECTION4_3_CASES = ((1, 0.0), (5, 0.5), (50, 0.5), (500, 0.5))
# Fig. 12: the 3-level DAG simulated against Eq. (13) (rates per day, c = r per level, δ = 0.5 s).
FIG12_LAMBDA = (432.0, 43.2, 8.64)
FIG12_COST = (5.0, 10.0, 20.0)
FIG12_DELTA = 0.5


def table1_system(lam2: float, lam1: float = 50.0, c=(20.0, 50.0), r=(20.0, 50.0)) -> System:
    """A Table 1 process; defaults from its caption: λ1 = 50/day, c1 = r1 = 20 s, c2 = r2 = 50 s."""
    return System.per_day(lam=[lam1, lam2], c=c, r=r)


def table2_system(
    lam3: float,
    n: int,
    lam12=(20.0, 5.0),
    c=(10.0, 20.0, 100.0),
    r=(10.0, 20.0, 100.0),
    delta: float = 0.5,
) -> System:
    """A Table 2 DAG; defaults from Section 6.2: λ1 = 20, λ2 = 5 /day, c = r = (10, 20, 100) s,
    δ = 0.5 s."""
    return System.per_day(lam=[*lam12, lam3], c=c, r=r, n=n, delta=delta)


def table3_system(row) -> System:
    """The 2-level stream model of one Table 3 row: rates per minute, c2 = c̃, c1 = c̃/2
    (Section 7's assumption), r = (r̃1, r̃2), δ = δ̃; c̃ and δ̃ are given in ms."""
    return System.per_minute(
        lam=[row["lambda1_per_min"], row["lambda2_per_min"]],
        c=[row["c_ms"] / 2000, row["c_ms"] / 1000],
        r=[row["r1_s"], row["r2_s"]],
        n=int(row["n"]),
        delta=row["delta_ms"] / 1000,
    )


def section4_3_system(n: int, delta: float, lam=(24.0, 0.4), c=(10.0, 30.0), r=(10.0, 30.0)):
    """Section 4.3's DAG: λ1 = 24, λ2 = 0.4 /day, c1 = r1 = 10 s, c2 = r2 = 30 s."""
    return System.per_day(lam=lam, c=c, r=r, n=n, delta=delta)


def fig12_system(n: int) -> System:
    """Fig. 12's DAG of n operators (FIG12_LAMBDA, FIG12_COST, FIG12_DELTA)."""
    return System.per_day(lam=FIG12_LAMBDA, c=FIG12_COST, r=FIG12_COST, n=n, delta=FIG12_DELTA)


# Fig. 8: U over (T, p1) of Section 4.3's process as a single operator.
FIG8 = section4_3_system(1, 0.0)
