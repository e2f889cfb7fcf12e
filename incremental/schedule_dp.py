"""Exact recovery scheduling by dynamic programming (Algorithm 4, Appendix B).

Algorithm 4 raises the resource usage one unit at a time (lines 10-11) and expands every candidate
plan CP_i by each query Q_k whose conditional cost C_ik equals usage - Cost(CP_i) (lines 13-18):
every union of queries' failed sets within R is reached, in order of cost. Here:

- all plans of one usage level are expanded at once, as bit masks over the failed partitions, and
  a plan reached in different orders (Q_1 then Q_2, Q_2 then Q_1) is kept once (the printed
  algorithm adds it to SC once per order);
- a best-so-far plan is kept. As printed, line 22 removes CP_i from SC once dif exceeds U_i,
  every plan eventually, so line 23 can return from an empty SC (one query of cost 1 with R = 3:
  SC is empty from usage 2 on). A plan leaves SC here once expanded (line 22's purpose, stated in
  Appendix B), and the best plan is remembered when first reached;
- among plans of the highest priority the cheapest, first reached, is returned: unused resources
  carry over to the next plan.

Costs must be integers (the usage unit); R is rounded down.
"""

import math

import numpy as np

from incremental.problem import TOLERANCE, RecoveryProblem, Schedule, check_budget

_WORD = 64


def _pack(member: np.ndarray) -> np.ndarray:
    """(..., P) bool -> (..., W) uint64 bit masks, partition k at bit k % 64 of word k // 64."""
    words = -(-member.shape[-1] // _WORD)
    padded = np.zeros((*member.shape[:-1], words * _WORD), dtype=bool)
    padded[..., : member.shape[-1]] = member
    packed = np.packbits(padded, axis=-1, bitorder="little")  # (..., 8W) bytes
    return np.ascontiguousarray(packed).view("<u8")


def _unpack(masks: np.ndarray, size: int) -> np.ndarray:
    bits = np.unpackbits(masks.view(np.uint8), axis=-1, bitorder="little")
    return bits[..., :size].astype(bool)


def _byte_tables(costs: np.ndarray, words: int) -> np.ndarray:
    """tables[j, b]: the cost of the partitions set in byte value b at byte position j."""
    per_bit = np.zeros(words * _WORD, dtype=np.int64)
    per_bit[: costs.size] = costs
    bits = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")
    return (bits.astype(np.int64) @ per_bit.reshape(-1, 8).T).T  # (8W, 256)


def _mask_cost(masks: np.ndarray, tables: np.ndarray) -> np.ndarray:
    data = np.ascontiguousarray(masks).view(np.uint8)
    total = np.zeros(masks.shape[:-1], dtype=np.int64)
    for j in range(tables.shape[0]):
        total += tables[j][data[..., j]]
    return total


def _distinct(masks: np.ndarray) -> np.ndarray:
    """The distinct rows of (N, W) masks (np.unique(axis=0) sorts a slow void view)."""
    ordered = masks[np.lexsort(masks.T[::-1])]
    keep = np.ones(len(ordered), dtype=bool)
    keep[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    return ordered[keep]


def _integer_costs(problem: RecoveryProblem) -> np.ndarray:
    costs = problem.cost_array
    if not np.all(costs == np.round(costs)):
        bad = [p for p, c in problem.costs.items() if c != round(c)]
        raise ValueError(
            f"schedule_dp needs integer costs (Algorithm 4 adds resources one unit at a time); "
            f"partitions {bad[:5]!r} have fractional costs: scale the costs or use schedule_milp"
        )
    return costs.astype(np.int64)


def schedule_dp(problem: RecoveryProblem, R: float) -> Schedule:
    """The optimal plan of Definition 2 by Algorithm 4 (exact; integer costs; see the module
    docstring for the best-so-far plan and the deduplication)."""
    budget = math.floor(check_budget(R) + TOLERANCE)
    costs = _integer_costs(problem)
    *_, (_, best, _) = _levels(problem, costs, budget)  # the best plan after the last level
    return problem.schedule_mask(_unpack(best, costs.size))


def dp_priorities(problem: RecoveryProblem, budgets) -> list[int]:
    """``schedule_dp(problem, R).priority`` for every R of ``budgets``, from one run of Algorithm
    4 to the largest: the plans of a usage level within a smaller budget are the same (children
    dearer than the usage are only kept for later levels), so the best so far after the last
    level within R is that call's answer."""
    floors = [math.floor(check_budget(R) + TOLERANCE) for R in budgets]
    if not floors:
        return []
    costs = _integer_costs(problem)
    reached = [(usage, priority) for usage, _, priority in _levels(problem, costs, max(floors))]
    return [max(p for usage, p in reached if usage <= b) for b in floors]


def _levels(problem: RecoveryProblem, costs: np.ndarray, budget: int):
    """Algorithm 4's usage levels up to ``budget``: (usage, best plan, its priority) after each
    level that holds plans."""
    queries = _pack(problem.incidence)  # (M, W): QT of line 8
    priorities = problem.priority_array
    tables = _byte_tables(costs, queries.shape[1])
    best, best_priority = np.zeros(queries.shape[1], dtype=np.uint64), 0
    pending: dict[int, list[np.ndarray]] = {0: [best[None, :]]}  # plans by cost; CP_0 = ∅
    for usage in range(budget + 1):  # lines 10-11
        if usage not in pending:
            continue
        plans = _distinct(np.concatenate(pending.pop(usage)))  # one per distinct plan
        covered = ~np.any(queries[None, :, :] & ~plans[:, None, :], axis=2)
        value = covered.astype(np.int64) @ priorities
        top = int(np.argmax(value))
        if value[top] > best_priority:  # best so far, strictly: the cheapest plan wins a tie
            best, best_priority = plans[top], int(value[top])
        yield usage, best, best_priority
        children = plans[:, None, :] | queries[None, :, :]  # lines 16-17: CP_i ∪ QT_ik
        cost = _mask_cost(children, tables)
        grow = (cost > usage) & (cost <= budget)  # C_ik != 0 (line 14) and within R
        children, cost = children[grow], cost[grow]
        if cost.size == 0:
            continue
        order = np.argsort(cost, kind="stable")
        levels, starts = np.unique(cost[order], return_index=True)
        for level, group in zip(levels, np.split(children[order], starts[1:]), strict=True):
            pending.setdefault(int(level), []).append(group)
