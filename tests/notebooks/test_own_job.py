"""Your own job end to end: the template copied outside the repository with changed values, run
through every cross notebook as a user does (`repro run NOTEBOOK --profile quick -p
scenario=<path>`: real papermill and Spark)."""

import os
import re
import subprocess
import sys

import pytest

from crosspaper import scenarios as S
from pipeline import paths

pytestmark = [pytest.mark.notebook, pytest.mark.spark]
# Changed values: a job with half the template's node failures, checkpointing twice as often.
CHANGES = {
    "name": '"my_job_e2e"',
    "description": '"my own job, end to end"',
    "single_per_day": "5.5",
    "interval_s": "30.0",
}


@pytest.fixture(scope="module")
def my_job(tmp_path_factory) -> str:
    text = (S.SCENARIOS / f"{S.TEMPLATE}.toml").read_text()
    for key, value in CHANGES.items():
        text, n = re.subn(rf"(?m)^{key} = .*$", f"{key} = {value}", text)
        assert n == 1, key
    path = tmp_path_factory.mktemp("own_job") / "my_job.toml"
    path.write_text(text)
    s = S.load(path)
    assert (s.name, s.failures.single_per_day, s.checkpoint.interval_s) == ("my_job_e2e", 5.5, 30)
    return str(path)


@pytest.mark.parametrize("name", ["cross_interval", "cross_frontier", "cross_correlated"])
def test_a_cross_notebook_runs_on_a_scenario_file_outside_the_repository(name, my_job, tmp_path):
    env = {
        **os.environ,
        paths.REPORTS_ENV: str(tmp_path / "reports"),
        paths.RESULTS_ENV: str(tmp_path / "results"),
    }
    argv = ["run", name, "--profile", "quick", "-p", f"scenario={my_job}"]
    done = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *argv], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    page = next((tmp_path / "reports").rglob(f"{name}.html")).read_text()
    assert "my own job, end to end" in page  # it ran on the file's scenario, not its default
