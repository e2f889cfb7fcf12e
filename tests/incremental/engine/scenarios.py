"""Random DAGs, placements, failure schedules and the exactly-once check shared by the tests."""

import dataclasses
import json
from collections import Counter
from pathlib import Path

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from incremental.engine import (
    Engine,
    EngineConfig,
    FailureSchedule,
    Filter,
    Join,
    Map,
    Source,
    Topology,
    WindowCount,
    recoveries,
)
from tests.incremental.engine.oracle import channel_inputs, sink_contents, sizes

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
JITTERS = (5e-3, 0.03, 0.15)  # mean random part of a channel's delay (s); 0.1 s mini-batches
SPARE_AFTER = 8.0  # s after the last scarce arrival: the spare node, room for everything left
MAX_TUPLES = 20_000  # operator outputs per run: about 1% of drawn DAGs exceed it, a few reach 1e7
UNTIL = 200.0  # virtual seconds: a run still going then has stalled (the stream ends at END)


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
    """A DAG, its input, a placement on four nodes and a failure schedule.

    Kill times are continuous (off the 0.1 s mini-batch grid, so a kill lands mid-step and a
    survivor sees part of a batch). ``single`` kills one node (blocking recovery); otherwise two or
    three nodes fail at once or staggered (the later ones up to 1.5 s after, before or after the
    first is detected), and up to two more are killed while the recovery waits for the scarce
    arrivals or after the spare node came: a node holding a source partition, a recovered node
    (an arrival), a node holding buffers for the failed partitions, or any alive one. Half the
    scenarios get one more kill placed by the run's own events (``_anchored_kill``): around a
    rollback, a plan or a global checkpoint, preferring those in a recovery's catch-up window.
    Whether a kill fell inside a recovery is the engine's to say (``recoveries``), not the
    generator's label. Channel delays have a mean of 5 ms to
    150 ms, so channels interleave across mini-batches. Scenarios whose operators would output
    more than MAX_TUPLES tuples (chains of joins) are not drawn.
    """
    dag = draw(dags())
    streams = {}
    for op in dag:
        if op["kind"] == "source":
            n = draw(st.integers(40, 160))
            ts = draw(st.lists(st.integers(0, int(END * 100) - 1), min_size=n, max_size=n))
            keys = draw(st.lists(st.integers(0, 7), min_size=n, max_size=n))
            pairs = enumerate(zip(ts, keys, strict=True))
            streams[op["name"]] = [(t / 100, k, i) for i, (t, k) in pairs]
    assume(sum(sizes(dag, streams).values()) <= MAX_TUPLES)
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
    first = draw(st.floats(0.3, 4.5))
    victims = draw(
        st.lists(
            st.sampled_from(NODES),
            min_size=1 if single else 2,
            max_size=1 if single else 3,
            unique=True,
        )
    )
    staggered = not single and draw(st.booleans())
    kills = [(first, victims[0])]
    for victim in victims[1:]:
        kills.append((first + draw(st.floats(0.0, 1.5)) if staggered else first, victim))
    arrivals, last = [], max(t for t, _ in kills)
    if not single:  # scarce resources arriving one by one, kills during recovery
        later = draw(st.integers(0, 2))
        for a in range(3 + later):
            last += draw(st.floats(0.3, 2.0))
            room = draw(st.integers(1, 3)) * share / BASE.cpu_cap  # 1-3 partitions each
            arrivals.append((last, f"a{a}", room * (1 + 1e-9)))
        sources = {node for pid, node in placement.items() if pid[0].startswith("s")}
        holders = _holders(dag, placement, victims)
        for _ in range(later):  # while recovery waits for the arrivals, or after the spare's
            when = draw(st.floats(first + 0.05, last + SPARE_AFTER + 1.0))
            recovered = [name for t, name, _ in arrivals if t < when]
            alive = [n for n in NODES if n not in victims] + recovered
            kind = draw(st.sampled_from(["source", "recovered", "holder", "any"]))
            targets = {"source": sources, "recovered": recovered, "holder": holders}.get(kind)
            targets = [n for n in alive if n in targets] if targets else alive
            if targets:
                kills.append((when, draw(st.sampled_from(sorted(targets)))))
    arrivals.append((last + SPARE_AFTER, "spare", 8.0))  # eventually room for everything left
    scenario = {
        "dag": dag,
        "share": share,
        "streams": streams,
        "placement": placement,
        "failures": FailureSchedule(kills=tuple(kills), arrivals=tuple(arrivals)),
        "jitter": draw(st.sampled_from(JITTERS)),
        "seed": draw(st.integers(0, 2**32 - 1)),
    }
    if single_failure is None and draw(st.booleans()):
        scenario = _anchored_kill(draw, scenario)
    return scenario


def _anchored_kill(draw, scenario):
    """One more kill placed by the run's own events: the scenario is run once, and a node alive
    then is killed just before or after one of its rollbacks, plans or global checkpoints after
    the first kill. Random times rarely land there: between a checkpoint's first acks and its
    completion, after a rollback before the survivors acked again, or in the catch-up window
    after a global checkpoint during a recovery. The run is deterministic, so the run with the
    added kill equals the first one up to it."""
    try:
        events = run_scenario(scenario).events
    except Exception:  # noqa: BLE001 - a failing run fails the property anyway
        return scenario
    first = scenario["failures"].kills[0][0]
    anchors = [e[0] for e in events if e[0] > first and e[1] in ("plan", "global checkpoint")]
    spans = recoveries(events)
    catch_up = [  # global checkpoints a recovery outlives: its partitions are still catching up
        e[0] for e in events if e[1] == "global checkpoint" and any(a <= e[0] < b for a, b in spans)
    ]
    if catch_up and draw(st.booleans()):
        anchors = catch_up
    if not anchors:
        return scenario
    when = max(0.0, draw(st.sampled_from(anchors)) + draw(st.floats(-0.05, 0.25)))
    dead, alive = set(), set(NODES)
    for time, kind, *rest in events:
        if time > when:
            break
        if kind == "kill":
            dead.add(rest[0])
        elif kind == "arrive" and rest[0] != "spare":
            alive.add(rest[0])
    targets = sorted(alive - dead)
    if not targets:
        return scenario
    failures = scenario["failures"]
    kills = (*failures.kills, (when, draw(st.sampled_from(targets))))
    return {**scenario, "failures": dataclasses.replace(failures, kills=kills)}


def _holders(dag, placement, victims) -> set:
    """Nodes holding an upstream partition of a partition on ``victims``: its buffers replay."""
    failed = {pid[0] for pid, node in placement.items() if node in victims}
    ups = {up for op in dag if op["name"] in failed for up in op["inputs"]}
    return {node for pid, node in placement.items() if pid[0] in ups}


class _Watched(Engine):
    """The engine, recording which node holds which partitions when: ``held`` lists
    (time, node, partition) at each install and (time, node, None) at each kill."""

    def __init__(self, *args, **kwargs):
        self.held = []
        super().__init__(*args, **kwargs)

    def _install(self, pid, name):
        super()._install(pid, name)
        self.held.append((self.clock.now, name, pid))

    def _kill(self, name):
        if name in self.nodes:
            self.held.append((self.clock.now, name, None))
        super()._kill(name)


def _holding(held, when) -> list:
    """The nodes that hold a partition at ``when`` (any node holding a source partition or an
    upstream buffer does), from ``_Watched.held``."""
    pids = {}
    for time, name, pid in held:
        if time > when:
            break
        if pid is None:
            pids.pop(name, None)
        else:
            pids.setdefault(name, set()).add(pid)
    return sorted(name for name, held_pids in pids.items() if held_pids)


def rekilled(examples: dict):
    """A saved counterexample with 1-2 more node kills at continuous instants inside one of its
    recoveries: from the detection that starts it to 1 s after the global checkpoint that ends it
    (the catch-up window), and before the spare node arrives when the recovery starts before it.
    Each kills a node holding partitions at that instant in the saved run: a source or buffer
    holder, a survivor, or a node a plan filled, often a replacement replaying what an earlier
    incarnation delivered. Random schedules rarely put a second failure into a recovery's short
    windows; the saved examples put their recoveries where bugs already were (an independent
    reviewer's fuzzer found the ``unsend_below_earlier_incarnation`` regression this way after
    60,000 generated examples of ``scenarios`` had missed it)."""
    names = sorted(examples)
    windows = {}  # name -> (windows (start, stop), the saved run's holdings): one run each

    def windows_of(name):
        if name not in windows:
            scenario = examples[name]
            engine = engine_of(scenario, engine=_Watched)
            result = engine.run(UNTIL)
            spare = max(arrival[0] for arrival in scenario["failures"].arrivals)
            spans = []
            for start, stop in recoveries(result.events):
                stop = min(stop, result.end_time) + 1.0
                spans.append((start, min(stop, spare) if start < spare else stop))
            windows[name] = (spans, engine.held)
        return windows[name]

    @st.composite
    def strategy(draw):
        name = draw(st.sampled_from(names))
        spans, held = windows_of(name)
        scenario = examples[name]
        kills = list(scenario["failures"].kills)
        for _ in range(draw(st.integers(1, 2))):
            start, stop = draw(st.sampled_from(spans))
            when = draw(st.floats(start, stop, exclude_max=True))
            holders = _holding(held, when)
            if holders:
                kills.append((when, draw(st.sampled_from(holders))))
        failures = dataclasses.replace(scenario["failures"], kills=tuple(kills))
        return {**scenario, "failures": failures}

    return strategy()


def check_size(scenario) -> None:
    """Refuse a scenario whose run would hold more than MAX_TUPLES operator outputs."""
    total = sum(sizes(scenario["dag"], scenario["streams"]).values())
    if total > MAX_TUPLES:
        raise ValueError(
            f"scenario: its operators output {total} tuples, more than MAX_TUPLES = {MAX_TUPLES} "
            "(fewer records, fewer chained joins or smaller join windows)"
        )


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


def engine_of(scenario, config=BASE, engine=Engine) -> Engine:
    """The engine (class ``engine``) set up to run ``scenario``."""
    check_size(scenario)
    config = dataclasses.replace(config, network_jitter=scenario.get("jitter", BASE.network_jitter))
    return engine(
        topology(scenario["dag"], scenario["share"]),
        scenario["streams"],
        nodes=dict.fromkeys(NODES, 1.0),
        placement=scenario["placement"],
        end=END,
        rng=np.random.default_rng(scenario["seed"]),
        failures=scenario["failures"],
        config=config,
    )


def run_scenario(scenario, config=BASE):
    return engine_of(scenario, config).run(UNTIL)


def outcome(scenario, config=BASE):
    """The run of ``scenario`` and its violations. An engine that raises during the run (a replay
    reading a trimmed source offset, say) has failed the property: that is counted as a
    violation, not left to crash the test. A scenario over the size cap still raises."""
    check_size(scenario)
    try:
        result = run_scenario(scenario, config)
    except Exception as error:  # noqa: BLE001 - any engine error is a violation
        return None, [f"engine raised {type(error).__name__}: {error}"]
    return result, violations(scenario, result)


def violations(scenario, result) -> list[str]:
    """Every way ``result`` departs from exactly-once processing of the scenario's input."""
    dag, streams = scenario["dag"], scenario["streams"]
    found = []
    if not result.completed:  # a stall: the run never reached its end-of-stream checkpoint
        found.append(
            f"stalled: last global checkpoint {result.global_checkpoint} at "
            f"t = {result.end_time:.2f} s"
        )
    if result.gaps:
        found.append(f"{len(result.gaps)} sequence gaps, first {result.gaps[0]}")
    if result.conflicts:
        found.append(
            f"{len(result.conflicts)} conflicting sink writes, first {result.conflicts[0]}"
        )
    for name, expected in sink_contents(dag, streams).items():
        got = result.outputs.get(name, {})
        missing = len(expected.keys() - got.keys())
        extra = len(got.keys() - expected.keys())
        wrong = sum(got[u] != expected[u] for u in got.keys() & expected.keys())
        if missing or extra or wrong:
            found.append(f"sink of {name}: {missing} missing, {extra} extra, {wrong} wrong")
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
            {
                "name": "f",
                "kind": "filter",
                "inputs": ("s",),
                "parallelism": 1,
                "output": False,
                "modulus": 5,
                "drop": 4,
            },
            {
                "name": "w",
                "kind": "window",
                "inputs": ("f",),
                "parallelism": 1,
                "output": True,
                "size": 0.5,
                "slide": None,
            },
            {
                "name": "z",
                "kind": "map",
                "inputs": ("s",),
                "parallelism": 4,
                "output": True,
                "divisor": 2,
            },
        ],
        "share": 0.4,
        "streams": {
            "s": [(float(t), int(k), i) for i, (t, k) in enumerate(zip(ts, keys, strict=True))]
        },
        "placement": {
            ("s", 0): "n0",
            ("s", 1): "n1",
            ("f", 0): "n2",
            ("w", 0): "n3",
            ("z", 0): "n0",
            ("z", 1): "n1",
            ("z", 2): "n2",
            ("z", 3): "n3",
        },
        "failures": FailureSchedule(
            kills=((1.0, "n0"), (1.0, "n1"), (2.0, "n2")),
            arrivals=((1.5, "a0", 1.01), (2.5, "a1", 0.51), (6.0, "spare", 8.0)),
        ),
        "seed": 1,
    }


EXAMPLES_DIR = Path(__file__).parent / "counterexamples"


def save_scenario(scenario, path) -> None:
    """Write a scenario as JSON (partition ids and failure tuples as lists)."""
    plain = {
        **scenario,
        "placement": [[name, i, node] for (name, i), node in scenario["placement"].items()],
        "failures": {
            "kills": scenario["failures"].kills,
            "arrivals": scenario["failures"].arrivals,
        },
    }
    Path(path).write_text(json.dumps(plain, separators=(",", ":")) + "\n")


def load_scenario(path):
    plain = json.loads(Path(path).read_text())
    return {
        **plain,
        "dag": [{**op, "inputs": tuple(op["inputs"])} for op in plain["dag"]],
        "streams": {name: [tuple(r) for r in rows] for name, rows in plain["streams"].items()},
        "placement": {(name, i): node for name, i, node in plain["placement"]},
        "failures": FailureSchedule(
            kills=tuple(map(tuple, plain["failures"]["kills"])),
            arrivals=tuple(map(tuple, plain["failures"]["arrivals"])),
        ),
    }


def counterexamples() -> dict:
    """Every counterexample found so far (``counterexamples/*.json``), by file name."""
    return {path.stem: load_scenario(path) for path in sorted(EXAMPLES_DIR.glob("*.json"))}
