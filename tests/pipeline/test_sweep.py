"""pipeline.sweep: deterministic seeds, partition independence, caching and resume."""

import shutil

import pandas as pd
import pytest

from pipeline.imports import import_closure, imports_of
from pipeline.paths import ROOT
from pipeline.sweep import SweepError, code_version, source_files, sweep
from ppa.experiments import fig14_point
from tests.pipeline import sweep_fns

GRID = [{"mu": float(m)} for m in range(7)]


def test_identical_output_with_one_and_three_partitions(spark, tmp_path):
    one = sweep(
        "parts",
        GRID,
        sweep_fns.draws,
        4,
        spark=spark,
        partitions=1,
        results_dir=tmp_path / "a",
        progress=False,
    )
    three = sweep(
        "parts",
        GRID,
        sweep_fns.draws,
        4,
        spark=spark,
        partitions=3,
        results_dir=tmp_path / "b",
        progress=False,
    )
    assert len(one) == len(GRID) * 4
    pd.testing.assert_frame_equal(one, three)
    # Distinct (point, iteration) pairs draw distinct numbers.
    assert one["u"].nunique() == len(one)


def test_seed_depends_on_parameters_not_grid_position(spark, tmp_path):
    forward = sweep(
        "order", GRID, sweep_fns.draws, 2, spark=spark, results_dir=tmp_path / "a", progress=False
    )
    backward = sweep(
        "order",
        GRID[::-1],
        sweep_fns.draws,
        2,
        spark=spark,
        results_dir=tmp_path / "b",
        progress=False,
    )
    key = ["mu", "iteration"]
    pd.testing.assert_frame_equal(
        forward.sort_values(key).reset_index(drop=True),
        backward.sort_values(key).reset_index(drop=True),
    )
    other_seed = sweep(
        "order",
        GRID,
        sweep_fns.draws,
        2,
        seed=1,
        spark=spark,
        results_dir=tmp_path / "a",
        progress=False,
    )
    assert not (other_seed["u"].to_numpy() == forward["u"].to_numpy()).any()


def test_common_random_numbers_draw_the_same_numbers_at_every_point(spark, tmp_path):
    def run(crn):
        return sweep(
            "crn",
            GRID,
            sweep_fns.draws,
            3,
            spark=spark,
            results_dir=tmp_path,
            progress=False,
            common_random_numbers=crn,
        )

    paired, independent = run(True), run(False)
    # The same uniform draw at every point of an iteration, different across iterations.
    assert (paired.groupby("iteration")["u"].nunique() == 1).all()
    assert paired.groupby("mu")["u"].apply(lambda u: u.nunique() == 3).all()
    assert (independent.groupby("iteration")["u"].nunique() == len(GRID)).all()
    # The two seedings are cached apart.
    assert len(list((tmp_path / "crn").glob("*.parquet"))) == 2 * len(GRID)


def test_interrupted_sweep_resumes_without_recomputing(spark, tmp_path):
    log = tmp_path / "calls.log"
    flag = tmp_path / "fail"
    flag.write_text("")
    # The last point fails while the flag exists: the run stops after the first batches.
    grid = [
        {"mu": float(m), "log": str(log), "fail_flag": str(flag) if m == 39 else ""}
        for m in range(40)
    ]
    with pytest.raises(SweepError, match="deliberate failure at mu=39"):
        sweep("resume", grid, sweep_fns.logged, spark=spark, results_dir=tmp_path, progress=False)
    first = log.read_text().split()
    cached = sorted((tmp_path / "resume").glob("*.parquet"))
    assert 0 < len(cached) < len(grid)

    flag.unlink()
    resumed = sweep(
        "resume", grid, sweep_fns.logged, spark=spark, results_dir=tmp_path, progress=False
    )
    second = [float(v) for v in log.read_text().split()[len(first) :]]
    cached_points = {float(pd.read_parquet(f)["mu"].iloc[0]) for f in cached}
    assert 39.0 not in cached_points
    # Exactly the points without a cached file ran again, each once.
    assert sorted(second) == sorted({p["mu"] for p in grid} - cached_points)

    clean = sweep(
        "resume",
        grid,
        sweep_fns.logged,
        spark=spark,
        results_dir=tmp_path / "clean",
        progress=False,
    )
    pd.testing.assert_frame_equal(resumed, clean)

    # A complete rerun computes nothing.
    before = len(log.read_text().split())
    sweep("resume", grid, sweep_fns.logged, spark=spark, results_dir=tmp_path, progress=False)
    assert len(log.read_text().split()) == before


def test_list_output_gives_one_row_per_dict_and_keeps_grid_order(spark, tmp_path):
    grid = [{"rows": 3, "tag": "b"}, {"rows": 1, "tag": "a"}]
    out = sweep(
        "rows", grid, sweep_fns.several_rows, 2, spark=spark, results_dir=tmp_path, progress=False
    )
    assert list(out.columns) == ["rows", "tag", "iteration", "k", "x"]
    assert out["tag"].tolist() == ["b"] * 6 + ["a"] * 2
    assert out["iteration"].tolist() == [0, 0, 0, 1, 1, 1, 0, 1]


def test_failing_function_names_the_point(spark, tmp_path):
    with pytest.raises(SweepError, match=r"\{'lam': -1\}.*ValueError: lam must be > 0"):
        sweep(
            "fails",
            [{"lam": -1}],
            sweep_fns.failing,
            spark=spark,
            results_dir=tmp_path,
            progress=False,
        )
    assert not list((tmp_path / "fails").glob("*.parquet"))


def test_output_clashing_with_parameters_is_refused(spark, tmp_path):
    with pytest.raises(SweepError, match="clashes"):
        sweep(
            "clash",
            [{"mu": 0.0}],
            sweep_fns.clashing,
            spark=spark,
            results_dir=tmp_path,
            progress=False,
        )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"experiment": "a/b"}, "experiment"),
        ({"grid": [1, 2]}, "grid"),
        ({"iterations": 0}, "iterations"),
        ({"iterations": 2.5}, "iterations"),
        ({"fn": 3}, "fn"),
        ({"grid": [{"x": object()}]}, "parameters"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(kwargs, message, tmp_path):
    args = {"experiment": "ok", "grid": [{"mu": 1}], "fn": sweep_fns.draws, "iterations": 1}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        sweep(
            args.pop("experiment"),
            args.pop("grid"),
            args.pop("fn"),
            args.pop("iterations"),
            results_dir=tmp_path,
            progress=False,
        )


def test_code_version_follows_the_defining_source():
    assert code_version(sweep_fns.draws) == code_version(sweep_fns.draws)
    assert code_version(sweep_fns.draws) != code_version(sweep_fns.failing)


def _copy(tmp_path, *packages):
    for name in packages:
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))


def _append(file, text="\n# edited\n"):
    with open(file, "a") as handle:
        handle.write(text)


def test_editing_the_runner_or_a_verdict_keeps_a_ppa_sweeps_cache_and_its_imports_do_not(tmp_path):
    _copy(tmp_path, "ppa", "pipeline")
    roots = [tmp_path]
    before = code_version(fig14_point, roots)
    _append(tmp_path / "pipeline" / "index.py")
    _append(tmp_path / "pipeline" / "verdicts" / "ppa_topologies.py")
    _append(tmp_path / "ppa" / "latency.py")  # in ppa, but Fig 14's points never import it
    assert code_version(fig14_point, roots) == before
    _append(tmp_path / "ppa" / "topology.py")  # imported by ppa.experiments (and by its imports)
    edited = code_version(fig14_point, roots)
    assert edited != before
    _append(tmp_path / "ppa" / "planners" / "greedy.py")  # through ppa.planners' __init__
    assert code_version(fig14_point, roots) != edited


def test_a_cached_ppa_point_survives_a_verdict_edit_and_not_a_model_edit(spark, tmp_path):
    _copy(tmp_path / "code", "ppa", "pipeline")
    roots = [tmp_path / "code"]
    grid = [{"mu": 0.0, "log": str(tmp_path / "calls.log")}]

    def run():
        version = code_version(fig14_point, roots)
        return sweep(
            "cached",
            grid,
            sweep_fns.logged,
            results_dir=tmp_path,
            progress=False,
            version=version,
            spark=spark,
        )

    first = run()
    _append(tmp_path / "code" / "pipeline" / "verdicts" / "ppa_topologies.py")
    pd.testing.assert_frame_equal(run(), first)
    assert (tmp_path / "calls.log").read_text().count("\n") == 1  # computed once
    _append(tmp_path / "code" / "ppa" / "fidelity.py")
    run()
    assert (tmp_path / "calls.log").read_text().count("\n") == 2  # recomputed


def test_a_pipeline_job_is_versioned_by_the_paper_modules_it_imports_only():
    from pipeline.jobs import ppa_queries

    files = {f.relative_to(ROOT).as_posix() for f in source_files(ppa_queries.q1_partials)}
    assert {"pipeline/jobs/ppa_queries.py", "ppa/fidelity.py", "ppa/topology.py"} <= files
    assert not {"pipeline/index.py", "pipeline/sweep.py", "khaos/simulate.py"} & files
    assert not any(f.startswith("pipeline/verdicts/") for f in files)
    own = {f.relative_to(ROOT).as_posix() for f in source_files(sweep_fns.draws)}
    assert own == {"tests/pipeline/sweep_fns.py"}


def test_imports_are_read_from_every_statement_relative_ones_resolved():
    source = (
        "import a.b\nfrom c import d\nfrom . import e\nfrom ..f import g\n"
        "def h():\n    from i.j import k\n"
    )
    names = imports_of(source, "p.q.r")
    assert names == {"a.b", "c", "c.d", "p.q", "p.q.e", "p.f", "p.f.g", "i.j", "i.j.k"}
    assert imports_of("from . import x", "p", is_package=True) == {"p", "p.x"}
    with pytest.raises(ValueError, match="beyond the top package"):
        imports_of("from ... import x", "p.q")


def test_the_closure_follows_imports_transitively_and_stays_in_the_project(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("import numpy\nfrom pkg import b\n")
    (tmp_path / "pkg" / "b.py").write_text("def f():\n    from .c import x\n")
    (tmp_path / "pkg" / "c.py").write_text("x = 1\n")
    (tmp_path / "pkg" / "unused.py").write_text("")
    files = import_closure(["pkg.a"], [tmp_path])
    assert [f.name for f in files] == ["a.py", "b.py", "c.py"]


def test_an_overhead_bound_sweep_grows_its_batches_and_a_slow_one_keeps_the_target():
    from pipeline.sweep import TARGET_BATCH_SECONDS, next_batch_tasks

    # Spark's fixed cost per job (1.5 s) dominates: points of 2 ms each.
    tasks, sizes = 4, []
    for _ in range(8):
        tasks = next_batch_tasks(tasks, 1.5 + 0.002 * tasks / 2, parallelism=2)
        sizes.append(tasks)
    assert sizes[:5] == sorted(sizes[:5]) and sizes[-1] >= 1000  # it was stuck at 4 before
    # Points of 2 s each: the batch that fills the target, never less than 2 per core.
    assert next_batch_tasks(10, 10.0, parallelism=2) == int(TARGET_BATCH_SECONDS * 10 / 10.0)
    assert next_batch_tasks(4, 100.0, parallelism=2) == 4


def test_a_worker_freezes_the_collector_once_per_function_after_its_first_run():
    """The reused worker's gc.collect() after every task skips what was alive after a function's
    first run (pipeline.sweep._freeze_after_first_run); the rows are those of an unfrozen run."""
    import gc

    from pipeline.sweep import _FROZEN, _run_task

    _FROZEN.discard(("tests.pipeline.sweep_fns", "draws"))
    gc.unfreeze()
    try:
        first = _run_task(sweep_fns.draws, 0, 1, (0, 2, 3, {"mu": 1.0}))
        frozen = gc.get_freeze_count()
        assert frozen > 0
        junk = [[] for _ in range(100)]  # objects made after the freeze stay collectable
        again = _run_task(sweep_fns.draws, 0, 1, (0, 2, 3, {"mu": 1.0}))
        assert gc.get_freeze_count() <= frozen  # once per function: junk is not frozen
        assert first == again and first[3] is None
        del junk
    finally:
        gc.unfreeze()


def test_the_freeze_keeps_no_garbage_of_the_first_run():
    """The first run's cyclic garbage is collected before the freeze, not frozen for the worker's
    lifetime (fails without the gc.collect() before gc.freeze())."""
    import gc

    from pipeline.sweep import _FROZEN, _run_task

    _FROZEN.discard(("tests.pipeline.sweep_fns", "leaves_a_cycle"))
    gc.unfreeze()
    gc.disable()  # no automatic collection may free the cycle first
    try:
        _run_task(sweep_fns.leaves_a_cycle, 0, 1, (0, 2, 3, {}))
        assert sweep_fns.LEFT[-1]() is None
    finally:
        gc.enable()
        gc.unfreeze()
