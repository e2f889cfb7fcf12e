"""Random scheduling instances for Fig 16 (Section 7.3).

The paper's generator takes "the number of queries, the size of each query, the distribution of
query priority and the skewness of partition sharing frequency"; all 18 queries have failed, and
panels vary the maximal share frequency (3 or 6), the Zipf skew of share frequencies (s = 0.2 or
0.5) and the priorities (random 1-10, or rising linearly with the query's workload). How that is
read here (choices where the paper is silent are marked):

- A pool of candidate failed partitions (``pool``, not printed) with integer costs, uniform in
  ``cost`` (not printed; integers keep Algorithm 4 applicable), in CPU percent.
- How sharing follows Zipf (``sharing``; Fig 16's caption: "The share frequencies of partitions
  follow Zipfian distribution ... The maximal share frequency of a partition is set as 3 or 6"),
  two readings, both with query sizes uniform in ``query_size`` (not printed):

  ``"cap"`` (default): Zipf's rank-frequency law on popularity; the partition of rank r is drawn
  with weight r^(-s), so a larger s concentrates sharing on fewer partitions (s = 0: uniform).
  Each query draws its size, then that many distinct partitions by popularity among those shared
  by fewer than ``max_share`` queries (the maximal share frequency as a cap). Pool partitions no
  query drew are dropped.

  ``"frequency"``: each partition's share frequency f is itself drawn from P(f) ~ f^(-s) on
  1..``max_share`` (the maximal share frequency the top of the distribution), partitions drawn
  until their frequencies cover the queries' sizes (the last one trimmed); each partition, most
  shared first, joins the f queries with the most open slots (ties at random). ``pool`` is not
  used: the number of partitions follows from the draws. Under this reading doubling the maximal
  share frequency raises the mean share frequency (about 1.9 to 3.2 at s = 0.2), which a cap that
  rarely binds does not.
- Priorities: ``"random"`` uniform integers 1-10; ``"linear"`` 1 + round(9 (C - C_min) /
  (C_max - C_min)), C the sum of the query's partition costs (all 1 when every C is equal).
- ``upstream`` (for OC only): p is upstream of p' when the queries sharing p strictly include
  those sharing p' — the only order consistent with Definition 1 that the instance implies.

The defaults of ``max_share`` and ``zipf_s`` are the first printed value of each; the paper does
not say which value one panel holds while another varies. Under a cap of 3 the cap dominates and
the skew barely shows (tests/incremental/test_fig16.py measures it at 6).
"""

from dataclasses import dataclass

import numpy as np

from incremental.problem import PRIORITY_RANGE, RecoveryProblem

PRIORITIES = ("random", "linear")
SHARING = ("cap", "frequency")


@dataclass(frozen=True, kw_only=True)
class Fig16Setting:
    """One Fig 16 setting (see the module docstring for what is printed and what is chosen)."""

    queries: int = 18  # Section 7.3
    max_share: int = 3  # Fig 16(a): 3 or 6
    zipf_s: float = 0.2  # Fig 16(b): 0.2 or 0.5
    priorities: str = "random"  # Fig 16(c): "random" or "linear"
    sharing: str = "cap"  # not printed: how the caption's Zipf sharing reads (module docstring)
    pool: int = 36  # not printed: two candidate partitions per query
    query_size: tuple[int, int] = (2, 6)  # not printed: failed partitions per query
    cost: tuple[int, int] = (1, 10)  # not printed: integer CPU percent

    def __post_init__(self):
        for name in ("queries", "max_share", "pool"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1; got {value!r}")
        if not 0 <= self.zipf_s < np.inf:
            raise ValueError(f"zipf_s must be a finite number >= 0; got {self.zipf_s!r}")
        if self.priorities not in PRIORITIES:
            raise ValueError(f"priorities must be one of {PRIORITIES}; got {self.priorities!r}")
        if self.sharing not in SHARING:
            raise ValueError(f"sharing must be one of {SHARING}; got {self.sharing!r}")
        lo, hi = self.query_size
        if not 1 <= lo <= hi <= self.pool:
            raise ValueError(f"query_size must be a range within 1..pool; got {self.query_size}")
        if not 1 <= self.cost[0] <= self.cost[1]:
            raise ValueError(f"cost must be a range of integers >= 1; got {self.cost}")
        if self.sharing == "cap" and self.pool * self.max_share < self.queries * hi:
            raise ValueError(
                f"pool * max_share ({self.pool * self.max_share}) must cover queries * "
                f"query_size[1] ({self.queries * hi}) share slots"
            )


def fig16_instance(setting: Fig16Setting, rng: np.random.Generator) -> RecoveryProblem:
    """One random instance of ``setting`` (all its queries failed)."""
    draw = _capped if setting.sharing == "cap" else _by_frequency
    incidence = draw(setting, rng)
    pool = incidence.shape[1]
    costs = rng.integers(setting.cost[0], setting.cost[1] + 1, size=pool)
    if setting.priorities == "random":
        priorities = rng.integers(PRIORITY_RANGE[0], PRIORITY_RANGE[1] + 1, size=setting.queries)
    else:
        load = incidence @ costs
        span = load.max() - load.min()
        scaled = (load - load.min()) / span if span else np.zeros(load.size)
        priorities = 1 + np.round((PRIORITY_RANGE[1] - 1) * scaled).astype(np.int64)
    used = np.flatnonzero(incidence.any(axis=0))
    names = {int(p): f"p{p}" for p in used}
    sharing = [frozenset(np.flatnonzero(incidence[:, p]).tolist()) for p in range(pool)]
    return RecoveryProblem(
        costs={names[p]: int(costs[p]) for p in names},
        queries={
            f"q{i}": (frozenset(names[p] for p in np.flatnonzero(row)), int(priorities[i]))
            for i, row in enumerate(incidence)
        },
        upstream={
            names[p]: frozenset(names[a] for a in names if sharing[a] > sharing[p]) for p in names
        },
    )


def _capped(setting: Fig16Setting, rng: np.random.Generator) -> np.ndarray:
    """Queries x partitions incidence, ``sharing="cap"``: Zipf popularity under a cap."""
    weights = np.arange(1, setting.pool + 1, dtype=float) ** -setting.zipf_s
    shares = np.zeros(setting.pool, dtype=np.int64)
    members = []
    for _ in range(setting.queries):
        size = rng.integers(setting.query_size[0], setting.query_size[1] + 1)
        chosen = np.zeros(setting.pool, dtype=bool)
        for _ in range(size):
            open_ = (shares < setting.max_share) & ~chosen
            if not open_.any():
                break
            p = rng.choice(setting.pool, p=weights * open_ / (weights * open_).sum())
            chosen[p] = True
            shares[p] += 1
        members.append(chosen)
    return np.array(members)


def _by_frequency(setting: Fig16Setting, rng: np.random.Generator) -> np.ndarray:
    """Queries x partitions incidence, ``sharing="frequency"``: share frequencies drawn from
    Zipf on 1..max_share, dealt to the queries with the most open slots."""
    sizes = rng.integers(setting.query_size[0], setting.query_size[1] + 1, size=setting.queries)
    values = np.arange(1, setting.max_share + 1)
    weights = values**-setting.zipf_s / (values**-setting.zipf_s).sum()
    freq = []
    while sum(freq) < sizes.sum():
        freq.append(int(rng.choice(values, p=weights)))
    freq[-1] -= sum(freq) - int(sizes.sum())
    freq = sorted((f for f in freq if f > 0), reverse=True)
    incidence = np.zeros((setting.queries, len(freq)), dtype=bool)
    left = sizes.copy()
    for p, f in enumerate(freq):
        order = np.lexsort((rng.random(setting.queries), -left))
        pick = [q for q in order if left[q] > 0][:f]
        incidence[pick, p] = True
        left[pick] -= 1
    return incidence
