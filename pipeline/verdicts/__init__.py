"""Each paper's claim rules, one module per paper or experiment (``pipeline.verdicts.fastrecover``,
...): a function per claim that turns the notebook's data into a Verdict (pipeline.scorecard), with
the rule stated in numbers. tests/pipeline/test_verdicts_*.py feed every rule contrary data
(``test_*_fails_on_*``). Import the modules directly: this package imports none of them, so one
experiment's rules never depend on another's."""
