"""FastRecover: segment-wise checkpointing on operator chains and trees.

Yaduvanshi, *FastRecover: Simple and Effective Fault Recovery in a Distributed Operator-Based
Stream Processing Engine*, MS thesis, University of Illinois at Urbana-Champaign, 2016.
"""

__all__: list[str] = []
