"""The exactly-once oracle: plain counting over the whole input, never touching the engine.

A DAG is a list of plain dicts in topological order: {"name", "kind" (source, filter, map,
window, join), "inputs", "parallelism", "output", parameters}. Tuples are (uid, key, ts, value)
with the lineage uids the paper's operators get in the engine's documentation: (source, partition,
offset) for a record, (window, index, key) for a window count, (join, uid_l, uid_r) for a join
result; filter and map keep their input's uid. Keys are ints, routed to partition key % p.
"""

import math
from collections import Counter, defaultdict


def evaluate(dag, streams):
    """Per operator, its output tuples with the index of the partition that produced each."""
    out = {}
    for op in dag:
        name, p = op["name"], op["parallelism"]
        kind = op["kind"]
        if kind == "source":
            logs = defaultdict(list)
            for record in sorted(streams[name], key=lambda r: r[0]):
                logs[record[1] % p].append(record)
            out[name] = [
                (i, ((name, i, offset), key, ts, value))
                for i, log in logs.items()
                for offset, (ts, key, value) in enumerate(log)
            ]
            continue
        inputs = [[t for _, t in out[up]] for up in op["inputs"]]
        if kind == "filter":
            out[name] = [(t[1] % p, t) for t in inputs[0] if t[1] % op["modulus"] != op["drop"]]
        elif kind == "map":
            out[name] = [(t[1] % p, (t[0], t[1] // op["divisor"], t[2], t[3])) for t in inputs[0]]
        elif kind == "window":
            step = op["slide"] or op["size"]
            span = round(op["size"] / step)
            counts = Counter()
            for _, key, ts, _ in inputs[0]:
                last = math.floor(ts / step)
                for i in range(last - span + 1, last + 1):
                    counts[(i, key)] += 1
            out[name] = [
                (key % p, ((name, i, key), key, (i + span) * step, n))
                for (i, key), n in counts.items()
            ]
        elif kind == "join":
            size = op["size"]
            out[name] = [
                (a[1] % p, ((name, a[0], b[0]), a[1], max(a[2], b[2]), (a[3], b[3])))
                for a in inputs[0]
                for b in inputs[1]
                if a[1] == b[1] and math.floor(a[2] / size) == math.floor(b[2] / size)
            ]
        else:
            raise ValueError(f"unknown kind {kind!r}")
    return out


def sink_contents(dag, streams):
    """Per output operator, uid -> (key, ts, value)."""
    out = evaluate(dag, streams)
    return {op["name"]: {t[0]: t[1:] for _, t in out[op["name"]]} for op in dag if op["output"]}


def channel_inputs(dag, streams):
    """Per channel (upstream partition, downstream partition), the Counter of uids it carries."""
    out = evaluate(dag, streams)
    channels = defaultdict(Counter)
    for op in dag:
        for up in op["inputs"]:
            for producer, t in out[up]:
                channels[((up, producer), (op["name"], t[1] % op["parallelism"]))][t[0]] += 1
    return channels


def sizes(dag, streams):
    """Per operator, how many tuples it outputs, counted over (key, ts) without building them: a
    chain of joins can multiply the input by orders of magnitude (the generator's size cap)."""
    out = {}
    for op in dag:
        kind = op["kind"]
        if kind == "source":
            out[op["name"]] = Counter((key, ts) for ts, key, _ in streams[op["name"]])
            continue
        inputs = [out[up] for up in op["inputs"]]
        counts = Counter()
        if kind == "filter":
            for (key, ts), n in inputs[0].items():
                if key % op["modulus"] != op["drop"]:
                    counts[(key, ts)] += n
        elif kind == "map":
            for (key, ts), n in inputs[0].items():
                counts[(key // op["divisor"], ts)] += n
        elif kind == "window":
            step = op["slide"] or op["size"]
            span = round(op["size"] / step)
            windows = set()
            for key, ts in inputs[0]:
                last = math.floor(ts / step)
                windows.update((i, key) for i in range(last - span + 1, last + 1))
            for i, key in windows:
                counts[(key, (i + span) * step)] += 1
        elif kind == "join":
            groups = [defaultdict(list), defaultdict(list)]
            for side, counter in enumerate(inputs):
                for (key, ts), n in counter.items():
                    groups[side][(key, math.floor(ts / op["size"]))].append((ts, n))
            for group, left in groups[0].items():
                for ta, na in left:
                    for tb, nb in groups[1].get(group, ()):
                        counts[(group[0], max(ta, tb))] += na * nb
        else:
            raise ValueError(f"unknown kind {kind!r}")
        out[op["name"]] = counts
    return {name: sum(counts.values()) for name, counts in out.items()}
