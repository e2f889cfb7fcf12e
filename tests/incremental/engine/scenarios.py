"""Random DAGs, placements, failure schedules and the exactly-once check shared by the tests."""

from collections import Counter

import numpy as np
from hypothesis import strategies as st

from incremental.engine import (
    Cluster,
    EngineConfig,
    FailureSchedule,
    Filter,
    Join,
    Map,
    Source,
    Topology,
    WindowCount,
    run,
)
from tests.incremental.engine.oracle import channel_inputs, sink_contents

END = 4.0  # seconds of event time
BASE = EngineConfig(
    batch_interval=0.1,
    checkpoint_interval=0.5,
    detection_delay=0.2,
    network_latency=1e-3,
    network_jitter=5e-3,
    audit=True,
)
COST = 2e-3  # CPU seconds per tuple: replays take long enough for kills to land in them
NODES = ("n0", "n1", "n2", "n3")


@st.composite
def dags(draw):
    dag = []
    for s in range(draw(st.sampled_from([1, 2, 2]))):  # two sources: queries recover apart
        dag.append(
            {
                "name": f"s{s}",
                "kind": "source",
                "inputs": (),
                "parallelism": draw(st.integers(1, 3)),
                "output": False,
            }
        )
    for k in range(draw(st.integers(3, 5))):
        names = [op["name"] for op in dag][-3:]  # recent ones: deep DAGs replay more
        kind = draw(st.sampled_from(["filter", "map", "window", "join"]))
        if kind == "join" and len(names) < 2:
            kind = "window"
        op = {
            "name": f"o{k}",
            "kind": kind,
            "parallelism": draw(st.integers(1, 3)),
            "output": draw(st.booleans()),
        }
        if kind == "join":
            left, right = draw(
                st.lists(st.sampled_from(names), min_size=2, max_size=2, unique=True)
            )
            op.update(inputs=(left, right), size=draw(st.sampled_from([0.5, 1.0])))
        else:
            op["inputs"] = (draw(st.sampled_from(names)),)
        if kind == "filter":
            op["modulus"] = draw(st.integers(2, 3))
            op["drop"] = draw(st.integers(0, op["modulus"] - 1))
        elif kind == "map":
            op["divisor"] = draw(st.integers(2, 3))
        elif kind == "window":
            op["size"] = draw(st.sampled_from([0.5, 1.0]))
            op["slide"] = draw(st.sampled_from([None, 0.25, 0.5]))
        dag.append(op)
    feeding = {up for op in dag for up in op["inputs"]}
    for op in dag:
        if op["kind"] != "source" and op["name"] not in feeding:
            op["output"] = True
    return dag


@st.composite
def scenarios(draw, single_failure=None):
    dag = draw(dags())
    streams = {}
    for op in dag:
        if op["kind"] == "source":
            n = draw(st.integers(40, 160))
            ts = draw(st.lists(st.integers(0, int(END * 100) - 1), min_size=n, max_size=n))
            keys = draw(st.lists(st.integers(0, 7), min_size=n, max_size=n))
            pairs = enumerate(zip(ts, keys, strict=True))
            streams[op["name"]] = [(t / 100, k, i) for i, (t, k) in pairs]
    partitions = [(op["name"], i) for op in dag for i in range(op["parallelism"])]
    # Nodes nearly full at the 80% cap, so alive nodes have little room and recovery waits for
    # arrivals, and a replacement node always fits what a killed node held.
    per_node = -(-len(partitions) // len(NODES))
    share = 0.8 / per_node
    count = dict.fromkeys(NODES, 0)
    placement = {}
    for pid in partitions:
        node = draw(st.sampled_from(NODES))
        while count[node] == per_node:
            node = NODES[(NODES.index(node) + 1) % len(NODES)]
        placement[pid] = node
        count[node] += 1
    single = draw(st.booleans()) if single_failure is None else single_failure
    first = draw(st.integers(3, 45)) / 10
    alive = list(NODES)
    victims = draw(
        st.lists(
            st.sampled_from(alive),
            min_size=1 if single else 2,
            max_size=1 if single else 2,
            unique=True,
        )
    )
    kills = [(first, v) for v in victims]
    arrivals, last = [], first
    if not single:  # scarce resources arriving one by one, kills during recovery
        later = draw(st.integers(0, 2))
        for a in range(3 + later):
            last += draw(st.integers(3, 20)) / 10
            room = draw(st.integers(1, 3)) * share / BASE.cpu_cap  # 1-3 partitions each
            arrivals.append((last, f"a{a}", room * (1 + 1e-9)))
        for _ in range(later):  # while recovery waits for the arrivals
            when = draw(st.integers(round(first * 10) + 3, round(last * 10))) / 10
            targets = [n for n in NODES if n not in victims]
            targets += [name for t, name, _ in arrivals if t < when]  # holding recovered ones
            kills.append((when, draw(st.sampled_from(targets))))
    arrivals.append((last + 8.0, "spare", 8.0))  # eventually room for everything left
    return {
        "dag": dag,
        "share": share,
        "streams": streams,
        "placement": placement,
        "failures": FailureSchedule(kills=tuple(kills), arrivals=tuple(arrivals)),
        "seed": draw(st.integers(0, 2**32 - 1)),
    }


def topology(dag, share) -> Topology:
    ops = []
    for op in dag:
        common = {
            "name": op["name"],
            "parallelism": op["parallelism"],
            "cost": COST,
            "share": share,
            "output": op["output"],
        }
        kind = op["kind"]
        if kind == "source":
            ops.append(Source(**common))
        elif kind == "filter":
            ops.append(
                Filter(input=op["inputs"][0], modulus=op["modulus"], drop=op["drop"], **common)
            )
        elif kind == "map":
            ops.append(Map(input=op["inputs"][0], divisor=op["divisor"], **common))
        elif kind == "window":
            ops.append(
                WindowCount(input=op["inputs"][0], size=op["size"], slide=op["slide"], **common)
            )
        else:
            ops.append(Join(left=op["inputs"][0], right=op["inputs"][1], size=op["size"], **common))
    return Topology(ops)


def run_scenario(scenario, config=BASE):
    return run(
        topology(scenario["dag"], scenario["share"]),
        scenario["streams"],
        cluster=Cluster(nodes=dict.fromkeys(NODES, 1.0), placement=scenario["placement"]),
        end=END,
        rng=np.random.default_rng(scenario["seed"]),
        failures=scenario["failures"],
        config=config,
    )


def violations(scenario, result) -> list[str]:
    """Every way ``result`` departs from exactly-once processing of the scenario's input."""
    dag, streams = scenario["dag"], scenario["streams"]
    found = []
    if not result.completed:
        found.append(f"stream not completed: last global checkpoint {result.global_checkpoint}")
    if result.gaps:
        found.append(f"{len(result.gaps)} sequence gaps, first {result.gaps[0]}")
    if result.conflicts:
        found.append(
            f"{len(result.conflicts)} conflicting sink writes, first {result.conflicts[0]}"
        )
    for name, expected in sink_contents(dag, streams).items():
        got = result.outputs.get(name, {})
        if got != expected:
            found.append(
                f"sink of {name}: {len(set(expected) - set(got))} missing, "
                f"{sum(got[u] != expected.get(u) for u in got)} wrong or extra"
            )
    if result.completed:
        expected = channel_inputs(dag, streams)
        for pid, final in result.final_states.items():
            for ch, processed in final["audit"].items():
                seqs = [seq for seq, _ in processed]
                if seqs != list(range(1, len(seqs) + 1)):
                    found.append(f"channel {ch}->{pid}: sequence numbers not 1..n")
                uids = Counter(uid for _, uid in processed if uid is not None)
                if uids != expected.get((ch, pid), Counter()):
                    found.append(f"channel {ch}->{pid}: processed inputs differ from the oracle")
            state = final["state"]
            if state.get("open") or state.get("tables"):
                found.append(f"{pid}: operator state left after the end of stream")
    return found


def replay_of_a_multi_input_partition():
    """A hand-made schedule: a filter reading two source partitions is killed during an
    incremental recovery after its window downstream consumed some of its output, and recovered
    while that window stays up; its replay must repeat its output order exactly."""
    rng = np.random.default_rng(0)
    ts = np.round(np.sort(rng.uniform(0, END, 300)), 2)
    keys = rng.integers(0, 8, 300)
    return {
        "dag": [
            {"name": "s", "kind": "source", "inputs": (), "parallelism": 2, "output": False},
            {"name": "f", "kind": "filter", "inputs": ("s",), "parallelism": 1,
             "output": False, "modulus": 5, "drop": 4},
            {"name": "w", "kind": "window", "inputs": ("f",), "parallelism": 1,
             "output": True, "size": 0.5, "slide": None},
            {"name": "z", "kind": "map", "inputs": ("s",), "parallelism": 4, "output": True,
             "divisor": 2},
        ],
        "share": 0.4,
        "streams": {"s": [(float(t), int(k), i)
                          for i, (t, k) in enumerate(zip(ts, keys, strict=True))]},
        "placement": {("s", 0): "n0", ("s", 1): "n1", ("f", 0): "n2", ("w", 0): "n3",
                      ("z", 0): "n0", ("z", 1): "n1", ("z", 2): "n2", ("z", 3): "n3"},
        "failures": FailureSchedule(
            kills=((1.0, "n0"), (1.0, "n1"), (2.0, "n2")),
            arrivals=((1.5, "a0", 1.01), (2.5, "a1", 0.51), (6.0, "spare", 8.0)),
        ),
        "seed": 1,
    }
