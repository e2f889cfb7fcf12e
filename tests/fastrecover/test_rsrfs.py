"""Section 3.3's redistribution never raises RT_all, never breaks the budget, keeps RSRFS."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrecover.chain import optimize_chain
from fastrecover.generate import random_chain
from fastrecover.model import Storage, total_overhead
from fastrecover.rsrfs import _pairwise_sum, redistribute, satisfies_rsrfs
from tests.examples import examples


@settings(max_examples=examples(40), deadline=None)
@given(
    st.integers(1, 15),
    st.integers(0, 2**32 - 1),
    st.sampled_from([0.2, 0.4, 0.6]),
    st.sampled_from([10, 60]),
)
def test_redistribution_improves_within_budget_and_rsrfs(n, seed, ch_max, z):
    topology = random_chain(n, np.random.default_rng(seed))
    start = optimize_chain(topology, ch_max, z)
    if not start.feasible:
        assert not redistribute(topology, start, ch_max).feasible
        return
    better = redistribute(topology, start, ch_max)
    assert better.expected_recovery_time <= start.expected_recovery_time
    assert better.checkpoint_overhead <= ch_max * (1 + 1e-12)
    assert better.checkpoint_overhead == total_overhead(topology, better.configuration, Storage())
    assert better.anchors == start.anchors
    assert satisfies_rsrfs(better.frequencies, better.anchors)


def test_rsrfs_check_rejects_non_multiples():
    assert satisfies_rsrfs([4.0, 2.0, 2.0, 6.0], {1, 4})
    assert not satisfies_rsrfs([3.0, 2.0], {1})
    assert not satisfies_rsrfs([1.0, 2.0], {1})


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 300), st.booleans())
def test_group_sums_equal_numpys_sum_to_the_last_bit(seed, length, descending):
    # The moves' scores: a cascade's sum over the same elements in the same order as np.sum
    # (pairwise beyond 8 elements and split beyond 128).
    rng = np.random.default_rng(seed)
    values = rng.exponential(size=length + 5) * 10.0 ** rng.integers(-6, 6, size=length + 5)
    start = int(rng.integers(0, 5))
    group = list(range(start, start + length))[:: -1 if descending else 1]
    step = -1 if descending else 1
    assert _pairwise_sum(values, group[0], length, step) == np.sum(values[group])
