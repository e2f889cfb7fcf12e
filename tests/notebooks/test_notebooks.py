"""Every notebook under notebooks/ runs in the quick profile and records what it reproduces."""

import json

import pytest

from pipeline import paths
from pipeline.notebooks import available, run_notebook
from tests.pipeline.test_reports import REMOTE_ASSET

pytestmark = pytest.mark.notebook
NOISE = ("jdk.incubator.vector", "PosixPath(", "blockmgr-", "KeyboardInterrupt caught in kernel")


@pytest.mark.parametrize("name", available())
def test_notebook_runs_in_quick_profile(name, tmp_path, monkeypatch):
    monkeypatch.setenv(paths.RESULTS_ENV, str(tmp_path / "results"))
    status = run_notebook(
        name, "quick", reports_dir=tmp_path / "reports", results_dir=tmp_path / "results"
    )
    assert status.status == "ok", status.error
    manifest = json.loads((tmp_path / "reports" / "manifests" / f"{name}.json").read_text())
    # A notebook exists to produce figures, tables or verdicts: it must produce one.
    assert (
        manifest["figures"]
        or manifest["tables"]
        or (tmp_path / "reports" / "scorecard" / f"{name}.csv").exists()
    )
    # Its page reads offline: no script, style, image or font from another host.
    page = (tmp_path / "reports" / status.html).read_text()
    assert not REMOTE_ASSET.search(page), REMOTE_ASSET.search(page)[0]
    # What a reader sees is the notebook's own: no JVM or kernel noise (it goes to the kernel
    # log), no local paths.
    for noise in NOISE:
        assert noise not in page, noise
    assert status.log and (tmp_path / "reports" / status.log).is_file()
