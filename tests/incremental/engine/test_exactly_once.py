"""Exactly-once under correlated failures (Section 4, Appendix D.3), checked against an oracle.

Random DAGs of filters, maps, event-time window counts and joins; random placement; node kills at
random times, of several nodes at once, during recovery and of nodes holding buffers (a
recovered node may be killed too), or a single failure (blocking recovery); scarce nodes
arriving one by one; channels interleaved by a seeded random delay, FIFO within a channel. The
sink, every channel's processed inputs and sequence numbers, and the final operator states must
equal plain counting over the input. The same property fails with dedup, order-preserving
processing or buffering switched off. Random schedules rarely replay a multi-input partition
whose output was already consumed (the only case order-preserving processing matters for), so
the property also runs one hand-made schedule that does (an explicit example).
"""

import dataclasses

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings

from tests.incremental.engine.scenarios import (
    BASE,
    replay_of_a_multi_input_partition,
    run_scenario,
    scenarios,
    violations,
)

EXAMPLES = 60
MUTANT_EXAMPLES = 60


def exactly_once(config, examples, phases=tuple(Phase)):
    @settings(
        max_examples=examples,
        deadline=None,
        phases=phases,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(scenarios())
    @example(replay_of_a_multi_input_partition())
    def check(scenario):
        result = run_scenario(scenario, config)
        assert not violations(scenario, result)

    return check


def test_exactly_once_under_random_failures():
    exactly_once(BASE, EXAMPLES)()


@given(scenarios(single_failure=True))
@settings(max_examples=15, deadline=None, database=None)
def test_exactly_once_after_a_single_failure_by_blocking_recovery(scenario):
    result = run_scenario(scenario)
    assert not violations(scenario, result)
    assert not any(event[1] == "plan" and not event[3] for event in result.events)


@pytest.mark.parametrize("switch", ["dedup", "order_preserving", "buffering"])
def test_the_property_catches_each_mechanism_switched_off(switch):
    mutant = dataclasses.replace(BASE, **{switch: False})
    with pytest.raises(AssertionError):
        exactly_once(mutant, MUTANT_EXAMPLES, phases=(Phase.explicit, Phase.generate))()
