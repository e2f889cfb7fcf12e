"""Each paper's claim rules: a function per claim that turns the notebook's data into a Verdict
(pipeline.scorecard), with the rule stated in numbers. tests/pipeline/test_verdicts_*.py feed every
rule contrary data (``test_*_fails_on_*``)."""

from pipeline.verdicts import fastrecover, multilevel

__all__ = ["fastrecover", "multilevel"]
