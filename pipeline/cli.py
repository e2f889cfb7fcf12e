"""``repro``: list, run and report the notebooks.

    repro list
    repro run NAME [--profile quick|full] [-p key=value ...] [--master URL]
    repro reports [--profile quick|full] [--only GLOB] [--master URL]
    repro clean
    repro verify [--reference DIR]     compare reports/ with the committed reference run
    repro reference                    make the current reports/ the reference run

Usage errors (unknown notebook, profile or parameter, a -p value of the wrong type or outside its
declared range, malformed -p, a missing --notebooks folder, a Spark master URL that is malformed or
does not answer, no Java) print one line and exit 2 before any notebook runs; a notebook that fails
exits 1 after the index records it; Ctrl-C records the run as interrupted, rebuilds the index,
prints "interrupted" and exits 130. Each running notebook's progress bars show on one line redrawn
on a terminal, as a plain line every 30 s otherwise.
"""

import argparse
import fnmatch
import logging
import os
import shutil
import sys
from pathlib import Path

from pipeline import paths, verify
from pipeline.notebooks import (
    PROFILES,
    UsageError,
    available,
    declared_parameters,
    parameters_for,
    parse_assignment,
    profile_parameters,
    resolve,
    run_notebook,
)
from pipeline.rerun import fingerprint, is_current
from pipeline.spark import MASTER_ENV, JavaError, MasterError, check_java, check_master, master_url


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, instead of usage + message
        self.exit(2, f"repro: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="repro", description="Reproduce the five papers' tables and figures.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("list", help="notebooks, their parameters and profile values")
    run = sub.add_parser("run", help="run one notebook and refresh the index")
    run.add_argument("name")
    reports = sub.add_parser("reports", help="run every notebook and build reports/index.html")
    reports.add_argument("--only", default="*", help="glob of notebook names (default: all)")
    reports.add_argument(
        "--force",
        action="store_true",
        help="rerun every notebook, not only those whose notebook, parameters or imported "
        "code changed since their last ok run",
    )
    for p in (sub.choices["list"], run, reports):
        p.add_argument(
            "--notebooks",
            type=Path,
            default=paths.NOTEBOOKS,
            help="folder of the notebooks and their profiles.toml (default notebooks/)",
        )
    for p in (run, reports):
        p.add_argument("--profile", default="full", choices=PROFILES)
        p.add_argument("--master", help=f"Spark master URL (default ${MASTER_ENV} or local[*])")
    run.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a notebook parameter (a Python literal, else a string) with a value "
        "of its default's type",
    )
    sub.add_parser("clean", help="remove generated reports, sweep results and generated data")
    check = sub.add_parser(
        "verify",
        help="compare reports/ with the reference run (running the full profile first if "
        "there is no run); exit 1 when a verdict changed or a cell is outside its tolerance",
    )
    check.add_argument("--reference", type=Path, default=verify.REFERENCE)
    check.add_argument("--notebooks", type=Path, default=paths.NOTEBOOKS)
    sub.add_parser("reference", help="copy reports/ (a cold full run) into data/reference/")
    return parser


def _list(notebooks: Path) -> int:
    for name in available(notebooks):
        print(name)
        for key, default in declared_parameters(resolve(name, notebooks)).items():
            quick = profile_parameters(name, "quick", notebooks / "profiles.toml").get(key)
            extra = f"   (quick: {quick!r})" if quick is not None else ""
            print(f"    {key} = {' '.join(default.split())}{extra}")
    return 0


def _run_many(names: list[str], profile: str, overrides: dict, notebooks: Path) -> int:
    from pipeline.index import build_index

    reports = paths.reports_dir()
    live = sys.stdout.isatty()  # redraw one line on a terminal, plain lines in logs and pipes
    failed = 0
    try:
        for i, name in enumerate(names, 1):
            print(f"[{i}/{len(names)}] {name} ({profile}) ...", flush=True)
            status = run_notebook(
                name, profile, overrides, notebooks_dir=notebooks, progress=sys.stdout, live=live
            )
            failed += status.status != "ok"
            tail = f": {status.error}" if status.error else ""
            print(
                f"[{i}/{len(names)}] {name}: {status.status} in {status.seconds} s{tail}",
                flush=True,
            )
    finally:  # an interrupted run is in the index too
        index, card = build_index(reports)
    verdicts = card["verdict"].value_counts().to_dict() if len(card) else {}
    print(f"index: {index}\nscorecard: {reports / 'scorecard.csv'} {verdicts}")
    if failed:
        print(f"repro: {failed} of {len(names)} notebooks failed (see the index)", file=sys.stderr)
    return 1 if failed else 0


def _changed(names: list[str], profile: str, notebooks: Path) -> list[str]:
    """The notebooks to rerun: changed since their last ok run (pipeline.rerun)."""
    changed = []
    for name in names:
        params = parameters_for(name, profile, {}, notebooks)
        current = fingerprint(resolve(name, notebooks), profile, params)
        if not is_current(paths.reports_dir() / "status" / f"{name}.json", current):
            changed.append(name)
    if len(changed) < len(names):
        unchanged = len(names) - len(changed)
        print(f"{unchanged} notebooks unchanged since their last ok run (--force reruns them)")
    return changed


def _clean() -> int:
    """Remove the reports and results folders in use ($REPRO_* or the checkout's); the checkout's
    generated data sets (data/raw) only when neither folder was moved, so a run pointed at
    scratch folders never deletes the checkout's files."""
    reports = paths.reports_dir()
    for child in reports.iterdir() if reports.exists() else []:
        if child.name != "README.md":
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    moved = any(os.environ.get(k) for k in (paths.REPORTS_ENV, paths.RESULTS_ENV))
    folders = [paths.results_dir()] + ([] if moved else [paths.RAW_DATA])
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"removed generated files under {reports} and {' and '.join(map(str, folders))}")
    if moved:
        print(f"kept {paths.RAW_DATA} ({paths.REPORTS_ENV} or {paths.RESULTS_ENV} is set)")
    return 0


def _verify(reference: Path, notebooks: Path) -> int:
    reports = paths.reports_dir()
    if not (reference / "scorecard.csv").exists():
        raise UsageError(f"no reference run in {reference}: 'repro reference' writes one")
    if not (reports / "scorecard.csv").exists():
        print(f"no run in {reports}: running the full profile first", file=sys.stderr)
        check_master(master_url())
        check_java()
        _run_many(available(notebooks), "full", {}, notebooks)
    differences = verify.verify(reports, reference)
    print(verify.table_text(differences))
    return 1 if any(d.fails for d in differences) else 0


def _reference() -> int:
    folder = verify.write_reference(paths.reports_dir())
    print(f"wrote the reference run to {folder}")
    return 0


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    args = _parser().parse_args(argv)
    try:
        notebooks = getattr(args, "notebooks", None)
        if notebooks is not None and not Path(notebooks).is_dir():
            raise UsageError(f"--notebooks {notebooks}: no such folder")
        if args.command == "list":
            return _list(args.notebooks)
        if args.command == "clean":
            return _clean()
        if args.command == "verify":
            return _verify(args.reference, args.notebooks)
        if args.command == "reference":
            return _reference()
        if args.command == "run":
            overrides = dict(parse_assignment(p) for p in args.param)
            resolve(args.name, args.notebooks)
            names, profile = [args.name], args.profile
        else:
            names = [n for n in available(args.notebooks) if fnmatch.fnmatch(n, args.only)]
            if not names and args.only != "*":
                raise UsageError(
                    f"no notebook matches --only {args.only!r}; 'repro list' shows them"
                )
            overrides, profile = {}, args.profile
        for name in names:  # every usage error before the first (slow) run
            parameters_for(name, profile, overrides, args.notebooks)
        if args.command == "reports" and not args.force:
            names = _changed(names, profile, args.notebooks)
        # Probed once, and set only once it answers: the kernels inherit it, and so would a typo.
        check_master(args.master or master_url())
        if args.master:
            os.environ[MASTER_ENV] = args.master
        check_java()
        return _run_many(names, profile, overrides, args.notebooks)
    except (UsageError, JavaError, MasterError, FileNotFoundError) as exc:
        print(f"repro: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # the run is recorded as interrupted and the index rebuilt
        print("\nrepro: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `repro list | head`: the reader left; end quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
