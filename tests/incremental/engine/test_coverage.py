"""How often the scenario generator alone catches each mutant (issue 17): a coverage table.

``ENGINE_COVERAGE=1`` runs it (skipped otherwise: about 0.05 CPU s per example and mutant).
``ENGINE_EXAMPLES`` scenarios (default 400) are drawn with Hypothesis seed ``ENGINE_SEED``
(default 0) from each property's strategy (``scenarios``, or ``rekilled``: the saved
counterexamples with more kills inside their recoveries), without the saved counterexamples
themselves; each is run with every mutant written into the engine (or those named in
``ENGINE_MUTANTS``, comma-separated), and the table prints per mutant how many of them violate
exactly-once (caught / N).
The scenarios are drawn once, before any mutant, so every mutant meets the same N scenarios.

    ENGINE_COVERAGE=1 ENGINE_EXAMPLES=400 ENGINE_SEED=101 \\
        python -m pytest tests/incremental/engine/test_coverage.py -s -k rekilled
"""

import contextlib
import dataclasses
import os

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings

from tests.incremental.engine.mutants import CONFIG_MUTANTS, PATCH_MUTANTS, patched
from tests.incremental.engine.scenarios import BASE, outcome, rekilled, scenarios
from tests.incremental.engine.test_exactly_once import COUNTEREXAMPLES

pytestmark = pytest.mark.skipif(
    not os.environ.get("ENGINE_COVERAGE"), reason="coverage table: set ENGINE_COVERAGE=1"
)


def draw_scenarios(count: int, hypothesis_seed: int, strategy) -> list:
    drawn = []

    @seed(hypothesis_seed)
    @settings(
        max_examples=count,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(scenario):
        drawn.append(scenario)

    collect()
    return drawn[:count]


def catch_rates(drawn: list, mutants) -> dict:
    """Mutant -> number of ``drawn`` scenarios whose run violates exactly-once with it."""
    rates = {}
    for mutant in mutants:
        config = dataclasses.replace(BASE, **{mutant: False}) if mutant in CONFIG_MUTANTS else BASE
        patch = patched(mutant) if mutant in PATCH_MUTANTS else contextlib.nullcontext()
        with patch:
            rates[mutant] = sum(bool(outcome(s, config)[1]) for s in drawn)
    return rates


@pytest.mark.parametrize("strategy", ["scenarios", "rekilled"])
def test_print_the_generated_catch_rate_of_each_mutant(strategy):
    count = int(os.environ.get("ENGINE_EXAMPLES", "400"))
    hypothesis_seed = int(os.environ.get("ENGINE_SEED", "0"))
    drawn = draw_scenarios(
        count,
        hypothesis_seed,
        scenarios() if strategy == "scenarios" else rekilled(COUNTEREXAMPLES),
    )
    assert not [s for s in drawn if outcome(s)[1]], "the engine itself violates exactly-once"
    mutants = sorted(CONFIG_MUTANTS) + sorted(PATCH_MUTANTS)
    chosen = os.environ.get("ENGINE_MUTANTS")
    rates = catch_rates(drawn, chosen.split(",") if chosen else mutants)
    print(f"\n{strategy}: generated catch rate, N = {len(drawn)}, seed {hypothesis_seed}")
    for mutant, caught in rates.items():
        print(f"  {mutant:34s} {caught:4d} / {len(drawn)}  ({caught / len(drawn):.1%})")
