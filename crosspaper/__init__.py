"""Cross-paper code: the shared scenarios and their mapping to each paper's parameters
(``scenarios``), one correlated failure recovered by every paper's scheme (``correlated``), and
the overhead-recovery frontier of every approach's knob (``frontier``).

It imports the paper packages through their public APIs, never Spark nor ``pipeline``: the
notebooks run its ``*_point`` functions through ``pipeline.sweep``.
"""
